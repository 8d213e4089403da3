/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace: a binary record of every kernel memory allocation and free.
 *
 * See Documentation/trace/kmemtrace.rst.
 */
#ifndef _LINUX_KMEMTRACE_H
#define _LINUX_KMEMTRACE_H

#include <linux/bits.h>
#include <linux/bug.h>
#include <linux/cache.h>
#include <linux/build_bug.h>
#include <linux/cleanup.h>
#include <linux/errno.h>
#include <linux/hash.h>
#include <linux/instruction_pointer.h>
#include <linux/jump_label.h>
#include <linux/kmemtrace_types.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/types.h>

/*
 * Every event here is an allocator's own backing store or bookkeeping
 * (slab pages; a vmalloc area's pages, page array, vm_struct).
 */
#define KMEMTRACE_SCOPE_BACKING		0x1
/* Page events here are reported by the API itself (large kmalloc's pages). */
#define KMEMTRACE_SCOPE_SUPPRESS	0x2
/* Page frees here were never allocated through the page allocator. */
#define KMEMTRACE_SCOPE_UNPAIRED	0x4
/*
 * Inside vmalloc()'s __vmalloc_node_range_noprof() (kmemtrace_vmalloc()):
 * every event is the area's backing store, but for the area's own vmalloc
 * event.
 */
#define KMEMTRACE_SCOPE_VMALLOC		0x8
/* Internal: the scope was entered and must be restored on exit. */
#define KMEMTRACE_SCOPE_ENTERED		0x80

#ifdef CONFIG_KMEMTRACE

DECLARE_STATIC_KEY_FALSE(kmemtrace_scope_key);
DECLARE_STATIC_KEY_FALSE(kmemtrace_name_key);
DECLARE_PER_CPU(struct kmemtrace_scope, kmemtrace_irq_scope[3]);

struct kmemtrace_scope __kmemtrace_scope_enter(unsigned long caller,
					       unsigned int flags);
struct kmemtrace_scope __kmemtrace_scope_reset(void);
void __kmemtrace_scope_exit(struct kmemtrace_scope old);

/*
 * The scope of a context at interrupt_context_level() @level: the task's,
 * or this CPU's for softirq (1), hardirq (2) or NMI (3).
 */
static __always_inline struct kmemtrace_scope *
kmemtrace_scope_of(unsigned int level)
{
	if (likely(!level))
		return &current->kmemtrace_scope;
	return this_cpu_ptr(&kmemtrace_irq_scope[level - 1]);
}

/**
 * kmemtrace_scope_current() - the scope of the running context
 *
 * The task's, or this CPU's for softirq, hardirq or NMI context.
 *
 * Context: Any; the result is valid until the context ends or sleeps.
 * Return: the scope, never NULL.
 */
static __always_inline struct kmemtrace_scope *kmemtrace_scope_current(void)
{
	/*
	 * Task context, the common case, in one test of the preemption
	 * count: interrupt_context_level() takes three.
	 */
	if (likely(in_task()))
		return &current->kmemtrace_scope;
	return kmemtrace_scope_of(interrupt_context_level());
}

/**
 * kmemtrace_api_unnamed() - whether an API function should name its caller
 *                           in the events below it
 *
 * For API functions whose events come from deeper down (the page
 * allocator's) or that call other APIs.  Each has an out-of-line copy of
 * the same type that opens the scope (kmemtrace_named()) and calls it
 * again, and a KMEMTRACE_ENTRY() that pairs the two::
 *
 *	static noinline void __free_pages_named(struct page *page,
 *						unsigned int order)
 *	{
 *		kmemtrace_named(_RET_IP_);
 *		__free_pages(page, order);
 *	}
 *	KMEMTRACE_ENTRY(__free_pages, __free_pages_named, 0);
 *
 * The function itself is not changed.  While kmemtrace records, an
 * ftrace_ops on its __fentry__ call (mm/kmemtrace/entry.c) hands the call
 * to the copy, as livepatch hands a function to its replacement, when
 * this says so: no outer API call named a caller yet.  The copy's own
 * call of the function finds its caller named and runs the function as
 * usual.  While kmemtrace is off, the function runs exactly the
 * instructions it runs without kmemtrace.  A sampling recording names a
 * sample's caller from its stack instead, and hands no call over.
 *
 * Inside a scope that suppresses page events (KMEMTRACE_SCOPE_SUPPRESS:
 * the pages of a large kmalloc(), alloc_pages_exact()'s block, the
 * frees of their pages) nothing below is recorded, so nothing is named
 * either: the page allocator's entry points run once, not re-entered.
 * Those scopes hold only page allocator calls; reclaim and compaction
 * under them open a scope of their own (kmemtrace_reclaim()).
 *
 * Context: Any context.
 * Return: true if the function should re-enter itself named.
 */
static __always_inline bool kmemtrace_api_unnamed(void)
{
	const struct kmemtrace_scope *s;

	if (!static_branch_unlikely(&kmemtrace_name_key))
		return false;
	s = kmemtrace_scope_current();
	return !s->caller && !(s->flags & KMEMTRACE_SCOPE_SUPPRESS);
}

/**
 * kmemtrace_scope_lacks() - whether this function should re-enter itself
 *                           in a scope with @flags
 * @flags: KMEMTRACE_SCOPE_BACKING, KMEMTRACE_SCOPE_SUPPRESS or
 *	KMEMTRACE_SCOPE_UNPAIRED; 0 is never lacking
 *
 * As kmemtrace_api_unnamed(), for allocator internals whose events all
 * get @flags: the copy opens its scope with kmemtrace_flagged() and calls
 * the function again, and KMEMTRACE_ENTRY() names @flags.  A function
 * GCC inlines has no __fentry__ of its own: it tests this inline and
 * calls its copy itself, which costs one no-op while kmemtrace is off.
 *
 * Context: Any context.
 * Return: true while kmemtrace records and the scope lacks a bit of @flags.
 */
static __always_inline bool kmemtrace_scope_lacks(unsigned int flags)
{
	return static_branch_unlikely(&kmemtrace_scope_key) &&
	       (kmemtrace_scope_current()->flags & flags) != flags;
}

/**
 * struct kmemtrace_entry - an allocator entry point and its scoped copy
 * @func: the entry point, a function GCC does not inline
 * @copy: a function of @func's type that opens a scope and calls @func
 * @flags: 0 if @copy names the caller (kmemtrace_api_unnamed()), else the
 *	KMEMTRACE_SCOPE_* bits it adds (kmemtrace_scope_lacks())
 *
 * Built-in code only: the table is vmlinux's __kmemtrace_entries section.
 */
struct kmemtrace_entry {
	void		*func;
	void		*copy;
	unsigned int	flags;
};

/**
 * KMEMTRACE_ENTRY() - hand @func's calls to @copy while kmemtrace records
 * @func: the entry point
 * @copy: its copy, of the same type, defined before
 * @flags: 0 to name the caller, else the KMEMTRACE_SCOPE_* bits @copy adds
 *
 * The copy is entered with @func's arguments and return address, so its
 * _RET_IP_ is @func's caller.  See kmemtrace_api_unnamed().
 */
#define KMEMTRACE_ENTRY(func, copy, flags)				\
	static_assert(__builtin_types_compatible_p(typeof(func),	\
						   typeof(copy)));	\
	static const struct kmemtrace_entry __kmemtrace_entry_##func	\
	__used __section("__kmemtrace_entries") __aligned(8) = {	\
		(void *)(func), (void *)(copy), (flags)			\
	}

/* The table, between these (include/asm-generic/vmlinux.lds.h). */
extern const struct kmemtrace_entry __start___kmemtrace_entries[];
extern const struct kmemtrace_entry __stop___kmemtrace_entries[];

/**
 * kmemtrace_scope_enter() - enter an allocator API call
 * @caller: address in the caller of the API (_RET_IP_ or _THIS_IP_)
 * @flags: KMEMTRACE_SCOPE_* bits to add for the duration of the call
 *
 * Costs a static branch while kmemtrace is not recording.  @caller is
 * named only while kmemtrace names callers by scope (kmemtrace_name_key,
 * off while it samples); @flags whenever it records.
 *
 * Context: Any context but NMI.
 * Return: the previous scope, to hand to kmemtrace_scope_exit().
 */
static __always_inline struct kmemtrace_scope
kmemtrace_scope_enter(unsigned long caller, unsigned int flags)
{
	if (static_branch_unlikely(&kmemtrace_scope_key))
		return __kmemtrace_scope_enter(caller, flags);
	return (struct kmemtrace_scope){ };
}

/**
 * kmemtrace_scope_reset() - leave every allocator API call for a while
 *
 * For work done for the whole system that an allocation may have to do
 * first: direct and memcg reclaim, compaction, the OOM killer.  What it
 * frees and allocates is not the allocating caller's, nor part of the
 * allocator call it interrupts, so it runs in an empty scope: its events
 * get their natural callers (a shrinker's kfree() names the shrinker) and
 * no flags.
 *
 * Context: Any context but NMI.
 * Return: the previous scope, to hand to kmemtrace_scope_exit().
 */
static __always_inline struct kmemtrace_scope kmemtrace_scope_reset(void)
{
	if (static_branch_unlikely(&kmemtrace_scope_key))
		return __kmemtrace_scope_reset();
	return (struct kmemtrace_scope){ };
}

/**
 * kmemtrace_scope_exit() - leave an allocator API call
 * @old: what the matching kmemtrace_scope_enter() returned
 *
 * Context: The context that entered the scope.
 */
static __always_inline void kmemtrace_scope_exit(struct kmemtrace_scope old)
{
	if (old.flags & KMEMTRACE_SCOPE_ENTERED)
		__kmemtrace_scope_exit(old);
}

/**
 * kmemtrace_enable() - start recording allocations into the relay buffers
 *
 * Attaches the kmemtrace probes to the allocator tracepoints.  Does nothing
 * if recording is already on.
 *
 * Context: Process context, may sleep.
 * Return: 0 on success, a negative errno if a probe could not be attached
 * (recording then stays off).
 */
int kmemtrace_enable(void);

/**
 * kmemtrace_disable() - stop recording allocations
 *
 * Detaches the probes and waits until no CPU runs one any more, so the
 * buffers are quiescent when this returns.  Events already recorded stay
 * readable.
 *
 * Context: Process context, may sleep.
 */
void kmemtrace_disable(void);

/**
 * kmemtrace_enabled() - whether kmemtrace is recording
 *
 * Context: Any context.
 * Return: true from when every probe is attached until recording is
 * switched off and no probe writes to the buffers any more.
 */
bool kmemtrace_enabled(void);

void kmemtrace_cache_add(unsigned int id, const char *name);
void kmemtrace_cache_del(unsigned int id);
bool kmemtrace_cache_name(unsigned int id, char *buf, size_t size);
struct kmem_cache;
void kmemtrace_cache_backing(struct kmem_cache *s);

/* === Sampling: the fast paths ============================================ */

/* Buckets of the table of sampled objects: 512 KiB, 57344 objects. */
#define KMEMTRACE_SAMPLE_BUCKETS_ORDER	13
#define KMEMTRACE_SAMPLE_BUCKETS	BIT(KMEMTRACE_SAMPLE_BUCKETS_ORDER)
#define KMEMTRACE_SAMPLE_SLOTS		7

/*
 * A bucket of the table of sampled objects, one cache line: the mask of
 * the slots in use and the pointers of the sampled objects in them.
 */
struct kmemtrace_sample_bucket {
	unsigned long	mask;
	unsigned long	ptr[KMEMTRACE_SAMPLE_SLOTS];
} ____cacheline_aligned;

DECLARE_PER_CPU(long, kmemtrace_sample_left);
extern struct kmemtrace_sample_bucket *kmemtrace_sample_table;
void kmemtrace_sample_redraw(void);

/**
 * kmemtrace_sample_alloc_hit() - count an allocation down, the fast path
 * @bytes: bytes the allocator reserved
 *
 * While a recording samples, before anything else: one interrupt-safe
 * this_cpu operation.  The allocation that takes this CPU's count from
 * above zero to zero or below is the sampled one; the caller of a hit
 * calls kmemtrace_sample_redraw() at once, whatever it records.  One
 * that finds the count at zero or below already is not sampled, and
 * draws this CPU's count anew: the crossing one has not yet, as an
 * interrupt came between, or never will on this CPU, as its task was
 * preempted and moved to another before it drew (the allocators' hooks
 * run with preemption on), which would leave this CPU unsampled.
 *
 * Context: Any context.
 * Return: true if this allocation crossed the count.
 */
static __always_inline bool kmemtrace_sample_alloc_hit(size_t bytes)
{
	long left = this_cpu_sub_return(kmemtrace_sample_left, bytes);

	if (likely(left > 0))
		return false;
	if (left + (long)bytes > 0)
		return true;
	kmemtrace_sample_redraw();
	return false;
}

/**
 * kmemtrace_sample_free_maybe() - whether a free may be of a sampled object
 * @ptr: the memory freed or resized
 *
 * The fast path of frees while a recording samples: a load of the mask of
 * @ptr's bucket in the table of sampled objects, empty unless the table
 * holds many (a long recording); the function called for the others
 * looks @ptr up before anything else.
 *
 * Context: Any context.
 * Return: false if @ptr is certainly not a sampled object.
 */
static __always_inline bool kmemtrace_sample_free_maybe(unsigned long ptr)
{
	return unlikely(READ_ONCE(kmemtrace_sample_table[hash_long(ptr,
				KMEMTRACE_SAMPLE_BUCKETS_ORDER)].mask));
}

#endif /* CONFIG_KMEMTRACE */

#ifdef CONFIG_KMEMTRACE_SAMPLE_HOOKS

struct kmem_cache;
struct page;

DECLARE_STATIC_KEY_FALSE(kmemtrace_sample_hook_key);

/**
 * kmemtrace_sample_hooks() - whether the allocators' own paths sample
 *
 * For paths that fire their tracepoints only while those are on
 * (trace_@event_enabled(), the bulk APIs): while a recording samples in
 * the allocators' own paths, no probe is attached, yet their allocations
 * must be counted and their frees of sampled objects recorded.
 *
 * Return: true while kmemtrace_alloc_event() and kmemtrace_free_event()
 * sample.
 */
static __always_inline bool kmemtrace_sample_hooks(void)
{
	return static_branch_unlikely(&kmemtrace_sample_hook_key);
}

/**
 * kmemtrace_alloc_event() - fire an allocation tracepoint, sampling it
 * @event: the tracepoint: trace_@event(@args) fires it
 * @bytes: bytes the allocation takes, evaluated only while sampling
 * @args: the tracepoint's arguments
 *
 * While a kmemtrace recording samples (sample_period), counts @bytes down
 * inline and hands the allocation that crosses the count to
 * kmemtrace_sampled_@event(@args), which records it; the tracepoints
 * stay detached.  Otherwise one no-op instruction more than the
 * tracepoint alone.  Allocation profiling counts in the allocators'
 * paths the same way (alloc_tag_add()).
 *
 * Context: Any context.
 */
#define kmemtrace_alloc_event(event, bytes, args...)			\
do {									\
	if (static_branch_unlikely(&kmemtrace_sample_hook_key) &&	\
	    kmemtrace_sample_alloc_hit(bytes))				\
		kmemtrace_sampled_##event(args);			\
	trace_##event(args);						\
} while (0)

/**
 * kmemtrace_free_event() - fire a free or resize tracepoint, sampling it
 * @event: the tracepoint: trace_@event(@args) fires it
 * @ptr: the memory freed or resized, evaluated only while sampling
 * @args: the tracepoint's arguments
 *
 * As kmemtrace_alloc_event(): while a recording samples, a free whose
 * pointer's bucket holds a sampled object goes on to
 * kmemtrace_sampled_@event(@args), which records it if it is one.
 *
 * Context: Any context.
 */
#define kmemtrace_free_event(event, ptr, args...)			\
do {									\
	if (static_branch_unlikely(&kmemtrace_sample_hook_key) &&	\
	    kmemtrace_sample_free_maybe((__force unsigned long)(ptr)))	\
		kmemtrace_sampled_##event(args);			\
	trace_##event(args);						\
} while (0)

/**
 * kmemtrace_free_traced() - whether a free would be traced or sampled
 * @event: the free's tracepoint
 * @ptr: the memory freed
 *
 * For a path that must do work before kmemtrace_free_event() (vfree()
 * looks its area up): true while trace_@event is on, or while a recording
 * samples and @ptr may be a sampled object.
 */
#define kmemtrace_free_traced(event, ptr)				\
	(trace_##event##_enabled() ||					\
	 (static_branch_unlikely(&kmemtrace_sample_hook_key) &&	\
	  kmemtrace_sample_free_maybe((__force unsigned long)(ptr))))

void kmemtrace_sampled_kmalloc(unsigned long call_site, const void *ptr,
			       size_t bytes_req, size_t bytes_alloc,
			       gfp_t gfp_flags, int node);
void kmemtrace_sampled_krealloc(unsigned long call_site, const void *ptr,
				size_t bytes_req, size_t bytes_alloc,
				gfp_t gfp_flags);
void kmemtrace_sampled_kfree(unsigned long call_site, const void *ptr,
			     const struct kmem_cache *s);
void kmemtrace_sampled_kmem_cache_alloc(unsigned long call_site,
					const void *ptr, struct kmem_cache *s,
					gfp_t gfp_flags, int node);
void kmemtrace_sampled_kmem_cache_free(unsigned long call_site,
				       const void *ptr,
				       const struct kmem_cache *s);
void kmemtrace_sampled_mm_page_alloc(struct page *page, unsigned int order,
				     gfp_t gfp_flags, int migratetype);
void kmemtrace_sampled_mm_page_free(struct page *page, unsigned int order);
void kmemtrace_sampled_mm_page_alloc_exact(unsigned long call_site,
					   const void *ptr, size_t size,
					   gfp_t gfp_flags);
void kmemtrace_sampled_mm_page_free_exact(unsigned long call_site,
					  const void *ptr, size_t size,
					  gfp_t gfp_flags);
void kmemtrace_sampled_percpu_alloc_percpu(unsigned long call_site,
					   bool reserved, bool is_atomic,
					   size_t size, size_t align,
					   void *base_addr, int off,
					   void __percpu *ptr,
					   size_t bytes_alloc, gfp_t gfp_flags);
void kmemtrace_sampled_percpu_free_percpu(void *base_addr, int off,
					  void __percpu *ptr);
void kmemtrace_sampled_vmalloc(unsigned long call_site, const void *ptr,
			       size_t bytes_req, size_t bytes_alloc,
			       gfp_t gfp_flags, int node);
void kmemtrace_sampled_vrealloc(unsigned long call_site, const void *ptr,
				size_t bytes_req, size_t bytes_alloc,
				gfp_t gfp_flags);
void kmemtrace_sampled_vfree(unsigned long call_site, const void *ptr);

#else /* !CONFIG_KMEMTRACE_SAMPLE_HOOKS */

static inline bool kmemtrace_sample_hooks(void)
{
	return false;
}

/* The tracepoint alone; sizeof() names @bytes and @ptr unevaluated. */
#define kmemtrace_alloc_event(event, bytes, args...)			\
do {									\
	(void)sizeof(bytes);						\
	trace_##event(args);						\
} while (0)
#define kmemtrace_free_event(event, ptr, args...)			\
do {									\
	(void)sizeof(ptr);						\
	trace_##event(args);						\
} while (0)
#define kmemtrace_free_traced(event, ptr)				\
	((void)sizeof(ptr), trace_##event##_enabled())

#endif /* CONFIG_KMEMTRACE_SAMPLE_HOOKS */

struct kmemtrace_event;

#ifdef CONFIG_KMEMTRACE_TRACER
int kmemtrace_tracer_start(void);
void kmemtrace_tracer_stop(void);

/**
 * kmemtrace_tracer_event() - write an event to the kmemtrace tracer
 * @ev: the complete event but its timestamp
 * @irqflags: the interrupt flags of the context that recorded it
 *
 * Called by kmemtrace for every event while the kmemtrace tracer and the
 * relay streams both record (kernel/trace/trace_kmemtrace.c).
 *
 * Context: Interrupts disabled, any context but NMI.
 * Return: the time stamp of the entry written, in trace_clock_local()
 * nanoseconds; 0 if none was written or the trace clock is not "local".
 */
u64 kmemtrace_tracer_event(const struct kmemtrace_event *ev,
			   unsigned long irqflags);

/**
 * kmemtrace_tracer_write() - write an event to the kmemtrace tracer only
 * @ev: the complete event but its timestamp
 * @irqflags: the interrupt flags of the context that recorded it
 *
 * kmemtrace_tracer_event() without the time stamp: while the tracer
 * records alone, or the relay streams stamp the TSC.
 *
 * Context: Interrupts disabled, any context but NMI.
 */
void kmemtrace_tracer_write(const struct kmemtrace_event *ev,
			    unsigned long irqflags);
#else
static inline u64 kmemtrace_tracer_event(const struct kmemtrace_event *ev,
					 unsigned long irqflags)
{
	return 0;
}

static inline void kmemtrace_tracer_write(const struct kmemtrace_event *ev,
					  unsigned long irqflags)
{
}
#endif

#ifndef CONFIG_KMEMTRACE
static inline int kmemtrace_enable(void) { return -ENODEV; }
static inline void kmemtrace_disable(void) { }
static inline bool kmemtrace_enabled(void) { return false; }
#endif

#ifdef CONFIG_KMEMTRACE

DEFINE_CLASS(kmemtrace_scope, struct kmemtrace_scope,
	     kmemtrace_scope_exit(_T), kmemtrace_scope_enter(caller, flags),
	     unsigned long caller, unsigned int flags)

/*
 * __kmemtrace_scope_enter() and __kmemtrace_scope_exit() inline, for the
 * out-of-line copies of kmemtrace_named() and kmemtrace_flagged(), which
 * run only while kmemtrace records: there the calls cost more than the
 * work.  The context's scope is the same at both ends.
 */
static __always_inline struct kmemtrace_scope
kmemtrace_scope_open(unsigned long caller, unsigned int flags)
{
	struct kmemtrace_scope *s = kmemtrace_scope_current();
	struct kmemtrace_scope old = *s;

	if (caller && !s->caller) {
		s->caller = caller;
		WARN_ON_ONCE(s->caller != caller);
	}
	s->flags |= flags;
	return old;
}

static __always_inline void kmemtrace_scope_close(struct kmemtrace_scope old)
{
	*kmemtrace_scope_current() = old;
}

/*
 * The scope a function opens when kmemtrace_api_unnamed() says so.  It
 * names the caller even if the scope key went off meanwhile: while a
 * static key is switched, its sites disagree for a moment, and a
 * re-entered call that found no caller named would re-enter again, to
 * the end of the stack.
 */
DEFINE_CLASS(kmemtrace_named, struct kmemtrace_scope,
	     kmemtrace_scope_close(_T), kmemtrace_scope_open(caller, 0),
	     unsigned long caller)

/**
 * kmemtrace_named() - the rest of this function names @caller
 * @caller: address in the API's caller, usually _RET_IP_ of the API
 *
 * For the out-of-line copy kmemtrace_api_unnamed() hands a call to.
 */
#define kmemtrace_named(caller)	CLASS(kmemtrace_named, __UNIQUE_ID(kmt))(caller)

/* As kmemtrace_named, for kmemtrace_scope_lacks(): flags, no caller. */
DEFINE_CLASS(kmemtrace_flagged, struct kmemtrace_scope,
	     kmemtrace_scope_close(_T), kmemtrace_scope_open(0, flags),
	     unsigned int flags)

/**
 * kmemtrace_flagged() - events in the rest of this function get @flags
 * @flags: KMEMTRACE_SCOPE_* bits
 *
 * For the out-of-line copy kmemtrace_scope_lacks() hands a call to.
 */
#define kmemtrace_flagged(flags) CLASS(kmemtrace_flagged, __UNIQUE_ID(kmt))(flags)

/* The scope of kmemtrace_vmalloc(): names the caller as kmemtrace_named(). */
static __always_inline struct kmemtrace_scope
kmemtrace_vmalloc_open(unsigned long caller)
{
	if (!static_branch_unlikely(&kmemtrace_name_key))
		caller = 0;
	return kmemtrace_scope_open(caller, KMEMTRACE_SCOPE_VMALLOC);
}

DEFINE_CLASS(kmemtrace_vmalloc, struct kmemtrace_scope,
	     kmemtrace_scope_close(_T), kmemtrace_vmalloc_open(caller),
	     unsigned long caller)

/**
 * kmemtrace_vmalloc() - the rest of this function makes a vmalloc() area
 * @caller: address in the vmalloc() API's caller
 *
 * For the out-of-line copy of __vmalloc_node_range_noprof() (mm/vmalloc.c),
 * whose KMEMTRACE_ENTRY() adds KMEMTRACE_SCOPE_VMALLOC: what the function
 * allocates for the area (its vm_struct, page array, pages and page
 * tables) is flagged backing store, and only the area's own vmalloc
 * event, written at its end, is not, unless the scope was backing store
 * already.  So the function needs no scope test of its own.  Names
 * @caller while kmemtrace names callers by scope (not while it samples).
 */
#define kmemtrace_vmalloc(caller) \
	CLASS(kmemtrace_vmalloc, __UNIQUE_ID(kmt))(caller)

/**
 * kmemtrace_api() - the rest of this function is an allocator API call
 * @caller: address in the API's caller, usually _RET_IP_
 *
 * For API functions whose events, or the events of the APIs they call,
 * come from deeper down than the tracepoint that names their caller.
 */
#define kmemtrace_api(caller)	CLASS(kmemtrace_scope, __UNIQUE_ID(kmt))(caller, 0)

/**
 * kmemtrace_internal() - events in the rest of this function are an
 *                        allocator's internals
 * @flags: KMEMTRACE_SCOPE_BACKING, KMEMTRACE_SCOPE_SUPPRESS or
 *	KMEMTRACE_SCOPE_UNPAIRED
 *
 * Open it around the allocator's own call only (kmemtrace_scoped()): every
 * event below it gets the flags, except those of reclaim and compaction,
 * which open their own scope (kmemtrace_reclaim()).
 */
#define kmemtrace_internal(flags)	CLASS(kmemtrace_scope, __UNIQUE_ID(kmt))(0, flags)

DEFINE_CLASS(kmemtrace_reset, struct kmemtrace_scope,
	     kmemtrace_scope_exit(_T), kmemtrace_scope_reset(), void)

/**
 * kmemtrace_reclaim() - the rest of this function works for the system,
 *                       not for the allocator call it may be under
 *
 * Opens an empty scope (see kmemtrace_scope_reset()) in the entry points
 * of reclaim, compaction and the OOM killer.
 */
#define kmemtrace_reclaim()	CLASS(kmemtrace_reset, __UNIQUE_ID(kmt))()

/**
 * kmemtrace_scoped() - run the next statement in a kmemtrace scope
 * @caller: address in the API's caller, or 0 to keep the outer one
 * @flags: KMEMTRACE_SCOPE_* bits to add, or 0
 *
 * The block form of kmemtrace_api() and kmemtrace_internal(), for a
 * scope around one call of the allocator's own (scoped_class()).
 */
#define kmemtrace_scoped(caller, flags)	\
	scoped_class(kmemtrace_scope, kmt, caller, flags)

#else /* !CONFIG_KMEMTRACE */

/*
 * Without kmemtrace the hooks are nothing at all, rather than empty
 * inlines: a variable with a cleanup, even one that does nothing, or a
 * dead call found dead only after inlining, still changes the code GCC
 * generates around it (make offcheck compares mm/ with the unpatched
 * tree's).  The hooks are declarations or statements as they are with
 * kmemtrace; sizeof() names their arguments without evaluating them.
 */
#define kmemtrace_api_unnamed()		false
#define KMEMTRACE_ENTRY(func, copy, flags)				\
	static_assert(__builtin_types_compatible_p(typeof(func),	\
						   typeof(copy)) &&	\
		      sizeof(flags))
#define kmemtrace_scope_lacks(flags)	(sizeof(flags) && false)
#define kmemtrace_named(caller)		static_assert(sizeof(caller))
#define kmemtrace_flagged(flags)	static_assert(sizeof(flags))
#define kmemtrace_vmalloc(caller)	static_assert(sizeof(caller))
#define kmemtrace_api(caller)		static_assert(sizeof(caller))
#define kmemtrace_internal(flags)	static_assert(sizeof(flags))
#define kmemtrace_reclaim()		static_assert(1)
#define kmemtrace_cache_backing(s)	((void)sizeof(s))
#define kmemtrace_scoped(caller, flags)					\
	for (bool __kmt_once = sizeof(caller) && sizeof(flags);		\
	     __kmt_once; __kmt_once = false)

#endif /* CONFIG_KMEMTRACE */

#endif /* _LINUX_KMEMTRACE_H */
