// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace filter - parse the filter options of report, plot and pprof
 *
 * Each option adds to the struct kmt_filter the command passes; a bad
 * argument is reported (as "kmemtrace: CMD: ...") and returned, never
 * exited on, so that the command prints its own usage.  See filter.h and
 * Documentation/kmemtrace.rst.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "kmemtrace.h"
#include "trace.h"
#include "utils.h"

const struct kmt_opt kmt_filter_opts[] = {
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

const size_t kmt_nr_filter_opts = ARRAY_SIZE(kmt_filter_opts);

static __printf(2, 3) int bad_arg(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "kmemtrace: %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -EINVAL;
}

static int parse_types(const char *arg, struct kmt_filter *f, const char *cmd)
{
	char *copy = xstrdup(arg), *items[16];
	unsigned int type;
	int ret = 0;
	size_t i, n;

	n = split_list(copy, items, ARRAY_SIZE(items));
	if (!n || n > ARRAY_SIZE(items))
		ret = bad_arg(cmd, "bad type list '%s'", arg);
	for (i = 0; !ret && i < n; i++) {
		for (type = KMEMTRACE_TYPE_KMALLOC; type <= KMEMTRACE_TYPE_VMALLOC; type++)
			if (!strcmp(items[i], kmt_type_name(type)))
				break;
		if (type > KMEMTRACE_TYPE_VMALLOC)
			ret = bad_arg(cmd, "unknown type '%s'", items[i]);
		else
			f->types |= 1u << type;
	}
	free(copy);
	return ret;
}

static int u64_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* One item of a --cpu or --pid list, "N" or "N-M", into @set. */
static int parse_range(char *item, const char *opt, const char *arg,
		       struct u64_set *set, const char *cmd)
{
	char *dash = strchr(item, '-');
	uint64_t lo, hi, v;

	if (dash)
		*dash = '\0';
	if (parse_u64(item, &lo) || (dash && parse_u64(dash + 1, &hi)))
		return bad_arg(cmd, "bad number in %s '%s'", opt, arg);
	if (!dash)
		hi = lo;
	if (hi < lo || hi > UINT32_MAX || hi - lo >= 1 << 20)
		return bad_arg(cmd, "bad range in %s '%s'", opt, arg);
	for (v = lo; v <= hi; v++) {
		set->v = xrealloc(set->v, (set->nr + 1) * sizeof(*set->v));
		set->v[set->nr++] = v;
	}
	return 0;
}

/* "N", "N-M", comma-separated, into a sorted set. */
static int parse_ranges(const char *opt, const char *arg, struct u64_set *set,
			const char *cmd)
{
	char *copy = xstrdup(arg), *item, *save;
	int ret = 0;

	for (item = strtok_r(copy, ",", &save); item && !ret;
	     item = strtok_r(NULL, ",", &save))
		ret = parse_range(item, opt, arg, set, cmd);
	free(copy);
	if (ret)
		return ret;
	if (!set->nr)
		return bad_arg(cmd, "empty %s list", opt);
	qsort(set->v, set->nr, sizeof(*set->v), u64_cmp);
	return 0;
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

static int parse_time(const char *arg, struct kmt_filter *f, const char *cmd)
{
	char *copy = xstrdup(arg), *comma = strchr(copy, ',');
	int ret = 0;

	if (!comma) {
		free(copy);
		return bad_arg(cmd, "--time takes START,END: '%s'", arg);
	}
	*comma = '\0';
	f->time = true;
	f->start = 0;
	f->end = UINT64_MAX;
	if ((*copy && parse_ns(copy, &f->start)) ||
	    (comma[1] && parse_ns(comma + 1, &f->end)) || f->end < f->start)
		ret = bad_arg(cmd, "bad --time '%s'", arg);
	free(copy);
	return ret;
}

/* Note an option in the filter line the views print. */
static void note_filter(struct kmt_filter *f, const char *opt, const char *arg)
{
	size_t len = f->text ? strlen(f->text) : 0;

	f->text = xrealloc(f->text, len + strlen(opt) + strlen(arg) + 5);
	sprintf(f->text + len, "%s--%s %s", len ? " " : "", opt, arg);
}

int kmt_filter_arg(struct kmt_filter *f, int c, const char *arg,
		   const char *cmd)
{
	int ret = 0;
	size_t i;

	switch (c) {
	case OPT_TYPE:
		ret = parse_types(arg, f, cmd);
		break;
	case OPT_CPU:
		ret = parse_ranges("--cpu", arg, &f->cpus, cmd);
		break;
	case OPT_PID:
		ret = parse_ranges("--pid", arg, &f->pids, cmd);
		break;
	case OPT_COMM:
		parse_names(arg, &f->comms);
		break;
	case OPT_TIME:
		ret = parse_time(arg, f, cmd);
		break;
	case OPT_SITE:
		parse_names(arg, &f->sites);
		break;
	case OPT_CACHE:
		parse_names(arg, &f->caches);
		break;
	case OPT_MODULE:
		parse_names(arg, &f->modules);
		break;
	default:
		return 1;
	}
	if (ret)
		return ret;
	for (i = 0; i < kmt_nr_filter_opts; i++)
		if (kmt_filter_opts[i].val == c)
			note_filter(f, kmt_filter_opts[i].name, arg);
	return 0;
}

bool kmt_filter_selects_allocs(const struct kmt_filter *f)
{
	return f->types || f->cpus.nr || f->pids.nr || f->comms.nr ||
	       f->sites.nr || f->caches.nr || f->modules.nr;
}

bool kmt_u64_set_has(const struct u64_set *set, uint64_t v)
{
	return bsearch(&v, set->v, set->nr, sizeof(*set->v), u64_cmp);
}

void kmt_filter_free(struct kmt_filter *f)
{
	struct name_list *lists[] = {
		&f->comms, &f->sites, &f->caches, &f->modules,
	};
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(lists); i++) {
		for (j = 0; j < lists[i]->nr; j++)
			free(lists[i]->names[j]);
		free(lists[i]->names);
	}
	free(f->cpus.v);
	free(f->pids.v);
	free(f->text);
	memset(f, 0, sizeof(*f));
}
