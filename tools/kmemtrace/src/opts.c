// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace - command line options described once, for getopt_long() and
 * for the help text
 */
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"
#include "utils.h"

struct kmt_opt *kmt_opts_join(const struct kmt_opt *a, size_t na,
			      const struct kmt_opt *b, size_t nb, size_t *n)
{
	struct kmt_opt *opts = xcalloc(na + nb, sizeof(*opts));

	memcpy(opts, a, na * sizeof(*a));
	if (nb)
		memcpy(opts + na, b, nb * sizeof(*b));
	*n = na + nb;
	return opts;
}

void kmt_opts_getopt(const struct kmt_opt *opts, size_t nr, struct option *lo,
		     char *so)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		lo[i].name = opts[i].name;
		lo[i].has_arg = opts[i].arg ? required_argument : no_argument;
		lo[i].flag = NULL;
		lo[i].val = opts[i].val;
		if (opts[i].val >= 256)
			continue;
		*so++ = opts[i].val;
		if (opts[i].arg)
			*so++ = ':';
	}
	memset(&lo[nr], 0, sizeof(lo[nr]));
	*so = '\0';
}

/* Column of the help text, as in the other commands' help. */
#define HELP_COLUMN	27

void kmt_opts_usage(FILE *f, const struct kmt_opt *opts, size_t nr)
{
	const char *s, *nl;
	size_t i;
	int n;

	for (i = 0; i < nr; i++) {
		if (opts[i].val < 256)
			n = fprintf(f, "     -%c/--%s", opts[i].val, opts[i].name);
		else
			n = fprintf(f, "     --%s", opts[i].name);
		if (opts[i].arg)
			n += fprintf(f, " %s", opts[i].arg);
		for (s = opts[i].help; s; s = nl ? nl + 1 : NULL) {
			nl = strchr(s, '\n');
			if (n > HELP_COLUMN - 2) {
				fputc('\n', f);
				n = 0;
			}
			fprintf(f, "%*s%.*s\n", HELP_COLUMN - n, "",
				nl ? (int)(nl - s) : (int)strlen(s), s);
			n = 0;
		}
	}
}

void kmt_getopt_init(struct kmt_getopt *g, const struct kmt_opt *a, size_t na,
		     const struct kmt_opt *b, size_t nb)
{
	size_t n;

	g->opts = kmt_opts_join(a, na, b, nb, &n);
	g->lo = xcalloc(n + 1, sizeof(*g->lo));
	g->so = xcalloc(2 * n + 1, 1);
	kmt_opts_getopt(g->opts, n, g->lo, g->so);
}

void kmt_getopt_free(struct kmt_getopt *g)
{
	free(g->opts);
	free(g->lo);
	free(g->so);
}

unsigned int kmt_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) || CPU_COUNT(&set) < 1)
		return 1;
	return CPU_COUNT(&set);
}

int kmt_parse_jobs(const char *arg, unsigned int *jobs)
{
	uint64_t n;

	if (arg) {
		if (parse_u64(arg, &n) || !n || n > KMT_MAX_JOBS)
			return -1;
		*jobs = n;
		return 0;
	}
	n = kmt_cpus();
	*jobs = n > KMT_MAX_JOBS ? KMT_MAX_JOBS : n;
	return 0;
}
