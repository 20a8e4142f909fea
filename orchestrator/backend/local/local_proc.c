/*
 * The local backend's view of processes, from /proc: a task is the
 * session its script leads.
 */
/* wait4 (one child's own resource use, its peak RSS) is BSD, not POSIX. */
#define _DEFAULT_SOURCE
#include "local.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "array.h"
#include "error.h"
#include "gpu.h"
#include "local_impl.h"
#include "outcome.h"
#include "proc.h"
#include "sbopt.h"
#include "store.h"
#include "strbuf.h"
#include "units.h"

#include "banned.h"

/* ---- Processes, from /proc ------------------------------------------------------------------- */

int local_read_pstat(struct pstat *out, long pid)
{
	char path[64], buf[1024];
	char *p, *field[24];
	ssize_t len;
	size_t n = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return -1;
	buf[len] = '\0';
	/* The command name (field 2) is in parentheses and may hold anything. */
	p = strrchr(buf, ')');
	if (!p)
		return -1;
	for (p++; n < 22;) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		field[n++] = p; /* field[k] is the file's field k + 3 */
		p += strcspn(p, " ");
		if (*p)
			*p++ = '\0';
	}
	if (n < 22)
		return -1;
	out->state = field[0][0];
	out->ppid = strtol(field[1], NULL, 10);
	out->session = strtol(field[3], NULL, 10);
	out->start = strtoull(field[19], NULL, 10);
	out->rss_pages = strtoull(field[21], NULL, 10);
	return 0;
}

/* Whether pid is still the process that started at start (pids are reused). */
bool local_process_is(int64_t pid, uint64_t start)
{
	struct pstat ps;

	return pid > 0 && local_read_pstat(&ps, (long)pid) == 0 && ps.start == start &&
	       ps.state != 'Z' && ps.state != 'X';
}

long local_digits_value(const char *name)
{
	long pid = 0;

	if (!*name)
		return -1;
	for (; *name; name++) {
		if (*name < '0' || *name > '9' || pid > LONG_MAX / 10 - 1)
			return -1;
		pid = pid * 10 + (*name - '0');
	}
	return pid;
}

/*
 * Sends sig to every live process of session sid that started no earlier
 * than since (a later process reusing the number is not the task's).
 * Returns how many were signalled.
 */
size_t local_signal_session(long sid, uint64_t since, int sig)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	size_t n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		long pid = local_digits_value(de->d_name);
		struct pstat ps;

		if (pid <= 0 || local_read_pstat(&ps, pid) < 0 || ps.session != sid ||
		    ps.start < since || ps.state == 'Z' || ps.state == 'X')
			continue;
		if (kill((pid_t)pid, sig) == 0)
			n++;
	}
	closedir(d);
	return n;
}
