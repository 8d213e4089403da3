/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace: a binary record of every kernel memory allocation and free.
 *
 * See Documentation/trace/kmemtrace.rst.
 */
#ifndef _LINUX_KMEMTRACE_H
#define _LINUX_KMEMTRACE_H

#include <linux/cleanup.h>
#include <linux/errno.h>
#include <linux/instruction_pointer.h>
#include <linux/jump_label.h>
#include <linux/types.h>

/**
 * struct kmemtrace_scope - the allocator API call a context is inside of
 * @caller: address in the code that called the API, 0 if none
 * @flags: KMEMTRACE_SCOPE_* bits
 *
 * Allocator APIs open a scope on entry, so that the events their
 * implementation produces deeper down (a page allocation under vmalloc(),
 * the kfree() under krealloc()) name the API's caller, not the allocator
 * internals.  The outermost scope's caller wins.  Each context (a task,
 * or a CPU's softirq, hardirq or NMI context) has its own scope, so an
 * interrupt never inherits the scope of the code it interrupted.
 */
struct kmemtrace_scope {
	unsigned long	caller;
	unsigned int	flags;
};

/* Page events here are an allocator's own backing store (slab, vmalloc). */
#define KMEMTRACE_SCOPE_BACKING		0x1
/* Events here are reported by the API itself (large kmalloc's pages). */
#define KMEMTRACE_SCOPE_SUPPRESS	0x2
/* Internal: the scope was entered and must be restored on exit. */
#define KMEMTRACE_SCOPE_ENTERED		0x80000000

#ifdef CONFIG_KMEMTRACE

DECLARE_STATIC_KEY_FALSE(kmemtrace_scope_key);

struct kmemtrace_scope __kmemtrace_scope_enter(unsigned long caller,
					       unsigned int flags);
void __kmemtrace_scope_exit(struct kmemtrace_scope old);

/**
 * kmemtrace_scope_enter() - enter an allocator API call
 * @caller: address in the caller of the API (_RET_IP_ or _THIS_IP_)
 * @flags: KMEMTRACE_SCOPE_* bits to add for the duration of the call
 *
 * Costs a static branch while kmemtrace is not recording.
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
 * kmemtrace_alloc_hooks() - call an allocation function inside a scope
 * @_do_alloc: the allocation call, evaluated exactly once
 *
 * Used by alloc_hooks(), which wraps every allocation API at its call
 * site, so the scope's caller is the code that asked for the memory.
 */
#define kmemtrace_alloc_hooks(_do_alloc)				\
({									\
	typeof(_do_alloc) _kmt_res;					\
	if (static_branch_unlikely(&kmemtrace_scope_key)) {		\
		struct kmemtrace_scope _kmt_old =			\
			__kmemtrace_scope_enter(_THIS_IP_, 0);		\
		_kmt_res = _do_alloc;					\
		kmemtrace_scope_exit(_kmt_old);				\
	} else {							\
		_kmt_res = _do_alloc;					\
	}								\
	_kmt_res;							\
})

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
 * Return: true while the probes are attached.
 */
bool kmemtrace_enabled(void);

void kmemtrace_cache_add(unsigned int id, const char *name);
void kmemtrace_cache_del(unsigned int id);
bool kmemtrace_cache_name(unsigned int id, char *buf, size_t size);

#endif /* CONFIG_KMEMTRACE */

#ifdef CONFIG_KMEMTRACE_TRACER
struct kmemtrace_event;

int kmemtrace_tracer_start(void);
void kmemtrace_tracer_stop(void);

/**
 * kmemtrace_tracer_event() - write an event to the kmemtrace tracer
 * @ev: the complete event but its timestamp
 * @irqflags: the interrupt flags of the context that recorded it
 *
 * Called by kmemtrace for every event while the kmemtrace tracer runs
 * (kernel/trace/trace_kmemtrace.c).
 *
 * Context: Interrupts disabled, any context but NMI.
 * Return: the time stamp of the entry written, in trace_clock_local()
 * nanoseconds; 0 if none was written or the trace clock is not "local".
 */
u64 kmemtrace_tracer_event(const struct kmemtrace_event *ev,
			   unsigned long irqflags);
#else
static inline u64 kmemtrace_tracer_event(const struct kmemtrace_event *ev,
					 unsigned long irqflags)
{
	return 0;
}
#endif

#ifndef CONFIG_KMEMTRACE

static inline struct kmemtrace_scope
kmemtrace_scope_enter(unsigned long caller, unsigned int flags)
{
	return (struct kmemtrace_scope){ };
}

static inline void kmemtrace_scope_exit(struct kmemtrace_scope old) { }

#define kmemtrace_alloc_hooks(_do_alloc)	(_do_alloc)

static inline int kmemtrace_enable(void) { return -ENODEV; }
static inline void kmemtrace_disable(void) { }
static inline bool kmemtrace_enabled(void) { return false; }

#endif /* CONFIG_KMEMTRACE */

DEFINE_CLASS(kmemtrace_scope, struct kmemtrace_scope,
	     kmemtrace_scope_exit(_T), kmemtrace_scope_enter(caller, flags),
	     unsigned long caller, unsigned int flags)

/**
 * kmemtrace_api() - the rest of this function is an allocator API call
 * @caller: address in the API's caller, usually _RET_IP_
 *
 * For free functions and others not wrapped by alloc_hooks().
 */
#define kmemtrace_api(caller)	CLASS(kmemtrace_scope, __UNIQUE_ID(kmt))(caller, 0)

/**
 * kmemtrace_internal() - page events in the rest of this function are
 *                        an allocator's internals
 * @flags: KMEMTRACE_SCOPE_BACKING or KMEMTRACE_SCOPE_SUPPRESS
 */
#define kmemtrace_internal(flags)	CLASS(kmemtrace_scope, __UNIQUE_ID(kmt))(0, flags)

#endif /* _LINUX_KMEMTRACE_H */
