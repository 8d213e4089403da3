/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace stackstat - the allocations of each call site, by stack
 *
 * A consumer of the pass (replay.h), for report's stacks view.
 */
#ifndef __KMEMTRACE_STACKSTAT_H
#define __KMEMTRACE_STACKSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hash.h"
#include "replay.h"

/* The allocations of one call site with one stack. */
struct stack_stat {
	uint32_t site;		/* the run's site index */
	uint32_t stack;		/* the stack_id */
	uint64_t allocs;
	uint64_t bytes;
	double est_allocs;	/* in a sampled trace, @allocs during the pass */
	double est_bytes;	/* and @bytes */
};

/**
 * struct stackstat - the selected allocations by call site and stack
 * @stats: per call site and stack, in the order first seen
 * @nr: number of @stats
 * @size: room in @stats
 * @map: site index << 32 | stack to index in @stats
 * @allocs: allocations with a stack
 * @bytes: their bytes
 * @nostack: allocations without one
 * @lost: of those, flagged stack_lost (the kernel's depot was full)
 * @overflow: a byte sum saturated (add_u64_sat())
 * @period: the sample_period of the trace (sample.h), set before the
 *	    pass: N counts each allocation with the weight of its event,
 *	    in doubles (@est), rounded into the counts at the end
 * @est: @allocs, @bytes, @nostack and @lost during the pass of a sampled
 *	 trace
 */
struct stackstat {
	struct stack_stat *stats;
	size_t nr;
	size_t size;
	struct kmt_map map;
	uint64_t allocs;
	uint64_t bytes;
	uint64_t nostack;
	uint64_t lost;
	bool overflow;
	uint32_t period;
	struct {
		double allocs;
		double bytes;
		double nostack;
		double lost;
	} est;
};

/* Its callbacks; the context is a zeroed struct stackstat, but @period. */
extern const struct replay_consumer stackstat_consumer;

/**
 * stackstat_free() - release what the pass added up
 * @ss: the sums, left empty
 */
void stackstat_free(struct stackstat *ss);

#endif /* __KMEMTRACE_STACKSTAT_H */
