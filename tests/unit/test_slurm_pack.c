/*
 * Packed tasks recorded by sweep itself (slurm_pack.h): the record lines
 * parsed, decoded into records as slurm_acct.c decodes steps named
 * sweep-<index>, the record file refused when it is not sweep's, and the
 * runner's lines and exit status.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"

#include "acct.h"
#include "array.h"
#include "error.h"
#include "slurm_pack.h"
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

static int parse(struct slb_pack_line *out, const char *line, const char **why)
{
	*why = NULL;
	return slb_pack_parse(out, line, strlen(line), why);
}

static void test_slurm_pack_parse_lines(void **state)
{
	struct slb_pack_line l;
	const char *why;

	(void)state;
	assert_int_equal(parse(&l, "S 7 0 1700000000123456 node1", &why), 0);
	assert_false(l.end);
	assert_int_equal(l.index, 7);
	assert_int_equal(l.restart, 0);
	assert_true(l.start_us == 1700000000123456);
	assert_string_equal(l.host, "node1");

	assert_int_equal(
	    parse(&l, "E 12 1 1700000000000000 1700000003500000 4 0 52428800 2100000 n2", &why), 0);
	assert_true(l.end);
	assert_int_equal(l.index, 12);
	assert_int_equal(l.restart, 1);
	assert_true(l.end_us == 1700000003500000);
	assert_int_equal(l.exit_code, 4);
	assert_int_equal(l.signal, 0);
	assert_true(l.maxrss_bytes == 52428800);
	assert_true(l.cpu_us == 2100000);
	assert_string_equal(l.host, "n2");
}

static void test_slurm_pack_parse_errors(void **state)
{
	static const struct {
		const char *line, *why;
	} cases[] = {
	    {"", "not a start (S) or end (E) line"},
	    {"X 1 0 5 h", "not a start (S) or end (E) line"},
	    {"S1 0 5 h", "not a start (S) or end (E) line"},
	    {"S ", "truncated"},
	    {"S 1", "truncated"},
	    {"S 1 0", "truncated"},
	    {"S 1 0 5", "truncated"},
	    {"S 1 0 5 ", "truncated"},
	    {"E 1 0 5 6 0 0 100", "truncated"},
	    {"E 1 0 5 6 0 0 100 7", "truncated"},
	    {"S x 0 5 h", "a bad number"},
	    {"S 1 -1 5 h", "a bad number"},
	    {"S 1 0 5x h", "a bad number"},
	    {"S 4294967295 0 5 h", "a bad number"},
	    {"S 1 0 99999999999999999999 h", "a bad number"},
	    {"E 1 0 5 6 256 0 100 7 h", "a bad number"},
	    {"E 1 0 5 6 0 128 100 7 h", "a bad number"},
	    {"E 1 0 5 6 0 0 1e3 7 h", "a bad number"},
	    {"S 1 0 5 two words", "a bad host name"},
	    {"E 1 0 9 5 0 0 100 7 h", "an end before the start"},
	};
	struct slb_pack_line l;
	const char *why;
	char longhost[400];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(parse(&l, cases[i].line, &why), -1);
		assert_non_null(why);
		if (strcmp(why, cases[i].why))
			fail_msg("'%s': '%s', expected '%s'", cases[i].line, why, cases[i].why);
	}
	memset(longhost, 'h', sizeof(longhost));
	memcpy(longhost, "S 1 0 5 ", 8);
	longhost[sizeof(longhost) - 1] = '\0';
	assert_int_equal(parse(&l, longhost, &why), -1);
	assert_string_equal(why, "a bad host name");
}

/* Array task 2 of array 500 (job 502), as slurm_acct.c decodes its own record. */
static void job_rec(struct acct_rec *job, enum task_state state)
{
	memset(job, 0, sizeof(*job));
	job->job_id = 502;
	job->array_job_id = 500;
	job->array_task_id = 2;
	job->step_index = ACCT_NO_STEP;
	job->state = state;
	job->timelimit_s = 4 * 60;
	job->req_mem_mb = 100;
	job->ncpus = 2;
	job->submit_time = 1700000000;
	job->start_time = 1700000010;
	job->end_time = task_state_is_final(state) ? 1700000250 : 0;
	job->maxrss_bytes = 99 << 20;
	job->total_cpu_us = ACCT_NO_VALUE;
	job->steps_final = task_state_is_final(state);
}

static const struct acct_rec *find(const struct acct_set *set, uint32_t index)
{
	for (size_t r = 0; r < set->n; r++)
		if (set->recs[r].step_index == index)
			return &set->recs[r];
	fail_msg("no record of task %u", index);
	return NULL;
}

#define T0 "17000000"
static const char three_tasks[] = "S 8 0 " T0 "11000000 n1\n"
                                  "E 8 0 " T0 "11000000 " T0 "13600000 0 0 52428800 2100000 n1\n"
                                  "S 9 0 " T0 "13700000 n1\n"
                                  "E 9 0 " T0 "13700000 " T0 "14700000 4 0 1048576 500000 n1\n"
                                  "S 10 0 " T0 "14800000 n1\n"
                                  "E 10 0 " T0 "14800000 " T0 "15000000 0 9 2097152 100 n1\n"
                                  "S 11 0 " T0 "15100000 n1\n";

static void test_slurm_pack_decode_ended(void **state)
{
	struct acct_set set;
	struct acct_rec job;
	const struct acct_rec *r;
	const char *why;
	size_t line;

	(void)state;
	acct_set_init(&set);
	job_rec(&job, TS_COMPLETED);
	assert_int_equal(
	    slb_pack_decode(&set, &job, 0, three_tasks, strlen(three_tasks), 0, &why, &line), 0);
	assert_null(why);
	assert_int_equal(set.n, 4);
	r = find(&set, 8);
	assert_int_equal(r->state, TS_COMPLETED);
	assert_int_equal(r->job_id, 502);
	assert_int_equal(r->array_job_id, 500);
	assert_int_equal(r->array_task_id, 2);
	assert_int_equal(r->exit_code, 0);
	assert_true(r->elapsed_s == 3); /* 2.6 s, rounded as a step's elapsed */
	assert_true(r->maxrss_bytes == 52428800);
	assert_true(r->node_mem_bytes == 52428800);
	assert_true(r->total_cpu_us == 2100000);
	assert_true(r->timelimit_s == 240);
	assert_true(r->req_mem_mb == 100);
	assert_int_equal(r->ncpus, 2);
	assert_string_equal(r->nodes, "n1");
	assert_true(r->start_time == 1700000011);
	assert_true(r->end_time == 1700000013);
	assert_true(r->submit_time == 1700000000);
	assert_true(r->steps_final);

	r = find(&set, 9);
	assert_int_equal(r->state, TS_FAILED);
	assert_int_equal(r->exit_code, 4);
	assert_int_equal(r->signal, 0);

	r = find(&set, 10);
	assert_int_equal(r->state, TS_FAILED);
	assert_int_equal(r->signal, 9);

	/* Started, never ended, and its array task COMPLETED: it did not end by itself. */
	r = find(&set, 11);
	assert_int_equal(r->state, TS_FAILED);
	assert_true(r->end_time == 1700000250);
	assert_true(r->maxrss_bytes == 99u << 20);
	acct_set_release(&set);
}

/* A time limit, or anything else that ends the array task, names the task that was running. */
static void test_slurm_pack_decode_array_task_ended_early(void **state)
{
	static const enum task_state ends[] = {TS_TIMEOUT, TS_CANCELLED, TS_OUT_OF_MEMORY,
	                                       TS_PREEMPTED, TS_NODE_FAIL};
	/* Task 5 was killed by the time limit's TERM: its runner still wrote its end. */
	static const char text[] = "S 4 0 " T0 "11000000 n1\n"
	                           "E 4 0 " T0 "11000000 " T0 "12000000 0 0 1000 10 n1\n"
	                           "S 5 0 " T0 "12000000 n1\n"
	                           "E 5 0 " T0 "12000000 " T0 "25000000 143 0 3000 20 n1\n";
	struct acct_set set;
	struct acct_rec job;
	const char *why;
	size_t line;

	(void)state;
	for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		acct_set_init(&set);
		job_rec(&job, ends[i]);
		assert_int_equal(slb_pack_decode(&set, &job, 0, three_tasks, strlen(three_tasks), 0,
		                                 &why, &line),
		                 0);
		assert_int_equal(find(&set, 8)->state, TS_COMPLETED);
		assert_int_equal(find(&set, 9)->state, TS_FAILED);
		assert_int_equal(find(&set, 10)->state, TS_FAILED);
		assert_int_equal(find(&set, 11)->state, ends[i]);
		assert_true(find(&set, 11)->elapsed_s == 1700000250 - 1700000015);
		acct_set_release(&set);

		acct_set_init(&set);
		assert_int_equal(slb_pack_decode(&set, &job, 0, text, strlen(text), 0, &why, &line),
		                 0);
		assert_int_equal(find(&set, 4)->state, TS_COMPLETED);
		assert_int_equal(find(&set, 5)->state, ends[i]);
		assert_int_equal(find(&set, 5)->exit_code, 143);
		assert_true(find(&set, 5)->maxrss_bytes == 3000);
		assert_true(find(&set, 5)->end_time == 1700000025);
		acct_set_release(&set);
	}

	/* OverMemoryKill: the array task FAILED 0:9, its runner killed too. */
	acct_set_init(&set);
	job_rec(&job, TS_FAILED);
	job.signal = 9;
	assert_int_equal(
	    slb_pack_decode(&set, &job, 0, three_tasks, strlen(three_tasks), 0, &why, &line), 0);
	assert_int_equal(find(&set, 11)->state, TS_FAILED);
	assert_int_equal(find(&set, 11)->signal, 9);
	assert_true(find(&set, 11)->maxrss_bytes == 99u << 20);
	acct_set_release(&set);
}

static void test_slurm_pack_decode_running(void **state)
{
	struct acct_set set;
	struct acct_rec job;
	const char *why;
	size_t line;

	(void)state;
	acct_set_init(&set);
	job_rec(&job, TS_RUNNING);
	assert_int_equal(slb_pack_decode(&set, &job, 0, three_tasks, strlen(three_tasks),
	                                 1700000035, &why, &line),
	                 0);
	assert_int_equal(set.n, 4);
	assert_int_equal(find(&set, 8)->state, TS_COMPLETED);
	assert_int_equal(find(&set, 11)->state, TS_RUNNING);
	assert_true(find(&set, 11)->elapsed_s == 20);
	assert_true(find(&set, 11)->maxrss_bytes == ACCT_NO_VALUE);
	assert_false(find(&set, 11)->steps_final);
	acct_set_release(&set);
}

/* A run of the array task after Slurm requeued it reads only its own lines. */
static void test_slurm_pack_decode_restart(void **state)
{
	static const char text[] = "S 1 0 " T0 "11000000 n1\n"
	                           "S 1 1 " T0 "50000000 n2\n"
	                           "E 1 1 " T0 "50000000 " T0 "51000000 0 0 10 10 n2\n";
	struct acct_set set;
	struct acct_rec job;
	const char *why;
	size_t line;

	(void)state;
	acct_set_init(&set);
	job_rec(&job, TS_COMPLETED);
	assert_int_equal(slb_pack_decode(&set, &job, 1, text, strlen(text), 0, &why, &line), 0);
	assert_int_equal(set.n, 1);
	assert_int_equal(set.recs[0].state, TS_COMPLETED);
	assert_string_equal(set.recs[0].nodes, "n2");
	acct_set_release(&set);

	acct_set_init(&set);
	job_rec(&job, TS_NODE_FAIL);
	assert_int_equal(slb_pack_decode(&set, &job, 0, text, strlen(text), 0, &why, &line), 0);
	assert_int_equal(set.n, 1);
	assert_int_equal(set.recs[0].state, TS_NODE_FAIL);
	acct_set_release(&set);
}

/* Bad lines are skipped, counted, and the first named; a last line without newline is cut. */
static void test_slurm_pack_decode_bad_lines(void **state)
{
	static const char text[] = "S 1 0 " T0 "11000000 n1\n"
	                           "E 1 0 zz\n"
	                           "garbage\n"
	                           "S 2 0 " T0 "12000000 n1\n"
	                           "E 2 0 " T0 "12000000 " T0 "13000000 0 0 10 10 n1";
	struct acct_set set;
	struct acct_rec job;
	const char *why;
	size_t line;

	(void)state;
	acct_set_init(&set);
	job_rec(&job, TS_COMPLETED);
	assert_int_equal(slb_pack_decode(&set, &job, 0, text, strlen(text), 0, &why, &line), 3);
	assert_string_equal(why, "a bad number");
	assert_int_equal(line, 2);
	assert_int_equal(set.n, 2);
	/* Task 2's end line was cut short: read as never ended, in a COMPLETED array task. */
	assert_int_equal(find(&set, 2)->state, TS_FAILED);
	acct_set_release(&set);

	acct_set_init(&set);
	assert_int_equal(slb_pack_decode(&set, &job, 0, "S 1 0 17", 8, 0, &why, &line), 1);
	assert_string_equal(why, "truncated");
	assert_int_equal(line, 1);
	assert_int_equal(set.n, 0);
	acct_set_release(&set);
}

static char *write_file(const char *dir, const char *name, const char *text)
{
	char *path = xstrfmt("%s/%s", dir, name);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void test_slurm_pack_read_file(void **state)
{
	char *dir = make_tmpdir();
	char *path = write_file(dir, "1", "S 1 0 5 h\n");
	char *link = xstrfmt("%s/link", dir), *missing = xstrfmt("%s/none", dir);
	char *big = xstrfmt("%s/big", dir), *sub = xstrfmt("%s/sub", dir);
	struct strbuf sb = STRBUF_INIT;
	int fd;

	(void)state;
	assert_int_equal(slb_pack_read_file(&sb, path), 1);
	assert_string_equal(sb.buf, "S 1 0 5 h\n");
	strbuf_reset(&sb);

	assert_int_equal(slb_pack_read_file(&sb, missing), 0);
	assert_int_equal(sb.len, 0);

	assert_int_equal(symlink(path, link), 0);
	assert_true(slb_pack_read_file(&sb, link) < 0);
	assert_non_null(strstr(captured.buf, "it is a symbolic link"));
	strbuf_reset(&captured);

	assert_int_equal(mkdir(sub, 0700), 0);
	assert_true(slb_pack_read_file(&sb, sub) < 0);
	assert_non_null(strstr(captured.buf, "not a regular file"));
	strbuf_reset(&captured);

	fd = open(big, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)SLB_PACK_MAX_BYTES + 1), 0);
	close(fd);
	assert_true(slb_pack_read_file(&sb, big) < 0);
	assert_non_null(strstr(captured.buf, "larger than"));
	strbuf_reset(&captured);

	/* Someone else's file: only root can make one here. */
	if (geteuid() == 0) {
		assert_int_equal(chown(path, 65534, 65534), 0);
		assert_true(slb_pack_read_file(&sb, path) < 0);
		assert_non_null(strstr(captured.buf, "belongs to someone else (uid 65534)"));
		strbuf_reset(&captured);
	}
	strbuf_release(&sb);
	remove_tree(dir);
	free(dir);
	free(path);
	free(link);
	free(missing);
	free(big);
	free(sub);
}

/* The read's glue: a packed array task without sweep-<index> steps gets its file's records. */
static void test_slurm_pack_add(void **state)
{
	char *dir = make_tmpdir(), *packs = xstrfmt("%s/packs", dir);
	char *path;
	struct array_rec arrays[2];
	struct acct_set set;
	struct acct_rec *r;

	(void)state;
	assert_int_equal(mkdir(packs, 0700), 0);
	path = write_file(packs, "502", three_tasks);
	memset(arrays, 0, sizeof(arrays));
	arrays[0].job_id = 500;
	arrays[0].pack = 4;
	arrays[1].job_id = 600;
	arrays[1].pack = 4;
	acct_set_init(&set);
	job_rec(acct_set_add(&set), TS_COMPLETED);
	/* Array 600 ran its tasks as steps (an older sweep): its steps are its records. */
	r = acct_set_add(&set);
	job_rec(r, TS_COMPLETED);
	r->job_id = 602;
	r->array_job_id = 600;
	r = acct_set_add(&set);
	job_rec(r, TS_COMPLETED);
	r->job_id = 602;
	r->array_job_id = 600;
	r->step_index = 8;
	free(write_file(packs, "602", three_tasks));
	/* A pending record and a task that never started read nothing. */
	r = acct_set_add(&set);
	r->array_job_id = 500;
	r->array_task_id = ACCT_NO_TASK;
	slb_pack_add(&set, 0, dir, arrays, 2, 0);
	assert_int_equal(set.n, 4 + 4);
	for (size_t i = 4; i < set.n; i++)
		assert_int_equal(set.recs[i].job_id, 502);
	acct_set_release(&set);

	/* Requeued by Slurm (a node failure): each run reads its own lines. */
	free(write_file(packs, "502",
	                "S 1 0 " T0 "11000000 n1\n"
	                "S 1 1 " T0 "50000000 n2\n"
	                "E 1 1 " T0 "50000000 " T0 "51000000 0 0 10 10 n2\n"));
	acct_set_init(&set);
	r = acct_set_add(&set);
	job_rec(r, TS_COMPLETED);
	r->start_time = 1700000049;
	r = acct_set_add(&set);
	job_rec(r, TS_NODE_FAIL);
	slb_pack_add(&set, 0, dir, arrays, 1, 0);
	assert_int_equal(set.n, 4);
	assert_int_equal(set.recs[2].state, TS_COMPLETED);
	assert_string_equal(set.recs[2].nodes, "n2");
	assert_int_equal(set.recs[3].state, TS_NODE_FAIL);
	assert_string_equal(set.recs[3].nodes, "n1");
	acct_set_release(&set);
	free(write_file(packs, "502", three_tasks));

	/* Not packed: nothing is read. */
	arrays[0].pack = 1;
	acct_set_init(&set);
	job_rec(acct_set_add(&set), TS_COMPLETED);
	slb_pack_add(&set, 0, dir, arrays, 1, 0);
	assert_int_equal(set.n, 1);
	acct_set_release(&set);

	/* A link in the file's place: warned about, nothing read. */
	arrays[0].pack = 4;
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink("/etc/hostname", path), 0);
	acct_set_init(&set);
	job_rec(acct_set_add(&set), TS_COMPLETED);
	slb_pack_add(&set, 0, dir, arrays, 1, 0);
	assert_int_equal(set.n, 1);
	assert_non_null(strstr(captured.buf, "symbolic link"));
	strbuf_reset(&captured);
	acct_set_release(&set);
	remove_tree(dir);
	free(dir);
	free(packs);
	free(path);
}

static int run(char *file, const char *index, const char *script)
{
	char *argv[] = {"__packrun", file, (char *)index,  "--",
	                "/bin/sh",   "-c", (char *)script, NULL};

	return slb_pack_run(7, argv);
}

static void test_slurm_pack_run(void **state)
{
	char *dir = make_tmpdir(), *file = xstrfmt("%s/rec", dir), *link = xstrfmt("%s/l", dir);
	struct strbuf sb = STRBUF_INIT;
	struct acct_set set;
	struct acct_rec job;
	const char *why;
	size_t line;
	char *bad[] = {"__packrun", file, "x", "--", "true", NULL};
	char *nodash[] = {"__packrun", file, "1", "true", NULL};

	(void)state;
	assert_int_equal(run(file, "3", "exit 0"), 0);
	assert_int_equal(run(file, "4", "exit 7"), 7);
	assert_int_equal(run(file, "5", "kill -KILL $$"), 128 + 9);
	/* The warning signal and TERM reach the runner too: the command dies of them, the
	 * runner writes its end. */
	assert_int_equal(
	    run(file, "6", "kill -USR1 $PPID; kill -TERM $PPID; kill -USR1 $$; sleep 1"),
	    128 + SIGUSR1);
	assert_int_equal(run(file, "7", "exec /nonexistent/program"), 127);
	assert_int_equal(slb_pack_read_file(&sb, file), 1);
	acct_set_init(&set);
	job_rec(&job, TS_FAILED);
	assert_int_equal(slb_pack_decode(&set, &job, 0, sb.buf, sb.len, 0, &why, &line), 0);
	assert_int_equal(set.n, 5);
	assert_int_equal(find(&set, 3)->state, TS_COMPLETED);
	assert_true(find(&set, 3)->maxrss_bytes > 0 &&
	            find(&set, 3)->maxrss_bytes != ACCT_NO_VALUE);
	assert_true(find(&set, 3)->total_cpu_us != ACCT_NO_VALUE);
	assert_int_equal(find(&set, 4)->exit_code, 7);
	assert_int_equal(find(&set, 5)->signal, 9);
	assert_int_equal(find(&set, 6)->signal, SIGUSR1);
	assert_int_equal(find(&set, 7)->exit_code, 127);
	acct_set_release(&set);

	/* Refused: bad arguments, a link in the file's place. */
	assert_int_equal(slb_pack_run(5, bad), 2);
	assert_int_equal(slb_pack_run(4, nodash), 2);
	assert_int_equal(symlink(file, link), 0);
	assert_int_equal(run(link, "1", "exit 0"), 1);
	assert_non_null(strstr(captured.buf, "symbolic link in its place"));
	strbuf_reset(&captured);

	/* The signals it outlived are the caller's again (the test process goes on). */
	signal(SIGTERM, SIG_DFL);
	signal(SIGUSR1, SIG_DFL);
	signal(SIGUSR2, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	signal(SIGALRM, SIG_DFL);
	strbuf_release(&sb);
	remove_tree(dir);
	free(dir);
	free(file);
	free(link);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_slurm_pack_parse_lines, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_slurm_pack_parse_errors, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_slurm_pack_decode_ended, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_slurm_pack_decode_array_task_ended_early, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_slurm_pack_decode_running, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_slurm_pack_decode_restart, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_slurm_pack_decode_bad_lines, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_slurm_pack_read_file, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_slurm_pack_add, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_slurm_pack_run, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
