// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace pagesums - a consumer of the pass counting page events by
 * order; see pagesums.h
 */
#include "pagesums.h"
#include "sample.h"
#include "utils.h"

/* Counted in the merging thread: no shards, nor a mark. */
static bool pagesums_on_event(void *ctx, const struct kmemtrace_event *ev)
{
	struct pagesums *ps = ctx;
	unsigned int order, mt;
	double w;

	if (ev->type != KMEMTRACE_TYPE_PAGES)
		return false;
	order = ev->order < PAGES_MAX_ORDER ? ev->order : PAGES_MAX_ORDER - 1;
	mt = ev->migratetype < PAGES_MAX_MT ? ev->migratetype : PAGES_MAX_MT - 1;
	if (ps->period) {
		w = kmt_sample_weight(ev->bytes_alloc, ev->sample_period);
		if (ev->kind == KMEMTRACE_KIND_ALLOC) {
			ps->est.allocs[order][mt] += w;
			ps->est.bytes[order] += w * ev->bytes_alloc;
		} else if (ev->kind == KMEMTRACE_KIND_FREE) {
			ps->est.frees[order] += w;
		}
		return false;
	}
	if (ev->kind == KMEMTRACE_KIND_ALLOC) {
		ps->allocs[order][mt]++;
		ps->overflow |= add_u64_sat(&ps->bytes[order], ev->bytes_alloc);
	} else if (ev->kind == KMEMTRACE_KIND_FREE) {
		ps->frees[order]++;
	}
	return false;
}

/* In a sampled trace, the estimates, rounded once. */
static void pagesums_on_end(void *ctx, const struct replay_run *run,
			    uint64_t last_ts)
{
	struct pagesums *ps = ctx;
	unsigned int order, mt;

	(void)run;
	(void)last_ts;
	for (order = 0; ps->period && order < PAGES_MAX_ORDER; order++) {
		for (mt = 0; mt < PAGES_MAX_MT; mt++)
			ps->allocs[order][mt] =
				kmt_sample_round(ps->est.allocs[order][mt],
						 &ps->overflow);
		ps->frees[order] = kmt_sample_round(ps->est.frees[order],
						    &ps->overflow);
		ps->bytes[order] = kmt_sample_round(ps->est.bytes[order],
						    &ps->overflow);
	}
}

const struct replay_consumer pagesums_consumer = {
	.name	= "pagesums",
	.needs	= REPLAY_TIME | REPLAY_END,
	.time	= pagesums_on_event,
	.end	= pagesums_on_end,
};
