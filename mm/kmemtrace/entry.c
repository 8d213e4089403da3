// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace: the allocator entry points' scopes, opened from __fentry__.
 *
 * An API function such as alloc_pages() names its caller in the events
 * of the page allocator below it, and a large kmalloc() suppresses the
 * page events of its pages, by running inside a scope (scope.c).  The
 * function opens none itself: it has an out-of-line copy of the same
 * type that opens the scope and calls it again, and KMEMTRACE_ENTRY()
 * puts the pair in vmlinux's __kmemtrace_entries table.  While kmemtrace
 * records, one ftrace_ops on the entry points' __fentry__ calls hands a
 * call to its copy when the scope lacks what the copy adds, by changing
 * the instruction pointer the call returns to, as livepatch hands a
 * function to its replacement; the copy's own call finds the scope open
 * and goes on.  While kmemtrace is off the ops is not registered: the
 * entry points run the instructions they run without kmemtrace, the
 * __fentry__ no-op every traceable function has.
 *
 * Two ops, as there are two keys: the entries that name callers are
 * hooked while kmemtrace_name_key is on, not while a recording samples
 * (a sample is named from its stack); those that add flags whenever
 * kmemtrace records.  Another IPMODIFY user of the same function (a
 * livepatch of it) makes recording fail to start, with -EBUSY.
 *
 * See Documentation/trace/kmemtrace.rst, Scopes.
 */

#include <linux/bug.h>
#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/printk.h>

#include "kmemtrace.h"

extern const struct kmemtrace_entry __start___kmemtrace_entries[];
extern const struct kmemtrace_entry __stop___kmemtrace_entries[];

/* Open addressing, at most half full: a lookup probes one slot or two. */
#define KMEMTRACE_ENTRY_BITS	7
static_assert(KMEMTRACE_ENTRY_MAX <= 1U << (KMEMTRACE_ENTRY_BITS - 1));

struct kmemtrace_entry_slot {
	unsigned long			ip;
	const struct kmemtrace_entry	*entry;
};

static struct kmemtrace_entry_slot
kmemtrace_entry_slots[1U << KMEMTRACE_ENTRY_BITS] __read_mostly;

/* The __fentry__ call sites, for the ops' filters. */
static unsigned long kmemtrace_named_ips[KMEMTRACE_ENTRY_MAX] __initdata;
static unsigned long kmemtrace_flagged_ips[KMEMTRACE_ENTRY_MAX] __initdata;
static unsigned int kmemtrace_entries_hooked[2];
static unsigned int kmemtrace_entries_missing;

static __always_inline const struct kmemtrace_entry *
kmemtrace_entry_find(unsigned long ip)
{
	unsigned int i = hash_long(ip, KMEMTRACE_ENTRY_BITS);

	for (;;) {
		const struct kmemtrace_entry_slot *slot = &kmemtrace_entry_slots[i];

		if (slot->ip == ip)
			return slot->entry;
		if (!slot->ip)
			return NULL;
		i = (i + 1) & (ARRAY_SIZE(kmemtrace_entry_slots) - 1);
	}
}

/*
 * Both handlers run at an entry point's first instruction, in its
 * context, and call nothing: no recursion to guard against
 * (FTRACE_OPS_FL_RECURSION), nothing that needs RCU.
 */
static void kmemtrace_named_entry(unsigned long ip, unsigned long parent_ip,
				  struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	const struct kmemtrace_entry *entry;

	/* Most calls are inside another API call's scope: test that first. */
	if (!kmemtrace_api_unnamed())
		return;
	entry = kmemtrace_entry_find(ip);
	if (likely(entry))
		ftrace_regs_set_instruction_pointer(fregs, (unsigned long)entry->copy);
}

static void kmemtrace_flagged_entry(unsigned long ip, unsigned long parent_ip,
				    struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	const struct kmemtrace_entry *entry = kmemtrace_entry_find(ip);

	if (likely(entry) && kmemtrace_scope_lacks(entry->flags))
		ftrace_regs_set_instruction_pointer(fregs, (unsigned long)entry->copy);
}

#ifdef CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS
#define KMEMTRACE_ENTRY_OPS_FLAGS	(FTRACE_OPS_FL_IPMODIFY |		\
					 FTRACE_OPS_FL_RECURSION |		\
					 FTRACE_OPS_FL_PERMANENT)
#else
#define KMEMTRACE_ENTRY_OPS_FLAGS	(FTRACE_OPS_FL_IPMODIFY |		\
					 FTRACE_OPS_FL_RECURSION |		\
					 FTRACE_OPS_FL_PERMANENT |		\
					 FTRACE_OPS_FL_SAVE_REGS)
#endif

static struct ftrace_ops kmemtrace_entry_ops[2] = {
	{ .func = kmemtrace_named_entry, .flags = KMEMTRACE_ENTRY_OPS_FLAGS },
	{ .func = kmemtrace_flagged_entry, .flags = KMEMTRACE_ENTRY_OPS_FLAGS },
};

static bool kmemtrace_entry_ops_on[2];

/**
 * kmemtrace_entries_attach() - hand entry points' calls to their copies
 * @which: KMEMTRACE_ENTRIES_NAMED or KMEMTRACE_ENTRIES_FLAGGED
 *
 * Context: Process context, kmemtrace_mutex held; may sleep.
 * Return: 0, or the error of registering the ftrace_ops (-EBUSY if
 * another IPMODIFY ftrace_ops, a livepatch, holds one of the functions).
 */
int kmemtrace_entries_attach(unsigned int which)
{
	int ret;

	if (kmemtrace_entry_ops_on[which] || !kmemtrace_entries_hooked[which])
		return 0;
	ret = register_ftrace_function(&kmemtrace_entry_ops[which]);
	if (ret) {
		pr_warn("kmemtrace: cannot hook the allocator entry points: %d\n", ret);
		return ret;
	}
	kmemtrace_entry_ops_on[which] = true;
	return 0;
}

/**
 * kmemtrace_entries_detach() - let entry points run as without kmemtrace
 * @which: KMEMTRACE_ENTRIES_NAMED or KMEMTRACE_ENTRIES_FLAGGED
 *
 * A call handed over already runs its copy to its end, in its own scope.
 *
 * Context: Process context, kmemtrace_mutex held; may sleep.
 */
void kmemtrace_entries_detach(unsigned int which)
{
	if (!kmemtrace_entry_ops_on[which])
		return;
	WARN_ON_ONCE(unregister_ftrace_function(&kmemtrace_entry_ops[which]));
	kmemtrace_entry_ops_on[which] = false;
}

/**
 * kmemtrace_entries_missing_count() - entry points ftrace cannot hook
 *
 * An entry point GCC inlined, or one in code built without __fentry__,
 * has no call site to hook: its events would name the wrong caller.  The
 * tests require none.
 *
 * Return: how many KMEMTRACE_ENTRY() functions have no __fentry__ site.
 */
unsigned int kmemtrace_entries_missing_count(void)
{
	return kmemtrace_entries_missing;
}

/**
 * kmemtrace_entries() - the KMEMTRACE_ENTRY() table
 * @nr: set to the number of entries
 *
 * Return: the first entry.  Only the first KMEMTRACE_ENTRY_MAX are hooked.
 */
const struct kmemtrace_entry *kmemtrace_entries(size_t *nr)
{
	*nr = __stop___kmemtrace_entries - __start___kmemtrace_entries;
	return __start___kmemtrace_entries;
}

/* Called once from kmemtrace_init(), before anything records. */
int __init kmemtrace_entries_init(void)
{
	const struct kmemtrace_entry *entry;
	unsigned int which, n = 0;
	int ret;

	for (entry = __start___kmemtrace_entries;
	     entry < __stop___kmemtrace_entries; entry++) {
		unsigned long ip = ftrace_location((unsigned long)entry->func);
		unsigned int i;

		if (!ip || n == KMEMTRACE_ENTRY_MAX) {
			pr_warn("kmemtrace: cannot hook %ps: its callers go unnamed\n",
				entry->func);
			kmemtrace_entries_missing++;
			continue;
		}
		i = hash_long(ip, KMEMTRACE_ENTRY_BITS);
		while (kmemtrace_entry_slots[i].ip)
			i = (i + 1) & (ARRAY_SIZE(kmemtrace_entry_slots) - 1);
		kmemtrace_entry_slots[i].ip = ip;
		kmemtrace_entry_slots[i].entry = entry;
		n++;
		which = entry->flags ? KMEMTRACE_ENTRIES_FLAGGED : KMEMTRACE_ENTRIES_NAMED;
		(which ? kmemtrace_flagged_ips : kmemtrace_named_ips)
			[kmemtrace_entries_hooked[which]++] = ip;
	}
	for (which = 0; which < ARRAY_SIZE(kmemtrace_entry_ops); which++) {
		if (!kmemtrace_entries_hooked[which])
			continue;
		ret = ftrace_set_filter_ips(&kmemtrace_entry_ops[which],
					    which ? kmemtrace_flagged_ips : kmemtrace_named_ips,
					    kmemtrace_entries_hooked[which], 0, 1);
		if (ret) {
			pr_warn("kmemtrace: cannot filter the allocator entry points: %d\n",
				ret);
			kmemtrace_entries_missing += kmemtrace_entries_hooked[which];
			kmemtrace_entries_hooked[which] = 0;
		}
	}
	return 0;
}
