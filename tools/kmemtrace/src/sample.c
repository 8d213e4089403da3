// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace sample - the sample period of a recording, and the weight of
 * a sampled allocation; see sample.h
 *
 * Part of the stream layer: it reads the first event of each stream, and
 * knows nothing of the pass.
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample.h"
#include "trace.h"
#include "utils.h"

double kmt_sample_weight(uint64_t bytes, uint32_t period)
{
	if (!period || !bytes)
		return 1;
	return 1 / (1 - exp(-(double)bytes / period));
}

uint64_t kmt_sample_round(double v, bool *overflow)
{
	/* 2^64 as a double; UINT64_MAX itself is not one. */
	if (!(v < 18446744073709551616.0)) {
		*overflow = true;
		return UINT64_MAX;
	}
	return v <= 0 ? 0 : (uint64_t)floor(v + 0.5);
}

const char *kmt_sample_text(uint32_t period, char *buf, unsigned int len)
{
	snprintf(buf, len, "sampled, mean %u bytes", period);
	return buf;
}

/*
 * A stream of the directory, with the period of its first valid event;
 * for kmt_trace_first_period(), a stream of the trace, by its path, and
 * its index in the trace.
 */
struct stream_period {
	int cpu;
	char *name;
	uint32_t period;
	size_t index;
};

static int period_cmp(const void *a, const void *b)
{
	const struct stream_period *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * The period of the first valid event of stream @path into @period.
 * Return: false when it has none, or cannot be read (the pass says why).
 */
static bool first_period(const char *path, uint32_t *period)
{
	const struct kmemtrace_event *ev;
	struct kmt_stats st = { 0 };
	struct kmt_stream s;
	bool found = false;

	if (is_regular(path) <= 0 || kmt_stream_open(&s, path))
		return false;
	/* Its problems are the pass's to report. */
	s.defer = true;
	ev = kmt_stream_next(&s, &st);
	if (ev) {
		*period = ev->sample_period;
		found = true;
	}
	kmt_stream_free(&s);
	return found;
}

static const char *period_text(uint32_t period, char *buf, unsigned int len)
{
	if (!period)
		return "a full recording";
	return kmt_sample_text(period, buf, len);
}

int kmt_trace_sample_period(const char *dir, uint32_t *period)
{
	struct stream_period *sp = NULL;
	char a[64], b[64], *path;
	size_t i, nr = 0;
	struct dirent *de;
	int ret = 0;
	DIR *d;

	*period = 0;
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (kmt_cpu_from_name(de->d_name) < 0)
			continue;
		sp = xrealloc(sp, (nr + 1) * sizeof(*sp));
		path = path_join(dir, de->d_name);
		if (first_period(path, &sp[nr].period)) {
			sp[nr].cpu = kmt_cpu_from_name(de->d_name);
			sp[nr++].name = xstrdup(de->d_name);
		}
		free(path);
	}
	closedir(d);
	if (nr)
		qsort(sp, nr, sizeof(*sp), period_cmp);
	for (i = 1; i < nr && !ret; i++) {
		if (sp[i].period == sp[0].period)
			continue;
		kmt_err("%s: %s is %s but %s is %s: streams of different sample periods are not added up",
			dir, sp[0].name, period_text(sp[0].period, a, sizeof(a)),
			sp[i].name, period_text(sp[i].period, b, sizeof(b)));
		ret = 1;
	}
	if (nr)
		*period = sp[0].period;
	for (i = 0; i < nr; i++)
		free(sp[i].name);
	free(sp);
	return ret;
}

size_t kmt_trace_first_period(const struct kmt_trace *t, uint32_t *period)
{
	struct stream_period *sp;
	size_t i, first = t->nr;

	*period = 0;
	if (!t->nr)
		return first;
	sp = xcalloc(t->nr, sizeof(*sp));
	for (i = 0; i < t->nr; i++) {
		sp[i].cpu = t->streams[i].cpu;
		sp[i].name = t->streams[i].path;
		sp[i].index = i;
	}
	/* The order of kmt_trace_sample_period(), whatever that of @t. */
	qsort(sp, t->nr, sizeof(*sp), period_cmp);
	for (i = 0; i < t->nr; i++) {
		if (first_period(sp[i].name, period)) {
			first = sp[i].index;
			break;
		}
	}
	free(sp);
	return first;
}
