#ifndef SWEEP_PATH_H
#define SWEEP_PATH_H

/* File names and folders: making a path absolute, creating folders. */

/*
 * path made absolute against cwd (an absolute folder, not read when path
 * starts with '/'): leading "./" are dropped and "." is cwd itself. Newly
 * allocated; the caller frees it.
 */
char *path_absolute(const char *path, const char *cwd);

/*
 * Creates the folder path and the folders above it that are missing, as
 * mkdir -p; folders that exist are fine. Fails with the folder that could
 * not be made named in the error.
 */
int path_mkdir_p(const char *path);

/*
 * Where a shell's `command -v NAME` finds the program name: name itself
 * when it holds a '/' (and is executable), else the first executable
 * regular file NAME in the folders of $PATH. NULL when there is none;
 * else newly allocated.
 */
char *path_which(const char *name);

#endif
