// SPDX-License-Identifier: GPL-2.0
/*
 * thpsplit - map one transparent huge page, split it, free it page by page
 *
 * Maps 2 MiB of anonymous memory at a 2 MiB boundary, asks for a huge
 * page there (MADV_HUGEPAGE, where the kernel has madvise(): the caller
 * sets transparent_hugepage/enabled to "always" for one that does not)
 * and touches it, checks in /proc/self/smaps
 * that the fault got one (AnonHugePages: 2048 kB), has the kernel split
 * it (/sys/kernel/debug/split_huge_pages, "pid,start,end"), and unmaps
 * it: the page allocator sees an order-9 allocation, its split into 512
 * order-0 pages and 512 frees of one page.  Prints its pid.
 *
 * Exits 0, 4 (kselftest's skip) when the kernel gives no huge page, or 1
 * with the reason on stderr.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define HPAGE	(2UL << 20)

/* The AnonHugePages of the mapping at @start, in kB, or -1. */
static long anon_huge_kb(uintptr_t start)
{
	char line[256];
	FILE *f = fopen("/proc/self/smaps", "r");
	int in = 0;
	long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
			in = lo <= start && start < hi;
			continue;
		}
		if (in && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

int main(void)
{
	char *map, *p;
	uintptr_t start;
	long kb;
	FILE *f;

	map = mmap(NULL, 2 * HPAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		perror("thpsplit: mmap");
		return 1;
	}
	start = ((uintptr_t)map + HPAGE - 1) & ~(HPAGE - 1);
	p = (char *)start;
	/* Without CONFIG_ADVISE_SYSCALLS: ENOSYS. */
	madvise(p, HPAGE, MADV_HUGEPAGE);
	memset(p, 1, HPAGE);
	kb = anon_huge_kb(start);
	if (kb != 2048) {
		fprintf(stderr, "thpsplit: AnonHugePages %ld kB, not a huge page\n",
			kb);
		return 4;
	}
	f = fopen("/sys/kernel/debug/split_huge_pages", "w");
	if (!f) {
		perror("thpsplit: /sys/kernel/debug/split_huge_pages");
		return 1;
	}
	fprintf(f, "%d,0x%lx,0x%lx", getpid(), (unsigned long)start,
		(unsigned long)(start + HPAGE));
	if (fclose(f)) {
		perror("thpsplit: split_huge_pages");
		return 1;
	}
	kb = anon_huge_kb(start);
	if (kb != 0) {
		fprintf(stderr, "thpsplit: AnonHugePages %ld kB after the split\n",
			kb);
		return 1;
	}
	printf("%d\n", getpid());
	fflush(stdout);
	if (munmap(map, 2 * HPAGE)) {
		perror("thpsplit: munmap");
		return 1;
	}
	return 0;
}
