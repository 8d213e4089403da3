// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace report - analyse a recorded trace
 *
 * The options of report (and the filter options plot shares), and the
 * command: replay_run() (replay.c) replays the events, the views
 * (report_views.c) then sort and print what they need, symbolizing only
 * the call sites they print.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allocinfo.h"
#include "keysums.h"
#include "kmemtrace.h"
#include "lifetimes.h"
#include "mismatches.h"
#include "opts.h"
#include "pagesums.h"
#include "replay.h"
#include "report.h"
#include "report_views.h"
#include "sample.h"
#include "sitesums.h"
#include "stackstat.h"
#include "utils.h"

static const char * const view_names[NR_VIEWS] = {
	[VIEW_SUMMARY]		= "summary",
	[VIEW_SITES]		= "sites",
	[VIEW_CACHES]		= "caches",
	[VIEW_LIVE]		= "live",
	[VIEW_LIFETIMES]	= "lifetimes",
	[VIEW_FREES]		= "frees",
	[VIEW_PAGES]		= "pages",
	[VIEW_GFP]		= "gfp",
	[VIEW_NODES]		= "nodes",
	[VIEW_ALLOCINFO]	= "allocinfo",
	[VIEW_STACKS]		= "stacks",
};

static const struct {
	const char *name;
	enum report_key key;
} key_names[] = {
	{ "bytes",	KEY_BYTES },
	{ "req",	KEY_REQ },
	{ "hits",	KEY_HITS },
	{ "allocs",	KEY_HITS },
	{ "count",	KEY_HITS },
	{ "waste",	KEY_WASTE },
	{ "frees",	KEY_FREES },
	{ "live",	KEY_LIVE },
	{ "pingpong",	KEY_PINGPONG },
	{ "lifetime",	KEY_LIFETIME },
	{ "age",	KEY_AGE },
	{ "mismatch",	KEY_MISMATCH },
};

static const char * const by_names[NR_BY] = {
	[BY_SITE]	= "site",
	[BY_FUNC]	= "func",
	[BY_LINE]	= "line",
	[BY_CACHE]	= "cache",
	[BY_TYPE]	= "type",
	[BY_PID]	= "pid",
	[BY_STACK]	= "stack",
};

enum {
	OPT_SORT = 256,
	OPT_BY,
	OPT_LIST,
	OPT_MIN_AGE,
	OPT_JSON,
	OPT_CSV,
	OPT_STACKS,
};

static const struct kmt_opt report_opts[] = {
	{ "vmlinux", 'k', "VMLINUX",
	  "symbolize call sites with this vmlinux (libdw),\n"
	  "with file:line when it has debug info" },
	{ "symbols", 's', "SYMFILE",
	  "use this kallsyms or System.map file instead of\n"
	  "DIR/kallsyms" },
	{ "view", 'v', "VIEW[,...]",
	  "what to print (default summary): summary, sites,\n"
	  "caches, live, lifetimes, frees, pages, gfp,\n"
	  "nodes, allocinfo (the change of /proc/allocinfo\n"
	  "per codetag, in its format), stacks (the stacks\n"
	  "of each call site, DIR/stacks), or all" },
	{ "top", 'n', "TOP", "print TOP rows per table (default 10)" },
	{ "sort", OPT_SORT, "KEY[,...]",
	  "sort rows by these keys, largest first: bytes,\n"
	  "req, hits (allocs), waste, frees, live, pingpong,\n"
	  "lifetime, age, mismatch" },
	{ "by", OPT_BY, "GROUP",
	  "group the live view by site (default), func,\n"
	  "line (file:line of the codetag in DIR/tags, else\n"
	  "of the call site with -k), cache, type, pid or\n"
	  "stack (the stack_id)" },
	{ "stacks", OPT_STACKS, "N",
	  "stacks view: up to N stacks per call site\n"
	  "(default 5)" },
	{ "list", OPT_LIST, NULL,
	  "live view: one line per live allocation" },
	{ "min-age", OPT_MIN_AGE, "AGE",
	  "live view: only allocations at least AGE old" },
	{ "json", OPT_JSON, NULL, "print one JSON document" },
	{ "csv", OPT_CSV, NULL, "print the tables as CSV" },
	{ "jobs", 'j', "N",
	  "replay with N threads (default: the CPUs\n"
	  "available): the events, sharded by pointer into\n"
	  "N shards, are replayed by N - 1 threads and the\n"
	  "one reading the streams; the output is that of\n"
	  "-j 1" },
	{ "help", 'h', NULL, "print this help" },
};

static void report_usage(int status)
{
	FILE *out = status ? stderr : stdout;

	fprintf(out,
		"  usage: kmemtrace report [OPTIONS] DIR\n"
		"\n"
		"  Analyse the trace \"kmemtrace record\" wrote to DIR.  Allocator\n"
		"  backing store (flag backing) is counted apart from the byte totals;\n"
		"  cache names come from DIR/caches.  Filters select allocations (with\n"
		"  their frees); --time selects events.  Byte totals that overflow 64\n"
		"  bits print as \"overflow\".  Warns when the symbols (kallsyms, -s,\n"
		"  -k) do not match the _text or build id in DIR/header.  DIR/tags and\n"
		"  DIR/stacks, when recorded, name the codetags and the stacks of the\n"
		"  events; traces of event ABI 1 are read too.  Exits 1 when no event\n"
		"  is valid.\n"
		"\n"
		"  A sampled trace (kmemtrace.sample=N: events with sample_period N)\n"
		"  is scaled: each allocation of S bytes, its free and what is live of\n"
		"  it count 1 / (1 - exp(-S / N)) times, sums rounded, and the report\n"
		"  begins with \"sampled, mean N bytes\".  The frees view prints \"not\n"
		"  available for sampled traces\"; the others scale.\n"
		"  Streams of different periods (0 and N, N1 and N2), or an event of\n"
		"  another period than the trace's first, are an error, exit 1.\n"
		"\n");
	kmt_opts_usage(out, report_opts, ARRAY_SIZE(report_opts));
	fprintf(out, "\n");
	kmt_opts_usage(out, kmt_filter_opts, kmt_nr_filter_opts);
	exit(status);
}

static __printf(1, 2) void report_bad_arg(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "kmemtrace: report: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	report_usage(KMT_EXIT_USAGE);
}

static void parse_views(const char *arg, struct report_params *p)
{
	char *copy = xstrdup(arg), *items[32];
	size_t i, j, n;

	n = split_list(copy, items, ARRAY_SIZE(items));
	if (!n || n > ARRAY_SIZE(items))
		report_bad_arg("bad view list '%s'", arg);
	for (i = 0; i < n; i++) {
		if (!strcmp(items[i], "all")) {
			p->views |= (1u << NR_VIEWS) - 1;
			continue;
		}
		for (j = 0; j < NR_VIEWS; j++)
			if (!strcmp(items[i], view_names[j]))
				break;
		if (j == NR_VIEWS)
			report_bad_arg("unknown view '%s'", items[i]);
		p->views |= 1u << j;
	}
	free(copy);
}

static void parse_sort(const char *arg, struct report_params *p)
{
	char *copy = xstrdup(arg), *items[REPORT_MAX_KEYS + 1];
	size_t i, j, n;

	n = split_list(copy, items, ARRAY_SIZE(items));
	if (!n || n > REPORT_MAX_KEYS)
		report_bad_arg("--sort takes 1 to %d keys: '%s'", REPORT_MAX_KEYS,
			       arg);
	memset(p->sort, 0, sizeof(p->sort));
	for (i = 0; i < n; i++) {
		for (j = 0; j < ARRAY_SIZE(key_names); j++)
			if (!strcmp(items[i], key_names[j].name))
				break;
		if (j == ARRAY_SIZE(key_names))
			report_bad_arg("unknown sort key '%s'", items[i]);
		p->sort[i] = key_names[j].key;
	}
	free(copy);
}

static void report_parse_args(int argc, char **argv, struct report_params *p)
{
	const char *jobs = NULL;
	struct kmt_getopt g;
	int c, i, ret;

	memset(p, 0, sizeof(*p));
	p->top = 10;
	kmt_getopt_init(&g, report_opts, ARRAY_SIZE(report_opts), kmt_filter_opts,
			kmt_nr_filter_opts);
	while ((c = getopt_long(argc, argv, g.so, g.lo, NULL)) != -1) {
		ret = kmt_filter_arg(&p->filter, c, optarg, "report");
		if (ret < 0)
			report_usage(KMT_EXIT_USAGE);
		if (!ret)
			continue;
		switch (c) {
		case 'k':
			p->vmlinux = optarg;
			break;
		case 's':
			p->symfile = optarg;
			break;
		case 'v':
			parse_views(optarg, p);
			break;
		case 'n':
			if (parse_u64(optarg, &p->top)) {
				kmt_err("report: bad number for -n: '%s'", optarg);
				report_usage(KMT_EXIT_USAGE);
			}
			break;
		case OPT_SORT:
			parse_sort(optarg, p);
			break;
		case OPT_BY:
			for (i = 0; i < NR_BY; i++)
				if (!strcmp(optarg, by_names[i]))
					break;
			if (i == NR_BY)
				report_bad_arg("unknown --by group '%s'", optarg);
			p->by = i;
			break;
		case OPT_LIST:
			p->list = true;
			break;
		case OPT_MIN_AGE:
			if (parse_ns(optarg, &p->min_age))
				report_bad_arg("bad --min-age '%s'", optarg);
			break;
		case OPT_JSON:
			p->format = KMT_JSON;
			break;
		case OPT_STACKS:
			if (parse_u64(optarg, &p->stacks) || !p->stacks)
				report_bad_arg("bad number for --stacks: '%s'", optarg);
			break;
		case OPT_CSV:
			p->format = KMT_CSV;
			break;
		case 'j':
			jobs = optarg;
			break;
		case 'h':
			report_usage(0);
			break;
		default:
			report_usage(KMT_EXIT_USAGE);
		}
	}
	kmt_getopt_free(&g);
	if (optind != argc - 1) {
		kmt_err("report: expected one DIR argument");
		report_usage(KMT_EXIT_USAGE);
	}
	p->dir = argv[optind];
	if (!p->views)
		p->views = 1u << VIEW_SUMMARY;
	if ((p->list || p->min_age) && !(p->views & (1u << VIEW_LIVE)))
		report_bad_arg("--list and --min-age are for --view live");
	if (p->by && !(p->views & (1u << VIEW_LIVE)))
		report_bad_arg("--by is for --view live");
	if (p->stacks && !(p->views & (1u << VIEW_STACKS)))
		report_bad_arg("--stacks is for --view stacks");
	if (!p->stacks)
		p->stacks = 5;
	if (p->sort[0] && !report_sort_applies(p->views, p->sort))
		report_bad_arg("no view asked for sorts by these --sort keys");
	if (kmt_parse_jobs(jobs, &p->jobs))
		report_bad_arg("-j takes 1 to %d: '%s'", KMT_MAX_JOBS, jobs);
}

void report_params_free(struct report_params *p)
{
	kmt_filter_free(&p->filter);
}

/* The state of the consumers of report's views. */
struct report_sums {
	struct sitesums sums;
	struct lifetimes lifetimes;
	struct stackstat stacks;
	struct keysums keys;
	struct pagesums pages;
	struct mismatches mismatches;
	struct allocinfo allocinfo;
};

/*
 * The consumers the views asked for need: each registered with the pass
 * (in @uses) only when its view is printed.  The pages view counts page
 * events only, and none when --type leaves pages out.
 */
static size_t report_uses(const struct report_params *p, struct report_consumers *c,
			  struct report_sums *s, struct replay_use *uses)
{
	unsigned int types = p->filter.types, views = p->views;
	size_t n = 0;

	memset(c, 0, sizeof(*c));
	memset(s, 0, sizeof(*s));
	/* A sampled trace only has the views that scale it. */
	if (p->sample_period)
		views &= report_sampled_views();
	s->sums.period = p->sample_period;
	/* In a sampled trace, the summary weighs what is live: sitesums does. */
	if ((views & (1u << VIEW_SITES | 1u << VIEW_CACHES | 1u << VIEW_FREES)) ||
	    (p->sample_period && (views & (1u << VIEW_SUMMARY)))) {
		c->sums = &s->sums;
		uses[n++] = (struct replay_use){ &sitesums_frees_consumer, &s->sums };
	} else if (views & (1u << VIEW_SUMMARY)) {
		/* The summary looks at the allocations only. */
		c->sums = &s->sums;
		uses[n++] = (struct replay_use){ &sitesums_consumer, &s->sums };
	}
	s->keys.period = p->sample_period;
	s->stacks.period = p->sample_period;
	s->lifetimes.period = p->sample_period;
	s->pages.period = p->sample_period;
	s->keys.by_gfp = views & (1u << VIEW_GFP);
	s->keys.by_node = views & (1u << VIEW_NODES);
	if (s->keys.by_gfp || s->keys.by_node) {
		c->keys = &s->keys;
		uses[n++] = (struct replay_use){ &keysums_consumer, &s->keys };
	}
	if (views & (1u << VIEW_LIFETIMES)) {
		c->lifetimes = &s->lifetimes;
		uses[n++] = (struct replay_use){ &lifetimes_consumer, &s->lifetimes };
	}
	if (views & (1u << VIEW_STACKS)) {
		c->stacks = &s->stacks;
		uses[n++] = (struct replay_use){ &stackstat_consumer, &s->stacks };
	}
	if (views & (1u << VIEW_FREES)) {
		c->mismatches = &s->mismatches;
		uses[n++] = (struct replay_use){ &mismatches_consumer, &s->mismatches };
	}
	if (views & (1u << VIEW_ALLOCINFO)) {
		c->allocinfo = &s->allocinfo;
		s->allocinfo.filtering = kmt_filter_selects_allocs(&p->filter);
		s->allocinfo.period = p->sample_period;
		uses[n++] = (struct replay_use){ &allocinfo_consumer, &s->allocinfo };
	}
	if (views & (1u << VIEW_PAGES)) {
		c->pages = &s->pages;
		if (!types || (types & (1u << KMEMTRACE_TYPE_PAGES)))
			uses[n++] = (struct replay_use){ &pagesums_consumer, &s->pages };
	}
	return n;
}

int report_main(int argc, char **argv)
{
	struct replay_use uses[REPLAY_MAX_CONSUMERS];
	struct report_consumers c;
	struct report_params p;
	struct report_sums s;
	struct replay_run run;
	struct kmt_out out;
	size_t nr_uses;
	int ret = 0;

	report_parse_args(argc, argv, &p);
	if (kmt_trace_sample_period(p.dir, &p.sample_period)) {
		report_params_free(&p);
		return 1;
	}
	nr_uses = report_uses(&p, &c, &s, uses);
	if (replay_run(&run, &p, uses, nr_uses)) {
		report_params_free(&p);
		return 1;
	}
	if (replay_no_valid_event(&run) || replay_mixed_periods(&run)) {
		ret = 1;
	} else {
		kmt_out_begin(&out, stdout, p.format);
		report_views(&run.r, &c, &run.t, run.st, run.errors, &out);
		kmt_out_end(&out);
		if (run.r.overflow || s.sums.overflow || s.stacks.overflow ||
		    s.keys.overflow || s.pages.overflow)
			kmt_err("%s: byte totals above 2^64 - 1 shown as overflow (corrupt trace?)",
				p.dir);
	}
	sitesums_free(&s.sums);
	lifetimes_free(&s.lifetimes);
	stackstat_free(&s.stacks);
	keysums_free(&s.keys);
	mismatches_free(&s.mismatches);
	allocinfo_free(&s.allocinfo);
	replay_run_free(&run);
	report_params_free(&p);
	return ret;
}
