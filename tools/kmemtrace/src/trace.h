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

#include "header.h"

/* How many problems one stream reports before it only counts them. */
#define KMT_MAX_ERRORS	20

/* The KMEMTRACE_FLAG_* bits this kmemtrace knows. */
#define KMT_KNOWN_FLAGS	(KMEMTRACE_FLAG_INTERRUPT | KMEMTRACE_FLAG_BACKING | \
			 KMEMTRACE_FLAG_UNPAIRED | KMEMTRACE_FLAG_STACK_LOST | \
			 KMEMTRACE_FLAG_UNCHARGED | KMEMTRACE_FLAG_UNTRACKED)
/*
 * The highest enum kmemtrace_kind this kmemtrace knows: arrays by kind
 * have KMT_KIND_MAX + 1 entries.  Only ABI 3 streams have splits.
 */
#define KMT_KIND_MAX	KMEMTRACE_KIND_SPLIT

/*
 * The most pieces a split may have: an allocation of 2^16 pages.  The
 * kernel's largest split is of a huge page: 512 pieces of 4 KiB, 8192 of
 * 64 KiB on arm64.
 */
#define KMT_SPLIT_MAX_PIECES	65536u

/**
 * kmt_split_pieces() - how many pieces a split makes
 * @ev: a KMEMTRACE_KIND_SPLIT event
 *
 * A valid split cuts an allocation of @ev->bytes_alloc bytes at
 * @ev->ptr, aligned to its size, into 2 to KMT_SPLIT_MAX_PIECES pieces of
 * @ev->bytes_req bytes, a power of two of at least 4096 (whole pages).
 *
 * Return: the number of pieces, or 0 for a split that is not valid.
 */
static inline uint64_t kmt_split_pieces(const struct kmemtrace_event *ev)
{
	uint64_t req = ev->bytes_req, alloc = ev->bytes_alloc, n;

	if (req < 4096 || (req & (req - 1)) || alloc <= req || alloc % req)
		return 0;
	n = alloc / req;
	if ((n & (n - 1)) || n > KMT_SPLIT_MAX_PIECES || (ev->ptr & (alloc - 1)))
		return 0;
	return n;
}

/* Those ABI 1 had; ABI 2 had them all. */
#define KMT_KNOWN_FLAGS_V1	(KMEMTRACE_FLAG_INTERRUPT | KMEMTRACE_FLAG_BACKING | \
				 KMEMTRACE_FLAG_UNPAIRED)

/*
 * Events of ABI 1 (80 bytes: no stack_id and tag, a 32-bit cpu and the
 * migratetype after cache_id) and ABI 2 (88 bytes: the timestamp after
 * seq, no sample_period) are still read: each is converted to the
 * current layout (ABI 3, struct kmemtrace_event) as it is loaded, with
 * the fields its version lacks 0.  The abi_version of a converted event
 * stays that of the stream.
 */
#define KMT_ABI_V1		1
#define KMT_EVENT_SIZE_V1	80
#define KMT_ABI_V2		2
#define KMT_EVENT_SIZE_V2	88

/* The byte order of a stream. */
#define KMT_ORDER_UNKNOWN	0
#define KMT_ORDER_HOST		1
#define KMT_ORDER_OTHER		2

/* Events a stream reads at once: 256 KiB, which stays in the CPU caches. */
#define KMT_READ_EVENTS	3277

/**
 * struct kmt_stream - the events of one cpuN file, read a chunk at a time
 * @path: file the events are read from
 * @cpu: N of a file named "cpuN", -1 for any other name
 * @abi: ABI version of the stream, that of its first event with a known
 *	magic: KMT_ABI_V1, KMT_ABI_V2, or KMEMTRACE_ABI_VERSION for any other
 * @esize: bytes of an event in the file: KMT_EVENT_SIZE_V1 for ABI 1,
 *	KMT_EVENT_SIZE_V2 for ABI 2, else KMEMTRACE_EVENT_SIZE
 * @raw: for ABI 1 and 2, the bytes read, converted into @buf
 * @raw_len: number of bytes in @raw
 * @raw_whole: number of bytes of the whole events in @raw
 * @fd: the open file, -1 once it is read to its end
 * @off: offset in the file of the next byte to read (with pread())
 * @ahead: the chunk after @buf's, read by another thread meanwhile
 *	(kmt_stream_read_ahead()), or NULL
 * @ahead_len: bytes read into @ahead
 * @ahead_err: errno of that read, or 0
 * @ahead_state: KMT_AHEAD_*, read and written atomically: who may touch
 *	@off and the @ahead fields
 * @nr: number of whole events read so far: all of them at the end
 * @tail: bytes after the last whole event (a truncated event), known at
 *	the end
 * @swapped: number of events converted from the other byte order
 * @order: byte order of the stream, that of its first event with a known
 *	magic: KMT_ORDER_UNKNOWN until then, KMT_ORDER_HOST or KMT_ORDER_OTHER
 * @buf: the chunk being read: its valid events, converted to host byte
 *	order, then the bytes of a partial event
 * @len: number of bytes read into @buf
 * @whole: number of bytes of the whole events read into @buf
 * @valid: number of valid events at the start of @buf
 * @pos: index in @buf of the next valid event
 * @defer: keep the problems found in @msgs instead of printing them
 * @msgs: the problems kept, printed by kmt_stream_flush()
 * @msgs_len: length of @msgs
 */
struct kmt_stream {
	char *path;
	int cpu;
	unsigned int abi;
	size_t esize;
	unsigned char *raw;
	size_t raw_len;
	size_t raw_whole;
	int fd;
	uint64_t off;
	unsigned char *ahead;
	size_t ahead_len;
	int ahead_err;
	int ahead_state;
	size_t nr;
	size_t tail;
	size_t swapped;
	int order;
	unsigned char *buf;
	size_t len;
	size_t whole;
	size_t valid;
	size_t pos;
	bool defer;
	char *msgs;
	size_t msgs_len;
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
 * struct kmt_cpu_stat - one CPU line of the "stats" file
 * @cpu: the CPU
 * @events: events the CPU wrote to its stream since boot
 * @dropped: events the CPU dropped since boot
 * @next_seq: seq of the CPU's next event, that is every event it tried
 *	to record since boot, written or dropped
 */
struct kmt_cpu_stat {
	uint64_t cpu;
	uint64_t events;
	uint64_t dropped;
	uint64_t next_seq;
};

/**
 * struct kmt_cpu_unwritten - one CPU line of the "unwritten" file
 * @cpu: the CPU
 * @events: events record read from the CPU's buffer but could not write
 *	to its cpuN file, its output having failed: lost to the recording,
 *	and counted by no counter of the kernel
 */
struct kmt_cpu_unwritten {
	uint64_t cpu;
	uint64_t events;
};

/**
 * struct kmt_trace - a recorded trace, that is the streams of a directory
 * @dir: the directory, NULL when the streams were named one by one
 * @streams: the streams, sorted by CPU number and then by path
 * @nr: number of streams
 * @has_dropped: whether @dir held a readable "dropped" file
 * @dropped: contents of "dropped": events the kernel says it lost, during
 *	the recording with @has_dropped_start, else since boot
 * @has_dropped_start: whether @dir held a readable "dropped.start" file,
 *	which record writes when it read the kernel's counters at the start
 * @dropped_start: its contents: events lost since boot at the start
 * @has_stats: whether @dir held a readable "stats" file
 * @stats: its CPU lines, sorted by CPU
 * @nr_stats: number of CPU lines in @stats
 * @has_stats_start: whether @dir held a readable "stats.start" file, the
 *	"stats" of the kernel at the start of the recording
 * @stats_start: its CPU lines, sorted by CPU
 * @nr_stats_start: number of CPU lines in @stats_start
 * @unwritten: the CPU lines of the "unwritten" file, in its order
 * @nr_unwritten: number of CPU lines in @unwritten
 * @header: @dir/header, as kmt_header_load() read it
 * @header_problems: the problems kmt_header_load() found in it
 */
struct kmt_trace {
	char *dir;
	struct kmt_stream *streams;
	size_t nr;
	bool has_dropped;
	uint64_t dropped;
	bool has_dropped_start;
	uint64_t dropped_start;
	bool has_stats;
	struct kmt_cpu_stat *stats;
	size_t nr_stats;
	bool has_stats_start;
	struct kmt_cpu_stat *stats_start;
	size_t nr_stats_start;
	struct kmt_cpu_unwritten *unwritten;
	size_t nr_unwritten;
	struct kmt_header header;
	size_t header_problems;
};

/**
 * struct kmt_cache - one slab cache of the "caches" file
 * @id: the cache_id events carry
 * @name: the cache name
 * @object_size: bytes of an object as asked for at cache creation
 * @size: bytes an object takes in the slab, with metadata and padding
 * @line: line of the file, to keep the first of the lines of an id
 */
struct kmt_cache {
	uint32_t id;
	char *name;
	uint64_t object_size;
	uint64_t size;
	size_t line;
};

/**
 * struct kmt_caches - the slab caches of a trace directory
 * @caches: the caches, sorted by id
 * @nr: number of caches
 */
struct kmt_caches {
	struct kmt_cache *caches;
	size_t nr;
};

/**
 * kmt_kind_name() - name of an enum kmemtrace_kind value
 * @kind: the value
 *
 * Return: "alloc", "free", "realloc", "split" or "?".
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
 * kmt_flags_format() - write KMEMTRACE_FLAG_* bits as names
 * @flags: the bits
 * @buf: where to write "irq", "backing", "unpaired", "stack_lost",
 *	"uncharged", "untracked",
 *	"irq,backing", with
 *	unknown bits
 *	as a last "0x..." element, or "0" when @flags is 0
 * @len: size of @buf
 */
void kmt_flags_format(unsigned int flags, char *buf, size_t len);

/**
 * kmt_event_is_backing() - whether an event is an allocator's backing store
 * @ev: the event
 *
 * Return: true for a KMEMTRACE_FLAG_BACKING event, whose memory other
 * events describe as well.
 */
static inline bool kmt_event_is_backing(const struct kmemtrace_event *ev)
{
	return ev->flags & KMEMTRACE_FLAG_BACKING;
}

/**
 * kmt_event_is_unpaired() - whether an event can have no counterpart
 * @ev: the event
 *
 * Return: true for a KMEMTRACE_FLAG_UNPAIRED page free: memory the page
 * allocator got without having handed it out, which no alloc pairs with.
 */
static inline bool kmt_event_is_unpaired(const struct kmemtrace_event *ev)
{
	return ev->flags & KMEMTRACE_FLAG_UNPAIRED;
}

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
 * kmt_event_from_v1() - convert an ABI 1 event to the current layout
 * @ev: the event to fill, in the byte order of @raw
 * @raw: KMT_EVENT_SIZE_V1 bytes of an ABI 1 event
 *
 * stack_id, sample_period and tag are 0.  A cpu above 65535, which the
 * current layout cannot hold, becomes 65535 with __reserved1 set to 1,
 * which kmt_stream_next() reports.
 */
void kmt_event_from_v1(struct kmemtrace_event *ev, const unsigned char *raw);

/**
 * kmt_event_from_v2() - convert an ABI 2 event to the current layout
 * @ev: the event to fill, in the byte order of @raw
 * @raw: KMT_EVENT_SIZE_V2 bytes of an ABI 2 event
 *
 * sample_period is 0; the reserved byte of ABI 2 is not kept.
 */
void kmt_event_from_v2(struct kmemtrace_event *ev, const unsigned char *raw);

/**
 * kmt_stream_open() - open a stream file for reading
 * @s: the stream to fill; release it with kmt_stream_free()
 * @path: the file, which must be a regular file (not a FIFO or a device)
 *
 * Return: 0 on success, -errno on failure (reported with kmt_err()).
 */
int kmt_stream_open(struct kmt_stream *s, const char *path);

/**
 * kmt_stream_fill() - read the next chunk of a stream and check it
 * @s: the stream
 * @st: statistics to add the chunk's events and problems to
 *
 * Return: false at the end of the stream.
 */
bool kmt_stream_fill(struct kmt_stream *s, struct kmt_stats *st);

/*
 * The read-ahead of a stream (@ahead_state): none (the stream reads its
 * own chunks), nothing read ahead, a thread reading (the next chunk, or
 * the stream itself), a chunk read ahead, or done (the stream ended or
 * was stopped, the others keep off).
 */
#define KMT_AHEAD_OFF		0
#define KMT_AHEAD_EMPTY		1
#define KMT_AHEAD_BUSY		2
#define KMT_AHEAD_READY		3
#define KMT_AHEAD_DONE		4

/**
 * kmt_stream_ahead_start() - let another thread read a stream's chunks ahead
 * @s: the stream, of the current ABI (others are left as they are)
 *
 * Called by the thread that reads @s, before another thread calls
 * kmt_stream_read_ahead().  Costs a chunk's buffer.
 */
void kmt_stream_ahead_start(struct kmt_stream *s);

/**
 * kmt_stream_read_ahead() - read a stream's next chunk, for its reader
 * @s: the stream, kmt_stream_ahead_start() called
 *
 * From another thread than the one that reads @s: if no chunk is read
 * ahead yet and none is being read, read the next one into @s->ahead,
 * where kmt_stream_fill() takes it instead of reading it itself.
 *
 * Return: true if it read a chunk.
 */
bool kmt_stream_read_ahead(struct kmt_stream *s);

/**
 * kmt_stream_ahead_stop() - keep other threads from reading ahead
 * @s: the stream
 *
 * Called by the thread that reads @s before it stops reading early or
 * frees it; waits for a read ahead in flight.  A chunk read ahead and
 * not taken is read again if the stream is.
 */
void kmt_stream_ahead_stop(struct kmt_stream *s);

/**
 * kmt_stream_head() - the next valid event of a stream, left unread
 * @s: the stream
 * @st: statistics, as for kmt_stream_next()
 *
 * The merge's fast path: a pointer into the chunk read, which
 * kmt_stream_fill() reads and checks when it is used up.
 *
 * Return: the event, valid until the stream moves past it, or NULL at
 * its end.
 */
static inline struct kmemtrace_event *kmt_stream_head(struct kmt_stream *s,
						      struct kmt_stats *st)
{
	while (s->pos == s->valid)
		if (!kmt_stream_fill(s, st))
			return NULL;
	return (struct kmemtrace_event *)(s->buf + s->pos * KMEMTRACE_EVENT_SIZE);
}

/**
 * kmt_stream_next() - read and check the next valid event of a stream
 * @s: the stream
 * @st: the statistics of the stream, zeroed before the first call
 *
 * Reads the events in file order, a chunk at a time.  The stream is in
 * the byte order and the ABI version of its first event with a known
 * magic; ABI 1 and 2 events are converted to the current layout.  When that is
 * not the host's, its events with a known magic are converted to host
 * byte order; other events are kept as read.  An event in another byte
 * order than the first one then has magic KMEMTRACE_MAGIC_SWAPPED, and is
 * invalid (mixed byte orders).  Invalid events are counted in @st and
 * skipped; each problem is reported on stderr as
 * "kmemtrace: PATH: event I (offset O): WHAT", at most KMT_MAX_ERRORS of
 * them, or kept for kmt_stream_flush() when @s->defer is set.  At the
 * end, a truncated last event is a problem too.
 *
 * Return: the event, valid until the next call, or NULL at the end.
 */
const struct kmemtrace_event *kmt_stream_next(struct kmt_stream *s,
					      struct kmt_stats *st);

/**
 * kmt_stream_order() - the byte order of a stream
 * @s: the stream
 *
 * Looks for the first event with a known magic if the stream has not
 * been read yet.
 *
 * Return: KMT_ORDER_HOST, KMT_ORDER_OTHER, or KMT_ORDER_UNKNOWN when no
 * event has a known magic (or the events were read and none had).
 */
int kmt_stream_order(struct kmt_stream *s);

/**
 * kmt_stream_validate() - read a whole stream, checking every event
 * @s: the stream, not read yet
 * @st: the statistics of the stream
 *
 * Return: the number of problems found (@st->errors).
 */
size_t kmt_stream_validate(struct kmt_stream *s, struct kmt_stats *st);

/**
 * kmt_stream_flush() - print the problems kept while @s->defer was set
 * @s: the stream
 */
void kmt_stream_flush(struct kmt_stream *s);

/**
 * kmt_stream_free() - close a stream and release what it holds
 * @s: the stream
 */
void kmt_stream_free(struct kmt_stream *s);

/**
 * kmt_trace_load_dir() - open every cpuN file of a directory
 * @t: the trace to fill; release it with kmt_trace_free()
 * @dir: the directory, as written by "kmemtrace record"
 *
 * Also reads @dir/dropped when it exists, and @dir/header.
 *
 * Return: 0 on success, -errno on failure (reported with kmt_err()), after
 * which @t holds nothing to release.
 */
int kmt_trace_load_dir(struct kmt_trace *t, const char *dir);

/**
 * kmt_trace_add_file() - open one more stream file of a trace
 * @t: the trace, zero-initialised or loaded before
 * @path: the file, which must be a regular file (not a FIFO or a device)
 *
 * Return: 0 on success, -errno on failure (reported with kmt_err()).
 */
int kmt_trace_add_file(struct kmt_trace *t, const char *path);

/**
 * kmt_trace_read_dropped() - read the "dropped" files of the trace directory
 * @t: the trace; @t->dir must be set
 *
 * Sets @t->has_dropped and @t->dropped from "dropped", and
 * @t->has_dropped_start and @t->dropped_start from "dropped.start".  A
 * missing file is not an error; bad contents are reported with kmt_err()
 * and ignored.
 */
void kmt_trace_read_dropped(struct kmt_trace *t);

/**
 * kmt_trace_read_stats() - read the "stats" files of the trace directory
 * @t: the trace; @t->dir must be set
 *
 * Sets @t->has_stats, @t->stats and @t->nr_stats from "stats", and
 * @t->has_stats_start, @t->stats_start and @t->nr_stats_start from
 * "stats.start".  A missing file is not an error; an unsupported version,
 * a malformed line or a CPU listed twice is reported with kmt_err() and
 * makes the whole file ignored.
 *
 * Return: the number of problems found in the files.
 */
size_t kmt_trace_read_stats(struct kmt_trace *t);

/**
 * kmt_trace_read_unwritten() - read the "unwritten" file of the trace directory
 * @t: the trace; @t->dir must be set
 *
 * Sets @t->unwritten and @t->nr_unwritten from "unwritten", which record
 * writes when the output of a stream failed.  A missing file is not an
 * error; an unsupported version or a malformed line is reported with
 * kmt_err().
 *
 * Return: the number of problems found in the file.
 */
size_t kmt_trace_read_unwritten(struct kmt_trace *t);

/**
 * kmt_trace_cpu_stat() - the "stats" line of a CPU
 * @t: the trace, with kmt_trace_read_stats() done
 * @cpu: the CPU, -1 for none
 *
 * Return: the line, or NULL if "stats" was not read or lacks @cpu.
 */
const struct kmt_cpu_stat *kmt_trace_cpu_stat(const struct kmt_trace *t,
					      int cpu);

/**
 * kmt_trace_cpu_stat_start() - the "stats.start" line of a CPU
 * @t: the trace, with kmt_trace_read_stats() done
 * @cpu: the CPU, -1 for none
 *
 * Return: the line, or NULL if "stats.start" was not read or lacks @cpu.
 */
const struct kmt_cpu_stat *kmt_trace_cpu_stat_start(const struct kmt_trace *t,
						    int cpu);

/**
 * kmt_caches_load() - read the "caches" file of a trace directory
 * @c: the table to fill; release it with kmt_caches_free()
 * @dir: the directory, or NULL for none
 *
 * A missing file leaves @c empty.  Malformed lines are reported with
 * kmt_err() and skipped; for an id listed twice the first line wins.
 */
void kmt_caches_load(struct kmt_caches *c, const char *dir);

/**
 * kmt_caches_name() - name of a slab cache
 * @c: the table
 * @id: the cache_id of an event
 *
 * Return: the name, or NULL when @id is not in the table.
 */
const char *kmt_caches_name(const struct kmt_caches *c, uint32_t id);

/**
 * kmt_caches_free() - release what kmt_caches_load() allocated
 * @c: the table
 */
void kmt_caches_free(struct kmt_caches *c);

/**
 * kmt_trace_validate() - kmt_stream_validate() every stream of a trace
 * @t: the trace
 * @st: array of @t->nr statistics, one per stream
 *
 * Return: the total number of problems found.
 */
size_t kmt_trace_validate(struct kmt_trace *t, struct kmt_stats *st);

/* A good number of events to ask kmt_merge_batch() for. */
#define KMT_MERGE_BATCH	256

/**
 * struct kmt_merge - the valid events of a trace in time order
 * @t: the trace
 * @st: the statistics of its streams, one per stream
 * @heap: indices of the streams that have events left, a min-heap on
 *	their next event
 * @head: per stream, its next event
 * @nr: number of streams in @heap
 * @refill: the stream at the top of @heap used up its chunk
 * @swap: if set, called with each chunk buffer (of KMT_READ_EVENTS
 *	events) whose events were all returned, before the stream reads on:
 *	the caller keeps it, so that its events stay valid, and returns
 *	another buffer of that size, from malloc(), for the stream to read
 *	into
 * @swap_arg: for @swap
 */
struct kmt_merge {
	struct kmt_trace *t;
	struct kmt_stats *st;
	size_t *heap;
	const struct kmemtrace_event **head;
	size_t nr;
	bool refill;
	unsigned char *(*swap)(void *arg, unsigned char *buf);
	void *swap_arg;
};

/**
 * kmt_merge_start() - start reading the events of a trace in time order
 * @m: the merge to set up
 * @t: the trace, its streams not read yet
 * @st: array of @t->nr statistics, one per stream, filled in as the
 *	streams are read
 *
 * Each stream is read in file order (each CPU's events stay in their
 * order) and the streams are merged by timestamp, then CPU, then seq,
 * then stream, so the order is the same on every run.  The problems
 * found are printed by kmt_merge_end(), stream after stream.  The
 * caller may set @m->swap after this call.
 */
void kmt_merge_start(struct kmt_merge *m, struct kmt_trace *t,
		     struct kmt_stats *st);

/**
 * kmt_merge_batch() - the next valid events of a trace in time order
 * @m: the merge
 * @ev: where to store the events
 * @max: the most events to store, at least 1
 *
 * The events stay valid until the next call.  A batch ends early where
 * a stream has to read on.
 *
 * Return: the number of events stored, 0 at the end.
 */
size_t kmt_merge_batch(struct kmt_merge *m,
		       const struct kmemtrace_event **ev, size_t max);

/**
 * kmt_merge_ahead_start() - let other threads read the streams ahead
 * @m: the merge
 *
 * For a caller whose other threads sometimes have nothing to do: they
 * call kmt_merge_read_ahead() then, and take copying the streams off
 * the merging thread.  kmt_merge_end() and kmt_merge_drop() end it, or
 * kmt_merge_ahead_stop() before.
 */
void kmt_merge_ahead_start(struct kmt_merge *m);

/**
 * kmt_merge_read_ahead() - read the next chunk of a stream of a merge
 * @m: the merge, kmt_merge_ahead_start() called
 *
 * From another thread than the merging one (kmt_stream_read_ahead()).
 *
 * Return: true if it read a chunk.
 */
bool kmt_merge_read_ahead(struct kmt_merge *m);

/**
 * kmt_merge_ahead_stop() - end the read-ahead of a merge
 * @m: the merge
 *
 * Waits for a read ahead in flight; other threads read no more.
 */
void kmt_merge_ahead_stop(struct kmt_merge *m);

/**
 * kmt_merge_end() - finish a merge and print the problems found
 * @m: the merge, read to its end
 *
 * Return: the total number of problems found.
 */
size_t kmt_merge_end(struct kmt_merge *m);

/**
 * kmt_merge_drop() - finish a merge without printing the problems found
 * @m: the merge
 *
 * For a caller that fails after the streams were read, and says why.
 */
void kmt_merge_drop(struct kmt_merge *m);

/**
 * struct kmt_field - a field of a line of text
 * @s: its first byte
 * @len: its length
 */
struct kmt_field {
	const char *s;
	size_t len;
};

/**
 * kmt_split_fields() - split a line at blanks
 * @line: the line
 * @f: where to store the fields
 * @max: the most fields to store
 *
 * Return: the number of fields, which may be above @max.
 */
size_t kmt_split_fields(const char *line, struct kmt_field *f, size_t max);

/**
 * struct kmt_line_parser - how to read a "# kmemtrace WHAT vN" file
 * @path: the file, for messages
 * @what: WHAT
 * @max_version: the highest N supported
 * @fn: parses line @nr of @path for @arg; returns nonzero to stop
 * @arg: for @fn
 */
struct kmt_line_parser {
	const char *path;
	const char *what;
	uint64_t max_version;
	int (*fn)(void *arg, const char *path, size_t nr, const char *line);
	void *arg;
};

/**
 * kmt_parse_lines() - call a parser for every line of a text file
 * @buf: the contents of the file, NUL-terminated, split in place
 * @lp: the parser
 *
 * Calls @lp->fn for every line but blank ones and "#" comments.  A first
 * line "# kmemtrace WHAT vN" must name a version from 1 to
 * @lp->max_version.
 *
 * Return: the first nonzero return of @lp->fn, -EPROTO for a bad version
 * (reported with kmt_err()), 0 otherwise.
 */
int kmt_parse_lines(char *buf, const struct kmt_line_parser *lp);

/**
 * kmt_parse_side_file() - kmt_parse_lines() of a recording's side file
 * @dir: the recording's directory
 * @name: the file's name in it
 * @lp: the parser; its @path is set to the file's for the parse
 *
 * Return: 0 once parsed, -ENOENT if the file is absent, 1 if it could not
 * be read or parsed (reported).
 */
int kmt_parse_side_file(const char *dir, const char *name,
			struct kmt_line_parser *lp);

/**
 * kmt_trace_free() - release what a trace holds
 * @t: the trace
 */
void kmt_trace_free(struct kmt_trace *t);

#endif /* __KMEMTRACE_TRACE_H */
