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

static void lifetimes_on_free(void *ctx, const struct kmemtrace_event *ev,
			      const struct live_obj *o, uint64_t life)
{
	struct lifetimes *lt = ctx;
	size_t n;

	(void)ev;
	if (o->site >= lt->nr) {
		n = 2 * (size_t)o->site + 256;
		lt->sites = xrealloc(lt->sites, n * sizeof(*lt->sites));
		memset(lt->sites + lt->nr, 0, (n - lt->nr) * sizeof(*lt->sites));
		lt->nr = n;
	}
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

const struct replay_consumer lifetimes_consumer = {
	.name	= "lifetimes",
	.needs	= REPLAY_FREE | REPLAY_END,
	.free	= lifetimes_on_free,
	.end	= lifetimes_on_end,
};

void lifetimes_free(struct lifetimes *lt)
{
	size_t i;

	for (i = 0; i < lt->nr; i++)
		free(lt->sites[i].v);
	free(lt->sites);
	memset(lt, 0, sizeof(*lt));
}
