// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace stackstat - a consumer of the pass counting allocations by
 * call site and stack
 *
 * See stackstat.h.
 */
#include <stdlib.h>
#include <string.h>

#include "sample.h"
#include "stackstat.h"
#include "utils.h"

static struct stack_stat *stat_get(struct stackstat *ss, uint32_t si,
				   uint32_t stack)
{
	uint64_t key = (uint64_t)si << 32 | stack;
	struct stack_stat *s;
	uint32_t i;

	if (kmt_map_find(&ss->map, key, &i))
		return &ss->stats[i];
	kmt_map_insert(&ss->map, key, ss->nr, NULL);
	ss->stats = kmt_grow(ss->stats, ss->nr, &ss->size, sizeof(*ss->stats), 256);
	s = &ss->stats[ss->nr++];
	memset(s, 0, sizeof(*s));
	s->site = si;
	s->stack = stack;
	return s;
}

static void stackstat_on_alloc(void *ctx, const struct kmemtrace_event *ev,
			       const struct live_obj *o)
{
	struct stackstat *ss = ctx;
	struct stack_stat *s;
	double w;

	if (ss->period) {
		w = kmt_sample_weight(ev->bytes_alloc, ev->sample_period);
		ss->est.lost += ev->flags & KMEMTRACE_FLAG_STACK_LOST ? w : 0;
		if (!ev->stack_id) {
			ss->est.nostack += w;
			return;
		}
		ss->est.allocs += w;
		ss->est.bytes += w * ev->bytes_alloc;
		s = stat_get(ss, o->site, ev->stack_id);
		s->est_allocs += w;
		s->est_bytes += w * ev->bytes_alloc;
		return;
	}
	if (ev->flags & KMEMTRACE_FLAG_STACK_LOST)
		ss->lost++;
	if (!ev->stack_id) {
		ss->nostack++;
		return;
	}
	ss->allocs++;
	ss->overflow |= add_u64_sat(&ss->bytes, ev->bytes_alloc);
	s = stat_get(ss, o->site, ev->stack_id);
	s->allocs++;
	ss->overflow |= add_u64_sat(&s->bytes, ev->bytes_alloc);
}

static void *stackstat_fork(void *ctx)
{
	struct stackstat *sh = xcalloc_lines(sizeof(*sh));

	sh->period = ((struct stackstat *)ctx)->period;
	return sh;
}

/* By call site and stack; the stacks view sorts them. */
static void stackstat_merge(void *ctx, void *shard,
			    const struct replay_remap *map)
{
	struct stackstat *ss = ctx, *sh = shard;
	const struct stack_stat *s;
	struct stack_stat *d;
	size_t i;

	for (i = 0; i < sh->nr; i++) {
		s = &sh->stats[i];
		d = stat_get(ss, map->site[s->site], s->stack);
		d->allocs += s->allocs;
		ss->overflow |= add_u64_sat(&d->bytes, s->bytes);
		d->est_allocs += s->est_allocs;
		d->est_bytes += s->est_bytes;
	}
	ss->est.allocs += sh->est.allocs;
	ss->est.bytes += sh->est.bytes;
	ss->est.nostack += sh->est.nostack;
	ss->est.lost += sh->est.lost;
	ss->allocs += sh->allocs;
	ss->overflow |= add_u64_sat(&ss->bytes, sh->bytes);
	ss->nostack += sh->nostack;
	ss->lost += sh->lost;
	ss->overflow |= sh->overflow;
	stackstat_free(sh);
	free(sh);
}

/* In a sampled trace, the estimates, rounded once. */
static void stackstat_on_end(void *ctx, const struct replay_run *run,
			     uint64_t last_ts)
{
	struct stackstat *ss = ctx;
	struct stack_stat *s;
	size_t i;

	(void)run;
	(void)last_ts;
	if (!ss->period)
		return;
	for (i = 0; i < ss->nr; i++) {
		s = &ss->stats[i];
		s->allocs = kmt_sample_round(s->est_allocs, &ss->overflow);
		s->bytes = kmt_sample_round(s->est_bytes, &ss->overflow);
	}
	ss->allocs = kmt_sample_round(ss->est.allocs, &ss->overflow);
	ss->bytes = kmt_sample_round(ss->est.bytes, &ss->overflow);
	ss->nostack = kmt_sample_round(ss->est.nostack, &ss->overflow);
	ss->lost = kmt_sample_round(ss->est.lost, &ss->overflow);
}

const struct replay_consumer stackstat_consumer = {
	.name	= "stackstat",
	.needs	= REPLAY_ALLOC | REPLAY_END,
	.end	= stackstat_on_end,
	.alloc	= stackstat_on_alloc,
	.fork	= stackstat_fork,
	.merge	= stackstat_merge,
};

void stackstat_free(struct stackstat *ss)
{
	free(ss->stats);
	kmt_map_free(&ss->map);
	memset(ss, 0, sizeof(*ss));
}
