/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace internal header: shared between the probes (core.c), the relay
 * channel (relay.c), the debugfs control files (debugfs.c) and the tests.
 */
#ifndef _MM_KMEMTRACE_KMEMTRACE_H
#define _MM_KMEMTRACE_KMEMTRACE_H

#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/irqflags.h>
#include <linux/jump_label.h>
#include <linux/kmemtrace.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/prandom.h>
#include <linux/relay.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/types.h>
#include <uapi/linux/kmemtrace.h>

#ifdef CONFIG_X86_TSC
#include <asm/msr.h>
#endif

/*
 * Per-CPU state, changed only by the local CPU, with this_cpu operations
 * (safe against an NMI on the same CPU).
 * @seq:     sequence number of the next event this CPU records
 * @dropped: events lost: buffer full, or in NMI context
 * @nmi:     events in NMI context, not recorded by relay nor the tracer
 *
 * Each event takes a sequence number and is either written to the relay
 * buffer or dropped: the events written are @seq - @dropped, which is not
 * counted apart.
 */
struct kmemtrace_cpu {
	u64		seq;
	unsigned long	dropped;
	unsigned long	nmi;
};

DECLARE_PER_CPU(struct kmemtrace_cpu, kmemtrace_cpu);

struct dentry;
struct kmemtrace_ring;

/* Boot parameters, validated; see core.c. */
extern unsigned int kmemtrace_subbufs;
extern unsigned int kmemtrace_subbuf_size;

/* core.c */
int kmemtrace_set_clock(bool tsc);
DECLARE_STATIC_KEY_FALSE(kmemtrace_relay_key);
DECLARE_STATIC_KEY_FALSE(kmemtrace_tracer_key);
DECLARE_PER_CPU(struct kmemtrace_event, kmemtrace_spare);
void kmemtrace_skip_nmi(void);
unsigned long kmemtrace_total_dropped(void);
int kmemtrace_allocate(void);
int kmemtrace_release(void);
u64 kmemtrace_buffer_bytes(void);
int kmemtrace_set_dir(struct dentry *dir);

/* clock.c */
DECLARE_STATIC_KEY_FALSE(kmemtrace_tsc_key);
extern const char *const kmemtrace_clock_names[2];
bool kmemtrace_tsc_usable(void);
void kmemtrace_clock_boot(void);
void kmemtrace_clock_convert(struct kmemtrace_ring *ring, void *start, u64 head);

/**
 * kmemtrace_stamp() - record the event in the tracer too, and time it
 * @ev: the event, written but for its time stamp and sequence number
 * @irqflags: the interrupt state before kmemtrace_begin() disabled them
 *
 * With the "tsc" clock, the TSC, read after the tracer's entry is written,
 * which a reader converts to sched_clock() nanoseconds as it takes the
 * events (kmemtrace_clock_convert()).  Otherwise trace_clock_local()'s
 * sched_clock(), without the preemption count around it, which interrupts
 * off make needless (as noinstr code), or, when the tracer records the
 * event too, its entry's time stamp, the same time in both.  While the
 * tracer alone records, nothing: the event is this CPU's spare, which no
 * stream publishes, and the tracer's entry has its own time.
 *
 * Context: Interrupts disabled.
 * Return: the time stamp (0 while only the tracer records).
 */
static __always_inline u64 kmemtrace_stamp(const struct kmemtrace_event *ev,
					   unsigned long irqflags)
{
	u64 ts = 0;

#ifdef CONFIG_X86_TSC
	if (static_branch_unlikely(&kmemtrace_tsc_key)) {
		if (static_branch_unlikely(&kmemtrace_tracer_key)) {
			kmemtrace_tracer_write(ev, irqflags);
			if (!static_branch_likely(&kmemtrace_relay_key))
				return 0;
		}
		return rdtsc();
	}
#endif
	if (static_branch_unlikely(&kmemtrace_tracer_key)) {
		if (!static_branch_likely(&kmemtrace_relay_key)) {
			kmemtrace_tracer_write(ev, irqflags);
			return 0;
		}
		ts = kmemtrace_tracer_event(ev, irqflags);
	}
	return ts ?: sched_clock_noinstr();
}

/* stacks.c */
#ifdef CONFIG_KMEMTRACE_STACKS
DECLARE_STATIC_KEY_FALSE(kmemtrace_stack_key);
DECLARE_PER_CPU(unsigned int, kmemtrace_stack_countdown);
extern bool kmemtrace_stack_frees;
void __kmemtrace_stack(struct kmemtrace_event *ev);
void __kmemtrace_stack_name(struct kmemtrace_event *ev);

/*
 * kmemtrace_stack() - give one event in stack_sample per CPU its stack
 * @ev: the event being written
 * @kind: its kind, a constant in most probes
 *
 * Counts the events down inline; only the sampled one calls out.
 *
 * Context: Interrupts disabled, not NMI.
 */
static __always_inline void kmemtrace_stack(struct kmemtrace_event *ev,
					    u8 kind)
{
	unsigned int left;

	if (kind == KMEMTRACE_KIND_FREE && !READ_ONCE(kmemtrace_stack_frees))
		return;
	left = __this_cpu_read(kmemtrace_stack_countdown);
	if (left > 1) {
		__this_cpu_write(kmemtrace_stack_countdown, left - 1);
		return;
	}
	__kmemtrace_stack(ev);
}

void kmemtrace_stacks_boot(void);
bool kmemtrace_stack_names(void);
bool kmemtrace_stack_scoped(unsigned int flags, unsigned long ptr);
void kmemtrace_stack_unscoped(void);
bool kmemtrace_stack_scopes_ready(void);
int kmemtrace_stacks_prepare(void);
void kmemtrace_stacks_debugfs(struct dentry *dir);
#if IS_ENABLED(CONFIG_KMEMTRACE_KUNIT_TEST)
int kmemtrace_stack_configure(unsigned int sample, bool frees);
u32 *kmemtrace_stack_table_swap(u32 *table);
bool kmemtrace_api_function(unsigned long addr);
unsigned int kmemtrace_stack_walk_test(unsigned long *ours,
				       unsigned long *arch,
				       unsigned int size, bool regs,
				       unsigned int *nr_arch);
#endif
#else
static inline void kmemtrace_stacks_boot(void) { }
static inline bool kmemtrace_stack_names(void) { return false; }
static inline bool kmemtrace_stack_scoped(unsigned int flags,
					  unsigned long ptr) { return false; }
static inline void kmemtrace_stack_unscoped(void) { }
static inline bool kmemtrace_stack_scopes_ready(void) { return false; }
static inline int kmemtrace_stacks_prepare(void) { return 0; }
static inline void kmemtrace_stacks_debugfs(struct dentry *dir) { }
#if IS_ENABLED(CONFIG_KMEMTRACE_KUNIT_TEST)
static inline bool kmemtrace_api_function(unsigned long addr) { return false; }
#endif
#endif

#if defined(CONFIG_KMEMTRACE_STACKS) && defined(CONFIG_X86_64)
DECLARE_PER_CPU(unsigned long, kmemtrace_stack_from);

/*
 * The bits of kmemtrace_stack_from that hold the interrupt level (0 to 3,
 * interrupt_context_level()), below the frame's address, which is
 * aligned to a word.
 */
#define KMEMTRACE_STACK_FROM_LEVEL	3UL

/**
 * kmemtrace_stack_from_enter() - start this context's stacks at a hook's caller
 * @frame: the frame of the function the allocator called,
 *	__builtin_frame_address(0) in it
 *
 * The stack of the event that function records, and the walk that names
 * a sampled free's caller, then begin at the allocator's frame: the
 * unwinder does not walk kmemtrace's own frames first (four or five,
 * some 300 instructions each with ORC).  The frame is tagged with the
 * context's interrupt level, so that an event of an interrupt never
 * starts at a frame of the context it interrupted (stacks.c).
 *
 * Context: Preemption disabled; kmemtrace_stack_from_exit() before the
 * function returns.
 * Return: what to hand kmemtrace_stack_from_exit().
 */
static __always_inline unsigned long kmemtrace_stack_from_enter(void *frame)
{
	unsigned long old = __this_cpu_read(kmemtrace_stack_from);

	BUILD_BUG_ON(sizeof(long) <= KMEMTRACE_STACK_FROM_LEVEL);
	__this_cpu_write(kmemtrace_stack_from,
			 (unsigned long)frame | interrupt_context_level());
	return old;
}

/* Give back what kmemtrace_stack_from_enter() replaced. */
static __always_inline void kmemtrace_stack_from_exit(unsigned long old)
{
	__this_cpu_write(kmemtrace_stack_from, old);
}
#else
static __always_inline unsigned long kmemtrace_stack_from_enter(void *frame)
{
	return 0;
}

static __always_inline void kmemtrace_stack_from_exit(unsigned long old) { }
#endif

/* sample.c */

/* @ptr's bucket in the table of sampled objects. */
static __always_inline struct kmemtrace_sample_bucket *
kmemtrace_sample_bucket(unsigned long ptr)
{
	return &kmemtrace_sample_table[hash_long(ptr,
						 KMEMTRACE_SAMPLE_BUCKETS_ORDER)];
}

/**
 * kmemtrace_sample_slot() - where a sampled object is in its bucket
 * @b: @ptr's bucket, kmemtrace_sample_bucket()
 * @ptr: the memory freed or resized
 *
 * One load of the mask when the bucket is empty, and a compare per slot
 * in use otherwise.  @ptr is not being entered meanwhile: its allocation
 * entered it, if sampled, before anyone had the pointer to free it.
 *
 * Context: Any context, while the table exists (a sampling recording).
 * Return: @ptr's slot, or -1 if @ptr is not a sampled object.
 */
static __always_inline int kmemtrace_sample_slot(struct kmemtrace_sample_bucket *b,
						 unsigned long ptr)
{
	unsigned long mask = READ_ONCE(b->mask);

	while (mask) {
		unsigned int slot = __ffs(mask);

		mask &= mask - 1;
		if (READ_ONCE(b->ptr[slot]) == ptr)
			return slot;
	}
	return -1;
}

/* Whether @ptr is a sampled object, without taking it out. */
static __always_inline bool kmemtrace_sample_tracked(const void *ptr)
{
	unsigned long p = (__force unsigned long)ptr;

	return kmemtrace_sample_slot(kmemtrace_sample_bucket(p), p) >= 0;
}

/*
 * Per-CPU sampling state but for the count (kmemtrace_sample_left, which
 * the fast paths change with this_cpu operations and
 * kmemtrace_sample_redraw() rewrites), changed only by the local CPU with
 * interrupts off.
 * @sampled:	allocations sampled in this recording
 * @untracked:	of those, left out of the table (KMEMTRACE_FLAG_UNTRACKED)
 * @freed:	frees of sampled objects recorded
 * @rnd:	the generator of the draws
 */
struct kmemtrace_sample_cpu {
	unsigned long		sampled;
	unsigned long		untracked;
	unsigned long		freed;
	struct rnd_state	rnd;
};

DECLARE_STATIC_KEY_FALSE(kmemtrace_sample_key);
DECLARE_PER_CPU(struct kmemtrace_sample_cpu, kmemtrace_sample_cpu);
extern unsigned int kmemtrace_sample_period;
u64 kmemtrace_sample_draw(struct rnd_state *rnd, unsigned int period);
int __kmemtrace_sample_alloc(unsigned long ptr);
bool kmemtrace_sample_other(unsigned long ptr, bool free);
bool kmemtrace_sample_split(unsigned long ptr);
int kmemtrace_sample_start(bool shared);
void kmemtrace_sample_stop(void);
void kmemtrace_sample_arm(bool on);
bool kmemtrace_sampling(void);
void kmemtrace_sample_debugfs(struct dentry *dir);
#if IS_ENABLED(CONFIG_KMEMTRACE_KUNIT_TEST)
int kmemtrace_sample_configure(unsigned int period, u64 seed, bool probes);
bool kmemtrace_sample_via_probes(void);
#else
static inline bool kmemtrace_sample_via_probes(void) { return false; }
#endif

/* tags.c */
#ifdef CONFIG_MEM_ALLOC_PROFILING
void kmemtrace_tags_debugfs(struct dentry *dir);
void kmemtrace_tags_forget(void);
#else
static inline void kmemtrace_tags_debugfs(struct dentry *dir) { }
static inline void kmemtrace_tags_forget(void) { }
#endif

/* probes.c */
int kmemtrace_probes_attach(void);
void kmemtrace_probes_detach(void);

/* entry.c */
#define KMEMTRACE_ENTRY_MAX		64
#define KMEMTRACE_ENTRIES_NAMED		0
#define KMEMTRACE_ENTRIES_FLAGGED	1
void kmemtrace_entries_init(void);
int kmemtrace_entries_attach(unsigned int which);
void kmemtrace_entries_detach(unsigned int which);
unsigned int kmemtrace_entries_missing_count(void);
#if IS_ENABLED(CONFIG_KMEMTRACE_KUNIT_TEST)
unsigned int kmemtrace_entries_attached(void);
#endif
void kmemtrace_entries_for_each(unsigned int which,
				void (*fn)(const struct kmemtrace_entry *entry));
/* The direct trampolines of x86-64 and the tests they call (entry.c). */
void kmemtrace_named_trampoline(void);
void kmemtrace_flagged_trampoline(void);
void kmemtrace_suppress_trampoline(void);
unsigned long kmemtrace_named_direct(unsigned long ret);
unsigned long kmemtrace_flagged_direct(unsigned long ret);
#if IS_ENABLED(CONFIG_KMEMTRACE_KUNIT_TEST)
int kmemtrace_probes_on(void);
#endif

/* relay.c */

/**
 * struct kmemtrace_ring - the positions in one CPU's buffer
 * @head:	bytes written since allocation; the writer's, published
 * @next:	where the event at @head goes in the buffer, NULL until this
 *		CPU's first event found its buffer (the writer's)
 * @start:	the buffer, where @next wraps to (the writer's)
 * @end:	@start plus the ring's size: where @next wraps (the writer's)
 * @wake_at:	@head at which to wake readers next: set by the writer as
 *		it wakes them, and by a reader that polls, to when it will
 *		be readable (relay.c)
 * @full_at:	@head when the writer last found the ring full (the
 *		writer's): it woke a reader then, once
 * @tail:	bytes read since allocation; the reader's, published
 * @tail_pos:	@tail within the buffer (the reader's)
 * @stamped:	bytes whose time stamps are nanoseconds: with the "tsc"
 *		clock, the reader converts the events up to @head before it
 *		hands them out (clock.c; the reader's)
 */
struct kmemtrace_ring {
	u64	head;
	void	*next;
	void	*start;
	void	*end;
	u64	wake_at;
	u64	full_at;
	u64	tail ____cacheline_aligned;
	size_t	tail_pos;
	u64	stamped;
};

DECLARE_PER_CPU(struct kmemtrace_ring, kmemtrace_ring);
extern struct rchan *kmemtrace_chan;
extern size_t kmemtrace_ring_size;
void *kmemtrace_relay_attach(struct kmemtrace_ring *ring);
void kmemtrace_relay_wake(struct kmemtrace_ring *ring);
void kmemtrace_relay_full(void);

/**
 * kmemtrace_relay_reserve() - the slot for this CPU's next event
 * @ring: this CPU's ring
 *
 * The caller writes the event into the slot, then publishes it with
 * kmemtrace_relay_commit(); no reader sees the slot before.
 *
 * Context: Interrupts disabled, not NMI: nothing else on this CPU writes
 * the buffer meanwhile.
 * Return: the slot, or NULL if the buffer is full (or this CPU has none).
 */
static __always_inline struct kmemtrace_event *
kmemtrace_relay_reserve(struct kmemtrace_ring *ring)
{
	void *next = ring->next;

	/* Never overwrite what was not read; pairs with the reader's release. */
	if (unlikely(ring->head + KMEMTRACE_EVENT_SIZE - READ_ONCE(ring->tail) >
		     kmemtrace_ring_size))
		return NULL;
	/* This CPU's first event since the buffers were allocated. */
	if (unlikely(!next))
		next = kmemtrace_relay_attach(ring);
	return next;
}

/**
 * kmemtrace_relay_commit() - publish the event in the reserved slot
 * @ring: this CPU's ring, with a slot reserved
 * @ev: the slot, written
 *
 * Context: As kmemtrace_relay_reserve(), which returned @ev.
 */
static __always_inline void kmemtrace_relay_commit(struct kmemtrace_ring *ring,
						   struct kmemtrace_event *ev)
{
	void *next = (void *)ev + KMEMTRACE_EVENT_SIZE;
	u64 head = ring->head + KMEMTRACE_EVENT_SIZE;

	ring->next = next == ring->end ? ring->start : next;
	/* Publish the event; pairs with the reader's load-acquire. */
	smp_store_release(&ring->head, head);
	if (unlikely(head >= READ_ONCE(ring->wake_at)))
		kmemtrace_relay_wake(ring);
}

int kmemtrace_relay_open(struct dentry *dir);
bool kmemtrace_relay_allocated(void);
int kmemtrace_relay_setup_files(struct dentry *dir);
void kmemtrace_relay_close(void);
u64 kmemtrace_relay_bytes(void);

#if IS_ENABLED(CONFIG_KMEMTRACE_KUNIT_TEST)
/**
 * struct kmemtrace_capture - events copied aside for the KUnit test
 * @task:   if set, only events recorded in this task's context are copied;
 *          if NULL, events of every context
 * @events: array the events are copied to
 * @max:    size of @events
 * @next:   slots taken; events beyond @max are lost
 */
struct kmemtrace_capture {
	struct task_struct	*task;
	struct kmemtrace_event	*events;
	unsigned int		max;
	atomic_t		next;
};

void kmemtrace_capture_start(struct kmemtrace_capture *c);
unsigned int kmemtrace_capture_stop(void);
void kmemtrace_capture_event(const struct kmemtrace_event *ev);
#else
static inline void kmemtrace_capture_event(const struct kmemtrace_event *ev) { }
#endif

/* === Recording: what the probes (probes.c) inline ======================== */

/**
 * struct kmemtrace_slot - an event being recorded
 * @ev:		where the probe writes it: the relay ring's next slot, or
 *		this CPU's spare event if the ring is off or full
 * @ring:	this CPU's ring if @ev is its slot, else NULL (the event is
 *		dropped if relay records)
 * @irqflags:	the interrupt state to restore
 * @flags:	KMEMTRACE_FLAG_* of the context and scope
 * @caller:	the call site the scope names, 0 if none
 */
struct kmemtrace_slot {
	struct kmemtrace_event	*ev;
	struct kmemtrace_ring	*ring;
	unsigned long		irqflags;
	unsigned int		flags;
	unsigned long		caller;
};

/* Where an event comes from, for kmemtrace_begin() */
enum kmemtrace_source {
	/* an allocator API's own event */
	KMEMTRACE_SOURCE_API,
	/* the page allocator's, under the API call that asked for the pages */
	KMEMTRACE_SOURCE_PAGES,
	/* a vmalloc() area's own event, under its KMEMTRACE_SCOPE_VMALLOC */
	KMEMTRACE_SOURCE_VMALLOC,
};

/*
 * Set while a recording samples and no ftrace_ops hands the entry points
 * that add flags to their copies: a sampled allocation looks for them on
 * its stack (kmemtrace_stack_scoped()).  core.c.
 */
extern bool kmemtrace_stack_scopes;

/**
 * kmemtrace_sample() - whether a sampling recording records this event
 * @slot: the event being recorded, its flags set
 * @src: where it comes from, as for kmemtrace_begin()
 * @kind: KMEMTRACE_KIND_*
 * @ptr: the memory
 *
 * The exact part, after the fast path (a probe's or the allocator's
 * hook): an alloc here crossed the count (kmemtrace_sample_alloc_hit())
 * and is recorded but for the allocators' own allocations (backing) and
 * the pages a large kmalloc() suppresses, whether their scope says so or,
 * with kmemtrace_stack_scopes, the stack (the walk is then the event's); a
 * free or resize is recorded if its memory was sampled, and so is a
 * split, which ends the sampled object's tracking: its pieces' frees are
 * not recorded, and the event says so (KMEMTRACE_FLAG_UNTRACKED).
 *
 * Context: Interrupts disabled, not NMI.
 * Return: true to record the event.
 */
static __always_inline bool kmemtrace_sample(struct kmemtrace_slot *slot,
					     enum kmemtrace_source src,
					     u8 kind, unsigned long ptr)
{
	/*
	 * The out-of-line halves never see @slot: a pointer to it would keep
	 * it in memory, in every probe, for every event (+27 instructions a
	 * recorded event when they took it).
	 */
	if (kind == KMEMTRACE_KIND_ALLOC) {
		int flags;

		if (slot->flags & (KMEMTRACE_FLAG_BACKING |
				   KMEMTRACE_FLAG_UNPAIRED))
			return false;
		/* What kmemtrace_begin() makes backing, or suppresses. */
		if (unlikely(READ_ONCE(kmemtrace_stack_scopes)) &&
		    kmemtrace_stack_scoped(src == KMEMTRACE_SOURCE_VMALLOC ?
					   KMEMTRACE_SCOPE_BACKING :
					   src == KMEMTRACE_SOURCE_API ?
					   KMEMTRACE_SCOPE_BACKING |
					   KMEMTRACE_SCOPE_VMALLOC :
					   KMEMTRACE_SCOPE_BACKING |
					   KMEMTRACE_SCOPE_VMALLOC |
					   KMEMTRACE_SCOPE_SUPPRESS, ptr))
			return false;
		flags = __kmemtrace_sample_alloc(ptr);
		if (unlikely(flags < 0)) {
			if (unlikely(READ_ONCE(kmemtrace_stack_scopes)))
				kmemtrace_stack_unscoped();
			return false;
		}
		slot->flags |= flags;
	} else if (kind == KMEMTRACE_KIND_SPLIT) {
		if (!kmemtrace_sample_split(ptr))
			return false;
		slot->flags |= KMEMTRACE_FLAG_UNTRACKED;
	} else if (!kmemtrace_sample_other(ptr, kind == KMEMTRACE_KIND_FREE)) {
		return false;
	}
	return true;
}

/**
 * kmemtrace_begin() - start recording an event
 * @slot: filled in for kmemtrace_commit()
 * @src: where the event comes from: the page allocator's events the scope
 *	may suppress (KMEMTRACE_SCOPE_SUPPRESS) or flag unpaired, and a
 *	vmalloc() area's own event is not its backing store
 * @kind: KMEMTRACE_KIND_* of the event
 * @ptr: its memory
 * @flags: KMEMTRACE_FLAG_* the event has whatever its scope: backing for
 *	the objects of a cache of allocator bookkeeping (kmemtrace_cache_backing())
 *
 * Looks the context and its scope up once, disables interrupts and
 * reserves the event's place: the probe then writes every field of
 * @slot->ev but seq, timestamp, cpu and pid, and calls kmemtrace_commit().
 *
 * Context: Any context; takes no lock.
 * Return: false if the event is not recorded: suppressed by the scope,
 * not sampled (kmemtrace_sample()), or in NMI context (counted as
 * dropped, see kmemtrace_skip_nmi()).
 */
static __always_inline bool kmemtrace_begin(struct kmemtrace_slot *slot,
					    enum kmemtrace_source src, u8 kind,
					    unsigned long ptr, unsigned int flags)
{
	const struct kmemtrace_scope *s;

	if (likely(in_task())) {
		s = &current->kmemtrace_scope;
		slot->flags = flags;
	} else {
		unsigned int level = interrupt_context_level();

		/* Level 3 is NMI: it could land in the middle of an event. */
		if (unlikely(level == 3)) {
			kmemtrace_skip_nmi();
			return false;
		}
		s = kmemtrace_scope_of(level);
		slot->flags = flags | KMEMTRACE_FLAG_INTERRUPT;
	}
	slot->caller = s->caller;
	if (unlikely(s->flags)) {
		if (s->flags & (src == KMEMTRACE_SOURCE_VMALLOC ?
				KMEMTRACE_SCOPE_BACKING :
				KMEMTRACE_SCOPE_BACKING | KMEMTRACE_SCOPE_VMALLOC))
			slot->flags |= KMEMTRACE_FLAG_BACKING;
		if (src == KMEMTRACE_SOURCE_PAGES &&
		    (s->flags & KMEMTRACE_SCOPE_SUPPRESS))
			return false;
		if (src == KMEMTRACE_SOURCE_PAGES &&
		    (s->flags & KMEMTRACE_SCOPE_UNPAIRED))
			slot->flags |= KMEMTRACE_FLAG_UNPAIRED;
	}
	local_irq_save(slot->irqflags);
	if (static_branch_unlikely(&kmemtrace_sample_key) &&
	    !kmemtrace_sample(slot, src, kind, ptr)) {
		local_irq_restore(slot->irqflags);
		return false;
	}
	slot->ring = NULL;
	if (static_branch_likely(&kmemtrace_relay_key)) {
		struct kmemtrace_ring *ring = this_cpu_ptr(&kmemtrace_ring);

		slot->ev = kmemtrace_relay_reserve(ring);
		if (likely(slot->ev)) {
			slot->ring = ring;
			return true;
		}
	}
	slot->ev = this_cpu_ptr(&kmemtrace_spare);
	return true;
}

/**
 * kmemtrace_commit() - complete the event and record it
 * @slot: as kmemtrace_begin() left it, with the event written
 *
 * Stamps the event (with the tracer's time stamp when the tracer records
 * it too), numbers it if the relay streams record, and publishes it, or
 * counts it as dropped if the ring was full.
 *
 * Context: After kmemtrace_begin() returned true, in the same context.
 */
static __always_inline void kmemtrace_commit(struct kmemtrace_slot *slot)
{
	struct kmemtrace_event *ev = slot->ev;

	ev->cpu = smp_processor_id();
	ev->pid = current->pid;
	ev->timestamp = kmemtrace_stamp(ev, slot->irqflags);
	if (static_branch_likely(&kmemtrace_relay_key)) {
		ev->seq = this_cpu_inc_return(kmemtrace_cpu.seq) - 1;
		kmemtrace_capture_event(ev);
		if (likely(slot->ring)) {
			kmemtrace_relay_commit(slot->ring, ev);
		} else {
			this_cpu_inc(kmemtrace_cpu.dropped);
			kmemtrace_relay_full();
		}
	} else {
		ev->seq = 0;
		kmemtrace_capture_event(ev);
	}
	local_irq_restore(slot->irqflags);
}

/**
 * kmemtrace_fill() - write the fields every probe sets
 * @slot: from kmemtrace_begin()
 * @kind: KMEMTRACE_KIND_*
 * @type: KMEMTRACE_TYPE_*
 * @call_site: the tracepoint's call site, used unless the scope names one
 * @ptr: the allocation
 *
 * The probe writes the other fields: every field must be written, the
 * slot holds an older event.
 *
 * Return: the event, to write the other fields into.
 */
static __always_inline struct kmemtrace_event *
kmemtrace_fill(struct kmemtrace_slot *slot, u8 kind, u8 type,
	       unsigned long call_site, unsigned long ptr)
{
	struct kmemtrace_event *ev = slot->ev;
	/* The event's first 8 bytes, a constant: one store, not five. */
	const struct {
		u16	magic;
		u8	abi_version;
		u8	kind;
		u8	type;
		u8	__reserved0[3];
	} __packed head = {
		.magic		= KMEMTRACE_MAGIC,
		.abi_version	= KMEMTRACE_ABI_VERSION,
		.kind		= kind,
		.type		= type,
	};

	BUILD_BUG_ON(sizeof(head) != offsetof(struct kmemtrace_event, timestamp));
	BUILD_BUG_ON(offsetof(typeof(head), type) !=
		     offsetof(struct kmemtrace_event, type));
	memcpy(ev, &head, sizeof(head));
	ev->flags = slot->flags;
	ev->__reserved1 = 0;
	/* Both zero first: one store, and the other written while sampling. */
	ev->stack_id = 0;
	ev->sample_period = 0;
	/*
	 * The key is switched only while the relay streams do not record:
	 * every event of a sampling recording is a sample.
	 */
	if (static_branch_unlikely(&kmemtrace_sample_key))
		ev->sample_period = READ_ONCE(kmemtrace_sample_period);
#ifdef CONFIG_MEM_ALLOC_PROFILING
	/* The line alloc_hooks() made current: the allocation's codetag. */
	ev->tag = kind == KMEMTRACE_KIND_FREE || kind == KMEMTRACE_KIND_SPLIT ?
		  0 : (unsigned long)current->alloc_tag;
#else
	ev->tag = 0;
#endif
	ev->call_site = slot->caller ?: call_site;
	ev->ptr = ptr;
#ifdef CONFIG_KMEMTRACE_STACKS
	/*
	 * A sampled allocation always gets its stack, and the caller on it
	 * (kmemtrace_name_key is off while sampling); a sampled free gets
	 * its caller from as much of its stack as it takes.
	 */
	if (static_branch_unlikely(&kmemtrace_sample_key) &&
	    kind != KMEMTRACE_KIND_FREE)
		__kmemtrace_stack(ev);
	else if (static_branch_unlikely(&kmemtrace_sample_key) &&
		 !static_branch_likely(&kmemtrace_name_key))
		__kmemtrace_stack_name(ev);
	else if (static_branch_unlikely(&kmemtrace_stack_key))
		kmemtrace_stack(ev, kind);
#endif
	return ev;
}

#endif /* _MM_KMEMTRACE_KMEMTRACE_H */
