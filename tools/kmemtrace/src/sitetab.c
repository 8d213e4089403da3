// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace sitetab - tables of sums by key; see sitetab.h
 */
#include <stdlib.h>
#include <string.h>

#include "sitetab.h"
#include "utils.h"

uint32_t site_add(struct site_table *tab, uint64_t key)
{
	uint32_t i;

	i = kmt_map_insert(&tab->map, key, tab->nr, NULL);
	tab->sites = kmt_grow(tab->sites, tab->nr, &tab->size, sizeof(*tab->sites), 256);
	memset(&tab->sites[i], 0, sizeof(tab->sites[i]));
	tab->sites[i].key = key;
	tab->nr++;
	return i;
}

void site_table_free(struct site_table *tab)
{
	kmt_map_free(&tab->map);
	free(tab->sites);
	memset(tab, 0, sizeof(*tab));
}
