// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace plot - draw a recorded trace as a self-contained SVG picture
 *
 * The events are replayed by replay_run(), with report's filters; plot is
 * a consumer of the pass (struct replay_consumer) that adds up what the
 * charts need as the pass goes:
 *
 *   live       bytes live over time: the total and the call sites with the
 *              most live bytes at their peak, stacked; snapshots of every
 *              site's live bytes are taken at regular times, whose
 *              interval doubles (and every other snapshot goes) when there
 *              are too many
 *   sizes      per call site, a log2 histogram of the bytes allocated
 *   lifetimes  a log2 histogram of the alloc-to-free times, of all call
 *              sites and of those with the most frees
 *
 * Every series carries its numbers in data-* attributes, so that tests
 * and scripts can read them back.
 *
 * A sampled trace (sample.h) is drawn scaled: an allocation adds its
 * weight times its bytes, rounded, to the live bytes (and its free and
 * resizes take back as much), and its weight to the histograms, which
 * are sums of weights, rounded when drawn.  One flagged untracked adds
 * to the sizes only: its free would not be recorded.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kmemtrace.h"
#include "opts.h"
#include "replay.h"
#include "report.h"
#include "sample.h"
#include "utils.h"

#define PLOT_MAX_SNAPS	256
/* The first interval between snapshots, in ns. */
#define PLOT_WIDTH	1000

enum plot_chart {
	CHART_LIVE,
	CHART_SIZES,
	CHART_LIFETIMES,
	NR_CHARTS,
};

static const char * const chart_names[NR_CHARTS] = {
	[CHART_LIVE]		= "live",
	[CHART_SIZES]		= "sizes",
	[CHART_LIFETIMES]	= "lifetimes",
};

/**
 * struct plot_state - what "kmemtrace plot" adds up during the pass
 * @live: per site, the bytes it has live now
 * @nr_live: number of sites @live has room for
 * @total: the bytes live now, of all sites
 * @t0: time stamp of the first event
 * @width: time between two snapshots
 * @snaps: the snapshots: @live at the end of each @width after @t0
 * @snap_len: the number of sites of each snapshot
 * @snap_total: @total of each snapshot
 * @snap_ts: when each snapshot was taken
 * @nr_snaps: number of snapshots
 * @started: @t0 is set
 * @sizes: per site, log2 histogram of the bytes of its allocations
 * @lives: per site, log2 histogram of the lifetimes of its allocations
 * @nr_hist: number of sites @sizes and @lives have room for
 * @period: the sample_period of the trace, 0 when every event is recorded
 * @p: the options
 * @run: the run, once it ended
 * @names: the names of the call sites
 */
struct plot_state {
	uint64_t *live;
	size_t nr_live;
	uint64_t total;
	uint64_t t0;
	uint64_t width;
	uint64_t **snaps;
	size_t *snap_len;
	uint64_t *snap_total;
	uint64_t *snap_ts;
	size_t nr_snaps;
	bool started;
	double (*sizes)[LOG2_BUCKETS];
	double (*lives)[LOG2_BUCKETS];
	size_t nr_hist;
	uint32_t period;
	const struct report_params *p;
	const struct replay_run *run;
	struct kmt_symcache names;
};

struct plot_params {
	enum plot_chart chart;
	const char *output;
};

static const struct kmt_opt plot_opts[] = {
	{ "chart", 'c', "CHART",
	  "what to draw: live (default), sizes or lifetimes" },
	{ "output", 'o', "FILE", "write the SVG to FILE (default stdout)" },
	{ "top", 'n', "TOP", "draw TOP call sites (default 5)" },
	{ "vmlinux", 'k', "VMLINUX",
	  "symbolize call sites with this vmlinux (libdw)" },
	{ "symbols", 's', "SYMFILE",
	  "use this kallsyms or System.map file instead of\n"
	  "DIR/kallsyms" },
	{ "jobs", 'j', "N",
	  "replay with N threads (default: the CPUs\n"
	  "available): the events, sharded by pointer into\n"
	  "N shards, are replayed by N - 1 threads and the\n"
	  "one reading the streams; the output is that of\n"
	  "-j 1" },
	{ "help", 'h', NULL, "print this help" },
};

static void plot_usage(int status)
{
	FILE *out = status ? stderr : stdout;

	fprintf(out,
		"  usage: kmemtrace plot [OPTIONS] DIR\n"
		"\n"
		"  Draw the trace \"kmemtrace record\" wrote to DIR as an SVG picture:\n"
		"  live bytes over time (the total and the top call sites, stacked),\n"
		"  the sizes of the allocations of the top call sites, or their\n"
		"  lifetimes.  The filters are those of report.  A sampled trace\n"
		"  (sample_period N) is drawn scaled, as report scales it.\n"
		"\n");
	kmt_opts_usage(out, plot_opts, ARRAY_SIZE(plot_opts));
	fprintf(out, "\n");
	kmt_opts_usage(out, kmt_filter_opts, kmt_nr_filter_opts);
	exit(status);
}

static void plot_parse_args(int argc, char **argv, struct plot_params *pp,
			    struct report_params *p)
{
	const char *jobs = NULL;
	struct kmt_getopt g;
	int c, i;

	memset(pp, 0, sizeof(*pp));
	memset(p, 0, sizeof(*p));
	p->top = 5;
	kmt_getopt_init(&g, plot_opts, ARRAY_SIZE(plot_opts), kmt_filter_opts,
			kmt_nr_filter_opts);
	while ((c = getopt_long(argc, argv, g.so, g.lo, NULL)) != -1) {
		i = kmt_filter_arg(&p->filter, c, optarg, "plot");
		if (i < 0)
			plot_usage(KMT_EXIT_USAGE);
		if (!i)
			continue;
		switch (c) {
		case 'c':
			for (i = 0; i < NR_CHARTS; i++)
				if (!strcmp(optarg, chart_names[i]))
					break;
			if (i == NR_CHARTS) {
				kmt_err("plot: unknown chart '%s'", optarg);
				plot_usage(KMT_EXIT_USAGE);
			}
			pp->chart = i;
			break;
		case 'o':
			pp->output = optarg;
			break;
		case 'n':
			if (parse_u64(optarg, &p->top) || !p->top || p->top > 20) {
				kmt_err("plot: -n takes 1 to 20: '%s'", optarg);
				plot_usage(KMT_EXIT_USAGE);
			}
			break;
		case 'k':
			p->vmlinux = optarg;
			break;
		case 's':
			p->symfile = optarg;
			break;
		case 'j':
			jobs = optarg;
			break;
		case 'h':
			plot_usage(0);
			break;
		default:
			plot_usage(KMT_EXIT_USAGE);
		}
	}
	kmt_getopt_free(&g);
	if (optind != argc - 1) {
		kmt_err("plot: expected one DIR argument");
		plot_usage(KMT_EXIT_USAGE);
	}
	p->dir = argv[optind];
	if (kmt_parse_jobs(jobs, &p->jobs)) {
		kmt_err("plot: -j takes 1 to %d: '%s'", KMT_MAX_JOBS, jobs);
		plot_usage(KMT_EXIT_USAGE);
	}
}

/* ----------------------------------------------------------- the pass */

/* Room for site @si in the per-site arrays. */
static void plot_grow(struct plot_state *ps, size_t si)
{
	size_t n;

	if (si >= ps->nr_live) {
		n = 2 * si + 64;
		ps->live = xrealloc(ps->live, n * sizeof(*ps->live));
		memset(ps->live + ps->nr_live, 0,
		       (n - ps->nr_live) * sizeof(*ps->live));
		ps->nr_live = n;
	}
	if (si >= ps->nr_hist) {
		n = 2 * si + 64;
		ps->sizes = xrealloc(ps->sizes, n * sizeof(*ps->sizes));
		ps->lives = xrealloc(ps->lives, n * sizeof(*ps->lives));
		memset(ps->sizes + ps->nr_hist, 0,
		       (n - ps->nr_hist) * sizeof(*ps->sizes));
		memset(ps->lives + ps->nr_hist, 0,
		       (n - ps->nr_hist) * sizeof(*ps->lives));
		ps->nr_hist = n;
	}
}

/* Sites the pass has not shown plot have no bytes: @live holds zeros. */
static void plot_snapshot(struct plot_state *ps, uint64_t ts)
{
	size_t n = ps->nr_snaps++, len = ps->nr_live;

	ps->snaps = xrealloc(ps->snaps, ps->nr_snaps * sizeof(*ps->snaps));
	ps->snap_len = xrealloc(ps->snap_len, ps->nr_snaps * sizeof(*ps->snap_len));
	ps->snap_total = xrealloc(ps->snap_total,
				  ps->nr_snaps * sizeof(*ps->snap_total));
	ps->snap_ts = xrealloc(ps->snap_ts, ps->nr_snaps * sizeof(*ps->snap_ts));
	ps->snaps[n] = xmalloc(len * sizeof(**ps->snaps));
	/* No site seen yet: ps->live is NULL, which memcpy() may not take. */
	if (len)
		memcpy(ps->snaps[n], ps->live, len * sizeof(**ps->snaps));
	ps->snap_len[n] = len;
	ps->snap_total[n] = ps->total;
	ps->snap_ts[n] = ts;
}

/* Double the interval: keep the snapshots at its new ends. */
static void plot_halve(struct plot_state *ps)
{
	size_t i, n = 0;

	for (i = 0; i < ps->nr_snaps; i++) {
		if (!(i & 1)) {
			free(ps->snaps[i]);
			continue;
		}
		ps->snaps[n] = ps->snaps[i];
		ps->snap_len[n] = ps->snap_len[i];
		ps->snap_total[n] = ps->snap_total[i];
		ps->snap_ts[n++] = ps->snap_ts[i];
	}
	ps->nr_snaps = n;
	ps->width *= 2;
}

/*
 * Whether the next event ends an interval: the first starts the time,
 * and a later one past the last snapshot takes the next (plot_mark()).
 * With jobs, this context decides when, and each shard's takes the
 * snapshots of its own live bytes, added up by plot_merge().
 */
static bool plot_time(void *ctx, const struct kmemtrace_event *ev)
{
	const struct plot_state *ps = ctx;

	return !ps->started ||
	       (ev->timestamp - ps->t0) / ps->width > ps->nr_snaps;
}

static void plot_mark(void *ctx, const struct kmemtrace_event *ev)
{
	struct plot_state *ps = ctx;
	uint64_t ts = ev->timestamp;

	if (!ps->started) {
		ps->started = true;
		ps->t0 = ts;
		ps->width = PLOT_WIDTH;
		return;
	}
	while ((ts - ps->t0) / ps->width > 2 * PLOT_MAX_SNAPS)
		plot_halve(ps);
	/* The state before @ts is the one at the ends of the intervals. */
	while ((ts - ps->t0) / ps->width > ps->nr_snaps) {
		if (ps->nr_snaps == PLOT_MAX_SNAPS) {
			plot_halve(ps);
			continue;
		}
		plot_snapshot(ps, ps->t0 + (ps->nr_snaps + 1) * ps->width);
	}
}

/*
 * The live bytes @bytes of allocation @o stand for: themselves, or in a
 * sampled trace their weight times them, rounded, the same at the alloc
 * and at the free; none for one flagged untracked, whose free would not
 * be recorded (replay_still_allocated()).
 */
static uint64_t live_bytes(const struct plot_state *ps, const struct live_obj *o,
			   uint64_t bytes)
{
	bool overflow = false;

	if (o->untracked)
		return 0;
	if (!ps->period)
		return bytes;
	return kmt_sample_round(kmt_sample_weight(o->bytes0, ps->period) * bytes,
				&overflow);
}

static void plot_alloc(void *ctx, const struct kmemtrace_event *ev,
		       const struct live_obj *o)
{
	struct plot_state *ps = ctx;
	uint64_t bytes = live_bytes(ps, o, o->bytes);

	plot_grow(ps, o->site);
	ps->live[o->site] += bytes;
	ps->total += bytes;
	ps->sizes[o->site][log2_bucket(o->bytes)] +=
		kmt_sample_weight(o->bytes0, ps->period);
}

static void plot_resize(void *ctx, const struct kmemtrace_event *ev,
			const struct live_obj *o, uint64_t bytes)
{
	struct plot_state *ps = ctx;

	(void)ev;

	plot_grow(ps, o->site);
	ps->live[o->site] += live_bytes(ps, o, bytes) - live_bytes(ps, o, o->bytes);
	ps->total += live_bytes(ps, o, bytes) - live_bytes(ps, o, o->bytes);
}

static void plot_free(void *ctx, const struct kmemtrace_event *ev,
		      const struct live_obj *o, uint64_t life)
{
	struct plot_state *ps = ctx;

	(void)ev;

	plot_grow(ps, o->site);
	ps->live[o->site] -= live_bytes(ps, o, o->bytes);
	ps->total -= live_bytes(ps, o, o->bytes);
	ps->lives[o->site][log2_bucket(life)] +=
		kmt_sample_weight(o->bytes0, ps->period);
}

/*
 * The end of the trace is a last point, after its last events.  A
 * snapshot is taken before the events of its time, so one at @last_ts
 * lacks them: the end is another point at the same time.
 */
static void plot_end(void *ctx, const struct replay_run *run, uint64_t last_ts)
{
	struct plot_state *ps = ctx;

	ps->run = run;
	if (ps->started)
		plot_snapshot(ps, last_ts);
}

static void plot_state_free(struct plot_state *ps)
{
	size_t i;

	for (i = 0; i < ps->nr_snaps; i++)
		free(ps->snaps[i]);
	free(ps->snaps);
	free(ps->snap_len);
	free(ps->snap_total);
	free(ps->snap_ts);
	free(ps->live);
	free(ps->sizes);
	free(ps->lives);
	kmt_symcache_free(&ps->names);
}

/* A shard's context: empty, with the options. */
static void *plot_fork(void *ctx)
{
	const struct plot_state *ps = ctx;
	struct plot_state *sh = xcalloc_lines(sizeof(*sh));

	sh->p = ps->p;
	sh->period = ps->period;
	return sh;
}

/* Room for @n numbers in @*v, of @*nr, the new ones zero. */
static void grow_u64s(uint64_t **v, size_t *nr, size_t n)
{
	if (n <= *nr)
		return;
	*v = xrealloc(*v, n * sizeof(**v));
	memset(*v + *nr, 0, (n - *nr) * sizeof(**v));
	*nr = n;
}

/*
 * Add up a shard: it took the same snapshots, at the same times (the
 * marks), of its part of the live bytes, by its own site indexes.
 */
static void plot_merge(void *ctx, void *shard, const struct replay_remap *map)
{
	struct plot_state *ps = ctx, *sh = shard;
	size_t i, k, b, si;

	ps->total += sh->total;
	for (k = 0; k < ps->nr_snaps && k < sh->nr_snaps; k++)
		ps->snap_total[k] += sh->snap_total[k];
	for (i = 0; i < map->nr_sites; i++) {
		si = map->site[i];
		if (i < sh->nr_live) {
			grow_u64s(&ps->live, &ps->nr_live, si + 1);
			ps->live[si] += sh->live[i];
		}
		for (k = 0; k < ps->nr_snaps && k < sh->nr_snaps; k++) {
			if (i >= sh->snap_len[k] || !sh->snaps[k][i])
				continue;
			grow_u64s(&ps->snaps[k], &ps->snap_len[k], si + 1);
			ps->snaps[k][si] += sh->snaps[k][i];
		}
		if (i >= sh->nr_hist)
			continue;
		plot_grow(ps, si);
		for (b = 0; b < LOG2_BUCKETS; b++) {
			ps->sizes[si][b] += sh->sizes[i][b];
			ps->lives[si][b] += sh->lives[i][b];
		}
	}
	plot_state_free(sh);
	free(sh);
}

static const struct replay_consumer plot_consumer = {
	.name	= "plot",
	.needs	= REPLAY_ALLOC | REPLAY_FREE | REPLAY_RESIZE | REPLAY_TIME |
		  REPLAY_END,
	.alloc	= plot_alloc,
	.free	= plot_free,
	.resize	= plot_resize,
	.time	= plot_time,
	.mark	= plot_mark,
	.end	= plot_end,
	.fork	= plot_fork,
	.merge	= plot_merge,
};

/* ---------------------------------------------------------------- SVG */

#define SVG_W		960
#define SVG_H		540
#define PLOT_X0		90
#define PLOT_X1		(SVG_W - 290)
#define PLOT_Y0		50
#define PLOT_Y1		(SVG_H - 60)

static const char * const colors[] = {
	"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
	"#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
};

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&apos;", f);
			break;
		default:
			/* XML 1.0 has no other control characters. */
			fputc((unsigned char)*s < 0x20 ? '?' : *s, f);
		}
	}
}

/* "12.5 MiB" */
static void format_bytes(uint64_t v, char *buf, size_t len)
{
	static const char * const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double d = v;
	size_t i = 0;

	while (d >= 1024 && i + 1 < ARRAY_SIZE(units)) {
		d /= 1024;
		i++;
	}
	if (!i)
		snprintf(buf, len, "%llu B", (unsigned long long)v);
	else
		snprintf(buf, len, d >= 100 ? "%.0f %s" : d >= 10 ? "%.1f %s" :
			 "%.2f %s", d, units[i]);
}

/* A round step for about @ticks ticks from 0 to @max. */
static uint64_t nice_step(uint64_t max, unsigned int ticks, bool pow2)
{
	uint64_t step = 1, raw = max / ticks;

	if (!raw)
		return 1;
	if (pow2) {
		while (step < raw)
			step *= 2;
		return step;
	}
	while (step * 10 <= raw)
		step *= 10;
	if (step * 5 <= raw)
		return step * 5;
	if (step * 2 <= raw)
		return step * 2;
	return step;
}

static void svg_begin(FILE *f, const char *title, const struct plot_state *ps)
{
	char buf[64];

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
		SVG_W, SVG_H, SVG_W, SVG_H);
	fputs("<style>\n"
	      "text { font-family: sans-serif; font-size: 12px; fill: #333; }\n"
	      ".title { font-size: 16px; font-weight: bold; }\n"
	      ".axis { stroke: #333; stroke-width: 1; }\n"
	      ".grid { stroke: #ddd; stroke-width: 1; }\n"
	      ".total { fill: none; stroke: #000; stroke-width: 1.5; }\n"
	      "</style>\n", f);
	fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", SVG_W, SVG_H);
	fputs("<title>", f);
	xml_text(f, title);
	fputs("</title>\n<text class=\"title\" x=\"10\" y=\"24\">", f);
	xml_text(f, title);
	fputs("</text>\n", f);
	if (ps->p->filter.text) {
		fprintf(f, "<text x=\"10\" y=\"40\">filter: ");
		xml_text(f, ps->p->filter.text);
		fputs("</text>\n", f);
	}
	if (ps->period) {
		fprintf(f, "<text class=\"sampled\" x=\"10\" y=\"%d\">%s: estimates</text>\n",
			ps->p->filter.text ? 54 : 40,
			kmt_sample_text(ps->period, buf, sizeof(buf)));
	}
}

static void svg_legend(FILE *f, unsigned int i, const char *name,
		       const char *color)
{
	int y = PLOT_Y0 + 10 + 20 * i;

	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>\n",
		PLOT_X1 + 15, y - 10, color);
	fprintf(f, "<text x=\"%d\" y=\"%d\">", PLOT_X1 + 32, y);
	xml_text(f, name);
	fputs("</text>\n", f);
}

/* A live series: a call site, "other" or the total. */
struct live_series {
	uint32_t site;
	uint64_t key;
	uint64_t peak;
};

static int series_cmp(const void *a, const void *b)
{
	const struct live_series *x = a, *y = b;

	if (x->peak != y->peak)
		return x->peak > y->peak ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

static uint64_t snap_site(const struct plot_state *ps, size_t k, uint32_t site)
{
	return site < ps->snap_len[k] ? ps->snaps[k][site] : 0;
}

static void chart_live(FILE *f, struct plot_state *ps)
{
	size_t nr_sites = replay_nr_sites(ps->run);
	struct live_series *series;
	uint64_t *stack, *below, max = 1, step, span, v;
	size_t i, k, n = 0, nr_series, points = ps->nr_snaps + 1;
	char buf[64], name[600];
	double x, y;

	/* The call sites by their peak of live bytes. */
	series = xcalloc(nr_sites + 1, sizeof(*series));
	for (i = 0; i < nr_sites; i++) {
		series[n].site = i;
		series[n].key = replay_site_key(ps->run, i);
		for (k = 0; k < ps->nr_snaps; k++)
			if (snap_site(ps, k, i) > series[n].peak)
				series[n].peak = snap_site(ps, k, i);
		if (series[n].peak)
			n++;
	}
	qsort(series, n, sizeof(*series), series_cmp);
	nr_series = n < ps->p->top ? n : ps->p->top;
	for (k = 0; k < ps->nr_snaps; k++)
		if (ps->snap_total[k] > max)
			max = ps->snap_total[k];
	/* Exabytes live, in a corrupt trace: max + step must not wrap. */
	if (max > UINT64_MAX / 2)
		max = UINT64_MAX / 2;
	span = ps->nr_snaps ? ps->snap_ts[ps->nr_snaps - 1] - ps->t0 : 0;
	if (!span)
		span = 1;

	svg_begin(f, "kmemtrace: live bytes over time", ps);
	/* Axes, grid and their labels. */
	step = nice_step(max, 5, true);
	for (v = 0; v <= max + step && v / step <= 6; v += step) {
		y = PLOT_Y1 - (double)v * (PLOT_Y1 - PLOT_Y0) / (max + step);
		format_bytes(v, buf, sizeof(buf));
		fprintf(f, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n",
			PLOT_X0, y, PLOT_X1, y);
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			PLOT_X0 - 6, y + 4, buf);
	}
	max += step;
	step = nice_step(span, 5, false);
	/* From 0 to span; v += step would wrap past a span near 2^64. */
	for (v = 0;; v += step) {
		x = PLOT_X0 + (double)v * (PLOT_X1 - PLOT_X0) / span;
		kmt_format_ns(v, buf, sizeof(buf));
		fprintf(f, "<line class=\"axis\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>\n",
			x, PLOT_Y1, x, PLOT_Y1 + 5);
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
			x, PLOT_Y1 + 20, buf);
		if (span - v < step)
			break;
	}
	fprintf(f,
		"<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">time since the first event</text>\n",
		(PLOT_X0 + PLOT_X1) / 2, PLOT_Y1 + 40);
	fprintf(f, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n",
		PLOT_X0, PLOT_Y1, PLOT_X1, PLOT_Y1);
	fprintf(f, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n",
		PLOT_X0, PLOT_Y0, PLOT_X0, PLOT_Y1);

	/* Stacked areas: the top sites from the bottom, then the others. */
	stack = xcalloc(points, sizeof(*stack));
	below = xcalloc(points, sizeof(*below));
	for (i = 0; i <= nr_series; i++) {
		memcpy(below, stack, points * sizeof(*stack));
		for (k = 1; k < points; k++) {
			if (i < nr_series)
				stack[k] += snap_site(ps, k - 1, series[i].site);
			else
				stack[k] = ps->snap_total[k - 1];
		}
		if (i < nr_series)
			snprintf(name, sizeof(name), "%s",
				 kmt_symcache_name(&ps->names, series[i].key, NULL));
		else
			snprintf(name, sizeof(name), "other call sites");
		fprintf(f, "<path class=\"series\" data-name=\"");
		xml_text(f, name);
		fprintf(f, "\" data-values=\"");
		for (k = 0; k < points; k++)
			fprintf(f, "%s%llu", k ? "," : "",
				(unsigned long long)(stack[k] - below[k]));
		fprintf(f, "\" fill=\"%s\" fill-opacity=\"0.85\" d=\"",
			i < nr_series ? colors[i % ARRAY_SIZE(colors)] : "#cccccc");
		for (k = 0; k < points; k++) {
			x = PLOT_X0 + (double)(k ? ps->snap_ts[k - 1] - ps->t0 : 0) *
			    (PLOT_X1 - PLOT_X0) / span;
			y = PLOT_Y1 - (double)stack[k] * (PLOT_Y1 - PLOT_Y0) / max;
			fprintf(f, "%s%.1f,%.1f", k ? " L" : "M", x, y);
		}
		for (k = points; k-- > 0;) {
			x = PLOT_X0 + (double)(k ? ps->snap_ts[k - 1] - ps->t0 : 0) *
			    (PLOT_X1 - PLOT_X0) / span;
			y = PLOT_Y1 - (double)below[k] * (PLOT_Y1 - PLOT_Y0) / max;
			fprintf(f, " L%.1f,%.1f", x, y);
		}
		fputs(" Z\"/>\n", f);
		svg_legend(f, i + 1, name, i < nr_series ?
			   colors[i % ARRAY_SIZE(colors)] : "#cccccc");
	}
	/* The total, and when each point was taken. */
	fprintf(f, "<polyline class=\"total\" data-ts=\"0");
	for (k = 0; k < ps->nr_snaps; k++)
		fprintf(f, ",%llu",
			(unsigned long long)(ps->snap_ts[k] - ps->t0));
	fprintf(f, "\" data-name=\"total\" data-values=\"0");
	for (k = 0; k < ps->nr_snaps; k++)
		fprintf(f, ",%llu", (unsigned long long)ps->snap_total[k]);
	fputs("\" points=\"", f);
	for (k = 0; k < points; k++) {
		x = PLOT_X0 + (double)(k ? ps->snap_ts[k - 1] - ps->t0 : 0) *
		    (PLOT_X1 - PLOT_X0) / span;
		y = PLOT_Y1 - (double)(k ? ps->snap_total[k - 1] : 0) *
		    (PLOT_Y1 - PLOT_Y0) / max;
		fprintf(f, "%s%.1f,%.1f", k ? " " : "", x, y);
	}
	fputs("\"/>\n", f);
	fprintf(f, "<line class=\"total\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n",
		PLOT_X1 + 15, PLOT_Y0 + 4, PLOT_X1 + 27, PLOT_Y0 + 4);
	fprintf(f, "<text x=\"%d\" y=\"%d\">total</text>\n", PLOT_X1 + 32,
		PLOT_Y0 + 10);
	fputs("</svg>\n", f);
	free(stack);
	free(below);
	free(series);
}

/* A histogram row: all sites (@site ALL_SITES) or one. */
#define ALL_SITES	UINT32_MAX

struct hist_row {
	uint32_t site;
	uint64_t key;
	uint64_t weight;
	uint64_t count[LOG2_BUCKETS];
};

static int row_cmp(const void *a, const void *b)
{
	const struct hist_row *x = a, *y = b;

	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* "64", "4K", "1M": the start of a size bucket, or of a time one. */
static void bucket_label(bool sizes, unsigned int b, char *buf, size_t len)
{
	static const char units[] = " KMGTPE";
	uint64_t v = b ? 1ULL << b : 0;

	if (!sizes) {
		kmt_format_ns(v, buf, len);
		return;
	}
	snprintf(buf, len, "%llu%c", (unsigned long long)(v >> (b / 10 * 10)),
		 units[b / 10]);
	if (units[b / 10] == ' ')
		buf[strlen(buf) - 1] = '\0';
}

/* Sizes or lifetimes: a row of bars per call site. */
static void chart_hist(FILE *f, struct plot_state *ps, bool sizes)
{
	size_t nr_sites = replay_nr_sites(ps->run);
	unsigned int b, lo = LOG2_BUCKETS, hi = 0;
	size_t i, n = 0, nr_rows, row;
	double (*hist)[LOG2_BUCKETS];
	bool overflow = false;
	unsigned int stride;
	struct hist_row *rows;
	uint64_t max, total;
	double x, bw, y, h, rh;
	char buf[64];
	const char *name;

	hist = sizes ? ps->sizes : ps->lives;
	rows = xcalloc(nr_sites + 2, sizeof(*rows));
	/* For lifetimes, all the sites first. */
	if (!sizes) {
		rows[0].site = ALL_SITES;
		rows[0].weight = UINT64_MAX;
		n = 1;
	}
	for (i = 0; i < nr_sites && i < ps->nr_hist; i++) {
		rows[n].site = i;
		rows[n].key = replay_site_key(ps->run, i);
		for (b = 0; b < LOG2_BUCKETS; b++) {
			rows[n].count[b] = kmt_sample_round(hist[i][b], &overflow);
			rows[n].weight += rows[n].count[b] * (sizes ? 1ULL << b : 1);
			if (!sizes)
				rows[0].count[b] += rows[n].count[b];
		}
		if (rows[n].weight)
			n++;
	}
	qsort(rows, n, sizeof(*rows), row_cmp);
	nr_rows = n < ps->p->top + !sizes ? n : ps->p->top + !sizes;
	for (row = 0; row < nr_rows; row++) {
		for (b = 0; b < LOG2_BUCKETS; b++) {
			if (!rows[row].count[b])
				continue;
			lo = b < lo ? b : lo;
			hi = b > hi ? b : hi;
		}
	}
	if (lo > hi) {
		lo = 0;
		hi = 0;
	}
	/* At least 8 buckets, so that one bucket is not the whole width. */
	while (hi - lo < 7) {
		if (lo)
			lo--;
		if (hi - lo < 7 && hi < LOG2_BUCKETS - 1)
			hi++;
	}

	svg_begin(f, sizes ? "kmemtrace: sizes of the allocations, by call site" :
		  "kmemtrace: lifetimes of the allocations (alloc to free)", ps);
	rh = nr_rows ? (double)(PLOT_Y1 - PLOT_Y0) / nr_rows : 1;
	bw = (double)(SVG_W - 40 - PLOT_X0) / (hi - lo + 1);
	/* Labels 56 pixels apart at least. */
	stride = 56 / bw + 1;
	for (row = 0; row < nr_rows; row++) {
		max = 1;
		total = 0;
		for (b = lo; b <= hi; b++) {
			total += rows[row].count[b];
			if (rows[row].count[b] > max)
				max = rows[row].count[b];
		}
		name = rows[row].site == ALL_SITES ? "all call sites" :
		       kmt_symcache_name(&ps->names, rows[row].key, NULL);
		y = PLOT_Y0 + row * rh;
		fprintf(f, "<text x=\"%d\" y=\"%.1f\">", PLOT_X0, y + 14);
		xml_text(f, name);
		fprintf(f, " (%llu %s)</text>\n<g class=\"hist\" data-name=\"",
			(unsigned long long)total, sizes ? "allocations" : "frees");
		xml_text(f, name);
		fputs("\" data-buckets=\"", f);
		for (b = lo, i = 0; b <= hi; b++)
			if (rows[row].count[b])
				fprintf(f, "%s%u:%llu", i++ ? "," : "", b,
					(unsigned long long)rows[row].count[b]);
		fprintf(f, "\" fill=\"%s\">\n", colors[row % ARRAY_SIZE(colors)]);
		for (b = lo; b <= hi; b++) {
			if (!rows[row].count[b])
				continue;
			h = (rh - 22) * rows[row].count[b] / max;
			x = PLOT_X0 + (b - lo) * bw;
			fprintf(f,
				"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>%llu</title></rect>\n",
				x + 1, y + rh - 4 - h, bw - 2, h,
				(unsigned long long)rows[row].count[b]);
		}
		fputs("</g>\n", f);
		fprintf(f, "<line class=\"axis\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n",
			PLOT_X0, y + rh - 4, SVG_W - 40, y + rh - 4);
	}
	for (b = lo; b <= hi; b += stride) {
		bucket_label(sizes, b, buf, sizeof(buf));
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
			PLOT_X0 + (b - lo + 0.5) * bw, PLOT_Y1 + 16, buf);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
		(PLOT_X0 + SVG_W - 40) / 2, PLOT_Y1 + 40,
		sizes ? "bytes allocated, from (powers of two)" :
			"time from alloc to free, from (powers of two)");
	fputs("</svg>\n", f);
	free(rows);
}

int plot_main(int argc, char **argv)
{
	struct report_params p;
	struct plot_params pp;
	struct plot_state ps;
	struct replay_run run;
	struct replay_use use = { &plot_consumer, &ps };
	FILE *f = stdout;
	int ret = 0;

	plot_parse_args(argc, argv, &pp, &p);
	memset(&ps, 0, sizeof(ps));
	ps.p = &p;
	if (kmt_trace_sample_period(p.dir, &p.sample_period)) {
		report_params_free(&p);
		return 1;
	}
	ps.period = p.sample_period;
	if (replay_run(&run, &p, &use, 1)) {
		report_params_free(&p);
		plot_state_free(&ps);
		return 1;
	}
	kmt_symcache_init(&ps.names, &run.syms);
	if (replay_mixed_periods(&run)) {
		f = NULL;
		ret = 1;
	} else if (pp.output && strcmp(pp.output, "-")) {
		f = fopen(pp.output, "w");
		if (!f) {
			kmt_err("plot: %s: %s", pp.output, strerror(errno));
			ret = 1;
		}
	}
	if (f) {
		if (pp.chart == CHART_LIVE)
			chart_live(f, &ps);
		else
			chart_hist(f, &ps, pp.chart == CHART_SIZES);
		if ((f == stdout ? fflush(f) : fclose(f)) || (f == stdout && ferror(f))) {
			kmt_err("plot: writing %s: %s", pp.output ? pp.output : "the output",
				strerror(errno));
			ret = 1;
		}
	}
	plot_state_free(&ps);
	replay_run_free(&run);
	report_params_free(&p);
	return ret;
}
