// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace probes: one per allocator tracepoint, each turning its
 * arguments into a struct kmemtrace_event for kmemtrace_emit().
 *
 * Slab:    kmalloc, kmem_cache_alloc, krealloc (in place), kfree,
 *          kmem_cache_free; bulk calls fire these once per object.
 * Pages:   mm_page_alloc, mm_page_free, and mm_page_alloc_exact and
 *          mm_page_free_exact for alloc_pages_exact().
 * Percpu:  percpu_alloc_percpu, percpu_free_percpu.
 * vmalloc: vmalloc, vrealloc (in place), vfree.
 *
 * The call site comes from the current kmemtrace scope when an API call
 * opened one (scope.c), else from the tracepoint.  Failed allocations and
 * frees of NULL are not recorded.  Probes run inside the allocators: they
 * build the event on the stack and take no lock; the kfree probe reads
 * the object's slab to type the free by its cache.
 *
 * See Documentation/trace/kmemtrace.rst.
 */

#include <linux/mm.h>
#include <linux/tracepoint.h>
#include <trace/events/kmem.h>
#include <trace/events/percpu.h>
#include <trace/events/vmalloc.h>

#include "../slab.h"
#include "kmemtrace.h"

/*
 * Take the call site and flags from the scope; false if the event is
 * suppressed.  Scopes are opened around an allocator's own calls only,
 * and reclaim and compaction run in an empty one, so an event here is
 * the allocator's own.
 */
static __always_inline bool kmemtrace_resolve(struct kmemtrace_event *ev,
					      bool page_event)
{
	const struct kmemtrace_scope *s = kmemtrace_scope_current();

	if (s->caller)
		ev->call_site = s->caller;
	if (s->flags & KMEMTRACE_SCOPE_BACKING)
		ev->flags |= KMEMTRACE_FLAG_BACKING;
	if (!page_event)
		return true;
	if (s->flags & KMEMTRACE_SCOPE_SUPPRESS)
		return false;
	if (s->flags & KMEMTRACE_SCOPE_UNPAIRED)
		ev->flags |= KMEMTRACE_FLAG_UNPAIRED;
	return true;
}

static __always_inline void kmemtrace_record(struct kmemtrace_event *ev,
					     bool page_event)
{
	if (ev->ptr && kmemtrace_resolve(ev, page_event))
		kmemtrace_emit(ev);
}

/* === Slab ================================================================ */

/* An allocation or resize with its sizes, of the slab or vmalloc APIs. */
static __always_inline void record_sized(u8 kind, u8 type,
					 unsigned long call_site,
					 const void *ptr, size_t bytes_req,
					 size_t bytes_alloc, gfp_t gfp_flags,
					 int node)
{
	struct kmemtrace_event ev = {
		.kind = kind,
		.type = type,
		.node = node,
		.gfp_flags = (__force u32)gfp_flags,
		.call_site = call_site,
		.ptr = (unsigned long)ptr,
		.bytes_req = bytes_req,
		.bytes_alloc = bytes_alloc,
	};

	kmemtrace_record(&ev, false);
}

/* A free that knows only its pointer, and for a cache its id. */
static __always_inline void record_free(u8 type, unsigned int cache_id,
					unsigned long call_site,
					const void *ptr)
{
	struct kmemtrace_event ev = {
		.kind = KMEMTRACE_KIND_FREE,
		.type = type,
		.node = KMEMTRACE_NO_NODE,
		.cache_id = cache_id,
		.call_site = call_site,
		.ptr = (unsigned long)ptr,
	};

	kmemtrace_record(&ev, false);
}


static void probe_kmalloc(void *ignore, unsigned long call_site,
			  const void *ptr, size_t bytes_req,
			  size_t bytes_alloc, gfp_t gfp_flags, int node)
{
	record_sized(KMEMTRACE_KIND_ALLOC, KMEMTRACE_TYPE_KMALLOC, call_site,
		     ptr, bytes_req, bytes_alloc, gfp_flags, node);
}

static void probe_krealloc(void *ignore, unsigned long call_site,
			   const void *ptr, size_t bytes_req,
			   size_t bytes_alloc, gfp_t gfp_flags)
{
	record_sized(KMEMTRACE_KIND_REALLOC, KMEMTRACE_TYPE_KMALLOC, call_site,
		     ptr, bytes_req, bytes_alloc, gfp_flags, KMEMTRACE_NO_NODE);
}

/*
 * kfree() frees any slab object, and kfree_bulk() and kfree_rcu() free
 * through it: an object of a kmem_cache is a free of that cache, typed as
 * its allocation was.  Objects of kmalloc caches and large kmallocs (no
 * slab) are kmalloc's.
 */
static void probe_kfree(void *ignore, unsigned long call_site, const void *ptr)
{
	struct folio *folio;

	if (ZERO_OR_NULL_PTR(ptr))
		return;
	folio = virt_to_folio(ptr);
	if (folio_test_slab(folio)) {
		struct kmem_cache *s = folio_slab(folio)->slab_cache;

		if (!is_kmalloc_cache(s)) {
			record_free(KMEMTRACE_TYPE_CACHE, s->kmemtrace_id,
				    call_site, ptr);
			return;
		}
	}
	record_free(KMEMTRACE_TYPE_KMALLOC, 0, call_site, ptr);
}

static void probe_kmem_cache_alloc(void *ignore, unsigned long call_site,
				   const void *ptr, struct kmem_cache *s,
				   gfp_t gfp_flags, int node)
{
	struct kmemtrace_event ev = {
		.kind = KMEMTRACE_KIND_ALLOC,
		.type = KMEMTRACE_TYPE_CACHE,
		.node = node,
		.gfp_flags = (__force u32)gfp_flags,
		.cache_id = s->kmemtrace_id,
		.call_site = call_site,
		.ptr = (unsigned long)ptr,
		.bytes_req = s->object_size,
		.bytes_alloc = s->size,
	};

	kmemtrace_record(&ev, false);
}

static void probe_kmem_cache_free(void *ignore, unsigned long call_site,
				  const void *ptr, const struct kmem_cache *s)
{
	record_free(KMEMTRACE_TYPE_CACHE, s->kmemtrace_id, call_site, ptr);
}

/* === Pages =============================================================== */

static void probe_mm_page_alloc(void *ignore, struct page *page,
				unsigned int order, gfp_t gfp_flags,
				int migratetype)
{
	struct kmemtrace_event ev = {
		.kind = KMEMTRACE_KIND_ALLOC,
		.type = KMEMTRACE_TYPE_PAGES,
		.order = order,
		.gfp_flags = (__force u32)gfp_flags,
		.migratetype = migratetype,
		.bytes_req = PAGE_SIZE << order,
		.bytes_alloc = PAGE_SIZE << order,
	};

	if (!page)
		return;
	ev.node = page_to_nid(page);
	ev.ptr = (unsigned long)page_address(page);
	kmemtrace_record(&ev, true);
}

static void probe_mm_page_free(void *ignore, struct page *page,
			       unsigned int order)
{
	struct kmemtrace_event ev = {
		.kind = KMEMTRACE_KIND_FREE,
		.type = KMEMTRACE_TYPE_PAGES,
		.order = order,
		.node = page_to_nid(page),
		.ptr = (unsigned long)page_address(page),
		.bytes_req = PAGE_SIZE << order,
		.bytes_alloc = PAGE_SIZE << order,
	};

	kmemtrace_record(&ev, true);
}

static void probe_page_exact(unsigned int kind, unsigned long call_site,
			     const void *ptr, size_t size, gfp_t gfp_flags)
{
	struct kmemtrace_event ev = {
		.kind = kind,
		.type = KMEMTRACE_TYPE_PAGES,
		.order = get_order(size),
		.node = KMEMTRACE_NO_NODE,
		.gfp_flags = (__force u32)gfp_flags,
		.call_site = call_site,
		.ptr = (unsigned long)ptr,
		.bytes_req = size,
		.bytes_alloc = PAGE_ALIGN(size),
	};

	/* The API event itself: not subject to the scope it opened. */
	kmemtrace_record(&ev, false);
}

static void probe_mm_page_alloc_exact(void *ignore, unsigned long call_site,
				      const void *ptr, size_t size,
				      gfp_t gfp_flags)
{
	probe_page_exact(KMEMTRACE_KIND_ALLOC, call_site, ptr, size, gfp_flags);
}

static void probe_mm_page_free_exact(void *ignore, unsigned long call_site,
				     const void *ptr, size_t size,
				     gfp_t gfp_flags)
{
	probe_page_exact(KMEMTRACE_KIND_FREE, call_site, ptr, size, 0);
}

/* === Percpu ============================================================== */

static void probe_percpu_alloc_percpu(void *ignore, unsigned long call_site,
				      bool reserved, bool is_atomic,
				      size_t size, size_t align,
				      void *base_addr, int off,
				      void __percpu *ptr, size_t bytes_alloc,
				      gfp_t gfp_flags)
{
	/*
	 * Both sizes are for all possible CPUs, as bytes_alloc comes: @size
	 * (rounded up to PCPU_MIN_ALLOC_SIZE) is per CPU.
	 */
	struct kmemtrace_event ev = {
		.kind = KMEMTRACE_KIND_ALLOC,
		.type = KMEMTRACE_TYPE_PERCPU,
		.node = KMEMTRACE_NO_NODE,
		.gfp_flags = (__force u32)gfp_flags,
		.call_site = call_site,
		.ptr = (__force unsigned long)ptr,
		.bytes_req = size * num_possible_cpus(),
		.bytes_alloc = bytes_alloc,
	};

	kmemtrace_record(&ev, false);
}

static void probe_percpu_free_percpu(void *ignore, void *base_addr, int off,
				     void __percpu *ptr)
{
	record_free(KMEMTRACE_TYPE_PERCPU, 0, 0, (__force const void *)ptr);
}

/* === vmalloc ============================================================= */

static void probe_vmalloc(void *ignore, unsigned long call_site,
			  const void *ptr, size_t bytes_req, size_t bytes_alloc,
			  gfp_t gfp_flags, int node)
{
	record_sized(KMEMTRACE_KIND_ALLOC, KMEMTRACE_TYPE_VMALLOC, call_site,
		     ptr, bytes_req, bytes_alloc, gfp_flags, node);
}

static void probe_vrealloc(void *ignore, unsigned long call_site,
			   const void *ptr, size_t bytes_req,
			   size_t bytes_alloc, gfp_t gfp_flags)
{
	record_sized(KMEMTRACE_KIND_REALLOC, KMEMTRACE_TYPE_VMALLOC, call_site,
		     ptr, bytes_req, bytes_alloc, gfp_flags, KMEMTRACE_NO_NODE);
}

static void probe_vfree(void *ignore, unsigned long call_site, const void *ptr)
{
	record_free(KMEMTRACE_TYPE_VMALLOC, 0, call_site, ptr);
}

/* === Attaching =========================================================== */

struct kmemtrace_probe {
	struct tracepoint	*tp;
	void			*probe;
};

#define KMEMTRACE_PROBE(name)	{ &__tracepoint_##name, probe_##name }

static const struct kmemtrace_probe kmemtrace_probes[] = {
	KMEMTRACE_PROBE(kmalloc),
	KMEMTRACE_PROBE(krealloc),
	KMEMTRACE_PROBE(kfree),
	KMEMTRACE_PROBE(kmem_cache_alloc),
	KMEMTRACE_PROBE(kmem_cache_free),
	KMEMTRACE_PROBE(mm_page_alloc),
	KMEMTRACE_PROBE(mm_page_free),
	KMEMTRACE_PROBE(mm_page_alloc_exact),
	KMEMTRACE_PROBE(mm_page_free_exact),
	KMEMTRACE_PROBE(percpu_alloc_percpu),
	KMEMTRACE_PROBE(percpu_free_percpu),
	KMEMTRACE_PROBE(vmalloc),
	KMEMTRACE_PROBE(vrealloc),
	KMEMTRACE_PROBE(vfree),
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
	check_trace_callback_type_mm_page_alloc_exact(probe_mm_page_alloc_exact);
	check_trace_callback_type_mm_page_free_exact(probe_mm_page_free_exact);
	check_trace_callback_type_percpu_alloc_percpu(probe_percpu_alloc_percpu);
	check_trace_callback_type_percpu_free_percpu(probe_percpu_free_percpu);
	check_trace_callback_type_vmalloc(probe_vmalloc);
	check_trace_callback_type_vrealloc(probe_vrealloc);
	check_trace_callback_type_vfree(probe_vfree);
}

static void kmemtrace_probes_detach_first(int n)
{
	while (n--)
		tracepoint_probe_unregister(kmemtrace_probes[n].tp,
					    kmemtrace_probes[n].probe, NULL);
}

/**
 * kmemtrace_probes_detach() - detach every probe
 *
 * The caller waits with tracepoint_synchronize_unregister() before it
 * touches state the probes use.
 */
void kmemtrace_probes_detach(void)
{
	kmemtrace_probes_detach_first(ARRAY_SIZE(kmemtrace_probes));
}

/**
 * kmemtrace_probes_attach() - attach every probe, or none
 *
 * Return: 0, or the error of the probe that failed (none stays attached).
 */
int kmemtrace_probes_attach(void)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(kmemtrace_probes); i++) {
		ret = tracepoint_probe_register(kmemtrace_probes[i].tp,
						kmemtrace_probes[i].probe, NULL);
		if (ret) {
			kmemtrace_probes_detach_first(i);
			tracepoint_synchronize_unregister();
			return ret;
		}
	}
	return 0;
}
