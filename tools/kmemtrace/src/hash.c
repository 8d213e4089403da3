// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace - a hash map from 64-bit keys to small indices
 */
#include <stdlib.h>

#include "hash.h"
#include "utils.h"

static void map_grow(struct kmt_map *m)
{
	struct kmt_map big = { .bits = m->bits ? m->bits + 1 : 6 };
	size_t i, slot, size = (size_t)1 << big.bits;

	big.slots = xcalloc(size, sizeof(*big.slots));
	for (i = 0; m->bits && i < (size_t)1 << m->bits; i++) {
		if (!m->slots[i].val)
			continue;
		slot = kmt_hash64(m->slots[i].key, big.bits);
		while (big.slots[slot].val)
			slot = (slot + 1) & (size - 1);
		big.slots[slot] = m->slots[i];
	}
	big.nr = m->nr;
	kmt_map_free(m);
	*m = big;
}

uint32_t kmt_map_insert(struct kmt_map *m, uint64_t key, uint32_t val,
			bool *added)
{
	size_t slot, mask;

	/* Keep at most half of the slots used. */
	if (!m->bits || m->nr >= (size_t)1 << (m->bits - 1))
		map_grow(m);
	mask = ((size_t)1 << m->bits) - 1;
	for (slot = kmt_hash64(key, m->bits); m->slots[slot].val;
	     slot = (slot + 1) & mask) {
		if (m->slots[slot].key == key) {
			if (added)
				*added = false;
			return m->slots[slot].val - 1;
		}
	}
	m->slots[slot].key = key;
	m->slots[slot].val = val + 1;
	m->nr++;
	if (added)
		*added = true;
	return val;
}

void kmt_map_free(struct kmt_map *m)
{
	free(m->slots);
	m->slots = NULL;
	m->bits = 0;
	m->nr = 0;
}
