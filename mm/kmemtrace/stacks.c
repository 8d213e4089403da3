// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace stack traces: the kernel stack of a sample of the events, as
 * a stack depot handle in the event's stack_id.
 *
 * The probes run inside the allocators with interrupts off, so they save
 * stacks without letting the depot allocate: when its pools are full the
 * event is flagged KMEMTRACE_FLAG_STACK_LOST and a work item gives the
 * depot a new pool from process context.  Every handle put into an event
 * is also entered, lock-free, into a table that the debugfs file "stacks"
 * lists with the frames, so that a reader resolves exactly the handles it
 * got and never has to pass one back to the kernel.
 *
 * Files in /sys/kernel/debug/kmemtrace:
 *   stack_sample  one alloc event in N per CPU gets a stack; 0: none, 0600
 *   stack_frees   "1": frees get stacks too, "0": allocs only, 0600
 *   stacks        every stack in the table, with its frames, 0400
 */

#define pr_fmt(fmt) "kmemtrace: " fmt

#include <linux/bits.h>
#include <linux/debugfs.h>
#include <linux/hash.h>
#include <linux/irq_work.h>
#include <linux/kallsyms.h>
#include <linux/moduleparam.h>
#include <linux/ptrace.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/stackdepot.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <asm/sections.h>
#ifdef CONFIG_UNWINDER_ORC
#include <asm/unwind.h>
#endif
#include "kmemtrace.h"

/* Frames saved per stack, kmemtrace's own included (see stack_trim()). */
#define KMEMTRACE_STACK_DEPTH	32
/* Handles the table lists: 64 KiB, allocated when stacks are first on. */
#define KMEMTRACE_STACK_TABLE	BIT(14)
/* Slots tried from a handle's hash before it counts as unlisted. */
#define KMEMTRACE_STACK_PROBES	32

DEFINE_STATIC_KEY_FALSE(kmemtrace_stack_key);
/* Per CPU: events left before the next one sampled (kmemtrace_stack()). */
DEFINE_PER_CPU(unsigned int, kmemtrace_stack_countdown);
bool kmemtrace_stack_frees;

static DEFINE_MUTEX(kmemtrace_stack_mutex);	/* serialises the settings */
static unsigned int kmemtrace_stack_sample;
static u32 *kmemtrace_stack_table;

#ifdef CONFIG_X86_64
/* Per CPU: where this context's stacks start, kmemtrace_stack_from_enter(). */
DEFINE_PER_CPU(unsigned long, kmemtrace_stack_from);
#endif

/* Per CPU: the counters the stacks file sums. */
struct kmemtrace_stack_cpu {
	unsigned long	captured;
	unsigned long	lost;
	unsigned long	unlisted;
};

static DEFINE_PER_CPU(struct kmemtrace_stack_cpu, kmemtrace_stack_cpu);

static void kmemtrace_stack_refill(struct work_struct *work);
static DECLARE_WORK(kmemtrace_stack_refill_work, kmemtrace_stack_refill);

static void kmemtrace_stack_kick(struct irq_work *work)
{
	queue_work(system_unbound_wq, &kmemtrace_stack_refill_work);
}

static DEFINE_IRQ_WORK(kmemtrace_stack_irq_work, kmemtrace_stack_kick);

/*
 * Give the depot a spare pool.  It allocates one only while saving a
 * stack it does not hold yet, so save a made-up one that no real stack
 * matches: two words, this function and a number that grows.  Pages the
 * depot takes here are kmemtrace's, not the traced code's: no event.
 */
static void kmemtrace_stack_refill(struct work_struct *work)
{
	static atomic_long_t refills;
	unsigned long entries[2] = {
		(unsigned long)kmemtrace_stack_refill,
		atomic_long_inc_return(&refills),
	};

	kmemtrace_scoped(0, KMEMTRACE_SCOPE_SUPPRESS)
		stack_depot_save_flags(entries, ARRAY_SIZE(entries), GFP_KERNEL,
				       STACK_DEPOT_FLAG_CAN_ALLOC);
}

/*
 * Enter @handle into the table; false if no slot was left for it, or no
 * table: the depot may work while the table could not be allocated
 * (sampling then goes on without stacks, kmemtrace_sample_start()).
 */
static bool kmemtrace_stack_list(u32 handle)
{
	u32 *table = READ_ONCE(kmemtrace_stack_table);
	unsigned int i, slot = hash_32(handle, ilog2(KMEMTRACE_STACK_TABLE));

	if (unlikely(!table))
		return false;

	for (i = 0; i < KMEMTRACE_STACK_PROBES; i++) {
		u32 old = READ_ONCE(table[slot]);

		if (old == handle)
			return true;
		if (!old) {
			old = cmpxchg(&table[slot], 0, handle);
			if (!old || old == handle)
				return true;
		}
		slot = (slot + 1) & (KMEMTRACE_STACK_TABLE - 1);
	}
	return false;
}

/* === Naming a sample's caller from its stack ============================== */

/*
 * While a recording samples, the scopes that name callers stay closed
 * (kmemtrace_name_key): the API functions would pay on every call to
 * name the one call in many that is sampled.  A sampled allocation has
 * its stack, and its caller is on it, after the frames of these
 * functions:
 *  - those that name their caller by scope: the KMEMTRACE_ENTRY() table's
 *    (entry.c) and those that keep a scope to their end (kmemtrace_api());
 *  - the vmalloc() wrappers, which hand their caller down;
 *  - mempool's element functions, which the mempool API calls through
 *    pointers;
 *  - the page allocator's functions that __free_pages() and free_pages()
 *    end in with a tail call, which leaves no frame of theirs.
 * Reclaim's entry points bound the search, as kmemtrace_reclaim() does
 * the scopes.  Functions this kernel does not have are left out.  The
 * names below are the functions not in the table, kept by hand beside
 * the mm hooks.
 */
static const char * const kmemtrace_api_names[] = {
	"memdup_user", "__vmalloc_node_noprof", "__vmalloc_noprof", "vmalloc_noprof",
	"vmalloc_huge_noprof", "vzalloc_noprof", "vmalloc_user_noprof",
	"vmalloc_node_noprof", "vzalloc_node_noprof", "vmalloc_32_noprof",
	"vmalloc_32_user_noprof", "mempool_alloc_preallocated",
	"mempool_init_node", "mempool_create_node_noprof", "mempool_resize",
	"mempool_alloc_slab", "mempool_free_slab", "mempool_kmalloc",
	"mempool_kfree", "mempool_alloc_pages", "mempool_free_pages",
	"free_unref_page", "__free_pages_ok", "free_unref_folios",
};

static const char * const kmemtrace_reclaim_names[] = {
	"try_to_free_pages", "try_to_free_mem_cgroup_pages",
	"try_to_compact_pages", "out_of_memory", "__node_reclaim",
};

struct kmemtrace_text {
	unsigned long	start;
	unsigned long	end;
	bool		reclaim;
};

static struct kmemtrace_text
kmemtrace_api_text[ARRAY_SIZE(kmemtrace_api_names) +
		   ARRAY_SIZE(kmemtrace_reclaim_names) + KMEMTRACE_ENTRY_MAX];
static unsigned int kmemtrace_nr_api_text;

/* The text of the function @addr is in: [*@start, *@end), if kallsyms knows it. */
static bool __init kmemtrace_function_text(unsigned long addr, unsigned long *start,
					   unsigned long *end)
{
	unsigned long size, offset;

	if (!addr || !kallsyms_lookup_size_offset(addr, &size, &offset))
		return false;
	*start = addr - offset;
	*end = *start + size;
	return true;
}

static void __init kmemtrace_api_text_add(unsigned long addr, bool reclaim)
{
	struct kmemtrace_text *t = &kmemtrace_api_text[kmemtrace_nr_api_text];

	if (!kmemtrace_function_text(addr, &t->start, &t->end))
		return;
	t->reclaim = reclaim;
	kmemtrace_nr_api_text++;
}

static int __init kmemtrace_text_cmp(const void *a, const void *b)
{
	const struct kmemtrace_text *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void __init kmemtrace_api_entry_add(const struct kmemtrace_entry *entry)
{
	kmemtrace_api_text_add((unsigned long)entry->func, false);
}

/*
 * The entry points that add flags to the scope (KMEMTRACE_ENTRIES_FLAGGED:
 * a large kmalloc()'s pages, everything vmalloc() allocates for an area).
 * A sampling recording that names callers from stacks does not hook them
 * either: each call would pass a trampoline and a copy of the function,
 * some 110 instructions a large kmalloc()/kfree() pair, to flag the one
 * allocation in many that crosses the count.  That one finds them on its
 * stack instead (kmemtrace_stack_scoped()).  A handful: looked at in turn,
 * for a return address between the lowest and the highest of them only.
 */
struct kmemtrace_flagged_text {
	unsigned long	start;
	unsigned long	end;
	unsigned int	flags;
};

static struct kmemtrace_flagged_text kmemtrace_flagged[KMEMTRACE_ENTRY_MAX];
static unsigned int kmemtrace_nr_flagged;
static unsigned long kmemtrace_flagged_lo, kmemtrace_flagged_span;

static void __init kmemtrace_flagged_add(const struct kmemtrace_entry *entry)
{
	struct kmemtrace_flagged_text *t = &kmemtrace_flagged[kmemtrace_nr_flagged];

	if (!kmemtrace_function_text((unsigned long)entry->func, &t->start, &t->end))
		return;
	t->flags = entry->flags;
	kmemtrace_nr_flagged++;
}

/* Where the flagged entry points lie: from the lowest to the highest end. */
static void __init kmemtrace_flagged_bounds(void)
{
	unsigned long lo = ULONG_MAX, hi = 0;
	unsigned int i;

	for (i = 0; i < kmemtrace_nr_flagged; i++) {
		lo = min(lo, kmemtrace_flagged[i].start);
		hi = max(hi, kmemtrace_flagged[i].end);
	}
	if (hi) {
		kmemtrace_flagged_lo = lo;
		kmemtrace_flagged_span = hi - lo;
	}
}

static void __init kmemtrace_api_text_init(void)
{
	unsigned int i;

	kmemtrace_entries_for_each(KMEMTRACE_ENTRIES_NAMED, kmemtrace_api_entry_add);
	kmemtrace_entries_for_each(KMEMTRACE_ENTRIES_FLAGGED, kmemtrace_flagged_add);
	kmemtrace_flagged_bounds();
	for (i = 0; i < ARRAY_SIZE(kmemtrace_api_names); i++)
		kmemtrace_api_text_add(kallsyms_lookup_name(kmemtrace_api_names[i]), false);
	for (i = 0; i < ARRAY_SIZE(kmemtrace_reclaim_names); i++)
		kmemtrace_api_text_add(kallsyms_lookup_name(kmemtrace_reclaim_names[i]), true);
	sort(kmemtrace_api_text, kmemtrace_nr_api_text,
	     sizeof(kmemtrace_api_text[0]), kmemtrace_text_cmp, NULL);
}

/* The API or reclaim function @addr is in, or NULL. */
static const struct kmemtrace_text *kmemtrace_api_text_of(unsigned long addr)
{
	unsigned int lo = 0, hi = kmemtrace_nr_api_text, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (addr < kmemtrace_api_text[mid].start)
			hi = mid;
		else if (addr >= kmemtrace_api_text[mid].end)
			lo = mid + 1;
		else
			return &kmemtrace_api_text[mid];
	}
	return NULL;
}

#if IS_ENABLED(CONFIG_KMEMTRACE_KUNIT_TEST)
/* For the test that every API function's named copy has its entry. */
bool kmemtrace_api_function(unsigned long addr)
{
	const struct kmemtrace_text *t = kmemtrace_api_text_of(addr);

	return t && !t->reclaim;
}
#endif

/**
 * kmemtrace_stack_names() - whether samples can be named from their stacks
 *
 * Without kallsyms there is no table of the API functions: a sampling
 * recording then names callers by scope, as a full one does.
 *
 * Return: true if kmemtrace_name_key may stay off while sampling.
 */
bool kmemtrace_stack_names(void)
{
	return kmemtrace_nr_api_text;
}

/*
 * The caller a walk up the stack has found: the first frame after the
 * innermost run of API functions, as the outermost scope of that run
 * would have named.  An interrupt's frames end at its entry (the rest is
 * the interrupted context's), and reclaim's at reclaim.  Without an API
 * function in the first KMEMTRACE_STACK_DEPTH frames, nothing is named.
 */
struct kmemtrace_namer {
	unsigned long	caller;
	unsigned int	frames;
	bool		in_api;
};

static bool kmemtrace_in(unsigned long addr, const char *start, const char *end)
{
	return addr >= (unsigned long)start && addr < (unsigned long)end;
}

/*
 * Whether @addr is in an interrupt's entry: the entry code, the noinstr
 * C handlers it calls (x86 puts neither in .irqentry.text) and the
 * softirq and irqentry sections.
 */
static bool kmemtrace_entry_text(unsigned long addr)
{
	return kmemtrace_in(addr, __entry_text_start, __entry_text_end) ||
	       kmemtrace_in(addr, __noinstr_text_start, __noinstr_text_end) ||
	       kmemtrace_in(addr, __irqentry_text_start, __irqentry_text_end) ||
	       kmemtrace_in(addr, __softirqentry_text_start,
			    __softirqentry_text_end);
}

static bool kmemtrace_namer_frame(void *cookie, unsigned long addr)
{
	struct kmemtrace_namer *n = cookie;
	const struct kmemtrace_text *t;

	if (kmemtrace_entry_text(addr))
		return false;
	t = kmemtrace_api_text_of(addr);
	if (t) {
		n->in_api = !t->reclaim;
		return n->in_api;
	}
	if (n->in_api) {
		n->caller = addr;
		return false;
	}
	return ++n->frames < KMEMTRACE_STACK_DEPTH;
}

/* Name @ev's caller from its saved stack @entries. */
static void kmemtrace_stack_name(struct kmemtrace_event *ev,
				 const unsigned long *entries, unsigned int nr)
{
	struct kmemtrace_namer n = { };
	unsigned int i;

	for (i = 0; i < nr && kmemtrace_namer_frame(&n, entries[i]); i++)
		;
	if (n.caller)
		ev->call_site = n.caller;
}

/*
 * The registers of the allocator function that called the hook recording
 * the event being written, if this context's hook set them as where its
 * stacks start (kmemtrace_stack_from_enter()); NULL to walk from here.
 * The hook's frame holds what the unwinder needs: the return address into
 * the allocator, the allocator's stack pointer above it and its frame
 * pointer, which the hook's prologue saved.  An interrupt that came
 * between the hook's kmemtrace_stack_from_enter() and this event, and
 * records an event of its own through a probe, finds the level of the
 * context it interrupted and walks from where it is.
 */
static struct pt_regs *kmemtrace_stack_from_regs(struct pt_regs *regs)
{
#ifdef CONFIG_X86_64
	unsigned long from = __this_cpu_read(kmemtrace_stack_from);
	unsigned long *frame = (unsigned long *)(from & ~KMEMTRACE_STACK_FROM_LEVEL);

	if (!frame || (from & KMEMTRACE_STACK_FROM_LEVEL) != interrupt_context_level())
		return NULL;
	memset(regs, 0, sizeof(*regs));
	regs->ip = READ_ONCE_NOCHECK(frame[1]);
	regs->sp = (unsigned long)(frame + 2);
	regs->bp = READ_ONCE_NOCHECK(frame[0]);
	regs->cs = __KERNEL_CS;
	return regs;
#else
	return NULL;
#endif
}

/*
 * The walk up this task's stack, from @regs (NULL: from the caller),
 * handing each return address to @frame until it returns false.
 *
 * With the ORC unwinder, arch_stack_walk()'s walk without its costs per
 * frame: the call of its consumer through a pointer, and a search of the
 * kernel's text (core, modules, BPF, ftrace and kprobe trampolines) for
 * every return address, some 70 of a frame's 300 instructions.  ORC
 * found the data of each frame this walk passes on, which only text
 * has.  The registers saved on entry from user space end it, as the
 * search ends arch_stack_walk()'s at their user-space address.  It stops
 * where the unwinder has no data for a frame or cannot read the one
 * above it (unwind_error()), with the address it got there as the last,
 * if it is text; arch_stack_walk() goes on from there on a guess (a BPF
 * program's frame pointer).  KUnit test_stack_walk_same_as_arch checks
 * that both give the same frames.
 */
#ifdef CONFIG_UNWINDER_ORC
static __always_inline void
kmemtrace_walk(bool (*frame)(void *cookie, unsigned long addr), void *cookie,
	       struct pt_regs *regs)
{
	/* Not zeroed first (INIT_STACK_ALL_ZERO): unwind_start() does. */
	struct unwind_state state __uninitialized;
	unsigned long ip;

	if (regs && !frame(cookie, regs->ip))
		return;
	for (unwind_start(&state, current, regs, NULL); !unwind_done(&state);) {
		/* Registers saved on entry from user space: the walk's end. */
		if (state.regs && user_mode(state.regs))
			return;
		ip = state.ip;
		unwind_next_frame(&state);
		if (unlikely(unwind_error(&state))) {
			if (__kernel_text_address(ip))
				frame(cookie, ip);
			return;
		}
		if (!frame(cookie, ip))
			return;
	}
}
#elif defined(CONFIG_ARCH_STACKWALK)
static __always_inline void
kmemtrace_walk(bool (*frame)(void *cookie, unsigned long addr), void *cookie,
	       struct pt_regs *regs)
{
	arch_stack_walk(frame, cookie, current, regs);
}
#endif

#if defined(CONFIG_UNWINDER_ORC) || defined(CONFIG_ARCH_STACKWALK)
struct kmemtrace_saver {
	unsigned long	*entries;
	unsigned int	nr;
	unsigned int	size;
};

static __always_inline bool kmemtrace_save_frame(void *cookie,
						 unsigned long addr)
{
	struct kmemtrace_saver *s = cookie;

	s->entries[s->nr++] = addr;
	return s->nr < s->size;
}
#endif

/* stack_trace_save_regs(), or stack_trace_save() without @regs. */
static __always_inline unsigned int
kmemtrace_stack_save(unsigned long *entries, unsigned int size,
		     struct pt_regs *regs)
{
#if defined(CONFIG_UNWINDER_ORC) || defined(CONFIG_ARCH_STACKWALK)
	struct kmemtrace_saver s = { .entries = entries, .size = size };

	kmemtrace_walk(kmemtrace_save_frame, &s, regs);
	return s.nr;
#else
	return regs ? stack_trace_save_regs(regs, entries, size, 0) :
		      stack_trace_save(entries, size, 0);
#endif
}

#if IS_ENABLED(CONFIG_KMEMTRACE_KUNIT_TEST)
/**
 * kmemtrace_stack_walk_test() - this walk and the kernel's, from one place
 * @ours: kmemtrace_stack_save()'s frames
 * @arch: stack_trace_save_regs()'s, or stack_trace_save()'s
 * @size: room in each
 * @regs: both from registers made here, as kmemtrace_stack_from_regs()
 *	makes them of a hook's frame (x86-64 only); else both from here
 *	without
 * @nr_arch: set to the number of frames in @arch
 *
 * For KUnit test_stack_walk_same_as_arch.
 *
 * Return: the number of frames in @ours.
 */
noinline unsigned int kmemtrace_stack_walk_test(unsigned long *ours,
						unsigned long *arch,
						unsigned int size, bool regs,
						unsigned int *nr_arch)
{
	unsigned int nr;

#ifdef CONFIG_X86_64
	if (regs) {
		struct pt_regs r = {
			.ip = _THIS_IP_,
			.sp = current_stack_pointer,
			.bp = (unsigned long)__builtin_frame_address(0),
			.cs = __KERNEL_CS,
		};

		nr = kmemtrace_stack_save(ours, size, &r);
		*nr_arch = stack_trace_save_regs(&r, arch, size, 0);
		return nr;
	}
#endif
	nr = kmemtrace_stack_save(ours, size, NULL);
	*nr_arch = stack_trace_save(arch, size, 0);
	return nr;
}
#endif

/*
 * A sampled allocation's stack, walked before its event was reserved
 * (kmemtrace_stack_scoped()), for __kmemtrace_stack() to save: per CPU, as
 * interrupts stay off from the one to the other and NMIs record nothing.
 * Allocated when a recording first samples, not as static per-CPU data:
 * that would move where the percpu allocator's first chunk has room, and
 * every alloc_percpu() with it, in kernels that never sample.
 */
struct kmemtrace_prewalk {
	unsigned long	ptr;	/* the allocation's; 0: none waiting */
	unsigned int	nr;
	unsigned long	entries[KMEMTRACE_STACK_DEPTH];
};

static struct kmemtrace_prewalk __percpu *kmemtrace_prewalk;

struct kmemtrace_flagger {
	unsigned long	*entries;
	/* kmemtrace_flagged_lo and _span, which @entries could alias */
	unsigned long	lo;
	unsigned long	span;
	unsigned int	nr;
	unsigned int	flags;	/* looked for; 0 once past the context's end */
	bool		found;
};

/*
 * Whether one of @entries ends the scope that frames above them were
 * entered in: an interrupt's entry (an interrupt has a scope of its own)
 * or reclaim (kmemtrace_reclaim() empties it).
 */
static bool kmemtrace_scope_ends(const unsigned long *entries, unsigned int nr)
{
	const struct kmemtrace_text *t;
	unsigned int i;

	for (i = 0; i < nr; i++) {
		if (kmemtrace_entry_text(entries[i]))
			return true;
		t = kmemtrace_api_text_of(entries[i]);
		if (t && t->reclaim)
			return true;
	}
	return false;
}

static __always_inline bool kmemtrace_flagger_frame(void *cookie,
						    unsigned long addr)
{
	struct kmemtrace_flagger *f = cookie;
	unsigned int i;

	f->entries[f->nr++] = addr;
	if (likely(addr - f->lo >= f->span))
		return f->nr < KMEMTRACE_STACK_DEPTH;
	for (i = 0; f->flags && i < kmemtrace_nr_flagged; i++) {
		const struct kmemtrace_flagged_text *t = &kmemtrace_flagged[i];

		if (addr < t->start || addr >= t->end || !(t->flags & f->flags))
			continue;
		/* Rare: the frames below are looked at only now. */
		if (kmemtrace_scope_ends(f->entries, f->nr - 1)) {
			f->flags = 0;
			break;
		}
		f->found = true;
		return false;
	}
	return f->nr < KMEMTRACE_STACK_DEPTH;
}

/**
 * kmemtrace_stack_scoped() - whether a sampled allocation is under an entry
 *                            point that flags it
 * @flags: the KMEMTRACE_SCOPE_* bits that keep it from being sampled
 * @ptr: the allocation
 *
 * While kmemtrace_stack_scopes, the entry points that add flags to the
 * scope are not hooked, and an allocation that crossed the count looks
 * for them on its stack, from where its stack starts
 * (kmemtrace_stack_from_regs()) up to the end of its context's frames (an
 * interrupt's entry, reclaim), as their scope would have lasted: the
 * pages of a large kmalloc(), which its own event stands for, and what
 * vmalloc() allocates for an area (backing) are not sampled.  The walk
 * stops at the first such frame; otherwise it is the event's stack,
 * which __kmemtrace_stack() then saves without walking again.  An entry
 * point deeper than KMEMTRACE_STACK_DEPTH frames is not found.
 *
 * Context: From kmemtrace_sample(): interrupts disabled, not NMI.
 * Return: true if the allocation is not to be sampled.
 */
bool kmemtrace_stack_scoped(unsigned int flags, unsigned long ptr)
{
	struct kmemtrace_prewalk *pw = this_cpu_ptr(kmemtrace_prewalk);
	struct kmemtrace_flagger f = {
		.entries = pw->entries,
		.lo = kmemtrace_flagged_lo,
		.span = kmemtrace_flagged_span,
		.flags = flags,
	};
	/* Written before it is read, if at all (kmemtrace_stack_from_regs()). */
	struct pt_regs regs __uninitialized;
	struct pt_regs *from = kmemtrace_stack_from_regs(&regs);

	pw->ptr = 0;
#if defined(CONFIG_UNWINDER_ORC) || defined(CONFIG_ARCH_STACKWALK)
	kmemtrace_walk(kmemtrace_flagger_frame, &f, from);
#else
	{
		unsigned long entries[KMEMTRACE_STACK_DEPTH];
		unsigned int i, nr = kmemtrace_stack_save(entries, ARRAY_SIZE(entries),
							  from);

		for (i = 0; i < nr && kmemtrace_flagger_frame(&f, entries[i]); i++)
			;
	}
#endif
	if (f.found)
		return true;
	pw->nr = f.nr;
	pw->ptr = ptr;
	return false;
}

/**
 * kmemtrace_stack_unscoped() - the allocation kmemtrace_stack_scoped() let
 *                              through is not recorded after all
 *
 * Context: As kmemtrace_stack_scoped(), after it.
 */
void kmemtrace_stack_unscoped(void)
{
	struct kmemtrace_prewalk __percpu *pws = READ_ONCE(kmemtrace_prewalk);

	if (pws)
		__this_cpu_write(pws->ptr, 0);
}

/**
 * kmemtrace_stack_scopes_ready() - whether kmemtrace_stack_scoped() works
 *
 * Return: true once kmemtrace_stacks_prepare() allocated its per-CPU walks.
 */
bool kmemtrace_stack_scopes_ready(void)
{
	return READ_ONCE(kmemtrace_prewalk);
}

/*
 * Whether the tracepoint named @ev's caller already: a call site that is
 * none of the API functions, as for kmalloc(), kfree() and vfree()
 * called directly.  A search of the stack would name the same frame.
 */
static bool kmemtrace_caller_named(const struct kmemtrace_event *ev)
{
	return ev->call_site && !kmemtrace_api_text_of(ev->call_site);
}

/**
 * __kmemtrace_stack_name() - name a sampled free's caller from its stack
 * @ev: the event being written, a free of a sampled object
 *
 * Walks the stack only as far as the caller, without saving it: a
 * sampled free has no stack of its own (but with stack_frees).  Not at
 * all when the tracepoint named the caller (kmemtrace_caller_named()).
 *
 * Context: From kmemtrace_fill(): interrupts disabled, not NMI.
 */
void __kmemtrace_stack_name(struct kmemtrace_event *ev)
{
	if (kmemtrace_caller_named(ev))
		return;
#if defined(CONFIG_UNWINDER_ORC) || defined(CONFIG_ARCH_STACKWALK)
	struct kmemtrace_namer n = { };
	struct pt_regs regs __uninitialized;

	kmemtrace_walk(kmemtrace_namer_frame, &n,
		       kmemtrace_stack_from_regs(&regs));
	if (n.caller)
		ev->call_site = n.caller;
#else
	unsigned long entries[KMEMTRACE_STACK_DEPTH];

	kmemtrace_stack_name(ev, entries,
			     stack_trace_save(entries, ARRAY_SIZE(entries), 0));
#endif
}

/**
 * __kmemtrace_stack() - give the sampled event its stack
 * @ev: the event being written, with its kind and flags set
 *
 * Context: From kmemtrace_stack(): interrupts disabled, not NMI.
 */
void __kmemtrace_stack(struct kmemtrace_event *ev)
{
	struct kmemtrace_stack_cpu *sc = this_cpu_ptr(&kmemtrace_stack_cpu);
	struct kmemtrace_prewalk __percpu *pws = READ_ONCE(kmemtrace_prewalk);
	struct kmemtrace_prewalk *pw = pws ? this_cpu_ptr(pws) : NULL;
	/* Not zeroed first: only what a walk wrote is read. */
	unsigned long walked[KMEMTRACE_STACK_DEPTH] __uninitialized;
	unsigned long *entries = walked;
	depot_stack_handle_t handle;
	unsigned int nr;

	__this_cpu_write(kmemtrace_stack_countdown,
			 READ_ONCE(kmemtrace_stack_sample));

	/* Walked already by kmemtrace_stack_scoped()? */
	if (pw && pw->ptr && pw->ptr == ev->ptr) {
		entries = pw->entries;
		nr = pw->nr;
		pw->ptr = 0;
	} else {
		struct pt_regs regs __uninitialized;
		struct pt_regs *from = kmemtrace_stack_from_regs(&regs);

		nr = kmemtrace_stack_save(walked, ARRAY_SIZE(walked), from);
	}
	if (!static_branch_likely(&kmemtrace_name_key) &&
	    !kmemtrace_caller_named(ev))
		kmemtrace_stack_name(ev, entries, nr);
	handle = stack_depot_save_flags(entries, nr, 0, 0);
	if (!handle) {
		ev->flags |= KMEMTRACE_FLAG_STACK_LOST;
		sc->lost++;
		irq_work_queue(&kmemtrace_stack_irq_work);
		return;
	}
	ev->stack_id = handle;
	sc->captured++;
	if (!kmemtrace_stack_list(handle))
		sc->unlisted++;
}

/* The first time stacks are wanted, set up the depot and the table. */
static int kmemtrace_stacks_prepare_locked(void)
{
	u32 *table;
	int ret;

	if (kmemtrace_stack_table)
		return 0;
	ret = stack_depot_init();
	if (ret)
		return ret;
	table = kvcalloc(KMEMTRACE_STACK_TABLE, sizeof(*table), GFP_KERNEL);
	if (!table)
		return -ENOMEM;
	WRITE_ONCE(kmemtrace_stack_table, table);
	/* A spare pool, so that the first stacks are not lost. */
	kmemtrace_stack_refill(NULL);
	return 0;
}

/**
 * kmemtrace_stacks_prepare() - make __kmemtrace_stack() usable
 *
 * For sampling (sample.c), which gives every sampled allocation its
 * stack whatever stack_sample says, and finds the flagged entry points on
 * it (kmemtrace_stack_scoped(); without its per-CPU walks, which this
 * allocates the first time, the recording flags by scope).
 *
 * Context: Process context, may sleep.
 * Return: 0, or the error of setting up the stack depot.
 */
int kmemtrace_stacks_prepare(void)
{
	int ret;

	mutex_lock(&kmemtrace_stack_mutex);
	ret = kmemtrace_stacks_prepare_locked();
	if (!kmemtrace_prewalk)
		WRITE_ONCE(kmemtrace_prewalk,
			   alloc_percpu(struct kmemtrace_prewalk));
	mutex_unlock(&kmemtrace_stack_mutex);
	return ret;
}

/*
 * Set the sample rate: 0 stops capturing, N captures one event in N per
 * CPU.  The first time, set up the depot and the table.
 */
static int kmemtrace_stack_set(unsigned int sample)
{
	int cpu, ret = 0;

	mutex_lock(&kmemtrace_stack_mutex);
	if (sample) {
		ret = kmemtrace_stacks_prepare_locked();
		if (ret)
			goto out;
	}
	WRITE_ONCE(kmemtrace_stack_sample, sample);
	/* Start each CPU's count afresh at the next event. */
	for_each_possible_cpu(cpu)
		per_cpu(kmemtrace_stack_countdown, cpu) = 0;
	if (sample)
		static_branch_enable(&kmemtrace_stack_key);
	else
		static_branch_disable(&kmemtrace_stack_key);
out:
	mutex_unlock(&kmemtrace_stack_mutex);
	return ret;
}

#if IS_ENABLED(CONFIG_KMEMTRACE_KUNIT_TEST)
/**
 * kmemtrace_stack_configure() - set stack capture
 * @sample: capture one alloc event in @sample per CPU; 0 stops
 * @frees: capture frees too
 *
 * For the KUnit test.
 *
 * Context: Process context, may sleep.
 * Return: 0, or the error of setting up the stack depot.
 */
int kmemtrace_stack_configure(unsigned int sample, bool frees)
{
	WRITE_ONCE(kmemtrace_stack_frees, frees);
	return kmemtrace_stack_set(sample);
}

/**
 * kmemtrace_stack_table_swap() - replace the table of listed stacks
 * @table: the new table, or NULL: as if it could not be allocated
 *
 * For the KUnit test, while no stack is captured.
 *
 * Return: the table it replaced.
 */
u32 *kmemtrace_stack_table_swap(u32 *table)
{
	u32 *old;

	mutex_lock(&kmemtrace_stack_mutex);
	old = kmemtrace_stack_table;
	WRITE_ONCE(kmemtrace_stack_table, table);
	mutex_unlock(&kmemtrace_stack_mutex);
	return old;
}
#endif

/* === Boot parameters ===================================================== */

#ifdef MODULE_PARAM_PREFIX
#undef MODULE_PARAM_PREFIX
#endif
#define MODULE_PARAM_PREFIX "kmemtrace."

static unsigned int kmemtrace_stack_sample_at_boot;

static int param_set_stack_sample(const char *val,
				  const struct kernel_param *kp)
{
	unsigned int num;

	if (kstrtouint(val, 0, &num)) {
		pr_err("invalid %s=%s: want a number, 0 for no stacks\n",
		       kp->name, val);
		return -EINVAL;
	}
	*(unsigned int *)kp->arg = num;
	return 0;
}

static const struct kernel_param_ops kmemtrace_stack_sample_ops = {
	.set	= param_set_stack_sample,
	.get	= param_get_uint,
};

module_param_cb(stack_sample, &kmemtrace_stack_sample_ops,
		&kmemtrace_stack_sample_at_boot, 0444);
module_param_named(stack_frees, kmemtrace_stack_frees, bool, 0444);

/**
 * kmemtrace_stacks_boot() - apply kmemtrace.stack_sample=
 *
 * Context: Process context (kmemtrace's early_initcall), may sleep.
 */
void __init kmemtrace_stacks_boot(void)
{
	int ret;

	kmemtrace_api_text_init();
	if (!kmemtrace_stack_sample_at_boot)
		return;
	ret = kmemtrace_stack_set(kmemtrace_stack_sample_at_boot);
	if (ret)
		pr_err("cannot capture stacks: %d\n", ret);
}

/* === debugfs ============================================================= */

static int stack_sample_get(void *data, u64 *val)
{
	*val = READ_ONCE(kmemtrace_stack_sample);
	return 0;
}

static int stack_sample_set(void *data, u64 val)
{
	if (val > UINT_MAX)
		return -EINVAL;
	return kmemtrace_stack_set(val);
}

DEFINE_DEBUGFS_ATTRIBUTE(stack_sample_fops, stack_sample_get,
			 stack_sample_set, "%llu\n");

static int stack_frees_get(void *data, u64 *val)
{
	*val = READ_ONCE(kmemtrace_stack_frees);
	return 0;
}

static int stack_frees_set(void *data, u64 val)
{
	if (val > 1)
		return -EINVAL;
	WRITE_ONCE(kmemtrace_stack_frees, val);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(stack_frees_fops, stack_frees_get, stack_frees_set,
			 "%llu\n");

/* Frames of kmemtrace itself and of the tracepoint that called it. */
static bool stack_frame_ours(unsigned long addr)
{
	static const char * const prefixes[] = {
		"__kmemtrace_", "kmemtrace_", "probe_", "__traceiter_",
		"__probestub_", "stack_trace_save", "arch_stack_walk",
	};
	char name[KSYM_NAME_LEN];
	unsigned int i;

	if (lookup_symbol_name(addr, name))
		return false;
	for (i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (str_has_prefix(name, prefixes[i]))
			return true;
	return false;
}

static int stacks_show(struct seq_file *m, void *v)
{
	unsigned long captured = 0, lost = 0, unlisted = 0;
	u32 *table = READ_ONCE(kmemtrace_stack_table);
	unsigned int i, j;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct kmemtrace_stack_cpu *sc =
			per_cpu_ptr(&kmemtrace_stack_cpu, cpu);

		captured += READ_ONCE(sc->captured);
		lost += READ_ONCE(sc->lost);
		unlisted += READ_ONCE(sc->unlisted);
	}
	seq_puts(m, "# kmemtrace stacks v1\n");
	seq_printf(m, "# captured %lu lost %lu unlisted %lu\n", captured, lost,
		   unlisted);
	for (i = 0; table && i < KMEMTRACE_STACK_TABLE; i++) {
		u32 handle = READ_ONCE(table[i]);
		unsigned long *entries;
		unsigned int nr;

		if (!handle)
			continue;
		nr = stack_depot_fetch(handle, &entries);
		for (j = 0; j < nr && stack_frame_ours(entries[j]); j++)
			;
		seq_printf(m, "stack %08x %u\n", handle, nr - j);
		for (; j < nr; j++)
			seq_printf(m, " %016lx %pS\n", entries[j],
				   (void *)entries[j]);
		cond_resched();
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stacks);

/**
 * kmemtrace_stacks_debugfs() - create the stack files
 * @dir: /sys/kernel/debug/kmemtrace
 */
void __init kmemtrace_stacks_debugfs(struct dentry *dir)
{
	debugfs_create_file_unsafe("stack_sample", 0600, dir, NULL,
				   &stack_sample_fops);
	debugfs_create_file_unsafe("stack_frees", 0600, dir, NULL,
				   &stack_frees_fops);
	debugfs_create_file("stacks", 0400, dir, NULL, &stacks_fops);
}
