// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace pprof - write a recorded trace as a pprof heap profile
 *
 * A consumer of the pass (struct replay_consumer): it counts each
 * selected allocation, and each one still live at the end, by call site,
 * stack, codetag, type, cache and pid.  Then it writes a gzipped
 * profile.proto (github.com/google/pprof, proto/profile.proto), as Go's
 * heap profiles are: the sample types alloc_objects/count,
 * alloc_space/bytes, inuse_objects/count and inuse_space/bytes; one
 * location per frame, innermost first (the stack of DIR/stacks when the
 * event has one, else the call site); functions named by the symbols,
 * with file:line from the codetag (DIR/tags) or libdw (-k); one mapping,
 * [kernel.kallsyms], with the build id of DIR/header; labels type, cache,
 * comm and pid.  alloc counts what was allocated during the recording,
 * inuse what was still allocated at its end.  See
 * Documentation/kmemtrace.rst.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kmemtrace.h"
#include "opts.h"
#include "profile.h"
#include "replay.h"
#include "report.h"
#include "sample.h"
#include "utils.h"

#define ALLOC_OBJECTS	PROFILE_ALLOC_OBJECTS
#define ALLOC_SPACE	PROFILE_ALLOC_SPACE
#define INUSE_OBJECTS	PROFILE_INUSE_OBJECTS
#define INUSE_SPACE	PROFILE_INUSE_SPACE
#define NR_VALUES	PROFILE_NR_VALUES

/* The allocations of one call site, origin, type, cache and pid. */
struct pp_sample {
	uint32_t site;		/* the run's site index */
	uint32_t origin;	/* the run's origin: codetag and stack */
	uint32_t cache_id;	/* 0 but for type cache */
	uint32_t pid;
	uint8_t type;
	uint64_t v[NR_VALUES];
	double est[NR_VALUES];	/* the values, scaled, in a sampled trace */
};

/**
 * struct pprof_state - what "kmemtrace pprof" adds up during the pass
 * @samples: the samples, in the order first seen
 * @nr: number of @samples
 * @size: room in @samples
 * @map: hash of a sample's key to its index (see sample_get())
 * @run: the run, once it ended
 * @overflow: a sum went above INT64_MAX, where it stays
 * @period: the sample_period of the trace (sample.h), set before the pass:
 *	    each allocation then counts with the weight of its alloc event
 */
struct pprof_state {
	struct pp_sample *samples;
	size_t nr;
	size_t size;
	struct kmt_map map;
	const struct replay_run *run;
	bool overflow;
	uint32_t period;
};

static const struct kmt_opt pprof_opts[] = {
	{ "output", 'o', "FILE",
	  "write the profile to FILE (default stdout)" },
	{ "vmlinux", 'k', "VMLINUX",
	  "symbolize call sites with this vmlinux (libdw),\n"
	  "with file:line when it has debug info" },
	{ "symbols", 's', "SYMFILE",
	  "use this kallsyms or System.map file instead of\n"
	  "DIR/kallsyms" },
	{ "help", 'h', NULL, "print this help" },
};

static void pprof_usage(int status)
{
	FILE *out = status ? stderr : stdout;

	fprintf(out,
		"  usage: kmemtrace pprof [OPTIONS] DIR\n"
		"\n"
		"  Write the trace \"kmemtrace record\" wrote to DIR as a pprof heap\n"
		"  profile (gzipped profile.proto, as Go's heap profiles): sample\n"
		"  types alloc_objects, alloc_space (allocated during the recording),\n"
		"  inuse_objects and inuse_space (still allocated at its end); a\n"
		"  location per frame of the stack (DIR/stacks) or the call site;\n"
		"  file:line from DIR/tags or -k; the mapping [kernel.kallsyms] with\n"
		"  the build id of DIR/header; labels type, cache, comm and pid.\n"
		"  Read it with \"go tool pprof\" and the tools that take pprof\n"
		"  profiles.  Allocations are those report counts, with the same\n"
		"  filters; backing store is left out.  Exits 1 when no event is\n"
		"  valid.  A sampled trace (sample_period N) is scaled as report\n"
		"  scales it, the profile's period N bytes, with a comment \"sampled,\n"
		"  mean N bytes\"; streams of different periods are an error.\n"
		"\n");
	kmt_opts_usage(out, pprof_opts, ARRAY_SIZE(pprof_opts));
	fprintf(out, "\n");
	kmt_opts_usage(out, kmt_filter_opts, kmt_nr_filter_opts);
	exit(status);
}

static const char *pprof_parse_args(int argc, char **argv,
				    struct report_params *p)
{
	const char *output = NULL;
	struct kmt_getopt g;
	int c, ret;

	memset(p, 0, sizeof(*p));
	kmt_getopt_init(&g, pprof_opts, ARRAY_SIZE(pprof_opts), kmt_filter_opts,
			kmt_nr_filter_opts);
	while ((c = getopt_long(argc, argv, g.so, g.lo, NULL)) != -1) {
		ret = kmt_filter_arg(&p->filter, c, optarg, "pprof");
		if (ret < 0)
			pprof_usage(KMT_EXIT_USAGE);
		if (!ret)
			continue;
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'k':
			p->vmlinux = optarg;
			break;
		case 's':
			p->symfile = optarg;
			break;
		case 'h':
			pprof_usage(0);
			break;
		default:
			pprof_usage(KMT_EXIT_USAGE);
		}
	}
	kmt_getopt_free(&g);
	if (optind != argc - 1) {
		kmt_err("pprof: expected one DIR argument");
		pprof_usage(KMT_EXIT_USAGE);
	}
	p->dir = argv[optind];
	return output;
}

/* ----------------------------------------------------------- the pass */

static bool sample_is(const struct pp_sample *s, const struct pp_sample *k)
{
	return s->site == k->site && s->origin == k->origin &&
	       s->cache_id == k->cache_id && s->pid == k->pid &&
	       s->type == k->type;
}

static uint64_t sample_hash(const struct pp_sample *k)
{
	uint64_t h = ((uint64_t)k->site << 32 | k->origin) * 0xc2b2ae3d27d4eb4fULL;

	h ^= ((uint64_t)k->cache_id << 32 | k->pid) * 0x165667b19e3779f9ULL;
	return h ^ k->type;
}

/*
 * The sample of key @k, added if new.  Keys whose hashes collide take the
 * next free hash value.
 */
static struct pp_sample *sample_get(struct pprof_state *ps,
				    const struct pp_sample *k)
{
	uint64_t h = sample_hash(k);
	struct pp_sample *s;
	uint32_t i;

	for (; kmt_map_find(&ps->map, h, &i); h++)
		if (sample_is(&ps->samples[i], k))
			return &ps->samples[i];
	ps->samples = kmt_grow(ps->samples, ps->nr, &ps->size, sizeof(*ps->samples), 256);
	kmt_map_insert(&ps->map, h, ps->nr, NULL);
	s = &ps->samples[ps->nr++];
	*s = *k;
	memset(s->v, 0, sizeof(s->v));
	memset(s->est, 0, sizeof(s->est));
	return s;
}

static void sample_add(struct pprof_state *ps, struct pp_sample *s,
		       unsigned int objects, unsigned int space, uint64_t bytes,
		       double w)
{
	if (ps->period) {
		s->est[objects] += w;
		s->est[space] += w * bytes;
		return;
	}
	s->v[objects]++;
	if (add_u64_sat(&s->v[space], bytes) || s->v[space] > INT64_MAX) {
		s->v[space] = INT64_MAX;
		ps->overflow = true;
	}
}

static struct pp_sample *obj_sample(struct pprof_state *ps, const struct live_obj *o)
{
	struct pp_sample k = {
		.site = o->site, .origin = o->origin,
		.cache_id = o->type == KMEMTRACE_TYPE_CACHE ? o->cache_id : 0,
		.pid = o->pid, .type = o->type,
	};

	return sample_get(ps, &k);
}

static void pprof_alloc(void *ctx, const struct kmemtrace_event *ev,
			const struct live_obj *o)
{
	struct pprof_state *ps = ctx;

	sample_add(ps, obj_sample(ps, o), ALLOC_OBJECTS, ALLOC_SPACE,
		   ev->bytes_alloc,
		   kmt_sample_weight(ev->bytes_alloc, ev->sample_period));
}

/* An allocation live at the end, with its size after any resize. */
static void pprof_live(void *ctx, const struct live_obj *o)
{
	struct pprof_state *ps = ctx;

	sample_add(ps, obj_sample(ps, o), INUSE_OBJECTS, INUSE_SPACE, o->bytes,
		   kmt_sample_weight(o->bytes0, ps->period));
}

static void pprof_end(void *ctx, const struct replay_run *run, uint64_t last_ts)
{
	struct pprof_state *ps = ctx;

	(void)last_ts;
	ps->run = run;
}

static const struct replay_consumer pprof_consumer = {
	.name	= "pprof",
	.needs	= REPLAY_ALLOC | REPLAY_END,
	.alloc	= pprof_alloc,
	.live	= pprof_live,
	.end	= pprof_end,
};

static void pprof_state_free(struct pprof_state *ps)
{
	free(ps->samples);
	kmt_map_free(&ps->map);
}

/* A value of the profile: at most INT64_MAX, saturating there. */
static uint64_t profile_value(struct pprof_state *ps, const struct pp_sample *s,
			      unsigned int i)
{
	bool overflow = false;
	uint64_t v = s->v[i];

	if (ps->period)
		v = kmt_sample_round(s->est[i], &overflow);
	if (overflow || v > INT64_MAX) {
		ps->overflow = true;
		v = INT64_MAX;
	}
	return v;
}

/* The samples as the profile writer takes them: by address and handle. */
static struct kmt_profile_sample *profile_samples(struct pprof_state *ps)
{
	struct kmt_profile_sample *out = xcalloc(ps->nr + 1, sizeof(*out));
	const struct pp_sample *s;
	const struct origin *og;
	unsigned int j;
	size_t i;

	for (i = 0; i < ps->nr; i++) {
		s = &ps->samples[i];
		og = replay_origin(ps->run, s->origin);
		out[i].call_site = replay_site_key(ps->run, s->site);
		out[i].tag = og->tag;
		out[i].stack = og->stack;
		out[i].cache_id = s->cache_id;
		out[i].pid = s->pid;
		out[i].type = s->type;
		for (j = 0; j < NR_VALUES; j++)
			out[i].v[j] = profile_value(ps, s, j);
	}
	return out;
}

static int pprof_write(struct pprof_state *ps, const char *output)
{
	const struct replay_run *run = ps->run;
	const char *dir = run->t.dir;
	struct kmt_profile p = {
		.nr = ps->nr,
		.period = ps->period,
		.syms = &run->syms,
		.caches = &run->caches,
		.build_id = kmt_header_get(&run->t.header, "build_id"),
	};
	struct kmt_stacks stacks;
	struct kmt_comms comms;
	struct kmt_tags tags;
	FILE *f = stdout;
	int ret;

	if (output && strcmp(output, "-")) {
		f = fopen(output, "wb");
		if (!f) {
			kmt_err("pprof: %s: %s", output, strerror(errno));
			return 1;
		}
	}
	kmt_tags_load(&tags, dir);
	kmt_stacks_load(&stacks, dir);
	kmt_comms_load(&comms, dir, true);
	p.samples = profile_samples(ps);
	p.tags = &tags;
	p.stacks = &stacks;
	p.comms = &comms;
	ret = kmt_profile_write(&p, f);
	free((void *)p.samples);
	kmt_tags_free(&tags);
	kmt_stacks_free(&stacks);
	kmt_comms_free(&comms);
	if ((f == stdout ? fflush(f) : fclose(f)) || ret) {
		kmt_err("pprof: writing %s: %s", output ? output : "the output",
			strerror(ret ? -ret : errno));
		return 1;
	}
	return 0;
}

int pprof_main(int argc, char **argv)
{
	struct pprof_state ps = { 0 };
	struct replay_use use = { &pprof_consumer, &ps };
	struct report_params p;
	struct replay_run run;
	const char *output;
	int ret;

	output = pprof_parse_args(argc, argv, &p);
	if (kmt_trace_sample_period(p.dir, &p.sample_period)) {
		report_params_free(&p);
		return 1;
	}
	ps.period = p.sample_period;
	if ((!output || !strcmp(output, "-")) && isatty(STDOUT_FILENO)) {
		kmt_err("pprof: stdout is a terminal, not writing a binary profile there; use -o FILE");
		report_params_free(&p);
		return KMT_EXIT_USAGE;
	}
	if (replay_run(&run, &p, &use, 1)) {
		report_params_free(&p);
		return 1;
	}
	if (replay_no_valid_event(&run) || replay_mixed_periods(&run))
		ret = 1;
	else
		ret = pprof_write(&ps, output);
	if (ps.overflow)
		kmt_err("%s: byte totals above 2^63 - 1 shown as 2^63 - 1 (corrupt trace?)",
			p.dir);
	pprof_state_free(&ps);
	replay_run_free(&run);
	report_params_free(&p);
	return ret;
}
