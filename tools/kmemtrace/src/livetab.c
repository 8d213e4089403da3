// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace livetab - growing and freeing a live table; see livetab.h
 */
#include <string.h>

#include "livetab.h"
#include "utils.h"

void live_free(struct live_table *lt)
{
	if (lt->bits)
		xfree_table(lt->slots, sizeof(*lt->slots) << lt->bits);
	memset(lt, 0, sizeof(*lt));
}

void live_grow(struct live_table *lt)
{
	unsigned int bits = lt->bits ? lt->bits + 1 : 12;
	size_t i, slot, mask = ((size_t)1 << bits) - 1;
	struct live_obj *slots;

	slots = xalloc_table((mask + 1) * sizeof(*slots));
	for (i = 0; lt->bits && i < (size_t)1 << lt->bits; i++) {
		if (!lt->slots[i].family)
			continue;
		slot = live_hash(lt->slots[i].family, lt->slots[i].ptr, bits);
		while (slots[slot].family)
			slot = (slot + 1) & mask;
		slots[slot] = lt->slots[i];
	}
	if (lt->bits)
		xfree_table(lt->slots, sizeof(*lt->slots) << lt->bits);
	lt->slots = slots;
	lt->bits = bits;
}
