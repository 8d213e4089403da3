// SPDX-License-Identifier: GPL-2.0
/*
 * floor - the least work each kmemtrace command has to do, for make bench
 *
 * usage: floor MODE CPU0 CPU1
 *
 * make bench puts each tools/kmemtrace command beside cat of the same
 * streams.  This program shows how much of the distance to cat is the
 * work itself: each MODE does one more step of what the commands must do,
 * in the simplest way known to be fast, and nothing else (no options, no
 * error messages, no symbols, no checks of the other byte order or of
 * ABI 1).  CPU0 and CPU1 are the streams of a two-CPU trace, such as
 * mkstream -w writes:
 *
 *   read   read every stream in 128 KiB chunks, and check each event as
 *          check does: magic, ABI, kind, type, flags, CPU, seq order
 *   merge  read, and merge the two streams in time order, as every
 *          command that replays events does
 *   pair   merge, and pair each alloc with its free in a live table,
 *          adding up allocations, bytes, frees, lifetimes and cross-CPU
 *          frees per call site: the least report can do
 *   lines  merge, and write the first event's line of dump below for
 *          every event: the least a line of text per event can cost
 *   dump   merge, and write each event's fields as dump does (with the
 *          tool's own dump_fields() and fmt.h), without the names of
 *          symbols, caches and flags: the least dump can do
 *
 * and, for report -j 2, the least two cores can do:
 *
 *   split  usage: floor split CPU0 CPU1 DIR.  Write the events of each
 *          half of the pointers (by the tool's kmt_shard()) to streams
 *          of their own, DIR/0/cpu0, DIR/0/cpu1, DIR/1/cpu0, DIR/1/cpu1
 *   pair2  usage: floor pair2 DIR.  pair, in two processes at once, each
 *          on the streams of one half that split wrote: the work of pair
 *          shared by two cores that share nothing else, neither the
 *          reading nor the merging; a line of totals for each half
 *   cut    usage: floor cut CPU0 CPU1 DIR.  Write the events before the
 *          median time of the trace to DIR/0/cpu0 and DIR/0/cpu1, the
 *          others to DIR/1/cpu0 and DIR/1/cpu1: the part of each stream
 *          each of two threads would read, merge and replay if the
 *          replay were split by time, for make bench to run report -j 1
 *          on both halves at once; a line with the median time
 *
 * and, to tell how far apart the host runs the two CPUs (what -j 2's
 * threads pay for each line one writes and the other reads):
 *
 *   xcore  usage: floor xcore [TRIPS].  A cache line's round trip between
 *          CPU 0 and CPU 1, in ns: a process on each, taking turns to
 *          write it and wait for the other's write (the least of 5
 *          rounds of TRIPS round trips, 100000 if not given)
 *
 * split and cut write their four streams a few KiB at a time, each in
 * turn, as mkstream -w writes its two: cat of streams written so takes
 * some 2.4 times as long as of a copy written one file after the other
 * (make bench-tool's cat-4k), which make bench-tool makes of each before
 * timing anything on them.
 *
 * Call sites are looked up in the tool's own kmt_map (hash.c).  It
 * prints a line of totals, so that the compiler drops none of the
 * work, and exits 1 if an event was not valid, as it does not say why.
 */
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <linux/kmemtrace.h>

#include "dump_fields.h"
#include "hash.h"

/* Whole events in about 128 KiB, the chunk of the tool and of cat. */
#define CHUNK_EVENTS	1489
#define CHUNK		(CHUNK_EVENTS * KMEMTRACE_EVENT_SIZE)
/* Events replayed at once, their slots fetched first. */
#define BATCH		64
#define KNOWN_FLAGS	(KMEMTRACE_FLAG_INTERRUPT | KMEMTRACE_FLAG_BACKING | \
			 KMEMTRACE_FLAG_UNPAIRED | KMEMTRACE_FLAG_STACK_LOST)

struct stream {
	int fd;
	char *buf;
	size_t nr, pos;
	uint64_t last_seq;
	bool started;
	unsigned int cpu;
};

static uint64_t bad_chunks;
/* Events replayed, and a sum of their pointers for the read and merge modes. */
static uint64_t merged, sum;

static void die(const char *what, const char *path)
{
	fprintf(stderr, "floor: %s: %s\n", what, path);
	exit(2);
}

static void *xzalloc(size_t size)
{
	void *p = calloc(1, size);

	if (!p)
		die("out of memory", "");
	return p;
}

/* Read and check the next chunk of @s; false at its end. */
static bool stream_read(struct stream *s)
{
	const struct kmemtrace_event *ev;
	uint64_t last = s->last_seq;
	unsigned int bad = 0;
	ssize_t ret;
	size_t i;

	ret = read(s->fd, s->buf, CHUNK);
	if (ret < 0)
		die("read error", "stream");
	s->nr = ret / KMEMTRACE_EVENT_SIZE;
	s->pos = 0;
	for (i = 0; i < s->nr; i++) {
		ev = (const void *)(s->buf + i * KMEMTRACE_EVENT_SIZE);
		bad |= (ev->magic ^ KMEMTRACE_MAGIC) |
		       (ev->abi_version ^ KMEMTRACE_ABI_VERSION) |
		       ((unsigned int)ev->kind - KMEMTRACE_KIND_ALLOC >
			KMEMTRACE_KIND_REALLOC - KMEMTRACE_KIND_ALLOC) |
		       ((unsigned int)ev->type - KMEMTRACE_TYPE_KMALLOC >
			KMEMTRACE_TYPE_VMALLOC - KMEMTRACE_TYPE_KMALLOC) |
		       (ev->flags & ~KNOWN_FLAGS) | (ev->cpu ^ s->cpu) |
		       (s->started && ev->seq <= last);
		last = ev->seq;
		s->started = true;
	}
	s->last_seq = last;
	bad_chunks += !!bad;
	return s->nr;
}

/* ------------------------------------------------------------- pair */

struct live {
	uint64_t ts;
	uint64_t bytes;
	uint32_t site;
	uint32_t cpu;
};

struct site {
	uint64_t allocs, req, alloc, frees, life, xcpu;
};

/* Open addressing, linear probing, at most half full; key 0 is empty. */
static uint64_t *live_keys;
static struct live *live;
static unsigned int live_bits;
static size_t nr_live, live_mask;

/* Call sites by address (the tool's own map), their sums in @sites. */
static struct kmt_map site_map;
static struct site *sites;
static size_t nr_sites, size_sites;

static uint64_t counts[KMEMTRACE_KIND_REALLOC + 1][KMEMTRACE_TYPE_VMALLOC + 1];

/* Slab objects pair across the kmalloc and kmem_cache APIs. */
static inline uint64_t live_key(const struct kmemtrace_event *ev)
{
	unsigned int family = ev->type == KMEMTRACE_TYPE_CACHE ?
			      KMEMTRACE_TYPE_KMALLOC : ev->type;

	return (ev->ptr ^ ((uint64_t)family << 61)) | 1;
}

static void live_grow(void)
{
	uint64_t *keys = live_keys;
	struct live *old = live;
	size_t i, slot, n = live_bits ? (size_t)1 << live_bits : 0;

	live_bits = live_bits ? live_bits + 1 : 12;
	live_mask = ((size_t)1 << live_bits) - 1;
	live_keys = xzalloc(sizeof(*live_keys) << live_bits);
	live = xzalloc(sizeof(*live) << live_bits);
	for (i = 0; i < n; i++) {
		if (!keys[i])
			continue;
		for (slot = kmt_hash64(keys[i], live_bits); live_keys[slot];)
			slot = (slot + 1) & live_mask;
		live_keys[slot] = keys[i];
		live[slot] = old[i];
	}
	free(keys);
	free(old);
}

static inline uint32_t site_of(uint64_t call_site)
{
	uint32_t i;

	if (kmt_map_find(&site_map, call_site, &i))
		return i;
	if (nr_sites == size_sites) {
		size_sites = size_sites ? 2 * size_sites : 4096;
		sites = realloc(sites, size_sites * sizeof(*sites));
		if (!sites)
			die("out of memory", "sites");
	}
	memset(&sites[nr_sites], 0, sizeof(*sites));
	return kmt_map_insert(&site_map, call_site, nr_sites++, NULL);
}

static void live_remove(size_t hole)
{
	size_t slot = hole, home;

	for (;;) {
		slot = (slot + 1) & live_mask;
		if (!live_keys[slot])
			break;
		home = kmt_hash64(live_keys[slot], live_bits);
		if (((slot - home) & live_mask) < ((slot - hole) & live_mask))
			continue;
		live_keys[hole] = live_keys[slot];
		live[hole] = live[slot];
		hole = slot;
	}
	live_keys[hole] = 0;
	nr_live--;
}

static inline void pair_event(const struct kmemtrace_event *ev, size_t slot)
{
	uint64_t key = live_key(ev);
	struct site *s;

	counts[ev->kind][ev->type]++;
	while (live_keys[slot] && live_keys[slot] != key)
		slot = (slot + 1) & live_mask;
	if (ev->kind == KMEMTRACE_KIND_ALLOC) {
		uint32_t si = site_of(ev->call_site);

		s = &sites[si];
		s->allocs++;
		s->req += ev->bytes_req;
		s->alloc += ev->bytes_alloc;
		if (!live_keys[slot]) {
			live_keys[slot] = key;
			nr_live++;
		}
		live[slot].ts = ev->timestamp;
		live[slot].bytes = ev->bytes_alloc;
		live[slot].site = si;
		live[slot].cpu = ev->cpu;
	} else if (ev->kind == KMEMTRACE_KIND_FREE) {
		if (!live_keys[slot])
			return;
		s = &sites[live[slot].site];
		s->frees++;
		s->life += ev->timestamp - live[slot].ts;
		s->xcpu += ev->cpu != live[slot].cpu;
		live_remove(slot);
	} else if (live_keys[slot]) {
		live[slot].bytes = ev->bytes_alloc;
	}
}

static void pair_batch(const struct kmemtrace_event **ev, size_t n)
{
	size_t slot[BATCH], i;

	while (nr_live + n > (size_t)1 << (live_bits - 1))
		live_grow();
	for (i = 0; i < n; i++) {
		slot[i] = kmt_hash64(live_key(ev[i]), live_bits);
		__builtin_prefetch(&live_keys[slot[i]], 1);
		__builtin_prefetch(&live[slot[i]], 1);
	}
	for (i = 0; i < n; i++)
		pair_event(ev[i], slot[i]);
}

static void pair_end(void)
{
	uint64_t top = 0;
	size_t i;

	for (i = 0; i < nr_sites; i++)
		if (sites[i].alloc > top)
			top = sites[i].alloc;
	printf("%llu events, %zu sites, %zu live, %llu kmalloc allocs, top site %llu bytes\n",
	       (unsigned long long)merged, nr_sites, nr_live,
	       (unsigned long long)counts[KMEMTRACE_KIND_ALLOC][KMEMTRACE_TYPE_KMALLOC],
	       (unsigned long long)top);
}

/* ------------------------------------------------------------- dump */

static char out[(1 << 20) + 4096];
static size_t out_len;

static const char *const kinds[] = { "", " alloc ", " free ", " realloc " };
static const char *const types[] = {
	"", "kmalloc", "cache", "pages", "percpu", "vmalloc"
};

static void flush_out(void)
{
	size_t done = 0;
	ssize_t ret;

	while (done < out_len) {
		ret = write(STDOUT_FILENO, out + done, out_len - done);
		if (ret <= 0)
			die("write error", "stdout");
		done += ret;
	}
	out_len = 0;
}

/* The line dump_batch() writes for the first event, for lines_batch(). */
static char line[512];
static size_t line_len;

static void lines_batch(size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (out_len > sizeof(out) - 4096)
			flush_out();
		memcpy(out + out_len, line, line_len);
		out_len += line_len;
	}
}

static void dump_batch(const struct kmemtrace_event **evs, size_t n)
{
	const struct kmemtrace_event *ev;
	size_t i, len;
	char *p;

	for (i = 0; i < n; i++) {
		ev = evs[i];
		if (out_len > sizeof(out) - 4096)
			flush_out();
		p = out + out_len;
		p = fmt_lit(p, "cpu=");
		p = fmt_u64(p, ev->cpu);
		p = fmt_lit(p, " seq=");
		p = fmt_u64(p, ev->seq);
		p = fmt_lit(p, " ts=");
		p = fmt_u64(p, ev->timestamp);
		len = strlen(kinds[ev->kind]);
		memcpy(p, kinds[ev->kind], len);
		p += len;
		len = strlen(types[ev->type]);
		memcpy(p, types[ev->type], len);
		p += len;
		p = fmt_lit(p, " site=0x");
		p = dump_fields(p, ev);
		*p++ = '\n';
		out_len = p - out;
	}
}

/* ------------------------------------------------------------- merge */

enum mode { MODE_READ, MODE_MERGE, MODE_PAIR, MODE_LINES, MODE_DUMP };

static void replay(enum mode mode, const struct kmemtrace_event **ev, size_t n)
{
	size_t i;

	merged += n;
	if (mode == MODE_PAIR) {
		pair_batch(ev, n);
	} else if (mode == MODE_LINES) {
		if (!line_len && n) {
			dump_batch(ev, 1);
			line_len = out_len;
			memcpy(line, out, line_len);
			out_len = 0;
		}
		lines_batch(n);
	} else if (mode == MODE_DUMP) {
		dump_batch(ev, n);
	} else {
		for (i = 0; i < n; i++)
			sum += ev[i]->ptr;
	}
}

/* Merge two streams in time order, without a branch per event. */
static void merge2(enum mode mode, struct stream *a, struct stream *b)
{
	const struct kmemtrace_event *ev[BATCH], *x, *y;
	size_t n = 0;
	uintptr_t take_b;

	for (;;) {
		if (a->pos == a->nr && !stream_read(a))
			break;
		if (b->pos == b->nr && !stream_read(b))
			break;
		while (a->pos < a->nr && b->pos < b->nr) {
			x = (const void *)(a->buf + a->pos * KMEMTRACE_EVENT_SIZE);
			y = (const void *)(b->buf + b->pos * KMEMTRACE_EVENT_SIZE);
			take_b = y->timestamp < x->timestamp;
			ev[n++] = (const void *)((uintptr_t)x ^
				(((uintptr_t)x ^ (uintptr_t)y) & -take_b));
			a->pos += 1 - take_b;
			b->pos += take_b;
			if (n == BATCH) {
				replay(mode, ev, n);
				n = 0;
			}
		}
		/* The events of @ev are in the chunks about to be read over. */
		replay(mode, ev, n);
		n = 0;
	}
	/* One stream ended: the rest of the other. */
	if (a->pos == a->nr)
		a = b;
	do {
		while (a->pos < a->nr) {
			ev[n++] = (const void *)(a->buf + a->pos++ * KMEMTRACE_EVENT_SIZE);
			if (n == BATCH) {
				replay(mode, ev, n);
				n = 0;
			}
		}
		replay(mode, ev, n);
		n = 0;
	} while (stream_read(a));
}

/* ------------------------------------------------------------- two cores */

/*
 * Write each event of @path to DIR/K/cpuN: K its pointer's half (split),
 * or, @by_time, 0 before @median and 1 from it on (cut).
 */
static void halve_stream(const char *path, unsigned int cpu, const char *dir,
			 bool by_time, uint64_t median)
{
	unsigned char *buf = xzalloc(CHUNK), *ev;
	char name[PATH_MAX];
	FILE *in, *out[2];
	uint64_t ptr, ts;
	size_t n, i;
	int k;

	in = fopen(path, "r");
	if (!in)
		die("cannot open", path);
	for (k = 0; k < 2; k++) {
		snprintf(name, sizeof(name), "%s/%d", dir, k);
		if (mkdir(name, 0755) && access(name, W_OK))
			die("cannot make", name);
		snprintf(name, sizeof(name), "%s/%d/cpu%u", dir, k, cpu);
		out[k] = fopen(name, "w");
		if (!out[k])
			die("cannot write", name);
	}
	while ((n = fread(buf, KMEMTRACE_EVENT_SIZE, CHUNK_EVENTS, in))) {
		for (i = 0; i < n; i++) {
			ev = buf + i * KMEMTRACE_EVENT_SIZE;
			memcpy(&ptr, ev + offsetof(struct kmemtrace_event, ptr), sizeof(ptr));
			memcpy(&ts, ev + offsetof(struct kmemtrace_event, timestamp), sizeof(ts));
			k = by_time ? ts >= median : (int)kmt_shard(ptr, 2);
			if (fwrite(ev, KMEMTRACE_EVENT_SIZE, 1, out[k]) != 1)
				die("write error", dir);
		}
	}
	for (k = 0; k < 2; k++)
		if (fclose(out[k]))
			die("write error", dir);
	fclose(in);
	free(buf);
}

static void open_stream(struct stream *s, const char *path, unsigned int cpu)
{
	s->fd = open(path, O_RDONLY);
	if (s->fd < 0)
		die("cannot open", path);
	s->buf = xzalloc(CHUNK);
	s->cpu = cpu;
}

/*
 * The time of the middle event of the trace, merged: the events before
 * it are the first half.  The streams are each in time order (read
 * checks it, as seq order).
 */
static uint64_t median_time(const char *path0, const char *path1)
{
	struct stream s[2] = { 0 };
	uint64_t n = 0, half, ts[2];
	struct stat st;
	unsigned int i, k;

	for (i = 0; i < 2; i++) {
		open_stream(&s[i], i ? path1 : path0, i);
		if (fstat(s[i].fd, &st))
			die("cannot stat", i ? path1 : path0);
		n += st.st_size / KMEMTRACE_EVENT_SIZE;
	}
	half = n / 2;
	for (n = 0;; n++) {
		for (i = 0; i < 2; i++) {
			if (s[i].pos == s[i].nr && !stream_read(&s[i]))
				ts[i] = UINT64_MAX;
			else
				ts[i] = ((const struct kmemtrace_event *)
					 (s[i].buf + s[i].pos * KMEMTRACE_EVENT_SIZE))->timestamp;
		}
		k = ts[1] < ts[0];
		if (n == half || ts[k] == UINT64_MAX)
			break;
		s[k].pos++;
	}
	for (i = 0; i < 2; i++) {
		close(s[i].fd);
		free(s[i].buf);
	}
	return ts[k];
}

/* ------------------------------------------------------------- xcore */

#define XCORE_TRIPS	100000ULL

static void pin(unsigned int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("cannot run on CPU", cpu ? "1" : "0");
}

/*
 * Wait for @want in @turn, the other CPU's process @child's to write;
 * die if it ended before writing it, rather than wait for ever.
 */
static void xcore_wait(const uint64_t *turn, uint64_t want, pid_t child)
{
	unsigned long spins = 0;
	int status;

	while (__atomic_load_n(turn, __ATOMIC_ACQUIRE) != want)
		if (!(++spins & 0xfffff) && child && waitpid(child, &status, WNOHANG))
			die("the other CPU's process ended", "xcore");
}

/* The least ns of @trips round trips of the line @turn between CPUs 0 and 1. */
static void xcore(uint64_t trips)
{
	uint64_t *turn, i, r;
	struct timespec a, b;
	double ns, least = 0;
	pid_t parent = getpid(), child;
	int status;

	turn = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (turn == MAP_FAILED)
		die("out of memory", "xcore");
	/* Before the child exists: it does not outlive a parent that dies here. */
	pin(0);
	child = fork();
	if (child < 0)
		die("cannot fork", "xcore");
	if (!child) {
		/* Odd turns are the child's: it answers each with the next. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(1);
		pin(1);
		for (i = 0; i < 5 * trips; i++) {
			xcore_wait(turn, 2 * i + 1, 0);
			__atomic_store_n(turn, 2 * i + 2, __ATOMIC_RELEASE);
		}
		_exit(0);
	}
	for (r = 0; r < 5; r++) {
		clock_gettime(CLOCK_MONOTONIC, &a);
		for (i = r * trips; i < (r + 1) * trips; i++) {
			__atomic_store_n(turn, 2 * i + 1, __ATOMIC_RELEASE);
			xcore_wait(turn, 2 * i + 2, child);
		}
		clock_gettime(CLOCK_MONOTONIC, &b);
		ns = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / trips;
		if (!r || ns < least)
			least = ns;
	}
	if (waitpid(child, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		die("the other CPU's process failed", "xcore");
	printf("%.0f ns\n", least);
}

/* pair of DIR/0 here and of DIR/1 in a child, at once. */
static void pair2(const char *dir)
{
	struct stream s[2] = { 0 };
	char name[PATH_MAX];
	int k, status;
	pid_t child;
	unsigned int i;

	fflush(stdout);
	child = fork();
	if (child < 0)
		die("cannot fork", dir);
	k = !child;
	for (i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "%s/%d/cpu%u", dir, k, i);
		open_stream(&s[i], name, i);
	}
	live_grow();
	merge2(MODE_PAIR, &s[0], &s[1]);
	pair_end();
	if (!child) {
		fflush(stdout);
		_exit(bad_chunks ? 1 : 0);
	}
	if (waitpid(child, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		bad_chunks++;
}

int main(int argc, char **argv)
{
	static const char *const modes[] = {
		"read", "merge", "pair", "lines", "dump"
	};
	struct stream s[2] = { 0 };
	enum mode mode;
	int i;

	if (argc == 5 && !strcmp(argv[1], "split")) {
		for (i = 0; i < 2; i++)
			halve_stream(argv[2 + i], i, argv[4], false, 0);
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "cut")) {
		uint64_t median = median_time(argv[2], argv[3]);

		for (i = 0; i < 2; i++)
			halve_stream(argv[2 + i], i, argv[4], true, median);
		printf("median time %llu\n", (unsigned long long)median);
		return bad_chunks ? 1 : 0;
	}
	if ((argc == 2 || argc == 3) && !strcmp(argv[1], "xcore")) {
		char *end;
		unsigned long long trips = argc == 3 ? strtoull(argv[2], &end, 10) : XCORE_TRIPS;

		if (argc == 3 && (*end || !trips || trips > UINT64_MAX / 10))
			die("not a number of round trips", argv[2]);
		xcore(trips);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "pair2")) {
		pair2(argv[2]);
		return bad_chunks ? 1 : 0;
	}
	if (argc != 4) {
		fprintf(stderr, "usage: floor read|merge|pair|lines|dump CPU0 CPU1\n"
			"       floor split CPU0 CPU1 DIR\n"
			"       floor cut CPU0 CPU1 DIR\n"
			"       floor pair2 DIR\n"
			"       floor xcore [TRIPS]\n");
		return 2;
	}
	for (mode = MODE_READ; mode <= MODE_DUMP; mode++)
		if (!strcmp(argv[1], modes[mode]))
			break;
	if (mode > MODE_DUMP)
		die("unknown mode", argv[1]);
	for (i = 0; i < 2; i++)
		open_stream(&s[i], argv[2 + i], i);
	if (mode == MODE_PAIR)
		live_grow();
	if (mode == MODE_READ) {
		for (i = 0; i < 2; i++)
			while (stream_read(&s[i]))
				merged += s[i].nr;
	} else {
		merge2(mode, &s[0], &s[1]);
	}
	if (mode == MODE_DUMP || mode == MODE_LINES)
		flush_out();
	else if (mode == MODE_PAIR)
		pair_end();
	else
		printf("%llu events, sum %llx\n", (unsigned long long)merged,
		       (unsigned long long)sum);
	if (bad_chunks)
		fprintf(stderr, "floor: %llu chunks had invalid events\n",
			(unsigned long long)bad_chunks);
	return bad_chunks ? 1 : 0;
}
