/*
 * A local task's process: the environment Slurm would give a batch task,
 * and the exec of its script in a session of its own. The runner
 * (local_runner.c) decides when.
 */
#include "local_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "path.h"
#include "store.h"
#include "strbuf.h"

#include "banned.h"

extern char **environ;

static void env_set(struct local_env *e, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void env_set(struct local_env *e, const char *name, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	strbuf_addf(&sb, "%s=", name);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	ALLOC_GROW(e->own, e->n + 1, e->alloc);
	e->own[e->n++] = strbuf_detach(&sb, NULL);
}

char **local_task_environ(const struct local_env *e)
{
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	env = xcalloc(n + e->n + 1, sizeof(char *));
	for (size_t i = 0; i < n; i++) {
		size_t len = strcspn(environ[i], "=");
		bool skip = !strncmp(environ[i], "SLURM_", 6);

		for (size_t j = 0; j < e->n && !skip; j++)
			skip = !strncmp(environ[i], e->own[j], len + 1);
		if (!skip)
			env[k++] = environ[i];
	}
	for (size_t j = 0; j < e->n; j++)
		env[k++] = e->own[j];
	env[k] = NULL;
	return env;
}

void local_task_env(struct local_env *e, const struct local_task_env *in)
{
	const struct local_array_rec *a = in->arr;
	const char *gpus = in->gpus;

	env_set(e, "SLURM_JOB_ID", "%" PRIu32, in->task->job_id);
	env_set(e, "SLURM_JOBID", "%" PRIu32, in->task->job_id);
	env_set(e, "SLURM_ARRAY_JOB_ID", "%" PRIu32, a->job_id);
	env_set(e, "SLURM_ARRAY_TASK_ID", "%" PRIu32, in->task->array_task_id);
	env_set(e, "SLURM_ARRAY_TASK_COUNT", "%zu", in->count);
	env_set(e, "SLURM_ARRAY_TASK_MIN", "%" PRIu32, in->task_min);
	env_set(e, "SLURM_ARRAY_TASK_MAX", "%" PRIu32, in->task_max);
	env_set(e, "SLURM_JOB_NAME", "%s", a->name);
	env_set(e, "SLURM_SUBMIT_DIR", "%s", a->workdir);
	env_set(e, "SLURM_SUBMIT_HOST", "%s", in->host);
	env_set(e, "SLURM_JOB_NODELIST", "%s", in->host);
	env_set(e, "SLURM_NODELIST", "%s", in->host);
	env_set(e, "SLURMD_NODENAME", "%s", in->host);
	env_set(e, "SLURM_JOB_NUM_NODES", "1");
	env_set(e, "SLURM_NNODES", "1");
	env_set(e, "SLURM_NTASKS", "1");
	env_set(e, "SLURM_CPUS_PER_TASK", "%u", a->ncpus);
	env_set(e, "SLURM_CPUS_ON_NODE", "%u", a->ncpus);
	/*
	 * Our job ids mean nothing to a Slurm cluster this machine may belong
	 * to: scontrol in a task (requeue) must not act on that cluster's jobs.
	 */
	env_set(e, "SLURM_CONF", "/dev/null");
	/* The caller's umask, as sweep's Slurm side passes it: the script need not ask. */
	env_set(e, "SWEEP_UMASK", "%04o", (unsigned)path_umask());
	if (a->mem_mb)
		env_set(e, "SLURM_MEM_PER_NODE", "%" PRIu64, a->mem_mb);
	if (a->time_limit_s)
		env_set(e, "SLURM_JOB_END_TIME", "%lld",
		        (long long)(time(NULL) + (time_t)a->time_limit_s));
	/* A task sees its own GPUs only; one that asked none sees none. */
	env_set(e, "CUDA_DEVICE_ORDER", "PCI_BUS_ID");
	env_set(e, "CUDA_VISIBLE_DEVICES", "%s", gpus ? gpus : "");
	if (gpus) {
		env_set(e, "SLURM_JOB_GPUS", "%s", gpus);
		env_set(e, "GPU_DEVICE_ORDINAL", "%s", gpus);
	}
}

void local_task_exec(const char *workdir, int in, int out, int err, const char *const *argv,
                     char *const *env)
{
	static const int reset[] = {SIGHUP,  SIGINT,  SIGQUIT, SIGPIPE, SIGTERM, SIGUSR1,
	                            SIGUSR2, SIGALRM, SIGCHLD, SIGTSTP, SIGTTIN, SIGTTOU};
	sigset_t none;

	setsid();
	dup2(in, 0);
	dup2(out, 1);
	dup2(err, 2);
	for (size_t i = 0; i < sizeof(reset) / sizeof(reset[0]); i++)
		signal(reset[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (chdir(workdir) < 0) {
		dprintf(2, "sweep: cannot enter '%s': %s\n", workdir, strerror(errno));
		_exit(1);
	}
	execve(argv[0], (char *const *)argv, env);
	dprintf(2, "sweep: cannot run '%s': %s\n", argv[0], strerror(errno));
	_exit(127);
}

void local_env_release(struct local_env *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->own[i]);
	free(e->own);
	memset(e, 0, sizeof(*e));
}
