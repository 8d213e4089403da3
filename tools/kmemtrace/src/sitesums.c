// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace sitesums - a consumer of the pass adding up the selected
 * allocations per call site and per cache; see sitesums.h
 *
 * The sums of a call site are fetched ahead, a batch of events at a
 * time (@batch): there are thousands of call sites, met in no order.
 * What is still allocated comes from the allocations live at the end
 * (@live), as it is, each byte sum saturating.  In a sampled trace each
 * allocation counts with the weight of its alloc event (sample.h), in
 * sums of doubles (struct site_est) rounded into the sites' at the end.
 */
#include <stdlib.h>
#include <string.h>

#include "sample.h"
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

/* Entry @i of the scaled sums @v, of room *@nr, grown zeroed if need be. */
static struct site_est *est_at(struct site_est **v, size_t *nr, uint32_t i)
{
	size_t n;

	if (i >= *nr) {
		n = 2 * (size_t)i + 256;
		*v = xrealloc(*v, n * sizeof(**v));
		memset(*v + *nr, 0, (n - *nr) * sizeof(**v));
		*nr = n;
	}
	return &(*v)[i];
}

/* The scaled sums of site index @si, with room in the sites' too. */
static struct site_est *site_est(struct sitesums *ss, uint32_t si)
{
	site_at(ss, si);
	return est_at(&ss->est, &ss->nr_est, si);
}

/* The scaled sums of cache @id. */
static struct site_est *cache_est(struct sitesums *ss, uint64_t id)
{
	return est_at(&ss->cache_est, &ss->nr_cache_est,
		      site_index(&ss->caches, id));
}

static void est_alloc(struct site_est *e, const struct kmemtrace_event *ev,
		      double w)
{
	e->allocs += w;
	e->req += w * ev->bytes_req;
	e->alloc += w * ev->bytes_alloc;
}

/* A sampled allocation: it stands for the weight of its event. */
static void sampled_alloc(struct sitesums *ss, const struct kmemtrace_event *ev,
			  const struct live_obj *o)
{
	double w = kmt_sample_weight(ev->bytes_alloc, ev->sample_period);

	est_alloc(site_est(ss, o->site), ev, w);
	if (ev->type == KMEMTRACE_TYPE_CACHE)
		est_alloc(cache_est(ss, ev->cache_id), ev, w);
}

static void est_free(struct site_est *e, const struct kmemtrace_event *ev,
		     const struct live_obj *o, uint64_t life, double w)
{
	e->frees += w;
	e->life += w * life;
	e->xcpu += ev->cpu != o->cpu ? w : 0;
	e->mismatched += replay_free_mismatched(ev, o) ? w : 0;
}

/* The free of a sampled allocation: it weighs what its alloc did. */
static void sampled_free(struct sitesums *ss, const struct kmemtrace_event *ev,
			 const struct live_obj *o, uint64_t life)
{
	double w = kmt_sample_weight(o->bytes0, ss->period);

	est_free(site_est(ss, o->site), ev, o, life, w);
	if (o->type == KMEMTRACE_TYPE_CACHE)
		est_free(cache_est(ss, o->cache_id), ev, o, life, w);
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
	struct site *s;

	if (ss->period) {
		sampled_alloc(ss, ev, o);
		return;
	}
	s = site_at(ss, o->site);
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
	struct site *s;
	bool mismatched;

	if (ss->period) {
		sampled_free(ss, ev, o, life);
		return;
	}
	s = site_at(ss, o->site);
	mismatched = replay_free_mismatched(ev, o);
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
	if (o && ss->period) {
		site_est(ss, o->site)->mismatched +=
			kmt_sample_weight(o->bytes0, ss->period);
	} else if (o) {
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
	struct site *s;
	double w;

	if (ss->period) {
		w = kmt_sample_weight(o->bytes0, ss->period);
		ss->live_est += w;
		ss->live_bytes_est += w * o->bytes;
		site_est(ss, o->site)->live += w;
		site_est(ss, o->site)->live_bytes += w * o->bytes;
		if (o->type == KMEMTRACE_TYPE_CACHE) {
			cache_est(ss, o->cache_id)->live += w;
			cache_est(ss, o->cache_id)->live_bytes += w * o->bytes;
		}
		return;
	}
	s = site_at(ss, o->site);
	s->live++;
	ss->overflow |= add_u64_sat(&s->live_bytes, o->bytes);
	if (o->type != KMEMTRACE_TYPE_CACHE)
		return;
	s = site_get(&ss->caches, o->cache_id);
	s->live++;
	ss->overflow |= add_u64_sat(&s->live_bytes, o->bytes);
}

/* The scaled sums @e, rounded, into @s. */
static void est_round(struct sitesums *ss, struct site *s,
		      const struct site_est *e)
{
	s->allocs = kmt_sample_round(e->allocs, &ss->overflow);
	s->req = kmt_sample_round(e->req, &ss->overflow);
	s->alloc = kmt_sample_round(e->alloc, &ss->overflow);
	s->frees = kmt_sample_round(e->frees, &ss->overflow);
	s->xcpu = kmt_sample_round(e->xcpu, &ss->overflow);
	s->life = kmt_sample_round(e->life, &ss->overflow);
	s->mismatched = kmt_sample_round(e->mismatched, &ss->overflow);
	s->live = kmt_sample_round(e->live, &ss->overflow);
	s->live_bytes = kmt_sample_round(e->live_bytes, &ss->overflow);
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
	if (!ss->period)
		return;
	ss->live = kmt_sample_round(ss->live_est, &ss->overflow);
	ss->live_bytes = kmt_sample_round(ss->live_bytes_est, &ss->overflow);
	for (i = 0; i < ss->sites.nr && i < ss->nr_est; i++)
		est_round(ss, &ss->sites.sites[i], &ss->est[i]);
	for (i = 0; i < ss->caches.nr && i < ss->nr_cache_est; i++)
		est_round(ss, &ss->caches.sites[i], &ss->cache_est[i]);
}

static void *sitesums_fork(void *ctx)
{
	struct sitesums *sh = xcalloc_lines(sizeof(*sh));

	sh->period = ((struct sitesums *)ctx)->period;
	return sh;
}

/* Add the scaled sums @s to @d. */
static void est_add(struct site_est *d, const struct site_est *s)
{
	d->allocs += s->allocs;
	d->req += s->req;
	d->alloc += s->alloc;
	d->frees += s->frees;
	d->xcpu += s->xcpu;
	d->life += s->life;
	d->mismatched += s->mismatched;
	d->live += s->live;
	d->live_bytes += s->live_bytes;
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
	for (i = 0; i < sh->nr_est && i < map->nr_sites; i++)
		est_add(site_est(ss, map->site[i]), &sh->est[i]);
	for (i = 0; i < sh->caches.nr && i < sh->nr_cache_est; i++)
		est_add(cache_est(ss, sh->caches.sites[i].key), &sh->cache_est[i]);
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
	free(ss->est);
	free(ss->cache_est);
	memset(ss, 0, sizeof(*ss));
}
