#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "error.h"

#include "banned.h"

extern char **environ;

void proc_result_init(struct proc_result *res)
{
	memset(res, 0, sizeof(*res));
	strbuf_init(&res->out, 0);
	strbuf_init(&res->err, 0);
}

void proc_result_release(struct proc_result *res)
{
	strbuf_release(&res->out);
	strbuf_release(&res->err);
	proc_result_init(res);
}

/* The environment with env_extra's entries replacing or added to ours. */
static char **build_env(const char *const *extra)
{
	size_t n = 0, k = 0, nextra = 0;
	char **env;

	while (environ[n])
		n++;
	while (extra && extra[nextra])
		nextra++;
	env = xcalloc(n + nextra + 1, sizeof(char *));
	for (size_t i = 0; i < n; i++) {
		int replaced = 0;

		for (size_t j = 0; j < nextra; j++) {
			size_t len = strcspn(extra[j], "=");

			if (!strncmp(environ[i], extra[j], len) && environ[i][len] == '=')
				replaced = 1;
		}
		if (!replaced)
			env[k++] = environ[i];
	}
	for (size_t j = 0; j < nextra; j++)
		env[k++] = (char *)extra[j];
	env[k] = NULL;
	return env;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int proc_run(struct proc_result *res, const char *const *argv, const char *const *env_extra,
             unsigned timeout_s)
{
	int outp[2] = {-1, -1}, errp[2] = {-1, -1};
	posix_spawn_file_actions_t fa;
	char **env = build_env(env_extra);
	pid_t pid;
	int rc, wstatus, ret = 0, open_fds = 2;
	const char *too_much = NULL; /* the stream that passed PROC_OUTPUT_MAX */
	double deadline = now_s() + (timeout_s ? timeout_s : 60);

	if (pipe(outp) < 0 || pipe(errp) < 0) {
		ret = error("cannot run '%s': %s", argv[0], strerror(errno));
		goto out;
	}
	fcntl(outp[0], F_SETFD, FD_CLOEXEC);
	fcntl(errp[0], F_SETFD, FD_CLOEXEC);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, outp[1], 1);
	posix_spawn_file_actions_adddup2(&fa, errp[1], 2);
	posix_spawn_file_actions_addclose(&fa, outp[1]);
	posix_spawn_file_actions_addclose(&fa, errp[1]);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv, env);
	posix_spawn_file_actions_destroy(&fa);
	close(outp[1]);
	close(errp[1]);
	outp[1] = errp[1] = -1;
	if (rc != 0) {
		ret = error("cannot run '%s': %s", argv[0], strerror(rc));
		goto out;
	}

	while (open_fds > 0) {
		struct pollfd pfd[2] = {{outp[0], POLLIN, 0}, {errp[0], POLLIN, 0}};
		double left = deadline - now_s();
		char buf[4096];

		if (left <= 0) {
			kill(pid, SIGKILL);
			res->timed_out = 1;
			break;
		}
		rc = poll(pfd, 2, (int)(left * 1000) + 1);
		if (rc < 0 && errno == EINTR)
			continue;
		for (int i = 0; i < 2; i++) {
			ssize_t n;

			if (pfd[i].fd < 0 || !(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(pfd[i].fd, buf, sizeof(buf));
			if (n > 0 && (i ? &res->err : &res->out)->len + (size_t)n > PROC_OUTPUT_MAX) {
				kill(pid, SIGKILL);
				too_much = i ? "error" : "output";
				open_fds = 0;
				break;
			} else if (n > 0) {
				strbuf_add(i ? &res->err : &res->out, buf, (size_t)n);
			} else if (n == 0 || errno != EINTR) {
				if (i == 0) {
					close(outp[0]);
					outp[0] = -1;
				} else {
					close(errp[0]);
					errp[0] = -1;
				}
				open_fds--;
			}
		}
	}
	while (waitpid(pid, &wstatus, 0) < 0) {
		if (errno != EINTR) {
			ret = error("cannot wait for '%s': %s", argv[0], strerror(errno));
			goto out;
		}
	}
	if (too_much) {
		ret = error("'%s' printed more than %d MiB on its standard %s: stopped reading it and "
		            "killed it",
		            argv[0], PROC_OUTPUT_MAX >> 20, too_much);
		goto out;
	}
	if (WIFEXITED(wstatus)) {
		res->exited = 1;
		res->status = WEXITSTATUS(wstatus);
	} else if (WIFSIGNALED(wstatus)) {
		res->status = WTERMSIG(wstatus);
	}
out:
	for (int i = 0; i < 2; i++) {
		if (outp[i] >= 0)
			close(outp[i]);
		if (errp[i] >= 0)
			close(errp[i]);
	}
	free(env);
	return ret;
}
