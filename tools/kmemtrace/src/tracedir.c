// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace - a trace directory: its cpuN streams, in CPU order, and its header
 *
 * Part of the stream layer (trace.h); see Documentation/kmemtrace.rst.
 */
#include <assert.h>
#include <byteswap.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace.h"
#include "utils.h"

int kmt_trace_add_file(struct kmt_trace *t, const char *path)
{
	struct kmt_stream s;
	int ret;

	ret = kmt_stream_open(&s, path);
	if (ret)
		return ret;
	t->streams = xrealloc(t->streams, (t->nr + 1) * sizeof(*t->streams));
	t->streams[t->nr++] = s;
	return 0;
}

static int stream_cmp(const void *a, const void *b)
{
	const struct kmt_stream *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return strcmp(x->path, y->path);
}

int kmt_trace_load_dir(struct kmt_trace *t, const char *dir)
{
	struct dirent *de;
	int ret = 0;
	char *path;
	DIR *d;

	memset(t, 0, sizeof(*t));
	d = opendir(dir);
	if (!d) {
		ret = -errno;
		kmt_err("%s: %s", dir, strerror(-ret));
		return ret;
	}
	t->dir = xstrdup(dir);
	while (!ret && (de = readdir(d))) {
		if (kmt_cpu_from_name(de->d_name) < 0)
			continue;
		path = path_join(dir, de->d_name);
		ret = kmt_trace_add_file(t, path);
		free(path);
	}
	closedir(d);
	if (!ret && !t->nr) {
		kmt_err("%s: no cpuN files (not a kmemtrace record directory?)", dir);
		ret = -ENOENT;
	}
	if (ret) {
		kmt_trace_free(t);
		return ret;
	}
	qsort(t->streams, t->nr, sizeof(*t->streams), stream_cmp);
	kmt_trace_read_dropped(t);
	t->header_problems = kmt_header_load(&t->header, dir, false);
	return 0;
}

size_t kmt_trace_validate(struct kmt_trace *t, struct kmt_stats *st)
{
	size_t i, errors = 0;

	for (i = 0; i < t->nr; i++)
		errors += kmt_stream_validate(&t->streams[i], &st[i]);
	return errors;
}

void kmt_trace_free(struct kmt_trace *t)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		kmt_stream_free(&t->streams[i]);
	free(t->streams);
	free(t->stats);
	free(t->stats_start);
	free(t->unwritten);
	free(t->dir);
	kmt_header_free(&t->header);
	memset(t, 0, sizeof(*t));
}

