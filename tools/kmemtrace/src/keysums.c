// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace keysums - a consumer of the pass counting allocations by
 * gfp_flags and by node; see keysums.h
 */
#include <stdlib.h>

#include "keysums.h"
#include "utils.h"

static void count_key(struct keysums *ks, struct site_table *tab, uint64_t key,
		      uint64_t bytes)
{
	struct site *s = site_get(tab, key);

	s->allocs++;
	ks->overflow |= add_u64_sat(&s->alloc, bytes);
}

static void keysums_on_alloc(void *ctx, const struct kmemtrace_event *ev,
			     const struct live_obj *o)
{
	struct keysums *ks = ctx;

	(void)o;
	if (ks->by_gfp)
		count_key(ks, &ks->gfps, ev->gfp_flags, ev->bytes_alloc);
	if (ks->by_node)
		count_key(ks, &ks->nodes, (uint32_t)ev->node, ev->bytes_alloc);
}

static void *keysums_fork(void *ctx)
{
	const struct keysums *ks = ctx;
	struct keysums *sh = xcalloc(1, sizeof(*sh));

	sh->by_gfp = ks->by_gfp;
	sh->by_node = ks->by_node;
	return sh;
}

static void merge_table(struct keysums *ks, struct site_table *d,
			const struct site_table *s)
{
	struct site *e;
	size_t i;

	for (i = 0; i < s->nr; i++) {
		e = site_get(d, s->sites[i].key);
		e->allocs += s->sites[i].allocs;
		ks->overflow |= add_u64_sat(&e->alloc, s->sites[i].alloc);
	}
}

static void keysums_merge(void *ctx, void *shard, const struct replay_remap *map)
{
	struct keysums *ks = ctx, *sh = shard;

	(void)map;

	merge_table(ks, &ks->gfps, &sh->gfps);
	merge_table(ks, &ks->nodes, &sh->nodes);
	ks->overflow |= sh->overflow;
	keysums_free(sh);
	free(sh);
}

const struct replay_consumer keysums_consumer = {
	.name	= "keysums",
	.needs	= REPLAY_ALLOC,
	.alloc	= keysums_on_alloc,
	.fork	= keysums_fork,
	.merge	= keysums_merge,
};

void keysums_free(struct keysums *ks)
{
	site_table_free(&ks->gfps);
	site_table_free(&ks->nodes);
}
