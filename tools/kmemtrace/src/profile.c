// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace profile - write a pprof heap profile; see profile.h
 *
 * The sample types are those of Go's heap profiles, alloc_objects/count,
 * alloc_space/bytes, inuse_objects/count and inuse_space/bytes; one
 * location per frame, innermost first (the stack when the sample has one
 * listed, else the call site), and per codetag at a call site; functions
 * named by the stack's frames or the symbols, with file:line from the
 * codetag or libdw (-k); one
 * mapping, [kernel.kallsyms], with the kernel's build id; labels type,
 * cache, comm and pid.  See Documentation/kmemtrace.rst.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "profile.h"
#include "protobuf.h"
#include "sample.h"
#include "utils.h"

/* The fields of profile.proto this writes. */
enum {
	PROFILE_SAMPLE_TYPE = 1,
	PROFILE_SAMPLE = 2,
	PROFILE_MAPPING = 3,
	PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5,
	PROFILE_STRING_TABLE = 6,
	PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS = 10,
	PROFILE_PERIOD_TYPE = 11,
	PROFILE_PERIOD = 12,
	PROFILE_COMMENT = 13,
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

static const char * const value_types[PROFILE_NR_VALUES][2] = {
	[PROFILE_ALLOC_OBJECTS]	= { "alloc_objects", "count" },
	[PROFILE_ALLOC_SPACE]	= { "alloc_space", "bytes" },
	[PROFILE_INUSE_OBJECTS]	= { "inuse_objects", "count" },
	[PROFILE_INUSE_SPACE]	= { "inuse_space", "bytes" },
};

/* What tells the locations at one address apart: their codetag. */
struct pp_loc_key {
	uint64_t tag;
	uint32_t next;
};

/**
 * struct pp_writer - the tables of the profile being written
 * @strings: the string table, by index
 * @nr_strings: number of @strings
 * @string_map: hash of a string to its index
 * @loc_map: address of a location to the id of the first at that address
 * @loc_keys: by id - 1, the codetag of each location and the next id at
 *	      its address, 0 for none
 * @nr_locs: number of locations
 * @func_map: name and file string indexes to a function id
 * @nr_funcs: number of functions
 * @locs: the Location messages
 * @funcs: the Function messages
 * @tmp: a nested message being built
 * @line: a Line message being built
 * @has_lines: a location has a line
 * @p: what the profile is written from
 */
struct pp_writer {
	char **strings;
	size_t nr_strings;
	struct kmt_map string_map;
	struct kmt_map loc_map;
	struct pp_loc_key *loc_keys;
	uint32_t nr_locs;
	struct kmt_map func_map;
	uint32_t nr_funcs;
	struct kmt_pb locs;
	struct kmt_pb funcs;
	struct kmt_pb tmp;
	struct kmt_pb line;
	bool has_lines;
	const struct kmt_profile *p;
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
static void func_name(const struct kmt_symtab *syms, uint64_t addr,
		      const char *sym, char *buf, size_t len)
{
	char *end;

	if (sym)
		snprintf(buf, len, "%s", sym);
	else
		kmt_symtab_format(syms, addr, buf, len);
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

/* Codetag @tag if DIR/tags has its line, else NULL. */
static const struct kmt_tag *line_tag(const struct pp_writer *w, uint64_t tag)
{
	return tag && w->p->tags ? kmt_tags_find(w->p->tags, tag) : NULL;
}

/*
 * The file and line of @addr: those of codetag @t of an allocation made
 * there, else those libdw knows (-k).  Return the line, 0 for none.
 */
static uint64_t addr_line(const struct pp_writer *w, uint64_t addr,
			  const struct kmt_tag *t, char *file, size_t len)
{
	const char *fl = t ? t->file_line : NULL;
	char buf[512], *colon;
	uint64_t line;

	file[0] = '\0';
	if (!fl && !kmt_symtab_line(w->p->syms, addr, buf, sizeof(buf)))
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
 * of the codetag @tag of an allocation there, else libdw's (-k).  A call
 * site has as many codetags as the callers of a helper such as
 * kvmalloc() that tags its callers' lines: one location for each tag
 * DIR/tags names (pprof lets locations share an address), one for the
 * rest.
 */
static uint64_t loc_id(struct pp_writer *w, uint64_t addr, uint64_t tag,
		       const char *sym)
{
	const struct kmt_tag *t = line_tag(w, tag);
	char name[512], file[512];
	uint64_t line, fid;
	uint32_t id, first = 0;

	if (!t)
		tag = 0;
	if (kmt_map_find(&w->loc_map, addr, &first))
		for (id = first; id; id = w->loc_keys[id - 1].next)
			if (w->loc_keys[id - 1].tag == tag)
				return id;
	func_name(w->p->syms, addr, sym, name, sizeof(name));
	line = addr_line(w, addr, t, file, sizeof(file));
	w->has_lines |= line != 0;
	fid = func_id(w, name, file);
	id = ++w->nr_locs;
	w->loc_keys = xrealloc(w->loc_keys, id * sizeof(*w->loc_keys));
	w->loc_keys[id - 1].tag = tag;
	/* The first at @addr stays in the map, the others follow it. */
	if (first) {
		w->loc_keys[id - 1].next = w->loc_keys[first - 1].next;
		w->loc_keys[first - 1].next = id;
	} else {
		w->loc_keys[id - 1].next = 0;
		kmt_map_insert(&w->loc_map, addr, id, NULL);
	}
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
static size_t sample_locs(struct pp_writer *w, const struct kmt_profile_sample *s,
			  uint64_t **ids)
{
	const struct kmt_stack *st = w->p->stacks ?
				     kmt_stacks_find(w->p->stacks, s->stack) : NULL;
	uint64_t site = s->call_site;
	size_t i, n = 0, from = 0;

	*ids = xcalloc((st ? st->nr : 0) + 1, sizeof(**ids));
	if (st && st->nr) {
		from = kmt_stack_from(st, site);
		if (st->frames[from].addr != site)
			from = 0;
	}
	if (!st || !st->nr || st->frames[from].addr != site)
		(*ids)[n++] = loc_id(w, site, s->tag, NULL);
	for (i = from; st && i < st->nr; i++)
		(*ids)[n++] = loc_id(w, st->frames[i].addr,
				     st->frames[i].addr == site ? s->tag : 0,
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
			 struct kmt_pb *smp, const struct kmt_profile_sample *s)
{
	const char *cache, *comm;
	char buf[32];
	uint64_t *ids;
	size_t n;

	n = sample_locs(w, s, &ids);
	kmt_pb_packed(smp, SAMPLE_LOCATION_ID, ids, n);
	free(ids);
	kmt_pb_packed(smp, SAMPLE_VALUE, s->v, PROFILE_NR_VALUES);
	label_str(w, smp, "type", kmt_type_name(s->type));
	if (s->type == KMEMTRACE_TYPE_CACHE) {
		cache = w->p->caches ? kmt_caches_name(w->p->caches, s->cache_id) :
				       NULL;
		if (!cache) {
			snprintf(buf, sizeof(buf), "cache#%u", s->cache_id);
			cache = buf;
		}
		label_str(w, smp, "cache", cache);
	}
	comm = w->p->comms ? kmt_comms_lookup(w->p->comms, s->pid) : NULL;
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
	const char *build_id = w->p->build_id;

	kmt_pb_uint(&w->tmp, MAPPING_ID, 1);
	kmt_pb_uint(&w->tmp, MAPPING_MEMORY_LIMIT, UINT64_MAX);
	kmt_pb_uint(&w->tmp, MAPPING_FILENAME, str_index(w, "[kernel.kallsyms]"));
	kmt_pb_uint(&w->tmp, MAPPING_BUILD_ID, build_id ? str_index(w, build_id) : 0);
	kmt_pb_uint(&w->tmp, MAPPING_HAS_FUNCTIONS, 1);
	kmt_pb_uint(&w->tmp, MAPPING_HAS_FILENAMES, w->has_lines);
	kmt_pb_uint(&w->tmp, MAPPING_HAS_LINE_NUMBERS, w->has_lines);
	kmt_pb_msg(prof, PROFILE_MAPPING, &w->tmp);
}

/* Build the profile in @prof, from @w->p. */
static void build_profile(struct pp_writer *w, struct kmt_pb *prof)
{
	const struct kmt_profile *p = w->p;
	struct kmt_pb smp = { 0 };
	char comment[64];
	size_t i;

	str_index(w, "");
	for (i = 0; i < PROFILE_NR_VALUES; i++)
		value_type(w, prof, PROFILE_SAMPLE_TYPE, value_types[i][0],
			   value_types[i][1]);
	for (i = 0; i < p->nr; i++)
		write_sample(w, prof, &smp, &p->samples[i]);
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
	if (p->time_ns)
		kmt_pb_uint(prof, PROFILE_TIME_NANOS, p->time_ns);
	if (p->duration_ns)
		kmt_pb_uint(prof, PROFILE_DURATION_NANOS, p->duration_ns);
	/* As Go's heap profiles: the mean bytes between samples. */
	value_type(w, prof, PROFILE_PERIOD_TYPE, "space", "bytes");
	kmt_pb_uint(prof, PROFILE_PERIOD, p->period ? p->period : 1);
	if (p->period)
		kmt_pb_uint(prof, PROFILE_COMMENT,
			    str_index(w, kmt_sample_text(p->period, comment,
							 sizeof(comment))));
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
	free(w->loc_keys);
	kmt_map_free(&w->func_map);
	kmt_pb_free(&w->locs);
	kmt_pb_free(&w->funcs);
	kmt_pb_free(&w->tmp);
	kmt_pb_free(&w->line);
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

int kmt_profile_write(const struct kmt_profile *p, FILE *f)
{
	struct pp_writer w = { .p = p };
	struct kmt_pb prof = { 0 };
	int ret;

	build_profile(&w, &prof);
	pp_writer_free(&w);
	ret = write_gzip(f, &prof);
	kmt_pb_free(&prof);
	return ret;
}
