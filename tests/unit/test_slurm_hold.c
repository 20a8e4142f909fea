/*
 * Held tasks on the Slurm side: the controller's pending reasons mapped to
 * holds (slb_hold_of), put in words (slb_hold_reason) and laid over
 * accounting's PENDING records (slb_hold_apply), with job records built by
 * hand as slurmctld fills them (checked on the test cluster, 22.05), and
 * slb_hold_mark when there is nothing to ask or no controller answers.
 */
#include "slurm_compat.h"

#include "slurm_hold.h"

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
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "acct.h"
#include "error.h"
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

/* Task task of array 700 (NO_VAL: the array's pending record), pending for reason. */
static slurm_job_info_t pending_job(uint32_t task, uint32_t reason)
{
	slurm_job_info_t job;

	memset(&job, 0, sizeof(job));
	job.array_job_id = 700;
	job.array_task_id = task;
	job.job_id = task == NO_VAL ? 700 : 710 + task;
	job.job_state = JOB_PENDING;
	job.state_reason = reason;
	job.priority = 4294901143u;
	return job;
}

static void test_hold_of_reasons(void **state)
{
	static const struct {
		uint32_t job_state, reason, priority;
		enum acct_hold want;
	} cases[] = {
	    {JOB_PENDING, WAIT_HELD_USER, 0, ACCT_HOLD_USER},
	    {JOB_PENDING, WAIT_HELD, 0, ACCT_HOLD_ADMIN},
	    {JOB_PENDING, WAIT_DEPENDENCY, 100, ACCT_HOLD_DEPENDENCY},
	    {JOB_PENDING, WAIT_DEP_INVALID, 100, ACCT_HOLD_DEP_NEVER},
	    {JOB_PENDING, WAIT_TIME, 100, ACCT_HOLD_BEGIN},
	    /* scontrol requeuehold: pending with a flag, held by the user. */
	    {JOB_PENDING | JOB_REQUEUE_HOLD, WAIT_HELD_USER, 0, ACCT_HOLD_USER},
	    /* Waiting its turn: not held. */
	    {JOB_PENDING, WAIT_RESOURCES, 100, ACCT_HOLD_NONE},
	    {JOB_PENDING, WAIT_PRIORITY, 100, ACCT_HOLD_NONE},
	    {JOB_PENDING, WAIT_ARRAY_TASK_LIMIT, 100, ACCT_HOLD_NONE},
	    {JOB_PENDING, WAIT_NO_REASON, 100, ACCT_HOLD_NONE},
	    /* Priority 0 is a hold whose reason is not written yet. */
	    {JOB_PENDING, WAIT_ARRAY_TASK_LIMIT, 0, ACCT_HOLD_ADMIN},
	    {JOB_PENDING, WAIT_NO_REASON, 0, ACCT_HOLD_ADMIN},
	    /* Not pending: nothing holds it, whatever the reason left behind. */
	    {JOB_RUNNING, WAIT_HELD_USER, 0, ACCT_HOLD_NONE},
	    {JOB_COMPLETE, WAIT_TIME, 100, ACCT_HOLD_NONE},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		slurm_job_info_t job = pending_job(3, cases[i].reason);

		job.job_state = cases[i].job_state;
		job.priority = cases[i].priority;
		if (slb_hold_of(&job) != cases[i].want)
			fail_msg("case %zu: hold %d, want %d", i, (int)slb_hold_of(&job),
			         (int)cases[i].want);
	}
}

/* Before the scheduler's first look a job has no reason: its begin time tells. */
static void test_hold_of_begin_before_reason(void **state)
{
	slurm_job_info_t job = pending_job(3, WAIT_NO_REASON);

	(void)state;
	job.eligible_time = time(NULL) + 3600;
	assert_int_equal(slb_hold_of(&job), ACCT_HOLD_BEGIN);
	job.eligible_time = time(NULL) - 5; /* the submit time: eligible now */
	assert_int_equal(slb_hold_of(&job), ACCT_HOLD_NONE);
	/* A reason, once written, decides. */
	job.eligible_time = time(NULL) + 3600;
	job.state_reason = WAIT_RESOURCES;
	assert_int_equal(slb_hold_of(&job), ACCT_HOLD_NONE);
	/* A dependency not looked at yet. */
	job.eligible_time = 0;
	job.state_reason = WAIT_NO_REASON;
	job.dependency = "afterok:12_*";
	assert_int_equal(slb_hold_of(&job), ACCT_HOLD_DEPENDENCY);
	job.dependency = "(null)";
	assert_int_equal(slb_hold_of(&job), ACCT_HOLD_NONE);
	job.dependency = "";
	assert_int_equal(slb_hold_of(&job), ACCT_HOLD_NONE);
}

static void expect_reason(slurm_job_info_t *job, enum acct_hold hold, const char *want)
{
	char *got = slb_hold_reason(job, hold);

	if (!want) {
		assert_null(got);
		return;
	}
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void test_hold_reason_words(void **state)
{
	slurm_job_info_t job = pending_job(3, WAIT_HELD);
	char *old_tz = getenv("TZ") ? xstrdup(getenv("TZ")) : NULL;

	(void)state;
	expect_reason(&job, ACCT_HOLD_USER, "held by the user");
	expect_reason(&job, ACCT_HOLD_ADMIN, "held by an administrator");
	job.state_desc = "launch failed requeued held";
	expect_reason(&job, ACCT_HOLD_ADMIN,
	              "held by an administrator: launch failed requeued held");
	job.state_desc = "";
	expect_reason(&job, ACCT_HOLD_ADMIN, "held by an administrator");
	expect_reason(&job, ACCT_HOLD_DEPENDENCY, "waiting for a dependency");
	expect_reason(&job, ACCT_HOLD_DEP_NEVER, "waiting for a dependency that can never be met");
	job.dependency = "(null)"; /* how some releases print an empty one */
	expect_reason(&job, ACCT_HOLD_DEPENDENCY, "waiting for a dependency");
	job.dependency = "afterok:699_*";
	expect_reason(&job, ACCT_HOLD_DEPENDENCY, "waiting for dependency afterok:699_*");
	job.dependency = "afterok:699_*(failed)";
	expect_reason(&job, ACCT_HOLD_DEP_NEVER,
	              "waiting for a dependency that can never be met: afterok:699_*(failed)");

	setenv("TZ", "UTC", 1);
	tzset();
	job.start_time = 1796549590; /* 2026-12-06T09:33:10Z */
	expect_reason(&job, ACCT_HOLD_BEGIN, "begins at 2026-12-06T09:33:10");
	job.start_time = 0;
	expect_reason(&job, ACCT_HOLD_BEGIN, "waiting for its begin time");
	job.start_time = (time_t)INFINITE;
	expect_reason(&job, ACCT_HOLD_BEGIN, "waiting for its begin time");
	if (old_tz)
		setenv("TZ", old_tz, 1);
	else
		unsetenv("TZ");
	tzset();
	free(old_tz);

	expect_reason(&job, ACCT_HOLD_NONE, NULL);
	expect_reason(&job, ACCT_NHOLDS, NULL);
}

static struct acct_rec *add_rec(struct acct_set *set, uint32_t array, uint32_t task,
                                enum task_state s)
{
	struct acct_rec *rec = acct_set_add(set);

	rec->array_job_id = array;
	rec->array_task_id = task;
	rec->job_id = task == ACCT_NO_TASK ? array : 710 + task;
	rec->state = s;
	return rec;
}

/*
 * Accounting's PENDING records take the controller's holds: the array's
 * pending record and split tasks alike; a task waiting its turn, a record
 * that is no longer pending, a job step and another array's task do not.
 */
static void test_hold_apply(void **state)
{
	slurm_job_info_t jobs[6];
	job_info_msg_t msg;
	struct acct_set set;

	(void)state;
	jobs[0] = pending_job(NO_VAL, WAIT_HELD_USER);
	jobs[0].priority = 0;
	jobs[0].array_task_str = "5-9";
	jobs[1] = pending_job(3, WAIT_HELD);
	jobs[1].priority = 0;
	jobs[2] = pending_job(4, WAIT_RESOURCES);
	jobs[3] = pending_job(2, WAIT_HELD_USER); /* running in accounting's view */
	jobs[4] = pending_job(1, WAIT_TIME);
	jobs[4].start_time = 0;
	jobs[5] = pending_job(6, WAIT_DEPENDENCY);
	jobs[5].array_job_id = 800; /* another array: task 6 of 700 is not it */
	memset(&msg, 0, sizeof(msg));
	msg.record_count = 6;
	msg.job_array = jobs;

	acct_set_init(&set);
	add_rec(&set, 700, ACCT_NO_TASK, TS_PENDING)->pending_tasks = xstrdup("0x3e0");
	add_rec(&set, 700, 3, TS_PENDING)->reason = xstrdup("JobArrayTaskLimit");
	add_rec(&set, 700, 4, TS_PENDING);
	add_rec(&set, 700, 2, TS_RUNNING);
	add_rec(&set, 700, 1, TS_PENDING)->step_index = 7; /* a packed task's step */
	add_rec(&set, 700, 6, TS_PENDING);
	add_rec(&set, 700, 1, TS_PENDING);

	assert_int_equal(slb_hold_apply(&set, &msg, 700, "0-9"), 3);
	assert_int_equal(set.recs[0].state, TS_HELD);
	assert_int_equal(set.recs[0].hold, ACCT_HOLD_USER);
	assert_string_equal(set.recs[0].reason, "held by the user");
	assert_int_equal(set.recs[1].state, TS_HELD);
	assert_int_equal(set.recs[1].hold, ACCT_HOLD_ADMIN);
	assert_string_equal(set.recs[1].reason, "held by an administrator");
	assert_int_equal(set.recs[2].state, TS_PENDING);
	assert_int_equal(set.recs[2].hold, ACCT_HOLD_NONE);
	assert_null(set.recs[2].reason);
	assert_int_equal(set.recs[3].state, TS_RUNNING);
	assert_int_equal(set.recs[4].state, TS_PENDING);
	assert_int_equal(set.recs[5].state, TS_PENDING);
	assert_int_equal(set.recs[6].state, TS_HELD);
	assert_int_equal(set.recs[6].hold, ACCT_HOLD_BEGIN);
	assert_string_equal(set.recs[6].reason, "waiting for its begin time");

	/* Nothing from the controller: nothing changes. */
	assert_int_equal(slb_hold_apply(&set, NULL, 700, "0-9"), 0);
	assert_int_equal(set.n, 7);
	acct_set_release(&set);
	assert_string_equal(captured.buf, "");
}

/*
 * An array job accounting has no record of (slurmdbd hears of a job whose
 * begin time is ahead only then): its held records are added, the pending
 * one covering the --array value; a task waiting its turn is not.
 */
static void test_hold_apply_no_record(void **state)
{
	slurm_job_info_t jobs[3];
	job_info_msg_t msg;
	struct acct_set set;

	(void)state;
	jobs[0] = pending_job(NO_VAL, WAIT_TIME);
	jobs[0].start_time = 0;
	jobs[0].submit_time = 1796546000;
	jobs[1] = pending_job(2, WAIT_HELD_USER);
	jobs[2] = pending_job(3, WAIT_RESOURCES);
	memset(&msg, 0, sizeof(msg));
	msg.record_count = 3;
	msg.job_array = jobs;

	acct_set_init(&set);
	add_rec(&set, 600, 0, TS_COMPLETED); /* another array job's */
	/* Without the --array value, nothing to cover. */
	assert_int_equal(slb_hold_apply(&set, &msg, 700, NULL), 0);
	assert_int_equal(slb_hold_apply(&set, &msg, 700, ""), 0);
	assert_int_equal(set.n, 1);
	assert_int_equal(slb_hold_apply(&set, &msg, 700, "0-5%2"), 2);
	assert_int_equal(set.n, 3);
	assert_int_equal(set.recs[1].array_job_id, 700);
	assert_int_equal(set.recs[1].array_task_id, ACCT_NO_TASK);
	assert_int_equal(set.recs[1].job_id, 700);
	assert_string_equal(set.recs[1].pending_tasks, "0-5%2");
	assert_int_equal(set.recs[1].state, TS_HELD);
	assert_int_equal(set.recs[1].hold, ACCT_HOLD_BEGIN);
	assert_string_equal(set.recs[1].reason, "waiting for its begin time");
	assert_int_equal(set.recs[1].submit_time, 1796546000);
	assert_int_equal(set.recs[2].array_task_id, 2);
	assert_int_equal(set.recs[2].job_id, 712);
	assert_null(set.recs[2].pending_tasks);
	assert_int_equal(set.recs[2].hold, ACCT_HOLD_USER);
	assert_int_equal(set.recs[2].step_index, ACCT_NO_STEP);
	/* Once it has records, nothing is added again. */
	assert_int_equal(slb_hold_apply(&set, &msg, 700, "0-5%2"), 0);
	assert_int_equal(set.n, 3);
	acct_set_release(&set);
}

/* No pending record: the controller is not asked (nor libslurm set up). */
static void test_hold_mark_nothing_pending(void **state)
{
	char *old = getenv("SLURM_CONF") ? xstrdup(getenv("SLURM_CONF")) : NULL;
	struct array_rec arrays[] = {{.job_id = 700, .spec = "0-4"}};
	struct acct_set set;

	(void)state;
	setenv("SLURM_CONF", "/nonexistent/slurm.conf", 1);
	acct_set_init(&set);
	slb_hold_mark(&set, NULL, 0);
	add_rec(&set, 700, 3, TS_COMPLETED);
	add_rec(&set, 700, 4, TS_RUNNING);
	slb_hold_mark(&set, arrays, 1);
	assert_int_equal(set.recs[0].state, TS_COMPLETED);
	assert_int_equal(set.recs[1].state, TS_RUNNING);
	assert_string_equal(captured.buf, "");
	acct_set_release(&set);
	if (old)
		setenv("SLURM_CONF", old, 1);
	else
		unsetenv("SLURM_CONF");
	free(old);
}

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

/* The cluster's slurm.conf with slurmctld moved to a port where nothing answers. */
static char *conf_without_slurmctld(const char *conf)
{
	struct strbuf in = STRBUF_INIT, out = STRBUF_INIT;
	const char *tmp = getenv("SWEEP_TEST_TMP");
	char *path = NULL;
	FILE *f;

	if (!tmp || !*tmp)
		tmp = "/tmp";
	mkdir(tmp, 0777);
	if (strbuf_read_file(&in, conf) < 0)
		goto out;
	for (const char *p = in.buf; *p;) {
		size_t len = strcspn(p, "\n");

		if (strncasecmp(p, "SlurmctldPort", 13) && strncasecmp(p, "MessageTimeout", 14)) {
			strbuf_add(&out, p, len);
			strbuf_addch(&out, '\n');
		}
		p += len + (p[len] == '\n');
	}
	strbuf_addf(&out, "SlurmctldPort=%d\nMessageTimeout=2\n", free_port());
	path = xstrfmt("%s/hold-no-slurmctld-%ld.conf", tmp, (long)getpid());
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

/*
 * No controller: a warning says held tasks show as PENDING, and the
 * records stay as accounting has them. libslurm's state is per process,
 * so this runs in a child.
 */
static void test_hold_mark_controller_down(void **state)
{
	const char *conf = getenv("SLURM_CONF");
	char *path;
	pid_t pid;
	int status;

	(void)state;
	if (!conf || !*conf)
		conf = "/etc/slurm/slurm.conf";
	if (access(conf, R_OK) < 0)
		skip(); /* not a Slurm machine */
	path = conf_without_slurmctld(conf);
	assert_non_null(path);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct array_rec arrays[] = {{.job_id = 700, .spec = "0-4"},
		                             {.job_id = 701, .spec = "0-4"},
		                             {.job_id = 702, .spec = "0-4"}};
		struct acct_set set;

		alarm(60); /* a hang fails the test */
		setenv("SLURM_CONF", path, 1);
		acct_set_init(&set);
		add_rec(&set, 700, 3, TS_PENDING);
		add_rec(&set, 701, 3, TS_PENDING);
		slb_hold_mark(&set, arrays, 3); /* 702: no record, asked too */
		fputs(captured.buf, stderr);
		if (set.recs[0].state != TS_PENDING || set.recs[1].state != TS_PENDING)
			_exit(1);
		if (!strstr(captured.buf, "warning: cannot ask slurmctld which pending tasks are "
		                          "held: ") ||
		    !strstr(captured.buf, "; held tasks show as PENDING"))
			_exit(2);
		/* One warning, not one per array job. */
		if (strchr(captured.buf, '\n'))
			_exit(3);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	unlink(path);
	free(path);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_hold_of_reasons, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_hold_of_begin_before_reason, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_hold_reason_words, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_hold_apply, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_hold_apply_no_record, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_hold_mark_nothing_pending, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_hold_mark_controller_down, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
