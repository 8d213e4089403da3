/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace lifetimes - every alloc-to-free time, per call site
 *
 * A consumer of the pass (replay.h), for report's lifetimes view: it
 * keeps each lifetime, so that the view's percentiles are exact.
 */
#ifndef __KMEMTRACE_LIFETIMES_H
#define __KMEMTRACE_LIFETIMES_H

#include <stddef.h>
#include <stdint.h>

#include "replay.h"

/*
 * A growable array of numbers: the lifetimes of one site; in a sampled
 * trace, with the weight of each (@w, in the same order, NULL otherwise)
 * and, once sorted, their sum in that order (@total).
 */
struct u64_vec {
	uint64_t *v;
	size_t nr;
	size_t size;
	double *w;
	double total;
};

/**
 * struct lifetimes - the lifetimes of the selected allocations freed
 * @sites: per site index of the run, its lifetimes, sorted once the pass
 *	   ended; sites without a free have none
 * @nr: number of @sites
 * @period: the sample_period of the trace (sample.h), set before the
 *	    pass: N keeps each lifetime with the weight of its alloc event
 */
struct lifetimes {
	struct u64_vec *sites;
	size_t nr;
	uint32_t period;
};

/* Its callbacks; the context is a zeroed struct lifetimes, but @period. */
extern const struct replay_consumer lifetimes_consumer;

/**
 * lifetimes_free() - release what the pass added up
 * @lt: the lifetimes, left empty
 */
void lifetimes_free(struct lifetimes *lt);

#endif /* __KMEMTRACE_LIFETIMES_H */
