// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace pagesums - a consumer of the pass counting page events by
 * order; see pagesums.h
 */
#include "pagesums.h"
#include "utils.h"

/* Counted in the merging thread: no shards, nor a mark. */
static bool pagesums_on_event(void *ctx, const struct kmemtrace_event *ev)
{
	struct pagesums *ps = ctx;
	unsigned int order, mt;

	if (ev->type != KMEMTRACE_TYPE_PAGES)
		return false;
	order = ev->order < PAGES_MAX_ORDER ? ev->order : PAGES_MAX_ORDER - 1;
	mt = ev->migratetype < PAGES_MAX_MT ? ev->migratetype : PAGES_MAX_MT - 1;
	if (ev->kind == KMEMTRACE_KIND_ALLOC) {
		ps->allocs[order][mt]++;
		ps->overflow |= add_u64_sat(&ps->bytes[order], ev->bytes_alloc);
	} else if (ev->kind == KMEMTRACE_KIND_FREE) {
		ps->frees[order]++;
	}
	return false;
}

const struct replay_consumer pagesums_consumer = {
	.name	= "pagesums",
	.needs	= REPLAY_TIME,
	.time	= pagesums_on_event,
};
