// SPDX-License-Identifier: GPL-2.0
/*
 * mkstream - write crafted kmemtrace event streams for the host tests
 *
 * usage: mkstream [-s] [-t BYTES] FILE [EVENT...]
 *
 * Each EVENT is a comma-separated list of KEY=VALUE pairs; every key has a
 * default, so "" is a valid event.  Keys: kind (alloc, free, realloc or a
 * number), type (kmalloc, cache, pages, percpu, vmalloc or a number),
 * flags (irq, backing or a number), cpu, seq, ts, site, ptr, req, alloc,
 * gfp, node, pid, order, cache, mt (migratetype), magic, abi, and swab=1
 * to write that event in the other byte order.
 *
 * Defaults: magic KMEMTRACE_MAGIC, abi KMEMTRACE_ABI_VERSION, kind alloc,
 * type kmalloc, cpu N of a FILE named cpuN (else 0), seq one above the
 * previous event (0 first), ts 1000 above the previous event, node -1.
 *
 * -s writes the events in the other byte order; -t BYTES keeps only the
 * first BYTES bytes of the last event, to make a truncated stream.
 */
#include <byteswap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/kmemtrace.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct name_value {
	const char *name;
	unsigned long long value;
};

static const struct name_value names[] = {
	{ "alloc",	KMEMTRACE_KIND_ALLOC },
	{ "free",	KMEMTRACE_KIND_FREE },
	{ "realloc",	KMEMTRACE_KIND_REALLOC },
	{ "irq",	KMEMTRACE_FLAG_INTERRUPT },
	{ "backing",	KMEMTRACE_FLAG_BACKING },
	{ "kmalloc",	KMEMTRACE_TYPE_KMALLOC },
	{ "cache",	KMEMTRACE_TYPE_CACHE },
	{ "pages",	KMEMTRACE_TYPE_PAGES },
	{ "percpu",	KMEMTRACE_TYPE_PERCPU },
	{ "vmalloc",	KMEMTRACE_TYPE_VMALLOC },
};

static void die(const char *what, const char *arg)
{
	fprintf(stderr, "mkstream: %s: %s\n", what, arg);
	exit(2);
}

static unsigned long long parse_value(const char *s)
{
	unsigned long long v;
	size_t i;
	char *end;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(s, names[i].name))
			return names[i].value;
	v = strtoull(s, &end, 0);
	if (!*s || *end)
		die("bad value", s);
	return v;
}

static void set_field(struct kmemtrace_event *ev, const char *key,
		      unsigned long long v)
{
	if (!strcmp(key, "kind"))
		ev->kind = v;
	else if (!strcmp(key, "type"))
		ev->type = v;
	else if (!strcmp(key, "cpu"))
		ev->cpu = v;
	else if (!strcmp(key, "seq"))
		ev->seq = v;
	else if (!strcmp(key, "ts"))
		ev->timestamp = v;
	else if (!strcmp(key, "site"))
		ev->call_site = v;
	else if (!strcmp(key, "ptr"))
		ev->ptr = v;
	else if (!strcmp(key, "req"))
		ev->bytes_req = v;
	else if (!strcmp(key, "alloc"))
		ev->bytes_alloc = v;
	else if (!strcmp(key, "gfp"))
		ev->gfp_flags = v;
	else if (!strcmp(key, "node"))
		ev->node = (int)v;
	else if (!strcmp(key, "pid"))
		ev->pid = v;
	else if (!strcmp(key, "order"))
		ev->order = v;
	else if (!strcmp(key, "cache"))
		ev->cache_id = v;
	else if (!strcmp(key, "mt"))
		ev->migratetype = v;
	else if (!strcmp(key, "flags"))
		ev->flags = v;
	else if (!strcmp(key, "magic"))
		ev->magic = v;
	else if (!strcmp(key, "abi"))
		ev->abi_version = v;
	else
		die("unknown key", key);
}

/* Return whether the event asks to be written in the other byte order. */
static int parse_event(struct kmemtrace_event *ev, char *spec)
{
	char *pair, *eq, *save;
	int swab = 0;

	for (pair = strtok_r(spec, ",", &save); pair;
	     pair = strtok_r(NULL, ",", &save)) {
		eq = strchr(pair, '=');
		if (!eq)
			die("expected KEY=VALUE", pair);
		*eq = '\0';
		if (!strcmp(pair, "swab"))
			swab = parse_value(eq + 1) != 0;
		else
			set_field(ev, pair, parse_value(eq + 1));
	}
	return swab;
}

static void swap_event(struct kmemtrace_event *ev)
{
	ev->magic = bswap_16(ev->magic);
	ev->flags = bswap_16(ev->flags);
	ev->cpu = bswap_32(ev->cpu);
	ev->pid = bswap_32(ev->pid);
	ev->node = (__s32)bswap_32((__u32)ev->node);
	ev->gfp_flags = bswap_32(ev->gfp_flags);
	ev->cache_id = bswap_32(ev->cache_id);
	/* migratetype and __reserved[] are bytes. */
	ev->seq = bswap_64(ev->seq);
	ev->timestamp = bswap_64(ev->timestamp);
	ev->call_site = bswap_64(ev->call_site);
	ev->ptr = bswap_64(ev->ptr);
	ev->bytes_req = bswap_64(ev->bytes_req);
	ev->bytes_alloc = bswap_64(ev->bytes_alloc);
}

static unsigned int default_cpu(const char *path)
{
	const char *name = strrchr(path, '/');

	name = name ? name + 1 : path;
	if (strncmp(name, "cpu", 3))
		return 0;
	return strtoul(name + 3, NULL, 10);
}

/* Fill the defaults of event @i from the previous event @prev. */
static void init_event(struct kmemtrace_event *ev,
		       const struct kmemtrace_event *prev, unsigned int cpu)
{
	memset(ev, 0, sizeof(*ev));
	ev->magic = KMEMTRACE_MAGIC;
	ev->abi_version = KMEMTRACE_ABI_VERSION;
	ev->kind = KMEMTRACE_KIND_ALLOC;
	ev->type = KMEMTRACE_TYPE_KMALLOC;
	ev->cpu = cpu;
	ev->node = KMEMTRACE_NO_NODE;
	ev->seq = prev ? prev->seq + 1 : 0;
	ev->timestamp = prev ? prev->timestamp + 1000 : 1000;
}

int main(int argc, char **argv)
{
	struct kmemtrace_event ev, prev;
	long truncate = -1;
	int c, i, swab, swapped = 0;
	size_t len;
	FILE *f;

	while ((c = getopt(argc, argv, "st:")) != -1) {
		if (c == 's')
			swapped = 1;
		else if (c == 't')
			truncate = strtol(optarg, NULL, 0);
		else
			die("usage", "mkstream [-s] [-t BYTES] FILE [EVENT...]");
	}
	if (optind >= argc)
		die("usage", "mkstream [-s] [-t BYTES] FILE [EVENT...]");
	f = fopen(argv[optind], "w");
	if (!f)
		die("cannot create", argv[optind]);
	for (i = optind + 1; i < argc; i++) {
		init_event(&ev, i > optind + 1 ? &prev : NULL, default_cpu(argv[optind]));
		swab = parse_event(&ev, argv[i]);
		prev = ev;
		if (swapped != swab)
			swap_event(&ev);
		len = sizeof(ev);
		if (i == argc - 1 && truncate >= 0 && (size_t)truncate < len)
			len = truncate;
		if (fwrite(&ev, 1, len, f) != len)
			die("write failed", argv[optind]);
	}
	if (fclose(f))
		die("write failed", argv[optind]);
	return 0;
}
