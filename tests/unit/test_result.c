#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "result.h"
#include "strbuf.h"

#include "helpers.h"

#include "banned.h"

#define FIXTURE(name) SWEEP_TEST_DATA "/results/" name

static void read_fixture(struct result *res, const char *path)
{
	result_init(res);
	result_read(res, path);
}

static char *describe(const struct result *res)
{
	struct strbuf sb = STRBUF_INIT;

	result_describe(&sb, res);
	return strbuf_detach(&sb, NULL);
}

static void assert_number(const struct result *res, const char *key, double value)
{
	const struct result_entry *e = result_find(res, key);

	assert_non_null(e);
	assert_int_equal(e->kind, RESULT_NUMBER);
	assert_true(e->value == value);
	assert_null(e->what);
}

static void assert_other(const struct result *res, const char *key, enum result_kind kind,
                         const char *what)
{
	const struct result_entry *e = result_find(res, key);

	assert_non_null(e);
	assert_int_equal(e->kind, kind);
	assert_true(isnan(e->value));
	assert_string_equal(e->what, what);
}

static void test_result_valid(void **state)
{
	struct result res;

	(void)state;
	read_fixture(&res, FIXTURE("valid.json"));
	assert_int_equal(res.status, RESULT_OK);
	assert_null(res.detail);
	assert_int_equal(res.nentries, 4);
	/* Sorted by key. */
	assert_string_equal(res.entries[0].key, "accuracy");
	assert_string_equal(res.entries[1].key, "checkpoint");
	assert_string_equal(res.entries[2].key, "converged");
	assert_string_equal(res.entries[3].key, "loss");
	assert_number(&res, "accuracy", 0.912);
	assert_number(&res, "loss", 0.31);
	assert_other(&res, "checkpoint", RESULT_OTHER, "a string");
	assert_other(&res, "converged", RESULT_OTHER, "a boolean");
	assert_null(result_find(&res, "epochs"));
	result_release(&res);
}

static void test_result_integers_are_numbers(void **state)
{
	struct result res;

	(void)state;
	read_fixture(&res, FIXTURE("ints.json"));
	assert_int_equal(res.status, RESULT_OK);
	assert_number(&res, "epochs", 20.0);
	assert_number(&res, "steps", -3.0);
	assert_number(&res, "zero", 0.0);
	result_release(&res);
}

static void test_result_nested_values_ignored(void **state)
{
	struct result res;

	(void)state;
	read_fixture(&res, FIXTURE("nested.json"));
	assert_int_equal(res.status, RESULT_OK);
	assert_number(&res, "accuracy", 0.9);
	assert_other(&res, "history", RESULT_OTHER, "an object");
	assert_other(&res, "tags", RESULT_OTHER, "an array");
	assert_other(&res, "note", RESULT_OTHER, "null");
	/* Keys inside nested objects are not metrics. */
	assert_null(result_find(&res, "loss"));
	result_release(&res);
}

static void test_result_invalid_json_has_position(void **state)
{
	struct result res;
	char *why;

	(void)state;
	read_fixture(&res, FIXTURE("invalid.json"));
	assert_int_equal(res.status, RESULT_INVALID);
	assert_int_equal(res.nentries, 0);
	assert_string_equal(res.detail, "line 4 column 1: unexpected token");
	why = describe(&res);
	assert_string_equal(why, "invalid result file: line 4 column 1: unexpected token");
	free(why);
	result_release(&res);
}

static void test_result_not_an_object(void **state)
{
	struct result res;
	char *why;

	(void)state;
	read_fixture(&res, FIXTURE("array.json"));
	assert_int_equal(res.status, RESULT_NOT_OBJECT);
	assert_string_equal(res.detail, "an array");
	why = describe(&res);
	assert_string_equal(why, "invalid result file: an array, not an object");
	free(why);
	result_release(&res);

	result_parse(&res, "0.93", 4);
	assert_int_equal(res.status, RESULT_NOT_OBJECT);
	assert_string_equal(res.detail, "a number");
	result_release(&res);
}

static void test_result_nonfinite_tokens(void **state)
{
	struct result res;

	(void)state;
	read_fixture(&res, FIXTURE("nonfinite.json"));
	assert_int_equal(res.status, RESULT_OK);
	assert_other(&res, "loss", RESULT_NONFINITE, "NaN");
	assert_other(&res, "up", RESULT_NONFINITE, "Infinity");
	assert_other(&res, "down", RESULT_NONFINITE, "-Infinity");
	assert_other(&res, "c_nan", RESULT_NONFINITE, "nan");
	assert_number(&res, "accuracy", 0.5);
	/* A token inside a string stays text. */
	assert_other(&res, "label", RESULT_OTHER, "a string");
	result_release(&res);
}

static void test_result_nonfinite_does_not_hide_errors(void **state)
{
	struct result res;

	(void)state;
	/* The position is the original file's, not that of the rewritten text. */
	read_fixture(&res, FIXTURE("nonfinite_invalid.json"));
	assert_int_equal(res.status, RESULT_INVALID);
	assert_string_equal(res.detail, "line 1 column 12: invalid token");
	result_release(&res);
}

static void test_result_nonfinite_word_boundaries(void **state)
{
	static const char *const texts[] = {
	    "{\"a\": NaNx}",
	    "{\"a\": xnan}",
	    "{\"a\": infinity}",
	    "{\"a\": 1inf}",
	};
	struct result res;

	(void)state;
	result_init(&res);
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		result_parse(&res, texts[i], strlen(texts[i]));
		assert_int_equal(res.status, RESULT_INVALID);
	}
	/* Escaped quotes do not end a string early. */
	result_parse(&res, "{\"a\": \"x\\\" NaN\", \"b\": inf}",
	             strlen("{\"a\": \"x\\\" NaN\", \"b\": inf}"));
	assert_int_equal(res.status, RESULT_OK);
	assert_other(&res, "a", RESULT_OTHER, "a string");
	assert_other(&res, "b", RESULT_NONFINITE, "inf");
	result_release(&res);
}

static void test_result_empty_file(void **state)
{
	struct result res;
	char *why;

	(void)state;
	read_fixture(&res, FIXTURE("empty.json"));
	assert_int_equal(res.status, RESULT_EMPTY);
	why = describe(&res);
	assert_string_equal(why, "empty result file");
	free(why);
	result_parse(&res, " \n\t\n", 4);
	assert_int_equal(res.status, RESULT_EMPTY);
	result_release(&res);
}

static void test_result_missing_file(void **state)
{
	struct result res;
	char *why;

	(void)state;
	read_fixture(&res, FIXTURE("no-such-file.json"));
	assert_int_equal(res.status, RESULT_ABSENT);
	why = describe(&res);
	assert_string_equal(why, "no result file");
	free(why);
	/* A task folder that was never made is as absent as the file. */
	result_read(&res, FIXTURE("valid.json/result.json"));
	assert_int_equal(res.status, RESULT_ABSENT);
	result_release(&res);
}

static void test_result_unreadable(void **state)
{
	struct result res;
	char *why;

	(void)state;
	/* A folder where the file should be (root reads any file, so no chmod test). */
	read_fixture(&res, SWEEP_TEST_DATA "/results");
	assert_int_equal(res.status, RESULT_UNREADABLE);
	why = describe(&res);
	assert_string_equal(why, "unreadable result file: not a regular file");
	free(why);
	result_release(&res);
}

static void test_result_strict_json(void **state)
{
	struct result res;

	(void)state;
	read_fixture(&res, FIXTURE("duplicate.json"));
	assert_int_equal(res.status, RESULT_INVALID);
	assert_non_null(strstr(res.detail, "duplicate object key"));
	result_read(&res, FIXTURE("two_objects.json"));
	assert_int_equal(res.status, RESULT_INVALID);
	assert_string_equal(res.detail, "line 2 column 1: end of file expected");
	result_release(&res);
}

static void test_result_reuse_releases(void **state)
{
	struct result res;

	(void)state;
	/* Reading into a used result frees what it held (the leak checker watches). */
	read_fixture(&res, FIXTURE("valid.json"));
	result_read(&res, FIXTURE("invalid.json"));
	result_read(&res, FIXTURE("nonfinite.json"));
	assert_int_equal(res.status, RESULT_OK);
	result_release(&res);
	results_free(NULL, 3);
}

static void test_result_path(void **state)
{
	char *path = result_path("/state/sweeps/7", TASKDIR_FLAT, 42);

	(void)state;
	assert_string_equal(path, "/state/sweeps/7/tasks/42/result.json");
	free(path);
	path = result_path("/state/sweeps/7", TASKDIR_GROUPED, 1042);
	assert_string_equal(path, "/state/sweeps/7/tasks/1/1042/result.json");
	free(path);
}

/* Parses text in format; returns what result_describe says ("" when OK). */
static char *parse(struct result *res, const char *text, enum result_format format)
{
	result_init(res);
	result_parse_format(res, text, strlen(text), format, NULL);
	return describe(res);
}

/*
 * The step key a series file counts its lines with is the caller's
 * (report --step): that key is marked, "step" is then a metric as any other.
 */
static void test_result_step_key_chosen(void **state)
{
	static const char jsonl[] = "{\"epoch\": 1, \"step\": 7, \"loss\": 0.5}\n"
	                            "{\"epoch\": 2, \"step\": 9, \"loss\": 0.4}\n";
	static const char csv[] = "epoch,step,loss\n1,7,0.5\n2,9,0.4\n";
	const char *texts[] = {jsonl, csv};
	enum result_format formats[] = {RESULT_JSONL, RESULT_CSV};
	struct result res;

	(void)state;
	for (size_t k = 0; k < 2; k++) {
		result_init(&res);
		result_parse_format(&res, texts[k], strlen(texts[k]), formats[k], "epoch");
		assert_int_equal(res.status, RESULT_OK);
		assert_true(result_find(&res, "epoch")->step);
		assert_false(result_find(&res, "step")->step);
		assert_false(result_find(&res, "loss")->step);
		assert_number(&res, "epoch", 2);
		result_release(&res);
		/* NULL: the default, "step". */
		result_parse_format(&res, texts[k], strlen(texts[k]), formats[k], NULL);
		assert_false(result_find(&res, "epoch")->step);
		assert_true(result_find(&res, "step")->step);
		result_release(&res);
	}
}

static void test_result_csv(void **state)
{
	struct result res;
	char *d;

	(void)state;
	/* The last row under the header; quotes with commas, "" and line breaks; CRLF. */
	d = parse(&res,
	          "epoch,loss,\"acc, top-1\",note\r\n"
	          "1,0.5,0.7,\"a \"\"quoted\"\", text\"\r\n"
	          "2, 0.25 ,0.8,\"two\r\nlines\"\r\n"
	          "\r\n",
	          RESULT_CSV);
	assert_string_equal(d, "");
	free(d);
	assert_number(&res, "epoch", 2);
	assert_number(&res, "loss", 0.25);
	assert_number(&res, "acc, top-1", 0.8);
	assert_other(&res, "note", RESULT_OTHER, "text");
	result_release(&res);

	d = parse(&res, "a,b,c,d,e\n1,nan,-inf,,1e999\n", RESULT_CSV);
	assert_string_equal(d, "");
	free(d);
	assert_number(&res, "a", 1);
	assert_other(&res, "b", RESULT_NONFINITE, "NaN");
	assert_other(&res, "c", RESULT_NONFINITE, "-Infinity");
	assert_other(&res, "d", RESULT_OTHER, "empty");
	assert_other(&res, "e", RESULT_NONFINITE, "Infinity");
	result_release(&res);

	/* No trailing newline; hex floats are text. */
	d = parse(&res, "x,y\n1,2\n3,0x10", RESULT_CSV);
	assert_string_equal(d, "");
	free(d);
	assert_number(&res, "x", 3);
	assert_other(&res, "y", RESULT_OTHER, "text");
	result_release(&res);
}

static void test_result_csv_errors(void **state)
{
	static const struct {
		const char *text;
		const char *want;
	} rows[] = {
	    {"a,b\n1,2\n3\n", "invalid result file: line 3 has 1 field, the header 2"},
	    {"a,b\n1,2,3\n", "invalid result file: line 2 has 3 fields, the header 2"},
	    {"a,b\n\"1,2\n", "invalid result file: line 3: a quoted field is never closed"},
	    {"a,b\n\"1\"x,2\n", "invalid result file: line 2: text after a closing quote"},
	    {"a,b\n", "invalid result file: a header and no row under it"},
	    {"a,b\n\n\n", "invalid result file: a header and no row under it"},
	    {"a,a\n1,2\n", "invalid result file: line 1: column 2 repeats a name of the header"},
	    {"", "empty result file"},
	    {" \n\t\n", "empty result file"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct result res;
		char *d = parse(&res, rows[i].text, RESULT_CSV);

		if (strcmp(d, rows[i].want))
			fail_msg("row %zu: want '%s', got '%s'", i, rows[i].want, d);
		free(d);
		result_release(&res);
	}
}

static void test_result_jsonl(void **state)
{
	static const struct {
		const char *text;
		const char *want;
		double loss; /* when want is "" */
	} rows[] = {
	    {"{\"loss\": 3}\n{\"loss\": 2}\n{\"loss\": 1}\n", "", 1},
	    {"{\"loss\": 3}\n{\"loss\": 2}\n\n  \n", "", 2},
	    {"{\"loss\": 3}", "", 3},
	    {"{\"loss\": 3}\n{\"loss\": NaN}\n", "", NAN},
	    {"{\"loss\": 3}\n{\"loss\": 2\n",
	     "invalid result file: last line, column 10: '}' expected near end of file", 0},
	    {"{\"loss\": 3}\n[1, 2]\n", "invalid result file: an array, not an object", 0},
	    {"\n\n", "empty result file", 0},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct result res;
		char *d = parse(&res, rows[i].text, RESULT_JSONL);

		if (strcmp(d, rows[i].want))
			fail_msg("row %zu: want '%s', got '%s'", i, rows[i].want, d);
		if (!*rows[i].want && isnan(rows[i].loss))
			assert_other(&res, "loss", RESULT_NONFINITE, "NaN");
		else if (!*rows[i].want)
			assert_number(&res, "loss", rows[i].loss);
		free(d);
		result_release(&res);
	}
}

static void scan(struct result *res, const char *log, const char *name, const char *pattern)
{
	struct result_log_spec spec;

	assert_int_equal(result_log_spec_init(&spec, &name, &pattern, 1), 0);
	result_init_empty(res);
	result_scan_log(res, log, strlen(log), "LOG", &spec);
	result_log_spec_release(&spec);
}

/*
 * A number past the largest double is the same non-finite value in every
 * reader: JSON used to refuse the whole file ("real number overflow") where
 * CSV and logs said "Infinity".
 */
static void test_result_overflow_same_words(void **state)
{
	static const struct {
		const char *text;
		enum result_format format;
	} readers[] = {
	    {"{\"up\": 1e999, \"down\": -1e400, \"ok\": 0.5}", RESULT_JSON},
	    {"{\"up\": 1}\n{\"up\": 1E+999, \"down\": -1e400, \"ok\": 0.5}\n", RESULT_JSONL},
	    {"up,down,ok\n1e999,-1e400,0.5\n", RESULT_CSV},
	};
	struct result res;
	char *d;

	(void)state;
	for (size_t i = 0; i < sizeof(readers) / sizeof(readers[0]); i++) {
		d = parse(&res, readers[i].text, readers[i].format);
		assert_int_equal(res.status, RESULT_OK);
		assert_other(&res, "up", RESULT_NONFINITE, "Infinity");
		assert_other(&res, "down", RESULT_NONFINITE, "-Infinity");
		assert_number(&res, "ok", 0.5);
		free(d);
		result_release(&res);
	}
	scan(&res, "up=1e999\n", "up", "up=([^ ]+)");
	assert_other(&res, "up", RESULT_NONFINITE, "Infinity");
	result_release(&res);
	/* A 400-digit integer too; a number that only underflows is 0, as strtod has it. */
	{
		struct strbuf sb = STRBUF_INIT;

		strbuf_addstr(&sb, "{\"up\": 1");
		for (int k = 0; k < 400; k++)
			strbuf_addch(&sb, '0');
		strbuf_addstr(&sb, ", \"tiny\": 1e-999}");
		d = parse(&res, sb.buf, RESULT_JSON);
		assert_int_equal(res.status, RESULT_OK);
		assert_other(&res, "up", RESULT_NONFINITE, "Infinity");
		assert_number(&res, "tiny", 0.0);
		free(d);
		result_release(&res);
		strbuf_release(&sb);
	}
	/* Inside a string, or glued to a word, it is not a number. */
	d = parse(&res, "{\"a\": \"1e999\", \"b\": 1}", RESULT_JSON);
	assert_other(&res, "a", RESULT_OTHER, "a string");
	free(d);
	result_release(&res);
	d = parse(&res, "{\"a\": 1e999x}", RESULT_JSON);
	assert_int_equal(res.status, RESULT_INVALID);
	free(d);
	result_release(&res);
}

static void test_result_log(void **state)
{
	static const char log[] = "sweep: task 3 (setting 1, seed 0)\n"
	                          "epoch 1: loss=0.9 acc=0.5 acc=0.55\n"
	                          "test accuracy: 0.81\n"
	                          "epoch 2: loss=0.4 acc=0.6 acc=0.66\r\n"
	                          "test accuracy: 0.91\n"
	                          "lr: 1e-3 (warmup)\n"
	                          "status: converged\n"
	                          "sweep: task 3 ended with status 0\n";
	const struct result_entry *e;
	struct result res;

	(void)state;
	/* The last match, its first group. */
	scan(&res, log, "accuracy", "test accuracy: ([0-9.eE+-]+)");
	assert_number(&res, "accuracy", 0.91);
	assert_true(result_find(&res, "accuracy")->from_log);
	result_release(&res);
	/* The last match within the last line that matches. */
	scan(&res, log, "acc", "acc=([0-9.]+)");
	assert_number(&res, "acc", 0.66);
	result_release(&res);
	scan(&res, log, "lr", "^lr: ([^ ]+)");
	assert_number(&res, "lr", 1e-3);
	result_release(&res);
	/* The first group even when a later one matched too. */
	scan(&res, log, "loss", "loss=([0-9.]+) (acc)=");
	assert_number(&res, "loss", 0.4);
	result_release(&res);

	scan(&res, log, "f1", "f1: ([0-9.]+)");
	e = result_find(&res, "f1");
	assert_non_null(e);
	assert_int_equal(e->kind, RESULT_MISSING);
	assert_string_equal(e->why, "pattern for 'f1' not found in LOG");
	result_release(&res);

	scan(&res, log, "status", "status: (.*)");
	e = result_find(&res, "status");
	assert_int_equal(e->kind, RESULT_OTHER);
	assert_string_equal(e->why, "metric 'status' in LOG is 'converged', not a number");
	result_release(&res);

	/* An empty log, a log holding NUL bytes on the matching line. */
	scan(&res, "", "acc", "acc=([0-9.]+)");
	assert_int_equal(result_find(&res, "acc")->kind, RESULT_MISSING);
	result_release(&res);
	{
		struct result_log_spec spec;
		const char *name = "acc", *pattern = "acc=([0-9.]+)";
		static const char nul_log[] = "acc=0.5\nacc=0.7\0junk\n";

		assert_int_equal(result_log_spec_init(&spec, &name, &pattern, 1), 0);
		result_init_empty(&res);
		result_scan_log(&res, nul_log, sizeof(nul_log) - 1, "LOG", &spec);
		assert_number(&res, "acc", 0.7);
		result_log_spec_release(&spec);
		result_release(&res);
	}
}

/* scan() for a log of len bytes that may hold NUL bytes. */
static void scan_bytes(struct result *res, const char *log, size_t len, const char *name,
                       const char *pattern)
{
	struct result_log_spec spec;

	assert_int_equal(result_log_spec_init(&spec, &name, &pattern, 1), 0);
	result_init_empty(res);
	result_scan_log(res, log, len, "LOG", &spec);
	result_log_spec_release(&spec);
}

static void test_result_log_nul_line(void **state)
{
	/* The later value follows the NUL bytes of a hole in the file. */
	static const char hole[] = "acc=0.5\n\0\0\0\0acc=0.8\nend\n";
	static const char after[] = "acc=0.5\nacc=0.7\0junk\n";
	static const char in_group[] = "acc=0.5\nacc=0.9\0x done\n";
	static const char elsewhere[] = "acc=0.5\n\0junk\n";
	static const char two[] = "a=1 b=2\0\n";
	struct result_log_spec spec;
	const char *names[] = {"a", "b"}, *patterns[] = {"a=([0-9]+)", "b=([0-9]+)"};
	struct result res;

	(void)state;
	scan_bytes(&res, hole, sizeof(hole) - 1, "acc", "acc=([0-9.]+)");
	assert_number(&res, "acc", 0.8);
	assert_string_equal(res.warning,
	                    "line 2 of LOG holds a NUL byte; 'acc' was read from that line");
	result_release(&res);

	scan_bytes(&res, after, sizeof(after) - 1, "acc", "acc=([0-9.]+)");
	assert_number(&res, "acc", 0.7);
	assert_string_equal(res.warning,
	                    "line 2 of LOG holds a NUL byte; 'acc' was read from that line");
	result_release(&res);

	/* A group that holds the NUL is not a number, and says so with the byte shown. */
	scan_bytes(&res, in_group, sizeof(in_group) - 1, "acc", "acc=([^ ]+)");
	assert_other(&res, "acc", RESULT_OTHER, "text");
	assert_string_equal(result_find(&res, "acc")->why,
	                    "metric 'acc' in LOG is '0.9\\x00x', not a number");
	assert_non_null(res.warning);
	result_release(&res);

	/* A NUL on a line that holds no match hides nothing: no warning. */
	scan_bytes(&res, elsewhere, sizeof(elsewhere) - 1, "acc", "acc=([0-9.]+)");
	assert_number(&res, "acc", 0.5);
	assert_null(res.warning);
	result_release(&res);

	/* Once per log, naming the first metric read from such a line. */
	assert_int_equal(result_log_spec_init(&spec, names, patterns, 2), 0);
	result_init_empty(&res);
	result_scan_log(&res, two, sizeof(two) - 1, "LOG", &spec);
	assert_number(&res, "a", 1);
	assert_number(&res, "b", 2);
	assert_string_equal(res.warning,
	                    "line 1 of LOG holds a NUL byte; 'a' was read from that line");
	result_log_spec_release(&spec);
	result_release(&res);
	/* The fuzzer's finding: a text without a NUL after its last byte. */
	{
		static const char found[] = "acc=0.5\nloss=0.9\n\0\0\0\0acc=0.7\nlr: 1e-3\0junk\n"
		                            "loss=1\0x\n";
		char *exact = xmalloc(sizeof(found) - 1);

		memcpy(exact, found, sizeof(found) - 1);
		scan_bytes(&res, exact, sizeof(found) - 1, "acc", "acc=([0-9.]+)");
		assert_number(&res, "acc", 0.7);
		result_release(&res);
		free(exact);
	}
	/* Nor are bytes that are not UTF-8 shown raw. */
	scan(&res,
	     "status: caf\xe9 \xc2\x9b"
	     "2J\n",
	     "status", "status: (.*)");
	assert_string_equal(result_find(&res, "status")->why,
	                    "metric 'status' in LOG is 'caf\\xe9 \\xc2\\x9b2J', not a number");
	result_release(&res);
}

/*
 * A tqdm bar: one line of '\r'-separated updates. The last match wins, '^'
 * matches only where the line starts, '$' where it ends, and a pattern that
 * matches the empty text still ends. (bench/bench_logscan times it.)
 */
static void test_result_log_tqdm_line(void **state)
{
	struct strbuf log = STRBUF_INIT;
	struct result res;

	(void)state;
	strbuf_addstr(&log, "start\n");
	for (int i = 1; i <= 2000; i++)
		strbuf_addf(&log, "\r%3d%%|%d/2000 loss=%d.5", i / 20, i, i);
	strbuf_addstr(&log, "\n");
	scan(&res, log.buf, "loss", "loss=([0-9.]+)");
	assert_number(&res, "loss", 2000.5);
	result_release(&res);
	scan(&res, log.buf, "first", "^.[ ]*([0-9]+)%");
	assert_number(&res, "first", 0);
	result_release(&res);
	scan(&res, log.buf, "end", "loss=([0-9.]+)$");
	assert_number(&res, "end", 2000.5);
	result_release(&res);
	scan(&res, log.buf, "digits", "([0-9]*)");
	assert_other(&res, "digits", RESULT_OTHER, "empty");
	result_release(&res);
	scan(&res, "x\nloss=1\rloss=2\rloss=3\n\n", "loss", "loss=([0-9])");
	assert_number(&res, "loss", 3);
	result_release(&res);
	/* The last match whose group took part. */
	scan(&res, "x=1 x=2 y\n", "x", "x=([0-9])|y");
	assert_number(&res, "x", 2);
	result_release(&res);
	strbuf_release(&log);
}

static void test_result_big_integers(void **state)
{
	struct result res;
	char *d;

	(void)state;
	/* Python's json.dump(2**64), and past int64 on the negative side. */
	d = parse(&res,
	          "{\"seen\": 18446744073709551616, \"low\": -9223372036854775809, "
	          "\"steps\": 3}",
	          RESULT_JSON);
	assert_string_equal(d, "");
	free(d);
	assert_number(&res, "seen", 18446744073709551616.0);
	assert_number(&res, "low", -9223372036854775809.0);
	assert_number(&res, "steps", 3);
	result_release(&res);
	d = parse(&res, "{\"a\": 1}\n{\"a\": 100000000000000000000000}\n", RESULT_JSONL);
	assert_string_equal(d, "");
	free(d);
	assert_number(&res, "a", 1e23);
	result_release(&res);
}

static void test_result_bom(void **state)
{
	struct result res;
	char *d;

	(void)state;
	d = parse(&res, "\xEF\xBB\xBF{\"acc\": 0.5}\n", RESULT_JSON);
	assert_string_equal(d, "");
	free(d);
	assert_number(&res, "acc", 0.5);
	result_release(&res);
	d = parse(&res, "\xEF\xBB\xBF{\"acc\": 0.25}", RESULT_JSONL);
	assert_string_equal(d, "");
	free(d);
	assert_number(&res, "acc", 0.25);
	result_release(&res);
	d = parse(&res,
	          "\xEF\xBB\xBF"
	          "epoch,loss\r\n1,0.5\r\n",
	          RESULT_CSV);
	assert_string_equal(d, "");
	free(d);
	assert_number(&res, "epoch", 1);
	assert_number(&res, "loss", 0.5);
	result_release(&res);
	/* Only at the start, and only one. */
	d = parse(&res, "\xEF\xBB\xBF\xEF\xBB\xBF{\"acc\": 0.5}", RESULT_JSON);
	assert_int_equal(res.status, RESULT_INVALID);
	free(d);
	result_release(&res);
	d = parse(&res, "\xEF\xBB\xBF", RESULT_JSON);
	assert_int_equal(res.status, RESULT_EMPTY);
	free(d);
	result_release(&res);
}

static void test_result_csv_header_trimmed(void **state)
{
	struct result res;
	char *d;

	(void)state;
	d = parse(&res, "epoch, loss ,\"\tacc \"\n1,0.5,0.7\n", RESULT_CSV);
	assert_string_equal(d, "");
	free(d);
	assert_number(&res, "epoch", 1);
	assert_number(&res, "loss", 0.5);
	assert_number(&res, "acc", 0.7);
	assert_null(result_find(&res, " loss "));
	result_release(&res);
	d = parse(&res, "loss, loss\n1,2\n", RESULT_CSV);
	assert_string_equal(d,
	                    "invalid result file: line 1: column 2 repeats a name of the header");
	free(d);
	result_release(&res);
}

/*
 * Keys are a task's text: kept as written when plain, else escaped once
 * at the reader, so that no printer (table, CSV header, JSON keys, list
 * --metrics for completion) receives a control byte or invalid UTF-8.
 */
static void test_result_keys_escaped(void **state)
{
	struct result res;
	char *d;

	(void)state;
	d = parse(
	    &res,
	    "{\"acc\\u001b[31m\": 1, \"two\\nlines\": 2, \"a\\\\b\": 3, \"\u00e9t\u00e9\": 4}",
	    RESULT_JSON);
	assert_string_equal(d, "");
	free(d);
	assert_number(&res, "acc\\x1b[31m", 1);
	assert_number(&res, "two\\nlines", 2);
	assert_number(&res, "a\\b", 3); /* plain: as written */
	assert_number(&res, "\u00e9t\u00e9", 4);
	result_release(&res);
	/* A C1 control (U+009B, a terminal's CSI) is escaped too. */
	d = parse(&res, "{\"x\\u009b2J\": 1}", RESULT_JSON);
	assert_string_equal(d, "");
	free(d);
	assert_number(&res, "x\\xc2\\x9b2J", 1);
	result_release(&res);
	/* A CSV header is any bytes: Latin-1, a quoted line break, an escape. */
	d = parse(&res,
	          "pr\xe9"
	          "cision,\"a\nb\",\x1b]0;x\a\n1,2,3\n",
	          RESULT_CSV);
	assert_string_equal(d, "");
	free(d);
	assert_number(&res, "pr\\xe9cision", 1);
	assert_number(&res, "a\\nb", 2);
	assert_number(&res, "\\x1b]0;x\\x07", 3);
	result_release(&res);
	/* Two keys that read the same: one plain as written, one escaped. */
	d = parse(&res, "{\"a\\\\x01\": 1, \"a\\u0001\": 2}", RESULT_JSON);
	assert_string_equal(d, "invalid result file: two keys read 'a\\x01' once their "
	                       "control bytes are escaped");
	free(d);
	result_release(&res);
	d = parse(&res, "\x01,\\x01\n1,2\n", RESULT_CSV);
	assert_string_equal(d,
	                    "invalid result file: line 1: column 2 repeats a name of the header");
	free(d);
	result_release(&res);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void assert_unreadable(const char *path, const char *detail)
{
	struct result res;

	read_fixture(&res, path);
	assert_int_equal(res.status, RESULT_UNREADABLE);
	assert_string_equal(res.detail, detail);
	result_release(&res);
}

/*
 * A task writes its result file, so report reads it as hostile: never
 * through a link (to /dev/zero, to a secret), never a FIFO (it would hang)
 * or a device, never more than the limit (issue 16.6).
 */
static void test_result_hostile_files(void **state)
{
	char *dir = make_tmpdir();
	char *secret = xstrfmt("%s/secret", dir), *path = xstrfmt("%s/result.json", dir), *why;
	struct strbuf sb = STRBUF_INIT;
	struct result res;

	(void)state;
	write_text(secret, "{\"root\": 1}");
	assert_int_equal(symlink(secret, path), 0);
	assert_unreadable(path, "a symbolic link, not a regular file");
	unlink(path);
	assert_int_equal(symlink("/dev/zero", path), 0);
	assert_unreadable(path, "a symbolic link, not a regular file");
	unlink(path);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_unreadable(path, "not a regular file");
	unlink(path);
	assert_unreadable("/dev/zero", "not a regular file");

	/* 20 bytes: refused under a limit of 19, read under one of 20. */
	write_text(path, "{\"loss\": 0.25}      ");
	result_set_max_bytes(19);
	read_fixture(&res, path);
	assert_int_equal(res.status, RESULT_TOO_LARGE);
	why = describe(&res);
	assert_string_equal(why,
	                    "result file larger than 19 bytes (SWEEP_RESULT_MAX sets the limit)");
	free(why);
	result_release(&res);
	/* A log is read from its end under the same limit (a line without a newline: its end). */
	assert_int_equal(result_read_text(&sb, path, true), 0);
	assert_string_equal(sb.buf, "\"loss\": 0.25}      ");
	/* ... and never through a link. */
	unlink(path);
	assert_int_equal(symlink(secret, path), 0);
	assert_int_equal(result_read_text(&sb, path, true), -1);
	assert_int_equal(errno, ELOOP);
	unlink(path);
	write_text(path, "{\"loss\": 0.25}      ");
	result_set_max_bytes(20);
	read_fixture(&res, path);
	assert_int_equal(res.status, RESULT_OK);
	assert_number(&res, "loss", 0.25);
	result_release(&res);
	result_set_max_bytes(RESULT_MAX_BYTES);

	strbuf_release(&sb);
	remove_tree(dir);
	free(secret);
	free(path);
	free(dir);
}

/* What an invalid file holds is never shown: it may be someone's secret. */
static void test_result_errors_never_echo_bytes(void **state)
{
	static const char *const texts[] = {
	    "root:x:0:0:s3cret", "{\"a\": s3cret}", "[s3cret", "{\"a\": 1} s3cret", "\"s3cret",
	};
	struct result res;

	(void)state;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		char *why;

		result_init(&res);
		result_parse(&res, texts[i], strlen(texts[i]));
		assert_int_equal(res.status, RESULT_INVALID);
		why = describe(&res);
		assert_null(strstr(why, "s3cret"));
		assert_null(strstr(why, "root"));
		free(why);
		result_release(&res);
	}
}

/* A log metric joins the file's metrics and wins over a key of the same name. */
static void test_result_log_with_file(void **state)
{
	struct result_log_spec spec;
	const char *name = "acc", *pattern = "acc=([0-9.]+)";
	struct result res;

	(void)state;
	assert_int_equal(result_log_spec_init(&spec, &name, &pattern, 1), 0);
	result_init(&res);
	result_parse(&res, "{\"acc\": 0.1, \"loss\": 2}", 23);
	result_scan_log(&res, "acc=0.75\n", 9, "LOG", &spec);
	assert_int_equal(res.nentries, 2);
	assert_number(&res, "acc", 0.75);
	assert_number(&res, "loss", 2);
	result_release(&res);

	/* No log yet (a run that never started writing one). */
	result_init_empty(&res);
	result_read_log(&res, NULL, &spec);
	assert_string_equal(result_find(&res, "acc")->why, "metric 'acc': the task has no log yet");
	result_release(&res);
	result_init_empty(&res);
	result_read_log(&res, "/nonexistent/x.out", &spec);
	assert_string_equal(result_find(&res, "acc")->why,
	                    "metric 'acc': cannot read its log /nonexistent/x.out: No such file or "
	                    "directory");
	result_release(&res);
	result_log_spec_release(&spec);
}

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/*
 * A metric the program printed to stderr (XGBoost's evaluation lines) is
 * read from the task's .err log when its .out log has none; stdout wins when
 * both have one; in neither, the message names both logs.
 */
static void test_result_log_from_stderr(void **state)
{
	const char *names[] = {"test_error", "loss", "acc"};
	const char *patterns[] = {"test-error:([0-9.]+)", "loss ([0-9.]+)", "acc=([0-9.]+)"};
	char dir[] = "/tmp/sweep-result-XXXXXX";
	struct result_log_spec spec;
	struct result res;
	char *out, *err, *why;

	(void)state;
	assert_non_null(mkdtemp(dir));
	out = xstrfmt("%s/xgb run_7_0.out", dir);
	err = xstrfmt("%s/xgb run_7_0.err", dir);
	put_file(out, "loss 0.5\n");
	put_file(err, "[8]\ttest-error:0.0200\n[9]\ttest-error:0.0162\nloss 9\n");
	assert_int_equal(result_log_spec_init(&spec, names, patterns, 3), 0);
	result_init_empty(&res);
	result_read_log(&res, out, &spec);
	assert_number(&res, "test_error", 0.0162);
	assert_number(&res, "loss", 0.5);
	why = xstrfmt("pattern for 'acc' not found in %s nor in %s", out, err);
	assert_string_equal(result_find(&res, "acc")->why, why);
	free(why);
	result_release(&res);

	/* No .err log (merged with 2>&1): the .out log alone is named. */
	assert_int_equal(unlink(err), 0);
	result_init_empty(&res);
	result_read_log(&res, out, &spec);
	why = xstrfmt("pattern for 'acc' not found in %s", out);
	assert_string_equal(result_find(&res, "acc")->why, why);
	free(why);
	result_release(&res);
	result_log_spec_release(&spec);
	assert_int_equal(unlink(out), 0);
	assert_int_equal(rmdir(dir), 0);
	free(out);
	free(err);
}

/* The one reading function: regular files only, never waiting, with a size limit. */
static void test_result_read_limits(void **state)
{
	char dir[] = "/tmp/sweep-result-XXXXXX";
	char *fifo, *big, *named;
	struct strbuf sb = STRBUF_INIT;
	struct result res;
	char *d;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	fifo = xstrfmt("%s/fifo.json", dir);
	big = xstrfmt("%s/big.jsonl", dir);
	named = xstrfmt("%s/with space.csv", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	result_init(&res);
	result_read(&res, fifo); /* would hang on a blocking open */
	d = describe(&res);
	assert_string_equal(d, "unreadable result file: not a regular file");
	free(d);
	assert_int_equal(result_read_text(&sb, dir, false), -1);
	assert_int_equal(errno, EINVAL);

	/* Larger than the limit: refused whole, read from its end as a tail. */
	fd = open(big, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)RESULT_MAX_BYTES), 0);
	assert_int_equal(lseek(fd, 0, SEEK_END), (off_t)RESULT_MAX_BYTES);
	assert_int_equal(write(fd, "\n{\"loss\": 1}\n{\"loss\": 0.5}\n", 27), 27);
	close(fd);
	assert_int_equal(result_read_text(&sb, big, false), -1);
	assert_int_equal(errno, EFBIG);
	result_read(&res, big);
	d = describe(&res);
	assert_string_equal(d, "result file larger than 16 MiB (SWEEP_RESULT_MAX sets the limit)");
	free(d);
	result_read_format(&res, big, RESULT_JSONL, NULL);
	assert_int_equal(res.status, RESULT_OK);
	assert_number(&res, "loss", 0.5);
	assert_int_equal(result_read_text(&sb, big, true), 0);
	/* From the start of the first whole line in the last RESULT_MAX_BYTES. */
	assert_string_equal(sb.buf, "{\"loss\": 1}\n{\"loss\": 0.5}\n");

	fd = open(named, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_int_equal(write(fd, "acc\n0.5\n", 8), 8);
	close(fd);
	result_read_format(&res, named, RESULT_CSV, NULL);
	assert_number(&res, "acc", 0.5);
	result_release(&res);

	result_read_format(&res, fifo, RESULT_CSV, NULL);
	res.file = xstrdup("runs/a b/m.csv");
	d = describe(&res);
	assert_string_equal(d, "unreadable result file runs/a b/m.csv: not a regular file");
	free(d);
	result_release(&res);
	unlink(fifo);
	unlink(big);
	unlink(named);
	rmdir(dir);
	strbuf_release(&sb);
	free(fifo);
	free(big);
	free(named);
}

/* One task's million keys must not make a report of a hundred megabytes. */
static void test_result_too_many_keys(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct result res;

	(void)state;
	strbuf_addch(&sb, '{');
	for (int i = 0; i < RESULT_MAX_KEYS; i++)
		strbuf_addf(&sb, "%s\"k%d\": %d", i ? ", " : "", i, i);
	strbuf_addch(&sb, '}');
	result_init(&res);
	result_parse(&res, sb.buf, sb.len);
	assert_int_equal(res.status, RESULT_OK);
	assert_int_equal(res.nentries, RESULT_MAX_KEYS);
	strbuf_setlen(&sb, sb.len - 1);
	strbuf_addstr(&sb, ", \"one more\": 1}");
	result_parse(&res, sb.buf, sb.len);
	assert_int_equal(res.status, RESULT_INVALID);
	assert_string_equal(res.detail, "1025 keys, more than 1024");
	/* The same for the last line of JSON Lines and the columns of a CSV file. */
	{
		char *lines = xstrfmt("{\"a\": 1}\n%s\n", sb.buf);

		result_parse_format(&res, lines, strlen(lines), RESULT_JSONL, NULL);
		free(lines);
	}
	assert_int_equal(res.status, RESULT_INVALID);
	strbuf_reset(&sb);
	for (int i = 0; i <= RESULT_MAX_KEYS; i++)
		strbuf_addf(&sb, "%sk%d", i ? "," : "", i);
	strbuf_addch(&sb, '\n');
	for (int i = 0; i <= RESULT_MAX_KEYS; i++)
		strbuf_addf(&sb, "%s%d", i ? "," : "", i);
	strbuf_addch(&sb, '\n');
	result_parse_format(&res, sb.buf, sb.len, RESULT_CSV, NULL);
	assert_int_equal(res.status, RESULT_INVALID);
	assert_string_equal(res.detail, "1025 columns, more than 1024");
	result_release(&res);
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_result_valid),
	    cmocka_unit_test(test_result_integers_are_numbers),
	    cmocka_unit_test(test_result_nested_values_ignored),
	    cmocka_unit_test(test_result_invalid_json_has_position),
	    cmocka_unit_test(test_result_not_an_object),
	    cmocka_unit_test(test_result_nonfinite_tokens),
	    cmocka_unit_test(test_result_nonfinite_does_not_hide_errors),
	    cmocka_unit_test(test_result_nonfinite_word_boundaries),
	    cmocka_unit_test(test_result_empty_file),
	    cmocka_unit_test(test_result_missing_file),
	    cmocka_unit_test(test_result_unreadable),
	    cmocka_unit_test(test_result_strict_json),
	    cmocka_unit_test(test_result_reuse_releases),
	    cmocka_unit_test(test_result_path),
	    cmocka_unit_test(test_result_step_key_chosen),
	    cmocka_unit_test(test_result_csv),
	    cmocka_unit_test(test_result_csv_errors),
	    cmocka_unit_test(test_result_jsonl),
	    cmocka_unit_test(test_result_overflow_same_words),
	    cmocka_unit_test(test_result_log),
	    cmocka_unit_test(test_result_log_nul_line),
	    cmocka_unit_test(test_result_log_tqdm_line),
	    cmocka_unit_test(test_result_big_integers),
	    cmocka_unit_test(test_result_bom),
	    cmocka_unit_test(test_result_csv_header_trimmed),
	    cmocka_unit_test(test_result_keys_escaped),
	    cmocka_unit_test(test_result_log_with_file),
	    cmocka_unit_test(test_result_log_from_stderr),
	    cmocka_unit_test(test_result_read_limits),
	    cmocka_unit_test(test_result_hostile_files),
	    cmocka_unit_test(test_result_errors_never_echo_bytes),
	    cmocka_unit_test(test_result_too_many_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
