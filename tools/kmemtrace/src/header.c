// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace - the header file of a trace: what was traced, and how
 *
 * record writes DIR/header; report, check and dump read it.  It also holds
 * what tells a kernel apart: the GNU build id in ELF notes (of a vmlinux,
 * or /sys/kernel/notes for the running kernel) and the address of _text
 * in kallsyms.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "header.h"
#include "utils.h"

#ifndef VERSION
#define VERSION "unknown"
#endif

/* ELF constants, spelled out so that no <elf.h> is needed. */
#define ELF_CLASS32		1
#define ELF_CLASS64		2
#define ELF_DATA_MSB		2
#define ELF_SHT_NOTE		7
#define ELF_NT_GNU_BUILD_ID	3
/* Longest note section read, far more than any build id note needs. */
#define ELF_MAX_NOTES		(1024 * 1024)

enum value_kind {
	VALUE_STRING,
	VALUE_U64,
	VALUE_BUILD_ID,
	VALUE_BYTE_ORDER,
};

/* The keys of header v1 and what their values must be. */
static const struct {
	const char *key;
	enum value_kind kind;
} known_keys[] = {
	{ "kmemtrace_version",	VALUE_STRING },
	{ "kernel_release",	VALUE_STRING },
	{ "kernel_version",	VALUE_STRING },
	{ "machine",		VALUE_STRING },
	{ "build_id",		VALUE_BUILD_ID },
	{ "text",		VALUE_U64 },
	{ "clock",		VALUE_STRING },
	{ "stamp",		VALUE_STRING },
	{ "cpus",		VALUE_U64 },
	{ "cpus_online",	VALUE_U64 },
	{ "page_size",		VALUE_U64 },
	{ "byte_order",		VALUE_BYTE_ORDER },
	{ "abi_version",	VALUE_U64 },
	{ "start_time",		VALUE_STRING },
	{ "command",		VALUE_STRING },
};

/* ------------------------------------------------------- build ids */

static uint64_t get_uint(const unsigned char *p, size_t size, bool msb)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < size; i++)
		v |= (uint64_t)p[msb ? size - 1 - i : i] << (8 * i);
	return v;
}

static size_t align_up(size_t v, size_t align)
{
	return (v + align - 1) / align * align;
}

int kmt_notes_build_id(const unsigned char *buf, size_t len, bool msb,
		       size_t align, char *hex, size_t hexlen)
{
	size_t off = 0, namesz, descsz, name_off, desc_off, i;
	uint64_t type;

	while (len - off >= 12) {
		namesz = get_uint(buf + off, 4, msb);
		descsz = get_uint(buf + off + 4, 4, msb);
		type = get_uint(buf + off + 8, 4, msb);
		name_off = off + 12;
		if (namesz > len - name_off)
			break;
		desc_off = align_up(name_off + namesz, align);
		if (desc_off > len || descsz > len - desc_off)
			break;
		if (type == ELF_NT_GNU_BUILD_ID && namesz == 4 &&
		    !memcmp(buf + name_off, "GNU", 4) && descsz &&
		    descsz <= KMT_BUILD_ID_MAX && hexlen > 2 * descsz) {
			for (i = 0; i < descsz; i++)
				snprintf(hex + 2 * i, 3, "%02x", buf[desc_off + i]);
			return 0;
		}
		off = align_up(desc_off + descsz, align);
		if (off > len)
			break;
	}
	return -ENOENT;
}

/* Read exactly @len bytes at @off; -EINVAL when the file is too short. */
static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t n;

	n = pread(fd, buf, len, off);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EINVAL;
}

/* Look for the build id in one section header @sh of an ELF file. */
static int elf_section_build_id(int fd, const unsigned char *sh, bool is64,
				bool msb, char *hex, size_t hexlen)
{
	uint64_t offset, size, align;
	unsigned char *notes;
	int ret;

	if (get_uint(sh + 4, 4, msb) != ELF_SHT_NOTE)
		return -ENOENT;
	offset = get_uint(sh + (is64 ? 0x18 : 0x10), is64 ? 8 : 4, msb);
	size = get_uint(sh + (is64 ? 0x20 : 0x14), is64 ? 8 : 4, msb);
	align = get_uint(sh + (is64 ? 0x30 : 0x20), is64 ? 8 : 4, msb);
	if (!size || size > ELF_MAX_NOTES)
		return -ENOENT;
	notes = xmalloc(size);
	ret = read_at(fd, notes, size, offset);
	if (!ret)
		ret = kmt_notes_build_id(notes, size, msb, align == 8 ? 8 : 4,
					 hex, hexlen);
	free(notes);
	return ret;
}

static int elf_fd_build_id(int fd, char *hex, size_t hexlen)
{
	unsigned char eh[64], sh[64];
	uint64_t shoff, shentsize, shnum, i;
	bool is64, msb;
	int ret;

	ret = read_at(fd, eh, 52, 0);
	if (ret)
		return ret;
	if (memcmp(eh, "\177ELF", 4) ||
	    (eh[4] != ELF_CLASS32 && eh[4] != ELF_CLASS64))
		return -EINVAL;
	is64 = eh[4] == ELF_CLASS64;
	msb = eh[5] == ELF_DATA_MSB;
	if (is64) {
		ret = read_at(fd, eh, 64, 0);
		if (ret)
			return ret;
	}
	shoff = get_uint(eh + (is64 ? 0x28 : 0x20), is64 ? 8 : 4, msb);
	shentsize = get_uint(eh + (is64 ? 0x3a : 0x2e), 2, msb);
	shnum = get_uint(eh + (is64 ? 0x3c : 0x30), 2, msb);
	if (!shoff)
		return -ENOENT;
	if (shentsize < (is64 ? 0x38u : 0x24u) || shentsize > sizeof(sh))
		return -EINVAL;
	/* More than 0xff00 sections: the count is in section 0's sh_size. */
	if (!shnum) {
		ret = read_at(fd, sh, shentsize, shoff);
		if (ret)
			return ret;
		shnum = get_uint(sh + (is64 ? 0x20 : 0x14), is64 ? 8 : 4, msb);
	}
	for (i = 0; i < shnum; i++) {
		ret = read_at(fd, sh, shentsize, shoff + i * shentsize);
		if (ret)
			return ret;
		ret = elf_section_build_id(fd, sh, is64, msb, hex, hexlen);
		if (ret != -ENOENT)
			return ret;
	}
	return -ENOENT;
}

int kmt_elf_build_id(const char *path, char *hex, size_t hexlen)
{
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	ret = elf_fd_build_id(fd, hex, hexlen);
	close(fd);
	return ret;
}

int kmt_kallsyms_text(const char *buf, uint64_t *addr)
{
	const char *line, *next, *p;
	unsigned long long v;
	char *end;

	for (line = buf; *line; line = next) {
		next = line + strcspn(line, "\n");
		next += *next == '\n';
		/* "ADDRESS TYPE _text" with nothing but blanks after. */
		p = line + strcspn(line, " \t\n");
		if (*p == '\n' || !*p)
			continue;
		p += strspn(p, " \t");
		if ((*p != 'T' && *p != 't') || (p[1] != ' ' && p[1] != '\t'))
			continue;
		p += 1 + strspn(p + 1, " \t");
		if (strncmp(p, "_text", 5))
			continue;
		p += 5;
		p += strspn(p, " \t\r");
		if (*p && *p != '\n')
			continue;
		errno = 0;
		v = strtoull(line, &end, 16);
		if (errno || end == line || !v)
			return -ENOENT;
		*addr = v;
		return 0;
	}
	return -ENOENT;
}

/* ----------------------------------------------------------- writing */

/* Characters that need no shell quoting. */
static bool shell_safe(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("@%+=:,./_-", *s))
			return false;
	return true;
}

/*
 * Write an argument so that a shell reads it back as it was: as is, in
 * single quotes, or, when it holds control characters (a newline would
 * end the header line), as $'...' with \xHH escapes.
 */
static void write_shell_arg(FILE *f, const char *s)
{
	const unsigned char *p;
	bool control = false;

	if (shell_safe(s)) {
		fputs(s, f);
		return;
	}
	for (p = (const unsigned char *)s; *p; p++)
		control |= *p < 0x20 || *p == 0x7f;
	if (!control) {
		fputc('\'', f);
		for (; *s; s++) {
			if (*s == '\'')
				fputs("'\\''", f);
			else
				fputc(*s, f);
		}
		fputc('\'', f);
		return;
	}
	fputs("$'", f);
	for (p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\x%02x", *p);
		else if (*p == '\'' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else
			fputc(*p, f);
	}
	fputc('\'', f);
}

static void write_build_id(FILE *f, const char *notes)
{
	char hex[KMT_BUILD_ID_HEX];
	size_t len;
	char *buf;
	int ret;

	ret = read_file(notes, &buf, &len);
	if (ret) {
		kmt_err("warning: %s: %s, the header has no build_id", notes,
			strerror(-ret));
		return;
	}
	if (kmt_notes_build_id((unsigned char *)buf, len,
			       KMT_HOST_BIG_ENDIAN, 4,
			       hex, sizeof(hex)))
		kmt_err("warning: %s: no GNU build id note, the header has no build_id",
			notes);
	else
		fprintf(f, "build_id=%s\n", hex);
	free(buf);
}

static void write_text(FILE *f, const char *kallsyms)
{
	uint64_t text;
	size_t len;
	char *buf;
	int ret;

	/* record warns when it cannot copy kallsyms at the end. */
	ret = read_file(kallsyms, &buf, &len);
	if (ret)
		return;
	if (kmt_kallsyms_text(buf, &text))
		kmt_err("warning: %s: no _text address (kptr_restrict?), the header has no text",
			kallsyms);
	else
		fprintf(f, "text=0x%llx\n", (unsigned long long)text);
	free(buf);
}

static void write_start_time(FILE *f)
{
	char buf[64];
	time_t now;
	struct tm tm;

	now = time(NULL);
	if (gmtime_r(&now, &tm) &&
	    strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm))
		fprintf(f, "start_time=%s\n", buf);
}

/*
 * What the kernel stamps the events with: the word in brackets of its
 * clock file ("[local] tsc"); nothing from a kernel without one.
 */
static void write_stamp(FILE *f, const char *debugfs)
{
	char *path = path_join(debugfs, "clock"), *buf, *open, *close;
	size_t len;

	if (!read_file(path, &buf, &len)) {
		open = strchr(buf, '[');
		close = open ? strchr(open, ']') : NULL;
		if (close && close > open + 1)
			fprintf(f, "stamp=%.*s\n", (int)(close - open - 1), open + 1);
		free(buf);
	}
	free(path);
}

static void write_fields(FILE *f, const struct kmt_header_src *src, int argc,
			 char **argv)
{
	char *abi_path = path_join(src->debugfs, "abi_version");
	struct utsname u;
	uint64_t abi;
	int i;

	fprintf(f, "# kmemtrace header v%d\n", KMT_HEADER_VERSION);
	fprintf(f, "kmemtrace_version=%s\n", VERSION);
	if (!uname(&u)) {
		fprintf(f, "kernel_release=%s\n", u.release);
		fprintf(f, "kernel_version=%s\n", u.version);
		fprintf(f, "machine=%s\n", u.machine);
	}
	write_build_id(f, src->notes);
	write_text(f, src->kallsyms);
	/* Documentation/trace/kmemtrace.rst: trace_clock_local() ns. */
	fprintf(f, "clock=local\n");
	write_stamp(f, src->debugfs);
	fprintf(f, "cpus=%ld\n", sysconf(_SC_NPROCESSORS_CONF));
	fprintf(f, "cpus_online=%ld\n", sysconf(_SC_NPROCESSORS_ONLN));
	fprintf(f, "page_size=%ld\n", sysconf(_SC_PAGESIZE));
	fprintf(f, "byte_order=%s\n",
		KMT_HOST_BIG_ENDIAN ? "big" : "little");
	if (!read_u64_file(abi_path, &abi))
		fprintf(f, "abi_version=%llu\n", (unsigned long long)abi);
	write_start_time(f);
	fputs("command=kmemtrace record", f);
	for (i = 0; i < argc; i++) {
		fputc(' ', f);
		write_shell_arg(f, argv[i]);
	}
	fputc('\n', f);
	free(abi_path);
}

int kmt_header_write(const char *dir, const struct kmt_header_src *src,
		     int argc, char **argv)
{
	char *path = path_join(dir, "header");
	int ret = 0;
	FILE *f;

	f = fopen(path, "we");
	if (!f) {
		ret = -errno;
		kmt_err("%s: %s", path, strerror(-ret));
		free(path);
		return ret;
	}
	write_fields(f, src, argc, argv);
	ret = close_side_file(f, path, ret);
	free(path);
	return ret;
}

/* ----------------------------------------------------------- reading */

static int known_key(const char *key)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(known_keys); i++)
		if (!strcmp(key, known_keys[i].key))
			return i;
	return -1;
}

static bool valid_key(const char *key)
{
	if (!*key)
		return false;
	for (; *key; key++)
		if (!islower((unsigned char)*key) && !isdigit((unsigned char)*key) &&
		    *key != '_')
			return false;
	return true;
}

static bool valid_value(const char *key, const char *value)
{
	int k = known_key(key);
	uint64_t v;
	size_t len;

	if (k < 0)
		return true;
	switch (known_keys[k].kind) {
	case VALUE_U64:
		return !parse_u64(value, &v);
	case VALUE_BUILD_ID:
		len = strlen(value);
		return len && len % 2 == 0 && len <= 2 * KMT_BUILD_ID_MAX &&
		       strspn(value, "0123456789abcdef") == len;
	case VALUE_BYTE_ORDER:
		return !strcmp(value, "little") || !strcmp(value, "big");
	default:
		return true;
	}
}

/* Add one KEY=VALUE line; return the number of problems (0 or 1). */
static size_t header_line(struct kmt_header *h, char *line, size_t nr,
			  bool quiet)
{
	char *eq = strchr(line, '=');
	size_t len = strlen(line);

	if (len && line[len - 1] == '\r')
		line[len - 1] = '\0';
	if (eq)
		*eq = '\0';
	if (!eq || !valid_key(line)) {
		if (!quiet)
			kmt_err("%s: line %zu: not KEY=VALUE, skipped", h->path, nr);
		return 1;
	}
	if (kmt_header_get(h, line)) {
		if (!quiet)
			kmt_err("%s: line %zu: %s given twice, skipped", h->path, nr,
				line);
		return 1;
	}
	if (!valid_value(line, eq + 1)) {
		if (!quiet)
			kmt_err("%s: line %zu: bad %s '%s', skipped", h->path, nr,
				line, eq + 1);
		return 1;
	}
	h->fields = xrealloc(h->fields, (h->nr + 1) * sizeof(*h->fields));
	h->fields[h->nr].key = xstrdup(line);
	h->fields[h->nr].value = xstrdup(eq + 1);
	h->fields[h->nr].line = nr;
	h->nr++;
	return 0;
}

/* Check the "# kmemtrace header vN" line; return 0 if N is supported. */
static int header_version(const struct kmt_header *h, const char *line,
			  bool quiet)
{
	static const char prefix[] = "# kmemtrace header v";
	uint64_t version;

	if (strncmp(line, prefix, sizeof(prefix) - 1) ||
	    parse_u64(line + sizeof(prefix) - 1, &version) || !version) {
		if (!quiet)
			kmt_err("%s: line 1: not \"%sN\", file ignored", h->path,
				prefix);
		return -EINVAL;
	}
	if (version > KMT_HEADER_VERSION) {
		if (!quiet)
			kmt_err("%s: header format v%llu, this kmemtrace supports up to v%d, file ignored",
				h->path, (unsigned long long)version,
				KMT_HEADER_VERSION);
		return -EPROTO;
	}
	return 0;
}

static void header_clear(struct kmt_header *h)
{
	size_t i;

	for (i = 0; i < h->nr; i++) {
		free(h->fields[i].key);
		free(h->fields[i].value);
	}
	free(h->fields);
	h->fields = NULL;
	h->nr = 0;
}

size_t kmt_header_load(struct kmt_header *h, const char *dir, bool quiet)
{
	char *buf, *line, *next;
	size_t len, nr = 0, problems = 0;
	int ret;

	memset(h, 0, sizeof(*h));
	h->path = path_join(dir, "header");
	ret = is_regular(h->path);
	if (!ret) {
		if (!quiet)
			kmt_err("%s: not a regular file, ignored", h->path);
		return 1;
	}
	ret = ret < 0 ? ret : read_file(h->path, &buf, &len);
	if (ret == -ENOENT) {
		if (!quiet)
			kmt_err("note: %s: no header file (recorded by an older kmemtrace?), the traced kernel is unknown",
				dir);
		return 0;
	}
	if (ret) {
		if (!quiet)
			kmt_err("%s: %s, ignored", h->path, strerror(-ret));
		return 1;
	}
	for (line = buf; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!*line && !next)
			break;
		if (++nr == 1 && header_version(h, line, quiet)) {
			header_clear(h);
			free(buf);
			return 1;
		}
		if (line[0] == '#' || !line[strspn(line, " \t\r")])
			continue;
		problems += header_line(h, line, nr, quiet);
	}
	free(buf);
	if (!nr) {
		if (!quiet)
			kmt_err("%s: empty, ignored", h->path);
		return 1;
	}
	h->present = true;
	return problems;
}

const char *kmt_header_get(const struct kmt_header *h, const char *key)
{
	size_t i;

	for (i = 0; i < h->nr; i++)
		if (!strcmp(h->fields[i].key, key))
			return h->fields[i].value;
	return NULL;
}

int kmt_header_get_u64(const struct kmt_header *h, const char *key,
		       uint64_t *val)
{
	const char *value = kmt_header_get(h, key);

	if (!value || parse_u64(value, val))
		return -ENOENT;
	return 0;
}

void kmt_header_free(struct kmt_header *h)
{
	header_clear(h);
	free(h->path);
	memset(h, 0, sizeof(*h));
}

/* ---------------------------------------------------------- matching */

int kmt_header_match_vmlinux(const struct kmt_header *h, const char *vmlinux)
{
	const char *want = kmt_header_get(h, "build_id");
	char hex[KMT_BUILD_ID_HEX];
	int ret;

	if (!want)
		return 0;
	ret = kmt_elf_build_id(vmlinux, hex, sizeof(hex));
	if (ret == -ENOENT) {
		kmt_err("warning: %s: no build id, cannot tell whether it is the traced kernel (build id %s)",
			vmlinux, want);
		return -1;
	}
	/* Loading it says what is wrong with a file that is not ELF. */
	if (ret)
		return 0;
	if (!strcmp(hex, want))
		return 0;
	kmt_err("warning: %s: build id %s, but the traced kernel's is %s (%s): call sites may be misnamed",
		vmlinux, hex, want, h->path);
	return -1;
}

int kmt_header_match_text(const struct kmt_header *h, const char *path,
			  const uint64_t *text)
{
	uint64_t want;

	if (!text) {
		kmt_err("warning: %s: no _text symbol, cannot tell whether it is the traced kernel's",
			path);
		return -1;
	}
	if (kmt_header_get_u64(h, "text", &want) || want == *text)
		return 0;
	kmt_err("warning: %s: _text at 0x%llx, but the traced kernel's is at 0x%llx (%s): symbols of another kernel or boot",
		path, (unsigned long long)*text, (unsigned long long)want,
		h->path);
	return -1;
}
