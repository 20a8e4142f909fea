#ifndef SWEEP_PATH_H
#define SWEEP_PATH_H

/*
 * File names and folders: making a path absolute, creating folders, and
 * the one place that creates sweep's private files (everything under the
 * state folder, and the files a task sources or executes).
 *
 * Private means owner-only, whatever the caller's umask: folders 0700,
 * files 0600, scripts 0700. The mode is set on the descriptor of a file
 * sweep has just created (fchmod), so a umask that clears more (0277) or
 * less (000, 002) changes nothing.
 */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define PATH_PRIVATE_DIR  0700
#define PATH_PRIVATE_FILE 0600
#define PATH_PRIVATE_EXEC 0700
/* What sweep creates outside its state folder (logs) is at most this. */
#define PATH_SHARED_FILE 0644

/*
 * path made absolute against cwd (an absolute folder, not read when path
 * starts with '/'): leading "./" are dropped and "." is cwd itself. Newly
 * allocated; the caller frees it.
 */
char *path_absolute(const char *path, const char *cwd);

/*
 * Creates the folder path and the folders above it that are missing, as
 * mkdir -p; folders that exist are fine. New folders are never writable by
 * group or others (mode 0755 less the umask). Fails with the folder that
 * could not be made named in the error.
 */
int path_mkdir_p(const char *path);

/*
 * Fails, naming path and the fix, when the folder path (a link is
 * followed) belongs to another user or is writable by group or others:
 * someone else could then swap the files sweep reads or runs. what names
 * the folder in the message ("state folder", "task folder"). Also fails
 * when path is not a folder. Readable by others is fine.
 */
int path_check_private(const char *path, const char *what);

/* "user 'NAME' (uid N)", or "uid N" for a uid with no name. Caller frees. */
char *path_owner_name(uid_t uid);

/* What path_check_private would report (newly allocated), or NULL when path is fine. */
char *path_private_problem(const char *path, const char *what);

/*
 * Creates the folder path with mode PATH_PRIVATE_DIR exactly, and the
 * missing folders above it as path_mkdir_p. A folder that is there
 * already is checked with path_check_private (its mode is left alone);
 * with must_be_new it is an error instead ("... exists already").
 */
int path_mkdir_private(const char *path, const char *what, bool must_be_new);

/*
 * Opens path for writing (flags: O_WRONLY or O_RDWR, and O_APPEND, O_TRUNC),
 * creating it when it is missing. A file this call creates gets exactly
 * mode; one that exists keeps its mode. Never follows a symbolic link at
 * path. Returns the descriptor (close-on-exec), or -1 with errno set and
 * nothing reported.
 */
int path_open_private(const char *path, int flags, mode_t mode);

/*
 * Writes len bytes of data to path through path.tmp (made afresh, with
 * exactly mode, and synced) renamed into place: a reader sees the old file
 * or the new one, never a part. Fails naming the file.
 */
int path_write_file(const char *path, const char *data, size_t len, mode_t mode);

/* The process's umask (read without changing it for long: not thread-safe). */
mode_t path_umask(void);

/*
 * Where a shell's `command -v NAME` finds the program name: name itself
 * when it holds a '/' (and is executable), else the first executable
 * regular file NAME in the folders of $PATH. NULL when there is none;
 * else newly allocated.
 */
char *path_which(const char *name);

/*
 * This process's own executable, absolute (/proc/self/exe), newly
 * allocated; NULL when it cannot be read or the file was replaced or
 * removed since it started.
 */
char *path_self_exe(void);

#endif
