// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace - CTF 1.8 metadata of a recording, and "kmemtrace ctf"
 *
 * See ctf.h and Documentation/kmemtrace.rst.
 */
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctf.h"
#include "header.h"
#include "kmemtrace.h"
#include "opts.h"
#include "trace.h"
#include "utils.h"

/* The event header is the first 16 bytes; the id is at byte 3. */
static_assert(offsetof(struct kmemtrace_event, kind) == 3 &&
	      offsetof(struct kmemtrace_event, type) == 4 &&
	      offsetof(struct kmemtrace_event, timestamp) == 8 &&
	      offsetof(struct kmemtrace_event, flags) == 16,
	      "the CTF event header is magic, abi_version, kind, type, time");

/* The payload, field by field, as the event has it after its header. */
static const struct {
	const char *type;
	const char *name;
} ctf_fields[] = {
	{ "x16_t",	"flags" },
	{ "uint16_t",	"cpu" },
	{ "uint8_t",	"order" },
	{ "uint8_t",	"migratetype" },
	{ "uint16_t",	"reserved1" },
	{ "uint32_t",	"pid" },
	{ "int32_t",	"node" },
	{ "x32_t",	"gfp_flags" },
	{ "uint32_t",	"cache_id" },
	{ "x32_t",	"stack_id" },
	{ "uint32_t",	"sample_period" },
	{ "uint64_t",	"seq" },
	{ "x64_t",	"call_site" },
	{ "x64_t",	"ptr" },
	{ "uint64_t",	"bytes_req" },
	{ "uint64_t",	"bytes_alloc" },
	{ "x64_t",	"tag" },
};

/* The header keys that go into the trace's environment. */
static const char * const ctf_env_keys[] = {
	"kernel_release", "machine", "build_id",
};

/* Write @s as a CTF string literal; other than printable ASCII is '?'. */
static void ctf_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s >= ' ' && *s <= '~' ? *s : '?', f);
	}
	fputc('"', f);
}

void kmt_ctf_metadata(FILE *f, bool big_endian, const struct kmt_header *h)
{
	unsigned int kind, type, id;
	const char *value;
	size_t i;

	fprintf(f,
		"/* CTF 1.8 */\n"
		"\n"
		"/* kmemtrace ABI %d events: see <linux/kmemtrace.h> */\n"
		"\n"
		"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
		"typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
		"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
		"typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n"
		"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
		"typealias integer { size = 16; align = 8; signed = false; base = 16; } := x16_t;\n"
		"typealias integer { size = 32; align = 8; signed = false; base = 16; } := x32_t;\n"
		"typealias integer { size = 64; align = 8; signed = false; base = 16; } := x64_t;\n"
		"\n"
		"trace {\n"
		"\tmajor = 1;\n"
		"\tminor = 8;\n"
		"\tbyte_order = %s;\n"
		"};\n"
		"\n"
		"env {\n"
		"\ttracer_name = \"kmemtrace\";\n"
		"\tkmemtrace_abi_version = %d;\n",
		KMEMTRACE_ABI_VERSION, big_endian ? "be" : "le",
		KMEMTRACE_ABI_VERSION);
	for (i = 0; h && i < ARRAY_SIZE(ctf_env_keys); i++) {
		value = kmt_header_get(h, ctf_env_keys[i]);
		if (!value)
			continue;
		fprintf(f, "\t%s = ", ctf_env_keys[i]);
		ctf_string(f, value);
		fputs(";\n", f);
	}
	fprintf(f,
		"};\n"
		"\n"
		"/* The kernel's trace_clock_local(), in nanoseconds. */\n"
		"clock {\n"
		"\tname = trace_clock_local;\n"
		"\tdescription = \"trace_clock_local() of the traced kernel, in ns\";\n"
		"\tfreq = 1000000000;\n"
		"\tabsolute = false;\n"
		"};\n"
		"\n"
		"typealias integer {\n"
		"\tsize = 64; align = 8; signed = false;\n"
		"\tmap = clock.trace_clock_local.value;\n"
		"} := ts_t;\n"
		"\n"
		"/* No packet header or context: a cpuN file is one packet. */\n"
		"stream {\n"
		"\tevent.header := struct {\n"
		"\t\tx16_t magic;\n"
		"\t\tuint8_t abi_version;\n"
		"\t\tuint16_t id;\t/* kind and type */\n"
		"\t\tuint8_t reserved0[3];\n"
		"\t\tts_t timestamp;\n"
		"\t};\n"
		"};\n"
		"\n"
		"struct kmemtrace_fields {\n");
	for (i = 0; i < ARRAY_SIZE(ctf_fields); i++)
		fprintf(f, "\t%s %s;\n", ctf_fields[i].type, ctf_fields[i].name);
	fputs("};\n", f);
	for (kind = KMEMTRACE_KIND_ALLOC; kind <= KMT_KIND_MAX; kind++) {
		for (type = KMEMTRACE_TYPE_KMALLOC; type <= KMEMTRACE_TYPE_VMALLOC;
		     type++) {
			/* Only pages split. */
			if (kind == KMEMTRACE_KIND_SPLIT && type != KMEMTRACE_TYPE_PAGES)
				continue;
			/* kind at byte 3, type at byte 4 */
			id = big_endian ? kind << 8 | type : type << 8 | kind;
			fprintf(f,
				"\n"
				"event {\n"
				"\tname = \"%s_%s\";\n"
				"\tid = %u;\n"
				"\tfields := struct kmemtrace_fields;\n"
				"};\n",
				kmt_kind_name(kind), kmt_type_name(type), id);
		}
	}
}

/* Remove the links of @ctf named cpuN, which kmt_ctf_write() makes again. */
static int ctf_unlink_streams(const char *ctf)
{
	struct dirent *de;
	struct stat st;
	char *path;
	int ret = 0;
	DIR *d;

	d = opendir(ctf);
	if (!d) {
		ret = -errno;
		kmt_err("%s: %s", ctf, strerror(-ret));
		return ret;
	}
	while (!ret && (de = readdir(d))) {
		if (kmt_cpu_from_name(de->d_name) < 0)
			continue;
		path = path_join(ctf, de->d_name);
		if (!lstat(path, &st) && S_ISLNK(st.st_mode) && unlink(path)) {
			ret = -errno;
			kmt_err("%s: %s", path, strerror(-ret));
		}
		free(path);
	}
	closedir(d);
	return ret;
}

/* Link @ctf/cpuN to ../cpuN for each regular cpuN file of @dir. */
static int ctf_link_streams(const char *dir, const char *ctf)
{
	struct dirent *de;
	char *path, *target;
	int ret = 0;
	DIR *d;

	d = opendir(dir);
	if (!d) {
		ret = -errno;
		kmt_err("%s: %s", dir, strerror(-ret));
		return ret;
	}
	while (!ret && (de = readdir(d))) {
		if (kmt_cpu_from_name(de->d_name) < 0)
			continue;
		path = path_join(dir, de->d_name);
		if (is_regular(path) > 0) {
			free(path);
			path = path_join(ctf, de->d_name);
			target = path_join("..", de->d_name);
			if (symlink(target, path)) {
				ret = -errno;
				kmt_err("%s: %s", path, strerror(-ret));
			}
			free(target);
		}
		free(path);
	}
	closedir(d);
	return ret;
}

int kmt_ctf_write(const char *dir, bool big_endian)
{
	char *ctf = path_join(dir, KMT_CTF_DIR);
	char *path = path_join(ctf, "metadata");
	struct kmt_header h;
	int ret = 0;
	FILE *f;

	if (mkdir(ctf, 0755) && errno != EEXIST) {
		ret = -errno;
		kmt_err("%s: %s", ctf, strerror(-ret));
	}
	if (!ret)
		ret = ctf_unlink_streams(ctf);
	if (!ret)
		ret = ctf_link_streams(dir, ctf);
	if (!ret) {
		f = fopen(path, "w");
		if (!f) {
			ret = -errno;
			kmt_err("%s: %s", path, strerror(-ret));
		}
	}
	if (!ret) {
		/* Quietly: the header's readers report its problems. */
		kmt_header_load(&h, dir, true);
		kmt_ctf_metadata(f, big_endian, h.present ? &h : NULL);
		kmt_header_free(&h);
		ret = close_side_file(f, path, 0);
	}
	free(path);
	free(ctf);
	return ret;
}

/* ---------------------------------------------------------- kmemtrace ctf */

static void ctf_usage(int status)
{
	FILE *out = status ? stderr : stdout;

	fprintf(out,
		"  usage: kmemtrace ctf DIR\n"
		"\n"
		"  Make the recording DIR readable by CTF readers (babeltrace2, Trace\n"
		"  Compass), as record does: write DIR/ctf/metadata, the CTF 1.8\n"
		"  metadata of its cpuN streams, and links DIR/ctf/cpuN to them; read\n"
		"  DIR/ctf then (babeltrace2 DIR/ctf).  The streams must hold ABI %d\n"
		"  events, whose time stamp is in the event header: ABI 1 and 2\n"
		"  recordings are refused.  The byte order is that of the streams.\n"
		"\n"
		"     -h/--help  print this help\n",
		KMEMTRACE_ABI_VERSION);
	exit(status);
}

static const char *ctf_parse_args(int argc, char **argv)
{
	static const struct kmt_opt ctf_opts[] = {
		{ "help", 'h', NULL, "print this help" },
	};
	struct kmt_getopt g;
	int c;

	kmt_getopt_init(&g, ctf_opts, ARRAY_SIZE(ctf_opts), NULL, 0);
	while ((c = getopt_long(argc, argv, g.so, g.lo, NULL)) != -1) {
		if (c == 'h')
			ctf_usage(0);
		ctf_usage(KMT_EXIT_USAGE);
	}
	kmt_getopt_free(&g);
	if (optind != argc - 1) {
		kmt_err("ctf: expected one DIR argument");
		ctf_usage(KMT_EXIT_USAGE);
	}
	return argv[optind];
}

static const char *order_name(bool big)
{
	return big ? "big" : "little";
}

/*
 * The byte order of the streams of @t in @big: that of every stream with
 * a known magic, which must be ABI 3 and agree; else that of the header,
 * else the host's.  Return the number of problems found.
 */
static size_t ctf_byte_order(struct kmt_trace *t, bool *big)
{
	const struct kmt_stream *first = NULL;
	const char *order;
	size_t i, errors = 0;
	struct kmt_stream *s;
	bool b;

	*big = KMT_HOST_BIG_ENDIAN;
	order = kmt_header_get(&t->header, "byte_order");
	if (order)
		*big = !strcmp(order, "big");
	for (i = 0; i < t->nr; i++) {
		s = &t->streams[i];
		if (kmt_stream_order(s) == KMT_ORDER_UNKNOWN)
			continue;
		if (s->abi != KMEMTRACE_ABI_VERSION) {
			kmt_err("%s: events are ABI version %u: CTF describes ABI %d events only (their time stamp is in the event header)",
				s->path, s->abi, KMEMTRACE_ABI_VERSION);
			errors++;
			continue;
		}
		b = s->order == KMT_ORDER_OTHER ? !KMT_HOST_BIG_ENDIAN :
						  KMT_HOST_BIG_ENDIAN;
		if (first && b != *big) {
			kmt_err("%s: events are %s-endian, but those of %s are %s-endian",
				s->path, order_name(b), first->path,
				order_name(*big));
			errors++;
			continue;
		}
		if (!first)
			first = s;
		*big = b;
	}
	return errors;
}

int ctf_main(int argc, char **argv)
{
	const char *dir = ctf_parse_args(argc, argv);
	struct kmt_trace t;
	size_t errors;
	bool big;

	if (kmt_trace_load_dir(&t, dir))
		return 1;
	errors = ctf_byte_order(&t, &big);
	kmt_trace_free(&t);
	if (errors)
		return 1;
	return kmt_ctf_write(dir, big) ? 1 : 0;
}
