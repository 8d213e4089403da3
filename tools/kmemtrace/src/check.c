// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace check - validate the event streams of a recorded trace
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kmemtrace.h"
#include "trace.h"
#include "utils.h"

struct check_params {
	const char *dir;
	char **files;
	int nr_files;
};

static void check_usage(int status)
{
	FILE *out = status ? stderr : stdout;

	fprintf(out,
		"  usage: kmemtrace check DIR [FILES...]\n"
		"         kmemtrace check FILE\n"
		"\n"
		"  Validate the cpuN streams of DIR (only FILES, relative to DIR unless\n"
		"  they hold a '/', when given): event size, magic, byte order, ABI\n"
		"  version, kind, type, CPU and seq order.  Prints per stream the number\n"
		"  of events, the first and last seq and the seq gaps, and compares the\n"
		"  gaps with DIR/dropped.  Exits 1 when a problem is found.\n"
		"\n"
		"     -h/--help  print this help\n");
	exit(status);
}

static void check_parse_args(int argc, char **argv, struct check_params *p)
{
	static const struct option long_options[] = {
		{ "help",	no_argument,	NULL, 'h' },
		{ NULL,		0,		NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", long_options, NULL)) != -1) {
		if (c == 'h')
			check_usage(0);
		check_usage(KMT_EXIT_USAGE);
	}
	if (optind >= argc) {
		err_msg("check: expected a DIR argument");
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
		err_msg("%s: %s", p->dir, strerror(-ret));
		return ret;
	}
	if (!ret && p->nr_files) {
		err_msg("check: %s: not a directory", p->dir);
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
	if (!ret)
		kmt_trace_read_dropped(t);
	return ret;
}

/* Compare DIR/abi_version, when present, with the supported version. */
static size_t check_abi_file(const char *dir)
{
	char *path = path_join(dir, "abi_version");
	uint64_t abi;
	size_t errors = 0;
	int ret;

	ret = read_u64_file(path, &abi);
	if (ret && ret != -ENOENT) {
		err_msg("%s: %s", path, ret == -EINVAL ? "not a number" : strerror(-ret));
		errors++;
	} else if (!ret && abi != KMEMTRACE_ABI_VERSION) {
		err_msg("%s: ABI version %llu, this kmemtrace supports %d", path,
			(unsigned long long)abi, KMEMTRACE_ABI_VERSION);
		errors++;
	}
	free(path);
	return errors;
}

static uint64_t check_print(const struct kmt_trace *t, const struct kmt_stats *st)
{
	uint64_t gaps = 0;
	size_t i, events = 0;

	for (i = 0; i < t->nr; i++) {
		printf("%s: events %zu", path_basename(t->streams[i].path),
		       st[i].events);
		if (st[i].events)
			printf(", first seq %llu, last seq %llu, gaps %llu",
			       (unsigned long long)st[i].first_seq,
			       (unsigned long long)st[i].last_seq,
			       (unsigned long long)st[i].gaps);
		printf("\n");
		events += st[i].events;
		gaps += st[i].gaps;
	}
	printf("total: events %zu, gaps %llu, dropped ", events,
	       (unsigned long long)gaps);
	if (t->has_dropped)
		printf("%llu\n", (unsigned long long)t->dropped);
	else
		printf("unknown\n");
	return gaps;
}

int check_main(int argc, char **argv)
{
	struct check_params p;
	struct kmt_stats *st;
	struct kmt_trace t;
	size_t errors = 0;
	uint64_t gaps;

	check_parse_args(argc, argv, &p);
	if (check_load(&t, &p)) {
		kmt_trace_free(&t);
		return 1;
	}
	if (t.dir)
		errors += check_abi_file(t.dir);
	st = xcalloc(t.nr, sizeof(*st));
	errors += kmt_trace_validate(&t, st);
	gaps = check_print(&t, st);
	if (t.has_dropped && gaps > t.dropped) {
		err_msg("%s: seq gaps show %llu lost events but dropped says only %llu",
			t.dir, (unsigned long long)gaps,
			(unsigned long long)t.dropped);
		errors++;
	}
	if (errors)
		printf("result: %zu problems\n", errors);
	else
		printf("result: ok\n");
	free(st);
	kmt_trace_free(&t);
	return errors ? 1 : 0;
}
