// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace - reading and validating recorded event streams
 */
#include <assert.h>
#include <byteswap.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"
#include "utils.h"

static_assert(sizeof(struct kmemtrace_event) == KMEMTRACE_EVENT_SIZE,
	       "struct kmemtrace_event must be KMEMTRACE_EVENT_SIZE bytes");

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
	ev->cpu = bswap_32(ev->cpu);
	ev->pid = bswap_32(ev->pid);
	ev->node = (__s32)bswap_32((__u32)ev->node);
	ev->gfp_flags = bswap_32(ev->gfp_flags);
	ev->cache_id = bswap_32(ev->cache_id);
	/* migratetype and __reserved[] are bytes. */
	ev->seq = bswap_64(ev->seq);
	ev->timestamp = bswap_64(ev->timestamp);
	ev->call_site = bswap_64(ev->call_site);
	ev->ptr = bswap_64(ev->ptr);
	ev->bytes_req = bswap_64(ev->bytes_req);
	ev->bytes_alloc = bswap_64(ev->bytes_alloc);
}

/*
 * Convert the events of a stream to host byte order.  The stream is in
 * the byte order of its first event with a known magic.  When that is
 * the other byte order, every event with a known magic is converted: one
 * that was in host order then reads KMEMTRACE_MAGIC_SWAPPED, as an event
 * in the other order does in a host-order stream, and validation rejects
 * both.  Return the number of events converted.
 */
static size_t stream_to_host_order(struct kmemtrace_event *ev, size_t nr)
{
	size_t i, swapped = 0;
	bool other = false;

	for (i = 0; i < nr; i++) {
		if (ev[i].magic == KMEMTRACE_MAGIC ||
		    ev[i].magic == KMEMTRACE_MAGIC_SWAPPED) {
			other = ev[i].magic == KMEMTRACE_MAGIC_SWAPPED;
			break;
		}
	}
	if (!other)
		return 0;
	for (; i < nr; i++) {
		if (ev[i].magic != KMEMTRACE_MAGIC &&
		    ev[i].magic != KMEMTRACE_MAGIC_SWAPPED)
			continue;
		kmt_event_swab(&ev[i]);
		swapped++;
	}
	return swapped;
}

int kmt_stream_load(struct kmt_stream *s, const char *path)
{
	size_t len;
	char *buf;
	int ret;

	memset(s, 0, sizeof(*s));
	ret = read_file(path, &buf, &len);
	if (ret) {
		err_msg("%s: %s", path, strerror(-ret));
		return ret;
	}
	s->path = xstrdup(path);
	s->cpu = kmt_cpu_from_name(path);
	s->nr = len / KMEMTRACE_EVENT_SIZE;
	s->tail = len % KMEMTRACE_EVENT_SIZE;
	s->ev = xmalloc(s->nr * KMEMTRACE_EVENT_SIZE);
	s->valid = xcalloc(s->nr, sizeof(*s->valid));
	memcpy(s->ev, buf, s->nr * KMEMTRACE_EVENT_SIZE);
	free(buf);
	s->swapped = stream_to_host_order(s->ev, s->nr);
	return 0;
}

static void stream_problem(const struct kmt_stream *s, struct kmt_stats *st,
			   size_t i, const char *what)
{
	if (++st->errors > KMT_MAX_ERRORS)
		return;
	err_msg("%s: event %zu (offset %zu): %s", s->path, i,
		i * KMEMTRACE_EVENT_SIZE, what);
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
	else if (ev->abi_version != KMEMTRACE_ABI_VERSION)
		snprintf(buf, len, "unsupported abi_version %u (expected %u)",
			 ev->abi_version, KMEMTRACE_ABI_VERSION);
	else if (ev->kind < KMEMTRACE_KIND_ALLOC || ev->kind > KMEMTRACE_KIND_REALLOC)
		snprintf(buf, len, "bad kind %u", ev->kind);
	else if (ev->type < KMEMTRACE_TYPE_KMALLOC || ev->type > KMEMTRACE_TYPE_VMALLOC)
		snprintf(buf, len, "bad type %u", ev->type);
	else if (ev->flags & ~KMT_KNOWN_FLAGS)
		snprintf(buf, len, "bad flags 0x%x", ev->flags);
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

size_t kmt_stream_validate(struct kmt_stream *s, struct kmt_stats *st)
{
	char why[128];
	size_t i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < s->nr; i++) {
		s->valid[i] = false;
		if (event_problem(s, &s->ev[i], why, sizeof(why)) ||
		    !stream_account_seq(st, &s->ev[i], why, sizeof(why))) {
			stream_problem(s, st, i, why);
			continue;
		}
		s->valid[i] = true;
	}
	if (s->tail) {
		if (++st->errors <= KMT_MAX_ERRORS)
			err_msg("%s: truncated event at offset %zu (%zu bytes, file size not a multiple of %d)",
				s->path, s->nr * KMEMTRACE_EVENT_SIZE, s->tail,
				KMEMTRACE_EVENT_SIZE);
	}
	if (st->errors > KMT_MAX_ERRORS)
		err_msg("%s: %zu more problems not shown", s->path,
			st->errors - KMT_MAX_ERRORS);
	return st->errors;
}

void kmt_stream_free(struct kmt_stream *s)
{
	free(s->path);
	free(s->ev);
	free(s->valid);
	memset(s, 0, sizeof(*s));
}

int kmt_trace_add_file(struct kmt_trace *t, const char *path)
{
	struct kmt_stream s;
	int ret;

	/* Reading a FIFO would wait for a writer, a device would not end. */
	ret = is_regular(path);
	if (ret <= 0) {
		err_msg("%s: %s", path, ret ? strerror(-ret) :
			"not a regular file, streams must be regular files");
		return ret ? ret : -EINVAL;
	}
	ret = kmt_stream_load(&s, path);
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
		err_msg("%s: %s, ignored", path,
			ret == -EINVAL ? "not a number" : strerror(-ret));
	free(path);
}

/* A field of a line of text: @len bytes from @s. */
struct field {
	const char *s;
	size_t len;
};

/* Split @line at blanks; return the number of fields, storing @max. */
static size_t split_fields(const char *line, struct field *f, size_t max)
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

static int field_u64(const struct field *f, uint64_t *val)
{
	char buf[32];

	if (f->len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, f->s, f->len);
	buf[f->len] = '\0';
	return parse_u64(buf, val);
}

/*
 * A "# kmemtrace WHAT vN" file, N up to @max_version: @fn parses line @nr
 * of @path for @arg, and returns nonzero to stop.
 */
struct line_parser {
	const char *path;
	const char *what;
	uint64_t max_version;
	int (*fn)(void *arg, const char *path, size_t nr, const char *line);
	void *arg;
};

/*
 * Call @lp->fn for every line of @buf but blank ones and "#" comments,
 * NUL-terminated in place.  A first line "# kmemtrace WHAT vN" must name
 * a version from 1 to @lp->max_version.  Stop at the first nonzero return of @lp->fn and return it;
 * return -EPROTO for a bad version.
 */
static int parse_lines(char *buf, const struct line_parser *lp)
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
			err_msg("%s: %s format v%s, this kmemtrace supports v1 to v%llu",
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
	struct kmt_cpu_stat cs;
	struct field f[4];
	size_t i;

	/* v2 adds an nmi column, already part of dropped. */
	if (split_fields(line, f, ARRAY_SIZE(f)) < ARRAY_SIZE(f) ||
	    field_u64(&f[0], &cs.cpu) || field_u64(&f[1], &cs.events) ||
	    field_u64(&f[2], &cs.dropped) || field_u64(&f[3], &cs.next_seq) ||
	    cs.cpu > INT_MAX) {
		err_msg("%s: line %zu: not \"CPU EVENTS DROPPED NEXT_SEQ\", file ignored",
			path, nr);
		return -EINVAL;
	}
	/* The kernel lists the CPUs in order: search only when they are not. */
	for (i = t->nr_stats; i && cs.cpu <= t->stats[t->nr_stats - 1].cpu; i--) {
		if (t->stats[i - 1].cpu != cs.cpu)
			continue;
		err_msg("%s: line %zu: cpu %llu listed twice, file ignored", path,
			nr, (unsigned long long)cs.cpu);
		return -EINVAL;
	}
	t->stats = xrealloc(t->stats, (t->nr_stats + 1) * sizeof(*t->stats));
	t->stats[t->nr_stats++] = cs;
	return 0;
}

size_t kmt_trace_read_stats(struct kmt_trace *t)
{
	/* v2 added the nmi column. */
	struct line_parser lp = { .what = "stats", .max_version = 2,
				  .fn = stats_line, .arg = t };
	char *path = path_join(t->dir, "stats");
	size_t len;
	char *buf;
	int ret;

	free(t->stats);
	t->stats = NULL;
	t->nr_stats = 0;
	t->has_stats = false;
	ret = read_file(path, &buf, &len);
	if (ret) {
		if (ret != -ENOENT)
			err_msg("%s: %s, ignored", path, strerror(-ret));
		free(path);
		return ret != -ENOENT;
	}
	lp.path = path;
	ret = parse_lines(buf, &lp);
	free(buf);
	free(path);
	if (ret) {
		free(t->stats);
		t->stats = NULL;
		t->nr_stats = 0;
		return 1;
	}
	qsort(t->stats, t->nr_stats, sizeof(*t->stats), stat_cmp);
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
	struct field f[64];
	struct kmt_cache kc;
	uint64_t id;
	size_t n;

	n = split_fields(line, f, ARRAY_SIZE(f));
	if (n < 4 || n > ARRAY_SIZE(f) || field_u64(&f[0], &id) ||
	    id > UINT32_MAX || field_u64(&f[n - 2], &kc.object_size) ||
	    field_u64(&f[n - 1], &kc.size)) {
		err_msg("%s: line %zu: not \"ID NAME OBJECT_SIZE SIZE\", skipped",
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
	struct line_parser lp = { .what = "caches", .max_version = 1,
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
			err_msg("%s: %s, ignored", path, strerror(-ret));
		free(path);
		return;
	}
	lp.path = path;
	if (parse_lines(buf, &lp))
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
		err_msg("%s: %s", dir, strerror(-ret));
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
		err_msg("%s: no cpuN files (not a kmemtrace record directory?)", dir);
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

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int ref_cmp(const void *a, const void *b)
{
	const struct kmt_ref *x = a, *y = b;
	int c;

	c = cmp_u64(x->ev->timestamp, y->ev->timestamp);
	if (!c)
		c = cmp_u64(x->ev->cpu, y->ev->cpu);
	if (!c)
		c = cmp_u64(x->ev->seq, y->ev->seq);
	if (!c)
		c = cmp_u64(x->stream, y->stream);
	if (!c)
		c = cmp_u64(x->index, y->index);
	return c;
}

struct kmt_ref *kmt_trace_timeline(const struct kmt_trace *t, size_t *nr)
{
	size_t i, j, n = 0;
	struct kmt_ref *refs;

	for (i = 0; i < t->nr; i++)
		for (j = 0; j < t->streams[i].nr; j++)
			n += t->streams[i].valid[j];
	refs = xcalloc(n, sizeof(*refs));
	n = 0;
	for (i = 0; i < t->nr; i++) {
		for (j = 0; j < t->streams[i].nr; j++) {
			if (!t->streams[i].valid[j])
				continue;
			refs[n].ev = &t->streams[i].ev[j];
			refs[n].stream = i;
			refs[n].index = j;
			n++;
		}
	}
	qsort(refs, n, sizeof(*refs), ref_cmp);
	*nr = n;
	return refs;
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
