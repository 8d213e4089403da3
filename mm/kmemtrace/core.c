// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace core: records the events the probes (probes.c) build, and
 * switches recording on and off.
 *
 * The probes run inside the allocators, often with preemption or interrupts
 * disabled and allocator locks held.  Recording therefore never allocates,
 * never sleeps and takes no lock: with interrupts disabled, the probe
 * writes the event straight into this CPU's relay buffer (kmemtrace.h,
 * kmemtrace_begin() and kmemtrace_commit(), inlined into every probe), or
 * into a per-CPU spare event when the buffer is full or only the tracer
 * records.  A per-CPU sequence
 * number is taken for every event, written or not, so a reader sees a loss
 * as a gap in the sequence; the loss is also counted per CPU.  Interrupts
 * off do not keep NMIs out, so an event in NMI context is not written: it
 * takes its sequence number and is counted as dropped, with NMI-safe
 * per-CPU operations.
 *
 * The relay buffers are allocated when recording is first enabled (at
 * early boot with kmemtrace.enable=1), not before, and stay until
 * "release" is written to the buffers file, so that a kernel that has
 * kmemtrace built in but never records holds no buffer memory.
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
#include "kmemtrace.h"

static_assert(sizeof(struct kmemtrace_event) == KMEMTRACE_EVENT_SIZE);
/* ABI 3: the layout include/uapi/linux/kmemtrace.h documents. */
static_assert(offsetof(struct kmemtrace_event, type) == 4);
static_assert(offsetof(struct kmemtrace_event, timestamp) == 8);
static_assert(offsetof(struct kmemtrace_event, flags) == 16);
static_assert(offsetof(struct kmemtrace_event, pid) == 24);
static_assert(offsetof(struct kmemtrace_event, sample_period) == 44);
static_assert(offsetof(struct kmemtrace_event, seq) == 48);
static_assert(offsetof(struct kmemtrace_event, tag) == 88);

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
/* See kmemtrace_sample(): set when recording starts, kmemtrace_mutex held. */
bool kmemtrace_stack_scopes;
static struct dentry *kmemtrace_dir;	/* debugfs directory, once it exists */
DEFINE_STATIC_KEY_FALSE(kmemtrace_relay_key);
DEFINE_STATIC_KEY_FALSE(kmemtrace_tracer_key);
/* Where an event is built when it has no slot in the relay buffer. */
DEFINE_PER_CPU(struct kmemtrace_event, kmemtrace_spare);

/* === Boot parameters ===================================================== */

#ifdef MODULE_PARAM_PREFIX
#undef MODULE_PARAM_PREFIX
#endif
#define MODULE_PARAM_PREFIX "kmemtrace."

static bool kmemtrace_enable_at_boot = IS_ENABLED(CONFIG_KMEMTRACE_DEFAULT_ENABLED);
unsigned int kmemtrace_subbufs = CONFIG_KMEMTRACE_SUBBUFS;
unsigned int kmemtrace_subbuf_size = CONFIG_KMEMTRACE_SUBBUF_SIZE;

/*
 * Bounds of the buffer geometry: at least two events per sub-buffer, and
 * at most KMEMTRACE_BUF_MAX bytes per CPU for the product of the two.
 */
#define KMEMTRACE_SUBBUFS_MIN		2
#define KMEMTRACE_SUBBUFS_MAX		4096
#define KMEMTRACE_SUBBUF_SIZE_MIN	(2 * KMEMTRACE_EVENT_SIZE)
#define KMEMTRACE_SUBBUF_SIZE_MAX	(SZ_1G / KMEMTRACE_SUBBUFS_MIN)
#define KMEMTRACE_BUF_MAX		SZ_1G

static_assert((u64)CONFIG_KMEMTRACE_SUBBUFS * CONFIG_KMEMTRACE_SUBBUF_SIZE <=
	      KMEMTRACE_BUF_MAX,
	      "KMEMTRACE_SUBBUFS x KMEMTRACE_SUBBUF_SIZE is above 1 GiB per CPU");

/*
 * Set one factor of the buffer size, @other being the other one: both
 * are range-checked, and so is their product against KMEMTRACE_BUF_MAX,
 * so that no combination of valid-looking parameters can ask for more
 * than that per CPU.  A rejected value leaves the old one in force.
 */
static int param_set_geometry(const char *val, const struct kernel_param *kp,
			      unsigned int min, unsigned int max,
			      unsigned int other)
{
	unsigned int old = *(unsigned int *)kp->arg;
	unsigned int num;

	if (kstrtouint(val, 0, &num) || num < min || num > max) {
		pr_err("invalid %s=%s: want %u..%u, keeping %u\n",
		       kp->name, val, min, max, old);
		return -EINVAL;
	}
	if ((u64)num * other > KMEMTRACE_BUF_MAX) {
		pr_err("invalid %s=%s: buffers of %llu MiB per CPU are above the %u MiB limit, keeping %u\n",
		       kp->name, val, ((u64)num * other) >> 20,
		       KMEMTRACE_BUF_MAX >> 20, old);
		return -EINVAL;
	}
	*(unsigned int *)kp->arg = num;
	return 0;
}

static int param_set_subbufs(const char *val, const struct kernel_param *kp)
{
	return param_set_geometry(val, kp, KMEMTRACE_SUBBUFS_MIN,
				  KMEMTRACE_SUBBUFS_MAX, kmemtrace_subbuf_size);
}

static int param_set_subbuf_size(const char *val, const struct kernel_param *kp)
{
	return param_set_geometry(val, kp, KMEMTRACE_SUBBUF_SIZE_MIN,
				  KMEMTRACE_SUBBUF_SIZE_MAX, kmemtrace_subbufs);
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

void kmemtrace_capture_event(const struct kmemtrace_event *ev)
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
#endif

/**
 * kmemtrace_skip_nmi() - account for an event in NMI context
 *
 * An event in NMI context could land in the middle of the one this CPU
 * is writing: kmemtrace_begin() skips it, and this accounts for it.
 * this_cpu_*() are single instructions on x86, safe against an NMI on
 * the same CPU; the relay stream sees the skipped event as a gap that
 * dropped accounts for.
 *
 * Context: NMI.
 */
void kmemtrace_skip_nmi(void)
{
	this_cpu_inc(kmemtrace_cpu.nmi);
	if (static_branch_likely(&kmemtrace_relay_key)) {
		this_cpu_inc(kmemtrace_cpu.seq);
		this_cpu_inc(kmemtrace_cpu.dropped);
	}
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

/* Called with kmemtrace_mutex held. */
static int kmemtrace_start_locked(unsigned int user,
				  struct static_key_false *key)
{
	int ret;

	if (kmemtrace_users & user)
		return 0;
	/*
	 * A sampling recording and the tracer exclude each other: the tracer
	 * takes every event, the relay streams a sample.
	 */
	if (user == KMEMTRACE_USER_TRACER && kmemtrace_sampling())
		return -EBUSY;
	if (user == KMEMTRACE_USER_RELAY) {
		ret = kmemtrace_sample_start(kmemtrace_users);
		if (ret)
			return ret;
	}
	/* The sink first, then scopes, then probes: no event misses either. */
	static_branch_enable(key);
	if (!kmemtrace_users) {
		/*
		 * A sample is named from its stack, and finds there the entry
		 * points that add flags (stacks.c): no entry point is hooked.
		 */
		bool from_stack = kmemtrace_sampling() && kmemtrace_stack_names() &&
				  kmemtrace_stack_scopes_ready();

		WRITE_ONCE(kmemtrace_stack_scopes, from_stack);
		static_branch_enable(&kmemtrace_scope_key);
		ret = from_stack ? 0 :
		      kmemtrace_entries_attach(KMEMTRACE_ENTRIES_FLAGGED);
		if (!ret && !from_stack) {
			static_branch_enable(&kmemtrace_name_key);
			ret = kmemtrace_entries_attach(KMEMTRACE_ENTRIES_NAMED);
		}
		if (!ret)
			ret = kmemtrace_probes_attach();
		if (ret) {
			kmemtrace_entries_detach(KMEMTRACE_ENTRIES_NAMED);
			kmemtrace_entries_detach(KMEMTRACE_ENTRIES_FLAGGED);
			static_branch_disable(&kmemtrace_name_key);
			static_branch_disable(&kmemtrace_scope_key);
			static_branch_disable(key);
			if (user == KMEMTRACE_USER_RELAY)
				kmemtrace_sample_stop();
			return ret;
		}
	}
	/* Every free path looks up sampled objects: sample allocations. */
	if (user == KMEMTRACE_USER_RELAY && kmemtrace_sampling())
		kmemtrace_sample_arm(true);
	/* Last: kmemtrace_enabled() says so once every probe records. */
	WRITE_ONCE(kmemtrace_users, kmemtrace_users | user);
	return 0;
}

static int kmemtrace_start(unsigned int user, struct static_key_false *key)
{
	int ret;

	mutex_lock(&kmemtrace_mutex);
	ret = kmemtrace_start_locked(user, key);
	mutex_unlock(&kmemtrace_mutex);
	return ret;
}

static void kmemtrace_stop(unsigned int user, struct static_key_false *key)
{
	mutex_lock(&kmemtrace_mutex);
	if (kmemtrace_users & user) {
		unsigned int rest = kmemtrace_users & ~user;

		/* No more samples whose free may go unseen (sample.c). */
		if (user == KMEMTRACE_USER_RELAY)
			kmemtrace_sample_arm(false);
		if (!rest)
			kmemtrace_probes_detach();
		static_branch_disable(key);
		/* No probe still writes to this user's sink once we return. */
		tracepoint_synchronize_unregister();
		/* ... nor once kmemtrace_enabled() says it is off. */
		WRITE_ONCE(kmemtrace_users, rest);
		if (!rest) {
			kmemtrace_entries_detach(KMEMTRACE_ENTRIES_NAMED);
			kmemtrace_entries_detach(KMEMTRACE_ENTRIES_FLAGGED);
			static_branch_disable(&kmemtrace_name_key);
			static_branch_disable(&kmemtrace_scope_key);
			WRITE_ONCE(kmemtrace_stack_scopes, false);
		}
		if (user == KMEMTRACE_USER_RELAY)
			kmemtrace_sample_stop();
	}
	mutex_unlock(&kmemtrace_mutex);
}

/* Called with kmemtrace_mutex held. */
static int kmemtrace_allocate_locked(void)
{
	u64 bytes = (u64)kmemtrace_subbufs * kmemtrace_subbuf_size;
	int ret;

	if (kmemtrace_relay_allocated())
		return 0;
	/* The boot parameters keep this true; it is what keeps memory safe. */
	if (WARN_ON_ONCE(bytes > KMEMTRACE_BUF_MAX))
		return -EINVAL;
	ret = kmemtrace_relay_open(kmemtrace_dir);
	if (ret) {
		pr_err("cannot allocate %u x %u byte buffers per CPU: %d\n",
		       kmemtrace_subbufs, kmemtrace_subbuf_size, ret);
		return ret;
	}
	return 0;
}

/**
 * kmemtrace_allocate() - allocate the relay buffers without recording
 *
 * Makes the cpuN files exist, so that a reader can open them before it
 * enables recording.  kmemtrace_enable() allocates them too.
 *
 * Context: Process context, may sleep.
 * Return: 0, or -ENOMEM.
 */
int kmemtrace_allocate(void)
{
	int ret;

	mutex_lock(&kmemtrace_mutex);
	ret = kmemtrace_allocate_locked();
	mutex_unlock(&kmemtrace_mutex);
	return ret;
}

/**
 * kmemtrace_release() - free the relay buffers
 *
 * Removes the cpuN files; events not read yet are gone.  A reader that
 * still has a cpuN file open reads end of file (relay.c); one in the
 * middle of a read() holds the file's inode lock, which removing the
 * file waits for.
 *
 * Context: Process context, may sleep.
 * Return: 0, or -EBUSY while recording into the buffers.
 */
int kmemtrace_release(void)
{
	int ret = 0;

	mutex_lock(&kmemtrace_mutex);
	if (kmemtrace_users & KMEMTRACE_USER_RELAY) {
		ret = -EBUSY;
	} else if (kmemtrace_relay_allocated()) {
		kmemtrace_relay_close();
		kmemtrace_tags_forget();
	}
	mutex_unlock(&kmemtrace_mutex);
	return ret;
}

/**
 * kmemtrace_buffer_bytes() - memory the relay buffers take
 *
 * Under kmemtrace_mutex: kmemtrace_release() frees the channel the answer
 * is read from.
 *
 * Context: Process context, may sleep.
 * Return: bytes of buffer allocated on all CPUs, 0 while released.
 */
u64 kmemtrace_buffer_bytes(void)
{
	u64 bytes;

	mutex_lock(&kmemtrace_mutex);
	bytes = kmemtrace_relay_bytes();
	mutex_unlock(&kmemtrace_mutex);
	return bytes;
}

/**
 * kmemtrace_set_clock() - choose what the relay events are stamped with
 * @tsc: the "tsc" clock (clock.c) if true, "local" if false
 *
 * A stream holds the events of one clock: the clock changes only while
 * the buffers are released.
 *
 * Context: Process context, may sleep.
 * Return: 0; -ENODEV if @tsc and sched_clock() is not the TSC here;
 * -EBUSY to change it while the buffers are allocated.
 */
int kmemtrace_set_clock(bool tsc)
{
	int ret = 0;

	if (tsc && !kmemtrace_tsc_usable())
		return -ENODEV;
	mutex_lock(&kmemtrace_mutex);
	if (tsc != static_key_enabled(&kmemtrace_tsc_key)) {
		if (kmemtrace_relay_allocated())
			ret = -EBUSY;
		else if (tsc)
			static_branch_enable(&kmemtrace_tsc_key);
		else
			static_branch_disable(&kmemtrace_tsc_key);
	}
	mutex_unlock(&kmemtrace_mutex);
	return ret;
}

int kmemtrace_enable(void)
{
	int ret;

	mutex_lock(&kmemtrace_mutex);
	ret = kmemtrace_allocate_locked();
	if (!ret)
		ret = kmemtrace_start_locked(KMEMTRACE_USER_RELAY,
					     &kmemtrace_relay_key);
	mutex_unlock(&kmemtrace_mutex);
	if (ret)
		pr_err("cannot enable: %d\n", ret);
	return ret;
}

void kmemtrace_disable(void)
{
	kmemtrace_stop(KMEMTRACE_USER_RELAY, &kmemtrace_relay_key);
}

bool kmemtrace_enabled(void)
{
	/*
	 * Not kmemtrace_relay_key, which is on before the probes are
	 * attached: "enabled" reads 1 once every allocator event records,
	 * and 0 once none is written any more.
	 */
	return READ_ONCE(kmemtrace_users) & KMEMTRACE_USER_RELAY;
}

#ifdef CONFIG_KMEMTRACE_TRACER
/**
 * kmemtrace_tracer_start() - send events to the kmemtrace tracer
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
 * kmemtrace_tracer_event() or kmemtrace_tracer_write() any more.
 */
void kmemtrace_tracer_stop(void)
{
	kmemtrace_stop(KMEMTRACE_USER_TRACER, &kmemtrace_tracer_key);
}
#endif

/**
 * kmemtrace_set_dir() - the debugfs directory is there
 * @dir: /sys/kernel/debug/kmemtrace
 *
 * Buffers allocated from now on get their cpuN files at once; buffers
 * allocated at early boot get them here.
 *
 * Context: Process context (late_initcall), may sleep.
 * Return: 0, or the error of creating the files of early buffers.
 */
int __init kmemtrace_set_dir(struct dentry *dir)
{
	int ret = 0;

	mutex_lock(&kmemtrace_mutex);
	kmemtrace_dir = dir;
	if (kmemtrace_relay_allocated())
		ret = kmemtrace_relay_setup_files(dir);
	mutex_unlock(&kmemtrace_mutex);
	return ret;
}

/*
 * With kmemtrace.enable=1, record from as early as the page allocator and
 * vmalloc allow, before debugfs exists, so that the boot is recorded; the
 * files appear later (kmemtrace_set_dir()).  Otherwise allocate nothing.
 */
static int __init kmemtrace_init(void)
{
	kmemtrace_entries_init();
	kmemtrace_stacks_boot();
	kmemtrace_clock_boot();
	if (kmemtrace_enable_at_boot)
		return kmemtrace_enable();
	return 0;
}
early_initcall(kmemtrace_init);
