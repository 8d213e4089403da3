// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the kmem and vmalloc tracepoints: each allocation and
 * free the test makes fires its tracepoint exactly once, with the
 * address, the size and the caller the test used.
 *
 * Probes attach to the tracepoints for the duration of a test and log
 * the events of the test's own task (in task context only: an interrupt
 * that allocates on the test's CPU is not the test), so that the
 * assertions are exact whatever else the machine allocates.
 */

#include <kunit/test.h>
#include <linux/gfp.h>
#include <linux/kallsyms.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <linux/vmalloc.h>
#include <trace/events/kmem.h>
#include <trace/events/vmalloc.h>

enum kt_type {
	KT_KMALLOC,
	KT_CACHE_ALLOC,
	KT_KREALLOC,
	KT_KFREE,
	KT_CACHE_FREE,
	KT_PAGE_ALLOC,
	KT_PAGE_FREE,
	KT_PAGE_SPLIT,
	KT_EXACT_ALLOC,
	KT_EXACT_FREE,
	KT_VMALLOC,
	KT_VREALLOC,
	KT_VFREE,
};

struct kt_event {
	enum kt_type type;
	unsigned long call_site;	/* 0 for the page events */
	const void *ptr;		/* the struct page for page events */
	size_t bytes;
	unsigned int new_order;		/* of the pieces, for mm_page_split */
	const struct kmem_cache *cache;	/* kfree's */
};

#define KT_MAX_EVENTS	512

/**
 * struct kt_log - the events of one test
 * @task: the test's task; events of any other context are not logged
 * @nr: events in @ev
 * @lost: events that did not fit (a test that sees one fails)
 * @ev: the events, in the order they fired
 *
 * Only @task writes it, from its probes, which run with preemption
 * disabled; the test reads it from the same task.
 */
struct kt_log {
	struct task_struct *task;
	unsigned int nr;
	unsigned int lost;
	struct kt_event ev[KT_MAX_EVENTS];
};

/* Whether an event is the test's: its task's, in task context. */
static bool kt_mine(struct kt_log *log)
{
	return in_task() && current == READ_ONCE(log->task);
}

static void kt_add(void *data, enum kt_type type, unsigned long call_site,
		   const void *ptr, size_t size)
{
	struct kt_log *log = data;

	if (!kt_mine(log))
		return;
	if (log->nr == KT_MAX_EVENTS) {
		log->lost++;
		return;
	}
	log->ev[log->nr++] = (struct kt_event){
		.type = type, .call_site = call_site, .ptr = ptr, .bytes = size,
	};
}

static void kt_kmalloc(void *data, unsigned long call_site, const void *ptr,
		       size_t bytes_req, size_t bytes_alloc, gfp_t gfp_flags,
		       int node)
{
	kt_add(data, KT_KMALLOC, call_site, ptr, bytes_req);
}

static void kt_cache_alloc(void *data, unsigned long call_site,
			   const void *ptr, struct kmem_cache *s,
			   gfp_t gfp_flags, int node)
{
	kt_add(data, KT_CACHE_ALLOC, call_site, ptr, 0);
}

static void kt_krealloc(void *data, unsigned long call_site, const void *ptr,
			size_t bytes_req, size_t bytes_alloc, gfp_t gfp_flags)
{
	kt_add(data, KT_KREALLOC, call_site, ptr, bytes_req);
}

static void kt_kfree(void *data, unsigned long call_site, const void *ptr,
		     const struct kmem_cache *s)
{
	struct kt_log *log = data;
	unsigned int nr = log->nr;

	kt_add(data, KT_KFREE, call_site, ptr, 0);
	if (log->nr > nr)
		log->ev[nr].cache = s;
}

static void kt_cache_free(void *data, unsigned long call_site,
			  const void *ptr, const struct kmem_cache *s)
{
	kt_add(data, KT_CACHE_FREE, call_site, ptr, 0);
}

static void kt_page_alloc(void *data, struct page *page, unsigned int order,
			  gfp_t gfp_flags, int migratetype)
{
	kt_add(data, KT_PAGE_ALLOC, 0, page, PAGE_SIZE << order);
}

static void kt_page_free(void *data, struct page *page, unsigned int order)
{
	kt_add(data, KT_PAGE_FREE, 0, page, PAGE_SIZE << order);
}

/* The whole allocation's bytes, and the order of the pieces. */
static void kt_page_split(void *data, struct page *page, unsigned int order,
			  unsigned int new_order)
{
	struct kt_log *log = data;
	unsigned int nr = log->nr;

	kt_add(data, KT_PAGE_SPLIT, 0, page, PAGE_SIZE << order);
	if (log->nr != nr)
		log->ev[nr].new_order = new_order;
}

static void kt_exact_alloc(void *data, unsigned long call_site,
			   const void *ptr, size_t size, gfp_t gfp_flags)
{
	kt_add(data, KT_EXACT_ALLOC, call_site, ptr, size);
}

static void kt_exact_free(void *data, unsigned long call_site,
			  const void *ptr, size_t size, gfp_t gfp_flags)
{
	kt_add(data, KT_EXACT_FREE, call_site, ptr, size);
}

static void kt_vmalloc(void *data, unsigned long call_site, const void *ptr,
		       size_t bytes_req, size_t bytes_alloc, gfp_t gfp_flags,
		       int node)
{
	kt_add(data, KT_VMALLOC, call_site, ptr, bytes_req);
}

static void kt_vrealloc(void *data, unsigned long call_site, const void *ptr,
			size_t bytes_req, size_t bytes_alloc, gfp_t gfp_flags)
{
	kt_add(data, KT_VREALLOC, call_site, ptr, bytes_req);
}

/*
 * The size of the area still at @ptr: vfree must fire while the area is
 * vmalloc's, before another CPU's vmalloc() can be handed its range.
 */
static void kt_vfree(void *data, unsigned long call_site, const void *ptr)
{
	struct vm_struct *vm;

	if (!kt_mine(data))
		return;
	vm = find_vm_area(ptr);
	kt_add(data, KT_VFREE, call_site, ptr, vm ? get_vm_area_size(vm) : 0);
}

/* The events of @type at @ptr; the last one in *@ev if there is one. */
static unsigned int kt_count(struct kt_log *log, enum kt_type type,
			     const void *ptr, struct kt_event *ev)
{
	unsigned int i, n = 0;

	for (i = 0; i < log->nr; i++) {
		if (log->ev[i].type != type || log->ev[i].ptr != ptr)
			continue;
		n++;
		if (ev)
			*ev = log->ev[i];
	}
	return n;
}

/*
 * Whether @call_site is in @func: with kallsyms, the function it is in
 * must start at @func; without, only that there is a call site.
 */
static bool kt_in(unsigned long call_site, void *func)
{
	unsigned long size, offset;

	if (!call_site)
		return false;
	if (!IS_ENABLED(CONFIG_KALLSYMS) ||
	    !kallsyms_lookup_size_offset(call_site, &size, &offset))
		return true;
	return call_site - offset == (unsigned long)func;
}

static const char * const kt_names[] = {
	[KT_KMALLOC] = "kmalloc",
	[KT_CACHE_ALLOC] = "kmem_cache_alloc",
	[KT_KREALLOC] = "krealloc",
	[KT_KFREE] = "kfree",
	[KT_CACHE_FREE] = "kmem_cache_free",
	[KT_PAGE_ALLOC] = "mm_page_alloc",
	[KT_PAGE_FREE] = "mm_page_free",
	[KT_PAGE_SPLIT] = "mm_page_split",
	[KT_EXACT_ALLOC] = "mm_page_alloc_exact",
	[KT_EXACT_FREE] = "mm_page_free_exact",
	[KT_VMALLOC] = "vmalloc",
	[KT_VREALLOC] = "vrealloc",
	[KT_VFREE] = "vfree",
};

/* Expects one event of @type at @ptr, of @size bytes, called from @func. */
static void kt_expect_one(struct kunit *test, enum kt_type type,
			  const void *ptr, size_t size, void *func)
{
	struct kt_event ev = {};

	KUNIT_EXPECT_EQ_MSG(test, kt_count(test->priv, type, ptr, &ev), 1,
			    "%s events at the test's pointer", kt_names[type]);
	KUNIT_EXPECT_EQ_MSG(test, ev.bytes, size, "%s size", kt_names[type]);
	KUNIT_EXPECT_TRUE_MSG(test, kt_in(ev.call_site, func),
			      "%s call_site %pS, want in %ps", kt_names[type],
			      (void *)ev.call_site, func);
}

static int kt_register(struct kt_log *log)
{
	return register_trace_kmalloc(kt_kmalloc, log) ?:
	       register_trace_kmem_cache_alloc(kt_cache_alloc, log) ?:
	       register_trace_krealloc(kt_krealloc, log) ?:
	       register_trace_kfree(kt_kfree, log) ?:
	       register_trace_kmem_cache_free(kt_cache_free, log) ?:
	       register_trace_mm_page_alloc(kt_page_alloc, log) ?:
	       register_trace_mm_page_free(kt_page_free, log) ?:
	       register_trace_mm_page_split(kt_page_split, log) ?:
	       register_trace_mm_page_alloc_exact(kt_exact_alloc, log) ?:
	       register_trace_mm_page_free_exact(kt_exact_free, log) ?:
	       register_trace_vmalloc(kt_vmalloc, log) ?:
	       register_trace_vrealloc(kt_vrealloc, log) ?:
	       register_trace_vfree(kt_vfree, log);
}

/* Also after a failed kt_register(): a probe not attached is -ENOENT. */
static void kt_unregister(struct kt_log *log)
{
	unregister_trace_kmalloc(kt_kmalloc, log);
	unregister_trace_kmem_cache_alloc(kt_cache_alloc, log);
	unregister_trace_krealloc(kt_krealloc, log);
	unregister_trace_kfree(kt_kfree, log);
	unregister_trace_kmem_cache_free(kt_cache_free, log);
	unregister_trace_mm_page_alloc(kt_page_alloc, log);
	unregister_trace_mm_page_free(kt_page_free, log);
	unregister_trace_mm_page_split(kt_page_split, log);
	unregister_trace_mm_page_alloc_exact(kt_exact_alloc, log);
	unregister_trace_mm_page_free_exact(kt_exact_free, log);
	unregister_trace_vmalloc(kt_vmalloc, log);
	unregister_trace_vrealloc(kt_vrealloc, log);
	unregister_trace_vfree(kt_vfree, log);
	tracepoint_synchronize_unregister();
}

static int kt_init(struct kunit *test)
{
	struct kt_log *log;
	int ret;

	log = kunit_kzalloc(test, sizeof(*log), GFP_KERNEL);
	if (!log)
		return -ENOMEM;
	log->task = current;
	ret = kt_register(log);
	if (ret) {
		kt_unregister(log);
		return ret;
	}
	test->priv = log;
	return 0;
}

static void kt_exit(struct kunit *test)
{
	struct kt_log *log = test->priv;

	kt_unregister(log);
	KUNIT_EXPECT_EQ_MSG(test, log->lost, 0, "events that did not fit");
}

/* Expects each of the @nr @pages allocated once and freed once. */
static void kt_expect_pages(struct kunit *test, struct page **pages, int nr)
{
	int i;

	for (i = 0; i < nr; i++) {
		KUNIT_EXPECT_EQ_MSG(test,
				    kt_count(test->priv, KT_PAGE_ALLOC, pages[i], NULL),
				    1, "page %d allocated", i);
		KUNIT_EXPECT_EQ_MSG(test,
				    kt_count(test->priv, KT_PAGE_FREE, pages[i], NULL),
				    1, "page %d freed", i);
	}
}

/*
 * Stop logging: the test's checks allocate too (KUnit's messages).  The
 * helpers below are not inlined and end with a barrier, so that each
 * allocator call has one in its own frame: the call site the
 * tracepoint must name.
 */
static void kt_stop(struct kt_log *log)
{
	WRITE_ONCE(log->task, NULL);
}

#define KT_BULK		16
#define KT_PAGES	8
#define KT_VPAGES	4

/*
 * The size of a kmalloc() larger than the biggest kmalloc cache, not
 * known at compile time.
 */
static size_t kt_large_size = 4 * PAGE_SIZE;

static noinline unsigned long kt_alloc_pages_bulk(struct page **pages)
{
	unsigned long n = alloc_pages_bulk_array(GFP_KERNEL, KT_PAGES, pages);

	OPTIMIZER_HIDE_VAR(n);
	return n;
}

/* Each page alloc_pages_bulk() hands out fires mm_page_alloc. */
static void test_pages_bulk(struct kunit *test)
{
	struct kt_log *log = test->priv;
	struct page *pages[KT_PAGES] = {};
	unsigned long n;
	int i;

	n = kt_alloc_pages_bulk(pages);
	for (i = 0; i < n; i++)
		__free_page(pages[i]);
	kt_stop(log);
	KUNIT_ASSERT_EQ(test, n, KT_PAGES);
	kt_expect_pages(test, pages, KT_PAGES);
}

static noinline int kt_cache_alloc_bulk(struct kmem_cache *s, void **objs)
{
	int n = kmem_cache_alloc_bulk(s, GFP_KERNEL, KT_BULK, objs);

	OPTIMIZER_HIDE_VAR(n);
	return n;
}

static noinline void kt_cache_free_bulk(struct kmem_cache *s, void **objs)
{
	kmem_cache_free_bulk(s, KT_BULK, objs);
	barrier();
}

/* Each object of a bulk allocation and free fires its tracepoint. */
static void test_objects_bulk(struct kunit *test)
{
	struct kt_log *log = test->priv;
	struct kmem_cache *s;
	void *objs[KT_BULK];
	int i, n;

	s = kmem_cache_create("kmem_trace_kunit", 64, 0, 0, NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	n = kt_cache_alloc_bulk(s, objs);
	if (n == KT_BULK)
		kt_cache_free_bulk(s, objs);
	kt_stop(log);
	kmem_cache_destroy(s);
	KUNIT_ASSERT_EQ(test, n, KT_BULK);
	for (i = 0; i < KT_BULK; i++) {
		kt_expect_one(test, KT_CACHE_ALLOC, objs[i], 0,
			      kt_cache_alloc_bulk);
		kt_expect_one(test, KT_CACHE_FREE, objs[i], 0,
			      kt_cache_free_bulk);
	}
}

static noinline void *kt_kmalloc_large(void)
{
	void *p = kmalloc(READ_ONCE(kt_large_size), GFP_KERNEL);

	OPTIMIZER_HIDE_VAR(p);
	return p;
}

static noinline void kt_kfree_call(void *p)
{
	kfree(p);
	barrier();
}

/* A large kmalloc() of a run-time size fires kmalloc once, naming its caller. */
static void test_large_kmalloc_once(struct kunit *test)
{
	struct kt_log *log = test->priv;
	void *p;

	p = kt_kmalloc_large();
	if (p)
		kt_kfree_call(p);
	kt_stop(log);
	KUNIT_ASSERT_NOT_NULL(test, p);
	kt_expect_one(test, KT_KMALLOC, p, kt_large_size, kt_kmalloc_large);
	kt_expect_one(test, KT_KFREE, p, 0, kt_kfree_call);
}

static noinline void *kt_krealloc_smaller(void *p)
{
	void *q = krealloc(p, 32, GFP_KERNEL);

	OPTIMIZER_HIDE_VAR(q);
	return q;
}

static noinline void kt_kfree_bulk(void **objs, size_t nr)
{
	kfree_bulk(nr, objs);
	barrier();
}

/* The kfree event of @ptr: one, naming @func, with @cache for its cache. */
static void kt_expect_kfree(struct kunit *test, const void *ptr,
			    const struct kmem_cache *cache, void *func)
{
	struct kt_event ev = {};

	kt_expect_one(test, KT_KFREE, ptr, 0, func);
	kt_count(test->priv, KT_KFREE, ptr, &ev);
	KUNIT_EXPECT_PTR_EQ_MSG(test, ev.cache, cache, "kfree of %p", ptr);
}

/*
 * kfree passes probes the cache it frees to, which kfree() looks up
 * anyway: a cache's object freed with kfree() or kfree_bulk() names its
 * cache, a large kmalloc and NULL none.
 */
static void test_kfree_cache(struct kunit *test)
{
	struct kt_log *log = test->priv;
	unsigned int i, nr_null = 0;
	struct kmem_cache *s;
	void *objs[2] = { }, *o, *large;

	s = kmem_cache_create("kmem_trace_kfree", 40, 0, SLAB_NO_MERGE, NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	o = kmem_cache_alloc(s, GFP_KERNEL);
	if (kmem_cache_alloc_bulk(s, GFP_KERNEL, 2, objs) != 2)
		memset(objs, 0, sizeof(objs));
	large = kt_kmalloc_large();
	if (o)
		kt_kfree_call(o);
	if (objs[0])
		kt_kfree_bulk(objs, 2);
	if (large)
		kt_kfree_call(large);
	kt_kfree_call(NULL);
	kt_stop(log);
	kmem_cache_destroy(s);
	KUNIT_ASSERT_NOT_NULL(test, o);
	KUNIT_ASSERT_NOT_NULL(test, objs[0]);
	KUNIT_ASSERT_NOT_NULL(test, large);
	kt_expect_kfree(test, o, s, kt_kfree_call);
	kt_expect_kfree(test, objs[0], s, kt_kfree_bulk);
	kt_expect_kfree(test, objs[1], s, kt_kfree_bulk);
	kt_expect_kfree(test, large, NULL, kt_kfree_call);
	/* The test's task may free NULL elsewhere too. */
	for (i = 0; i < log->nr; i++) {
		struct kt_event *ev = &log->ev[i];

		if (ev->type == KT_KFREE && !ev->ptr &&
		    kt_in(ev->call_site, kt_kfree_call)) {
			KUNIT_EXPECT_NULL(test, ev->cache);
			nr_null++;
		}
	}
	KUNIT_EXPECT_EQ(test, nr_null, 1);
}

/* A krealloc() that keeps the object where it is fires krealloc. */
static void test_krealloc_in_place(struct kunit *test)
{
	struct kt_log *log = test->priv;
	void *p, *q = NULL;

	p = kmalloc(64, GFP_KERNEL);
	if (p)
		q = kt_krealloc_smaller(p);
	kfree(q ? q : p);
	kt_stop(log);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_PTR_EQ(test, q, p);
	kt_expect_one(test, KT_KREALLOC, p, 32, kt_krealloc_smaller);
}

static noinline void *kt_alloc_pages_exact(size_t size)
{
	void *p = alloc_pages_exact(size, GFP_KERNEL);

	OPTIMIZER_HIDE_VAR(p);
	return p;
}

static noinline void kt_free_pages_exact(void *p, size_t size)
{
	free_pages_exact(p, size);
	barrier();
}

/* alloc_pages_exact() and free_pages_exact() say what was asked for. */
static void test_pages_exact(struct kunit *test)
{
	struct kt_log *log = test->priv;
	size_t size = 5 * PAGE_SIZE;
	void *p;

	p = kt_alloc_pages_exact(size);
	if (p)
		kt_free_pages_exact(p, size);
	kt_stop(log);
	KUNIT_ASSERT_NOT_NULL(test, p);
	kt_expect_one(test, KT_EXACT_ALLOC, p, size, kt_alloc_pages_exact);
	kt_expect_one(test, KT_EXACT_FREE, p, size, kt_free_pages_exact);
}

/* The index in the log of the first event of @type at @ptr, or -1. */
static int kt_index(struct kt_log *log, enum kt_type type, const void *ptr)
{
	unsigned int i;

	for (i = 0; i < log->nr; i++)
		if (log->ev[i].type == type && log->ev[i].ptr == ptr)
			return i;
	return -1;
}

#define KT_SPLIT_ORDER	2

/*
 * split_page() fires mm_page_split once, with the order split and that of
 * the pieces, before any piece is freed; each piece is then freed on its
 * own, as an order-0 page.
 */
static void test_split_page(struct kunit *test)
{
	struct kt_log *log = test->priv;
	struct page *page = alloc_pages(GFP_KERNEL, KT_SPLIT_ORDER);
	struct kt_event ev = {};
	int i, split;

	if (page) {
		split_page(page, KT_SPLIT_ORDER);
		for (i = (1 << KT_SPLIT_ORDER) - 1; i >= 0; i--)
			__free_page(page + i);
	}
	kt_stop(log);
	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_EXPECT_EQ(test, kt_count(log, KT_PAGE_ALLOC, page, &ev), 1);
	KUNIT_EXPECT_EQ(test, ev.bytes, PAGE_SIZE << KT_SPLIT_ORDER);
	KUNIT_EXPECT_EQ(test, kt_count(log, KT_PAGE_SPLIT, page, &ev), 1);
	KUNIT_EXPECT_EQ(test, ev.bytes, PAGE_SIZE << KT_SPLIT_ORDER);
	KUNIT_EXPECT_EQ(test, ev.new_order, 0);
	split = kt_index(log, KT_PAGE_SPLIT, page);
	for (i = 0; i < 1 << KT_SPLIT_ORDER; i++) {
		KUNIT_EXPECT_EQ_MSG(test,
				    kt_count(log, KT_PAGE_FREE, page + i, &ev),
				    1, "piece %d freed", i);
		KUNIT_EXPECT_EQ_MSG(test, ev.bytes, PAGE_SIZE, "piece %d", i);
		KUNIT_EXPECT_GT_MSG(test, kt_index(log, KT_PAGE_FREE, page + i),
				    split, "piece %d freed after the split", i);
	}
}

static noinline void *kt_vmalloc_call(size_t size)
{
	void *p = vmalloc(size);

	OPTIMIZER_HIDE_VAR(p);
	return p;
}

static noinline void *kt_vrealloc_call(void *p, size_t size)
{
	void *q = vrealloc(p, size, GFP_KERNEL);

	OPTIMIZER_HIDE_VAR(q);
	return q;
}

static noinline void kt_vfree_call(void *p)
{
	vfree(p);
	barrier();
}

/*
 * vmalloc(), an in-place vrealloc() and vfree() fire their tracepoints
 * naming their callers, vfree() while its area is still there (of the
 * size vmalloc() mapped: an in-place vrealloc() keeps it), and every page
 * vfree() frees was traced allocated (vmalloc takes them from
 * alloc_pages_bulk()).
 */
static void test_vmalloc(struct kunit *test)
{
	struct kt_log *log = test->priv;
	struct page *pages[KT_VPAGES] = {};
	void *p, *q = NULL;
	int i;

	p = kt_vmalloc_call(KT_VPAGES * PAGE_SIZE);
	if (p) {
		for (i = 0; i < KT_VPAGES; i++)
			pages[i] = vmalloc_to_page(p + i * PAGE_SIZE);
		q = kt_vrealloc_call(p, 2 * PAGE_SIZE);
		kt_vfree_call(q ? q : p);
	}
	kt_stop(log);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_PTR_EQ(test, q, p);
	kt_expect_one(test, KT_VMALLOC, p, KT_VPAGES * PAGE_SIZE,
		      kt_vmalloc_call);
	kt_expect_one(test, KT_VREALLOC, p, 2 * PAGE_SIZE, kt_vrealloc_call);
	kt_expect_one(test, KT_VFREE, p, KT_VPAGES * PAGE_SIZE, kt_vfree_call);
	kt_expect_pages(test, pages, KT_VPAGES);
}

static struct kunit_case kmem_trace_test_cases[] = {
	KUNIT_CASE(test_pages_bulk),
	KUNIT_CASE(test_objects_bulk),
	KUNIT_CASE(test_large_kmalloc_once),
	KUNIT_CASE(test_kfree_cache),
	KUNIT_CASE(test_krealloc_in_place),
	KUNIT_CASE(test_pages_exact),
	KUNIT_CASE(test_split_page),
	KUNIT_CASE(test_vmalloc),
	{}
};

static struct kunit_suite kmem_trace_test_suite = {
	.name = "kmem_trace",
	.init = kt_init,
	.exit = kt_exit,
	.test_cases = kmem_trace_test_cases,
};

kunit_test_suite(kmem_trace_test_suite);

MODULE_DESCRIPTION("KUnit tests of the kmem and vmalloc tracepoints");
MODULE_LICENSE("GPL");
