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
#include <zlib.h>

#include "kmemtrace.h"
#include "opts.h"
#include "protobuf.h"
#include "replay.h"
#include "report.h"
#include "utils.h"

/* The fields of profile.proto this writes. */
enum {
	PROFILE_SAMPLE_TYPE = 1,
	PROFILE_SAMPLE = 2,
	PROFILE_MAPPING = 3,
	PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5,
	PROFILE_STRING_TABLE = 6,
	PROFILE_PERIOD_TYPE = 11,
	PROFILE_PERIOD = 12,
	PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	VALUE_TYPE_TYPE = 1,
	VALUE_TYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1,
	SAMPLE_VALUE = 2,
	SAMPLE_LABEL = 3,
	LABEL_KEY = 1,
	LABEL_STR = 2,
	LABEL_NUM = 3,
	MAPPING_ID = 1,
	MAPPING_MEMORY_LIMIT = 3,
	MAPPING_FILENAME = 5,
	MAPPING_BUILD_ID = 6,
	MAPPING_HAS_FUNCTIONS = 7,
	MAPPING_HAS_FILENAMES = 8,
	MAPPING_HAS_LINE_NUMBERS = 9,
	LOCATION_ID = 1,
	LOCATION_MAPPING_ID = 2,
	LOCATION_ADDRESS = 3,
	LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1,
	LINE_LINE = 2,
	FUNCTION_ID = 1,
	FUNCTION_NAME = 2,
	FUNCTION_SYSTEM_NAME = 3,
	FUNCTION_FILENAME = 4,
};

/* The values of a sample, in the order of the sample types. */
enum {
	ALLOC_OBJECTS,
	ALLOC_SPACE,
	INUSE_OBJECTS,
	INUSE_SPACE,
	NR_VALUES,
};

static const char * const value_types[NR_VALUES][2] = {
	[ALLOC_OBJECTS]	= { "alloc_objects", "count" },
	[ALLOC_SPACE]	= { "alloc_space", "bytes" },
	[INUSE_OBJECTS]	= { "inuse_objects", "count" },
	[INUSE_SPACE]	= { "inuse_space", "bytes" },
};

/* The allocations of one call site, origin, type, cache and pid. */
struct pp_sample {
	uint32_t site;		/* the run's site index */
	uint32_t origin;	/* the run's origin: codetag and stack */
	uint32_t cache_id;	/* 0 but for type cache */
	uint32_t pid;
	uint8_t type;
	uint64_t v[NR_VALUES];
};

/**
 * struct pprof_state - what "kmemtrace pprof" adds up during the pass
 * @samples: the samples, in the order first seen
 * @nr: number of @samples
 * @size: room in @samples
 * @map: hash of a sample's key to its index (see sample_get())
 * @run: the run, once it ended
 * @overflow: a sum went above INT64_MAX, where it stays
 */
struct pprof_state {
	struct pp_sample *samples;
	size_t nr;
	size_t size;
	struct kmt_map map;
	const struct replay_run *run;
	bool overflow;
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
		"  valid.\n"
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
	return s;
}

static void sample_add(struct pprof_state *ps, struct pp_sample *s,
		       unsigned int objects, unsigned int space, uint64_t bytes)
{
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
		   ev->bytes_alloc);
}

/* An allocation live at the end, with its size after any resize. */
static void pprof_live(void *ctx, const struct live_obj *o)
{
	struct pprof_state *ps = ctx;

	sample_add(ps, obj_sample(ps, o), INUSE_OBJECTS, INUSE_SPACE, o->bytes);
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

/* ------------------------------------------------------------ profile */

/**
 * struct pp_writer - the tables of the profile being written
 * @strings: the string table, by index
 * @nr_strings: number of @strings
 * @string_map: hash of a string to its index
 * @loc_map: address of a location to its id
 * @nr_locs: number of locations
 * @func_map: name and file string indexes to a function id
 * @nr_funcs: number of functions
 * @locs: the Location messages
 * @funcs: the Function messages
 * @tmp: a nested message being built
 * @line: a Line message being built
 * @has_lines: a location has a line
 * @run: the run
 * @tags: the codetags, DIR/tags
 * @stacks: the stacks, DIR/stacks
 * @comms: the task names, DIR/comms
 */
struct pp_writer {
	char **strings;
	size_t nr_strings;
	struct kmt_map string_map;
	struct kmt_map loc_map;
	uint32_t nr_locs;
	struct kmt_map func_map;
	uint32_t nr_funcs;
	struct kmt_pb locs;
	struct kmt_pb funcs;
	struct kmt_pb tmp;
	struct kmt_pb line;
	bool has_lines;
	const struct replay_run *run;
	struct kmt_tags tags;
	struct kmt_stacks stacks;
	struct kmt_comms comms;
};

static uint64_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/* The index of @s in the string table, added if new. */
static uint64_t str_index(struct pp_writer *w, const char *s)
{
	uint64_t h = str_hash(s);
	uint32_t i;

	for (; kmt_map_find(&w->string_map, h, &i); h++)
		if (!strcmp(w->strings[i], s))
			return i;
	kmt_map_insert(&w->string_map, h, w->nr_strings, NULL);
	w->strings = xrealloc(w->strings, (w->nr_strings + 1) * sizeof(*w->strings));
	w->strings[w->nr_strings] = xstrdup(s);
	return w->nr_strings++;
}

/*
 * The function of @addr: that of @sym, a frame of DIR/stacks as the
 * kernel's %pS printed it, else that of the symbols, else the address.
 * Its name ends at the "+0x" of the offset.
 */
static void func_name(const struct replay_run *run, uint64_t addr,
		      const char *sym, char *buf, size_t len)
{
	char *end;

	if (sym)
		snprintf(buf, len, "%s", sym);
	else
		kmt_symtab_format(&run->syms, addr, buf, len);
	end = strpbrk(buf, "+ ");
	if (end && end != buf)
		*end = '\0';
}

/* The id of the function @name in @file, added if new. */
static uint64_t func_id(struct pp_writer *w, const char *name, const char *file)
{
	uint64_t n = str_index(w, name), f = str_index(w, file);
	uint64_t key = n << 32 | f;
	uint32_t id;

	if (kmt_map_find(&w->func_map, key, &id))
		return id;
	id = ++w->nr_funcs;
	kmt_map_insert(&w->func_map, key, id, NULL);
	kmt_pb_uint(&w->tmp, FUNCTION_ID, id);
	kmt_pb_uint(&w->tmp, FUNCTION_NAME, n);
	kmt_pb_uint(&w->tmp, FUNCTION_SYSTEM_NAME, n);
	kmt_pb_uint(&w->tmp, FUNCTION_FILENAME, f);
	kmt_pb_msg(&w->funcs, PROFILE_FUNCTION, &w->tmp);
	return id;
}

/*
 * The file and line of @addr: those of codetag @tag of an allocation
 * made there, else those libdw knows (-k).  Return the line, 0 for none.
 */
static uint64_t addr_line(const struct pp_writer *w, uint64_t addr,
			  uint64_t tag, char *file, size_t len)
{
	const struct kmt_tag *t = tag ? kmt_tags_find(&w->tags, tag) : NULL;
	const char *fl = t ? t->file_line : NULL;
	char buf[512], *colon;
	uint64_t line;

	file[0] = '\0';
	if (!fl && !kmt_symtab_line(&w->run->syms, addr, buf, sizeof(buf)))
		fl = buf;
	if (!fl)
		return 0;
	snprintf(file, len, "%s", fl);
	colon = strrchr(file, ':');
	if (!colon || parse_u64(colon + 1, &line))
		return 0;
	*colon = '\0';
	return line;
}

/*
 * The id of the location of frame @addr, added if new.  Its line is that
 * of the codetag @tag of an allocation there, else libdw's (-k): a call
 * site has one codetag.
 */
static uint64_t loc_id(struct pp_writer *w, uint64_t addr, uint64_t tag,
		       const char *sym)
{
	char name[512], file[512];
	uint64_t line, fid;
	uint32_t id;

	if (kmt_map_find(&w->loc_map, addr, &id))
		return id;
	func_name(w->run, addr, sym, name, sizeof(name));
	line = addr_line(w, addr, tag, file, sizeof(file));
	w->has_lines |= line != 0;
	fid = func_id(w, name, file);
	id = ++w->nr_locs;
	kmt_map_insert(&w->loc_map, addr, id, NULL);
	kmt_pb_uint(&w->line, LINE_FUNCTION_ID, fid);
	kmt_pb_uint(&w->line, LINE_LINE, line);
	kmt_pb_uint(&w->tmp, LOCATION_ID, id);
	kmt_pb_uint(&w->tmp, LOCATION_MAPPING_ID, 1);
	kmt_pb_uint(&w->tmp, LOCATION_ADDRESS, addr);
	kmt_pb_msg(&w->tmp, LOCATION_LINE, &w->line);
	kmt_pb_msg(&w->locs, PROFILE_LOCATION, &w->tmp);
	return id;
}

/*
 * The locations of sample @s into @ids, innermost first: the frames of
 * its stack from its call site out, or the call site alone.
 */
static size_t sample_locs(struct pp_writer *w, const struct pp_sample *s,
			  uint64_t **ids)
{
	const struct origin *og = replay_origin(w->run, s->origin);
	uint64_t site = replay_site_key(w->run, s->site);
	const struct kmt_stack *st = kmt_stacks_find(&w->stacks, og->stack);
	size_t i, n = 0, from = 0;

	*ids = xcalloc((st ? st->nr : 0) + 1, sizeof(**ids));
	if (st && st->nr) {
		from = kmt_stack_from(st, site);
		if (st->frames[from].addr != site)
			from = 0;
	}
	if (!st || !st->nr || st->frames[from].addr != site)
		(*ids)[n++] = loc_id(w, site, og->tag, NULL);
	for (i = from; st && i < st->nr; i++)
		(*ids)[n++] = loc_id(w, st->frames[i].addr,
				     st->frames[i].addr == site ? og->tag : 0,
				     st->frames[i].sym);
	return n;
}

static void label_str(struct pp_writer *w, struct kmt_pb *smp, const char *key,
		      const char *val)
{
	kmt_pb_uint(&w->tmp, LABEL_KEY, str_index(w, key));
	kmt_pb_uint(&w->tmp, LABEL_STR, str_index(w, val));
	kmt_pb_msg(smp, SAMPLE_LABEL, &w->tmp);
}

static void write_sample(struct pp_writer *w, struct kmt_pb *prof,
			 struct kmt_pb *smp, const struct pp_sample *s)
{
	const char *cache, *comm;
	char buf[32];
	uint64_t *ids;
	size_t n;

	n = sample_locs(w, s, &ids);
	kmt_pb_packed(smp, SAMPLE_LOCATION_ID, ids, n);
	free(ids);
	kmt_pb_packed(smp, SAMPLE_VALUE, s->v, NR_VALUES);
	label_str(w, smp, "type", kmt_type_name(s->type));
	if (s->type == KMEMTRACE_TYPE_CACHE) {
		cache = kmt_caches_name(&w->run->caches, s->cache_id);
		if (!cache) {
			snprintf(buf, sizeof(buf), "cache#%u", s->cache_id);
			cache = buf;
		}
		label_str(w, smp, "cache", cache);
	}
	comm = kmt_comms_lookup(&w->comms, s->pid);
	if (comm)
		label_str(w, smp, "comm", comm);
	kmt_pb_uint(&w->tmp, LABEL_KEY, str_index(w, "pid"));
	kmt_pb_uint(&w->tmp, LABEL_NUM, s->pid);
	kmt_pb_msg(smp, SAMPLE_LABEL, &w->tmp);
	kmt_pb_msg(prof, PROFILE_SAMPLE, smp);
}

static void value_type(struct pp_writer *w, struct kmt_pb *prof,
		       unsigned int field, const char *type, const char *unit)
{
	kmt_pb_uint(&w->tmp, VALUE_TYPE_TYPE, str_index(w, type));
	kmt_pb_uint(&w->tmp, VALUE_TYPE_UNIT, str_index(w, unit));
	kmt_pb_msg(prof, field, &w->tmp);
}

/* The one mapping: the kernel, with the build id DIR/header gives. */
static void write_mapping(struct pp_writer *w, struct kmt_pb *prof)
{
	const char *build_id = kmt_header_get(&w->run->t.header, "build_id");

	kmt_pb_uint(&w->tmp, MAPPING_ID, 1);
	kmt_pb_uint(&w->tmp, MAPPING_MEMORY_LIMIT, UINT64_MAX);
	kmt_pb_uint(&w->tmp, MAPPING_FILENAME, str_index(w, "[kernel.kallsyms]"));
	kmt_pb_uint(&w->tmp, MAPPING_BUILD_ID, build_id ? str_index(w, build_id) : 0);
	kmt_pb_uint(&w->tmp, MAPPING_HAS_FUNCTIONS, 1);
	kmt_pb_uint(&w->tmp, MAPPING_HAS_FILENAMES, w->has_lines);
	kmt_pb_uint(&w->tmp, MAPPING_HAS_LINE_NUMBERS, w->has_lines);
	kmt_pb_msg(prof, PROFILE_MAPPING, &w->tmp);
}

/* Build the profile in @prof, from what the pass added up in @ps. */
static void build_profile(struct pp_writer *w, const struct pprof_state *ps,
			  struct kmt_pb *prof)
{
	struct kmt_pb smp = { 0 };
	size_t i;

	str_index(w, "");
	for (i = 0; i < NR_VALUES; i++)
		value_type(w, prof, PROFILE_SAMPLE_TYPE, value_types[i][0],
			   value_types[i][1]);
	for (i = 0; i < ps->nr; i++)
		write_sample(w, prof, &smp, &ps->samples[i]);
	kmt_pb_free(&smp);
	write_mapping(w, prof);
	/* Locations and functions are fields of the profile already. */
	prof->p = xrealloc(prof->p, prof->len + w->locs.len + w->funcs.len + 1);
	prof->size = prof->len + w->locs.len + w->funcs.len + 1;
	if (w->locs.len)
		memcpy(prof->p + prof->len, w->locs.p, w->locs.len);
	prof->len += w->locs.len;
	if (w->funcs.len)
		memcpy(prof->p + prof->len, w->funcs.p, w->funcs.len);
	prof->len += w->funcs.len;
	value_type(w, prof, PROFILE_PERIOD_TYPE, "space", "bytes");
	kmt_pb_uint(prof, PROFILE_PERIOD, 1);
	kmt_pb_uint(prof, PROFILE_DEFAULT_SAMPLE_TYPE, str_index(w, "inuse_space"));
	for (i = 0; i < w->nr_strings; i++)
		kmt_pb_bytes(prof, PROFILE_STRING_TABLE, w->strings[i],
			     strlen(w->strings[i]));
}

static void pp_writer_free(struct pp_writer *w)
{
	size_t i;

	for (i = 0; i < w->nr_strings; i++)
		free(w->strings[i]);
	free(w->strings);
	kmt_map_free(&w->string_map);
	kmt_map_free(&w->loc_map);
	kmt_map_free(&w->func_map);
	kmt_pb_free(&w->locs);
	kmt_pb_free(&w->funcs);
	kmt_pb_free(&w->tmp);
	kmt_pb_free(&w->line);
	kmt_tags_free(&w->tags);
	kmt_stacks_free(&w->stacks);
	kmt_comms_free(&w->comms);
}

/* Write @b gzipped (RFC 1952, no name, time 0) to @f. */
static int write_gzip(FILE *f, const struct kmt_pb *b)
{
	unsigned char out[64 * 1024];
	z_stream zs;
	size_t n;
	int ret;

	if (b->len > UINT32_MAX)
		return -EFBIG;
	memset(&zs, 0, sizeof(zs));
	if (deflateInit2(&zs, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	zs.next_in = b->p;
	zs.avail_in = b->len;
	do {
		zs.next_out = out;
		zs.avail_out = sizeof(out);
		ret = deflate(&zs, Z_FINISH);
		n = sizeof(out) - zs.avail_out;
		if (n && fwrite(out, 1, n, f) != n) {
			ret = Z_ERRNO;
			break;
		}
	} while (ret == Z_OK);
	deflateEnd(&zs);
	return ret == Z_STREAM_END ? 0 : -EIO;
}

static int pprof_write(const struct pprof_state *ps, const char *output)
{
	const char *dir = ps->run->t.dir;
	struct pp_writer w = { .run = ps->run };
	struct kmt_pb prof = { 0 };
	FILE *f = stdout;
	int ret;

	kmt_tags_load(&w.tags, dir);
	kmt_stacks_load(&w.stacks, dir);
	kmt_comms_load(&w.comms, dir, true);
	build_profile(&w, ps, &prof);
	pp_writer_free(&w);
	if (output && strcmp(output, "-")) {
		f = fopen(output, "wb");
		if (!f) {
			kmt_err("pprof: %s: %s", output, strerror(errno));
			kmt_pb_free(&prof);
			return 1;
		}
	}
	ret = write_gzip(f, &prof);
	kmt_pb_free(&prof);
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
	if ((!output || !strcmp(output, "-")) && isatty(STDOUT_FILENO)) {
		kmt_err("pprof: stdout is a terminal, not writing a binary profile there; use -o FILE");
		report_params_free(&p);
		return KMT_EXIT_USAGE;
	}
	if (replay_run(&run, &p, &use, 1)) {
		report_params_free(&p);
		return 1;
	}
	ret = replay_no_valid_event(&run) ? 1 : pprof_write(&ps, output);
	if (ps.overflow)
		kmt_err("%s: byte totals above 2^63 - 1 shown as 2^63 - 1 (corrupt trace?)",
			p.dir);
	pprof_state_free(&ps);
	replay_run_free(&run);
	report_params_free(&p);
	return ret;
}
