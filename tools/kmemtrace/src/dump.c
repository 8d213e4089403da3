// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace dump - print every recorded event as one line of text
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dump_fields.h"
#include "fmt.h"
#include "kmemtrace.h"
#include "opts.h"
#include "symbols.h"
#include "tags.h"
#include "trace.h"
#include "utils.h"

struct dump_params {
	const char *path;
	const char *vmlinux;
	const char *symfile;
};

static const struct kmt_opt dump_opts[] = {
	{ "vmlinux", 'k', "VMLINUX",
	  "symbolize call sites with this vmlinux (libdw)" },
	{ "symbols", 's', "SYMFILE", "use this kallsyms or System.map file" },
	{ "help", 'h', NULL, "print this help" },
};

static void dump_usage(int status)
{
	FILE *out = status ? stderr : stdout;

	fprintf(out,
		"  usage: kmemtrace dump [-k VMLINUX] [-s SYMFILE] DIR|FILE\n"
		"\n"
		"  Print the valid events of the cpuN files of DIR, or of one FILE, one\n"
		"  line per event, in time order (each CPU's in the order recorded):\n"
		"    cpu seq ts kind type site ptr req alloc gfp node pid order cache_id\n"
		"    stack_id tag [sample_period] [migratetype] [cache] [flags] [line]\n"
		"    [sym]\n"
		"  stack_id and tag are 0 in ABI 1 traces, which are read too, as ABI 2\n"
		"  ones are.  sample_period is shown for the events of a sampled\n"
		"  recording (ABI 3).\n"
		"  line is the source line of the tag, \"file:line [module]\", when\n"
		"  DIR/tags lists it.\n"
		"  migratetype is shown for page allocations, cache (the cache name) for\n"
		"  kmem_cache events when DIR/caches names it, flags (irq, backing,\n"
		"  unpaired, stack_lost, uncharged, untracked) when any is set, sym (the\n"
		"  symbolized call site) when symbols are known (DIR/kallsyms, -s or -k);\n"
		"  warns when they do not match the _text or build id in DIR/header.\n"
		"  Exits 1 when no event is valid.\n"
		"\n");
	kmt_opts_usage(out, dump_opts, ARRAY_SIZE(dump_opts));
	exit(status);
}

static void dump_parse_args(int argc, char **argv, struct dump_params *p)
{
	struct kmt_getopt g;
	int c;

	memset(p, 0, sizeof(*p));
	kmt_getopt_init(&g, dump_opts, ARRAY_SIZE(dump_opts), NULL, 0);
	while ((c = getopt_long(argc, argv, g.so, g.lo, NULL)) != -1) {
		switch (c) {
		case 'k':
			p->vmlinux = optarg;
			break;
		case 's':
			p->symfile = optarg;
			break;
		case 'h':
			dump_usage(0);
			break;
		default:
			dump_usage(KMT_EXIT_USAGE);
		}
	}
	kmt_getopt_free(&g);
	if (optind != argc - 1) {
		kmt_err("dump: expected one DIR or FILE argument");
		dump_usage(KMT_EXIT_USAGE);
	}
	p->path = argv[optind];
}

/* Output of dump: lines built in a buffer, written a buffer at a time. */
struct dump_out {
	char buf[1 << 18];
	size_t len;
};

/* The keys of out_field(), readable 16 bytes at a time. */
static const char key_cache[16] = " cache=";
static const char key_flags[16] = " flags=";
static const char key_line[16] = " line=";
static const char key_sym[16] = " sym=";

static void out_write(const char *buf, size_t len);

static void out_flush(struct dump_out *o)
{
	out_write(o->buf, o->len);
	o->len = 0;
}

/* Room for @len bytes more. */
static char *out_reserve(struct dump_out *o, size_t len)
{
	if (o->len + len > sizeof(o->buf))
		out_flush(o);
	return o->buf + o->len;
}

/*
 * Append " KEY" and the string @s, which may be longer than the buffer,
 * and is readable 16 bytes at a time, as the key.
 */
static void out_field(struct dump_out *o, const char *key, size_t klen,
		      const char *s, size_t len)
{
	char *p = out_reserve(o, 16);

	o->len = fmt_blocks(p, key, klen) - o->buf;
	if (len > sizeof(o->buf) / 2) {
		out_flush(o);
		out_write(s, len);
		return;
	}
	p = out_reserve(o, len + 16);
	o->len = fmt_blocks(p, s, len) - o->buf;
}

/* The CPUs whose last seq dump_seq() keeps. */
#define DUMP_CPUS	256

/*
 * The last seq of a CPU, below 10^8, and its digits.  The next event of
 * the CPU has seq + 1, unless events were lost, whose digits are these
 * with the last one counted up, unless it is a 9.
 */
struct dump_seq {
	uint64_t seq;
	uint64_t digits;	/* fmt_dec8() + FMT_ZEROS: 8 digits, zero-padded */
	unsigned int len;	/* 0 before the first event */
};

/*
 * Time stamps, merged in time order, have the same digits but the last
 * eight for a tenth of a second at a time: those of the last one, and
 * where that tenth of a second starts.
 */
struct dump_ts {
	uint64_t base;		/* a multiple of 10^8, 0 before the first */
	uint64_t digits;	/* base / 10^8, as fmt_dec8_tail() writes it */
	unsigned int len;
};

/* What dump_event() prints for every event but the event itself. */
struct dump_ctx {
	struct dump_out out;
	struct kmt_symcache syms;
	bool symbolize;
	const struct kmt_caches *caches;
	const struct kmt_tags *tags;
	char **tag_texts;
	size_t *tag_lens;
	struct kmt_map cache_index;
	size_t *cache_lens;
	char **cache_names;
	char flags[KMT_KNOWN_FLAGS + 1][64];
	size_t flags_len[KMT_KNOWN_FLAGS + 1];
	/* " KIND TYPE site=0x" of each valid kind and type */
	char kind_type[KMT_KIND_MAX + 1][KMEMTRACE_TYPE_VMALLOC + 1][32];
	size_t kind_type_len[KMT_KIND_MAX + 1][KMEMTRACE_TYPE_VMALLOC + 1];
	struct dump_seq seqs[DUMP_CPUS];
	struct dump_ts ts;
};

/* A copy of @s, readable 16 bytes at a time: for fmt_blocks(). */
static char *block_dup(const char *s, size_t len)
{
	char *p = xcalloc(1, len + 16);

	memcpy(p, s, len);
	return p;
}

static void dump_index_caches(struct dump_ctx *d)
{
	size_t i;

	d->cache_lens = xcalloc(d->caches->nr, sizeof(*d->cache_lens));
	d->cache_names = xcalloc(d->caches->nr, sizeof(*d->cache_names));
	for (i = 0; i < d->caches->nr; i++) {
		kmt_map_insert(&d->cache_index, d->caches->caches[i].id, i, NULL);
		d->cache_lens[i] = strlen(d->caches->caches[i].name);
		d->cache_names[i] = block_dup(d->caches->caches[i].name,
					      d->cache_lens[i]);
	}
}

static void dump_index_tags(struct dump_ctx *d)
{
	size_t i;

	d->tag_lens = xcalloc(d->tags->nr, sizeof(*d->tag_lens));
	d->tag_texts = xcalloc(d->tags->nr, sizeof(*d->tag_texts));
	for (i = 0; i < d->tags->nr; i++) {
		d->tag_lens[i] = strlen(d->tags->tags[i].text);
		d->tag_texts[i] = block_dup(d->tags->tags[i].text, d->tag_lens[i]);
	}
}

/* Flush the output; a write error ends dump. */
static void out_write(const char *buf, size_t len)
{
	int ret;

	if (fflush(stdout) == EOF)
		ret = -errno;
	else
		ret = write_all(STDOUT_FILENO, buf, len);
	if (ret) {
		kmt_err("dump: writing the output: %s", strerror(-ret));
		exit(1);
	}
}

/* The last digit of fmt_dec8(): in the highest byte of the word. */
#define DIGIT_LAST	0x0100000000000000ULL

/* Write the seq of @ev. */
static inline char *dump_seq(struct dump_ctx *d, char *p,
			     const struct kmemtrace_event *ev)
{
	struct dump_seq *c;

	if (ev->cpu >= DUMP_CPUS || ev->seq >= 100000000)
		return fmt_u64(p, ev->seq);
	c = &d->seqs[ev->cpu];
	if (c->len && ev->seq - 1 == c->seq &&
	    (c->digits >> 56) != '9') {
		c->digits += DIGIT_LAST;
	} else {
		c->digits = fmt_dec8(ev->seq) + FMT_ZEROS;
		c->len = fmt_u64_len(ev->seq);
	}
	c->seq = ev->seq;
	fmt_store_le(p, c->digits >> (8 * (8 - c->len)));
	return p + c->len;
}

/* Write the time stamp of @ev. */
static inline char *dump_ts(struct dump_ctx *d, char *p,
			    const struct kmemtrace_event *ev)
{
	struct dump_ts *t = &d->ts;
	uint64_t ts = ev->timestamp;

	if (ts - t->base >= 100000000 || !t->base) {
		if (ts < 100000000 || ts >= 10000000000000000ULL)
			return fmt_u64(p, ts);
		t->base = ts - ts % 100000000;
		t->len = fmt_u64_len(ts / 100000000);
		t->digits = (fmt_dec8(ts / 100000000) + FMT_ZEROS) >>
			    (8 * (8 - t->len));
	}
	fmt_store_le(p, t->digits);
	fmt_store_le(p + t->len, fmt_dec8(ts - t->base) + FMT_ZEROS);
	return p + t->len + 8;
}

/* Names dump_name() copies into the room of the line. */
#define DUMP_NAME_MAX	256

/* Room for a line: every number at its longest, and three names. */
#define DUMP_LINE_MAX	(18 * FMT_U64_MAX + 160 + 4 * (DUMP_NAME_MAX + 32))

/*
 * Write " KEY" and the name @s of @len bytes, readable 16 bytes at a time,
 * as the key.  A longer name than DUMP_NAME_MAX may be longer than the
 * whole buffer: it is written apart.
 */
static inline char *dump_name(struct dump_ctx *d, char *p, const char *key,
			      size_t klen, const char *s, size_t len)
{
	p = fmt_blocks(p, key, klen);
	if (len <= DUMP_NAME_MAX)
		return fmt_blocks(p, s, len);
	d->out.len = p - d->out.buf;
	out_field(&d->out, "", 0, s, len);
	return d->out.buf + d->out.len;
}

/* @sym: the index of the call site's name in @d->syms */
static void dump_event(struct dump_ctx *d, const struct kmemtrace_event *ev,
		       uint32_t sym)
{
	uint32_t i;
	char *p;

	p = out_reserve(&d->out, DUMP_LINE_MAX);
	p = fmt_lit(p, "cpu=");
	p = fmt_u64(p, ev->cpu);
	p = fmt_lit(p, " seq=");
	p = dump_seq(d, p, ev);
	p = fmt_lit(p, " ts=");
	p = dump_ts(d, p, ev);
	/* Valid events have a known kind and type: 32 bytes at most. */
	memcpy(p, d->kind_type[ev->kind][ev->type], 32);
	p += d->kind_type_len[ev->kind][ev->type];
	p = dump_fields(p, ev);
	if (ev->type == KMEMTRACE_TYPE_PAGES && ev->kind == KMEMTRACE_KIND_ALLOC) {
		p = fmt_lit(p, " migratetype=");
		p = fmt_u64(p, ev->migratetype);
	}
	if (ev->type == KMEMTRACE_TYPE_CACHE &&
	    kmt_map_find(&d->cache_index, ev->cache_id, &i))
		p = dump_name(d, p, key_cache, 7, d->cache_names[i],
			      d->cache_lens[i]);
	/* Valid events have no unknown flag. */
	if (ev->flags) {
		i = ev->flags & KMT_KNOWN_FLAGS;
		p = dump_name(d, p, key_flags, 7, d->flags[i], d->flags_len[i]);
	}
	if (ev->tag && kmt_map_find(&d->tags->map, ev->tag, &i))
		p = dump_name(d, p, key_line, 6, d->tag_texts[i], d->tag_lens[i]);
	if (d->symbolize)
		p = dump_name(d, p, key_sym, 5, d->syms.names[sym],
			      d->syms.lens[sym]);
	*p++ = '\n';
	d->out.len = p - d->out.buf;
}

static int dump_load(struct kmt_trace *t, const char *path)
{
	int ret = is_dir(path);

	memset(t, 0, sizeof(*t));
	if (ret < 0) {
		kmt_err("%s: %s", path, strerror(-ret));
		return ret;
	}
	if (ret)
		return kmt_trace_load_dir(t, path);
	return kmt_trace_add_file(t, path);
}

int dump_main(int argc, char **argv)
{
	struct kmt_caches caches;
	struct kmt_tags tags;
	struct dump_params p;
	struct kmt_symtab syms;
	const struct kmemtrace_event *ev[KMT_MERGE_BATCH];
	uint32_t sym[KMT_MERGE_BATCH];
	struct kmt_stats *st;
	struct kmt_merge m;
	struct kmt_trace t;
	size_t i, n, nr = 0, errors;
	struct dump_ctx *d;
	unsigned int f;
	int ret = 0;

	dump_parse_args(argc, argv, &p);
	if (dump_load(&t, p.path)) {
		kmt_trace_free(&t);
		return 1;
	}
	if (kmt_symtab_setup(&syms, t.dir, p.symfile, p.vmlinux)) {
		kmt_trace_free(&t);
		return 1;
	}
	st = xcalloc(t.nr, sizeof(*st));
	kmt_caches_load(&caches, t.dir);
	kmt_tags_load(&tags, t.dir);
	d = xcalloc(1, sizeof(*d));
	kmt_symcache_init(&d->syms, &syms);
	d->symbolize = syms.nr || syms.dw;
	d->caches = &caches;
	dump_index_caches(d);
	d->tags = &tags;
	dump_index_tags(d);
	/* Valid events have no unknown flag: name each combination once. */
	for (f = 1; f < ARRAY_SIZE(d->flags); f++) {
		kmt_flags_format(f, d->flags[f], sizeof(d->flags[f]) - 16);
		d->flags_len[f] = strlen(d->flags[f]);
	}
	for (f = KMEMTRACE_KIND_ALLOC; f <= KMT_KIND_MAX; f++) {
		for (i = KMEMTRACE_TYPE_KMALLOC; i <= KMEMTRACE_TYPE_VMALLOC; i++) {
			snprintf(d->kind_type[f][i], sizeof(d->kind_type[f][i]),
				 " %s %s site=0x", kmt_kind_name(f),
				 kmt_type_name(i));
			d->kind_type_len[f][i] = strlen(d->kind_type[f][i]);
		}
	}
	kmt_merge_start(&m, &t, st);
	while ((n = kmt_merge_batch(&m, ev, ARRAY_SIZE(ev)))) {
		/*
		 * Call sites come in any order: look the names of a batch
		 * up first, the lookups overlap.
		 */
		for (i = 0; d->symbolize && i < n; i++) {
			if (!kmt_map_find(&d->syms.map, ev[i]->call_site, &sym[i]))
				sym[i] = kmt_symcache_index(&d->syms,
							    ev[i]->call_site);
			__builtin_prefetch(d->syms.names[sym[i]]);
		}
		for (i = 0; i < n; i++)
			dump_event(d, ev[i], sym[i]);
		nr += n;
	}
	out_flush(&d->out);
	errors = kmt_merge_end(&m);
	if (!nr && errors) {
		kmt_err("%s: no valid event, %zu problems (see kmemtrace check)",
			p.path, errors);
		ret = 1;
	}

	kmt_symcache_free(&d->syms);
	kmt_map_free(&d->cache_index);
	for (i = 0; i < caches.nr; i++)
		free(d->cache_names[i]);
	free(d->cache_names);
	free(d->cache_lens);
	for (i = 0; i < tags.nr; i++)
		free(d->tag_texts[i]);
	free(d->tag_texts);
	free(d->tag_lens);
	kmt_tags_free(&tags);
	free(d);
	kmt_caches_free(&caches);
	free(st);
	kmt_symtab_free(&syms);
	kmt_trace_free(&t);
	return ret;
}
