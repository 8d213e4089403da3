// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace sitesums - a consumer of the pass adding up the selected
 * allocations per call site and per cache; see sitesums.h
 *
 * The bytes still allocated go up with each allocation and down with
 * each free, on two words, so that a sum above 2^64 - 1 is known at the
 * end as it was, whatever the order of the events; it then saturates.
 */
#include <stdlib.h>
#include <string.h>

#include "sitesums.h"
#include "utils.h"

/* Room for site index @si. */
static void sites_grow(struct sitesums *ss, uint32_t si)
{
	struct site_table *t = &ss->sites;
	size_t n;

	if (si >= ss->size_sites) {
		n = 2 * (size_t)si + 256;
		t->sites = xrealloc(t->sites, n * sizeof(*t->sites));
		ss->site_live_hi = xrealloc(ss->site_live_hi,
					    n * sizeof(*ss->site_live_hi));
		ss->size_sites = n;
	}
	memset(t->sites + t->nr, 0, (si + 1 - t->nr) * sizeof(*t->sites));
	memset(ss->site_live_hi + t->nr, 0,
	       (si + 1 - t->nr) * sizeof(*ss->site_live_hi));
	t->nr = si + 1;
}

/* The entry of site index @si, with room for it. */
static inline struct site *site_at(struct sitesums *ss, uint32_t si)
{
	if (si >= ss->sites.nr)
		sites_grow(ss, si);
	return &ss->sites.sites[si];
}

/* Room for the high word of cache index @i. */
static void caches_grow(struct sitesums *ss, uint32_t i)
{
	size_t n = 2 * (size_t)i + 64;

	ss->cache_live_hi = xrealloc(ss->cache_live_hi,
				     n * sizeof(*ss->cache_live_hi));
	memset(ss->cache_live_hi + ss->size_hi, 0,
	       (n - ss->size_hi) * sizeof(*ss->cache_live_hi));
	ss->size_hi = n;
}

/* The index of cache @id, with room for its high word. */
static inline uint32_t cache_at(struct sitesums *ss, uint32_t id)
{
	uint32_t i = site_index(&ss->caches, id);

	if (i >= ss->size_hi)
		caches_grow(ss, i);
	return i;
}

/* Add @bytes to the live bytes of @s, of high word @hi. */
static inline void live_add(struct site *s, uint64_t *hi, uint64_t bytes)
{
	s->live_bytes += bytes;
	*hi += s->live_bytes < bytes;
}

static inline void live_sub(struct site *s, uint64_t *hi, uint64_t bytes)
{
	*hi -= s->live_bytes < bytes;
	s->live_bytes -= bytes;
}

/* Selected allocation @o is no longer live, or no longer @o->bytes. */
static void live_less(struct sitesums *ss, const struct live_obj *o,
		      uint64_t count)
{
	struct site *s = site_at(ss, o->site);
	uint32_t ci;

	s->live -= count;
	live_sub(s, &ss->site_live_hi[o->site], o->bytes);
	if (o->type == KMEMTRACE_TYPE_CACHE) {
		ci = cache_at(ss, o->cache_id);
		ss->caches.sites[ci].live -= count;
		live_sub(&ss->caches.sites[ci], &ss->cache_live_hi[ci], o->bytes);
	}
}

/* An allocation, for the summary: its bytes only. */
static void sitesums_on_alloc_bytes(void *ctx, const struct kmemtrace_event *ev,
				    const struct live_obj *o)
{
	struct sitesums *ss = ctx;
	struct site *s = site_at(ss, o->site);
	uint32_t ci;

	s->allocs++;
	ss->overflow |= add_u64_sat(&s->req, ev->bytes_req);
	ss->overflow |= add_u64_sat(&s->alloc, ev->bytes_alloc);
	if (ev->type != KMEMTRACE_TYPE_CACHE)
		return;
	/* First the index: adding a cache may move the entries. */
	ci = cache_at(ss, ev->cache_id);
	s = &ss->caches.sites[ci];
	s->allocs++;
	ss->overflow |= add_u64_sat(&s->req, ev->bytes_req);
	ss->overflow |= add_u64_sat(&s->alloc, ev->bytes_alloc);
}

static void sitesums_on_alloc(void *ctx, const struct kmemtrace_event *ev,
			      const struct live_obj *o)
{
	struct sitesums *ss = ctx;
	struct site *s = site_at(ss, o->site);
	uint32_t ci;

	s->allocs++;
	ss->overflow |= add_u64_sat(&s->req, ev->bytes_req);
	ss->overflow |= add_u64_sat(&s->alloc, ev->bytes_alloc);
	s->live++;
	live_add(s, &ss->site_live_hi[o->site], ev->bytes_alloc);
	if (ev->type != KMEMTRACE_TYPE_CACHE)
		return;
	ci = cache_at(ss, ev->cache_id);
	s = &ss->caches.sites[ci];
	s->allocs++;
	ss->overflow |= add_u64_sat(&s->req, ev->bytes_req);
	ss->overflow |= add_u64_sat(&s->alloc, ev->bytes_alloc);
	s->live++;
	live_add(s, &ss->cache_live_hi[ci], ev->bytes_alloc);
}

static void sitesums_on_free(void *ctx, const struct kmemtrace_event *ev,
			     const struct live_obj *o, uint64_t life)
{
	struct sitesums *ss = ctx;
	struct site *s = site_at(ss, o->site);
	bool mismatched = replay_free_mismatched(ev, o);
	uint32_t ci;

	s->frees++;
	ss->overflow |= add_u64_sat(&s->life, life);
	s->xcpu += ev->cpu != o->cpu;
	s->mismatched += mismatched;
	s->live--;
	live_sub(s, &ss->site_live_hi[o->site], o->bytes);
	if (o->type != KMEMTRACE_TYPE_CACHE)
		return;
	/* First the index: adding a cache may move the entries. */
	ci = cache_at(ss, o->cache_id);
	s = &ss->caches.sites[ci];
	s->frees++;
	ss->overflow |= add_u64_sat(&s->life, life);
	s->xcpu += ev->cpu != o->cpu;
	s->mismatched += mismatched;
	s->live--;
	live_sub(s, &ss->cache_live_hi[ci], o->bytes);
}

/* A realloc of @o to @bytes, or @o allocated again (@ev NULL). */
static void sitesums_on_resize(void *ctx, const struct kmemtrace_event *ev,
			       const struct live_obj *o, uint64_t bytes)
{
	struct sitesums *ss = ctx;
	uint32_t ci;

	if (!ev) {
		live_less(ss, o, 1);
		return;
	}
	live_less(ss, o, 0);
	live_add(site_at(ss, o->site), &ss->site_live_hi[o->site], bytes);
	if (o->type == KMEMTRACE_TYPE_CACHE) {
		ci = cache_at(ss, o->cache_id);
		live_add(&ss->caches.sites[ci], &ss->cache_live_hi[ci], bytes);
	}
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

/* Saturate the live bytes of @s, of high word @hi. */
static void live_end(struct sitesums *ss, struct site *s, uint64_t hi)
{
	if (hi) {
		s->live_bytes = UINT64_MAX;
		ss->overflow = true;
	}
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
		live_end(ss, s, ss->site_live_hi[i]);
		if (kmt_map_find(&ss->unknown.map, s->key, &u)) {
			s->unknown = ss->unknown.sites[u].unknown;
			s->unknown_types = ss->unknown.sites[u].unknown_types;
		}
	}
	ss->sites.nr = nr;
	ss->sites.size = ss->size_sites;
	for (i = 0; i < ss->caches.nr; i++)
		live_end(ss, &ss->caches.sites[i], ss->cache_live_hi[i]);
	site_table_free(&ss->unknown);
	free(ss->site_live_hi);
	free(ss->cache_live_hi);
	ss->site_live_hi = NULL;
	ss->cache_live_hi = NULL;
}

/* Fetch the sums of the call sites of the next allocations. */
static void sitesums_on_batch(void *ctx, const uint32_t *site, size_t n)
{
	struct sitesums *ss = ctx;
	struct site *s;
	size_t i;

	for (i = 0; i < n; i++) {
		s = site_at(ss, site[i]);
		__builtin_prefetch(&s->allocs, 1);
		__builtin_prefetch(&s->live_bytes, 1);
	}
}

static void *sitesums_fork(void *ctx)
{
	(void)ctx;
	return xcalloc(1, sizeof(struct sitesums));
}

/* Add the sums @s, of live high word @s_hi, to @d, of @d_hi. */
static void sums_add(struct sitesums *ss, struct site *d, uint64_t *d_hi,
		     const struct site *s, uint64_t s_hi)
{
	d->allocs += s->allocs;
	ss->overflow |= add_u64_sat(&d->req, s->req);
	ss->overflow |= add_u64_sat(&d->alloc, s->alloc);
	d->frees += s->frees;
	d->xcpu += s->xcpu;
	ss->overflow |= add_u64_sat(&d->life, s->life);
	d->mismatched += s->mismatched;
	d->live += s->live;
	live_add(d, d_hi, s->live_bytes);
	*d_hi += s_hi;
}

/* A shard's sums into the run's, by the run's site index and by key. */
static void sitesums_merge(void *ctx, void *shard,
			   const struct replay_remap *map)
{
	struct sitesums *ss = ctx, *sh = shard;
	struct site *d, *s;
	uint32_t i, ci;

	for (i = 0; i < sh->sites.nr && i < map->nr_sites; i++) {
		d = site_at(ss, map->site[i]);
		sums_add(ss, d, &ss->site_live_hi[map->site[i]],
			 &sh->sites.sites[i], sh->site_live_hi[i]);
	}
	for (i = 0; i < sh->caches.nr; i++) {
		ci = cache_at(ss, sh->caches.sites[i].key);
		sums_add(ss, &ss->caches.sites[ci], &ss->cache_live_hi[ci],
			 &sh->caches.sites[i], sh->cache_live_hi[i]);
	}
	for (i = 0; i < sh->unknown.nr; i++) {
		s = &sh->unknown.sites[i];
		d = site_get(&ss->unknown, s->key);
		d->unknown += s->unknown;
		d->unknown_types |= s->unknown_types;
	}
	ss->overflow |= sh->overflow;
	sitesums_free(sh);
	free(sh);
}

const struct replay_consumer sitesums_consumer = {
	.name	= "sitesums",
	.needs	= REPLAY_ALLOC | REPLAY_END | REPLAY_BATCH,
	.alloc	= sitesums_on_alloc_bytes,
	.batch	= sitesums_on_batch,
	.end	= sitesums_on_end,
	.fork	= sitesums_fork,
	.merge	= sitesums_merge,
};

const struct replay_consumer sitesums_frees_consumer = {
	.name	= "sitesums",
	.needs	= REPLAY_ALLOC | REPLAY_FREE | REPLAY_RESIZE | REPLAY_STRAY |
		  REPLAY_END | REPLAY_BATCH,
	.batch	= sitesums_on_batch,
	.alloc	= sitesums_on_alloc,
	.free	= sitesums_on_free,
	.resize	= sitesums_on_resize,
	.stray	= sitesums_on_stray,
	.end	= sitesums_on_end,
	.fork	= sitesums_fork,
	.merge	= sitesums_merge,
};

void sitesums_free(struct sitesums *ss)
{
	site_table_free(&ss->sites);
	site_table_free(&ss->caches);
	site_table_free(&ss->unknown);
	free(ss->site_live_hi);
	free(ss->cache_live_hi);
	memset(ss, 0, sizeof(*ss));
}
