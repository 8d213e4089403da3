/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace: a binary record of every kernel memory allocation and free.
 *
 * See Documentation/trace/kmemtrace.rst.
 */
#ifndef _LINUX_KMEMTRACE_H
#define _LINUX_KMEMTRACE_H

#include <linux/errno.h>
#include <linux/types.h>

#ifdef CONFIG_KMEMTRACE

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

#else /* CONFIG_KMEMTRACE */

static inline int kmemtrace_enable(void) { return -ENODEV; }
static inline void kmemtrace_disable(void) { }
static inline bool kmemtrace_enabled(void) { return false; }

#endif /* CONFIG_KMEMTRACE */

#endif /* _LINUX_KMEMTRACE_H */
