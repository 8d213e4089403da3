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
 * the address the __fentry__ call returns to, as livepatch hands a
 * function to its replacement; the copy's own call finds the scope open
 * and goes on.  On x86-64 the __fentry__ calls go straight to a small
 * trampoline of ours (a direct ftrace_ops); elsewhere through ftrace's
 * own, to a handler (an IPMODIFY ftrace_ops).  While kmemtrace is off the
 * ops is not registered: the entry points run the instructions they run
 * without kmemtrace, the __fentry__ no-op every traceable function has.
 *
 * Two kinds, named and flagged: the entries that name callers are hooked
 * while kmemtrace_name_key is on, those that add flags whenever kmemtrace
 * records, but while a recording samples neither: a sample is named from
 * its stack, and finds the flagged entry points there (stacks.c,
 * kmemtrace_stack_scoped()).  Another IPMODIFY or direct user of the same
 * function (a livepatch of it, a BPF trampoline) makes recording fail to
 * start, with -EBUSY; while kmemtrace records, such a user cannot attach.
 *
 * See Documentation/trace/kmemtrace.rst, Scopes.
 */

#include <linux/bug.h>
#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/printk.h>
#include <linux/stringify.h>

#include "kmemtrace.h"

/* Open addressing, at most half full: a lookup probes one slot or two. */
#define KMEMTRACE_ENTRY_BITS	7
static_assert(KMEMTRACE_ENTRY_MAX <= 1U << (KMEMTRACE_ENTRY_BITS - 1));

struct kmemtrace_entry_slot {
	unsigned long			ip;
	const struct kmemtrace_entry	*entry;
};

static struct kmemtrace_entry_slot
kmemtrace_entry_slots[1U << KMEMTRACE_ENTRY_BITS] __read_mostly;

/*
 * The ftrace_ops: KMEMTRACE_ENTRIES_NAMED's, KMEMTRACE_ENTRIES_FLAGGED's
 * and a second for the flagged entry points that suppress page events,
 * whose x86-64 trampoline knows their flag (below).
 */
#define KMEMTRACE_OPS_SUPPRESS	2
#define KMEMTRACE_NR_OPS	3

/* The __fentry__ call sites of each ops, for its filter. */
static unsigned long kmemtrace_entry_ips[KMEMTRACE_NR_OPS][KMEMTRACE_ENTRY_MAX] __initdata;
static unsigned int kmemtrace_entries_hooked[KMEMTRACE_NR_OPS];
static unsigned int kmemtrace_entries_missing;

/*
 * The slot a lookup of @ip starts at: hash_64_generic(), which the x86-64
 * trampolines compute too (below), whatever hash_long() is.
 */
static __always_inline unsigned int kmemtrace_entry_hash(unsigned long ip)
{
	return hash_64_generic(ip, KMEMTRACE_ENTRY_BITS);
}

static __always_inline const struct kmemtrace_entry *
kmemtrace_entry_find(unsigned long ip)
{
	unsigned int i = kmemtrace_entry_hash(ip);

	for (;;) {
		const struct kmemtrace_entry_slot *slot = &kmemtrace_entry_slots[i];

		if (slot->ip == ip)
			return slot->entry;
		if (!slot->ip)
			return NULL;
		i = (i + 1) & (ARRAY_SIZE(kmemtrace_entry_slots) - 1);
	}
}

/* Whether the call at @ip, an entry point's __fentry__, goes to a copy. */
static __always_inline unsigned long kmemtrace_named_copy(unsigned long ip)
{
	const struct kmemtrace_entry *entry;

	/* Most calls are inside another API call's scope: test that first. */
	if (!kmemtrace_api_unnamed())
		return 0;
	entry = kmemtrace_entry_find(ip);
	return likely(entry) ? (unsigned long)entry->copy : 0;
}

static __always_inline unsigned long kmemtrace_flagged_copy(unsigned long ip)
{
	const struct kmemtrace_entry *entry = kmemtrace_entry_find(ip);

	if (likely(entry) && kmemtrace_scope_lacks(entry->flags))
		return (unsigned long)entry->copy;
	return 0;
}

#if defined(CONFIG_X86_64) && defined(CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS)
/*
 * On x86-64, each entry point's __fentry__ calls a trampoline of our own
 * (register_ftrace_direct()), not ftrace's, which saves every register
 * and calls a handler through the ftrace_ops: half the instructions on
 * every call of an entry point while kmemtrace records.  The trampoline
 * is entered with the return address into the function on the top of
 * the stack, the function's own return address below it and its
 * arguments in registers (no entry point takes a variable argument
 * list); it keeps the arguments around the C test, and hands the call
 * over by returning into the copy instead of the function, as ftrace's
 * own trampoline does for an IPMODIFY ftrace_ops.
 */
#include <asm/asm-offsets.h>
#include <asm/current.h>
#include <asm/ibt.h>
#include <asm/nospec-branch.h>
#include <asm/percpu.h>

/* @ret: the return address of the __fentry__ call. */
unsigned long kmemtrace_named_direct(unsigned long ret)
{
	return kmemtrace_named_copy(ret - MCOUNT_INSN_SIZE);
}

unsigned long kmemtrace_flagged_direct(unsigned long ret)
{
	return kmemtrace_flagged_copy(ret - MCOUNT_INSN_SIZE);
}

/*
 * Most calls of an entry point that names its caller come inside a scope
 * that named one already: the copy's own call of the function, and every
 * API call below an outer one (four of the six passes of an
 * alloc_pages()/__free_pages() pair).  The named trampoline tests that
 * first, for task context, before it saves a register or sets up a frame
 * (task context needs none: it reads and rewrites the return address on
 * the top of the stack, and returns): what kmemtrace_named_copy() tests
 * first, in eight instructions instead of some thirty.  The other calls
 * in task context, those handed to the copy, find their entry in
 * kmemtrace_entry_slots[] in assembly too, as kmemtrace_entry_find()
 * does (some seventeen instructions instead of some fifty for the six
 * saved registers and the C test); only interrupt contexts take the C
 * test.  The scope is one word, the caller in its low 56 bits and the
 * flags in the top 8 (struct kmemtrace_scope); the assembly clobbers
 * %rax, %r10 and %r11, which carry no argument of an entry point (none
 * takes a variable argument list) and which the C test's call clobbers
 * too.  The constants it needs, as symbols of this file's assembly:
 */
static void __used kmemtrace_trampoline_consts(void)
{
	compiletime_assert(((union { struct kmemtrace_scope s; u64 v; })
			    { .s = { .flags = KMEMTRACE_SCOPE_SUPPRESS } }).v ==
			   (u64)KMEMTRACE_SCOPE_SUPPRESS << 56,
			   "the trampoline reads the scope's flags as its top byte");
	compiletime_assert(sizeof(struct kmemtrace_entry_slot) == 1 << 4,
			   "the trampoline indexes the slots by a shift of 4");
	compiletime_assert(offsetof(struct kmemtrace_entry_slot, entry) == 8,
			   "the trampoline reads a slot's entry at +8");
	compiletime_assert(offsetof(struct static_key_false, key.enabled) == 0,
			   "the trampoline reads a key's enabled count at its address");
	compiletime_assert(sizeof_field(struct kmemtrace_entry, flags) == 4,
			   "the trampoline reads an entry's flags as 32 bits");
	/* A 64-bit constant is no "i" operand: the same, written out. */
	compiletime_assert(GOLDEN_RATIO_64 == 0x61c8864680b583ebULL,
			   "the trampoline hashes as hash_64_generic()");
	asm volatile(".set kmemtrace_task_scope, %c0\n"
		     ".set kmemtrace_preempt_count, %c1\n"
		     ".set kmemtrace_not_task, %c2\n"
		     ".set kmemtrace_suppress_bit, %c3\n"
		     ".set kmemtrace_hash_mult, 0x61c8864680b583eb\n"
		     ".set kmemtrace_hash_shift, %c4\n"
		     ".set kmemtrace_slots_mask, %c5\n"
		     ".set kmemtrace_entry_copy, %c6\n"
		     ".set kmemtrace_entry_flags, %c7\n"
		     ".set kmemtrace_fentry_size, %c8\n"
		     : : "i" (offsetof(struct task_struct, kmemtrace_scope)),
		     "i" (offsetof(struct pcpu_hot, preempt_count)),
		     "i" (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_OFFSET),
		     "i" (56 + ilog2(KMEMTRACE_SCOPE_SUPPRESS)),
		     "i" (64 - KMEMTRACE_ENTRY_BITS),
		     "i" (sizeof(kmemtrace_entry_slots) - 1),
		     "i" (offsetof(struct kmemtrace_entry, copy)),
		     "i" (offsetof(struct kmemtrace_entry, flags)),
		     "i" (MCOUNT_INSN_SIZE));
}

/*
 * The first test of every fast path: not a task's, on to 2f (the C
 * test); else the scope word in %rax.
 */
#define KMEMTRACE_TASK_SCOPE						\
	"	testl $kmemtrace_not_task, "				\
	__stringify(PER_CPU_VAR(pcpu_hot + kmemtrace_preempt_count)) "\n" \
	"	jnz 2f\n"						\
	"	movq " __stringify(PER_CPU_VAR(pcpu_hot + X86_current_task)) \
	", %rax\n"							\
	"	movq kmemtrace_task_scope(%rax), %rax\n"

/* A scope that suppresses page events: on to 1f (the function as it is). */
#define KMEMTRACE_SUPPRESSED						\
	"	btq $kmemtrace_suppress_bit, %rax\n"			\
	"	jc 1f\n"

/* While static key @key is off, on to 1f (its enabled count, above 0). */
#define KMEMTRACE_KEY_ON(key)						\
	"	cmpl $0, " #key "\n"					\
	"	jle 1f\n"

/*
 * kmemtrace_entry_find() of the function the __fentry__ call returns
 * into: its entry in %r10, else on to 1f.
 */
#define KMEMTRACE_ENTRY_FIND						\
	"	movq (%rsp), %r11\n"					\
	"	subq $kmemtrace_fentry_size, %r11\n"			\
	"	movabsq $kmemtrace_hash_mult, %r10\n"			\
	"	imulq %r11, %r10\n"					\
	"	shrq $kmemtrace_hash_shift, %r10\n"			\
	"	shlq $4, %r10\n"					\
	"3:	cmpq %r11, kmemtrace_entry_slots(%r10)\n"		\
	"	je 4f\n"						\
	"	cmpq $0, kmemtrace_entry_slots(%r10)\n"			\
	"	je 1f\n"						\
	"	addq $16, %r10\n"					\
	"	andl $kmemtrace_slots_mask, %r10d\n"			\
	"	jmp 3b\n"						\
	"4:	movq kmemtrace_entry_slots+8(%r10), %r10\n"

/* If the scope in %rax has every flag of entry %r10, on to 1f. */
#define KMEMTRACE_FLAGS_LACKED						\
	"	shrq $56, %rax\n"					\
	"	movl kmemtrace_entry_flags(%r10), %r11d\n"		\
	"	andl %r11d, %eax\n"					\
	"	cmpl %r11d, %eax\n"					\
	"	je 1f\n"

/* Return into entry %r10's copy instead of the function. */
#define KMEMTRACE_TO_COPY						\
	"	movq kmemtrace_entry_copy(%r10), %rax\n"		\
	"	movq %rax, (%rsp)\n"					\
	"	jmp 1f\n"						\
	"2:\n"

/*
 * The named trampoline: in a task, as kmemtrace_named_copy(): on to the
 * function if the scope suppresses page events or named a caller (the
 * scope's low 56 bits), or if the name key is off; else to its copy.
 */
#define KMEMTRACE_NAMED_FAST						\
	KMEMTRACE_TASK_SCOPE						\
	KMEMTRACE_SUPPRESSED						\
	"	shlq $8, %rax\n"					\
	"	jnz 1f\n"						\
	KMEMTRACE_KEY_ON(kmemtrace_name_key)				\
	KMEMTRACE_ENTRY_FIND						\
	KMEMTRACE_TO_COPY

/*
 * The flagged trampoline: in a task, as kmemtrace_flagged_copy(): to the
 * copy while the scope key is on and the scope lacks a flag of the entry.
 */
#define KMEMTRACE_FLAGGED_FAST						\
	"	# a flagged entry point\n"				\
	KMEMTRACE_TASK_SCOPE						\
	KMEMTRACE_KEY_ON(kmemtrace_scope_key)				\
	KMEMTRACE_ENTRY_FIND						\
	KMEMTRACE_FLAGS_LACKED						\
	KMEMTRACE_TO_COPY

/*
 * The large kmalloc()'s entry points, which suppress the page events
 * below them, have a trampoline of their own, which tests that flag as
 * the named one tests for a caller: their copies' own calls go on in
 * six instructions, before the lookup of the entry.
 */
#define KMEMTRACE_SUPPRESS_FAST						\
	"	# a large kmalloc()'s entry point\n"			\
	KMEMTRACE_TASK_SCOPE						\
	KMEMTRACE_SUPPRESSED						\
	KMEMTRACE_KEY_ON(kmemtrace_scope_key)				\
	KMEMTRACE_ENTRY_FIND						\
	KMEMTRACE_TO_COPY

/*
 * A trampoline: @fast's task paths leave through 1f without a frame, the
 * C test (@test, at 2f) sets one up and keeps the argument registers
 * around its call.
 */
#define KMEMTRACE_TRAMPOLINE(name, test, fast)				\
	asm(".pushsection .text, \"ax\", @progbits\n"		\
	    ".type " #name ", @function\n"				\
	    ".globl " #name "\n"					\
	    #name ":\n"						\
	    ASM_ENDBR							\
	    CALL_DEPTH_ACCOUNT						\
	    fast							\
	    "	pushq %rbp\n"						\
	    "	movq %rsp, %rbp\n"					\
	    "	pushq %rdi\n"						\
	    "	pushq %rsi\n"						\
	    "	pushq %rdx\n"						\
	    "	pushq %rcx\n"						\
	    "	pushq %r8\n"						\
	    "	pushq %r9\n"						\
	    "	movq 8(%rbp), %rdi\n"					\
	    "	call " #test "\n"					\
	    "	popq %r9\n"						\
	    "	popq %r8\n"						\
	    "	popq %rcx\n"						\
	    "	popq %rdx\n"						\
	    "	popq %rsi\n"						\
	    "	popq %rdi\n"						\
	    "	testq %rax, %rax\n"					\
	    "	jz 5f\n"						\
	    "	movq %rax, 8(%rbp)\n"					\
	    "5:	leave\n"						\
	    "1:\n"							\
	    ASM_RET							\
	    ".size " #name ", .-" #name "\n"				\
	    ".popsection\n")

KMEMTRACE_TRAMPOLINE(kmemtrace_named_trampoline, kmemtrace_named_direct,
		     KMEMTRACE_NAMED_FAST);
KMEMTRACE_TRAMPOLINE(kmemtrace_flagged_trampoline, kmemtrace_flagged_direct,
		     KMEMTRACE_FLAGGED_FAST);
KMEMTRACE_TRAMPOLINE(kmemtrace_suppress_trampoline, kmemtrace_flagged_direct,
		     KMEMTRACE_SUPPRESS_FAST);

static struct ftrace_ops kmemtrace_entry_ops[KMEMTRACE_NR_OPS];

static const unsigned long kmemtrace_trampolines[KMEMTRACE_NR_OPS] = {
	(unsigned long)kmemtrace_named_trampoline,
	(unsigned long)kmemtrace_flagged_trampoline,
	(unsigned long)kmemtrace_suppress_trampoline,
};

static int kmemtrace_entry_ops_register(unsigned int which)
{
	return register_ftrace_direct(&kmemtrace_entry_ops[which],
				      kmemtrace_trampolines[which]);
}

static int kmemtrace_entry_ops_unregister(unsigned int which)
{
	return unregister_ftrace_direct(&kmemtrace_entry_ops[which],
					kmemtrace_trampolines[which], false);
}

#else /* !(CONFIG_X86_64 && CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS) */

/*
 * Elsewhere, an ftrace_ops with IPMODIFY.  The handlers run at an entry
 * point's first instruction, in its context, and call nothing: no
 * recursion to guard against (FTRACE_OPS_FL_RECURSION), nothing that
 * needs RCU.
 */
static void kmemtrace_named_entry(unsigned long ip, unsigned long parent_ip,
				  struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	unsigned long copy = kmemtrace_named_copy(ip);

	if (copy)
		ftrace_regs_set_instruction_pointer(fregs, copy);
}

static void kmemtrace_flagged_entry(unsigned long ip, unsigned long parent_ip,
				    struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	unsigned long copy = kmemtrace_flagged_copy(ip);

	if (copy)
		ftrace_regs_set_instruction_pointer(fregs, copy);
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

static struct ftrace_ops kmemtrace_entry_ops[KMEMTRACE_NR_OPS] = {
	{ .func = kmemtrace_named_entry, .flags = KMEMTRACE_ENTRY_OPS_FLAGS },
	{ .func = kmemtrace_flagged_entry, .flags = KMEMTRACE_ENTRY_OPS_FLAGS },
	{ .func = kmemtrace_flagged_entry, .flags = KMEMTRACE_ENTRY_OPS_FLAGS },
};

static int kmemtrace_entry_ops_register(unsigned int which)
{
	return register_ftrace_function(&kmemtrace_entry_ops[which]);
}

static int kmemtrace_entry_ops_unregister(unsigned int which)
{
	return unregister_ftrace_function(&kmemtrace_entry_ops[which]);
}

#endif

static bool kmemtrace_entry_ops_on[KMEMTRACE_NR_OPS];

static int kmemtrace_ops_attach(unsigned int ops)
{
	int ret;

	if (kmemtrace_entry_ops_on[ops] || !kmemtrace_entries_hooked[ops])
		return 0;
	ret = kmemtrace_entry_ops_register(ops);
	if (ret) {
		pr_warn("kmemtrace: cannot hook the allocator entry points: %d\n", ret);
		return ret;
	}
	kmemtrace_entry_ops_on[ops] = true;
	return 0;
}

static void kmemtrace_ops_detach(unsigned int ops)
{
	if (!kmemtrace_entry_ops_on[ops])
		return;
	WARN_ON_ONCE(kmemtrace_entry_ops_unregister(ops));
	kmemtrace_entry_ops_on[ops] = false;
}

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
	int ret = kmemtrace_ops_attach(which);

	if (ret || which != KMEMTRACE_ENTRIES_FLAGGED)
		return ret;
	ret = kmemtrace_ops_attach(KMEMTRACE_OPS_SUPPRESS);
	if (ret)
		kmemtrace_ops_detach(which);
	return ret;
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
	kmemtrace_ops_detach(which);
	if (which == KMEMTRACE_ENTRIES_FLAGGED)
		kmemtrace_ops_detach(KMEMTRACE_OPS_SUPPRESS);
}

#if IS_ENABLED(CONFIG_KMEMTRACE_KUNIT_TEST)
/* For the tests: how many of the ftrace_ops are registered. */
unsigned int kmemtrace_entries_attached(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < KMEMTRACE_NR_OPS; i++)
		n += kmemtrace_entry_ops_on[i];
	return n;
}
#endif

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

/* Which kind @entry is: KMEMTRACE_ENTRIES_NAMED or _FLAGGED. */
static unsigned int __init kmemtrace_entry_kind(const struct kmemtrace_entry *entry)
{
	return entry->flags ? KMEMTRACE_ENTRIES_FLAGGED : KMEMTRACE_ENTRIES_NAMED;
}

/* Which ops hooks @entry: its kind's, or KMEMTRACE_OPS_SUPPRESS. */
static unsigned int __init kmemtrace_entry_ops_of(const struct kmemtrace_entry *entry)
{
	if (entry->flags == KMEMTRACE_SCOPE_SUPPRESS)
		return KMEMTRACE_OPS_SUPPRESS;
	return kmemtrace_entry_kind(entry);
}

/**
 * kmemtrace_entries_for_each() - walk the entry points of one kind
 * @which: KMEMTRACE_ENTRIES_NAMED or KMEMTRACE_ENTRIES_FLAGGED
 * @fn: called with each entry point's table entry
 *
 * Only those with a __fentry__ site: the others run unhooked, and
 * kmemtrace_entries_missing_count() counts them.
 *
 * Context: Init, after kmemtrace_entries_init().
 */
void __init kmemtrace_entries_for_each(unsigned int which,
				       void (*fn)(const struct kmemtrace_entry *entry))
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kmemtrace_entry_slots); i++) {
		const struct kmemtrace_entry *entry = kmemtrace_entry_slots[i].entry;

		if (entry && kmemtrace_entry_kind(entry) == which)
			fn(entry);
	}
}

/* Called once from kmemtrace_init(), before anything records. */
void __init kmemtrace_entries_init(void)
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
		i = kmemtrace_entry_hash(ip);
		while (kmemtrace_entry_slots[i].ip)
			i = (i + 1) & (ARRAY_SIZE(kmemtrace_entry_slots) - 1);
		kmemtrace_entry_slots[i].ip = ip;
		kmemtrace_entry_slots[i].entry = entry;
		n++;
		which = kmemtrace_entry_ops_of(entry);
		kmemtrace_entry_ips[which][kmemtrace_entries_hooked[which]++] = ip;
	}
	for (which = 0; which < ARRAY_SIZE(kmemtrace_entry_ops); which++) {
		if (!kmemtrace_entries_hooked[which])
			continue;
		ret = ftrace_set_filter_ips(&kmemtrace_entry_ops[which],
					    kmemtrace_entry_ips[which],
					    kmemtrace_entries_hooked[which], 0, 1);
		if (ret) {
			pr_warn("kmemtrace: cannot filter the allocator entry points: %d\n",
				ret);
			kmemtrace_entries_missing += kmemtrace_entries_hooked[which];
			kmemtrace_entries_hooked[which] = 0;
		}
	}
}
