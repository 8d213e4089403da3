// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace clocks: what the relay events are stamped with.
 *
 *   local  trace_clock_local()'s sched_clock(), read as the event is
 *          written (the default); while the kmemtrace tracer records too,
 *          the time stamp of the tracer's entry for the same event
 *   tsc    the x86 TSC, read as the event is written (rdtsc: some 20
 *          instructions fewer than sched_clock() per event), and converted
 *          to sched_clock() nanoseconds when a reader takes the events:
 *          the streams hold nanoseconds either way
 *
 * sched_clock() on x86 is the TSC converted with a scale and an offset
 * (cyc2ns); "tsc" is offered where sched_clock() is that, not a
 * hypervisor's clock.  The reader converts with the scale in force when it
 * reads (on its own CPU): the events' times are what sched_clock() read
 * then, to the nanosecond, as long as the scale did not change between
 * the event and its reading.  It changes once at boot, when the TSC's
 * calibration is refined (about a second after it starts: events recorded
 * before are off by what the refinement changed, some microseconds), and
 * on CPUs whose TSC rate is not constant, with their frequency.
 *
 * The clock is chosen while the buffers are released, so that a stream
 * holds one clock's events: "clock" in /sys/kernel/debug/kmemtrace, or
 * kmemtrace.clock= at boot.  See Documentation/trace/kmemtrace.rst.
 */

#define pr_fmt(fmt) "kmemtrace: " fmt

#include <linux/init.h>
#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#ifdef CONFIG_X86_TSC
#include <asm/timer.h>
#include <asm/tsc.h>
#endif

#include "kmemtrace.h"

DEFINE_STATIC_KEY_FALSE(kmemtrace_tsc_key);

#ifdef CONFIG_X86_TSC
/* sched_clock()'s conversion (__cycles_2_ns()), with this CPU's scale. */
static u64 tsc_to_ns(const struct cyc2ns_data *data, u64 tsc)
{
	return data->cyc2ns_offset +
	       mul_u64_u32_shr(tsc, data->cyc2ns_mul, data->cyc2ns_shift);
}
#endif

/* kmemtrace.clock=: "local" or "tsc", applied by kmemtrace_clock_boot(). */
static bool kmemtrace_tsc_at_boot;

#ifdef MODULE_PARAM_PREFIX
#undef MODULE_PARAM_PREFIX
#endif
#define MODULE_PARAM_PREFIX "kmemtrace."

/* The clocks by number: kmemtrace_tsc_key on is 1. */
const char *const kmemtrace_clock_names[2] = { "local", "tsc" };

static int param_set_clock(const char *val, const struct kernel_param *kp)
{
	int i = sysfs_match_string(kmemtrace_clock_names, val ?: "");

	if (i >= 0) {
		*(bool *)kp->arg = i;
		return 0;
	}
	pr_err("invalid %s=%s: want local or tsc, keeping %s\n", kp->name,
	       val ?: "", kmemtrace_clock_names[*(bool *)kp->arg]);
	return -EINVAL;
}

static int param_get_clock(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%s\n", kmemtrace_clock_names[*(bool *)kp->arg]);
}

static const struct kernel_param_ops kmemtrace_clock_ops = {
	.set = param_set_clock,
	.get = param_get_clock,
};

module_param_cb(clock, &kmemtrace_clock_ops, &kmemtrace_tsc_at_boot, 0444);

/**
 * kmemtrace_tsc_usable() - whether the "tsc" clock can be chosen
 *
 * Return: true where sched_clock() is the TSC converted (x86, a TSC with a
 * known rate, no hypervisor's sched_clock()).
 */
bool kmemtrace_tsc_usable(void)
{
#ifdef CONFIG_X86_TSC
	return cpu_feature_enabled(X86_FEATURE_TSC) && tsc_khz &&
	       using_native_sched_clock();
#else
	return false;
#endif
}

/**
 * kmemtrace_clock_boot() - apply kmemtrace.clock=, before recording starts
 *
 * Context: Early boot (kmemtrace's early_initcall), before the buffers are
 * allocated.
 */
void __init kmemtrace_clock_boot(void)
{
	if (!kmemtrace_tsc_at_boot)
		return;
	if (kmemtrace_tsc_usable())
		static_branch_enable(&kmemtrace_tsc_key);
	else
		pr_warn("clock=tsc: sched_clock() is not the TSC here, recording with local\n");
}

/**
 * kmemtrace_clock_convert() - make the time stamps of new events nanoseconds
 * @ring: a CPU's ring, its reader serialised (the cpuN file's inode lock)
 * @start: the ring's buffer
 * @head: @ring's head, read with acquire: the events before it are whole
 *
 * With the "tsc" clock, converts the TSC stamps of the events from where
 * the reader converted up to last time (or the tail, if it handed back
 * more) to @head, in place: the writer does not touch them until they are
 * handed back.  Called before the events are copied out (read()) or their
 * positions given (KMEMTRACE_IOC_POS).
 *
 * Context: Process context.
 */
void kmemtrace_clock_convert(struct kmemtrace_ring *ring, void *start, u64 head)
{
#ifdef CONFIG_X86_TSC
	u64 from = max(ring->stamped, ring->tail);
	size_t size = kmemtrace_ring_size, off;
	struct cyc2ns_data data;

	if (!static_key_enabled(&kmemtrace_tsc_key) || from >= head)
		return;
	/* sched_clock()'s scale, read once for the batch. */
	cyc2ns_read_begin(&data);
	cyc2ns_read_end();
	off = ring->tail_pos + (from - ring->tail);
	if (off >= size)
		off -= size;
	for (; from < head; from += KMEMTRACE_EVENT_SIZE) {
		struct kmemtrace_event *ev = start + off;

		ev->timestamp = tsc_to_ns(&data, ev->timestamp);
		off += KMEMTRACE_EVENT_SIZE;
		if (off == size)
			off = 0;
	}
	ring->stamped = head;
#endif
}
