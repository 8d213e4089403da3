// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace lifetimes - a consumer of the pass keeping every lifetime
 *
 * On each free of a selected allocation, the pass gives its lifetime,
 * which is kept in its call site's array.  See lifetimes.h.
 */
#include <stdlib.h>
#include <string.h>

#include "lifetimes.h"
#include "sample.h"
#include "utils.h"

/* Add @x, and its weight @w when @weighed (a sampled trace). */
static void vec_push(struct u64_vec *v, uint64_t x, bool weighed, double w)
{
	size_t size = v->size;

	v->v = kmt_grow(v->v, v->nr, &v->size, sizeof(*v->v), 16);
	if (weighed && (v->size != size || !v->w))
		v->w = xrealloc(v->w, v->size * sizeof(*v->w));
	if (weighed)
		v->w[v->nr] = w;
	v->v[v->nr++] = x;
}

/* Room for site index @si. */
static void grow_sites(struct lifetimes *lt, size_t si)
{
	size_t n;

	if (si >= lt->nr) {
		n = 2 * si + 256;
		lt->sites = xrealloc(lt->sites, n * sizeof(*lt->sites));
		memset(lt->sites + lt->nr, 0, (n - lt->nr) * sizeof(*lt->sites));
		lt->nr = n;
	}
}

static void lifetimes_on_free(void *ctx, const struct kmemtrace_event *ev,
			      const struct live_obj *o, uint64_t life)
{
	struct lifetimes *lt = ctx;

	(void)ev;
	grow_sites(lt, o->site);
	vec_push(&lt->sites[o->site], life, lt->period,
		 kmt_sample_weight(o->bytes0, lt->period));
}

/* A lifetime and its weight, for sorting both. */
struct life_w {
	uint64_t life;
	double w;
};

static int life_w_cmp(const void *a, const void *b)
{
	const struct life_w *x = a, *y = b;

	if (x->life != y->life)
		return x->life < y->life ? -1 : 1;
	return x->w < y->w ? -1 : x->w > y->w;
}

/* Sort the lifetimes of @v with their weights; their sum in that order. */
static void sort_weighed(struct u64_vec *v)
{
	struct life_w *p = xcalloc(v->nr, sizeof(*p));
	size_t i;

	for (i = 0; i < v->nr; i++) {
		p[i].life = v->v[i];
		p[i].w = v->w[i];
	}
	qsort(p, v->nr, sizeof(*p), life_w_cmp);
	v->total = 0;
	for (i = 0; i < v->nr; i++) {
		v->v[i] = p[i].life;
		v->w[i] = p[i].w;
		v->total += p[i].w;
	}
	free(p);
}

static int u64_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* Each site's lifetimes sorted, for the percentiles. */
static void lifetimes_on_end(void *ctx, const struct replay_run *run,
			     uint64_t last_ts)
{
	struct lifetimes *lt = ctx;
	size_t i;

	(void)run;
	(void)last_ts;
	/* A site with no lifetime has no array: qsort() wants one. */
	for (i = 0; i < lt->nr; i++) {
		if (lt->sites[i].w && lt->sites[i].nr)
			sort_weighed(&lt->sites[i]);
		else if (lt->sites[i].nr > 1)
			qsort(lt->sites[i].v, lt->sites[i].nr,
			      sizeof(*lt->sites[i].v), u64_cmp);
	}
}

static void *lifetimes_fork(void *ctx)
{
	struct lifetimes *sh = xcalloc_lines(sizeof(*sh));

	sh->period = ((struct lifetimes *)ctx)->period;
	return sh;
}

/* Each site's lifetimes of a shard after its own: end sorts them. */
static void lifetimes_merge(void *ctx, void *shard,
			    const struct replay_remap *map)
{
	struct lifetimes *lt = ctx, *sh = shard;
	struct u64_vec *d, *s;
	size_t i, j;

	for (i = 0; i < sh->nr && i < map->nr_sites; i++) {
		s = &sh->sites[i];
		if (!s->nr)
			continue;
		grow_sites(lt, map->site[i]);
		d = &lt->sites[map->site[i]];
		for (j = 0; j < s->nr; j++)
			vec_push(d, s->v[j], s->w, s->w ? s->w[j] : 0);
	}
	lifetimes_free(sh);
	free(sh);
}

const struct replay_consumer lifetimes_consumer = {
	.name	= "lifetimes",
	.needs	= REPLAY_FREE | REPLAY_END,
	.free	= lifetimes_on_free,
	.end	= lifetimes_on_end,
	.fork	= lifetimes_fork,
	.merge	= lifetimes_merge,
};

void lifetimes_free(struct lifetimes *lt)
{
	size_t i;

	for (i = 0; i < lt->nr; i++) {
		free(lt->sites[i].v);
		free(lt->sites[i].w);
	}
	free(lt->sites);
	memset(lt, 0, sizeof(*lt));
}
