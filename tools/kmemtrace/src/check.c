// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace check - validate the event streams of a recorded trace
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comms.h"
#include "gfp.h"
#include "kmemtrace.h"
#include "opts.h"
#include "sample.h"
#include "trace.h"
#include "utils.h"

struct check_params {
	const char *dir;
	char **files;
	int nr_files;
};

static const struct kmt_opt check_opts[] = {
	{ "help", 'h', NULL, "print this help" },
};

static void check_usage(int status)
{
	FILE *out = status ? stderr : stdout;

	fprintf(out,
		"  usage: kmemtrace check DIR [FILES...]\n"
		"         kmemtrace check FILE\n"
		"\n"
		"  Validate the cpuN streams of DIR (only FILES, relative to DIR unless\n"
		"  they hold a '/', when given): event size, magic, one byte order per\n"
		"  stream, ABI version, kind, type, flags, CPU and seq order.  Prints per\n"
		"  stream the number of events, the first and last seq and the seq gaps,\n"
		"  and compares the gaps with DIR/dropped.  With DIR/stats, also accounts\n"
		"  for the events of each CPU: leading (before the first event of the\n"
		"  stream), gaps and trailing (after the last one), against the CPU's\n"
		"  dropped count.  With DIR/stats.start too (the counters at the start of\n"
		"  the recording), exactly within the recording's seq window: leading +\n"
		"  gaps + trailing must equal the CPU's drops while recording, and DIR/dropped\n"
		"  their sum; without it, DIR/dropped counts since boot and is only a bound.\n"
		"  Events DIR/unwritten counts (read by record but not written) are lost.\n"
		"  DIR/header, DIR/comms and DIR/kmalloc_format (its table of gfp flags)\n"
		"  must be well formed, and the header (and DIR/abi_version) must give a\n"
		"  supported ABI version (1, 2 or 3), that of the streams, and the\n"
		"  streams' byte order.\n"
		"  Every event must have the sample_period of the trace, that of the first\n"
		"  valid event of the first stream in CPU order: a stream with events of\n"
		"  another one holds events of another recording.  The total line says\n"
		"  \"(sampled, mean N bytes)\" after the events of a sampled trace, and\n"
		"  \"(mixed sample periods)\" when they are not all of its period.\n"
		"  Totals that overflow 64 bits print as \"overflow\".\n"
		"  Exits 1 when a problem is found.\n"
		"\n"
		"     -h/--help  print this help\n");
	exit(status);
}

static void check_parse_args(int argc, char **argv, struct check_params *p)
{
	struct kmt_getopt g;
	int c;

	kmt_getopt_init(&g, check_opts, ARRAY_SIZE(check_opts), NULL, 0);
	while ((c = getopt_long(argc, argv, g.so, g.lo, NULL)) != -1) {
		if (c == 'h')
			check_usage(0);
		check_usage(KMT_EXIT_USAGE);
	}
	kmt_getopt_free(&g);
	if (optind >= argc) {
		kmt_err("check: expected a DIR argument");
		check_usage(KMT_EXIT_USAGE);
	}
	p->dir = argv[optind];
	p->files = argv + optind + 1;
	p->nr_files = argc - optind - 1;
}

static int check_load(struct kmt_trace *t, const struct check_params *p)
{
	char *path;
	int i, ret;

	memset(t, 0, sizeof(*t));
	ret = is_dir(p->dir);
	if (ret < 0) {
		kmt_err("%s: %s", p->dir, strerror(-ret));
		return ret;
	}
	if (!ret && p->nr_files) {
		kmt_err("check: %s: not a directory", p->dir);
		return -ENOTDIR;
	}
	if (!ret)
		return kmt_trace_add_file(t, p->dir);
	if (!p->nr_files)
		return kmt_trace_load_dir(t, p->dir);
	t->dir = xstrdup(p->dir);
	for (i = 0, ret = 0; i < p->nr_files && !ret; i++) {
		path = strchr(p->files[i], '/') ? xstrdup(p->files[i]) :
						  path_join(p->dir, p->files[i]);
		ret = kmt_trace_add_file(t, path);
		free(path);
	}
	if (!ret) {
		kmt_trace_read_dropped(t);
		t->header_problems = kmt_header_load(&t->header, t->dir, false);
	}
	return ret;
}

/**
 * struct loss - where the events a CPU took but the stream lacks went
 * @leading: seq numbers below the first event of the stream (of the
 *	recording's window, with stats.start): events read by an earlier
 *	reader, or dropped (only dropped, in the window)
 * @missing: seq numbers missing between events (gaps) and after the last
 *	one (trailing), that is events that can only have been dropped
 * @trailing: the part of @missing after the last event
 * @gaps: the part of @missing between events: the stream's gaps, or
 *	those inside the recording's window
 * @earlier: events of the stream below the recording's window: left in
 *	the buffers before the recording started
 */
struct loss {
	uint64_t leading;
	uint64_t missing;
	uint64_t trailing;
	uint64_t gaps;
	uint64_t earlier;
};

/*
 * Account for the events of a stream with the stats line of its CPU; print
 * what was found and return the number of problems.
 */
static size_t check_loss(const struct kmt_stream *s, const struct kmt_stats *st,
			 const struct kmt_cpu_stat *cs, struct loss *l)
{
	memset(l, 0, sizeof(*l));
	l->gaps = st->gaps;
	if (st->events)
		printf(", gaps %llu", (unsigned long long)st->gaps);
	if (st->events && st->last_seq >= cs->next_seq) {
		printf(", next seq %llu\n", (unsigned long long)cs->next_seq);
		kmt_err("cpu%d: last seq %llu but stats give next seq %llu",
			s->cpu, (unsigned long long)st->last_seq,
			(unsigned long long)cs->next_seq);
		return 1;
	}
	if (st->events) {
		l->leading = st->first_seq;
		l->trailing = cs->next_seq - 1 - st->last_seq;
		l->missing = st->gaps + l->trailing;
		printf(", leading %llu", (unsigned long long)l->leading);
	} else {
		l->trailing = cs->next_seq;
		l->missing = l->trailing;
	}
	printf(", trailing %llu, dropped %llu\n", (unsigned long long)l->trailing,
	       (unsigned long long)cs->dropped);
	/*
	 * A stream that starts at seq 0 holds every event its CPU wrote, so
	 * what it lacks was dropped.  One that starts later follows events
	 * an earlier reader took or the CPU dropped: that part is a bound.
	 * So is all of an empty stream, as nothing tells where it starts.
	 */
	if (st->events && st->first_seq && cs->dropped > l->leading + l->missing) {
		kmt_err("cpu%d: %llu events missing from the stream and %llu before it but %llu dropped",
			s->cpu, (unsigned long long)l->missing,
			(unsigned long long)l->leading,
			(unsigned long long)cs->dropped);
		return 1;
	}
	if ((st->events && !st->first_seq && cs->dropped != l->missing) ||
	    (st->events && cs->dropped < l->missing) ||
	    (!st->events && cs->dropped > l->missing)) {
		kmt_err("cpu%d: %llu events missing from the stream but %llu dropped",
			s->cpu, (unsigned long long)l->missing,
			(unsigned long long)cs->dropped);
		return 1;
	}
	return 0;
}

/*
 * The events of a stream in the seq window of the recording, [@start,
 * @end): the seq numbers its CPU took between the stats.start and the
 * stats of the trace.  @earlier events of the stream come before it
 * (left in the buffers by an earlier session), then @events events from
 * seq @first to @last, with @gaps seq numbers missing between them.
 */
struct window {
	uint64_t start;
	uint64_t end;
	uint64_t earlier;
	uint64_t events;
	uint64_t first;
	uint64_t last;
	uint64_t gaps;
};

/*
 * Find the window's events of a stream that has events below it: read
 * the stream again, which only happens when a recording copied events an
 * earlier session left (record without -e).  Its problems were reported
 * by the first reading.
 */
static int window_rescan(const struct kmt_stream *s, struct window *w)
{
	const struct kmemtrace_event *ev;
	struct kmt_stream again;
	struct kmt_stats st = { 0 };

	if (kmt_stream_open(&again, s->path))
		return -1;
	again.defer = true;
	while ((ev = kmt_stream_next(&again, &st))) {
		if (ev->seq < w->start) {
			w->earlier++;
			continue;
		}
		if (w->events)
			w->gaps += ev->seq - w->last - 1;
		else
			w->first = ev->seq;
		w->last = ev->seq;
		w->events++;
	}
	kmt_stream_free(&again);
	return 0;
}

/*
 * Account exactly for the events of a stream in the recording's window,
 * between the stats.start line @cs0 and the stats line @cs of its CPU:
 * the seq numbers the window lacks must be the CPU's drops in it.  Print
 * what was found and return the number of problems.
 */
static size_t check_window(const struct kmt_stream *s, const struct kmt_stats *st,
			   const struct kmt_cpu_stat *cs0,
			   const struct kmt_cpu_stat *cs, struct loss *l)
{
	struct window w = { .start = cs0->next_seq, .end = cs->next_seq };
	uint64_t dropped;

	memset(l, 0, sizeof(*l));
	if (cs0->next_seq > cs->next_seq || cs0->dropped > cs->dropped) {
		printf("\n");
		kmt_err("cpu%d: stats.start (next seq %llu, dropped %llu) is not before stats (next seq %llu, dropped %llu)",
			s->cpu, (unsigned long long)cs0->next_seq,
			(unsigned long long)cs0->dropped,
			(unsigned long long)cs->next_seq,
			(unsigned long long)cs->dropped);
		return 1;
	}
	dropped = cs->dropped - cs0->dropped;
	if (!st->events || st->first_seq >= w.start) {
		w.events = st->events;
		w.first = st->first_seq;
		w.last = st->last_seq;
		w.gaps = st->gaps;
	} else if (window_rescan(s, &w)) {
		printf("\n");
		return 1;
	}
	l->gaps = w.gaps;
	l->earlier = w.earlier;
	if (st->events)
		printf(", gaps %llu", (unsigned long long)w.gaps);
	printf(", start seq %llu, end seq %llu", (unsigned long long)w.start,
	       (unsigned long long)w.end);
	if (w.earlier)
		printf(", earlier %llu", (unsigned long long)w.earlier);
	if (w.events && w.last >= w.end) {
		printf("\n");
		kmt_err("cpu%d: last seq %llu but stats give next seq %llu",
			s->cpu, (unsigned long long)w.last,
			(unsigned long long)w.end);
		return 1;
	}
	if (w.events) {
		l->leading = w.first - w.start;
		l->trailing = w.end - 1 - w.last;
	} else {
		l->trailing = w.end - w.start;
	}
	l->missing = l->leading + w.gaps + l->trailing;
	printf(", leading %llu, trailing %llu, dropped %llu\n",
	       (unsigned long long)l->leading, (unsigned long long)l->trailing,
	       (unsigned long long)dropped);
	/* Every seq number of the window is an event of the stream or a drop. */
	if (l->missing == dropped)
		return 0;
	kmt_err("cpu%d: %llu events of seq %llu to %llu missing from the stream but %llu dropped while recording",
		s->cpu, (unsigned long long)l->missing,
		(unsigned long long)w.start, (unsigned long long)w.end - 1,
		(unsigned long long)dropped);
	return 1;
}

/*
 * A recording by this record has dropped.start and, when the kernel has
 * stats, stats.start: say what is missing of one without the others.
 */
static size_t check_start_files(const struct kmt_trace *t)
{
	size_t errors = 0;

	if (t->has_dropped_start && !t->has_dropped) {
		kmt_err("%s: dropped.start but no dropped", t->dir);
		errors++;
	}
	if (t->has_stats_start && !t->has_dropped_start) {
		kmt_err("%s: stats.start but no dropped.start", t->dir);
		errors++;
	}
	if (t->has_dropped_start && t->has_stats && !t->has_stats_start) {
		kmt_err("%s: dropped.start and stats but no stats.start", t->dir);
		errors++;
	}
	if (t->has_stats_start && !t->has_stats) {
		kmt_err("%s: stats.start but no stats, drops cannot be accounted per CPU",
			t->dir);
		errors++;
	}
	return errors;
}

/*
 * An ABI version @abi that @path gives must be one this kmemtrace reads,
 * and that of the streams of @t (those with an event of a known magic).
 */
static size_t check_abi(struct kmt_trace *t, const char *path, uint64_t abi)
{
	struct kmt_stream *s;
	size_t i, errors = 0;

	if (abi < KMT_ABI_V1 || abi > KMEMTRACE_ABI_VERSION) {
		kmt_err("%s: ABI version %llu, this kmemtrace reads %d to %d", path,
			(unsigned long long)abi, KMT_ABI_V1, KMEMTRACE_ABI_VERSION);
		return 1;
	}
	for (i = 0; i < t->nr; i++) {
		s = &t->streams[i];
		if (kmt_stream_order(s) == KMT_ORDER_UNKNOWN || s->abi == abi)
			continue;
		kmt_err("%s: events are ABI version %u, but %s says %llu", s->path,
			s->abi, path, (unsigned long long)abi);
		errors++;
	}
	return errors;
}

/* Compare DIR/abi_version, when present, with the streams. */
static size_t check_abi_file(struct kmt_trace *t)
{
	char *path = path_join(t->dir, "abi_version");
	uint64_t abi;
	size_t errors = 0;
	int ret;

	ret = read_u64_file(path, &abi);
	if (ret && ret != -ENOENT) {
		kmt_err("%s: %s", path, ret == -EINVAL ? "not a number" : strerror(-ret));
		errors++;
	} else if (!ret) {
		errors += check_abi(t, path, abi);
	}
	free(path);
	return errors;
}

static const char *byte_order_name(bool big)
{
	return big ? "big" : "little";
}

/*
 * Compare DIR/header, when present, with what the streams show: its ABI
 * version must be supported, and every stream in its byte order.
 */
static size_t check_header(struct kmt_trace *t)
{
	const bool host_big = KMT_HOST_BIG_ENDIAN;
	const struct kmt_header *h = &t->header;
	struct kmt_stream *s;
	size_t i, errors = 0;
	const char *order;
	bool big;
	uint64_t abi;

	if (!kmt_header_get_u64(h, "abi_version", &abi))
		errors += check_abi(t, h->path, abi);
	order = kmt_header_get(h, "byte_order");
	if (!order)
		return errors;
	for (i = 0; i < t->nr; i++) {
		s = &t->streams[i];
		/* The byte order of a stream is known from a known magic. */
		if (kmt_stream_order(s) == KMT_ORDER_UNKNOWN)
			continue;
		big = s->order == KMT_ORDER_OTHER ? !host_big : host_big;
		if (!strcmp(order, byte_order_name(big)))
			continue;
		kmt_err("%s: events are %s-endian, but %s says %s", s->path,
			byte_order_name(big), h->path, order);
		errors++;
	}
	return errors;
}

/**
 * struct trace_period - the sample period of a trace, and the events without it
 * @period: the trace's, that of its first valid event (sample.h)
 * @first: the index of the stream of that event, the trace's number of
 *	streams when it has no valid event
 * @other: per stream, its valid events of another sample_period
 * @other_period: per stream, the sample_period of the first of those
 * @several: per stream, whether those are of more than one period
 */
struct trace_period {
	uint32_t period;
	size_t first;
	size_t *other;
	uint32_t *other_period;
	bool *several;
};

/* Count into @pd the events of the chunk just read of @s, stream @i. */
static void period_count(const struct kmt_stream *s, struct trace_period *pd, size_t i)
{
	const struct kmemtrace_event *ev;
	size_t j;

	for (j = 0; j < s->valid; j++) {
		ev = (const struct kmemtrace_event *)(s->buf + j * KMEMTRACE_EVENT_SIZE);
		if (ev->sample_period == pd->period)
			continue;
		if (!pd->other[i]++)
			pd->other_period[i] = ev->sample_period;
		else if (ev->sample_period != pd->other_period[i])
			pd->several[i] = true;
	}
}

/*
 * kmt_trace_validate(), counting as well the valid events of each stream
 * whose sample_period is not the trace's, into @pd.
 */
static size_t check_validate(struct kmt_trace *t, struct kmt_stats *st,
			     struct trace_period *pd)
{
	struct kmt_stream *s;
	size_t i, errors = 0;

	pd->first = kmt_trace_first_period(t, &pd->period);
	pd->other = xcalloc(t->nr, sizeof(*pd->other));
	pd->other_period = xcalloc(t->nr, sizeof(*pd->other_period));
	pd->several = xcalloc(t->nr, sizeof(*pd->several));
	for (i = 0; i < t->nr; i++) {
		s = &t->streams[i];
		memset(&st[i], 0, sizeof(st[i]));
		while (kmt_stream_fill(s, &st[i]))
			period_count(s, pd, i);
		errors += st[i].errors;
	}
	return errors;
}

/*
 * A stream with events of another sample period than the trace's holds
 * events of another recording: all of them (the streams of different
 * recordings side by side), or some (recordings one after the other in
 * the stream).  Say so per stream and return the number of problems.
 */
static size_t check_periods(const struct kmt_trace *t,
			    const struct kmt_stats *st, const struct trace_period *pd)
{
	size_t i, errors = 0;

	for (i = 0; i < t->nr; i++) {
		if (!pd->other[i])
			continue;
		kmt_err("%s: %zu events with sample_period %u%s, the trace's is %u (first event of %s): %s",
			t->streams[i].path, pd->other[i], pd->other_period[i],
			pd->several[i] ? " or another" : "", pd->period,
			t->streams[pd->first].path,
			pd->other[i] == st[i].events ? "streams of different recordings" :
				"events of different recordings in one stream");
		errors++;
	}
	return errors;
}

static void period_free(struct trace_period *pd)
{
	free(pd->other);
	free(pd->other_period);
	free(pd->several);
}

/*
 * What check_print() adds up over the streams.  The sums saturate and the
 * _overflow flags tell when one did not fit in 64 bits, which only a
 * corrupt trace can make happen.
 */
struct totals {
	size_t events;
	uint64_t gaps;
	uint64_t leading;
	uint64_t trailing;
	uint64_t earlier;
	bool gaps_overflow;
	bool leading_overflow;
	bool trailing_overflow;
	bool accounted;
	size_t errors;
};

static void print_total(const char *name, uint64_t v, bool overflow)
{
	if (overflow)
		printf(", %s overflow", name);
	else
		printf(", %s %llu", name, (unsigned long long)v);
}

/* Report a total check_print() could not add up. */
static size_t check_overflow(const char *name, bool overflow)
{
	if (!overflow)
		return 0;
	kmt_err("total %s: more than 2^64 - 1 events, corrupt seq numbers or stats",
		name);
	return 1;
}

/*
 * Whether the drops are accounted for per CPU within the recording's
 * window (stats.start), rather than since boot.
 */
static bool check_in_window(const struct kmt_trace *t)
{
	return t->has_stats && t->has_stats_start;
}

/* Account for the events of stream @s, its line started; return problems. */
static size_t check_stream_loss(const struct kmt_trace *t,
				const struct kmt_stream *s,
				const struct kmt_stats *st, struct loss *l,
				bool *accounted)
{
	const struct kmt_cpu_stat *cs = kmt_trace_cpu_stat(t, s->cpu);
	const struct kmt_cpu_stat *cs0;

	*accounted = false;
	memset(l, 0, sizeof(*l));
	l->gaps = st->gaps;
	if (!cs) {
		if (st->events)
			printf(", gaps %llu", (unsigned long long)st->gaps);
		printf("\n");
		return 0;
	}
	*accounted = true;
	if (!check_in_window(t))
		return check_loss(s, st, cs, l);
	cs0 = kmt_trace_cpu_stat_start(t, s->cpu);
	if (cs0)
		return check_window(s, st, cs0, cs, l);
	printf("\n");
	kmt_err("cpu%d: in stats but not in stats.start", s->cpu);
	return 1;
}

static void check_print(const struct kmt_trace *t, const struct kmt_stats *st,
			const struct trace_period *pd, struct totals *tot)
{
	const struct kmt_stream *s;
	bool accounted, mixed = false;
	char buf[64];
	struct loss l;
	size_t i;

	memset(tot, 0, sizeof(*tot));
	for (i = 0; i < t->nr; i++) {
		s = &t->streams[i];
		printf("%s: events %zu", path_basename(s->path), st[i].events);
		if (st[i].events)
			printf(", first seq %llu, last seq %llu",
			       (unsigned long long)st[i].first_seq,
			       (unsigned long long)st[i].last_seq);
		tot->errors += check_stream_loss(t, s, &st[i], &l, &accounted);
		if (accounted) {
			tot->leading_overflow |= add_u64_sat(&tot->leading, l.leading);
			tot->trailing_overflow |= add_u64_sat(&tot->trailing, l.trailing);
			tot->accounted = true;
		}
		tot->events += st[i].events;
		tot->gaps_overflow |= add_u64_sat(&tot->gaps, l.gaps);
		add_u64_sat(&tot->earlier, l.earlier);
	}
	for (i = 0; i < t->nr; i++)
		mixed |= pd->other[i] != 0;
	printf("total: events %zu", tot->events);
	if (mixed)
		printf(" (mixed sample periods)");
	else if (pd->period)
		printf(" (%s)", kmt_sample_text(pd->period, buf, sizeof(buf)));
	print_total("gaps", tot->gaps, tot->gaps_overflow);
	if (tot->earlier)
		printf(", earlier %llu", (unsigned long long)tot->earlier);
	if (tot->accounted) {
		print_total("leading", tot->leading, tot->leading_overflow);
		print_total("trailing", tot->trailing, tot->trailing_overflow);
	}
	tot->errors += check_overflow("gaps", tot->gaps_overflow);
	tot->errors += check_overflow("leading", tot->leading_overflow);
	tot->errors += check_overflow("trailing", tot->trailing_overflow);
	if (!t->has_dropped)
		printf(", dropped unknown\n");
	else if (!t->has_dropped_start)
		printf(", dropped %llu (cumulative since boot, not exact)\n",
		       (unsigned long long)t->dropped);
	else if (!check_in_window(t))
		printf(", dropped %llu (no per-CPU stats, not exact)\n",
		       (unsigned long long)t->dropped);
	else
		printf(", dropped %llu\n", (unsigned long long)t->dropped);
}

/* Whether @t has a stream of @cpu. */
static bool has_stream(const struct kmt_trace *t, uint64_t cpu)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		if (t->streams[i].cpu >= 0 && (uint64_t)t->streams[i].cpu == cpu)
			return true;
	return false;
}

/*
 * The events record read from a CPU but could not write to its stream,
 * its output having failed (DIR/unwritten), are lost, and no counter of
 * the kernel counts them: each CPU with some is a problem when the whole
 * directory is checked (@whole) or its stream is.
 */
static size_t check_unwritten(const struct kmt_trace *t, bool whole)
{
	const struct kmt_cpu_unwritten *u;
	size_t i, errors = 0;

	for (i = 0; i < t->nr_unwritten; i++) {
		u = &t->unwritten[i];
		if (!u->events || (!whole && !has_stream(t, u->cpu)))
			continue;
		kmt_err("cpu%llu: %llu events read but not written to the stream (%s/unwritten)",
			(unsigned long long)u->cpu, (unsigned long long)u->events,
			t->dir);
		errors++;
	}
	return errors;
}

/*
 * The drops of the recording, CPU by CPU, must add up to DIR/dropped; a
 * CPU whose seq advanced while recording must have a stream when the
 * whole directory is checked (@whole): every seq number it took is an
 * event written to its stream or a drop, and without the stream those
 * written are lost, drops or not.
 */
static size_t check_window_total(const struct kmt_trace *t, bool whole)
{
	const struct kmt_cpu_stat *cs, *cs0;
	size_t i, errors = 0;
	bool overflow = false;
	uint64_t sum = 0;

	for (i = 0; i < t->nr_stats; i++) {
		cs = &t->stats[i];
		cs0 = kmt_trace_cpu_stat_start(t, cs->cpu);
		/* Reported with the stream, if the CPU has one. */
		if (!cs0 || cs0->dropped > cs->dropped ||
		    cs0->next_seq > cs->next_seq)
			continue;
		overflow |= add_u64_sat(&sum, cs->dropped - cs0->dropped);
		if (whole && cs->next_seq > cs0->next_seq &&
		    !has_stream(t, cs->cpu)) {
			kmt_err("cpu%llu: no stream, but it took seq %llu to %llu while recording (%llu events, %llu dropped)",
				(unsigned long long)cs->cpu,
				(unsigned long long)cs0->next_seq,
				(unsigned long long)cs->next_seq - 1,
				(unsigned long long)(cs->next_seq - cs0->next_seq),
				(unsigned long long)(cs->dropped - cs0->dropped));
			errors++;
		}
	}
	if (!t->has_dropped || !t->has_dropped_start)
		return errors;
	if (overflow) {
		kmt_err("%s: stats dropped counts add up to more than 2^64 - 1",
			t->dir);
		return errors + 1;
	}
	if (sum == t->dropped)
		return errors;
	kmt_err("%s: stats and stats.start count %llu events dropped while recording but dropped says %llu",
		t->dir, (unsigned long long)sum, (unsigned long long)t->dropped);
	return errors + 1;
}

/* Compare the dropped counts of DIR/stats and DIR/dropped. */
static size_t check_stats_total(const struct kmt_trace *t, bool whole)
{
	bool overflow = false;
	uint64_t sum = 0;
	size_t i;

	if (check_in_window(t))
		return check_window_total(t, whole);
	if (!t->has_stats || !t->has_dropped)
		return 0;
	for (i = 0; i < t->nr_stats; i++)
		overflow |= add_u64_sat(&sum, t->stats[i].dropped);
	if (overflow) {
		kmt_err("%s: stats dropped counts add up to more than 2^64 - 1",
			t->dir);
		return 1;
	}
	if (sum == t->dropped)
		return 0;
	kmt_err("%s: stats count %llu dropped events but dropped says %llu",
		t->dir, (unsigned long long)sum, (unsigned long long)t->dropped);
	return 1;
}

int check_main(int argc, char **argv)
{
	struct kmt_gfp_names gfp;
	struct kmt_comms comms;
	struct check_params p;
	struct kmt_stats *st;
	struct trace_period pd;
	struct totals tot;
	struct kmt_trace t;
	size_t errors = 0;

	check_parse_args(argc, argv, &p);
	if (check_load(&t, &p)) {
		kmt_trace_free(&t);
		return 1;
	}
	if (t.dir) {
		errors += t.header_problems;
		errors += check_header(&t);
		errors += check_abi_file(&t);
		errors += kmt_trace_read_stats(&t);
		errors += kmt_trace_read_unwritten(&t);
		errors += check_start_files(&t);
		errors += kmt_comms_load(&comms, t.dir, false);
		kmt_comms_free(&comms);
		errors += kmt_gfp_names_load(&gfp, t.dir);
		kmt_gfp_names_free(&gfp);
	}
	st = xcalloc(t.nr, sizeof(*st));
	errors += check_validate(&t, st, &pd);
	errors += check_periods(&t, st, &pd);
	check_print(&t, st, &pd, &tot);
	errors += tot.errors;
	if (t.has_dropped && !tot.gaps_overflow && tot.gaps > t.dropped) {
		kmt_err("%s: seq gaps show %llu lost events but dropped says only %llu",
			t.dir, (unsigned long long)tot.gaps,
			(unsigned long long)t.dropped);
		errors++;
	}
	errors += check_stats_total(&t, !p.nr_files);
	errors += check_unwritten(&t, !p.nr_files);
	if (errors)
		printf("result: %zu problems\n", errors);
	else
		printf("result: ok\n");
	free(st);
	period_free(&pd);
	kmt_trace_free(&t);
	return errors ? 1 : 0;
}
