/*
 * Reading a metric from the most common log shape of all, a tqdm progress
 * bar: one long line of '\r'-separated updates. Writes a log of SIZE MiB
 * (default 16) holding MATCHES updates (default 500,000) of
 *
 *     \r 42%|210000/500000 loss=0.4123
 *
 * and times sweep's reader (result_read_log, the `results: log:` pattern
 * 'loss=([0-9.]+)', whose value is the last match) next to the reference,
 * `grep -o 'loss=[0-9.]*'` on the same file, output to /dev/null. Both
 * are linear in the size of the log; the reader should take about what
 * grep takes.
 *
 *   build/bench/bench_logscan [SIZE_MIB [MATCHES]]
 */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "result.h"
#include "strbuf.h"

#include "banned.h"

extern char **environ;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The tqdm line: matches updates, padded to about size bytes with spaces inside each. */
static void make_log(struct strbuf *sb, size_t size, size_t matches)
{
	for (size_t i = 0; i < matches; i++) {
		size_t pct = i * 100 / matches;

		strbuf_addf(sb, "\r%3zu%%|%zu/%zu", pct, i + 1, matches);
		while (sb->len + 12 < (i + 1) * size / matches)
			strbuf_addch(sb, ' ');
		strbuf_addf(sb, " loss=%.4f", 0.1 + 1.0 / (double)(i + 1));
	}
	strbuf_addch(sb, '\n');
}

/* Seconds grep -o takes on path, its output to /dev/null; negative when it failed. */
static double time_grep(const char *path)
{
	char *const argv[] = {"grep", "-o", "loss=[0-9.]*", (char *)path, NULL};
	posix_spawn_file_actions_t fa;
	double t0 = now();
	pid_t pid;
	int status;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	if (posix_spawnp(&pid, "grep", &fa, NULL, argv, environ)) {
		posix_spawn_file_actions_destroy(&fa);
		return -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return now() - t0;
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 16;
	size_t matches = argc > 2 ? strtoul(argv[2], NULL, 10) : 500000;
	const char *name = "loss", *pattern = "loss=([0-9.]+)";
	char path[] = "/tmp/sweep-bench-logscan-XXXXXX";
	struct strbuf log = STRBUF_INIT;
	struct result_log_spec spec;
	const struct result_entry *e;
	struct result res;
	double t0, t_sweep, t_grep;
	int fd;

	if (!mib || !matches || mib > 1024) {
		fprintf(stderr, "usage: bench_logscan [SIZE_MIB [MATCHES]]\n");
		return 2;
	}
	make_log(&log, mib << 20, matches);
	fd = mkstemp(path);
	if (fd < 0 || write(fd, log.buf, log.len) != (ssize_t)log.len || close(fd) < 0) {
		perror(path);
		return 1;
	}
	/* Read the whole log, however large. */
	result_set_max_bytes(log.len + 1);
	if (result_log_spec_init(&spec, &name, &pattern, 1) < 0)
		return 1;
	result_init_empty(&res);
	t0 = now();
	result_read_log(&res, path, &spec);
	t_sweep = now() - t0;
	e = result_find(&res, "loss");
	t_grep = time_grep(path);
	printf("log: %.1f MiB, one line of %zu '\\r'-separated updates\n",
	       (double)log.len / (1 << 20), matches);
	printf("sweep's reader (last match of 'loss=([0-9.]+)'): %8.3f s, loss = %.6g\n", t_sweep,
	       e && e->kind == RESULT_NUMBER ? e->value : -1.0);
	if (t_grep < 0)
		printf("grep -o 'loss=[0-9.]*' (reference):          failed\n");
	else
		printf("grep -o 'loss=[0-9.]*' (reference):          %8.3f s, ratio %.1f\n", t_grep,
		       t_sweep / t_grep);
	result_release(&res);
	result_log_spec_release(&spec);
	strbuf_release(&log);
	unlink(path);
	return 0;
}
