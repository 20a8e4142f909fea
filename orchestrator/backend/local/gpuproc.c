/*
 * Who holds a GPU, from /proc. The pid comes from nvidia-smi: when this
 * PID namespace has no such process, everything stays "unknown" rather
 * than guessed.
 */
#include "gpuproc.h"

#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "local_impl.h"
#include "strbuf.h"

#include "banned.h"

#define ENVIRON_MAX   (1u << 20)
#define MAX_ANCESTORS 256

/* The NUL-separated contents of /proc/<pid>/<what>. */
static int read_proc(struct strbuf *out, long pid, const char *what)
{
	char path[64];
	int fd;
	ssize_t n;
	char buf[4096];

	snprintf(path, sizeof(path), "/proc/%ld/%s", pid, what);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0 && out->len < ENVIRON_MAX)
		strbuf_add(out, buf, (size_t)n);
	close(fd);
	return n < 0 ? -1 : 0;
}

/* SWEEP_ID and SWEEP_TASK_INDEX of pid's environment; 0 when it has both. */
static int task_of(int64_t *id, long *index, long pid)
{
	struct strbuf env = STRBUF_INIT;
	bool have_id = false, have_index = false;

	if (read_proc(&env, pid, "environ") == 0) {
		for (size_t off = 0; off < env.len; off += strlen(env.buf + off) + 1) {
			const char *kv = env.buf + off;

			if (!strncmp(kv, "SWEEP_ID=", 9)) {
				*id = strtoll(kv + 9, NULL, 10);
				have_id = true;
			} else if (!strncmp(kv, "SWEEP_TASK_INDEX=", 17)) {
				*index = strtol(kv + 17, NULL, 10);
				have_index = true;
			}
		}
	}
	strbuf_release(&env);
	return have_id && have_index ? 0 : -1;
}

/* Whether an ancestor of pid still belongs to sweep task (id, index). */
static bool task_alive_above(long pid, int64_t id, long index)
{
	struct pstat ps;

	for (int n = 0; n < MAX_ANCESTORS && local_read_pstat(&ps, pid) == 0 && ps.ppid > 1; n++) {
		int64_t aid;
		long aindex;

		pid = ps.ppid;
		if (task_of(&aid, &aindex, pid) == 0 && aid == id && aindex == index)
			return true;
	}
	return false;
}

static uint64_t elapsed_of(const struct pstat *ps)
{
	struct strbuf up = STRBUF_INIT;
	double uptime = 0;
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t since;

	if (strbuf_read_file(&up, "/proc/uptime") == 0)
		uptime = strtod(up.buf, NULL);
	strbuf_release(&up);
	since = hz > 0 ? ps->start / (uint64_t)hz : 0;
	return uptime > (double)since ? (uint64_t)uptime - since : 0;
}

static void read_command(struct gpuproc *out)
{
	struct strbuf cmd = STRBUF_INIT;

	if (read_proc(&cmd, out->pid, "cmdline") == 0 && cmd.len) {
		strbuf_trim_trailing_newlines(&cmd);
		for (size_t i = 0; i + 1 < cmd.len; i++)
			if (cmd.buf[i] == '\0' || cmd.buf[i] == '\n')
				cmd.buf[i] = ' ';
		out->command = xstrdup(cmd.buf);
	} else {
		/* A kernel thread or a zombie: its name only. */
		strbuf_reset(&cmd);
		if (read_proc(&cmd, out->pid, "comm") == 0) {
			strbuf_trim_trailing_newlines(&cmd);
			out->command = xstrfmt("[%s]", cmd.buf);
		}
	}
	strbuf_release(&cmd);
}

void gpuproc_read(struct gpuproc *out, long pid)
{
	char path[64];
	struct stat sb;
	struct pstat ps;
	struct passwd *pw;

	memset(out, 0, sizeof(*out));
	out->pid = pid;
	out->sweep_id = -1;
	out->task_index = -1;
	snprintf(path, sizeof(path), "/proc/%ld", pid);
	if (pid <= 0 || stat(path, &sb) < 0 || local_read_pstat(&ps, pid) < 0)
		return;
	out->known = true;
	out->uid = sb.st_uid;
	pw = getpwuid(sb.st_uid);
	out->user = pw ? xstrdup(pw->pw_name) : xstrfmt("%u", (unsigned)sb.st_uid);
	out->elapsed_s = elapsed_of(&ps);
	read_command(out);
	if (sb.st_uid != getuid() || task_of(&out->sweep_id, &out->task_index, pid) < 0) {
		out->sweep_id = -1;
		out->task_index = -1;
		return;
	}
	out->outlived = !task_alive_above(pid, out->sweep_id, out->task_index);
}

void gpuproc_release(struct gpuproc *p)
{
	free(p->user);
	free(p->command);
	memset(p, 0, sizeof(*p));
}

void gpuproc_format_etime(char *buf, size_t size, uint64_t s)
{
	uint64_t d = s / 86400, h = s / 3600 % 24, m = s / 60 % 60, sec = s % 60;

	if (d)
		snprintf(buf, size, "%llu-%02llu:%02llu:%02llu", (unsigned long long)d,
		         (unsigned long long)h, (unsigned long long)m, (unsigned long long)sec);
	else if (h)
		snprintf(buf, size, "%02llu:%02llu:%02llu", (unsigned long long)h,
		         (unsigned long long)m, (unsigned long long)sec);
	else
		snprintf(buf, size, "%02llu:%02llu", (unsigned long long)m,
		         (unsigned long long)sec);
}
