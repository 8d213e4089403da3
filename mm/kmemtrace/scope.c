// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace scopes: which allocator API call a context is inside of.
 *
 * The allocator tracepoints fire where the allocator does the work, which
 * is often far below the API the caller used: the pages under vmalloc(),
 * the kfree() under krealloc() or kvfree(), any page allocation.  Where
 * the tracepoint names the API's caller (kmalloc(), kfree(), the slab
 * cache API, ...), the probes use that, and the fast paths have nothing
 * of kmemtrace's.  The API entry points whose events come from deeper
 * down, or that call other APIs, open a scope that records the address
 * of their caller, and the probes take the call site from there: the hot
 * ones are handed to an out-of-line copy of themselves that opens it
 * (KMEMTRACE_ENTRY(), kmemtrace_named(); entry.c hooks them), the others
 * keep it to their end (kmemtrace_api()).  The outermost scope wins: the
 * caller of mempool_alloc() is the caller of the kmalloc() that
 * mempool_alloc() makes.
 *
 * Allocator internals add flags to the scope around their own calls:
 * KMEMTRACE_SCOPE_BACKING for what slabs, vmalloc areas and percpu chunks
 * take to hold the memory they hand out (pages, vmalloc's page array and
 * vm_struct), which is recorded but flagged; KMEMTRACE_SCOPE_SUPPRESS for
 * page traffic that an API event already describes (large kmalloc,
 * alloc_pages_exact); KMEMTRACE_SCOPE_UNPAIRED for pages freed that were
 * never allocated (memory given to the page allocator at boot, hotplug,
 * or by compaction and CMA).
 *
 * Reclaim, compaction and the OOM killer work for the whole system, even
 * when an allocation deep inside an allocator calls them: they open an
 * empty scope (kmemtrace_reclaim()), so what they free and allocate keeps
 * its own callers and gets none of the allocator's flags.
 *
 * A task's scope lives in its task_struct, since allocations sleep and
 * migrate; softirq, hardirq and NMI contexts use a per-CPU scope each, so
 * an interrupt never inherits the scope of the code it interrupted.
 * Scopes are only opened while kmemtrace records (a static key): the
 * entry points handed over cost nothing while off (entry.c's ftrace_ops
 * is not registered), an inline kmemtrace_scope_lacks() one no-op,
 * kmemtrace_api() a static branch and the previous scope kept to the
 * function's end.  The scopes that name callers have a key of
 * their own, kmemtrace_name_key, off while a recording samples: there
 * the API functions would pay for every call to name the one in many
 * that is sampled, which is named from its stack instead
 * (kmemtrace_stack_name() in stacks.c).  The entry points handed over to
 * add flags are not hooked then either: the sampled allocation finds
 * them on its stack (kmemtrace_stack_scoped()).
 *
 * See Documentation/trace/kmemtrace.rst.
 */

#include <linux/bug.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>

#include "kmemtrace.h"

/* On while kmemtrace records: flag scopes and resets. */
DEFINE_STATIC_KEY_FALSE(kmemtrace_scope_key);
/*
 * On while kmemtrace records and names callers by scope: always but while
 * it samples with stacks, when kmemtrace_stack_name() names a sample's
 * caller from its stack and the API functions pay nothing for the events
 * not sampled.
 */
DEFINE_STATIC_KEY_FALSE(kmemtrace_name_key);

DEFINE_PER_CPU(struct kmemtrace_scope, kmemtrace_irq_scope[3]);

struct kmemtrace_scope __kmemtrace_scope_enter(unsigned long caller,
					       unsigned int flags)
{
	struct kmemtrace_scope *s = kmemtrace_scope_current();
	struct kmemtrace_scope old = *s;

	/* While sampling, the sample's stack names it (stacks.c). */
	if (caller && !s->caller && static_branch_likely(&kmemtrace_name_key)) {
		s->caller = caller;
		WARN_ON_ONCE(s->caller != caller);
	}
	s->flags |= flags;
	old.flags |= KMEMTRACE_SCOPE_ENTERED;
	return old;
}

struct kmemtrace_scope __kmemtrace_scope_reset(void)
{
	struct kmemtrace_scope *s = kmemtrace_scope_current();
	struct kmemtrace_scope old = *s;

	*s = (struct kmemtrace_scope){ };
	old.flags |= KMEMTRACE_SCOPE_ENTERED;
	return old;
}

void __kmemtrace_scope_exit(struct kmemtrace_scope old)
{
	old.flags &= ~KMEMTRACE_SCOPE_ENTERED;
	*kmemtrace_scope_current() = old;
}
