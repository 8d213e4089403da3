/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace - reading and validating recorded event streams
 */
#ifndef __KMEMTRACE_TRACE_H
#define __KMEMTRACE_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/kmemtrace.h>

/* How many problems one stream reports before it only counts them. */
#define KMT_MAX_ERRORS	20

/**
 * struct kmt_stream - the events of one cpuN file
 * @path: file the events were read from
 * @cpu: N of a file named "cpuN", -1 for any other name
 * @ev: the whole events of the file, converted to host byte order
 * @valid: per event, whether kmt_stream_validate() accepted it
 * @nr: number of whole events in @ev
 * @tail: bytes after the last whole event (a truncated event)
 * @swapped: number of events written in the other byte order
 */
struct kmt_stream {
	char *path;
	int cpu;
	struct kmemtrace_event *ev;
	bool *valid;
	size_t nr;
	size_t tail;
	size_t swapped;
};

/**
 * struct kmt_stats - what kmt_stream_validate() found in a stream
 * @events: number of valid events
 * @errors: number of problems: invalid events, seq going backwards and
 *	a truncated tail
 * @first_seq: seq of the first valid event
 * @last_seq: highest seq of the valid events
 * @gaps: sum of the seq numbers missing between valid events
 */
struct kmt_stats {
	size_t events;
	size_t errors;
	uint64_t first_seq;
	uint64_t last_seq;
	uint64_t gaps;
};

/**
 * struct kmt_trace - a recorded trace, that is the streams of a directory
 * @dir: the directory, NULL when the streams were named one by one
 * @streams: the streams, sorted by CPU number and then by path
 * @nr: number of streams
 * @has_dropped: whether @dir held a readable "dropped" file
 * @dropped: contents of "dropped": events the kernel says it lost
 */
struct kmt_trace {
	char *dir;
	struct kmt_stream *streams;
	size_t nr;
	bool has_dropped;
	uint64_t dropped;
};

/**
 * struct kmt_ref - one valid event of a trace, in a timeline
 * @ev: the event
 * @stream: index of its stream in &struct kmt_trace.streams
 * @index: index of the event in its stream
 */
struct kmt_ref {
	const struct kmemtrace_event *ev;
	size_t stream;
	size_t index;
};

/**
 * kmt_kind_name() - name of an enum kmemtrace_kind value
 * @kind: the value
 *
 * Return: "alloc", "free" or "?".
 */
const char *kmt_kind_name(unsigned int kind);

/**
 * kmt_type_name() - name of an enum kmemtrace_type value
 * @type: the value
 *
 * Return: "kmalloc", "cache", "pages", "percpu", "vmalloc" or "?".
 */
const char *kmt_type_name(unsigned int type);

/**
 * kmt_cpu_from_name() - CPU number of a stream file name
 * @path: the path; only its last component matters
 *
 * Return: N for a file named "cpuN", -1 otherwise.
 */
int kmt_cpu_from_name(const char *path);

/**
 * kmt_event_swab() - convert an event to the other byte order
 * @ev: the event, converted in place
 */
void kmt_event_swab(struct kmemtrace_event *ev);

/**
 * kmt_stream_load() - read a stream file into memory
 * @s: the stream to fill; release it with kmt_stream_free()
 * @path: the file
 *
 * Events whose magic reads as KMEMTRACE_MAGIC_SWAPPED are converted to host
 * byte order; other events are kept as read, for kmt_stream_validate().
 *
 * Return: 0 on success, -errno on failure (reported with err_msg()).
 */
int kmt_stream_load(struct kmt_stream *s, const char *path);

/**
 * kmt_stream_validate() - check every event of a loaded stream
 * @s: the stream; its @valid array is filled in
 * @st: the statistics of the stream
 *
 * Reports each problem on stderr as "kmemtrace: PATH: event I (offset O):
 * WHAT", at most KMT_MAX_ERRORS of them.
 *
 * Return: the number of problems found (@st->errors).
 */
size_t kmt_stream_validate(struct kmt_stream *s, struct kmt_stats *st);

/**
 * kmt_stream_free() - release what kmt_stream_load() allocated
 * @s: the stream
 */
void kmt_stream_free(struct kmt_stream *s);

/**
 * kmt_trace_load_dir() - load every cpuN file of a directory
 * @t: the trace to fill; release it with kmt_trace_free()
 * @dir: the directory, as written by "kmemtrace record"
 *
 * Also reads @dir/dropped when it exists.
 *
 * Return: 0 on success, -errno on failure (reported with err_msg()).
 */
int kmt_trace_load_dir(struct kmt_trace *t, const char *dir);

/**
 * kmt_trace_add_file() - load one more stream file into a trace
 * @t: the trace, zero-initialised or loaded before
 * @path: the file
 *
 * Return: 0 on success, -errno on failure (reported with err_msg()).
 */
int kmt_trace_add_file(struct kmt_trace *t, const char *path);

/**
 * kmt_trace_read_dropped() - read the "dropped" file of the trace directory
 * @t: the trace; @t->dir must be set
 *
 * Sets @t->has_dropped and @t->dropped.  A missing file is not an error;
 * bad contents are reported with err_msg() and ignored.
 */
void kmt_trace_read_dropped(struct kmt_trace *t);

/**
 * kmt_trace_validate() - kmt_stream_validate() every stream of a trace
 * @t: the trace
 * @st: array of @t->nr statistics, one per stream
 *
 * Return: the total number of problems found.
 */
size_t kmt_trace_validate(struct kmt_trace *t, struct kmt_stats *st);

/**
 * kmt_trace_timeline() - the valid events of a trace in time order
 * @t: the trace, validated
 * @nr: on return, the number of events
 *
 * Events are sorted by timestamp, then CPU, then seq, then position, so
 * the order is the same on every run.
 *
 * Return: array of @nr references, to be freed by the caller.
 */
struct kmt_ref *kmt_trace_timeline(const struct kmt_trace *t, size_t *nr);

/**
 * kmt_trace_free() - release what a trace holds
 * @t: the trace
 */
void kmt_trace_free(struct kmt_trace *t);

#endif /* __KMEMTRACE_TRACE_H */
