/*
 * The loaded sweep: open store -> find the sweep -> plan -> outcomes,
 * written once for status, report, rightsize, resubmit, cancel, confirm
 * and advise --from; and the sweep file kept in the store, read and
 * parsed here only (kept_file_get), once per sweep, failing in one
 * wording: every command that needs it asks.
 */
#include "loaded.h"

#include <inttypes.h>
#include <stdio.h>
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

/* Kept sweep files parsed by this process (loaded_sweepfile_parses). */
static unsigned parses;

void loaded_init(struct loaded_sweep *l)
{
	memset(l, 0, sizeof(*l));
	sweep_rec_init(&l->rec);
	plan_init(&l->plan);
	acct_set_init(&l->set);
	kept_file_init(&l->file);
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

/* SWEEP_DEBUG_QUERIES=1: how often a kept sweep file was parsed, as the queries are counted. */
static void debug_parses(void)
{
	const char *debug = getenv("SWEEP_DEBUG_QUERIES");

	if (debug && *debug && strcmp(debug, "0") != 0 && parses)
		fprintf(stderr, "sweep: kept sweep file parses: %u\n", parses);
}

void loaded_release(struct loaded_sweep *l)
{
	if (l->st)
		debug_parses();
	release_outcomes(l);
	kept_file_release(&l->file);
	free(l->reused);
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

int loaded_reused(const struct reused_rec **out, size_t *n, struct loaded_sweep *l)
{
	int ret = 0;

	if (!l->reused_read) {
		ret = store_load_reused(l->st, &l->reused, &l->nreused, l->rec.id);
		l->reused_read = ret == 0;
	}
	*out = l->reused;
	*n = l->nreused;
	return ret;
}

int loaded_outcomes(struct loaded_sweep *l)
{
	const struct reused_rec *reused;
	size_t nreused;
	int ret;

	release_outcomes(l);
	l->outcomes = xcalloc(l->rec.ntasks ? l->rec.ntasks : 1, sizeof(*l->outcomes));
	ret = loaded_reused(&reused, &nreused, l);
	if (ret < 0)
		return ret;
	ret = backend_outcomes_reusing(l->outcomes, &l->set, &l->arrays, &l->narrays, &l->read,
	                               l->st, &l->rec, reused, nreused);
	if (ret >= 0 && l->narrays)
		backend_read_note(&l->read, l->narrays);
	return ret;
}

void kept_file_init(struct kept_file *kf)
{
	memset(kf, 0, sizeof(*kf));
	cfg_init(&kf->cfg);
}

void kept_file_release(struct kept_file *kf)
{
	free(kf->text);
	free(kf->why);
	cfg_release(&kf->cfg);
	kept_file_init(kf);
}

unsigned loaded_sweepfile_parses(void)
{
	return parses;
}

/* What the store and the reader say while the kept file is read, kept for later. */
static struct strbuf *heard;

static void hear(const char *kind, const char *msg)
{
	(void)kind;
	strbuf_addf(heard, "%s%s", heard->len ? "; " : "", msg);
}

/* Reads and parses the kept file once; its messages go to kf->why. */
static void kept_file_read(struct kept_file *kf, struct store *st, const struct sweep_rec *rec)
{
	struct strbuf why = STRBUF_INIT;
	error_handler_fn was;
	int ret;

	heard = &why;
	was = error_set_handler(hear);
	ret = store_load_spec(st, &kf->text, rec->id);
	if (ret == 0 && !*kf->text) {
		kf->state = KEPT_NONE;
	} else if (ret == 0) {
		parses++;
		ret = cfg_load_string(&kf->cfg, rec->source ? rec->source : "the sweep file",
		                      kf->text, strlen(kf->text));
		kf->state = ret < 0 ? KEPT_BROKEN : KEPT_READ;
	} else {
		kf->state = KEPT_BROKEN;
	}
	error_set_handler(was);
	heard = NULL;
	if (kf->state == KEPT_BROKEN) {
		/* What was read of it is not the sweep file: none of it is used. */
		cfg_release(&kf->cfg);
		cfg_init(&kf->cfg);
		kf->why = why.len ? strbuf_detach(&why, NULL) : xstrdup("no reason given");
	}
	strbuf_release(&why);
}

int kept_file_get(const struct cfg **out, struct kept_file *kf, struct store *st,
                  const struct sweep_rec *rec, enum loaded_say say)
{
	if (kf->state == KEPT_UNREAD)
		kept_file_read(kf, st, rec);
	*out = &kf->cfg;
	if (kf->state != KEPT_BROKEN)
		return 0;
	if (say > kf->said) {
		/* The one wording, whoever asks. */
		char *msg = xstrfmt("the sweep file kept for sweep %" PRId64 " does not read: %s",
		                    rec->id, kf->why);

		if (say == LOADED_ERROR)
			error("%s", msg);
		else
			warning("%s", msg);
		free(msg);
		kf->said = say;
	}
	return SWEEP_ERR;
}

int loaded_sweepfile(const struct cfg **out, struct loaded_sweep *l, enum loaded_say say)
{
	return kept_file_get(out, &l->file, l->st, &l->rec, say);
}
