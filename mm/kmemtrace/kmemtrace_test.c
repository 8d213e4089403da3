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

#include <kunit/device.h>
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/ftrace.h>
#include <linux/gfp.h>
#include <linux/hardirq.h>
#include <linux/irq_work.h>
#include <linux/kallsyms.h>
#include <linux/kmemtrace.h>
#include <linux/kthread.h>
#include <linux/mempool.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/percpu.h>
#include <linux/prandom.h>
#include <linux/pgalloc_tag.h>
#include <linux/rcupdate.h>
#include <linux/relay.h>
#include <linux/sched/signal.h>
#include <linux/shrinker.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/stackdepot.h>
#include <linux/string.h>
#include <linux/swap.h>
#include <linux/timer.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <trace/events/kmem.h>

#ifdef CONFIG_X86_TSC
#include <asm/tsc.h>
#endif

#include "../percpu-internal.h"
#include "../slab.h"
#include "kmemtrace.h"

#define CAPTURE_MAX	16384

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
	KUNIT_EXPECT_EQ(test, ev->__reserved0[0] | ev->__reserved0[1] |
			ev->__reserved0[2] | ev->__reserved1, 0);
	KUNIT_EXPECT_EQ(test, ev->sample_period, 0);
	/* Stacks are off but in the tests that switch them on. */
	KUNIT_EXPECT_EQ(test, ev->stack_id, 0);
	/* Every allocation API goes through alloc_hooks(): it has a tag. */
	if (ev->kind == KMEMTRACE_KIND_FREE || ev->kind == KMEMTRACE_KIND_SPLIT ||
	    !IS_ENABLED(CONFIG_MEM_ALLOC_PROFILING))
		KUNIT_EXPECT_EQ(test, ev->tag, 0);
	else
		KUNIT_EXPECT_NE(test, ev->tag, 0);
	if (!(ev->flags & KMEMTRACE_FLAG_INTERRUPT))
		KUNIT_EXPECT_EQ(test, ev->pid, (u32)current->pid);
	sprint_symbol_no_offset(sym, ev->call_site);
	module = strchr(sym, ' ');	/* " [kmemtrace_test]" when modular */
	if (module)
		*module = '\0';
	KUNIT_EXPECT_STREQ(test, sym, want->caller);
}

/* The function an event names as its call site. */
static const char *event_caller(const struct kmemtrace_event *ev, char *sym)
{
	char *module;

	sprint_symbol_no_offset(sym, ev->call_site);
	module = strchr(sym, ' ');
	if (module)
		*module = '\0';
	return sym;
}

/* The only alloc of @type whose memory contains @addr, or NULL. */
static const struct kmemtrace_event *
find_alloc_containing(struct kunit *test, const void *addr, u8 type)
{
	struct kmemtrace_test_ctx *ctx = test->priv;
	const struct kmemtrace_event *found = NULL;
	unsigned long a = (unsigned long)addr;
	unsigned int i, n = 0;

	for (i = 0; i < ctx->count; i++) {
		const struct kmemtrace_event *ev = &ctx->capture.events[i];

		if (ev->kind != KMEMTRACE_KIND_ALLOC || ev->type != type ||
		    a < ev->ptr || a >= ev->ptr + ev->bytes_alloc)
			continue;
		found = ev;
		n++;
	}
	KUNIT_EXPECT_EQ_MSG(test, n, 1, "allocs of type %u containing %p",
			    type, addr);
	return n == 1 ? found : NULL;
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

/*
 * What a kmalloc() of @size bytes beyond the kmalloc caches in @caller
 * recorded: one kmalloc event and one kfree event for @p, no page event.
 */
static void expect_kmalloc_large(struct kunit *test, const void *p,
				 size_t size, const char *caller)
{
	KUNIT_ASSERT_NOT_NULL(test, p);
	expect_alloc_free(test, p, &(struct expect_event) {
				.type = KMEMTRACE_TYPE_KMALLOC,
				.bytes_req = size,
				.bytes_alloc = PAGE_SIZE << get_order(size),
				.gfp_flags = (__force u32)GFP_KERNEL,
				.node = KMEMTRACE_NO_NODE,
				.caller = caller,
			  }, FREE_OF(KMEMTRACE_TYPE_KMALLOC, caller));
	KUNIT_EXPECT_EQ(test, count_events(test, p, KMEMTRACE_KIND_ALLOC,
					   KMEMTRACE_TYPE_PAGES, NULL), 0);
	KUNIT_EXPECT_EQ(test, count_events(test, p, KMEMTRACE_KIND_FREE,
					   KMEMTRACE_TYPE_PAGES, NULL), 0);
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
	expect_kmalloc_large(test, p, size, __func__);
}

/*
 * The same with a size the compiler does not know, which goes through
 * __kmalloc_noprof(): 6.12 fired kmalloc twice there, once naming
 * __kmalloc_noprof() as the caller.
 */
static void test_kmalloc_large_runtime_size(struct kunit *test)
{
	size_t size = 5 * PAGE_SIZE + 1;
	void *p;

	OPTIMIZER_HIDE_VAR(size);
	capture_begin(test, false);
	p = kmalloc(size, GFP_KERNEL);
	kfree(p);
	capture_end(test);
	expect_kmalloc_large(test, p, size, __func__);
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

/* A free typed by the cache the object belongs to. */
static struct expect_event *cache_free(struct expect_event *e,
				       unsigned int cache_id,
				       const char *caller)
{
	*e = (struct expect_event) {
		.type = KMEMTRACE_TYPE_CACHE,
		.node = KMEMTRACE_NO_NODE,
		.cache_id = cache_id,
		.caller = caller,
	};
	return e;
}

/* kfree() of a kmem_cache object is a free of that cache's object. */
static void test_kfree_cache_object(struct kunit *test)
{
	struct expect_event f;
	struct kmem_cache *s;
	unsigned int id;
	void *p;

	s = kmem_cache_create("kmemtrace_kfree", 56, 0, SLAB_NO_MERGE, NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	id = s->kmemtrace_id;
	p = kmem_cache_alloc(s, GFP_KERNEL);
	capture_begin(test, false);
	kfree(p);
	capture_end(test);
	kmem_cache_destroy(s);

	KUNIT_ASSERT_NOT_NULL(test, p);
	expect_event(test, find_one(test, p, KMEMTRACE_KIND_FREE,
				    KMEMTRACE_TYPE_CACHE),
		     cache_free(&f, id, __func__));
	KUNIT_EXPECT_EQ(test, count_events(test, p, KMEMTRACE_KIND_FREE,
					   KMEMTRACE_TYPE_KMALLOC, NULL), 0);
}

/* kfree_bulk() of kmem_cache objects: one free of the cache per object. */
static void test_kfree_bulk_cache_objects(struct kunit *test)
{
	struct expect_event f;
	struct kmem_cache *s;
	unsigned int id;
	void *p[4];
	int i, n;

	s = kmem_cache_create("kmemtrace_kfree_bulk", 96, 0, SLAB_NO_MERGE,
			      NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	id = s->kmemtrace_id;
	n = kmem_cache_alloc_bulk(s, GFP_KERNEL, ARRAY_SIZE(p), p);
	capture_begin(test, false);
	if (n)
		kfree_bulk(n, p);
	capture_end(test);
	kmem_cache_destroy(s);

	KUNIT_ASSERT_EQ(test, n, ARRAY_SIZE(p));
	for (i = 0; i < n; i++)
		expect_event(test, find_one(test, p[i], KMEMTRACE_KIND_FREE,
					    KMEMTRACE_TYPE_CACHE),
			     cache_free(&f, id, __func__));
}

struct kmemtrace_rcu_obj {
	struct rcu_head rcu;
	long data[5];
};

/*
 * kfree_rcu() of a kmem_cache object: freed later by RCU, in another
 * context, as a free of the object's cache.
 */
static void test_kfree_rcu_cache_object(struct kunit *test)
{
	const struct kmemtrace_event *ev;
	struct kmemtrace_rcu_obj *obj;
	struct kmem_cache *s;
	unsigned int id;

	s = kmem_cache_create("kmemtrace_kfree_rcu", sizeof(*obj), 0,
			      SLAB_NO_MERGE, NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	id = s->kmemtrace_id;
	obj = kmem_cache_alloc(s, GFP_KERNEL);
	capture_begin(test, true);
	if (obj)
		kfree_rcu(obj, rcu);
	kvfree_rcu_barrier();
	capture_end(test);
	kmem_cache_destroy(s);

	KUNIT_ASSERT_NOT_NULL(test, obj);
	ev = find_one(test, obj, KMEMTRACE_KIND_FREE, KMEMTRACE_TYPE_CACHE);
	if (ev)
		KUNIT_EXPECT_EQ(test, ev->cache_id, id);
	KUNIT_EXPECT_EQ(test, count_events(test, obj, KMEMTRACE_KIND_FREE,
					   KMEMTRACE_TYPE_KMALLOC, NULL), 0);
}

/* A kmalloc of @size, by the test function @caller. */
static struct expect_event *kmalloc_event(struct expect_event *e, size_t size,
					  gfp_t gfp, const char *caller)
{
	*e = (struct expect_event) {
		.type = KMEMTRACE_TYPE_KMALLOC,
		.bytes_req = size,
		.bytes_alloc = kmalloc_size_roundup(size),
		.gfp_flags = (__force u32)gfp,
		.node = KMEMTRACE_NO_NODE,
		.caller = caller,
	};
	return e;
}

/* Helpers that allocate with kmalloc_track_caller() name their caller. */
static void test_kstrdup_caller(struct kunit *test)
{
	static const char src[] = "kmemtrace";
	const size_t size[] = { sizeof(src), 5, 7 };
	struct expect_event a;
	char *p[3];
	int i;

	capture_begin(test, false);
	p[0] = kstrdup(src, GFP_KERNEL);
	p[1] = kstrndup(src, 4, GFP_KERNEL);
	p[2] = kmemdup_nul(src, 6, GFP_KERNEL);
	for (i = 0; i < ARRAY_SIZE(p); i++)
		kfree(p[i]);
	capture_end(test);

	for (i = 0; i < ARRAY_SIZE(p); i++) {
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
		expect_alloc_free(test, p[i],
				  kmalloc_event(&a, size[i], GFP_KERNEL, __func__),
				  FREE_OF(KMEMTRACE_TYPE_KMALLOC, __func__));
	}
}

/* The same for the copies of user memory. */
static void test_memdup_user_caller(struct kunit *test)
{
	struct expect_event a;
	unsigned long uaddr;
	void *p, *q;

	uaddr = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			      MAP_ANONYMOUS | MAP_PRIVATE, 0);
	if (!uaddr)
		kunit_skip(test, "no user memory");
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)uaddr, "kmemtrace",
					   10), 0);
	capture_begin(test, false);
	p = memdup_user((void __user *)uaddr, 10);
	q = memdup_user_nul((void __user *)uaddr, 9);
	if (!IS_ERR(p))
		kfree(p);
	if (!IS_ERR(q))
		kfree(q);
	capture_end(test);

	KUNIT_ASSERT_FALSE(test, IS_ERR(p));
	KUNIT_ASSERT_FALSE(test, IS_ERR(q));
	expect_alloc_free(test, p,
			  kmalloc_event(&a, 10, GFP_USER | __GFP_NOWARN,
					__func__),
			  FREE_OF(KMEMTRACE_TYPE_KMALLOC, __func__));
	expect_alloc_free(test, q, kmalloc_event(&a, 10, GFP_KERNEL, __func__),
			  FREE_OF(KMEMTRACE_TYPE_KMALLOC, __func__));
}

/* devm_kmalloc() is charged to the driver that called it. */
static void test_devm_kmalloc_caller(struct kunit *test)
{
	const struct kmemtrace_event *ev;
	char sym[KSYM_SYMBOL_LEN];
	struct device *dev;
	void *p;

	dev = kunit_device_register(test, "kmemtrace_devm");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	capture_begin(test, false);
	p = devm_kmalloc(dev, 40, GFP_KERNEL);
	if (p)
		devm_kfree(dev, p);
	capture_end(test);

	KUNIT_ASSERT_NOT_NULL(test, p);
	/* The devres header is in front of the memory handed out. */
	ev = find_alloc_containing(test, p, KMEMTRACE_TYPE_KMALLOC);
	if (ev)
		KUNIT_EXPECT_STREQ(test, event_caller(ev, sym), __func__);
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

/*
 * The page array of a 2 MiB area is kmalloc'ed, that of a bigger one
 * vmalloc'ed: besides the area's own alloc and free, everything vmalloc
 * allocates and frees for it (page array, vm_struct, pages, page tables,
 * the vmap_area, and the vmap_areas the lazy purge frees, which
 * vm_unmap_aliases() runs here) is backing store.
 */
static void test_vmalloc_bookkeeping_backing(struct kunit *test)
{
	static const size_t sizes[] = { SZ_2M, SZ_4M };
	struct kmemtrace_test_ctx *ctx = test->priv;
	unsigned int i, k, own, vmap_areas;
	struct expect_event a;
	void *p;

	for (k = 0; k < ARRAY_SIZE(sizes); k++) {
		capture_begin(test, false);
		p = vmalloc(sizes[k]);
		vfree(p);
		vm_unmap_aliases();
		capture_end(test);

		KUNIT_ASSERT_NOT_NULL(test, p);
		a = (struct expect_event) {
			.type = KMEMTRACE_TYPE_VMALLOC,
			.bytes_req = sizes[k],
			.bytes_alloc = sizes[k],
			.gfp_flags = (__force u32)GFP_KERNEL,
			.node = NUMA_NO_NODE,
			.caller = __func__,
		};
		expect_alloc_free(test, p, &a,
				  FREE_OF(KMEMTRACE_TYPE_VMALLOC, __func__));
		for (i = 0, own = 0, vmap_areas = 0; i < ctx->count; i++) {
			const struct kmemtrace_event *ev = &ctx->capture.events[i];
			char name[32];

			vmap_areas += ev->type == KMEMTRACE_TYPE_CACHE &&
				      kmemtrace_cache_name(ev->cache_id, name,
							   sizeof(name)) &&
				      !strcmp(name, "vmap_area");
			if (ev->flags & KMEMTRACE_FLAG_BACKING)
				continue;
			own++;
			KUNIT_EXPECT_EQ_MSG(test, ev->ptr, (unsigned long)p,
					    "kind %u type %u size %llu unflagged",
					    ev->kind, ev->type, ev->bytes_alloc);
		}
		KUNIT_EXPECT_EQ(test, own, 2);
		/* The area's, at least: the purge may run in a worker. */
		KUNIT_EXPECT_GE(test, vmap_areas, 1);
	}
}

/*
 * A vmap() area's vm_struct is its caller's, not backing store as a
 * vmalloc() area's is (test_vmalloc_bookkeeping_backing()): only
 * vmalloc()'s scope (KMEMTRACE_SCOPE_VMALLOC) flags it, so vmap()'s
 * kzalloc() of it and vunmap()'s kfree() are recorded unflagged, paired.
 */
static void test_vmap_vm_struct_unflagged(struct kunit *test)
{
	struct kmemtrace_test_ctx *ctx = test->priv;
	struct page *page = alloc_page(GFP_KERNEL);
	unsigned int i, allocs = 0, frees = 0;
	unsigned long vm = 0;
	void *p;

	KUNIT_ASSERT_NOT_NULL(test, page);
	capture_begin(test, false);
	p = vmap(&page, 1, VM_MAP, PAGE_KERNEL);
	if (p) {
		vm = (unsigned long)find_vm_area(p);
		vunmap(p);
	}
	capture_end(test);
	__free_page(page);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_NE(test, vm, 0);
	for (i = 0; i < ctx->count; i++) {
		const struct kmemtrace_event *ev = &ctx->capture.events[i];

		if (ev->ptr != vm)
			continue;
		KUNIT_EXPECT_FALSE_MSG(test, ev->flags & KMEMTRACE_FLAG_BACKING,
				       "kind %u type %u flagged backing",
				       ev->kind, ev->type);
		if (ev->kind == KMEMTRACE_KIND_ALLOC) {
			allocs++;
			KUNIT_EXPECT_EQ(test, ev->type, KMEMTRACE_TYPE_KMALLOC);
			KUNIT_EXPECT_EQ(test, ev->bytes_req,
					sizeof(struct vm_struct));
		} else if (ev->kind == KMEMTRACE_KIND_FREE) {
			frees++;
		}
	}
	KUNIT_EXPECT_EQ(test, allocs, 1);
	KUNIT_EXPECT_EQ(test, frees, 1);
}

/*
 * A cache of allocator bookkeeping (kmemtrace_cache_backing(): vmalloc's
 * vmap_area) is a cache of its own: another of the same size, which slab
 * merging would put in the same kmem_cache (vmap_area's took ACPI's
 * Acpi-Operand objects in the bench kernels), gets no backing flag.
 */
static void test_backing_cache_unmerged(struct kunit *test)
{
	struct kmemtrace_test_ctx *ctx = test->priv;
	const struct kmemtrace_event *ev;
	unsigned int i, n = 0;
	struct kmem_cache *s;
	void *p;

	s = kmem_cache_create("kmemtrace_vmap_sized", sizeof(struct vmap_area),
			      __alignof__(struct vmap_area), 0, NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	capture_begin(test, false);
	p = kmem_cache_alloc(s, GFP_KERNEL);
	kmem_cache_free(s, p);
	capture_end(test);
	kmem_cache_destroy(s);

	KUNIT_ASSERT_NOT_NULL(test, p);
	for (i = 0; i < ctx->count; i++) {
		ev = &ctx->capture.events[i];
		if (ev->ptr != (unsigned long)p || ev->type != KMEMTRACE_TYPE_CACHE)
			continue;
		n++;
		KUNIT_EXPECT_FALSE_MSG(test, ev->flags & KMEMTRACE_FLAG_BACKING,
				       "kind %u flagged backing", ev->kind);
	}
	KUNIT_EXPECT_EQ(test, n, 2);
}

/*
 * A huge-page vmalloc() that cannot have its huge pages frees the area
 * inside vmalloc and retries with small pages.  That internal free is no
 * vfree of the caller: only the area handed out has events.  A pending
 * fatal signal fails the huge attempt (vm_area_alloc_pages() checks it
 * before each high-order page), not the retry (the bulk allocator).
 */
static void test_vmalloc_fail_no_phantom_free(struct kunit *test)
{
	struct kmemtrace_test_ctx *ctx = test->priv;
	unsigned int i, allocs = 0, frees = 0;
	bool huge = true;
	void *p;

	if (!arch_vmap_pmd_supported(PAGE_KERNEL))
		kunit_skip(test, "no huge vmalloc mappings");
	allow_signal(SIGKILL);
	send_sig(SIGKILL, current, 1);
	capture_begin(test, false);
	p = vmalloc_huge(SZ_4M, GFP_KERNEL);
	flush_signals(current);
	disallow_signal(SIGKILL);
	if (p)
		huge = is_vm_area_hugepages(p);
	vfree(p);
	capture_end(test);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_FALSE(test, huge);
	for (i = 0; i < ctx->count; i++) {
		const struct kmemtrace_event *ev = &ctx->capture.events[i];

		if (ev->type != KMEMTRACE_TYPE_VMALLOC ||
		    (ev->flags & KMEMTRACE_FLAG_BACKING))
			continue;
		KUNIT_EXPECT_EQ(test, ev->ptr, (unsigned long)p);
		allocs += ev->kind == KMEMTRACE_KIND_ALLOC;
		frees += ev->kind == KMEMTRACE_KIND_FREE;
	}
	KUNIT_EXPECT_EQ(test, allocs, 1);
	KUNIT_EXPECT_EQ(test, frees, 1);
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

#define SPLIT_ORDER	2

/*
 * split_page(): the allocation, then its split into order-0 pieces, with
 * the bytes of each and of the whole, before any piece is freed; then a
 * free of each piece.  No caller: split_page() is no API entry.
 */
static void test_split_page(struct kunit *test)
{
	struct kmemtrace_test_ctx *ctx = test->priv;
	const struct kmemtrace_event *split;
	struct expect_event a, f;
	struct page *page;
	void *p;
	int i;

	capture_begin(test, false);
	page = alloc_pages(GFP_KERNEL, SPLIT_ORDER);
	p = page ? page_address(page) : NULL;
	if (page) {
		split_page(page, SPLIT_ORDER);
		for (i = (1 << SPLIT_ORDER) - 1; i >= 0; i--)
			__free_page(page + i);
	}
	capture_end(test);

	KUNIT_ASSERT_NOT_NULL(test, p);
	expect_event(test, find_one(test, p, KMEMTRACE_KIND_ALLOC,
				    KMEMTRACE_TYPE_PAGES),
		     page_event(&a, p, SPLIT_ORDER, GFP_KERNEL, __func__));
	split = find_one(test, p, KMEMTRACE_KIND_SPLIT, KMEMTRACE_TYPE_PAGES);
	expect_event(test, split, &(struct expect_event) {
				.type = KMEMTRACE_TYPE_PAGES,
				.order = 0,
				.bytes_req = PAGE_SIZE,
				.bytes_alloc = PAGE_SIZE << SPLIT_ORDER,
				.node = page_to_nid(page),
				.caller = "0x0",
			  });
	KUNIT_ASSERT_NOT_NULL(test, split);
	KUNIT_EXPECT_EQ(test, split->call_site, 0);
	for (i = 0; i < 1 << SPLIT_ORDER; i++) {
		const struct kmemtrace_event *ev;
		void *q = p + i * PAGE_SIZE;

		ev = find_one(test, q, KMEMTRACE_KIND_FREE, KMEMTRACE_TYPE_PAGES);
		expect_event(test, ev, page_event(&f, q, 0, 0, __func__));
		if (ev)
			KUNIT_EXPECT_GT_MSG(test, ev - ctx->capture.events,
					    split - ctx->capture.events,
					    "piece %d freed before the split", i);
		KUNIT_EXPECT_EQ(test, ctx_events_at(test, q), i ? 1 : 3);
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

/*
 * Pages handed to the page allocator that it never handed out, as init
 * memory is: the free has no alloc, and says so.
 */
static void test_free_reserved_page_unpaired(struct kunit *test)
{
	struct expect_event f;
	struct page *page;
	void *p;

	page = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, page);
	p = page_address(page);
	mark_page_reserved(page);
	capture_begin(test, false);
	free_reserved_page(page);
	capture_end(test);

	page_event(&f, p, 0, 0, __func__);
	f.flags = KMEMTRACE_FLAG_UNPAIRED;
	expect_event(test, find_one(test, p, KMEMTRACE_KIND_FREE,
				    KMEMTRACE_TYPE_PAGES), &f);
}

/* === Reclaim ============================================================= */

/* What a test shrinker frees, for the test task only. */
struct reclaim_victims {
	struct task_struct *task;
	void *obj;
	struct page *page;
	bool freed;
};

static unsigned long victims_count(struct shrinker *sh,
				   struct shrink_control *sc)
{
	struct reclaim_victims *v = sh->private_data;

	return current == v->task && !v->freed ? 2 : 0;
}

static noinline unsigned long victims_scan(struct shrinker *sh,
					   struct shrink_control *sc)
{
	struct reclaim_victims *v = sh->private_data;

	if (current != v->task || v->freed)
		return SHRINK_STOP;
	v->freed = true;
	kfree(v->obj);
	__free_page(v->page);
	return 2;
}

/*
 * Direct reclaim entered from inside an allocator's internal page call
 * (scope @flags, under the scope of an API call): what the shrinker
 * frees is recorded, unflagged, with the shrinker as the call site.
 */
static void reclaim_under_scope(struct kunit *test, unsigned int flags)
{
	struct reclaim_victims v = { .task = current };
	struct expect_event f;
	struct shrinker *sh;
	void *addr;

	if (!IS_BUILTIN(CONFIG_KMEMTRACE_KUNIT_TEST))
		kunit_skip(test, "try_to_free_pages() needs the test built in");
	v.obj = kmalloc(48, GFP_KERNEL);
	v.page = alloc_page(GFP_KERNEL);
	sh = shrinker_alloc(0, "kmemtrace-test");
	if (!v.obj || !v.page || !sh) {
		kfree(v.obj);
		if (v.page)
			__free_page(v.page);
		if (sh)
			shrinker_free(sh);
		KUNIT_FAIL(test, "out of memory");
		return;
	}
	addr = page_address(v.page);
	sh->count_objects = victims_count;
	sh->scan_objects = victims_scan;
	sh->seeks = 0;
	sh->batch = 1;
	sh->private_data = &v;
	shrinker_register(sh);

	capture_begin(test, false);
#if IS_BUILTIN(CONFIG_KMEMTRACE_KUNIT_TEST)
	scoped_class(kmemtrace_scope, api, _THIS_IP_, 0) {
		scoped_class(kmemtrace_scope, internal, 0, flags)
			try_to_free_pages(node_zonelist(numa_node_id(),
							GFP_KERNEL),
					  0, GFP_KERNEL, NULL);
	}
#endif
	capture_end(test);
	shrinker_free(sh);
	if (!v.freed) {
		kfree(v.obj);
		__free_page(v.page);
	}

	KUNIT_ASSERT_TRUE_MSG(test, v.freed, "the shrinker did not run");
	expect_event(test, find_one(test, v.obj, KMEMTRACE_KIND_FREE,
				    KMEMTRACE_TYPE_KMALLOC),
		     FREE_OF(KMEMTRACE_TYPE_KMALLOC, "victims_scan"));
	expect_event(test, find_one(test, addr, KMEMTRACE_KIND_FREE,
				    KMEMTRACE_TYPE_PAGES),
		     page_event(&f, addr, 0, 0, "victims_scan"));
}

/* As under the page call of a large kmalloc() (not recorded itself). */
static void test_reclaim_under_suppress(struct kunit *test)
{
	reclaim_under_scope(test, KMEMTRACE_SCOPE_SUPPRESS);
}

/* As under the page call of a slab or vmalloc (recorded as backing). */
static void test_reclaim_under_backing(struct kunit *test)
{
	reclaim_under_scope(test, KMEMTRACE_SCOPE_BACKING);
}

/* === Percpu and mempool ================================================== */

/* Both sizes are for all possible CPUs; bytes_alloc adds the metadata. */
static void test_alloc_percpu(struct kunit *test)
{
	const struct kmemtrace_event *ev;
	void __percpu *p;
	const void *key;

	capture_begin(test, false);
	p = __alloc_percpu(24, 8);
	free_percpu(p);
	capture_end(test);

	KUNIT_ASSERT_NOT_NULL(test, (__force void *)p);
	key = (__force const void *)p;
	ev = find_one(test, key, KMEMTRACE_KIND_ALLOC, KMEMTRACE_TYPE_PERCPU);
	/* Whether the chunk charges its tag: see test_percpu_uncharged(). */
	expect_event(test, ev,
		     &(struct expect_event) {
			.type = KMEMTRACE_TYPE_PERCPU,
			.flags = ev ? ev->flags & KMEMTRACE_FLAG_UNCHARGED : 0,
			.bytes_req = 24 * num_possible_cpus(),
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

static int enable_fn(void *done)
{
	kmemtrace_enable();
	complete(done);
	return 0;
}

static int disable_fn(void *done)
{
	kmemtrace_disable();
	complete(done);
	return 0;
}

/*
 * Polls kmemtrace_enabled() while a kthread switches recording on
 * (@enable) or off, and counts the polls that found it on while a probe's
 * tracepoint was still off, or off while one was still on.  Each
 * tracepoint is read after kmemtrace_enabled(), which it may only follow.
 */
static unsigned long poll_while(struct kunit *test, bool enable)
{
	DECLARE_COMPLETION_ONSTACK(done);
	struct task_struct *t;
	unsigned long wrong = 0;
	bool on;

	t = kthread_run(enable ? enable_fn : disable_fn, &done,
			"kmemtrace_test");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	while (!completion_done(&done)) {
		on = kmemtrace_enabled();
		if (enable && on)
			wrong += kmemtrace_probes_on() != -1;
		else if (!enable && !on)
			wrong += kmemtrace_probes_on() != 0;
		cond_resched();
	}
	wait_for_completion(&done);
	return wrong;
}

/*
 * debugfs "enabled" reads kmemtrace_enabled(): a user that starts a
 * workload once it reads 1 must not miss the events of the tracepoints
 * attached last, nor find it 0 while probes still write.  It used to be
 * the relay sink's static key, switched on before the probes were
 * attached: the sample module's cache, page, percpu and vmalloc events
 * went missing in some boots.
 */
static void test_enabled_after_probes(struct kunit *test)
{
	kmemtrace_disable();
	KUNIT_ASSERT_FALSE(test, kmemtrace_enabled());
	KUNIT_EXPECT_EQ(test, poll_while(test, true), 0);
	KUNIT_EXPECT_TRUE(test, kmemtrace_enabled());
	KUNIT_EXPECT_EQ(test, kmemtrace_probes_on(), -1);
	KUNIT_EXPECT_EQ(test, poll_while(test, false), 0);
	KUNIT_EXPECT_FALSE(test, kmemtrace_enabled());
	KUNIT_EXPECT_EQ(test, kmemtrace_probes_on(), 0);
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

/*
 * Interrupts off do not keep NMIs out: an event in NMI context must not be
 * written into the middle of this CPU's buffer, but it takes its sequence
 * number and is counted as dropped and as an NMI event.
 */
static void test_nmi_event_counted_not_recorded(struct kunit *test)
{
	struct kmemtrace_cpu before, after;
	unsigned long flags;
	void *p = kmalloc(8, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	capture_begin(test, true);
	local_irq_save(flags);
	before = *this_cpu_ptr(&kmemtrace_cpu);
	nmi_enter();
	/* What a probe sees when an NMI handler frees memory. */
	trace_kfree(_THIS_IP_, p, NULL);
	nmi_exit();
	after = *this_cpu_ptr(&kmemtrace_cpu);
	local_irq_restore(flags);
	capture_end(test);
	kfree(p);

	KUNIT_EXPECT_EQ(test, ctx_events_at(test, p), 0);
	KUNIT_EXPECT_EQ(test, after.nmi - before.nmi, 1);
	KUNIT_EXPECT_EQ(test, after.seq - before.seq, 1);
	KUNIT_EXPECT_EQ(test, after.dropped - before.dropped, 1);
}

static struct dentry *late_create_buf_file(const char *filename,
					   struct dentry *parent, umode_t mode,
					   struct rchan_buf *buf,
					   int *is_global)
{
	if (!filename)
		return NULL;
	return debugfs_create_file(filename, 0400, parent, buf,
				   &relay_file_operations);
}

static int late_remove_buf_file(struct dentry *dentry)
{
	debugfs_remove(dentry);
	return 0;
}

static const struct rchan_callbacks late_callbacks = {
	.create_buf_file	= late_create_buf_file,
	.remove_buf_file	= late_remove_buf_file,
};

/*
 * A channel opened before its files can be (kmemtrace.enable=1 at early
 * boot) gets them from relay_late_setup_files().  A CPU that went offline
 * in between keeps its buffer, readable, so it must get its file too.
 */
static void test_late_files_for_offline_cpu(struct kunit *test)
{
	struct dentry *dir;
	struct rchan *chan;
	struct rchan_buf *buf;
	int ret;

	if (num_online_cpus() < 2 || !cpu_online(1))
		kunit_skip(test, "needs cpu1 online");
	dir = debugfs_create_dir("kmemtrace_test_late", NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(dir));
	chan = relay_open(NULL, NULL, 4096, 2, &late_callbacks, NULL);
	if (!chan) {
		debugfs_remove(dir);
		KUNIT_FAIL(test, "cannot open a buffer-only relay channel");
		return;
	}
	ret = remove_cpu(1);
	if (ret) {
		relay_close(chan);
		debugfs_remove(dir);
		kunit_skip(test, "cannot take cpu1 offline: %d", ret);
	}
	ret = relay_late_setup_files(chan, "cpu", dir);
	buf = *per_cpu_ptr(chan->buf, 1);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_NOT_NULL(test, buf);
	if (buf)
		KUNIT_EXPECT_NOT_NULL(test, buf->dentry);
	KUNIT_EXPECT_EQ(test, add_cpu(1), 0);
	relay_close(chan);
	debugfs_remove(dir);
}

/* === Clocks ============================================================== */

#ifdef CONFIG_X86_TSC
/* Recording again with @tsc for clock: the buffers released in between. */
static void record_with_clock(struct kunit *test, bool tsc)
{
	kmemtrace_disable();
	KUNIT_ASSERT_EQ(test, kmemtrace_release(), 0);
	KUNIT_ASSERT_EQ(test, kmemtrace_set_clock(tsc), 0);
	KUNIT_ASSERT_EQ(test, kmemtrace_enable(), 0);
}

/*
 * The "tsc" clock: a stream holds one clock's events, so the clock cannot
 * change while the buffers are allocated; the probe stamps the TSC; a
 * reader converts it as sched_clock() does, to the nanosecond, in place,
 * each event once, across the end of the ring.
 */
static void test_clock_tsc(struct kunit *test)
{
	size_t size = kmemtrace_ring_size, es = KMEMTRACE_EVENT_SIZE;
	const struct kmemtrace_event *found;
	struct kmemtrace_ring ring = { };
	struct kmemtrace_event *ev[4];
	u64 t0, t1, head, want[3];
	unsigned int i;
	void *buf, *p;

	if (!kmemtrace_tsc_usable())
		kunit_skip(test, "sched_clock() is not the TSC here");

	KUNIT_EXPECT_EQ(test, kmemtrace_set_clock(false), 0);
	KUNIT_EXPECT_EQ(test, kmemtrace_set_clock(true), -EBUSY);
	KUNIT_EXPECT_FALSE(test, static_key_enabled(&kmemtrace_tsc_key));
	record_with_clock(test, true);
	KUNIT_EXPECT_TRUE(test, static_key_enabled(&kmemtrace_tsc_key));
	KUNIT_EXPECT_EQ(test, kmemtrace_set_clock(false), -EBUSY);

	capture_begin(test, false);
	t0 = rdtsc();
	p = kmalloc(64, GFP_KERNEL);
	kfree(p);
	t1 = rdtsc();
	capture_end(test);
	KUNIT_EXPECT_EQ(test, count_events(test, p, KMEMTRACE_KIND_ALLOC,
					   KMEMTRACE_TYPE_KMALLOC, &found), 1);
	if (found) {
		KUNIT_EXPECT_GE(test, found->timestamp, t0);
		KUNIT_EXPECT_LE(test, found->timestamp, t1);
	}

	/* Three events from the ring's last slot on, and one not written. */
	buf = vzalloc(size);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < ARRAY_SIZE(ev); i++)
		ev[i] = buf + (size - es + i * es) % size;
	preempt_disable();
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		ev[i]->timestamp = t0 + i;
		want[i] = native_sched_clock_from_tsc(t0 + i);
	}
	ev[3]->timestamp = 42;
	ring.tail = 5 * size + size - es;
	ring.tail_pos = size - es;
	head = ring.tail + 3 * es;
	kmemtrace_clock_convert(&ring, buf, head);
	/* Again: nothing new to convert. */
	kmemtrace_clock_convert(&ring, buf, head);
	preempt_enable();
	for (i = 0; i < ARRAY_SIZE(want); i++)
		KUNIT_EXPECT_EQ(test, ev[i]->timestamp, want[i]);
	KUNIT_EXPECT_EQ(test, ev[3]->timestamp, 42);
	KUNIT_EXPECT_EQ(test, ring.stamped, head);
	/* Handed back unconverted: only what follows is converted. */
	ev[3]->timestamp = t0;
	ev[0] = buf + 3 * es;
	ev[0]->timestamp = t1;
	ring.tail = head + es;
	ring.tail_pos = 3 * es;
	preempt_disable();
	kmemtrace_clock_convert(&ring, buf, head + 2 * es);
	want[0] = native_sched_clock_from_tsc(t1);
	preempt_enable();
	KUNIT_EXPECT_EQ(test, ev[3]->timestamp, t0);
	KUNIT_EXPECT_EQ(test, ev[0]->timestamp, want[0]);
	KUNIT_EXPECT_EQ(test, ring.stamped, head + 2 * es);
	vfree(buf);

	record_with_clock(test, false);
	KUNIT_EXPECT_FALSE(test, static_key_enabled(&kmemtrace_tsc_key));
}
#else
static void test_clock_tsc(struct kunit *test)
{
	kunit_skip(test, "needs CONFIG_X86_TSC");
}
#endif

#ifdef CONFIG_KMEMTRACE_TRACER
static void tracer_stop_action(void *unused)
{
	kmemtrace_tracer_stop();
}
#endif

#if defined(CONFIG_X86_TSC) && defined(CONFIG_KMEMTRACE_TRACER)
static void clock_local_action(void *unused)
{
	kmemtrace_disable();
	if (!kmemtrace_release())
		kmemtrace_set_clock(false);
}

/* The time stamps of a kmalloc()/kfree() pair's events, captured. */
static void pair_stamps(struct kunit *test, u64 *alloc, u64 *freed)
{
	const struct kmemtrace_event *ev;
	void *p;

	capture_begin(test, false);
	p = kmalloc(64, GFP_KERNEL);
	kfree(p);
	capture_end(test);
	ev = find_one(test, p, KMEMTRACE_KIND_ALLOC, KMEMTRACE_TYPE_KMALLOC);
	*alloc = ev ? ev->timestamp : U64_MAX;
	ev = find_one(test, p, KMEMTRACE_KIND_FREE, KMEMTRACE_TYPE_KMALLOC);
	*freed = ev ? ev->timestamp : U64_MAX;
}

/*
 * While the tracer alone records, the probes write the CPU's spare event,
 * which no stream publishes: with the "tsc" clock as with "local", they
 * stamp it with nothing (it had the TSC read for it), and a relay
 * recording started beside the tracer stamps its events again.
 */
static void test_clock_tsc_tracer_alone(struct kunit *test)
{
	struct kmemtrace_test_ctx *ctx = test->priv;
	u64 alloc, freed;

	if (!kmemtrace_tsc_usable())
		kunit_skip(test, "sched_clock() is not the TSC here");
	if (ctx->was_enabled)
		kunit_skip(test, "kmemtrace was recording already");
	kmemtrace_disable();
	KUNIT_ASSERT_EQ(test, kmemtrace_release(), 0);
	KUNIT_ASSERT_EQ(test, kmemtrace_set_clock(true), 0);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, clock_local_action, NULL), 0);
	KUNIT_ASSERT_EQ(test, kmemtrace_tracer_start(), 0);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, tracer_stop_action, NULL), 0);

	pair_stamps(test, &alloc, &freed);
	KUNIT_EXPECT_EQ(test, alloc, 0);
	KUNIT_EXPECT_EQ(test, freed, 0);

	KUNIT_ASSERT_EQ(test, kmemtrace_enable(), 0);
	pair_stamps(test, &alloc, &freed);
	KUNIT_EXPECT_NE(test, alloc, 0);
	KUNIT_EXPECT_NE(test, freed, 0);
}
#else
static void test_clock_tsc_tracer_alone(struct kunit *test)
{
	kunit_skip(test, "needs CONFIG_X86_TSC and CONFIG_KMEMTRACE_TRACER");
}
#endif

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

/*
 * An API function that re-enters itself named (kmemtrace_api_unnamed())
 * must find its caller named in the inner call even if the scope key
 * went off in between, as it may while the key is switched: its sites
 * then disagree for a moment.  A scope that named the caller only while
 * the key is on re-entered again and again, to the stack's guard page,
 * in the stress boot.
 */
static void test_named_scope_without_key(struct kunit *test)
{
	kmemtrace_disable();
	KUNIT_ASSERT_FALSE(test, static_key_enabled(&kmemtrace_scope_key));
	KUNIT_ASSERT_FALSE(test, kmemtrace_scope_current()->caller);
	scoped_class(kmemtrace_named, kmt, 0x1234UL) {
		KUNIT_EXPECT_TRUE(test, kmemtrace_scope_current()->caller);
		KUNIT_EXPECT_EQ(test,
				(unsigned long)kmemtrace_scope_current()->caller,
				0x1234UL);
	}
	KUNIT_EXPECT_FALSE(test, kmemtrace_scope_current()->caller);
	KUNIT_EXPECT_EQ(test, kmemtrace_enable(), 0);
}

/*
 * An API function re-enters itself named only where its events are
 * recorded: not inside a scope that suppresses page events (a large
 * kmalloc()'s pages), where naming the caller cost the page allocator's
 * entry points a second call for events dropped anyway, nor inside a
 * named scope.
 */
static void test_api_unnamed_not_under_suppress(struct kunit *test)
{
	KUNIT_ASSERT_TRUE(test, static_key_enabled(&kmemtrace_name_key));
	KUNIT_ASSERT_FALSE(test, kmemtrace_scope_current()->caller);
	KUNIT_EXPECT_TRUE(test, kmemtrace_api_unnamed());
	scoped_class(kmemtrace_scope, in, 0, KMEMTRACE_SCOPE_SUPPRESS)
		KUNIT_EXPECT_FALSE(test, kmemtrace_api_unnamed());
	scoped_class(kmemtrace_named, kmt, _THIS_IP_)
		KUNIT_EXPECT_FALSE(test, kmemtrace_api_unnamed());
	KUNIT_EXPECT_TRUE(test, kmemtrace_api_unnamed());
}

/*
 * Every KMEMTRACE_ENTRY() function has the __fentry__ call the entry
 * hooks need (entry.c): one GCC inlined, or built without the function
 * tracer's flags, would run unhooked and its events name the API
 * function's callee instead of its caller.
 */
static void test_entries_all_hooked(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, kmemtrace_entries_missing_count(), 0);
}

static void notrace kmemtrace_test_ipmodify(unsigned long ip, unsigned long parent_ip,
					    struct ftrace_ops *op,
					    struct ftrace_regs *fregs)
{
}

/*
 * Another IPMODIFY ftrace_ops on an entry point (a livepatch of
 * __free_pages(), say) leaves kmemtrace no way to hook it: recording must
 * fail to start with -EBUSY, not run with that function's callers
 * unnamed, and start again once the other ops is gone.
 */
static void test_entries_busy(struct kunit *test)
{
	static struct ftrace_ops ops = {
		.func	= kmemtrace_test_ipmodify,
		.flags	= FTRACE_OPS_FL_IPMODIFY | FTRACE_OPS_FL_RECURSION,
	};

	kmemtrace_disable();
	KUNIT_ASSERT_EQ(test, ftrace_set_filter_ip(&ops, (unsigned long)__free_pages, 0, 1), 0);
	KUNIT_ASSERT_EQ(test, register_ftrace_function(&ops), 0);
	KUNIT_EXPECT_EQ(test, kmemtrace_enable(), -EBUSY);
	KUNIT_EXPECT_FALSE(test, kmemtrace_enabled());
	KUNIT_EXPECT_FALSE(test, static_key_enabled(&kmemtrace_scope_key));
	KUNIT_EXPECT_FALSE(test, static_key_enabled(&kmemtrace_name_key));
	unregister_ftrace_function(&ops);
	ftrace_free_filter(&ops);
	KUNIT_EXPECT_EQ(test, kmemtrace_enable(), 0);
	KUNIT_EXPECT_TRUE(test, kmemtrace_enabled());
}

/*
 * A scope keeps its caller in 56 bits on 64-bit (<linux/kmemtrace_types.h>):
 * kernel and module text addresses must read back whole, and the flags
 * beside the caller must not change it.
 */
static void test_scope_keeps_text_addresses(struct kunit *test)
{
	unsigned long callers[] = {
		_THIS_IP_,
		(unsigned long)kmemtrace_enable,
#ifdef MODULES_END
		MODULES_END - 1,
#endif
	};
	struct kmemtrace_scope *s;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(callers); i++) {
		scoped_class(kmemtrace_named, kmt, callers[i]) {
			scoped_class(kmemtrace_scope, in, 0,
				     KMEMTRACE_SCOPE_BACKING |
				     KMEMTRACE_SCOPE_UNPAIRED) {
				s = kmemtrace_scope_current();
				KUNIT_EXPECT_EQ(test, (unsigned long)s->caller,
						callers[i]);
				KUNIT_EXPECT_EQ(test, (unsigned int)s->flags,
						KMEMTRACE_SCOPE_BACKING |
						KMEMTRACE_SCOPE_UNPAIRED);
			}
		}
	}
	KUNIT_EXPECT_EQ(test, sizeof(struct kmemtrace_scope), 8);
}

/* === Codetags and stacks ================================================= */

/* The codetag an event names is the source line of the allocation. */
static void expect_tag(struct kunit *test, const struct kmemtrace_event *ev,
		       unsigned int line, const char *function)
{
#ifdef CONFIG_MEM_ALLOC_PROFILING
	const struct alloc_tag *tag;

	if (!ev)
		return;
	tag = (const struct alloc_tag *)(unsigned long)ev->tag;
	KUNIT_ASSERT_NOT_NULL(test, tag);
	KUNIT_EXPECT_STREQ(test, kbasename(tag->ct.filename),
			   "kmemtrace_test.c");
	KUNIT_EXPECT_EQ(test, tag->ct.lineno, line);
	KUNIT_EXPECT_STREQ(test, tag->ct.function, function);
#endif
}

static void test_alloc_tag_names_line(struct kunit *test)
{
	const struct kmemtrace_event *ev;
	unsigned int kline, pline;
	struct page *page;
	void *p;

	if (!IS_ENABLED(CONFIG_MEM_ALLOC_PROFILING))
		kunit_skip(test, "needs CONFIG_MEM_ALLOC_PROFILING");
	capture_begin(test, false);
	p = kmalloc(40, GFP_KERNEL);
	kline = __LINE__ - 1;
	page = alloc_pages(GFP_KERNEL, 1);
	pline = __LINE__ - 1;
	kfree(p);
	capture_end(test);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_NOT_NULL(test, page);
	expect_tag(test, find_one(test, p, KMEMTRACE_KIND_ALLOC,
				  KMEMTRACE_TYPE_KMALLOC), kline, __func__);
	ev = find_one(test, page_address(page), KMEMTRACE_KIND_ALLOC,
		      KMEMTRACE_TYPE_PAGES);
	expect_tag(test, ev, pline, __func__);
	/* The very tag /proc/allocinfo charged the pages to. */
	if (ev && mem_alloc_profiling_enabled())
		KUNIT_EXPECT_PTR_EQ(test, (void *)pgalloc_tag_get(page),
				    (void *)(unsigned long)ev->tag);
	ev = find_one(test, p, KMEMTRACE_KIND_FREE, KMEMTRACE_TYPE_KMALLOC);
	if (ev)
		KUNIT_EXPECT_EQ(test, ev->tag, 0);
	__free_pages(page, 1);
}

#ifdef CONFIG_MEM_ALLOC_PROFILING
static noinline void __percpu *percpu_here(void)
{
	return __alloc_percpu(24, 8);
}

/*
 * A percpu alloc is flagged uncharged exactly when /proc/allocinfo does
 * not count it: its tag's calls do not grow.  The first call finds the
 * tag, the second is checked against its counters.
 */
static void test_percpu_uncharged(struct kunit *test)
{
	const struct kmemtrace_event *ev;
	struct alloc_tag_counters before, after;
	struct alloc_tag *tag;
	void __percpu *p[2];

	if (!mem_alloc_profiling_enabled())
		kunit_skip(test, "allocation profiling is off");
	capture_begin(test, false);
	p[0] = percpu_here();
	capture_end(test);
	KUNIT_ASSERT_NOT_NULL(test, (__force void *)p[0]);
	ev = find_one(test, (__force const void *)p[0], KMEMTRACE_KIND_ALLOC,
		      KMEMTRACE_TYPE_PERCPU);
	KUNIT_ASSERT_NOT_NULL(test, ev);
	tag = (struct alloc_tag *)(unsigned long)ev->tag;
	KUNIT_ASSERT_NOT_NULL(test, tag);

	before = alloc_tag_read(tag);
	capture_begin(test, false);
	p[1] = percpu_here();
	capture_end(test);
	after = alloc_tag_read(tag);
	KUNIT_ASSERT_NOT_NULL(test, (__force void *)p[1]);
	ev = find_one(test, (__force const void *)p[1], KMEMTRACE_KIND_ALLOC,
		      KMEMTRACE_TYPE_PERCPU);
	if (ev) {
		KUNIT_EXPECT_PTR_EQ(test, (void *)(unsigned long)ev->tag,
				    (void *)tag);
		KUNIT_EXPECT_EQ(test, !!(ev->flags & KMEMTRACE_FLAG_UNCHARGED),
				after.calls == before.calls);
	}
	free_percpu(p[1]);
	free_percpu(p[0]);
}
#else
static void test_percpu_uncharged(struct kunit *test)
{
	kunit_skip(test, "needs CONFIG_MEM_ALLOC_PROFILING");
}
#endif

#ifdef CONFIG_KMEMTRACE_STACKS
static noinline void *stack_leaf(size_t size)
{
	return kmalloc(size, GFP_KERNEL);
}

static noinline void *stack_helper(size_t size)
{
	return stack_leaf(size);
}

/* Whether @addr is in function @fn. */
static bool frame_in(unsigned long addr, void *fn)
{
	unsigned long size, offset;

	return kallsyms_lookup_size_offset(addr, &size, &offset) &&
	       addr - offset == (unsigned long)fn;
}

/* Whether a frame of the stack behind @handle is in function @fn. */
static bool stack_has(u32 handle, void *fn)
{
	unsigned long *entries;
	unsigned int i, nr = stack_depot_fetch(handle, &entries);

	for (i = 0; i < nr; i++)
		if (frame_in(entries[i], fn))
			return true;
	return false;
}

static void test_stack_two_calls_deep(struct kunit *test)
{
	const struct kmemtrace_event *ev;
	void *p;

	KUNIT_ASSERT_EQ(test, kmemtrace_stack_configure(1, true), 0);
	capture_begin(test, false);
	p = stack_helper(72);
	kfree(p);
	capture_end(test);
	kmemtrace_stack_configure(0, false);

	KUNIT_ASSERT_NOT_NULL(test, p);
	ev = find_one(test, p, KMEMTRACE_KIND_ALLOC, KMEMTRACE_TYPE_KMALLOC);
	KUNIT_ASSERT_NOT_NULL(test, ev);
	KUNIT_ASSERT_NE(test, ev->stack_id, 0);
	KUNIT_EXPECT_FALSE(test, ev->flags & KMEMTRACE_FLAG_STACK_LOST);
	KUNIT_EXPECT_TRUE(test, stack_has(ev->stack_id, stack_leaf));
	KUNIT_EXPECT_TRUE(test, stack_has(ev->stack_id, stack_helper));
	KUNIT_EXPECT_TRUE(test, stack_has(ev->stack_id,
					  test_stack_two_calls_deep));
	/* stack_frees: the free has one too, from this function. */
	ev = find_one(test, p, KMEMTRACE_KIND_FREE, KMEMTRACE_TYPE_KMALLOC);
	KUNIT_ASSERT_NOT_NULL(test, ev);
	KUNIT_ASSERT_NE(test, ev->stack_id, 0);
	KUNIT_EXPECT_TRUE(test, stack_has(ev->stack_id,
					  test_stack_two_calls_deep));
	KUNIT_EXPECT_FALSE(test, stack_has(ev->stack_id, stack_leaf));
}

/*
 * One alloc in 3 per CPU: with interrupts off nothing else allocates on
 * this CPU, the objects come from the CPU's warm slab, and frees do not
 * count (no stack_frees), so exactly allocs 1, 4 and 7 get stacks.
 */
static void test_stack_sample_one_in_n(struct kunit *test)
{
	struct kmemtrace_test_ctx *ctx = test->priv;
	void *p[9];
	unsigned long flags;
	unsigned int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(p); i++)
		p[i] = kmalloc(104, GFP_KERNEL);
	for (i = 0; i < ARRAY_SIZE(p); i++)
		kfree(p[i]);
	KUNIT_ASSERT_EQ(test, kmemtrace_stack_configure(3, false), 0);
	capture_begin(test, false);
	local_irq_save(flags);
	for (i = 0; i < ARRAY_SIZE(p); i++) {
		p[i] = kmalloc(104, GFP_ATOMIC);
		kfree(p[i]);
	}
	local_irq_restore(flags);
	capture_end(test);
	kmemtrace_stack_configure(0, false);

	for (i = 0; i < ctx->count; i++) {
		const struct kmemtrace_event *ev = &ctx->capture.events[i];

		if (ev->kind == KMEMTRACE_KIND_FREE) {
			KUNIT_EXPECT_EQ(test, ev->stack_id, 0);
			continue;
		}
		KUNIT_EXPECT_EQ_MSG(test, ev->stack_id != 0, n % 3 == 0,
				    "alloc %u of the run", n);
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, ARRAY_SIZE(p));
}

/*
 * kmemtrace's walk of the stack (stacks.c) gives the frames the kernel's
 * does, from the same registers, from a helper two calls deep: the same
 * number, the same addresses.  Without registers each starts in the
 * function it is called from (kmemtrace_stack_walk_test() and
 * stack_trace_save()), at different places: compared from the helper's
 * frame on, the kernel's having at most three frames in front.
 */
static noinline unsigned int stack_walk_leaf(unsigned long *ours,
					     unsigned long *arch, bool regs,
					     unsigned int *nr_arch)
{
	unsigned int nr = kmemtrace_stack_walk_test(ours, arch, 32, regs,
						    nr_arch);

	barrier();	/* not a tail call: this frame stays on the stack */
	return nr;
}

static noinline unsigned int stack_walk_helper(unsigned long *ours,
					       unsigned long *arch, bool regs,
					       unsigned int *nr_arch)
{
	unsigned int nr = stack_walk_leaf(ours, arch, regs, nr_arch);

	barrier();
	return nr;
}

static void test_stack_walk_same_as_arch(struct kunit *test)
{
	unsigned long *ours, *arch;
	unsigned int nr, nr_arch, i, skip;

	ours = kunit_kcalloc(test, 32, sizeof(*ours), GFP_KERNEL);
	arch = kunit_kcalloc(test, 32, sizeof(*arch), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ours);
	KUNIT_ASSERT_NOT_NULL(test, arch);

	if (!IS_ENABLED(CONFIG_X86_64))
		goto no_regs;
	nr = stack_walk_helper(ours, arch, true, &nr_arch);
	KUNIT_ASSERT_GE(test, nr, 4);
	KUNIT_EXPECT_EQ(test, nr, nr_arch);
	for (i = 0; i < min(nr, nr_arch); i++)
		KUNIT_EXPECT_EQ_MSG(test, ours[i], arch[i], "frame %u: %pS against %pS",
				    i, (void *)ours[i], (void *)arch[i]);
	KUNIT_EXPECT_TRUE(test, frame_in(ours[1], stack_walk_leaf));
	KUNIT_EXPECT_TRUE(test, frame_in(ours[2], stack_walk_helper));
	KUNIT_EXPECT_TRUE(test, frame_in(ours[3], test_stack_walk_same_as_arch));

	memset(ours, 0, 32 * sizeof(*ours));
	memset(arch, 0, 32 * sizeof(*arch));
no_regs:
	nr = stack_walk_helper(ours, arch, false, &nr_arch);
	KUNIT_ASSERT_GE(test, nr, 4);
	KUNIT_EXPECT_TRUE_MSG(test, frame_in(ours[0], kmemtrace_stack_walk_test),
			      "first frame %pS", (void *)ours[0]);
	KUNIT_ASSERT_TRUE_MSG(test, frame_in(ours[1], stack_walk_leaf),
			      "second frame %pS", (void *)ours[1]);
	for (skip = 0; skip < nr_arch && arch[skip] != ours[1]; skip++)
		;
	KUNIT_ASSERT_LE_MSG(test, skip, 3, "first frame %pS", (void *)arch[0]);
	KUNIT_EXPECT_EQ(test, nr - 1, nr_arch - skip);
	for (i = 1; i < nr && skip + i - 1 < nr_arch; i++)
		KUNIT_EXPECT_EQ_MSG(test, ours[i], arch[skip + i - 1],
				    "frame %u: %pS against %pS", i,
				    (void *)ours[i], (void *)arch[skip + i - 1]);
}
#else
static void test_stack_two_calls_deep(struct kunit *test)
{
	kunit_skip(test, "needs CONFIG_KMEMTRACE_STACKS");
}

static void test_stack_sample_one_in_n(struct kunit *test)
{
	kunit_skip(test, "needs CONFIG_KMEMTRACE_STACKS");
}

static void test_stack_walk_same_as_arch(struct kunit *test)
{
	kunit_skip(test, "needs CONFIG_KMEMTRACE_STACKS");
}
#endif

/* === Sampling ============================================================ */

/*
 * The draws of a fixed seed: exponential with the mean asked for.  Over
 * 100000 draws the mean is within 4 standard deviations (the deviation of
 * an exponential is its mean: 4096 / sqrt(100000) = 13) of 4096 (plus
 * the 1 every draw adds), and half of them are below the median 4096 *
 * ln(2), within 4 standard deviations of a binomial (158).
 */
static void test_sample_draw_exponential(struct kunit *test)
{
	const unsigned int n = 100000, period = 4096, median = 2839;
	struct rnd_state rnd;
	unsigned int i, below = 0;
	u64 sum = 0;

	prandom_seed_state(&rnd, 42);
	for (i = 0; i < n; i++) {
		u64 d = kmemtrace_sample_draw(&rnd, period);

		KUNIT_ASSERT_GE(test, d, 1);
		sum += d;
		below += d <= median;
	}
	KUNIT_EXPECT_LE(test, abs((long)div_u64(sum, n) - (long)(period + 1)),
			4 * 13);
	KUNIT_EXPECT_LE(test, abs((int)below - (int)n / 2), 4 * 158);
}

/* After the test's exit stopped the recording: full recording again. */
static void sample_restore(void *unused)
{
	kmemtrace_disable();
	kmemtrace_sample_configure(0, 0, false);
}

/*
 * The ways a recording can sample, the parameter of the sampling tests:
 * the allocators' inline fast paths (CONFIG_KMEMTRACE_SAMPLE_HOOKS), and
 * probes on the tracepoints.
 */
static const bool sample_via_probes[] = { false, true };

static void sample_path_desc(const bool *probes, char *desc)
{
	strscpy(desc, *probes || !IS_ENABLED(CONFIG_KMEMTRACE_SAMPLE_HOOKS) ?
		"probes" : "hooks", KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sample_path, sample_via_probes, sample_path_desc);

/*
 * Record samples of mean @period from here to the end of the test, the
 * way its parameter says (the probes if it has none).
 */
static void sample_switch(struct kunit *test, unsigned int period)
{
	struct kmemtrace_test_ctx *ctx = test->priv;
	const bool *probes = test->param_value;

	if (ctx->was_enabled)
		kunit_skip(test, "kmemtrace was recording already");
	kmemtrace_disable();
	KUNIT_ASSERT_EQ(test, kmemtrace_sample_configure(period, 1,
							 !probes || *probes),
			0);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, sample_restore, NULL), 0);
	KUNIT_ASSERT_EQ(test, kmemtrace_enable(), 0);
	KUNIT_ASSERT_TRUE(test, kmemtrace_sampling());
}

/* A sampled event of @period, with its stack if an alloc. */
static void expect_sampled(struct kunit *test, const struct kmemtrace_event *ev,
			   unsigned int period)
{
	if (!ev)
		return;
	KUNIT_EXPECT_EQ(test, ev->sample_period, period);
	KUNIT_EXPECT_FALSE(test, ev->flags & KMEMTRACE_FLAG_UNTRACKED);
	if (IS_ENABLED(CONFIG_KMEMTRACE_STACKS) &&
	    ev->kind != KMEMTRACE_KIND_FREE)
		KUNIT_EXPECT_TRUE(test, ev->stack_id ||
				  (ev->flags & KMEMTRACE_FLAG_STACK_LOST));
}

/*
 * The sampled event of @ptr, @kind and @type names this test's function:
 * a sampling recording names callers from the stack, not by scope.
 */
static void expect_sampled_here(struct kunit *test, const void *ptr, u8 kind,
				u8 type)
{
	const struct kmemtrace_event *ev = find_one(test, ptr, kind, type);
	char sym[KSYM_SYMBOL_LEN];

	expect_sampled(test, ev, 1);
	if (ev)
		KUNIT_EXPECT_STREQ_MSG(test, event_caller(ev, sym),
				       "test_sample_every_allocation",
				       "kind %u type %u", kind, type);
}

/*
 * A mean of 1 byte samples every allocation: each is recorded with its
 * stack and its caller, its resize and its free too, but not the free
 * of memory allocated before the recording, nor the allocators' own
 * allocations (vmalloc's pages, page tables, vm_struct and vmap_area),
 * nor the pages of a large kmalloc(): nothing but the objects here.  A
 * sampling recording flags those by scope, or from the sample's stack
 * (kmemtrace_stack_scoped()), hooking no entry point.
 */
static void test_sample_every_allocation(struct kunit *test)
{
	struct kmemtrace_test_ctx *ctx = test->priv;
	void *before = kmalloc(64, GFP_KERNEL);
	mempool_t *pool = mempool_create_kmalloc_pool(0, 72);
	struct kmem_cache *s = kmem_cache_create("kmemtrace_sample_bulk", 120,
						 0, 0, NULL);
	void *p, *q, *v, *kv, *m, *large, *b[2], *kb[2];
	struct page *page;
	void __percpu *pc;
	unsigned int i;
	int nb;

	KUNIT_ASSERT_NOT_NULL(test, before);
	KUNIT_ASSERT_NOT_NULL(test, pool);
	KUNIT_ASSERT_NOT_NULL(test, s);
	sample_switch(test, 1);
	/* Named and flagged from stacks: no entry point is hooked. */
	if (kmemtrace_stack_names())
		KUNIT_EXPECT_EQ(test, kmemtrace_entries_attached(), 0);
	capture_begin(test, false);
	/*
	 * The bulk APIs, whose events the tracepoints' keys gate; in a size
	 * of its own, so that no object here reuses another's address.
	 */
	nb = kmem_cache_alloc_bulk(s, GFP_KERNEL, ARRAY_SIZE(b), b);
	if (nb)
		kmem_cache_free_bulk(s, nb, b);
	kb[0] = kmalloc(300, GFP_KERNEL);
	kb[1] = kmalloc(300, GFP_KERNEL);
	kfree_bulk(ARRAY_SIZE(kb), kb);
	/* A kmalloc() by mempool's element function, through a pointer. */
	m = mempool_alloc(pool, GFP_KERNEL);
	if (m)
		mempool_free(m, pool);
	p = kmalloc(100, GFP_KERNEL);
	q = krealloc(p, 120, GFP_KERNEL);
	page = alloc_page(GFP_KERNEL);
	v = vmalloc(3 * PAGE_SIZE);
	/* A kmalloc() inside kvmalloc(), which names its caller. */
	kv = kvmalloc(200, GFP_KERNEL);
	large = kmalloc(KMALLOC_MAX_CACHE_SIZE + 1, GFP_KERNEL);
	pc = alloc_percpu(u64);
	free_percpu(pc);
	kfree(large);
	kvfree(kv);
	vfree(v);
	if (page)
		__free_page(page);
	kfree(q);
	kfree(before);
	capture_end(test);
	mempool_destroy(pool);
	kmem_cache_destroy(s);

	KUNIT_ASSERT_EQ(test, nb, ARRAY_SIZE(b));
	for (i = 0; i < ARRAY_SIZE(b); i++) {
		expect_sampled_here(test, b[i], KMEMTRACE_KIND_ALLOC,
				    KMEMTRACE_TYPE_CACHE);
		expect_sampled_here(test, b[i], KMEMTRACE_KIND_FREE,
				    KMEMTRACE_TYPE_CACHE);
		KUNIT_ASSERT_NOT_NULL(test, kb[i]);
		expect_sampled_here(test, kb[i], KMEMTRACE_KIND_ALLOC,
				    KMEMTRACE_TYPE_KMALLOC);
		expect_sampled_here(test, kb[i], KMEMTRACE_KIND_FREE,
				    KMEMTRACE_TYPE_KMALLOC);
	}
	KUNIT_ASSERT_NOT_NULL(test, m);
	expect_sampled_here(test, m, KMEMTRACE_KIND_ALLOC, KMEMTRACE_TYPE_KMALLOC);
	expect_sampled_here(test, m, KMEMTRACE_KIND_FREE, KMEMTRACE_TYPE_KMALLOC);
	KUNIT_ASSERT_NOT_NULL(test, p);
	/* 100 and 120 bytes are both kmalloc-128: resized in place. */
	KUNIT_ASSERT_PTR_EQ(test, p, q);
	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_ASSERT_NOT_NULL(test, v);
	KUNIT_ASSERT_NOT_NULL(test, kv);
	KUNIT_ASSERT_NOT_NULL(test, (__force void *)pc);
	expect_sampled_here(test, kv, KMEMTRACE_KIND_ALLOC,
			    KMEMTRACE_TYPE_KMALLOC);
	expect_sampled_here(test, kv, KMEMTRACE_KIND_FREE, KMEMTRACE_TYPE_KMALLOC);
	expect_sampled_here(test, (__force void *)pc, KMEMTRACE_KIND_ALLOC,
			    KMEMTRACE_TYPE_PERCPU);
	expect_sampled_here(test, (__force void *)pc, KMEMTRACE_KIND_FREE,
			    KMEMTRACE_TYPE_PERCPU);
	expect_sampled_here(test, p, KMEMTRACE_KIND_ALLOC, KMEMTRACE_TYPE_KMALLOC);
	expect_sampled_here(test, p, KMEMTRACE_KIND_REALLOC,
			    KMEMTRACE_TYPE_KMALLOC);
	expect_sampled_here(test, p, KMEMTRACE_KIND_FREE, KMEMTRACE_TYPE_KMALLOC);
	expect_sampled_here(test, page_address(page), KMEMTRACE_KIND_ALLOC,
			    KMEMTRACE_TYPE_PAGES);
	expect_sampled_here(test, page_address(page), KMEMTRACE_KIND_FREE,
			    KMEMTRACE_TYPE_PAGES);
	expect_sampled_here(test, v, KMEMTRACE_KIND_ALLOC, KMEMTRACE_TYPE_VMALLOC);
	expect_sampled_here(test, v, KMEMTRACE_KIND_FREE, KMEMTRACE_TYPE_VMALLOC);
	KUNIT_ASSERT_NOT_NULL(test, large);
	expect_sampled_here(test, large, KMEMTRACE_KIND_ALLOC,
			    KMEMTRACE_TYPE_KMALLOC);
	expect_sampled_here(test, large, KMEMTRACE_KIND_FREE,
			    KMEMTRACE_TYPE_KMALLOC);
	KUNIT_EXPECT_EQ(test, ctx_events_at(test, before), 0);
	for (i = 0; i < ctx->count; i++) {
		const struct kmemtrace_event *ev = &ctx->capture.events[i];
		const void *ours[] = {
			b[0], b[1], kb[0], kb[1], m, p, page_address(page), v,
			kv, large, (__force void *)pc,
		};
		unsigned int j, nr_ours = ARRAY_SIZE(ours);

		for (j = 0; j < nr_ours; j++)
			if (ev->ptr == (unsigned long)ours[j])
				break;
		KUNIT_EXPECT_LT_MSG(test, j, nr_ours,
				    "kind %u type %u of memory not allocated here, flags %#x",
				    ev->kind, ev->type, ev->flags);

		KUNIT_EXPECT_EQ(test, ev->sample_period, 1);
		KUNIT_EXPECT_FALSE_MSG(test, ev->flags & (KMEMTRACE_FLAG_BACKING |
							 KMEMTRACE_FLAG_UNPAIRED),
				       "kind %u type %u flags %#x", ev->kind,
				       ev->type, ev->flags);
	}
}

struct api_named_scan {
	struct kunit *test;
	unsigned int copies;
};

/*
 * A *_named copy: its API function (*_noprof, or *) must be in the table.
 * Other functions whose names end so have no such function.
 */
static int api_named_check(void *data, const char *name, unsigned long addr)
{
	static const char suffix[] = "_named";
	struct api_named_scan *scan = data;
	char api[KSYM_NAME_LEN];
	size_t len = strlen(name), base;
	unsigned long fn;

	if (len <= sizeof(suffix) - 1 || strcmp(name + len - (sizeof(suffix) - 1), suffix))
		return 0;
	base = len - (sizeof(suffix) - 1);
	snprintf(api, sizeof(api), "%.*s_noprof", (int)base, name);
	fn = kallsyms_lookup_name(api);
	if (!fn) {
		snprintf(api, sizeof(api), "%.*s", (int)base, name);
		fn = kallsyms_lookup_name(api);
	}
	if (!fn)
		return 0;
	scan->copies++;
	KUNIT_EXPECT_TRUE_MSG(scan->test, kmemtrace_api_function(fn),
			      "%s names %s's caller, which is not in stacks.c's kmemtrace_api_names",
			      name, api);
	return 0;
}

/*
 * A sampling recording names callers from the stack, past the functions
 * of stacks.c's table of API functions, kept by hand beside the mm hooks:
 * every API function with an out-of-line copy that names its caller
 * (kmemtrace_api_unnamed(): the copies are all called *_named) must be in
 * it, or its samples would name the API function instead of its caller.
 */
static void test_sample_api_table_complete(struct kunit *test)
{
	struct api_named_scan scan = { .test = test };

	if (!kmemtrace_stack_names())
		kunit_skip(test, "no table of API functions (CONFIG_KMEMTRACE_STACKS, kallsyms)");
	kallsyms_on_each_symbol(api_named_check, &scan);
	/* alloc_pages(), __free_pages(), vfree() and the others. */
	KUNIT_EXPECT_GE(test, scan.copies, 20);
}

/*
 * A mean of 1 GiB samples none of a few small allocations (with seed 1
 * the first draw is far above them), and records none of their frees.
 */
static void test_sample_unsampled_record_nothing(struct kunit *test)
{
	struct kmemtrace_test_ctx *ctx = test->priv;
	void *p[8];
	unsigned int i;

	sample_switch(test, SZ_1G);
	capture_begin(test, false);
	for (i = 0; i < ARRAY_SIZE(p); i++)
		p[i] = kmalloc(64, GFP_KERNEL);
	for (i = 0; i < ARRAY_SIZE(p); i++)
		kfree(p[i]);
	capture_end(test);

	KUNIT_EXPECT_EQ(test, ctx->count, 0);
}

/*
 * Allocations are sampled only while every free path looks sampled
 * objects up (kmemtrace_sample_arm()): probes are attached, and a static
 * key's sites patched, one at a time.  An allocation sampled before its
 * free's path was on stayed in the table after that free, unseen, and
 * the next free of other memory at its address was recorded as its free
 * (guest/stress/sample_cycles.sh saw it).  Every allocation is sampled
 * here (mean 1 byte): the one made while the recording is not armed is
 * not, nor is its free; the next one at the same address is, with its
 * free, once each.
 */
static void test_sample_armed(struct kunit *test)
{
	struct kmemtrace_test_ctx *ctx = test->priv;
	const struct kmemtrace_event *ev = ctx->capture.events;
	void *p, *q;

	sample_switch(test, 1);
	capture_begin(test, false);
	kmemtrace_sample_arm(false);
	p = kmalloc(SZ_16K, GFP_KERNEL);
	kmemtrace_sample_arm(true);
	kfree(p);
	q = kmalloc(SZ_16K, GFP_KERNEL);
	kfree(q);
	capture_end(test);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_ASSERT_EQ(test, ctx->count, 2);
	KUNIT_EXPECT_EQ(test, ev[0].kind, KMEMTRACE_KIND_ALLOC);
	KUNIT_EXPECT_EQ(test, ev[0].ptr, (unsigned long)q);
	KUNIT_EXPECT_EQ(test, ev[1].kind, KMEMTRACE_KIND_FREE);
	KUNIT_EXPECT_EQ(test, ev[1].ptr, (unsigned long)q);
}

/* The sampled events of @kind and @type the test task recorded. */
static unsigned int count_samples(struct kunit *test, u8 kind, u8 type)
{
	struct kmemtrace_test_ctx *ctx = test->priv;
	unsigned int i, n = 0;

	for (i = 0; i < ctx->count; i++)
		n += ctx->capture.events[i].kind == kind &&
		     ctx->capture.events[i].type == type &&
		     ctx->capture.events[i].sample_period;
	return n;
}

/*
 * The rate: with a mean of 16 KiB, 10000 order-0 page allocations are
 * sampled with probability 1 - exp(-1/4) each (2212 expected, standard
 * deviation 41.5), 50000 kmalloc(512)s with 1 - exp(-1/32) (1538, 38.6);
 * each sampled object's free is recorded, no other.
 */
static void test_sample_rate(struct kunit *test)
{
	unsigned int i, pages, kmallocs, pfrees, kfrees;

	sample_switch(test, SZ_16K);
	capture_begin(test, false);
	for (i = 0; i < 10000; i++) {
		struct page *page = alloc_page(GFP_KERNEL);

		if (page)
			__free_page(page);
		cond_resched();
	}
	for (i = 0; i < 50000; i++) {
		kfree(kmalloc(512, GFP_KERNEL));
		cond_resched();
	}
	capture_end(test);

	pages = count_samples(test, KMEMTRACE_KIND_ALLOC, KMEMTRACE_TYPE_PAGES);
	pfrees = count_samples(test, KMEMTRACE_KIND_FREE, KMEMTRACE_TYPE_PAGES);
	kmallocs = count_samples(test, KMEMTRACE_KIND_ALLOC, KMEMTRACE_TYPE_KMALLOC);
	kfrees = count_samples(test, KMEMTRACE_KIND_FREE, KMEMTRACE_TYPE_KMALLOC);
	kunit_info(test, "pages: %u samples (2212 +- 41.5), kmalloc: %u (1538 +- 38.6)",
		   pages, kmallocs);
	KUNIT_EXPECT_LE(test, abs((int)pages - 2212), 4 * 42);
	KUNIT_EXPECT_LE(test, abs((int)kmallocs - 1538), 4 * 39);
	KUNIT_EXPECT_EQ(test, pfrees, pages);
	KUNIT_EXPECT_EQ(test, kfrees, kmallocs);
}

/* What an interrupt allocates and frees while every allocation is sampled. */
struct sample_irq_work {
	struct irq_work		work;
	struct timer_list	timer;
	struct completion	done;
	bool			ran_hardirq;
	bool			ran_softirq;
	void			*p;
	struct page		*page;
	void __percpu		*pc;
};

/* Every allocator an interrupt may use; the events name this function. */
static noinline void sample_irq_alloc_free(struct sample_irq_work *w)
{
	w->p = kmalloc(200, GFP_ATOMIC);
	w->page = alloc_page(GFP_ATOMIC);
	w->pc = __alloc_percpu_gfp(16, 8, GFP_ATOMIC);
	free_percpu(w->pc);
	if (w->page)
		__free_page(w->page);
	kfree(w->p);
}

static void sample_hardirq(struct irq_work *work)
{
	struct sample_irq_work *w = container_of(work, struct sample_irq_work,
						 work);

	w->ran_hardirq = in_hardirq();
	sample_irq_alloc_free(w);
}

static void sample_softirq(struct timer_list *t)
{
	struct sample_irq_work *w = from_timer(w, t, timer);

	w->ran_softirq = in_serving_softirq();
	sample_irq_alloc_free(w);
	complete(&w->done);
}

/*
 * The one event of @kind and @type for @ptr that sample_irq_alloc_free()
 * caused: the window captures every context, and memory it freed may be
 * allocated again by another before the window closes.
 */
static const struct kmemtrace_event *
expect_sampled_irq(struct kunit *test, const void *ptr, u8 kind, u8 type)
{
	struct kmemtrace_test_ctx *ctx = test->priv;
	const struct kmemtrace_event *found = NULL;
	char sym[KSYM_SYMBOL_LEN];
	unsigned int i, n = 0;

	for (i = 0; i < ctx->count; i++) {
		const struct kmemtrace_event *ev = &ctx->capture.events[i];

		if (ev->ptr != (unsigned long)ptr || ev->kind != kind ||
		    ev->type != type ||
		    strcmp(event_caller(ev, sym), "sample_irq_alloc_free"))
			continue;
		found = ev;
		n++;
	}
	KUNIT_EXPECT_EQ_MSG(test, n, 1, "kind %u type %u", kind, type);
	if (!found)
		return NULL;
	expect_sampled(test, found, 1);
	KUNIT_EXPECT_TRUE(test, found->flags & KMEMTRACE_FLAG_INTERRUPT);
	return found;
}

static void expect_sampled_irq_work(struct kunit *test,
				    struct sample_irq_work *w)
{
	KUNIT_ASSERT_NOT_NULL(test, w->p);
	KUNIT_ASSERT_NOT_NULL(test, w->page);
	KUNIT_ASSERT_NOT_NULL(test, (__force void *)w->pc);
	expect_sampled_irq(test, w->p, KMEMTRACE_KIND_ALLOC,
			   KMEMTRACE_TYPE_KMALLOC);
	expect_sampled_irq(test, w->p, KMEMTRACE_KIND_FREE,
			   KMEMTRACE_TYPE_KMALLOC);
	expect_sampled_irq(test, page_address(w->page), KMEMTRACE_KIND_ALLOC,
			   KMEMTRACE_TYPE_PAGES);
	expect_sampled_irq(test, page_address(w->page), KMEMTRACE_KIND_FREE,
			   KMEMTRACE_TYPE_PAGES);
	expect_sampled_irq(test, (__force const void *)w->pc,
			   KMEMTRACE_KIND_ALLOC, KMEMTRACE_TYPE_PERCPU);
	expect_sampled_irq(test, (__force const void *)w->pc,
			   KMEMTRACE_KIND_FREE, KMEMTRACE_TYPE_PERCPU);
}

/*
 * Sampling in hardirq and softirq context: with a mean of 1 byte, the
 * slab, page and percpu allocations and frees of an irq_work and of a
 * timer are each recorded once, as samples of an interrupt.
 */
static void test_sample_interrupts(struct kunit *test)
{
	struct sample_irq_work hard = {
		.work = IRQ_WORK_INIT_HARD(sample_hardirq),
	};
	struct sample_irq_work soft = { };

	sample_switch(test, 1);

	capture_begin(test, true);
	irq_work_queue(&hard.work);
	irq_work_sync(&hard.work);
	capture_end(test);
	KUNIT_EXPECT_TRUE(test, hard.ran_hardirq);
	expect_sampled_irq_work(test, &hard);

	init_completion(&soft.done);
	timer_setup_on_stack(&soft.timer, sample_softirq, 0);
	capture_begin(test, true);
	mod_timer(&soft.timer, jiffies + 1);
	wait_for_completion(&soft.done);
	capture_end(test);
	del_timer_sync(&soft.timer);
	destroy_timer_on_stack(&soft.timer);
	KUNIT_EXPECT_TRUE(test, soft.ran_softirq);
	expect_sampled_irq_work(test, &soft);
}

#if defined(CONFIG_KMEMTRACE_STACKS) && defined(CONFIG_X86_64)
/*
 * Through the allocators' hooks, a sample's stack starts at the allocator
 * function that called kmemtrace (kmemtrace_stack_from_enter()), without
 * kmemtrace's frames: a kmalloc() in stack_leaf() has the slab function
 * first and stack_leaf() second.  Through the probes, the walk starts in
 * kmemtrace, whose frames come first.
 */
static void test_sample_stack_from_allocator(struct kunit *test)
{
	const bool *probes = test->param_value;
	const struct kmemtrace_event *ev;
	char name[KSYM_NAME_LEN];
	unsigned long *entries;
	unsigned int nr;
	void *p;

	sample_switch(test, 1);
	capture_begin(test, false);
	p = stack_helper(72);
	kfree(p);
	capture_end(test);

	KUNIT_ASSERT_NOT_NULL(test, p);
	ev = find_one(test, p, KMEMTRACE_KIND_ALLOC, KMEMTRACE_TYPE_KMALLOC);
	KUNIT_ASSERT_NOT_NULL(test, ev);
	KUNIT_ASSERT_NE(test, ev->stack_id, 0);
	KUNIT_EXPECT_TRUE(test, stack_has(ev->stack_id, stack_helper));
	nr = stack_depot_fetch(ev->stack_id, &entries);
	KUNIT_ASSERT_GE(test, nr, 2);
	KUNIT_ASSERT_EQ(test, lookup_symbol_name(entries[0], name), 0);
	if (*probes || !IS_ENABLED(CONFIG_KMEMTRACE_SAMPLE_HOOKS)) {
		KUNIT_EXPECT_FALSE(test, frame_in(entries[1], stack_leaf));
		return;
	}
	KUNIT_EXPECT_TRUE_MSG(test, str_has_prefix(name, "__kmalloc"),
			      "first frame in %s", name);
	KUNIT_EXPECT_TRUE(test, frame_in(entries[1], stack_leaf));
}

/*
 * An interrupt's sample never starts at a frame of the context it
 * interrupted: with this function's frame set as where this task's stacks
 * start, a hardirq's samples through the probes still walk from their
 * own frames, through the function that allocated.
 */
static void test_sample_stack_from_interrupt(struct kunit *test)
{
	struct sample_irq_work hard = {
		.work = IRQ_WORK_INIT_HARD(sample_hardirq),
	};
	const struct kmemtrace_event *ev;
	unsigned long from;

	sample_switch(test, 1);
	capture_begin(test, true);
	preempt_disable();
	from = kmemtrace_stack_from_enter(__builtin_frame_address(0));
	irq_work_queue(&hard.work);
	/* irq_work_sync() may sleep; a hard irq_work runs on this CPU. */
	while (irq_work_is_busy(&hard.work))
		cpu_relax();
	kmemtrace_stack_from_exit(from);
	preempt_enable();
	capture_end(test);

	KUNIT_EXPECT_TRUE(test, hard.ran_hardirq);
	KUNIT_ASSERT_NOT_NULL(test, hard.p);
	KUNIT_ASSERT_NOT_NULL(test, hard.page);
	ev = expect_sampled_irq(test, hard.p, KMEMTRACE_KIND_ALLOC,
				KMEMTRACE_TYPE_KMALLOC);
	KUNIT_ASSERT_NOT_NULL(test, ev);
	KUNIT_EXPECT_TRUE(test, stack_has(ev->stack_id, sample_irq_alloc_free));
	ev = expect_sampled_irq(test, page_address(hard.page),
				KMEMTRACE_KIND_ALLOC, KMEMTRACE_TYPE_PAGES);
	KUNIT_ASSERT_NOT_NULL(test, ev);
	KUNIT_EXPECT_TRUE(test, stack_has(ev->stack_id, sample_irq_alloc_free));
}
#else
static void test_sample_stack_from_allocator(struct kunit *test)
{
	kunit_skip(test, "needs CONFIG_KMEMTRACE_STACKS on x86-64");
}

static void test_sample_stack_from_interrupt(struct kunit *test)
{
	kunit_skip(test, "needs CONFIG_KMEMTRACE_STACKS on x86-64");
}
#endif

/*
 * The split of a sampled page allocation is recorded, flagged UNTRACKED:
 * the table of sampled objects cannot hold its pieces, so it forgets the
 * allocation, and none of the pieces' frees is recorded, the first one's
 * neither.  Through the hooks too, which have none for splits.
 */
static void test_sample_split_untracks(struct kunit *test)
{
	const struct kmemtrace_event *ev;
	struct page *page;
	void *p;
	int i;

	sample_switch(test, 1);
	capture_begin(test, false);
	page = alloc_pages(GFP_KERNEL, SPLIT_ORDER);
	p = page ? page_address(page) : NULL;
	if (page) {
		split_page(page, SPLIT_ORDER);
		for (i = 0; i < 1 << SPLIT_ORDER; i++)
			__free_page(page + i);
	}
	capture_end(test);

	KUNIT_ASSERT_NOT_NULL(test, p);
	expect_sampled(test, find_one(test, p, KMEMTRACE_KIND_ALLOC,
				      KMEMTRACE_TYPE_PAGES), 1);
	ev = find_one(test, p, KMEMTRACE_KIND_SPLIT, KMEMTRACE_TYPE_PAGES);
	if (ev) {
		KUNIT_EXPECT_EQ(test, ev->sample_period, 1);
		KUNIT_EXPECT_TRUE(test, ev->flags & KMEMTRACE_FLAG_UNTRACKED);
		KUNIT_EXPECT_EQ(test, ev->bytes_alloc, PAGE_SIZE << SPLIT_ORDER);
	}
	KUNIT_EXPECT_EQ(test, ctx_events_at(test, p), 2);
	for (i = 1; i < 1 << SPLIT_ORDER; i++)
		KUNIT_EXPECT_EQ_MSG(test, ctx_events_at(test, p + i * PAGE_SIZE),
				    0, "piece %d", i);
}

static void cpus_allowed_restore(void *mask)
{
	set_cpus_allowed_ptr(current, mask);
}

/*
 * An allocation's task can be preempted and moved to another CPU between
 * crossing its CPU's count and drawing it anew (the hooks run with
 * preemption on): it then draws the other CPU's count, and the first
 * CPU's stayed crossed, so that none of its allocations were sampled
 * again.  The next allocation there draws it.
 */
static void test_sample_crossed_then_moved(struct kunit *test)
{
	static cpumask_t allowed;
	unsigned long flags;
	bool hit;
	long left;
	void *p;

	if (num_online_cpus() < 2 || !cpu_online(0) || !cpu_online(1))
		kunit_skip(test, "needs CPUs 0 and 1");
	sample_switch(test, SZ_1G);
	cpumask_copy(&allowed, current->cpus_ptr);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, cpus_allowed_restore, &allowed), 0);
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(0)), 0);
	local_irq_save(flags);
	this_cpu_write(kmemtrace_sample_left, 1);
	hit = kmemtrace_sample_alloc_hit(64);
	local_irq_restore(flags);
	KUNIT_ASSERT_TRUE(test, hit);
	/* Moved before the draw. */
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(1)), 0);
	kmemtrace_sample_redraw();
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(0)), 0);
	p = kmalloc(64, GFP_KERNEL);
	kfree(p);
	left = per_cpu(kmemtrace_sample_left, 0);
	KUNIT_EXPECT_GT(test, left, 0);
}

#ifdef CONFIG_KMEMTRACE_TRACER
/* The tracer takes every event: it cannot run beside a sampling recording. */
static void test_sample_excludes_tracer(struct kunit *test)
{
	sample_switch(test, 4096);
	KUNIT_EXPECT_EQ(test, kmemtrace_tracer_start(), -EBUSY);
	/* Nor can the period change while recording. */
	KUNIT_EXPECT_EQ(test, kmemtrace_sample_configure(8192, 1, false),
			-EBUSY);
}

/*
 * The other way round: with the tracer on, a sampling recording does not
 * start, and sampling is not switched on meanwhile either, which had the
 * tracer's events sampled (all but lost) until it was switched off
 * again, and the last recording's counts of sample_stats zeroed.
 */
static void test_sample_excludes_tracer_first(struct kunit *test)
{
	struct kmemtrace_test_ctx *ctx = test->priv;
	struct kmemtrace_sample_cpu *sc = per_cpu_ptr(&kmemtrace_sample_cpu, 0);
	unsigned long sampled = sc->sampled;

	if (ctx->was_enabled)
		kunit_skip(test, "kmemtrace was recording already");
	kmemtrace_disable();
	KUNIT_ASSERT_EQ(test, kmemtrace_tracer_start(), 0);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, tracer_stop_action, NULL), 0);
	KUNIT_ASSERT_EQ(test, kmemtrace_sample_configure(4096, 1, true), 0);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, sample_restore, NULL), 0);
	/* The last recording's count, as sample_stats shows it. */
	sc->sampled = 12345;
	KUNIT_EXPECT_EQ(test, kmemtrace_enable(), -EBUSY);
	KUNIT_EXPECT_FALSE(test, kmemtrace_enabled());
	KUNIT_EXPECT_FALSE(test, kmemtrace_sampling());
	KUNIT_EXPECT_EQ(test, sc->sampled, 12345);
	sc->sampled = sampled;
}
#else
static void test_sample_excludes_tracer(struct kunit *test)
{
	kunit_skip(test, "needs CONFIG_KMEMTRACE_TRACER");
}

static void test_sample_excludes_tracer_first(struct kunit *test)
{
	kunit_skip(test, "needs CONFIG_KMEMTRACE_TRACER");
}
#endif

#ifdef CONFIG_KMEMTRACE_STACKS
static void stack_table_restore(void *table)
{
	kmemtrace_stack_table_swap(table);
}

/*
 * The stack depot may work while the table of stacks the stacks file
 * lists could not be allocated (sampling starts without stacks then):
 * a sample keeps its stack, unlisted, where it had dereferenced the
 * missing table.
 */
static void test_sample_stack_without_table(struct kunit *test)
{
	struct kmemtrace_test_ctx *ctx = test->priv;
	u32 *table;
	void *p;

	sample_switch(test, 1);
	table = kmemtrace_stack_table_swap(NULL);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, stack_table_restore, table), 0);
	capture_begin(test, false);
	p = kmalloc(64, GFP_KERNEL);
	kfree(p);
	capture_end(test);
	kunit_release_action(test, stack_table_restore, table);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, ctx->count, 2);
	expect_sampled(test, find_one(test, p, KMEMTRACE_KIND_ALLOC,
				      KMEMTRACE_TYPE_KMALLOC), 1);
}
#else
static void test_sample_stack_without_table(struct kunit *test)
{
	kunit_skip(test, "needs CONFIG_KMEMTRACE_STACKS");
}
#endif

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
	KUNIT_CASE(test_kmalloc_large_runtime_size),
	KUNIT_CASE(test_kmem_cache_alloc_free),
	KUNIT_CASE(test_kmem_cache_bulk),
	KUNIT_CASE(test_slab_pages_backing),
	KUNIT_CASE(test_kfree_bulk),
	KUNIT_CASE(test_krealloc_in_place),
	KUNIT_CASE(test_krealloc_move),
	KUNIT_CASE(test_kfree_sensitive),
	KUNIT_CASE(test_kfree_cache_object),
	KUNIT_CASE(test_kfree_bulk_cache_objects),
	KUNIT_CASE(test_kfree_rcu_cache_object),
	KUNIT_CASE(test_kstrdup_caller),
	KUNIT_CASE(test_memdup_user_caller),
	KUNIT_CASE(test_devm_kmalloc_caller),
	KUNIT_CASE(test_kvmalloc_kmalloc),
	KUNIT_CASE(test_kvmalloc_vmalloc),
	KUNIT_CASE(test_kvrealloc_in_place),
	KUNIT_CASE(test_vmalloc_vfree),
	KUNIT_CASE(test_vfree_atomic),
	KUNIT_CASE(test_vrealloc_in_place),
	KUNIT_CASE(test_vmalloc_bookkeeping_backing),
	KUNIT_CASE(test_vmap_vm_struct_unflagged),
	KUNIT_CASE(test_backing_cache_unmerged),
	KUNIT_CASE(test_vmalloc_fail_no_phantom_free),
	KUNIT_CASE(test_alloc_pages),
	KUNIT_CASE(test_get_free_pages),
	KUNIT_CASE(test_folio_alloc_put),
	KUNIT_CASE(test_alloc_pages_bulk),
	KUNIT_CASE(test_alloc_pages_exact),
	KUNIT_CASE(test_split_page),
	KUNIT_CASE(test_free_reserved_page_unpaired),
	KUNIT_CASE(test_reclaim_under_suppress),
	KUNIT_CASE(test_reclaim_under_backing),
	KUNIT_CASE(test_alloc_percpu),
	KUNIT_CASE(test_mempool),
	KUNIT_CASE(test_seq_increases),
	KUNIT_CASE(test_disabled_records_nothing),
	KUNIT_CASE(test_enabled_after_probes),
	KUNIT_CASE(test_nmi_event_counted_not_recorded),
	KUNIT_CASE(test_late_files_for_offline_cpu),
	KUNIT_CASE(test_clock_tsc),
	KUNIT_CASE(test_clock_tsc_tracer_alone),
	KUNIT_CASE(test_cache_name_lockless),
	KUNIT_CASE(test_named_scope_without_key),
	KUNIT_CASE(test_api_unnamed_not_under_suppress),
	KUNIT_CASE(test_entries_all_hooked),
	KUNIT_CASE(test_entries_busy),
	KUNIT_CASE(test_scope_keeps_text_addresses),
	KUNIT_CASE(test_alloc_tag_names_line),
	KUNIT_CASE(test_percpu_uncharged),
	KUNIT_CASE(test_stack_two_calls_deep),
	KUNIT_CASE(test_stack_sample_one_in_n),
	KUNIT_CASE(test_stack_walk_same_as_arch),
	KUNIT_CASE(test_sample_draw_exponential),
	KUNIT_CASE_PARAM(test_sample_every_allocation, sample_path_gen_params),
	KUNIT_CASE(test_sample_api_table_complete),
	KUNIT_CASE_PARAM(test_sample_unsampled_record_nothing, sample_path_gen_params),
	KUNIT_CASE_PARAM(test_sample_armed, sample_path_gen_params),
	KUNIT_CASE_PARAM(test_sample_rate, sample_path_gen_params),
	KUNIT_CASE_PARAM(test_sample_interrupts, sample_path_gen_params),
	KUNIT_CASE_PARAM(test_sample_stack_from_allocator, sample_path_gen_params),
	KUNIT_CASE(test_sample_stack_from_interrupt),
	KUNIT_CASE_PARAM(test_sample_crossed_then_moved, sample_path_gen_params),
	KUNIT_CASE_PARAM(test_sample_split_untracks, sample_path_gen_params),
	KUNIT_CASE(test_sample_excludes_tracer),
	KUNIT_CASE(test_sample_excludes_tracer_first),
	KUNIT_CASE_PARAM(test_sample_stack_without_table, sample_path_gen_params),
	{}
};

static struct kunit_suite kmemtrace_test_suite = {
	.name = "kmemtrace",
	.init = kmemtrace_test_init,
	.exit = kmemtrace_test_exit,
	.test_cases = kmemtrace_test_cases,
};

kunit_test_suites(&kmemtrace_test_suite);

MODULE_DESCRIPTION("KUnit tests for kmemtrace");
MODULE_LICENSE("GPL");
