/*
 * What a follow-up decides. Kept apart from the follow-up's I/O so that the
 * rounds can be checked from recorded outcomes alone.
 */
#include "finish.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "strbuf.h"

#include "outcome.h"
#include "resubmit.h"
#include "rightsize.h"

#include "banned.h"

bool finish_fixable(const struct task_outcome *o)
{
	switch (o->state) {
	case TS_MISSING:
	case TS_TIMEOUT:
	case TS_OUT_OF_MEMORY:
	case TS_CANCELLED:
	case TS_NODE_FAIL:
	case TS_PREEMPTED:
	case TS_BOOT_FAIL:
	case TS_DEADLINE:
		return true;
	case TS_FAILED:
	case TS_COMPLETED:
		/* OverMemoryKill ends a task FAILED with signal 9: memory heals it. */
		return rightsize_out_of_memory(o) || rightsize_out_of_time(o);
	default:
		return false;
	}
}

size_t finish_select(unsigned char *only, const struct task_outcome *outcomes, size_t n,
                     bool retry_on_exit, const unsigned char *metric_failed)
{
	size_t count = 0;

	for (size_t i = 0; i < n; i++) {
		const struct task_outcome *o = &outcomes[i];
		bool run;

		if (resubmit_wanted(o))
			run = retry_on_exit || finish_fixable(o);
		else
			run = retry_on_exit && metric_failed && metric_failed[i] &&
			      o->state == TS_COMPLETED;
		only[i] = run;
		count += run;
	}
	return count;
}

void finish_decide(struct finish_decision *out, const struct finish_input *in)
{
	bool retry_left = in->retries_done < in->retries;

	out->next_is_last = false;
	if (in->stopped) {
		out->action = FINISH_LAST;
		return;
	}
	if (in->more_to_submit) {
		/* Retries wait until every task has had its first run. */
		out->action = FINISH_CONTINUE;
		return;
	}
	if (retry_left && in->nselected) {
		out->action = FINISH_RETRY;
		out->next_is_last = in->retries_done + 1 >= in->retries;
		return;
	}
	out->action = FINISH_LAST;
}

const char *finish_action_name(enum finish_action a)
{
	switch (a) {
	case FINISH_CONTINUE:
		return "continue";
	case FINISH_RETRY:
		return "retry";
	case FINISH_LAST:
		return "notify";
	}
	return "unknown";
}

int finish_read_failures(size_t **out, size_t *n, const char *sweep_dir)
{
	char *path = xstrfmt("%s/%s", sweep_dir, FINISH_FAIL_FAST_FILE);
	struct strbuf text = STRBUF_INIT;
	size_t *idx = NULL, count = 0, alloc = 0;
	const char *p;
	int ret = 0;

	*out = NULL;
	*n = 0;
	if (strbuf_read_file(&text, path) < 0) {
		if (errno != ENOENT)
			ret = error("cannot read the fail_fast counter '%s': %s", path,
			            strerror(errno));
		goto out;
	}
	for (p = text.buf; *p;) {
		char *end;
		unsigned long long v;

		errno = 0;
		v = strtoull(p, &end, 10);
		/* A line being written while we read may be cut short: it still counts. */
		if (end != p && !errno) {
			ALLOC_GROW(idx, count + 1, alloc);
			idx[count++] = (size_t)v;
		}
		p = end + strcspn(end, "\n");
		if (*p)
			p++;
	}
	*out = idx;
	*n = count;
out:
	strbuf_release(&text);
	free(path);
	return ret;
}
