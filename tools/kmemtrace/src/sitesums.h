/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace sitesums - what the selected allocations did, per call site
 * and per cache
 *
 * A consumer of the pass (replay.h), for report's summary, sites, caches
 * and frees views: per call site and per cache, the allocations and their
 * bytes, the frees of them, on another CPU, by another API, their
 * lifetimes, the frees of memory not allocated in the trace, and what is
 * still allocated at the end.
 */
#ifndef __KMEMTRACE_SITESUMS_H
#define __KMEMTRACE_SITESUMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay.h"
#include "sitetab.h"

/* Sums of weights, and of weights times bytes or ns: struct site's, scaled. */
struct site_est {
	double allocs;
	double req;
	double alloc;
	double frees;
	double xcpu;
	double life;
	double mismatched;
	double live;
	double live_bytes;
};

/**
 * struct sitesums - the sums of the selected allocations
 * @sites: once the pass ended, per site index of the run (replay_site_key()),
 *	   in their order; during it, per site index, without keys
 * @caches: per cache id
 * @overflow: a byte sum saturated (add_u64_sat())
 * @unknown: per call site of a free of memory not allocated in the
 *	     trace, @unknown and @unknown_types, during the pass
 * @period: the sample_period of the trace (sample.h), set before the
 *	    pass: 0 adds up the events as they are; N scales each
 *	    allocation, its free and what is live of it by the weight of
 *	    its alloc event, 1 / (1 - exp(-bytes_alloc / N)), and rounds
 *	    the sums once, at the end (the frees of memory not allocated
 *	    in the trace, whose weight is unknown, are counted as they are)
 * @est: the scaled sums per site index, during the pass of a sampled trace
 * @nr_est: room in @est
 * @cache_est: the same per index of @caches
 * @nr_cache_est: room in @cache_est
 * @live: in a sampled trace, once the pass ended: the weights of the
 *	  selected allocations live at the end, rounded
 * @live_bytes: the same of their bytes
 * @live_est: @live during the pass
 * @live_bytes_est: @live_bytes during the pass
 *
 * Use sitesums_frees_consumer for all the sums, sitesums_consumer when
 * only the allocations and their bytes are looked at (the summary): it
 * costs the pass less, and leaves the other sums 0.
 */
struct sitesums {
	struct site_table sites;
	struct site_table caches;
	bool overflow;
	struct site_table unknown;
	uint32_t period;
	struct site_est *est;
	size_t nr_est;
	struct site_est *cache_est;
	size_t nr_cache_est;
	uint64_t live;
	uint64_t live_bytes;
	double live_est;
	double live_bytes_est;
};

/*
 * Their callbacks; the context is a zeroed struct sitesums.  The first
 * adds up the allocations and their bytes only: the other sums stay 0.
 */
extern const struct replay_consumer sitesums_consumer;
extern const struct replay_consumer sitesums_frees_consumer;

/**
 * sitesums_free() - release what the pass added up
 * @ss: the sums, left empty
 */
void sitesums_free(struct sitesums *ss);

#endif /* __KMEMTRACE_SITESUMS_H */
