/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace report - the options of report and plot, and the views
 */
#ifndef __KMEMTRACE_REPORT_H
#define __KMEMTRACE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "filter.h"
#include "opts.h"
#include "table.h"
#include "trace.h"

/* The views of "kmemtrace report", in the order they are printed. */
enum report_view {
	VIEW_SUMMARY,
	VIEW_SITES,
	VIEW_CACHES,
	VIEW_LIVE,
	VIEW_LIFETIMES,
	VIEW_FREES,
	VIEW_PAGES,
	VIEW_GFP,
	VIEW_NODES,
	VIEW_ALLOCINFO,
	VIEW_STACKS,
	NR_VIEWS,
};

/* What rows are sorted by: --sort KEY[,KEY...]. */
enum report_key {
	KEY_NONE,
	KEY_BYTES,
	KEY_REQ,
	KEY_HITS,
	KEY_WASTE,
	KEY_FREES,
	KEY_LIVE,
	KEY_PINGPONG,
	KEY_LIFETIME,
	KEY_AGE,
	KEY_MISMATCH,
	NR_KEYS,
};

#define REPORT_MAX_KEYS	4

/* How the live view groups allocations: --by. */
enum report_by {
	BY_SITE,
	BY_FUNC,
	BY_LINE,
	BY_CACHE,
	BY_TYPE,
	BY_PID,
	BY_STACK,
	NR_BY,
};

struct report_params {
	const char *dir;
	const char *vmlinux;
	const char *symfile;
	uint64_t top;
	uint64_t stacks;
	unsigned int views;
	enum report_key sort[REPORT_MAX_KEYS];
	enum report_by by;
	bool list;
	uint64_t min_age;
	enum kmt_format format;
	unsigned int jobs;	/* threads of the pass (-j), 0 for one */
	struct kmt_filter filter;
};

/**
 * report_params_free() - release what parsing the options allocated
 * @p: the parameters
 */
void report_params_free(struct report_params *p);

/* What replay_run() added up (replay.h). */
struct report;

/**
 * struct report_consumers - what the consumers of report's views added up
 * @sums: for the summary, sites, caches and frees views (sitesums.h), or
 *	  NULL
 * @lifetimes: for the lifetimes view (lifetimes.h), or NULL
 * @stacks: for the stacks view (stackstat.h), or NULL
 * @keys: for the gfp and nodes views (keysums.h), or NULL
 * @pages: for the pages view (pagesums.h), or NULL
 * @mismatches: for the frees view (mismatches.h), or NULL
 * @allocinfo: for the allocinfo view (allocinfo.h), or NULL
 */
struct report_consumers {
	struct sitesums *sums;
	struct lifetimes *lifetimes;
	struct stackstat *stacks;
	struct keysums *keys;
	struct pagesums *pages;
	struct mismatches *mismatches;
	struct allocinfo *allocinfo;
};

/**
 * report_views() - print the views of a report
 * @r: the report, its pass done
 * @c: the consumers of the views asked for
 * @t: the trace
 * @st: the statistics of its streams
 * @errors: number of problems in the streams
 * @o: the output
 */
void report_views(struct report *r, const struct report_consumers *c,
		  const struct kmt_trace *t, const struct kmt_stats *st,
		  size_t errors, struct kmt_out *o);

/**
 * report_sort_applies() - whether a view sorts by one of some keys
 * @views: bit per enum report_view
 * @keys: the keys of --sort, 0 after the last
 *
 * Return: true if one of @views has one of @keys.
 */
bool report_sort_applies(unsigned int views, const enum report_key *keys);

#endif /* __KMEMTRACE_REPORT_H */
