/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace replay - the pass over a trace, and its consumers
 *
 * replay_run() reads a trace, replays its events in time order, pairing
 * allocations with their frees, and calls the consumers given it for what
 * each asked for (struct replay_consumer).  See replay.c.
 */
#ifndef __KMEMTRACE_REPLAY_H
#define __KMEMTRACE_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "comms.h"
#include "hash.h"
#include "livetab.h"
#include "report.h"
#include "sitetab.h"
#include "stacks.h"
#include "symbols.h"
#include "tags.h"
#include "trace.h"

struct replay_run;

/*
 * Where an allocation came from: its codetag and its stack.  Origin 0 is
 * neither, that of every event of a trace without them.
 */
struct origin {
	uint64_t tag;		/* the tag of the alloc, 0 for none */
	uint32_t stack;		/* its stack_id, 0 for none */
	uint32_t tag_index;	/* index of @tag in origin_table.tags, 0 for none */
};

/* The origins by index and the tags seen, as first seen; 0 is none. */
struct origin_table {
	struct origin *origins;
	size_t nr;
	size_t size;
	struct kmt_map map;
	uint64_t *tags;
	size_t nr_tags;
	size_t size_tags;
	struct kmt_map tag_map;
};

/**
 * struct replay_remap - the run's indexes of those of a shard
 * @site: the run's site index of each of the shard's (live_obj.site)
 * @nr_sites: the number of the shard's site indexes
 * @origin: the run's origin of each of the shard's (live_obj.origin)
 */
struct replay_remap {
	const uint32_t *site;
	size_t nr_sites;
	const uint32_t *origin;
};

/* Allocations with one gfp_flags value, or on one node. */
struct gfp_stat {
	uint64_t key;
	uint64_t allocs;
	uint64_t bytes;
};

/* Buckets of log2 histograms: bucket B holds [2^B, 2^(B+1)), 0 also 0. */
#define LOG2_BUCKETS	64

static inline unsigned int log2_bucket(uint64_t v)
{
	return v < 2 ? 0 : 63 - __builtin_clzll(v);
}

/**
 * enum replay_need - the callbacks of a consumer the pass calls
 * @REPLAY_ALLOC: @alloc, for each selected allocation
 * @REPLAY_FREE: @free, for each free of a selected allocation
 * @REPLAY_RESIZE: @resize, for each resize of a selected allocation
 * @REPLAY_STRAY: @stray, for each free or realloc of memory not live in its
 *		  family
 * @REPLAY_BACKING: @backing, for each backing or unpaired event
 * @REPLAY_TIME: @time, before each event of the --time window, in the
 *		 thread that merges the streams
 * @REPLAY_END: @live for each selected allocation live at the end, then @end
 * @REPLAY_BATCH: @batch, before each batch of events a shard replays
 * @REPLAY_SPLIT: @split, for each split of a selected page allocation
 */
enum replay_need {
	REPLAY_ALLOC	= 1u << 0,
	REPLAY_FREE	= 1u << 1,
	REPLAY_RESIZE	= 1u << 2,
	REPLAY_STRAY	= 1u << 3,
	REPLAY_BACKING	= 1u << 4,
	REPLAY_TIME	= 1u << 5,
	REPLAY_END	= 1u << 6,
	REPLAY_BATCH	= 1u << 7,
	REPLAY_SPLIT	= 1u << 8,
};

/* The number of enum replay_need bits. */
#define REPLAY_NEEDS	9

/**
 * struct replay_consumer - what a view or an exporter wants of the pass
 * @name: its name, for messages
 * @needs: the callbacks it has, enum replay_need bits
 * @alloc: a selected allocation @o, made by @ev
 * @free: the free @ev of selected allocation @o, @life ns after it
 * @resize: selected allocation @o resized to @bytes by realloc @ev; @ev is
 *	    NULL and @bytes 0 when its memory is allocated again without a
 *	    free
 * @stray: the free or realloc @ev of memory not live in its family
 *	   (kmalloc and cache, pages, percpu, vmalloc); for a free, @o is the
 *	   selected allocation of another family it frees (a free by another
 *	   API), or NULL; @selected tells, for a free of memory live in no
 *	   family, whether the filters select it (false for the others)
 * @backing: the backing or unpaired event @ev; @selected tells whether the
 *	     filters select it, for a backing alloc (false for the others)
 * @time: the next event, before it is replayed: its time, and what it
 *	  is, whether the filters select it or not; returns true to have
 *	  @mark called with it, on the context registered and on each
 *	  shard's, in the order of the events each shard replays
 * @mark: a point in time @time asked for, before @ev is replayed
 * @live: selected allocation @o, still live at the end (may be NULL)
 * @end: the pass is over; @last_ts is the time of its last event
 * @batch: the site indexes of the next @n events, 0 for those not
 *	   allocations, before they are replayed: for a consumer to fetch
 *	   its entries of those call sites into the CPU caches ahead
 * @fork: a new context for one shard of the events, set up as @ctx and
 *	  empty, for the callbacks of the allocations (all but @time, @live
 *	  and @end); NULL when the consumer cannot be sharded
 * @merge: add what shard context @shard added up to @ctx, by key, and
 *	   release @shard; the site and origin indexes @shard saw are the
 *	   shard's, @map gives the run's
 * @split: selected page allocation @o split in place by @ev into @pieces
 *	   pieces: @o is the first now, its bytes a piece's; the others are
 *	   live allocations like it at the following addresses, each freed
 *	   on its own (@free with that piece), and no callback sees them
 *	   made.  What a consumer counts by bytes needs nothing: the pieces'
 *	   bytes add up to the allocation's.
 *
 * Each callback gets the context registered with the consumer, and the
 * run only through @end's @run, read only (replay_site_key(), ...).  A
 * consumer never sees the state of another.
 *
 * With report_params.jobs N above 1, the events are sharded by pointer
 * into N shards (the pieces of a split with their allocation): every
 * event of a pointer goes to one shard, which
 * replays them in the order of the pass, a block at a time, in one
 * thread at a time (one of N - 1, or the merging thread when it is
 * ahead).  @time (and @mark on the context registered) runs in the
 * thread that merges the streams, the allocation callbacks and @mark on
 * each shard's context in the thread replaying the shard's block;
 * @merge adds the shards up, in their order, before @live and @end,
 * which run once.
 * A consumer with allocation callbacks and no @fork makes the pass run
 * in one thread; so does one with @time and allocation callbacks and no
 * @mark.  Results that depend on the order across pointers (the live
 * bytes over time) come from @mark: the context registered decides when,
 * each shard takes its part of the state then.
 */
struct replay_consumer {
	const char *name;
	unsigned int needs;
	void (*alloc)(void *ctx, const struct kmemtrace_event *ev,
		      const struct live_obj *o);
	void (*free)(void *ctx, const struct kmemtrace_event *ev,
		     const struct live_obj *o, uint64_t life);
	void (*resize)(void *ctx, const struct kmemtrace_event *ev,
		       const struct live_obj *o, uint64_t bytes);
	void (*stray)(void *ctx, const struct kmemtrace_event *ev,
		      const struct live_obj *o, bool selected);
	void (*backing)(void *ctx, const struct kmemtrace_event *ev,
			bool selected);
	bool (*time)(void *ctx, const struct kmemtrace_event *ev);
	void (*mark)(void *ctx, const struct kmemtrace_event *ev);
	void (*live)(void *ctx, const struct live_obj *o);
	void (*end)(void *ctx, const struct replay_run *run, uint64_t last_ts);
	void (*batch)(void *ctx, const uint32_t *site, size_t n);
	void *(*fork)(void *ctx);
	void (*merge)(void *ctx, void *shard, const struct replay_remap *map);
	void (*split)(void *ctx, const struct kmemtrace_event *ev,
		      const struct live_obj *o, uint64_t pieces);
};

/**
 * struct replay_use - a consumer with its context, as a run is given it
 * @c: the consumer
 * @ctx: what its callbacks get
 */
struct replay_use {
	const struct replay_consumer *c;
	void *ctx;
};

#define REPLAY_MAX_CONSUMERS	8

/* The consumers of one callback, in the order registered. */
struct replay_list {
	const struct replay_use *u[REPLAY_MAX_CONSUMERS];
	unsigned int nr;
};

/* Everything one pass over the events adds up. */
struct report {
	const struct report_params *p;
	bool overflow;		/* a byte total saturated (add_u64_sat()) */
	uint64_t other_period;	/* events not of the trace's sample_period */
	uint64_t count[KMT_KIND_MAX + 1][KMEMTRACE_TYPE_VMALLOC + 1];
	size_t events;
	uint64_t first_ts;
	uint64_t last_ts;
	uint64_t backing_allocs;
	uint64_t backing_bytes;
	uint64_t backing_frees;
	uint64_t unpaired;
	uint64_t selected;
	uint64_t double_allocs;
	uint64_t split_unknown;		/* page splits of no live allocation */
	uint64_t live_selected;		/* selected allocations live at the end */
	uint64_t live_selected_bytes;	/* their bytes, saturating */
	struct live_table live;
	struct site_table sites;	/* the call sites, by index: keys only */
	struct kmt_symcache names;
	const struct kmt_caches *caches_file;
	const struct kmt_comms *comms;
	const struct kmt_tags *tags;
	struct origin_table og;
	const struct kmt_stacks *stacks;
	struct replay_list on[REPLAY_NEEDS];	/* per enum replay_need bit */
};

/**
 * struct replay_run - a trace read and replayed
 * @t: the trace
 * @syms: its symbols
 * @caches: its caches file
 * @comms: its comms file
 * @tags: its tags file
 * @stacks: its stacks file
 * @st: statistics of its streams
 * @errors: problems found in its streams
 * @r: what the pass added up
 */
struct replay_run {
	struct kmt_trace t;
	struct kmt_symtab syms;
	struct kmt_caches caches;
	struct kmt_comms comms;
	struct kmt_tags tags;
	struct kmt_stacks stacks;
	struct kmt_stats *st;
	size_t errors;
	struct report r;
};

/**
 * replay_run() - read a trace and replay its events to consumers
 * @run: the run to fill
 * @p: the parameters
 * @uses: the consumers, besides the sums of the report views
 * @nr_uses: their number, up to REPLAY_MAX_CONSUMERS
 *
 * Return: 0 on success, 1 on failure (reported with kmt_err()).
 */
int replay_run(struct replay_run *run, struct report_params *p,
	       const struct replay_use *uses, size_t nr_uses);

/**
 * replay_no_valid_event() - say when a trace has problems and no event
 * @run: the run
 *
 * Return: true, after an error message, if no event of the trace is valid
 * but some are not: there is nothing to show.
 */
bool replay_no_valid_event(const struct replay_run *run);

/**
 * replay_mixed_periods() - say when a trace mixes sample periods
 * @run: the run, ended
 *
 * Every event of a recording has its sample_period (report_params.
 * sample_period, that of the trace's first event): an event of another
 * comes from another recording, and its weight would be wrong in every
 * sum.  Views and exporters refuse such a trace.
 *
 * Return: true, after an error message, if some events of the pass had
 * another sample_period than the trace's.
 */
bool replay_mixed_periods(const struct replay_run *run);

/**
 * replay_run_free() - release a run
 * @run: the run
 */
void replay_run_free(struct replay_run *run);

/**
 * replay_free_mismatched() - whether a free is by another API than its alloc
 * @ev: the free
 * @o: the allocation it frees
 *
 * kmalloc and kmem_cache allocations pair (slab merging), but a
 * kmem_cache allocation only with a free of its cache.
 *
 * Return: true if @ev frees @o by another API or cache than @o's.
 */
static inline bool replay_free_mismatched(const struct kmemtrace_event *ev,
					  const struct live_obj *o)
{
	return o->type != ev->type ||
	       (o->type == KMEMTRACE_TYPE_CACHE && o->cache_id != ev->cache_id);
}

/**
 * replay_live_next() - the next allocation live at the end of a pass
 * @r: what the pass added up
 * @pos: a cursor, 0 for the first
 *
 * Return: the allocation, selected by the filters or not, in the order of
 * the live table, or NULL after the last.
 */
static inline const struct live_obj *replay_live_next(const struct report *r,
						      size_t *pos)
{
	size_t n = r->live.nr ? (size_t)1 << r->live.bits : 0;
	const struct live_obj *o;

	while (*pos < n) {
		o = &r->live.slots[(*pos)++];
		if (o->family)
			return o;
	}
	return NULL;
}

/**
 * replay_still_allocated() - whether a live allocation counts at the end
 * @o: an allocation of the live table
 *
 * One the filters left out does not, nor a sampled one flagged untracked:
 * the kernel had no room to remember it, so its free, if any, was not
 * recorded, and counting it would leave it allocated for ever.
 *
 * Return: true if @o is still allocated for the views and consumers.
 */
static inline bool replay_still_allocated(const struct live_obj *o)
{
	return o->selected && !o->untracked;
}

/**
 * replay_nr_sites() - the number of call sites a run has seen
 * @run: the run
 *
 * Return: the number of sites; their indexes (live_obj.site) are below it.
 */
static inline size_t replay_nr_sites(const struct replay_run *run)
{
	return run->r.sites.nr;
}

/**
 * replay_site_key() - the call site address of a site index
 * @run: the run
 * @si: the index, below replay_nr_sites()
 *
 * Return: the address.
 */
static inline uint64_t replay_site_key(const struct replay_run *run, uint32_t si)
{
	return run->r.sites.sites[si].key;
}

/**
 * replay_origin() - the codetag and stack of an allocation
 * @run: the run, ended
 * @origin: the allocation's origin index (live_obj.origin)
 *
 * Return: the origin.
 */
static inline const struct origin *replay_origin(const struct replay_run *run,
						 uint32_t origin)
{
	return &run->r.og.origins[origin];
}

/**
 * report_cache_name() - the name of a cache, or "cache#ID"
 * @r: the report
 * @id: the cache id
 * @buf: where to write "cache#ID"
 * @len: size of @buf
 *
 * Return: the name, in @buf or in the caches file.
 */
const char *report_cache_name(const struct report *r, uint64_t id, char *buf,
			      size_t len);

#endif /* __KMEMTRACE_REPLAY_H */
