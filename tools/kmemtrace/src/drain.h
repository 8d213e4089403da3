/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace - copying one CPU's stream to a file in a thread of its own
 *
 * record starts one drain per cpuN file: a thread that copies the stream
 * to its output file as the kernel fills it, so that every CPU's buffer is
 * emptied in parallel (as trace-cmd record runs one reader per CPU).  The
 * drain also notes the pids its events name, for record's task names: a
 * pid it has not seen before is queued for record's main thread, which
 * reads the task's name while the task still exists.
 *
 * Where the kernel lets it (KMEMTRACE_IOC_POS), a drain maps the CPU's
 * buffer and writes the events to the file straight from it, then hands
 * them back (KMEMTRACE_IOC_CONSUME): one copy of each event, where read()
 * and write() make two.  Other files (older kernels, the tests' plain
 * files) are read().
 *
 * A drain whose output fails (a full disk, a file size limit) says so at
 * once and is failed (kmt_drain_failed()), for record to stop.  It keeps
 * the whole events it wrote, cutting a partly written one off the file,
 * and goes on emptying the stream without writing it, counting the
 * events it read but did not write (kmt_drain_unwritten()): they are
 * lost, and record writes how many for check to find.
 */
#ifndef __KMEMTRACE_DRAIN_H
#define __KMEMTRACE_DRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kmt_drain;

/**
 * kmt_drain_start() - start copying a stream
 * @in: the cpuN file, opened O_RDONLY | O_NONBLOCK
 * @out: the output file
 * @cpu: the CPU the stream is of: the drain runs there if it can; -1: any
 * @name: names the stream in messages, e.g. "/sys/kernel/debug/kmemtrace/cpu0"
 * @out_name: names the output file in messages
 * @notify: an eventfd the drain writes to when it queued new pids, or -1
 *	not to note the pids at all (kmt_drain_pids() then has none)
 * @map: map the kernel's buffer if it can be; false: always read()
 *
 * The drain owns neither file: the caller closes them after
 * kmt_drain_finish().
 *
 * Return: the drain, or NULL with a message if its thread cannot start.
 */
struct kmt_drain *kmt_drain_start(int in, int out, int cpu, const char *name,
				  const char *out_name, int notify, bool map);

/**
 * kmt_drain_bytes() - bytes copied so far
 * @d: the drain
 *
 * Return: the bytes written to the output file; any thread may ask.
 */
uint64_t kmt_drain_bytes(const struct kmt_drain *d);

/**
 * kmt_drain_failed() - whether the drain failed
 * @d: the drain
 *
 * Return: true once reading the stream or writing the output failed (the
 * drain said why); any thread may ask.
 */
bool kmt_drain_failed(const struct kmt_drain *d);

/**
 * kmt_drain_unwritten() - events read but not written
 * @d: the drain
 *
 * Return: the events read from the stream since its output failed, the
 * one that failed among them; any thread may ask.
 */
uint64_t kmt_drain_unwritten(const struct kmt_drain *d);

/**
 * kmt_drain_pids() - take the pids seen for the first time
 * @d: the drain
 * @pids: where to store them
 * @max: room in @pids
 *
 * Return: the number stored; call again while it returns @max.
 */
size_t kmt_drain_pids(struct kmt_drain *d, uint32_t *pids, size_t max);

/**
 * kmt_drain_finish() - copy what is left and stop
 * @d: the drain
 *
 * Called once nothing writes to the stream any more (kmemtrace disabled):
 * the drain copies until the stream reads empty (after an output error,
 * reads and counts it), then its thread ends.  The drain's pids, bytes
 * and unwritten events can still be taken.
 *
 * Return: 0, or -1 if the drain failed (it printed why).
 */
int kmt_drain_finish(struct kmt_drain *d);

/**
 * kmt_drain_free() - free a finished drain
 * @d: the drain, or NULL
 */
void kmt_drain_free(struct kmt_drain *d);

#endif /* __KMEMTRACE_DRAIN_H */
