// SPDX-License-Identifier: GPL-2.0
/*
 * hash-test - check that report -j's shards and their live tables hash
 * pointers independently (hash.h)
 *
 * usage: hash-test
 *
 * For pointers spaced as the kernel's are (slab objects, struct pages,
 * vmalloc areas, percpu offsets), and 2, 3 and 4 shards: each shard must
 * get its share of the pointers, and its pointers must fill every
 * quarter of a live table (the top two bits of kmt_hash64()) evenly:
 * with a hash related to the table's, a shard's pointers fill part of
 * its table only, and the probes run long.  Prints a line per family
 * and number of shards, and exits 1 if a share is off by more than 10%.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "hash.h"

#define POINTERS	65536
#define TABLE_BITS	18
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const struct {
	const char *name;
	uint64_t base, step;
} families[] = {
	{ "slab-64",	0xffff888003a00000ULL, 64 },
	{ "slab-192",	0xffff888003a00000ULL, 192 },
	{ "slab-4096",	0xffff888100000000ULL, 4096 },
	{ "pages",	0xffffea0000040000ULL, 64 },
	{ "vmalloc",	0xffffc90000000000ULL, 4096 + 4096 },
	{ "percpu",	0x0000000000030000ULL, 8 },
};

/* Whether @n is within 10% of @of / @parts. */
static bool even(unsigned int n, unsigned int of, unsigned int parts)
{
	double want = (double)of / parts;

	return n >= 0.9 * want && n <= 1.1 * want;
}

int main(void)
{
	unsigned int f, nr, k, q, i, shard, quarter;
	unsigned int count[4], quarters[4][4];
	bool ok = true, line_ok;
	uint64_t ptr;

	for (f = 0; f < ARRAY_SIZE(families); f++) {
		for (nr = 2; nr <= 4; nr++) {
			for (k = 0; k < 4; k++) {
				count[k] = 0;
				for (q = 0; q < 4; q++)
					quarters[k][q] = 0;
			}
			for (i = 0; i < POINTERS; i++) {
				ptr = families[f].base + (uint64_t)i * families[f].step;
				shard = kmt_shard(ptr, nr);
				quarter = kmt_hash64(ptr, TABLE_BITS) >> (TABLE_BITS - 2);
				count[shard]++;
				quarters[shard][quarter]++;
			}
			line_ok = true;
			printf("%-9s %u shards:", families[f].name, nr);
			for (k = 0; k < nr; k++) {
				line_ok &= even(count[k], POINTERS, nr);
				printf(" %u (", count[k]);
				for (q = 0; q < 4; q++) {
					line_ok &= even(quarters[k][q], count[k], 4);
					printf("%s%u", q ? " " : "", quarters[k][q]);
				}
				printf(")");
			}
			printf("%s\n", line_ok ? "" : "  uneven");
			ok &= line_ok;
		}
	}
	return ok ? 0 : 1;
}
