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
#include "symbols.h"
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
	BY_CACHE,
	BY_TYPE,
	BY_PID,
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
};

struct report_params {
	const char *dir;
	const char *vmlinux;
	const char *symfile;
	uint64_t top;
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
 * there), or to one cache.
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

/* A live allocation: memory allocated, and not freed yet. */
struct live_obj {
	uint64_t ptr;
	uint64_t ts;		/* when it was allocated */
	uint64_t bytes;		/* bytes allocated, after reallocs */
	uint32_t site;		/* index in report.sites */
	uint32_t cpu;
	uint32_t pid;
	uint32_t cache_id;
	uint8_t family;		/* pair_type() of the alloc */
	uint8_t type;
	uint8_t selected;	/* whether the filters selected the alloc */
	uint8_t pad;
};

/* A slot of the live table: where the live allocation of a pointer is. */
struct live_slot {
	uint64_t ptr;
	uint32_t obj;		/* index in live_table.objs */
	uint8_t family;		/* 0 for an empty slot */
};

/*
 * The live allocations by family and pointer: the slots are small, so
 * that many fit in the CPU caches, in an open-addressing table (linear
 * probing, removal by moving the following slots back, at most half
 * full); the allocations are in an array whose free entries are reused.
 * Only the slots tell which entries are live.
 */
struct live_table {
	struct live_slot *slots;
	unsigned int bits;
	size_t nr;
	struct live_obj *objs;
	size_t nr_objs;
	size_t size_objs;
	uint32_t *free_objs;
	size_t nr_free;
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

/* Allocations with one gfp_flags value, or on one node. */
struct gfp_stat {
	uint64_t key;
	uint64_t allocs;
	uint64_t bytes;
};

#define REPORT_MAX_ORDER	16
#define REPORT_MAX_MT		8

/* Everything one pass over the events adds up. */
struct report {
	const struct report_params *p;
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
	struct kmt_map pid_selected;
};

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
