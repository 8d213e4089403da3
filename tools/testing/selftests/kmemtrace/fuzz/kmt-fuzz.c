// SPDX-License-Identifier: GPL-2.0
/*
 * kmt-fuzz - fuzz targets over the parsers of the kmemtrace tool
 *
 * Every file the tool reads comes from a trace directory someone may have
 * damaged, so each parser gets a target.  An input is the contents of one
 * file, written into a scratch trace directory, and the tool's own loading
 * functions read it back:
 *
 *   stream    DIR/cpu0: loading, byte order, validation and the merge
 *   header    DIR/header
 *   comms     DIR/comms
 *   caches    DIR/caches
 *   stats     DIR/stats
 *   gfp       DIR/kmalloc_format: the table of gfp flag names
 *   dropped   DIR/dropped
 *   kallsyms  DIR/kallsyms: the symbol table and the _text lookup
 *   tags      DIR/tags: the codetags
 *   stacks    DIR/stacks: the stack traces
 *   elf       a vmlinux: its GNU build id (and the raw bytes as notes)
 *   trace     a whole directory, then check, dump, report and plot on it
 *
 * A "trace" input holds several files, each after a line "==> NAME <==",
 * as "head" prints them: NAME is cpuN, header, comms, caches, stats,
 * stats.start, dropped, dropped.start, kallsyms, tags, stacks or
 * kmalloc_format.
 *
 * Built with -fsanitize=fuzzer, this is a libFuzzer target: set
 * KMT_FUZZ_TARGET to the target's name.  Built with -DKMT_FUZZ_REPLAY, it
 * has a main() that replays files instead, for the regression corpus:
 *
 *   kmt-fuzz TARGET FILE|DIR...
 *
 * The tool's messages go to /dev/null unless KMT_FUZZ_VERBOSE is set; the
 * sanitizers write their reports to file descriptor 2 all the same.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "comms.h"
#include "gfp.h"
#include "header.h"
#include "kmemtrace.h"
#include "stacks.h"
#include "symbols.h"
#include "tags.h"
#include "trace.h"
#include "utils.h"

/* The files of a trace directory an input may write, but cpuN. */
static const char * const side_files[] = {
	"header", "comms", "caches", "stats", "stats.start", "dropped",
	"dropped.start", "kallsyms", "tags", "stacks", "kmalloc_format",
	"vmlinux",	/* last: only the elf target writes it */
};

/* Streams of a "trace" input: cpu0 to cpu(MAX_CPUS - 1). */
#define MAX_CPUS	4

static char *scratch;		/* holds the trace directory */
static char *dir;		/* the trace directory, SCRATCH/trace */

static char *scratch_path(const char *name)
{
	return path_join(dir, name);
}

/* Append @len bytes to DIR/@name. */
static void append_file(const char *name, const void *data, size_t len)
{
	char *path = scratch_path(name);
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0 || write_all(fd, data, len)) {
		perror(path);
		abort();
	}
	close(fd);
	free(path);
}

/* Empty the trace directory, for the next input. */
static void clean_dir(void)
{
	char name[16], *path;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(side_files); i++) {
		path = scratch_path(side_files[i]);
		unlink(path);
		free(path);
	}
	for (i = 0; i < MAX_CPUS; i++) {
		snprintf(name, sizeof(name), "cpu%zu", i);
		path = scratch_path(name);
		unlink(path);
		free(path);
	}
}

static void remove_scratch(void)
{
	clean_dir();
	rmdir(dir);
	rmdir(scratch);
}

static void setup(void)
{
	const char *tmp = getenv("TMPDIR");
	char *tmpl;
	int fd;

	if (scratch)
		return;
	tmpl = path_join(tmp && *tmp ? tmp : "/tmp", "kmt-fuzz.XXXXXX");
	scratch = mkdtemp(tmpl);
	if (!scratch) {
		perror(tmpl);
		exit(1);
	}
	dir = path_join(scratch, "trace");
	if (mkdir(dir, 0755)) {
		perror(dir);
		exit(1);
	}
	atexit(remove_scratch);
	/*
	 * The tool's messages would drown the fuzzer's: its output goes
	 * to /dev/null, and so does stderr, the stdio stream; the
	 * sanitizers write to file descriptor 2, which stays.
	 */
	if (!getenv("KMT_FUZZ_VERBOSE")) {
		fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
			abort();
		close(fd);
		stderr = fopen("/dev/null", "w");
		if (!stderr)
			abort();
	}
}

/* Read every valid event of the trace in DIR, in time order. */
static void merge_all(void)
{
	const struct kmemtrace_event *ev[KMT_MERGE_BATCH];
	struct kmt_stats *st;
	struct kmt_merge m;
	struct kmt_trace t;
	char flags[64];
	size_t i, n;

	if (kmt_trace_load_dir(&t, dir))
		return;
	st = xcalloc(t.nr, sizeof(*st));
	kmt_merge_start(&m, &t, st);
	while ((n = kmt_merge_batch(&m, ev, KMT_MERGE_BATCH))) {
		for (i = 0; i < n; i++) {
			kmt_flags_format(ev[i]->flags, flags, sizeof(flags));
			if (kmt_kind_name(ev[i]->kind)[0] == '?' ||
			    kmt_type_name(ev[i]->type)[0] == '?')
				abort();	/* a valid event has both */
		}
	}
	kmt_merge_end(&m);
	free(st);
	kmt_trace_free(&t);
}

static void fuzz_stream(const uint8_t *data, size_t len)
{
	struct kmt_stats *st;
	struct kmt_trace t;
	size_t i;

	append_file("cpu0", data, len);
	if (kmt_trace_load_dir(&t, dir))
		return;
	for (i = 0; i < t.nr; i++)
		kmt_stream_order(&t.streams[i]);
	st = xcalloc(t.nr, sizeof(*st));
	kmt_trace_validate(&t, st);
	free(st);
	kmt_trace_free(&t);
	merge_all();
}

static void fuzz_header(const uint8_t *data, size_t len)
{
	static const uint64_t texts[] = { 0, 0xffffffff81000000ull };
	struct kmt_header h;
	uint64_t v;
	size_t i;

	append_file("header", data, len);
	kmt_header_load(&h, dir, false);
	for (i = 0; i < h.nr; i++) {
		if (kmt_header_get(&h, h.fields[i].key) != h.fields[i].value)
			abort();	/* each key is kept once */
		kmt_header_get_u64(&h, h.fields[i].key, &v);
	}
	for (i = 0; i < ARRAY_SIZE(texts); i++)
		kmt_header_match_text(&h, "kallsyms", &texts[i]);
	kmt_header_match_text(&h, "kallsyms", NULL);
	kmt_header_free(&h);
}

static void fuzz_comms(const uint8_t *data, size_t len)
{
	struct kmt_comms c;
	const char *name;
	size_t i;

	append_file("comms", data, len);
	kmt_comms_load(&c, dir, false);
	for (i = 0; i < c.nr; i++) {
		name = kmt_comms_lookup(&c, c.comms[i].pid);
		if (!name || !kmt_comms_match(&c, c.comms[i].pid, c.comms[i].comm))
			abort();	/* a pid read is found */
	}
	kmt_comms_lookup(&c, 0);
	kmt_comms_lookup(&c, UINT32_MAX);
	kmt_comms_free(&c);
}

static void fuzz_caches(const uint8_t *data, size_t len)
{
	struct kmt_caches c;
	size_t i;

	append_file("caches", data, len);
	kmt_caches_load(&c, dir);
	for (i = 0; i < c.nr; i++)
		if (kmt_caches_name(&c, c.caches[i].id) != c.caches[i].name)
			abort();	/* each id is kept once */
	kmt_caches_name(&c, 0);
	kmt_caches_name(&c, UINT32_MAX);
	kmt_caches_free(&c);
}

static void fuzz_stats(const uint8_t *data, size_t len)
{
	struct kmt_trace t = { .dir = dir };
	size_t i;

	append_file("stats", data, len);
	kmt_trace_read_stats(&t);
	for (i = 0; i < t.nr_stats; i++)
		if (kmt_trace_cpu_stat(&t, t.stats[i].cpu) != &t.stats[i])
			abort();	/* each CPU is listed once */
	kmt_trace_cpu_stat(&t, -1);
	kmt_trace_cpu_stat(&t, 0);
	free(t.stats);
	free(t.stats_start);
}

static void fuzz_gfp(const uint8_t *data, size_t len)
{
	struct kmt_gfp_names g;
	char buf[64];
	size_t i;

	append_file(KMT_GFP_FORMAT_FILE, data, len);
	kmt_gfp_names_load(&g, dir);
	if (!g.nr)
		abort();	/* the built-in names at least */
	for (i = 0; i < g.nr; i++)
		if (!g.names[i].name)
			abort();
	kmt_gfp_names_format(&g, 0, buf, sizeof(buf));
	kmt_gfp_names_format(&g, 0xcc0, buf, sizeof(buf));
	kmt_gfp_names_format(&g, UINT32_MAX, buf, sizeof(buf));
	kmt_gfp_names_free(&g);
}

static void fuzz_dropped(const uint8_t *data, size_t len)
{
	struct kmt_trace t = { .dir = dir };

	append_file("dropped", data, len);
	kmt_trace_read_dropped(&t);
}

static void fuzz_kallsyms(const uint8_t *data, size_t len)
{
	struct kmt_symtab st = { 0 };
	const struct kmt_sym *sym;
	char buf[512], *text;
	uint64_t addr, off;
	size_t i;
	char *path;

	append_file("kallsyms", data, len);
	path = scratch_path("kallsyms");
	if (!kmt_symtab_load_text(&st, path)) {
		for (i = 0; i < st.nr; i++) {
			sym = kmt_symtab_lookup(&st, st.syms[i].addr, &off);
			if (sym != &st.syms[i] || off)
				abort();	/* a symbol names itself */
			kmt_symtab_format(&st, st.syms[i].addr + 1, buf, sizeof(buf));
		}
		kmt_symtab_format(&st, 0, buf, sizeof(buf));
		kmt_symtab_format(&st, UINT64_MAX, buf, sizeof(buf));
	}
	kmt_symtab_free(&st);
	free(path);
	text = xmalloc(len + 1);
	memcpy(text, data, len);
	text[len] = '\0';
	kmt_kallsyms_text(text, &addr);
	free(text);
}

static void fuzz_tags(const uint8_t *data, size_t len)
{
	struct kmt_tags t;
	size_t i;

	append_file("tags", data, len);
	kmt_tags_load(&t, dir);
	for (i = 0; i < t.nr; i++)
		if (kmt_tags_find(&t, t.tags[i].addr) != &t.tags[i] ||
		    !t.tags[i].text)
			abort();	/* each address is kept once */
	kmt_tags_find(&t, 0);
	kmt_tags_find(&t, UINT64_MAX);
	kmt_tags_free(&t);
}

static void fuzz_stacks(const uint8_t *data, size_t len)
{
	struct kmt_stacks s;
	size_t i;

	append_file("stacks", data, len);
	kmt_stacks_load(&s, dir);
	for (i = 0; i < s.nr; i++) {
		if (kmt_stacks_find(&s, s.stacks[i].handle) != &s.stacks[i] ||
		    !s.stacks[i].nr)
			abort();	/* each handle is kept once, with frames */
		kmt_stack_from(&s.stacks[i], s.stacks[i].frames[0].addr);
	}
	kmt_stacks_find(&s, 0);
	kmt_stacks_find(&s, UINT32_MAX);
	kmt_stacks_free(&s);
}

static void fuzz_elf(const uint8_t *data, size_t len)
{
	char key[] = "build_id", value[] = "00", hpath[] = "header";
	struct kmt_header_field f = { .key = key, .value = value };
	struct kmt_header h = { .path = hpath };
	char hex[KMT_BUILD_ID_HEX], *path;
	size_t align;
	int msb;

	append_file("vmlinux", data, len);
	path = scratch_path("vmlinux");
	kmt_elf_build_id(path, hex, sizeof(hex));
	h.fields = &f;
	h.nr = 1;
	kmt_header_match_vmlinux(&h, path);
	free(path);
	for (msb = 0; msb < 2; msb++)
		for (align = 4; align <= 8; align += 4)
			kmt_notes_build_id(data, len, msb, align, hex, sizeof(hex));
}

/* Run a command of the tool, as "kmemtrace ARGV..." does. */
static void run_cmd(int (*fn)(int argc, char **argv), ...)
{
	char *argv[32];
	va_list ap;
	int argc = 0;

	va_start(ap, fn);
	while (argc < (int)ARRAY_SIZE(argv) - 1 &&
	       (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	optind = 0;	/* getopt_long() starts over */
	fn(argc, argv);
	fflush(stdout);
}

/* Split a "trace" input into the files of DIR, as described on top. */
static void write_parts(const uint8_t *data, size_t len)
{
	static const char start[] = "==> ", end[] = " <==\n";
	const uint8_t *p = data, *stop = data + len, *next, *name, *close;
	char file[16];
	size_t n;

	file[0] = '\0';
	while (p < stop) {
		/* The next part starts at the next well-formed "==> NAME <==". */
		next = p;
		for (;;) {
			next = memmem(next, stop - next, start, 4);
			if (!next)
				break;
			name = next + 4;
			close = memmem(name, stop - name, end, 5);
			if (close && close - name > 0 &&
			    close - name < (ptrdiff_t)sizeof(file) &&
			    !memchr(name, '\n', close - name))
				break;
			next += 4;
		}
		if (file[0])
			append_file(file, p, (next ? next : stop) - p);
		if (!next)
			return;
		n = close - name;
		memcpy(file, name, n);
		file[n] = '\0';
		/* Only the files of a trace directory, cpu0 to cpu3. */
		if (kmt_cpu_from_name(file) >= MAX_CPUS)
			file[0] = '\0';
		if (kmt_cpu_from_name(file) < 0) {
			for (n = 0; n < ARRAY_SIZE(side_files) - 1; n++)
				if (!strcmp(file, side_files[n]))
					break;
			if (n == ARRAY_SIZE(side_files) - 1)
				file[0] = '\0';
		}
		p = close + 5;
	}
}

static void fuzz_trace(const uint8_t *data, size_t len)
{
	/* A plot that never ends must not fill a disk on its way. */
	char svg[] = "/dev/null";

	write_parts(data, len);
	run_cmd(check_main, "check", dir, NULL);
	run_cmd(dump_main, "dump", dir, NULL);
	run_cmd(report_main, "report", "-v", "all", dir, NULL);
	run_cmd(report_main, "report", "-v", "all", "--json", "--sort",
		"lifetime,pingpong,age", "--by", "cache", dir, NULL);
	run_cmd(report_main, "report", "-v", "live,frees,sites", "--csv",
		"--list", "--by", "pid", "--sort", "mismatch,waste", dir, NULL);
	run_cmd(report_main, "report", "-v", "live", "--by", "line", "--module",
		"kmemtrace_pattern,vmlinux", dir, NULL);
	run_cmd(report_main, "report", "-v", "live,stacks,allocinfo", "--by",
		"stack", "--stacks", "1", "--json", dir, NULL);
	run_cmd(report_main, "report", "-v", "all", "-n", "2",
		"--type", "kmalloc,cache,pages", "--cpu", "0-1", "--comm",
		"init,kworker/0:1", "--time", "1us,5s", "--site",
		"foo_alloc,0xffffffff81000110", "--cache", "3,kmalloc-64",
		dir, NULL);
	run_cmd(plot_main, "plot", "-o", svg, dir, NULL);
	run_cmd(plot_main, "plot", "-c", "sizes", "-n", "3", "-o", svg, dir,
		NULL);
	run_cmd(plot_main, "plot", "-c", "lifetimes", "-o", svg, dir, NULL);
}

static const struct {
	const char *name;
	void (*fn)(const uint8_t *data, size_t len);
} targets[] = {
	{ "stream",	fuzz_stream },
	{ "header",	fuzz_header },
	{ "comms",	fuzz_comms },
	{ "caches",	fuzz_caches },
	{ "stats",	fuzz_stats },
	{ "gfp",	fuzz_gfp },
	{ "dropped",	fuzz_dropped },
	{ "kallsyms",	fuzz_kallsyms },
	{ "tags",	fuzz_tags },
	{ "stacks",	fuzz_stacks },
	{ "elf",	fuzz_elf },
	{ "trace",	fuzz_trace },
};

static void (*target)(const uint8_t *data, size_t len);

static int set_target(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(targets); i++) {
		if (name && !strcmp(name, targets[i].name)) {
			target = targets[i].fn;
			return 0;
		}
	}
	fprintf(stderr, "kmt-fuzz: unknown target '%s', one of:", name ? name : "");
	for (i = 0; i < ARRAY_SIZE(targets); i++)
		fprintf(stderr, " %s", targets[i].name);
	fputc('\n', stderr);
	return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	if (!target && set_target(getenv("KMT_FUZZ_TARGET")))
		exit(2);
	setup();
	target(data, len);
	clean_dir();
	return 0;
}

#ifdef KMT_FUZZ_REPLAY
static FILE *log_file;

static int replay_file(const char *path)
{
	size_t len;
	char *buf;
	int ret;

	ret = read_file(path, &buf, &len);
	if (ret) {
		fprintf(log_file, "kmt-fuzz: %s: %s\n", path, strerror(-ret));
		return 1;
	}
	/* Name the file before a sanitizer report, if there is one. */
	fprintf(log_file, "kmt-fuzz: %s\n", path);
	fflush(log_file);
	LLVMFuzzerTestOneInput((const uint8_t *)buf, len);
	free(buf);
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/* Replay the files of @path, in name order, or @path itself. */
static int replay(const char *path, size_t *files)
{
	char **names = NULL, *file;
	size_t nr = 0, i;
	struct dirent *de;
	int errors = 0;
	DIR *d;

	if (is_dir(path) <= 0) {
		++*files;
		return replay_file(path);
	}
	d = opendir(path);
	if (!d) {
		fprintf(log_file, "kmt-fuzz: %s: %s\n", path, strerror(errno));
		return 1;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		names = xrealloc(names, (nr + 1) * sizeof(*names));
		names[nr++] = xstrdup(de->d_name);
	}
	closedir(d);
	qsort(names, nr, sizeof(*names), name_cmp);
	for (i = 0; i < nr; i++) {
		file = path_join(path, names[i]);
		++*files;
		errors += replay_file(file);
		free(file);
		free(names[i]);
	}
	free(names);
	return errors;
}

int main(int argc, char **argv)
{
	size_t files = 0;
	int i, errors = 0;

	log_file = fdopen(dup(2), "w");
	if (argc < 3 || !log_file) {
		fprintf(stderr, "usage: kmt-fuzz TARGET FILE|DIR...\n");
		return 2;
	}
	if (set_target(argv[1]))
		return 2;
	for (i = 2; i < argc; i++)
		errors += replay(argv[i], &files);
	fprintf(log_file, "kmt-fuzz: %s: %zu files replayed, %d unreadable\n",
		argv[1], files, errors);
	fclose(log_file);
	return errors ? 1 : 0;
}
#endif /* KMT_FUZZ_REPLAY */
