// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace keysums - a consumer of the pass counting allocations by
 * gfp_flags and by node; see keysums.h
 */
#include <stdlib.h>

#include <string.h>

#include "keysums.h"
#include "sample.h"
#include "utils.h"

/* The weights and weighted bytes of index @i of a table, grown zeroed. */
static double *est_at(double **v, size_t *nr, uint32_t i)
{
	size_t n;

	if (i >= *nr) {
		n = 2 * (size_t)i + 64;
		*v = xrealloc(*v, 2 * n * sizeof(**v));
		memset(*v + 2 * *nr, 0, 2 * (n - *nr) * sizeof(**v));
		*nr = n;
	}
	return *v + 2 * (size_t)i;
}

static void count_est(struct site_table *tab, double **v, size_t *nr,
		      uint64_t key, uint64_t bytes, double w)
{
	double *e = est_at(v, nr, site_index(tab, key));

	e[0] += w;
	e[1] += w * bytes;
}

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
	double w;

	(void)o;
	if (ks->period) {
		w = kmt_sample_weight(ev->bytes_alloc, ev->sample_period);
		if (ks->by_gfp)
			count_est(&ks->gfps, &ks->gfp_est, &ks->nr_gfp_est,
				  ev->gfp_flags, ev->bytes_alloc, w);
		if (ks->by_node)
			count_est(&ks->nodes, &ks->node_est, &ks->nr_node_est,
				  (uint32_t)ev->node, ev->bytes_alloc, w);
		return;
	}
	if (ks->by_gfp)
		count_key(ks, &ks->gfps, ev->gfp_flags, ev->bytes_alloc);
	if (ks->by_node)
		count_key(ks, &ks->nodes, (uint32_t)ev->node, ev->bytes_alloc);
}

static void *keysums_fork(void *ctx)
{
	const struct keysums *ks = ctx;
	struct keysums *sh = xcalloc_lines(sizeof(*sh));

	sh->by_gfp = ks->by_gfp;
	sh->by_node = ks->by_node;
	sh->period = ks->period;
	return sh;
}

static void merge_table(struct keysums *ks, struct site_table *d,
			const struct site_table *s)
{
	struct site *e;
	size_t i;

	for (i = 0; i < s->nr && !ks->period; i++) {
		e = site_get(d, s->sites[i].key);
		e->allocs += s->sites[i].allocs;
		ks->overflow |= add_u64_sat(&e->alloc, s->sites[i].alloc);
	}
}

/* A shard's weights @sv into @v, by key. */
static void merge_est(struct site_table *d, double **v, size_t *nr,
		      const struct site_table *s, const double *sv, size_t snr)
{
	double *e;
	size_t i;

	for (i = 0; i < s->nr && i < snr; i++) {
		e = est_at(v, nr, site_index(d, s->sites[i].key));
		e[0] += sv[2 * i];
		e[1] += sv[2 * i + 1];
	}
}

/* In a sampled trace, the estimates, rounded once. */
static void round_table(struct keysums *ks, struct site_table *tab,
			const double *v, size_t nr)
{
	size_t i;

	for (i = 0; i < tab->nr && i < nr; i++) {
		tab->sites[i].allocs = kmt_sample_round(v[2 * i], &ks->overflow);
		tab->sites[i].alloc = kmt_sample_round(v[2 * i + 1], &ks->overflow);
	}
}

static void keysums_on_end(void *ctx, const struct replay_run *run,
			   uint64_t last_ts)
{
	struct keysums *ks = ctx;

	(void)run;
	(void)last_ts;
	if (!ks->period)
		return;
	round_table(ks, &ks->gfps, ks->gfp_est, ks->nr_gfp_est);
	round_table(ks, &ks->nodes, ks->node_est, ks->nr_node_est);
}

static void keysums_merge(void *ctx, void *shard, const struct replay_remap *map)
{
	struct keysums *ks = ctx, *sh = shard;

	(void)map;

	merge_table(ks, &ks->gfps, &sh->gfps);
	merge_table(ks, &ks->nodes, &sh->nodes);
	merge_est(&ks->gfps, &ks->gfp_est, &ks->nr_gfp_est, &sh->gfps,
		  sh->gfp_est, sh->nr_gfp_est);
	merge_est(&ks->nodes, &ks->node_est, &ks->nr_node_est, &sh->nodes,
		  sh->node_est, sh->nr_node_est);
	ks->overflow |= sh->overflow;
	keysums_free(sh);
	free(sh);
}

const struct replay_consumer keysums_consumer = {
	.name	= "keysums",
	.needs	= REPLAY_ALLOC | REPLAY_END,
	.end	= keysums_on_end,
	.alloc	= keysums_on_alloc,
	.fork	= keysums_fork,
	.merge	= keysums_merge,
};

void keysums_free(struct keysums *ks)
{
	site_table_free(&ks->gfps);
	site_table_free(&ks->nodes);
	free(ks->gfp_est);
	free(ks->node_est);
	ks->gfp_est = NULL;
	ks->node_est = NULL;
	ks->nr_gfp_est = 0;
	ks->nr_node_est = 0;
}
