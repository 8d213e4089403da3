// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace probes: one per allocator tracepoint, each turning its
 * arguments into a struct kmemtrace_event, written in place
 * (kmemtrace_begin(), kmemtrace_commit() in kmemtrace.h).
 *
 * Slab:    kmalloc, kmem_cache_alloc, krealloc (in place), kfree,
 *          kmem_cache_free; bulk calls fire these once per object.
 * Pages:   mm_page_alloc, mm_page_free, mm_page_split, and
 *          mm_page_alloc_exact and mm_page_free_exact for
 *          alloc_pages_exact().
 * Percpu:  percpu_alloc_percpu, percpu_free_percpu.
 * vmalloc: vmalloc, vrealloc (in place), vfree.
 *
 * The call site comes from the current kmemtrace scope when an API call
 * opened one (scope.c), else from the tracepoint.  Failed allocations and
 * frees of NULL are not recorded.  Probes run inside the allocators: they
 * write the event straight into its slot of the relay buffer (kmemtrace.h:
 * kmemtrace_begin(), kmemtrace_commit()) and take no lock; the kfree
 * probe reads the object's slab to type the free by its cache.
 *
 * See Documentation/trace/kmemtrace.rst.
 */

#include <linux/mm.h>
#include <linux/tracepoint.h>
#include <trace/events/kmem.h>
#include <trace/events/percpu.h>
#include <trace/events/vmalloc.h>

#include "../percpu-internal.h"
#include "../slab.h"
#include "kmemtrace.h"

/* === Sampling ============================================================ */

/*
 * While a recording samples, a probe first counts an allocation down, or
 * looks a free up in the table of sampled objects, and goes on only for
 * what that lets through (kmemtrace_sample_alloc_hit(),
 * kmemtrace_sample_tracked()); the checks that decide follow with
 * interrupts off (kmemtrace_sample()).  So a sampling recording attaches probes of
 * its own, probe_*_sampled(): that fast path alone, which needs no stack
 * frame, then a tail call with the same arguments (__noipa keeps them as
 * they are) to the probe that records every event, whose frame only the
 * events let through pay.  With CONFIG_KMEMTRACE_SAMPLE_HOOKS the
 * allocators run the same fast path inline instead, and no probe is
 * attached (kmemtrace_sampled_*() below).
 */
/* Whether an allocation is not sampled; the sampled one draws anew. */
static __always_inline bool sample_skip_alloc(size_t bytes)
{
	if (likely(!kmemtrace_sample_alloc_hit(bytes)))
		return true;
	kmemtrace_sample_redraw();
	return false;
}

/*
 * Whether a free or resize is not of a sampled object: the whole look-up,
 * not only the bucket's mask, as a recording that runs for long fills the
 * table and most buckets hold some sampled object.
 */
static __always_inline bool sample_skip_other(const void *ptr)
{
	return likely(!kmemtrace_sample_tracked(ptr));
}

/* === Slab ================================================================ */

/* An allocation or resize with its sizes, of the slab or vmalloc APIs. */
static __always_inline void record_sized(u8 kind, u8 type,
					 unsigned long call_site,
					 const void *ptr, size_t bytes_req,
					 size_t bytes_alloc, gfp_t gfp_flags,
					 int node, unsigned int flags)
{
	struct kmemtrace_event *ev;
	struct kmemtrace_slot slot __uninitialized;
	enum kmemtrace_source src = KMEMTRACE_SOURCE_API;

	/* A vmalloc() area's own event, not the backing store it makes. */
	if (type == KMEMTRACE_TYPE_VMALLOC && kind == KMEMTRACE_KIND_ALLOC)
		src = KMEMTRACE_SOURCE_VMALLOC;
	if (!ptr || !kmemtrace_begin(&slot, src, kind, (unsigned long)ptr, 0))
		return;
	ev = kmemtrace_fill(&slot, kind, type, call_site, (unsigned long)ptr);
	ev->flags |= flags;
	ev->order = 0;
	ev->node = node;
	ev->gfp_flags = (__force u32)gfp_flags;
	ev->cache_id = 0;
	ev->migratetype = 0;
	ev->bytes_req = bytes_req;
	ev->bytes_alloc = bytes_alloc;
	kmemtrace_commit(&slot);
}

/* The flags every event of cache @s gets: see kmemtrace_cache_backing(). */
static __always_inline unsigned int cache_flags(const struct kmem_cache *s)
{
	return unlikely(READ_ONCE(s->kmemtrace_backing)) ?
	       KMEMTRACE_FLAG_BACKING : 0;
}

/* A free that knows only its pointer, and for a cache its id and flags. */
static __always_inline void record_free(u8 type, unsigned int cache_id,
					unsigned int flags,
					unsigned long call_site,
					const void *ptr)
{
	struct kmemtrace_event *ev;
	struct kmemtrace_slot slot __uninitialized;

	if (!ptr || !kmemtrace_begin(&slot, KMEMTRACE_SOURCE_API,
				     KMEMTRACE_KIND_FREE,
				     (unsigned long)ptr, flags))
		return;
	ev = kmemtrace_fill(&slot, KMEMTRACE_KIND_FREE, type, call_site,
			    (unsigned long)ptr);
	ev->order = 0;
	ev->node = KMEMTRACE_NO_NODE;
	ev->gfp_flags = 0;
	ev->cache_id = cache_id;
	ev->migratetype = 0;
	ev->bytes_req = 0;
	ev->bytes_alloc = 0;
	kmemtrace_commit(&slot);
}

/* A page allocation or free, @size bytes of order @order. */
static __always_inline void record_pages(u8 kind, unsigned long call_site,
					 const void *ptr, unsigned int order,
					 size_t bytes_req, size_t bytes_alloc,
					 gfp_t gfp_flags, int node,
					 int migratetype, bool page_event)
{
	struct kmemtrace_event *ev;
	struct kmemtrace_slot slot __uninitialized;

	if (!ptr || !kmemtrace_begin(&slot, page_event ?
				     KMEMTRACE_SOURCE_PAGES : KMEMTRACE_SOURCE_API,
				     kind, (unsigned long)ptr, 0))
		return;
	ev = kmemtrace_fill(&slot, kind, KMEMTRACE_TYPE_PAGES, call_site,
			    (unsigned long)ptr);
	ev->order = order;
	ev->node = node;
	ev->gfp_flags = (__force u32)gfp_flags;
	ev->cache_id = 0;
	ev->migratetype = migratetype;
	ev->bytes_req = bytes_req;
	ev->bytes_alloc = bytes_alloc;
	kmemtrace_commit(&slot);
}

static __noipa void probe_kmalloc(void *ignore, unsigned long call_site,
				  const void *ptr, size_t bytes_req,
				  size_t bytes_alloc, gfp_t gfp_flags, int node)
{
	record_sized(KMEMTRACE_KIND_ALLOC, KMEMTRACE_TYPE_KMALLOC, call_site,
		     ptr, bytes_req, bytes_alloc, gfp_flags, node, 0);
}

static void probe_kmalloc_sampled(void *ignore, unsigned long call_site,
				  const void *ptr, size_t bytes_req,
				  size_t bytes_alloc, gfp_t gfp_flags, int node)
{
	if (sample_skip_alloc(bytes_alloc))
		return;
	probe_kmalloc(ignore, call_site, ptr, bytes_req, bytes_alloc,
		      gfp_flags, node);
}

static __noipa void probe_krealloc(void *ignore,
				   unsigned long call_site,
				   const void *ptr, size_t bytes_req,
				   size_t bytes_alloc, gfp_t gfp_flags)
{
	record_sized(KMEMTRACE_KIND_REALLOC, KMEMTRACE_TYPE_KMALLOC, call_site,
		     ptr, bytes_req, bytes_alloc, gfp_flags, KMEMTRACE_NO_NODE, 0);
}

static void probe_krealloc_sampled(void *ignore, unsigned long call_site,
				   const void *ptr, size_t bytes_req,
				   size_t bytes_alloc, gfp_t gfp_flags)
{
	if (sample_skip_other(ptr))
		return;
	probe_krealloc(ignore, call_site, ptr, bytes_req, bytes_alloc,
		       gfp_flags);
}

/*
 * kfree() frees any slab object, and kfree_bulk() and kfree_rcu() free
 * through it: an object of a kmem_cache is a free of that cache, typed as
 * its allocation was.  Objects of kmalloc caches and large kmallocs (no
 * slab) are kmalloc's.  The tracepoint passes the cache kfree() looked
 * up, NULL for a large kmalloc, so the probe need not look it up again.
 */
static __noipa void probe_kfree(void *ignore, unsigned long call_site,
				const void *ptr, const struct kmem_cache *s)
{
	if (ZERO_OR_NULL_PTR(ptr))
		return;
	if (s && !(s->flags & SLAB_KMALLOC)) {
		record_free(KMEMTRACE_TYPE_CACHE, s->kmemtrace_id,
			    cache_flags(s), call_site, ptr);
		return;
	}
	record_free(KMEMTRACE_TYPE_KMALLOC, 0, 0, call_site, ptr);
}

static void probe_kfree_sampled(void *ignore, unsigned long call_site,
				const void *ptr, const struct kmem_cache *s)
{
	if (ZERO_OR_NULL_PTR(ptr) || sample_skip_other(ptr))
		return;
	probe_kfree(ignore, call_site, ptr, s);
}

static __noipa void probe_kmem_cache_alloc(void *ignore,
					   unsigned long call_site,
					   const void *ptr, struct kmem_cache *s,
					   gfp_t gfp_flags, int node)
{
	struct kmemtrace_event *ev;
	struct kmemtrace_slot slot __uninitialized;

	if (!ptr || !kmemtrace_begin(&slot, KMEMTRACE_SOURCE_API,
				     KMEMTRACE_KIND_ALLOC,
				     (unsigned long)ptr, cache_flags(s)))
		return;
	ev = kmemtrace_fill(&slot, KMEMTRACE_KIND_ALLOC, KMEMTRACE_TYPE_CACHE,
			    call_site, (unsigned long)ptr);
	ev->order = 0;
	ev->node = node;
	ev->gfp_flags = (__force u32)gfp_flags;
	ev->cache_id = s->kmemtrace_id;
	ev->migratetype = 0;
	ev->bytes_req = s->object_size;
	ev->bytes_alloc = s->size;
	kmemtrace_commit(&slot);
}

static void probe_kmem_cache_alloc_sampled(void *ignore, unsigned long call_site,
					   const void *ptr, struct kmem_cache *s,
					   gfp_t gfp_flags, int node)
{
	if (sample_skip_alloc(s->size))
		return;
	probe_kmem_cache_alloc(ignore, call_site, ptr, s, gfp_flags,
			       node);
}

static __noipa void probe_kmem_cache_free(void *ignore,
					  unsigned long call_site,
					  const void *ptr, const struct kmem_cache *s)
{
	record_free(KMEMTRACE_TYPE_CACHE, s->kmemtrace_id, cache_flags(s),
		    call_site, ptr);
}

static void probe_kmem_cache_free_sampled(void *ignore, unsigned long call_site,
					  const void *ptr, const struct kmem_cache *s)
{
	if (sample_skip_other(ptr))
		return;
	probe_kmem_cache_free(ignore, call_site, ptr, s);
}

/* === Pages =============================================================== */

/*
 * Whether a task's page events are suppressed: the pages of a large
 * kmalloc() (KMEMTRACE_SCOPE_SUPPRESS), which its own event stands for.
 * Tested before the probe computes anything or saves a register: two
 * of these come with every large kmalloc()/kfree() pair.
 * kmemtrace_begin() tests every context.
 */
static __always_inline bool pages_suppressed(void)
{
	return in_task() &&
	       (current->kmemtrace_scope.flags & KMEMTRACE_SCOPE_SUPPRESS);
}

/* The page events' work, out of line: pages_suppressed() has no frame. */
static noinline void record_page_alloc(struct page *page, unsigned int order,
				       gfp_t gfp_flags, int migratetype)
{
	record_pages(KMEMTRACE_KIND_ALLOC, 0, page_address(page), order,
		     PAGE_SIZE << order, PAGE_SIZE << order, gfp_flags,
		     page_to_nid(page), migratetype, true);
}

static noinline void record_page_free(struct page *page, unsigned int order)
{
	record_pages(KMEMTRACE_KIND_FREE, 0, page_address(page), order,
		     PAGE_SIZE << order, PAGE_SIZE << order, 0,
		     page_to_nid(page), 0, true);
}

static __noipa void probe_mm_page_alloc(void *ignore, struct page *page,
					unsigned int order, gfp_t gfp_flags,
					int migratetype)
{
	if (page && !pages_suppressed())
		record_page_alloc(page, order, gfp_flags, migratetype);
}

static void probe_mm_page_alloc_sampled(void *ignore, struct page *page,
					unsigned int order, gfp_t gfp_flags,
					int migratetype)
{
	if (!page || sample_skip_alloc(PAGE_SIZE << order))
		return;
	probe_mm_page_alloc(ignore, page, order, gfp_flags, migratetype);
}

static __noipa void probe_mm_page_free(void *ignore, struct page *page,
				       unsigned int order)
{
	if (!pages_suppressed())
		record_page_free(page, order);
}

static void probe_mm_page_free_sampled(void *ignore, struct page *page,
				       unsigned int order)
{
	if (sample_skip_other(page_address(page)))
		return;
	probe_mm_page_free(ignore, page, order);
}

/*
 * A split: the pieces' order and bytes, and the bytes split.  Of pages a
 * large kmalloc() holds, suppressed as their other events are (slab never
 * splits them: this is for the scope's sake only).
 */
static noinline void record_page_split(struct page *page, unsigned int order,
				       unsigned int new_order)
{
	record_pages(KMEMTRACE_KIND_SPLIT, 0, page_address(page), new_order,
		     PAGE_SIZE << new_order, PAGE_SIZE << order, 0,
		     page_to_nid(page), 0, true);
}

static __noipa void probe_mm_page_split(void *ignore, struct page *page,
					unsigned int order,
					unsigned int new_order)
{
	if (!pages_suppressed() && new_order < order)
		record_page_split(page, order, new_order);
}

/*
 * With CONFIG_KMEMTRACE_SAMPLE_HOOKS too: splits are rare, and the
 * allocators have no hook for them.
 */
static void probe_mm_page_split_sampled(void *ignore, struct page *page,
					unsigned int order,
					unsigned int new_order)
{
	if (sample_skip_other(page_address(page)))
		return;
	probe_mm_page_split(ignore, page, order, new_order);
}

/* The API event itself: not subject to the scope it opened. */
static __noipa void probe_mm_page_alloc_exact(void *ignore,
					      unsigned long call_site,
					      const void *ptr, size_t size,
					      gfp_t gfp_flags)
{
	record_pages(KMEMTRACE_KIND_ALLOC, call_site, ptr, get_order(size),
		     size, PAGE_ALIGN(size), gfp_flags, KMEMTRACE_NO_NODE, 0,
		     false);
}

static void probe_mm_page_alloc_exact_sampled(void *ignore, unsigned long call_site,
					      const void *ptr, size_t size,
					      gfp_t gfp_flags)
{
	if (sample_skip_alloc(PAGE_ALIGN(size)))
		return;
	probe_mm_page_alloc_exact(ignore, call_site, ptr, size,
				  gfp_flags);
}

static __noipa void probe_mm_page_free_exact(void *ignore,
					     unsigned long call_site,
					     const void *ptr, size_t size,
					     gfp_t gfp_flags)
{
	record_pages(KMEMTRACE_KIND_FREE, call_site, ptr, get_order(size),
		     size, PAGE_ALIGN(size), 0, KMEMTRACE_NO_NODE, 0, false);
}

static void probe_mm_page_free_exact_sampled(void *ignore, unsigned long call_site,
					     const void *ptr, size_t size,
					     gfp_t gfp_flags)
{
	if (sample_skip_other(ptr))
		return;
	probe_mm_page_free_exact(ignore, call_site, ptr, size,
				 gfp_flags);
}

/* === Percpu ============================================================== */

/*
 * num_possible_cpus(), which counts the bits of the mask each time (24
 * instructions without POPCNT); the mask is fixed from early boot on.
 */
static unsigned int kmemtrace_possible_cpus __read_mostly;

static __noipa void probe_percpu_alloc_percpu(void *ignore,
					      unsigned long call_site,
					      bool reserved, bool is_atomic,
					      size_t size, size_t align,
					      void *base_addr, int off,
					      void __percpu *ptr, size_t bytes_alloc,
					      gfp_t gfp_flags)
{
	unsigned int flags = 0;

	/*
	 * The first and the reserved chunk have no extension vector: memory
	 * from them is not charged to its codetag (pcpu_alloc_tag_alloc_hook()).
	 */
	if (IS_ENABLED(CONFIG_MEM_ALLOC_PROFILING) &&
	    (base_addr == pcpu_first_chunk->base_addr ||
	     (pcpu_reserved_chunk && base_addr == pcpu_reserved_chunk->base_addr)))
		flags = KMEMTRACE_FLAG_UNCHARGED;
	/*
	 * Both sizes are for all possible CPUs, as bytes_alloc comes: @size
	 * (rounded up to PCPU_MIN_ALLOC_SIZE) is per CPU.
	 */
	record_sized(KMEMTRACE_KIND_ALLOC, KMEMTRACE_TYPE_PERCPU, call_site,
		     (__force const void *)ptr, size * kmemtrace_possible_cpus,
		     bytes_alloc, gfp_flags, KMEMTRACE_NO_NODE, flags);
}

static void probe_percpu_alloc_percpu_sampled(void *ignore, unsigned long call_site,
					      bool reserved, bool is_atomic,
					      size_t size, size_t align,
					      void *base_addr, int off,
					      void __percpu *ptr, size_t bytes_alloc,
					      gfp_t gfp_flags)
{
	if (sample_skip_alloc(bytes_alloc))
		return;
	probe_percpu_alloc_percpu(ignore, call_site, reserved,
				  is_atomic, size, align, base_addr,
				  off, ptr, bytes_alloc, gfp_flags);
}

static __noipa void probe_percpu_free_percpu(void *ignore,
					     void *base_addr, int off,
					     void __percpu *ptr)
{
	record_free(KMEMTRACE_TYPE_PERCPU, 0, 0, 0, (__force const void *)ptr);
}

static void probe_percpu_free_percpu_sampled(void *ignore, void *base_addr, int off,
					     void __percpu *ptr)
{
	if (sample_skip_other((__force const void *)ptr))
		return;
	probe_percpu_free_percpu(ignore, base_addr, off, ptr);
}

/* === vmalloc ============================================================= */

static __noipa void probe_vmalloc(void *ignore, unsigned long call_site,
				  const void *ptr, size_t bytes_req, size_t bytes_alloc,
				  gfp_t gfp_flags, int node)
{
	record_sized(KMEMTRACE_KIND_ALLOC, KMEMTRACE_TYPE_VMALLOC, call_site,
		     ptr, bytes_req, bytes_alloc, gfp_flags, node, 0);
}

static void probe_vmalloc_sampled(void *ignore, unsigned long call_site,
				  const void *ptr, size_t bytes_req, size_t bytes_alloc,
				  gfp_t gfp_flags, int node)
{
	if (sample_skip_alloc(bytes_alloc))
		return;
	probe_vmalloc(ignore, call_site, ptr, bytes_req, bytes_alloc,
		      gfp_flags, node);
}

static __noipa void probe_vrealloc(void *ignore,
				   unsigned long call_site,
				   const void *ptr, size_t bytes_req,
				   size_t bytes_alloc, gfp_t gfp_flags)
{
	record_sized(KMEMTRACE_KIND_REALLOC, KMEMTRACE_TYPE_VMALLOC, call_site,
		     ptr, bytes_req, bytes_alloc, gfp_flags, KMEMTRACE_NO_NODE, 0);
}

static void probe_vrealloc_sampled(void *ignore, unsigned long call_site,
				   const void *ptr, size_t bytes_req,
				   size_t bytes_alloc, gfp_t gfp_flags)
{
	if (sample_skip_other(ptr))
		return;
	probe_vrealloc(ignore, call_site, ptr, bytes_req, bytes_alloc,
		       gfp_flags);
}

static __noipa void probe_vfree(void *ignore, unsigned long call_site,
				const void *ptr)
{
	record_free(KMEMTRACE_TYPE_VMALLOC, 0, 0, call_site, ptr);
}

static void probe_vfree_sampled(void *ignore, unsigned long call_site, const void *ptr)
{
	if (sample_skip_other(ptr))
		return;
	probe_vfree(ignore, call_site, ptr);
}

/* === Sampling in the allocators' own paths ============================= */

#ifdef CONFIG_KMEMTRACE_SAMPLE_HOOKS
/*
 * With CONFIG_KMEMTRACE_SAMPLE_HOOKS, a sampling recording attaches no
 * probe: the allocators count down and filter inline
 * (kmemtrace_alloc_event(), kmemtrace_free_event() in <linux/kmemtrace.h>)
 * while kmemtrace_sample_hook_key is on, and call these for what passes,
 * with the tracepoints' arguments.  They run the probes that record every
 * event, which make the exact checks (kmemtrace_sample()).
 *
 * The allocators may call them with preemption on.  Each disables it and
 * checks the key again: once kmemtrace_probes_detach() switched the key
 * off, tracepoint_synchronize_unregister() waits for those past the check,
 * as it does for probes.
 */
DEFINE_STATIC_KEY_FALSE(kmemtrace_sample_hook_key);

/*
 * Record through @probe, one of the probes above, with the event's stack
 * starting at the allocator function that called the hook
 * (kmemtrace_stack_from_enter()).  Use it in the hook itself: its frame
 * is the one taken.
 */
#define sample_hook_record(probe, ...)					\
do {									\
	unsigned long __from =						\
		kmemtrace_stack_from_enter(__builtin_frame_address(0));	\
	probe(NULL, __VA_ARGS__);					\
	kmemtrace_stack_from_exit(__from);				\
} while (0)

/* Whether the hooks still sample; the caller disabled preemption. */
static __always_inline bool sample_hooked(void)
{
	return static_branch_likely(&kmemtrace_sample_hook_key);
}

/*
 * Whether the hooks still sample and @ptr, freed or resized, is a sampled
 * object.  The allocators call for any pointer whose bucket holds one
 * (kmemtrace_sample_free_maybe()); the rest return here, before the
 * probe.
 */
static __always_inline bool sample_hooked_other(const void *ptr)
{
	return sample_hooked() && kmemtrace_sample_tracked(ptr);
}

/* After a hit: draw the next count, then whether to record. */
static __always_inline bool sample_hooked_alloc(void)
{
	kmemtrace_sample_redraw();
	return sample_hooked();
}

void kmemtrace_sampled_kmalloc(unsigned long call_site, const void *ptr,
			       size_t bytes_req, size_t bytes_alloc,
			       gfp_t gfp_flags, int node)
{
	guard(preempt_notrace)();
	if (sample_hooked_alloc())
		sample_hook_record(probe_kmalloc, call_site, ptr, bytes_req,
				   bytes_alloc, gfp_flags, node);
}

void kmemtrace_sampled_krealloc(unsigned long call_site, const void *ptr,
				size_t bytes_req, size_t bytes_alloc,
				gfp_t gfp_flags)
{
	guard(preempt_notrace)();
	if (sample_hooked_other(ptr))
		sample_hook_record(probe_krealloc, call_site, ptr, bytes_req,
				   bytes_alloc, gfp_flags);
}

void kmemtrace_sampled_kfree(unsigned long call_site, const void *ptr,
			     const struct kmem_cache *s)
{
	guard(preempt_notrace)();
	if (sample_hooked_other(ptr))
		sample_hook_record(probe_kfree, call_site, ptr, s);
}

void kmemtrace_sampled_kmem_cache_alloc(unsigned long call_site,
					const void *ptr, struct kmem_cache *s,
					gfp_t gfp_flags, int node)
{
	guard(preempt_notrace)();
	if (sample_hooked_alloc())
		sample_hook_record(probe_kmem_cache_alloc, call_site, ptr, s,
				   gfp_flags, node);
}

void kmemtrace_sampled_kmem_cache_free(unsigned long call_site,
				       const void *ptr,
				       const struct kmem_cache *s)
{
	guard(preempt_notrace)();
	if (sample_hooked_other(ptr))
		sample_hook_record(probe_kmem_cache_free, call_site, ptr, s);
}

void kmemtrace_sampled_mm_page_alloc(struct page *page, unsigned int order,
				     gfp_t gfp_flags, int migratetype)
{
	guard(preempt_notrace)();
	if (sample_hooked_alloc())
		sample_hook_record(probe_mm_page_alloc, page, order, gfp_flags,
				   migratetype);
}

void kmemtrace_sampled_mm_page_free(struct page *page, unsigned int order)
{
	guard(preempt_notrace)();
	if (sample_hooked_other(page_address(page)))
		sample_hook_record(probe_mm_page_free, page, order);
}

void kmemtrace_sampled_mm_page_alloc_exact(unsigned long call_site,
					   const void *ptr, size_t size,
					   gfp_t gfp_flags)
{
	guard(preempt_notrace)();
	if (sample_hooked_alloc())
		sample_hook_record(probe_mm_page_alloc_exact, call_site, ptr,
				   size, gfp_flags);
}

void kmemtrace_sampled_mm_page_free_exact(unsigned long call_site,
					  const void *ptr, size_t size,
					  gfp_t gfp_flags)
{
	guard(preempt_notrace)();
	if (sample_hooked_other(ptr))
		sample_hook_record(probe_mm_page_free_exact, call_site, ptr,
				   size, gfp_flags);
}

void kmemtrace_sampled_percpu_alloc_percpu(unsigned long call_site,
					   bool reserved, bool is_atomic,
					   size_t size, size_t align,
					   void *base_addr, int off,
					   void __percpu *ptr,
					   size_t bytes_alloc, gfp_t gfp_flags)
{
	guard(preempt_notrace)();
	if (sample_hooked_alloc())
		sample_hook_record(probe_percpu_alloc_percpu, call_site,
				   reserved, is_atomic, size, align, base_addr,
				   off, ptr, bytes_alloc, gfp_flags);
}

void kmemtrace_sampled_percpu_free_percpu(void *base_addr, int off,
					  void __percpu *ptr)
{
	guard(preempt_notrace)();
	if (sample_hooked_other((__force const void *)ptr))
		sample_hook_record(probe_percpu_free_percpu, base_addr, off,
				   ptr);
}

void kmemtrace_sampled_vmalloc(unsigned long call_site, const void *ptr,
			       size_t bytes_req, size_t bytes_alloc,
			       gfp_t gfp_flags, int node)
{
	guard(preempt_notrace)();
	if (sample_hooked_alloc())
		sample_hook_record(probe_vmalloc, call_site, ptr, bytes_req,
				   bytes_alloc, gfp_flags, node);
}

void kmemtrace_sampled_vrealloc(unsigned long call_site, const void *ptr,
				size_t bytes_req, size_t bytes_alloc,
				gfp_t gfp_flags)
{
	guard(preempt_notrace)();
	if (sample_hooked_other(ptr))
		sample_hook_record(probe_vrealloc, call_site, ptr, bytes_req,
				   bytes_alloc, gfp_flags);
}

void kmemtrace_sampled_vfree(unsigned long call_site, const void *ptr)
{
	guard(preempt_notrace)();
	if (sample_hooked_other(ptr))
		sample_hook_record(probe_vfree, call_site, ptr);
}
#endif /* CONFIG_KMEMTRACE_SAMPLE_HOOKS */

/* === Attaching =========================================================== */

struct kmemtrace_probe {
	struct tracepoint	*tp;
	void			*probe;
};

#define KMEMTRACE_PROBE(name)	{ &__tracepoint_##name, probe_##name }
#define KMEMTRACE_PROBE_SAMPLED(name) \
	{ &__tracepoint_##name, probe_##name##_sampled }

static const struct kmemtrace_probe kmemtrace_probes[] = {
	KMEMTRACE_PROBE(kmalloc),
	KMEMTRACE_PROBE(krealloc),
	KMEMTRACE_PROBE(kfree),
	KMEMTRACE_PROBE(kmem_cache_alloc),
	KMEMTRACE_PROBE(kmem_cache_free),
	KMEMTRACE_PROBE(mm_page_alloc),
	KMEMTRACE_PROBE(mm_page_free),
	KMEMTRACE_PROBE(mm_page_split),
	KMEMTRACE_PROBE(mm_page_alloc_exact),
	KMEMTRACE_PROBE(mm_page_free_exact),
	KMEMTRACE_PROBE(percpu_alloc_percpu),
	KMEMTRACE_PROBE(percpu_free_percpu),
	KMEMTRACE_PROBE(vmalloc),
	KMEMTRACE_PROBE(vrealloc),
	KMEMTRACE_PROBE(vfree),
};

/* While a recording samples (sample.c): the fast paths first. */
static const struct kmemtrace_probe kmemtrace_probes_sampled[] = {
	KMEMTRACE_PROBE_SAMPLED(kmalloc),
	KMEMTRACE_PROBE_SAMPLED(krealloc),
	KMEMTRACE_PROBE_SAMPLED(kfree),
	KMEMTRACE_PROBE_SAMPLED(kmem_cache_alloc),
	KMEMTRACE_PROBE_SAMPLED(kmem_cache_free),
	KMEMTRACE_PROBE_SAMPLED(mm_page_alloc),
	KMEMTRACE_PROBE_SAMPLED(mm_page_free),
	KMEMTRACE_PROBE_SAMPLED(mm_page_split),
	KMEMTRACE_PROBE_SAMPLED(mm_page_alloc_exact),
	KMEMTRACE_PROBE_SAMPLED(mm_page_free_exact),
	KMEMTRACE_PROBE_SAMPLED(percpu_alloc_percpu),
	KMEMTRACE_PROBE_SAMPLED(percpu_free_percpu),
	KMEMTRACE_PROBE_SAMPLED(vmalloc),
	KMEMTRACE_PROBE_SAMPLED(vrealloc),
	KMEMTRACE_PROBE_SAMPLED(vfree),
};

/* The table loses the probes' types: let the compiler check them here. */
static void __maybe_unused kmemtrace_check_probe_types(void)
{
	check_trace_callback_type_kmalloc(probe_kmalloc);
	check_trace_callback_type_krealloc(probe_krealloc);
	check_trace_callback_type_kfree(probe_kfree);
	check_trace_callback_type_kmem_cache_alloc(probe_kmem_cache_alloc);
	check_trace_callback_type_kmem_cache_free(probe_kmem_cache_free);
	check_trace_callback_type_mm_page_alloc(probe_mm_page_alloc);
	check_trace_callback_type_mm_page_free(probe_mm_page_free);
	check_trace_callback_type_mm_page_split(probe_mm_page_split);
	check_trace_callback_type_mm_page_alloc_exact(probe_mm_page_alloc_exact);
	check_trace_callback_type_mm_page_free_exact(probe_mm_page_free_exact);
	check_trace_callback_type_percpu_alloc_percpu(probe_percpu_alloc_percpu);
	check_trace_callback_type_percpu_free_percpu(probe_percpu_free_percpu);
	check_trace_callback_type_vmalloc(probe_vmalloc);
	check_trace_callback_type_vrealloc(probe_vrealloc);
	check_trace_callback_type_vfree(probe_vfree);
	check_trace_callback_type_kmalloc(probe_kmalloc_sampled);
	check_trace_callback_type_krealloc(probe_krealloc_sampled);
	check_trace_callback_type_kfree(probe_kfree_sampled);
	check_trace_callback_type_kmem_cache_alloc(probe_kmem_cache_alloc_sampled);
	check_trace_callback_type_kmem_cache_free(probe_kmem_cache_free_sampled);
	check_trace_callback_type_mm_page_alloc(probe_mm_page_alloc_sampled);
	check_trace_callback_type_mm_page_free(probe_mm_page_free_sampled);
	check_trace_callback_type_mm_page_split(probe_mm_page_split_sampled);
	check_trace_callback_type_mm_page_alloc_exact(probe_mm_page_alloc_exact_sampled);
	check_trace_callback_type_mm_page_free_exact(probe_mm_page_free_exact_sampled);
	check_trace_callback_type_percpu_alloc_percpu(probe_percpu_alloc_percpu_sampled);
	check_trace_callback_type_percpu_free_percpu(probe_percpu_free_percpu_sampled);
	check_trace_callback_type_vmalloc(probe_vmalloc_sampled);
	check_trace_callback_type_vrealloc(probe_vrealloc_sampled);
	check_trace_callback_type_vfree(probe_vfree_sampled);
}

/*
 * The table attached: kmemtrace_probes or kmemtrace_probes_sampled; NULL
 * while the allocators' own paths sample (kmemtrace_sample_hook_key).
 */
static const struct kmemtrace_probe *kmemtrace_attached = kmemtrace_probes;

static void kmemtrace_probes_detach_first(int n)
{
	while (n--)
		tracepoint_probe_unregister(kmemtrace_attached[n].tp,
					    kmemtrace_attached[n].probe, NULL);
}

/**
 * kmemtrace_probes_detach() - detach every probe
 *
 * The caller waits with tracepoint_synchronize_unregister() before it
 * touches state the probes use.
 */
void kmemtrace_probes_detach(void)
{
#ifdef CONFIG_KMEMTRACE_SAMPLE_HOOKS
	if (!kmemtrace_attached) {
		static_branch_disable(&kmemtrace_sample_hook_key);
		unregister_trace_mm_page_split(probe_mm_page_split_sampled,
					       NULL);
		return;
	}
#endif
	kmemtrace_probes_detach_first(ARRAY_SIZE(kmemtrace_probes));
}

#if IS_ENABLED(CONFIG_KMEMTRACE_KUNIT_TEST)
/*
 * For the KUnit test: how many of the probes' tracepoints are on, and -1
 * for all of them.
 */
int kmemtrace_probes_on(void)
{
	int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(kmemtrace_probes); i++)
		n += static_key_enabled(&kmemtrace_probes[i].tp->key);
	return n == ARRAY_SIZE(kmemtrace_probes) ? -1 : n;
}
#endif

/**
 * kmemtrace_probes_attach() - attach every probe, or none
 *
 * While a recording samples (kmemtrace_sampling()), the probes that take
 * the sampling fast path first, or with CONFIG_KMEMTRACE_SAMPLE_HOOKS no
 * probe but the allocators' own fast paths; else the probes that record
 * every event.
 *
 * Return: 0, or the error of the probe that failed (none stays attached).
 */
int kmemtrace_probes_attach(void)
{
	int i, ret;

	kmemtrace_possible_cpus = num_possible_cpus();
#ifdef CONFIG_KMEMTRACE_SAMPLE_HOOKS
	if (kmemtrace_sampling() && !kmemtrace_sample_via_probes()) {
		ret = register_trace_mm_page_split(probe_mm_page_split_sampled,
						   NULL);
		if (ret)
			return ret;
		kmemtrace_attached = NULL;
		static_branch_enable(&kmemtrace_sample_hook_key);
		return 0;
	}
#endif
	kmemtrace_attached = kmemtrace_sampling() ? kmemtrace_probes_sampled :
						    kmemtrace_probes;
	for (i = 0; i < ARRAY_SIZE(kmemtrace_probes); i++) {
		ret = tracepoint_probe_register(kmemtrace_attached[i].tp,
						kmemtrace_attached[i].probe, NULL);
		if (ret) {
			kmemtrace_probes_detach_first(i);
			tracepoint_synchronize_unregister();
			return ret;
		}
	}
	return 0;
}
