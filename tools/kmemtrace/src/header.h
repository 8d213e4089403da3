/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace - the header file of a trace: what was traced, and how
 *
 * "kmemtrace record" writes DIR/header, text lines of KEY=VALUE after a
 * "# kmemtrace header v1" line, describing the traced kernel and the
 * recording (see tools/kmemtrace/Documentation/kmemtrace.rst).  Readers
 * use it to tell whether a vmlinux or a kallsyms file belongs to the
 * traced kernel.
 */
#ifndef __KMEMTRACE_HEADER_H
#define __KMEMTRACE_HEADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The version of the header format this kmemtrace writes and reads. */
#define KMT_HEADER_VERSION	1

/* Longest build id kept, in bytes; the kernel's is 20 (sha1). */
#define KMT_BUILD_ID_MAX	64
/* Room for a build id in hex with its NUL. */
#define KMT_BUILD_ID_HEX	(2 * KMT_BUILD_ID_MAX + 1)

/**
 * struct kmt_header_field - one KEY=VALUE line of a header
 * @key: the key
 * @value: the value, the rest of the line
 * @line: the line number in the file
 */
struct kmt_header_field {
	char *key;
	char *value;
	size_t line;
};

/**
 * struct kmt_header - the header of a trace directory
 * @path: DIR/header
 * @present: whether the file was read; a trace of an older kmemtrace has
 *	none, a malformed or unsupported file is ignored
 * @fields: its KEY=VALUE lines, in file order, each key once
 * @nr: number of @fields
 */
struct kmt_header {
	char *path;
	bool present;
	struct kmt_header_field *fields;
	size_t nr;
};

/**
 * struct kmt_header_src - where "kmemtrace record" reads the header from
 * @debugfs: the kmemtrace debugfs directory, for abi_version
 * @kallsyms: the kallsyms file, for the address of _text
 * @notes: the kernel's notes, normally /sys/kernel/notes, for the build id
 */
struct kmt_header_src {
	const char *debugfs;
	const char *kallsyms;
	const char *notes;
};

/**
 * kmt_header_write() - write DIR/header for a recording starting now
 * @dir: the output directory
 * @src: where to read what the header describes
 * @argc: number of arguments of "kmemtrace record"
 * @argv: the arguments, written shell-quoted after "kmemtrace record" as
 *	"command"
 *
 * What cannot be found out (no build id, kallsyms without addresses) is
 * left out with a warning.
 *
 * Return: 0 on success, -errno if the file cannot be written (reported
 * with kmt_err()).
 */
int kmt_header_write(const char *dir, const struct kmt_header_src *src,
		     int argc, char **argv);

/**
 * kmt_header_load() - read the header of a trace directory
 * @h: the header to fill; release it with kmt_header_free()
 * @dir: the directory
 * @quiet: say nothing, for a second reader of the same file
 *
 * A missing file is not a problem: @h->present is false, and a note says
 * that the traced kernel is unknown.  A line that is not KEY=VALUE, a key
 * given twice and a bad value of a known key are problems, reported and
 * skipped; a first line other than "# kmemtrace header vN" with N
 * supported is a problem that makes the whole file ignored.
 *
 * Return: the number of problems found.
 */
size_t kmt_header_load(struct kmt_header *h, const char *dir, bool quiet);

/**
 * kmt_header_get() - the value of a key of a header
 * @h: the header
 * @key: the key
 *
 * Return: the value, or NULL when @h lacks @key.
 */
const char *kmt_header_get(const struct kmt_header *h, const char *key);

/**
 * kmt_header_get_u64() - the value of a numeric key of a header
 * @h: the header
 * @key: the key, one of the numeric keys, which kmt_header_load() checked
 * @val: on success, the number
 *
 * Return: 0 on success, -ENOENT when @h lacks @key.
 */
int kmt_header_get_u64(const struct kmt_header *h, const char *key,
		       uint64_t *val);

/**
 * kmt_header_free() - release what kmt_header_load() allocated
 * @h: the header
 */
void kmt_header_free(struct kmt_header *h);

/**
 * kmt_header_match_vmlinux() - warn when a vmlinux is not the traced kernel
 * @h: the header of the trace
 * @vmlinux: the vmlinux file
 *
 * Compares the GNU build id of @vmlinux with the "build_id" of @h, and
 * warns on stderr when they differ or @vmlinux has none.  Says nothing
 * when @h has no build id, or @vmlinux cannot be read or is not ELF.
 *
 * Return: 0 when they match or nothing tells, -1 after a warning.
 */
int kmt_header_match_vmlinux(const struct kmt_header *h, const char *vmlinux);

/**
 * kmt_header_match_text() - warn when kallsyms is not the traced kernel's
 * @h: the header of the trace
 * @path: the kallsyms or System.map file, for the messages
 * @text: the address of its _text symbol, or NULL if it has none
 *
 * Warns when @path has no _text symbol, or when the "text" of @h, the
 * address of _text in the traced kernel, differs from @text: another
 * kernel, or another boot of a kernel with KASLR.
 *
 * Return: 0 when they match or nothing tells, -1 after a warning.
 */
int kmt_header_match_text(const struct kmt_header *h, const char *path,
			  const uint64_t *text);

/**
 * kmt_notes_build_id() - find the GNU build id in ELF notes
 * @buf: the notes, as in an SHT_NOTE section or /sys/kernel/notes
 * @len: bytes in @buf
 * @msb: whether the notes are big-endian
 * @align: alignment of names and descriptors, 4 or 8
 * @hex: where to write the build id in lower case hex
 * @hexlen: size of @hex, at least KMT_BUILD_ID_HEX
 *
 * Return: 0 on success, -ENOENT if there is no NT_GNU_BUILD_ID note of
 * owner "GNU" (or it is longer than KMT_BUILD_ID_MAX bytes).
 */
int kmt_notes_build_id(const unsigned char *buf, size_t len, bool msb,
		       size_t align, char *hex, size_t hexlen);

/**
 * kmt_elf_build_id() - the GNU build id of an ELF file
 * @path: the file, ELF32 or ELF64 of either byte order
 * @hex: where to write the build id in lower case hex
 * @hexlen: size of @hex, at least KMT_BUILD_ID_HEX
 *
 * Looks in the SHT_NOTE sections, as "readelf -n" does.
 *
 * Return: 0 on success, -ENOENT if the file has no build id, -EINVAL if
 * it is not ELF or is malformed, another -errno if it cannot be read.
 */
int kmt_elf_build_id(const char *path, char *hex, size_t hexlen);

/**
 * kmt_kallsyms_text() - find the address of _text in kallsyms text
 * @buf: the contents of a kallsyms or System.map file, NUL-terminated
 * @addr: on success, the address
 *
 * Return: 0 on success, -ENOENT if there is no _text line with a non-zero
 * address (/proc/kallsyms shows zeros to whom may not see addresses).
 */
int kmt_kallsyms_text(const char *buf, uint64_t *addr);

#endif /* __KMEMTRACE_HEADER_H */
