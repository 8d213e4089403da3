/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace report - what one pass over a trace adds up, for the views
 */
#ifndef __KMEMTRACE_REPORT_H
#define __KMEMTRACE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "comms.h"
#include "hash.h"
#include "opts.h"
#include "stacks.h"
#include "symbols.h"
#include "table.h"
#include "tags.h"
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

/* A sorted list of numbers, for --cpu and --pid. */
struct u64_set {
	uint64_t *v;
	size_t nr;
};

/* A list of names, for --comm, --site and --cache. */
struct name_list {
	char **names;
	size_t nr;
};

/**
 * struct report_filter - which events the analyses count
 * @time: whether --time was given
 * @start: first timestamp of the window
 * @end: last timestamp of the window
 * @types: bit per enum kmemtrace_type selected by --type, 0 for all
 * @cpus: --cpu
 * @pids: --pid
 * @comms: --comm
 * @sites: --site
 * @caches: --cache
 * @modules: --module
 */
struct report_filter {
	bool time;
	uint64_t start;
	uint64_t end;
	unsigned int types;
	struct u64_set cpus;
	struct u64_set pids;
	struct name_list comms;
	struct name_list sites;
	struct name_list caches;
	struct name_list modules;
};

/* The values of the filter options, which report and plot share. */
enum {
	OPT_TYPE = 300,
	OPT_CPU,
	OPT_PID,
	OPT_COMM,
	OPT_TIME,
	OPT_SITE,
	OPT_CACHE,
	OPT_MODULE,
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
	struct report_filter filter;
	char *filter_text;
};

/* A growable array of numbers: the lifetimes of one site. */
struct u64_vec {
	uint64_t *v;
	size_t nr;
	size_t size;
};

/*
 * What happened at one call site (allocations made there, frees done
 * there), or to one cache.  Sums saturate at UINT64_MAX (add_u64_sat()),
 * which the views show as overflow.
 */
struct site {
	uint64_t key;		/* call site address, or cache id */
	uint64_t allocs;	/* selected allocations */
	uint64_t req;		/* their bytes requested */
	uint64_t alloc;		/* their bytes allocated */
	uint64_t frees;		/* frees of them */
	uint64_t xcpu;		/* of those, on another CPU than the alloc */
	uint64_t life;		/* sum of their lifetimes */
	uint64_t mismatched;	/* frees of them by another API */
	uint64_t unknown;	/* frees here of memory not allocated in the trace */
	uint64_t live;		/* of them, still allocated at the end */
	uint64_t live_bytes;	/* their bytes */
	uint8_t selected;	/* SITE_* */
	uint8_t unknown_types;	/* bit per type of @unknown frees */
};

#define SITE_UNKNOWN	0
#define SITE_SELECTED	1
#define SITE_SKIPPED	2

/* Sites (or caches) by key, in the order first seen. */
struct site_table {
	struct kmt_map map;
	struct site *sites;
	size_t nr;
	size_t size;
};

/*
 * A live allocation: memory allocated, and not freed yet; also a slot of
 * the live table, empty when @family is 0.
 */
struct live_obj {
	uint64_t ptr;
	uint64_t ts;		/* when it was allocated */
	uint64_t bytes;		/* bytes allocated, after reallocs */
	uint32_t site;		/* index in report.sites */
	uint32_t pid;
	uint32_t cache_id;
	uint32_t origin;	/* index in report.origins: its tag and stack */
	uint16_t cpu;
	uint8_t family;		/* pair_type() of the alloc, 0 for an empty slot */
	uint8_t type;
	uint8_t selected;	/* whether the filters selected the alloc */
	uint8_t counted;	/* whether the allocinfo view counted it */
	uint8_t pad;
};

/*
 * Where an allocation came from: its codetag and its stack.  Origin 0 is
 * neither, that of every event of a trace without them.
 */
struct origin {
	uint64_t tag;		/* the tag of the alloc, 0 for none */
	uint32_t stack;		/* its stack_id, 0 for none */
	uint32_t tag_index;	/* index of @tag in report.tag_addrs, 0 for none */
};

/*
 * The live allocations by family and pointer, in an open-addressing
 * table: linear probing from the hash of both, removal by moving the
 * following slots back, at most a quarter full.  An allocation is in its
 * slot, so that looking it up touches one place of memory, which the
 * pass fetches ahead of time.
 */
struct live_table {
	struct live_obj *slots;
	unsigned int bits;
	size_t nr;
};

/* A free by another API than the alloc, or of another cache. */
struct mismatch {
	uint32_t alloc_site;	/* index in report.sites */
	uint32_t free_site;
	uint32_t alloc_cache;
	uint32_t free_cache;
	uint8_t alloc_type;
	uint8_t free_type;
	uint64_t count;
};

/*
 * What the allocinfo view adds up for one codetag: the change of its
 * /proc/allocinfo counters over the trace.
 */
struct ai_count {
	int64_t bytes;
	int64_t calls;
	bool touched;		/* an alloc or realloc of the trace carried it */
};

/* The allocations of one call site with one stack, for the stacks view. */
struct stack_stat {
	uint32_t site;		/* index in report.sites */
	uint32_t stack;		/* the stack_id */
	uint64_t allocs;
	uint64_t bytes;
};

/* Allocations with one gfp_flags value, or on one node. */
struct gfp_stat {
	uint64_t key;
	uint64_t allocs;
	uint64_t bytes;
};

#define REPORT_MAX_ORDER	16
#define REPORT_MAX_MT		8

/* Buckets of log2 histograms: bucket B holds [2^B, 2^(B+1)), 0 also 0. */
#define LOG2_BUCKETS	64

static inline unsigned int log2_bucket(uint64_t v)
{
	return v < 2 ? 0 : 63 - __builtin_clzll(v);
}

/**
 * struct plot_state - what "kmemtrace plot" adds up during the pass
 * @live: per site, the bytes it has live now
 * @nr_live: number of sites @live has room for
 * @total: the bytes live now, of all sites
 * @t0: time stamp of the first event
 * @width: time between two snapshots
 * @snaps: the snapshots: @live at the end of each @width after @t0
 * @snap_len: the number of sites of each snapshot
 * @snap_total: @total of each snapshot
 * @snap_ts: when each snapshot was taken
 * @nr_snaps: number of snapshots
 * @started: @t0 is set
 * @sizes: per site, log2 histogram of the bytes of its allocations
 * @lives: per site, log2 histogram of the lifetimes of its allocations
 * @nr_hist: number of sites @sizes and @lives have room for
 */
struct plot_state {
	uint64_t *live;
	size_t nr_live;
	uint64_t total;
	uint64_t t0;
	uint64_t width;
	uint64_t **snaps;
	size_t *snap_len;
	uint64_t *snap_total;
	uint64_t *snap_ts;
	size_t nr_snaps;
	bool started;
	uint32_t (*sizes)[LOG2_BUCKETS];
	uint32_t (*lives)[LOG2_BUCKETS];
	size_t nr_hist;
};

/* Everything one pass over the events adds up. */
struct report {
	const struct report_params *p;
	bool filtering;		/* a filter but --time selects allocations */
	bool summary_only;	/* the summary is the only view */
	bool pages;		/* the pages view counts page events */
	bool gfp;		/* the gfp view is asked for */
	bool nodes_view;	/* the nodes view is asked for */
	bool lifetimes_view;	/* the lifetimes view is asked for */
	bool allocinfo;		/* the allocinfo view is asked for */
	bool stacks_view;	/* the stacks view is asked for */
	bool overflow;		/* a byte total saturated (add_u64_sat()) */
	uint64_t count[KMEMTRACE_KIND_REALLOC + 1][KMEMTRACE_TYPE_VMALLOC + 1];
	size_t events;
	uint64_t first_ts;
	uint64_t last_ts;
	uint64_t backing_allocs;
	uint64_t backing_bytes;
	uint64_t backing_frees;
	uint64_t unpaired;
	uint64_t selected;
	uint64_t double_allocs;
	struct live_table live;
	struct site_table sites;
	struct site_table caches;
	struct u64_vec *lifetimes;
	size_t nr_lifetimes;
	struct mismatch *mismatches;
	size_t nr_mismatches;
	size_t size_mismatches;
	struct site_table gfps;
	struct site_table nodes;
	uint64_t page_allocs[REPORT_MAX_ORDER][REPORT_MAX_MT];
	uint64_t page_frees[REPORT_MAX_ORDER];
	uint64_t page_bytes[REPORT_MAX_ORDER];
	struct kmt_symcache names;
	const struct kmt_caches *caches_file;
	const struct kmt_comms *comms;
	const struct kmt_tags *tags;
	struct kmt_map pid_selected;
	struct kmt_map module_selected;
	struct origin *origins;
	size_t nr_origins;
	size_t size_origins;
	struct kmt_map origin_map;
	uint64_t *tag_addrs;	/* the tags seen, by index; 0 first */
	size_t nr_tag_addrs;
	size_t size_tag_addrs;
	struct kmt_map tag_map;
	struct ai_count *ai;	/* per tag index, for the allocinfo view */
	size_t nr_ai;
	struct live_table backing_live;	/* live backing allocs, for allocinfo */
	uint64_t ai_free_unknown;	/* frees without an alloc */
	uint64_t ai_realloc_unknown;	/* reallocs without an alloc */
	const struct kmt_stacks *stacks;
	struct stack_stat *stack_stats;	/* per call site and stack */
	size_t nr_stack_stats;
	size_t size_stack_stats;
	struct kmt_map stack_map;
	uint64_t stack_allocs;		/* selected allocs with a stack */
	uint64_t stack_bytes;
	uint64_t nostack_allocs;	/* those without */
	uint64_t stack_lost;		/* of those, flagged stack_lost */
	struct plot_state *plot;
};

/**
 * struct report_run - a trace read and replayed, for report and plot
 * @t: the trace
 * @syms: its symbols
 * @caches: its caches file
 * @comms: its comms file
 * @tags: its tags file
 * @stacks: its stacks file
 * @st: statistics of its streams
 * @errors: problems found in its streams
 * @plot: what to add up for plot, or NULL
 * @r: what the pass added up
 */
struct report_run {
	struct kmt_trace t;
	struct kmt_symtab syms;
	struct kmt_caches caches;
	struct kmt_comms comms;
	struct kmt_tags tags;
	struct kmt_stacks stacks;
	struct kmt_stats *st;
	size_t errors;
	struct plot_state *plot;
	struct report r;
};

/* The filter options, after the other options of report and plot. */
extern const struct kmt_opt report_filter_opts[];
extern const size_t report_nr_filter_opts;

/**
 * report_filter_arg() - parse a filter option
 * @c: the option, as getopt_long() returns it
 * @arg: its argument
 * @p: the parameters to fill
 * @usage: the usage function of the command, for errors
 * @cmd: the name of the command, for errors
 *
 * Return: false if @c is not a filter option.
 */
bool report_filter_arg(int c, const char *arg, struct report_params *p,
		       void (*usage)(int status), const char *cmd);

/**
 * report_params_free() - release what parsing the options allocated
 * @p: the parameters
 */
void report_params_free(struct report_params *p);

/**
 * report_run() - read a trace and replay its events
 * @run: the run to fill
 * @p: the parameters
 * @plot: what to add up for plot, zeroed, or NULL
 *
 * Return: 0 on success, 1 on failure (reported with kmt_err()).
 */
int report_run(struct report_run *run, struct report_params *p,
	       struct plot_state *plot);

/**
 * report_no_valid_event() - say when a trace has problems and no event
 * @run: the run
 *
 * Return: true, after an error message, if no event of the trace is valid
 * but some are not: there is nothing to show.
 */
bool report_no_valid_event(const struct report_run *run);

/**
 * report_run_free() - release a run
 * @run: the run
 */
void report_run_free(struct report_run *run);

/* The plot hooks of the pass (plot.c). */
void plot_time(struct report *r, uint64_t ts);
void plot_alloc(struct report *r, const struct live_obj *o);
void plot_resize(struct report *r, const struct live_obj *o, uint64_t bytes);
void plot_free(struct report *r, const struct live_obj *o, uint64_t life);

/**
 * report_views() - print the views of a report
 * @r: the report, its pass done
 * @t: the trace
 * @st: the statistics of its streams
 * @errors: number of problems in the streams
 * @o: the output
 */
void report_views(struct report *r, const struct kmt_trace *t,
		  const struct kmt_stats *st, size_t errors, struct kmt_out *o);

/**
 * report_sort_applies() - whether a view sorts by one of some keys
 * @views: bit per enum report_view
 * @keys: the keys of --sort, 0 after the last
 *
 * Return: true if one of @views has one of @keys.
 */
bool report_sort_applies(unsigned int views, const enum report_key *keys);

/**
 * report_cache_name() - the name of a cache, or "cache#ID"
 * @r: the report
 * @id: the cache id
 * @buf: where to write "cache#ID"
 * @len: size of @buf
 *
 * Return: the name, in @buf or in the caches file.
 */
const char *report_cache_name(const struct report *r, uint64_t id, char *buf,
			      size_t len);

#endif /* __KMEMTRACE_REPORT_H */
