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

/**
 * struct sitesums - the sums of the selected allocations
 * @sites: once the pass ended, per site index of the run (replay_site_key()),
 *	   in their order; during it, per site index, without keys
 * @caches: per cache id
 * @overflow: a byte sum saturated (add_u64_sat())
 * @unknown: per call site of a free of memory not allocated in the
 *	     trace, @unknown and @unknown_types, during the pass
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
