/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace sample - the sample period of a recording, and the weight of
 * a sampled allocation
 *
 * In a sampled recording (kmemtrace.sample=N) the kernel records an
 * allocation only when its per-CPU byte countdown, drawn from an
 * exponential distribution of mean N, runs out; then it records the free
 * of that object, and of no other.  Every event carries N as its
 * sample_period (0 in a full recording).  An allocation of S bytes stands
 * for 1 / (1 - exp(-S / N)) allocations like it, the estimator of Go's
 * runtime/pprof (scaleHeapSample), per event rather than per bucket.
 */
#ifndef __KMEMTRACE_SAMPLE_H
#define __KMEMTRACE_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * kmt_sample_weight() - how many allocations a sampled one stands for
 * @bytes: the bytes_alloc of its alloc event (not of a later realloc)
 * @period: its sample_period, 0 for an event of a full recording
 *
 * Return: 1 / (1 - exp(-@bytes / @period)); 1 when @period is 0 (every
 * allocation is recorded) or @bytes is 0 (the kernel's countdown did not
 * move: the allocation stands for itself).
 */
double kmt_sample_weight(uint64_t bytes, uint32_t period);

/**
 * kmt_sample_round() - a scaled estimate as a whole number
 * @v: the estimate, a sum of weights (times bytes)
 * @overflow: set when @v does not fit in 64 bits
 *
 * Return: @v rounded to the nearest integer, half away from 0, or
 * UINT64_MAX when it does not fit.
 */
uint64_t kmt_sample_round(double v, bool *overflow);

/**
 * kmt_trace_sample_period() - the sample period of a recording
 * @dir: the trace directory
 * @period: its sample_period: 0 for a full recording
 *
 * Reads the first valid event of every cpuN stream of @dir (what it
 * cannot read, the command's pass reports).  Streams whose events were
 * recorded with different periods (0 and N, or N1 and N2) cannot be
 * added up: that is an error, each stream's period named.
 *
 * Return: 0, or 1 after an error message.
 */
int kmt_trace_sample_period(const char *dir, uint32_t *period);

struct kmt_trace;

/**
 * kmt_trace_first_period() - the sample period of a trace, for its events
 * @t: the trace (its files are opened again, whatever was read of them)
 * @period: the sample_period of its first valid event, 0 when it has none
 *
 * The event is the one kmt_trace_sample_period() takes a recording's
 * period from: the first valid event of the first stream, in CPU order
 * and then by path, that has one.  Every event of the trace must have
 * its period; check holds them to it.
 *
 * Return: the index in @t->streams of that stream, @t->nr when no stream
 * has a valid event.
 */
size_t kmt_trace_first_period(const struct kmt_trace *t, uint32_t *period);

/**
 * kmt_sample_text() - "sampled, mean N bytes", as the outputs say it
 * @period: the sample period, not 0
 * @buf: where to write it
 * @len: size of @buf
 *
 * Return: @buf.
 */
const char *kmt_sample_text(uint32_t period, char *buf, unsigned int len);

#endif /* __KMEMTRACE_SAMPLE_H */
