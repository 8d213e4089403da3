// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace core: records the events the probes (probes.c) build, and
 * switches recording on and off.
 *
 * The probes run inside the allocators, often with preemption or interrupts
 * disabled and allocator locks held.  Recording therefore never allocates,
 * never sleeps and takes no lock: an event built on the stack is copied
 * into this CPU's relay sub-buffer with interrupts disabled.  A per-CPU sequence
 * number is taken for every event, written or not, so a reader sees a loss
 * as a gap in the sequence; the loss is also counted per CPU.
 *
 * The probes are attached to the tracepoints while the relay streams or
 * the ftrace tracer (kernel/trace/trace_kmemtrace.c) record, and detached
 * when neither does: tracepoints are static keys, so a kernel with
 * kmemtrace off runs the allocators' fast paths unchanged.
 *
 * This file is not function-traced (see Makefile): the function tracer can
 * record into the same ring buffer as kmemtrace, and must not recurse here.
 *
 * See Documentation/trace/kmemtrace.rst.
 */

#define pr_fmt(fmt) "kmemtrace: " fmt

#include <linux/init.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <kunit/visibility.h>

#include "kmemtrace.h"

static_assert(sizeof(struct kmemtrace_event) == KMEMTRACE_EVENT_SIZE);
static_assert(offsetof(struct kmemtrace_event, cpu) == 8);
static_assert(offsetof(struct kmemtrace_event, cache_id) == 24);
static_assert(offsetof(struct kmemtrace_event, migratetype) == 28);
static_assert(offsetof(struct kmemtrace_event, seq) == 32);
static_assert(offsetof(struct kmemtrace_event, bytes_alloc) == 72);

DEFINE_PER_CPU(struct kmemtrace_cpu, kmemtrace_cpu);

/*
 * Two users share the probes: the relay streams (enabled) and the ftrace
 * tracer (current_tracer).  The probes are attached while either is on;
 * each has a static key that sends it the events.
 */
enum kmemtrace_user {
	KMEMTRACE_USER_RELAY	= 0x1,
	KMEMTRACE_USER_TRACER	= 0x2,
};

static DEFINE_MUTEX(kmemtrace_mutex);	/* serialises starting and stopping */
static unsigned int kmemtrace_users;
static bool kmemtrace_ready;		/* relay channel exists */
static DEFINE_STATIC_KEY_FALSE(kmemtrace_relay_key);
static DEFINE_STATIC_KEY_FALSE(kmemtrace_tracer_key);

/* === Boot parameters ===================================================== */

#ifdef MODULE_PARAM_PREFIX
#undef MODULE_PARAM_PREFIX
#endif
#define MODULE_PARAM_PREFIX "kmemtrace."

static bool kmemtrace_enable_at_boot = IS_ENABLED(CONFIG_KMEMTRACE_DEFAULT_ENABLED);
unsigned int kmemtrace_subbufs = CONFIG_KMEMTRACE_SUBBUFS;
unsigned int kmemtrace_subbuf_size = CONFIG_KMEMTRACE_SUBBUF_SIZE;

/* Bounds of the buffer geometry: at least two events, at most 1 GiB/CPU. */
#define KMEMTRACE_SUBBUFS_MIN		2
#define KMEMTRACE_SUBBUFS_MAX		4096
#define KMEMTRACE_SUBBUF_SIZE_MIN	(2 * KMEMTRACE_EVENT_SIZE)
#define KMEMTRACE_SUBBUF_SIZE_MAX	(SZ_1G / KMEMTRACE_SUBBUFS_MIN)
#define KMEMTRACE_BUF_MAX		SZ_1G

static int param_set_geometry(const char *val, const struct kernel_param *kp,
			      unsigned int min, unsigned int max)
{
	unsigned int num;

	if (kstrtouint(val, 0, &num) || num < min || num > max) {
		pr_err("invalid %s=%s: want %u..%u, keeping %u\n",
		       kp->name, val, min, max, *(unsigned int *)kp->arg);
		return -EINVAL;
	}
	*(unsigned int *)kp->arg = num;
	return 0;
}

static int param_set_subbufs(const char *val, const struct kernel_param *kp)
{
	return param_set_geometry(val, kp, KMEMTRACE_SUBBUFS_MIN,
				  KMEMTRACE_SUBBUFS_MAX);
}

static int param_set_subbuf_size(const char *val, const struct kernel_param *kp)
{
	return param_set_geometry(val, kp, KMEMTRACE_SUBBUF_SIZE_MIN,
				  KMEMTRACE_SUBBUF_SIZE_MAX);
}

static int param_set_enable(const char *val, const struct kernel_param *kp)
{
	int ret = param_set_bool(val, kp);

	if (ret)
		pr_err("invalid %s=%s: want 0 or 1, keeping %d\n",
		       kp->name, val ? val : "", *(bool *)kp->arg);
	return ret;
}

static const struct kernel_param_ops kmemtrace_subbufs_ops = {
	.set = param_set_subbufs,
	.get = param_get_uint,
};

static const struct kernel_param_ops kmemtrace_subbuf_size_ops = {
	.set = param_set_subbuf_size,
	.get = param_get_uint,
};

static const struct kernel_param_ops kmemtrace_enable_ops = {
	.flags = KERNEL_PARAM_OPS_FL_NOARG,
	.set = param_set_enable,
	.get = param_get_bool,
};

module_param_cb(enable, &kmemtrace_enable_ops, &kmemtrace_enable_at_boot, 0444);
module_param_cb(subbufs, &kmemtrace_subbufs_ops, &kmemtrace_subbufs, 0444);
module_param_cb(subbuf_size, &kmemtrace_subbuf_size_ops, &kmemtrace_subbuf_size, 0444);

/* === Recording =========================================================== */

#if IS_ENABLED(CONFIG_KMEMTRACE_KUNIT_TEST)
static struct kmemtrace_capture *kmemtrace_capture;

/**
 * kmemtrace_capture_start() - copy recorded events to @c as well
 * @c: capture buffer, owned by the caller until kmemtrace_capture_stop()
 *
 * Events of @c->task's own context, or of every context if that is NULL,
 * are copied to @c->events in the order their CPUs record them.
 *
 * Context: Process context; for the KUnit test only.
 */
void kmemtrace_capture_start(struct kmemtrace_capture *c)
{
	atomic_set(&c->next, 0);
	/* Publish @c only once it is reset; pairs with the acquire below. */
	smp_store_release(&kmemtrace_capture, c);
}
EXPORT_SYMBOL_IF_KUNIT(kmemtrace_capture_start);

/**
 * kmemtrace_capture_stop() - stop copying events
 *
 * Return: the number of events copied; after it, the capture buffer is
 * the caller's again.
 *
 * Context: Process context, may sleep.
 */
unsigned int kmemtrace_capture_stop(void)
{
	struct kmemtrace_capture *c = kmemtrace_capture;

	WRITE_ONCE(kmemtrace_capture, NULL);
	/* Events are copied with interrupts off: wait for those under way. */
	synchronize_rcu();
	return c ? min_t(unsigned int, atomic_read(&c->next), c->max) : 0;
}
EXPORT_SYMBOL_IF_KUNIT(kmemtrace_capture_stop);

static void kmemtrace_capture_event(const struct kmemtrace_event *ev)
{
	/* See the reset capture; pairs with kmemtrace_capture_start(). */
	struct kmemtrace_capture *c = smp_load_acquire(&kmemtrace_capture);
	unsigned int slot;

	if (likely(!c) || (c->task && (!in_task() || c->task != current)))
		return;
	slot = atomic_fetch_inc(&c->next);
	if (slot < c->max)
		c->events[slot] = *ev;
}
#else
static inline void kmemtrace_capture_event(const struct kmemtrace_event *ev) { }
#endif

/**
 * kmemtrace_emit() - fill in what every event has and record it
 * @ev: event with kind, type, call site and the allocation's fields set
 *
 * Writes @ev to this CPU's relay buffer, or counts it as dropped.
 *
 * Context: Any context but NMI; takes no lock.
 */
void kmemtrace_emit(struct kmemtrace_event *ev)
{
	struct kmemtrace_cpu *kc;
	unsigned long flags;

	ev->magic = KMEMTRACE_MAGIC;
	ev->abi_version = KMEMTRACE_ABI_VERSION;
	ev->pid = current->pid;
	if (!in_task())
		ev->flags |= KMEMTRACE_FLAG_INTERRUPT;

	local_irq_save(flags);
	ev->cpu = smp_processor_id();
	/* The tracer's entry and the relay event get the same time stamp. */
	ev->timestamp = 0;
	if (static_branch_unlikely(&kmemtrace_tracer_key))
		ev->timestamp = kmemtrace_tracer_event(ev, flags);
	/* trace_clock_local(): sched_clock(), here with interrupts off */
	if (!ev->timestamp)
		ev->timestamp = sched_clock();
	if (static_branch_likely(&kmemtrace_relay_key)) {
		kc = this_cpu_ptr(&kmemtrace_cpu);
		ev->seq = kc->seq++;
		if (likely(kmemtrace_relay_write(ev)))
			kc->events++;
		else
			kc->dropped++;
	}
	kmemtrace_capture_event(ev);
	local_irq_restore(flags);
}

/**
 * kmemtrace_total_dropped() - events lost on all CPUs since boot
 *
 * Return: the sum of the per-CPU dropped counters.
 */
unsigned long kmemtrace_total_dropped(void)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(&kmemtrace_cpu, cpu)->dropped);
	return sum;
}

/* === Switching =========================================================== */

static int kmemtrace_start(unsigned int user, struct static_key_false *key)
{
	int ret = 0;

	mutex_lock(&kmemtrace_mutex);
	if (kmemtrace_users & user)
		goto out;
	/* The sink first, then scopes, then probes: no event misses either. */
	static_branch_enable(key);
	if (!kmemtrace_users) {
		static_branch_enable(&kmemtrace_scope_key);
		ret = kmemtrace_probes_attach();
		if (ret) {
			static_branch_disable(&kmemtrace_scope_key);
			static_branch_disable(key);
			goto out;
		}
	}
	kmemtrace_users |= user;
out:
	mutex_unlock(&kmemtrace_mutex);
	return ret;
}

static void kmemtrace_stop(unsigned int user, struct static_key_false *key)
{
	mutex_lock(&kmemtrace_mutex);
	if (kmemtrace_users & user) {
		kmemtrace_users &= ~user;
		if (!kmemtrace_users)
			kmemtrace_probes_detach();
		static_branch_disable(key);
		/* No probe still writes to this user's sink once we return. */
		tracepoint_synchronize_unregister();
		if (!kmemtrace_users)
			static_branch_disable(&kmemtrace_scope_key);
	}
	mutex_unlock(&kmemtrace_mutex);
}

int kmemtrace_enable(void)
{
	int ret = kmemtrace_ready ? 0 : -ENODEV;

	if (!ret)
		ret = kmemtrace_start(KMEMTRACE_USER_RELAY, &kmemtrace_relay_key);
	if (ret)
		pr_err("cannot enable: %d\n", ret);
	return ret;
}
EXPORT_SYMBOL_GPL(kmemtrace_enable);

void kmemtrace_disable(void)
{
	kmemtrace_stop(KMEMTRACE_USER_RELAY, &kmemtrace_relay_key);
}
EXPORT_SYMBOL_GPL(kmemtrace_disable);

bool kmemtrace_enabled(void)
{
	return static_key_enabled(&kmemtrace_relay_key);
}
EXPORT_SYMBOL_GPL(kmemtrace_enabled);

#ifdef CONFIG_KMEMTRACE_TRACER
/**
 * kmemtrace_tracer_start() - send events to kmemtrace_tracer_event()
 *
 * For the kmemtrace ftrace tracer; the relay streams are independent.
 *
 * Context: Process context, may sleep.
 * Return: 0, or the error of attaching the probes.
 */
int kmemtrace_tracer_start(void)
{
	return kmemtrace_start(KMEMTRACE_USER_TRACER, &kmemtrace_tracer_key);
}

/**
 * kmemtrace_tracer_stop() - stop sending events to the tracer
 *
 * Context: Process context, may sleep.  Returns once no probe runs
 * kmemtrace_tracer_event() any more.
 */
void kmemtrace_tracer_stop(void)
{
	kmemtrace_stop(KMEMTRACE_USER_TRACER, &kmemtrace_tracer_key);
}
#endif

/*
 * Open the channel as early as the page allocator and vmalloc allow, before
 * debugfs exists, so that kmemtrace.enable=1 records the boot; the files
 * appear later (debugfs.c).
 */
static int __init kmemtrace_init(void)
{
	int ret = kmemtrace_relay_open();

	if (ret) {
		pr_err("cannot allocate %u x %u byte buffers per CPU: %d\n",
		       kmemtrace_subbufs, kmemtrace_subbuf_size, ret);
		return ret;
	}
	kmemtrace_ready = true;
	if (kmemtrace_enable_at_boot)
		return kmemtrace_enable();
	return 0;
}
early_initcall(kmemtrace_init);
