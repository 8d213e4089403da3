/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace internal header: shared between the probes (core.c), the relay
 * channel (relay.c), the debugfs control files (debugfs.c) and the tests.
 */
#ifndef _MM_KMEMTRACE_KMEMTRACE_H
#define _MM_KMEMTRACE_KMEMTRACE_H

#include <linux/atomic.h>
#include <linux/kmemtrace.h>
#include <linux/percpu.h>
#include <linux/types.h>
#include <uapi/linux/kmemtrace.h>

/*
 * Per-CPU state, changed only by the local CPU, with this_cpu operations
 * (safe against an NMI on the same CPU).
 * @seq:     sequence number of the next event this CPU records
 * @events:  events written to the relay buffer
 * @dropped: events lost: buffer full, or in NMI context
 * @nmi:     events in NMI context, not recorded by relay nor the tracer
 */
struct kmemtrace_cpu {
	u64		seq;
	unsigned long	events;
	unsigned long	dropped;
	unsigned long	nmi;
};

DECLARE_PER_CPU(struct kmemtrace_cpu, kmemtrace_cpu);

struct dentry;

/* Boot parameters, validated; see core.c. */
extern unsigned int kmemtrace_subbufs;
extern unsigned int kmemtrace_subbuf_size;

/* core.c */
void kmemtrace_emit(struct kmemtrace_event *ev);
unsigned long kmemtrace_total_dropped(void);
int kmemtrace_allocate(void);
int kmemtrace_release(void);
u64 kmemtrace_buffer_bytes(void);
int kmemtrace_set_dir(struct dentry *dir);

/* probes.c */
int kmemtrace_probes_attach(void);
void kmemtrace_probes_detach(void);

/* scope.c */
struct kmemtrace_scope *kmemtrace_scope_current(void);

/* relay.c */
int kmemtrace_relay_open(struct dentry *dir);
bool kmemtrace_relay_allocated(void);
int kmemtrace_relay_setup_files(struct dentry *dir);
void kmemtrace_relay_close(void);
u64 kmemtrace_relay_bytes(void);
bool kmemtrace_relay_write(const struct kmemtrace_event *ev);

#if IS_ENABLED(CONFIG_KMEMTRACE_KUNIT_TEST)
/**
 * struct kmemtrace_capture - events copied aside for the KUnit test
 * @task:   if set, only events recorded in this task's context are copied;
 *          if NULL, events of every context
 * @events: array the events are copied to
 * @max:    size of @events
 * @next:   slots taken; events beyond @max are lost
 */
struct kmemtrace_capture {
	struct task_struct	*task;
	struct kmemtrace_event	*events;
	unsigned int		max;
	atomic_t		next;
};

void kmemtrace_capture_start(struct kmemtrace_capture *c);
unsigned int kmemtrace_capture_stop(void);
#endif

#endif /* _MM_KMEMTRACE_KMEMTRACE_H */
