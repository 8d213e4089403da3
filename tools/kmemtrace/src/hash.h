/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace - a hash map from 64-bit keys to small indices
 */
#ifndef __KMEMTRACE_HASH_H
#define __KMEMTRACE_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * kmt_hash64() - hash a 64-bit key
 * @key: the key
 * @bits: number of bits of the result
 *
 * Return: the hash, below 1 << @bits.  Multiplicative (the kernel's
 * hash_64()), so keys that differ only in their low bits, as aligned
 * pointers do, spread too.
 */
static inline size_t kmt_hash64(uint64_t key, unsigned int bits)
{
	return (key * 0x61c8864680b583ebULL) >> (64 - bits);
}

/**
 * kmt_shard() - the shard of a pointer, of @nr
 * @ptr: the pointer
 * @nr: number of shards
 *
 * A hash independent of kmt_hash64()'s bits, which live tables index
 * with: with those, a shard's pointers would all hash to one part of
 * its live table.  (A multiplication by 2^64 minus kmt_hash64()'s
 * constant, the golden ratio's, did exactly that: the top bits of its
 * products are those of kmt_hash64()'s, negated.)  The shift first mixes
 * in the high bits, where pointers differ most; the scaling to @nr needs
 * no division.
 *
 * Return: the shard, below @nr.
 */
static inline unsigned int kmt_shard(uint64_t ptr, unsigned int nr)
{
	uint64_t h = ((ptr ^ ptr >> 33) * 0xff51afd7ed558ccdULL) >> 32;

	return (h * nr) >> 32;
}

/**
 * struct kmt_map_slot - one slot of a struct kmt_map
 * @key: the key
 * @val: the value plus one; 0 marks an empty slot
 */
struct kmt_map_slot {
	uint64_t key;
	uint32_t val;
};

/**
 * struct kmt_map - open-addressing hash map from uint64_t to uint32_t
 * @slots: the slots
 * @bits: log2 of the number of slots
 * @nr: number of keys in the map
 *
 * Linear probing; keys are never removed.  Zero-initialised, it is empty.
 */
struct kmt_map {
	struct kmt_map_slot *slots;
	unsigned int bits;
	size_t nr;
};

/**
 * kmt_map_insert() - find a key, or add it with a value
 * @m: the map
 * @key: the key
 * @val: the value to give @key if it is not in the map, below UINT32_MAX
 * @added: if not NULL, set to whether @key was added
 *
 * Return: the value of @key.
 */
uint32_t kmt_map_insert(struct kmt_map *m, uint64_t key, uint32_t val,
			bool *added);

/**
 * kmt_map_find() - look a key up
 * @m: the map
 * @key: the key
 * @val: on success, the value of @key
 *
 * Return: true if @key is in the map.
 */
static inline bool kmt_map_find(const struct kmt_map *m, uint64_t key,
				uint32_t *val)
{
	size_t slot, mask;

	if (!m->bits)
		return false;
	mask = ((size_t)1 << m->bits) - 1;
	for (slot = kmt_hash64(key, m->bits); m->slots[slot].val;
	     slot = (slot + 1) & mask) {
		if (m->slots[slot].key == key) {
			*val = m->slots[slot].val - 1;
			return true;
		}
	}
	return false;
}

/**
 * kmt_map_free() - release a map, leaving it empty
 * @m: the map
 */
void kmt_map_free(struct kmt_map *m);

#endif /* __KMEMTRACE_HASH_H */
