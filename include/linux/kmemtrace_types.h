/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one kmemtrace type task_struct holds; everything else is in
 * <linux/kmemtrace.h>, which <linux/sched.h> does not need.
 */
#ifndef _LINUX_KMEMTRACE_TYPES_H
#define _LINUX_KMEMTRACE_TYPES_H

#include <linux/types.h>

/**
 * struct kmemtrace_scope - the allocator API call a context is inside of
 * @caller: address in the code that called the API, 0 if none
 * @flags: KMEMTRACE_SCOPE_* bits (<linux/kmemtrace.h>)
 *
 * Allocator APIs open a scope on entry, so that the events their
 * implementation produces deeper down (a page allocation under vmalloc(),
 * the kfree() under krealloc()) name the API's caller, not the allocator
 * internals.  The outermost scope's caller wins.  Each context (a task,
 * or a CPU's softirq, hardirq or NMI context) has its own scope, so an
 * interrupt never inherits the scope of the code it interrupted, and
 * reclaim and compaction, which work for the whole system, run in an
 * empty one (kmemtrace_reclaim()).
 *
 * The scope is 8 bytes in every task.  On 64-bit, @caller keeps the low
 * 56 bits of a kernel text address, which reads back sign-extended: the
 * kernel and its modules run in the top half of the address space (on
 * x86-64 and riscv64 in its top 2 GiB), where bits 55 to 63 are all set.
 * __kmemtrace_scope_enter() warns once if an address does not read back.
 */
struct kmemtrace_scope {
#ifdef CONFIG_64BIT
	long		caller : 56;
	unsigned long	flags : 8;
#else
	unsigned long	caller;
	unsigned int	flags;
#endif
};

#endif /* _LINUX_KMEMTRACE_TYPES_H */
