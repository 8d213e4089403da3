// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace_pattern - allocate a known pattern through every allocator API
 * that kmemtrace records, so that tests can check what kmemtrace, its
 * tags file and /proc/allocinfo say about it.
 *
 * Each allocation site is the only allocator call of a noinline function
 * of its own, on a line of its own: so each site has its own call site in
 * kmemtrace's events (the function, at one or more offsets if the
 * compiler unrolls its loop), its own codetag in /proc/allocinfo and in
 * kmemtrace's tags file, and a count of calls that no other site has.
 * At init, in this order:
 *
 *   site (function)        API                   count  size asked   freed in init  held
 *   pattern_kmalloc_small  kmalloc()                 3  24 bytes                 0     3
 *   pattern_kmalloc_1k     kmalloc()                 4  1000 bytes               4     0
 *   pattern_kzalloc        kzalloc()                 6  40 bytes            5 (a)     1
 *   pattern_krealloc       krealloc()                5  200 bytes                0     5
 *   pattern_cache          kmem_cache_alloc()        7  72-byte objects          4  3 (b)
 *   pattern_pages          alloc_pages()             8  order 0                  0     8
 *   pattern_pages_order2   alloc_pages()             2  order 2                  0     2
 *   pattern_free_pages     __get_free_pages()        9  order 1                  9     0
 *   pattern_vmalloc        vmalloc()                10  10000 bytes              6     4
 *   pattern_kvmalloc       kvmalloc()               11  2000 bytes               0    11
 *   pattern_percpu         alloc_percpu()           12  24 bytes per CPU         6     6
 *
 * (a) pattern_krealloc() grows the first 5 objects of pattern_kzalloc()
 *     to 200 bytes: krealloc() cannot do it in place (the objects are in
 *     kmalloc-64), so it allocates anew and frees the old object.
 * (b) the cache's objects are always freed by the module's exit, as
 *     kmem_cache_destroy() needs an empty cache.
 *
 * Objects are freed in the order they were allocated, the first ones of
 * a site first.  The held allocations are freed when the module is
 * unloaded, unless it was loaded with leak=1: then its exit leaves them
 * (all but the cache's) allocated, so that a module unloaded while its
 * allocations live can be tested: the kernel then warns "memory
 * allocation(s) from the module still alive" and keeps the module's
 * codetags, and kmemtrace's tags file marks them "unloaded".
 *
 * What the allocators hand out, on x86_64 with 4 KiB pages and SLUB
 * without debugging (the kmalloc caches of 32, 64, 256, 1024 and 2048
 * bytes; the cache's objects are 72 bytes): 32, 1024, 64, 256 and 72
 * bytes per object of the slab sites, 2048 for kvmalloc() (which kmalloc()
 * serves, being at most a page), 12288 for each vmalloc() (three pages,
 * whose page array and vm_struct kmemtrace records as backing events),
 * and 24 bytes times the number of possible CPUs for alloc_percpu().
 *
 * With bulk=N (for the sampling test, which needs many allocations per
 * site for its bound to mean something), init then also allocates, and
 * holds until unload, N kmalloc()s of 512 bytes (pattern_bulk_kmalloc),
 * N / 4 order-0 pages (pattern_bulk_pages), N / 64 vmalloc()s of 16 KiB
 * (pattern_bulk_vmalloc) and N / 64 kmalloc()s of 16 KiB, which the page
 * allocator serves (pattern_bulk_kmalloc_large), into arrays of its own
 * (one kvcalloc() in pattern_bulk_arrays()); none of them is freed in
 * init.
 *
 * Deliberately not used: alloc_pages_exact(), which allocinfo accounts as
 * the whole power-of-two block before the tail pages are split off and
 * freed (a call count of one block, not one allocation as kmemtrace
 * records it), and __GFP_ACCOUNT, whose memcg charge allocates object
 * cgroup vectors of its own: neither maps one to one onto the events of
 * the site.  The module's kmem_cache is created with SLAB_NO_MERGE, so
 * that its objects are in a cache of its own name.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/gfp.h>
#include <linux/init.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#define NR_KMALLOC_SMALL	3
#define NR_KMALLOC_1K		4
#define NR_KZALLOC		6
#define NR_KREALLOC		5
#define NR_CACHE		7
#define NR_CACHE_FREED		4
#define NR_PAGES		8
#define NR_PAGES_ORDER2		2
#define NR_FREE_PAGES		9
#define NR_VMALLOC		10
#define NR_VMALLOC_FREED	6
#define NR_KVMALLOC		11
#define NR_PERCPU		12
#define NR_PERCPU_FREED		6

#define SIZE_KMALLOC_SMALL	24
#define SIZE_KMALLOC_1K		1000
#define SIZE_KZALLOC		40
#define SIZE_KREALLOC		200
#define SIZE_CACHE		72
#define SIZE_VMALLOC		10000
#define SIZE_KVMALLOC		2000
#define ORDER_FREE_PAGES	1

#define SIZE_BULK_KMALLOC	512
#define SIZE_BULK_VMALLOC	(16 * 1024)
#define SIZE_BULK_KMALLOC_LARGE	(16 * 1024)

static bool leak;
module_param(leak, bool, 0444);
MODULE_PARM_DESC(leak, "leave the held allocations allocated at unload (default: 0)");

static unsigned int bulk;
module_param(bulk, uint, 0444);
MODULE_PARM_DESC(bulk, "also hold N kmalloc(512)s, N/4 pages, N/64 vmalloc(16K)s and N/64 kmalloc(16K)s (default: 0)");

/* 24 bytes per CPU. */
struct pattern_percpu {
	u64 v[3];
};

static struct kmem_cache *pattern_cachep;

static void *kmalloc_small[NR_KMALLOC_SMALL];
static void *kmalloc_1k[NR_KMALLOC_1K];
static void *kzalloced[NR_KZALLOC];
static void *cache_objs[NR_CACHE];
static struct page *pages[NR_PAGES];
static struct page *pages_order2[NR_PAGES_ORDER2];
static unsigned long free_pages_addr[NR_FREE_PAGES];
static void *vmalloced[NR_VMALLOC];
static void *kvmalloced[NR_KVMALLOC];
static struct pattern_percpu __percpu *percpu[NR_PERCPU];
static void **bulk_kmalloced;
static struct page **bulk_pages;
static void **bulk_vmalloced;
static void **bulk_kmalloced_large;

/*
 * The sites: one allocator call each.  Each returns -ENOMEM if a call
 * failed, leaving what it got in its array for pattern_free() to free.
 */

static noinline int pattern_kmalloc_small(void)
{
	int i;

	for (i = 0; i < NR_KMALLOC_SMALL; i++) {
		kmalloc_small[i] = kmalloc(SIZE_KMALLOC_SMALL, GFP_KERNEL);
		if (!kmalloc_small[i])
			return -ENOMEM;
	}
	return 0;
}

static noinline int pattern_kmalloc_1k(void)
{
	int i;

	for (i = 0; i < NR_KMALLOC_1K; i++) {
		kmalloc_1k[i] = kmalloc(SIZE_KMALLOC_1K, GFP_KERNEL);
		if (!kmalloc_1k[i])
			return -ENOMEM;
	}
	return 0;
}

static noinline int pattern_kzalloc(void)
{
	int i;

	for (i = 0; i < NR_KZALLOC; i++) {
		kzalloced[i] = kzalloc(SIZE_KZALLOC, GFP_KERNEL);
		if (!kzalloced[i])
			return -ENOMEM;
	}
	return 0;
}

/* Grows the first NR_KREALLOC objects of pattern_kzalloc(): they move. */
static noinline int pattern_krealloc(void)
{
	void *p;
	int i;

	for (i = 0; i < NR_KREALLOC; i++) {
		p = krealloc(kzalloced[i], SIZE_KREALLOC, GFP_KERNEL);
		if (!p)
			return -ENOMEM;
		kzalloced[i] = p;
	}
	return 0;
}

static noinline int pattern_cache(void)
{
	int i;

	for (i = 0; i < NR_CACHE; i++) {
		cache_objs[i] = kmem_cache_alloc(pattern_cachep, GFP_KERNEL);
		if (!cache_objs[i])
			return -ENOMEM;
	}
	return 0;
}

static noinline int pattern_pages(void)
{
	int i;

	for (i = 0; i < NR_PAGES; i++) {
		pages[i] = alloc_pages(GFP_KERNEL, 0);
		if (!pages[i])
			return -ENOMEM;
	}
	return 0;
}

static noinline int pattern_pages_order2(void)
{
	int i;

	for (i = 0; i < NR_PAGES_ORDER2; i++) {
		pages_order2[i] = alloc_pages(GFP_KERNEL, 2);
		if (!pages_order2[i])
			return -ENOMEM;
	}
	return 0;
}

static noinline int pattern_free_pages(void)
{
	int i;

	for (i = 0; i < NR_FREE_PAGES; i++) {
		free_pages_addr[i] = __get_free_pages(GFP_KERNEL, ORDER_FREE_PAGES);
		if (!free_pages_addr[i])
			return -ENOMEM;
	}
	return 0;
}

static noinline int pattern_vmalloc(void)
{
	int i;

	for (i = 0; i < NR_VMALLOC; i++) {
		vmalloced[i] = vmalloc(SIZE_VMALLOC);
		if (!vmalloced[i])
			return -ENOMEM;
	}
	return 0;
}

static noinline int pattern_kvmalloc(void)
{
	int i;

	for (i = 0; i < NR_KVMALLOC; i++) {
		kvmalloced[i] = kvmalloc(SIZE_KVMALLOC, GFP_KERNEL);
		if (!kvmalloced[i])
			return -ENOMEM;
	}
	return 0;
}

static noinline int pattern_percpu(void)
{
	int i;

	for (i = 0; i < NR_PERCPU; i++) {
		percpu[i] = alloc_percpu(struct pattern_percpu);
		if (!percpu[i])
			return -ENOMEM;
	}
	return 0;
}

/* The arrays of bulk=N, in one allocation (one site, one codetag). */
static noinline int pattern_bulk_arrays(void)
{
	void **slots = kvcalloc(bulk + bulk / 4 + 2 * (bulk / 64),
				sizeof(void *), GFP_KERNEL);

	if (!slots)
		return -ENOMEM;
	bulk_kmalloced = slots;
	bulk_pages = (struct page **)(slots + bulk);
	bulk_vmalloced = slots + bulk + bulk / 4;
	bulk_kmalloced_large = bulk_vmalloced + bulk / 64;
	return 0;
}

static noinline int pattern_bulk_kmalloc(void)
{
	unsigned int i;

	for (i = 0; i < bulk; i++) {
		bulk_kmalloced[i] = kmalloc(SIZE_BULK_KMALLOC, GFP_KERNEL);
		if (!bulk_kmalloced[i])
			return -ENOMEM;
	}
	return 0;
}

static noinline int pattern_bulk_pages(void)
{
	unsigned int i;

	for (i = 0; i < bulk / 4; i++) {
		bulk_pages[i] = alloc_pages(GFP_KERNEL, 0);
		if (!bulk_pages[i])
			return -ENOMEM;
	}
	return 0;
}

static noinline int pattern_bulk_vmalloc(void)
{
	unsigned int i;

	for (i = 0; i < bulk / 64; i++) {
		bulk_vmalloced[i] = vmalloc(SIZE_BULK_VMALLOC);
		if (!bulk_vmalloced[i])
			return -ENOMEM;
	}
	return 0;
}

static noinline int pattern_bulk_kmalloc_large(void)
{
	unsigned int i;

	/* Past the kmalloc caches: an order-2 block of the page allocator. */
	BUILD_BUG_ON(SIZE_BULK_KMALLOC_LARGE <= KMALLOC_MAX_CACHE_SIZE);
	for (i = 0; i < bulk / 64; i++) {
		bulk_kmalloced_large[i] = kmalloc(SIZE_BULK_KMALLOC_LARGE,
						  GFP_KERNEL);
		if (!bulk_kmalloced_large[i])
			return -ENOMEM;
	}
	return 0;
}

/*
 * Free the first @n entries of @arr with @free_one and clear them.  NULL
 * entries (never allocated, or freed already) are skipped.
 */
#define pattern_free(arr, n, free_one)					\
do {									\
	__auto_type __a = &(arr)[0];					\
	int __i, __n = (n);						\
									\
	for (__i = 0; __i < __n; __i++) {				\
		if (__a[__i])						\
			free_one(__a[__i]);				\
	}								\
	memset(__a, 0, __n * sizeof(*__a));				\
} while (0)

#define pattern_free_obj(p)		kmem_cache_free(pattern_cachep, p)
#define pattern_free_page(p)		__free_pages(p, 0)
#define pattern_free_page_order2(p)	__free_pages(p, 2)
#define pattern_free_pages_addr(a)	free_pages(a, ORDER_FREE_PAGES)

/* The "freed in init" column (pattern_kzalloc()'s went by krealloc()). */
static void pattern_free_in_init(void)
{
	pattern_free(kmalloc_1k, NR_KMALLOC_1K, kfree);
	pattern_free(cache_objs, NR_CACHE_FREED, pattern_free_obj);
	pattern_free(free_pages_addr, NR_FREE_PAGES,
		     pattern_free_pages_addr);
	pattern_free(vmalloced, NR_VMALLOC_FREED, vfree);
	pattern_free(percpu, NR_PERCPU_FREED, free_percpu);
}

/*
 * Free what is still allocated: the "held" column, or after a failed init
 * whatever it got; with @leak_held only the cache's objects.  Then
 * destroy the cache.
 */
static void pattern_free_held(bool leak_held)
{
	pattern_free(cache_objs, NR_CACHE, pattern_free_obj);
	kmem_cache_destroy(pattern_cachep);
	if (leak_held)
		return;
	pattern_free(kmalloc_small, NR_KMALLOC_SMALL, kfree);
	pattern_free(kmalloc_1k, NR_KMALLOC_1K, kfree);
	pattern_free(kzalloced, NR_KZALLOC, kfree);
	pattern_free(pages, NR_PAGES, pattern_free_page);
	pattern_free(pages_order2, NR_PAGES_ORDER2,
		     pattern_free_page_order2);
	pattern_free(free_pages_addr, NR_FREE_PAGES,
		     pattern_free_pages_addr);
	pattern_free(vmalloced, NR_VMALLOC, vfree);
	pattern_free(kvmalloced, NR_KVMALLOC, kvfree);
	pattern_free(percpu, NR_PERCPU, free_percpu);
	if (bulk_kmalloced)
		pattern_free(bulk_kmalloced, bulk, kfree);
	if (bulk_pages)
		pattern_free(bulk_pages, bulk / 4, pattern_free_page);
	if (bulk_vmalloced)
		pattern_free(bulk_vmalloced, bulk / 64, vfree);
	if (bulk_kmalloced_large)
		pattern_free(bulk_kmalloced_large, bulk / 64, kfree);
	kvfree(bulk_kmalloced);
	bulk_kmalloced = NULL;
	bulk_pages = NULL;
	bulk_vmalloced = NULL;
	bulk_kmalloced_large = NULL;
}

static int __init kmemtrace_pattern_init(void)
{
	int ret;

	pattern_cachep = kmem_cache_create("kmemtrace_pattern", SIZE_CACHE, 0,
					   SLAB_NO_MERGE, NULL);
	if (!pattern_cachep)
		return -ENOMEM;

	ret = pattern_kmalloc_small();
	ret = ret ?: pattern_kmalloc_1k();
	ret = ret ?: pattern_kzalloc();
	ret = ret ?: pattern_krealloc();
	ret = ret ?: pattern_cache();
	ret = ret ?: pattern_pages();
	ret = ret ?: pattern_pages_order2();
	ret = ret ?: pattern_free_pages();
	ret = ret ?: pattern_vmalloc();
	ret = ret ?: pattern_kvmalloc();
	ret = ret ?: pattern_percpu();
	if (bulk) {
		ret = ret ?: pattern_bulk_arrays();
		ret = ret ?: pattern_bulk_kmalloc();
		ret = ret ?: pattern_bulk_pages();
		ret = ret ?: pattern_bulk_vmalloc();
		ret = ret ?: pattern_bulk_kmalloc_large();
	}
	if (ret) {
		pr_err("an allocation failed, freeing the pattern\n");
		pattern_free_held(false);
		return ret;
	}

	pattern_free_in_init();
	pr_info("pattern allocated%s\n",
		leak ? "; leak=1: the held allocations stay at unload" : "");
	return 0;
}

static void __exit kmemtrace_pattern_exit(void)
{
	pattern_free_held(leak);
	if (leak)
		pr_info("unloaded with the held allocations still allocated (leak=1)\n");
}

module_init(kmemtrace_pattern_init);
module_exit(kmemtrace_pattern_exit);

MODULE_DESCRIPTION("Allocate a known pattern through every API kmemtrace records");
MODULE_AUTHOR("kmemtrace maintainers <kmemtrace@example.org>");
MODULE_LICENSE("GPL");
