// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for kmemtrace.
 *
 * Each test allocates and frees known memory through one allocator API,
 * from the test function itself, while the events kmemtrace records are
 * copied aside (kmemtrace_capture_start()): those of the test task only,
 * or of every context where the API defers work.  It then looks up the
 * events of that memory's address and compares them field by field with
 * what the API must have produced: exactly one alloc and one free, of the
 * right type, with the right sizes, GFP flags, node, cache id, page order,
 * flags, and a call site inside the test function, whatever the API did
 * internally.  The copy is taken where the relay buffers are written,
 * after the event is complete.
 *
 * See Documentation/trace/kmemtrace.rst.
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/irq_work.h>
#include <linux/kallsyms.h>
#include <linux/kmemtrace.h>
#include <linux/mempool.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "../percpu-internal.h"
#include "../slab.h"
#include "kmemtrace.h"

#define CAPTURE_MAX	8192

struct kmemtrace_test_ctx {
	struct kmemtrace_capture capture;
	unsigned int count;
	bool was_enabled;
};

/* An event as the test expects it. */
struct expect_event {
	u8		type;
	u8		order;
	u16		flags;
	u8		migratetype;
	u64		bytes_req;
	u64		bytes_alloc;
	u32		gfp_flags;
	s32		node;
	u32		cache_id;
	const char	*caller;
};

/* === Capturing =========================================================== */

static void capture_begin(struct kunit *test, bool all_contexts)
{
	struct kmemtrace_test_ctx *ctx = test->priv;

	ctx->capture.task = all_contexts ? NULL : current;
	kmemtrace_capture_start(&ctx->capture);
}

static void capture_end(struct kunit *test)
{
	struct kmemtrace_test_ctx *ctx = test->priv;

	ctx->count = kmemtrace_capture_stop();
	KUNIT_EXPECT_LE_MSG(test, atomic_read(&ctx->capture.next),
			    ctx->capture.max, "capture buffer overflowed");
}

static unsigned int count_events(struct kunit *test, const void *ptr,
				 u8 kind, u8 type,
				 const struct kmemtrace_event **found)
{
	struct kmemtrace_test_ctx *ctx = test->priv;
	unsigned int i, n = 0;

	for (i = 0; i < ctx->count; i++) {
		const struct kmemtrace_event *ev = &ctx->capture.events[i];

		if (ev->ptr != (unsigned long)ptr || ev->kind != kind ||
		    ev->type != type)
			continue;
		if (found)
			*found = ev;
		n++;
	}
	return n;
}

/* All events at @ptr, of any kind and type. */
static unsigned int ctx_events_at(struct kunit *test, const void *ptr)
{
	struct kmemtrace_test_ctx *ctx = test->priv;
	unsigned int i, n = 0;

	for (i = 0; i < ctx->count; i++)
		n += ctx->capture.events[i].ptr == (unsigned long)ptr;
	return n;
}

/* The only event of @kind and @type for @ptr, or NULL (a failure). */
static const struct kmemtrace_event *
find_one(struct kunit *test, const void *ptr, u8 kind, u8 type)
{
	const struct kmemtrace_event *ev = NULL;
	unsigned int n = count_events(test, ptr, kind, type, &ev);

	KUNIT_EXPECT_EQ_MSG(test, n, 1, "events of kind %u type %u for %p",
			    kind, type, ptr);
	return n == 1 ? ev : NULL;
}

static void expect_event(struct kunit *test, const struct kmemtrace_event *ev,
			 const struct expect_event *want)
{
	char sym[KSYM_SYMBOL_LEN], *module;

	if (!ev)
		return;
	KUNIT_EXPECT_EQ(test, ev->magic, KMEMTRACE_MAGIC);
	KUNIT_EXPECT_EQ(test, ev->abi_version, KMEMTRACE_ABI_VERSION);
	KUNIT_EXPECT_EQ(test, ev->type, want->type);
	KUNIT_EXPECT_EQ(test, ev->order, want->order);
	KUNIT_EXPECT_EQ(test, ev->flags, want->flags);
	KUNIT_EXPECT_EQ(test, ev->migratetype, want->migratetype);
	KUNIT_EXPECT_EQ(test, ev->bytes_req, want->bytes_req);
	KUNIT_EXPECT_EQ(test, ev->bytes_alloc, want->bytes_alloc);
	KUNIT_EXPECT_EQ(test, ev->gfp_flags, want->gfp_flags);
	KUNIT_EXPECT_EQ(test, ev->node, want->node);
	KUNIT_EXPECT_EQ(test, ev->cache_id, want->cache_id);
	KUNIT_EXPECT_LT(test, ev->cpu, nr_cpu_ids);
	if (!(ev->flags & KMEMTRACE_FLAG_INTERRUPT))
		KUNIT_EXPECT_EQ(test, ev->pid, (u32)current->pid);
	sprint_symbol_no_offset(sym, ev->call_site);
	module = strchr(sym, ' ');	/* " [kmemtrace_test]" when modular */
	if (module)
		*module = '\0';
	KUNIT_EXPECT_STREQ(test, sym, want->caller);
}

/* Exactly one alloc and one free of @type for @ptr, as expected. */
static void expect_alloc_free(struct kunit *test, const void *ptr,
			      const struct expect_event *alloc,
			      const struct expect_event *free)
{
	expect_event(test, find_one(test, ptr, KMEMTRACE_KIND_ALLOC,
				    alloc->type), alloc);
	expect_event(test, find_one(test, ptr, KMEMTRACE_KIND_FREE,
				    free->type), free);
}

/* A free: no sizes and no GFP flags, except for pages. */
#define FREE_OF(_type, _caller) \
	(&(struct expect_event){ .type = (_type), .node = KMEMTRACE_NO_NODE, \
				 .caller = (_caller) })

/* === Slab ================================================================ */

static void test_kmalloc_kfree(struct kunit *test)
{
	void *p;

	capture_begin(test, false);
	p = kmalloc(24, GFP_KERNEL);
	kfree(p);
	capture_end(test);

	KUNIT_ASSERT_NOT_NULL(test, p);
	expect_alloc_free(test, p, &(struct expect_event) {
				.type = KMEMTRACE_TYPE_KMALLOC,
				.bytes_req = 24,
				.bytes_alloc = kmalloc_size_roundup(24),
				.gfp_flags = (__force u32)GFP_KERNEL,
				.node = KMEMTRACE_NO_NODE,
				.caller = __func__,
			  }, FREE_OF(KMEMTRACE_TYPE_KMALLOC, __func__));
}

static void test_kmalloc_node(struct kunit *test)
{
	void *p;

	capture_begin(test, false);
	p = kmalloc_node(200, GFP_KERNEL | __GFP_ZERO, 0);
	kfree(p);
	capture_end(test);

	KUNIT_ASSERT_NOT_NULL(test, p);
	expect_alloc_free(test, p, &(struct expect_event) {
				.type = KMEMTRACE_TYPE_KMALLOC,
				.bytes_req = 200,
				.bytes_alloc = kmalloc_size_roundup(200),
				.gfp_flags = (__force u32)(GFP_KERNEL | __GFP_ZERO),
				.node = 0,
				.caller = __func__,
			  }, FREE_OF(KMEMTRACE_TYPE_KMALLOC, __func__));
}

/* Beyond the kmalloc caches: one kmalloc event, no page event. */
static void test_kmalloc_large(struct kunit *test)
{
	const size_t size = 5 * PAGE_SIZE + 1;
	void *p;

	capture_begin(test, false);
	p = kmalloc(size, GFP_KERNEL);
	kfree(p);
	capture_end(test);

	KUNIT_ASSERT_NOT_NULL(test, p);
	expect_alloc_free(test, p, &(struct expect_event) {
				.type = KMEMTRACE_TYPE_KMALLOC,
				.bytes_req = size,
				.bytes_alloc = PAGE_SIZE << get_order(size),
				.gfp_flags = (__force u32)GFP_KERNEL,
				.node = KMEMTRACE_NO_NODE,
				.caller = __func__,
			  }, FREE_OF(KMEMTRACE_TYPE_KMALLOC, __func__));
	KUNIT_EXPECT_EQ(test, count_events(test, p, KMEMTRACE_KIND_ALLOC,
					   KMEMTRACE_TYPE_PAGES, NULL), 0);
	KUNIT_EXPECT_EQ(test, count_events(test, p, KMEMTRACE_KIND_FREE,
					   KMEMTRACE_TYPE_PAGES, NULL), 0);
}

static void test_kmem_cache_alloc_free(struct kunit *test)
{
	struct kmem_cache *s;
	void *p;

	s = kmem_cache_create("kmemtrace_test", 56, 0, 0, NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	capture_begin(test, false);
	p = kmem_cache_alloc(s, GFP_KERNEL);
	kmem_cache_free(s, p);
	capture_end(test);

	KUNIT_EXPECT_NOT_NULL(test, p);
	KUNIT_EXPECT_NE(test, s->kmemtrace_id, 0);
	expect_alloc_free(test, p, &(struct expect_event) {
				.type = KMEMTRACE_TYPE_CACHE,
				.bytes_req = s->object_size,
				.bytes_alloc = s->size,
				.gfp_flags = (__force u32)GFP_KERNEL,
				.node = KMEMTRACE_NO_NODE,
				.cache_id = s->kmemtrace_id,
				.caller = __func__,
			  }, &(struct expect_event) {
				.type = KMEMTRACE_TYPE_CACHE,
				.node = KMEMTRACE_NO_NODE,
				.cache_id = s->kmemtrace_id,
				.caller = __func__,
			  });
	kmem_cache_destroy(s);
}

static void test_kmem_cache_bulk(struct kunit *test)
{
	struct kmem_cache *s;
	void *p[4];
	int i, n;

	s = kmem_cache_create("kmemtrace_bulk", 120, 0, 0, NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	capture_begin(test, false);
	n = kmem_cache_alloc_bulk(s, GFP_KERNEL, ARRAY_SIZE(p), p);
	if (n)
		kmem_cache_free_bulk(s, n, p);
	capture_end(test);

	KUNIT_ASSERT_EQ(test, n, ARRAY_SIZE(p));
	for (i = 0; i < n; i++)
		expect_alloc_free(test, p[i], &(struct expect_event) {
				.type = KMEMTRACE_TYPE_CACHE,
				.bytes_req = s->object_size,
				.bytes_alloc = s->size,
				.gfp_flags = (__force u32)GFP_KERNEL,
				.node = KMEMTRACE_NO_NODE,
				.cache_id = s->kmemtrace_id,
				.caller = __func__,
			  }, &(struct expect_event) {
				.type = KMEMTRACE_TYPE_CACHE,
				.node = KMEMTRACE_NO_NODE,
				.cache_id = s->kmemtrace_id,
				.caller = __func__,
			  });
	kmem_cache_destroy(s);
}

/*
 * A new cache's first object needs a slab: its pages are recorded as
 * backing store, with the caller of the allocation that needed them.
 */
static void test_slab_pages_backing(struct kunit *test)
{
	struct kmemtrace_test_ctx *ctx = test->priv;
	struct kmem_cache *s;
	unsigned int i, pages = 0;
	void *p;

	s = kmem_cache_create("kmemtrace_slab", 300, 0, SLAB_NO_MERGE, NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	capture_begin(test, false);
	p = kmem_cache_alloc(s, GFP_KERNEL);
	capture_end(test);
	kmem_cache_free(s, p);
	kmem_cache_destroy(s);

	KUNIT_ASSERT_NOT_NULL(test, p);
	for (i = 0; i < ctx->count; i++) {
		const struct kmemtrace_event *ev = &ctx->capture.events[i];
		char sym[KSYM_SYMBOL_LEN];

		if (ev->type != KMEMTRACE_TYPE_PAGES)
			continue;
		pages++;
		KUNIT_EXPECT_EQ(test, ev->kind, KMEMTRACE_KIND_ALLOC);
		KUNIT_EXPECT_EQ(test, ev->flags, KMEMTRACE_FLAG_BACKING);
		KUNIT_EXPECT_LE(test, (unsigned long)ev->ptr, (unsigned long)p);
		KUNIT_EXPECT_GT(test, (unsigned long)ev->ptr + ev->bytes_alloc,
				(unsigned long)p);
		sprint_symbol_no_offset(sym, ev->call_site);
		KUNIT_EXPECT_STREQ(test, sym, __func__);
	}
	KUNIT_EXPECT_EQ(test, pages, 1);
}

/* kfree_bulk(), which kvfree_rcu() frees through: one free per object. */
static void test_kfree_bulk(struct kunit *test)
{
	void *p[3];
	int i;

	for (i = 0; i < ARRAY_SIZE(p); i++) {
		p[i] = kmalloc(32 << i, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
	}
	capture_begin(test, false);
	kfree_bulk(ARRAY_SIZE(p), p);
	capture_end(test);

	for (i = 0; i < ARRAY_SIZE(p); i++)
		expect_event(test, find_one(test, p[i], KMEMTRACE_KIND_FREE,
					    KMEMTRACE_TYPE_KMALLOC),
			     FREE_OF(KMEMTRACE_TYPE_KMALLOC, __func__));
}

/* In place: one realloc event with the new size, nothing else. */
static void test_krealloc_in_place(struct kunit *test)
{
	void *p, *q;

	p = kmalloc(40, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	capture_begin(test, false);
	q = krealloc(p, 50, GFP_KERNEL);
	capture_end(test);
	kfree(q ? q : p);

	KUNIT_ASSERT_PTR_EQ(test, p, q);
	expect_event(test, find_one(test, p, KMEMTRACE_KIND_REALLOC,
				    KMEMTRACE_TYPE_KMALLOC),
		     &(struct expect_event) {
			.type = KMEMTRACE_TYPE_KMALLOC,
			.bytes_req = 50,
			.bytes_alloc = kmalloc_size_roundup(40),
			.gfp_flags = (__force u32)GFP_KERNEL,
			.node = KMEMTRACE_NO_NODE,
			.caller = __func__,
		     });
	KUNIT_EXPECT_EQ(test, ctx_events_at(test, p), 1);
}

/* Moving: an alloc of the new object and a free of the old, both ours. */
static void test_krealloc_move(struct kunit *test)
{
	void *p, *q;

	p = kmalloc(40, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	capture_begin(test, false);
	q = krealloc(p, 700, GFP_KERNEL);
	capture_end(test);
	kfree(q ? q : p);

	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_ASSERT_PTR_NE(test, p, q);
	expect_event(test, find_one(test, q, KMEMTRACE_KIND_ALLOC,
				    KMEMTRACE_TYPE_KMALLOC),
		     &(struct expect_event) {
			.type = KMEMTRACE_TYPE_KMALLOC,
			.bytes_req = 700,
			.bytes_alloc = kmalloc_size_roundup(700),
			.gfp_flags = (__force u32)GFP_KERNEL,
			.node = KMEMTRACE_NO_NODE,
			.caller = __func__,
		     });
	expect_event(test, find_one(test, p, KMEMTRACE_KIND_FREE,
				    KMEMTRACE_TYPE_KMALLOC),
		     FREE_OF(KMEMTRACE_TYPE_KMALLOC, __func__));
}

static void test_kfree_sensitive(struct kunit *test)
{
	void *p = kmalloc(64, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	capture_begin(test, false);
	kfree_sensitive(p);
	capture_end(test);

	expect_event(test, find_one(test, p, KMEMTRACE_KIND_FREE,
				    KMEMTRACE_TYPE_KMALLOC),
		     FREE_OF(KMEMTRACE_TYPE_KMALLOC, __func__));
}

/* === kvmalloc ============================================================ */

static void test_kvmalloc_kmalloc(struct kunit *test)
{
	void *p;

	capture_begin(test, false);
	p = kvmalloc(100, GFP_KERNEL);
	kvfree(p);
	capture_end(test);

	KUNIT_ASSERT_NOT_NULL(test, p);
	expect_alloc_free(test, p, &(struct expect_event) {
				.type = KMEMTRACE_TYPE_KMALLOC,
				.bytes_req = 100,
				.bytes_alloc = kmalloc_size_roundup(100),
				.gfp_flags = (__force u32)GFP_KERNEL,
				.node = KMEMTRACE_NO_NODE,
				.caller = __func__,
			  }, FREE_OF(KMEMTRACE_TYPE_KMALLOC, __func__));
}

/*
 * Too big for kmalloc: the vmalloc fallback is one vmalloc event with our
 * caller; its pages are flagged as backing store, and carry our caller.
 */
static void test_kvmalloc_vmalloc(struct kunit *test)
{
	struct kmemtrace_test_ctx *ctx = test->priv;
	const size_t size = KMALLOC_MAX_SIZE + PAGE_SIZE;
	size_t mapped = 0;
	u64 backing = 0;
	unsigned int i;
	void *p;

	capture_begin(test, false);
	p = kvmalloc(size, GFP_KERNEL | __GFP_NOWARN);
	/* Rounded up to huge pages where vmalloc can map those. */
	if (is_vmalloc_addr(p))
		mapped = get_vm_area_size(find_vm_area(p));
	kvfree(p);
	capture_end(test);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_TRUE(test, is_vmalloc_addr(p));
	KUNIT_EXPECT_GE(test, mapped, size);
	expect_alloc_free(test, p, &(struct expect_event) {
				.type = KMEMTRACE_TYPE_VMALLOC,
				.bytes_req = size,
				.bytes_alloc = mapped,
				.gfp_flags = (__force u32)(GFP_KERNEL | __GFP_NOWARN),
				.node = KMEMTRACE_NO_NODE,
				.caller = __func__,
			  }, FREE_OF(KMEMTRACE_TYPE_VMALLOC, __func__));
	KUNIT_EXPECT_EQ(test, count_events(test, p, KMEMTRACE_KIND_ALLOC,
					   KMEMTRACE_TYPE_KMALLOC, NULL), 0);
	for (i = 0; i < ctx->count; i++) {
		const struct kmemtrace_event *ev = &ctx->capture.events[i];

		if (ev->type != KMEMTRACE_TYPE_PAGES ||
		    ev->kind != KMEMTRACE_KIND_ALLOC)
			continue;
		KUNIT_EXPECT_TRUE(test, ev->flags & KMEMTRACE_FLAG_BACKING);
		backing += ev->bytes_alloc;
	}
	KUNIT_EXPECT_GE(test, backing, size);
}

static void test_kvrealloc_in_place(struct kunit *test)
{
	void *p, *q;

	p = kvmalloc(40, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	capture_begin(test, false);
	q = kvrealloc(p, 60, GFP_KERNEL);
	capture_end(test);
	kvfree(q ? q : p);

	KUNIT_ASSERT_PTR_EQ(test, p, q);
	expect_event(test, find_one(test, p, KMEMTRACE_KIND_REALLOC,
				    KMEMTRACE_TYPE_KMALLOC),
		     &(struct expect_event) {
			.type = KMEMTRACE_TYPE_KMALLOC,
			.bytes_req = 60,
			.bytes_alloc = kmalloc_size_roundup(40),
			.gfp_flags = (__force u32)GFP_KERNEL,
			.node = KMEMTRACE_NO_NODE,
			.caller = __func__,
		     });
}

/* === vmalloc ============================================================= */

static void test_vmalloc_vfree(struct kunit *test)
{
	const size_t size = 3 * PAGE_SIZE + 100;
	void *p;

	capture_begin(test, false);
	p = vmalloc(size);
	vfree(p);
	capture_end(test);

	KUNIT_ASSERT_NOT_NULL(test, p);
	expect_alloc_free(test, p, &(struct expect_event) {
				.type = KMEMTRACE_TYPE_VMALLOC,
				.bytes_req = size,
				.bytes_alloc = PAGE_ALIGN(size),
				.gfp_flags = (__force u32)GFP_KERNEL,
				.node = NUMA_NO_NODE,
				.caller = __func__,
			  }, FREE_OF(KMEMTRACE_TYPE_VMALLOC, __func__));
}

/* The free is recorded at the call, not again when the work runs. */
static void test_vfree_atomic(struct kunit *test)
{
	void *p = vmalloc(PAGE_SIZE);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, p);
	capture_begin(test, true);
	vfree_atomic(p);
	for (i = 0; i < 100 && find_vm_area(p); i++)
		msleep(20);
	capture_end(test);

	KUNIT_EXPECT_NULL(test, find_vm_area(p));
	expect_event(test, find_one(test, p, KMEMTRACE_KIND_FREE,
				    KMEMTRACE_TYPE_VMALLOC),
		     FREE_OF(KMEMTRACE_TYPE_VMALLOC, __func__));
}

static void test_vrealloc_in_place(struct kunit *test)
{
	void *p, *q;

	p = vmalloc(5000);
	KUNIT_ASSERT_NOT_NULL(test, p);
	capture_begin(test, false);
	q = vrealloc(p, 6000, GFP_KERNEL);
	capture_end(test);
	vfree(q ? q : p);

	KUNIT_ASSERT_PTR_EQ(test, p, q);
	expect_event(test, find_one(test, p, KMEMTRACE_KIND_REALLOC,
				    KMEMTRACE_TYPE_VMALLOC),
		     &(struct expect_event) {
			.type = KMEMTRACE_TYPE_VMALLOC,
			.bytes_req = 6000,
			.bytes_alloc = PAGE_ALIGN(5000),
			.gfp_flags = (__force u32)GFP_KERNEL,
			.node = KMEMTRACE_NO_NODE,
			.caller = __func__,
		     });
}

/* === Pages =============================================================== */

/* A page event: sizes from the order, node and migratetype of the page. */
static struct expect_event *page_event(struct expect_event *e,
				       const void *addr, unsigned int order,
				       gfp_t gfp, const char *caller)
{
	*e = (struct expect_event) {
		.type = KMEMTRACE_TYPE_PAGES,
		.order = order,
		.migratetype = gfp ? gfp_migratetype(gfp) : 0,
		.bytes_req = PAGE_SIZE << order,
		.bytes_alloc = PAGE_SIZE << order,
		.gfp_flags = (__force u32)gfp,
		.node = page_to_nid(virt_to_page(addr)),
		.caller = caller,
	};
	return e;
}

static void test_alloc_pages(struct kunit *test)
{
	struct expect_event a, f;
	struct page *page;
	void *p;

	capture_begin(test, false);
	page = alloc_pages(GFP_KERNEL, 2);
	p = page ? page_address(page) : NULL;
	if (page)
		__free_pages(page, 2);
	capture_end(test);

	KUNIT_ASSERT_NOT_NULL(test, p);
	expect_alloc_free(test, p, page_event(&a, p, 2, GFP_KERNEL, __func__),
			  page_event(&f, p, 2, 0, __func__));
}

static void test_get_free_pages(struct kunit *test)
{
	struct expect_event a, f;
	unsigned long addr;

	capture_begin(test, false);
	addr = __get_free_pages(GFP_KERNEL | __GFP_ZERO, 1);
	free_pages(addr, 1);
	capture_end(test);

	KUNIT_ASSERT_NE(test, addr, 0);
	expect_alloc_free(test, (void *)addr,
			  page_event(&a, (void *)addr, 1,
				     GFP_KERNEL | __GFP_ZERO, __func__),
			  page_event(&f, (void *)addr, 1, 0, __func__));
}

static void test_folio_alloc_put(struct kunit *test)
{
	struct expect_event a, f;
	struct folio *folio;
	void *p;

	capture_begin(test, false);
	folio = folio_alloc(GFP_KERNEL, 1);
	p = folio ? folio_address(folio) : NULL;
	if (folio)
		folio_put(folio);
	capture_end(test);

	KUNIT_ASSERT_NOT_NULL(test, p);
	expect_alloc_free(test, p,
			  page_event(&a, p, 1, GFP_KERNEL | __GFP_COMP, __func__),
			  page_event(&f, p, 1, 0, __func__));
}

/* Pages from the bulk allocator's per-CPU fast path are seen too. */
static void test_alloc_pages_bulk(struct kunit *test)
{
	struct page *pages[4] = { };
	struct expect_event a, f;
	unsigned long i, n;

	capture_begin(test, false);
	n = alloc_pages_bulk_array(GFP_KERNEL, ARRAY_SIZE(pages), pages);
	for (i = 0; i < n; i++)
		__free_page(pages[i]);
	capture_end(test);

	KUNIT_ASSERT_EQ(test, n, ARRAY_SIZE(pages));
	for (i = 0; i < n; i++) {
		void *p = page_address(pages[i]);

		expect_alloc_free(test, p,
				  page_event(&a, p, 0, GFP_KERNEL, __func__),
				  page_event(&f, p, 0, 0, __func__));
	}
}

/* One allocation of exactly the size asked for, whatever is split off. */
static void test_alloc_pages_exact(struct kunit *test)
{
	const size_t size = 3 * PAGE_SIZE;
	void *p;

	capture_begin(test, false);
	p = alloc_pages_exact(size, GFP_KERNEL);
	free_pages_exact(p, size);
	capture_end(test);

	KUNIT_ASSERT_NOT_NULL(test, p);
	expect_alloc_free(test, p, &(struct expect_event) {
				.type = KMEMTRACE_TYPE_PAGES,
				.order = get_order(size),
				.bytes_req = size,
				.bytes_alloc = size,
				.gfp_flags = (__force u32)GFP_KERNEL,
				.node = KMEMTRACE_NO_NODE,
				.caller = __func__,
			  }, &(struct expect_event) {
				.type = KMEMTRACE_TYPE_PAGES,
				.order = get_order(size),
				.bytes_req = size,
				.bytes_alloc = size,
				.node = KMEMTRACE_NO_NODE,
				.caller = __func__,
			  });
	KUNIT_EXPECT_EQ(test, ctx_events_at(test, p), 2);
}

/* === Percpu and mempool ================================================== */

static void test_alloc_percpu(struct kunit *test)
{
	void __percpu *p;
	const void *key;

	capture_begin(test, false);
	p = __alloc_percpu(24, 8);
	free_percpu(p);
	capture_end(test);

	KUNIT_ASSERT_NOT_NULL(test, p);
	key = (__force const void *)p;
	expect_event(test, find_one(test, key, KMEMTRACE_KIND_ALLOC,
				    KMEMTRACE_TYPE_PERCPU),
		     &(struct expect_event) {
			.type = KMEMTRACE_TYPE_PERCPU,
			.bytes_req = 24,
			.bytes_alloc = pcpu_obj_full_size(24),
			.gfp_flags = (__force u32)GFP_KERNEL,
			.node = KMEMTRACE_NO_NODE,
			.caller = __func__,
		     });
	expect_event(test, find_one(test, key, KMEMTRACE_KIND_FREE,
				    KMEMTRACE_TYPE_PERCPU),
		     FREE_OF(KMEMTRACE_TYPE_PERCPU, __func__));
}

/* What the pool allocates and frees is charged to the pool's user. */
static void test_mempool(struct kunit *test)
{
	mempool_t *pool;
	void *p;

	pool = mempool_create_kmalloc_pool(0, 72);
	KUNIT_ASSERT_NOT_NULL(test, pool);
	capture_begin(test, false);
	p = mempool_alloc(pool, GFP_KERNEL);
	if (p)
		mempool_free(p, pool);
	capture_end(test);
	mempool_destroy(pool);

	KUNIT_ASSERT_NOT_NULL(test, p);
	expect_alloc_free(test, p, &(struct expect_event) {
				.type = KMEMTRACE_TYPE_KMALLOC,
				.bytes_req = 72,
				.bytes_alloc = kmalloc_size_roundup(72),
				.gfp_flags = (__force u32)(GFP_KERNEL &
							   ~__GFP_DIRECT_RECLAIM &
							   ~__GFP_IO) |
					     (__force u32)(__GFP_NOMEMALLOC |
							   __GFP_NORETRY |
							   __GFP_NOWARN),
				.node = KMEMTRACE_NO_NODE,
				.caller = __func__,
			  }, FREE_OF(KMEMTRACE_TYPE_KMALLOC, __func__));
}

/* === Recording =========================================================== */

/* Events of one CPU are written in sequence order. */
static void test_seq_increases(struct kunit *test)
{
	struct kmemtrace_test_ctx *ctx = test->priv;
	struct kmemtrace_event *ev = ctx->capture.events;
	void *p[8];
	unsigned int i, j;

	capture_begin(test, false);
	for (i = 0; i < ARRAY_SIZE(p); i++)
		p[i] = kmalloc(16 << i, GFP_KERNEL);
	for (i = 0; i < ARRAY_SIZE(p); i++)
		kfree(p[i]);
	capture_end(test);

	KUNIT_EXPECT_GE(test, ctx->count, 2 * ARRAY_SIZE(p));
	for (i = 0; i < ctx->count; i++)
		for (j = i + 1; j < ctx->count; j++)
			if (ev[i].cpu == ev[j].cpu)
				KUNIT_EXPECT_LT(test, ev[i].seq, ev[j].seq);
}

static void test_disabled_records_nothing(struct kunit *test)
{
	struct kmemtrace_test_ctx *ctx = test->priv;
	void *p;

	kmemtrace_disable();
	KUNIT_EXPECT_FALSE(test, kmemtrace_enabled());
	capture_begin(test, true);
	p = kmalloc(24, GFP_KERNEL);
	kfree(p);
	p = vmalloc(PAGE_SIZE);
	vfree(p);
	capture_end(test);
	KUNIT_EXPECT_EQ(test, ctx->count, 0);
}

/* === Cache names ========================================================= */

struct cache_name_work {
	struct irq_work	work;
	unsigned int	id;
	bool		in_hardirq;
	bool		found;
	char		name[32];
};

static void cache_name_irq(struct irq_work *work)
{
	struct cache_name_work *w = container_of(work, struct cache_name_work,
						 work);

	w->in_hardirq = in_hardirq();
	w->found = kmemtrace_cache_name(w->id, w->name, sizeof(w->name));
}

/*
 * The tracer's output names caches from any context: ftrace_dump() prints
 * it on an oops, from an interrupt, maybe with slab_mutex held.
 */
static void test_cache_name_lockless(struct kunit *test)
{
	struct cache_name_work w = {
		.work = IRQ_WORK_INIT_HARD(cache_name_irq),
	};
	char name[32] = "";
	struct kmem_cache *s;
	unsigned int id;
	bool found;

	/* slab_mutex and kmem_cache are not exported to modules. */
	if (!IS_BUILTIN(CONFIG_KMEMTRACE_KUNIT_TEST))
		kunit_skip(test, "needs slab_mutex: built in only");

	s = kmem_cache_create("kmt_name_test", 40, 0, SLAB_NO_MERGE, NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	id = s->kmemtrace_id;
	w.id = id;

	mutex_lock(&slab_mutex);
	found = kmemtrace_cache_name(id, name, sizeof(name));
	irq_work_queue(&w.work);
	irq_work_sync(&w.work);
	mutex_unlock(&slab_mutex);

	KUNIT_EXPECT_TRUE(test, found);
	KUNIT_EXPECT_STREQ(test, name, "kmt_name_test");
	KUNIT_EXPECT_TRUE(test, w.in_hardirq);
	KUNIT_EXPECT_TRUE(test, w.found);
	KUNIT_EXPECT_STREQ(test, w.name, "kmt_name_test");

	/* A cache of the boot, created before kmalloc() worked. */
	strscpy(name, "", sizeof(name));
	KUNIT_EXPECT_TRUE(test, kmemtrace_cache_name(kmem_cache->kmemtrace_id,
						     name, sizeof(name)));
	KUNIT_EXPECT_STREQ(test, name, "kmem_cache");

	/* A destroyed cache has no name any more. */
	kmem_cache_destroy(s);
	KUNIT_EXPECT_FALSE(test, kmemtrace_cache_name(id, name, sizeof(name)));
}

static int kmemtrace_test_init(struct kunit *test)
{
	struct kmemtrace_test_ctx *ctx;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	ctx->capture.events = vcalloc(CAPTURE_MAX,
				      sizeof(*ctx->capture.events));
	if (!ctx->capture.events)
		return -ENOMEM;
	ctx->capture.max = CAPTURE_MAX;
	ctx->was_enabled = kmemtrace_enabled();
	test->priv = ctx;
	return kmemtrace_enable();
}

static void kmemtrace_test_exit(struct kunit *test)
{
	struct kmemtrace_test_ctx *ctx = test->priv;

	kmemtrace_capture_stop();
	vfree(ctx->capture.events);
	if (!ctx->was_enabled)
		kmemtrace_disable();
}

static struct kunit_case kmemtrace_test_cases[] = {
	KUNIT_CASE(test_kmalloc_kfree),
	KUNIT_CASE(test_kmalloc_node),
	KUNIT_CASE(test_kmalloc_large),
	KUNIT_CASE(test_kmem_cache_alloc_free),
	KUNIT_CASE(test_kmem_cache_bulk),
	KUNIT_CASE(test_slab_pages_backing),
	KUNIT_CASE(test_kfree_bulk),
	KUNIT_CASE(test_krealloc_in_place),
	KUNIT_CASE(test_krealloc_move),
	KUNIT_CASE(test_kfree_sensitive),
	KUNIT_CASE(test_kvmalloc_kmalloc),
	KUNIT_CASE(test_kvmalloc_vmalloc),
	KUNIT_CASE(test_kvrealloc_in_place),
	KUNIT_CASE(test_vmalloc_vfree),
	KUNIT_CASE(test_vfree_atomic),
	KUNIT_CASE(test_vrealloc_in_place),
	KUNIT_CASE(test_alloc_pages),
	KUNIT_CASE(test_get_free_pages),
	KUNIT_CASE(test_folio_alloc_put),
	KUNIT_CASE(test_alloc_pages_bulk),
	KUNIT_CASE(test_alloc_pages_exact),
	KUNIT_CASE(test_alloc_percpu),
	KUNIT_CASE(test_mempool),
	KUNIT_CASE(test_seq_increases),
	KUNIT_CASE(test_disabled_records_nothing),
	KUNIT_CASE(test_cache_name_lockless),
	{}
};

static struct kunit_suite kmemtrace_test_suite = {
	.name = "kmemtrace",
	.init = kmemtrace_test_init,
	.exit = kmemtrace_test_exit,
	.test_cases = kmemtrace_test_cases,
};
kunit_test_suites(&kmemtrace_test_suite);

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_DESCRIPTION("KUnit tests for kmemtrace");
MODULE_LICENSE("GPL");
