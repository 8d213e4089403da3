/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace allocinfo - the change of /proc/allocinfo over a trace
 *
 * A consumer of the pass (replay.h), for report's allocinfo view: per
 * codetag, the calls and bytes its allocations add to /proc/allocinfo
 * and their frees take back, as lib/alloc_tag.c counts them: slab
 * pages under mm/slub.c's tag and a vmalloc area's pages under the
 * caller's, from the backing events, which it pairs in a live table of
 * its own; nothing for memory flagged uncharged.
 */
#ifndef __KMEMTRACE_ALLOCINFO_H
#define __KMEMTRACE_ALLOCINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hash.h"
#include "livetab.h"
#include "replay.h"

/* The change of one codetag's /proc/allocinfo counters. */
struct ai_count {
	int64_t bytes;
	int64_t calls;
	bool touched;		/* an alloc or realloc of the trace carried it */
	double est_bytes;	/* in a sampled trace, @bytes during the pass */
	double est_calls;	/* and @calls */
};

/**
 * struct allocinfo - the codetags' counters over the pass
 * @filtering: a filter but --time selects allocations (set before the pass)
 * @tag_map: a tag's address to its index in @tags and @counts
 * @tags: the tags by index, in the order first seen; index 0 is no tag
 * @counts: their counters
 * @nr: number of @tags
 * @size: room in @tags and @counts
 * @origin_map: the run's origin index of an allocation to its tag index
 * @backing: the backing allocations live, their tag index in .origin
 * @free_unknown: frees without an alloc in the trace
 * @realloc_unknown: reallocs without one
 * @period: the sample_period of the trace (sample.h), set before the
 *	    pass: N counts each allocation, its free and its resizes with
 *	    the weight of its alloc event, in @est_bytes and @est_calls,
 *	    rounded into @bytes and @calls at the end
 */
struct allocinfo {
	bool filtering;
	struct kmt_map tag_map;
	uint64_t *tags;
	struct ai_count *counts;
	size_t nr;
	size_t size;
	struct kmt_map origin_map;
	struct live_table backing;
	uint64_t free_unknown;
	uint64_t realloc_unknown;
	uint32_t period;
};

/*
 * Its callbacks; the context is a zeroed struct allocinfo, but @filtering
 * and @period.
 */
extern const struct replay_consumer allocinfo_consumer;

/**
 * allocinfo_free() - release what the pass added up
 * @ai: the counters, left empty
 */
void allocinfo_free(struct allocinfo *ai);

#endif /* __KMEMTRACE_ALLOCINFO_H */
