/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace - names of the GFP flags and migrate types events carry
 */
#ifndef __KMEMTRACE_GFP_H
#define __KMEMTRACE_GFP_H

#include <stddef.h>
#include <stdint.h>

/**
 * kmt_gfp_format() - write gfp flags as names, as the kernel's tracepoints
 * @gfp: the gfp_flags of an event
 * @buf: where to write, e.g. "GFP_KERNEL|__GFP_ZERO"; "none" for 0; bits
 *	that have no name, or whose name depends on the kernel's
 *	configuration (from 0x1000000 up), as a last "0x..." element
 * @len: size of @buf
 *
 * The names and their order are those of show_gfp_flags() of Linux 6.12
 * (include/trace/events/mmflags.h): composite names first, then single
 * flags.
 */
void kmt_gfp_format(uint32_t gfp, char *buf, size_t len);

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
