/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace sitetab - sums by key: per call site, cache, gfp_flags or node
 *
 * One table type, a struct kmt_map from the key to an index in an array
 * that grows, for the engine's sums and the consumers' alike.
 */
#ifndef __KMEMTRACE_SITETAB_H
#define __KMEMTRACE_SITETAB_H

#include <stdint.h>
#include <stddef.h>

#include "hash.h"

/*
 * What happened at one call site (allocations made there, frees done
 * there), or to one cache.  Sums saturate at UINT64_MAX (add_u64_sat()),
 * which the views show as overflow.
 */
struct site {
	uint64_t key;		/* call site address, or cache id */
	uint64_t allocs;	/* selected allocations */
	uint64_t req;		/* their bytes requested */
	uint64_t alloc;		/* their bytes allocated */
	uint64_t frees;		/* frees of them */
	uint64_t xcpu;		/* of those, on another CPU than the alloc */
	uint64_t life;		/* sum of their lifetimes */
	uint64_t mismatched;	/* frees of them by another API */
	uint64_t unknown;	/* frees here of memory not allocated in the trace */
	uint64_t live;		/* of them, still allocated at the end */
	uint64_t live_bytes;	/* their bytes */
	uint8_t selected;	/* SITE_* */
	uint8_t unknown_types;	/* bit per type of @unknown frees */
};

#define SITE_UNKNOWN	0
#define SITE_SELECTED	1
#define SITE_SKIPPED	2

/* Sites (or caches) by key, in the order first seen. */
struct site_table {
	struct kmt_map map;
	struct site *sites;
	size_t nr;
	size_t size;
};

/**
 * site_add() - add a key to a table
 * @tab: the table
 * @key: the key, not in @tab
 *
 * Return: the index of its zeroed entry.
 */
uint32_t site_add(struct site_table *tab, uint64_t key);

/**
 * site_index() - the index of a key in a table, added if new
 * @tab: the table
 * @key: the key
 *
 * Return: the index; entries stay at their index as the table grows.
 */
static inline uint32_t site_index(struct site_table *tab, uint64_t key)
{
	uint32_t i;

	if (kmt_map_find(&tab->map, key, &i))
		return i;
	return site_add(tab, key);
}

/**
 * site_get() - the entry of a key in a table, added if new
 * @tab: the table
 * @key: the key
 *
 * Return: the entry, valid until the next one is added.
 */
static inline struct site *site_get(struct site_table *tab, uint64_t key)
{
	/* First the index: adding a key may move the entries. */
	uint32_t i = site_index(tab, key);

	return &tab->sites[i];
}

/**
 * site_table_free() - release a table
 * @tab: the table, left empty
 */
void site_table_free(struct site_table *tab);

#endif /* __KMEMTRACE_SITETAB_H */
