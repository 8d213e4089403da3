// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace report - the views: what report_main() prints of its pass
 *
 * The summary keeps the text layout of "kmemtrace report v1"; the other
 * views, and the summary in JSON and CSV, are tables (table.c).  Rows are
 * sorted by the --sort keys a view has, largest first, ties going to the
 * lower address, id or name, so that the output only depends on the trace.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allocinfo.h"
#include "gfp.h"
#include "keysums.h"
#include "kmemtrace.h"
#include "lifetimes.h"
#include "mismatches.h"
#include "pagesums.h"
#include "replay.h"
#include "report.h"
#include "report_views.h"
#include "sample.h"
#include "sitesums.h"
#include "stackstat.h"
#include "utils.h"

/* The sort keys of each view, its default first. */
static const enum report_key view_keys[NR_VIEWS][8] = {
	[VIEW_SITES]	 = { KEY_BYTES, KEY_REQ, KEY_HITS, KEY_WASTE, KEY_FREES,
			     KEY_LIVE, KEY_PINGPONG, KEY_LIFETIME },
	[VIEW_CACHES]	 = { KEY_BYTES, KEY_REQ, KEY_HITS, KEY_WASTE, KEY_FREES,
			     KEY_LIVE, KEY_PINGPONG, KEY_LIFETIME },
	[VIEW_LIVE]	 = { KEY_BYTES, KEY_HITS, KEY_AGE },
	[VIEW_LIFETIMES] = { KEY_FREES, KEY_LIFETIME },
	[VIEW_FREES]	 = { KEY_PINGPONG, KEY_FREES, KEY_MISMATCH },
	[VIEW_GFP]	 = { KEY_BYTES, KEY_HITS },
	[VIEW_NODES]	 = { KEY_BYTES, KEY_HITS },
};

static bool view_has_key(enum report_view v, enum report_key k)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(view_keys[v]) && view_keys[v][i]; i++)
		if (view_keys[v][i] == k)
			return true;
	return false;
}

bool report_sort_applies(unsigned int views, const enum report_key *keys)
{
	unsigned int v;
	size_t i;

	for (v = 0; v < NR_VIEWS; v++)
		for (i = 0; (views & (1u << v)) && i < REPORT_MAX_KEYS && keys[i]; i++)
			if (view_has_key(v, keys[i]))
				return true;
	return false;
}

/*
 * The keys @v sorts by: those of --sort it has, else @def (its default,
 * or the one of its table), then nothing.
 */
static void view_sort(const struct report *r, enum report_view v,
		      enum report_key def, enum report_key *keys)
{
	size_t i, n = 0;

	memset(keys, 0, REPORT_MAX_KEYS * sizeof(*keys));
	for (i = 0; i < REPORT_MAX_KEYS && r->p->sort[i]; i++)
		if (view_has_key(v, r->p->sort[i]))
			keys[n++] = r->p->sort[i];
	if (!n)
		keys[0] = def;
}

static const char *key_title(enum report_key k)
{
	static const char * const titles[NR_KEYS] = {
		[KEY_BYTES]	= "bytes allocated",
		[KEY_REQ]	= "bytes requested",
		[KEY_HITS]	= "allocations",
		[KEY_WASTE]	= "bytes wasted",
		[KEY_FREES]	= "frees",
		[KEY_LIVE]	= "bytes live",
		[KEY_PINGPONG]	= "cross-CPU frees",
		[KEY_LIFETIME]	= "lifetime",
		[KEY_AGE]	= "age",
		[KEY_MISMATCH]	= "mismatched frees",
	};

	return titles[k];
}

/* "bytes allocated" or "bytes live, then allocations" */
static void keys_title(const enum report_key *keys, char *buf, size_t len)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < REPORT_MAX_KEYS && keys[i] && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s",
				 i ? ", then " : "", key_title(keys[i]));
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* ---------------------------------------------------------- sites, caches */

static uint64_t site_value(const struct site *s, enum report_key k)
{
	switch (k) {
	case KEY_BYTES:
		return s->alloc;
	case KEY_REQ:
		return s->req;
	case KEY_HITS:
		return s->allocs;
	case KEY_WASTE:
		if (s->alloc == UINT64_MAX || s->req == UINT64_MAX)
			return UINT64_MAX;
		return s->alloc > s->req ? s->alloc - s->req : 0;
	case KEY_FREES:
		return s->frees;
	case KEY_LIVE:
		return s->live_bytes;
	case KEY_PINGPONG:
		return s->xcpu;
	case KEY_LIFETIME:
		return s->frees ? s->life / s->frees : 0;
	case KEY_MISMATCH:
		return s->mismatched;
	default:
		return 0;
	}
}

/* By the keys @ctx (REPORT_MAX_KEYS of them, or up to a 0), largest first. */
static int site_cmp(const void *a, const void *b, void *ctx)
{
	const struct site *x = a, *y = b;
	const enum report_key *sort_keys = ctx;
	size_t i;
	int c;

	for (i = 0; i < REPORT_MAX_KEYS && sort_keys[i]; i++) {
		c = cmp_u64(site_value(y, sort_keys[i]), site_value(x, sort_keys[i]));
		if (c)
			return c;
	}
	return cmp_u64(x->key, y->key);
}

/* The sites of @tab that pass @keep, sorted by @keys. */
static struct site *sort_sites(const struct site_table *tab,
			       const enum report_key *keys,
			       bool (*keep)(const struct site *s), size_t *nr)
{
	struct site *sites = xcalloc(tab->nr, sizeof(*sites));
	size_t i, n = 0;

	for (i = 0; i < tab->nr; i++)
		if (keep(&tab->sites[i]))
			sites[n++] = tab->sites[i];
	qsort_r(sites, n, sizeof(*sites), site_cmp, (void *)keys);
	*nr = n;
	return sites;
}

static bool site_allocated(const struct site *s)
{
	return s->allocs;
}

static bool site_freed(const struct site *s)
{
	return s->frees;
}

static bool site_unknown(const struct site *s)
{
	return s->unknown;
}

/* A share in percent; -1, unknown, when a total saturated. */
static double pct(uint64_t part, uint64_t whole)
{
	if (part == UINT64_MAX || whole == UINT64_MAX)
		return -1;
	return whole ? part * 100.0 / whole : 0;
}

static const char *site_name(struct report *r, uint64_t addr)
{
	return kmt_symcache_name(&r->names, addr, NULL);
}

/* ------------------------------------------------------------- summary */

/* A byte total, "overflow" if it saturated. */
static const char *total_text(uint64_t v, char *buf, size_t len)
{
	if (v == UINT64_MAX)
		snprintf(buf, len, "overflow");
	else
		snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

/* A row of the summary's top call sites or caches. */
struct summary_top {
	struct site s;
	const char *name;	/* its symbol or cache name */
	char buf[32];		/* "cache#ID", when @name is */
};

/*
 * The header of a report and its summary view, built once (summary_build())
 * for the text and the tables, which only print it.
 */
struct summary {
	size_t events;
	size_t errors;
	uint64_t first_ts;
	uint64_t last_ts;
	const char *filter;
	uint64_t selected;
	uint32_t period;	/* the trace's sample_period, 0: not sampled */
	/* The summary view, if asked for: */
	const uint64_t (*count)[KMEMTRACE_TYPE_VMALLOC + 1];
	const struct kmt_trace *t;
	const struct kmt_stats *st;
	uint64_t gaps;
	uint64_t live;
	uint64_t live_bytes;
	uint64_t backing_allocs;
	uint64_t backing_bytes;
	uint64_t backing_frees;
	uint64_t split_unknown;
	uint64_t top;
	struct summary_top *tops[2];	/* call sites, caches, by bytes */
	size_t nr_tops[2];
};

static void summary_build(struct report *r, const struct sitesums *ss,
			  const struct kmt_trace *t, const struct kmt_stats *st,
			  size_t errors, struct summary *s)
{
	const enum report_key keys[REPORT_MAX_KEYS] = { KEY_BYTES };
	struct summary_top *top;
	struct site *sites;
	size_t i, n;
	int pass;

	memset(s, 0, sizeof(*s));
	s->events = r->events;
	s->errors = errors;
	s->first_ts = r->first_ts;
	s->last_ts = r->last_ts;
	s->filter = r->p->filter.text;
	s->selected = r->selected;
	s->period = r->p->sample_period;
	if (!(r->p->views & (1u << VIEW_SUMMARY)))
		return;
	s->count = r->count;
	s->t = t;
	s->st = st;
	for (i = 0; i < t->nr; i++)
		s->gaps += st[i].gaps;
	s->live = r->live_selected;
	s->live_bytes = r->live_selected_bytes;
	/* In a sampled trace, the weights of what is live: sitesums'. */
	if (s->period) {
		s->live = ss->live;
		s->live_bytes = ss->live_bytes;
	}
	s->backing_allocs = r->backing_allocs;
	s->backing_bytes = r->backing_bytes;
	s->backing_frees = r->backing_frees;
	s->split_unknown = r->split_unknown;
	s->top = r->p->top;
	for (pass = 0; pass < 2; pass++) {
		sites = sort_sites(pass ? &ss->caches : &ss->sites, keys,
				   site_allocated, &n);
		if (n > s->top)
			n = s->top;
		s->tops[pass] = xcalloc(n + 1, sizeof(*s->tops[pass]));
		s->nr_tops[pass] = n;
		for (i = 0; i < n; i++) {
			top = &s->tops[pass][i];
			top->s = sites[i];
			top->name = pass ? report_cache_name(r, sites[i].key,
							     top->buf,
							     sizeof(top->buf)) :
					   site_name(r, sites[i].key);
		}
		free(sites);
	}
}

static void summary_free(struct summary *s)
{
	free(s->tops[0]);
	free(s->tops[1]);
}

static void summary_text(const struct summary *s)
{
	const struct kmt_trace *t = s->t;
	char buf[32], buf2[32];
	const struct site *site;
	unsigned int type;
	double waste;
	size_t i;
	int pass;

	printf("events: %zu (alloc %llu, free %llu, realloc %llu", s->events,
	       (unsigned long long)s->count[KMEMTRACE_KIND_ALLOC][0],
	       (unsigned long long)s->count[KMEMTRACE_KIND_FREE][0],
	       (unsigned long long)s->count[KMEMTRACE_KIND_REALLOC][0]);
	/* Only traces with splits say so: the others print as before. */
	if (s->count[KMEMTRACE_KIND_SPLIT][0])
		printf(", split %llu",
		       (unsigned long long)s->count[KMEMTRACE_KIND_SPLIT][0]);
	printf(")\n");
	if (s->errors)
		printf("invalid: %zu problems, events skipped (see kmemtrace check)\n",
		       s->errors);
	printf("\n%-8s %12s %12s %12s\n", "type", "alloc", "free", "realloc");
	for (type = KMEMTRACE_TYPE_KMALLOC; type <= KMEMTRACE_TYPE_VMALLOC; type++)
		printf("%-8s %12llu %12llu %12llu\n", kmt_type_name(type),
		       (unsigned long long)s->count[KMEMTRACE_KIND_ALLOC][type],
		       (unsigned long long)s->count[KMEMTRACE_KIND_FREE][type],
		       (unsigned long long)s->count[KMEMTRACE_KIND_REALLOC][type]);

	printf("\n%-8s %12s\n", "cpu", "events");
	for (i = 0; i < t->nr; i++)
		printf("%-8s %12zu\n", path_basename(t->streams[i].path),
		       s->st[i].events);
	if (t->has_dropped)
		printf("\ndropped: %llu (kernel counter, %s), %llu seen as seq gaps\n",
		       (unsigned long long)t->dropped,
		       t->has_dropped_start ? "while recording" : "since boot",
		       (unsigned long long)s->gaps);
	else
		printf("\ndropped: unknown (no dropped file), %llu seen as seq gaps\n",
		       (unsigned long long)s->gaps);

	printf("\nstill allocated at end: %llu allocations, %s bytes\n",
	       (unsigned long long)s->live,
	       total_text(s->live_bytes, buf, sizeof(buf)));
	printf("backing pages: %llu %sallocs (%s bytes), %llu frees\n",
	       (unsigned long long)s->backing_allocs,
	       s->period ? "sampled " : "",
	       total_text(s->backing_bytes, buf, sizeof(buf)),
	       (unsigned long long)s->backing_frees);
	if (s->count[KMEMTRACE_KIND_SPLIT][0]) {
		printf("page splits: %llu, %llu of memory not live\n",
		       (unsigned long long)s->count[KMEMTRACE_KIND_SPLIT][0],
		       (unsigned long long)s->split_unknown);
	}

	for (pass = 0; pass < 2; pass++) {
		printf("\ntop %llu %s by bytes allocated:\n",
		       (unsigned long long)s->top, pass ? "caches" : "call sites");
		printf("%10s %12s %12s %7s  %s\n", "count", "bytes_req",
		       "bytes_alloc", "waste", pass ? "cache" : "call_site");
		for (i = 0; i < s->nr_tops[pass]; i++) {
			site = &s->tops[pass][i].s;
			if (site->req == UINT64_MAX || site->alloc == UINT64_MAX) {
				printf("%10llu %12s %12s %7s  %s\n",
				       (unsigned long long)site->allocs,
				       total_text(site->req, buf, sizeof(buf)),
				       total_text(site->alloc, buf2, sizeof(buf2)),
				       "?", s->tops[pass][i].name);
				continue;
			}
			waste = 0;
			if (site->alloc > site->req)
				waste = (site->alloc - site->req) * 100.0 /
					site->alloc;
			printf("%10llu %12llu %12llu %6.1f%%  %s\n",
			       (unsigned long long)site->allocs,
			       (unsigned long long)site->req,
			       (unsigned long long)site->alloc, waste,
			       s->tops[pass][i].name);
		}
	}
}

static const struct kmt_col kinds_cols[] = {
	KMT_COL("type", KMT_STR), KMT_COL("alloc", KMT_U64), KMT_COL("free", KMT_U64),
	KMT_COL("realloc", KMT_U64),
};

static const struct kmt_col cpus_cols[] = {
	KMT_COL("stream", KMT_STR), KMT_COL("events", KMT_U64), KMT_COL("gaps", KMT_U64),
};

static const struct kmt_col top_cols[2][6] = {
	{
		KMT_COL("allocs", KMT_U64), KMT_COL("bytes_req", KMT_U64),
		KMT_COL("bytes_alloc", KMT_U64), KMT_COL("waste", KMT_PCT),
		KMT_COL("address", KMT_HEX), KMT_COL("call_site", KMT_STR),
	}, {
		KMT_COL("allocs", KMT_U64), KMT_COL("bytes_req", KMT_U64),
		KMT_COL("bytes_alloc", KMT_U64), KMT_COL("waste", KMT_PCT),
		KMT_COL("id", KMT_U64), KMT_COL("cache", KMT_STR),
	},
};

static void summary_tables(const struct summary *s, struct kmt_out *o)
{
	const struct kmt_trace *t = s->t;
	const struct site *site;
	struct kmt_table tab;
	union kmt_cell *row;
	unsigned int type;
	size_t i;
	int pass;

	kmt_table_init(&tab, "kinds", kinds_cols, ARRAY_SIZE(kinds_cols));
	for (type = KMEMTRACE_TYPE_KMALLOC; type <= KMEMTRACE_TYPE_VMALLOC; type++) {
		row = kmt_table_row(&tab);
		kmt_cell_str(&row[0], kmt_type_name(type));
		row[1].u = s->count[KMEMTRACE_KIND_ALLOC][type];
		row[2].u = s->count[KMEMTRACE_KIND_FREE][type];
		row[3].u = s->count[KMEMTRACE_KIND_REALLOC][type];
	}
	kmt_out_table(o, &tab);
	kmt_table_free(&tab);

	kmt_table_init(&tab, "cpus", cpus_cols, ARRAY_SIZE(cpus_cols));
	for (i = 0; i < t->nr; i++) {
		row = kmt_table_row(&tab);
		kmt_cell_str(&row[0], path_basename(t->streams[i].path));
		row[1].u = s->st[i].events;
		row[2].u = s->st[i].gaps;
	}
	kmt_out_table(o, &tab);
	kmt_table_free(&tab);

	if (t->has_dropped)
		kmt_out_u64(o, "dropped", t->dropped);
	else
		kmt_out_str(o, "dropped", NULL);
	kmt_out_u64(o, "seq_gaps", s->gaps);
	kmt_out_u64(o, "live_allocations", s->live);
	kmt_out_u64(o, "live_bytes", s->live_bytes);
	kmt_out_u64(o, "backing_allocs", s->backing_allocs);
	kmt_out_u64(o, "backing_bytes", s->backing_bytes);
	kmt_out_u64(o, "backing_frees", s->backing_frees);
	/* Only with splits, as the text: the other outputs stay as they were. */
	if (s->count[KMEMTRACE_KIND_SPLIT][0]) {
		kmt_out_u64(o, "page_splits", s->count[KMEMTRACE_KIND_SPLIT][0]);
		kmt_out_u64(o, "page_splits_not_live", s->split_unknown);
	}

	for (pass = 0; pass < 2; pass++) {
		kmt_table_init(&tab, pass ? "top_caches" : "top_sites",
			       top_cols[pass], ARRAY_SIZE(top_cols[pass]));
		for (i = 0; i < s->nr_tops[pass]; i++) {
			site = &s->tops[pass][i].s;
			row = kmt_table_row(&tab);
			row[0].u = site->allocs;
			row[1].u = site->req;
			row[2].u = site->alloc;
			row[3].d = pct(site_value(site, KEY_WASTE), site->alloc);
			row[4].u = site->key;
			kmt_cell_str(&row[5], s->tops[pass][i].name);
		}
		kmt_out_table(o, &tab);
		kmt_table_free(&tab);
	}
}

/* What every report begins with, whatever its views. */
static void header_print(const struct summary *s, struct kmt_out *o)
{
	char sampled[64];

	if (s->period)
		kmt_sample_text(s->period, sampled, sizeof(sampled));
	if (o->format == KMT_TEXT) {
		printf("kmemtrace report v%d\n", KMT_REPORT_VERSION);
		if (s->period)
			printf("%s: allocations scaled by 1/(1-exp(-bytes/%u)), estimates\n",
			       sampled, s->period);
		if (s->filter)
			printf("filter: %s (%llu allocations)\n", s->filter,
			       (unsigned long long)s->selected);
		return;
	}
	if (o->format == KMT_CSV && s->period)
		printf("# %s\n", sampled);
	kmt_out_u64(o, "version", KMT_REPORT_VERSION);
	kmt_out_u64(o, "events", s->events);
	kmt_out_u64(o, "invalid", s->errors);
	kmt_out_u64(o, "first_ts", s->first_ts);
	kmt_out_u64(o, "last_ts", s->last_ts);
	kmt_out_str(o, "filter", s->filter);
	kmt_out_u64(o, "selected", s->selected);
	kmt_out_u64(o, "sample_period", s->period);
	kmt_out_str(o, "sampling", s->period ? sampled : NULL);
}

static void view_summary(const struct summary *s, struct kmt_out *o)
{
	if (o->format == KMT_TEXT)
		summary_text(s);
	else
		summary_tables(s, o);
}

/* ----------------------------------------------------------- sites view */

static const struct kmt_col sites_cols[] = {
	KMT_COL("allocs", KMT_U64), KMT_COL("bytes_req", KMT_U64),
	KMT_COL("bytes_alloc", KMT_U64), KMT_COL("waste", KMT_PCT), KMT_COL("frees", KMT_U64),
	KMT_COL("xcpu", KMT_U64), KMT_COL("live", KMT_U64), KMT_COL("live_bytes", KMT_U64),
	KMT_COL("lifetime", KMT_NS), KMT_COL("mismatch", KMT_U64),
	KMT_COL("address", KMT_HEX), KMT_COL("call_site", KMT_STR),
};

static const struct kmt_col caches_cols[] = {
	KMT_COL("allocs", KMT_U64), KMT_COL("bytes_req", KMT_U64),
	KMT_COL("bytes_alloc", KMT_U64), KMT_COL("waste", KMT_PCT), KMT_COL("frees", KMT_U64),
	KMT_COL("xcpu", KMT_U64), KMT_COL("live", KMT_U64), KMT_COL("live_bytes", KMT_U64),
	KMT_COL("lifetime", KMT_NS), KMT_COL("mismatch", KMT_U64),
	KMT_COL("id", KMT_U64), KMT_COL("cache", KMT_STR),
};

static void view_sites(struct report *r, const struct sitesums *ss,
		       enum report_view v, struct kmt_out *o)
{
	bool caches = v == VIEW_CACHES;
	enum report_key keys[REPORT_MAX_KEYS];
	struct kmt_table tab;
	union kmt_cell *row;
	struct site *sites;
	char title[128], buf[32];
	size_t i, n;

	view_sort(r, v, KEY_BYTES, keys);
	sites = sort_sites(caches ? &ss->caches : &ss->sites, keys,
			   site_allocated, &n);
	keys_title(keys, title, sizeof(title));
	if (caches)
		kmt_table_init(&tab, "caches", caches_cols, ARRAY_SIZE(caches_cols));
	else
		kmt_table_init(&tab, "sites", sites_cols, ARRAY_SIZE(sites_cols));
	kmt_table_title(&tab, "%s by %s (top %llu of %zu):",
			caches ? "caches" : "call sites", title,
			(unsigned long long)r->p->top, n);
	for (i = 0; i < n && i < r->p->top; i++) {
		row = kmt_table_row(&tab);
		row[0].u = sites[i].allocs;
		row[1].u = sites[i].req;
		row[2].u = sites[i].alloc;
		row[3].d = pct(site_value(&sites[i], KEY_WASTE), sites[i].alloc);
		row[4].u = sites[i].frees;
		row[5].u = sites[i].xcpu;
		row[6].u = sites[i].live;
		row[7].u = sites[i].live_bytes;
		row[8].u = sites[i].frees ? site_value(&sites[i], KEY_LIFETIME) :
					    KMT_NONE;
		row[9].u = sites[i].mismatched;
		row[10].u = sites[i].key;
		kmt_cell_str(&row[11], caches ?
			     report_cache_name(r, sites[i].key, buf, sizeof(buf)) :
			     site_name(r, sites[i].key));
	}
	kmt_out_table(o, &tab);
	kmt_table_free(&tab);
	free(sites);
}

/* ------------------------------------------------------------ live view */

/* A live allocation the live view shows. */
struct live_ref {
	uint64_t group;		/* what it is grouped by */
	uint64_t age;
	const struct live_obj *obj;
};

/* A group of live allocations. */
struct live_group {
	uint64_t group;
	uint64_t count;
	uint64_t bytes;
	uint64_t oldest;
	uint64_t median;
	unsigned int types;	/* bit per type */
	uint32_t cache_id;	/* the cache of the first cache allocation */
	bool cache;		/* @cache_id is set */
	bool caches;		/* of more than one cache */
	const struct live_obj *first;
};

static int ref_group_cmp(const void *a, const void *b)
{
	const struct live_ref *x = a, *y = b;
	int c = cmp_u64(x->group, y->group);

	if (!c)
		c = cmp_u64(x->age, y->age);
	if (!c)
		c = cmp_u64(x->obj->ptr, y->obj->ptr);
	return c;
}

static uint64_t group_value(const struct live_group *g, enum report_key k)
{
	switch (k) {
	case KEY_BYTES:
		return g->bytes;
	case KEY_HITS:
		return g->count;
	case KEY_AGE:
		return g->oldest;
	default:
		return 0;
	}
}

static int group_cmp(const void *a, const void *b, void *ctx)
{
	const struct live_group *x = a, *y = b;
	const enum report_key *sort_keys = ctx;
	size_t i;
	int c;

	for (i = 0; i < REPORT_MAX_KEYS && sort_keys[i]; i++) {
		c = cmp_u64(group_value(y, sort_keys[i]), group_value(x, sort_keys[i]));
		if (c)
			return c;
	}
	return cmp_u64(x->group, y->group);
}

static uint64_t ref_value(const struct live_ref *x, enum report_key k)
{
	return k == KEY_AGE ? x->age : k == KEY_BYTES ? x->obj->bytes : 0;
}

static int ref_cmp(const void *a, const void *b, void *ctx)
{
	const struct live_ref *x = a, *y = b;
	const enum report_key *sort_keys = ctx;
	size_t i;
	int c;

	for (i = 0; i < REPORT_MAX_KEYS && sort_keys[i]; i++) {
		c = cmp_u64(ref_value(y, sort_keys[i]), ref_value(x, sort_keys[i]));
		if (c)
			return c;
	}
	c = cmp_u64(x->obj->ptr, y->obj->ptr);
	return c ? c : cmp_u64(x->obj->family, y->obj->family);
}

/* The function of a call site name: "func" of "func+0x10 [mod]". */
static size_t func_len(const char *name)
{
	return strcspn(name, "+ ");
}

/* A live site and the name of its group, for --by func and --by line. */
struct site_key {
	char *name;
	uint32_t site;
};

static int site_key_cmp(const void *a, const void *b)
{
	const struct site_key *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : cmp_u64(x->site, y->site);
}

/*
 * The group of the call site @addr for --by line: the "file:line" of the
 * call, or its name when the symbols have no line for it.  Return whether
 * they had.
 */
static bool site_line(struct report *r, uint64_t addr, char *buf, size_t len)
{
	if (!kmt_symtab_line(r->names.st, addr, buf, len))
		return true;
	snprintf(buf, len, "%s", site_name(r, addr));
	return false;
}

/* The codetag of a live allocation in DIR/tags, or NULL. */
static const struct kmt_tag *obj_tag(const struct report *r,
				     const struct live_obj *o)
{
	return kmt_tags_find(r->tags, r->og.origins[o->origin].tag);
}

/*
 * Per site, the number of its group in name order: of its function for
 * --by func, of its line for --by line.  For --by line, the codetags
 * follow the sites, by tag index: an allocation whose tag is in DIR/tags
 * is in the group of its tag's line, whatever its call site.
 */
static uint32_t *number_groups(struct report *r)
{
	size_t tags = r->p->by == BY_LINE ? r->og.nr_tags : 0;
	struct site_key *keys = xcalloc(r->sites.nr + tags, sizeof(*keys));
	uint32_t *group = xcalloc(r->sites.nr + tags, sizeof(*group));
	bool *live = xcalloc(r->sites.nr + 1, sizeof(*live));
	size_t i, n = 0, lines = 0, pos = 0;
	const struct live_obj *o;
	const struct kmt_tag *t;
	const char *name;
	char buf[512];

	while ((o = replay_live_next(r, &pos)))
		if (replay_still_allocated(o))
			live[o->site] = true;

	for (i = 1; i < tags; i++) {
		t = kmt_tags_find(r->tags, r->og.tags[i]);
		if (!t)
			continue;
		keys[n].name = xstrdup(t->text);
		keys[n++].site = r->sites.nr + i;
		lines++;
	}
	for (i = 0; i < r->sites.nr; i++) {
		if (!live[i])
			continue;
		if (r->p->by == BY_FUNC) {
			name = site_name(r, r->sites.sites[i].key);
			keys[n].name = xstrndup(name, func_len(name));
		} else {
			lines += site_line(r, r->sites.sites[i].key, buf,
					   sizeof(buf));
			keys[n].name = xstrdup(buf);
		}
		keys[n++].site = i;
	}
	if (r->p->by == BY_LINE && n && !lines)
		kmt_err("note: --by line: no allocation has a source line (DIR/tags, or -k VMLINUX with debug info, has them), each call site is a group");
	qsort(keys, n, sizeof(*keys), site_key_cmp);
	for (i = 0; i < n; i++) {
		group[keys[i].site] = i;
		if (i && !strcmp(keys[i].name, keys[i - 1].name))
			group[keys[i].site] = group[keys[i - 1].site];
	}
	for (i = 0; i < n; i++)
		free(keys[i].name);
	free(keys);
	free(live);
	return group;
}

static uint64_t live_group_key(const struct report *r, const uint32_t *group,
			       const struct live_obj *o)
{
	switch (r->p->by) {
	case BY_SITE:
		return r->sites.sites[o->site].key;
	case BY_FUNC:
		return group[o->site];
	case BY_LINE:
		if (obj_tag(r, o))
			return group[r->sites.nr + r->og.origins[o->origin].tag_index];
		return group[o->site];
	case BY_CACHE:
		/* Not a cache: grouped by type, before the caches. */
		return o->type == KMEMTRACE_TYPE_CACHE ? (1ULL << 32) + o->cache_id :
		       o->type;
	case BY_TYPE:
		return o->type;
	case BY_PID:
		return o->pid;
	case BY_STACK:
		return r->og.origins[o->origin].stack;
	default:
		return 0;
	}
}

static const struct kmt_col live_cols[] = {
	KMT_COL("count", KMT_U64), KMT_COL("bytes", KMT_U64), KMT_COL("oldest", KMT_NS),
	KMT_COL("median", KMT_NS), KMT_COL("type", KMT_STR), KMT_COL("cache", KMT_STR),
	KMT_COL("group", KMT_STR),
};

static const struct kmt_col live_list_cols[] = {
	KMT_COL("age", KMT_NS), KMT_COL("bytes", KMT_U64), KMT_COL("type", KMT_STR),
	KMT_COL("cpu", KMT_U64), KMT_COL("pid", KMT_U64), KMT_COL("comm", KMT_STR),
	KMT_COL("ptr", KMT_HEX), KMT_COL("cache", KMT_STR), KMT_COL("address", KMT_HEX),
	KMT_COL("call_site", KMT_STR), KMT_COL("stack", KMT_STR), KMT_COL("line", KMT_STR),
};

static void types_text(unsigned int types, char *buf, size_t len)
{
	unsigned int type;
	size_t used = 0;

	buf[0] = '\0';
	for (type = KMEMTRACE_TYPE_KMALLOC; type <= KMEMTRACE_TYPE_VMALLOC; type++)
		if (types & (1u << type) && used < len)
			used += snprintf(buf + used, len - used, "%s%s",
					 used ? "," : "", kmt_type_name(type));
}

/*
 * "stack HANDLE", with " (not in DIR/stacks)" when the file lacks it, or
 * "(no stack)".
 */
static const char *stack_name(const struct report *r, uint32_t handle,
			      char *buf, size_t len)
{
	if (!handle)
		snprintf(buf, len, "(no stack)");
	else
		snprintf(buf, len, "stack %08x%s", handle,
			 kmt_stacks_find(r->stacks, handle) ? "" :
			 " (not in DIR/stacks)");
	return buf;
}

/* The name of the group of @g. */
static const char *group_name(struct report *r, const struct live_group *g,
			      char *buf, size_t len)
{
	const struct live_obj *o = g->first;
	const char *name;

	switch (r->p->by) {
	case BY_SITE:
		return site_name(r, g->group);
	case BY_FUNC:
		name = site_name(r, r->sites.sites[o->site].key);
		snprintf(buf, len, "%.*s", (int)func_len(name), name);
		return buf;
	case BY_LINE:
		if (obj_tag(r, o))
			return obj_tag(r, o)->text;
		site_line(r, r->sites.sites[o->site].key, buf, len);
		return buf;
	case BY_CACHE:
		if (o->type != KMEMTRACE_TYPE_CACHE) {
			snprintf(buf, len, "(%s)", kmt_type_name(o->type));
			return buf;
		}
		return report_cache_name(r, o->cache_id, buf, len);
	case BY_TYPE:
		return kmt_type_name(o->type);
	case BY_PID:
		name = kmt_comms_lookup(r->comms, o->pid);
		if (name)
			snprintf(buf, len, "%u %s", o->pid, name);
		else
			snprintf(buf, len, "%u", o->pid);
		return buf;
	case BY_STACK:
		return stack_name(r, r->og.origins[o->origin].stack, buf, len);
	default:
		return "?";
	}
}

static void live_list(struct report *r, struct live_ref *refs, size_t n,
		      struct kmt_out *o)
{
	enum report_key keys[REPORT_MAX_KEYS];
	const struct live_obj *obj;
	const struct kmt_tag *t;
	struct kmt_table tab;
	union kmt_cell *row;
	char title[128], buf[32];
	size_t i;

	view_sort(r, VIEW_LIVE, KEY_AGE, keys);
	qsort_r(refs, n, sizeof(*refs), ref_cmp, keys);
	keys_title(keys, title, sizeof(title));
	kmt_table_init(&tab, "live_list", live_list_cols,
		       ARRAY_SIZE(live_list_cols));
	kmt_table_title(&tab, "live allocations by %s (top %llu of %zu):", title,
			(unsigned long long)r->p->top, n);
	for (i = 0; i < n && i < r->p->top; i++) {
		obj = refs[i].obj;
		row = kmt_table_row(&tab);
		row[0].u = refs[i].age;
		row[1].u = obj->bytes;
		kmt_cell_str(&row[2], kmt_type_name(obj->type));
		row[3].u = obj->cpu;
		row[4].u = obj->pid;
		kmt_cell_str(&row[5], kmt_comms_lookup(r->comms, obj->pid));
		row[6].u = obj->ptr;
		if (obj->type == KMEMTRACE_TYPE_CACHE)
			kmt_cell_str(&row[7], report_cache_name(r, obj->cache_id,
								buf, sizeof(buf)));
		row[8].u = r->sites.sites[obj->site].key;
		kmt_cell_str(&row[9], site_name(r, row[8].u));
		if (r->og.origins[obj->origin].stack) {
			snprintf(buf, sizeof(buf), "%08x", r->og.origins[obj->origin].stack);
			kmt_cell_str(&row[10], buf);
		}
		t = obj_tag(r, obj);
		if (t)
			kmt_cell_str(&row[11], t->text);
	}
	kmt_out_table(o, &tab);
	kmt_table_free(&tab);
}

static void live_groups(struct report *r, struct live_ref *refs, size_t n,
			struct kmt_out *o)
{
	struct live_group *groups = xcalloc(n, sizeof(*groups)), *g = NULL;
	enum report_key keys[REPORT_MAX_KEYS];
	uint32_t period = r->p->sample_period;
	const struct live_obj *obj;
	double count, bytes, w;
	bool overflow = false;
	struct kmt_table tab;
	union kmt_cell *row;
	char title[128], buf[512], types[64];
	size_t i, j, nr = 0;

	/* By group, each group youngest first. */
	qsort(refs, n, sizeof(*refs), ref_group_cmp);
	for (i = 0; i < n; i = j) {
		g = &groups[nr++];
		g->group = refs[i].group;
		g->first = refs[i].obj;
		count = 0;
		bytes = 0;
		for (j = i; j < n && refs[j].group == g->group; j++) {
			obj = refs[j].obj;
			g->count++;
			add_u64_sat(&g->bytes, obj->bytes);
			w = kmt_sample_weight(obj->bytes0, period);
			count += w;
			bytes += w * obj->bytes;
			g->types |= 1u << obj->type;
			if (obj->type != KMEMTRACE_TYPE_CACHE)
				continue;
			if (!g->cache)
				g->cache_id = obj->cache_id;
			else if (g->cache_id != obj->cache_id)
				g->caches = true;
			g->cache = true;
		}
		if (period) {
			g->count = kmt_sample_round(count, &overflow);
			g->bytes = kmt_sample_round(bytes, &overflow);
		}
		g->oldest = refs[j - 1].age;
		/* The lower median, an age the group has. */
		g->median = refs[i + (j - i - 1) / 2].age;
	}
	view_sort(r, VIEW_LIVE, KEY_BYTES, keys);
	qsort_r(groups, nr, sizeof(*groups), group_cmp, keys);
	keys_title(keys, title, sizeof(title));
	kmt_table_init(&tab, "live", live_cols, ARRAY_SIZE(live_cols));
	kmt_table_title(&tab, "live allocations by %s, by %s (top %llu of %zu):",
			((const char * const []){ "call site", "function",
			  "line", "cache", "type", "pid", "stack" })[r->p->by], title,
			(unsigned long long)r->p->top, nr);
	for (i = 0; i < nr && i < r->p->top; i++) {
		g = &groups[i];
		row = kmt_table_row(&tab);
		row[0].u = g->count;
		row[1].u = g->bytes;
		row[2].u = g->oldest;
		row[3].u = g->median;
		types_text(g->types, types, sizeof(types));
		kmt_cell_str(&row[4], types);
		if (g->caches)
			kmt_cell_str(&row[5], "*");
		else if (g->cache)
			kmt_cell_str(&row[5], report_cache_name(r, g->cache_id, buf,
								sizeof(buf)));
		kmt_cell_str(&row[6], group_name(r, g, buf, sizeof(buf)));
	}
	kmt_out_table(o, &tab);
	kmt_table_free(&tab);
	free(groups);
}

static void view_live(struct report *r, struct kmt_out *o)
{
	struct live_ref *refs = xcalloc(r->live.nr, sizeof(*refs));
	size_t pos = 0, n = 0, untagged = 0;
	const struct live_obj *obj;
	uint32_t *group = NULL;
	uint64_t age;

	if (r->p->by == BY_FUNC || r->p->by == BY_LINE)
		group = number_groups(r);
	while ((obj = replay_live_next(r, &pos))) {
		if (!replay_still_allocated(obj))
			continue;
		age = r->last_ts - obj->ts;
		if (age < r->p->min_age)
			continue;
		refs[n].obj = obj;
		refs[n].age = age;
		refs[n++].group = live_group_key(r, group, obj);
		if (r->p->by == BY_LINE && r->og.origins[obj->origin].tag &&
		    !obj_tag(r, obj))
			untagged++;
	}
	if (untagged)
		kmt_err("note: --by line: %zu live allocations have a codetag that %s, grouped by call site",
			untagged, r->tags->present ? "DIR/tags lacks" :
			"no DIR/tags names");
	if (r->p->list)
		live_list(r, refs, n, o);
	else
		live_groups(r, refs, n, o);
	free(group);
	free(refs);
}

/* ------------------------------------------------------- lifetimes view */

/* Log2 buckets: bucket B holds [2^B, 2^(B+1)) ns, bucket 0 also 0. */
#define LIFE_BUCKETS	64

static unsigned int life_bucket(uint64_t ns)
{
	return ns < 2 ? 0 : 63 - __builtin_clzll(ns);
}

/* Nearest rank: the smallest value with at least @p percent at or below. */
static uint64_t percentile(const uint64_t *sorted, size_t n, unsigned int p)
{
	size_t rank = (n * p + 99) / 100;

	return sorted[rank ? rank - 1 : 0];
}

/*
 * The same of the lifetimes of a site, weighed in a sampled trace: the
 * smallest with at least p% of the weight at or below it.
 */
static uint64_t life_percentile(const struct u64_vec *v, unsigned int p)
{
	double target, cum = 0;
	size_t i;

	if (!v->w)
		return percentile(v->v, v->nr, p);
	target = v->total * p / 100;
	for (i = 0; i < v->nr; i++) {
		cum += v->w[i];
		if (cum >= target)
			return v->v[i];
	}
	return v->v[v->nr - 1];
}

/* The frees of a site: their weight, in a sampled trace. */
static uint64_t life_frees(const struct u64_vec *v)
{
	bool overflow = false;

	return v->w ? kmt_sample_round(v->total, &overflow) : v->nr;
}

/* Their mean lifetime, weighed in a sampled trace. */
static uint64_t life_mean(const struct u64_vec *v)
{
	bool overflow = false;
	uint64_t sum = 0;
	double wsum = 0;
	size_t i;

	if (!v->w) {
		for (i = 0; i < v->nr; i++)
			add_u64_sat(&sum, v->v[i]);
		return sum / v->nr;
	}
	for (i = 0; i < v->nr; i++)
		wsum += v->w[i] * v->v[i];
	return kmt_sample_round(wsum / v->total, &overflow);
}

struct life_site {
	uint32_t site;
	uint64_t key;
	uint64_t frees;
	uint64_t p50;
};

static int life_cmp(const void *a, const void *b, void *ctx)
{
	const struct life_site *x = a, *y = b;
	const enum report_key *life_keys = ctx;
	size_t i;
	int c;

	for (i = 0; i < REPORT_MAX_KEYS && life_keys[i]; i++) {
		c = life_keys[i] == KEY_LIFETIME ? cmp_u64(y->p50, x->p50) :
						   cmp_u64(y->frees, x->frees);
		if (c)
			return c;
	}
	return cmp_u64(x->key, y->key);
}

static const struct kmt_col life_cols[] = {
	KMT_COL("frees", KMT_U64), KMT_COL("min", KMT_NS), KMT_COL("p50", KMT_NS),
	KMT_COL("p90", KMT_NS), KMT_COL("p99", KMT_NS), KMT_COL("max", KMT_NS),
	KMT_COL("mean", KMT_NS), KMT_COL("address", KMT_HEX), KMT_COL("call_site", KMT_STR),
};

static const struct kmt_col hist_cols[] = {
	KMT_COL("address", KMT_HEX), KMT_COL("call_site", KMT_STR), KMT_COL("from", KMT_NS),
	KMT_COL("to", KMT_NS), KMT_COL("count", KMT_U64), KMT_COL("distribution", KMT_BAR),
};

/* Text shows one histogram per site, without the site's columns. */
static const struct kmt_col hist_text_cols[] = {
	KMT_COLW("from", KMT_NS, 8), KMT_COLW("to", KMT_NS, 8), KMT_COLW("count", KMT_U64, 10),
	KMT_COL("distribution", KMT_BAR),
};

static void life_histogram(struct report *r, const struct u64_vec *v,
			   uint64_t key, struct kmt_table *all,
			   struct kmt_out *o)
{
	uint64_t hist[LIFE_BUCKETS] = { 0 }, max = 0;
	unsigned int b, lo = LIFE_BUCKETS, hi = 0;
	double whist[LIFE_BUCKETS] = { 0 };
	bool overflow = false;
	struct kmt_table tab;
	union kmt_cell *row;
	size_t i;

	for (i = 0; i < v->nr; i++) {
		hist[life_bucket(v->v[i])]++;
		if (v->w)
			whist[life_bucket(v->v[i])] += v->w[i];
	}
	for (b = 0; v->w && b < LIFE_BUCKETS; b++)
		hist[b] = kmt_sample_round(whist[b], &overflow);
	for (b = 0; b < LIFE_BUCKETS; b++) {
		if (!hist[b])
			continue;
		lo = b < lo ? b : lo;
		hi = b;
		max = hist[b] > max ? hist[b] : max;
	}
	kmt_table_init(&tab, "histogram", hist_text_cols,
		       ARRAY_SIZE(hist_text_cols));
	kmt_table_title(&tab, "lifetimes of %s:", site_name(r, key));
	for (b = lo; b <= hi && lo < LIFE_BUCKETS; b++) {
		row = all ? kmt_table_row(all) : kmt_table_row(&tab);
		if (all) {
			row[0].u = key;
			kmt_cell_str(&row[1], site_name(r, key));
			row += 2;
		}
		/* [from, to): to is the next bucket's from. */
		row[0].u = b ? 1ULL << b : 0;
		row[1].u = b < 63 ? 1ULL << (b + 1) : UINT64_MAX;
		row[2].u = hist[b];
		row[3].d = max ? (double)hist[b] / max : 0;
	}
	if (!all)
		kmt_out_table(o, &tab);
	kmt_table_free(&tab);
}

static void view_lifetimes(struct report *r, const struct lifetimes *lt,
			   struct kmt_out *o)
{
	struct life_site *sites = xcalloc(lt->nr + 1, sizeof(*sites));
	enum report_key life_keys[REPORT_MAX_KEYS];
	struct kmt_table tab, hist;
	char title[128];
	union kmt_cell *row;
	const struct u64_vec *v;
	size_t i, n = 0;

	for (i = 0; i < lt->nr; i++) {
		v = &lt->sites[i];
		if (!v->nr)
			continue;
		sites[n].site = i;
		sites[n].key = r->sites.sites[i].key;
		sites[n].frees = life_frees(v);
		sites[n++].p50 = life_percentile(v, 50);
	}
	view_sort(r, VIEW_LIFETIMES, KEY_FREES, life_keys);
	qsort_r(sites, n, sizeof(*sites), life_cmp, life_keys);
	keys_title(life_keys, title, sizeof(title));
	kmt_table_init(&tab, "lifetimes", life_cols, ARRAY_SIZE(life_cols));
	kmt_table_title(&tab, "lifetimes (alloc to free) by call site, by %s (top %llu of %zu):",
			title, (unsigned long long)r->p->top, n);
	for (i = 0; i < n && i < r->p->top; i++) {
		v = &lt->sites[sites[i].site];
		row = kmt_table_row(&tab);
		row[0].u = sites[i].frees;
		row[1].u = v->v[0];
		row[2].u = sites[i].p50;
		row[3].u = life_percentile(v, 90);
		row[4].u = life_percentile(v, 99);
		row[5].u = v->v[v->nr - 1];
		row[6].u = life_mean(v);
		row[7].u = sites[i].key;
		kmt_cell_str(&row[8], site_name(r, sites[i].key));
	}
	kmt_out_table(o, &tab);
	kmt_table_free(&tab);

	kmt_table_init(&hist, "histograms", hist_cols, ARRAY_SIZE(hist_cols));
	for (i = 0; i < n && i < r->p->top; i++)
		life_histogram(r, &lt->sites[sites[i].site], sites[i].key,
			       o->format == KMT_TEXT ? NULL : &hist, o);
	if (o->format != KMT_TEXT)
		kmt_out_table(o, &hist);
	kmt_table_free(&hist);
	free(sites);
}

/* ----------------------------------------------------------- frees view */

static const struct kmt_col xcpu_cols[] = {
	KMT_COL("frees", KMT_U64), KMT_COL("xcpu", KMT_U64), KMT_COL("share", KMT_PCT),
	KMT_COL("address", KMT_HEX), KMT_COL("call_site", KMT_STR),
};

static const struct kmt_col xcpu_cache_cols[] = {
	KMT_COL("frees", KMT_U64), KMT_COL("xcpu", KMT_U64), KMT_COL("share", KMT_PCT),
	KMT_COL("id", KMT_U64), KMT_COL("cache", KMT_STR),
};

static const struct kmt_col mismatch_cols[] = {
	KMT_COL("count", KMT_U64), KMT_COL("alloc_type", KMT_STR), KMT_COL("free_type", KMT_STR),
	KMT_COL("alloc_cache", KMT_STR), KMT_COL("free_cache", KMT_STR),
	KMT_COL("alloc_address", KMT_HEX), KMT_COL("free_address", KMT_HEX),
	KMT_COL("alloc_site", KMT_STR), KMT_COL("free_site", KMT_STR),
};

static const struct kmt_col unknown_cols[] = {
	KMT_COL("frees", KMT_U64), KMT_COL("types", KMT_STR), KMT_COL("address", KMT_HEX),
	KMT_COL("call_site", KMT_STR),
};

static const struct kmt_col free_totals_cols[] = {
	KMT_COL("frees", KMT_U64), KMT_COL("xcpu", KMT_U64), KMT_COL("share", KMT_PCT),
	KMT_COL("mismatched", KMT_U64), KMT_COL("without_alloc", KMT_U64),
	KMT_COL("unpaired", KMT_U64), KMT_COL("allocs_of_live", KMT_U64),
};

static int mismatch_cmp(const void *a, const void *b)
{
	const struct mismatch *x = a, *y = b;
	int c;

	c = cmp_u64(x->alloc_site, y->alloc_site);
	if (!c)
		c = cmp_u64(x->free_addr, y->free_addr);
	if (!c)
		c = cmp_u64(x->alloc_type, y->alloc_type);
	if (!c)
		c = cmp_u64(x->free_type, y->free_type);
	if (!c)
		c = cmp_u64(x->alloc_cache, y->alloc_cache);
	if (!c)
		c = cmp_u64(x->free_cache, y->free_cache);
	return c;
}

/* By count, then call sites; @ctx is the report. */
static int mismatch_count_cmp(const void *a, const void *b, void *ctx)
{
	const struct mismatch *x = a, *y = b;
	const struct site *s = ((const struct report *)ctx)->sites.sites;
	int c = cmp_u64(y->count, x->count);

	if (!c)
		c = cmp_u64(s[x->alloc_site].key, s[y->alloc_site].key);
	if (!c)
		c = cmp_u64(x->free_addr, y->free_addr);
	return c ? c : mismatch_cmp(a, b);
}

/*
 * The mismatched frees @ms grouped, in a copy, into @groups; return the
 * number of groups.
 */
static size_t group_mismatches(const struct report *r, const struct mismatches *ms,
			       struct mismatch **groups)
{
	struct mismatch *m;
	size_t i, n = 0;

	*groups = NULL;
	if (!ms->nr)
		return 0;
	m = xmalloc(ms->nr * sizeof(*m));
	memcpy(m, ms->v, ms->nr * sizeof(*m));
	*groups = m;
	qsort(m, ms->nr, sizeof(*m), mismatch_cmp);
	for (i = 0; i < ms->nr; i++) {
		if (n && !mismatch_cmp(&m[n - 1], &m[i])) {
			m[n - 1].count += m[i].count;
			continue;
		}
		m[n++] = m[i];
	}
	qsort_r(m, n, sizeof(*m), mismatch_count_cmp, (void *)r);
	return n;
}

static void xcpu_table(struct report *r, const struct sitesums *ss, bool caches,
		       struct kmt_out *o)
{
	enum report_key keys[REPORT_MAX_KEYS];
	struct kmt_table tab;
	union kmt_cell *row;
	struct site *sites;
	char title[128], buf[32];
	size_t i, n;

	view_sort(r, VIEW_FREES, KEY_PINGPONG, keys);
	if (keys[0] == KEY_MISMATCH)
		keys[0] = KEY_PINGPONG;
	sites = sort_sites(caches ? &ss->caches : &ss->sites, keys, site_freed,
			   &n);
	keys_title(keys, title, sizeof(title));
	if (caches)
		kmt_table_init(&tab, "cross_cpu_caches", xcpu_cache_cols,
			       ARRAY_SIZE(xcpu_cache_cols));
	else
		kmt_table_init(&tab, "cross_cpu_sites", xcpu_cols,
			       ARRAY_SIZE(xcpu_cols));
	kmt_table_title(&tab,
			"frees on another CPU than the alloc, by %s, by %s (top %llu of %zu):",
			caches ? "cache" : "call site of the alloc", title,
			(unsigned long long)r->p->top, n);
	for (i = 0; i < n && i < r->p->top; i++) {
		row = kmt_table_row(&tab);
		row[0].u = sites[i].frees;
		row[1].u = sites[i].xcpu;
		row[2].d = pct(sites[i].xcpu, sites[i].frees);
		row[3].u = sites[i].key;
		kmt_cell_str(&row[4], caches ?
			     report_cache_name(r, sites[i].key, buf, sizeof(buf)) :
			     site_name(r, sites[i].key));
	}
	kmt_out_table(o, &tab);
	kmt_table_free(&tab);
	free(sites);
}

static void view_frees(struct report *r, const struct sitesums *ss,
		       const struct mismatches *ms, struct kmt_out *o)
{
	const enum report_key by_unknown[REPORT_MAX_KEYS] = { KEY_FREES };
	uint64_t frees = 0, xcpu = 0, mismatched = 0, unknown = 0;
	struct kmt_table tab;
	union kmt_cell *row;
	struct mismatch *m, *groups;
	struct site *sites;
	char buf[32], buf2[32], types[64];
	size_t i, n;

	for (i = 0; i < ss->sites.nr; i++) {
		frees += ss->sites.sites[i].frees;
		xcpu += ss->sites.sites[i].xcpu;
		mismatched += ss->sites.sites[i].mismatched;
		unknown += ss->sites.sites[i].unknown;
	}
	kmt_table_init(&tab, "free_totals", free_totals_cols,
		       ARRAY_SIZE(free_totals_cols));
	kmt_table_title(&tab, "frees of the allocations in the trace, and others:");
	row = kmt_table_row(&tab);
	row[0].u = frees;
	row[1].u = xcpu;
	row[2].d = pct(xcpu, frees);
	row[3].u = mismatched;
	row[4].u = unknown;
	row[5].u = r->unpaired;
	row[6].u = r->double_allocs;
	kmt_out_table(o, &tab);
	kmt_table_free(&tab);

	xcpu_table(r, ss, false, o);
	xcpu_table(r, ss, true, o);

	n = group_mismatches(r, ms, &groups);
	kmt_table_init(&tab, "mismatched", mismatch_cols, ARRAY_SIZE(mismatch_cols));
	kmt_table_title(&tab, "frees by another API or cache than the alloc (top %llu of %zu):",
			(unsigned long long)r->p->top, n);
	for (i = 0; i < n && i < r->p->top; i++) {
		m = &groups[i];
		row = kmt_table_row(&tab);
		row[0].u = m->count;
		kmt_cell_str(&row[1], kmt_type_name(m->alloc_type));
		kmt_cell_str(&row[2], kmt_type_name(m->free_type));
		if (m->alloc_type == KMEMTRACE_TYPE_CACHE)
			kmt_cell_str(&row[3], report_cache_name(r, m->alloc_cache,
								buf, sizeof(buf)));
		if (m->free_type == KMEMTRACE_TYPE_CACHE)
			kmt_cell_str(&row[4], report_cache_name(r, m->free_cache,
								buf2, sizeof(buf2)));
		row[5].u = r->sites.sites[m->alloc_site].key;
		row[6].u = m->free_addr;
		kmt_cell_str(&row[7], site_name(r, row[5].u));
		kmt_cell_str(&row[8], site_name(r, row[6].u));
	}
	kmt_out_table(o, &tab);
	kmt_table_free(&tab);
	free(groups);

	sites = sort_sites(&ss->sites, by_unknown, site_unknown, &n);
	/* site_value() of KEY_FREES is the paired frees: sort by these. */
	for (i = 0; i < n; i++)
		sites[i].frees = sites[i].unknown;
	qsort_r(sites, n, sizeof(*sites), site_cmp, (void *)by_unknown);
	kmt_table_init(&tab, "without_alloc", unknown_cols,
		       ARRAY_SIZE(unknown_cols));
	kmt_table_title(&tab,
			"frees of memory not allocated in the trace, by call site (top %llu of %zu):",
			(unsigned long long)r->p->top, n);
	for (i = 0; i < n && i < r->p->top; i++) {
		row = kmt_table_row(&tab);
		row[0].u = sites[i].unknown;
		types_text(sites[i].unknown_types, types, sizeof(types));
		kmt_cell_str(&row[1], types);
		row[2].u = sites[i].key;
		kmt_cell_str(&row[3], site_name(r, sites[i].key));
	}
	kmt_out_table(o, &tab);
	kmt_table_free(&tab);
	free(sites);
}

/* ----------------------------------------------------------- pages view */

static const struct kmt_col pages_cols[] = {
	KMT_COL("order", KMT_U64), KMT_COL("unmovable", KMT_U64), KMT_COL("movable", KMT_U64),
	KMT_COL("reclaimable", KMT_U64), KMT_COL("highatomic", KMT_U64),
	KMT_COL("other", KMT_U64), KMT_COL("allocs", KMT_U64), KMT_COL("frees", KMT_U64),
	KMT_COL("bytes", KMT_U64),
};

/*
 * The pages view counts page events, each by its own order: the frees too,
 * of allocations in the trace or not.  A filter that selects allocations
 * (and their frees, wherever they are) has nothing to select such a free
 * by, so the view counts every page event of the --time window and
 * --type, and says so rather than show a system's pages as a filter's.
 */
static void view_pages(const struct report *r, const struct pagesums *ps,
		       struct kmt_out *o)
{
	static const char unfiltered_text[] =
		", of every task, CPU and call site (this view applies --time and --type only)";
	bool unfiltered = kmt_filter_selects_allocs(&r->p->filter);
	struct kmt_table tab;
	union kmt_cell *row;
	unsigned int order, mt;
	uint64_t allocs;

	kmt_table_init(&tab, "pages", pages_cols, ARRAY_SIZE(pages_cols));
	kmt_table_title(&tab,
			"page allocations by order and migrate type, backing pages included%s:",
			unfiltered ? unfiltered_text : "");
	if (unfiltered)
		kmt_out_str(o, "filters_applied", "--time and --type only");
	for (order = 0; order < PAGES_MAX_ORDER; order++) {
		allocs = 0;
		for (mt = 0; mt < PAGES_MAX_MT; mt++)
			allocs += ps->allocs[order][mt];
		if (!allocs && !ps->frees[order])
			continue;
		row = kmt_table_row(&tab);
		row[0].u = order;
		for (mt = 0; mt < PAGES_MAX_MT; mt++)
			row[1 + (mt < 4 ? mt : 4)].u += ps->allocs[order][mt];
		row[6].u = allocs;
		row[7].u = ps->frees[order];
		row[8].u = ps->bytes[order];
	}
	kmt_out_table(o, &tab);
	kmt_table_free(&tab);
}

/* ------------------------------------------------------ gfp, nodes views */

static const struct kmt_col gfp_cols[] = {
	KMT_COL("allocs", KMT_U64), KMT_COL("bytes", KMT_U64), KMT_COL("gfp", KMT_HEX),
	KMT_COL("flags", KMT_STR),
};

static const struct kmt_col nodes_cols[] = {
	KMT_COL("allocs", KMT_U64), KMT_COL("bytes", KMT_U64), KMT_COL("node", KMT_S64),
};

static void view_keyed(struct report *r, const struct keysums *ks,
		       enum report_view v, struct kmt_out *o)
{
	bool gfp = v == VIEW_GFP;
	enum report_key keys[REPORT_MAX_KEYS];
	struct kmt_gfp_names names;
	struct kmt_table tab;
	union kmt_cell *row;
	struct site *sites;
	char title[128], flags[512];
	size_t i, n;

	view_sort(r, v, KEY_BYTES, keys);
	sites = sort_sites(gfp ? &ks->gfps : &ks->nodes, keys, site_allocated, &n);
	keys_title(keys, title, sizeof(title));
	/* The names of the traced kernel, when record saved them. */
	if (gfp)
		kmt_gfp_names_load(&names, r->p->dir);
	if (gfp)
		kmt_table_init(&tab, "gfp", gfp_cols, ARRAY_SIZE(gfp_cols));
	else
		kmt_table_init(&tab, "nodes", nodes_cols, ARRAY_SIZE(nodes_cols));
	kmt_table_title(&tab, "allocations by %s, by %s (top %llu of %zu):",
			gfp ? "gfp flags" : "node asked for (-1: any)", title,
			(unsigned long long)r->p->top, n);
	for (i = 0; i < n && i < r->p->top; i++) {
		row = kmt_table_row(&tab);
		row[0].u = sites[i].allocs;
		row[1].u = sites[i].alloc;
		if (gfp) {
			row[2].u = sites[i].key;
			kmt_gfp_names_format(&names, sites[i].key, flags,
					     sizeof(flags));
			kmt_cell_str(&row[3], flags);
		} else {
			row[2].s = (int32_t)sites[i].key;
		}
	}
	kmt_out_table(o, &tab);
	kmt_table_free(&tab);
	free(sites);
	if (gfp)
		kmt_gfp_names_free(&names);
}

/* ------------------------------------------------------- allocinfo view */

static const struct kmt_col allocinfo_cols[] = {
	KMT_COL("bytes", KMT_S64), KMT_COL("calls", KMT_S64), KMT_COL("tag", KMT_HEX),
	KMT_COL("line", KMT_STR), KMT_COL("module", KMT_STR),
	KMT_COL("function", KMT_STR),
};

/* Whether --module, if given, names the module of @t. */
static bool tag_module_selected(const struct report *r, const struct kmt_tag *t)
{
	const struct name_list *l = &r->p->filter.modules;
	const char *name = t->module ? t->module : "vmlinux";
	size_t i;

	for (i = 0; i < l->nr; i++)
		if (!strcmp(name, l->names[i]))
			return true;
	return !l->nr;
}

/* By tag address; @ctx is the allocinfo consumer's state. */
static int ai_index_cmp(const void *a, const void *b, void *ctx)
{
	const uint64_t *tags = ((const struct allocinfo *)ctx)->tags;

	return cmp_u64(tags[*(const uint32_t *)a], tags[*(const uint32_t *)b]);
}

/*
 * The change of /proc/allocinfo over the trace, for the codetags its
 * allocs and reallocs carried, in the kernel's format, by tag address:
 * built-in tags, then those of modules.
 */
static void view_allocinfo(struct report *r, const struct allocinfo *ai,
			   struct kmt_out *o)
{
	uint32_t *idx = xcalloc(ai->nr + 1, sizeof(*idx));
	uint64_t unknown = 0, lines = 0;
	const struct kmt_tag *t;
	const struct ai_count *c;
	struct kmt_table tab;
	union kmt_cell *row;
	size_t i, n = 0;

	for (i = 1; i < ai->nr; i++)
		if (ai->counts[i].touched)
			idx[n++] = i;
	qsort_r(idx, n, sizeof(*idx), ai_index_cmp, (void *)ai);
	kmt_table_init(&tab, "allocinfo", allocinfo_cols,
		       ARRAY_SIZE(allocinfo_cols));
	if (o->format == KMT_TEXT) {
		printf("\n# allocinfo: the change of /proc/allocinfo over the trace,");
		if (r->p->sample_period)
			printf(" estimated from its samples,");
		printf(" by codetag address\n");
		printf("#     <size>  <calls> <tag info>\n");
	}
	for (i = 0; i < n; i++) {
		c = &ai->counts[idx[i]];
		t = kmt_tags_find(r->tags, ai->tags[idx[i]]);
		if (!t) {
			unknown++;
			continue;
		}
		if (!tag_module_selected(r, t))
			continue;
		lines++;
		if (o->format == KMT_TEXT) {
			/*
			 * lib/alloc_tag.c alloc_tag_to_text() and
			 * codetag_to_text(): a blank ends the line.
			 */
			printf("%12lli %8llu %s func:%s%c\n", (long long)c->bytes,
			       (unsigned long long)c->calls, t->text, t->func, ' ');
			continue;
		}
		row = kmt_table_row(&tab);
		row[0].s = c->bytes;
		row[1].s = c->calls;
		row[2].u = t->addr;
		kmt_cell_str(&row[3], t->file_line);
		kmt_cell_str(&row[4], t->module);
		kmt_cell_str(&row[5], t->func);
	}
	if (o->format == KMT_TEXT) {
		printf("# %llu codetags; frees without an alloc in the trace: %llu,",
		       (unsigned long long)lines,
		       (unsigned long long)ai->free_unknown);
		printf(" reallocs: %llu; codetags not in DIR/tags: %llu\n",
		       (unsigned long long)ai->realloc_unknown,
		       (unsigned long long)unknown);
	} else {
		kmt_out_table(o, &tab);
		kmt_out_u64(o, "frees_without_alloc", ai->free_unknown);
		kmt_out_u64(o, "reallocs_without_alloc", ai->realloc_unknown);
		kmt_out_u64(o, "unknown_tags", unknown);
	}
	kmt_table_free(&tab);
	free(idx);
}

/* ---------------------------------------------------------- stacks view */

/* The sampled allocations of one call site. */
struct stack_site {
	uint32_t site;
	uint64_t allocs;
	uint64_t bytes;
	size_t first;		/* its first stack_stat, once sorted */
	size_t nr;		/* its number of stacks */
};

/*
 * By site, then the most bytes, the most allocs, the lowest handle; @ctx
 * is the report.
 */
static int stack_stat_cmp(const void *a, const void *b, void *ctx)
{
	const struct stack_stat *x = a, *y = b;
	const struct site *s = ((const struct report *)ctx)->sites.sites;
	int c = cmp_u64(s[x->site].key, s[y->site].key);

	if (!c)
		c = cmp_u64(y->bytes, x->bytes);
	if (!c)
		c = cmp_u64(y->allocs, x->allocs);
	return c ? c : cmp_u64(x->stack, y->stack);
}

static int stack_site_cmp(const void *a, const void *b, void *ctx)
{
	const struct stack_site *x = a, *y = b;
	const struct site *s = ((const struct report *)ctx)->sites.sites;
	int c = cmp_u64(y->bytes, x->bytes);

	if (!c)
		c = cmp_u64(y->allocs, x->allocs);
	return c ? c : cmp_u64(s[x->site].key, s[y->site].key);
}

static const struct kmt_col stacks_cols[] = {
	KMT_COL("address", KMT_HEX), KMT_COL("call_site", KMT_STR),
	KMT_COL("stack", KMT_HEX), KMT_COL("allocs", KMT_U64), KMT_COL("bytes", KMT_U64),
	KMT_COL("frames", KMT_STR),
};

/* The frames of @st from the call site @addr outward, joined by ";". */
static char *stack_frames(const struct kmt_stack *st, uint64_t addr)
{
	size_t i, len = 1, used = 0;
	char *s;

	for (i = kmt_stack_from(st, addr); i < st->nr; i++)
		len += strlen(st->frames[i].sym) + 1;
	s = xmalloc(len);
	s[0] = '\0';
	for (i = kmt_stack_from(st, addr); i < st->nr; i++)
		used += snprintf(s + used, len - used, "%s%s", used ? ";" : "",
				 st->frames[i].sym);
	return s;
}

static void stacks_text(struct report *r, const struct stackstat *sst,
			const struct stack_site *sites, size_t n)
{
	const struct stack_stat *ss;
	const struct kmt_stack *st;
	uint64_t addr;
	size_t i, j, k;
	char buf[64];

	for (i = 0; i < n && i < r->p->top; i++) {
		addr = r->sites.sites[sites[i].site].key;
		printf("%s: %llu allocations with a stack, %llu bytes, %zu stacks\n",
		       site_name(r, addr), (unsigned long long)sites[i].allocs,
		       (unsigned long long)sites[i].bytes, sites[i].nr);
		for (j = 0; j < sites[i].nr && j < r->p->stacks; j++) {
			ss = &sst->stats[sites[i].first + j];
			printf("  %8llu %12llu  %s\n", (unsigned long long)ss->allocs,
			       (unsigned long long)ss->bytes,
			       stack_name(r, ss->stack, buf, sizeof(buf)));
			st = kmt_stacks_find(r->stacks, ss->stack);
			for (k = st ? kmt_stack_from(st, addr) : 0; st && k < st->nr; k++)
				printf("  %23s%s\n", "", st->frames[k].sym);
		}
		if (sites[i].nr > r->p->stacks)
			printf("  ... %zu more stacks\n", sites[i].nr - r->p->stacks);
		printf("\n");
	}
}

/*
 * Per call site, the stacks that reached it: the sampled allocations of
 * the top call sites, by stack, each stack printed from the frame of the
 * call site outward.
 */
static void view_stacks(struct report *r, const struct stackstat *c, struct kmt_out *o)
{
	struct stack_site *sites = xcalloc(c->nr + 1, sizeof(*sites));
	struct stackstat copy = *c, *sst = &copy;
	uint64_t unlisted = 0, unlisted_allocs = 0;
	const struct stack_stat *ss;
	const struct kmt_stack *st;
	struct kmt_table tab;
	union kmt_cell *row;
	size_t i, j, n = 0;
	char *frames;

	/* Sorted by site, in a copy. */
	copy.stats = xmalloc((c->nr + 1) * sizeof(*copy.stats));
	if (c->nr) {
		memcpy(copy.stats, c->stats, c->nr * sizeof(*copy.stats));
		qsort_r(sst->stats, sst->nr, sizeof(*sst->stats), stack_stat_cmp, r);
	}
	for (i = 0; i < sst->nr; i++) {
		ss = &sst->stats[i];
		if (!n || sites[n - 1].site != ss->site) {
			sites[n].site = ss->site;
			sites[n++].first = i;
		}
		sites[n - 1].nr++;
		sites[n - 1].allocs += ss->allocs;
		add_u64_sat(&sites[n - 1].bytes, ss->bytes);
		if (!kmt_stacks_find(r->stacks, ss->stack)) {
			unlisted++;
			unlisted_allocs += ss->allocs;
		}
	}
	if (n)
		qsort_r(sites, n, sizeof(*sites), stack_site_cmp, r);
	if (o->format == KMT_TEXT) {
		printf("\nstacks of the allocations by call site, by bytes allocated");
		printf(" (top %llu of %zu, %llu stacks each):\n",
		       (unsigned long long)r->p->top, n,
		       (unsigned long long)r->p->stacks);
		printf("  %8s %12s  %s\n", "allocs", "bytes", "stack");
		stacks_text(r, sst, sites, n);
		printf("allocations with a stack: %llu (%llu bytes), without: %llu,",
		       (unsigned long long)sst->allocs,
		       (unsigned long long)sst->bytes,
		       (unsigned long long)sst->nostack);
		printf(" of which stack lost (depot full): %llu\n",
		       (unsigned long long)sst->lost);
		printf("stacks not in DIR/stacks: %llu, of %llu allocations\n",
		       (unsigned long long)unlisted,
		       (unsigned long long)unlisted_allocs);
		if (r->stacks->has_counts)
			printf("kernel: captured %llu, lost %llu, unlisted %llu\n",
			       (unsigned long long)r->stacks->captured,
			       (unsigned long long)r->stacks->lost,
			       (unsigned long long)r->stacks->unlisted);
		free(copy.stats);
		free(sites);
		return;
	}
	kmt_table_init(&tab, "stacks", stacks_cols, ARRAY_SIZE(stacks_cols));
	for (i = 0; i < n && i < r->p->top; i++) {
		for (j = 0; j < sites[i].nr && j < r->p->stacks; j++) {
			ss = &sst->stats[sites[i].first + j];
			row = kmt_table_row(&tab);
			row[0].u = r->sites.sites[ss->site].key;
			kmt_cell_str(&row[1], site_name(r, row[0].u));
			row[2].u = ss->stack;
			row[3].u = ss->allocs;
			row[4].u = ss->bytes;
			st = kmt_stacks_find(r->stacks, ss->stack);
			if (!st)
				continue;
			frames = stack_frames(st, row[0].u);
			kmt_cell_str(&row[5], frames);
			free(frames);
		}
	}
	kmt_out_table(o, &tab);
	kmt_table_free(&tab);
	kmt_out_u64(o, "stack_allocs", sst->allocs);
	kmt_out_u64(o, "stack_bytes", sst->bytes);
	kmt_out_u64(o, "nostack_allocs", sst->nostack);
	kmt_out_u64(o, "stack_lost", sst->lost);
	kmt_out_u64(o, "unlisted_stacks", unlisted);
	kmt_out_u64(o, "unlisted_allocs", unlisted_allocs);
	free(copy.stats);
	free(sites);
}

/* ---------------------------------------------------------------- views */

/*
 * A view that cannot be scaled from samples: frees (its frees without an
 * alloc and unpaired frees have no weight).
 */
static void view_not_sampled(const char *name, struct kmt_out *o)
{
	if (o->format == KMT_TEXT)
		printf("\n%s: not available for sampled traces\n", name);
	else
		kmt_out_str(o, "not_available", "sampled trace");
}

void report_views(struct report *r, const struct report_consumers *c,
		  const struct kmt_trace *t, const struct kmt_stats *st,
		  size_t errors, struct kmt_out *o)
{
	static const char * const names[NR_VIEWS] = {
		"summary", "sites", "caches", "live", "lifetimes", "frees",
		"pages", "gfp", "nodes", "allocinfo", "stacks",
	};
	struct summary s;
	unsigned int v;

	summary_build(r, c->sums, t, st, errors, &s);
	header_print(&s, o);
	for (v = 0; v < NR_VIEWS; v++) {
		if (!(r->p->views & (1u << v)))
			continue;
		kmt_out_object(o, names[v]);
		if (s.period && !((1u << v) & report_sampled_views())) {
			view_not_sampled(names[v], o);
			kmt_out_close(o);
			continue;
		}
		switch (v) {
		case VIEW_SUMMARY:
			view_summary(&s, o);
			break;
		case VIEW_SITES:
		case VIEW_CACHES:
			view_sites(r, c->sums, v, o);
			break;
		case VIEW_LIVE:
			view_live(r, o);
			break;
		case VIEW_LIFETIMES:
			view_lifetimes(r, c->lifetimes, o);
			break;
		case VIEW_FREES:
			view_frees(r, c->sums, c->mismatches, o);
			break;
		case VIEW_PAGES:
			view_pages(r, c->pages, o);
			break;
		case VIEW_GFP:
		case VIEW_NODES:
			view_keyed(r, c->keys, v, o);
			break;
		case VIEW_ALLOCINFO:
			view_allocinfo(r, c->allocinfo, o);
			break;
		case VIEW_STACKS:
			view_stacks(r, c->stacks, o);
			break;
		}
		kmt_out_close(o);
	}
	summary_free(&s);
}
