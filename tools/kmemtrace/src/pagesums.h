/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace pagesums - page allocations and frees by order and migrate type
 *
 * A consumer of the pass (replay.h), for report's pages view: every page
 * event of the --time window, backing pages included, whatever the
 * other filters select.
 */
#ifndef __KMEMTRACE_PAGESUMS_H
#define __KMEMTRACE_PAGESUMS_H

#include <stdbool.h>
#include <stdint.h>

#include "replay.h"

/* Orders and migrate types from these up share the last row and column. */
#define PAGES_MAX_ORDER		16
#define PAGES_MAX_MT		8

/**
 * struct pagesums - the page events by order
 * @allocs: allocations, by order and migrate type
 * @frees: frees, by order
 * @bytes: bytes allocated, by order
 * @overflow: a byte sum saturated (add_u64_sat())
 * @period: the sample_period of the trace (sample.h), set before the
 *	    pass: N weighs each event by its bytes (a page free knows its
 *	    size, so it weighs as its alloc), in @est, rounded at the end
 * @est: @allocs, @frees and @bytes during the pass of a sampled trace
 */
struct pagesums {
	uint64_t allocs[PAGES_MAX_ORDER][PAGES_MAX_MT];
	uint64_t frees[PAGES_MAX_ORDER];
	uint64_t bytes[PAGES_MAX_ORDER];
	bool overflow;
	uint32_t period;
	struct {
		double allocs[PAGES_MAX_ORDER][PAGES_MAX_MT];
		double frees[PAGES_MAX_ORDER];
		double bytes[PAGES_MAX_ORDER];
	} est;
};

/* Its callbacks; the context is a zeroed struct pagesums, but @period. */
extern const struct replay_consumer pagesums_consumer;

#endif /* __KMEMTRACE_PAGESUMS_H */
