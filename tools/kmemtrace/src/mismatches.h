/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace mismatches - frees by another API or cache than the alloc
 *
 * A consumer of the pass (replay.h), for report's frees view: each free
 * of a selected allocation by another API (a vmalloc() area freed by
 * kfree(), ...) or of another cache, as it happened.
 */
#ifndef __KMEMTRACE_MISMATCHES_H
#define __KMEMTRACE_MISMATCHES_H

#include <stddef.h>
#include <stdint.h>

#include "replay.h"

/* A free by another API than the alloc, or of another cache. */
struct mismatch {
	uint32_t alloc_site;	/* the run's site index of the alloc */
	uint32_t alloc_cache;	/* 0 but for type cache */
	uint64_t free_addr;	/* the call site of the free */
	uint32_t free_cache;
	uint8_t alloc_type;
	uint8_t free_type;
	uint64_t count;
};

/**
 * struct mismatches - the mismatched frees, in the order they happened
 * @v: the frees, each of count 1
 * @nr: number of @v
 * @size: room in @v
 */
struct mismatches {
	struct mismatch *v;
	size_t nr;
	size_t size;
};

/* Its callbacks; the context is a zeroed struct mismatches. */
extern const struct replay_consumer mismatches_consumer;

/**
 * mismatches_free() - release what the pass added up
 * @m: the frees, left empty
 */
void mismatches_free(struct mismatches *m);

#endif /* __KMEMTRACE_MISMATCHES_H */
