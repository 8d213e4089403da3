/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace - the kernel stacks of a trace: DIR/stacks
 *
 * Events sampled for a stack (kmemtrace.stack_sample) carry a stack depot
 * handle, their stack_id.  "kmemtrace record" copies the kernel's list of
 * the stacks it put into events, /sys/kernel/debug/kmemtrace/stacks, into
 * DIR/stacks:
 *
 *	# kmemtrace stacks v1
 *	# captured N lost N unlisted N
 *	stack 001a0040 2
 *	 ffffffff8123a1b7 __kmalloc_noprof+0x1b7/0x3f0
 *	 ffffffffa0001123 pattern_kmalloc+0x23/0x60 [kmemtrace_pattern]
 *
 * Frames innermost first, each an address and its %pS symbol.
 */
#ifndef __KMEMTRACE_STACKS_H
#define __KMEMTRACE_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hash.h"

/**
 * struct kmt_frame - one frame of a stack
 * @addr: its return address
 * @sym: its symbol, as the kernel's %pS prints it
 */
struct kmt_frame {
	uint64_t addr;
	char *sym;
};

/**
 * struct kmt_stack - one stack
 * @handle: its stack depot handle, as events carry it in stack_id
 * @frames: its frames, innermost first
 * @nr: number of @frames
 * @line: line of its "stack" line in the file
 */
struct kmt_stack {
	uint32_t handle;
	struct kmt_frame *frames;
	size_t nr;
	size_t line;
};

/**
 * struct kmt_stacks - the stacks of a trace directory
 * @stacks: the stacks, sorted by handle, each handle once
 * @nr: number of @stacks
 * @present: whether DIR/stacks was read
 * @has_counts: whether its "# captured N lost N unlisted N" line was read
 * @captured: events the kernel gave a stack
 * @lost: events sampled whose stack the depot had no room for
 * @unlisted: stacks in events that the file could not list
 * @map: handle to index in @stacks
 */
struct kmt_stacks {
	struct kmt_stack *stacks;
	size_t nr;
	bool present;
	bool has_counts;
	uint64_t captured;
	uint64_t lost;
	uint64_t unlisted;
	struct kmt_map map;
};

/**
 * kmt_stacks_load() - read the "stacks" file of a trace directory
 * @s: the table to fill; release it with kmt_stacks_free()
 * @dir: the directory, or NULL for none
 *
 * A missing file leaves @s empty.  A malformed line, a stack with fewer or
 * more frames than its line says, and a handle listed twice (the first
 * stays) are reported with kmt_err() and skipped; a file of an
 * unsupported version is reported and ignored.
 *
 * Return: the number of problems found.
 */
size_t kmt_stacks_load(struct kmt_stacks *s, const char *dir);

/**
 * kmt_stacks_find() - the stack of a handle
 * @s: the table
 * @handle: the stack_id of an event
 *
 * Return: the stack, or NULL when @handle is 0 or not in the table.
 */
static inline const struct kmt_stack *kmt_stacks_find(const struct kmt_stacks *s,
						      uint32_t handle)
{
	uint32_t i;

	if (!handle || !kmt_map_find(&s->map, handle, &i))
		return NULL;
	return &s->stacks[i];
}

/**
 * kmt_stack_from() - where to start printing a stack for a call site
 * @st: the stack
 * @call_site: the call site of the event
 *
 * Return: the index of the frame at @call_site, or 0 when none is.
 */
size_t kmt_stack_from(const struct kmt_stack *st, uint64_t call_site);

/**
 * kmt_stacks_free() - release what kmt_stacks_load() allocated
 * @s: the table
 */
void kmt_stacks_free(struct kmt_stacks *s);

#endif /* __KMEMTRACE_STACKS_H */
