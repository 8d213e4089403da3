// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace sampling: instead of every event, one allocation per N bytes
 * allocated on average, with its stack, and the frees (and in-place
 * resizes) of the sampled objects only.
 *
 * The model is Go's heap profiler (runtime/mprof.go), tcmalloc's and
 * jemalloc's: each CPU draws the number of bytes to its next sample from
 * an exponential distribution with mean N, counts every allocation's
 * bytes down from it, and samples the allocation that crosses zero, then
 * draws afresh.  The exponential distribution has no memory, so an
 * allocation of S bytes is sampled with probability 1 - exp(-S / N)
 * whatever came before it, and 1 / (1 - exp(-S / N)) allocations like it
 * stand behind each sample: the events carry N (sample_period), and the
 * tool scales by that weight.
 *
 * The sampled objects are kept in a table of buckets, one cache line
 * each: a mask of the slots in use and seven pointers.  A free looks at
 * its pointer's bucket: one load of the mask when the bucket is empty,
 * as nearly all are, and a compare per slot in use otherwise.  Slots are
 * claimed with cmpxchg on the mask and given back by clearing their bit,
 * so CPUs share the table without a lock.  A sampled allocation whose
 * bucket is full is still recorded, flagged KMEMTRACE_FLAG_UNTRACKED (its
 * free will not be recorded) and counted.
 *
 * Allocations the allocators make for themselves (KMEMTRACE_FLAG_BACKING:
 * slab pages, vmalloc's pages and bookkeeping) are not sampled: analyses
 * skip them in full recordings too, so they would only take samples away.
 *
 * Files in /sys/kernel/debug/kmemtrace:
 *   sample_period  mean bytes between samples, 0 for full recording, 0600
 *   sample_seed    seed of the draws, 0 for a random one, 0600
 *   sample_stats   per-CPU samples of the recording, 0400
 *
 * See Documentation/trace/kmemtrace.rst, Sampling.
 */

#define pr_fmt(fmt) "kmemtrace: " fmt

#include <linux/debugfs.h>
#include <linux/hash.h>
#include <linux/int_log.h>
#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include "kmemtrace.h"

/* The largest mean: beyond it, a recording would hardly sample at all. */
#define KMEMTRACE_SAMPLE_PERIOD_MAX	SZ_1G
/* ln(2) in 0.32 fixed point. */
#define KMEMTRACE_LN2_Q32		2977044472U

static_assert(KMEMTRACE_SAMPLE_SLOTS < BITS_PER_LONG);

DEFINE_STATIC_KEY_FALSE(kmemtrace_sample_key);
DEFINE_PER_CPU(struct kmemtrace_sample_cpu, kmemtrace_sample_cpu);
/* Bytes to allocate before the next sample: kmemtrace_sample_alloc_hit(). */
DEFINE_PER_CPU(long, kmemtrace_sample_left);
/* The mean of the recording under way, for its events. */
unsigned int kmemtrace_sample_period;
/* Whether allocations are sampled: kmemtrace_sample_arm(). */
static bool kmemtrace_sample_armed;

static DEFINE_MUTEX(kmemtrace_sample_mutex);	/* the settings below */
/* What the next recording uses: kmemtrace.sample= and sample_period. */
static unsigned int kmemtrace_sample_setting;
static u64 kmemtrace_sample_seed;
struct kmemtrace_sample_bucket *kmemtrace_sample_table;

/* === Drawing ============================================================= */

/**
 * kmemtrace_sample_draw() - bytes to allocate before the next sample
 * @rnd: the CPU's generator
 * @period: the mean, 1 to KMEMTRACE_SAMPLE_PERIOD_MAX
 *
 * An exponential variate -@period * ln(U) with U = r / 2^32 uniform in
 * (0, 1), in integers: intlog2() gives log2(r) in 8.24 fixed point, so
 * -ln(U) = (32 - log2(r)) * ln(2).  The tail is cut at 22 means (r = 1),
 * which changes the mean by less than 1e-9 of it.
 *
 * Return: at least 1.
 */
u64 kmemtrace_sample_draw(struct rnd_state *rnd, unsigned int period)
{
	u32 r = prandom_u32_state(rnd) ?: 1;
	u64 q24 = (32ULL << 24) - intlog2(r);

	return mul_u64_u32_shr((u64)period * q24, KMEMTRACE_LN2_Q32, 56) + 1;
}

/* === The table of sampled objects ======================================= */

/* Enter @ptr; false if its bucket is full. */
static bool sample_track(unsigned long ptr)
{
	struct kmemtrace_sample_bucket *b = kmemtrace_sample_bucket(ptr);
	unsigned long mask = READ_ONCE(b->mask);
	unsigned long free;
	unsigned int slot;

	do {
		free = ~mask & GENMASK(KMEMTRACE_SAMPLE_SLOTS - 1, 0);
		if (!free)
			return false;
		slot = __ffs(free);
	} while (!try_cmpxchg(&b->mask, &mask, mask | BIT(slot)));
	WRITE_ONCE(b->ptr[slot], ptr);
	return true;
}

/* Whether @ptr is a sampled object; with @forget, take it out. */
static bool sample_find(unsigned long ptr, bool forget)
{
	struct kmemtrace_sample_bucket *b = kmemtrace_sample_bucket(ptr);
	int slot = kmemtrace_sample_slot(b, ptr);

	if (slot < 0)
		return false;
	if (forget) {
		WRITE_ONCE(b->ptr[slot], 0);
		/*
		 * Release: the slot's next owner (sample_track(), another CPU)
		 * writes its pointer after ours is cleared, not before.
		 */
		clear_bit_unlock(slot, &b->mask);
	}
	return true;
}

/* === Recording =========================================================== */

/**
 * kmemtrace_sample_redraw() - draw this CPU's bytes to its next sample
 *
 * Right after an allocation crossed the count (kmemtrace_sample_alloc_hit()),
 * whether or not it is recorded then: the count runs again from here.
 * Allocations meanwhile (an interrupt) found it crossed, were not
 * sampled and drew already; this draw overwrites theirs.  If the task of
 * the crossing allocation moved to another CPU first, this draws that
 * CPU's count, and the next allocation on the first draws its own.
 *
 * Context: Any context; an NMI that lands in another draw on this CPU
 * only makes the generator's next numbers different.
 */
void kmemtrace_sample_redraw(void)
{
	unsigned long flags;

	local_irq_save(flags);
	this_cpu_write(kmemtrace_sample_left,
		       kmemtrace_sample_draw(this_cpu_ptr(&kmemtrace_sample_cpu.rnd),
					     kmemtrace_sample_period));
	local_irq_restore(flags);
}

/**
 * __kmemtrace_sample_alloc() - record the allocation that crossed the count
 * @ptr: the allocation
 *
 * Enters @ptr into the table, so that its free is recorded; while the
 * recording is not armed (kmemtrace_sample_arm()), records nothing.
 *
 * Context: From kmemtrace_sample(): interrupts disabled, not NMI.
 * Return: the flags the event gets: KMEMTRACE_FLAG_UNTRACKED if the
 * table had no room for @ptr, else 0; -1 to record nothing.
 */
int __kmemtrace_sample_alloc(unsigned long ptr)
{
	struct kmemtrace_sample_cpu *sc = this_cpu_ptr(&kmemtrace_sample_cpu);

	if (unlikely(!READ_ONCE(kmemtrace_sample_armed)))
		return -1;
	sc->sampled++;
	if (sample_track(ptr))
		return 0;
	sc->untracked++;
	return KMEMTRACE_FLAG_UNTRACKED;
}

/**
 * kmemtrace_sample_other() - whether to record a free or a resize
 * @ptr: the memory freed or resized
 * @free: a free (forget @ptr) rather than a resize
 *
 * Context: From kmemtrace_sample(): interrupts disabled, not NMI.
 * Return: true if @ptr is a sampled object: record the event.
 */
bool kmemtrace_sample_other(unsigned long ptr, bool free)
{
	if (!sample_find(ptr, free))
		return false;
	if (free)
		__this_cpu_inc(kmemtrace_sample_cpu.freed);
	return true;
}

/**
 * kmemtrace_sample_split() - whether to record the split of a page allocation
 * @ptr: the memory split
 *
 * A sampled object split into pieces is forgotten: the table cannot hold
 * the pieces, which are freed one by one.  Not counted as freed.
 *
 * Context: From kmemtrace_sample(): interrupts disabled, not NMI.
 * Return: true if @ptr is a sampled object: record the split.
 */
bool kmemtrace_sample_split(unsigned long ptr)
{
	return sample_find(ptr, true);
}

/* === Switching =========================================================== */

/**
 * kmemtrace_sample_start() - set up sampling for a recording, if asked for
 * @shared: another user of the probes (the tracer) is on
 *
 * With a sample period set, empties the table of sampled objects (it is
 * allocated the first time), seeds every CPU and draws its first count,
 * and switches kmemtrace_sample_key on.  The caller starts the relay
 * streams after, and stops them before kmemtrace_sample_stop().  With
 * @shared, does none of it: the key would sample the other user's events
 * too, and the counts of sample_stats are the last recording's.
 *
 * Context: Process context, kmemtrace_mutex held, the relay streams off.
 * Return: 0, -EBUSY with a period set and @shared, or -ENOMEM (the
 * recording does not start).
 */
int kmemtrace_sample_start(bool shared)
{
	struct kmemtrace_sample_bucket *table;
	unsigned int period;
	u64 seed;
	int cpu, ret;

	mutex_lock(&kmemtrace_sample_mutex);
	period = kmemtrace_sample_setting;
	seed = kmemtrace_sample_seed;
	mutex_unlock(&kmemtrace_sample_mutex);
	if (!period)
		return 0;
	if (shared)
		return -EBUSY;

	ret = kmemtrace_stacks_prepare();
	if (ret)
		pr_warn("sampling without stacks: %d\n", ret);
	table = kmemtrace_sample_table;
	if (!table) {
		/* Before the relay streams start: no event of its own. */
		table = kvcalloc(KMEMTRACE_SAMPLE_BUCKETS, sizeof(*table),
				 GFP_KERNEL);
		if (!table)
			return -ENOMEM;
		kmemtrace_sample_table = table;
	} else {
		memset(table, 0, KMEMTRACE_SAMPLE_BUCKETS * sizeof(*table));
	}

	for_each_possible_cpu(cpu) {
		struct kmemtrace_sample_cpu *sc =
			per_cpu_ptr(&kmemtrace_sample_cpu, cpu);

		memset(sc, 0, sizeof(*sc));
		prandom_seed_state(&sc->rnd, seed ? seed + cpu :
				   get_random_u64());
		per_cpu(kmemtrace_sample_left, cpu) =
			kmemtrace_sample_draw(&sc->rnd, period);
	}
	kmemtrace_sample_period = period;
	static_branch_enable(&kmemtrace_sample_key);
	return 0;
}

/**
 * kmemtrace_sample_arm() - start or stop sampling allocations
 * @on: sample them from now on; false: no more
 *
 * A recording's probes, or the allocators' hooks, do not switch on or
 * off all at once: tracepoints are registered one by one, and a static
 * key is patched site by site.  An allocation sampled while its free's
 * path does not look it up yet would stay in the table after its free,
 * and a later free of other memory at its address would be recorded as
 * its free.  So allocations are sampled only from once every probe or
 * hook is on (kmemtrace_probes_attach() returned) to before the first
 * goes off (kmemtrace_probes_detach()): in the recording, every sampled
 * object's free is recorded, but for those still live when it stops.
 * Frees are looked up from kmemtrace_sample_start() to
 * kmemtrace_sample_stop().
 *
 * Context: Any context; kmemtrace_start_locked() and kmemtrace_stop() arm
 * and disarm with kmemtrace_mutex held.
 */
void kmemtrace_sample_arm(bool on)
{
	WRITE_ONCE(kmemtrace_sample_armed, on);
}

/**
 * kmemtrace_sample_stop() - the recording stopped
 *
 * Context: Process context, kmemtrace_mutex held, the relay streams off
 * and no probe running any more.
 */
void kmemtrace_sample_stop(void)
{
	kmemtrace_sample_arm(false);
	static_branch_disable(&kmemtrace_sample_key);
}

/**
 * kmemtrace_sampling() - whether the relay streams record samples
 *
 * Context: Any context.
 * Return: true from kmemtrace_sample_start() with a period to
 * kmemtrace_sample_stop().
 */
bool kmemtrace_sampling(void)
{
	return static_key_enabled(&kmemtrace_sample_key);
}

/* Set the period of the next recording; -EBUSY while one records. */
static int kmemtrace_sample_set(u64 period)
{
	if (period > KMEMTRACE_SAMPLE_PERIOD_MAX)
		return -EINVAL;
	if (kmemtrace_enabled())
		return -EBUSY;
	mutex_lock(&kmemtrace_sample_mutex);
	WRITE_ONCE(kmemtrace_sample_setting, period);
	mutex_unlock(&kmemtrace_sample_mutex);
	return 0;
}

#if IS_ENABLED(CONFIG_KMEMTRACE_KUNIT_TEST)
static bool kmemtrace_sample_probes;

/**
 * kmemtrace_sample_configure() - set the next recording's sampling
 * @period: mean bytes between samples, 0 for every event
 * @seed: seed of the draws, 0 for a random one
 * @probes: sample through the tracepoints' probes even with
 *	CONFIG_KMEMTRACE_SAMPLE_HOOKS, so that one kernel tests both paths
 *
 * For the KUnit test.
 *
 * Context: Process context, may sleep.
 * Return: 0, -EINVAL for a period out of range, -EBUSY while recording.
 */
int kmemtrace_sample_configure(unsigned int period, u64 seed, bool probes)
{
	int ret = kmemtrace_sample_set(period);

	if (!ret) {
		mutex_lock(&kmemtrace_sample_mutex);
		kmemtrace_sample_seed = seed;
		WRITE_ONCE(kmemtrace_sample_probes, probes);
		mutex_unlock(&kmemtrace_sample_mutex);
	}
	return ret;
}

/* Whether the KUnit test asked for the probes; kmemtrace_mutex held. */
bool kmemtrace_sample_via_probes(void)
{
	return READ_ONCE(kmemtrace_sample_probes);
}
#endif

/* === Boot parameters ===================================================== */

#ifdef MODULE_PARAM_PREFIX
#undef MODULE_PARAM_PREFIX
#endif
#define MODULE_PARAM_PREFIX "kmemtrace."

static int param_set_sample(const char *val, const struct kernel_param *kp)
{
	unsigned int num;

	if (kstrtouint(val, 0, &num) || num > KMEMTRACE_SAMPLE_PERIOD_MAX) {
		pr_err("invalid %s=%s: want 0 (every event) to %u bytes, keeping %u\n",
		       kp->name, val, KMEMTRACE_SAMPLE_PERIOD_MAX,
		       *(unsigned int *)kp->arg);
		return -EINVAL;
	}
	*(unsigned int *)kp->arg = num;
	return 0;
}

static int param_set_sample_seed(const char *val,
				 const struct kernel_param *kp)
{
	u64 num;

	if (kstrtou64(val, 0, &num)) {
		pr_err("invalid %s=%s: want a number, 0 for a random seed\n",
		       kp->name, val);
		return -EINVAL;
	}
	*(u64 *)kp->arg = num;
	return 0;
}

static const struct kernel_param_ops kmemtrace_sample_ops = {
	.set	= param_set_sample,
	.get	= param_get_uint,
};

static const struct kernel_param_ops kmemtrace_sample_seed_ops = {
	.set	= param_set_sample_seed,
	.get	= param_get_ullong,
};

module_param_cb(sample, &kmemtrace_sample_ops, &kmemtrace_sample_setting, 0444);
module_param_cb(sample_seed, &kmemtrace_sample_seed_ops, &kmemtrace_sample_seed,
		0444);

/* === debugfs ============================================================= */

static int sample_period_get(void *data, u64 *val)
{
	*val = READ_ONCE(kmemtrace_sample_setting);
	return 0;
}

static int sample_period_set(void *data, u64 val)
{
	return kmemtrace_sample_set(val);
}

DEFINE_DEBUGFS_ATTRIBUTE(sample_period_fops, sample_period_get,
			 sample_period_set, "%llu\n");

static int sample_seed_get(void *data, u64 *val)
{
	mutex_lock(&kmemtrace_sample_mutex);
	*val = kmemtrace_sample_seed;
	mutex_unlock(&kmemtrace_sample_mutex);
	return 0;
}

static int sample_seed_set(void *data, u64 val)
{
	if (kmemtrace_enabled())
		return -EBUSY;
	mutex_lock(&kmemtrace_sample_mutex);
	kmemtrace_sample_seed = val;
	mutex_unlock(&kmemtrace_sample_mutex);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(sample_seed_fops, sample_seed_get, sample_seed_set,
			 "%llu\n");

static int sample_stats_show(struct seq_file *m, void *v)
{
	struct kmemtrace_sample_bucket *table = READ_ONCE(kmemtrace_sample_table);
	unsigned long live = 0;
	unsigned int i;
	int cpu;

	seq_puts(m, "# kmemtrace sample_stats v1\n");
	seq_printf(m, "# period %u\n", kmemtrace_sampling() ?
		   READ_ONCE(kmemtrace_sample_period) : 0);
	seq_puts(m, "# cpu sampled untracked freed\n");
	for_each_possible_cpu(cpu) {
		struct kmemtrace_sample_cpu *sc =
			per_cpu_ptr(&kmemtrace_sample_cpu, cpu);

		seq_printf(m, "%d %lu %lu %lu\n", cpu, READ_ONCE(sc->sampled),
			   READ_ONCE(sc->untracked), READ_ONCE(sc->freed));
	}
	for (i = 0; table && i < KMEMTRACE_SAMPLE_BUCKETS; i++)
		live += hweight_long(READ_ONCE(table[i].mask));
	seq_printf(m, "# tracked %lu of %lu\n", live,
		   (unsigned long)KMEMTRACE_SAMPLE_BUCKETS * KMEMTRACE_SAMPLE_SLOTS);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sample_stats);

/**
 * kmemtrace_sample_debugfs() - create the sampling files
 * @dir: /sys/kernel/debug/kmemtrace
 */
void __init kmemtrace_sample_debugfs(struct dentry *dir)
{
	debugfs_create_file_unsafe("sample_period", 0600, dir, NULL,
				   &sample_period_fops);
	debugfs_create_file_unsafe("sample_seed", 0600, dir, NULL,
				   &sample_seed_fops);
	debugfs_create_file("sample_stats", 0400, dir, NULL, &sample_stats_fops);
}
