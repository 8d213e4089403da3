/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace profile - write a pprof heap profile
 *
 * A gzipped profile.proto (github.com/google/pprof, proto/profile.proto),
 * as Go's heap profiles are, from samples that name their call site,
 * codetag and stack by address and handle: "kmemtrace pprof" (pprof.c)
 * writes one from a recorded trace, "kmemtrace record --pprof-every"
 * (periodic.c) one per interval while it records.  It knows nothing of
 * the pass: the symbols and side files are given.
 */
#ifndef __KMEMTRACE_PROFILE_H
#define __KMEMTRACE_PROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "comms.h"
#include "stacks.h"
#include "symbols.h"
#include "tags.h"
#include "trace.h"

/* The values of a sample, in the order of the sample types. */
enum {
	PROFILE_ALLOC_OBJECTS,
	PROFILE_ALLOC_SPACE,
	PROFILE_INUSE_OBJECTS,
	PROFILE_INUSE_SPACE,
	PROFILE_NR_VALUES,
};

/**
 * struct kmt_profile_sample - the allocations of one call site, codetag,
 *			       stack, type, cache and pid
 * @call_site: the call site address
 * @tag: the codetag of the allocations, 0 for none
 * @stack: their stack_id, 0 for none
 * @cache_id: the cache, for type cache; 0 otherwise
 * @pid: the pid
 * @type: the enum kmemtrace_type
 * @v: the values, PROFILE_ALLOC_OBJECTS...: at most INT64_MAX
 */
struct kmt_profile_sample {
	uint64_t call_site;
	uint64_t tag;
	uint32_t stack;
	uint32_t cache_id;
	uint32_t pid;
	uint8_t type;
	uint64_t v[PROFILE_NR_VALUES];
};

/**
 * struct kmt_profile - what a profile is written from
 * @samples: the samples, in the order they are written
 * @nr: their number
 * @period: the sample_period of the events (sample.h): 0 for every
 *	    allocation (period 1 in the profile), else the mean bytes
 *	    between samples, written as the profile's period, with a
 *	    comment "sampled, mean N bytes"; the values are then estimates,
 *	    scaled already
 * @time_ns: the profile's time_nanos (wall time of its end), 0 for none
 * @duration_ns: its duration_nanos, 0 for none
 * @syms: the symbols of the call sites
 * @caches: the names of the caches, or NULL
 * @build_id: the build id of the kernel, or NULL
 * @tags: the codetags, for file:line of a call site, or NULL
 * @stacks: the stacks, or NULL
 * @comms: the task names, for the comm label, or NULL
 */
struct kmt_profile {
	const struct kmt_profile_sample *samples;
	size_t nr;
	uint32_t period;
	uint64_t time_ns;
	uint64_t duration_ns;
	const struct kmt_symtab *syms;
	const struct kmt_caches *caches;
	const char *build_id;
	const struct kmt_tags *tags;
	const struct kmt_stacks *stacks;
	const struct kmt_comms *comms;
};

/**
 * kmt_profile_write() - write a profile, gzipped
 * @p: what it is written from
 * @f: the file to write to
 *
 * Return: 0, or -errno (the caller reports, naming the file).
 */
int kmt_profile_write(const struct kmt_profile *p, FILE *f);

#endif /* __KMEMTRACE_PROFILE_H */
