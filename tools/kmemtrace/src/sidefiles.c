// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace - the side files of a trace directory: dropped, stats (with
 * dropped.start and stats.start), unwritten and caches, and the line
 * parser they share
 *
 * Part of the stream layer (trace.h); see Documentation/kmemtrace.rst.
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

/* Read DIR/@name, a number; return whether it was read. */
static bool read_dropped_file(const struct kmt_trace *t, const char *name,
			      uint64_t *val)
{
	char *path = path_join(t->dir, name);
	int ret;

	ret = read_u64_file(path, val);
	if (ret && ret != -ENOENT)
		kmt_err("%s: %s, ignored", path,
			ret == -EINVAL ? "not a number" : strerror(-ret));
	free(path);
	return !ret;
}

void kmt_trace_read_dropped(struct kmt_trace *t)
{
	t->has_dropped = read_dropped_file(t, "dropped", &t->dropped);
	t->has_dropped_start = read_dropped_file(t, "dropped.start",
						 &t->dropped_start);
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

int kmt_parse_side_file(const char *dir, const char *name,
			struct kmt_line_parser *lp)
{
	char *path, *buf;
	size_t len;
	int ret;

	ret = read_side_file(dir, name, &path, &buf, &len);
	if (ret)
		return ret == -ENOENT ? -ENOENT : 1;
	lp->path = path;
	ret = kmt_parse_lines(buf, lp);
	lp->path = NULL;
	free(buf);
	free(path);
	return ret ? 1 : 0;
}

static int stat_cmp(const void *a, const void *b)
{
	const struct kmt_cpu_stat *x = a, *y = b;

	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

/* The CPU lines of a stats file being read. */
struct stat_lines {
	struct kmt_cpu_stat *cs;
	size_t nr;
};

static int stats_line(void *arg, const char *path, size_t nr, const char *line)
{
	struct stat_lines *sl = arg;
	size_t lo = 0, hi = sl->nr, mid;
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
	 * Keep the lines sorted by CPU, to find a CPU listed twice in any
	 * order.  The kernel lists the CPUs in order: each line appends.
	 */
	if (hi && cs.cpu > sl->cs[hi - 1].cpu)
		lo = hi;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (sl->cs[mid].cpu < cs.cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < sl->nr && sl->cs[lo].cpu == cs.cpu) {
		kmt_err("%s: line %zu: cpu %llu listed twice, file ignored", path,
			nr, (unsigned long long)cs.cpu);
		return -EINVAL;
	}
	sl->cs = xrealloc(sl->cs, (sl->nr + 1) * sizeof(*sl->cs));
	memmove(&sl->cs[lo + 1], &sl->cs[lo], (sl->nr - lo) * sizeof(*sl->cs));
	sl->cs[lo] = cs;
	sl->nr++;
	return 0;
}

/*
 * Read DIR/@name, a stats file, into @sl; return the number of problems
 * (0 or 1), with @sl empty unless the file was read.
 */
static size_t read_stats_file(const struct kmt_trace *t, const char *name,
			      struct stat_lines *sl, bool *has)
{
	/* v2 added the nmi column. */
	struct kmt_line_parser lp = { .what = "stats", .max_version = 2,
				  .fn = stats_line, .arg = sl };
	int ret;

	memset(sl, 0, sizeof(*sl));
	*has = false;
	ret = kmt_parse_side_file(t->dir, name, &lp);
	if (ret == -ENOENT)
		return 0;
	if (ret) {
		free(sl->cs);
		memset(sl, 0, sizeof(*sl));
		return 1;
	}
	*has = true;
	return 0;
}

size_t kmt_trace_read_stats(struct kmt_trace *t)
{
	struct stat_lines sl;
	size_t errors;

	free(t->stats);
	free(t->stats_start);
	errors = read_stats_file(t, "stats", &sl, &t->has_stats);
	t->stats = sl.cs;
	t->nr_stats = sl.nr;
	errors += read_stats_file(t, "stats.start", &sl, &t->has_stats_start);
	t->stats_start = sl.cs;
	t->nr_stats_start = sl.nr;
	return errors;
}

/* "CPU EVENTS" */
static int unwritten_line(void *arg, const char *path, size_t nr,
			  const char *line)
{
	struct kmt_trace *t = arg;
	struct kmt_cpu_unwritten u;
	struct kmt_field f[2];

	if (kmt_split_fields(line, f, ARRAY_SIZE(f)) != ARRAY_SIZE(f) ||
	    field_u64(&f[0], &u.cpu) || field_u64(&f[1], &u.events) ||
	    u.cpu > INT_MAX) {
		kmt_err("%s: line %zu: not \"CPU EVENTS\"", path, nr);
		return -EINVAL;
	}
	t->unwritten = xrealloc(t->unwritten,
				(t->nr_unwritten + 1) * sizeof(*t->unwritten));
	t->unwritten[t->nr_unwritten++] = u;
	return 0;
}

size_t kmt_trace_read_unwritten(struct kmt_trace *t)
{
	struct kmt_line_parser lp = { .what = "unwritten", .max_version = 1,
				  .fn = unwritten_line, .arg = t };

	free(t->unwritten);
	t->unwritten = NULL;
	t->nr_unwritten = 0;
	return kmt_parse_side_file(t->dir, "unwritten", &lp) == 1;
}

static const struct kmt_cpu_stat *find_cpu_stat(const struct kmt_cpu_stat *cs,
						size_t nr, int cpu)
{
	struct kmt_cpu_stat key = { .cpu = cpu };

	if (cpu < 0 || !nr)
		return NULL;
	return bsearch(&key, cs, nr, sizeof(*cs), stat_cmp);
}

const struct kmt_cpu_stat *kmt_trace_cpu_stat(const struct kmt_trace *t,
					      int cpu)
{
	return find_cpu_stat(t->stats, t->nr_stats, cpu);
}

const struct kmt_cpu_stat *kmt_trace_cpu_stat_start(const struct kmt_trace *t,
						    int cpu)
{
	return find_cpu_stat(t->stats_start, t->nr_stats_start, cpu);
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
