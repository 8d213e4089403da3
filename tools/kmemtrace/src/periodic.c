// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace periodic - pprof heap profiles of a recording, one per
 * interval; see periodic.h
 *
 * At each poll (record's loop, every 100 ms), the whole events added to
 * DIR/cpuN since the last one are read, sorted by time, and replayed
 * into tables of its own: an alloc adds to the interval's alloc_* sums
 * and becomes live, a free ends it, a realloc resizes it.  When the
 * interval is over, what is live is added up as inuse_*, the profile
 * written, and the alloc_* sums start again.
 *
 * The drains copy each CPU's stream on their own, so the events of
 * different CPUs are read out of time order: a free before the alloc it
 * ends, on a CPU whose drain has not copied it yet; a free after a later
 * alloc of the same memory; a realloc before its alloc.  What is live
 * must not depend on that, but be what the events give in time order,
 * as kmemtrace pprof replays them.  In time order, memory (a family and
 * a pointer) is live when its latest alloc is later than its latest
 * free, with the size of the latest realloc after that alloc.  So
 * @marks holds the latest free and the latest realloc read of each
 * memory (see mark_of()), and @objs its latest alloc read, when no free
 * read is later: an alloc a free of the mark follows goes, as would any
 * alloc before it, and an alloc older than the one held changes nothing
 * but the alloc_* sums.  A mark is kept until it has not changed for a
 * whole interval, then its realloc is folded into the alloc and it goes
 * (a free without an alloc was of memory allocated before the
 * recording): an event read more than an interval after the events of
 * its memory around it in time is paired with what is left then.  The
 * marks take memory as the frees and reallocs of an interval or two do.
 *
 * The weights are those of report and pprof (sample.h): an allocation
 * counts 1 / (1 - exp(-S / N)) times, S the bytes of its alloc event, N
 * the sample_period of the recording: the one record set or found in
 * the kernel, not that of the first event read, which may be one an
 * earlier session left in the buffers.  Events of another period are
 * not used, and counted.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "header.h"
#include "livetab.h"
#include "periodic.h"
#include "profile.h"
#include "sample.h"
#include "sitetab.h"
#include "stacks.h"
#include "symbols.h"
#include "tags.h"
#include "trace.h"
#include "utils.h"

/* Bytes of events read from a stream at a time. */
#define PW_READ		(2731 * KMEMTRACE_EVENT_SIZE)

/*
 * A cpuN file of the recording, read up to @off; with @p.release, its
 * first @released bytes given back, a multiple of @blksize.
 */
struct pw_stream {
	char *path;
	int fd;
	uint64_t off;
	uint64_t released;
	uint64_t blksize;
};

/* Where allocations came from: a codetag and a stack. */
struct pw_origin {
	uint64_t tag;
	uint32_t stack;
};

/* The allocations of one call site, origin, cache, pid and type. */
struct pw_sample {
	uint32_t site;
	uint32_t origin;
	uint32_t cache_id;
	uint32_t pid;
	uint8_t type;
	double est[PROFILE_NR_VALUES];
};

struct kmt_periodic {
	struct kmt_periodic_params p;
	char *outdir;
	char host[256];
	char *build_id;
	struct pw_stream *streams;
	size_t nr_streams;
	struct live_table objs;		/* latest allocs: site, origin are ours */
	struct live_table marks;	/* latest frees and reallocs, see mark_of() */
	struct site_table sites;	/* call sites, by index */
	struct site_table tags;		/* codetags, by index */
	struct kmt_map origin_map;	/* tag index << 32 | stack to origin */
	struct pw_origin *origins;
	size_t nr_origins;
	size_t size_origins;
	struct pw_sample *samples;	/* the interval's */
	size_t nr_samples;
	size_t size_samples;
	struct kmt_map sample_map;
	struct kmemtrace_event *evs;	/* the events of a poll */
	size_t nr_evs;
	size_t size_evs;
	unsigned char *buf;
	bool has_period;
	uint32_t period;
	uint64_t other_period;
	uint64_t invalid;
	bool release_failed;
	uint64_t written;
	uint64_t interval;		/* the interval's number, from 1 */
	uint64_t start_ms;		/* when it started */
	uint64_t end_ms;		/* when it ends */
};

/* ----------------------------------------------------------- streams */

static bool have_stream(const struct kmt_periodic *pw, const char *path)
{
	size_t i;

	for (i = 0; i < pw->nr_streams; i++)
		if (!strcmp(pw->streams[i].path, path))
			return true;
	return false;
}

/* Open the cpuN files of the directory not open yet (a CPU came online). */
static void open_streams(struct kmt_periodic *pw)
{
	struct pw_stream *s;
	struct dirent *de;
	char *path;
	struct stat st;
	DIR *d;
	int fd;

	d = opendir(pw->p.dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (kmt_cpu_from_name(de->d_name) < 0)
			continue;
		path = path_join(pw->p.dir, de->d_name);
		fd = -1;
		if (!have_stream(pw, path) && is_regular(path) > 0)
			fd = open(path, (pw->p.release ? O_RDWR : O_RDONLY) |
				  O_CLOEXEC);
		if (fd < 0) {
			free(path);
			continue;
		}
		pw->streams = xrealloc(pw->streams, (pw->nr_streams + 1) *
				       sizeof(*pw->streams));
		s = &pw->streams[pw->nr_streams++];
		s->path = path;
		s->fd = fd;
		s->off = 0;
		s->released = 0;
		s->blksize = !fstat(fd, &st) && st.st_blksize > 0 ?
			     st.st_blksize : 4096;
	}
	closedir(d);
}

/*
 * With @pw->p.release, give the disk blocks of the events read from @s
 * back to the file system, whole blocks only: the drain appends behind
 * them.  A file system that cannot is said once; the streams then keep
 * their space until record removes them.
 */
static void release_stream(struct kmt_periodic *pw, struct pw_stream *s)
{
	uint64_t end = s->off - s->off % s->blksize;

	if (!pw->p.release || pw->release_failed || end <= s->released)
		return;
	if (fallocate(s->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		      s->released, end - s->released)) {
		kmt_err("warning: %s: cannot give back the space of the events read (%s); the streams keep it until recording stops",
			s->path, strerror(errno));
		pw->release_failed = true;
		return;
	}
	s->released = end;
}

static bool event_ok(const struct kmemtrace_event *ev)
{
	return ev->magic == KMEMTRACE_MAGIC &&
	       ev->abi_version == KMEMTRACE_ABI_VERSION &&
	       ev->kind >= KMEMTRACE_KIND_ALLOC &&
	       ev->kind <= KMT_KIND_MAX &&
	       ev->type >= KMEMTRACE_TYPE_KMALLOC &&
	       ev->type <= KMEMTRACE_TYPE_VMALLOC;
}

/* Keep event @ev of the poll, if it is one to use. */
static void keep_event(struct kmt_periodic *pw, const struct kmemtrace_event *ev)
{
	if (!event_ok(ev)) {
		pw->invalid++;
		return;
	}
	if (!pw->has_period) {
		pw->period = ev->sample_period;
		pw->has_period = true;
	}
	if (ev->sample_period != pw->period) {
		pw->other_period++;
		return;
	}
	pw->evs = kmt_grow(pw->evs, pw->nr_evs, &pw->size_evs, sizeof(*pw->evs),
			   256);
	pw->evs[pw->nr_evs++] = *ev;
}

/* Read the whole events written to @s since the last read. */
static void read_stream(struct kmt_periodic *pw, struct pw_stream *s)
{
	struct kmemtrace_event ev;
	ssize_t n;
	size_t i;

	for (;;) {
		n = pread(s->fd, pw->buf, PW_READ, s->off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < KMEMTRACE_EVENT_SIZE) {
			release_stream(pw, s);
			return;
		}
		n -= n % KMEMTRACE_EVENT_SIZE;
		for (i = 0; i < (size_t)n; i += KMEMTRACE_EVENT_SIZE) {
			memcpy(&ev, pw->buf + i, sizeof(ev));
			keep_event(pw, &ev);
		}
		s->off += n;
	}
}

/* In time order; the events of one CPU in the order it wrote them. */
static int event_cmp(const void *a, const void *b)
{
	const struct kmemtrace_event *x = a, *y = b;

	if (x->timestamp != y->timestamp)
		return x->timestamp < y->timestamp ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* ----------------------------------------------------------- the sums */

static uint32_t origin_index(struct kmt_periodic *pw, uint64_t tag,
			     uint32_t stack)
{
	uint64_t key = (uint64_t)site_index(&pw->tags, tag) << 32 | stack;
	struct pw_origin *o;
	uint32_t i;

	if (kmt_map_find(&pw->origin_map, key, &i))
		return i;
	kmt_map_insert(&pw->origin_map, key, pw->nr_origins, NULL);
	pw->origins = kmt_grow(pw->origins, pw->nr_origins, &pw->size_origins,
			       sizeof(*pw->origins), 64);
	o = &pw->origins[pw->nr_origins];
	o->tag = tag;
	o->stack = stack;
	return pw->nr_origins++;
}

static bool sample_is(const struct pw_sample *s, const struct live_obj *o)
{
	return s->site == o->site && s->origin == o->origin &&
	       s->cache_id == o->cache_id && s->pid == o->pid &&
	       s->type == o->type;
}

/* The interval's sample of allocation @o, added if new. */
static struct pw_sample *sample_of(struct kmt_periodic *pw,
				   const struct live_obj *o)
{
	uint64_t h = ((uint64_t)o->site << 32 | o->origin) * 0xc2b2ae3d27d4eb4fULL;
	struct pw_sample *s;
	uint32_t i;

	h ^= ((uint64_t)o->cache_id << 32 | o->pid) * 0x165667b19e3779f9ULL;
	h ^= o->type;
	for (; kmt_map_find(&pw->sample_map, h, &i); h++)
		if (sample_is(&pw->samples[i], o))
			return &pw->samples[i];
	kmt_map_insert(&pw->sample_map, h, pw->nr_samples, NULL);
	pw->samples = kmt_grow(pw->samples, pw->nr_samples, &pw->size_samples,
			       sizeof(*pw->samples), 256);
	s = &pw->samples[pw->nr_samples++];
	memset(s, 0, sizeof(*s));
	s->site = o->site;
	s->origin = o->origin;
	s->cache_id = o->cache_id;
	s->pid = o->pid;
	s->type = o->type;
	return s;
}

/* The flags of a mark (in its live_obj's selected). */
#define MARK_FREE	1	/* a free was read: its time in ts */
#define MARK_REALLOC	2	/* a realloc was read: its time in bytes */

/*
 * The mark of memory @family, @ptr, added if new: the latest free read
 * of it (ts), the latest realloc (its time in bytes, its size in
 * bytes0), and the interval it last changed in (site).
 */
static struct live_obj *mark_of(struct kmt_periodic *pw, unsigned int family,
				uint64_t ptr)
{
	struct live_obj *m;

	live_reserve(&pw->marks, 1);
	m = live_probe(&pw->marks, live_hash(family, ptr, pw->marks.bits),
		       family, ptr);
	if (!m->family) {
		memset(m, 0, sizeof(*m));
		m->ptr = ptr;
		m->family = family;
		pw->marks.nr++;
	}
	m->site = pw->interval;
	return m;
}

/* Whether alloc @o is freed: its mark @m has a free not before it. */
static bool obj_freed(const struct live_obj *o, const struct live_obj *m)
{
	return m && (m->selected & MARK_FREE) && m->ts >= o->ts;
}

/* The size of alloc @o: that of the latest realloc after it, if any. */
static uint64_t obj_bytes(const struct live_obj *o, const struct live_obj *m)
{
	if (m && (m->selected & MARK_REALLOC) && m->bytes >= o->ts)
		return m->bytes0;
	return o->bytes;
}

static void replay_alloc(struct kmt_periodic *pw, const struct kmemtrace_event *ev)
{
	unsigned int family = pair_type(ev->type);
	struct live_obj k = { 0 }, *o;
	struct pw_sample *s;
	double w = kmt_sample_weight(ev->bytes_alloc, ev->sample_period);

	/* Backing store counts through the memory it backs. */
	if (ev->flags & KMEMTRACE_FLAG_BACKING)
		return;
	k.ptr = ev->ptr;
	k.ts = ev->timestamp;
	k.bytes = ev->bytes_alloc;
	k.bytes0 = ev->bytes_alloc;
	k.site = site_index(&pw->sites, ev->call_site);
	k.pid = ev->pid;
	k.cache_id = ev->type == KMEMTRACE_TYPE_CACHE ? ev->cache_id : 0;
	k.origin = origin_index(pw, ev->tag, ev->stack_id);
	k.cpu = ev->cpu;
	k.family = family;
	k.type = ev->type;
	k.selected = 1;
	/* Untracked: its free is never recorded, so it is never in use. */
	k.untracked = !!(ev->flags & KMEMTRACE_FLAG_UNTRACKED);
	s = sample_of(pw, &k);
	s->est[PROFILE_ALLOC_OBJECTS] += w;
	s->est[PROFILE_ALLOC_SPACE] += w * ev->bytes_alloc;
	/* Freed already: a free of its memory not before it was read. */
	if (obj_freed(&k, live_find(&pw->marks, family, ev->ptr)))
		return;
	live_reserve(&pw->objs, 1);
	o = live_probe(&pw->objs, live_hash(family, ev->ptr, pw->objs.bits),
		       family, ev->ptr);
	/* Older than the alloc read of its memory: that one ends it. */
	if (o->family && o->ts > k.ts)
		return;
	if (!o->family)
		pw->objs.nr++;
	*o = k;
}

/*
 * A free: the latest of its memory is kept, for allocs read later.  The
 * alloc it ends goes now: an alloc before it is freed as well, so that
 * what the alloc would decide the mark decides.
 */
static void replay_free(struct kmt_periodic *pw, const struct kmemtrace_event *ev)
{
	unsigned int family = pair_type(ev->type);
	struct live_obj *m, *o;

	if (ev->flags & (KMEMTRACE_FLAG_BACKING | KMEMTRACE_FLAG_UNPAIRED))
		return;
	m = mark_of(pw, family, ev->ptr);
	if (!(m->selected & MARK_FREE) || ev->timestamp > m->ts) {
		m->ts = ev->timestamp;
		m->selected |= MARK_FREE;
	}
	o = live_find(&pw->objs, family, ev->ptr);
	if (o && obj_freed(o, m))
		live_remove(&pw->objs, o);
}

/* A realloc: the latest of its memory is kept, for the alloc before it. */
static void replay_realloc(struct kmt_periodic *pw,
			   const struct kmemtrace_event *ev)
{
	struct live_obj *m = mark_of(pw, pair_type(ev->type), ev->ptr);

	if (!(m->selected & MARK_REALLOC) || ev->timestamp > m->bytes) {
		m->bytes = ev->timestamp;
		m->bytes0 = ev->bytes_alloc;
		m->selected |= MARK_REALLOC;
	}
}

static void replay_event(struct kmt_periodic *pw, const struct kmemtrace_event *ev)
{
	switch (ev->kind) {
	case KMEMTRACE_KIND_ALLOC:
		replay_alloc(pw, ev);
		break;
	case KMEMTRACE_KIND_FREE:
		replay_free(pw, ev);
		break;
	case KMEMTRACE_KIND_SPLIT:
		/*
		 * The split of a sampled allocation, flagged untracked: the
		 * kernel stopped following it and records no free of its
		 * pieces, so it ends here for what is in use (as report
		 * leaves it out of the live table).
		 */
		if (ev->flags & KMEMTRACE_FLAG_UNTRACKED)
			replay_free(pw, ev);
		break;
	default:
		replay_realloc(pw, ev);
		break;
	}
}

/* Read and replay what the drains wrote since the last poll. */
static void read_events(struct kmt_periodic *pw)
{
	size_t i;

	open_streams(pw);
	pw->nr_evs = 0;
	for (i = 0; i < pw->nr_streams; i++)
		read_stream(pw, &pw->streams[i]);
	if (pw->nr_evs > 1)
		qsort(pw->evs, pw->nr_evs, sizeof(*pw->evs), event_cmp);
	for (i = 0; i < pw->nr_evs; i++)
		replay_event(pw, &pw->evs[i]);
}

/*
 * Settle the marks that did not change for a whole interval: the alloc
 * of the memory takes the size of the realloc after it, or goes if the
 * mark says it was freed, and the mark goes.  The table of marks is made
 * again, without them.
 */
static void expire_marks(struct kmt_periodic *pw)
{
	struct live_table old = pw->marks;
	struct live_obj *m, *o, *d;
	size_t i;

	memset(&pw->marks, 0, sizeof(pw->marks));
	for (i = 0; old.nr && i < (size_t)1 << old.bits; i++) {
		m = &old.slots[i];
		if (!m->family)
			continue;
		if (m->site + 1 < pw->interval) {
			o = live_find(&pw->objs, m->family, m->ptr);
			if (o && obj_freed(o, m))
				live_remove(&pw->objs, o);
			else if (o)
				o->bytes = obj_bytes(o, m);
			continue;
		}
		live_reserve(&pw->marks, 1);
		d = live_probe(&pw->marks, live_hash(m->family, m->ptr,
						     pw->marks.bits),
			       m->family, m->ptr);
		*d = *m;
		pw->marks.nr++;
	}
	live_free(&old);
}

/* ------------------------------------------------------------ profiles */

/*
 * Add what is live now to the interval's samples, as inuse_*: the
 * allocs not freed after them, with the size of a realloc after them.
 */
static void add_inuse(struct kmt_periodic *pw)
{
	const struct live_obj *o, *m;
	struct pw_sample *s;
	size_t i;
	double w;

	for (i = 0; pw->objs.nr && i < (size_t)1 << pw->objs.bits; i++) {
		o = &pw->objs.slots[i];
		if (!o->family || o->untracked)
			continue;
		m = live_find(&pw->marks, o->family, o->ptr);
		if (obj_freed(o, m))
			continue;
		w = kmt_sample_weight(o->bytes0, pw->period);
		s = sample_of(pw, o);
		s->est[PROFILE_INUSE_OBJECTS] += w;
		s->est[PROFILE_INUSE_SPACE] += w * obj_bytes(o, m);
	}
}

static struct kmt_profile_sample *profile_samples(const struct kmt_periodic *pw)
{
	struct kmt_profile_sample *out = xcalloc(pw->nr_samples + 1, sizeof(*out));
	const struct pw_sample *s;
	bool overflow = false;
	unsigned int j;
	uint64_t v;
	size_t i;

	for (i = 0; i < pw->nr_samples; i++) {
		s = &pw->samples[i];
		out[i].call_site = pw->sites.sites[s->site].key;
		out[i].tag = pw->origins[s->origin].tag;
		out[i].stack = pw->origins[s->origin].stack;
		out[i].cache_id = s->cache_id;
		out[i].pid = s->pid;
		out[i].type = s->type;
		for (j = 0; j < PROFILE_NR_VALUES; j++) {
			v = kmt_sample_round(s->est[j], &overflow);
			out[i].v[j] = v > INT64_MAX ? INT64_MAX : v;
		}
	}
	return out;
}

/*
 * The path of the profile of an interval that ended at @ts:
 * DIR/pprof/heap-HOST-YYYYmmddTHHMMSS.mmmZ.pb.gz, in UTC, so that the
 * names sort as the times; a millisecond later when a profile of that
 * one exists already.
 */
static char *profile_path(const struct kmt_periodic *pw, const struct timespec *ts)
{
	uint64_t ms = ts->tv_sec * 1000ULL + ts->tv_nsec / 1000000;
	char stamp[32], name[512], *path;
	struct tm tm;
	time_t t;

	for (;; ms++) {
		t = ms / 1000;
		gmtime_r(&t, &tm);
		strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%S", &tm);
		snprintf(name, sizeof(name), "heap-%s-%s.%03uZ.pb.gz", pw->host,
			 stamp, (unsigned int)(ms % 1000));
		path = path_join(pw->outdir, name);
		if (access(path, F_OK))
			return path;
		free(path);
	}
}

/*
 * Write the profile of the interval ending now, through a temporary
 * file renamed into place, so that whoever collects DIR/pprof never
 * reads a profile half written.
 */
static int write_profile(struct kmt_periodic *pw, uint64_t now_ms)
{
	struct kmt_profile p = {
		.period = pw->period,
		.build_id = pw->build_id,
	};
	struct kmt_symtab syms = { 0 };
	struct kmt_caches caches;
	struct kmt_stacks stacks;
	struct kmt_tags tags;
	struct timespec ts;
	char *path, *tmp, name[512];
	int ret = 0;
	FILE *f;

	add_inuse(pw);
	clock_gettime(CLOCK_REALTIME, &ts);
	/* Symbols, lines and stacks as they are now. */
	kmt_symtab_setup(&syms, NULL, pw->p.kallsyms, NULL);
	kmt_caches_load(&caches, pw->p.debugfs);
	kmt_tags_load(&tags, pw->p.debugfs);
	kmt_stacks_load(&stacks, pw->p.debugfs);
	p.samples = profile_samples(pw);
	p.nr = pw->nr_samples;
	p.time_ns = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	p.duration_ns = (now_ms - pw->start_ms) * 1000000ULL;
	p.syms = &syms;
	p.caches = &caches;
	p.tags = &tags;
	p.stacks = &stacks;
	path = profile_path(pw, &ts);
	snprintf(name, sizeof(name), ".%s.tmp", path_basename(path));
	tmp = path_join(pw->outdir, name);
	f = fopen(tmp, "wb");
	if (!f) {
		kmt_err("%s: %s", tmp, strerror(errno));
		ret = -1;
	} else {
		ret = kmt_profile_write(&p, f);
		if (fclose(f) && !ret)
			ret = -errno;
		if (!ret && rename(tmp, path))
			ret = -errno;
		if (ret) {
			kmt_err("%s: %s", path, strerror(-ret));
			unlink(tmp);
			ret = -1;
		} else {
			pw->written++;
		}
	}
	free(tmp);
	free(path);
	free((void *)p.samples);
	kmt_symtab_free(&syms);
	kmt_caches_free(&caches);
	kmt_tags_free(&tags);
	kmt_stacks_free(&stacks);
	/* The next interval's allocations start from none. */
	pw->nr_samples = 0;
	kmt_map_free(&pw->sample_map);
	return ret;
}

/* The host name, as a file name can hold it. */
static void host_name(char *buf, size_t len)
{
	char *c;

	if (gethostname(buf, len) || !buf[0])
		snprintf(buf, len, "unknown");
	buf[len - 1] = '\0';
	for (c = buf; *c; c++)
		if (*c == '/' || (unsigned char)*c <= ' ' || (c == buf && *c == '.'))
			*c = '_';
}

/* Remove the profiles of an earlier recording, and their temporaries. */
static int clean_profiles(const char *outdir)
{
	struct dirent *de;
	size_t len, removed = 0;
	char *path;
	int ret = 0;
	DIR *d;

	d = opendir(outdir);
	if (!d) {
		kmt_err("%s: %s", outdir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		len = strlen(de->d_name);
		if (!(!strncmp(de->d_name, "heap-", 5) && len > 11 &&
		      !strcmp(de->d_name + len - 6, ".pb.gz")) &&
		    !(!strncmp(de->d_name, ".heap-", 6) && len > 10 &&
		      !strcmp(de->d_name + len - 4, ".tmp")))
			continue;
		path = path_join(outdir, de->d_name);
		if (unlink(path)) {
			kmt_err("%s: %s", path, strerror(errno));
			ret = -1;
		} else {
			removed++;
		}
		free(path);
	}
	closedir(d);
	if (removed)
		kmt_err("%s: removed %zu profiles of an earlier recording", outdir,
			removed);
	return ret;
}

struct kmt_periodic *kmt_periodic_start(const struct kmt_periodic_params *p,
					uint64_t now_ms)
{
	struct kmt_periodic *pw = xcalloc(1, sizeof(*pw));
	struct kmt_header h = { 0 };
	const char *id;

	pw->p = *p;
	pw->outdir = path_join(p->dir, "pprof");
	if (mkdir(pw->outdir, 0755) && errno != EEXIST) {
		kmt_err("%s: %s", pw->outdir, strerror(errno));
		kmt_periodic_free(pw);
		return NULL;
	}
	if (clean_profiles(pw->outdir)) {
		kmt_periodic_free(pw);
		return NULL;
	}
	host_name(pw->host, sizeof(pw->host));
	kmt_header_load(&h, p->dir, true);
	id = kmt_header_get(&h, "build_id");
	pw->build_id = id ? xstrdup(id) : NULL;
	kmt_header_free(&h);
	pw->buf = xmalloc(PW_READ);
	/* Call site index 0 and origin 0: none. */
	site_index(&pw->sites, 0);
	origin_index(pw, 0, 0);
	pw->has_period = p->has_period;
	pw->period = p->period;
	pw->interval = 1;
	pw->start_ms = now_ms;
	pw->end_ms = now_ms + p->seconds * 1000;
	return pw;
}

int kmt_periodic_poll(struct kmt_periodic *pw, uint64_t now_ms)
{
	int ret;

	read_events(pw);
	if (now_ms < pw->end_ms)
		return 0;
	ret = write_profile(pw, now_ms);
	pw->interval++;
	expire_marks(pw);
	pw->start_ms = now_ms;
	/* On time, or, when late, an interval from now. */
	pw->end_ms += pw->p.seconds * 1000;
	if (pw->end_ms <= now_ms)
		pw->end_ms = now_ms + pw->p.seconds * 1000;
	return ret;
}

int kmt_periodic_finish(struct kmt_periodic *pw, uint64_t now_ms)
{
	int ret;

	read_events(pw);
	ret = write_profile(pw, now_ms);
	kmt_err("wrote %llu pprof profiles into %s",
		(unsigned long long)pw->written, pw->outdir);
	if (pw->invalid)
		kmt_err("warning: %s: %llu invalid events left out of the profiles (see kmemtrace check)",
			pw->p.dir, (unsigned long long)pw->invalid);
	if (pw->other_period)
		kmt_err("warning: %s: %llu events of another sample_period than the recording's (%u) left out of the profiles",
			pw->p.dir, (unsigned long long)pw->other_period,
			pw->period);
	return ret;
}

void kmt_periodic_free(struct kmt_periodic *pw)
{
	size_t i;

	if (!pw)
		return;
	for (i = 0; i < pw->nr_streams; i++) {
		close(pw->streams[i].fd);
		free(pw->streams[i].path);
	}
	free(pw->streams);
	live_free(&pw->objs);
	live_free(&pw->marks);
	site_table_free(&pw->sites);
	site_table_free(&pw->tags);
	kmt_map_free(&pw->origin_map);
	free(pw->origins);
	free(pw->samples);
	kmt_map_free(&pw->sample_map);
	free(pw->evs);
	free(pw->buf);
	free(pw->build_id);
	free(pw->outdir);
	free(pw);
}
