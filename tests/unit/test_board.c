/*
 * The runners' board (board.h): the announcement's text both ways, the
 * expected end, every decision of board_decide with its reason, and the
 * files themselves: seen while their runner lives, passed over (and
 * removed) once it is gone, refused when their owner is not the one
 * their name gives.
 */
#define _DEFAULT_SOURCE
#include "board.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "helpers.h"
#include "rules.h"

#include "banned.h"

static void test_board_entry_round_trip(void **state)
{
	unsigned gpus[] = {2, 3};
	char *uuids[] = {"GPU-2", "GPU-3"};
	struct board_entry e = {0}, back;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	e.user = "alice";
	e.pid = 4242;
	e.host = "box";
	e.sweep_id = 7;
	e.sweep = "resnet-lr";
	e.job_id = 12;
	e.gpus = gpus;
	e.uuids = uuids;
	e.nheld = 2;
	e.want = 1;
	e.waiting_since = 1700000000;
	e.time_limit_s = 3600;
	e.reason = "cap: alice holds 2 of 2 GPUs";
	e.done = 12;
	e.total = 40;
	e.ends_about = 1700003000;
	e.ends_latest = 1700009000;
	board_entry_format(&sb, &e);
	assert_int_equal(board_entry_parse(&back, sb.buf), 0);
	assert_string_equal(back.user, "alice");
	assert_int_equal(back.pid, 4242);
	assert_string_equal(back.host, "box");
	assert_int_equal(back.sweep_id, 7);
	assert_string_equal(back.sweep, "resnet-lr");
	assert_int_equal(back.job_id, 12);
	assert_int_equal(back.nheld, 2);
	assert_int_equal(back.gpus[1], 3);
	assert_string_equal(back.uuids[0], "GPU-2");
	assert_int_equal(back.want, 1);
	assert_int_equal(back.waiting_since, 1700000000);
	assert_int_equal(back.time_limit_s, 3600);
	assert_string_equal(back.reason, "cap: alice holds 2 of 2 GPUs");
	assert_int_equal(back.done, 12);
	assert_int_equal(back.total, 40);
	assert_int_equal(back.ends_about, 1700003000);
	assert_int_equal(back.ends_latest, 1700009000);
	board_entry_release(&back);
	strbuf_release(&sb);
}

static void test_board_entry_parse_refuses_what_is_not_one(void **state)
{
	static const char *const bad[] = {
	    "",
	    "not json",
	    "[1, 2]",
	    "{\"gpus\": [0], \"uuids\": []}",
	    "{\"gpus\": [-1], \"uuids\": [\"GPU-0\"]}",
	    "{\"gpus\": [\"0\"], \"uuids\": [\"GPU-0\"]}",
	    "{\"gpus\": [0], \"uuids\": [0]}",
	    "{\"user\": \"alice\"}",
	};
	struct board_entry e;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (board_entry_parse(&e, bad[i]) == 0)
			fail_msg("accepted: %s", bad[i]);
		assert_null(e.gpus);
		assert_null(e.user);
	}
}

static void test_board_estimate_from_ended_tasks_and_limits(void **state)
{
	double done[] = {100, 300}, running[] = {50, 250};
	int64_t about, latest;

	(void)state;
	/* nothing ended yet: no estimate, the limit bounds it */
	board_estimate(&about, &latest, NULL, 0, running, 2, 4, 2, 1000, 5000);
	assert_int_equal(about, 0);
	assert_int_equal(latest, 5000 + 950 + 2 * 1000);
	/* mean 200: the running ones need 150 and 0 more, then 2 rounds of 200 */
	board_estimate(&about, &latest, done, 2, running, 2, 4, 2, 1000, 5000);
	assert_int_equal(about, 5000 + 150 + 400);
	assert_int_equal(latest, 5000 + 950 + 2000);
	/* no limit: no latest */
	board_estimate(&about, &latest, done, 2, NULL, 0, 3, 2, 0, 5000);
	assert_int_equal(about, 5000 + 2 * 200);
	assert_int_equal(latest, 0);
	/* the limit is an upper bound: about never later */
	board_estimate(&about, &latest, done, 2, NULL, 0, 1, 1, 150, 5000);
	assert_int_equal(latest, 5150);
	assert_int_equal(about, 5150);
	/* parallel 0 counts as 1 */
	board_estimate(&about, &latest, done, 2, NULL, 0, 2, 0, 0, 0);
	assert_int_equal(about, 400);
}

static void test_board_format_limit(void **state)
{
	char buf[32];

	(void)state;
	board_format_limit(buf, sizeof(buf), 3600);
	assert_string_equal(buf, "1h");
	board_format_limit(buf, sizeof(buf), 5400);
	assert_string_equal(buf, "90min");
	board_format_limit(buf, sizeof(buf), 61);
	assert_string_equal(buf, "00:01:01");
}

/* ---- board_decide ---- */

static struct rules rules_of(const char *text)
{
	struct rules r;

	rules_init(&r);
	assert_int_equal(rules_parse(&r, "rules.yaml", text, strlen(text)), 0);
	return r;
}

static struct board_entry other(const char *user, unsigned uid, long pid, unsigned nheld,
                                unsigned want, int64_t since, size_t rank, uint64_t limit_s)
{
	static unsigned held[8] = {0};
	struct board_entry e = {0};

	e.user = (char *)user;
	e.uid = uid;
	e.pid = pid;
	e.gpus = held;
	e.nheld = nheld;
	e.want = want;
	e.waiting_since = since;
	e.rank = rank;
	e.time_limit_s = limit_s;
	return e;
}

/* alice (uid 1000, pid 100), rank 5, asking one GPU since 1000, limit 30 min. */
static struct board_turn turn(const struct rules *r, const struct board_gpu *idle, size_t nfree,
                              const struct board_entry *others, size_t nothers)
{
	struct board_turn t = {0};

	t.rules = r;
	t.free = idle;
	t.nfree = nfree;
	t.others = others;
	t.nothers = nothers;
	t.user = "alice";
	t.uid = 1000;
	t.pid = 100;
	t.rank = 5;
	t.want = 1;
	t.waiting_since = 1000;
	t.limit_s = 1800;
	t.minute = 12 * 60;
	return t;
}

/* Runs board_decide; returns the reason, or "take N[,M]" with the chosen GPU indices. */
static char *decide(const struct board_turn *t)
{
	struct strbuf why = STRBUF_INIT;
	const struct board_entry *blocker = (const struct board_entry *)1;
	size_t chosen[8];
	int ret = board_decide(chosen, &why, &blocker, t);

	/* a blocker exactly when a runner ahead takes the GPUs */
	assert_int_equal(blocker != NULL, ret != 0 && (!strncmp(why.buf, "priority:", 9) ||
	                                               !strncmp(why.buf, "turn:", 5)));
	if (ret == 0) {
		strbuf_addstr(&why, "take ");
		for (unsigned k = 0; k < t->want; k++)
			strbuf_addf(&why, "%s%u", k ? "," : "", t->free[chosen[k]].index);
	}
	return strbuf_detach(&why, NULL);
}

#define ASSERT_DECIDES(t, want)                                                                    \
	do {                                                                                       \
		char *got_ = decide(t);                                                            \
		assert_string_equal(got_, want);                                                   \
		free(got_);                                                                        \
	} while (0)

static void test_board_decide_without_rules_takes_the_lowest(void **state)
{
	struct board_gpu idle[] = {{1}, {3}};
	struct board_turn t = turn(NULL, idle, 2, NULL, 0);

	(void)state;
	ASSERT_DECIDES(&t, "take 1");
	t.want = 2;
	ASSERT_DECIDES(&t, "take 1,3");
	t.want = 3;
	ASSERT_DECIDES(&t, "resources: 2 GPUs free, a task asks 3");
	t.nfree = 0;
	ASSERT_DECIDES(&t, "resources: no GPU is free");
}

static void test_board_decide_cap_counts_every_runner_of_the_user(void **state)
{
	struct rules r = rules_of("max_gpus_per_user: 2\n");
	struct board_gpu idle[] = {{0}, {1}};
	struct board_entry others[] = {other("alice", 1000, 101, 1, 0, 0, 5, 0),
	                               other("bob", 1001, 200, 3, 0, 0, 5, 0)};
	struct board_turn t = turn(&r, idle, 2, others, 2);

	(void)state;
	ASSERT_DECIDES(&t, "take 0"); /* alice's other runner holds 1, bob's 3 do not count */
	t.held = 1;
	ASSERT_DECIDES(&t, "cap: alice holds 2 of 2 GPUs");
	t.held = 0;
	t.want = 3;
	ASSERT_DECIDES(&t, "cap: alice holds 1 of 2 GPUs and each task asks 3");
	rules_release(&r);
	r = rules_of("max_gpus_per_user: 1\n");
	t.want = 1;
	t.nothers = 0;
	t.held = 1;
	ASSERT_DECIDES(&t, "cap: alice holds 1 of 1 GPU");
	rules_release(&r);
}

static void test_board_decide_debug_gpus(void **state)
{
	struct rules r = rules_of("debug_gpus: {gpus: [0, 1], max_time: 60}\n");
	struct board_gpu idle[] = {{0}, {1}, {2}};
	struct board_turn t = turn(&r, idle, 3, NULL, 0);

	(void)state;
	t.limit_s = 3600;
	ASSERT_DECIDES(&t, "take 0"); /* short: a debug GPU first */
	t.limit_s = 3601;
	ASSERT_DECIDES(&t, "take 2");
	t.limit_s = 0; /* no limit: long */
	ASSERT_DECIDES(&t, "take 2");
	t.nfree = 2;
	ASSERT_DECIDES(&t, "GPUs 0,1 are for tasks up to 1h");
	t.nfree = 1;
	ASSERT_DECIDES(&t, "GPU 0 is for tasks up to 1h");
	t.free = idle + 2;
	t.want = 2;
	ASSERT_DECIDES(&t, "resources: 1 GPU free, a task asks 2");
	rules_release(&r);
}

static void test_board_decide_names_the_runner_ahead(void **state)
{
	struct board_gpu idle[] = {{0}};
	struct board_entry bob = other("bob", 1001, 200, 0, 1, 10, 5, 0);
	struct board_turn t = turn(NULL, idle, 1, &bob, 1);
	const struct board_entry *blocker = NULL;
	struct strbuf why = STRBUF_INIT;
	size_t chosen[1];

	(void)state;
	assert_int_equal(board_decide(chosen, &why, &blocker, &t), 1);
	assert_ptr_equal(blocker, &bob);
	strbuf_release(&why);
}

static void test_board_decide_priority_then_longest_wait(void **state)
{
	struct rules r = rules_of("priority: [{user: bob}]\n");
	struct board_gpu idle[] = {{0}};
	/* bob (rank 0) waits since later than alice; carol (rank 5) since earlier */
	struct board_entry bob = other("bob", 1001, 200, 0, 1, 2000, 0, 0);
	struct board_entry carol = other("carol", 1002, 300, 0, 1, 500, 5, 0);
	struct board_entry dave = other("dave", 1003, 400, 0, 1, 1000, 5, 0);
	struct board_entry resting = other("erin", 1004, 500, 1, 0, 0, 0, 0);
	struct board_turn t = turn(&r, idle, 1, &bob, 1);

	(void)state;
	ASSERT_DECIDES(&t, "priority: bob comes first (entry 1 of the priority list)");
	t.others = &carol;
	ASSERT_DECIDES(&t, "turn: carol has waited longer");
	t.others = &dave; /* as long as alice: the lower uid goes first */
	ASSERT_DECIDES(&t, "take 0");
	t.uid = 1005;
	ASSERT_DECIDES(&t, "turn: dave has waited longer");
	t.others = &resting; /* not waiting */
	ASSERT_DECIDES(&t, "take 0");
	bob.passed_over = true; /* it left what it was given: no longer ahead */
	t.others = &bob;
	ASSERT_DECIDES(&t, "take 0");
	bob.passed_over = false;
	t.nfree = 0;
	t.others = &bob;
	ASSERT_DECIDES(&t, "resources: no GPU is free; bob goes first (priority list)");
	t.others = &carol;
	ASSERT_DECIDES(&t, "resources: no GPU is free; carol goes first (waited longer)");
	rules_release(&r);
}

static void test_board_decide_ahead_but_not_served_does_not_block(void **state)
{
	struct rules r = rules_of("max_gpus_per_user: 2\ndebug_gpus: {gpus: [0], max_time: 60}\n");
	struct board_gpu idle[] = {{0}, {1}};
	/* asks more than is free */
	struct board_entry big = other("bob", 1001, 200, 0, 4, 10, 5, 0);
	/* at its cap */
	struct board_entry capped = other("carol", 1002, 300, 2, 1, 10, 5, 0);
	/* long, and the only GPU it may use is taken by nobody: it takes GPU 1 */
	struct board_entry longrun = other("dave", 1003, 400, 0, 1, 10, 5, 0);
	struct board_turn t = turn(&r, idle, 2, &big, 1);

	(void)state;
	ASSERT_DECIDES(&t, "take 0");
	t.others = &capped;
	ASSERT_DECIDES(&t, "take 0");
	t.others = &longrun; /* dave takes GPU 1; alice's short task still has GPU 0 */
	ASSERT_DECIDES(&t, "take 0");
	t.limit_s = 0; /* alice long too: GPU 1 went to dave */
	ASSERT_DECIDES(&t, "turn: dave has waited longer");
	rules_release(&r);
}

static void test_board_decide_long_runs_wait_for_their_hours(void **state)
{
	struct rules r = rules_of("long_runs: {longer_than: '4:00:00', start: '20:00-08:00'}\n");
	struct board_gpu idle[] = {{0}};
	struct board_entry night = other("bob", 1001, 200, 0, 1, 10, 5, 0);
	struct board_turn t = turn(&r, idle, 1, &night, 1);

	(void)state;
	t.limit_s = 3600; /* short: bob's long run may not start at noon, so alice goes */
	ASSERT_DECIDES(&t, "take 0");
	t.limit_s = 5 * 3600;
	ASSERT_DECIDES(&t, "long runs (over 4h) start 20:00-08:00");
	t.minute = 21 * 60; /* now bob, who waited longer, goes first */
	ASSERT_DECIDES(&t, "turn: bob has waited longer");
	rules_release(&r);
}

/* ---- the files ---- */

static struct board_entry mine(void)
{
	static unsigned gpus[] = {1};
	static char *uuids[] = {"GPU-1"};
	struct board_entry e = {0};

	e.user = "me";
	e.sweep = "s";
	e.gpus = gpus;
	e.uuids = uuids;
	e.nheld = 1;
	e.total = 3;
	return e;
}

/* In a child: posts, says so through the pipe, then waits to be killed or exits. */
static pid_t child_posts(bool withdraw, bool linger)
{
	int fds[2];
	pid_t pid;
	char c;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct board b = BOARD_INIT;
		struct board_entry e = mine();

		close(fds[0]);
		if (board_post(&b, &e) < 0)
			_exit(1);
		if (write(fds[1], "x", 1) != 1)
			_exit(1);
		while (linger)
			pause();
		if (withdraw)
			board_withdraw(&b);
		_exit(0);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &c, 1), 1);
	close(fds[0]);
	return pid;
}

static size_t count_files(const char *dir)
{
	const char *args[] = {dir, NULL};
	char *out = run_bash("ls -A \"$1\" | grep -c '^sweep-runner-' || true", args);
	size_t n = (size_t)strtoul(out, NULL, 10);

	free(out);
	return n;
}

static void test_board_files_live_stale_and_withdrawn(void **state)
{
	char *dir = make_tmpdir();
	struct board_entry *e;
	size_t n;
	pid_t pid;
	int status;

	(void)state;
	setenv("SWEEP_GPU_LOCK_DIR", dir, 1);
	/* a live runner: seen, with its owner's name */
	pid = child_posts(false, true);
	assert_int_equal(board_read(&e, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(e[0].pid, pid); /* its text says 0: the name is believed */
	assert_int_equal(e[0].uid, (unsigned)geteuid());
	assert_int_equal(e[0].nheld, 1);
	assert_int_equal(e[0].total, 3);
	board_entries_free(e, n);
	/* killed with SIGKILL: passed over, and its file removed (it was ours) */
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	assert_int_equal(count_files(dir), 1);
	assert_int_equal(board_read(&e, &n), 0);
	assert_int_equal(n, 0);
	free(e);
	assert_int_equal(count_files(dir), 0);
	/* one that withdraws leaves nothing */
	pid = child_posts(true, false);
	waitpid(pid, &status, 0);
	assert_int_equal(count_files(dir), 0);
	/* our own announcement is not among the others */
	{
		struct board b = BOARD_INIT;
		struct board_entry me = mine();

		assert_int_equal(board_post(&b, &me), 0);
		assert_int_equal(board_post(&b, &me), 0); /* replaced, not added */
		assert_int_equal(count_files(dir), 1);
		assert_int_equal(board_read(&e, &n), 0);
		assert_int_equal(n, 0);
		free(e);
		board_withdraw(&b);
		assert_int_equal(count_files(dir), 0);
		board_withdraw(&b); /* twice: nothing */
	}
	unsetenv("SWEEP_GPU_LOCK_DIR");
	remove_tree(dir);
	free(dir);
}

static void test_board_read_refuses_files_that_lie(void **state)
{
	char *dir = make_tmpdir();
	const char *args[] = {dir, NULL};
	struct board_entry *e;
	size_t n;
	pid_t pid;
	int status;
	char *out;

	(void)state;
	setenv("SWEEP_GPU_LOCK_DIR", dir, 1);
	pid = child_posts(false, true);
	/* a copy named for another uid, a link and a second name of the live one */
	out =
	    run_bash("cd \"$1\" && f=$(ls sweep-runner-*) && cp \"$f\" sweep-runner-4242-1.json && "
	             "ln -s \"$f\" sweep-runner-0-2.json && ln \"$f\" sweep-runner-0-3.json && "
	             "echo ok",
	             args);
	assert_string_equal(out, "ok\n");
	free(out);
	assert_int_equal(board_read(&e, &n), 0);
	assert_int_equal(n, 0); /* the live one has two names now: no longer believed */
	free(e);
	out = run_bash("cd \"$1\" && rm sweep-runner-0-3.json && echo ok", args);
	free(out);
	assert_int_equal(board_read(&e, &n), 0);
	assert_int_equal(n, 1);
	board_entries_free(e, n);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	/* a folder that is missing: no runner */
	setenv("SWEEP_GPU_LOCK_DIR", "/nonexistent/sweep", 1);
	assert_int_equal(board_read(&e, &n), 0);
	assert_int_equal(n, 0);
	unsetenv("SWEEP_GPU_LOCK_DIR");
	remove_tree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_board_entry_round_trip),
	    cmocka_unit_test(test_board_entry_parse_refuses_what_is_not_one),
	    cmocka_unit_test(test_board_estimate_from_ended_tasks_and_limits),
	    cmocka_unit_test(test_board_format_limit),
	    cmocka_unit_test(test_board_decide_without_rules_takes_the_lowest),
	    cmocka_unit_test(test_board_decide_cap_counts_every_runner_of_the_user),
	    cmocka_unit_test(test_board_decide_debug_gpus),
	    cmocka_unit_test(test_board_decide_names_the_runner_ahead),
	    cmocka_unit_test(test_board_decide_priority_then_longest_wait),
	    cmocka_unit_test(test_board_decide_ahead_but_not_served_does_not_block),
	    cmocka_unit_test(test_board_decide_long_runs_wait_for_their_hours),
	    cmocka_unit_test(test_board_files_live_stale_and_withdrawn),
	    cmocka_unit_test(test_board_read_refuses_files_that_lie),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
