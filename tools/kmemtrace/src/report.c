// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace report - summarize a recorded trace
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
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

static void report_usage(int status)
{
	FILE *out = status ? stderr : stdout;

	fprintf(out,
		"  usage: kmemtrace report [-k VMLINUX] [-s SYMFILE] [-n TOP] DIR\n"
		"\n"
		"  Summarize the trace \"kmemtrace record\" wrote to DIR.  Allocator\n"
		"  backing store (flag backing) is counted apart from the byte totals;\n"
		"  cache names come from DIR/caches.\n"
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

/*
 * Slab objects pair whatever API typed them: a kmem_cache merged into a
 * kmalloc cache, or a kmalloc() from a kmem_buckets cache, is allocated
 * with one type and freed by kfree() with the other.
 */
static unsigned int pair_type(unsigned int type)
{
	return type == KMEMTRACE_TYPE_CACHE ? KMEMTRACE_TYPE_KMALLOC : type;
}

/* A live allocation: memory allocated, and not freed yet. */
struct live_obj {
	uint64_t ptr;
	uint64_t bytes;
	uint8_t family;		/* pair_type() of the alloc, 0 for a free slot */
};

/*
 * The live allocations by family and pointer: open addressing, linear
 * probing, removal by moving the following entries back, at most half
 * full.
 */
struct live_table {
	struct live_obj *slots;
	unsigned int bits;
	size_t nr;
};

static size_t live_hash(const struct live_table *lt, unsigned int family,
			uint64_t ptr)
{
	return kmt_hash64(ptr ^ family, lt->bits);
}

static void live_free(struct live_table *lt)
{
	if (lt->bits)
		xfree_table(lt->slots, sizeof(*lt->slots) << lt->bits);
	lt->slots = NULL;
	lt->bits = 0;
	lt->nr = 0;
}

static void live_grow(struct live_table *lt)
{
	struct live_table big = { .bits = lt->bits ? lt->bits + 1 : 12 };
	size_t i, slot, mask = ((size_t)1 << big.bits) - 1;
	struct live_obj *o;

	big.slots = xalloc_table((mask + 1) * sizeof(*big.slots));
	for (i = 0; lt->bits && i < (size_t)1 << lt->bits; i++) {
		o = &lt->slots[i];
		if (!o->family)
			continue;
		slot = live_hash(&big, o->family, o->ptr);
		while (big.slots[slot].family)
			slot = (slot + 1) & mask;
		big.slots[slot] = *o;
	}
	big.nr = lt->nr;
	live_free(lt);
	*lt = big;
}

/* The entry of memory @family, @ptr: live, or a free slot to fill in. */
static struct live_obj *live_lookup(struct live_table *lt,
				    unsigned int family, uint64_t ptr)
{
	size_t slot, mask = ((size_t)1 << lt->bits) - 1;
	struct live_obj *o;

	for (slot = live_hash(lt, family, ptr);; slot = (slot + 1) & mask) {
		o = &lt->slots[slot];
		if (!o->family || (o->ptr == ptr && o->family == family))
			return o;
	}
}

static struct live_obj *live_find(struct live_table *lt, unsigned int family,
				  uint64_t ptr)
{
	struct live_obj *o;

	if (!lt->nr)
		return NULL;
	o = live_lookup(lt, family, ptr);
	return o->family ? o : NULL;
}

/* The entry of memory @family, @ptr, added if it was not live. */
static struct live_obj *live_add(struct live_table *lt, unsigned int family,
				 uint64_t ptr)
{
	struct live_obj *o;

	if (!lt->bits || lt->nr >= (size_t)1 << (lt->bits - 1))
		live_grow(lt);
	o = live_lookup(lt, family, ptr);
	if (!o->family) {
		o->family = family;
		o->ptr = ptr;
		lt->nr++;
	}
	return o;
}

static void live_remove(struct live_table *lt, struct live_obj *o)
{
	size_t mask = ((size_t)1 << lt->bits) - 1;
	size_t hole = o - lt->slots, slot = hole, home;

	/* Move back every entry that probed past the hole. */
	for (;;) {
		slot = (slot + 1) & mask;
		if (!lt->slots[slot].family)
			break;
		home = live_hash(lt, lt->slots[slot].family, lt->slots[slot].ptr);
		if (((slot - home) & mask) < ((slot - hole) & mask))
			continue;
		lt->slots[hole] = lt->slots[slot];
		hole = slot;
	}
	lt->slots[hole].family = 0;
	lt->nr--;
}

/* Allocations of one call site, or of one cache. */
struct site {
	uint64_t key;
	uint64_t count;
	uint64_t req;
	uint64_t alloc;
};

/* Sites by key, in the order they were first seen. */
struct site_table {
	struct kmt_map map;
	struct site *sites;
	size_t nr;
	size_t size;
};

static struct site *site_get(struct site_table *tab, uint64_t key)
{
	uint32_t i;
	bool added;

	i = kmt_map_insert(&tab->map, key, tab->nr, &added);
	if (!added)
		return &tab->sites[i];
	if (tab->nr == tab->size) {
		tab->size = tab->size ? 2 * tab->size : 256;
		tab->sites = xrealloc(tab->sites, tab->size * sizeof(*tab->sites));
	}
	memset(&tab->sites[i], 0, sizeof(tab->sites[i]));
	tab->sites[i].key = key;
	tab->nr++;
	return &tab->sites[i];
}

static void site_table_free(struct site_table *tab)
{
	kmt_map_free(&tab->map);
	free(tab->sites);
	memset(tab, 0, sizeof(*tab));
}

/* Everything one pass over the events adds up. */
struct report {
	uint64_t count[KMEMTRACE_KIND_REALLOC + 1][KMEMTRACE_TYPE_VMALLOC + 1];
	size_t events;
	uint64_t backing_allocs;
	uint64_t backing_bytes;
	uint64_t backing_frees;
	struct live_table live;
	struct site_table sites;
	struct site_table caches;
};

static void account_alloc(struct report *r, const struct kmemtrace_event *ev)
{
	struct live_obj *o;
	struct site *site;

	o = live_add(&r->live, pair_type(ev->type), ev->ptr);
	o->bytes = ev->bytes_alloc;
	site = site_get(&r->sites, ev->call_site);
	site->count++;
	site->req += ev->bytes_req;
	site->alloc += ev->bytes_alloc;
	if (ev->type != KMEMTRACE_TYPE_CACHE)
		return;
	site = site_get(&r->caches, ev->cache_id);
	site->count++;
	site->req += ev->bytes_req;
	site->alloc += ev->bytes_alloc;
}

/*
 * Replay one event: an alloc makes its memory (type and pointer) live
 * with its size, a realloc of live memory changes the size, a free ends
 * it.  Memory live at the end is still allocated.  Memory allocated
 * before the trace started is not counted, even when a realloc shows it.
 * Backing store events are only counted, unpaired frees skipped.
 */
static void account_event(struct report *r, const struct kmemtrace_event *ev)
{
	struct live_obj *o;

	r->count[ev->kind][ev->type]++;
	r->events++;
	if (kmt_event_is_unpaired(ev))
		return;
	if (kmt_event_is_backing(ev)) {
		if (ev->kind == KMEMTRACE_KIND_ALLOC) {
			r->backing_allocs++;
			r->backing_bytes += ev->bytes_alloc;
		} else if (ev->kind == KMEMTRACE_KIND_FREE) {
			r->backing_frees++;
		}
		return;
	}
	switch (ev->kind) {
	case KMEMTRACE_KIND_ALLOC:
		account_alloc(r, ev);
		break;
	case KMEMTRACE_KIND_REALLOC:
		o = live_find(&r->live, pair_type(ev->type), ev->ptr);
		if (o)
			o->bytes = ev->bytes_alloc;
		break;
	default:
		o = live_find(&r->live, pair_type(ev->type), ev->ptr);
		if (o)
			live_remove(&r->live, o);
		break;
	}
}

/*
 * Events come in faster than the live table answers, as memory is freed
 * in another order than it was allocated: fetch the slot of an event a
 * few events before it is replayed.
 */
#define REPORT_AHEAD	8

static void prefetch_event(const struct report *r,
			   const struct kmemtrace_event *ev)
{
	if (r->live.bits)
		__builtin_prefetch(&r->live.slots[live_hash(&r->live,
				pair_type(ev->type), ev->ptr)]);
}

/* Replay every event of @m, in order. */
static void account_events(struct report *r, struct kmt_merge *m)
{
	const struct kmemtrace_event *ev[KMT_MERGE_BATCH];
	size_t i, n;

	while ((n = kmt_merge_batch(m, ev, KMT_MERGE_BATCH))) {
		for (i = 0; i < n && i < REPORT_AHEAD; i++)
			prefetch_event(r, ev[i]);
		for (i = 0; i < n; i++) {
			if (i + REPORT_AHEAD < n)
				prefetch_event(r, ev[i + REPORT_AHEAD]);
			account_event(r, ev[i]);
		}
	}
}

static void report_free(struct report *r)
{
	live_free(&r->live);
	site_table_free(&r->sites);
	site_table_free(&r->caches);
}

static void report_kinds(struct report *r, size_t errors)
{
	unsigned int kind, type;

	for (kind = KMEMTRACE_KIND_ALLOC; kind <= KMEMTRACE_KIND_REALLOC; kind++)
		for (type = KMEMTRACE_TYPE_KMALLOC; type <= KMEMTRACE_TYPE_VMALLOC; type++)
			r->count[kind][0] += r->count[kind][type];
	printf("events: %zu (alloc %llu, free %llu, realloc %llu)\n", r->events,
	       (unsigned long long)r->count[KMEMTRACE_KIND_ALLOC][0],
	       (unsigned long long)r->count[KMEMTRACE_KIND_FREE][0],
	       (unsigned long long)r->count[KMEMTRACE_KIND_REALLOC][0]);
	if (errors)
		printf("invalid: %zu problems, events skipped (see kmemtrace check)\n",
		       errors);
	printf("\n%-8s %12s %12s %12s\n", "type", "alloc", "free", "realloc");
	for (type = KMEMTRACE_TYPE_KMALLOC; type <= KMEMTRACE_TYPE_VMALLOC; type++)
		printf("%-8s %12llu %12llu %12llu\n", kmt_type_name(type),
		       (unsigned long long)r->count[KMEMTRACE_KIND_ALLOC][type],
		       (unsigned long long)r->count[KMEMTRACE_KIND_FREE][type],
		       (unsigned long long)r->count[KMEMTRACE_KIND_REALLOC][type]);
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

static void report_still_allocated(const struct report *r)
{
	uint64_t bytes = 0;
	size_t i;

	for (i = 0; r->live.nr && i < (size_t)1 << r->live.bits; i++)
		if (r->live.slots[i].family)
			bytes += r->live.slots[i].bytes;
	printf("\nstill allocated at end: %llu allocations, %llu bytes\n",
	       (unsigned long long)r->live.nr, (unsigned long long)bytes);
	printf("backing pages: %llu allocs (%llu bytes), %llu frees\n",
	       (unsigned long long)r->backing_allocs,
	       (unsigned long long)r->backing_bytes,
	       (unsigned long long)r->backing_frees);
}

static int site_bytes_cmp(const void *a, const void *b)
{
	const struct site *x = a, *y = b;

	if (x->alloc != y->alloc)
		return x->alloc > y->alloc ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

static void print_site(const struct site *site, const char *name)
{
	double waste = 0;

	if (site->alloc > site->req)
		waste = (site->alloc - site->req) * 100.0 / site->alloc;
	printf("%10llu %12llu %12llu %6.1f%%  %s\n",
	       (unsigned long long)site->count, (unsigned long long)site->req,
	       (unsigned long long)site->alloc, waste, name);
}

/* The sites of @tab that allocated, sorted by bytes allocated. */
static struct site *sorted_sites(const struct site_table *tab, size_t *nr)
{
	struct site *sites = xcalloc(tab->nr, sizeof(*sites));
	size_t i, n = 0;

	for (i = 0; i < tab->nr; i++)
		if (tab->sites[i].count)
			sites[n++] = tab->sites[i];
	qsort(sites, n, sizeof(*sites), site_bytes_cmp);
	*nr = n;
	return sites;
}

static void report_sites(const struct report *r, const struct kmt_symtab *syms,
			 uint64_t top)
{
	char name[512];
	struct site *sites;
	size_t i, n;

	sites = sorted_sites(&r->sites, &n);
	printf("\ntop %llu call sites by bytes allocated:\n", (unsigned long long)top);
	printf("%10s %12s %12s %7s  %s\n", "count", "bytes_req", "bytes_alloc",
	       "waste", "call_site");
	for (i = 0; i < n && i < top; i++) {
		kmt_symtab_format(syms, sites[i].key, name, sizeof(name));
		print_site(&sites[i], name);
	}
	free(sites);
}

static void report_caches(const struct report *r,
			  const struct kmt_caches *caches, uint64_t top)
{
	const char *cache;
	struct site *sites;
	char name[32];
	size_t i, n;

	sites = sorted_sites(&r->caches, &n);
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
	struct kmt_stats *st;
	struct kmt_merge m;
	struct kmt_trace t;
	struct report r;
	size_t errors;

	report_parse_args(argc, argv, &p);
	if (kmt_trace_load_dir(&t, p.dir))
		return 1;
	if (kmt_symtab_setup(&syms, p.dir, p.symfile, p.vmlinux)) {
		kmt_trace_free(&t);
		return 1;
	}
	st = xcalloc(t.nr, sizeof(*st));
	memset(&r, 0, sizeof(r));
	kmt_merge_start(&m, &t, st);
	account_events(&r, &m);
	errors = kmt_merge_end(&m);

	kmt_caches_load(&caches, t.dir);

	printf("kmemtrace report v%d\n", KMT_REPORT_VERSION);
	report_kinds(&r, errors);
	report_cpus(&t, st);
	report_still_allocated(&r);
	report_sites(&r, &syms, p.top);
	report_caches(&r, &caches, p.top);

	report_free(&r);
	kmt_caches_free(&caches);
	free(st);
	kmt_symtab_free(&syms);
	kmt_trace_free(&t);
	return 0;
}
