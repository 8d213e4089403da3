// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace control files in /sys/kernel/debug/kmemtrace/:
 *
 *   cpuN         per-CPU event streams (relay.c), 0400, while allocated
 *   enabled      "1" records, "0" stops; anything else is -EINVAL, 0600
 *   buffers      "allocated BYTES" or "released 0"; "allocate" and
 *                "release" (-EBUSY while recording), 0600
 *   abi_version  KMEMTRACE_ABI_VERSION of the event format, 0444
 *   dropped      events lost on all CPUs since boot, 0444
 *   stats        per-CPU events written, dropped, next sequence number
 *                and events skipped in NMI context, 0444
 *   caches       slab cache ids with their names and sizes, 0400 (like
 *                /proc/slabinfo: cache names and sizes help heap exploits)
 *   subbufs      sub-buffers per CPU (kmemtrace.subbufs), 0444
 *   subbuf_size  bytes per sub-buffer (kmemtrace.subbuf_size), 0444
 *   clock        "[local] tsc": what the events are stamped with (clock.c);
 *                "local" or "tsc" while the buffers are released, -EBUSY
 *                while allocated, -ENODEV for tsc where it is not offered,
 *                0600
 *   sample_*     sampling (sample.c)
 *
 * See Documentation/trace/kmemtrace.rst.
 */

#define pr_fmt(fmt) "kmemtrace: " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "../slab.h"
#include "kmemtrace.h"

static int enabled_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%d\n", kmemtrace_enabled());
	return 0;
}

static ssize_t enabled_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *off)
{
	unsigned int val;
	int ret;

	ret = kstrtouint_from_user(ubuf, count, 10, &val);
	if (ret == -EFAULT)
		return ret;
	if (ret || val > 1)
		return -EINVAL;

	if (val)
		ret = kmemtrace_enable();
	else
		kmemtrace_disable();
	return ret ? ret : count;
}

DEFINE_SHOW_STORE_ATTRIBUTE(enabled);

static int buffers_show(struct seq_file *m, void *v)
{
	u64 bytes = kmemtrace_buffer_bytes();

	seq_printf(m, "%s %llu\n", bytes ? "allocated" : "released", bytes);
	return 0;
}

/*
 * Which of @words a control file was written, trailing whitespace (a
 * newline) aside: its index, -EINVAL for any other, or -EFAULT.
 */
static int word_from_user(const char *const *words, size_t n,
			  const char __user *ubuf, size_t count)
{
	char buf[16];

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	strim(buf);
	return match_string(words, n, buf);
}

static ssize_t buffers_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *off)
{
	static const char *const words[] = { "allocate", "release" };
	int ret = word_from_user(words, ARRAY_SIZE(words), ubuf, count);

	if (ret >= 0)
		ret = ret ? kmemtrace_release() : kmemtrace_allocate();
	return ret ? ret : count;
}

DEFINE_SHOW_STORE_ATTRIBUTE(buffers);

static int clock_show(struct seq_file *m, void *v)
{
	bool tsc = static_key_enabled(&kmemtrace_tsc_key);

	if (!kmemtrace_tsc_usable() && !tsc)
		seq_puts(m, "[local]\n");
	else
		seq_puts(m, tsc ? "local [tsc]\n" : "[local] tsc\n");
	return 0;
}

static ssize_t clock_write(struct file *file, const char __user *ubuf,
			   size_t count, loff_t *off)
{
	int ret = word_from_user(kmemtrace_clock_names,
				 ARRAY_SIZE(kmemtrace_clock_names), ubuf, count);

	if (ret >= 0)
		ret = kmemtrace_set_clock(ret);
	return ret ? ret : count;
}

DEFINE_SHOW_STORE_ATTRIBUTE(clock);

static int abi_version_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%d\n", KMEMTRACE_ABI_VERSION);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(abi_version);

static int dropped_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%lu\n", kmemtrace_total_dropped());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(dropped);

static int stats_show(struct seq_file *m, void *v)
{
	int cpu;

	seq_puts(m, "# kmemtrace stats v2\n# cpu events dropped next_seq nmi\n");
	for_each_possible_cpu(cpu) {
		struct kmemtrace_cpu *kc = per_cpu_ptr(&kmemtrace_cpu, cpu);
		/*
		 * Events written are seq - dropped, an event the CPU is
		 * writing among them.  Dropped first, so never below zero.
		 */
		unsigned long dropped = READ_ONCE(kc->dropped);
		u64 seq = READ_ONCE(kc->seq);

		seq_printf(m, "%d %llu %lu %llu %lu\n", cpu, seq - dropped,
			   dropped, seq, READ_ONCE(kc->nmi));
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static int caches_show(struct seq_file *m, void *v)
{
	struct kmem_cache *s;

	seq_puts(m, "# kmemtrace caches v1\n# id name object_size size\n");
	mutex_lock(&slab_mutex);
	list_for_each_entry(s, &slab_caches, list)
		seq_printf(m, "%u %s %u %u\n", s->kmemtrace_id, s->name,
			   s->object_size, s->size);
	mutex_unlock(&slab_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(caches);

static int __init kmemtrace_debugfs_init(void)
{
	struct dentry *dir;
	int ret;

	dir = debugfs_create_dir("kmemtrace", NULL);
	if (IS_ERR(dir))
		return PTR_ERR(dir);

	debugfs_create_file("enabled", 0600, dir, NULL, &enabled_fops);
	debugfs_create_file("buffers", 0600, dir, NULL, &buffers_fops);
	debugfs_create_file("clock", 0600, dir, NULL, &clock_fops);
	debugfs_create_file("abi_version", 0444, dir, NULL, &abi_version_fops);
	debugfs_create_file("dropped", 0444, dir, NULL, &dropped_fops);
	debugfs_create_file("stats", 0444, dir, NULL, &stats_fops);
	debugfs_create_file("caches", 0400, dir, NULL, &caches_fops);
	debugfs_create_u32("subbufs", 0444, dir, &kmemtrace_subbufs);
	debugfs_create_u32("subbuf_size", 0444, dir, &kmemtrace_subbuf_size);
	kmemtrace_stacks_debugfs(dir);
	kmemtrace_sample_debugfs(dir);
	kmemtrace_tags_debugfs(dir);

	ret = kmemtrace_set_dir(dir);
	if (ret)
		pr_err("cannot create the cpuN files: %d\n", ret);
	return 0;
}
late_initcall(kmemtrace_debugfs_init);
