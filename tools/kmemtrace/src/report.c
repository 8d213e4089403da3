// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace report - analyse a recorded trace
 *
 * One pass over the events, merged in time order, replays every
 * allocation and free: a hash table holds the allocations still live,
 * hash maps add up what happened per call site, per cache, per gfp_flags
 * value and per node.  The views (report_views.c) then sort and print
 * what they need, symbolizing only the call sites they print.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kmemtrace.h"
#include "opts.h"
#include "report.h"
#include "utils.h"

static const char * const view_names[NR_VIEWS] = {
	[VIEW_SUMMARY]		= "summary",
	[VIEW_SITES]		= "sites",
	[VIEW_CACHES]		= "caches",
	[VIEW_LIVE]		= "live",
	[VIEW_LIFETIMES]	= "lifetimes",
	[VIEW_FREES]		= "frees",
	[VIEW_PAGES]		= "pages",
	[VIEW_GFP]		= "gfp",
	[VIEW_NODES]		= "nodes",
	[VIEW_ALLOCINFO]	= "allocinfo",
	[VIEW_STACKS]		= "stacks",
};

static const struct {
	const char *name;
	enum report_key key;
} key_names[] = {
	{ "bytes",	KEY_BYTES },
	{ "req",	KEY_REQ },
	{ "hits",	KEY_HITS },
	{ "allocs",	KEY_HITS },
	{ "count",	KEY_HITS },
	{ "waste",	KEY_WASTE },
	{ "frees",	KEY_FREES },
	{ "live",	KEY_LIVE },
	{ "pingpong",	KEY_PINGPONG },
	{ "lifetime",	KEY_LIFETIME },
	{ "age",	KEY_AGE },
	{ "mismatch",	KEY_MISMATCH },
};

static const char * const by_names[NR_BY] = {
	[BY_SITE]	= "site",
	[BY_FUNC]	= "func",
	[BY_LINE]	= "line",
	[BY_CACHE]	= "cache",
	[BY_TYPE]	= "type",
	[BY_PID]	= "pid",
	[BY_STACK]	= "stack",
};

enum {
	OPT_SORT = 256,
	OPT_BY,
	OPT_LIST,
	OPT_MIN_AGE,
	OPT_JSON,
	OPT_CSV,
	OPT_STACKS,
};

static const struct kmt_opt report_opts[] = {
	{ "vmlinux", 'k', "VMLINUX",
	  "symbolize call sites with this vmlinux (libdw),\n"
	  "with file:line when it has debug info" },
	{ "symbols", 's', "SYMFILE",
	  "use this kallsyms or System.map file instead of\n"
	  "DIR/kallsyms" },
	{ "view", 'v', "VIEW[,...]",
	  "what to print (default summary): summary, sites,\n"
	  "caches, live, lifetimes, frees, pages, gfp,\n"
	  "nodes, allocinfo (the change of /proc/allocinfo\n"
	  "per codetag, in its format), stacks (the stacks\n"
	  "of each call site, DIR/stacks), or all" },
	{ "top", 'n', "TOP", "print TOP rows per table (default 10)" },
	{ "sort", OPT_SORT, "KEY[,...]",
	  "sort rows by these keys, largest first: bytes,\n"
	  "req, hits (allocs), waste, frees, live, pingpong,\n"
	  "lifetime, age, mismatch" },
	{ "by", OPT_BY, "GROUP",
	  "group the live view by site (default), func,\n"
	  "line (file:line of the codetag in DIR/tags, else\n"
	  "of the call site with -k), cache, type, pid or\n"
	  "stack (the stack_id)" },
	{ "stacks", OPT_STACKS, "N",
	  "stacks view: up to N stacks per call site\n"
	  "(default 5)" },
	{ "list", OPT_LIST, NULL,
	  "live view: one line per live allocation" },
	{ "min-age", OPT_MIN_AGE, "AGE",
	  "live view: only allocations at least AGE old" },
	{ "json", OPT_JSON, NULL, "print one JSON document" },
	{ "csv", OPT_CSV, NULL, "print the tables as CSV" },
	{ "help", 'h', NULL, "print this help" },
};

const struct kmt_opt report_filter_opts[] = {
	{ "type", OPT_TYPE, "TYPE[,...]",
	  "only allocations of these types: kmalloc, cache,\n"
	  "pages, percpu, vmalloc" },
	{ "cpu", OPT_CPU, "CPUS",
	  "only allocations on these CPUs, e.g. 0,2-3" },
	{ "pid", OPT_PID, "PIDS", "only allocations by these pids" },
	{ "comm", OPT_COMM, "COMM[,...]",
	  "only allocations by tasks of these names\n"
	  "(DIR/comms)" },
	{ "time", OPT_TIME, "START,END",
	  "only events from START to END, in ns or with a\n"
	  "unit (1.5s, 20ms, 3us); either may be left out" },
	{ "site", OPT_SITE, "SITE[,...]",
	  "only allocations at these call sites: func,\n"
	  "func+0xoff or an address" },
	{ "cache", OPT_CACHE, "CACHE[,...]",
	  "only allocations of these caches, by name or id" },
	{ "module", OPT_MODULE, "MODULE[,...]",
	  "only allocations whose codetag (DIR/tags) is of\n"
	  "these modules; vmlinux: built in" },
};

const size_t report_nr_filter_opts = ARRAY_SIZE(report_filter_opts);

static void report_usage(int status)
{
	FILE *out = status ? stderr : stdout;

	fprintf(out,
		"  usage: kmemtrace report [OPTIONS] DIR\n"
		"\n"
		"  Analyse the trace \"kmemtrace record\" wrote to DIR.  Allocator\n"
		"  backing store (flag backing) is counted apart from the byte totals;\n"
		"  cache names come from DIR/caches.  Filters select allocations (with\n"
		"  their frees); --time selects events.  Byte totals that overflow 64\n"
		"  bits print as \"overflow\".  Warns when the symbols (kallsyms, -s,\n"
		"  -k) do not match the _text or build id in DIR/header.  DIR/tags and\n"
		"  DIR/stacks, when recorded, name the codetags and the stacks of the\n"
		"  events; traces of event ABI 1 are read too.  Exits 1 when no event\n"
		"  is valid.\n"
		"\n");
	kmt_opts_usage(out, report_opts, ARRAY_SIZE(report_opts));
	fprintf(out, "\n");
	kmt_opts_usage(out, report_filter_opts, report_nr_filter_opts);
	exit(status);
}

/* The usage of the command being parsed, report's or plot's. */
static void (*cmd_usage)(int status) = report_usage;
static const char *cmd_name = "report";

static __printf(1, 2) void report_bad_arg(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "kmemtrace: %s: ", cmd_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	cmd_usage(KMT_EXIT_USAGE);
}

/* Split a comma-separated list in place; return the number of items. */
static size_t split_list(char *s, char **items, size_t max)
{
	size_t n = 0;
	char *save, *item;

	for (item = strtok_r(s, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		if (n < max)
			items[n] = item;
		n++;
	}
	return n;
}

static void parse_views(const char *arg, struct report_params *p)
{
	char *copy = xstrdup(arg), *items[32];
	size_t i, j, n;

	n = split_list(copy, items, ARRAY_SIZE(items));
	if (!n || n > ARRAY_SIZE(items))
		report_bad_arg("bad view list '%s'", arg);
	for (i = 0; i < n; i++) {
		if (!strcmp(items[i], "all")) {
			p->views |= (1u << NR_VIEWS) - 1;
			continue;
		}
		for (j = 0; j < NR_VIEWS; j++)
			if (!strcmp(items[i], view_names[j]))
				break;
		if (j == NR_VIEWS)
			report_bad_arg("unknown view '%s'", items[i]);
		p->views |= 1u << j;
	}
	free(copy);
}

static void parse_sort(const char *arg, struct report_params *p)
{
	char *copy = xstrdup(arg), *items[REPORT_MAX_KEYS + 1];
	size_t i, j, n;

	n = split_list(copy, items, ARRAY_SIZE(items));
	if (!n || n > REPORT_MAX_KEYS)
		report_bad_arg("--sort takes 1 to %d keys: '%s'", REPORT_MAX_KEYS,
			       arg);
	memset(p->sort, 0, sizeof(p->sort));
	for (i = 0; i < n; i++) {
		for (j = 0; j < ARRAY_SIZE(key_names); j++)
			if (!strcmp(items[i], key_names[j].name))
				break;
		if (j == ARRAY_SIZE(key_names))
			report_bad_arg("unknown sort key '%s'", items[i]);
		p->sort[i] = key_names[j].key;
	}
	free(copy);
}

static void parse_types(const char *arg, struct report_filter *f)
{
	char *copy = xstrdup(arg), *items[16];
	unsigned int type;
	size_t i, n;

	n = split_list(copy, items, ARRAY_SIZE(items));
	if (!n || n > ARRAY_SIZE(items))
		report_bad_arg("bad type list '%s'", arg);
	for (i = 0; i < n; i++) {
		for (type = KMEMTRACE_TYPE_KMALLOC; type <= KMEMTRACE_TYPE_VMALLOC; type++)
			if (!strcmp(items[i], kmt_type_name(type)))
				break;
		if (type > KMEMTRACE_TYPE_VMALLOC)
			report_bad_arg("unknown type '%s'", items[i]);
		f->types |= 1u << type;
	}
	free(copy);
}

static int u64_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* "N", "N-M", comma-separated, into a sorted set. */
static void parse_ranges(const char *opt, const char *arg, struct u64_set *set,
			 uint64_t max)
{
	char *copy = xstrdup(arg), *item, *save, *dash;
	uint64_t lo, hi, v;

	for (item = strtok_r(copy, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		dash = strchr(item, '-');
		if (dash)
			*dash = '\0';
		if (parse_u64(item, &lo) || (dash && parse_u64(dash + 1, &hi)))
			report_bad_arg("bad number in %s '%s'", opt, arg);
		if (!dash)
			hi = lo;
		if (hi < lo || hi > max || hi - lo >= 1 << 20)
			report_bad_arg("bad range in %s '%s'", opt, arg);
		for (v = lo; v <= hi; v++) {
			set->v = xrealloc(set->v, (set->nr + 1) * sizeof(*set->v));
			set->v[set->nr++] = v;
		}
	}
	if (!set->nr)
		report_bad_arg("empty %s list", opt);
	qsort(set->v, set->nr, sizeof(*set->v), u64_cmp);
	free(copy);
}

static void parse_names(const char *arg, struct name_list *l)
{
	char *copy = xstrdup(arg), *item, *save;

	for (item = strtok_r(copy, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		l->names = xrealloc(l->names, (l->nr + 1) * sizeof(*l->names));
		l->names[l->nr++] = xstrdup(item);
	}
	free(copy);
}

/*
 * A duration or a time stamp: nanoseconds, or a decimal number with a
 * unit, ns, us, ms or s.  Return -EINVAL if @s is not one.
 */
static int parse_ns(const char *s, uint64_t *ns)
{
	static const struct {
		const char *unit;
		uint64_t scale;
	} units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		{ "s", 1000000000 }, { "", 1 },
	};
	uint64_t whole = 0, frac = 0, div = 1;
	const char *p = s;
	size_t i;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++)
		if (__builtin_mul_overflow(whole, 10, &whole) ||
		    __builtin_add_overflow(whole, *p - '0', &whole))
			return -EINVAL;
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (div >= 1000000000)
				continue;
			frac = frac * 10 + (*p - '0');
			div *= 10;
		}
	}
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcmp(p, units[i].unit))
			continue;
		/* A fraction of a nanosecond is no time stamp. */
		if (units[i].scale == 1 && div > 1)
			return -EINVAL;
		if (__builtin_mul_overflow(whole, units[i].scale, ns) ||
		    __builtin_add_overflow(*ns, frac * units[i].scale / div, ns))
			return -EINVAL;
		return 0;
	}
	return -EINVAL;
}

static void parse_time(const char *arg, struct report_filter *f)
{
	char *copy = xstrdup(arg), *comma = strchr(copy, ',');

	if (!comma)
		report_bad_arg("--time takes START,END: '%s'", arg);
	*comma = '\0';
	f->time = true;
	f->start = 0;
	f->end = UINT64_MAX;
	if ((*copy && parse_ns(copy, &f->start)) ||
	    (comma[1] && parse_ns(comma + 1, &f->end)) || f->end < f->start)
		report_bad_arg("bad --time '%s'", arg);
	free(copy);
}

/* Note an option in the filter line the views print. */
static void note_filter(struct report_params *p, const char *opt,
			const char *arg)
{
	size_t len = p->filter_text ? strlen(p->filter_text) : 0;

	p->filter_text = xrealloc(p->filter_text,
				  len + strlen(opt) + strlen(arg) + 5);
	sprintf(p->filter_text + len, "%s--%s %s", len ? " " : "", opt, arg);
}

bool report_filter_arg(int c, const char *arg, struct report_params *p,
		       void (*usage)(int status), const char *cmd)
{
	size_t i;

	cmd_usage = usage;
	cmd_name = cmd;
	switch (c) {
	case OPT_TYPE:
		parse_types(arg, &p->filter);
		break;
	case OPT_CPU:
		parse_ranges("--cpu", arg, &p->filter.cpus, UINT32_MAX);
		break;
	case OPT_PID:
		parse_ranges("--pid", arg, &p->filter.pids, UINT32_MAX);
		break;
	case OPT_COMM:
		parse_names(arg, &p->filter.comms);
		break;
	case OPT_TIME:
		parse_time(arg, &p->filter);
		break;
	case OPT_SITE:
		parse_names(arg, &p->filter.sites);
		break;
	case OPT_CACHE:
		parse_names(arg, &p->filter.caches);
		break;
	case OPT_MODULE:
		parse_names(arg, &p->filter.modules);
		break;
	default:
		return false;
	}
	for (i = 0; i < report_nr_filter_opts; i++)
		if (report_filter_opts[i].val == c)
			note_filter(p, report_filter_opts[i].name, arg);
	return true;
}

static void report_parse_args(int argc, char **argv, struct report_params *p)
{
	struct option *long_options;
	struct kmt_opt *opts;
	char *short_options;
	size_t n;
	int c, i;

	memset(p, 0, sizeof(*p));
	p->top = 10;
	opts = kmt_opts_join(report_opts, ARRAY_SIZE(report_opts),
			     report_filter_opts, report_nr_filter_opts, &n);
	long_options = xcalloc(n + 1, sizeof(*long_options));
	short_options = xcalloc(2 * n + 1, 1);
	kmt_opts_getopt(opts, n, long_options, short_options);
	while ((c = getopt_long(argc, argv, short_options, long_options,
				NULL)) != -1) {
		if (report_filter_arg(c, optarg, p, report_usage, "report"))
			continue;
		switch (c) {
		case 'k':
			p->vmlinux = optarg;
			break;
		case 's':
			p->symfile = optarg;
			break;
		case 'v':
			parse_views(optarg, p);
			break;
		case 'n':
			if (parse_u64(optarg, &p->top)) {
				kmt_err("report: bad number for -n: '%s'", optarg);
				report_usage(KMT_EXIT_USAGE);
			}
			break;
		case OPT_SORT:
			parse_sort(optarg, p);
			break;
		case OPT_BY:
			for (i = 0; i < NR_BY; i++)
				if (!strcmp(optarg, by_names[i]))
					break;
			if (i == NR_BY)
				report_bad_arg("unknown --by group '%s'", optarg);
			p->by = i;
			break;
		case OPT_LIST:
			p->list = true;
			break;
		case OPT_MIN_AGE:
			if (parse_ns(optarg, &p->min_age))
				report_bad_arg("bad --min-age '%s'", optarg);
			break;
		case OPT_JSON:
			p->format = KMT_JSON;
			break;
		case OPT_STACKS:
			if (parse_u64(optarg, &p->stacks) || !p->stacks)
				report_bad_arg("bad number for --stacks: '%s'", optarg);
			break;
		case OPT_CSV:
			p->format = KMT_CSV;
			break;
		case 'h':
			report_usage(0);
			break;
		default:
			report_usage(KMT_EXIT_USAGE);
		}
	}
	free(opts);
	free(long_options);
	free(short_options);
	if (optind != argc - 1) {
		kmt_err("report: expected one DIR argument");
		report_usage(KMT_EXIT_USAGE);
	}
	p->dir = argv[optind];
	if (!p->views)
		p->views = 1u << VIEW_SUMMARY;
	if ((p->list || p->min_age) && !(p->views & (1u << VIEW_LIVE)))
		report_bad_arg("--list and --min-age are for --view live");
	if (p->by && !(p->views & (1u << VIEW_LIVE)))
		report_bad_arg("--by is for --view live");
	if (p->stacks && !(p->views & (1u << VIEW_STACKS)))
		report_bad_arg("--stacks is for --view stacks");
	if (!p->stacks)
		p->stacks = 5;
	if (p->sort[0] && !report_sort_applies(p->views, p->sort))
		report_bad_arg("no view asked for sorts by these --sort keys");
}

void report_params_free(struct report_params *p)
{
	struct name_list *lists[] = {
		&p->filter.comms, &p->filter.sites, &p->filter.caches,
		&p->filter.modules,
	};
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(lists); i++) {
		for (j = 0; j < lists[i]->nr; j++)
			free(lists[i]->names[j]);
		free(lists[i]->names);
	}
	free(p->filter.cpus.v);
	free(p->filter.pids.v);
	free(p->filter_text);
}

/* ---------------------------------------------------------- live table */

/*
 * Slab objects pair whatever API typed them: a kmem_cache merged into a
 * kmalloc cache, or a kmalloc() from a kmem_buckets cache, is allocated
 * with one type and freed by kfree() with the other.
 */
static unsigned int pair_type(unsigned int type)
{
	return type == KMEMTRACE_TYPE_CACHE ? KMEMTRACE_TYPE_KMALLOC : type;
}

static size_t live_hash(unsigned int family, uint64_t ptr, unsigned int bits)
{
	return kmt_hash64(ptr ^ family, bits);
}

static void live_free(struct live_table *lt)
{
	if (lt->bits)
		xfree_table(lt->slots, sizeof(*lt->slots) << lt->bits);
	memset(lt, 0, sizeof(*lt));
}

static void live_grow(struct live_table *lt)
{
	unsigned int bits = lt->bits ? lt->bits + 1 : 12;
	size_t i, slot, mask = ((size_t)1 << bits) - 1;
	struct live_obj *slots;

	slots = xalloc_table((mask + 1) * sizeof(*slots));
	for (i = 0; lt->bits && i < (size_t)1 << lt->bits; i++) {
		if (!lt->slots[i].family)
			continue;
		slot = live_hash(lt->slots[i].family, lt->slots[i].ptr, bits);
		while (slots[slot].family)
			slot = (slot + 1) & mask;
		slots[slot] = lt->slots[i];
	}
	if (lt->bits)
		xfree_table(lt->slots, sizeof(*lt->slots) << lt->bits);
	lt->slots = slots;
	lt->bits = bits;
}

/*
 * Make room for @n more allocations, so that the slots stay where they
 * are while they are added: the table is at most a quarter full, and
 * the runs after a removed slot are short.
 */
static void live_reserve(struct live_table *lt, size_t n)
{
	while (!lt->bits || lt->nr + n > (size_t)1 << (lt->bits - 2))
		live_grow(lt);
}

/*
 * The slot of memory @family, @ptr, from its home slot @slot on: live, or
 * the empty slot to fill in.
 */
static inline struct live_obj *live_probe(struct live_table *lt, size_t slot,
					  unsigned int family, uint64_t ptr)
{
	size_t mask = ((size_t)1 << lt->bits) - 1;
	struct live_obj *o;

	for (;; slot = (slot + 1) & mask) {
		o = &lt->slots[slot];
		if (!o->family || (o->ptr == ptr && o->family == family))
			return o;
	}
}

/* The live allocation of memory @family, @ptr, or NULL. */
static struct live_obj *live_find(struct live_table *lt, unsigned int family,
				  uint64_t ptr)
{
	struct live_obj *o;

	if (!lt->nr)
		return NULL;
	o = live_probe(lt, live_hash(family, ptr, lt->bits), family, ptr);
	return o->family ? o : NULL;
}

/* End the live allocation in slot @o. */
static void live_remove(struct live_table *lt, struct live_obj *o)
{
	size_t mask = ((size_t)1 << lt->bits) - 1;
	size_t hole = o - lt->slots, slot = hole, home;
	struct live_obj *s;

	/* Move back every slot that probed past the hole. */
	for (;;) {
		slot = (slot + 1) & mask;
		s = &lt->slots[slot];
		if (!s->family)
			break;
		home = live_hash(s->family, s->ptr, lt->bits);
		if (((slot - home) & mask) < ((slot - hole) & mask))
			continue;
		lt->slots[hole] = *s;
		hole = slot;
	}
	lt->slots[hole].family = 0;
	lt->nr--;
}

/* --------------------------------------------------------------- sites */

/* The index of the site of @key, added if new. */
static uint32_t site_index(struct site_table *tab, uint64_t key)
{
	uint32_t i;
	bool added;

	if (kmt_map_find(&tab->map, key, &i))
		return i;
	i = kmt_map_insert(&tab->map, key, tab->nr, &added);
	if (tab->nr == tab->size) {
		tab->size = tab->size ? 2 * tab->size : 256;
		tab->sites = xrealloc(tab->sites, tab->size * sizeof(*tab->sites));
	}
	memset(&tab->sites[i], 0, sizeof(tab->sites[i]));
	tab->sites[i].key = key;
	tab->nr++;
	return i;
}

/* The site of @key, added if new; valid until the next site is added. */
static struct site *site_get(struct site_table *tab, uint64_t key)
{
	uint32_t i = site_index(tab, key);

	return &tab->sites[i];
}

static void site_table_free(struct site_table *tab)
{
	kmt_map_free(&tab->map);
	free(tab->sites);
	memset(tab, 0, sizeof(*tab));
}

static void vec_push(struct u64_vec *v, uint64_t x)
{
	if (v->nr == v->size) {
		v->size = v->size ? 2 * v->size : 16;
		v->v = xrealloc(v->v, v->size * sizeof(*v->v));
	}
	v->v[v->nr++] = x;
}

/* ------------------------------------------------------------- filters */

static bool in_set(const struct u64_set *set, uint64_t v)
{
	return bsearch(&v, set->v, set->nr, sizeof(*set->v), u64_cmp);
}

/* Whether a --site item names the call site @addr, printed as @name. */
static bool site_matches(const char *spec, uint64_t addr, const char *name)
{
	size_t len = strlen(spec);
	uint64_t v;

	if (spec[0] >= '0' && spec[0] <= '9')
		return !parse_u64(spec, &v) && v == addr;
	/* "func", "func+0xoff", or all of "func+0xoff [mod]". */
	return !strncmp(name, spec, len) &&
	       (!name[len] || name[len] == ' ' ||
		(name[len] == '+' && !strchr(spec, '+')));
}

static bool site_selected(struct report *r, struct site *site)
{
	const struct name_list *l = &r->p->filter.sites;
	const char *name;
	size_t i;

	if (site->selected == SITE_UNKNOWN) {
		site->selected = SITE_SKIPPED;
		name = kmt_symcache_name(&r->names, site->key, NULL);
		for (i = 0; i < l->nr; i++)
			if (site_matches(l->names[i], site->key, name))
				site->selected = SITE_SELECTED;
	}
	return site->selected == SITE_SELECTED;
}

static bool cache_selected(const struct report *r, uint32_t id)
{
	const struct name_list *l = &r->p->filter.caches;
	const char *name = kmt_caches_name(r->caches_file, id);
	uint64_t v;
	size_t i;

	for (i = 0; i < l->nr; i++) {
		if (!parse_u64(l->names[i], &v) ? v == id :
		    name && !strcmp(name, l->names[i]))
			return true;
	}
	return false;
}

static bool pid_selected(struct report *r, uint32_t pid)
{
	const struct name_list *l = &r->p->filter.comms;
	uint32_t sel;
	size_t i;

	if (kmt_map_find(&r->pid_selected, pid, &sel))
		return sel;
	sel = 0;
	for (i = 0; i < l->nr && !sel; i++)
		sel = kmt_comms_match(r->comms, pid, l->names[i]);
	kmt_map_insert(&r->pid_selected, pid, sel, NULL);
	return sel;
}

/* Whether the codetag @tag is of a module of --module. */
static bool module_selected(struct report *r, uint64_t tag)
{
	const struct name_list *l = &r->p->filter.modules;
	const struct kmt_tag *t;
	const char *name;
	uint32_t sel;
	size_t i;

	if (!tag)
		return false;
	if (kmt_map_find(&r->module_selected, tag, &sel))
		return sel;
	sel = 0;
	t = kmt_tags_find(r->tags, tag);
	name = !t ? NULL : t->module ? t->module : "vmlinux";
	for (i = 0; i < l->nr && name && !sel; i++)
		sel = !strcmp(name, l->names[i]);
	kmt_map_insert(&r->module_selected, tag, sel, NULL);
	return sel;
}

/* Whether the filters select an allocation (or a free without one). */
static bool event_selected(struct report *r, const struct kmemtrace_event *ev,
			   struct site *site)
{
	const struct report_filter *f = &r->p->filter;

	if (f->types && !(f->types & (1u << ev->type)))
		return false;
	if (f->cpus.nr && !in_set(&f->cpus, ev->cpu))
		return false;
	if (f->pids.nr && !in_set(&f->pids, ev->pid))
		return false;
	if (f->comms.nr && !pid_selected(r, ev->pid))
		return false;
	if (f->caches.nr && (ev->type != KMEMTRACE_TYPE_CACHE ||
			     !cache_selected(r, ev->cache_id)))
		return false;
	if (f->sites.nr && !site_selected(r, site))
		return false;
	if (f->modules.nr && !module_selected(r, ev->tag))
		return false;
	return true;
}

/* --------------------------------------------------------------- origins */

static uint32_t tag_index(struct report *r, uint64_t tag)
{
	uint32_t i;
	bool added;

	if (kmt_map_find(&r->tag_map, tag, &i))
		return i;
	i = kmt_map_insert(&r->tag_map, tag, r->nr_tag_addrs, &added);
	if (r->nr_tag_addrs == r->size_tag_addrs) {
		r->size_tag_addrs = r->size_tag_addrs ? 2 * r->size_tag_addrs : 256;
		r->tag_addrs = xrealloc(r->tag_addrs, r->size_tag_addrs *
					sizeof(*r->tag_addrs));
	}
	r->tag_addrs[r->nr_tag_addrs++] = tag;
	return i;
}

static uint32_t origin_add(struct report *r, uint64_t tag, uint32_t stack)
{
	uint32_t ti = tag_index(r, tag), i;
	uint64_t key = (uint64_t)ti << 32 | stack;
	struct origin *o;
	bool added;

	if (kmt_map_find(&r->origin_map, key, &i))
		return i;
	i = kmt_map_insert(&r->origin_map, key, r->nr_origins, &added);
	if (r->nr_origins == r->size_origins) {
		r->size_origins = r->size_origins ? 2 * r->size_origins : 256;
		r->origins = xrealloc(r->origins, r->size_origins *
				      sizeof(*r->origins));
	}
	o = &r->origins[r->nr_origins++];
	o->tag = tag;
	o->stack = stack;
	o->tag_index = ti;
	return i;
}

/* The origin of an alloc: 0, without a tag and a stack, needs no lookup. */
static inline uint32_t event_origin(struct report *r,
				    const struct kmemtrace_event *ev)
{
	if (!(ev->tag | ev->stack_id))
		return 0;
	return origin_add(r, ev->tag, ev->stack_id);
}

/* --------------------------------------------------------------- stacks */

/* A selected alloc at site @si, for the stacks view. */
static void count_stack(struct report *r, const struct kmemtrace_event *ev,
			uint32_t si)
{
	uint64_t key = (uint64_t)si << 32 | ev->stack_id;
	struct stack_stat *s;
	uint32_t i;
	bool added;

	if (ev->flags & KMEMTRACE_FLAG_STACK_LOST)
		r->stack_lost++;
	if (!ev->stack_id) {
		r->nostack_allocs++;
		return;
	}
	r->stack_allocs++;
	r->overflow |= add_u64_sat(&r->stack_bytes, ev->bytes_alloc);
	if (!kmt_map_find(&r->stack_map, key, &i)) {
		i = kmt_map_insert(&r->stack_map, key, r->nr_stack_stats, &added);
		if (r->nr_stack_stats == r->size_stack_stats) {
			r->size_stack_stats = r->size_stack_stats ?
					      2 * r->size_stack_stats : 256;
			r->stack_stats = xrealloc(r->stack_stats, r->size_stack_stats *
						  sizeof(*r->stack_stats));
		}
		s = &r->stack_stats[r->nr_stack_stats++];
		memset(s, 0, sizeof(*s));
		s->site = si;
		s->stack = ev->stack_id;
	}
	s = &r->stack_stats[i];
	s->allocs++;
	r->overflow |= add_u64_sat(&s->bytes, ev->bytes_alloc);
}

/* ------------------------------------------------------------ allocinfo */

/* The counters of tag index @ti. */
static struct ai_count *ai_get(struct report *r, uint32_t ti)
{
	size_t n;

	if (ti >= r->nr_ai) {
		n = r->size_tag_addrs > ti ? r->size_tag_addrs : ti + 1;
		r->ai = xrealloc(r->ai, n * sizeof(*r->ai));
		memset(r->ai + r->nr_ai, 0, (n - r->nr_ai) * sizeof(*r->ai));
		r->nr_ai = n;
	}
	return &r->ai[ti];
}

/*
 * A selected alloc @o of @ev, live now: the tag it carries was touched,
 * and, but for a vmalloc area (allocinfo counts its pages and page array,
 * which have events of their own) and memory flagged uncharged, it
 * counts one call and its bytes.
 */
static void ai_alloc(struct report *r, const struct kmemtrace_event *ev,
		     struct live_obj *o)
{
	uint32_t ti = r->origins[o->origin].tag_index;
	struct ai_count *c;

	o->counted = 0;
	if (!ti)
		return;
	c = ai_get(r, ti);
	c->touched = true;
	/* Nor memory the allocator did not charge to the tag. */
	if (ev->type == KMEMTRACE_TYPE_VMALLOC ||
	    (ev->flags & KMEMTRACE_FLAG_UNCHARGED))
		return;
	c->calls++;
	c->bytes += ev->bytes_alloc;
	o->counted = 1;
}

/* The free of a live alloc @o: take back what it counted. */
static void ai_free(struct report *r, const struct live_obj *o)
{
	struct ai_count *c;

	if (!o->counted)
		return;
	c = ai_get(r, r->origins[o->origin].tag_index);
	c->calls--;
	c->bytes -= o->bytes;
}

/*
 * A realloc in place of live alloc @o, to @bytes: it keeps the alloc's
 * tag, whose bytes change by the difference; its own tag was touched.
 */
static void ai_realloc(struct report *r, const struct kmemtrace_event *ev,
		       const struct live_obj *o)
{
	struct ai_count *c;

	if (ev->tag && (!r->filtering || o->selected))
		ai_get(r, tag_index(r, ev->tag))->touched = true;
	if (!o->counted)
		return;
	c = ai_get(r, r->origins[o->origin].tag_index);
	c->bytes += (int64_t)(ev->bytes_alloc - o->bytes);
}

/*
 * A backing event, which the other views leave out: allocinfo counts the
 * slab pages under mm/slub.c's line, a vmalloc area's pages and page
 * array under the caller's.  They pair in a live table of their own.
 */
static void ai_backing(struct report *r, const struct kmemtrace_event *ev)
{
	unsigned int family = pair_type(ev->type);
	struct live_table *lt = &r->backing_live;
	struct live_obj *o;
	bool sel;

	live_reserve(lt, 1);
	o = live_probe(lt, live_hash(family, ev->ptr, lt->bits), family, ev->ptr);
	if (ev->kind == KMEMTRACE_KIND_FREE) {
		if (!o->family) {
			r->ai_free_unknown++;
			return;
		}
		ai_free(r, o);
		live_remove(lt, o);
		return;
	}
	if (ev->kind == KMEMTRACE_KIND_REALLOC) {
		if (!o->family) {
			r->ai_realloc_unknown++;
			return;
		}
		ai_realloc(r, ev, o);
		o->bytes = ev->bytes_alloc;
		return;
	}
	sel = !r->filtering ||
	      event_selected(r, ev, site_get(&r->sites, ev->call_site));
	if (!o->family) {
		o->ptr = ev->ptr;
		o->family = family;
		lt->nr++;
	}
	o->bytes = ev->bytes_alloc;
	o->origin = event_origin(r, ev);
	o->selected = sel;
	o->counted = 0;
	if (sel)
		ai_alloc(r, ev, o);
}

/* ---------------------------------------------------------------- pass */

static bool want(const struct report *r, enum report_view v)
{
	return r->p->views & (1u << v);
}

static void count_key(struct report *r, struct site_table *tab, uint64_t key,
		      uint64_t bytes)
{
	struct site *s = site_get(tab, key);

	s->allocs++;
	r->overflow |= add_u64_sat(&s->alloc, bytes);
}

/* A page event, for the pages view. */
static void account_pages(struct report *r, const struct kmemtrace_event *ev)
{
	unsigned int order = ev->order < REPORT_MAX_ORDER ? ev->order :
			     REPORT_MAX_ORDER - 1;
	unsigned int mt = ev->migratetype < REPORT_MAX_MT ? ev->migratetype :
			  REPORT_MAX_MT - 1;

	if (ev->kind == KMEMTRACE_KIND_ALLOC) {
		r->page_allocs[order][mt]++;
		r->overflow |= add_u64_sat(&r->page_bytes[order], ev->bytes_alloc);
	} else if (ev->kind == KMEMTRACE_KIND_FREE) {
		r->page_frees[order]++;
	}
}

/* An allocation: @slot is the home slot of its memory, @si its site. */
static void account_alloc(struct report *r, const struct kmemtrace_event *ev,
			  size_t slot, uint32_t si)
{
	struct site *site = &r->sites.sites[si], *cache;
	unsigned int family = pair_type(ev->type);
	struct live_obj *o;
	bool sel;

	sel = !r->filtering || event_selected(r, ev, site);
	o = live_probe(&r->live, slot, family, ev->ptr);
	if (o->family) {
		/* Memory allocated twice: its free was not seen. */
		r->double_allocs++;
		if (r->plot && o->selected)
			plot_resize(r, o, 0);
	} else {
		o->ptr = ev->ptr;
		o->family = family;
		r->live.nr++;
	}
	o->ts = ev->timestamp;
	o->bytes = ev->bytes_alloc;
	o->site = si;
	o->cpu = ev->cpu;
	o->pid = ev->pid;
	o->cache_id = ev->cache_id;
	o->origin = event_origin(r, ev);
	o->type = ev->type;
	o->selected = sel;
	o->counted = 0;
	if (!sel)
		return;
	if (r->allocinfo)
		ai_alloc(r, ev, o);
	if (r->stacks_view)
		count_stack(r, ev, si);
	if (r->plot)
		plot_alloc(r, o);
	r->selected++;
	site->allocs++;
	r->overflow |= add_u64_sat(&site->req, ev->bytes_req);
	r->overflow |= add_u64_sat(&site->alloc, ev->bytes_alloc);
	if (ev->type == KMEMTRACE_TYPE_CACHE) {
		cache = site_get(&r->caches, ev->cache_id);
		cache->allocs++;
		r->overflow |= add_u64_sat(&cache->req, ev->bytes_req);
		r->overflow |= add_u64_sat(&cache->alloc, ev->bytes_alloc);
	}
	if (r->gfp)
		count_key(r, &r->gfps, ev->gfp_flags, ev->bytes_alloc);
	if (r->nodes_view)
		count_key(r, &r->nodes, (uint32_t)ev->node, ev->bytes_alloc);
}

static void add_mismatch(struct report *r, const struct live_obj *o,
			 const struct kmemtrace_event *ev)
{
	struct mismatch *m;

	if (r->nr_mismatches == r->size_mismatches) {
		r->size_mismatches = r->size_mismatches ? 2 * r->size_mismatches : 16;
		r->mismatches = xrealloc(r->mismatches, r->size_mismatches *
					 sizeof(*r->mismatches));
	}
	m = &r->mismatches[r->nr_mismatches++];
	m->alloc_site = o->site;
	m->free_site = site_index(&r->sites, ev->call_site);
	m->alloc_type = o->type;
	m->free_type = ev->type;
	m->alloc_cache = o->type == KMEMTRACE_TYPE_CACHE ? o->cache_id : 0;
	m->free_cache = ev->type == KMEMTRACE_TYPE_CACHE ? ev->cache_id : 0;
	m->count = 1;
	r->sites.sites[o->site].mismatched++;
}

/*
 * A free of memory not live in its family: memory allocated before the
 * trace, or memory of another API (a vmalloc() freed by kfree(), ...),
 * which is reported and stays live, as it was not freed.
 */
static void account_unknown_free(struct report *r,
				 const struct kmemtrace_event *ev)
{
	static const unsigned int families[] = {
		KMEMTRACE_TYPE_KMALLOC, KMEMTRACE_TYPE_PAGES,
		KMEMTRACE_TYPE_PERCPU, KMEMTRACE_TYPE_VMALLOC,
	};
	struct live_obj *o;
	struct site *site;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(families); i++) {
		if (families[i] == pair_type(ev->type))
			continue;
		o = live_find(&r->live, families[i], ev->ptr);
		if (o) {
			if (o->selected)
				add_mismatch(r, o, ev);
			return;
		}
	}
	site = site_get(&r->sites, ev->call_site);
	if (r->filtering && !event_selected(r, ev, site))
		return;
	site->unknown++;
	site->unknown_types |= 1u << ev->type;
}

/* What a free of a selected allocation @o adds up. */
static void account_free_of(struct report *r, const struct kmemtrace_event *ev,
			    const struct live_obj *o)
{
	struct site *site = &r->sites.sites[o->site], *cache = NULL;
	uint64_t life = ev->timestamp - o->ts;

	site->frees++;
	r->overflow |= add_u64_sat(&site->life, life);
	if (ev->cpu != o->cpu)
		site->xcpu++;
	if (r->plot)
		plot_free(r, o, life);
	if (r->lifetimes_view) {
		if (o->site >= r->nr_lifetimes) {
			size_t n = r->sites.size;

			r->lifetimes = xrealloc(r->lifetimes,
						n * sizeof(*r->lifetimes));
			memset(r->lifetimes + r->nr_lifetimes, 0,
			       (n - r->nr_lifetimes) * sizeof(*r->lifetimes));
			r->nr_lifetimes = n;
		}
		vec_push(&r->lifetimes[o->site], life);
	}
	if (o->type == KMEMTRACE_TYPE_CACHE) {
		cache = site_get(&r->caches, o->cache_id);
		cache->frees++;
		r->overflow |= add_u64_sat(&cache->life, life);
		if (ev->cpu != o->cpu)
			cache->xcpu++;
	}
	/* kmalloc and cache pair, but of one cache only. */
	if (o->type != ev->type ||
	    (o->type == KMEMTRACE_TYPE_CACHE && o->cache_id != ev->cache_id)) {
		add_mismatch(r, o, ev);
		if (cache)
			cache->mismatched++;
	}
}

/* A free: @slot is the home slot of its memory. */
static void account_free(struct report *r, const struct kmemtrace_event *ev,
			 size_t slot)
{
	struct live_obj *o;

	o = live_probe(&r->live, slot, pair_type(ev->type), ev->ptr);
	if (!o->family) {
		if (!r->summary_only)
			account_unknown_free(r, ev);
		r->ai_free_unknown++;
		return;
	}
	if (r->allocinfo)
		ai_free(r, o);
	/* The summary does not look at frees, nor at their allocation. */
	if (!r->summary_only && o->selected)
		account_free_of(r, ev, o);
	live_remove(&r->live, o);
}

/* A resize in place: @slot is the home slot of its memory. */
static void account_realloc(struct report *r, const struct kmemtrace_event *ev,
			    size_t slot)
{
	struct live_obj *o;

	o = live_probe(&r->live, slot, pair_type(ev->type), ev->ptr);
	if (!o->family) {
		r->ai_realloc_unknown++;
		if (r->allocinfo && ev->tag && !r->filtering)
			ai_get(r, tag_index(r, ev->tag))->touched = true;
		return;
	}
	if (r->allocinfo)
		ai_realloc(r, ev, o);
	if (r->plot && o->selected)
		plot_resize(r, o, ev->bytes_alloc);
	o->bytes = ev->bytes_alloc;
}

/* Backing store events are only counted, unpaired frees skipped. */
static void account_backing(struct report *r, const struct kmemtrace_event *ev)
{
	if (r->allocinfo && !kmt_event_is_unpaired(ev))
		ai_backing(r, ev);
	if (kmt_event_is_unpaired(ev)) {
		r->unpaired++;
	} else if (ev->kind == KMEMTRACE_KIND_ALLOC) {
		r->backing_allocs++;
		r->overflow |= add_u64_sat(&r->backing_bytes, ev->bytes_alloc);
	} else if (ev->kind == KMEMTRACE_KIND_FREE) {
		r->backing_frees++;
	}
}

/*
 * Replay a batch of events, in order: an alloc makes its memory (type and
 * pointer) live with its size, a realloc of live memory changes the size,
 * a free ends it.  Memory live at the end is still allocated.  Memory
 * allocated before the trace started is not counted, even when a realloc
 * shows it.
 *
 * Events come in faster than the tables answer, as memory is freed in
 * another order than it was allocated and call sites come in any order:
 * the slots and the sites of a batch are looked up first, so that the
 * CPU fetches them all at once, then the events are replayed, finding
 * what they need in the CPU caches.
 */
static void account_batch(struct report *r, const struct kmemtrace_event **ev,
			  size_t n)
{
	const unsigned int special = KMEMTRACE_FLAG_BACKING | KMEMTRACE_FLAG_UNPAIRED;
	size_t slot[KMT_MERGE_BATCH], mask;
	uint32_t si[KMT_MERGE_BATCH];
	const struct kmemtrace_event *e;
	struct live_obj *slots;
	size_t i;

	/* The slots stay where they are during the batch. */
	live_reserve(&r->live, n);
	slots = r->live.slots;
	mask = ((size_t)1 << r->live.bits) - 1;
	for (i = 0; i < n; i++) {
		e = ev[i];
		slot[i] = live_hash(pair_type(e->type), e->ptr, r->live.bits);
		/* A removal looks at the next slot too. */
		__builtin_prefetch(&slots[slot[i]], 1);
		__builtin_prefetch((char *)&slots[slot[i]] + 63, 1);
		__builtin_prefetch(&slots[(slot[i] + 1) & mask].pad, 1);
		if (e->kind != KMEMTRACE_KIND_ALLOC || (e->flags & special))
			continue;
		if (!kmt_map_find(&r->sites.map, e->call_site, &si[i]))
			si[i] = site_index(&r->sites, e->call_site);
		__builtin_prefetch(&r->sites.sites[si[i]], 1);
	}
	if (!r->events)
		r->first_ts = ev[0]->timestamp;
	r->events += n;
	r->last_ts = ev[n - 1]->timestamp;
	for (i = 0; i < n; i++) {
		e = ev[i];
		if (r->plot)
			plot_time(r, e->timestamp);
		r->count[e->kind][e->type]++;
		if (r->pages && e->type == KMEMTRACE_TYPE_PAGES)
			account_pages(r, e);
		if (e->flags & special) {
			account_backing(r, e);
			continue;
		}
		if (e->kind == KMEMTRACE_KIND_ALLOC)
			account_alloc(r, e, slot[i], si[i]);
		else if (e->kind == KMEMTRACE_KIND_FREE)
			account_free(r, e, slot[i]);
		else
			account_realloc(r, e, slot[i]);
	}
}

/* Replay every event of @m in the --time window, in order. */
static void account_events(struct report *r, struct kmt_merge *m)
{
	const struct report_filter *f = &r->p->filter;
	const struct kmemtrace_event *ev[KMT_MERGE_BATCH];
	bool end = false;
	size_t i, k, n;

	while (!end && (n = kmt_merge_batch(m, ev, KMT_MERGE_BATCH))) {
		for (i = k = 0; f->time && i < n; i++) {
			/* The rest is later still: kmt_merge_end() checks it. */
			if (ev[i]->timestamp > f->end) {
				end = true;
				break;
			}
			if (ev[i]->timestamp >= f->start)
				ev[k++] = ev[i];
		}
		if (f->time)
			n = k;
		if (n)
			account_batch(r, ev, n);
	}
}

/* Fill in what is live at the end, per site and per cache. */
static void account_live(struct report *r)
{
	struct live_obj *o;
	struct site *s;
	size_t i;

	for (i = 0; r->live.nr && i < (size_t)1 << r->live.bits; i++) {
		o = &r->live.slots[i];
		if (!o->family || !o->selected)
			continue;
		s = &r->sites.sites[o->site];
		s->live++;
		r->overflow |= add_u64_sat(&s->live_bytes, o->bytes);
		if (o->type != KMEMTRACE_TYPE_CACHE)
			continue;
		s = site_get(&r->caches, o->cache_id);
		s->live++;
		r->overflow |= add_u64_sat(&s->live_bytes, o->bytes);
	}
}

const char *report_cache_name(const struct report *r, uint64_t id, char *buf,
			      size_t len)
{
	const char *name = kmt_caches_name(r->caches_file, id);

	if (name)
		return name;
	snprintf(buf, len, "cache#%llu", (unsigned long long)id);
	return buf;
}

static void report_free(struct report *r)
{
	size_t i;

	live_free(&r->live);
	live_free(&r->backing_live);
	free(r->ai);
	free(r->stack_stats);
	kmt_map_free(&r->stack_map);
	site_table_free(&r->sites);
	site_table_free(&r->caches);
	site_table_free(&r->gfps);
	site_table_free(&r->nodes);
	for (i = 0; i < r->nr_lifetimes; i++)
		free(r->lifetimes[i].v);
	free(r->lifetimes);
	free(r->mismatches);
	kmt_symcache_free(&r->names);
	kmt_map_free(&r->pid_selected);
	kmt_map_free(&r->module_selected);
	free(r->origins);
	kmt_map_free(&r->origin_map);
	free(r->tag_addrs);
	kmt_map_free(&r->tag_map);
}

int report_run(struct report_run *run, struct report_params *p,
	       struct plot_state *plot)
{
	struct report *r = &run->r;
	struct kmt_merge m;

	memset(run, 0, sizeof(*run));
	run->plot = plot;
	if (kmt_trace_load_dir(&run->t, p->dir))
		return 1;
	if (kmt_symtab_setup(&run->syms, p->dir, p->symfile, p->vmlinux)) {
		kmt_trace_free(&run->t);
		return 1;
	}
	run->st = xcalloc(run->t.nr, sizeof(*run->st));
	r->p = p;
	r->plot = plot;
	r->filtering = p->filter.types || p->filter.cpus.nr ||
		       p->filter.pids.nr || p->filter.comms.nr ||
		       p->filter.sites.nr || p->filter.caches.nr ||
		       p->filter.modules.nr;
	/* Origin 0 and tag index 0: none. */
	origin_add(r, 0, 0);
	/* Only the views that name tags and stacks need their files. */
	kmt_tags_load(&run->tags, p->filter.modules.nr ||
		      (p->views & (1u << VIEW_LIVE | 1u << VIEW_ALLOCINFO)) ?
		      run->t.dir : NULL);
	r->tags = &run->tags;
	kmt_stacks_load(&run->stacks, p->views & (1u << VIEW_LIVE | 1u << VIEW_STACKS) ?
			run->t.dir : NULL);
	r->stacks = &run->stacks;
	kmt_symcache_init(&r->names, &run->syms);
	/* The filters need these during the pass; problems come after. */
	kmt_caches_load(&run->caches, p->filter.caches.nr ? run->t.dir : NULL);
	/* Task names, for --comm and the live view. */
	if ((p->filter.comms.nr || (p->views & (1u << VIEW_LIVE))) &&
	    !kmt_comms_load(&run->comms, run->t.dir, false) &&
	    !run->comms.nr && p->filter.comms.nr)
		kmt_err("%s/comms names no task, --comm selects nothing",
			run->t.dir);
	r->caches_file = &run->caches;
	r->comms = &run->comms;

	r->summary_only = p->views == 1u << VIEW_SUMMARY;
	r->pages = want(r, VIEW_PAGES) &&
		   (!p->filter.types ||
		    (p->filter.types & (1u << KMEMTRACE_TYPE_PAGES)));
	r->gfp = want(r, VIEW_GFP);
	r->nodes_view = want(r, VIEW_NODES);
	r->lifetimes_view = want(r, VIEW_LIFETIMES);
	r->allocinfo = want(r, VIEW_ALLOCINFO);
	r->stacks_view = want(r, VIEW_STACKS);
	kmt_merge_start(&m, &run->t, run->st);
	account_events(r, &m);
	run->errors = kmt_merge_end(&m);
	account_live(r);
	if (!p->filter.caches.nr)
		kmt_caches_load(&run->caches, run->t.dir);
	return 0;
}

void report_run_free(struct report_run *run)
{
	report_free(&run->r);
	kmt_comms_free(&run->comms);
	kmt_caches_free(&run->caches);
	kmt_tags_free(&run->tags);
	kmt_stacks_free(&run->stacks);
	free(run->st);
	kmt_symtab_free(&run->syms);
	kmt_trace_free(&run->t);
}

bool report_no_valid_event(const struct report_run *run)
{
	size_t i, events = 0;

	for (i = 0; i < run->t.nr; i++)
		events += run->st[i].events;
	if (events || !run->errors)
		return false;
	kmt_err("%s: no valid event, %zu problems (see kmemtrace check)",
		run->t.dir, run->errors);
	return true;
}

int report_main(int argc, char **argv)
{
	struct report_params p;
	struct report_run run;
	struct kmt_out out;

	report_parse_args(argc, argv, &p);
	int ret = 0;

	if (report_run(&run, &p, NULL)) {
		report_params_free(&p);
		return 1;
	}
	if (report_no_valid_event(&run)) {
		ret = 1;
	} else {
		kmt_out_begin(&out, stdout, p.format);
		report_views(&run.r, &run.t, run.st, run.errors, &out);
		kmt_out_end(&out);
		if (run.r.overflow)
			kmt_err("%s: byte totals above 2^64 - 1 shown as overflow (corrupt trace?)",
				p.dir);
	}
	report_run_free(&run);
	report_params_free(&p);
	return ret;
}
