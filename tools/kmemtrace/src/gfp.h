/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace - names of the GFP flags and migrate types events carry
 */
#ifndef __KMEMTRACE_GFP_H
#define __KMEMTRACE_GFP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The file of a trace directory that holds the recorded kmalloc format. */
#define KMT_GFP_FORMAT_FILE	"kmalloc_format"

/**
 * struct kmt_gfp_name - a gfp flags name and the bits it stands for
 * @mask: the bits
 * @name: the name
 */
struct kmt_gfp_name {
	uint32_t mask;
	const char *name;
};

/**
 * struct kmt_gfp_names - the gfp flags names of a kernel
 * @names: the names, in the order they are tried: those of the recorded
 *	format, or the built-in ones
 * @nr: number of @names
 * @from_format: whether @names come from a recorded format file
 * @owned: @names when read from a format, to free
 * @strings: the names read from a format, to free
 */
struct kmt_gfp_names {
	const struct kmt_gfp_name *names;
	size_t nr;
	bool from_format;
	struct kmt_gfp_name *owned;
	char *strings;
};

/**
 * kmt_gfp_names_builtin() - the gfp flags names of Linux 6.12
 * @g: set to the built-in names (no need to free)
 *
 * The names and their order are those of show_gfp_flags() of Linux 6.12
 * (include/trace/events/mmflags.h): composite names first, then single
 * flags, up to __GFP_ZEROTAGS; later bits depend on the configuration.
 */
void kmt_gfp_names_builtin(struct kmt_gfp_names *g);

/**
 * kmt_gfp_names_parse() - read the gfp flags names of a tracepoint format
 * @g: the names to fill; release them with kmt_gfp_names_free()
 * @text: the format, as events/kmem/kmalloc/format in tracefs has it,
 *	NUL-terminated
 * @why: on failure, what is wrong with @text
 *
 * Finds "__print_flags(REC->gfp_flags, "|", {MASK, "NAME"}, ...)" in the
 * "print fmt:" line and evaluates each MASK, a C constant expression of
 * numbers, casts, parentheses and the operators | & ^ ~ << >> + -, as
 * the kernel leaves them once it has put in the values of enums.
 *
 * Return: 0 on success, -EINVAL when @text has no such table or one that
 * cannot be read, @g then being empty.
 */
int kmt_gfp_names_parse(struct kmt_gfp_names *g, const char *text,
			const char **why);

/**
 * kmt_gfp_names_load() - the gfp flags names of a trace
 * @g: the names to fill; release them with kmt_gfp_names_free()
 * @dir: the trace directory, or NULL for none
 *
 * Reads @dir/kmalloc_format, the kmalloc tracepoint format that record
 * saved; without it, @g gets the built-in names.  So does a format whose
 * table cannot be read, with a warning.
 *
 * Return: the number of problems found (0 or 1).
 */
size_t kmt_gfp_names_load(struct kmt_gfp_names *g, const char *dir);

/**
 * kmt_gfp_names_free() - release what kmt_gfp_names_load() allocated
 * @g: the names
 */
void kmt_gfp_names_free(struct kmt_gfp_names *g);

/**
 * kmt_gfp_names_format() - write gfp flags as names, as the kernel prints them
 * @g: the names
 * @gfp: the gfp_flags of an event
 * @buf: where to write, e.g. "GFP_KERNEL|__GFP_ZERO"; "none" for 0; bits
 *	that no name covers as a last "0x..." element
 * @len: size of @buf
 *
 * Each name whose bits are all set in what is left of @gfp is written
 * and its bits taken out, in the order of @g, as the kernel's
 * trace_print_flags_seq() does.
 */
void kmt_gfp_names_format(const struct kmt_gfp_names *g, uint32_t gfp,
			  char *buf, size_t len);

/**
 * kmt_migratetype_name() - name of a page allocation's migrate type
 * @mt: the migratetype of an event
 *
 * Return: "unmovable", "movable", "reclaimable" or "highatomic" for the
 * types every configuration has, NULL for the others (CMA and isolate,
 * whose numbers depend on the configuration).
 */
const char *kmt_migratetype_name(unsigned int mt);

#endif /* __KMEMTRACE_GFP_H */
