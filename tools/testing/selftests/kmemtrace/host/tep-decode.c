// SPDX-License-Identifier: GPL-2.0
/*
 * tep-decode DIR - decode kmemtrace's ftrace entries with libtraceevent,
 * knowing nothing of kmemtrace but the format files.
 *
 * DIR holds what a guest copied from tracefs: events/header_page as
 * header_page, events/ftrace/kmem_{alloc,free}/format as
 * kmem_{alloc,free}.format, and per_cpu/cpuN/trace_pipe_raw as cpuN.raw.
 * Prints one line per kmem entry, in the field order of the tracer's raw
 * output: "type kind call_site ptr bytes_req bytes_alloc" for kmem_alloc,
 * "type call_site ptr bytes" for kmem_free (numbers in hex where raw
 * prints hex), so the host can compare the two.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>

#define SUBBUF_SIZE	4096

static char *slurp(const char *dir, const char *name, size_t *len)
{
	char path[4096];
	char *buf = NULL;
	size_t cap = 0, n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	*len = 0;
	do {
		if (*len == cap) {
			cap = cap ? 2 * cap : 65536;
			buf = realloc(buf, cap + 1);
			if (!buf)
				exit(1);
		}
		n = fread(buf + *len, 1, cap - *len, f);
		*len += n;
	} while (n);
	fclose(f);
	buf[*len] = '\0';
	return buf;
}

static unsigned long long value(struct tep_event *ev, struct tep_record *rec,
				const char *name)
{
	unsigned long long val = 0;

	if (tep_get_field_val(NULL, ev, name, rec, &val, 0)) {
		fprintf(stderr, "tep-decode: %s has no field %s\n", ev->name,
			name);
		exit(1);
	}
	return val;
}

static void print_record(struct tep_handle *tep, struct tep_record *rec)
{
	struct tep_event *ev = tep_find_event_by_record(tep, rec);

	if (!ev)
		return;
	if (!strcmp(ev->name, "kmem_alloc"))
		printf("%llu %llu %llx %llx %llu %llu\n", value(ev, rec, "type"),
		       value(ev, rec, "kind"), value(ev, rec, "call_site"),
		       value(ev, rec, "ptr"), value(ev, rec, "bytes_req"),
		       value(ev, rec, "bytes_alloc"));
	else if (!strcmp(ev->name, "kmem_free"))
		printf("%llu %llx %llx %llu\n", value(ev, rec, "type"),
		       value(ev, rec, "call_site"), value(ev, rec, "ptr"),
		       value(ev, rec, "bytes"));
}

static void decode_cpu(struct tep_handle *tep, const char *dir, int cpu)
{
	struct kbuffer *kbuf = kbuffer_alloc(KBUFFER_LSIZE_8,
					     KBUFFER_ENDIAN_LITTLE);
	char name[32];
	size_t len, off;
	char *raw;

	snprintf(name, sizeof(name), "cpu%d.raw", cpu);
	raw = slurp(dir, name, &len);
	for (off = 0; raw && off + SUBBUF_SIZE <= len; off += SUBBUF_SIZE) {
		unsigned long long ts;
		void *data;

		kbuffer_load_subbuffer(kbuf, raw + off);
		for (data = kbuffer_read_event(kbuf, &ts); data;
		     data = kbuffer_next_event(kbuf, &ts)) {
			struct tep_record rec = {
				.ts = ts,
				.cpu = cpu,
				.data = data,
				.size = kbuffer_event_size(kbuf),
			};

			print_record(tep, &rec);
		}
	}
	free(raw);
	kbuffer_free(kbuf);
}

int main(int argc, char **argv)
{
	static const char *const formats[] = {
		"kmem_alloc.format", "kmem_free.format",
	};
	struct tep_handle *tep = tep_alloc();
	size_t len;
	char *buf;
	int i;

	if (argc != 2) {
		fprintf(stderr, "usage: tep-decode DIR\n");
		return 2;
	}
	tep_set_long_size(tep, 8);
	tep_set_page_size(tep, SUBBUF_SIZE);
	buf = slurp(argv[1], "header_page", &len);
	if (!buf || tep_parse_header_page(tep, buf, len, 8)) {
		fprintf(stderr, "tep-decode: bad %s/header_page\n", argv[1]);
		return 1;
	}
	free(buf);
	for (i = 0; i < 2; i++) {
		buf = slurp(argv[1], formats[i], &len);
		if (!buf || tep_parse_event(tep, buf, len, "ftrace")) {
			fprintf(stderr, "tep-decode: cannot parse %s\n",
				formats[i]);
			return 1;
		}
		free(buf);
	}
	for (i = 0; i < 64; i++)
		decode_cpu(tep, argv[1], i);
	tep_free(tep);
	return 0;
}
