/*
 * The lab rule file, read through the sweep file reader's tree and checks
 * (cfg_impl.h), so that both files speak with one voice. The loader here
 * has no struct cfg: only its file name and the strings it shows.
 */
#include "rules.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cfg_impl.h"
#include "error.h"
#include "strbuf.h"
#include "units.h"

#include "banned.h"

void rules_init(struct rules *r)
{
	memset(r, 0, sizeof(*r));
}

void rules_release(struct rules *r)
{
	for (size_t i = 0; i < r->nprio; i++) {
		free(r->prio[i].user);
		free(r->prio[i].group);
	}
	free(r->prio);
	free(r->debug_gpus);
	free(r->file);
	rules_init(r);
}

const char *rules_path(void)
{
	const char *p = getenv("SWEEP_GPU_RULES");

	return p && *p ? p : RULES_DEFAULT_PATH;
}

static const char *const top_keys[] = {"max_gpus_per_user", "debug_gpus", "long_runs", "priority"};
static const char *const debug_keys[] = {"gpus", "max_time"};
static const char *const long_keys[] = {"longer_than", "start"};
static const char *const prio_keys[] = {"user", "group", "until"};

/* The value of key in map, or NULL. */
static const struct ytree_node *get(const struct ytree_node *map, const char *key)
{
	for (size_t i = 0; i < map->n; i += 2)
		if (!strcmp(map->items[i]->text, key))
			return map->items[i + 1];
	return NULL;
}

/* A time limit in sbatch's forms; unlimited is refused where a bound is meant. */
static int get_time(struct loader *ld, uint64_t *out, const struct ytree_node *n, const char *path)
{
	const char *why = NULL;
	bool unlimited = false;

	if (cfg_expect(ld, n, YTREE_SCALAR, path))
		return SWEEP_ERR;
	if (units_parse_time(out, &unlimited, n->text, &why) < 0 || unlimited)
		return AT(ld, n,
		          "'%s': expected a time such as \"1:00:00\" (minutes, H:M:S or "
		          "D-H:M:S), found '%s'",
		          path, cfg_show(ld, n->text));
	return 0;
}

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return (x > y) - (x < y);
}

static int read_debug(struct loader *ld, struct rules *r, const struct ytree_node *map)
{
	const struct ytree_node *gpus, *max;

	if (cfg_expect(ld, map, YTREE_MAP, "debug_gpus") ||
	    cfg_check_keys(ld, map, " in 'debug_gpus'", debug_keys, ARRAY_SIZE(debug_keys)))
		return SWEEP_ERR;
	gpus = get(map, "gpus");
	max = get(map, "max_time");
	if (!gpus)
		return AT(ld, map, "'debug_gpus' needs 'gpus', the GPUs kept for short work");
	if (!max)
		return AT(ld, map,
		          "'debug_gpus' needs 'max_time', the longest time limit a task "
		          "on them may have");
	if (get_time(ld, &r->debug_max_s, max, "debug_gpus.max_time"))
		return SWEEP_ERR;
	if (cfg_expect(ld, gpus, YTREE_LIST, "debug_gpus.gpus"))
		return SWEEP_ERR;
	if (!gpus->n)
		return AT(ld, gpus,
		          "'debug_gpus.gpus': an empty list; list GPU indices, such as [0]");
	r->debug_gpus = xcalloc(gpus->n, sizeof(*r->debug_gpus));
	for (size_t i = 0; i < gpus->n; i++) {
		const struct ytree_node *g = gpus->items[i];
		int64_t v;

		if (cfg_expect(ld, g, YTREE_SCALAR, "debug_gpus.gpus"))
			return SWEEP_ERR;
		if (cfg_parse_int64(&v, g->text) || v < 0 || v > 65535)
			return AT(ld, g,
			          "'debug_gpus.gpus': expected a GPU index (0, 1...), found '%s'",
			          cfg_show(ld, g->text));
		for (size_t j = 0; j < r->ndebug; j++)
			if (r->debug_gpus[j] == (unsigned)v)
				return AT(ld, g, "'debug_gpus.gpus': GPU %u is listed twice",
				          (unsigned)v);
		r->debug_gpus[r->ndebug++] = (unsigned)v;
	}
	qsort(r->debug_gpus, r->ndebug, sizeof(*r->debug_gpus), cmp_unsigned);
	return 0;
}

/* "HH:MM" to minutes after midnight; -1 when it is not one. */
static int clock_minutes(const char *s, size_t len)
{
	unsigned h, m;

	if (len != 5 || s[2] != ':')
		return -1;
	for (size_t i = 0; i < 5; i++)
		if (i != 2 && (s[i] < '0' || s[i] > '9'))
			return -1;
	h = (unsigned)(s[0] - '0') * 10 + (unsigned)(s[1] - '0');
	m = (unsigned)(s[3] - '0') * 10 + (unsigned)(s[4] - '0');
	if (h > 24 || m > 59 || (h == 24 && m))
		return -1;
	return (int)(h * 60 + m);
}

static int read_long(struct loader *ld, struct rules *r, const struct ytree_node *map)
{
	const struct ytree_node *over, *start;
	const char *dash;
	int from, to;

	if (cfg_expect(ld, map, YTREE_MAP, "long_runs") ||
	    cfg_check_keys(ld, map, " in 'long_runs'", long_keys, ARRAY_SIZE(long_keys)))
		return SWEEP_ERR;
	over = get(map, "longer_than");
	start = get(map, "start");
	if (!over)
		return AT(ld, map,
		          "'long_runs' needs 'longer_than', the time limit over which a "
		          "run is long");
	if (!start)
		return AT(ld, map,
		          "'long_runs' needs 'start', the hours in which long runs may "
		          "start (\"20:00-08:00\")");
	if (get_time(ld, &r->long_over_s, over, "long_runs.longer_than") ||
	    cfg_expect(ld, start, YTREE_SCALAR, "long_runs.start"))
		return SWEEP_ERR;
	dash = strchr(start->text, '-');
	from = dash ? clock_minutes(start->text, (size_t)(dash - start->text)) : -1;
	to = dash ? clock_minutes(dash + 1, strlen(dash + 1)) : -1;
	if (from < 0 || to < 0)
		return AT(ld, start,
		          "'long_runs.start': expected hours such as \"20:00-08:00\", "
		          "found '%s'",
		          cfg_show(ld, start->text));
	if (from % 1440 == to % 1440)
		return AT(ld, start,
		          "'long_runs.start': '%s' is an empty span; leave out "
		          "'long_runs' to let long runs start at any hour",
		          cfg_show(ld, start->text));
	r->long_runs = true;
	r->long_from = (unsigned)from % 1440;
	r->long_to = (unsigned)to % 1440;
	return 0;
}

/* "YYYY-MM-DD" to the first second after that day, local time; -1 when it is not one. */
static int64_t date_end(const char *s)
{
	struct tm tm = {0};
	int y, mo, d;
	time_t t;

	if (strlen(s) != 10 || s[4] != '-' || s[7] != '-')
		return -1;
	for (size_t i = 0; i < 10; i++)
		if (i != 4 && i != 7 && (s[i] < '0' || s[i] > '9'))
			return -1;
	y = atoi(s);
	mo = atoi(s + 5);
	d = atoi(s + 8);
	if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31)
		return -1;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d + 1;
	tm.tm_isdst = -1;
	t = mktime(&tm);
	if (t == (time_t)-1)
		return -1;
	/* mktime normalises 31 February to March: refuse a day the month lacks */
	tm.tm_mday = d;
	tm.tm_mon = mo - 1;
	tm.tm_year = y - 1900;
	tm.tm_hour = 12;
	tm.tm_isdst = -1;
	if (mktime(&tm) == (time_t)-1 || tm.tm_mday != d)
		return -1;
	return (int64_t)t;
}

static int read_priority(struct loader *ld, struct rules *r, const struct ytree_node *list)
{
	if (cfg_expect(ld, list, YTREE_LIST, "priority"))
		return SWEEP_ERR;
	r->prio = xcalloc(list->n ? list->n : 1, sizeof(*r->prio));
	for (size_t i = 0; i < list->n; i++) {
		const struct ytree_node *e = list->items[i], *user, *group, *until;
		struct rules_priority *p = &r->prio[r->nprio];
		char where[64];

		snprintf(where, sizeof(where), " in 'priority' entry %zu", i + 1);
		if (e->kind != YTREE_MAP)
			return AT(ld, e,
			          "'priority' entry %zu: expected a mapping (user: NAME or "
			          "group: NAME), found %s",
			          i + 1, ytree_kind_name(e));
		if (cfg_check_keys(ld, e, where, prio_keys, ARRAY_SIZE(prio_keys)))
			return SWEEP_ERR;
		user = get(e, "user");
		group = get(e, "group");
		until = get(e, "until");
		if (user && group)
			return AT(ld, e,
			          "'priority' entry %zu: both 'user' and 'group'; write one "
			          "entry for each",
			          i + 1);
		if (!user && !group)
			return AT(ld, e, "'priority' entry %zu: needs 'user' or 'group'", i + 1);
		r->nprio++; /* from here on, rules_release frees what it holds */
		if (cfg_get_string(ld, user ? &p->user : &p->group, user ? user : group,
		                   user ? "priority.user" : "priority.group"))
			return SWEEP_ERR;
		if (!*(user ? p->user : p->group))
			return AT(ld, user ? user : group, "'priority' entry %zu: an empty %s name",
			          i + 1, user ? "user" : "group");
		p->line = e->line;
		if (!until)
			continue;
		if (cfg_expect(ld, until, YTREE_SCALAR, "priority.until"))
			return SWEEP_ERR;
		p->until = date_end(until->text);
		if (p->until < 0)
			return AT(ld, until,
			          "'priority' entry %zu: 'until': expected a date such as "
			          "2026-12-20, found '%s'",
			          i + 1, cfg_show(ld, until->text));
	}
	return 0;
}

int rules_parse(struct rules *out, const char *file, const char *text, size_t len)
{
	struct loader ld = {0};
	struct ytree_node *root = NULL;
	int ret = SWEEP_ERR;

	ld.file = file;
	out->file = xstrdup(file);
	if (ytree_parse(&root, file, text, len) < 0)
		goto out;
	if (!root) {
		ret = 0; /* an empty file keeps no rule */
		goto out;
	}
	if (root->kind != YTREE_MAP) {
		AT(&ld, root,
		   "the top level must be a mapping (max_gpus_per_user: ..., "
		   "debug_gpus: ...), found %s",
		   ytree_kind_name(root));
		goto out;
	}
	if (cfg_check_keys(&ld, root, "", top_keys, ARRAY_SIZE(top_keys)))
		goto out;
	for (size_t i = 0; i < root->n; i += 2) {
		const char *key = root->items[i]->text;
		const struct ytree_node *v = root->items[i + 1];
		int err;

		if (!strcmp(key, "max_gpus_per_user"))
			err = cfg_get_positive(&ld, &out->max_gpus, v, key);
		else if (!strcmp(key, "debug_gpus"))
			err = read_debug(&ld, out, v);
		else if (!strcmp(key, "long_runs"))
			err = read_long(&ld, out, v);
		else
			err = read_priority(&ld, out, v);
		if (err)
			goto out;
	}
	ret = 0;
out:
	ytree_free(root);
	for (size_t i = 0; i < ld.nshown; i++)
		free(ld.shown[i]);
	free(ld.shown);
	if (ret)
		rules_release(out);
	return ret;
}

int rules_load(struct rules *out, bool *found)
{
	const char *path = rules_path();
	struct strbuf sb = STRBUF_INIT;
	int ret;

	*found = false;
	if (strbuf_read_file_max(&sb, path, RULES_MAX_BYTES, 0) < 0) {
		int err = errno;

		strbuf_release(&sb);
		if (err == ENOENT)
			return 0;
		if (err == EINVAL)
			return error("cannot read the GPU rules '%s': not a regular file", path);
		if (err == EFBIG)
			return error("cannot read the GPU rules '%s': larger than %u MiB", path,
			             RULES_MAX_BYTES >> 20);
		return error("cannot read the GPU rules '%s': %s", path, strerror(err));
	}
	*found = true;
	ret = rules_parse(out, path, sb.buf, sb.len);
	strbuf_release(&sb);
	return ret;
}

size_t rules_rank(const struct rules *r, const char *user, const char *const *groups,
                  size_t ngroups, int64_t now, const struct rules_priority **entry)
{
	for (size_t i = 0; i < r->nprio; i++) {
		const struct rules_priority *p = &r->prio[i];
		bool match = false;

		if (p->until && now >= p->until)
			continue;
		if (p->user)
			match = user && !strcmp(p->user, user);
		for (size_t g = 0; p->group && g < ngroups && !match; g++)
			match = !strcmp(p->group, groups[g]);
		if (match) {
			if (entry)
				*entry = p;
			return i;
		}
	}
	if (entry)
		*entry = NULL;
	return r->nprio;
}

bool rules_is_debug(const struct rules *r, unsigned index)
{
	for (size_t i = 0; i < r->ndebug; i++)
		if (r->debug_gpus[i] == index)
			return true;
	return false;
}

bool rules_gpu_allows(const struct rules *r, unsigned index, uint64_t limit_s)
{
	if (!rules_is_debug(r, index))
		return true;
	return limit_s && limit_s <= r->debug_max_s;
}

bool rules_may_start(const struct rules *r, uint64_t limit_s, unsigned minute)
{
	if (!r->long_runs || (limit_s && limit_s <= r->long_over_s))
		return true;
	minute %= 1440;
	if (r->long_from < r->long_to)
		return minute >= r->long_from && minute < r->long_to;
	return minute >= r->long_from || minute < r->long_to;
}
