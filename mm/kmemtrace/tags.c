// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace codetags: with CONFIG_MEM_ALLOC_PROFILING, each alloc event
 * carries in its tag field the address of the struct alloc_tag that
 * alloc_hooks() made current for the allocation: the source line that
 * called the API, as /proc/allocinfo counts it.  The debugfs file "tags"
 * (0400) maps those addresses to file, line, function and module:
 *
 *   # kmemtrace tags v1
 *   # tag file:line function module [unloaded]
 *   ffffffff82b1c3a0 mm/slub.c:2423 alloc_slab_page -
 *
 * A module's tags vanish from the kernel's list when it unloads, but a
 * trace may still name them: while kmemtrace has buffers, a module
 * notifier copies the tags of each module that goes away, and the file
 * lists them after the live ones, marked "unloaded".
 */

#define pr_fmt(fmt) "kmemtrace: " fmt

#include <linux/alloc_tag.h>
#include <linux/debugfs.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kmemtrace.h"

/**
 * struct kmemtrace_gone_tag - a tag of an unloaded module
 * @list:	in kmemtrace_gone_tags
 * @tag:	the tag's address, as events carry it
 * @lineno:	its line
 * @text:	"file function module", one allocation
 */
struct kmemtrace_gone_tag {
	struct list_head	list;
	unsigned long		tag;
	unsigned int		lineno;
	char			text[];
};

static LIST_HEAD(kmemtrace_gone_tags);
static DEFINE_MUTEX(kmemtrace_tags_mutex);	/* protects kmemtrace_gone_tags */

static const char *tag_module(const struct codetag *ct)
{
	return ct->modname ?: "-";
}

static int tag_show_one(struct alloc_tag *tag, void *arg)
{
	struct seq_file *m = arg;
	const struct codetag *ct = &tag->ct;

	seq_printf(m, "%016lx %s:%u %s %s\n", (unsigned long)tag, ct->filename,
		   ct->lineno, ct->function, tag_module(ct));
	return 0;
}

static int tags_show(struct seq_file *m, void *v)
{
	struct kmemtrace_gone_tag *g;

	seq_puts(m, "# kmemtrace tags v1\n# tag file:line function module [unloaded]\n");
	alloc_tag_for_each(tag_show_one, m);
	mutex_lock(&kmemtrace_tags_mutex);
	list_for_each_entry(g, &kmemtrace_gone_tags, list) {
		const char *file = g->text;
		const char *function = file + strlen(file) + 1;
		const char *module = function + strlen(function) + 1;

		seq_printf(m, "%016lx %s:%u %s %s unloaded\n", g->tag, file,
			   g->lineno, function, module);
	}
	mutex_unlock(&kmemtrace_tags_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tags);

/**
 * kmemtrace_tags_forget() - drop the copied tags of unloaded modules
 *
 * When the buffers are released: no trace read from now on names them.
 *
 * Context: Process context, may sleep.
 */
void kmemtrace_tags_forget(void)
{
	struct kmemtrace_gone_tag *g, *tmp;

	mutex_lock(&kmemtrace_tags_mutex);
	list_for_each_entry_safe(g, tmp, &kmemtrace_gone_tags, list) {
		list_del(&g->list);
		kfree(g);
	}
	mutex_unlock(&kmemtrace_tags_mutex);
}

#ifdef CONFIG_MODULES
static int tag_copy_one(struct alloc_tag *tag, void *arg)
{
	const struct module *mod = arg;
	const struct codetag *ct = &tag->ct;
	struct kmemtrace_gone_tag *g;
	size_t lf, lfn, lm;

	if (!ct->modname || strcmp(ct->modname, mod->name))
		return 0;
	lf = strlen(ct->filename) + 1;
	lfn = strlen(ct->function) + 1;
	lm = strlen(ct->modname) + 1;
	g = kmalloc(struct_size(g, text, lf + lfn + lm), GFP_KERNEL);
	if (!g) {
		pr_warn("no memory to keep the tags of module %s: its events will not resolve\n",
			mod->name);
		return -ENOMEM;
	}
	g->tag = (unsigned long)tag;
	g->lineno = ct->lineno;
	memcpy(g->text, ct->filename, lf);
	memcpy(g->text + lf, ct->function, lfn);
	memcpy(g->text + lf + lfn, ct->modname, lm);
	mutex_lock(&kmemtrace_tags_mutex);
	list_add_tail(&g->list, &kmemtrace_gone_tags);
	mutex_unlock(&kmemtrace_tags_mutex);
	return 0;
}

static int kmemtrace_module_notify(struct notifier_block *nb,
				   unsigned long state, void *data)
{
	/* No buffers, no trace that could name the module's tags. */
	if (state == MODULE_STATE_GOING && kmemtrace_relay_allocated())
		alloc_tag_for_each(tag_copy_one, data);
	return NOTIFY_DONE;
}

static struct notifier_block kmemtrace_module_nb = {
	.notifier_call = kmemtrace_module_notify,
};
#endif

/**
 * kmemtrace_tags_debugfs() - create the tags file, watch module unloads
 * @dir: /sys/kernel/debug/kmemtrace
 */
void __init kmemtrace_tags_debugfs(struct dentry *dir)
{
	debugfs_create_file("tags", 0400, dir, NULL, &tags_fops);
#ifdef CONFIG_MODULES
	register_module_notifier(&kmemtrace_module_nb);
#endif
}
