/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace livetab - the allocations live, by family and pointer
 *
 * The table the pass pairs allocations with their frees in (replay.c),
 * and any consumer that pairs events of its own (allocinfo's backing
 * pages).  Lookups are inline: the pass does one per event.
 */
#ifndef __KMEMTRACE_LIVETAB_H
#define __KMEMTRACE_LIVETAB_H

#include <stddef.h>
#include <stdint.h>
#include <linux/kmemtrace.h>

#include "hash.h"

/*
 * A live allocation: memory allocated, and not freed yet; also a slot of
 * the live table, empty when @family is 0.
 */
struct live_obj {
	uint64_t ptr;
	uint64_t ts;		/* when it was allocated */
	uint64_t bytes;		/* bytes allocated, after reallocs */
	uint64_t bytes0;	/* bytes allocated by the alloc: its sample weight's */
	uint32_t site;		/* the run's site index (replay_site_key()) */
	uint32_t pid;
	uint32_t cache_id;
	uint32_t origin;	/* its origin (replay_origin()): tag and stack */
	uint16_t cpu;
	uint8_t family;		/* pair_type() of the alloc, 0 for an empty slot */
	uint8_t type;
	uint8_t selected;	/* whether the filters selected the alloc */
	uint8_t uncharged;	/* flagged uncharged: allocinfo does not count it */
	uint8_t untracked;	/* flagged untracked: its free is never recorded */
};

/*
 * The live allocations by family and pointer, in an open-addressing
 * table: linear probing from the hash of both, removal by moving the
 * following slots back, at most a quarter full.  An allocation is in its
 * slot, so that looking it up touches one place of memory, which the
 * pass fetches ahead of time.
 */
struct live_table {
	struct live_obj *slots;
	unsigned int bits;
	size_t nr;
};

/**
 * live_free() - release a live table
 * @lt: the table, left empty
 */
void live_free(struct live_table *lt);

/**
 * live_grow() - double a live table (or make its first slots)
 * @lt: the table; its slots move
 */
void live_grow(struct live_table *lt);

/*
 * Slab objects pair whatever API typed them: a kmem_cache merged into a
 * kmalloc cache, or a kmalloc() from a kmem_buckets cache, is allocated
 * with one type and freed by kfree() with the other.
 */
static inline unsigned int pair_type(unsigned int type)
{
	return type == KMEMTRACE_TYPE_CACHE ? KMEMTRACE_TYPE_KMALLOC : type;
}

static inline size_t live_hash(unsigned int family, uint64_t ptr, unsigned int bits)
{
	return kmt_hash64(ptr ^ family, bits);
}

/*
 * Make room for @n more allocations, so that the slots stay where they
 * are while they are added: the table is at most a quarter full, and
 * the runs after a removed slot are short.
 */
static inline void live_reserve(struct live_table *lt, size_t n)
{
	while (!lt->bits || lt->nr + n > (size_t)1 << (lt->bits - 2))
		live_grow(lt);
}

/*
 * The slot of memory @family, @ptr, from its home slot @slot on: live, or
 * the empty slot to fill in.
 */
static inline struct live_obj *live_probe(struct live_table *lt, size_t slot,
					  unsigned int family, uint64_t ptr)
{
	size_t mask = ((size_t)1 << lt->bits) - 1;
	struct live_obj *o;

	for (;; slot = (slot + 1) & mask) {
		o = &lt->slots[slot];
		if (!o->family || (o->ptr == ptr && o->family == family))
			return o;
	}
}

/* The live allocation of memory @family, @ptr, or NULL. */
static inline struct live_obj *live_find(struct live_table *lt,
					 unsigned int family, uint64_t ptr)
{
	struct live_obj *o;

	if (!lt->nr)
		return NULL;
	o = live_probe(lt, live_hash(family, ptr, lt->bits), family, ptr);
	return o->family ? o : NULL;
}

/* End the live allocation in slot @o. */
static inline void live_remove(struct live_table *lt, struct live_obj *o)
{
	size_t mask = ((size_t)1 << lt->bits) - 1;
	size_t hole = o - lt->slots, slot = hole, home;
	struct live_obj *s;

	/* Move back every slot that probed past the hole. */
	for (;;) {
		slot = (slot + 1) & mask;
		s = &lt->slots[slot];
		if (!s->family)
			break;
		home = live_hash(s->family, s->ptr, lt->bits);
		if (((slot - home) & mask) < ((slot - hole) & mask))
			continue;
		lt->slots[hole] = *s;
		hole = slot;
	}
	lt->slots[hole].family = 0;
	lt->nr--;
}

#endif /* __KMEMTRACE_LIVETAB_H */
