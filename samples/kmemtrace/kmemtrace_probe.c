// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace_probe - count allocations and frees with probes of its own on
 * the allocator tracepoints that kmemtrace uses
 *
 * Several probes may be attached to one tracepoint: this module's run
 * beside kmemtrace's, whether kmemtrace records or not, and count what
 * kmemtrace records, so that a test can compare the two over one window.
 * It attaches to the tracepoints kmemtrace attaches to (see
 * mm/kmemtrace/probes.c) but mm_page_split (a split is neither an
 * allocation nor a free), and counts per CPU, with this_cpu_inc(), the
 * allocations, frees and in-place resizes of each type:
 *
 *   kmalloc  kmalloc, krealloc (in place), kfree
 *   cache    kmem_cache_alloc, kmem_cache_free
 *   pages    mm_page_alloc, mm_page_free, mm_page_alloc_exact,
 *            mm_page_free_exact
 *   percpu   percpu_alloc_percpu, percpu_free_percpu
 *   vmalloc  vmalloc, vrealloc (in place), vfree
 *
 * Like kmemtrace, it leaves out failed allocations, frees of NULL and
 * events in NMI context (which kmemtrace counts as dropped).  Unlike
 * kmemtrace, it counts what the tracepoints see: kmemtrace types a
 * kfree() of an object of a kmem_cache as a cache free, and leaves out
 * the page events of a large kmalloc() and of alloc_pages_exact() (their
 * API events describe them); here they count as a kmalloc free and as
 * pages.  Workloads compared must avoid them.
 *
 * Parameters:
 *
 *   pid=PID      count only the events of the task PID (its thread id,
 *                as kmemtrace's events carry it), in task or interrupt
 *                context; 0 (the default) counts every task's.  Writable
 *                at run time in /sys/module/kmemtrace_probe/parameters/.
 *   module=NAME  count only the events whose call site, as the tracepoint
 *                passes it, is in the code of module NAME, from when NAME
 *                is loaded (after kmemtrace_probe: a module loaded before
 *                it is not seen) until it is unloaded.  The tracepoints of
 *                page allocations and percpu frees pass no call site:
 *                they are not counted then.  kmemtrace names the API's
 *                caller for the events from inside an API (the kmalloc()
 *                under kvmalloc(), the kfree() under krealloc()), where
 *                the tracepoint names the API itself.
 *
 * /sys/kernel/debug/kmemtrace_probe/counts (0600): reading it gives the
 * sums over all CPUs since loading or the last reset:
 *
 *   # kmemtrace_probe counts v1
 *   # filter: pid 123 module none
 *   # type allocs frees reallocs
 *   kmalloc 10 9 0
 *   cache 4 4 0
 *   pages 7 5 0
 *   percpu 1 1 0
 *   vmalloc 2 2 0
 *
 * Writing anything to it resets the counts; events on other CPUs during
 * the reset may be counted or not.
 *
 * The probes run inside the allocators, in any context: they neither
 * allocate, sleep nor take a lock.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/notifier.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <trace/events/kmem.h>
#include <trace/events/percpu.h>
#include <trace/events/vmalloc.h>

enum kmtp_type {
	KMTP_KMALLOC,
	KMTP_CACHE,
	KMTP_PAGES,
	KMTP_PERCPU,
	KMTP_VMALLOC,
	KMTP_TYPES
};

enum kmtp_kind {
	KMTP_ALLOC,
	KMTP_FREE,
	KMTP_REALLOC,
	KMTP_KINDS
};

static const char * const kmtp_type_names[KMTP_TYPES] = {
	[KMTP_KMALLOC]	= "kmalloc",
	[KMTP_CACHE]	= "cache",
	[KMTP_PAGES]	= "pages",
	[KMTP_PERCPU]	= "percpu",
	[KMTP_VMALLOC]	= "vmalloc",
};

struct kmtp_counts {
	unsigned long	n[KMTP_TYPES][KMTP_KINDS];
};

static DEFINE_PER_CPU(struct kmtp_counts, kmtp_counts);

static int kmtp_pid;
module_param_named(pid, kmtp_pid, int, 0600);
MODULE_PARM_DESC(pid, "count only the events of this task (default 0: all)");

static char *kmtp_module;
module_param_named(module, kmtp_module, charp, 0400);
MODULE_PARM_DESC(module, "count only the events whose call site is in this module's code");

/*
 * The code of the module named by module=, while it is loaded: its core
 * text and, until its init is done, its init text.  Set before the module
 * runs and cleared after it stopped, by kmtp_module_notify().
 */
static struct {
	unsigned long	start;
	unsigned long	size;
} kmtp_text[2];

static bool kmtp_in_module(unsigned long addr)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(kmtp_text); i++) {
		if (addr - READ_ONCE(kmtp_text[i].start) <
		    READ_ONCE(kmtp_text[i].size))
			return true;
	}
	return false;
}

/* @call_site: the tracepoint's, 0 if it passes none. */
static __always_inline void kmtp_count(enum kmtp_type type,
				       enum kmtp_kind kind,
				       unsigned long call_site)
{
	int pid = READ_ONCE(kmtp_pid);

	if (in_nmi())
		return;
	if (pid && current->pid != pid)
		return;
	if (kmtp_module && !kmtp_in_module(call_site))
		return;
	this_cpu_inc(kmtp_counts.n[type][kind]);
}

/* === The probes ========================================================== */

static void kmtp_kmalloc(void *ignore, unsigned long call_site,
			 const void *ptr, size_t bytes_req,
			 size_t bytes_alloc, gfp_t gfp_flags, int node)
{
	if (ptr)
		kmtp_count(KMTP_KMALLOC, KMTP_ALLOC, call_site);
}

static void kmtp_krealloc(void *ignore, unsigned long call_site,
			  const void *ptr, size_t bytes_req,
			  size_t bytes_alloc, gfp_t gfp_flags)
{
	if (ptr)
		kmtp_count(KMTP_KMALLOC, KMTP_REALLOC, call_site);
}

static void kmtp_kfree(void *ignore, unsigned long call_site, const void *ptr,
		       const struct kmem_cache *s)
{
	if (!ZERO_OR_NULL_PTR(ptr))
		kmtp_count(KMTP_KMALLOC, KMTP_FREE, call_site);
}

static void kmtp_kmem_cache_alloc(void *ignore, unsigned long call_site,
				  const void *ptr, struct kmem_cache *s,
				  gfp_t gfp_flags, int node)
{
	if (ptr)
		kmtp_count(KMTP_CACHE, KMTP_ALLOC, call_site);
}

static void kmtp_kmem_cache_free(void *ignore, unsigned long call_site,
				 const void *ptr, const struct kmem_cache *s)
{
	if (ptr)
		kmtp_count(KMTP_CACHE, KMTP_FREE, call_site);
}

static void kmtp_mm_page_alloc(void *ignore, struct page *page,
			       unsigned int order, gfp_t gfp_flags,
			       int migratetype)
{
	if (page)
		kmtp_count(KMTP_PAGES, KMTP_ALLOC, 0);
}

static void kmtp_mm_page_free(void *ignore, struct page *page,
			      unsigned int order)
{
	kmtp_count(KMTP_PAGES, KMTP_FREE, 0);
}

static void kmtp_mm_page_alloc_exact(void *ignore, unsigned long call_site,
				     const void *ptr, size_t size,
				     gfp_t gfp_flags)
{
	if (ptr)
		kmtp_count(KMTP_PAGES, KMTP_ALLOC, call_site);
}

static void kmtp_mm_page_free_exact(void *ignore, unsigned long call_site,
				    const void *ptr, size_t size,
				    gfp_t gfp_flags)
{
	if (ptr)
		kmtp_count(KMTP_PAGES, KMTP_FREE, call_site);
}

static void kmtp_percpu_alloc_percpu(void *ignore, unsigned long call_site,
				     bool reserved, bool is_atomic,
				     size_t size, size_t align,
				     void *base_addr, int off,
				     void __percpu *ptr, size_t bytes_alloc,
				     gfp_t gfp_flags)
{
	if (ptr)
		kmtp_count(KMTP_PERCPU, KMTP_ALLOC, call_site);
}

static void kmtp_percpu_free_percpu(void *ignore, void *base_addr, int off,
				    void __percpu *ptr)
{
	if (ptr)
		kmtp_count(KMTP_PERCPU, KMTP_FREE, 0);
}

static void kmtp_vmalloc(void *ignore, unsigned long call_site,
			 const void *ptr, size_t bytes_req, size_t bytes_alloc,
			 gfp_t gfp_flags, int node)
{
	if (ptr)
		kmtp_count(KMTP_VMALLOC, KMTP_ALLOC, call_site);
}

static void kmtp_vrealloc(void *ignore, unsigned long call_site,
			  const void *ptr, size_t bytes_req,
			  size_t bytes_alloc, gfp_t gfp_flags)
{
	if (ptr)
		kmtp_count(KMTP_VMALLOC, KMTP_REALLOC, call_site);
}

static void kmtp_vfree(void *ignore, unsigned long call_site, const void *ptr)
{
	if (ptr)
		kmtp_count(KMTP_VMALLOC, KMTP_FREE, call_site);
}

/* === Attaching =========================================================== */

struct kmtp_tp {
	struct tracepoint	*tp;
	void			*probe;
};

#define KMTP_TP(name)	{ &__tracepoint_##name, kmtp_##name }

static const struct kmtp_tp kmtp_tps[] = {
	KMTP_TP(kmalloc),
	KMTP_TP(krealloc),
	KMTP_TP(kfree),
	KMTP_TP(kmem_cache_alloc),
	KMTP_TP(kmem_cache_free),
	KMTP_TP(mm_page_alloc),
	KMTP_TP(mm_page_free),
	KMTP_TP(mm_page_alloc_exact),
	KMTP_TP(mm_page_free_exact),
	KMTP_TP(percpu_alloc_percpu),
	KMTP_TP(percpu_free_percpu),
	KMTP_TP(vmalloc),
	KMTP_TP(vrealloc),
	KMTP_TP(vfree),
};

/* The table loses the probes' types: let the compiler check them here. */
static void __maybe_unused kmtp_check_types(void)
{
	check_trace_callback_type_kmalloc(kmtp_kmalloc);
	check_trace_callback_type_krealloc(kmtp_krealloc);
	check_trace_callback_type_kfree(kmtp_kfree);
	check_trace_callback_type_kmem_cache_alloc(kmtp_kmem_cache_alloc);
	check_trace_callback_type_kmem_cache_free(kmtp_kmem_cache_free);
	check_trace_callback_type_mm_page_alloc(kmtp_mm_page_alloc);
	check_trace_callback_type_mm_page_free(kmtp_mm_page_free);
	check_trace_callback_type_mm_page_alloc_exact(kmtp_mm_page_alloc_exact);
	check_trace_callback_type_mm_page_free_exact(kmtp_mm_page_free_exact);
	check_trace_callback_type_percpu_alloc_percpu(kmtp_percpu_alloc_percpu);
	check_trace_callback_type_percpu_free_percpu(kmtp_percpu_free_percpu);
	check_trace_callback_type_vmalloc(kmtp_vmalloc);
	check_trace_callback_type_vrealloc(kmtp_vrealloc);
	check_trace_callback_type_vfree(kmtp_vfree);
}

static void kmtp_detach_first(int n)
{
	while (n--)
		tracepoint_probe_unregister(kmtp_tps[n].tp, kmtp_tps[n].probe,
					    NULL);
	tracepoint_synchronize_unregister();
}

static int kmtp_attach(void)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(kmtp_tps); i++) {
		ret = tracepoint_probe_register(kmtp_tps[i].tp,
						kmtp_tps[i].probe, NULL);
		if (ret) {
			pr_err("cannot attach to tracepoint %s: %d\n",
			       kmtp_tps[i].tp->name, ret);
			kmtp_detach_first(i);
			return ret;
		}
	}
	return 0;
}

/* === module= ============================================================= */

static void kmtp_set_text(int i, const struct module_memory *mem)
{
	WRITE_ONCE(kmtp_text[i].start, mem ? (unsigned long)mem->base : 0);
	WRITE_ONCE(kmtp_text[i].size, mem ? mem->size : 0);
}

static int kmtp_module_notify(struct notifier_block *nb, unsigned long state,
			      void *data)
{
	struct module *mod = data;

	if (strcmp(mod->name, kmtp_module))
		return NOTIFY_DONE;
	switch (state) {
	case MODULE_STATE_COMING:
		kmtp_set_text(0, &mod->mem[MOD_TEXT]);
		kmtp_set_text(1, &mod->mem[MOD_INIT_TEXT]);
		break;
	case MODULE_STATE_LIVE:
		kmtp_set_text(1, NULL);
		break;
	case MODULE_STATE_GOING:
		kmtp_set_text(0, NULL);
		kmtp_set_text(1, NULL);
		break;
	}
	return NOTIFY_OK;
}

static struct notifier_block kmtp_module_nb = {
	.notifier_call = kmtp_module_notify,
};

/* === debugfs ============================================================= */

static struct dentry *kmtp_dir;

static int kmtp_counts_show(struct seq_file *m, void *v)
{
	unsigned long sum[KMTP_TYPES][KMTP_KINDS] = { };
	int cpu, t, k;

	for_each_possible_cpu(cpu) {
		const struct kmtp_counts *c = per_cpu_ptr(&kmtp_counts, cpu);

		for (t = 0; t < KMTP_TYPES; t++)
			for (k = 0; k < KMTP_KINDS; k++)
				sum[t][k] += READ_ONCE(c->n[t][k]);
	}
	seq_puts(m, "# kmemtrace_probe counts v1\n");
	seq_printf(m, "# filter: pid %d module %s\n", READ_ONCE(kmtp_pid),
		   kmtp_module ?: "none");
	seq_puts(m, "# type allocs frees reallocs\n");
	for (t = 0; t < KMTP_TYPES; t++)
		seq_printf(m, "%s %lu %lu %lu\n", kmtp_type_names[t],
			   sum[t][KMTP_ALLOC], sum[t][KMTP_FREE],
			   sum[t][KMTP_REALLOC]);
	return 0;
}

static int kmtp_counts_open(struct inode *inode, struct file *file)
{
	return single_open(file, kmtp_counts_show, NULL);
}

static ssize_t kmtp_counts_write(struct file *file, const char __user *buf,
				 size_t count, loff_t *ppos)
{
	int cpu, t, k;

	for_each_possible_cpu(cpu) {
		struct kmtp_counts *c = per_cpu_ptr(&kmtp_counts, cpu);

		for (t = 0; t < KMTP_TYPES; t++)
			for (k = 0; k < KMTP_KINDS; k++)
				WRITE_ONCE(c->n[t][k], 0);
	}
	return count;
}

static const struct file_operations kmtp_counts_fops = {
	.owner		= THIS_MODULE,
	.open		= kmtp_counts_open,
	.read		= seq_read,
	.write		= kmtp_counts_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/* === Module ============================================================== */

static int __init kmemtrace_probe_init(void)
{
	int ret;

	if (kmtp_module) {
		ret = register_module_notifier(&kmtp_module_nb);
		if (ret)
			return ret;
	}
	ret = kmtp_attach();
	if (ret)
		goto out_notifier;
	kmtp_dir = debugfs_create_dir("kmemtrace_probe", NULL);
	debugfs_create_file("counts", 0600, kmtp_dir, NULL,
			    &kmtp_counts_fops);
	return 0;

out_notifier:
	if (kmtp_module)
		unregister_module_notifier(&kmtp_module_nb);
	return ret;
}

static void __exit kmemtrace_probe_exit(void)
{
	debugfs_remove(kmtp_dir);
	kmtp_detach_first(ARRAY_SIZE(kmtp_tps));
	if (kmtp_module)
		unregister_module_notifier(&kmtp_module_nb);
}

module_init(kmemtrace_probe_init);
module_exit(kmemtrace_probe_exit);

MODULE_DESCRIPTION("Count allocations with probes on kmemtrace's tracepoints");
MODULE_AUTHOR("kmemtrace maintainers <kmemtrace@example.org>");
MODULE_LICENSE("GPL");
