// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace - reading and validating recorded event streams
 */
#include <assert.h>
#include <byteswap.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace.h"
#include "utils.h"

static_assert(sizeof(struct kmemtrace_event) == KMEMTRACE_EVENT_SIZE,
	      "struct kmemtrace_event must be KMEMTRACE_EVENT_SIZE bytes");

/* An ABI 1 event; from seq on, the fields are those of ABI 2. */
struct kmt_event_v1 {
	__u16	magic;
	__u8	abi_version;
	__u8	kind;
	__u8	type;
	__u8	order;
	__u16	flags;
	__u32	cpu;
	__u32	pid;
	__s32	node;
	__u32	gfp_flags;
	__u32	cache_id;
	__u8	migratetype;
	__u8	__reserved[3];
	__u64	seq;
	__u64	timestamp;
	__u64	call_site;
	__u64	ptr;
	__u64	bytes_req;
	__u64	bytes_alloc;
} __packed;

static_assert(sizeof(struct kmt_event_v1) == KMT_EVENT_SIZE_V1,
	      "an ABI 1 event is KMT_EVENT_SIZE_V1 bytes");
static_assert(offsetof(struct kmt_event_v1, seq) ==
	      offsetof(struct kmemtrace_event, seq),
	      "ABI 1 and 2 share the layout from seq on");

/* How far into a stream its first event with a known magic is looked for. */
#define KMT_DETECT_BYTES	(1024 * 1024)

static const char * const kind_names[] = {
	[KMEMTRACE_KIND_ALLOC]	= "alloc",
	[KMEMTRACE_KIND_FREE]	= "free",
	[KMEMTRACE_KIND_REALLOC]	= "realloc",
};

static const char * const type_names[] = {
	[KMEMTRACE_TYPE_KMALLOC]	= "kmalloc",
	[KMEMTRACE_TYPE_CACHE]		= "cache",
	[KMEMTRACE_TYPE_PAGES]		= "pages",
	[KMEMTRACE_TYPE_PERCPU]		= "percpu",
	[KMEMTRACE_TYPE_VMALLOC]	= "vmalloc",
};

const char *kmt_kind_name(unsigned int kind)
{
	if (kind >= ARRAY_SIZE(kind_names) || !kind_names[kind])
		return "?";
	return kind_names[kind];
}

const char *kmt_type_name(unsigned int type)
{
	if (type >= ARRAY_SIZE(type_names) || !type_names[type])
		return "?";
	return type_names[type];
}

void kmt_flags_format(unsigned int flags, char *buf, size_t len)
{
	static const struct {
		unsigned int bit;
		const char *name;
	} names[] = {
		{ KMEMTRACE_FLAG_INTERRUPT,	"irq" },
		{ KMEMTRACE_FLAG_BACKING,	"backing" },
		{ KMEMTRACE_FLAG_UNPAIRED,	"unpaired" },
		{ KMEMTRACE_FLAG_STACK_LOST,	"stack_lost" },
		{ KMEMTRACE_FLAG_UNCHARGED,	"uncharged" },
	};
	size_t i, used = 0;
	int n;

	if (!len)
		return;
	buf[0] = '\0';
	if (!flags) {
		snprintf(buf, len, "0");
		return;
	}
	for (i = 0; i < ARRAY_SIZE(names) && used < len; i++) {
		if (!(flags & names[i].bit))
			continue;
		flags &= ~names[i].bit;
		n = snprintf(buf + used, len - used, "%s%s", used ? "," : "",
			     names[i].name);
		used += n > 0 ? n : 0;
	}
	if (flags && used < len)
		snprintf(buf + used, len - used, "%s0x%x", used ? "," : "", flags);
}

int kmt_cpu_from_name(const char *path)
{
	const char *name = path_basename(path);
	long cpu = 0;
	const char *p;

	if (strncmp(name, "cpu", 3) || !name[3])
		return -1;
	for (p = name + 3; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		cpu = cpu * 10 + (*p - '0');
		if (cpu > INT_MAX)
			return -1;
	}
	return cpu;
}

void kmt_event_swab(struct kmemtrace_event *ev)
{
	ev->magic = bswap_16(ev->magic);
	ev->flags = bswap_16(ev->flags);
	ev->cpu = bswap_16(ev->cpu);
	/* migratetype and __reserved are bytes. */
	ev->pid = bswap_32(ev->pid);
	ev->node = (__s32)bswap_32((__u32)ev->node);
	ev->gfp_flags = bswap_32(ev->gfp_flags);
	ev->cache_id = bswap_32(ev->cache_id);
	ev->stack_id = bswap_32(ev->stack_id);
	ev->seq = bswap_64(ev->seq);
	ev->timestamp = bswap_64(ev->timestamp);
	ev->call_site = bswap_64(ev->call_site);
	ev->ptr = bswap_64(ev->ptr);
	ev->bytes_req = bswap_64(ev->bytes_req);
	ev->bytes_alloc = bswap_64(ev->bytes_alloc);
	ev->tag = bswap_64(ev->tag);
}

void kmt_event_from_v1(struct kmemtrace_event *ev, const unsigned char *raw)
{
	struct kmt_event_v1 v;
	bool swapped;
	uint32_t cpu;

	memcpy(&v, raw, sizeof(v));
	/* Every field keeps its size but cpu: only it needs the byte order. */
	swapped = v.magic == KMEMTRACE_MAGIC_SWAPPED;
	cpu = swapped ? bswap_32(v.cpu) : v.cpu;
	memset(ev, 0, offsetof(struct kmemtrace_event, seq));
	ev->magic = v.magic;
	ev->abi_version = v.abi_version;
	ev->kind = v.kind;
	ev->type = v.type;
	ev->order = v.order;
	ev->flags = v.flags;
	ev->cpu = cpu > UINT16_MAX ? UINT16_MAX : cpu;
	ev->__reserved = cpu > UINT16_MAX;
	if (swapped)
		ev->cpu = bswap_16(ev->cpu);
	ev->migratetype = v.migratetype;
	ev->pid = v.pid;
	ev->node = v.node;
	ev->gfp_flags = v.gfp_flags;
	ev->cache_id = v.cache_id;
	memcpy(&ev->seq, raw + offsetof(struct kmt_event_v1, seq),
	       KMT_EVENT_SIZE_V1 - offsetof(struct kmt_event_v1, seq));
	ev->tag = 0;
}

/* Whether @p, at least 3 bytes, starts an event of a known magic and @abi. */
static bool known_event(const unsigned char *p, bool v1)
{
	uint16_t magic;

	memcpy(&magic, p, sizeof(magic));
	if (magic != KMEMTRACE_MAGIC && magic != KMEMTRACE_MAGIC_SWAPPED)
		return false;
	return (p[2] == KMT_ABI_V1) == v1;
}

/*
 * The ABI version of a stream is that of its first event with a known
 * magic: one at an ABI 1 offset with abi_version 1, or one at a current
 * offset with any other abi_version, whichever comes first.  A stream
 * without one in its first KMT_DETECT_BYTES is of the current ABI.
 */
static void stream_detect_abi(struct kmt_stream *s)
{
	unsigned char *buf = xmalloc(KMT_DETECT_BYTES);
	size_t len = 0, i, off1, off2;
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
	for (i = 0; ; i++) {
		off1 = i * KMT_EVENT_SIZE_V1;
		off2 = i * KMEMTRACE_EVENT_SIZE;
		if (off1 + 3 > len)
			break;
		if (known_event(buf + off1, true)) {
			s->abi = KMT_ABI_V1;
			break;
		}
		if (off2 + 3 <= len && known_event(buf + off2, false))
			break;
	}
	s->esize = s->abi == KMT_ABI_V1 ? KMT_EVENT_SIZE_V1 : KMEMTRACE_EVENT_SIZE;
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
		 (ev->abi_version == KMT_ABI_V1 ||
		  ev->abi_version == KMEMTRACE_ABI_VERSION))
		snprintf(buf, len,
			 "abi_version %u differs from the first event of the stream (%u)",
			 ev->abi_version, s->abi);
	else if (ev->abi_version != s->abi)
		snprintf(buf, len, "unsupported abi_version %u (expected %u)",
			 ev->abi_version, s->abi);
	else if (ev->kind < KMEMTRACE_KIND_ALLOC || ev->kind > KMEMTRACE_KIND_REALLOC)
		snprintf(buf, len, "bad kind %u", ev->kind);
	else if (ev->type < KMEMTRACE_TYPE_KMALLOC || ev->type > KMEMTRACE_TYPE_VMALLOC)
		snprintf(buf, len, "bad type %u", ev->type);
	else if (ev->flags & ~(s->abi == KMT_ABI_V1 ? KMT_KNOWN_FLAGS_V1 :
			       KMT_KNOWN_FLAGS))
		snprintf(buf, len, "bad flags 0x%x", ev->flags);
	else if (s->abi == KMT_ABI_V1 && ev->__reserved)
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

/*
 * stream_check_chunk() of events @i to @n of a host byte order stream,
 * none of them invalid so far, while they stay valid: the common case,
 * with one branch per event.  Return the index of the first event it did
 * not take, an invalid one or @n.
 */
static size_t stream_check_valid(struct kmt_stream *s, struct kmt_stats *st,
				 size_t i, size_t n)
{
	/* A stream not named cpuN may have events of any CPU. */
	uint32_t cpu = s->cpu >= 0 ? s->cpu : 0;
	uint32_t cpu_mask = s->cpu >= 0 ? UINT32_MAX : 0;
	const struct kmemtrace_event *ev;
	uint64_t last = st->last_seq;
	size_t first = i;
	unsigned int bad;

	for (; i < n; i++) {
		ev = (const struct kmemtrace_event *)(s->buf + i * KMEMTRACE_EVENT_SIZE);
		/* event_problem() and stream_account_seq(), without branches */
		bad = (ev->magic ^ KMEMTRACE_MAGIC) |
		      (ev->abi_version ^ KMEMTRACE_ABI_VERSION) |
		      ((unsigned int)ev->kind - KMEMTRACE_KIND_ALLOC >
		       KMEMTRACE_KIND_REALLOC - KMEMTRACE_KIND_ALLOC) |
		      ((unsigned int)ev->type - KMEMTRACE_TYPE_KMALLOC >
		       KMEMTRACE_TYPE_VMALLOC - KMEMTRACE_TYPE_KMALLOC) |
		      (ev->flags & ~KMT_KNOWN_FLAGS) |
		      ((ev->cpu ^ cpu) & cpu_mask) | (ev->seq <= last);
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
		if (s->valid == i && st->events && s->order == KMT_ORDER_HOST &&
		    s->abi != KMT_ABI_V1) {
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
	s->len = 0;
	s->whole = 0;
	free(s->raw);
	s->raw = NULL;
	s->raw_len = 0;
	s->raw_whole = 0;
}

/* Read into @buf, after @*len bytes, until @cap; false on a read error. */
static bool stream_read(struct kmt_stream *s, struct kmt_stats *st,
			unsigned char *buf, size_t *len, size_t cap)
{
	ssize_t n;

	while (*len < cap) {
		n = read(s->fd, buf + *len, cap - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			st->errors++;
			stream_msg(s, "%s: %s", s->path, strerror(errno));
			return false;
		}
		if (!n)
			break;
		*len += n;
	}
	return true;
}

/*
 * stream_fill() of an ABI 1 stream: read its bytes into @s->raw and
 * convert the whole events into @s->buf.
 */
static bool stream_fill_v1(struct kmt_stream *s, struct kmt_stats *st)
{
	size_t cap = KMT_READ_EVENTS * KMT_EVENT_SIZE_V1;
	size_t keep = s->raw_len - s->raw_whole, i, n;

	if (!s->raw) {
		s->raw = xmalloc(cap);
		s->buf = xmalloc(KMT_READ_EVENTS * KMEMTRACE_EVENT_SIZE);
	}
	memmove(s->raw, s->raw + s->raw_whole, keep);
	s->raw_len = keep;
	stream_read(s, st, s->raw, &s->raw_len, cap);
	s->raw_whole = s->raw_len - s->raw_len % KMT_EVENT_SIZE_V1;
	if (!s->raw_whole) {
		stream_end(s, st, s->raw_len);
		return false;
	}
	n = s->raw_whole / KMT_EVENT_SIZE_V1;
	for (i = 0; i < n; i++)
		kmt_event_from_v1((struct kmemtrace_event *)
				  (s->buf + i * KMEMTRACE_EVENT_SIZE),
				  s->raw + i * KMT_EVENT_SIZE_V1);
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
static bool stream_fill(struct kmt_stream *s, struct kmt_stats *st)
{
	size_t cap = KMT_READ_EVENTS * KMEMTRACE_EVENT_SIZE;
	size_t keep = s->len - s->whole;

	s->pos = 0;
	s->valid = 0;
	if (s->fd < 0)
		return false;
	if (s->abi == KMT_ABI_V1)
		return stream_fill_v1(s, st);
	if (!s->buf)
		s->buf = xmalloc(cap);
	memmove(s->buf, s->buf + s->whole, keep);
	s->len = keep;
	s->whole = 0;
	stream_read(s, st, s->buf, &s->len, cap);
	s->whole = s->len - s->len % KMEMTRACE_EVENT_SIZE;
	if (!s->whole) {
		stream_end(s, st, s->len);
		return false;
	}
	stream_check_chunk(s, st);
	return true;
}

/* The next valid event of @s, reading chunks as needed. */
static struct kmemtrace_event *stream_head(struct kmt_stream *s,
					   struct kmt_stats *st)
{
	while (s->pos == s->valid)
		if (!stream_fill(s, st))
			return NULL;
	return (struct kmemtrace_event *)(s->buf + s->pos * KMEMTRACE_EVENT_SIZE);
}

const struct kmemtrace_event *kmt_stream_next(struct kmt_stream *s,
					      struct kmt_stats *st)
{
	const struct kmemtrace_event *ev = stream_head(s, st);

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
	while (stream_fill(s, st))
		;
	return st->errors;
}

void kmt_stream_free(struct kmt_stream *s)
{
	if (s->fd >= 0)
		close(s->fd);
	free(s->path);
	free(s->buf);
	free(s->raw);
	free(s->msgs);
	memset(s, 0, sizeof(*s));
	s->fd = -1;
}

int kmt_trace_add_file(struct kmt_trace *t, const char *path)
{
	struct kmt_stream s;
	int ret;

	ret = kmt_stream_open(&s, path);
	if (ret)
		return ret;
	t->streams = xrealloc(t->streams, (t->nr + 1) * sizeof(*t->streams));
	t->streams[t->nr++] = s;
	return 0;
}

static int stream_cmp(const void *a, const void *b)
{
	const struct kmt_stream *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return strcmp(x->path, y->path);
}

void kmt_trace_read_dropped(struct kmt_trace *t)
{
	char *path = path_join(t->dir, "dropped");
	int ret;

	ret = read_u64_file(path, &t->dropped);
	t->has_dropped = !ret;
	if (ret && ret != -ENOENT)
		kmt_err("%s: %s, ignored", path,
			ret == -EINVAL ? "not a number" : strerror(-ret));
	free(path);
}

size_t kmt_split_fields(const char *line, struct kmt_field *f, size_t max)
{
	size_t n = 0, len;

	for (;;) {
		line += strspn(line, " \t\r");
		len = strcspn(line, " \t\r");
		if (!len)
			return n;
		if (n < max) {
			f[n].s = line;
			f[n].len = len;
		}
		n++;
		line += len;
	}
}

static int field_u64(const struct kmt_field *f, uint64_t *val)
{
	char buf[32];

	if (f->len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, f->s, f->len);
	buf[f->len] = '\0';
	return parse_u64(buf, val);
}

int kmt_parse_lines(char *buf, const struct kmt_line_parser *lp)
{
	char *line, *next, header[64];
	size_t nr = 0, len;
	uint64_t version;
	int ret;

	len = snprintf(header, sizeof(header), "# kmemtrace %s v", lp->what);
	for (line = buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		nr++;
		if (nr == 1 && !strncmp(line, header, len) &&
		    (parse_u64(line + len, &version) || !version ||
		     version > lp->max_version)) {
			kmt_err("%s: %s format v%s, this kmemtrace supports v1 to v%llu",
				lp->path, lp->what, line + len,
				(unsigned long long)lp->max_version);
			return -EPROTO;
		}
		if (line[0] == '#' || !line[strspn(line, " \t\r")])
			continue;
		ret = lp->fn(lp->arg, lp->path, nr, line);
		if (ret)
			return ret;
	}
	return 0;
}

static int stat_cmp(const void *a, const void *b)
{
	const struct kmt_cpu_stat *x = a, *y = b;

	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

static int stats_line(void *arg, const char *path, size_t nr, const char *line)
{
	struct kmt_trace *t = arg;
	size_t lo = 0, hi = t->nr_stats, mid;
	struct kmt_cpu_stat cs;
	struct kmt_field f[4];

	/* v2 adds an nmi column, already part of dropped. */
	if (kmt_split_fields(line, f, ARRAY_SIZE(f)) < ARRAY_SIZE(f) ||
	    field_u64(&f[0], &cs.cpu) || field_u64(&f[1], &cs.events) ||
	    field_u64(&f[2], &cs.dropped) || field_u64(&f[3], &cs.next_seq) ||
	    cs.cpu > INT_MAX) {
		kmt_err("%s: line %zu: not \"CPU EVENTS DROPPED NEXT_SEQ\", file ignored",
			path, nr);
		return -EINVAL;
	}
	/*
	 * Keep @t->stats sorted by CPU, to find a CPU listed twice in any
	 * order.  The kernel lists the CPUs in order: each line appends.
	 */
	if (hi && cs.cpu > t->stats[hi - 1].cpu)
		lo = hi;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (t->stats[mid].cpu < cs.cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < t->nr_stats && t->stats[lo].cpu == cs.cpu) {
		kmt_err("%s: line %zu: cpu %llu listed twice, file ignored", path,
			nr, (unsigned long long)cs.cpu);
		return -EINVAL;
	}
	t->stats = xrealloc(t->stats, (t->nr_stats + 1) * sizeof(*t->stats));
	memmove(&t->stats[lo + 1], &t->stats[lo],
		(t->nr_stats - lo) * sizeof(*t->stats));
	t->stats[lo] = cs;
	t->nr_stats++;
	return 0;
}

size_t kmt_trace_read_stats(struct kmt_trace *t)
{
	/* v2 added the nmi column. */
	struct kmt_line_parser lp = { .what = "stats", .max_version = 2,
				  .fn = stats_line, .arg = t };
	char *path, *buf;
	size_t len;
	int ret;

	free(t->stats);
	t->stats = NULL;
	t->nr_stats = 0;
	t->has_stats = false;
	ret = read_side_file(t->dir, "stats", &path, &buf, &len);
	if (ret)
		return ret != -ENOENT;
	lp.path = path;
	ret = kmt_parse_lines(buf, &lp);
	free(buf);
	free(path);
	if (ret) {
		free(t->stats);
		t->stats = NULL;
		t->nr_stats = 0;
		return 1;
	}
	t->has_stats = true;
	return 0;
}

const struct kmt_cpu_stat *kmt_trace_cpu_stat(const struct kmt_trace *t,
					      int cpu)
{
	struct kmt_cpu_stat key = { .cpu = cpu };

	if (cpu < 0 || !t->nr_stats)
		return NULL;
	return bsearch(&key, t->stats, t->nr_stats, sizeof(*t->stats), stat_cmp);
}

static int cache_cmp(const void *a, const void *b)
{
	const struct kmt_cache *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static int cache_id_cmp(const void *a, const void *b)
{
	const struct kmt_cache *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* "ID NAME OBJECT_SIZE SIZE"; NAME is what lies between ID and the sizes. */
static int caches_line(void *arg, const char *path, size_t nr, const char *line)
{
	struct kmt_caches *c = arg;
	struct kmt_field f[64];
	struct kmt_cache kc;
	uint64_t id;
	size_t n;

	n = kmt_split_fields(line, f, ARRAY_SIZE(f));
	if (n < 4 || n > ARRAY_SIZE(f) || field_u64(&f[0], &id) ||
	    id > UINT32_MAX || field_u64(&f[n - 2], &kc.object_size) ||
	    field_u64(&f[n - 1], &kc.size)) {
		kmt_err("%s: line %zu: not \"ID NAME OBJECT_SIZE SIZE\", skipped",
			path, nr);
		return 0;
	}
	kc.id = id;
	kc.line = nr;
	kc.name = strndup(f[1].s, f[n - 3].s + f[n - 3].len - f[1].s);
	if (!kc.name)
		kc.name = xstrdup("?");
	c->caches = xrealloc(c->caches, (c->nr + 1) * sizeof(*c->caches));
	c->caches[c->nr++] = kc;
	return 0;
}

/* Sort by id and keep the first line of each id. */
static void caches_sort(struct kmt_caches *c)
{
	size_t i, n = 0;

	/* qsort() may not be passed NULL, even for no element. */
	if (!c->nr)
		return;
	qsort(c->caches, c->nr, sizeof(*c->caches), cache_cmp);
	for (i = 0; i < c->nr; i++) {
		if (n && c->caches[n - 1].id == c->caches[i].id) {
			free(c->caches[i].name);
			continue;
		}
		c->caches[n++] = c->caches[i];
	}
	c->nr = n;
}

void kmt_caches_load(struct kmt_caches *c, const char *dir)
{
	struct kmt_line_parser lp = { .what = "caches", .max_version = 1,
				  .fn = caches_line, .arg = c };
	size_t len;
	char *path, *buf;
	int ret;

	memset(c, 0, sizeof(*c));
	if (!dir)
		return;
	path = path_join(dir, "caches");
	ret = read_file(path, &buf, &len);
	if (ret) {
		if (ret != -ENOENT)
			kmt_err("%s: %s, ignored", path, strerror(-ret));
		free(path);
		return;
	}
	lp.path = path;
	if (kmt_parse_lines(buf, &lp))
		kmt_caches_free(c);
	else
		caches_sort(c);
	free(buf);
	free(path);
}

const char *kmt_caches_name(const struct kmt_caches *c, uint32_t id)
{
	struct kmt_cache key = { .id = id }, *kc;

	if (!c->nr)
		return NULL;
	kc = bsearch(&key, c->caches, c->nr, sizeof(*c->caches), cache_id_cmp);
	return kc ? kc->name : NULL;
}

void kmt_caches_free(struct kmt_caches *c)
{
	size_t i;

	for (i = 0; i < c->nr; i++)
		free(c->caches[i].name);
	free(c->caches);
	memset(c, 0, sizeof(*c));
}

int kmt_trace_load_dir(struct kmt_trace *t, const char *dir)
{
	struct dirent *de;
	int ret = 0;
	char *path;
	DIR *d;

	memset(t, 0, sizeof(*t));
	d = opendir(dir);
	if (!d) {
		ret = -errno;
		kmt_err("%s: %s", dir, strerror(-ret));
		return ret;
	}
	t->dir = xstrdup(dir);
	while (!ret && (de = readdir(d))) {
		if (kmt_cpu_from_name(de->d_name) < 0)
			continue;
		path = path_join(dir, de->d_name);
		ret = kmt_trace_add_file(t, path);
		free(path);
	}
	closedir(d);
	if (!ret && !t->nr) {
		kmt_err("%s: no cpuN files (not a kmemtrace record directory?)", dir);
		ret = -ENOENT;
	}
	if (ret) {
		kmt_trace_free(t);
		return ret;
	}
	qsort(t->streams, t->nr, sizeof(*t->streams), stream_cmp);
	kmt_trace_read_dropped(t);
	t->header_problems = kmt_header_load(&t->header, dir, false);
	return 0;
}

size_t kmt_trace_validate(struct kmt_trace *t, struct kmt_stats *st)
{
	size_t i, errors = 0;

	for (i = 0; i < t->nr; i++)
		errors += kmt_stream_validate(&t->streams[i], &st[i]);
	return errors;
}

/* Whether event @x of stream @a comes before event @y of stream @b. */
static inline bool event_before(const struct kmemtrace_event *x, size_t a,
				const struct kmemtrace_event *y, size_t b)
{
	if (x->timestamp != y->timestamp)
		return x->timestamp < y->timestamp;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu;
	if (x->seq != y->seq)
		return x->seq < y->seq;
	return a < b;
}

/* Whether the next event of stream @a comes before that of stream @b. */
static inline bool merge_before(const struct kmt_merge *m, size_t a, size_t b)
{
	return event_before(m->head[a], a, m->head[b], b);
}

static void merge_sift_down(struct kmt_merge *m, size_t i)
{
	size_t child, top = m->heap[i];

	for (;;) {
		child = 2 * i + 1;
		if (child >= m->nr)
			break;
		if (child + 1 < m->nr &&
		    merge_before(m, m->heap[child + 1], m->heap[child]))
			child++;
		if (!merge_before(m, m->heap[child], top))
			break;
		m->heap[i] = m->heap[child];
		i = child;
	}
	m->heap[i] = top;
}

void kmt_merge_start(struct kmt_merge *m, struct kmt_trace *t,
		     struct kmt_stats *st)
{
	size_t i;

	memset(m, 0, sizeof(*m));
	m->t = t;
	m->st = st;
	m->heap = xcalloc(t->nr, sizeof(*m->heap));
	m->head = xcalloc(t->nr, sizeof(*m->head));
	for (i = 0; i < t->nr; i++) {
		memset(&st[i], 0, sizeof(st[i]));
		t->streams[i].defer = true;
		m->head[i] = stream_head(&t->streams[i], &st[i]);
		if (m->head[i])
			m->heap[m->nr++] = i;
	}
	for (i = m->nr / 2; i-- > 0;)
		merge_sift_down(m, i);
}

static inline size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;

	return m < c ? m : c;
}

/* The event at index @i of the chunk of @s. */
static inline const struct kmemtrace_event *
stream_event(const struct kmt_stream *s, size_t i)
{
	return (const struct kmemtrace_event *)(s->buf + i * KMEMTRACE_EVENT_SIZE);
}

/*
 * kmt_merge_batch() of two streams, the common case, from its @n-th
 * event on.  Which stream goes on is a coin toss that would mispredict
 * a branch every other event: it is computed without one, for as many
 * events as neither stream can run out in.
 */
static size_t merge_batch2(struct kmt_merge *m,
			   const struct kmemtrace_event **ev, size_t n,
			   size_t max)
{
	size_t a = m->heap[0], b = m->heap[1], k;
	struct kmt_stream *sa = &m->t->streams[a], *sb = &m->t->streams[b];
	const struct kmemtrace_event *pa = stream_event(sa, sa->pos);
	const struct kmemtrace_event *pb = stream_event(sb, sb->pos);
	const struct kmemtrace_event *ea = stream_event(sa, sa->valid);
	const struct kmemtrace_event *eb = stream_event(sb, sb->valid);
	uintptr_t take_b;

	while (n < max && pa < ea && pb < eb) {
		k = min3((size_t)(ea - pa), (size_t)(eb - pb), max - n);
		while (k--) {
			if (pa->timestamp != pb->timestamp)
				take_b = pb->timestamp < pa->timestamp;
			else
				take_b = event_before(pb, b, pa, a);
			/* Masks, as compilers turn a ?: into a branch. */
			ev[n++] = (const struct kmemtrace_event *)
				  ((uintptr_t)pa ^
				   (((uintptr_t)pa ^ (uintptr_t)pb) & -take_b));
			pa += 1 - take_b;
			pb += take_b;
		}
	}
	sa->pos = pa - stream_event(sa, 0);
	sb->pos = pb - stream_event(sb, 0);
	m->head[a] = pa;
	m->head[b] = pb;
	/* Refill a stream that ran out first, as kmt_merge_batch() does. */
	if (pa == ea || pb == eb) {
		m->refill = true;
		if (pb == eb) {
			m->heap[0] = b;
			m->heap[1] = a;
		}
	} else if (merge_before(m, b, a)) {
		m->heap[0] = b;
		m->heap[1] = a;
	}
	return n;
}

size_t kmt_merge_batch(struct kmt_merge *m,
		       const struct kmemtrace_event **ev, size_t max)
{
	struct kmt_stream *s;
	size_t n = 0, i;

	/* Refill the stream whose chunk the last batch used up. */
	if (m->refill) {
		i = m->heap[0];
		m->refill = false;
		m->head[i] = stream_head(&m->t->streams[i], &m->st[i]);
		if (!m->head[i])
			m->heap[0] = m->heap[--m->nr];
		if (m->nr)
			merge_sift_down(m, 0);
	}
	while (n < max && m->nr) {
		i = m->heap[0];
		s = &m->t->streams[i];
		ev[n++] = m->head[i];
		if (++s->pos == s->valid) {
			/* Reading on would overwrite the events returned. */
			m->refill = true;
			break;
		}
		m->head[i] = (const struct kmemtrace_event *)
			(s->buf + s->pos * KMEMTRACE_EVENT_SIZE);
		if (m->nr > 1)
			merge_sift_down(m, 0);
		if (m->nr == 2)
			return merge_batch2(m, ev, n, max);
	}
	return n;
}

size_t kmt_merge_end(struct kmt_merge *m)
{
	const struct kmemtrace_event *ev[KMT_MERGE_BATCH];
	size_t i, errors = 0;

	/* Read what is left, if the caller stopped early. */
	while (kmt_merge_batch(m, ev, KMT_MERGE_BATCH))
		;
	for (i = 0; i < m->t->nr; i++) {
		m->t->streams[i].defer = false;
		kmt_stream_flush(&m->t->streams[i]);
		errors += m->st[i].errors;
	}
	free(m->heap);
	free(m->head);
	m->heap = NULL;
	m->head = NULL;
	return errors;
}

void kmt_trace_free(struct kmt_trace *t)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		kmt_stream_free(&t->streams[i]);
	free(t->streams);
	free(t->stats);
	free(t->dir);
	kmt_header_free(&t->header);
	memset(t, 0, sizeof(*t));
}
