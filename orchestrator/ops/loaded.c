/*
 * The loaded sweep: parse -> open store -> find the sweep -> plan ->
 * outcomes, written once for status, report, rightsize, resubmit, cancel
 * and advise --from.
 */
#include "loaded.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "cfg.h"
#include "error.h"
#include "outcome.h"
#include "strbuf.h"
#include "submission.h"

#include "banned.h"

void loaded_init(struct loaded_sweep *l)
{
	memset(l, 0, sizeof(*l));
	sweep_rec_init(&l->rec);
	plan_init(&l->plan);
	acct_set_init(&l->set);
}

static void release_outcomes(struct loaded_sweep *l)
{
	free(l->outcomes);
	l->outcomes = NULL;
	acct_set_release(&l->set);
	acct_set_init(&l->set);
	array_recs_free(l->arrays, l->narrays);
	l->arrays = NULL;
	l->narrays = 0;
}

void loaded_release(struct loaded_sweep *l)
{
	release_outcomes(l);
	plan_release(&l->plan);
	sweep_rec_release(&l->rec);
	store_close(l->st);
	loaded_init(l);
}

int loaded_open(struct loaded_sweep *l, const char *state_dir, const char *which)
{
	int ret;

	l->st = NULL;
	ret = store_open(&l->st, state_dir, 0);
	if (ret < 0)
		return ret;
	ret = store_find_sweep(l->st, &l->rec, which);
	if (!ret)
		ret = submission_recover(l->st, &l->rec);
	if (ret < 0) {
		store_close(l->st);
		l->st = NULL;
	}
	return ret;
}

bool loaded_records_may_lag(const struct array_rec *arrays, size_t n)
{
	int64_t now = (int64_t)time(NULL);

	for (size_t i = 0; i < n; i++)
		if (now - arrays[i].submitted_at < LOADED_MISSING_GRACE_S)
			return true;
	return false;
}

int loaded_plan(struct loaded_sweep *l)
{
	return store_load_plan(l->st, &l->plan, l->rec.id);
}

int loaded_arrays(struct loaded_sweep *l)
{
	release_outcomes(l);
	return store_load_arrays(l->st, &l->arrays, &l->narrays, l->rec.id);
}

int loaded_records(struct loaded_sweep *l)
{
	int ret = loaded_arrays(l);

	if (ret < 0 || !l->narrays)
		return ret;
	/* With runs that died of the warning signal marked as ended by the time limit. */
	ret = backend_records(&l->set, &l->read, l->st, &l->rec, l->arrays, l->narrays);
	if (ret >= 0)
		backend_read_note(&l->read, l->narrays);
	return ret;
}

int loaded_outcomes(struct loaded_sweep *l)
{
	int ret;

	release_outcomes(l);
	l->outcomes = xcalloc(l->rec.ntasks ? l->rec.ntasks : 1, sizeof(*l->outcomes));
	ret = backend_load_outcomes(l->outcomes, &l->set, &l->arrays, &l->narrays, &l->read, l->st,
	                            &l->rec);
	if (ret >= 0 && l->narrays)
		backend_read_note(&l->read, l->narrays);
	return ret;
}

int loaded_spec(struct cfg *cfg, struct store *st, const struct sweep_rec *rec)
{
	char *spec = NULL;
	int ret = -1;

	if (store_load_spec(st, &spec, rec->id) == 0 && *spec)
		ret = cfg_load_string(cfg, rec->source ? rec->source : "the sweep file", spec,
		                      strlen(spec)) < 0
		          ? -1
		          : 0;
	free(spec);
	return ret;
}

bool loaded_stages(struct store *st, const struct sweep_rec *rec)
{
	struct cfg cfg;
	char *spec = NULL;
	bool stages = false;

	/*
	 * Parsed only when the text may have it: most sweep files have no
	 * `stage:`, and one kept from an older sweep that no longer reads
	 * would say so on every status.
	 */
	if (store_load_spec(st, &spec, rec->id) < 0 || !strstr(spec, "stage")) {
		free(spec);
		return false;
	}
	cfg_init(&cfg);
	stages = cfg_load_string(&cfg, rec->source ? rec->source : "the sweep file", spec,
	                         strlen(spec)) == 0 &&
	         cfg.nstage;
	cfg_release(&cfg);
	free(spec);
	return stages;
}
