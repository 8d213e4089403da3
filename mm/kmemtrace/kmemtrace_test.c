// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for kmemtrace.
 *
 * Each test allocates and frees a known object from the test function
 * itself while the events recorded in the test task's context are copied
 * aside (kmemtrace_capture_start()).  It then looks for the events of that
 * object's pointer and compares them field by field with what the
 * allocation must have produced: exactly one alloc and one free, with the
 * right type, sizes, GFP flags, node, and a call site inside the test
 * function.  The copy is taken from the same code that writes the relay
 * buffers, after the event is complete.
 *
 * See Documentation/trace/kmemtrace.rst.
 */

#include <kunit/test.h>
#include <linux/kallsyms.h>
#include <linux/kmemtrace.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../slab.h"
#include "kmemtrace.h"

#define CAPTURE_MAX	256

struct kmemtrace_test_ctx {
	struct kmemtrace_capture capture;
	bool was_enabled;
};

/* An event as the test expects it; fields not listed are checked apart. */
struct expect_event {
	u8		kind;
	u8		type;
	u64		bytes_req;
	u64		bytes_alloc;
	u32		gfp_flags;
	s32		node;
	const char	*caller;
};

static void capture_begin(struct kunit *test)
{
	struct kmemtrace_test_ctx *ctx = test->priv;

	kmemtrace_capture_start(&ctx->capture);
}

static struct kmemtrace_capture *capture_end(struct kunit *test)
{
	struct kmemtrace_test_ctx *ctx = test->priv;

	kmemtrace_capture_stop();
	KUNIT_EXPECT_EQ(test, ctx->capture.lost, 0);
	return &ctx->capture;
}

/* The only event of @kind for @ptr, or NULL (and a failure) if not one. */
static const struct kmemtrace_event *
find_one(struct kunit *test, struct kmemtrace_capture *c, const void *ptr,
	 u8 kind)
{
	const struct kmemtrace_event *found = NULL;
	unsigned int i, n = 0;

	for (i = 0; i < c->count; i++) {
		if (c->events[i].ptr != (unsigned long)ptr ||
		    c->events[i].kind != kind)
			continue;
		found = &c->events[i];
		n++;
	}
	KUNIT_EXPECT_EQ_MSG(test, n, 1, "events of kind %u for %p", kind, ptr);
	return n == 1 ? found : NULL;
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
	KUNIT_EXPECT_EQ(test, ev->bytes_req, want->bytes_req);
	KUNIT_EXPECT_EQ(test, ev->bytes_alloc, want->bytes_alloc);
	KUNIT_EXPECT_EQ(test, ev->gfp_flags, want->gfp_flags);
	KUNIT_EXPECT_EQ(test, ev->node, want->node);
	KUNIT_EXPECT_EQ(test, ev->pid, (u32)current->pid);
	KUNIT_EXPECT_EQ(test, ev->flags, 0);
	KUNIT_EXPECT_LT(test, ev->cpu, nr_cpu_ids);
	sprint_symbol_no_offset(sym, ev->call_site);
	module = strchr(sym, ' ');	/* " [kmemtrace_test]" when modular */
	if (module)
		*module = '\0';
	KUNIT_EXPECT_STREQ(test, sym, want->caller);
}

static void test_kmalloc_kfree(struct kunit *test)
{
	struct kmemtrace_capture *c;
	void *p;

	capture_begin(test);
	p = kmalloc(24, GFP_KERNEL);
	kfree(p);
	c = capture_end(test);

	KUNIT_ASSERT_NOT_NULL(test, p);
	expect_event(test, find_one(test, c, p, KMEMTRACE_KIND_ALLOC),
		     &(struct expect_event) {
			.type = KMEMTRACE_TYPE_KMALLOC,
			.bytes_req = 24,
			.bytes_alloc = kmalloc_size_roundup(24),
			.gfp_flags = (__force u32)GFP_KERNEL,
			.node = KMEMTRACE_NO_NODE,
			.caller = __func__,
		     });
	expect_event(test, find_one(test, c, p, KMEMTRACE_KIND_FREE),
		     &(struct expect_event) {
			.type = KMEMTRACE_TYPE_KMALLOC,
			.node = KMEMTRACE_NO_NODE,
			.caller = __func__,
		     });
}

static void test_kmalloc_node(struct kunit *test)
{
	struct kmemtrace_capture *c;
	void *p;

	capture_begin(test);
	p = kmalloc_node(200, GFP_KERNEL | __GFP_ZERO, 0);
	kfree(p);
	c = capture_end(test);

	KUNIT_ASSERT_NOT_NULL(test, p);
	expect_event(test, find_one(test, c, p, KMEMTRACE_KIND_ALLOC),
		     &(struct expect_event) {
			.type = KMEMTRACE_TYPE_KMALLOC,
			.bytes_req = 200,
			.bytes_alloc = kmalloc_size_roundup(200),
			.gfp_flags = (__force u32)(GFP_KERNEL | __GFP_ZERO),
			.node = 0,
			.caller = __func__,
		     });
	find_one(test, c, p, KMEMTRACE_KIND_FREE);
}

static void test_kmem_cache_alloc_free(struct kunit *test)
{
	struct kmemtrace_capture *c;
	struct kmem_cache *s;
	void *p;

	s = kmem_cache_create("kmemtrace_test", 56, 0, 0, NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	capture_begin(test);
	p = kmem_cache_alloc(s, GFP_KERNEL);
	kmem_cache_free(s, p);
	c = capture_end(test);

	KUNIT_EXPECT_NOT_NULL(test, p);
	expect_event(test, find_one(test, c, p, KMEMTRACE_KIND_ALLOC),
		     &(struct expect_event) {
			.type = KMEMTRACE_TYPE_CACHE,
			.bytes_req = 56,
			.bytes_alloc = s->size,
			.gfp_flags = (__force u32)GFP_KERNEL,
			.node = KMEMTRACE_NO_NODE,
			.caller = __func__,
		     });
	expect_event(test, find_one(test, c, p, KMEMTRACE_KIND_FREE),
		     &(struct expect_event) {
			.type = KMEMTRACE_TYPE_CACHE,
			.node = KMEMTRACE_NO_NODE,
			.caller = __func__,
		     });
	kmem_cache_destroy(s);
}

/* Events of one CPU are written in sequence order, without gaps here. */
static void test_seq_increases(struct kunit *test)
{
	struct kmemtrace_capture *c;
	void *p[8];
	unsigned int i, j;

	capture_begin(test);
	for (i = 0; i < ARRAY_SIZE(p); i++)
		p[i] = kmalloc(16 << i, GFP_KERNEL);
	for (i = 0; i < ARRAY_SIZE(p); i++)
		kfree(p[i]);
	c = capture_end(test);

	KUNIT_EXPECT_GE(test, c->count, 2 * ARRAY_SIZE(p));
	for (i = 0; i < c->count; i++)
		for (j = i + 1; j < c->count; j++)
			if (c->events[i].cpu == c->events[j].cpu)
				KUNIT_EXPECT_LT(test, c->events[i].seq,
						c->events[j].seq);
}

static void test_disabled_records_nothing(struct kunit *test)
{
	struct kmemtrace_capture *c;
	void *p;

	kmemtrace_disable();
	KUNIT_EXPECT_FALSE(test, kmemtrace_enabled());
	capture_begin(test);
	p = kmalloc(24, GFP_KERNEL);
	kfree(p);
	c = capture_end(test);
	KUNIT_EXPECT_EQ(test, c->count, 0);
}

static int kmemtrace_test_init(struct kunit *test)
{
	struct kmemtrace_test_ctx *ctx;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	ctx->capture.events = kunit_kcalloc(test, CAPTURE_MAX,
					    sizeof(*ctx->capture.events),
					    GFP_KERNEL);
	if (!ctx->capture.events)
		return -ENOMEM;
	ctx->capture.max = CAPTURE_MAX;
	ctx->capture.task = current;
	ctx->was_enabled = kmemtrace_enabled();
	test->priv = ctx;
	return kmemtrace_enable();
}

static void kmemtrace_test_exit(struct kunit *test)
{
	struct kmemtrace_test_ctx *ctx = test->priv;

	kmemtrace_capture_stop();
	if (!ctx->was_enabled)
		kmemtrace_disable();
}

static struct kunit_case kmemtrace_test_cases[] = {
	KUNIT_CASE(test_kmalloc_kfree),
	KUNIT_CASE(test_kmalloc_node),
	KUNIT_CASE(test_kmem_cache_alloc_free),
	KUNIT_CASE(test_seq_increases),
	KUNIT_CASE(test_disabled_records_nothing),
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
