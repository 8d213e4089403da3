/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace keysums - the allocations by gfp_flags and by node
 *
 * A consumer of the pass (replay.h), for report's gfp and nodes views.
 */
#ifndef __KMEMTRACE_KEYSUMS_H
#define __KMEMTRACE_KEYSUMS_H

#include <stdbool.h>

#include "replay.h"
#include "sitetab.h"

/**
 * struct keysums - the selected allocations by gfp_flags and node
 * @by_gfp: count them by gfp_flags, into @gfps
 * @by_node: count them by the node asked for, into @nodes
 * @gfps: allocs and bytes allocated per gfp_flags value
 * @nodes: allocs and bytes allocated per node (-1 as 0xffffffff)
 * @overflow: a byte sum saturated (add_u64_sat())
 * @period: the sample_period of the trace (sample.h), set before the
 *	    pass: N counts each allocation with the weight of its event,
 *	    in doubles per index of @gfps and @nodes, rounded at the end
 * @gfp_est: the weights and weighted bytes per index of @gfps, two a key
 * @nr_gfp_est: room in @gfp_est, in keys
 * @node_est: the same per index of @nodes
 * @nr_node_est: room in @node_est
 */
struct keysums {
	bool by_gfp;
	bool by_node;
	struct site_table gfps;
	struct site_table nodes;
	bool overflow;
	uint32_t period;
	double *gfp_est;
	size_t nr_gfp_est;
	double *node_est;
	size_t nr_node_est;
};

/* Its callbacks; the context is a struct keysums, zeroed but @by_*, @period. */
extern const struct replay_consumer keysums_consumer;

/**
 * keysums_free() - release what the pass added up
 * @ks: the sums
 */
void keysums_free(struct keysums *ks);

#endif /* __KMEMTRACE_KEYSUMS_H */
