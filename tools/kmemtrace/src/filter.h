/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace filter - the filter options of report, plot and pprof
 *
 * Parsing only: what a command's options select, kept in a struct
 * kmt_filter the command owns.  Nothing here exits or keeps state of its
 * own; a bad argument is reported and returned, and the command prints
 * its usage.  The pass (replay.c) applies the filter to the events.
 */
#ifndef __KMEMTRACE_FILTER_H
#define __KMEMTRACE_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opts.h"

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
 * struct kmt_filter - which events the analyses count
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
 * @text: the filter options as given, for the views to print, or NULL
 */
struct kmt_filter {
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
	char *text;
};

/* The values of the filter options, after those of the commands. */
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

/* The filter options, which a command joins to its own. */
extern const struct kmt_opt kmt_filter_opts[];
extern const size_t kmt_nr_filter_opts;

/**
 * kmt_filter_arg() - parse a filter option
 * @f: the filter to add to
 * @c: the option, as getopt_long() returns it
 * @arg: its argument
 * @cmd: the name of the command, for messages
 *
 * Return: 1 if @c is not a filter option, 0 when it is parsed, or
 * -EINVAL, after a message, when @arg is bad.
 */
int kmt_filter_arg(struct kmt_filter *f, int c, const char *arg,
		   const char *cmd);

/**
 * kmt_filter_selects_allocs() - whether a filter selects allocations
 * @f: the filter
 *
 * Return: true if a filter but --time is set: allocations are selected
 * one by one, with their frees.
 */
bool kmt_filter_selects_allocs(const struct kmt_filter *f);

/**
 * kmt_u64_set_has() - whether a set of --cpu or --pid holds a number
 * @set: the set
 * @v: the number
 *
 * Return: true if @v is in @set.
 */
bool kmt_u64_set_has(const struct u64_set *set, uint64_t v);

/**
 * kmt_filter_free() - release what parsing a filter allocated
 * @f: the filter
 */
void kmt_filter_free(struct kmt_filter *f);

#endif /* __KMEMTRACE_FILTER_H */
