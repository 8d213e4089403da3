// SPDX-License-Identifier: GPL-2.0
/*
 * mkstream - write crafted kmemtrace event streams for the host tests
 *
 * usage: mkstream [-1|-2] [-s] [-t BYTES] [-p PERIOD] FILE [EVENT...]
 *        mkstream [-1|-2] -w EVENTS [-c CPUS] [-u] [-S SITES] [-p PERIOD] DIR
 *
 * Each EVENT is a comma-separated list of KEY=VALUE pairs; every key has a
 * default, so "" is a valid event.  Keys: kind (alloc, free, realloc,
 * split or a number), type (kmalloc, cache, pages, percpu, vmalloc or a number),
 * flags (irq, backing, unpaired, stack_lost or a number), cpu, seq, ts,
 * site, ptr, req, alloc, gfp, node, pid, order, cache, mt (migratetype),
 * stack (stack_id), period (sample_period), tag, magic, abi, and swab=1
 * to write that event in the other byte order.
 *
 * Defaults: magic KMEMTRACE_MAGIC, abi KMEMTRACE_ABI_VERSION (1 with -1,
 * 2 with -2), kind alloc, type kmalloc, cpu N of a FILE named cpuN (else
 * 0), seq one above the previous event (0 first), ts 1000 above the
 * previous event, node -1, period PERIOD of -p (else 0).
 *
 * Events are written in the current layout (ABI 3, 96 bytes), with -2 in
 * that of ABI 2 (88 bytes: the timestamp after seq, no sample_period) or
 * with -1 in that of ABI 1 (80 bytes: no stack_id and tag either, a
 * 32-bit cpu); a field the layout lacks is not written.  -s writes the
 * events in the other byte order; -t BYTES keeps only the first BYTES
 * bytes of the last event, to make a truncated stream.
 *
 * -w writes a synthetic workload of EVENTS events over CPUS CPUs (2 by
 * default) into DIR, for benchmarks: DIR/cpuN, kallsyms, caches and
 * dropped.  Allocations and frees of every type come from 4096 call
 * sites (SITES with -S).  Three frees in four pick one of the 1024
 * youngest live objects, as most kernel objects die young, the others
 * (all of them with -u, the worst case for the tools' caches) any live
 * object; about half of the frees are on another CPU than the alloc, and
 * freed addresses are reused as slab freelists do.  The output only
 * depends on the arguments.
 *
 * -w with -p PERIOD writes what a sampled recording (kmemtrace.sample=
 * PERIOD) of that same workload holds: each CPU counts down the bytes
 * allocated on it, from a draw of an exponential distribution of mean
 * PERIOD (from a pseudo-random sequence of its own, so that the workload
 * is the one written without -p); the allocation that crosses 0 is
 * sampled, and the countdown drawn again.  Only the sampled allocations
 * are written, with sample_period PERIOD, and only the frees and reallocs
 * of sampled objects; every written event takes the next seq of its CPU,
 * as in the kernel, so that the streams have no gaps.  EVENTS counts the
 * events of the workload, written or not.
 */
#include <byteswap.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/kmemtrace.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define USAGE		"mkstream [-1|-2] [-s] [-t BYTES] [-p PERIOD] FILE [EVENT...]"
/* The kernel's __packed, as tools/kmemtrace/src/utils.h spells it. */
#define __mks_attribute(x)	__attribute__((x))
#define __packed	__mks_attribute(packed)

struct name_value {
	const char *name;
	unsigned long long value;
};

static const struct name_value names[] = {
	{ "alloc",	KMEMTRACE_KIND_ALLOC },
	{ "free",	KMEMTRACE_KIND_FREE },
	{ "realloc",	KMEMTRACE_KIND_REALLOC },
	{ "split",	KMEMTRACE_KIND_SPLIT },
	{ "irq",	KMEMTRACE_FLAG_INTERRUPT },
	{ "backing",	KMEMTRACE_FLAG_BACKING },
	{ "unpaired",	KMEMTRACE_FLAG_UNPAIRED },
	{ "stack_lost",	KMEMTRACE_FLAG_STACK_LOST },
	{ "uncharged",	KMEMTRACE_FLAG_UNCHARGED },
	{ "kmalloc",	KMEMTRACE_TYPE_KMALLOC },
	{ "cache",	KMEMTRACE_TYPE_CACHE },
	{ "pages",	KMEMTRACE_TYPE_PAGES },
	{ "percpu",	KMEMTRACE_TYPE_PERCPU },
	{ "vmalloc",	KMEMTRACE_TYPE_VMALLOC },
};

/* An ABI 1 event, as tools/kmemtrace/src/event.c reads it. */
struct event_v1 {
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

/* An ABI 2 event. */
struct event_v2 {
	__u16	magic;
	__u8	abi_version;
	__u8	kind;
	__u8	type;
	__u8	order;
	__u16	flags;
	__u16	cpu;
	__u8	migratetype;
	__u8	__reserved;
	__u32	pid;
	__s32	node;
	__u32	gfp_flags;
	__u32	cache_id;
	__u32	stack_id;
	__u64	seq;
	__u64	timestamp;
	__u64	call_site;
	__u64	ptr;
	__u64	bytes_req;
	__u64	bytes_alloc;
	__u64	tag;
} __packed;

/* The ABI version of the layout written: 1, 2 or KMEMTRACE_ABI_VERSION. */
static int abi = KMEMTRACE_ABI_VERSION;
/* -p: the sample_period of the events, and of -w's sampling; 0: none. */
static unsigned long long period;
/* The cpu of the event being parsed, 32 bits in ABI 1. */
static unsigned long long cpu_v1;

static void die(const char *what, const char *arg)
{
	fprintf(stderr, "mkstream: %s: %s\n", what, arg);
	exit(2);
}

static unsigned long long parse_value(const char *s)
{
	unsigned long long v;
	size_t i;
	char *end;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(s, names[i].name))
			return names[i].value;
	v = strtoull(s, &end, 0);
	if (!*s || *end)
		die("bad value", s);
	return v;
}

/* Set the cpu of @ev, keeping the 32 bits that ABI 1 has for it. */
static void set_cpu(struct kmemtrace_event *ev, unsigned long long cpu)
{
	ev->cpu = cpu;
	cpu_v1 = cpu;
}

static void set_field(struct kmemtrace_event *ev, const char *key,
		      unsigned long long v)
{
	if (!strcmp(key, "kind"))
		ev->kind = v;
	else if (!strcmp(key, "type"))
		ev->type = v;
	else if (!strcmp(key, "cpu"))
		set_cpu(ev, v);
	else if (!strcmp(key, "seq"))
		ev->seq = v;
	else if (!strcmp(key, "ts"))
		ev->timestamp = v;
	else if (!strcmp(key, "site"))
		ev->call_site = v;
	else if (!strcmp(key, "ptr"))
		ev->ptr = v;
	else if (!strcmp(key, "req"))
		ev->bytes_req = v;
	else if (!strcmp(key, "alloc"))
		ev->bytes_alloc = v;
	else if (!strcmp(key, "gfp"))
		ev->gfp_flags = v;
	else if (!strcmp(key, "node"))
		ev->node = (int)v;
	else if (!strcmp(key, "pid"))
		ev->pid = v;
	else if (!strcmp(key, "order"))
		ev->order = v;
	else if (!strcmp(key, "cache"))
		ev->cache_id = v;
	else if (!strcmp(key, "mt"))
		ev->migratetype = v;
	else if (!strcmp(key, "stack"))
		ev->stack_id = v;
	else if (!strcmp(key, "period"))
		ev->sample_period = v;
	else if (!strcmp(key, "tag"))
		ev->tag = v;
	else if (!strcmp(key, "flags"))
		ev->flags = v;
	else if (!strcmp(key, "magic"))
		ev->magic = v;
	else if (!strcmp(key, "abi"))
		ev->abi_version = v;
	else
		die("unknown key", key);
}

/* Return whether the event asks to be written in the other byte order. */
static int parse_event(struct kmemtrace_event *ev, char *spec)
{
	char *pair, *eq, *save;
	int swab = 0;

	for (pair = strtok_r(spec, ",", &save); pair;
	     pair = strtok_r(NULL, ",", &save)) {
		eq = strchr(pair, '=');
		if (!eq)
			die("expected KEY=VALUE", pair);
		*eq = '\0';
		if (!strcmp(pair, "swab"))
			swab = parse_value(eq + 1) != 0;
		else
			set_field(ev, pair, parse_value(eq + 1));
	}
	return swab;
}

static void swap_event(struct kmemtrace_event *ev)
{
	ev->magic = bswap_16(ev->magic);
	ev->timestamp = bswap_64(ev->timestamp);
	ev->flags = bswap_16(ev->flags);
	ev->cpu = bswap_16(ev->cpu);
	ev->__reserved1 = bswap_16(ev->__reserved1);
	ev->pid = bswap_32(ev->pid);
	ev->node = (__s32)bswap_32((__u32)ev->node);
	ev->gfp_flags = bswap_32(ev->gfp_flags);
	ev->cache_id = bswap_32(ev->cache_id);
	ev->stack_id = bswap_32(ev->stack_id);
	ev->sample_period = bswap_32(ev->sample_period);
	ev->seq = bswap_64(ev->seq);
	ev->call_site = bswap_64(ev->call_site);
	ev->ptr = bswap_64(ev->ptr);
	ev->bytes_req = bswap_64(ev->bytes_req);
	ev->bytes_alloc = bswap_64(ev->bytes_alloc);
	ev->tag = bswap_64(ev->tag);
}

/* @o, an ABI 1 event, in the other byte order. */
static void swap_v1(struct event_v1 *o)
{
	o->magic = bswap_16(o->magic);
	o->flags = bswap_16(o->flags);
	o->cpu = bswap_32(o->cpu);
	o->pid = bswap_32(o->pid);
	o->node = (__s32)bswap_32((__u32)o->node);
	o->gfp_flags = bswap_32(o->gfp_flags);
	o->cache_id = bswap_32(o->cache_id);
	o->seq = bswap_64(o->seq);
	o->timestamp = bswap_64(o->timestamp);
	o->call_site = bswap_64(o->call_site);
	o->ptr = bswap_64(o->ptr);
	o->bytes_req = bswap_64(o->bytes_req);
	o->bytes_alloc = bswap_64(o->bytes_alloc);
}

/* @o, an ABI 2 event, in the other byte order. */
static void swap_v2(struct event_v2 *o)
{
	o->magic = bswap_16(o->magic);
	o->flags = bswap_16(o->flags);
	o->cpu = bswap_16(o->cpu);
	o->pid = bswap_32(o->pid);
	o->node = (__s32)bswap_32((__u32)o->node);
	o->gfp_flags = bswap_32(o->gfp_flags);
	o->cache_id = bswap_32(o->cache_id);
	o->stack_id = bswap_32(o->stack_id);
	o->seq = bswap_64(o->seq);
	o->timestamp = bswap_64(o->timestamp);
	o->call_site = bswap_64(o->call_site);
	o->ptr = bswap_64(o->ptr);
	o->bytes_req = bswap_64(o->bytes_req);
	o->bytes_alloc = bswap_64(o->bytes_alloc);
	o->tag = bswap_64(o->tag);
}

/* The ABI 2 event of @e, but its sample_period. */
static void to_v2(struct event_v2 *o, const struct kmemtrace_event *e)
{
	memset(o, 0, sizeof(*o));
	o->magic = e->magic;
	o->abi_version = e->abi_version;
	o->kind = e->kind;
	o->type = e->type;
	o->order = e->order;
	o->flags = e->flags;
	o->cpu = e->cpu;
	o->migratetype = e->migratetype;
	o->pid = e->pid;
	o->node = e->node;
	o->gfp_flags = e->gfp_flags;
	o->cache_id = e->cache_id;
	o->stack_id = e->stack_id;
	o->seq = e->seq;
	o->timestamp = e->timestamp;
	o->call_site = e->call_site;
	o->ptr = e->ptr;
	o->bytes_req = e->bytes_req;
	o->bytes_alloc = e->bytes_alloc;
	o->tag = e->tag;
}

/* The ABI 1 event of @e, of CPU @cpu, but its stack_id and tag. */
static void to_v1(struct event_v1 *o, const struct kmemtrace_event *e,
		  unsigned long long cpu)
{
	memset(o, 0, sizeof(*o));
	o->magic = e->magic;
	o->abi_version = e->abi_version;
	o->kind = e->kind;
	o->type = e->type;
	o->order = e->order;
	o->flags = e->flags;
	o->cpu = cpu;
	o->pid = e->pid;
	o->node = e->node;
	o->gfp_flags = e->gfp_flags;
	o->cache_id = e->cache_id;
	o->migratetype = e->migratetype;
	o->seq = e->seq;
	o->timestamp = e->timestamp;
	o->call_site = e->call_site;
	o->ptr = e->ptr;
	o->bytes_req = e->bytes_req;
	o->bytes_alloc = e->bytes_alloc;
}

/*
 * Write @ev, in host byte order, to @f in the layout asked for, swapped if
 * @swab, only its first @len bytes (all of them when @len is larger).
 */
static void write_event(FILE *f, const struct kmemtrace_event *ev,
			unsigned long long cpu, int swab, size_t len,
			const char *path)
{
	struct kmemtrace_event e = *ev;
	struct event_v1 o1;
	struct event_v2 o2;
	const void *p = &e;
	size_t size = sizeof(e);

	if (abi == 1) {
		to_v1(&o1, &e, cpu);
		if (swab)
			swap_v1(&o1);
		p = &o1;
		size = sizeof(o1);
	} else if (abi == 2) {
		to_v2(&o2, &e);
		if (swab)
			swap_v2(&o2);
		p = &o2;
		size = sizeof(o2);
	} else if (swab) {
		swap_event(&e);
	}
	if (len > size)
		len = size;
	if (fwrite(p, 1, len, f) != len)
		die("write failed", path);
}

static unsigned int default_cpu(const char *path)
{
	const char *name = strrchr(path, '/');

	name = name ? name + 1 : path;
	if (strncmp(name, "cpu", 3))
		return 0;
	return strtoul(name + 3, NULL, 10);
}

/* Fill the defaults of event @i from the previous event @prev. */
static void init_event(struct kmemtrace_event *ev,
		       const struct kmemtrace_event *prev, unsigned int cpu)
{
	memset(ev, 0, sizeof(*ev));
	ev->magic = KMEMTRACE_MAGIC;
	ev->abi_version = abi;
	ev->kind = KMEMTRACE_KIND_ALLOC;
	ev->type = KMEMTRACE_TYPE_KMALLOC;
	set_cpu(ev, cpu);
	ev->node = KMEMTRACE_NO_NODE;
	ev->seq = prev ? prev->seq + 1 : 0;
	ev->timestamp = prev ? prev->timestamp + 1000 : 1000;
	ev->sample_period = period;
}

/* ---------------------------------------------------------- workload */

#define W_SITES		4096
#define W_FREE_SITES	1024
#define W_CACHES	64
#define W_TEXT		0xffffffff81000000ULL
#define W_FUNC_SIZE	0x100
#define W_FUNCS		100000
#define W_YOUNG		1024

/* Free random live objects rather than mostly young ones. */
static int w_uniform;
/* Call sites that allocate. */
static unsigned long long w_sites = W_SITES;

struct w_obj {
	uint64_t ptr;
	uint64_t size;
	uint8_t type;
	uint8_t order;
	uint16_t flags;
	uint32_t cache;
	uint8_t sampled;
};

struct w_cpu {
	FILE *f;
	uint64_t seq;
	double left;	/* -p: bytes to allocate before the next sample */
};

static uint64_t w_state = 0x9e3779b97f4a7c15ULL;

static uint64_t w_rand(void)
{
	w_state ^= w_state << 13;
	w_state ^= w_state >> 7;
	w_state ^= w_state << 17;
	return w_state;
}

/* The sampling's own sequence, so that the workload stays the same. */
static uint64_t w_sample_state = 0x2545f4914f6cdd1dULL;

/* Bytes to the next sample: exponential, of mean -p's period. */
static double w_next_sample(void)
{
	double u;

	w_sample_state ^= w_sample_state << 13;
	w_sample_state ^= w_sample_state >> 7;
	w_sample_state ^= w_sample_state << 17;
	/* u in (0, 1], so that the log is finite. */
	u = ((w_sample_state >> 11) + 1) * (1.0 / 9007199254740992.0);
	return -log(u) * period;
}

/* Whether the allocation of @bytes on @c is sampled: always without -p. */
static int w_sampled(struct w_cpu *c, uint64_t bytes)
{
	if (!period)
		return 1;
	c->left -= bytes;
	if (c->left > 0)
		return 0;
	c->left = w_next_sample();
	return 1;
}

/* Per type, a LIFO of freed addresses and the next new one. */
static uint64_t *w_free_ptrs[KMEMTRACE_TYPE_VMALLOC + 1];
static size_t w_nr_free[KMEMTRACE_TYPE_VMALLOC + 1];
static uint64_t w_next[KMEMTRACE_TYPE_VMALLOC + 1] = {
	0, 0xffff888000000000ULL, 0xffff888000000000ULL, 0xffffea0000000000ULL,
	0x0000607000000000ULL, 0xffffc90000000000ULL,
};

static unsigned int w_ptr_type(unsigned int type)
{
	return type == KMEMTRACE_TYPE_CACHE ? KMEMTRACE_TYPE_KMALLOC : type;
}

static uint64_t w_get_ptr(unsigned int type, uint64_t size)
{
	unsigned int t = w_ptr_type(type);

	if (w_nr_free[t] && (w_rand() & 3))
		return w_free_ptrs[t][--w_nr_free[t]];
	w_next[t] += (size + 4095) & ~4095ULL;
	return w_next[t];
}

static void w_put_ptr(unsigned int type, uint64_t ptr, size_t max)
{
	unsigned int t = w_ptr_type(type);

	if (!w_free_ptrs[t])
		w_free_ptrs[t] = calloc(max, sizeof(uint64_t));
	if (!w_free_ptrs[t])
		die("out of memory", "workload");
	w_free_ptrs[t][w_nr_free[t]++] = ptr;
}

static void w_emit(struct w_cpu *cpus, unsigned int cpu, struct kmemtrace_event *ev,
		   uint64_t ts)
{
	ev->magic = KMEMTRACE_MAGIC;
	ev->abi_version = abi;
	ev->cpu = cpu;
	ev->seq = cpus[cpu].seq++;
	ev->timestamp = ts;
	ev->sample_period = period;
	write_event(cpus[cpu].f, ev, cpu, 0, sizeof(*ev), "workload");
}

static void w_write_side_files(const char *dir)
{
	char path[4096];
	unsigned int i;
	FILE *f;

	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	f = fopen(path, "w");
	if (!f)
		die("cannot create", path);
	fprintf(f, "%016llx T _text\n", (unsigned long long)W_TEXT);
	for (i = 0; i < W_FUNCS; i++)
		fprintf(f, "%016llx %c func_%u\n",
			(unsigned long long)(W_TEXT + 0x1000 + i * W_FUNC_SIZE),
			i & 1 ? 't' : 'T', i);
	fclose(f);
	snprintf(path, sizeof(path), "%s/caches", dir);
	f = fopen(path, "w");
	if (!f)
		die("cannot create", path);
	fprintf(f, "# kmemtrace caches v1\n# id name object_size size\n");
	for (i = 1; i <= W_CACHES; i++)
		fprintf(f, "%u cache_%u %u %u\n", i, i, i * 32, i * 32 + 8);
	fclose(f);
	snprintf(path, sizeof(path), "%s/dropped", dir);
	f = fopen(path, "w");
	if (!f)
		die("cannot create", path);
	fprintf(f, "0\n");
	fclose(f);
}

static int workload(const char *dir, uint64_t events, unsigned int nr_cpus)
{
	static const uint32_t gfps[] = { 0xcc0, 0xdc0, 0x820, 0x800, 0x140cca };
	size_t nr_live = 0, max_live = events + 1;
	struct w_obj *live, obj;
	struct kmemtrace_event ev;
	struct w_cpu *cpus;
	char path[4096];
	uint64_t i, ts = 1000000, r, site;
	unsigned int cpu;
	size_t k;

	live = calloc(max_live, sizeof(*live));
	cpus = calloc(nr_cpus, sizeof(*cpus));
	if (!live || !cpus)
		die("out of memory", "workload");
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		snprintf(path, sizeof(path), "%s/cpu%u", dir, cpu);
		cpus[cpu].f = fopen(path, "w");
		if (!cpus[cpu].f)
			die("cannot create", path);
		setvbuf(cpus[cpu].f, NULL, _IOFBF, 1 << 20);
		if (period)
			cpus[cpu].left = w_next_sample();
	}
	for (i = 0; i < events; i++) {
		r = w_rand();
		cpu = r % nr_cpus;
		ts += 1 + (r >> 8) % 200;
		memset(&ev, 0, sizeof(ev));
		ev.pid = 1 + (r >> 16) % 64;
		ev.node = KMEMTRACE_NO_NODE;
		r = w_rand();
		if (nr_live && r % 1000 < 10) {
			/* A realloc in place of a live kmalloc object. */
			k = (r >> 10) % nr_live;
			if (live[k].type != KMEMTRACE_TYPE_KMALLOC) {
				i--;	/* draw again */
				continue;
			}
			ev.kind = KMEMTRACE_KIND_REALLOC;
			ev.type = KMEMTRACE_TYPE_KMALLOC;
			ev.call_site = W_TEXT + 0x1000 + ((r >> 32) % w_sites) * W_FUNC_SIZE + 0x40;
			ev.ptr = live[k].ptr;
			ev.bytes_req = live[k].size + 8;
			ev.bytes_alloc = live[k].size + 16;
			live[k].size = ev.bytes_alloc;
			if (!live[k].sampled)
				continue;
		} else if (nr_live && r % 1000 >= 510) {
			/* Most objects die young: free a recent one. */
			k = (r >> 10) % nr_live;
			if (!w_uniform && (r >> 40) % 4 && nr_live > W_YOUNG)
				k = nr_live - 1 - (r >> 10) % W_YOUNG;
			obj = live[k];
			live[k] = live[--nr_live];
			ev.kind = KMEMTRACE_KIND_FREE;
			ev.type = obj.type;
			/* The free of backing store is flagged as its alloc. */
			ev.flags = obj.flags & KMEMTRACE_FLAG_BACKING;
			ev.cache_id = obj.cache;
			ev.ptr = obj.ptr;
			ev.call_site = W_TEXT + 0x1000 +
				(W_SITES + (r >> 32) % W_FREE_SITES) * W_FUNC_SIZE + 0x20;
			if (obj.type == KMEMTRACE_TYPE_PAGES) {
				ev.order = obj.order;
				ev.bytes_req = obj.size;
				ev.bytes_alloc = obj.size;
			}
			w_put_ptr(obj.type, obj.ptr, max_live);
			if (!obj.sampled)
				continue;
		} else {
			site = (r >> 10) % w_sites;
			ev.kind = KMEMTRACE_KIND_ALLOC;
			ev.call_site = W_TEXT + 0x1000 + site * W_FUNC_SIZE + 0x10 + (site & 7);
			ev.gfp_flags = gfps[site % 5];
			switch (site % 20) {
			case 0 ... 11:
				ev.type = KMEMTRACE_TYPE_KMALLOC;
				ev.bytes_req = 8 + site % 1000;
				ev.bytes_alloc = 1ULL << (64 - __builtin_clzll(ev.bytes_req - 1));
				break;
			case 12 ... 16:
				ev.type = KMEMTRACE_TYPE_CACHE;
				ev.cache_id = 1 + site % W_CACHES;
				ev.bytes_req = ev.cache_id * 32;
				ev.bytes_alloc = ev.bytes_req + 8;
				break;
			case 17 ... 18:
				ev.type = KMEMTRACE_TYPE_PAGES;
				ev.order = site % 4;
				ev.migratetype = site % 3;
				ev.node = 0;
				ev.bytes_req = 4096ULL << ev.order;
				ev.bytes_alloc = ev.bytes_req;
				if (!(site % 7))
					ev.flags = KMEMTRACE_FLAG_BACKING;
				break;
			default:
				ev.type = site & 1 ? KMEMTRACE_TYPE_VMALLOC :
						     KMEMTRACE_TYPE_PERCPU;
				ev.bytes_req = 100 + site * 4;
				ev.bytes_alloc = (ev.bytes_req + 4095) & ~4095ULL;
				break;
			}
			ev.ptr = w_get_ptr(ev.type, ev.bytes_alloc);
			live[nr_live].ptr = ev.ptr;
			live[nr_live].size = ev.bytes_alloc;
			live[nr_live].type = ev.type;
			live[nr_live].order = ev.order;
			live[nr_live].cache = ev.cache_id;
			if (ev.flags)
				ev.flags |= r & 0x100 ? KMEMTRACE_FLAG_INTERRUPT : 0;
			live[nr_live].flags = ev.flags;
			live[nr_live].sampled = w_sampled(&cpus[cpu], ev.bytes_alloc);
			if (!live[nr_live++].sampled)
				continue;
		}
		w_emit(cpus, cpu, &ev, ts);
	}
	for (cpu = 0; cpu < nr_cpus; cpu++)
		if (fclose(cpus[cpu].f))
			die("write failed", dir);
	w_write_side_files(dir);
	return 0;
}

int main(int argc, char **argv)
{
	struct kmemtrace_event ev, prev;
	unsigned long long work = 0, nr_cpus = 2;
	long truncate = -1;
	int c, i, swab, swapped = 0;
	size_t len;
	FILE *f;

	while ((c = getopt(argc, argv, "12st:w:c:uS:p:")) != -1) {
		if (c == '1' || c == '2')
			abi = c - '0';
		else if (c == 's')
			swapped = 1;
		else if (c == 't')
			truncate = strtol(optarg, NULL, 0);
		else if (c == 'w')
			work = parse_value(optarg);
		else if (c == 'c')
			nr_cpus = parse_value(optarg);
		else if (c == 'u')
			w_uniform = 1;
		else if (c == 'S')
			w_sites = parse_value(optarg);
		else if (c == 'p')
			period = parse_value(optarg);
		else
			die("usage", USAGE);
	}
	if (optind >= argc)
		die("usage", USAGE);
	if (period > UINT32_MAX || (period && abi != KMEMTRACE_ABI_VERSION))
		die("-p takes 1 to 4294967295, with ABI 3", "-p");
	if (work && (!w_sites || w_sites > W_SITES))
		die("-S takes 1 to 4096", "-S");
	if (work)
		return nr_cpus && nr_cpus <= 1024 ? workload(argv[optind], work, nr_cpus) :
			(die("bad CPU count", "-c"), 2);
	f = fopen(argv[optind], "w");
	if (!f)
		die("cannot create", argv[optind]);
	for (i = optind + 1; i < argc; i++) {
		init_event(&ev, i > optind + 1 ? &prev : NULL, default_cpu(argv[optind]));
		swab = parse_event(&ev, argv[i]);
		prev = ev;
		len = sizeof(ev);
		if (i == argc - 1 && truncate >= 0)
			len = truncate;
		write_event(f, &ev, cpu_v1, swapped != swab, len, argv[optind]);
	}
	if (fclose(f))
		die("write failed", argv[optind]);
	return 0;
}
