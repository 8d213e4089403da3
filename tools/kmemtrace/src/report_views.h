/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace report views - what report prints of its pass
 *
 * Each view reads what its consumer (sitesums.h, lifetimes.h, ...)
 * added up, and the run's counts, and prints it through table.h.
 */
#ifndef __KMEMTRACE_REPORT_VIEWS_H
#define __KMEMTRACE_REPORT_VIEWS_H

#include <stdbool.h>
#include <stddef.h>

#include "report.h"
#include "table.h"
#include "trace.h"

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
 * report_sampled_views() - the views that scale a sampled trace
 *
 * Return: a bit per enum report_view that scales a trace of
 * report_params.sample_period N by the weight of each allocation; the
 * others say "not available for sampled traces".
 */
static inline unsigned int report_sampled_views(void)
{
	return 1u << VIEW_SUMMARY | 1u << VIEW_SITES | 1u << VIEW_CACHES |
	       1u << VIEW_LIVE | 1u << VIEW_LIFETIMES | 1u << VIEW_PAGES |
	       1u << VIEW_GFP | 1u << VIEW_NODES |
	       1u << VIEW_ALLOCINFO | 1u << VIEW_STACKS;
}

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

#endif /* __KMEMTRACE_REPORT_VIEWS_H */
