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
 */
struct keysums {
	bool by_gfp;
	bool by_node;
	struct site_table gfps;
	struct site_table nodes;
	bool overflow;
};

/* Its callbacks; the context is a struct keysums, zeroed but @by_*. */
extern const struct replay_consumer keysums_consumer;

/**
 * keysums_free() - release what the pass added up
 * @ks: the sums
 */
void keysums_free(struct keysums *ks);

#endif /* __KMEMTRACE_KEYSUMS_H */
