#include "path.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "quote.h"
#include "strbuf.h"

#include "banned.h"

char *path_absolute(const char *path, const char *cwd)
{
	if (path[0] == '/')
		return xstrdup(path);
	while (path[0] == '.' && path[1] == '/')
		path += 2;
	if (!strcmp(path, "."))
		return xstrdup(cwd);
	return xstrfmt("%s/%s", cwd, path);
}

int path_mkdir_p(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = 0;

	strbuf_addstr(&sb, path);
	for (size_t i = 1; i <= sb.len; i++) {
		if (sb.buf[i] != '/' && sb.buf[i] != '\0')
			continue;
		sb.buf[i] = '\0';
		if (mkdir(sb.buf, 0755) < 0 && errno != EEXIST) {
			ret = error("cannot create folder '%s': %s", sb.buf, strerror(errno));
			goto out;
		}
		sb.buf[i] = i < sb.len ? '/' : '\0';
	}
out:
	strbuf_release(&sb);
	return ret;
}

char *path_owner_name(uid_t uid)
{
	struct passwd *pw = getpwuid(uid);

	return pw ? xstrfmt("user '%s' (uid %u)", pw->pw_name, (unsigned)uid)
	          : xstrfmt("uid %u", (unsigned)uid);
}

/* Who besides the owner may write a folder of this mode. */
static const char *writers(mode_t mode)
{
	if ((mode & S_IWGRP) && (mode & S_IWOTH))
		return "group and others";
	return mode & S_IWGRP ? "its group" : "others";
}

char *path_private_problem(const char *path, const char *what)
{
	struct strbuf fix = STRBUF_INIT;
	struct stat st;
	char *owner, *why;

	if (stat(path, &st) < 0)
		return xstrfmt("cannot read the %s '%s': %s", what, path, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return xstrfmt("the %s '%s' is not a folder", what, path);
	if (st.st_uid != geteuid()) {
		owner = path_owner_name(st.st_uid);
		why = xstrfmt("refusing the %s '%s': it belongs to %s, not to you, who could "
		              "change what sweep reads and runs; use a folder of your own",
		              what, path, owner);
		free(owner);
		return why;
	}
	if (!(st.st_mode & (S_IWGRP | S_IWOTH)))
		return NULL;
	quote_sh(&fix, path);
	why = xstrfmt("refusing the %s '%s': it is writable by %s, who could change what sweep "
	              "reads and runs; make it yours alone with: chmod go-w %s",
	              what, path, writers(st.st_mode), fix.buf);
	strbuf_release(&fix);
	return why;
}

int path_check_private(const char *path, const char *what)
{
	char *why = path_private_problem(path, what);
	int ret = why ? error("%s", why) : 0;

	free(why);
	return ret;
}

int path_mkdir_private(const char *path, const char *what, bool must_be_new)
{
	int err = mkdir(path, PATH_PRIVATE_DIR) < 0 ? errno : 0;
	struct stat st;

	if (err == ENOENT) {
		const char *slash = strrchr(path, '/');
		char *parent =
		    slash && slash != path ? xstrndup(path, (size_t)(slash - path)) : NULL;
		int ret = parent ? path_mkdir_p(parent) : 0;

		free(parent);
		if (ret < 0)
			return ret;
		err = mkdir(path, PATH_PRIVATE_DIR) < 0 ? errno : 0;
	}
	if (err == EEXIST && must_be_new)
		return error("cannot make the %s '%s': it exists already", what, path);
	if (err == EEXIST)
		return path_check_private(path, what);
	if (err)
		return error("cannot create folder '%s': %s", path, strerror(err));
	/* The umask may have cleared owner bits: set the mode, never through a link. */
	if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return error("cannot create folder '%s': it was replaced meanwhile", path);
	if ((st.st_mode & 07777) != PATH_PRIVATE_DIR &&
	    fchmodat(AT_FDCWD, path, PATH_PRIVATE_DIR, AT_SYMLINK_NOFOLLOW) < 0)
		return error("cannot make the folder '%s' private: %s", path, strerror(errno));
	return 0;
}

int path_open_private(const char *path, int flags, mode_t mode)
{
	for (int try = 0; try < 4; try++) {
		int fd = open(path, flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		struct stat st;
		int saved;

		if (fd >= 0) {
			if (fstat(fd, &st) == 0 && (st.st_mode & 07777) == mode)
				return fd;
			if (fchmod(fd, mode) == 0)
				return fd;
			saved = errno;
			close(fd);
			unlink(path);
			errno = saved;
			return -1;
		}
		if (errno != EEXIST)
			return -1;
		fd = open(path, (flags & ~O_EXCL) | O_NOFOLLOW | O_CLOEXEC);
		/* Removed between the two opens: create it again. */
		if (fd >= 0 || errno != ENOENT)
			return fd;
	}
	errno = EEXIST;
	return -1;
}

int path_write_file(const char *path, const char *data, size_t len, mode_t mode)
{
	char *tmp = xstrfmt("%s.tmp", path);
	int fd, ret = 0;
	size_t done = 0;

	/* Made afresh: a left-over temporary keeps its own mode and owner. */
	if (unlink(tmp) < 0 && errno != ENOENT) {
		ret = error("cannot write '%s': %s", tmp, strerror(errno));
		goto out;
	}
	fd = path_open_private(tmp, O_WRONLY | O_TRUNC, mode);
	if (fd < 0) {
		ret = error("cannot write '%s': %s", tmp, strerror(errno));
		goto out;
	}
	while (done < len) {
		ssize_t n = write(fd, data + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = error("cannot write '%s': %s", tmp, strerror(errno));
			close(fd);
			goto out;
		}
		done += (size_t)n;
	}
	if (fsync(fd) < 0 || close(fd) < 0) {
		ret = error("cannot write '%s': %s", tmp, strerror(errno));
		goto out;
	}
	if (rename(tmp, path) < 0)
		ret = error("cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
out:
	if (ret < 0)
		unlink(tmp);
	free(tmp);
	return ret;
}

mode_t path_umask(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return mask;
}

static bool is_program(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

char *path_which(const char *name)
{
	const char *dirs = getenv("PATH");

	if (!name || !*name)
		return NULL;
	if (strchr(name, '/'))
		return is_program(name) ? xstrdup(name) : NULL;
	for (const char *p = dirs ? dirs : ""; p;) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);
		/* An empty entry is the current folder, as in the shell. */
		char *cand = n ? xstrfmt("%.*s/%s", (int)n, p, name) : xstrfmt("./%s", name);

		if (is_program(cand))
			return cand;
		free(cand);
		p = colon ? colon + 1 : NULL;
	}
	return NULL;
}

char *path_self_exe(void)
{
	char buf[4096];
	struct stat st;
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	if (n <= 0 || (size_t)n >= sizeof(buf) - 1)
		return NULL;
	buf[n] = '\0';
	/* A binary replaced while running reads as "PATH (deleted)". */
	if (buf[0] != '/' || stat(buf, &st) < 0 || !S_ISREG(st.st_mode) || access(buf, X_OK) < 0)
		return NULL;
	return xstrdup(buf);
}
