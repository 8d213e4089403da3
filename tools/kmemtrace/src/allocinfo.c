// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace allocinfo - a consumer of the pass adding up the change of
 * /proc/allocinfo per codetag; see allocinfo.h
 */
#include <stdlib.h>
#include <string.h>

#include "allocinfo.h"
#include "sample.h"
#include "utils.h"

/* The index of codetag @tag, added if new; 0 for no tag. */
static uint32_t tag_index(struct allocinfo *ai, uint64_t tag)
{
	uint32_t i;
	bool added;

	if (!ai->nr) {
		/* Index 0: no tag. */
		ai->tags = kmt_grow(ai->tags, 0, &ai->size, sizeof(*ai->tags), 256);
		ai->counts = xcalloc(ai->size, sizeof(*ai->counts));
		ai->tags[ai->nr++] = 0;
	}
	if (!tag)
		return 0;
	if (kmt_map_find(&ai->tag_map, tag, &i))
		return i;
	i = kmt_map_insert(&ai->tag_map, tag, ai->nr, &added);
	if (ai->nr == ai->size) {
		ai->tags = kmt_grow(ai->tags, ai->nr, &ai->size, sizeof(*ai->tags), 256);
		ai->counts = xrealloc(ai->counts, ai->size * sizeof(*ai->counts));
	}
	memset(&ai->counts[ai->nr], 0, sizeof(*ai->counts));
	ai->tags[ai->nr++] = tag;
	return i;
}

/*
 * Whether allocinfo counts selected allocation @o of tag index @ti: not
 * one flagged untracked either, whose free would not be recorded: the
 * change of /proc/allocinfo is what is still allocated.
 */
static bool counted(const struct live_obj *o, uint32_t ti)
{
	return ti && o->type != KMEMTRACE_TYPE_VMALLOC && !o->uncharged &&
	       !o->untracked;
}

/* The tag index of a selected allocation of the pass. */
static uint32_t obj_tag(const struct allocinfo *ai, const struct live_obj *o)
{
	uint32_t ti;

	return kmt_map_find(&ai->origin_map, o->origin, &ti) ? ti : 0;
}

/*
 * A selected alloc @o of @ev, tag index @ti: the tag was touched and,
 * but for a vmalloc area (allocinfo counts its pages and page array,
 * which have events of their own), memory flagged uncharged and one
 * flagged untracked (counted()), it counts one call and its bytes.
 */
static void count_alloc(struct allocinfo *ai, const struct kmemtrace_event *ev,
			const struct live_obj *o, uint32_t ti)
{
	struct ai_count *c;
	double w;

	if (!ti)
		return;
	c = &ai->counts[ti];
	c->touched = true;
	if (!counted(o, ti))
		return;
	if (ai->period) {
		w = kmt_sample_weight(o->bytes0, ai->period);
		c->est_calls += w;
		c->est_bytes += w * ev->bytes_alloc;
		return;
	}
	c->calls++;
	c->bytes += ev->bytes_alloc;
}

/* The free of @o, counted under @ti: take back what it counted. */
static void count_free(struct allocinfo *ai, const struct live_obj *o,
		       uint32_t ti)
{
	struct ai_count *c;
	double w;

	if (!o->selected || !counted(o, ti))
		return;
	c = &ai->counts[ti];
	if (ai->period) {
		w = kmt_sample_weight(o->bytes0, ai->period);
		c->est_calls -= w;
		c->est_bytes -= w * o->bytes;
		return;
	}
	c->calls--;
	c->bytes -= o->bytes;
}

/*
 * A realloc @ev in place of live alloc @o, counted under @ti: it keeps
 * the alloc's tag, whose bytes change by the difference; its own tag was
 * touched.
 */
static void count_realloc(struct allocinfo *ai, const struct kmemtrace_event *ev,
			  const struct live_obj *o, uint32_t ti)
{
	uint32_t own;

	if (ev->tag && (!ai->filtering || o->selected)) {
		own = tag_index(ai, ev->tag);
		ai->counts[own].touched = true;
	}
	if (!o->selected || !counted(o, ti))
		return;
	if (ai->period) {
		ai->counts[ti].est_bytes += kmt_sample_weight(o->bytes0, ai->period) *
					    ((double)ev->bytes_alloc - (double)o->bytes);
		return;
	}
	ai->counts[ti].bytes += (int64_t)(ev->bytes_alloc - o->bytes);
}

/*
 * A split of @o, counted under @ti, into @pieces: as the kernel's
 * pgalloc_tag_split(), each piece but the first is one call more, its
 * bytes still counted; each free takes back a call and a piece.
 */
static void count_split(struct allocinfo *ai, const struct live_obj *o,
			uint32_t ti, uint64_t pieces)
{
	if (!o->selected || !counted(o, ti))
		return;
	if (ai->period) {
		ai->counts[ti].est_calls += kmt_sample_weight(o->bytes0, ai->period) *
					    (double)(pieces - 1);
		return;
	}
	ai->counts[ti].calls += pieces - 1;
}

static void allocinfo_on_alloc(void *ctx, const struct kmemtrace_event *ev,
			       const struct live_obj *o)
{
	struct allocinfo *ai = ctx;
	uint32_t ti = tag_index(ai, ev->tag);

	kmt_map_insert(&ai->origin_map, o->origin, ti, NULL);
	count_alloc(ai, ev, o, ti);
}

static void allocinfo_on_free(void *ctx, const struct kmemtrace_event *ev,
			      const struct live_obj *o, uint64_t life)
{
	struct allocinfo *ai = ctx;

	(void)ev;
	(void)life;
	count_free(ai, o, obj_tag(ai, o));
}

/* A realloc; not a memory allocated again without a free (@ev NULL). */
static void allocinfo_on_resize(void *ctx, const struct kmemtrace_event *ev,
				const struct live_obj *o, uint64_t bytes)
{
	struct allocinfo *ai = ctx;

	(void)bytes;
	if (ev)
		count_realloc(ai, ev, o, obj_tag(ai, o));
}

static void allocinfo_on_split(void *ctx, const struct kmemtrace_event *ev,
			       const struct live_obj *o, uint64_t pieces)
{
	struct allocinfo *ai = ctx;

	(void)ev;
	count_split(ai, o, obj_tag(ai, o), pieces);
}

/*
 * Split backing pages @ev, in the table of backing allocs @lt: as the
 * pass splits pages (replay.c), the live allocation of its size keeps
 * the first piece, the others are live like it; any other is left.
 */
static void backing_split(struct allocinfo *ai, struct live_table *lt,
			  const struct kmemtrace_event *ev)
{
	uint64_t pieces = kmt_split_pieces(ev), i, ptr;
	struct live_obj *o, *p, piece;

	o = live_find(lt, KMEMTRACE_TYPE_PAGES, ev->ptr);
	if (!o || o->bytes != ev->bytes_alloc)
		return;
	o->bytes = ev->bytes_req;
	count_split(ai, o, o->origin, pieces);
	piece = *o;
	live_reserve(lt, pieces - 1);
	for (i = 1; i < pieces; i++) {
		ptr = ev->ptr + i * ev->bytes_req;
		p = live_probe(lt, live_hash(KMEMTRACE_TYPE_PAGES, ptr, lt->bits),
			       KMEMTRACE_TYPE_PAGES, ptr);
		if (!p->family)
			lt->nr++;
		*p = piece;
		p->ptr = ptr;
	}
}

static void allocinfo_on_stray(void *ctx, const struct kmemtrace_event *ev,
			       const struct live_obj *o, bool selected)
{
	struct allocinfo *ai = ctx;

	(void)o;
	(void)selected;
	if (ev->kind == KMEMTRACE_KIND_FREE) {
		ai->free_unknown++;
		return;
	}
	ai->realloc_unknown++;
	if (ev->tag && !ai->filtering) {
		/* First the index: adding a tag may move the counters. */
		uint32_t ti = tag_index(ai, ev->tag);

		ai->counts[ti].touched = true;
	}
}

/*
 * A backing event, which the other views leave out: allocinfo counts the
 * slab pages under mm/slub.c's line, a vmalloc area's pages and page
 * array under the caller's.  They pair in the table of backing allocs.
 */
static void allocinfo_on_backing(void *ctx, const struct kmemtrace_event *ev,
				 bool selected)
{
	unsigned int family = pair_type(ev->type);
	struct allocinfo *ai = ctx;
	struct live_table *lt = &ai->backing;
	struct live_obj *o;

	if (kmt_event_is_unpaired(ev))
		return;
	if (ev->kind == KMEMTRACE_KIND_SPLIT) {
		backing_split(ai, lt, ev);
		return;
	}
	live_reserve(lt, 1);
	o = live_probe(lt, live_hash(family, ev->ptr, lt->bits), family, ev->ptr);
	if (ev->kind == KMEMTRACE_KIND_FREE) {
		if (!o->family) {
			ai->free_unknown++;
			return;
		}
		count_free(ai, o, o->origin);
		live_remove(lt, o);
		return;
	}
	if (ev->kind == KMEMTRACE_KIND_REALLOC) {
		if (!o->family) {
			ai->realloc_unknown++;
			return;
		}
		count_realloc(ai, ev, o, o->origin);
		o->bytes = ev->bytes_alloc;
		return;
	}
	if (!o->family) {
		o->ptr = ev->ptr;
		o->family = family;
		lt->nr++;
	}
	o->bytes = ev->bytes_alloc;
	o->bytes0 = ev->bytes_alloc;
	o->origin = tag_index(ai, ev->tag);
	o->type = ev->type;
	o->selected = selected;
	o->uncharged = !!(ev->flags & KMEMTRACE_FLAG_UNCHARGED);
	if (selected)
		count_alloc(ai, ev, o, o->origin);
}

static void *allocinfo_fork(void *ctx)
{
	const struct allocinfo *ai = ctx;
	struct allocinfo *sh = xcalloc_lines(sizeof(*sh));

	sh->filtering = ai->filtering;
	sh->period = ai->period;
	return sh;
}

/*
 * The counts of a shard's tags, by tag.  Its backing pages and its
 * allocations' tags (by the shard's origins) are its own pointers',
 * done with.
 */
static void allocinfo_merge(void *ctx, void *shard,
			    const struct replay_remap *map)
{
	struct allocinfo *ai = ctx, *sh = shard;
	struct ai_count *c;
	uint32_t ti;
	size_t i;

	(void)map;
	for (i = 1; i < sh->nr; i++) {
		/* First the index: adding a tag may move the counters. */
		ti = tag_index(ai, sh->tags[i]);
		c = &ai->counts[ti];
		c->bytes += sh->counts[i].bytes;
		c->calls += sh->counts[i].calls;
		c->touched |= sh->counts[i].touched;
		c->est_bytes += sh->counts[i].est_bytes;
		c->est_calls += sh->counts[i].est_calls;
	}
	ai->free_unknown += sh->free_unknown;
	ai->realloc_unknown += sh->realloc_unknown;
	allocinfo_free(sh);
	free(sh);
}

/* A scaled count, rounded to the nearest integer, half away from 0. */
static int64_t est_round(double v)
{
	bool overflow = false;
	uint64_t u = kmt_sample_round(v < 0 ? -v : v, &overflow);

	if (overflow || u > INT64_MAX)
		return v < 0 ? INT64_MIN : INT64_MAX;
	return v < 0 ? -(int64_t)u : (int64_t)u;
}

/* In a sampled trace, the estimates, rounded once. */
static void allocinfo_on_end(void *ctx, const struct replay_run *run,
			     uint64_t last_ts)
{
	struct allocinfo *ai = ctx;
	size_t i;

	(void)run;
	(void)last_ts;
	for (i = 0; ai->period && i < ai->nr; i++) {
		ai->counts[i].bytes = est_round(ai->counts[i].est_bytes);
		ai->counts[i].calls = est_round(ai->counts[i].est_calls);
	}
}

const struct replay_consumer allocinfo_consumer = {
	.name		= "allocinfo",
	.needs		= REPLAY_ALLOC | REPLAY_FREE | REPLAY_RESIZE | REPLAY_STRAY |
			  REPLAY_BACKING | REPLAY_END | REPLAY_SPLIT,
	.end		= allocinfo_on_end,
	.alloc		= allocinfo_on_alloc,
	.free		= allocinfo_on_free,
	.resize		= allocinfo_on_resize,
	.stray		= allocinfo_on_stray,
	.backing	= allocinfo_on_backing,
	.split		= allocinfo_on_split,
	.fork		= allocinfo_fork,
	.merge		= allocinfo_merge,
};

void allocinfo_free(struct allocinfo *ai)
{
	kmt_map_free(&ai->tag_map);
	kmt_map_free(&ai->origin_map);
	free(ai->tags);
	free(ai->counts);
	live_free(&ai->backing);
	memset(ai, 0, sizeof(*ai));
}
