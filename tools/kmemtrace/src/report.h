/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace report - the options of report, plot and pprof
 *
 * What the command line asks of a pass (replay_run() reads the filters,
 * -j and which views need which side files) and of report's views
 * (report_views.h).
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
	uint32_t sample_period;	/* of the trace (sample.h), 0: not sampled */
	struct kmt_filter filter;
};

/**
 * report_params_free() - release what parsing the options allocated
 * @p: the parameters
 */
void report_params_free(struct report_params *p);

#endif /* __KMEMTRACE_REPORT_H */
