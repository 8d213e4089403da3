// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace sitesums - a consumer of the pass adding up the selected
 * allocations per call site and per cache; see sitesums.h
 *
 * The sums of a call site are fetched ahead, a batch of events at a
 * time (@batch): there are thousands of call sites, met in no order.
 * What is still allocated comes from the allocations live at the end
 * (@live), as it is, each byte sum saturating.
 */
#include <stdlib.h>
#include <string.h>

#include "sitesums.h"
#include "utils.h"

/* Room for site index @si. */
static void sites_grow(struct sitesums *ss, uint32_t si)
{
	struct site_table *t = &ss->sites;

	if (si >= t->size) {
		t->size = 2 * (size_t)si + 256;
		t->sites = xrealloc(t->sites, t->size * sizeof(*t->sites));
	}
	memset(t->sites + t->nr, 0, (si + 1 - t->nr) * sizeof(*t->sites));
	t->nr = si + 1;
}

/* The entry of site index @si, with room for it. */
static inline struct site *site_at(struct sitesums *ss, uint32_t si)
{
	if (si >= ss->sites.nr)
		sites_grow(ss, si);
	return &ss->sites.sites[si];
}

/* Fetch the sums of the call sites of the next allocations. */
static void sitesums_on_batch(void *ctx, const uint32_t *site, size_t n)
{
	struct sitesums *ss = ctx;
	size_t i;

	for (i = 0; i < n; i++)
		__builtin_prefetch(site_at(ss, site[i]), 1);
}

static void sitesums_on_alloc(void *ctx, const struct kmemtrace_event *ev,
			      const struct live_obj *o)
{
	struct sitesums *ss = ctx;
	struct site *s = site_at(ss, o->site);

	s->allocs++;
	ss->overflow |= add_u64_sat(&s->req, ev->bytes_req);
	ss->overflow |= add_u64_sat(&s->alloc, ev->bytes_alloc);
	if (ev->type != KMEMTRACE_TYPE_CACHE)
		return;
	s = site_get(&ss->caches, ev->cache_id);
	s->allocs++;
	ss->overflow |= add_u64_sat(&s->req, ev->bytes_req);
	ss->overflow |= add_u64_sat(&s->alloc, ev->bytes_alloc);
}

static void sitesums_on_free(void *ctx, const struct kmemtrace_event *ev,
			     const struct live_obj *o, uint64_t life)
{
	struct sitesums *ss = ctx;
	struct site *s = site_at(ss, o->site);
	bool mismatched = replay_free_mismatched(ev, o);

	s->frees++;
	ss->overflow |= add_u64_sat(&s->life, life);
	s->xcpu += ev->cpu != o->cpu;
	s->mismatched += mismatched;
	if (o->type != KMEMTRACE_TYPE_CACHE)
		return;
	s = site_get(&ss->caches, o->cache_id);
	s->frees++;
	ss->overflow |= add_u64_sat(&s->life, life);
	s->xcpu += ev->cpu != o->cpu;
	s->mismatched += mismatched;
}

/*
 * A free of memory not live in its family: of selected allocation @o of
 * another family (a free by another API), or, if @selected, of memory
 * not allocated in the trace.
 */
static void sitesums_on_stray(void *ctx, const struct kmemtrace_event *ev,
			      const struct live_obj *o, bool selected)
{
	struct sitesums *ss = ctx;
	struct site *s;

	if (ev->kind != KMEMTRACE_KIND_FREE)
		return;
	if (o) {
		site_at(ss, o->site)->mismatched++;
	} else if (selected) {
		s = site_get(&ss->unknown, ev->call_site);
		s->unknown++;
		s->unknown_types |= 1u << ev->type;
	}
}

/* Selected allocation @o, still live at the end. */
static void sitesums_on_live(void *ctx, const struct live_obj *o)
{
	struct sitesums *ss = ctx;
	struct site *s = site_at(ss, o->site);

	s->live++;
	ss->overflow |= add_u64_sat(&s->live_bytes, o->bytes);
	if (o->type != KMEMTRACE_TYPE_CACHE)
		return;
	s = site_get(&ss->caches, o->cache_id);
	s->live++;
	ss->overflow |= add_u64_sat(&s->live_bytes, o->bytes);
}

/*
 * The sums per site index of the run, with their keys, in a table by key
 * as any other, with the frees of memory not allocated in the trace of
 * each call site.
 */
static void sitesums_on_end(void *ctx, const struct replay_run *run,
			    uint64_t last_ts)
{
	struct sitesums *ss = ctx;
	size_t i, nr = replay_nr_sites(run);
	struct site *s;
	uint32_t u;

	(void)last_ts;
	if (nr)
		site_at(ss, nr - 1);
	for (i = 0; i < nr; i++) {
		s = &ss->sites.sites[i];
		s->key = replay_site_key(run, i);
		kmt_map_insert(&ss->sites.map, s->key, i, NULL);
		if (kmt_map_find(&ss->unknown.map, s->key, &u)) {
			s->unknown = ss->unknown.sites[u].unknown;
			s->unknown_types = ss->unknown.sites[u].unknown_types;
		}
	}
	site_table_free(&ss->unknown);
}

static void *sitesums_fork(void *ctx)
{
	(void)ctx;
	return xcalloc(1, sizeof(struct sitesums));
}

/* Add the sums @s to @d. */
static void sums_add(struct sitesums *ss, struct site *d, const struct site *s)
{
	d->allocs += s->allocs;
	ss->overflow |= add_u64_sat(&d->req, s->req);
	ss->overflow |= add_u64_sat(&d->alloc, s->alloc);
	d->frees += s->frees;
	d->xcpu += s->xcpu;
	ss->overflow |= add_u64_sat(&d->life, s->life);
	d->mismatched += s->mismatched;
	d->unknown += s->unknown;
	d->unknown_types |= s->unknown_types;
}

/* A shard's sums into the run's, by the run's site index and by key. */
static void sitesums_merge(void *ctx, void *shard,
			   const struct replay_remap *map)
{
	struct sitesums *ss = ctx, *sh = shard;
	size_t i;

	for (i = 0; i < sh->sites.nr && i < map->nr_sites; i++)
		sums_add(ss, site_at(ss, map->site[i]), &sh->sites.sites[i]);
	for (i = 0; i < sh->caches.nr; i++)
		sums_add(ss, site_get(&ss->caches, sh->caches.sites[i].key),
			 &sh->caches.sites[i]);
	for (i = 0; i < sh->unknown.nr; i++)
		sums_add(ss, site_get(&ss->unknown, sh->unknown.sites[i].key),
			 &sh->unknown.sites[i]);
	ss->overflow |= sh->overflow;
	sitesums_free(sh);
	free(sh);
}

const struct replay_consumer sitesums_consumer = {
	.name	= "sitesums",
	.needs	= REPLAY_ALLOC | REPLAY_END | REPLAY_BATCH,
	.alloc	= sitesums_on_alloc,
	.end	= sitesums_on_end,
	.batch	= sitesums_on_batch,
	.fork	= sitesums_fork,
	.merge	= sitesums_merge,
};

const struct replay_consumer sitesums_frees_consumer = {
	.name	= "sitesums",
	.needs	= REPLAY_ALLOC | REPLAY_FREE | REPLAY_STRAY | REPLAY_END |
		  REPLAY_BATCH,
	.alloc	= sitesums_on_alloc,
	.free	= sitesums_on_free,
	.stray	= sitesums_on_stray,
	.live	= sitesums_on_live,
	.end	= sitesums_on_end,
	.batch	= sitesums_on_batch,
	.fork	= sitesums_fork,
	.merge	= sitesums_merge,
};

void sitesums_free(struct sitesums *ss)
{
	site_table_free(&ss->sites);
	site_table_free(&ss->caches);
	site_table_free(&ss->unknown);
	memset(ss, 0, sizeof(*ss));
}
