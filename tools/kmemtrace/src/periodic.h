/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace periodic - pprof heap profiles of a recording, one per interval
 *
 * "kmemtrace record --pprof-every SECONDS" writes, while it records, a
 * pprof heap profile per interval into DIR/pprof/: alloc_* the
 * allocations read during the interval, inuse_* what is live at its end,
 * scaled by the weights of a sampled recording (sample.h).  It reads the
 * cpuN streams record writes to DIR, as any reader of DIR would, from
 * where it stopped the interval before: it shares no state with the
 * drains, and record only tells it the time.  For a recording that
 * keeps only the profiles (record --pprof-only), it also gives the disk
 * space of the events it read back to the file system.  See
 * Documentation/kmemtrace.rst.
 */
#ifndef __KMEMTRACE_PERIODIC_H
#define __KMEMTRACE_PERIODIC_H

#include <stdbool.h>
#include <stdint.h>

struct kmt_periodic;

/**
 * struct kmt_periodic_params - what the profiles are made of
 * @dir: the recording's directory: its cpuN streams are read, and
 *	 @dir/header for the build id; the profiles go to @dir/pprof/
 * @debugfs: the kmemtrace debugfs directory, whose caches, tags and
 *	     stacks files name the caches, lines and stacks of each profile
 * @kallsyms: the kallsyms file the call sites are named by, read again
 *	      for each profile (modules come and go)
 * @seconds: the interval, 1 or more
 * @has_period: whether @period is known
 * @period: the sample_period of the recording's events, 0 for a full
 *	    recording: that record wrote to the kernel, or found there.
 *	    Events of another (left in the buffers by an earlier session)
 *	    are left out and counted.  Unknown, the period is that of the
 *	    first event read.
 * @release: give back the disk blocks of the events read from each
 *	     stream (fallocate(2) FALLOC_FL_PUNCH_HOLE): the streams keep
 *	     their size but read as zeros there, so that a recording that
 *	     keeps only the profiles does not fill the disk
 */
struct kmt_periodic_params {
	const char *dir;
	const char *debugfs;
	const char *kallsyms;
	uint64_t seconds;
	bool has_period;
	uint32_t period;
	bool release;
};

/**
 * kmt_periodic_start() - start writing profiles
 * @p: the parameters; the strings must outlive the writer
 * @now_ms: the time now, in ms of CLOCK_MONOTONIC: the first interval
 *	    starts then
 *
 * Creates @p->dir/pprof and removes the profiles of an earlier recording
 * from it (heap-*.pb.gz), saying how many.
 *
 * Return: the writer, or NULL after an error message.
 */
struct kmt_periodic *kmt_periodic_start(const struct kmt_periodic_params *p,
					uint64_t now_ms);

/**
 * kmt_periodic_poll() - read the new events; write a profile when due
 * @pw: the writer
 * @now_ms: the time now, in ms of CLOCK_MONOTONIC
 *
 * Return: 0, or -1 when a profile could not be written (said why).
 */
int kmt_periodic_poll(struct kmt_periodic *pw, uint64_t now_ms);

/**
 * kmt_periodic_finish() - write the profile of the last interval
 * @pw: the writer
 * @now_ms: the time now, in ms of CLOCK_MONOTONIC
 *
 * Called once the streams are drained: the last interval, shorter than
 * the others, has the events left.  Says how many profiles were written,
 * and how many events were not used (invalid, or of another sample
 * period than the recording's).
 *
 * Return: 0, or -1 when the profile could not be written (said why).
 */
int kmt_periodic_finish(struct kmt_periodic *pw, uint64_t now_ms);

/**
 * kmt_periodic_free() - release a writer
 * @pw: the writer, or NULL
 */
void kmt_periodic_free(struct kmt_periodic *pw);

#endif /* __KMEMTRACE_PERIODIC_H */
