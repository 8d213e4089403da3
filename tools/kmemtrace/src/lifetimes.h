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

/* A growable array of numbers: the lifetimes of one site. */
struct u64_vec {
	uint64_t *v;
	size_t nr;
	size_t size;
};

/**
 * struct lifetimes - the lifetimes of the selected allocations freed
 * @sites: per site index of the run, its lifetimes, sorted once the pass
 *	   ended; sites without a free have none
 * @nr: number of @sites
 */
struct lifetimes {
	struct u64_vec *sites;
	size_t nr;
};

/* Its callbacks; the context is a zeroed struct lifetimes. */
extern const struct replay_consumer lifetimes_consumer;

/**
 * lifetimes_free() - release what the pass added up
 * @lt: the lifetimes, left empty
 */
void lifetimes_free(struct lifetimes *lt);

#endif /* __KMEMTRACE_LIFETIMES_H */
