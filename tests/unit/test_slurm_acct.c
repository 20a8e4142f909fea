/*
 * Decoding of slurmdb_job_rec_t records built by hand the way slurmdbd
 * fills them (values checked against Slurm 22.05 on the test cluster), and
 * slb_acct_fetch's failures when the daemons are not there.
 */
#include "slurm_compat.h"

#include "slurm_acct.h"
#include "slurm_conn.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "acct_cache.h"
#include "backend.h"
#include "error.h"
#include "plan.h"
#include "slurm_backend.h"
#include "store.h"
#include "strbuf.h"

#include "banned.h"

static int setup(void **state)
{
	(void)state;
	capture_errors();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	release_captured();
	return 0;
}

/* A finished task as slurmdbd returns it: task 3 of array 100, job 103. */
static void finished_job(slurmdb_job_rec_t *job)
{
	memset(job, 0, sizeof(*job));
	job->array_job_id = 100;
	job->array_task_id = 3;
	job->jobid = 103;
	job->state = JOB_COMPLETE;
	job->exitcode = 0;
	job->elapsed = 42;
	job->timelimit = 60;
	job->req_mem = 100 | MEM_PER_CPU;
	job->req_cpus = 1;
	job->tres_alloc_str = "1=1,2=100,4=1,5=1";
	job->nodes = "vm";
	job->submit = 1700000000;
	job->start = 1700000005;
	job->end = 1700000047;
}

/* Decodes job into a fresh set, which must then hold exactly one record. */
static struct acct_rec *decode_one(struct acct_set *set, const slurmdb_job_rec_t *job)
{
	acct_set_init(set);
	assert_int_equal(slb_acct_decode_job(set, job, true), 1);
	assert_int_equal(set->n, 1);
	return &set->recs[0];
}

static void test_acct_finished_task(void **state)
{
	slurmdb_job_rec_t job;
	struct acct_set set;
	struct acct_rec *rec;

	(void)state;
	finished_job(&job);
	rec = decode_one(&set, &job);
	assert_int_equal(rec->array_job_id, 100);
	assert_int_equal(rec->array_task_id, 3);
	assert_int_equal(rec->job_id, 103);
	assert_null(rec->pending_tasks);
	assert_int_equal(rec->state, TS_COMPLETED);
	assert_int_equal(rec->exit_code, 0);
	assert_int_equal(rec->signal, 0);
	assert_int_equal(rec->elapsed_s, 42);
	assert_int_equal(rec->timelimit_s, 3600);
	assert_int_equal(rec->req_mem_mb, 100);
	assert_true(rec->req_mem_per_cpu);
	assert_int_equal(rec->ncpus, 1);
	assert_true(rec->maxrss_bytes == ACCT_NO_VALUE); /* no steps */
	assert_string_equal(rec->nodes, "vm");
	assert_int_equal(rec->submit_time, 1700000000);
	assert_int_equal(rec->start_time, 1700000005);
	assert_int_equal(rec->end_time, 1700000047);
	acct_set_release(&set);
}

static void test_acct_states(void **state)
{
	static const struct {
		uint32_t slurm;
		enum task_state want;
	} cases[] = {
	    {JOB_PENDING, TS_PENDING},
	    {JOB_RUNNING, TS_RUNNING},
	    {JOB_SUSPENDED, TS_SUSPENDED},
	    {JOB_COMPLETE, TS_COMPLETED},
	    {JOB_CANCELLED, TS_CANCELLED},
	    {JOB_FAILED, TS_FAILED},
	    {JOB_TIMEOUT, TS_TIMEOUT},
	    {JOB_NODE_FAIL, TS_NODE_FAIL},
	    {JOB_PREEMPTED, TS_PREEMPTED},
	    {JOB_BOOT_FAIL, TS_BOOT_FAIL},
	    {JOB_DEADLINE, TS_DEADLINE},
	    {JOB_OOM, TS_OUT_OF_MEMORY},
	    /* The row of a requeued run: flag bit over a PENDING base. */
	    {JOB_REQUEUE | JOB_PENDING, TS_REQUEUED},
	    {JOB_REQUEUE | JOB_FAILED, TS_REQUEUED},
	    {JOB_REQUEUE_FED | JOB_PENDING, TS_REQUEUED},
	    /* Flags that do not change what the run is. */
	    {JOB_RUNNING | JOB_COMPLETING, TS_RUNNING},
	    {JOB_PENDING | JOB_REQUEUE_HOLD, TS_PENDING},
	    {JOB_PENDING | JOB_SPECIAL_EXIT, TS_PENDING},
	    {JOB_COMPLETE | JOB_SIGNALING, TS_COMPLETED},
	    /* Bit 9: JOB_UPDATE_DB up to 24.05, unused in 24.11 and 25.x,
	     * JOB_GETENV_FAILED from 26.05 (over a FAILED base). */
	    {JOB_COMPLETE | SLURM_BIT(9), TS_COMPLETED},
	    {JOB_FAILED | SLURM_BIT(9), TS_FAILED},
	    /* 26.05's JOB_EXPEDITING (bit 24) on a pending requeue check. */
	    {JOB_PENDING | SLURM_BIT(24), TS_PENDING},
	    /* A base state newer than this build. */
	    {0x42, TS_FAILED},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		slurmdb_job_rec_t job;
		struct acct_set set;

		finished_job(&job);
		job.state = cases[i].slurm;
		if (decode_one(&set, &job)->state != cases[i].want)
			fail_msg("state 0x%x: got %s, want %s", cases[i].slurm,
			         task_state_name(set.recs[0].state),
			         task_state_name(cases[i].want));
		acct_set_release(&set);
	}
}

static void test_acct_revoked_and_resizing_skipped(void **state)
{
	static const uint32_t skipped[] = {
	    JOB_REVOKED | JOB_CANCELLED,
	    JOB_REVOKED | JOB_PENDING,
	    JOB_RESIZING | JOB_RUNNING,
	    JOB_RESIZING | JOB_COMPLETE,
	};
	struct acct_set set;

	(void)state;
	acct_set_init(&set);
	for (size_t i = 0; i < sizeof(skipped) / sizeof(skipped[0]); i++) {
		slurmdb_job_rec_t job;

		finished_job(&job);
		job.state = skipped[i];
		assert_int_equal(slb_acct_decode_job(&set, &job, true), 0);
	}
	assert_int_equal(set.n, 0);
	acct_set_release(&set);
}

static void test_acct_exit_code_and_signal(void **state)
{
	/* exitcode is a wait status: code << 8, or the signal in the low bits. */
	static const struct {
		uint32_t status;
		int code, sig;
	} cases[] = {
	    {0, 0, 0},          {3 << 8, 3, 0},
	    {255 << 8, 255, 0}, {9, 0, 9}, /* OverMemoryKill: FAILED 0:9 */
	    {15, 0, 15},                   /* scancel, TIMEOUT: 0:15 */
	    {0x80 | 11, 0, 11},            /* SIGSEGV with a core dump */
	    {NO_VAL, 0, 0},                /* unknown */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		slurmdb_job_rec_t job;
		struct acct_set set;
		struct acct_rec *rec;

		finished_job(&job);
		job.state = JOB_FAILED;
		job.exitcode = cases[i].status;
		rec = decode_one(&set, &job);
		if (rec->exit_code != cases[i].code || rec->signal != cases[i].sig)
			fail_msg("status 0x%x: got %d:%d, want %d:%d", cases[i].status,
			         rec->exit_code, rec->signal, cases[i].code, cases[i].sig);
		acct_set_release(&set);
	}
}

static void test_acct_over_memory_kill(void **state)
{
	/* Recorded: --mem=50M, the task allocated 300 MB, OverMemoryKill without cgroups. */
	slurmdb_job_rec_t job;
	slurmdb_step_rec_t batch;
	struct acct_set set;
	struct acct_rec *rec;

	(void)state;
	finished_job(&job);
	job.state = JOB_FAILED;
	job.exitcode = 9;
	job.req_mem = 50;
	job.tres_alloc_str = "1=1,2=50,4=1,5=1";
	memset(&batch, 0, sizeof(batch));
	batch.state = JOB_CANCELLED;
	batch.stats.tres_usage_in_max = "1=0,2=85721088,3=0,6=0,7=0";
	job.steps = slurm_list_create(NULL);
	slurm_list_append(job.steps, &batch);
	rec = decode_one(&set, &job);
	slurm_list_destroy(job.steps);

	assert_int_equal(rec->state, TS_FAILED);
	assert_int_equal(rec->exit_code, 0);
	assert_int_equal(rec->signal, 9);
	assert_int_equal(rec->req_mem_mb, 50);
	assert_false(rec->req_mem_per_cpu);
	assert_int_equal(rec->maxrss_bytes, 85721088);
	acct_set_release(&set);
}

/*
 * Recorded on 26.05.3 (test_preemption): a task preempted with the user's
 * signal saved and requeued itself (REQUEUED, batch FAILED 75), came back and
 * finished (batch COMPLETED 0:0), yet slurmctld still held its grace
 * preemption flag and recorded that run PREEMPTED 0:0 and requeued it. The
 * run is a preemption, not a completion: a later run follows.
 */
static void test_acct_preempted_after_self_requeue_26_05(void **state)
{
	slurmdb_job_rec_t job;
	slurmdb_step_rec_t batch;
	struct acct_set set;
	struct acct_rec *rec;

	(void)state;
	finished_job(&job);
	job.state = JOB_REQUEUE | JOB_PENDING;
	memset(&batch, 0, sizeof(batch));
	batch.state = JOB_FAILED;
	batch.exitcode = 75 << 8;
	job.steps = slurm_list_create(NULL);
	slurm_list_append(job.steps, &batch);
	rec = decode_one(&set, &job);
	assert_int_equal(rec->state, TS_REQUEUED);
	acct_set_release(&set);

	job.state = JOB_PREEMPTED;
	job.exitcode = 0;
	batch.state = JOB_COMPLETE;
	batch.exitcode = 0;
	rec = decode_one(&set, &job);
	slurm_list_destroy(job.steps);
	assert_int_equal(rec->state, TS_PREEMPTED);
	assert_int_equal(rec->exit_code, 0);
	assert_int_equal(rec->signal, 0);
	acct_set_release(&set);
}

static void test_acct_memory_request(void **state)
{
	static const struct {
		uint64_t req_mem;
		const char *tres_alloc;
		uint32_t req_cpus;
		uint64_t mb;
		bool per_cpu;
		uint32_t ncpus;
	} cases[] = {
	    {60 | MEM_PER_CPU, "1=2,2=120,4=1,5=2", 2, 60, true, 2},
	    {100 | MEM_PER_CPU, "1=4,2=400,4=1", 1, 100, true, 4}, /* allocated beats asked */
	    {100 | MEM_PER_CPU, NULL, 2, 100, true, 2},            /* pending: asked */
	    {100 | MEM_PER_CPU, "", 3, 100, true, 3},
	    {2048, "1=8,2=2048,4=1", 8, 2048, false, 8},
	    {0, "1=1", 1, 0, false, 1},
	    {NO_VAL64, NULL, NO_VAL, 0, false, 0},
	    {INFINITE64, "2=5", 1, 0, false, 1}, /* no CPU count in it */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		slurmdb_job_rec_t job;
		struct acct_set set;
		struct acct_rec *rec;

		finished_job(&job);
		job.req_mem = cases[i].req_mem;
		job.tres_alloc_str = (char *)cases[i].tres_alloc;
		job.req_cpus = cases[i].req_cpus;
		rec = decode_one(&set, &job);
		if (rec->req_mem_mb != cases[i].mb || rec->req_mem_per_cpu != cases[i].per_cpu ||
		    rec->ncpus != cases[i].ncpus)
			fail_msg("case %zu: got %llu%s x %u", i,
			         (unsigned long long)rec->req_mem_mb,
			         rec->req_mem_per_cpu ? "/cpu" : "", rec->ncpus);
		acct_set_release(&set);
	}
}

/* Whether a record's step statistics are final: read with steps, every step ended. */
static void test_acct_steps_final(void **state)
{
	slurmdb_job_rec_t job;
	slurmdb_step_rec_t steps[2];
	struct acct_set set;

	(void)state;
	finished_job(&job);
	memset(steps, 0, sizeof(steps));
	steps[0].end = 1700000047; /* batch */
	steps[1].end = 0;          /* extern, not recorded as ended yet */
	job.steps = slurm_list_create(NULL);
	for (size_t i = 0; i < 2; i++)
		slurm_list_append(job.steps, &steps[i]);
	assert_false(decode_one(&set, &job)->steps_final);
	acct_set_release(&set);
	steps[1].end = 1700000048;
	assert_true(decode_one(&set, &job)->steps_final);
	acct_set_release(&set);

	/* Read without steps (JOBCOND_FLAG_NO_STEP): never final. */
	acct_set_init(&set);
	assert_int_equal(slb_acct_decode_job(&set, &job, false), 1);
	assert_false(set.recs[0].steps_final);
	acct_set_release(&set);
	slurm_list_destroy(job.steps);

	/* Ended without a step record yet (slurmdbd behind): not final. */
	job.steps = NULL;
	assert_false(decode_one(&set, &job)->steps_final);
	acct_set_release(&set);
	/* Never started (cancelled while pending): no steps to wait for. */
	job.start = 0;
	assert_true(decode_one(&set, &job)->steps_final);
	acct_set_release(&set);
}

static void test_acct_maxrss_over_steps(void **state)
{
	slurmdb_job_rec_t job;
	slurmdb_step_rec_t steps[5];
	struct acct_set set;
	struct acct_rec *rec;

	(void)state;
	finished_job(&job);
	memset(steps, 0, sizeof(steps));
	steps[0].stats.tres_usage_in_max = "1=0,2=3244032,3=0,6=0";      /* batch */
	steps[1].stats.tres_usage_in_max = "2=1024";                     /* extern */
	steps[2].stats.tres_usage_in_max = NULL;                         /* step 0, still running */
	steps[3].stats.tres_usage_in_max = "1=5,2=18446744073709551614"; /* NO_VAL64 */
	steps[4].stats.tres_usage_in_max = "1=12,2=7340032";             /* step 1 */
	job.steps = slurm_list_create(NULL);
	for (size_t i = 0; i < 5; i++)
		slurm_list_append(job.steps, &steps[i]);
	rec = decode_one(&set, &job);
	assert_int_equal(rec->maxrss_bytes, 7340032);
	assert_int_equal(rec->node_mem_bytes, 7340032);
	assert_int_equal(rec->tasks_per_node, 1);
	acct_set_release(&set);

	/* Step 0 ran 4 tasks on one node: that node needed up to 4 x its MaxRSS. */
	steps[3].stats.tres_usage_in_max = "1=5,2=3000000";
	steps[3].ntasks = 4;
	steps[3].nnodes = 1;
	rec = decode_one(&set, &job);
	assert_int_equal(rec->maxrss_bytes, 7340032);
	assert_int_equal(rec->node_mem_bytes, 12000000);
	assert_int_equal(rec->tasks_per_node, 4);
	acct_set_release(&set);
	steps[3].stats.tres_usage_in_max = "1=5,2=18446744073709551614";
	steps[3].ntasks = steps[3].nnodes = 0;

	/* Only running steps, or no memory figure at all: unmeasured, not 0. */
	steps[4].stats.tres_usage_in_max = "";
	steps[0].stats.tres_usage_in_max = "1=0,3=0";
	steps[1].stats.tres_usage_in_max = "garbage";
	rec = decode_one(&set, &job);
	assert_true(rec->maxrss_bytes == ACCT_NO_VALUE);
	acct_set_release(&set);

	/* Memory TRES id 2, not id 20 or 12. */
	steps[0].stats.tres_usage_in_max = "12=999,20=888,2=777";
	rec = decode_one(&set, &job);
	assert_int_equal(rec->maxrss_bytes, 777);
	acct_set_release(&set);
	slurm_list_destroy(job.steps);

	/* A measured 0 is a measurement. */
	job.steps = slurm_list_create(NULL);
	steps[0].stats.tres_usage_in_max = "2=0";
	slurm_list_append(job.steps, &steps[0]);
	rec = decode_one(&set, &job);
	assert_int_equal(rec->maxrss_bytes, 0);
	acct_set_release(&set);
	slurm_list_destroy(job.steps);
}

/* TotalCPU from the job record, or the steps' sum; GPU TRES only where the cluster has them. */
static void test_acct_cpu_and_gpu(void **state)
{
	slurmdb_job_rec_t job;
	slurmdb_step_rec_t steps[2];
	struct acct_set set;
	struct acct_rec *rec;

	(void)state;
	finished_job(&job);
	rec = decode_one(&set, &job);
	assert_true(rec->total_cpu_us == ACCT_NO_VALUE); /* no steps: not recorded */
	assert_true(rec->gpu_util == ACCT_NO_VALUE && rec->gpu_mem_bytes == ACCT_NO_VALUE);
	acct_set_release(&set);

	memset(steps, 0, sizeof(steps));
	steps[0].stats.tres_usage_in_max = "1=0,2=3244032,1001=87,1002=2147483648"; /* batch */
	steps[0].tot_cpu_sec = 3;
	steps[0].tot_cpu_usec = 250000;
	steps[1].stats.tres_usage_in_max = "2=1024,1001=95"; /* extern */
	steps[1].tot_cpu_sec = 0;
	steps[1].tot_cpu_usec = 1000;
	job.steps = slurm_list_create(NULL);
	slurm_list_append(job.steps, &steps[0]);
	slurm_list_append(job.steps, &steps[1]);
	/* slurmdbd's sum on the job record comes first. */
	job.tot_cpu_sec = 3;
	job.tot_cpu_usec = 251000;
	rec = decode_one(&set, &job);
	assert_int_equal(rec->total_cpu_us, 3251000);
	/* This cluster has no GPU TRES: ids 1001 and 1002 mean nothing. */
	assert_true(rec->gpu_util == ACCT_NO_VALUE);
	acct_set_release(&set);
	job.tot_cpu_sec = 0;
	job.tot_cpu_usec = 0;
	acct_set_init(&set);
	set.tres_gpuutil = 1001;
	set.tres_gpumem = 1002;
	assert_int_equal(slb_acct_decode_job(&set, &job, true), 1);
	rec = &set.recs[0];
	assert_int_equal(rec->total_cpu_us, 3251000); /* the steps' sum */
	assert_int_equal(rec->gpu_util, 95);          /* the peak over steps */
	assert_int_equal(rec->gpu_mem_bytes, 2147483648ull);
	acct_set_release(&set);
	/* Steps without statistics (still running): not recorded. */
	steps[0].stats.tres_usage_in_max = NULL;
	steps[1].stats.tres_usage_in_max = "";
	rec = decode_one(&set, &job);
	assert_true(rec->total_cpu_us == ACCT_NO_VALUE);
	acct_set_release(&set);
	/* A run of a second: the batch step ended with CPU time, never sampled. */
	steps[0].end = 1700000061;
	steps[0].tot_cpu_sec = 0;
	steps[0].tot_cpu_usec = 173000;
	rec = decode_one(&set, &job);
	assert_int_equal(rec->total_cpu_us, 173000);
	acct_set_release(&set);
	slurm_list_destroy(job.steps);
}

static void test_acct_pending_record(void **state)
{
	/* Recorded: "sbatch -H --array=0-40,45", as slurmdbd returns the held array. */
	slurmdb_job_rec_t job;
	struct acct_set set;
	struct acct_rec *rec;

	(void)state;
	memset(&job, 0, sizeof(job));
	job.array_job_id = 74;
	job.array_task_id = NO_VAL;
	job.array_task_str = "0x21FFFFFFFFFF";
	job.jobid = 74;
	job.state = JOB_PENDING;
	job.timelimit = INFINITE;
	job.req_mem = 100 | MEM_PER_CPU;
	job.req_cpus = 1;
	job.nodes = "None assigned";
	job.submit = 1796226779;
	rec = decode_one(&set, &job);
	assert_int_equal(rec->array_task_id, ACCT_NO_TASK);
	assert_string_equal(rec->pending_tasks, "0x21FFFFFFFFFF");
	assert_int_equal(rec->state, TS_PENDING);
	assert_null(rec->nodes);
	assert_true(rec->timelimit_s == ACCT_NO_VALUE);
	assert_true(rec->maxrss_bytes == ACCT_NO_VALUE);
	assert_int_equal(rec->start_time, 0);
	assert_int_equal(rec->ncpus, 1);
	acct_set_release(&set);

	/* Recorded: the same array after scancel; slurmdbd reports its start as NO_VAL. */
	job.state = JOB_CANCELLED;
	job.start = (time_t)NO_VAL;
	job.end = 1796226807;
	job.timelimit = NO_VAL;
	rec = decode_one(&set, &job);
	assert_int_equal(rec->state, TS_CANCELLED);
	assert_string_equal(rec->pending_tasks, "0x21FFFFFFFFFF");
	assert_int_equal(rec->start_time, 0);
	assert_int_equal(rec->end_time, 1796226807);
	assert_true(rec->timelimit_s == ACCT_NO_VALUE);
	acct_set_release(&set);

	/* A task's own row never carries the pending list. */
	job.array_task_id = 5;
	rec = decode_one(&set, &job);
	assert_int_equal(rec->array_task_id, 5);
	assert_null(rec->pending_tasks);
	acct_set_release(&set);
}

/* Which PENDING records make status ask slurmctld what holds them. */
static void test_acct_maybe_held(void **state)
{
	slurmdb_job_rec_t job;
	struct acct_set set;
	struct acct_rec *rec;
	time_t now = time(NULL);
	const struct {
		uint32_t state, priority;
		time_t eligible;
		bool maybe_held;
	} cases[] = {
	    /* Waiting for resources: eligible, a priority. Recorded as sacct shows it. */
	    {JOB_PENDING, 4294900632u, 1796226779, false},
	    /* scontrol hold: priority 0, eligible "Unknown" (0). */
	    {JOB_PENDING, 0, 0, true},
	    {JOB_PENDING, 4294900632u, 0, true},
	    {JOB_PENDING, 0, 1796226779, true},
	    {JOB_PENDING, 4294900632u, (time_t)NO_VAL, true},
	    {JOB_PENDING, 4294900632u, (time_t)INFINITE, true},
	    /* --begin ahead. */
	    {JOB_PENDING, 4294900632u, 0, true},
	    /* Not pending: never asked about. */
	    {JOB_RUNNING, 0, 0, false},
	    {JOB_COMPLETE, 0, 0, false},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		finished_job(&job);
		job.state = cases[i].state;
		job.priority = cases[i].priority;
		job.eligible = cases[i].eligible;
		rec = decode_one(&set, &job);
		if (rec->maybe_held != cases[i].maybe_held)
			fail_msg("case %zu: maybe_held %d", i, rec->maybe_held);
		acct_set_release(&set);
	}
	finished_job(&job);
	job.state = JOB_PENDING;
	job.priority = 1;
	job.eligible = now + 3600;
	rec = decode_one(&set, &job);
	assert_true(rec->maybe_held);
	acct_set_release(&set);
	job.eligible = now - 10;
	rec = decode_one(&set, &job);
	assert_false(rec->maybe_held);
	acct_set_release(&set);
}

static void test_acct_not_an_array_skipped(void **state)
{
	/* The query matches job ids: after they wrap, an old plain job can carry an array's id. */
	slurmdb_job_rec_t job;
	struct acct_set set;

	(void)state;
	finished_job(&job);
	job.array_job_id = 0;
	job.array_task_id = NO_VAL;
	job.jobid = 100;
	acct_set_init(&set);
	assert_int_equal(slb_acct_decode_job(&set, &job, true), 0);
	assert_int_equal(set.n, 0);
	acct_set_release(&set);
}

static void test_acct_set_add_defaults(void **state)
{
	struct acct_set set;
	struct acct_rec *rec;

	(void)state;
	acct_set_init(&set);
	for (unsigned i = 0; i < 100; i++) {
		rec = acct_set_add(&set);
		assert_int_equal(rec->state, TS_MISSING);
		assert_true(rec->maxrss_bytes == ACCT_NO_VALUE);
		assert_true(rec->timelimit_s == ACCT_NO_VALUE);
		assert_null(rec->nodes);
		rec->array_task_id = i;
		if (i % 2)
			rec->nodes = xstrfmt("n%u", i);
	}
	assert_int_equal(set.n, 100);
	assert_int_equal(set.recs[99].array_task_id, 99);
	acct_set_release(&set);
	assert_int_equal(set.n, 0);
	assert_null(set.recs);
	acct_set_release(&set); /* twice is harmless */
}

static void test_acct_state_names(void **state)
{
	(void)state;
	for (int s = 0; s < TS_NSTATES; s++)
		assert_non_null(task_state_name(s));
	assert_string_equal(task_state_name(TS_MISSING), "MISSING");
	assert_string_equal(task_state_name(TS_COMPLETED), "COMPLETED");
	assert_string_equal(task_state_name(TS_OUT_OF_MEMORY), "OUT_OF_MEMORY");
	assert_string_equal(task_state_name(TS_NODE_FAIL), "NODE_FAIL");
	assert_string_equal(task_state_name(TS_REQUEUED), "REQUEUED");
	assert_string_equal(task_state_name(TS_NSTATES), "UNKNOWN");
	assert_string_equal(task_state_name((enum task_state) - 1), "UNKNOWN");

	assert_true(task_state_is_final(TS_COMPLETED));
	assert_true(task_state_is_final(TS_FAILED));
	assert_true(task_state_is_final(TS_CANCELLED));
	assert_true(task_state_is_final(TS_TIMEOUT));
	assert_true(task_state_is_final(TS_OUT_OF_MEMORY));
	assert_true(task_state_is_final(TS_NODE_FAIL));
	assert_true(task_state_is_final(TS_PREEMPTED));
	assert_false(task_state_is_final(TS_MISSING));
	assert_false(task_state_is_final(TS_PENDING));
	assert_false(task_state_is_final(TS_RUNNING));
	assert_false(task_state_is_final(TS_SUSPENDED));
	assert_false(task_state_is_final(TS_REQUEUED));
	/* A held task runs once released: queued, like a pending one, never final. */
	assert_string_equal(task_state_name(TS_HELD), "HELD");
	assert_false(task_state_is_final(TS_HELD));
	assert_true(task_state_is_queued(TS_HELD));
	assert_true(task_state_is_queued(TS_PENDING));
	assert_false(task_state_is_queued(TS_RUNNING));
	assert_false(task_state_is_queued(TS_MISSING));
	assert_string_equal(acct_hold_name(ACCT_HOLD_USER), "user");
	assert_string_equal(acct_hold_name(ACCT_HOLD_ADMIN), "admin");
	assert_string_equal(acct_hold_name(ACCT_HOLD_DEPENDENCY), "dependency");
	assert_string_equal(acct_hold_name(ACCT_HOLD_DEP_NEVER), "dependency_never");
	assert_string_equal(acct_hold_name(ACCT_HOLD_BEGIN), "begin");
	assert_null(acct_hold_name(ACCT_HOLD_NONE));
	assert_null(acct_hold_name(ACCT_NHOLDS));
}

static void test_acct_fetch_nothing(void **state)
{
	struct acct_set set;

	(void)state;
	acct_set_init(&set);
	assert_int_equal(slb_acct_fetch(&set, NULL, 0, false), 0);
	assert_int_equal(set.n, 0);
	assert_string_equal(captured.buf, "");
}

/*
 * The Slurm side's records through the seam with kept records: array jobs
 * kept are read from the store with no query (nor libslurm at all); one
 * that is not, or whose steps are needed and were not kept, or --refresh,
 * is asked about (and here, with no slurm.conf, fails clearly while what
 * was kept stays).
 */
static void test_acct_kept_through_backend(void **state)
{
	char *dir = make_tmpdir();
	char *old = getenv("SLURM_CONF") ? xstrdup(getenv("SLURM_CONF")) : NULL;
	struct store *st = NULL;
	struct sweep_rec rec;
	struct plan plan;
	char *params[] = {"x"}, *values[] = {"1"};
	int64_t seeds[] = {0, 1, 2, 3};
	struct array_rec arrs[2] = {{.job_id = 500, .offset = 0, .spec = "0-1", .attempt = 1},
	                            {.job_id = 600, .offset = 2, .spec = "0-1", .attempt = 1}};
	struct array_rec *loaded = NULL;
	struct acct_cache_entry keep[] = {{500, 0, false, NULL, 0, 0}, {600, 0, true, NULL, 0, 0}};
	struct backend_read rd = {0};
	struct acct_set set, out;
	size_t n = 0;

	(void)state;
	setenv("SLURM_CONF", "/nonexistent/slurm.conf", 1);
	assert_int_equal(store_open(&st, dir, 1), 0);
	plan_init(&plan);
	plan.params = params;
	plan.nparams = 1;
	plan.values = values;
	plan.nsettings = 1;
	plan.seeds = seeds;
	plan.nseeds = 4;
	plan.ntasks = 4;
	sweep_rec_init(&rec);
	rec.name = xstrdup("kept");
	rec.source = xstrdup("/src/kept.yaml");
	rec.logs = xstrdup("/src/logs");
	rec.backend = xstrdup("slurm");
	assert_int_equal(store_begin_sweep(st, &rec, &plan, "name: kept\n"), 0);
	for (size_t a = 0; a < 2; a++)
		assert_int_equal(store_add_array(st, rec.id, &arrs[a]), 0);
	assert_int_equal(store_load_arrays(st, &loaded, &n, rec.id), 0);
	keep[0].submitted_at = loaded[0].submitted_at;
	keep[1].submitted_at = loaded[1].submitted_at;
	acct_set_init(&set);
	for (size_t i = 0; i < 4; i++) {
		struct acct_rec *r = acct_set_add(&set);

		r->array_job_id = i < 2 ? 500 : 600;
		r->array_task_id = (uint32_t)(i % 2);
		r->job_id = r->array_job_id + r->array_task_id;
		r->state = TS_COMPLETED;
		r->end_time = 1700000000;
		r->steps_final = i >= 2;
	}
	assert_int_equal(store_acct_update(st, rec.id, keep, 2, &set, NULL, 0), 0);

	/* Everything kept: no query, the kept records. */
	acct_set_init(&out);
	assert_int_equal(slb_backend.records(&out, &rd, st, &rec, loaded, n), 0);
	assert_int_equal(rd.kept, 2);
	assert_int_equal(rd.asked, 0);
	assert_int_equal(rd.queries, 0);
	assert_int_equal(out.n, 4);
	acct_set_release(&out);

	/* Steps needed: array job 500 was kept without them and is asked about. */
	rd = (struct backend_read){.steps = true};
	assert_int_equal(slb_backend.records(&out, &rd, st, &rec, loaded, n), SWEEP_ERR);
	assert_int_equal(rd.kept, 1);
	assert_int_equal(rd.asked, 1);
	assert_non_null(strstr(captured.buf, "cannot read Slurm's configuration"));
	acct_set_release(&out);

	/* --refresh asks about both; what was kept stays when the query fails. */
	rd = (struct backend_read){.refresh = true};
	assert_int_equal(slb_backend.records(&out, &rd, st, &rec, loaded, n), SWEEP_ERR);
	assert_int_equal(rd.kept, 0);
	assert_int_equal(rd.asked, 2);
	acct_set_release(&out);
	rd = (struct backend_read){0};
	assert_int_equal(slb_backend.records(&out, &rd, st, &rec, loaded, n), 0);
	assert_int_equal(rd.kept, 2);
	acct_set_release(&out);

	if (old)
		setenv("SLURM_CONF", old, 1);
	else
		unsetenv("SLURM_CONF");
	free(old);
	acct_set_release(&set);
	array_recs_free(loaded, n);
	sweep_rec_release(&rec);
	store_close(st);
	remove_tree(dir);
	free(dir);
}

static void test_acct_fetch_without_slurm_conf(void **state)
{
	uint32_t id = 1;
	struct acct_set set;
	char *old = getenv("SLURM_CONF") ? xstrdup(getenv("SLURM_CONF")) : NULL;

	(void)state;
	acct_set_init(&set);
	setenv("SLURM_CONF", "/nonexistent/slurm.conf", 1);
	/* libslurm itself would retry for a minute and then exit the process. */
	assert_int_equal(slb_acct_fetch(&set, &id, 1, false), SWEEP_ERR);
	assert_non_null(strstr(captured.buf, "cannot read Slurm's configuration "
	                                     "'/nonexistent/slurm.conf'"));
	if (old)
		setenv("SLURM_CONF", old, 1);
	else
		unsetenv("SLURM_CONF");
	free(old);
	acct_set_release(&set);
}

/*
 * A binary started against another release's libslurm (a same-named soname
 * put first on LD_LIBRARY_PATH, a site upgrade under an old build) says so
 * before any call into it.
 */
static void test_conn_check_release(void **state)
{
	(void)state;
	/* 0: built without a known soname; the same API: the build's own. */
	assert_int_equal(slb_conn_check_release(0, SLURM_VERSION_NUM(40, 0, 0)), 0);
	assert_int_equal(slb_conn_check_release(45, SLURM_VERSION_NUM(45, 0, 0)), 0);
	assert_int_equal(captured.len, 0);
	assert_int_equal(slb_conn_check_release(45, SLURM_VERSION_NUM(38, 0, 0)), SWEEP_ERR);
	assert_non_null(strstr(captured.buf, "but runs with another release's libslurm (API 38"));
	assert_non_null(strstr(captured.buf, "rebuild sweep against the cluster's Slurm (cmake "
	                                     "-DSLURM_ROOT=PREFIX"));
}

/* A TCP port on which nothing listens (taken from the kernel, then let go). */
static int free_port(void)
{
	struct sockaddr_in addr;
	socklen_t len = sizeof(addr);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port;

	assert_true(fd >= 0);
	memset(&addr, 0, sizeof(addr));
	addr.sin_family = AF_INET;
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&addr, &len), 0);
	port = ntohs(addr.sin_port);
	close(fd);
	return port;
}

/*
 * The cluster's slurm.conf with slurmdbd moved to a port where nothing
 * answers, written under $SWEEP_TEST_TMP; NULL if that fails.
 */
static char *conf_without_slurmdbd(const char *conf)
{
	struct strbuf in = STRBUF_INIT, out = STRBUF_INIT;
	const char *tmp = getenv("SWEEP_TEST_TMP");
	int port = free_port();
	char *path = NULL;
	FILE *f;

	if (!tmp || !*tmp)
		tmp = "/tmp";
	mkdir(tmp, 0777); /* ctest names it; the first test to need it makes it */
	if (strbuf_read_file(&in, conf) < 0)
		goto out;
	for (const char *p = in.buf; *p;) {
		size_t len = strcspn(p, "\n");

		if (strncasecmp(p, "AccountingStorageHost", 21) &&
		    strncasecmp(p, "AccountingStoragePort", 21)) {
			strbuf_add(&out, p, len);
			strbuf_addch(&out, '\n');
		}
		p += len + (p[len] == '\n');
	}
	strbuf_addf(&out, "AccountingStorageHost=127.0.0.1\nAccountingStoragePort=%d\n", port);
	path = xstrfmt("%s/acct-no-slurmdbd-%ld.conf", tmp, (long)getpid());
	f = fopen(path, "w");
	if (f)
		fputs(out.buf, f);
	if (!f || fclose(f) != 0) {
		free(path);
		path = NULL;
	}
out:
	strbuf_release(&in);
	strbuf_release(&out);
	return path;
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/*
 * slurmdb_connection_get() returns a handle even when slurmdbd is down.
 * libslurm's state is per process, so this runs in a child.
 */
static void test_acct_fetch_slurmdbd_down(void **state)
{
	const char *conf = getenv("SLURM_CONF");
	struct timespec t0;
	char *path;
	pid_t pid;
	int status;

	(void)state;
	if (!conf || !*conf)
		conf = "/etc/slurm/slurm.conf";
	if (access(conf, R_OK) < 0)
		skip(); /* not a Slurm machine */
	path = conf_without_slurmdbd(conf);
	assert_non_null(path);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		uint32_t ids[] = {1, 2};
		struct acct_set set;
		int ret;

		alarm(10); /* a hang fails the test */
		setenv("SLURM_CONF", path, 1);
		acct_set_init(&set);
		ret = slb_acct_fetch(&set, ids, 2, false);
		fputs(captured.buf, stderr);
		/* _exit: libslurm leaks the failed connection, and LSan would fail the child. */
		if (ret != SWEEP_ERR)
			_exit(1);
		if (!strstr(captured.buf, "error: cannot reach slurmdbd"))
			_exit(2);
		/* A read of kept tasks' array jobs fails the same way, with steps or not. */
		for (int steps = 0; steps < 2; steps++) {
			const uint32_t tasks[] = {3, 4};
			const struct slb_acct_part part = {2, tasks, 2, 0};

			strbuf_reset(&captured);
			ret = slb_acct_fetch_parts(&set, ids, 1, &part, 1, steps);
			fputs(captured.buf, stderr);
			if (ret != SWEEP_ERR || set.n)
				_exit(3);
			if (!strstr(captured.buf, "error: cannot reach slurmdbd"))
				_exit(4);
		}
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	unlink(path);
	free(path);
	if (WIFSIGNALED(status))
		fail_msg("slb_acct_fetch did not return within 10 s (signal %d)", WTERMSIG(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_true(seconds_since(&t0) < 10.0);
}

/* A packed array task: one more record per step named sweep-<index>, the sweep task. */
static void test_acct_packed_steps(void **state)
{
	slurmdb_job_rec_t job;
	slurmdb_step_rec_t steps[5];
	struct acct_set set;
	const struct acct_rec *r;

	(void)state;
	finished_job(&job);
	job.state = JOB_FAILED;
	job.exitcode = 1 << 8;
	memset(steps, 0, sizeof(steps));
	steps[0].stepname = "batch";
	steps[0].stats.tres_usage_in_max = "2=4096";
	steps[1].stepname = "sweep-40";
	steps[1].state = JOB_COMPLETE;
	steps[1].elapsed = 11;
	steps[1].start = 1700000006;
	steps[1].end = 1700000017;
	steps[1].nodes = "vm";
	steps[1].stats.tres_usage_in_max = "1=3,2=7340032";
	steps[2].stepname = "sweep-41";
	steps[2].state = JOB_FAILED;
	steps[2].exitcode = 3 << 8;
	steps[2].elapsed = 2;
	steps[3].stepname = "sweep-x1";  /* not ours: a user's own step name */
	steps[4].stepname = "sweep-42a"; /* likewise */
	job.steps = slurm_list_create(NULL);
	for (size_t i = 0; i < 5; i++)
		slurm_list_append(job.steps, &steps[i]);
	acct_set_init(&set);
	assert_int_equal(slb_acct_decode_job(&set, &job, true), 1);
	assert_int_equal(set.n, 3);
	r = &set.recs[0];
	assert_int_equal(r->step_index, ACCT_NO_STEP);
	assert_int_equal(r->state, TS_FAILED);
	r = &set.recs[1];
	assert_int_equal(r->step_index, 40);
	assert_int_equal(r->array_job_id, 100);
	assert_int_equal(r->array_task_id, 3);
	assert_int_equal(r->job_id, 103);
	assert_int_equal(r->state, TS_COMPLETED);
	assert_int_equal(r->exit_code, 0);
	assert_int_equal(r->elapsed_s, 11);
	assert_int_equal(r->maxrss_bytes, 7340032);
	assert_int_equal(r->timelimit_s, 3600); /* the job's; outcome_build divides by the pack */
	assert_int_equal(r->req_mem_mb, 100);
	assert_true(r->req_mem_per_cpu);
	assert_int_equal(r->start_time, 1700000006);
	assert_string_equal(r->nodes, "vm");
	r = &set.recs[2];
	assert_int_equal(r->step_index, 41);
	assert_int_equal(r->state, TS_FAILED);
	assert_int_equal(r->exit_code, 3);
	assert_true(r->maxrss_bytes == ACCT_NO_VALUE);
	acct_set_release(&set);
	slurm_list_destroy(job.steps);
}

/* Many steps: the set's array moves while they are added (a copy of the job's record is used). */
static void test_acct_packed_many_steps(void **state)
{
	slurmdb_job_rec_t job;
	slurmdb_step_rec_t steps[100];
	char names[100][16];
	struct acct_set set;

	(void)state;
	finished_job(&job);
	memset(steps, 0, sizeof(steps));
	job.steps = slurm_list_create(NULL);
	for (int i = 0; i < 100; i++) {
		snprintf(names[i], sizeof(names[i]), "sweep-%d", 1000 + i);
		steps[i].stepname = names[i];
		steps[i].state = JOB_COMPLETE;
		slurm_list_append(job.steps, &steps[i]);
	}
	acct_set_init(&set);
	assert_int_equal(slb_acct_decode_job(&set, &job, true), 1);
	assert_int_equal(set.n, 101);
	for (size_t i = 1; i < set.n; i++) {
		assert_int_equal(set.recs[i].step_index, 999 + i);
		assert_int_equal(set.recs[i].array_job_id, 100);
		assert_int_equal(set.recs[i].job_id, 103);
	}
	acct_set_release(&set);
	slurm_list_destroy(job.steps);
}

/* Adds a record of task (ACCT_NO_TASK: the pending one) of array job to set. */
static struct acct_rec *add_run(struct acct_set *set, uint32_t job, uint32_t task,
                                enum task_state st, int64_t end)
{
	struct acct_rec *rec = acct_set_add(set);

	rec->array_job_id = job;
	rec->array_task_id = task;
	rec->state = st;
	rec->end_time = end;
	return rec;
}

static void test_acct_ended_tasks(void **state)
{
	/* Tasks 0-5 not kept, of which 0 ended twice (a requeue), 2 runs, 4 was cancelled
	 * pending-side with no end time yet, 5 has no record (still pending); task 7 is
	 * kept (not asked); a task of another array job is not this part's. */
	const uint32_t tasks[] = {5, 4, 3, 2, 1, 0};
	struct slb_acct_part part = {300, tasks, 6, 0};
	struct acct_set set;
	uint32_t out[6];

	(void)state;
	acct_set_init(&set);
	add_run(&set, 300, ACCT_NO_TASK, TS_PENDING, 0);
	add_run(&set, 300, 0, TS_NODE_FAIL, 1700000010);
	add_run(&set, 300, 0, TS_COMPLETED, 1700000050);
	add_run(&set, 300, 1, TS_FAILED, 1700000020);
	add_run(&set, 300, 2, TS_RUNNING, 0);
	add_run(&set, 300, 3, TS_COMPLETED, 1700000030);
	add_run(&set, 300, 4, TS_CANCELLED, 0);
	add_run(&set, 300, 7, TS_COMPLETED, 1700000040);
	add_run(&set, 301, 1, TS_COMPLETED, 1700000060);
	assert_int_equal(slb_acct_ended_tasks(out, &set, &part), 4);
	assert_int_equal(out[0], 0);
	assert_int_equal(out[1], 1);
	assert_int_equal(out[2], 3);
	assert_int_equal(out[3], 4);

	/* Nothing ended: nothing to ask. */
	part.ntasks = 0;
	assert_int_equal(slb_acct_ended_tasks(out, &set, &part), 0);
	acct_set_release(&set);
}

static void test_acct_merge(void **state)
{
	/* The query with steps answered for tasks 1 and 3 of array 300 and all of 400;
	 * the one without steps holds the pending record, the kept task 2, tasks 1 and 3
	 * again (dropped: the ones with steps win) and task 5, started since. */
	struct acct_set out, first;
	struct acct_rec *rec;

	(void)state;
	acct_set_init(&out);
	acct_set_init(&first);
	add_run(&out, 999, 0, TS_COMPLETED, 1)->nodes = xstrdup("before");
	add_run(&out, 300, 1, TS_COMPLETED, 2)->maxrss_bytes = 1000;
	add_run(&out, 300, 3, TS_NODE_FAIL, 3)->maxrss_bytes = 1000;
	add_run(&out, 300, 3, TS_COMPLETED, 4)->maxrss_bytes = 1000;
	add_run(&out, 400, 0, TS_COMPLETED, 5)->maxrss_bytes = 1000;
	rec = add_run(&first, 300, ACCT_NO_TASK, TS_PENDING, 0);
	rec->pending_tasks = xstrdup("0x60");
	add_run(&first, 300, 1, TS_COMPLETED, 2);
	add_run(&first, 300, 2, TS_COMPLETED, 1)->nodes = xstrdup("vm");
	add_run(&first, 300, 3, TS_NODE_FAIL, 3);
	add_run(&first, 300, 3, TS_COMPLETED, 4);
	add_run(&first, 300, 5, TS_RUNNING, 0);
	/* Records before `from` are not this read's: task 0 of 999 is not looked at. */
	slb_acct_merge(&out, 1, &first);
	assert_int_equal(out.n, 8);
	assert_int_equal(out.recs[5].array_task_id, ACCT_NO_TASK);
	assert_string_equal(out.recs[5].pending_tasks, "0x60");
	assert_int_equal(out.recs[6].array_task_id, 2);
	assert_string_equal(out.recs[6].nodes, "vm");
	assert_int_equal(out.recs[7].array_task_id, 5);
	for (size_t r = 1; r < 5; r++)
		assert_true(out.recs[r].maxrss_bytes == 1000);
	/* The strings moved: releasing both frees each once (ASan tells). */
	assert_null(first.recs[0].pending_tasks);
	assert_null(first.recs[2].nodes);
	acct_set_release(&first);
	acct_set_release(&out);
}

static void test_acct_plan_parts(void **state)
{
	/* Array 500 read whole; of the parts, 600 has every task kept (read whole, so
	 * that it is kept whole), 700 names 3 tasks, 800 names 2, 900 names 5. */
	const uint32_t ids[] = {500};
	const uint32_t t700[] = {4, 9, 1}, t800[] = {0, 1}, t900[] = {0, 1, 2, 3, 4};
	const struct slb_acct_part parts[] = {
	    {600, NULL, 0, 0}, {700, t700, 3, 0}, {800, t800, 2, 0}, {900, t900, 5, 0}};
	struct slb_acct_plan plan;

	(void)state;
	slb_acct_plan_parts(&plan, ids, 1, parts, 4, SLB_ACCT_MAX_NAMED);
	assert_int_equal(plan.nwhole, 2);
	assert_int_equal(plan.whole[0], 500);
	assert_int_equal(plan.whole[1], 600);
	/* Named smallest first, each with its own tasks (borrowed). */
	assert_int_equal(plan.nnamed, 3);
	assert_int_equal(plan.named[0].job_id, 800);
	assert_int_equal(plan.named[1].job_id, 700);
	assert_ptr_equal(plan.named[1].tasks, t700);
	assert_int_equal(plan.named[1].ntasks, 3);
	assert_int_equal(plan.named[2].job_id, 900);
	slb_acct_plan_release(&plan);
	assert_null(plan.whole);

	/* A budget of 6 pairs: 800 and 700 fit (5), 900 does not and is read whole. */
	slb_acct_plan_parts(&plan, ids, 1, parts, 4, 6);
	assert_int_equal(plan.nnamed, 2);
	assert_int_equal(plan.named[0].job_id, 800);
	assert_int_equal(plan.named[1].job_id, 700);
	assert_int_equal(plan.nwhole, 3);
	assert_int_equal(plan.whole[2], 900);
	slb_acct_plan_release(&plan);

	/*
	 * A part over the budget whose since is known is windowed (its rows
	 * that ended since), not read whole; one with no task to name is read
	 * whole even then (to be kept whole). A budget of 0 names nothing.
	 */
	{
		const struct slb_acct_part timed[] = {
		    {700, t700, 3, 0}, {900, t900, 5, 1700000000}, {600, NULL, 0, 1700000000}};

		slb_acct_plan_parts(&plan, NULL, 0, timed, 3, 4);
		assert_int_equal(plan.nnamed, 1);
		assert_int_equal(plan.named[0].job_id, 700);
		assert_int_equal(plan.nwindowed, 1);
		assert_int_equal(plan.windowed[0].job_id, 900);
		assert_int_equal(plan.windowed[0].since, 1700000000);
		assert_ptr_equal(plan.windowed[0].tasks, t900);
		assert_int_equal(plan.nwhole, 1);
		assert_int_equal(plan.whole[0], 600);
		slb_acct_plan_release(&plan);
		assert_null(plan.windowed);
		slb_acct_plan_parts(&plan, NULL, 0, timed, 3, 0);
		assert_int_equal(plan.nnamed, 0);
		assert_int_equal(plan.nwindowed, 1);
		assert_int_equal(plan.nwhole, 2);
		assert_int_equal(plan.whole[0], 600);
		assert_int_equal(plan.whole[1], 700);
		slb_acct_plan_release(&plan);
	}

	/* Exactly the budget: named. Nothing at all: an empty plan. */
	slb_acct_plan_parts(&plan, NULL, 0, &parts[3], 1, 5);
	assert_int_equal(plan.nnamed, 1);
	assert_int_equal(plan.nwhole, 0);
	slb_acct_plan_release(&plan);
	slb_acct_plan_parts(&plan, NULL, 0, NULL, 0, 5);
	assert_int_equal(plan.nnamed + plan.nwhole, 0);
	slb_acct_plan_release(&plan);
}

static void test_acct_uncovered(void **state)
{
	/* Tasks 0-6 and 9 of array 300 not kept (2 twice: each once): 0 was requeued
	 * (two rows), 1 runs, 2 ended; 3 and 4 are pending in the pending record
	 * (0x18: bits 3 and 4); 5, 6 and 9 have no record (6 has one in array 301). */
	const uint32_t tasks[] = {9, 6, 5, 4, 3, 2, 2, 1, 0};
	struct slb_acct_part part = {300, tasks, 9, 0};
	struct acct_set set;
	struct acct_rec *pending;
	uint32_t out[9];

	(void)state;
	acct_set_init(&set);
	add_run(&set, 300, 0, TS_REQUEUED, 1700000010);
	add_run(&set, 300, 0, TS_PENDING, 0);
	add_run(&set, 300, 1, TS_RUNNING, 0);
	add_run(&set, 300, 2, TS_COMPLETED, 1700000020);
	add_run(&set, 301, 6, TS_COMPLETED, 1700000020);
	assert_int_equal(slb_acct_uncovered(out, &set, &part), 5);
	assert_int_equal(out[0], 3);
	assert_int_equal(out[4], 9);

	pending = add_run(&set, 300, ACCT_NO_TASK, TS_PENDING, 0);
	pending->pending_tasks = xstrdup("0x18");
	assert_int_equal(slb_acct_uncovered(out, &set, &part), 3);
	assert_int_equal(out[0], 5);
	assert_int_equal(out[1], 6);
	assert_int_equal(out[2], 9);

	/* Slurm's other form of the task list reads as well. */
	free(set.recs[5].pending_tasks);
	set.recs[5].pending_tasks = xstrdup("3-6,9");
	assert_int_equal(slb_acct_uncovered(out, &set, &part), 0);

	/* An unreadable pending record, or one with no list, covers nothing. */
	free(set.recs[5].pending_tasks);
	set.recs[5].pending_tasks = xstrdup("0xZZ");
	assert_int_equal(slb_acct_uncovered(out, &set, &part), 5);
	free(set.recs[5].pending_tasks);
	set.recs[5].pending_tasks = NULL;
	assert_int_equal(slb_acct_uncovered(out, &set, &part), 5);

	/* No task asked: none uncovered. */
	part.ntasks = 0;
	assert_int_equal(slb_acct_uncovered(out, &set, &part), 0);
	assert_string_equal(captured.buf, "");
	acct_set_release(&set);
}

static void test_acct_array_row(void **state)
{
	/* Array 300's own row: its pending record, then the task it became (job id 300). */
	struct acct_set set;

	(void)state;
	acct_set_init(&set);
	assert_false(slb_acct_array_row(&set, 300));
	add_run(&set, 300, 1, TS_RUNNING, 0)->job_id = 301;
	add_run(&set, 400, ACCT_NO_TASK, TS_PENDING, 0)->job_id = 400;
	assert_false(slb_acct_array_row(&set, 300));
	assert_true(slb_acct_array_row(&set, 400));
	add_run(&set, 300, 7, TS_RUNNING, 0)->job_id = 300;
	assert_true(slb_acct_array_row(&set, 300));
	/* Another array job's task that happens to carry the id is not it. */
	assert_false(slb_acct_array_row(&set, 301));
	acct_set_release(&set);
}

/* The entries of cond's step list, as "job_task" words ("job" for a whole array job). */
static char *step_entries(const slurmdb_job_cond_t *cond)
{
	struct strbuf sb = STRBUF_INIT;
	slurm_selected_step_t *sel;
	slb_list_itr_t it = slurm_list_iterator_create(cond->step_list);

	while ((sel = slurm_list_next(it))) {
		assert_int_equal(sel->step_id.step_id, NO_VAL);
		assert_int_equal(sel->het_job_offset, NO_VAL);
		if (sel->array_task_id == NO_VAL)
			strbuf_addf(&sb, "%s%u", sb.len ? " " : "", sel->step_id.job_id);
		else
			strbuf_addf(&sb, "%s%u_%u", sb.len ? " " : "", sel->step_id.job_id,
			            sel->array_task_id);
	}
	slurm_list_iterator_destroy(it);
	return strbuf_detach(&sb, NULL);
}

static void test_acct_build_cond(void **state)
{
	/* Whole array jobs by id, the parts' tasks one (job, task) entry each. */
	const uint32_t ids[] = {500, 501}, t700[] = {4, 9};
	const struct slb_acct_part parts[] = {{700, t700, 2, 0}, {800, NULL, 0, 0}};
	slurmdb_job_cond_t cond;
	slb_list_itr_t it;
	char *entries;
	time_t now = time(NULL);

	(void)state;
	slb_acct_build_cond(&cond, ids, 2, parts, 2, "vm", false, 0);
	entries = step_entries(&cond);
	assert_string_equal(entries, "500 501 700_4 700_9");
	free(entries);
	assert_true(cond.flags & JOBCOND_FLAG_NO_STEP);
	assert_true(cond.flags & JOBCOND_FLAG_DUP);
	assert_true(cond.flags & JOBCOND_FLAG_NO_TRUNC);
	assert_int_equal(cond.db_flags, SLURMDB_JOB_FLAG_NOTSET);
	assert_int_equal(cond.usage_start, 0);
	assert_true(cond.usage_end > now);
	assert_int_equal(slurm_list_count(cond.cluster_list), 1);
	it = slurm_list_iterator_create(cond.cluster_list);
	assert_string_equal(slurm_list_next(it), "vm");
	slurm_list_iterator_destroy(it);
	slb_acct_cond_release(&cond);
	assert_null(cond.step_list);

	/* With steps, rows from `since` on, no cluster known: every cluster. */
	slb_acct_build_cond(&cond, NULL, 0, parts, 1, NULL, true, (int64_t)now);
	entries = step_entries(&cond);
	assert_string_equal(entries, "700_4 700_9");
	free(entries);
	assert_false(cond.flags & JOBCOND_FLAG_NO_STEP);
	assert_int_equal(cond.usage_start, now);
	assert_null(cond.cluster_list);
	slb_acct_cond_release(&cond);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_acct_finished_task, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_conn_check_release, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_acct_preempted_after_self_requeue_26_05, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_acct_states, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_acct_revoked_and_resizing_skipped, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_acct_exit_code_and_signal, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_acct_over_memory_kill, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_acct_memory_request, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_acct_maxrss_over_steps, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_acct_cpu_and_gpu, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_acct_pending_record, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_acct_maybe_held, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_acct_not_an_array_skipped, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_acct_set_add_defaults, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_acct_packed_steps, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_acct_packed_many_steps, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_acct_state_names, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_acct_steps_final, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_acct_fetch_nothing, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_acct_fetch_without_slurm_conf, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_acct_kept_through_backend, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_acct_fetch_slurmdbd_down, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_acct_ended_tasks, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_acct_merge, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_acct_plan_parts, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_acct_uncovered, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_acct_array_row, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_acct_build_cond, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
