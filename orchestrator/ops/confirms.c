/*
 * The family of a sweep and its confirms, from the state store: which
 * sweep each confirms (its kept sweep file's `confirm_of:`, as loaded.h
 * reads it), the seeds they ran, and where a confirm's settings come from.
 */
#include "confirms.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cfg.h"
#include "confirm.h"
#include "error.h"
#include "loaded.h"
#include "plan.h"
#include "store.h"
#include "strbuf.h"
#include "submission.h"

#include "banned.h"

static void add_seeds(int64_t **used, size_t *nused, const struct plan *p)
{
	*used = xrealloc(*used, (*nused + p->nseeds + 1) * sizeof(**used));
	if (!p->nseeds)
		return;
	memcpy(*used + *nused, p->seeds, p->nseeds * sizeof(*p->seeds));
	*nused += p->nseeds;
}

/*
 * Of the sweep recs[i]: the sweep its kept file says it confirms, or 0
 * (also when that file does not read: only asked, as the family is walked).
 */
static int64_t confirm_of(struct store *st, const struct sweep_rec *rec)
{
	struct kept_file kf;
	const struct cfg *cfg;
	int64_t of;

	kept_file_init(&kf);
	of = kept_file_get(&cfg, &kf, st, rec, LOADED_QUIET) == 0 ? cfg->confirm_of : 0;
	kept_file_release(&kf);
	return of;
}

/* The position in recs of a sweep, or n. */
static size_t find(const struct sweep_rec *recs, size_t n, int64_t id)
{
	size_t i = 0;

	while (i < n && recs[i].id != id)
		i++;
	return i;
}

/* The sweep at the start of id's chain of confirms (of[] by position in recs). */
static int64_t chain_root(const struct sweep_rec *recs, const int64_t *of, size_t n, int64_t id)
{
	for (int depth = 0; depth < 64; depth++) {
		size_t i = find(recs, n, id);

		if (i == n || !of[i])
			return id;
		id = of[i];
	}
	return id;
}

/* The family's lock: the submission lock of its first sweep still in the store. */
static int lock_family(struct store *st, const struct sweep_rec *rec)
{
	struct sweep_rec *recs = NULL;
	int64_t *of;
	size_t n = 0, at;
	int ret = store_list_sweeps(st, &recs, &n);

	if (ret < 0)
		return ret;
	of = xcalloc(n ? n : 1, sizeof(*of));
	for (size_t i = 0; i < n; i++)
		of[i] = confirm_of(st, &recs[i]);
	at = find(recs, n, rec->id);
	for (int depth = 0; at < n && of[at] && depth < 64; depth++) {
		size_t up = find(recs, n, of[at]);

		if (up == n)
			break;
		at = up;
	}
	ret = submission_lock_wait(at < n ? recs[at].dir : rec->dir, CONFIRMS_LOCK_WAIT_S);
	free(of);
	sweep_recs_free(recs, n);
	return ret;
}

int confirms_used_seeds(int64_t **used, size_t *nused, unsigned *others, int *lock_fd,
                        struct store *st, const struct sweep_rec *rec)
{
	struct sweep_rec *recs = NULL;
	int64_t *of, root;
	size_t n = 0;
	int ret;

	if (lock_fd) {
		*lock_fd = lock_family(st, rec);
		if (*lock_fd < 0)
			return SWEEP_ERR;
	}
	/* Read after the lock: a confirm recorded just before it counts. */
	ret = store_list_sweeps(st, &recs, &n);
	of = xcalloc(n ? n : 1, sizeof(*of));
	for (size_t i = 0; ret == 0 && i < n; i++)
		of[i] = confirm_of(st, &recs[i]);
	root = chain_root(recs, of, n, rec->id);
	for (size_t i = 0; ret == 0 && i < n; i++) {
		struct plan other;

		if (chain_root(recs, of, n, recs[i].id) != root)
			continue;
		plan_init(&other);
		ret = store_load_plan(st, &other, recs[i].id);
		if (ret == 0)
			add_seeds(used, nused, &other);
		*others += ret == 0 && recs[i].id != rec->id;
		plan_release(&other);
	}
	free(of);
	sweep_recs_free(recs, n);
	if (ret < 0 && lock_fd) {
		close(*lock_fd);
		*lock_fd = -1;
	}
	return ret;
}

char *confirms_provenance(struct store *st, const struct cfg *cfg, const struct plan *plan)
{
	struct strbuf sb = STRBUF_INIT;
	struct plan parent;

	if (!cfg->confirm_of)
		return NULL;
	plan_init(&parent);
	if (store_load_plan(st, &parent, cfg->confirm_of) < 0)
		strbuf_addf(&sb,
		            "selected in sweep %u (no longer in the state store); estimated on "
		            "seeds ",
		            cfg->confirm_of);
	if (!sb.len)
		confirm_add_provenance(&sb, cfg->confirm_of, parent.seeds, parent.nseeds,
		                       plan->seeds, plan->nseeds);
	else
		confirm_add_ranges(&sb, plan->seeds, plan->nseeds);
	plan_release(&parent);
	return strbuf_detach(&sb, NULL);
}
