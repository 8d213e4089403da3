// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace - one event stream: read a chunk at a time, detect its ABI, check every
 * event in place
 *
 * Part of the stream layer (trace.h); see Documentation/kmemtrace.rst.
 */
#include <assert.h>
#include <byteswap.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace.h"
#include "utils.h"

#define KMT_DETECT_BYTES	(1024 * 1024)

/* Bytes of an event of ABI version @abi in a stream. */
static size_t abi_event_size(unsigned int abi)
{
	if (abi == KMT_ABI_V1)
		return KMT_EVENT_SIZE_V1;
	if (abi == KMT_ABI_V2)
		return KMT_EVENT_SIZE_V2;
	return KMEMTRACE_EVENT_SIZE;
}

/*
 * Whether @p, at least 3 bytes, starts an event of a known magic and of
 * ABI version @abi: KMT_ABI_V1, KMT_ABI_V2, or for KMEMTRACE_ABI_VERSION
 * any other.
 */
static bool known_event(const unsigned char *p, unsigned int abi)
{
	uint16_t magic;

	memcpy(&magic, p, sizeof(magic));
	if (magic != KMEMTRACE_MAGIC && magic != KMEMTRACE_MAGIC_SWAPPED)
		return false;
	if (abi == KMT_ABI_V1 || abi == KMT_ABI_V2)
		return p[2] == abi;
	return p[2] != KMT_ABI_V1 && p[2] != KMT_ABI_V2;
}

/*
 * The ABI version of a stream is that of its first event with a known
 * magic: the first index I with an event at I times the size of an
 * event of ABI 1, 2 or 3 (in that order) of that abi_version, or of
 * another one for ABI 3.  A stream without one in its first
 * KMT_DETECT_BYTES is of the current ABI.
 */
static void stream_detect_abi(struct kmt_stream *s)
{
	static const unsigned int abis[] = {
		KMT_ABI_V1, KMT_ABI_V2, KMEMTRACE_ABI_VERSION,
	};
	unsigned char *buf = xmalloc(KMT_DETECT_BYTES);
	size_t len = 0, i, j, off;
	bool found = false;
	ssize_t n;

	s->abi = KMEMTRACE_ABI_VERSION;
	while (len < KMT_DETECT_BYTES) {
		n = pread(s->fd, buf + len, KMT_DETECT_BYTES - len, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
	}
	/* The smallest events, ABI 1's, are the last to run out. */
	for (i = 0; !found && i * KMT_EVENT_SIZE_V1 + 3 <= len; i++) {
		for (j = 0; !found && j < ARRAY_SIZE(abis); j++) {
			off = i * abi_event_size(abis[j]);
			if (off + 3 <= len && known_event(buf + off, abis[j])) {
				s->abi = abis[j];
				found = true;
			}
		}
	}
	s->esize = abi_event_size(s->abi);
	free(buf);
}

int kmt_stream_open(struct kmt_stream *s, const char *path)
{
	int ret;

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	/* Reading a FIFO would wait for a writer, a device would not end. */
	ret = is_regular(path);
	if (ret <= 0) {
		kmt_err("%s: %s", path, ret ? strerror(-ret) :
			"not a regular file, streams must be regular files");
		return ret ? ret : -EINVAL;
	}
	s->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0) {
		ret = -errno;
		kmt_err("%s: %s", path, strerror(-ret));
		return ret;
	}
	s->path = xstrdup(path);
	s->cpu = kmt_cpu_from_name(path);
	stream_detect_abi(s);
	return 0;
}

/* Report a problem of @s now, or keep it for kmt_stream_flush(). */
static __printf(2, 3) void stream_msg(struct kmt_stream *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	if (!s->defer) {
		fputs("kmemtrace: ", stderr);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
		va_end(ap);
		return;
	}
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	s->msgs = xrealloc(s->msgs, s->msgs_len + n + 1);
	va_start(ap, fmt);
	vsnprintf(s->msgs + s->msgs_len, n + 1, fmt, ap);
	va_end(ap);
	s->msgs_len += n + 1;
}

void kmt_stream_flush(struct kmt_stream *s)
{
	size_t off;

	for (off = 0; off < s->msgs_len; off += strlen(s->msgs + off) + 1)
		kmt_err("%s", s->msgs + off);
	free(s->msgs);
	s->msgs = NULL;
	s->msgs_len = 0;
}

static void stream_problem(struct kmt_stream *s, struct kmt_stats *st,
			   size_t i, const char *what)
{
	if (++st->errors > KMT_MAX_ERRORS)
		return;
	stream_msg(s, "%s: event %zu (offset %zu): %s", s->path, i,
		   i * s->esize, what);
}

/* The flags an event of the ABI version of @s may have. */
static unsigned int stream_known_flags(const struct kmt_stream *s)
{
	return s->abi == KMT_ABI_V1 ? KMT_KNOWN_FLAGS_V1 : KMT_KNOWN_FLAGS;
}

/*
 * What is wrong with split @ev in @buf, or NULL: a split is of pages, as
 * kmt_split_pieces() says: into pieces of bytes_req, whole pages, of an
 * allocation aligned to its size and a power of two (2 or more, up to
 * KMT_SPLIT_MAX_PIECES) times as large.
 */
static const char *split_problem(const struct kmemtrace_event *ev, char *buf,
				 size_t len)
{
	uint64_t req = ev->bytes_req, alloc = ev->bytes_alloc;

	if (ev->type != KMEMTRACE_TYPE_PAGES)
		snprintf(buf, len, "split of type %s (only pages split)",
			 kmt_type_name(ev->type));
	else if (!req)
		snprintf(buf, len, "split into pieces of 0 bytes");
	else if (alloc <= req || alloc % req || (alloc / req & (alloc / req - 1)))
		snprintf(buf, len,
			 "split of %llu bytes into pieces of %llu (not a power of two of them)",
			 (unsigned long long)alloc, (unsigned long long)req);
	else if (req < 4096 || (req & (req - 1)))
		snprintf(buf, len, "split into pieces of %llu bytes (not pages)",
			 (unsigned long long)req);
	else if (alloc / req > KMT_SPLIT_MAX_PIECES)
		snprintf(buf, len, "split into %llu pieces (more than %u)",
			 (unsigned long long)(alloc / req), KMT_SPLIT_MAX_PIECES);
	else if (!kmt_split_pieces(ev))
		snprintf(buf, len, "split of %llu bytes at 0x%llx (not aligned to its size)",
			 (unsigned long long)alloc, (unsigned long long)ev->ptr);
	else
		return NULL;
	return buf;
}

/* Return NULL for a well-formed event, else what is wrong with it in @buf. */
static const char *event_problem(const struct kmt_stream *s,
				 const struct kmemtrace_event *ev,
				 char *buf, size_t len)
{
	if (ev->magic == KMEMTRACE_MAGIC_SWAPPED)
		snprintf(buf, len,
			 "byte order differs from the first event of the stream (mixed byte orders)");
	else if (ev->magic != KMEMTRACE_MAGIC)
		snprintf(buf, len, "bad magic 0x%04x", ev->magic);
	else if (ev->abi_version != s->abi &&
		 ev->abi_version >= KMT_ABI_V1 &&
		 ev->abi_version <= KMEMTRACE_ABI_VERSION)
		snprintf(buf, len,
			 "abi_version %u differs from the first event of the stream (%u)",
			 ev->abi_version, s->abi);
	else if (ev->abi_version != s->abi)
		snprintf(buf, len, "unsupported abi_version %u (expected %u)",
			 ev->abi_version, s->abi);
	else if (ev->kind < KMEMTRACE_KIND_ALLOC || ev->kind > KMT_KIND_MAX ||
		 (ev->kind == KMEMTRACE_KIND_SPLIT && s->abi != KMEMTRACE_ABI_VERSION))
		snprintf(buf, len, "bad kind %u", ev->kind);
	else if (ev->type < KMEMTRACE_TYPE_KMALLOC || ev->type > KMEMTRACE_TYPE_VMALLOC)
		snprintf(buf, len, "bad type %u", ev->type);
	else if (ev->kind == KMEMTRACE_KIND_SPLIT && split_problem(ev, buf, len))
		return buf;
	else if (ev->flags & ~stream_known_flags(s))
		snprintf(buf, len, "bad flags 0x%x", ev->flags);
	else if (s->abi == KMT_ABI_V1 && ev->__reserved1)
		snprintf(buf, len, "cpu field above 65535");
	else if (s->cpu >= 0 && ev->cpu != (__u32)s->cpu)
		snprintf(buf, len, "cpu field %u does not match file cpu%d",
			 ev->cpu, s->cpu);
	else
		return NULL;
	return buf;
}

/* Account a well-formed event; return false if its seq goes backwards. */
static bool stream_account_seq(struct kmt_stats *st,
			       const struct kmemtrace_event *ev,
			       char *buf, size_t len)
{
	if (st->events && ev->seq <= st->last_seq) {
		snprintf(buf, len, "seq %llu not above previous seq %llu",
			 (unsigned long long)ev->seq,
			 (unsigned long long)st->last_seq);
		return false;
	}
	if (st->events)
		st->gaps += ev->seq - st->last_seq - 1;
	else
		st->first_seq = ev->seq;
	st->last_seq = ev->seq;
	st->events++;
	return true;
}

/* The 8 bytes of @ev at @off, as one number. */
static inline uint64_t event_word(const struct kmemtrace_event *ev, size_t off)
{
	uint64_t w;

	memcpy(&w, (const unsigned char *)ev + off, sizeof(w));
	return w;
}

/*
 * stream_check_chunk() of events @i to @n of a host byte order stream,
 * none of them invalid so far, while they stay valid: the common case,
 * with one branch per event.  Return the index of the first event it did
 * not take, an invalid one or @n.
 */
static size_t stream_check_valid(struct kmt_stream *s, struct kmt_stats *st,
				 size_t i, size_t n)
{
	/*
	 * The fields checked for a value, two words of an event compared
	 * at once: what they must be (@want) where @mask has bits.  The
	 * magic and abi_version in the first; in the second, the flags
	 * this version knows, the cpu of a stream named cpuN (a stream
	 * not named so may have events of any CPU), and __reserved1, which
	 * only an ABI 1 event converted sets, for its cpu.
	 */
	struct kmemtrace_event want = {
		.magic = KMEMTRACE_MAGIC,
		.abi_version = s->abi,
		.cpu = s->cpu >= 0 ? s->cpu : 0,
	};
	struct kmemtrace_event mask = {
		.magic = UINT16_MAX,
		.abi_version = UINT8_MAX,
		.flags = ~stream_known_flags(s),
		.cpu = s->cpu >= 0 ? UINT16_MAX : 0,
		.__reserved1 = s->abi == KMT_ABI_V1 ? UINT16_MAX : 0,
	};
	const size_t w0 = 0, w1 = offsetof(struct kmemtrace_event, flags);
	uint64_t want0 = event_word(&want, w0), mask0 = event_word(&mask, w0);
	uint64_t want1 = event_word(&want, w1), mask1 = event_word(&mask, w1);
	const struct kmemtrace_event *ev;
	uint64_t last = st->last_seq;
	size_t first = i;
	unsigned int bad;

	static_assert(offsetof(struct kmemtrace_event, flags) == 16 &&
		      offsetof(struct kmemtrace_event, __reserved1) == 22,
		      "flags, cpu, order, migratetype, __reserved1: one word");
	for (; i < n; i++) {
		ev = (const struct kmemtrace_event *)(s->buf + i * KMEMTRACE_EVENT_SIZE);
		/*
		 * event_problem() and stream_account_seq(), without branches;
		 * a split, rare, takes the slow way for its sizes.
		 */
		bad = !!((event_word(ev, w0) ^ want0) & mask0) |
		      !!((event_word(ev, w1) ^ want1) & mask1) |
		      ((unsigned int)ev->kind - KMEMTRACE_KIND_ALLOC >
		       KMEMTRACE_KIND_REALLOC - KMEMTRACE_KIND_ALLOC) |
		      ((unsigned int)ev->type - KMEMTRACE_TYPE_KMALLOC >
		       KMEMTRACE_TYPE_VMALLOC - KMEMTRACE_TYPE_KMALLOC) |
		      (ev->seq <= last);
		if (bad)
			break;
		last = ev->seq;
	}
	/* The seq numbers each event skipped, added up. */
	st->gaps += last - st->last_seq - (i - first);
	st->last_seq = last;
	st->events += i - first;
	s->valid += i - first;
	return i;
}

/*
 * Check the whole events of a chunk: convert those of the other byte
 * order, report the invalid ones and move the valid ones to the front.
 */
static void stream_check_chunk(struct kmt_stream *s, struct kmt_stats *st)
{
	size_t i, n = s->whole / KMEMTRACE_EVENT_SIZE;
	struct kmemtrace_event *ev;
	char why[128];

	s->valid = 0;
	for (i = 0; i < n; i++) {
		/* Valid events stay where they are until one is not. */
		if (s->valid == i && st->events && s->order == KMT_ORDER_HOST) {
			i = stream_check_valid(s, st, i, n);
			if (i == n)
				break;
		}
		ev = (struct kmemtrace_event *)(s->buf + i * KMEMTRACE_EVENT_SIZE);
		/*
		 * The first event with a known magic tells the byte order of
		 * the stream.  In a stream of the other order, an event that
		 * was in host order then reads KMEMTRACE_MAGIC_SWAPPED, as an
		 * event of the other order does in a host order stream, and
		 * event_problem() rejects both.
		 */
		if (ev->magic == KMEMTRACE_MAGIC ||
		    ev->magic == KMEMTRACE_MAGIC_SWAPPED) {
			if (s->order == KMT_ORDER_UNKNOWN)
				s->order = ev->magic == KMEMTRACE_MAGIC ?
					   KMT_ORDER_HOST : KMT_ORDER_OTHER;
			if (s->order == KMT_ORDER_OTHER) {
				kmt_event_swab(ev);
				s->swapped++;
			}
		}
		if (event_problem(s, ev, why, sizeof(why)) ||
		    !stream_account_seq(st, ev, why, sizeof(why))) {
			stream_problem(s, st, s->nr + i, why);
			continue;
		}
		if (s->valid != i)
			memcpy(s->buf + s->valid * KMEMTRACE_EVENT_SIZE, ev,
			       KMEMTRACE_EVENT_SIZE);
		s->valid++;
	}
	s->nr += n;
}

/*
 * The stream is read: account for a truncated last event of @tail bytes
 * and close it.
 */
static void stream_end(struct kmt_stream *s, struct kmt_stats *st, size_t tail)
{
	s->tail = tail;
	if (s->tail && ++st->errors <= KMT_MAX_ERRORS)
		stream_msg(s,
			   "%s: truncated event at offset %zu (%zu bytes, file size not a multiple of %zu)",
			   s->path, s->nr * s->esize, s->tail, s->esize);
	if (st->errors > KMT_MAX_ERRORS)
		stream_msg(s, "%s: %zu more problems not shown", s->path,
			   st->errors - KMT_MAX_ERRORS);
	close(s->fd);
	s->fd = -1;
	free(s->buf);
	s->buf = NULL;
	free(s->ahead);
	s->ahead = NULL;
	s->len = 0;
	s->whole = 0;
	free(s->raw);
	s->raw = NULL;
	s->raw_len = 0;
	s->raw_whole = 0;
}

/* Read up to @len bytes of @fd at @off into @buf: how many; @*err on an error. */
static size_t stream_pread(int fd, unsigned char *buf, size_t len, uint64_t off,
			   int *err)
{
	size_t done = 0;
	ssize_t n;

	*err = 0;
	while (done < len) {
		n = pread(fd, buf + done, len - done, off + done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*err = errno;
			break;
		}
		if (!n)
			break;
		done += n;
	}
	return done;
}

/* Count and say read error @err of @s, if any; return whether there was none. */
static bool stream_read_ok(struct kmt_stream *s, struct kmt_stats *st, int err)
{
	if (!err)
		return true;
	st->errors++;
	stream_msg(s, "%s: %s", s->path, strerror(err));
	return false;
}

/*
 * The read-ahead's state machine.  Another thread only reads ahead from
 * KMT_AHEAD_EMPTY, which it moves to busy; the stream's own thread
 * takes a chunk from KMT_AHEAD_READY, or reads it itself from empty,
 * moving either to busy too: whoever holds busy alone reads @s->off and
 * @s->fd and writes the @ahead fields.  Off and done, the stream reads
 * alone.
 */
static inline int ahead_state(struct kmt_stream *s)
{
	return __atomic_load_n(&s->ahead_state, __ATOMIC_ACQUIRE);
}

static inline void ahead_set(struct kmt_stream *s, int state)
{
	__atomic_store_n(&s->ahead_state, state, __ATOMIC_RELEASE);
}

static inline bool ahead_claim(struct kmt_stream *s, int from)
{
	return __atomic_compare_exchange_n(&s->ahead_state, &from, KMT_AHEAD_BUSY,
					   false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

/*
 * Wait, the @i-th time, for the thread reading a chunk ahead: a chunk is
 * some 50 us of copying, so spin; but give the CPU up after a while, for
 * a reader the kernel runs on the same CPU or does not run at all.
 */
static inline void ahead_relax(unsigned int i)
{
	if (i >= 4096)
		sched_yield();
	else
		kmt_cpu_relax();
}

/*
 * Read the chunk of a current ABI stream after the @s->len bytes of a
 * partial event in @s->buf, up to @cap bytes in all: take it from
 * @s->ahead if another thread read it ahead (waiting for one reading it),
 * else read it here.  A read short of @cap ends the read-ahead: the file
 * is at its end.  Return false on a read error (said).
 */
static bool stream_read_next(struct kmt_stream *s, struct kmt_stats *st,
			     size_t cap)
{
	bool owned = false;
	int state, err = 0;
	unsigned char *t;
	unsigned int i;
	size_t n;

	for (i = 0;; i++) {
		state = ahead_state(s);
		if (state == KMT_AHEAD_READY && ahead_claim(s, KMT_AHEAD_READY)) {
			owned = true;
			err = s->ahead_err;
			if (!s->len) {
				t = s->buf;
				s->buf = s->ahead;
				s->ahead = t;
				n = s->ahead_len;
			} else {
				n = s->ahead_len < cap - s->len ? s->ahead_len : cap - s->len;
				memcpy(s->buf + s->len, s->ahead, n);
				/* What did not fit is read again. */
				if (n < s->ahead_len)
					err = 0;
			}
			break;
		}
		if (state == KMT_AHEAD_EMPTY && ahead_claim(s, KMT_AHEAD_EMPTY))
			owned = true;
		if (owned || state == KMT_AHEAD_OFF || state == KMT_AHEAD_DONE) {
			n = stream_pread(s->fd, s->buf + s->len, cap - s->len, s->off, &err);
			break;
		}
		ahead_relax(i);
	}
	s->len += n;
	s->off += n;
	if (owned)
		ahead_set(s, s->len < cap || err ? KMT_AHEAD_DONE : KMT_AHEAD_EMPTY);
	return stream_read_ok(s, st, err);
}

void kmt_stream_ahead_start(struct kmt_stream *s)
{
	if (s->abi == KMT_ABI_V1 || s->abi == KMT_ABI_V2 || s->fd < 0 ||
	    s->ahead_state != KMT_AHEAD_OFF)
		return;
	s->ahead = xmalloc(KMT_READ_EVENTS * KMEMTRACE_EVENT_SIZE);
	ahead_set(s, KMT_AHEAD_EMPTY);
}

bool kmt_stream_read_ahead(struct kmt_stream *s)
{
	if (ahead_state(s) != KMT_AHEAD_EMPTY || !ahead_claim(s, KMT_AHEAD_EMPTY))
		return false;
	s->ahead_len = stream_pread(s->fd, s->ahead, KMT_READ_EVENTS * KMEMTRACE_EVENT_SIZE,
				    s->off, &s->ahead_err);
	ahead_set(s, KMT_AHEAD_READY);
	return true;
}

void kmt_stream_ahead_stop(struct kmt_stream *s)
{
	unsigned int i;
	int state;

	for (i = 0;; i++) {
		state = ahead_state(s);
		if (state == KMT_AHEAD_OFF || state == KMT_AHEAD_DONE)
			return;
		if (state != KMT_AHEAD_BUSY && ahead_claim(s, state)) {
			ahead_set(s, KMT_AHEAD_DONE);
			return;
		}
		ahead_relax(i);
	}
}

/*
 * kmt_stream_fill() of an ABI 1 or 2 stream: read its bytes into @s->raw
 * and convert the whole events into @s->buf.
 */
static bool stream_fill_old(struct kmt_stream *s, struct kmt_stats *st)
{
	size_t cap = KMT_READ_EVENTS * s->esize;
	size_t keep = s->raw_len - s->raw_whole, i, n;
	struct kmemtrace_event *ev;
	int err;

	if (!s->raw) {
		s->raw = xmalloc(cap);
		s->buf = xmalloc(KMT_READ_EVENTS * KMEMTRACE_EVENT_SIZE);
	}
	memmove(s->raw, s->raw + s->raw_whole, keep);
	s->raw_len = keep;
	n = stream_pread(s->fd, s->raw + keep, cap - keep, s->off, &err);
	s->raw_len += n;
	s->off += n;
	stream_read_ok(s, st, err);
	s->raw_whole = s->raw_len - s->raw_len % s->esize;
	if (!s->raw_whole) {
		stream_end(s, st, s->raw_len);
		return false;
	}
	n = s->raw_whole / s->esize;
	for (i = 0; i < n; i++) {
		ev = (struct kmemtrace_event *)(s->buf + i * KMEMTRACE_EVENT_SIZE);
		if (s->abi == KMT_ABI_V1)
			kmt_event_from_v1(ev, s->raw + i * s->esize);
		else
			kmt_event_from_v2(ev, s->raw + i * s->esize);
	}
	s->whole = n * KMEMTRACE_EVENT_SIZE;
	s->len = s->whole;
	stream_check_chunk(s, st);
	return true;
}

/*
 * Read the next chunk of @s after the bytes of a partial event left in
 * its buffer, and check it; return false at the end of the file (or on a
 * read error), when the stream is closed.  A chunk may have no valid
 * event.
 */
bool kmt_stream_fill(struct kmt_stream *s, struct kmt_stats *st)
{
	size_t cap = KMT_READ_EVENTS * KMEMTRACE_EVENT_SIZE;
	size_t keep = s->len - s->whole;

	s->pos = 0;
	s->valid = 0;
	if (s->fd < 0)
		return false;
	if (s->abi == KMT_ABI_V1 || s->abi == KMT_ABI_V2)
		return stream_fill_old(s, st);
	if (!s->buf)
		s->buf = xmalloc(cap);
	memmove(s->buf, s->buf + s->whole, keep);
	s->len = keep;
	s->whole = 0;
	stream_read_next(s, st, cap);
	s->whole = s->len - s->len % KMEMTRACE_EVENT_SIZE;
	if (!s->whole) {
		stream_end(s, st, s->len);
		return false;
	}
	stream_check_chunk(s, st);
	return true;
}

const struct kmemtrace_event *kmt_stream_next(struct kmt_stream *s,
					      struct kmt_stats *st)
{
	const struct kmemtrace_event *ev = kmt_stream_head(s, st);

	if (ev)
		s->pos++;
	return ev;
}

int kmt_stream_order(struct kmt_stream *s)
{
	unsigned char buf[64 * KMEMTRACE_EVENT_SIZE];
	off_t off = 0;
	ssize_t n, i;
	uint16_t magic;

	/* Look ahead, from the start: the chunks read leave the file offset. */
	while (s->order == KMT_ORDER_UNKNOWN && s->fd >= 0 && !s->nr) {
		n = pread(s->fd, buf, 64 * s->esize, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < (ssize_t)s->esize)
			break;
		for (i = 0; i < n / (ssize_t)s->esize; i++) {
			memcpy(&magic, buf + i * s->esize, sizeof(magic));
			if (magic == KMEMTRACE_MAGIC)
				s->order = KMT_ORDER_HOST;
			else if (magic == KMEMTRACE_MAGIC_SWAPPED)
				s->order = KMT_ORDER_OTHER;
			else
				continue;
			break;
		}
		off += n - n % s->esize;
	}
	return s->order;
}

size_t kmt_stream_validate(struct kmt_stream *s, struct kmt_stats *st)
{
	memset(st, 0, sizeof(*st));
	while (kmt_stream_fill(s, st))
		;
	return st->errors;
}

void kmt_stream_free(struct kmt_stream *s)
{
	if (s->fd >= 0)
		close(s->fd);
	free(s->path);
	free(s->buf);
	free(s->ahead);
	free(s->raw);
	free(s->msgs);
	memset(s, 0, sizeof(*s));
	s->fd = -1;
}
