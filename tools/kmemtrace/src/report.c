// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace report - summarize a recorded trace
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kmemtrace.h"
#include "symbols.h"
#include "trace.h"
#include "utils.h"

struct report_params {
	const char *dir;
	const char *vmlinux;
	const char *symfile;
	uint64_t top;
};

/*
 * Allocations of one call site, or of one cache.  Byte sums saturate
 * (add_u64_sat()): @req_overflow and @alloc_overflow tell that one did
 * not fit in 64 bits.
 */
struct site {
	uint64_t key;
	uint64_t count;
	uint64_t req;
	uint64_t alloc;
	bool req_overflow;
	bool alloc_overflow;
};

/* The KMEMTRACE_FLAG_BACKING events, which the byte counts leave out. */
struct backing {
	uint64_t allocs;
	uint64_t bytes;
	uint64_t frees;
	bool overflow;
};

/* Whether a byte total of the report did not fit in 64 bits. */
static bool bytes_overflow;

/* Write a byte total, or "overflow" when it did not fit in 64 bits. */
static const char *fmt_bytes(char *buf, size_t len, uint64_t v, bool overflow)
{
	if (overflow)
		snprintf(buf, len, "overflow");
	else
		snprintf(buf, len, "%llu", (unsigned long long)v);
	bytes_overflow |= overflow;
	return buf;
}

static void report_usage(int status)
{
	FILE *out = status ? stderr : stdout;

	fprintf(out,
		"  usage: kmemtrace report [-k VMLINUX] [-s SYMFILE] [-n TOP] DIR\n"
		"\n"
		"  Summarize the trace \"kmemtrace record\" wrote to DIR.  Allocator\n"
		"  backing store (flag backing) is counted apart from the byte totals;\n"
		"  cache names come from DIR/caches.  Byte totals that overflow 64 bits\n"
		"  print as \"overflow\".  Warns when the symbols (kallsyms, -s, -k) do not\n"
		"  match the _text or build id in DIR/header.  Exits 1 when no event is\n"
		"  valid.\n"
		"\n"
		"     -k/--vmlinux VMLINUX  symbolize call sites with this vmlinux (libdw),\n"
		"                           with file:line when it has debug info\n"
		"     -s/--symbols SYMFILE  use this kallsyms or System.map file instead\n"
		"                           of DIR/kallsyms\n"
		"     -n/--top TOP          show the TOP call sites and caches (default 10)\n"
		"     -h/--help             print this help\n");
	exit(status);
}

static void report_parse_args(int argc, char **argv, struct report_params *p)
{
	static const struct option long_options[] = {
		{ "vmlinux",	required_argument,	NULL, 'k' },
		{ "symbols",	required_argument,	NULL, 's' },
		{ "top",	required_argument,	NULL, 'n' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL,		0,			NULL, 0 },
	};
	int c;

	memset(p, 0, sizeof(*p));
	p->top = 10;
	while ((c = getopt_long(argc, argv, "k:s:n:h", long_options, NULL)) != -1) {
		switch (c) {
		case 'k':
			p->vmlinux = optarg;
			break;
		case 's':
			p->symfile = optarg;
			break;
		case 'n':
			if (parse_u64(optarg, &p->top)) {
				err_msg("report: bad number for -n: '%s'", optarg);
				report_usage(KMT_EXIT_USAGE);
			}
			break;
		case 'h':
			report_usage(0);
			break;
		default:
			report_usage(KMT_EXIT_USAGE);
		}
	}
	if (optind != argc - 1) {
		err_msg("report: expected one DIR argument");
		report_usage(KMT_EXIT_USAGE);
	}
	p->dir = argv[optind];
}

static void report_kinds(const struct kmt_ref *refs, size_t nr, size_t errors)
{
	uint64_t count[KMEMTRACE_KIND_REALLOC + 1][KMEMTRACE_TYPE_VMALLOC + 1];
	unsigned int kind, type;
	size_t i;

	memset(count, 0, sizeof(count));
	for (i = 0; i < nr; i++)
		count[refs[i].ev->kind][refs[i].ev->type]++;
	for (kind = KMEMTRACE_KIND_ALLOC; kind <= KMEMTRACE_KIND_REALLOC; kind++)
		for (type = KMEMTRACE_TYPE_KMALLOC; type <= KMEMTRACE_TYPE_VMALLOC; type++)
			count[kind][0] += count[kind][type];
	printf("events: %zu (alloc %llu, free %llu, realloc %llu)\n", nr,
	       (unsigned long long)count[KMEMTRACE_KIND_ALLOC][0],
	       (unsigned long long)count[KMEMTRACE_KIND_FREE][0],
	       (unsigned long long)count[KMEMTRACE_KIND_REALLOC][0]);
	if (errors)
		printf("invalid: %zu problems, events skipped (see kmemtrace check)\n",
		       errors);
	printf("\n%-8s %12s %12s %12s\n", "type", "alloc", "free", "realloc");
	for (type = KMEMTRACE_TYPE_KMALLOC; type <= KMEMTRACE_TYPE_VMALLOC; type++)
		printf("%-8s %12llu %12llu %12llu\n", kmt_type_name(type),
		       (unsigned long long)count[KMEMTRACE_KIND_ALLOC][type],
		       (unsigned long long)count[KMEMTRACE_KIND_FREE][type],
		       (unsigned long long)count[KMEMTRACE_KIND_REALLOC][type]);
}

static void report_cpus(const struct kmt_trace *t, const struct kmt_stats *st)
{
	uint64_t gaps = 0;
	size_t i;

	printf("\n%-8s %12s\n", "cpu", "events");
	for (i = 0; i < t->nr; i++) {
		printf("%-8s %12zu\n", path_basename(t->streams[i].path),
		       st[i].events);
		gaps += st[i].gaps;
	}
	if (t->has_dropped)
		printf("\ndropped: %llu (kernel counter), %llu seen as seq gaps\n",
		       (unsigned long long)t->dropped, (unsigned long long)gaps);
	else
		printf("\ndropped: unknown (no dropped file), %llu seen as seq gaps\n",
		       (unsigned long long)gaps);
}

/*
 * Move the backing store events out of @refs, which keeps the timeline
 * order of the others, and drop the unpaired frees, which no alloc
 * matches; return how many are left.
 */
static size_t split_backing(struct kmt_ref *refs, size_t nr,
			    struct backing *bk)
{
	size_t i, n = 0;

	memset(bk, 0, sizeof(*bk));
	for (i = 0; i < nr; i++) {
		if (kmt_event_is_unpaired(refs[i].ev))
			continue;
		if (!kmt_event_is_backing(refs[i].ev)) {
			refs[n++] = refs[i];
			continue;
		}
		if (refs[i].ev->kind == KMEMTRACE_KIND_ALLOC) {
			bk->allocs++;
			bk->overflow |= add_u64_sat(&bk->bytes, refs[i].ev->bytes_alloc);
		} else if (refs[i].ev->kind == KMEMTRACE_KIND_FREE) {
			bk->frees++;
		}
	}
	return n;
}

/*
 * Slab objects pair whatever API typed them: a kmem_cache merged into a
 * kmalloc cache, or a kmalloc() from a kmem_buckets cache, is allocated
 * with one type and freed by kfree() with the other.
 */
static unsigned int pair_type(unsigned int type)
{
	return type == KMEMTRACE_TYPE_CACHE ? KMEMTRACE_TYPE_KMALLOC : type;
}

static int live_cmp(const void *a, const void *b)
{
	const struct kmt_ref *x = a, *y = b;

	if (pair_type(x->ev->type) != pair_type(y->ev->type))
		return pair_type(x->ev->type) < pair_type(y->ev->type) ? -1 : 1;
	if (x->ev->ptr != y->ev->ptr)
		return x->ev->ptr < y->ev->ptr ? -1 : 1;
	/* @index holds the position in the timeline here. */
	return x->index < y->index ? -1 : x->index > y->index;
}

static bool same_memory(const struct kmemtrace_event *a,
			const struct kmemtrace_event *b)
{
	return pair_type(a->type) == pair_type(b->type) && a->ptr == b->ptr;
}

/*
 * Replay the events of each memory (type and pointer) in time order: an
 * alloc makes it live with its size, a realloc of live memory changes the
 * size, a free ends it.  Memory live at the end is still allocated.
 * Memory allocated before the trace started is not counted, even when
 * a realloc shows it.
 */
static void report_still_allocated(const struct kmt_ref *refs, size_t nr,
				   const struct backing *bk)
{
	struct kmt_ref *byptr = xcalloc(nr, sizeof(*byptr));
	uint64_t count = 0, bytes = 0, size = 0;
	const struct kmemtrace_event *ev;
	bool live = false, overflow = false;
	char buf[2][32];
	size_t i;

	for (i = 0; i < nr; i++) {
		byptr[i] = refs[i];
		byptr[i].index = i;
	}
	qsort(byptr, nr, sizeof(*byptr), live_cmp);
	for (i = 0; i < nr; i++) {
		ev = byptr[i].ev;
		if (i && !same_memory(byptr[i - 1].ev, ev))
			live = false;
		if (ev->kind == KMEMTRACE_KIND_ALLOC) {
			live = true;
			size = ev->bytes_alloc;
		} else if (ev->kind == KMEMTRACE_KIND_REALLOC) {
			size = ev->bytes_alloc;
		} else {
			live = false;
		}
		if (!live || (i + 1 < nr && same_memory(ev, byptr[i + 1].ev)))
			continue;
		count++;
		overflow |= add_u64_sat(&bytes, size);
	}
	free(byptr);
	printf("\nstill allocated at end: %llu allocations, %s bytes\n",
	       (unsigned long long)count,
	       fmt_bytes(buf[0], sizeof(buf[0]), bytes, overflow));
	printf("backing pages: %llu allocs (%s bytes), %llu frees\n",
	       (unsigned long long)bk->allocs,
	       fmt_bytes(buf[1], sizeof(buf[1]), bk->bytes, bk->overflow),
	       (unsigned long long)bk->frees);
}

static int site_key_cmp(const void *a, const void *b)
{
	const struct site *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

static int site_bytes_cmp(const void *a, const void *b)
{
	const struct site *x = a, *y = b;

	if (x->alloc != y->alloc)
		return x->alloc > y->alloc ? -1 : 1;
	return site_key_cmp(a, b);
}

/*
 * Merge the allocations (not the reallocs) by call site, or by cache for
 * the kmem_cache allocations when @by_cache; return the number of sites.
 */
static size_t collect_sites(const struct kmt_ref *refs, size_t nr,
			    struct site *sites, bool by_cache)
{
	const struct kmemtrace_event *ev;
	size_t i, n = 0;

	for (i = 0; i < nr; i++) {
		ev = refs[i].ev;
		if (ev->kind != KMEMTRACE_KIND_ALLOC ||
		    (by_cache && ev->type != KMEMTRACE_TYPE_CACHE))
			continue;
		sites[n].key = by_cache ? ev->cache_id : ev->call_site;
		sites[n].count = 1;
		sites[n].req = ev->bytes_req;
		sites[n].alloc = ev->bytes_alloc;
		sites[n].req_overflow = false;
		sites[n].alloc_overflow = false;
		n++;
	}
	qsort(sites, n, sizeof(*sites), site_key_cmp);
	for (nr = 0, i = 0; i < n; i++) {
		if (nr && sites[nr - 1].key == sites[i].key) {
			sites[nr - 1].count++;
			sites[nr - 1].req_overflow |=
				add_u64_sat(&sites[nr - 1].req, sites[i].req);
			sites[nr - 1].alloc_overflow |=
				add_u64_sat(&sites[nr - 1].alloc, sites[i].alloc);
			continue;
		}
		sites[nr++] = sites[i];
	}
	qsort(sites, nr, sizeof(*sites), site_bytes_cmp);
	return nr;
}

static void print_site(const struct site *site, const char *name)
{
	char req[32], alloc[32];
	double waste = 0;

	if (site->alloc > site->req)
		waste = (site->alloc - site->req) * 100.0 / site->alloc;
	if (site->req_overflow || site->alloc_overflow) {
		printf("%10llu %12s %12s %7s  %s\n", (unsigned long long)site->count,
		       fmt_bytes(req, sizeof(req), site->req, site->req_overflow),
		       fmt_bytes(alloc, sizeof(alloc), site->alloc,
				 site->alloc_overflow), "?", name);
		return;
	}
	printf("%10llu %12llu %12llu %6.1f%%  %s\n",
	       (unsigned long long)site->count, (unsigned long long)site->req,
	       (unsigned long long)site->alloc, waste, name);
}

static void report_sites(const struct kmt_ref *refs, size_t nr,
			 const struct kmt_symtab *syms, uint64_t top)
{
	struct site *sites = xcalloc(nr, sizeof(*sites));
	char name[512];
	size_t i, n;

	n = collect_sites(refs, nr, sites, false);
	printf("\ntop %llu call sites by bytes allocated:\n", (unsigned long long)top);
	printf("%10s %12s %12s %7s  %s\n", "count", "bytes_req", "bytes_alloc",
	       "waste", "call_site");
	for (i = 0; i < n && i < top; i++) {
		kmt_symtab_format(syms, sites[i].key, name, sizeof(name));
		print_site(&sites[i], name);
	}
	free(sites);
}

static void report_caches(const struct kmt_ref *refs, size_t nr,
			  const struct kmt_caches *caches, uint64_t top)
{
	struct site *sites = xcalloc(nr, sizeof(*sites));
	const char *cache;
	char name[32];
	size_t i, n;

	n = collect_sites(refs, nr, sites, true);
	printf("\ntop %llu caches by bytes allocated:\n", (unsigned long long)top);
	printf("%10s %12s %12s %7s  %s\n", "count", "bytes_req", "bytes_alloc",
	       "waste", "cache");
	for (i = 0; i < n && i < top; i++) {
		cache = kmt_caches_name(caches, sites[i].key);
		if (!cache) {
			snprintf(name, sizeof(name), "cache#%llu",
				 (unsigned long long)sites[i].key);
			cache = name;
		}
		print_site(&sites[i], cache);
	}
	free(sites);
}

int report_main(int argc, char **argv)
{
	struct kmt_caches caches;
	struct report_params p;
	struct kmt_symtab syms;
	struct backing bk;
	struct kmt_stats *st;
	struct kmt_ref *refs;
	struct kmt_trace t;
	size_t nr, errors;
	int ret = 0;

	report_parse_args(argc, argv, &p);
	if (kmt_trace_load_dir(&t, p.dir))
		return 1;
	if (kmt_symtab_setup(&syms, p.dir, p.symfile, p.vmlinux)) {
		kmt_trace_free(&t);
		return 1;
	}
	st = xcalloc(t.nr, sizeof(*st));
	errors = kmt_trace_validate(&t, st);
	refs = kmt_trace_timeline(&t, &nr);
	if (!nr && errors) {
		err_msg("%s: no valid event, %zu problems (see kmemtrace check)",
			p.dir, errors);
		ret = 1;
		goto out;
	}

	kmt_caches_load(&caches, t.dir);

	printf("kmemtrace report v%d\n", KMT_REPORT_VERSION);
	report_kinds(refs, nr, errors);
	report_cpus(&t, st);
	nr = split_backing(refs, nr, &bk);
	report_still_allocated(refs, nr, &bk);
	report_sites(refs, nr, &syms, p.top);
	report_caches(refs, nr, &caches, p.top);
	if (bytes_overflow)
		err_msg("%s: byte totals above 2^64 - 1 shown as overflow (corrupt trace?)",
			p.dir);

	kmt_caches_free(&caches);
out:
	free(refs);
	free(st);
	kmt_symtab_free(&syms);
	kmt_trace_free(&t);
	return ret;
}
