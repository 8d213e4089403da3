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

/* Allocations of one call site. */
struct site {
	uint64_t addr;
	uint64_t count;
	uint64_t req;
	uint64_t alloc;
};

static void report_usage(int status)
{
	FILE *out = status ? stderr : stdout;

	fprintf(out,
		"  usage: kmemtrace report [-k VMLINUX] [-s SYMFILE] [-n TOP] DIR\n"
		"\n"
		"  Summarize the trace \"kmemtrace record\" wrote to DIR.\n"
		"\n"
		"     -k/--vmlinux VMLINUX  symbolize call sites with this vmlinux (libdw),\n"
		"                           with file:line when it has debug info\n"
		"     -s/--symbols SYMFILE  use this kallsyms or System.map file instead\n"
		"                           of DIR/kallsyms\n"
		"     -n/--top TOP          show the TOP call sites (default 10)\n"
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
	uint64_t count[KMEMTRACE_KIND_FREE + 1][KMEMTRACE_TYPE_VMALLOC + 1];
	unsigned int type;
	size_t i;

	memset(count, 0, sizeof(count));
	for (i = 0; i < nr; i++)
		count[refs[i].ev->kind][refs[i].ev->type]++;
	for (type = KMEMTRACE_TYPE_KMALLOC; type <= KMEMTRACE_TYPE_VMALLOC; type++) {
		count[KMEMTRACE_KIND_ALLOC][0] += count[KMEMTRACE_KIND_ALLOC][type];
		count[KMEMTRACE_KIND_FREE][0] += count[KMEMTRACE_KIND_FREE][type];
	}
	printf("events: %zu (alloc %llu, free %llu)\n", nr,
	       (unsigned long long)count[KMEMTRACE_KIND_ALLOC][0],
	       (unsigned long long)count[KMEMTRACE_KIND_FREE][0]);
	if (errors)
		printf("invalid: %zu problems, events skipped (see kmemtrace check)\n",
		       errors);
	printf("\n%-8s %12s %12s\n", "type", "alloc", "free");
	for (type = KMEMTRACE_TYPE_KMALLOC; type <= KMEMTRACE_TYPE_VMALLOC; type++)
		printf("%-8s %12llu %12llu\n", kmt_type_name(type),
		       (unsigned long long)count[KMEMTRACE_KIND_ALLOC][type],
		       (unsigned long long)count[KMEMTRACE_KIND_FREE][type]);
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

static int live_cmp(const void *a, const void *b)
{
	const struct kmt_ref *x = a, *y = b;

	if (x->ev->type != y->ev->type)
		return x->ev->type < y->ev->type ? -1 : 1;
	if (x->ev->ptr != y->ev->ptr)
		return x->ev->ptr < y->ev->ptr ? -1 : 1;
	/* @index holds the position in the timeline here. */
	return x->index < y->index ? -1 : x->index > y->index;
}

static bool same_memory(const struct kmemtrace_event *a,
			const struct kmemtrace_event *b)
{
	return a->type == b->type && a->ptr == b->ptr;
}

/*
 * An allocation is still allocated at the end when it is the last event of
 * its type and pointer: no free of the same memory follows it.
 */
static void report_still_allocated(const struct kmt_ref *refs, size_t nr)
{
	struct kmt_ref *byptr = xcalloc(nr, sizeof(*byptr));
	uint64_t count = 0, bytes = 0;
	size_t i;

	for (i = 0; i < nr; i++) {
		byptr[i] = refs[i];
		byptr[i].index = i;
	}
	qsort(byptr, nr, sizeof(*byptr), live_cmp);
	for (i = 0; i < nr; i++) {
		if (i + 1 < nr && same_memory(byptr[i].ev, byptr[i + 1].ev))
			continue;
		if (byptr[i].ev->kind != KMEMTRACE_KIND_ALLOC)
			continue;
		count++;
		bytes += byptr[i].ev->bytes_alloc;
	}
	free(byptr);
	printf("\nstill allocated at end: %llu allocations, %llu bytes\n",
	       (unsigned long long)count, (unsigned long long)bytes);
}

static int site_addr_cmp(const void *a, const void *b)
{
	const struct site *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int site_bytes_cmp(const void *a, const void *b)
{
	const struct site *x = a, *y = b;

	if (x->alloc != y->alloc)
		return x->alloc > y->alloc ? -1 : 1;
	return site_addr_cmp(a, b);
}

/* Merge the allocations by call site; return the number of sites. */
static size_t collect_sites(const struct kmt_ref *refs, size_t nr,
			    struct site *sites)
{
	size_t i, n = 0;

	for (i = 0; i < nr; i++) {
		if (refs[i].ev->kind != KMEMTRACE_KIND_ALLOC)
			continue;
		sites[n].addr = refs[i].ev->call_site;
		sites[n].count = 1;
		sites[n].req = refs[i].ev->bytes_req;
		sites[n].alloc = refs[i].ev->bytes_alloc;
		n++;
	}
	qsort(sites, n, sizeof(*sites), site_addr_cmp);
	for (nr = 0, i = 0; i < n; i++) {
		if (nr && sites[nr - 1].addr == sites[i].addr) {
			sites[nr - 1].count++;
			sites[nr - 1].req += sites[i].req;
			sites[nr - 1].alloc += sites[i].alloc;
			continue;
		}
		sites[nr++] = sites[i];
	}
	qsort(sites, nr, sizeof(*sites), site_bytes_cmp);
	return nr;
}

static void report_sites(const struct kmt_ref *refs, size_t nr,
			 const struct kmt_symtab *syms, uint64_t top)
{
	struct site *sites = xcalloc(nr, sizeof(*sites));
	char name[512];
	double waste;
	size_t i, n;

	n = collect_sites(refs, nr, sites);
	printf("\ntop %llu call sites by bytes allocated:\n", (unsigned long long)top);
	printf("%10s %12s %12s %7s  %s\n", "count", "bytes_req", "bytes_alloc",
	       "waste", "call_site");
	for (i = 0; i < n && i < top; i++) {
		waste = 0;
		if (sites[i].alloc > sites[i].req)
			waste = (sites[i].alloc - sites[i].req) * 100.0 / sites[i].alloc;
		kmt_symtab_format(syms, sites[i].addr, name, sizeof(name));
		printf("%10llu %12llu %12llu %6.1f%%  %s\n",
		       (unsigned long long)sites[i].count,
		       (unsigned long long)sites[i].req,
		       (unsigned long long)sites[i].alloc, waste, name);
	}
	free(sites);
}

int report_main(int argc, char **argv)
{
	struct report_params p;
	struct kmt_symtab syms;
	struct kmt_stats *st;
	struct kmt_ref *refs;
	struct kmt_trace t;
	size_t nr, errors;

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

	printf("kmemtrace report v%d\n", KMT_REPORT_VERSION);
	report_kinds(refs, nr, errors);
	report_cpus(&t, st);
	report_still_allocated(refs, nr);
	report_sites(refs, nr, &syms, p.top);

	free(refs);
	free(st);
	kmt_symtab_free(&syms);
	kmt_trace_free(&t);
	return 0;
}
