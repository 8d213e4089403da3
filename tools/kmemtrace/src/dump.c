// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace dump - print every recorded event as one line of text
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kmemtrace.h"
#include "symbols.h"
#include "trace.h"
#include "utils.h"

struct dump_params {
	const char *path;
	const char *vmlinux;
	const char *symfile;
};

static void dump_usage(int status)
{
	FILE *out = status ? stderr : stdout;

	fprintf(out,
		"  usage: kmemtrace dump [-k VMLINUX] [-s SYMFILE] DIR|FILE\n"
		"\n"
		"  Print the valid events of the cpuN files of DIR, or of one FILE, one\n"
		"  line per event, sorted by timestamp across CPUs:\n"
		"    cpu seq ts kind type site ptr req alloc gfp node pid order cache_id\n"
		"    [migratetype] [cache] [flags] [sym]\n"
		"  migratetype is shown for page allocations, cache (the cache name) for\n"
		"  kmem_cache events when DIR/caches names it, flags (irq, backing) when\n"
		"  any is set, sym (the symbolized call site) when symbols are known\n"
		"  (DIR/kallsyms, -s or -k); warns when they do not match the _text or\n"
		"  build id in DIR/header.  Exits 1 when no event is valid.\n"
		"\n"
		"     -k/--vmlinux VMLINUX  symbolize call sites with this vmlinux (libdw)\n"
		"     -s/--symbols SYMFILE  use this kallsyms or System.map file\n"
		"     -h/--help             print this help\n");
	exit(status);
}

static void dump_parse_args(int argc, char **argv, struct dump_params *p)
{
	static const struct option long_options[] = {
		{ "vmlinux",	required_argument,	NULL, 'k' },
		{ "symbols",	required_argument,	NULL, 's' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL,		0,			NULL, 0 },
	};
	int c;

	memset(p, 0, sizeof(*p));
	while ((c = getopt_long(argc, argv, "k:s:h", long_options, NULL)) != -1) {
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
	if (optind != argc - 1) {
		err_msg("dump: expected one DIR or FILE argument");
		dump_usage(KMT_EXIT_USAGE);
	}
	p->path = argv[optind];
}

static void dump_event(const struct kmemtrace_event *ev,
		       const struct kmt_symtab *syms,
		       const struct kmt_caches *caches)
{
	const char *cache;
	char name[512];

	printf("cpu=%u seq=%llu ts=%llu %s %s site=0x%llx ptr=0x%llx",
	       ev->cpu, (unsigned long long)ev->seq,
	       (unsigned long long)ev->timestamp, kmt_kind_name(ev->kind),
	       kmt_type_name(ev->type), (unsigned long long)ev->call_site,
	       (unsigned long long)ev->ptr);
	printf(" req=%llu alloc=%llu gfp=0x%x node=%d pid=%u order=%u cache_id=%u",
	       (unsigned long long)ev->bytes_req,
	       (unsigned long long)ev->bytes_alloc, ev->gfp_flags, ev->node,
	       ev->pid, ev->order, ev->cache_id);
	if (ev->type == KMEMTRACE_TYPE_PAGES && ev->kind == KMEMTRACE_KIND_ALLOC)
		printf(" migratetype=%u", ev->migratetype);
	cache = ev->type == KMEMTRACE_TYPE_CACHE ?
		kmt_caches_name(caches, ev->cache_id) : NULL;
	if (cache)
		printf(" cache=%s", cache);
	if (ev->flags) {
		kmt_flags_format(ev->flags, name, sizeof(name));
		printf(" flags=%s", name);
	}
	if (syms->nr || syms->dw) {
		kmt_symtab_format(syms, ev->call_site, name, sizeof(name));
		printf(" sym=%s", name);
	}
	printf("\n");
}

static int dump_load(struct kmt_trace *t, const char *path)
{
	int ret = is_dir(path);

	memset(t, 0, sizeof(*t));
	if (ret < 0) {
		err_msg("%s: %s", path, strerror(-ret));
		return ret;
	}
	if (ret)
		return kmt_trace_load_dir(t, path);
	return kmt_trace_add_file(t, path);
}

int dump_main(int argc, char **argv)
{
	struct kmt_caches caches;
	struct dump_params p;
	struct kmt_symtab syms;
	struct kmt_stats *st;
	struct kmt_ref *refs;
	struct kmt_trace t;
	size_t i, nr, errors;
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
	errors = kmt_trace_validate(&t, st);
	refs = kmt_trace_timeline(&t, &nr);
	if (!nr && errors) {
		err_msg("%s: no valid event, %zu problems (see kmemtrace check)",
			p.path, errors);
		ret = 1;
	}
	kmt_caches_load(&caches, t.dir);
	for (i = 0; i < nr; i++)
		dump_event(refs[i].ev, &syms, &caches);

	kmt_caches_free(&caches);
	free(refs);
	free(st);
	kmt_symtab_free(&syms);
	kmt_trace_free(&t);
	return ret;
}
