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
#include "utils.h"

static void vec_push(struct u64_vec *v, uint64_t x)
{
	v->v = kmt_grow(v->v, v->nr, &v->size, sizeof(*v->v), 16);
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
	vec_push(&lt->sites[o->site], life);
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
	for (i = 0; i < lt->nr; i++)
		if (lt->sites[i].nr > 1)
			qsort(lt->sites[i].v, lt->sites[i].nr,
			      sizeof(*lt->sites[i].v), u64_cmp);
}

static void *lifetimes_fork(void *ctx)
{
	(void)ctx;
	return xcalloc(1, sizeof(struct lifetimes));
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
			vec_push(d, s->v[j]);
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

	for (i = 0; i < lt->nr; i++)
		free(lt->sites[i].v);
	free(lt->sites);
	memset(lt, 0, sizeof(*lt));
}
