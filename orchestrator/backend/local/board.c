/*
 * The runners' board in the shared lock folder. The folder is one every
 * user writes to, so each file is checked on its descriptor (owner, one
 * name, a regular file) as the GPU locks are; a file that lies about its
 * content can only hurt its own owner's runners, since no reader acts on
 * another user's say-so beyond leaving GPUs to it.
 */
#define _DEFAULT_SOURCE /* flock */
#include "board.h"

#include <dirent.h>
#include <grp.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "error.h"
#include "gpu.h"
#include "rules.h"
#include "strbuf.h"
#include "units.h"

#include "banned.h"

#define BOARD_MODE      0644
#define BOARD_MAX_BYTES (64 * 1024)

void board_entry_release(struct board_entry *e)
{
	for (size_t i = 0; i < e->nheld; i++)
		free(e->uuids ? e->uuids[i] : NULL);
	free(e->uuids);
	free(e->gpus);
	free(e->user);
	free(e->host);
	free(e->sweep);
	free(e->reason);
	memset(e, 0, sizeof(*e));
}

void board_entries_free(struct board_entry *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		board_entry_release(&e[i]);
	free(e);
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

void board_entry_format(struct strbuf *out, const struct board_entry *e)
{
	json_t *o = json_object(), *gpus = json_array(), *uuids = json_array();
	char *text;

	for (size_t i = 0; i < e->nheld; i++) {
		json_array_append_new(gpus, json_integer(e->gpus[i]));
		json_array_append_new(uuids, json_string(e->uuids[i]));
	}
	json_object_set_new(o, "user", str_or_null(e->user));
	json_object_set_new(o, "pid", json_integer(e->pid));
	json_object_set_new(o, "host", str_or_null(e->host));
	json_object_set_new(o, "sweep_id", json_integer(e->sweep_id));
	json_object_set_new(o, "sweep", str_or_null(e->sweep));
	json_object_set_new(o, "job_id", json_integer(e->job_id));
	json_object_set_new(o, "gpus", gpus);
	json_object_set_new(o, "uuids", uuids);
	json_object_set_new(o, "want", json_integer(e->want));
	json_object_set_new(o, "waiting_since", json_integer(e->waiting_since));
	json_object_set_new(o, "time_limit_s", json_integer((json_int_t)e->time_limit_s));
	json_object_set_new(o, "reason", str_or_null(e->reason));
	json_object_set_new(o, "done", json_integer((json_int_t)e->done));
	json_object_set_new(o, "total", json_integer((json_int_t)e->total));
	json_object_set_new(o, "ends_about", json_integer(e->ends_about));
	json_object_set_new(o, "ends_latest", json_integer(e->ends_latest));
	text = json_dumps(o, JSON_COMPACT);
	strbuf_addstr(out, text ? text : "{}");
	strbuf_addch(out, '\n');
	free(text);
	json_decref(o);
}

static int64_t get_int(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_integer(v) && json_integer_value(v) >= 0 ? (int64_t)json_integer_value(v)
	                                                        : 0;
}

static char *get_str(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_string(v) ? xstrdup(json_string_value(v)) : NULL;
}

int board_entry_parse(struct board_entry *out, const char *text)
{
	json_t *o = json_loads(text, 0, NULL), *gpus, *uuids;
	size_t n;

	memset(out, 0, sizeof(*out));
	if (!json_is_object(o))
		goto bad;
	gpus = json_object_get(o, "gpus");
	uuids = json_object_get(o, "uuids");
	if (!json_is_array(gpus) || !json_is_array(uuids) ||
	    json_array_size(gpus) != json_array_size(uuids))
		goto bad;
	n = json_array_size(gpus);
	out->gpus = xcalloc(n ? n : 1, sizeof(*out->gpus));
	out->uuids = xcalloc(n ? n : 1, sizeof(*out->uuids));
	for (size_t i = 0; i < n; i++) {
		const json_t *g = json_array_get(gpus, i), *u = json_array_get(uuids, i);

		if (!json_is_integer(g) || json_integer_value(g) < 0 ||
		    json_integer_value(g) > 65535 || !json_is_string(u))
			goto bad;
		out->gpus[i] = (unsigned)json_integer_value(g);
		out->uuids[i] = xstrdup(json_string_value(u));
		out->nheld++;
	}
	out->user = get_str(o, "user");
	out->pid = (long)get_int(o, "pid");
	out->host = get_str(o, "host");
	out->sweep_id = get_int(o, "sweep_id");
	out->sweep = get_str(o, "sweep");
	out->job_id = (uint32_t)get_int(o, "job_id");
	out->want = (unsigned)get_int(o, "want");
	out->waiting_since = get_int(o, "waiting_since");
	out->time_limit_s = (uint64_t)get_int(o, "time_limit_s");
	out->reason = get_str(o, "reason");
	out->done = (size_t)get_int(o, "done");
	out->total = (size_t)get_int(o, "total");
	out->ends_about = get_int(o, "ends_about");
	out->ends_latest = get_int(o, "ends_latest");
	json_decref(o);
	return 0;
bad:
	json_decref(o);
	board_entry_release(out);
	return -1;
}

/* ---- The files ---- */

static char *file_name(unsigned uid, long pid, bool tmp)
{
	return xstrfmt("%ssweep-runner-%u-%ld.%s", tmp ? "." : "", uid, pid, tmp ? "new" : "json");
}

int board_post(struct board *b, const struct board_entry *e)
{
	unsigned uid = (unsigned)geteuid();
	long pid = (long)getpid();
	char *name = file_name(uid, pid, false), *tmp = file_name(uid, pid, true);
	struct strbuf text = STRBUF_INIT;
	int dfd = gpu_lock_open_dir(), fd = -1, ret = -1;

	if (dfd < 0)
		goto out;
	unlinkat(dfd, tmp, 0); /* a leftover of ours; another's is refused by the sticky bit */
	fd = openat(dfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, BOARD_MODE);
	if (fd < 0)
		goto out;
	fchmod(fd, BOARD_MODE);
	board_entry_format(&text, e);
	if (flock(fd, LOCK_EX | LOCK_NB) < 0 ||
	    write(fd, text.buf, text.len) != (ssize_t)text.len ||
	    renameat(dfd, tmp, dfd, name) < 0) {
		unlinkat(dfd, tmp, 0);
		goto out;
	}
	if (b->fd >= 0)
		close(b->fd); /* the replaced file, unlinked by the rename */
	b->fd = fd;
	fd = -1;
	if (!b->path)
		b->path = xstrfmt("%s/%s", gpu_lock_dir(), name);
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	strbuf_release(&text);
	free(name);
	free(tmp);
	return ret;
}

void board_withdraw(struct board *b)
{
	if (b->path)
		unlink(b->path);
	if (b->fd >= 0)
		close(b->fd);
	free(b->path);
	b->path = NULL;
	b->fd = -1;
}

/* The uid and pid a board file's name gives; -1 for any other name. */
static int parse_name(unsigned *uid, long *pid, const char *name)
{
	char *expect;
	int ok;

	if (sscanf(name, "sweep-runner-%u-%ld.json", uid, pid) != 2 || *pid <= 0)
		return -1;
	expect = file_name(*uid, *pid, false);
	ok = !strcmp(expect, name);
	free(expect);
	return ok ? 0 : -1;
}

/* 1 and *out for a live runner's file; 0 for one to pass over. */
static int read_one(struct board_entry *out, int dfd, const char *name, unsigned uid, long pid)
{
	for (int tries = 0; tries < 3; tries++) {
		int fd =
		    openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		struct stat sb, now;
		struct strbuf text = STRBUF_INIT;
		char buf[4096];
		ssize_t got;
		int ret = 0;

		if (fd < 0)
			return 0;
		if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) || sb.st_nlink != 1 ||
		    sb.st_uid != uid) {
			close(fd);
			return 0;
		}
		if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
			/* Nobody holds it: its runner is gone, or it was replaced just now. */
			bool replaced = fstatat(dfd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
			                now.st_ino != sb.st_ino;

			if (!replaced && uid == (unsigned)geteuid())
				unlinkat(dfd, name, 0);
			close(fd);
			if (replaced)
				continue;
			return 0;
		}
		if (errno != EWOULDBLOCK) {
			close(fd);
			return 0;
		}
		while (text.len < BOARD_MAX_BYTES && (got = read(fd, buf, sizeof(buf))) > 0)
			strbuf_add(&text, buf, (size_t)got);
		close(fd);
		if (text.len < BOARD_MAX_BYTES && board_entry_parse(out, text.buf) == 0) {
			struct passwd *pw = getpwuid(uid);

			out->uid = uid;
			out->pid = pid; /* the name's, which its lock vouches for */
			free(out->user);
			out->user = pw ? xstrdup(pw->pw_name) : xstrfmt("%u", uid);
			ret = 1;
		}
		strbuf_release(&text);
		return ret;
	}
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct board_entry *x = a, *y = b;

	if (x->uid != y->uid)
		return x->uid < y->uid ? -1 : 1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

int board_read(struct board_entry **out, size_t *n)
{
	int dfd = gpu_lock_open_dir();
	size_t alloc = 0;
	DIR *d;
	struct dirent *de;

	*out = NULL;
	*n = 0;
	if (dfd < 0)
		return 0;
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return 0;
	}
	while ((de = readdir(d))) {
		struct board_entry e;
		unsigned uid;
		long pid;

		if (parse_name(&uid, &pid, de->d_name) < 0)
			continue;
		if (uid == (unsigned)geteuid() && pid == (long)getpid())
			continue;
		if (read_one(&e, dirfd(d), de->d_name, uid, pid) != 1)
			continue;
		ALLOC_GROW(*out, *n + 1, alloc);
		(*out)[(*n)++] = e;
	}
	closedir(d);
	if (*n)
		qsort(*out, *n, sizeof(**out), cmp_entry);
	return 0;
}

size_t board_rank(const struct rules *rules, unsigned uid, const char *user, int64_t now,
                  const struct rules_priority **entry)
{
	struct passwd *pw = getpwuid((uid_t)uid);
	gid_t gids[256];
	int ngids = (int)(sizeof(gids) / sizeof(gids[0]));
	const char *names[256];
	size_t n = 0, rank;
	char **own = xcalloc(sizeof(gids) / sizeof(gids[0]), sizeof(*own));

	if (pw && getgrouplist(pw->pw_name, pw->pw_gid, gids, &ngids) < 0)
		ngids = (int)(sizeof(gids) / sizeof(gids[0]));
	for (int i = 0; pw && i < ngids; i++) {
		struct group *gr = getgrgid(gids[i]);

		if (gr) {
			own[n] = xstrdup(gr->gr_name);
			names[n] = own[n];
			n++;
		}
	}
	rank = rules_rank(rules, user, names, n, now, entry);
	for (size_t i = 0; i < n; i++)
		free(own[i]);
	free(own);
	return rank;
}

bool board_holds(const struct board_entry *e, size_t n, const char *uuid)
{
	for (size_t i = 0; i < n; i++)
		for (size_t g = 0; g < e[i].nheld; g++)
			if (!strcmp(e[i].uuids[g], uuid))
				return true;
	return false;
}

/* ---- Estimates and decisions (pure) ---- */

/* x rounded up to a whole second (x >= 0) */
static int64_t ceil_s(double x)
{
	int64_t whole = (int64_t)x;

	return whole + ((double)whole < x);
}

void board_estimate(int64_t *about, int64_t *latest, const double *done_s, size_t ndone,
                    const double *running_s, size_t nrunning, size_t pending, size_t parallel,
                    uint64_t limit_s, int64_t now)
{
	double mean = 0, run_a = 0, run_l = 0, rounds;

	if (!parallel)
		parallel = 1;
	rounds = (double)((pending + parallel - 1) / parallel);
	for (size_t i = 0; i < ndone; i++)
		mean += done_s[i];
	if (ndone)
		mean /= (double)ndone;
	for (size_t i = 0; i < nrunning; i++) {
		if (ndone && mean - running_s[i] > run_a)
			run_a = mean - running_s[i];
		if (limit_s && (double)limit_s - running_s[i] > run_l)
			run_l = (double)limit_s - running_s[i];
	}
	*latest = limit_s ? now + ceil_s(run_l + rounds * (double)limit_s) : 0;
	*about = ndone ? now + ceil_s(run_a + rounds * mean) : 0;
	if (*about && *latest && *about > *latest)
		*about = *latest;
}

void board_format_limit(char *buf, size_t size, uint64_t s)
{
	if (s && s % 3600 == 0)
		snprintf(buf, size, "%" PRIu64 "h", s / 3600);
	else if (s && s % 60 == 0)
		snprintf(buf, size, "%" PRIu64 "min", s / 60);
	else
		units_format_time(buf, size, s);
}

/* Who goes first: lower rank, then the longer wait, then uid and pid. */
static bool ahead(size_t rank_a, int64_t since_a, unsigned uid_a, long pid_a, size_t rank_b,
                  int64_t since_b, unsigned uid_b, long pid_b)
{
	if (rank_a != rank_b)
		return rank_a < rank_b;
	if (since_a != since_b)
		return since_a < since_b;
	if (uid_a != uid_b)
		return uid_a < uid_b;
	return pid_a < pid_b;
}

/* GPUs the runners of uid hold, by the board (this runner's own not included). */
static unsigned held_by(const struct board_turn *t, unsigned uid)
{
	unsigned n = 0;

	for (size_t i = 0; i < t->nothers; i++)
		if (t->others[i].uid == uid)
			n += (unsigned)t->others[i].nheld;
	return n;
}

/*
 * Picks want GPUs of free not yet taken that a task of limit_s may use:
 * when it may use the debug GPUs, those first. Marks them taken and fills
 * chosen (may be NULL); false, nothing marked, when there are too few.
 */
static bool pick(bool *taken, size_t *chosen, const struct board_turn *t, unsigned want,
                 uint64_t limit_s)
{
	size_t n = 0, *got = xcalloc(want ? want : 1, sizeof(*got));
	bool ok;

	for (int pass = 0; pass < 2 && n < want; pass++)
		for (size_t i = 0; i < t->nfree && n < want; i++) {
			unsigned index = t->free[i].index;
			bool debug = t->rules && rules_is_debug(t->rules, index);

			if (taken[i] || debug != (pass == 0))
				continue;
			if (t->rules && !rules_gpu_allows(t->rules, index, limit_s))
				continue;
			got[n++] = i;
		}
	ok = n == want;
	for (size_t k = 0; ok && k < n; k++) {
		taken[got[k]] = true;
		if (chosen)
			chosen[k] = got[k];
	}
	free(got);
	return ok;
}

/* Whether entry e, waiting, could start a task now by the rules. */
static bool could_start(const struct board_turn *t, const struct board_entry *e)
{
	const struct rules *r = t->rules;
	unsigned held = held_by(t, e->uid) + (e->uid == t->uid ? t->held : 0);

	if (!e->want || e->passed_over)
		return false;
	if (r && r->max_gpus && held + e->want > r->max_gpus)
		return false;
	return !r || rules_may_start(r, e->time_limit_s, t->minute);
}

int board_decide(size_t *chosen, struct strbuf *why, const struct board_entry **blocker,
                 const struct board_turn *t)
{
	const struct rules *r = t->rules;
	unsigned held = held_by(t, t->uid) + t->held;
	bool *taken = xcalloc(t->nfree ? t->nfree : 1, sizeof(*taken));
	bool *usable = xcalloc(t->nfree ? t->nfree : 1, sizeof(*usable));
	const struct board_entry **queue = xcalloc(t->nothers ? t->nothers : 1, sizeof(*queue));
	const struct board_entry *first_ahead = NULL;
	size_t nqueue = 0, nusable = 0;
	char limit[32];
	int ret = 1;

	*blocker = NULL;
	if (r && r->max_gpus && held + t->want > r->max_gpus) {
		strbuf_addf(why, "cap: %s holds %u of %u GPU%s", t->user, held, r->max_gpus,
		            r->max_gpus == 1 ? "" : "s");
		if (t->want > r->max_gpus)
			strbuf_addf(why, " and each task asks %u", t->want);
		goto out;
	}
	if (r && !rules_may_start(r, t->limit_s, t->minute)) {
		board_format_limit(limit, sizeof(limit), r->long_over_s);
		strbuf_addf(why, "long runs (over %s) start %02u:%02u-%02u:%02u", limit,
		            r->long_from / 60, r->long_from % 60, r->long_to / 60, r->long_to % 60);
		goto out;
	}
	/* The runners ahead, in order: insertion into a short list. */
	for (size_t i = 0; i < t->nothers; i++) {
		const struct board_entry *e = &t->others[i];
		size_t k;

		if (!could_start(t, e) || !ahead(e->rank, e->waiting_since, e->uid, e->pid, t->rank,
		                                 t->waiting_since, t->uid, t->pid))
			continue;
		for (k = nqueue; k > 0; k--) {
			const struct board_entry *q = queue[k - 1];

			if (!ahead(e->rank, e->waiting_since, e->uid, e->pid, q->rank,
			           q->waiting_since, q->uid, q->pid))
				break;
			queue[k] = q;
		}
		queue[k] = e;
		nqueue++;
	}
	for (size_t i = 0; i < t->nfree; i++) {
		usable[i] = !r || rules_gpu_allows(r, t->free[i].index, t->limit_s);
		nusable += usable[i];
	}
	for (size_t k = 0; k < nqueue; k++) {
		bool *before = xcalloc(t->nfree ? t->nfree : 1, sizeof(*before));
		bool took_ours = false;

		memcpy(before, taken, (t->nfree ? t->nfree : 1) * sizeof(*before));
		if (pick(taken, NULL, t, queue[k]->want, queue[k]->time_limit_s))
			for (size_t i = 0; i < t->nfree; i++)
				took_ours |= taken[i] && !before[i] && usable[i];
		if (took_ours && !first_ahead)
			first_ahead = queue[k];
		free(before);
	}
	if (pick(taken, chosen, t, t->want, t->limit_s)) {
		ret = 0;
		goto out;
	}
	if (first_ahead) {
		*blocker = first_ahead;
		if (first_ahead->rank < t->rank)
			strbuf_addf(
			    why, "priority: %s comes first (entry %zu of the priority list)",
			    first_ahead->user ? first_ahead->user : "?", first_ahead->rank + 1);
		else
			strbuf_addf(why, "turn: %s has waited longer",
			            first_ahead->user ? first_ahead->user : "?");
	} else if (nusable < t->nfree && nusable < t->want) {
		struct strbuf ids = STRBUF_INIT;
		size_t nrefused = 0;

		for (size_t i = 0; i < t->nfree; i++)
			if (!usable[i]) {
				strbuf_addf(&ids, "%s%u", ids.len ? "," : "", t->free[i].index);
				nrefused++;
			}
		board_format_limit(limit, sizeof(limit), r->debug_max_s);
		strbuf_addf(why, "GPU%s %s %s for tasks up to %s", nrefused == 1 ? "" : "s",
		            ids.buf, nrefused == 1 ? "is" : "are", limit);
		strbuf_release(&ids);
	} else {
		if (!t->nfree)
			strbuf_addstr(why, "resources: no GPU is free");
		else
			strbuf_addf(why, "resources: %zu GPU%s free, a task asks %u", t->nfree,
			            t->nfree == 1 ? "" : "s", t->want);
		if (nqueue)
			strbuf_addf(why, "; %s goes first (%s)",
			            queue[0]->user ? queue[0]->user : "?",
			            queue[0]->rank < t->rank ? "priority list" : "waited longer");
	}
out:
	free(taken);
	free(usable);
	free(queue);
	return ret;
}
