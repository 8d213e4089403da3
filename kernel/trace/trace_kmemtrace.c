// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace tracer: kernel memory allocations and frees in the ftrace
 * ring buffer.
 *
 *   echo kmemtrace > /sys/kernel/tracing/current_tracer
 *   cat /sys/kernel/tracing/trace
 *
 * The kmemtrace probes (mm/kmemtrace) hand every event to
 * kmemtrace_tracer_event() while this tracer is selected, which reserves
 * a kmem_alloc or kmem_free entry (kernel/trace/trace_entries.h) in the
 * ring buffer and commits it: the path trace_function() takes for the
 * function tracer.  With the tracer option kmem_function set, this tracer
 * also registers an ftrace_ops that records function entries the same
 * way, so one buffer holds the calls leading to each allocation in time
 * order.  That ftrace_ops is the trace array's own (tr->ops), as for the
 * irqsoff and wakeup tracers, so set_ftrace_filter, set_ftrace_notrace
 * and set_ftrace_pid choose the functions and tasks it records.
 * kernel/trace is built without function tracing, and the probes and the
 * relay writer are too, so the tracer never traces itself; the ring
 * buffer's own recursion protection handles an allocation event in the
 * middle of another.  Like the function tracer, the tracer has comms
 * saved at each context switch, so that readers of the buffer (trace-cmd,
 * perf) name the tasks.
 *
 * Clock: while the relay streams record too, kmemtrace_tracer_event()
 * returns the time stamp the ring buffer gave the entry, and
 * kmemtrace_commit() stamps the relay event with it, so an event recorded
 * by both has the same time in both; both use trace_clock_local()
 * ("local", the default trace_clock).  While the tracer records alone,
 * or the relay streams stamp the TSC, kmemtrace_tracer_write() leaves the
 * stamp unread.
 *
 * Pointers: the text outputs ("trace", kmem_minimalistic) print the
 * allocation's address with %p, hashed like the kmem trace events; raw,
 * hex, bin and the binary entries (trace_pipe_raw, trace-cmd, perf) keep
 * the value, as the kmem events' binary records do: tracefs is root-only.
 *
 * Output: one line per entry ("trace"), the compact table of the 2.6.29
 * kmemtrace tracer with the kmem_minimalistic option, and raw, hex and bin
 * through the trace options.  Relay recording (/sys/kernel/debug/kmemtrace)
 * runs independently of this tracer, at the same time if wanted.  Only the
 * top-level trace array can use the tracer: one set of probes feeds it.
 *
 * See Documentation/trace/kmemtrace.rst.
 */

#define pr_fmt(fmt) "kmemtrace: " fmt

#include <linux/ftrace.h>
#include <linux/kmemtrace.h>
#include <linux/slab.h>
#include <uapi/linux/kmemtrace.h>

#include "trace.h"
#include "trace_output.h"

/* The trace array being written, NULL while the tracer is not selected. */
static struct trace_array *kmemtrace_array;

/* The ring buffer stamps with trace_clocks[clock_id]; [0] is "local". */
#define KMEMTRACE_CLOCK_LOCAL	0

enum {
	KMEMTRACE_OPT_MINIMALISTIC	= 0x1,
	KMEMTRACE_OPT_FUNCTION		= 0x2,
};

static struct tracer_opt kmemtrace_opts[] = {
	{ TRACER_OPT(kmem_minimalistic, KMEMTRACE_OPT_MINIMALISTIC) },
	{ TRACER_OPT(kmem_function, KMEMTRACE_OPT_FUNCTION) },
	{ } /* Empty entry */
};

static struct tracer_flags kmemtrace_flags = {
	.val = 0,
	.opts = kmemtrace_opts,
};

static const char *const kmemtrace_type_names[] = {
	[KMEMTRACE_TYPE_KMALLOC]	= "kmalloc",
	[KMEMTRACE_TYPE_CACHE]		= "cache",
	[KMEMTRACE_TYPE_PAGES]		= "pages",
	[KMEMTRACE_TYPE_PERCPU]		= "percpu",
	[KMEMTRACE_TYPE_VMALLOC]	= "vmalloc",
};

/*
 * The numbers the print formats of kmem_alloc and kmem_free name
 * (trace_entries.h) must be the kernel's.
 */
static_assert(KMEMTRACE_KIND_ALLOC == 1 && KMEMTRACE_KIND_REALLOC == 3 &&
	      KMEMTRACE_KIND_SPLIT == 4);
static_assert(KMEMTRACE_TYPE_KMALLOC == 1 && KMEMTRACE_TYPE_CACHE == 2 &&
	      KMEMTRACE_TYPE_PAGES == 3 && KMEMTRACE_TYPE_PERCPU == 4 &&
	      KMEMTRACE_TYPE_VMALLOC == 5);
static_assert(KMT_GFP_TRANSHUGE == (__force unsigned long)GFP_TRANSHUGE);
static_assert(KMT_GFP_TRANSHUGE_LIGHT == (__force unsigned long)GFP_TRANSHUGE_LIGHT);
static_assert(KMT_GFP_HIGHUSER_MOVABLE == (__force unsigned long)GFP_HIGHUSER_MOVABLE);
static_assert(KMT_GFP_HIGHUSER == (__force unsigned long)GFP_HIGHUSER);
static_assert(KMT_GFP_USER == (__force unsigned long)GFP_USER);
static_assert(KMT_GFP_KERNEL_ACCOUNT == (__force unsigned long)GFP_KERNEL_ACCOUNT);
static_assert(KMT_GFP_KERNEL == (__force unsigned long)GFP_KERNEL);
static_assert(KMT_GFP_NOFS == (__force unsigned long)GFP_NOFS);
static_assert(KMT_GFP_ATOMIC == (__force unsigned long)GFP_ATOMIC);
static_assert(KMT_GFP_NOIO == (__force unsigned long)GFP_NOIO);
static_assert(KMT_GFP_NOWAIT == (__force unsigned long)GFP_NOWAIT);
static_assert(KMT_GFP_DMA == (__force unsigned long)GFP_DMA);
static_assert(KMT_GFP_HIGHMEM == (__force unsigned long)__GFP_HIGHMEM);
static_assert(KMT_GFP_DMA32 == (__force unsigned long)GFP_DMA32);
static_assert(KMT_GFP_HIGH == (__force unsigned long)__GFP_HIGH);
static_assert(KMT_GFP_IO == (__force unsigned long)__GFP_IO);
static_assert(KMT_GFP_FS == (__force unsigned long)__GFP_FS);
static_assert(KMT_GFP_NOWARN == (__force unsigned long)__GFP_NOWARN);
static_assert(KMT_GFP_RETRY_MAYFAIL == (__force unsigned long)__GFP_RETRY_MAYFAIL);
static_assert(KMT_GFP_NOFAIL == (__force unsigned long)__GFP_NOFAIL);
static_assert(KMT_GFP_NORETRY == (__force unsigned long)__GFP_NORETRY);
static_assert(KMT_GFP_COMP == (__force unsigned long)__GFP_COMP);
static_assert(KMT_GFP_ZERO == (__force unsigned long)__GFP_ZERO);
static_assert(KMT_GFP_NOMEMALLOC == (__force unsigned long)__GFP_NOMEMALLOC);
static_assert(KMT_GFP_MEMALLOC == (__force unsigned long)__GFP_MEMALLOC);
static_assert(KMT_GFP_HARDWALL == (__force unsigned long)__GFP_HARDWALL);
static_assert(KMT_GFP_THISNODE == (__force unsigned long)__GFP_THISNODE);
static_assert(KMT_GFP_RECLAIMABLE == (__force unsigned long)__GFP_RECLAIMABLE);
static_assert(KMT_GFP_MOVABLE == (__force unsigned long)__GFP_MOVABLE);
static_assert(KMT_GFP_ACCOUNT == (__force unsigned long)__GFP_ACCOUNT);
static_assert(KMT_GFP_WRITE == (__force unsigned long)__GFP_WRITE);
static_assert(KMT_GFP_RECLAIM == (__force unsigned long)__GFP_RECLAIM);
static_assert(KMT_GFP_DIRECT_RECLAIM == (__force unsigned long)__GFP_DIRECT_RECLAIM);
static_assert(KMT_GFP_KSWAPD_RECLAIM == (__force unsigned long)__GFP_KSWAPD_RECLAIM);
static_assert(KMT_GFP_ZEROTAGS == (__force unsigned long)__GFP_ZEROTAGS);

/* The type letters of the minimalistic format; 2.6.29 had K, C and P. */
static const char kmemtrace_type_letters[] = " KCPUV";

static const char *type_name(unsigned int type)
{
	if (type < ARRAY_SIZE(kmemtrace_type_names) && kmemtrace_type_names[type])
		return kmemtrace_type_names[type];
	return "unknown";
}

static char type_letter(unsigned int type)
{
	return type < sizeof(kmemtrace_type_letters) - 1 ?
		kmemtrace_type_letters[type] : '?';
}

/* === Recording =========================================================== */

/*
 * Commit an entry and, if @stamp, return its time stamp, read while it is
 * still reserved, which is what readers see for it:
 * ring_buffer_event_time_stamp() returns the time the reservation took,
 * from which the entry's delta is computed.  The one exception is an NMI
 * writing into this CPU's buffer in the middle of the reservation: the
 * ring buffer may then give the entry the time of the one before it
 * (delta 0).  Only the relay streams want the stamp (the same time in
 * both): while the tracer alone records, the entry keeps its own and the
 * lookup is not made.
 */
static __always_inline u64 commit_entry(struct trace_buffer *buffer,
					struct ring_buffer_event *event,
					bool stamp)
{
	/* Only between reserve and commit: read it first. */
	u64 ts = stamp ? ring_buffer_event_time_stamp(buffer, event) : 0;

	trace_buffer_unlock_commit_nostack(buffer, event);
	return ts;
}

static __always_inline u64 record_alloc(struct trace_buffer *buffer,
					const struct kmemtrace_event *ev,
					unsigned int trace_ctx, bool stamp)
{
	struct ring_buffer_event *event;
	struct kmemtrace_alloc_entry *entry;

	event = trace_buffer_lock_reserve(buffer, TRACE_KMEM_ALLOC,
					  sizeof(*entry), trace_ctx);
	if (!event)
		return 0;
	entry = ring_buffer_event_data(event);
	entry->call_site	= ev->call_site;
	entry->ptr		= ev->ptr;
	entry->bytes_req	= ev->bytes_req;
	entry->bytes_alloc	= ev->bytes_alloc;
	entry->gfp_flags	= ev->gfp_flags;
	entry->node		= ev->node;
	entry->cache_id		= ev->cache_id;
	entry->flags		= ev->flags;
	entry->type		= ev->type;
	entry->kind		= ev->kind;
	entry->order		= ev->order;
	entry->migratetype	= ev->migratetype;
	return commit_entry(buffer, event, stamp);
}

static __always_inline u64 record_free(struct trace_buffer *buffer,
				       const struct kmemtrace_event *ev,
				       unsigned int trace_ctx, bool stamp)
{
	struct ring_buffer_event *event;
	struct kmemtrace_free_entry *entry;

	event = trace_buffer_lock_reserve(buffer, TRACE_KMEM_FREE,
					  sizeof(*entry), trace_ctx);
	if (!event)
		return 0;
	entry = ring_buffer_event_data(event);
	entry->call_site	= ev->call_site;
	entry->ptr		= ev->ptr;
	entry->bytes		= ev->bytes_alloc;
	entry->cache_id		= ev->cache_id;
	entry->flags		= ev->flags;
	entry->type		= ev->type;
	entry->order		= ev->order;
	return commit_entry(buffer, event, stamp);
}

/*
 * The entry of @ev, and its time stamp if @stamp: a constant in each of
 * the two callers below, so that neither tests it.
 */
static __always_inline u64 tracer_record(const struct kmemtrace_event *ev,
					 unsigned long irqflags, bool stamp)
{
	struct trace_array *tr = READ_ONCE(kmemtrace_array);
	struct trace_array_cpu *data;
	unsigned int trace_ctx;
	u64 ts;

	if (unlikely(!tr))
		return 0;
	data = per_cpu_ptr(tr->array_buffer.data, smp_processor_id());
	if (atomic_read(&data->disabled))
		return 0;
	trace_ctx = tracing_gen_ctx_flags(irqflags);
	if (ev->kind == KMEMTRACE_KIND_FREE)
		ts = record_free(tr->array_buffer.buffer, ev, trace_ctx, stamp);
	else
		ts = record_alloc(tr->array_buffer.buffer, ev, trace_ctx, stamp);
	if (!stamp)
		return 0;
	/* Relay events are in trace_clock_local() time, whatever trace_clock. */
	return READ_ONCE(tr->clock_id) == KMEMTRACE_CLOCK_LOCAL ? ts : 0;
}

u64 kmemtrace_tracer_event(const struct kmemtrace_event *ev,
			   unsigned long irqflags)
{
	return tracer_record(ev, irqflags, true);
}

void kmemtrace_tracer_write(const struct kmemtrace_event *ev,
			    unsigned long irqflags)
{
	tracer_record(ev, irqflags, false);
}

#ifdef CONFIG_FUNCTION_TRACER
/*
 * kmem_function: the function tracer's entries, into the same buffer, from
 * the trace array's ftrace_ops, which set_ftrace_filter, set_ftrace_notrace
 * and set_ftrace_pid filter (ftrace_init_array_ops()).
 */
static void kmemtrace_function_call(unsigned long ip, unsigned long parent_ip,
				    struct ftrace_ops *op,
				    struct ftrace_regs *fregs)
{
	struct trace_array *tr = op->private;
	struct trace_array_cpu *data;
	int bit;

	if (unlikely(!READ_ONCE(kmemtrace_array)))
		return;
	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0)
		return;
	data = per_cpu_ptr(tr->array_buffer.data, smp_processor_id());
	if (!atomic_read(&data->disabled))
		trace_function(tr, ip, parent_ip, tracing_gen_ctx_dec());
	ftrace_test_recursion_unlock(bit);
}

/* Whether kmemtrace_function_call() is registered. */
static bool kmemtrace_function_on;

static int kmemtrace_function_set(struct trace_array *tr, bool on)
{
	int ret = 0;

	if (on == kmemtrace_function_on)
		return 0;
	if (on)
		ret = register_ftrace_function(tr->ops);
	else
		unregister_ftrace_function(tr->ops);
	if (!ret)
		kmemtrace_function_on = on;
	return ret;
}
#else
/* Without the function tracer, kmem_function cannot be set. */
static int kmemtrace_function_set(struct trace_array *tr, bool on)
{
	return on ? -EOPNOTSUPP : 0;
}
#endif

/* === Tracer ============================================================== */

static int kmemtrace_tracer_init(struct trace_array *tr)
{
	int ret;

	tracing_reset_online_cpus(&tr->array_buffer);
	ftrace_init_array_ops(tr, kmemtrace_function_call);
	/* Comms for the readers of the buffer, as the function tracer does. */
	tracing_start_cmdline_record();
	WRITE_ONCE(kmemtrace_array, tr);
	ret = kmemtrace_tracer_start();
	if (!ret && (kmemtrace_flags.val & KMEMTRACE_OPT_FUNCTION))
		ret = kmemtrace_function_set(tr, true);
	if (ret) {
		kmemtrace_tracer_stop();
		WRITE_ONCE(kmemtrace_array, NULL);
		tracing_stop_cmdline_record();
		ftrace_reset_array_ops(tr);
		pr_err("cannot start the tracer: %d\n", ret);
	}
	return ret;
}

static void kmemtrace_tracer_reset(struct trace_array *tr)
{
	kmemtrace_function_set(tr, false);
	kmemtrace_tracer_stop();
	WRITE_ONCE(kmemtrace_array, NULL);
	tracing_stop_cmdline_record();
	ftrace_reset_array_ops(tr);
}

static int kmemtrace_set_flag(struct trace_array *tr, u32 old_flags, u32 bit,
			      int set)
{
	if (bit != KMEMTRACE_OPT_FUNCTION)
		return 0;
	if (!IS_ENABLED(CONFIG_FUNCTION_TRACER) && set) {
		pr_warn("kmem_function needs CONFIG_FUNCTION_TRACER\n");
		return -EINVAL;
	}
	if (!READ_ONCE(kmemtrace_array))
		return 0;
	return kmemtrace_function_set(tr, set);
}

/* === Output ============================================================== */

/*
 * Output runs in any context, also from ftrace_dump() on an oops in an
 * interrupt or NMI: kmemtrace_cache_name() takes no lock.
 */
static void print_cache(struct trace_seq *s, unsigned int type,
			unsigned int cache_id)
{
	char name[32];

	if (type != KMEMTRACE_TYPE_CACHE)
		return;
	if (kmemtrace_cache_name(cache_id, name, sizeof(name)))
		trace_seq_printf(s, " cache=%s", name);
	else
		trace_seq_printf(s, " cache=#%u", cache_id);
}

/* An allocation, a resize in place or a split: what the entry is. */
static const char *kind_name(unsigned int kind)
{
	return kind == KMEMTRACE_KIND_REALLOC ? "realloc" :
	       kind == KMEMTRACE_KIND_SPLIT ? "split" : "alloc";
}

static char kind_letter(unsigned int kind)
{
	return kind == KMEMTRACE_KIND_REALLOC ? '~' :
	       kind == KMEMTRACE_KIND_SPLIT ? '/' : '+';
}

static void print_flags(struct trace_seq *s, unsigned int flags)
{
	if (flags & KMEMTRACE_FLAG_BACKING)
		trace_seq_puts(s, " backing");
}

static enum print_line_t alloc_trace(struct trace_iterator *iter, int flags,
				     struct trace_event *event)
{
	struct kmemtrace_alloc_entry *e;
	struct trace_seq *s = &iter->seq;
	gfp_t gfp;

	trace_assign_type(e, iter->ent);
	gfp = (__force gfp_t)e->gfp_flags;
	trace_seq_printf(s,
			 "kmem_%s: %s call_site=%pS ptr=%p bytes_req=%lu bytes_alloc=%lu gfp_flags=%pGg node=%d",
			 kind_name(e->kind),
			 type_name(e->type), (void *)e->call_site,
			 (void *)e->ptr,
			 e->bytes_req, e->bytes_alloc, &gfp, e->node);
	if (e->type == KMEMTRACE_TYPE_PAGES)
		trace_seq_printf(s, " order=%u migratetype=%u", e->order,
				 e->migratetype);
	print_cache(s, e->type, e->cache_id);
	print_flags(s, e->flags);
	trace_seq_putc(s, '\n');
	return trace_handle_return(s);
}

static enum print_line_t free_trace(struct trace_iterator *iter, int flags,
				    struct trace_event *event)
{
	struct kmemtrace_free_entry *e;
	struct trace_seq *s = &iter->seq;

	trace_assign_type(e, iter->ent);
	trace_seq_printf(s, "kmem_free: %s call_site=%pS ptr=%p",
			 type_name(e->type), (void *)e->call_site,
			 (void *)e->ptr);
	if (e->type == KMEMTRACE_TYPE_PAGES)
		trace_seq_printf(s, " bytes=%lu order=%u", e->bytes, e->order);
	print_cache(s, e->type, e->cache_id);
	print_flags(s, e->flags);
	trace_seq_putc(s, '\n');
	return trace_handle_return(s);
}

static enum print_line_t alloc_raw(struct trace_iterator *iter, int flags,
				   struct trace_event *event)
{
	struct kmemtrace_alloc_entry *e;

	trace_assign_type(e, iter->ent);
	trace_seq_printf(&iter->seq, "%u %u %lx %lx %lu %lu %x %d %u %u %u %x\n",
			 e->type, e->kind, e->call_site, e->ptr, e->bytes_req,
			 e->bytes_alloc, e->gfp_flags, e->node, e->cache_id,
			 e->order, e->migratetype, e->flags);
	return trace_handle_return(&iter->seq);
}

static enum print_line_t free_raw(struct trace_iterator *iter, int flags,
				  struct trace_event *event)
{
	struct kmemtrace_free_entry *e;

	trace_assign_type(e, iter->ent);
	trace_seq_printf(&iter->seq, "%u %lx %lx %lu %u %u %x\n", e->type,
			 e->call_site, e->ptr, e->bytes, e->cache_id, e->order,
			 e->flags);
	return trace_handle_return(&iter->seq);
}

static enum print_line_t alloc_hex(struct trace_iterator *iter, int flags,
				   struct trace_event *event)
{
	struct kmemtrace_alloc_entry *e;
	struct trace_seq *s = &iter->seq;

	trace_assign_type(e, iter->ent);
	SEQ_PUT_HEX_FIELD(s, e->call_site);
	SEQ_PUT_HEX_FIELD(s, e->ptr);
	SEQ_PUT_HEX_FIELD(s, e->bytes_req);
	SEQ_PUT_HEX_FIELD(s, e->bytes_alloc);
	SEQ_PUT_HEX_FIELD(s, e->gfp_flags);
	SEQ_PUT_HEX_FIELD(s, e->node);
	return trace_handle_return(s);
}

static enum print_line_t free_hex(struct trace_iterator *iter, int flags,
				  struct trace_event *event)
{
	struct kmemtrace_free_entry *e;
	struct trace_seq *s = &iter->seq;

	trace_assign_type(e, iter->ent);
	SEQ_PUT_HEX_FIELD(s, e->call_site);
	SEQ_PUT_HEX_FIELD(s, e->ptr);
	SEQ_PUT_HEX_FIELD(s, e->bytes);
	return trace_handle_return(s);
}

/* The entry as laid out in the ring buffer, after the common header. */
static enum print_line_t entry_bin(struct trace_iterator *iter, int flags,
				   struct trace_event *event)
{
	size_t len = event->type == TRACE_KMEM_ALLOC ?
		sizeof(struct kmemtrace_alloc_entry) :
		sizeof(struct kmemtrace_free_entry);

	trace_seq_putmem(&iter->seq, (void *)iter->ent + sizeof(*iter->ent),
			 len - sizeof(*iter->ent));
	return trace_handle_return(&iter->seq);
}

static struct trace_event_functions kmem_alloc_funcs = {
	.trace	= alloc_trace,
	.raw	= alloc_raw,
	.hex	= alloc_hex,
	.binary	= entry_bin,
};

static struct trace_event_functions kmem_free_funcs = {
	.trace	= free_trace,
	.raw	= free_raw,
	.hex	= free_hex,
	.binary	= entry_bin,
};

static struct trace_event kmem_alloc_event = {
	.type	= TRACE_KMEM_ALLOC,
	.funcs	= &kmem_alloc_funcs,
};

static struct trace_event kmem_free_event = {
	.type	= TRACE_KMEM_FREE,
	.funcs	= &kmem_free_funcs,
};

/* kmem_minimalistic: the table of the 2.6.29 kmemtrace tracer. */
static void kmemtrace_print_header(struct seq_file *s)
{
	if (!(kmemtrace_flags.val & KMEMTRACE_OPT_MINIMALISTIC)) {
		trace_default_header(s);
		return;
	}
	seq_puts(s, "#\n");
	seq_puts(s, "# ALLOC  TYPE  REQ   GIVEN  FLAGS     POINTER            NODE  CALLER\n");
	seq_puts(s, "# FREE   |     |     |      |         |                  |     |\n");
	seq_puts(s, "# |\n\n");
}

static enum print_line_t kmemtrace_print_line(struct trace_iterator *iter)
{
	struct trace_seq *s = &iter->seq;
	struct kmemtrace_alloc_entry *a;
	struct kmemtrace_free_entry *f;

	if (!(kmemtrace_flags.val & KMEMTRACE_OPT_MINIMALISTIC))
		return TRACE_TYPE_UNHANDLED;

	switch (iter->ent->type) {
	case TRACE_KMEM_ALLOC:
		trace_assign_type(a, iter->ent);
		trace_seq_printf(s, "  %c      %c  %5lu  %5lu  %08x  %p    %4d  %pS\n",
				 kind_letter(a->kind),
				 type_letter(a->type), a->bytes_req,
				 a->bytes_alloc, a->gfp_flags, (void *)a->ptr,
				 a->node, (void *)a->call_site);
		break;
	case TRACE_KMEM_FREE:
		trace_assign_type(f, iter->ent);
		trace_seq_printf(s, "  -      %c  %5u  %5lu  %08x  %p    %4d  %pS\n",
				 type_letter(f->type), 0, f->bytes, 0,
				 (void *)f->ptr, -1, (void *)f->call_site);
		break;
	default:
		return TRACE_TYPE_UNHANDLED;
	}
	return trace_handle_return(s);
}

/* === Startup selftest ==================================================== */

#ifdef CONFIG_FTRACE_STARTUP_TEST
enum { FOUND_ALLOC = 0x1, FOUND_FREE = 0x2 };

/* Consume the buffer; which entries of the known allocation are in it. */
static unsigned int kmemtrace_selftest_scan(struct trace_array *tr,
					    unsigned long ptr)
{
	struct ring_buffer_event *event;
	unsigned int found = 0;
	unsigned long lost;
	u64 ts;
	int cpu;

	for_each_online_cpu(cpu) {
		while ((event = ring_buffer_consume(tr->array_buffer.buffer,
						    cpu, &ts, &lost))) {
			struct trace_entry *ent = ring_buffer_event_data(event);

			if (ent->type == TRACE_KMEM_ALLOC &&
			    ((struct kmemtrace_alloc_entry *)ent)->ptr == ptr)
				found |= FOUND_ALLOC;
			if (ent->type == TRACE_KMEM_FREE &&
			    ((struct kmemtrace_free_entry *)ent)->ptr == ptr)
				found |= FOUND_FREE;
		}
	}
	return found;
}

static int kmemtrace_selftest(struct tracer *trace, struct trace_array *tr)
{
	unsigned int found;
	void *p;
	int ret;

	ret = tracer_init(trace, tr);
	if (ret) {
		pr_err("selftest: cannot init the tracer: %d\n", ret);
		return ret;
	}
	p = kmalloc(73, GFP_KERNEL);
	kfree(p);
	tracing_stop();
	found = p ? kmemtrace_selftest_scan(tr, (unsigned long)p) : 0;
	trace->reset(tr);
	tracing_start();

	if (found != (FOUND_ALLOC | FOUND_FREE)) {
		pr_err("selftest: kmalloc()/kfree() left %s%s entry\n",
		       found & FOUND_ALLOC ? "" : "no kmem_alloc ",
		       found & FOUND_FREE ? "" : "no kmem_free ");
		return -1;
	}
	return 0;
}
#endif

static struct tracer kmemtrace_tracer __read_mostly = {
	.name		= "kmemtrace",
	.init		= kmemtrace_tracer_init,
	.reset		= kmemtrace_tracer_reset,
	.print_header	= kmemtrace_print_header,
	.print_line	= kmemtrace_print_line,
	.flags		= &kmemtrace_flags,
	.set_flag	= kmemtrace_set_flag,
#ifdef CONFIG_FTRACE_STARTUP_TEST
	.selftest	= kmemtrace_selftest,
#endif
};

static int __init init_kmemtrace_tracer(void)
{
	if (!register_trace_event(&kmem_alloc_event) ||
	    !register_trace_event(&kmem_free_event)) {
		pr_warn("cannot register the kmem_alloc/kmem_free output\n");
		return -ENODEV;
	}
	return register_tracer(&kmemtrace_tracer);
}
core_initcall(init_kmemtrace_tracer);
