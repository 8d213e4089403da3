/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace - the fields of a dump line that are numbers only
 *
 * Shared by dump and by the benchmark's least dump
 * (tools/testing/selftests/kmemtrace/host/floor.c), so that the two
 * format the same text the same way.
 */
#ifndef __KMEMTRACE_DUMP_FIELDS_H
#define __KMEMTRACE_DUMP_FIELDS_H

#include <linux/kmemtrace.h>

#include "fmt.h"

/**
 * dump_fields() - write the fields of an event from its call site to its tag
 * @p: where to write, with room for twelve numbers (FMT_U64_MAX each) and
 *     their keys
 * @ev: the event
 *
 * Writes the call site's hexadecimal digits (its "site=0x" is the
 * caller's) and " ptr=0x... req=... alloc=... gfp=0x... node=... pid=...
 * order=... cache_id=... stack_id=0x... tag=0x...", then
 * " sample_period=..." for an event of a sampled recording (ABI 3 only,
 * so the lines of older recordings and of unsampled ones stay the same).
 *
 * Return: the end of what was written.
 */
static inline char *dump_fields(char *p, const struct kmemtrace_event *ev)
{
	p = fmt_x64(p, ev->call_site);
	p = fmt_lit(p, " ptr=0x");
	p = fmt_x64(p, ev->ptr);
	p = fmt_lit(p, " req=");
	p = fmt_u64(p, ev->bytes_req);
	p = fmt_lit(p, " alloc=");
	p = fmt_u64(p, ev->bytes_alloc);
	p = fmt_lit(p, " gfp=0x");
	p = fmt_x64(p, ev->gfp_flags);
	p = fmt_lit(p, " node=");
	p = fmt_s64(p, ev->node);
	p = fmt_lit(p, " pid=");
	p = fmt_u64(p, ev->pid);
	p = fmt_lit(p, " order=");
	p = fmt_u64(p, ev->order);
	p = fmt_lit(p, " cache_id=");
	p = fmt_u64(p, ev->cache_id);
	p = fmt_lit(p, " stack_id=0x");
	p = fmt_x64(p, ev->stack_id);
	p = fmt_lit(p, " tag=0x");
	p = fmt_x64(p, ev->tag);
	if (ev->sample_period) {
		p = fmt_lit(p, " sample_period=");
		p = fmt_u64(p, ev->sample_period);
	}
	return p;
}

#endif /* __KMEMTRACE_DUMP_FIELDS_H */
