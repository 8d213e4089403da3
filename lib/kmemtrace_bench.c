// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace_bench - an allocation load and benchmark loop
 *
 * /sys/kernel/debug/kmemtrace_bench/run (root only): writing "OP N" runs N
 * allocation and free pairs of OP in the writer's context, on the CPU it
 * runs on (pin it with taskset to load one CPU), and returns when they are
 * done.  Reading gives the last completed run as "OP N NSECS".  Writing Y
 * to percpu_chunk gives percpu runs a chunk of their own (settle_percpu()).
 * The loop is preemptible and gives up the CPU every few hundred pairs; a
 * fatal signal stops it with -EINTR.
 *
 * "OP N RATE" paces the loop to RATE pairs per second: it sleeps whenever
 * it is ahead of that schedule, checked every BENCH_PACE_EVERY pairs, so a
 * load of a known event rate can be offered to kmemtrace (the lossless
 * capture measurement of make bench).  Without RATE it runs flat out.
 *
 * The operations, one pair each:
 *
 *   kmalloc-8 ... kmalloc-4096   kmalloc()/kfree() of 8, 64, 256, 1024
 *                                and 4096 bytes
 *   kmalloc-large                kmalloc()/kfree() of 16 KiB (pages)
 *   cache                        kmem_cache_alloc()/kmem_cache_free(),
 *                                64-byte objects of a cache of its own
 *   pages-0, pages-3             alloc_pages()/__free_pages(), order 0, 3
 *   percpu                       alloc_percpu()/free_percpu(), 64 bytes
 *                                (in a chunk of their own if percpu_chunk
 *                                is set, settle_percpu())
 *   vmalloc                      vmalloc()/vfree() of 16 KiB; a run
 *                                starts with the lazily freed areas
 *                                purged (settle_vmalloc())
 *   bulk                         kmem_cache_alloc_bulk()/
 *                                kmem_cache_free_bulk() of 16 objects
 *   mix                          all of the above, round-robin
 *
 * It does not depend on kmemtrace: the same load runs on a kernel without
 * it, which is how kmemtrace's cost is measured, and it is the load of
 * kmemtrace's stress tests.
 *
 * /sys/kernel/debug/kmemtrace_bench/floor (root only): writing Y attaches
 * the floor, the least a recorder on the allocators' tracepoints can do
 * per event (see below), N detaches it; reading gives "CPU EVENTS" for
 * each possible CPU, the events it wrote since boot.  make bench sets its
 * cost per event beside kmemtrace's.  See Documentation/trace/kmemtrace.rst.
 */

#define pr_fmt(fmt) "kmemtrace_bench: " fmt

#include <linux/bits.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/hrtimer.h>
#include <linux/init.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

/*
 * The floor (below) is built in only: built as a module of a kernel
 * without kmemtrace (make check's upstream boot), the tracepoints it
 * attaches to are not all there, nor exported.
 */
#if defined(CONFIG_TRACEPOINTS) && !defined(MODULE)
#define BENCH_FLOOR
#include <trace/events/kmem.h>
#include <trace/events/percpu.h>
#include <trace/events/vmalloc.h>
#include <uapi/linux/kmemtrace.h>
#ifdef CONFIG_X86_TSC
#include <asm/msr.h>
#else
#include <linux/sched/clock.h>
#endif
#endif

#define BENCH_RESCHED_EVERY	256
#define BENCH_PACE_EVERY	32
/* 2^32, or the most an unsigned long holds where that is less (32-bit). */
#define BENCH_MAX		((unsigned long)min_t(u64, BIT_ULL(32), ULONG_MAX))
#define BENCH_MAX_RATE		BENCH_MAX
#define BENCH_MAX_PAIRS		BENCH_MAX
#define BENCH_BULK		16
#define BENCH_CACHE_SIZE	64
#define BENCH_LARGE_SIZE	SZ_16K

static struct kmem_cache *bench_cache;

#ifdef KMEMTRACE_BENCH_PERCPU_PAD
/*
 * make bench builds its layout-spread kernel (a') with
 * -DKMEMTRACE_BENCH_PERCPU_PAD=N, N the bytes of static per-CPU data
 * kmemtrace adds to (b): where the first percpu chunk's free space starts
 * moves with the static per-CPU data, and with it the bitmap searches of
 * alloc_percpu() and free_percpu() in it (the percpu runs of make bench
 * have a chunk of their own, settle_percpu()).  Never set otherwise.
 */
struct bench_percpu_pad {
	u8 bytes[KMEMTRACE_BENCH_PERCPU_PAD];
};

static __used DEFINE_PER_CPU(struct bench_percpu_pad, bench_percpu_pad);
#endif

/*
 * The percpu allocator gives the first area that fits, and what its
 * searches cost depends on every alloc_percpu() since boot: the mm
 * counters of each process fork and exit there, in an order that moves
 * with the timing of the boot.  A pair in the first chunk cost 1760 to
 * 2000 instructions in one boot by how many processes were sleeping
 * (make bench's -icount boots, kernel (a), 0 to 11 sleepers), and the
 * same code read 3% dearer in one kernel than another.  So, with
 * percpu_chunk set (make bench sets it), a percpu run starts with the
 * free areas of the pair's size taken up (fillers)
 * until one comes from another chunk than the first, a vmalloc()ed one,
 * which then holds only that filler: the pairs after it find their
 * area in it, in the same state in every kernel.  The fillers stay
 * until a run of another operation starts, so that freeing them is
 * not counted in the percpu run that follows a warm-up (make bench
 * counts the events of each timed run); each percpu run takes up again
 * what was freed in the first chunk meanwhile.  A filler that cannot be had
 * leaves the run where it is; the run itself does not fail for it.
 */
#define BENCH_PCPU_SIZE		64
#define BENCH_PCPU_FILL_MAX	4096
/* mm/percpu.c's PCPU_EMPTY_POP_PAGES_HIGH */
#define BENCH_PCPU_POP_PAGES	4

static bool bench_pcpu_own;
static DEFINE_MUTEX(bench_pcpu_mutex);
static void __percpu **bench_pcpu_fill;
static unsigned int bench_pcpu_nr_fill;

/**
 * struct bench_op - one allocation and free pair
 * @name: what "OP" is written as
 * @size: bytes (or page order) passed to @pair
 * @pair: allocate and free once; return 0, or -ENOMEM if allocating failed
 * @settle: if set, called before a run, untimed, to start every run of
 *	the operation from the same state
 */
struct bench_op {
	const char *name;
	size_t size;
	int (*pair)(size_t size);
	void (*settle)(void);
};

static int pair_kmalloc(size_t size)
{
	void *p = kmalloc(size, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	kfree(p);
	return 0;
}

static int pair_cache(size_t size)
{
	void *p = kmem_cache_alloc(bench_cache, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	kmem_cache_free(bench_cache, p);
	return 0;
}

static int pair_pages(size_t order)
{
	struct page *page = alloc_pages(GFP_KERNEL, order);

	if (!page)
		return -ENOMEM;
	__free_pages(page, order);
	return 0;
}

static int pair_percpu(size_t size)
{
	void __percpu *p = __alloc_percpu(size, __alignof__(u64));

	if (!p)
		return -ENOMEM;
	free_percpu(p);
	return 0;
}

/*
 * Take up the first chunk's free areas of the pair's size, and return
 * the filler that came from another chunk (the first is embedded, the
 * others are vmalloc()ed), or NULL if the fillers ran out.  Aligned to
 * the least the allocator gives, so that no area of the pair's size is
 * left, aligned or not: one left misaligned for the pair would keep the
 * first chunk on the lists the pair's search walks, and every pair would
 * try it (some 60 instructions).
 */
static void __percpu *bench_pcpu_fill_up(void)
{
	void __percpu *p;

	while (bench_pcpu_nr_fill < BENCH_PCPU_FILL_MAX) {
		p = __alloc_percpu(BENCH_PCPU_SIZE, PCPU_MIN_ALLOC_SIZE);
		if (!p || is_vmalloc_addr(raw_cpu_ptr(p)))
			return p;
		bench_pcpu_fill[bench_pcpu_nr_fill++] = p;
	}
	return NULL;
}

static void settle_percpu(void)
{
	void __percpu *p;
	bool held;

	mutex_lock(&bench_pcpu_mutex);
	held = bench_pcpu_nr_fill;
	if (!READ_ONCE(bench_pcpu_own))
		goto out;
	if (!bench_pcpu_fill)
		bench_pcpu_fill = kvmalloc_array(BENCH_PCPU_FILL_MAX,
						 sizeof(*bench_pcpu_fill),
						 GFP_KERNEL);
	if (!bench_pcpu_fill)
		goto out;
	/*
	 * Held from a run before: take up again what was freed in the
	 * first chunk since (the exits of the processes that started the
	 * run before: a counter freed beside a small free area can make an
	 * area a pair fits), and free at once the filler that comes from
	 * the new chunk.  Events mode's timed percpu runs, which followed
	 * such exits, cost 1858.6 instructions a pair without this, 1797.6
	 * with it, as every other mode.
	 */
	p = bench_pcpu_fill_up();
	if (!p)
		goto out;
	if (held || bench_pcpu_nr_fill == BENCH_PCPU_FILL_MAX) {
		free_percpu(p);
		goto out;
	}
	bench_pcpu_fill[bench_pcpu_nr_fill++] = p;
	/*
	 * The allocator keeps a few empty pages populated, and when fewer
	 * are left its balance work populates more, in a kworker on this
	 * CPU: during the runs, or not, by when it gets the CPU.  Populate
	 * them now: allocate the pages after the new chunk's filler, and
	 * free them empty.
	 */
	p = __alloc_percpu(BENCH_PCPU_POP_PAGES * PAGE_SIZE, PAGE_SIZE);
	if (p)
		free_percpu(p);
out:
	mutex_unlock(&bench_pcpu_mutex);
}

/* Free what settle_percpu() took: a run of another operation starts. */
static void bench_pcpu_release(void)
{
	mutex_lock(&bench_pcpu_mutex);
	while (bench_pcpu_nr_fill)
		free_percpu(bench_pcpu_fill[--bench_pcpu_nr_fill]);
	mutex_unlock(&bench_pcpu_mutex);
}

static int pair_vmalloc(size_t size)
{
	void *p = vmalloc(size);

	if (!p)
		return -ENOMEM;
	vfree(p);
	return 0;
}

/*
 * vfree() leaves the area's address range to be purged in a batch, once
 * lazily freed pages pass lazy_max_pages(): 16384 pages with 2 CPUs, a
 * purge every 3000 or so pairs.  A 2000-pair run held one purge or two by
 * where the batch stood when it began, and cost 6550 or 6670 instructions
 * a pair for it, so the fastest of two runs of the same kernel differed
 * by 1.8%.  Purge before each run: every run of up to 3000 pairs then
 * holds none.
 */
static void settle_vmalloc(void)
{
	vm_unmap_aliases();
}

static int pair_bulk(size_t nr)
{
	void *p[BENCH_BULK];

	if (!kmem_cache_alloc_bulk(bench_cache, GFP_KERNEL, nr, p))
		return -ENOMEM;
	kmem_cache_free_bulk(bench_cache, nr, p);
	return 0;
}

static const struct bench_op bench_ops[] = {
	{ "kmalloc-8",		8,			pair_kmalloc },
	{ "kmalloc-64",		64,			pair_kmalloc },
	{ "kmalloc-256",	256,			pair_kmalloc },
	{ "kmalloc-1024",	1024,			pair_kmalloc },
	{ "kmalloc-4096",	4096,			pair_kmalloc },
	{ "kmalloc-large",	BENCH_LARGE_SIZE,	pair_kmalloc },
	{ "cache",		BENCH_CACHE_SIZE,	pair_cache },
	{ "pages-0",		0,			pair_pages },
	{ "pages-3",		3,			pair_pages },
	{ "percpu",		BENCH_PCPU_SIZE,	pair_percpu,
	  settle_percpu },
	{ "vmalloc",		SZ_16K,			pair_vmalloc, settle_vmalloc },
	{ "bulk",		BENCH_BULK,		pair_bulk },
};

/* "mix" is one past the last operation: each of them in turn. */
#define BENCH_MIX	ARRAY_SIZE(bench_ops)

/* The last completed run, for reads of "run". */
static DEFINE_MUTEX(bench_mutex);
static const char *bench_last_op = "none";
static unsigned long bench_last_pairs;
static u64 bench_last_nsecs;

/* Sleep until @start plus the time @done pairs take at @rate pairs/s. */
static int bench_pace(u64 start, unsigned long done, unsigned long rate)
{
	ktime_t due = ns_to_ktime(start + div64_ul((u64)done * NSEC_PER_SEC,
						    rate));

	while (ktime_before(ktime_get(), due)) {
		set_current_state(TASK_KILLABLE);
		schedule_hrtimeout(&due, HRTIMER_MODE_ABS);
		if (fatal_signal_pending(current))
			return -EINTR;
	}
	return 0;
}

/*
 * Run @pairs pairs of operation @op (or of all, for BENCH_MIX), at @rate
 * pairs per second, or flat out if @rate is 0.
 */
static int bench_run(unsigned int op, unsigned long pairs, unsigned long rate,
		     u64 *nsecs)
{
	const struct bench_op *o = &bench_ops[op % BENCH_MIX];
	unsigned long i;
	u64 start;
	int ret;

	if (op == BENCH_MIX || o->settle != settle_percpu)
		bench_pcpu_release();
	if (op != BENCH_MIX && o->settle)
		o->settle();
	start = ktime_get_ns();

	for (i = 0; i < pairs; i++) {
		if (op == BENCH_MIX)
			o = &bench_ops[i % BENCH_MIX];
		ret = o->pair(o->size);
		if (ret)
			return ret;
		/* Paced through the last pair too: N pairs take N / RATE s. */
		if (rate && (i % BENCH_PACE_EVERY == BENCH_PACE_EVERY - 1 ||
			     i == pairs - 1)) {
			ret = bench_pace(start, i + 1, rate);
			if (ret)
				return ret;
		}
		if (i % BENCH_RESCHED_EVERY == BENCH_RESCHED_EVERY - 1) {
			if (fatal_signal_pending(current))
				return -EINTR;
			cond_resched();
		}
	}
	*nsecs = ktime_get_ns() - start;
	return 0;
}

/* Parse "OP N [RATE]" into @op, @pairs and @rate; return 0 or -EINVAL. */
static int bench_parse(char *buf, unsigned int *op, unsigned long *pairs,
		       unsigned long *rate)
{
	char *name = strsep(&buf, " \t");
	unsigned int i;
	char *n;

	*rate = 0;
	if (!buf)
		return -EINVAL;
	buf = skip_spaces(buf);
	n = strsep(&buf, " \t");
	if (kstrtoul(n, 0, pairs) || !*pairs || *pairs > BENCH_MAX_PAIRS)
		return -EINVAL;
	if (buf && (kstrtoul(skip_spaces(buf), 0, rate) || !*rate ||
		    *rate > BENCH_MAX_RATE))
		return -EINVAL;
	for (i = 0; i < BENCH_MIX; i++) {
		if (!strcmp(name, bench_ops[i].name))
			break;
	}
	if (i == BENCH_MIX && strcmp(name, "mix"))
		return -EINVAL;
	*op = i;
	return 0;
}

static ssize_t run_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	char buf[64], req[64], *line;
	unsigned long pairs, rate;
	unsigned int op;
	u64 nsecs;
	int ret;

	if (count >= sizeof(buf)) {
		pr_warn("run: %zu bytes written, want \"OP N\"\n", count);
		return -EINVAL;
	}
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	line = strim(buf);
	strscpy(req, line);
	if (bench_parse(req, &op, &pairs, &rate)) {
		pr_warn("run: bad request \"%s\", want \"OP N [RATE]\" with N in 1..%lu and RATE in 1..%lu\n",
			line, BENCH_MAX_PAIRS, BENCH_MAX_RATE);
		return -EINVAL;
	}
	ret = bench_run(op, pairs, rate, &nsecs);
	if (ret)
		return ret;
	mutex_lock(&bench_mutex);
	bench_last_op = op == BENCH_MIX ? "mix" : bench_ops[op].name;
	bench_last_pairs = pairs;
	bench_last_nsecs = nsecs;
	mutex_unlock(&bench_mutex);
	return count;
}

static ssize_t run_read(struct file *file, char __user *ubuf, size_t count,
			loff_t *ppos)
{
	char buf[64];
	int len;

	mutex_lock(&bench_mutex);
	len = scnprintf(buf, sizeof(buf), "%s %lu %llu\n", bench_last_op,
			bench_last_pairs, bench_last_nsecs);
	mutex_unlock(&bench_mutex);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations run_fops = {
	.owner	= THIS_MODULE,
	.read	= run_read,
	.write	= run_write,
	.llseek	= default_llseek,
};

#ifdef BENCH_FLOOR
/*
 * The floor: a probe on each tracepoint the bench's operations fire that
 * writes the 96 bytes of a kmemtrace event (struct kmemtrace_event, in
 * its little-endian layout) as twelve words into a small per-CPU array,
 * from what the tracepoint hands it, stamped with the TSC and numbered,
 * and does nothing else: no interrupt safety (an interrupt's event may
 * overwrite the one it interrupted), no reader to publish to, no loss
 * counted, no callers named, no lookups (a page event holds the struct
 * page, a slab event the cache).  Its cost per event is what writing an
 * event through a tracepoint costs at the least; what kmemtrace pays
 * beyond it is for what the floor leaves out.
 */
#define BENCH_FLOOR_EVENTS	64
#define BENCH_FLOOR_WORDS	(KMEMTRACE_EVENT_SIZE / sizeof(u64))

struct bench_floor_cpu {
	u64 written;
	u64 ev[BENCH_FLOOR_EVENTS][BENCH_FLOOR_WORDS];
} ____cacheline_aligned;

/* nr_cpu_ids of them, from the first attach on; never freed. */
static struct bench_floor_cpu *bench_floor;
static bool bench_floor_on;
static DEFINE_MUTEX(bench_floor_mutex);

/* The first word: magic, ABI, kind and type, a constant per probe. */
#define FLOOR_HEAD(kind, type)						\
	(KMEMTRACE_MAGIC | (u64)KMEMTRACE_ABI_VERSION << 16 |		\
	 (u64)(kind) << 24 | (u64)(type) << 32)

static __always_inline u64 floor_clock(void)
{
#ifdef CONFIG_X86_TSC
	return rdtsc();
#else
	return local_clock();
#endif
}

/*
 * Context: Preemption disabled (a tracepoint's probe).
 */
static __always_inline void floor_write(u64 head, unsigned long call_site,
					const void *ptr, u64 bytes_req,
					u64 bytes_alloc, u64 order_mt,
					gfp_t gfp_flags, int node, u64 tag)
{
	unsigned int cpu = smp_processor_id();
	struct bench_floor_cpu *c = &bench_floor[cpu];
	u64 n = c->written;
	u64 *w = c->ev[n & (BENCH_FLOOR_EVENTS - 1)];

	w[0] = head;
	w[1] = floor_clock();
	w[2] = (u64)cpu << 16 | order_mt << 32;
	w[3] = (u32)current->pid | (u64)(u32)node << 32;
	w[4] = (__force u32)gfp_flags;
	w[5] = 0;
	w[6] = n;
	w[7] = call_site;
	w[8] = (unsigned long)ptr;
	w[9] = bytes_req;
	w[10] = bytes_alloc;
	w[11] = tag;
	c->written = n + 1;
}

static void floor_kmalloc(void *ignore, unsigned long call_site,
			  const void *ptr, size_t bytes_req, size_t bytes_alloc,
			  gfp_t gfp_flags, int node)
{
	floor_write(FLOOR_HEAD(KMEMTRACE_KIND_ALLOC, KMEMTRACE_TYPE_KMALLOC),
		    call_site, ptr, bytes_req, bytes_alloc, 0, gfp_flags, node,
		    0);
}

static void floor_kfree(void *ignore, unsigned long call_site,
			const void *ptr, const struct kmem_cache *s)
{
	floor_write(FLOOR_HEAD(KMEMTRACE_KIND_FREE, KMEMTRACE_TYPE_KMALLOC),
		    call_site, ptr, 0, 0, 0, 0, NUMA_NO_NODE,
		    (unsigned long)s);
}

static void floor_kmem_cache_alloc(void *ignore, unsigned long call_site,
				   const void *ptr, struct kmem_cache *s,
				   gfp_t gfp_flags, int node)
{
	floor_write(FLOOR_HEAD(KMEMTRACE_KIND_ALLOC, KMEMTRACE_TYPE_CACHE),
		    call_site, ptr, 0, 0, 0, gfp_flags, node,
		    (unsigned long)s);
}

static void floor_kmem_cache_free(void *ignore, unsigned long call_site,
				  const void *ptr, const struct kmem_cache *s)
{
	floor_write(FLOOR_HEAD(KMEMTRACE_KIND_FREE, KMEMTRACE_TYPE_CACHE),
		    call_site, ptr, 0, 0, 0, 0, NUMA_NO_NODE,
		    (unsigned long)s);
}

static void floor_mm_page_alloc(void *ignore, struct page *page,
				unsigned int order, gfp_t gfp_flags,
				int migratetype)
{
	floor_write(FLOOR_HEAD(KMEMTRACE_KIND_ALLOC, KMEMTRACE_TYPE_PAGES), 0,
		    page, 0, 0, order | (u64)(u8)migratetype << 8, gfp_flags,
		    NUMA_NO_NODE, 0);
}

static void floor_mm_page_free(void *ignore, struct page *page,
			       unsigned int order)
{
	floor_write(FLOOR_HEAD(KMEMTRACE_KIND_FREE, KMEMTRACE_TYPE_PAGES), 0,
		    page, 0, 0, order, 0, NUMA_NO_NODE, 0);
}

static void floor_percpu_alloc_percpu(void *ignore, unsigned long call_site,
				      bool reserved, bool is_atomic,
				      size_t size, size_t align,
				      void *base_addr, int off,
				      void __percpu *ptr, size_t bytes_alloc,
				      gfp_t gfp_flags)
{
	floor_write(FLOOR_HEAD(KMEMTRACE_KIND_ALLOC, KMEMTRACE_TYPE_PERCPU),
		    call_site, (__force const void *)ptr, size, bytes_alloc, 0,
		    gfp_flags, NUMA_NO_NODE, 0);
}

static void floor_percpu_free_percpu(void *ignore, void *base_addr, int off,
				     void __percpu *ptr)
{
	floor_write(FLOOR_HEAD(KMEMTRACE_KIND_FREE, KMEMTRACE_TYPE_PERCPU), 0,
		    (__force const void *)ptr, 0, 0, 0, 0, NUMA_NO_NODE, 0);
}

static void floor_vmalloc(void *ignore, unsigned long call_site,
			  const void *ptr, size_t bytes_req, size_t bytes_alloc,
			  gfp_t gfp_flags, int node)
{
	floor_write(FLOOR_HEAD(KMEMTRACE_KIND_ALLOC, KMEMTRACE_TYPE_VMALLOC),
		    call_site, ptr, bytes_req, bytes_alloc, 0, gfp_flags, node,
		    0);
}

static void floor_vfree(void *ignore, unsigned long call_site,
			const void *ptr)
{
	floor_write(FLOOR_HEAD(KMEMTRACE_KIND_FREE, KMEMTRACE_TYPE_VMALLOC),
		    call_site, ptr, 0, 0, 0, 0, NUMA_NO_NODE, 0);
}

struct bench_floor_probe {
	struct tracepoint *tp;
	void *probe;
};

#define FLOOR_PROBE(name)	{ &__tracepoint_##name, floor_##name }

static const struct bench_floor_probe bench_floor_probes[] = {
	FLOOR_PROBE(kmalloc),
	FLOOR_PROBE(kfree),
	FLOOR_PROBE(kmem_cache_alloc),
	FLOOR_PROBE(kmem_cache_free),
	FLOOR_PROBE(mm_page_alloc),
	FLOOR_PROBE(mm_page_free),
	FLOOR_PROBE(percpu_alloc_percpu),
	FLOOR_PROBE(percpu_free_percpu),
	FLOOR_PROBE(vmalloc),
	FLOOR_PROBE(vfree),
};

/* The table loses the probes' types: let the compiler check them here. */
static void __maybe_unused bench_floor_check_types(void)
{
	check_trace_callback_type_kmalloc(floor_kmalloc);
	check_trace_callback_type_kfree(floor_kfree);
	check_trace_callback_type_kmem_cache_alloc(floor_kmem_cache_alloc);
	check_trace_callback_type_kmem_cache_free(floor_kmem_cache_free);
	check_trace_callback_type_mm_page_alloc(floor_mm_page_alloc);
	check_trace_callback_type_mm_page_free(floor_mm_page_free);
	check_trace_callback_type_percpu_alloc_percpu(floor_percpu_alloc_percpu);
	check_trace_callback_type_percpu_free_percpu(floor_percpu_free_percpu);
	check_trace_callback_type_vmalloc(floor_vmalloc);
	check_trace_callback_type_vfree(floor_vfree);
}

/* Detach the first @n probes of the table. */
static void bench_floor_detach(unsigned int n)
{
	while (n--)
		tracepoint_probe_unregister(bench_floor_probes[n].tp,
					    bench_floor_probes[n].probe, NULL);
	tracepoint_synchronize_unregister();
}

static int bench_floor_attach(void)
{
	unsigned int i;
	int ret;

	BUILD_BUG_ON(BENCH_FLOOR_WORDS * sizeof(u64) != KMEMTRACE_EVENT_SIZE);
	if (!bench_floor) {
		bench_floor = vzalloc(array_size(nr_cpu_ids, sizeof(*bench_floor)));
		if (!bench_floor)
			return -ENOMEM;
	}
	for (i = 0; i < ARRAY_SIZE(bench_floor_probes); i++) {
		ret = tracepoint_probe_register(bench_floor_probes[i].tp,
						bench_floor_probes[i].probe, NULL);
		if (ret) {
			pr_warn("floor: cannot attach to %s: %d\n",
				bench_floor_probes[i].tp->name, ret);
			bench_floor_detach(i);
			return ret;
		}
	}
	return 0;
}

static ssize_t floor_write_file(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	bool on;
	int ret;

	ret = kstrtobool_from_user(ubuf, count, &on);
	if (ret) {
		pr_warn("floor: want Y or N\n");
		return ret;
	}
	mutex_lock(&bench_floor_mutex);
	if (on && !bench_floor_on)
		ret = bench_floor_attach();
	else if (!on && bench_floor_on)
		bench_floor_detach(ARRAY_SIZE(bench_floor_probes));
	if (!ret)
		bench_floor_on = on;
	mutex_unlock(&bench_floor_mutex);
	return ret ?: count;
}

static int floor_show(struct seq_file *m, void *v)
{
	unsigned int cpu;

	mutex_lock(&bench_floor_mutex);
	for_each_possible_cpu(cpu)
		seq_printf(m, "%u %llu\n", cpu,
			   bench_floor ? READ_ONCE(bench_floor[cpu].written) : 0);
	mutex_unlock(&bench_floor_mutex);
	return 0;
}

static int floor_open(struct inode *inode, struct file *file)
{
	return single_open(file, floor_show, NULL);
}

static const struct file_operations floor_fops = {
	.owner		= THIS_MODULE,
	.open		= floor_open,
	.read		= seq_read,
	.write		= floor_write_file,
	.llseek		= seq_lseek,
	.release	= single_release,
};
#endif /* BENCH_FLOOR */

static int __init kmemtrace_bench_init(void)
{
	struct dentry *dir;

	bench_cache = kmem_cache_create("kmemtrace_bench", BENCH_CACHE_SIZE, 0,
					0, NULL);
	if (!bench_cache)
		return -ENOMEM;
	dir = debugfs_create_dir("kmemtrace_bench", NULL);
	debugfs_create_file("run", 0600, dir, NULL, &run_fops);
	debugfs_create_bool("percpu_chunk", 0600, dir, &bench_pcpu_own);
#ifdef BENCH_FLOOR
	debugfs_create_file("floor", 0600, dir, NULL, &floor_fops);
#endif
	return 0;
}
late_initcall(kmemtrace_bench_init);
