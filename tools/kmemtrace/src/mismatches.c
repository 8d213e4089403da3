// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace mismatches - a consumer of the pass listing the frees by
 * another API or cache than the alloc; see mismatches.h
 */
#include <stdlib.h>
#include <string.h>

#include "mismatches.h"
#include "utils.h"

static void add(struct mismatches *ms, const struct live_obj *o,
		const struct kmemtrace_event *ev)
{
	struct mismatch *m;

	ms->v = kmt_grow(ms->v, ms->nr, &ms->size, sizeof(*ms->v), 16);
	m = &ms->v[ms->nr++];
	memset(m, 0, sizeof(*m));
	m->alloc_site = o->site;
	m->free_addr = ev->call_site;
	m->alloc_type = o->type;
	m->free_type = ev->type;
	m->alloc_cache = o->type == KMEMTRACE_TYPE_CACHE ? o->cache_id : 0;
	m->free_cache = ev->type == KMEMTRACE_TYPE_CACHE ? ev->cache_id : 0;
	m->count = 1;
}

/* A free of a selected allocation, of its family: by the right API? */
static void mismatches_on_free(void *ctx, const struct kmemtrace_event *ev,
			       const struct live_obj *o, uint64_t life)
{
	(void)life;
	if (replay_free_mismatched(ev, o))
		add(ctx, o, ev);
}

/* A free of memory of another family: of a selected allocation? */
static void mismatches_on_stray(void *ctx, const struct kmemtrace_event *ev,
				const struct live_obj *o, bool selected)
{
	(void)selected;
	if (o)
		add(ctx, o, ev);
}

static void *mismatches_fork(void *ctx)
{
	(void)ctx;
	return xcalloc_lines(sizeof(struct mismatches));
}

/* A shard's after the others: the frees view sorts and adds them up. */
static void mismatches_merge(void *ctx, void *shard,
			     const struct replay_remap *map)
{
	struct mismatches *ms = ctx, *sh = shard;
	size_t i;

	for (i = 0; i < sh->nr; i++) {
		ms->v = kmt_grow(ms->v, ms->nr, &ms->size, sizeof(*ms->v), 16);
		ms->v[ms->nr] = sh->v[i];
		ms->v[ms->nr++].alloc_site = map->site[sh->v[i].alloc_site];
	}
	mismatches_free(sh);
	free(sh);
}

const struct replay_consumer mismatches_consumer = {
	.name	= "mismatches",
	.needs	= REPLAY_FREE | REPLAY_STRAY,
	.free	= mismatches_on_free,
	.stray	= mismatches_on_stray,
	.fork	= mismatches_fork,
	.merge	= mismatches_merge,
};

void mismatches_free(struct mismatches *m)
{
	free(m->v);
	memset(m, 0, sizeof(*m));
}
