/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace - the codetags of a trace: DIR/tags
 *
 * With CONFIG_MEM_ALLOC_PROFILING, allocs and reallocs carry the address
 * of the struct alloc_tag of the source line that called the API (the
 * tag of the event).  "kmemtrace record" copies the kernel's list of them,
 * /sys/kernel/debug/kmemtrace/tags, into DIR/tags:
 *
 *	# kmemtrace tags v1
 *	# tag file:line function module [unloaded]
 *	ffffffff82b1c3a0 mm/slub.c:2423 alloc_slab_page -
 *
 * module "-" is built in; "unloaded" marks the tags of a module unloaded
 * while kmemtrace had buffers.
 */
#ifndef __KMEMTRACE_TAGS_H
#define __KMEMTRACE_TAGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hash.h"

/**
 * struct kmt_tag - one codetag
 * @addr: its address, as events carry it
 * @file_line: "file:line" of the call
 * @func: the function of the call
 * @module: the module, NULL when built in
 * @unloaded: the module was unloaded
 * @text: "file:line [module]", or "file:line" when built in
 * @line: line of the file, to keep the first of the lines of an address
 */
struct kmt_tag {
	uint64_t addr;
	char *file_line;
	char *func;
	char *module;
	bool unloaded;
	char *text;
	size_t line;
};

/**
 * struct kmt_tags - the codetags of a trace directory
 * @tags: the tags, sorted by address, each address once
 * @nr: number of tags
 * @present: whether DIR/tags was read
 * @map: address to index in @tags
 */
struct kmt_tags {
	struct kmt_tag *tags;
	size_t nr;
	bool present;
	struct kmt_map map;
};

/**
 * kmt_tags_load() - read the "tags" file of a trace directory
 * @t: the table to fill; release it with kmt_tags_free()
 * @dir: the directory, or NULL for none
 *
 * A missing file leaves @t empty (a kernel without
 * CONFIG_MEM_ALLOC_PROFILING).  Malformed lines are reported with
 * kmt_err() and skipped; a file of an unsupported version is reported and
 * ignored.  Of two lines of one address, the one of a loaded module wins
 * (another module was loaded where an unloaded one was), else the first.
 *
 * Return: the number of problems found.
 */
size_t kmt_tags_load(struct kmt_tags *t, const char *dir);

/**
 * kmt_tags_find() - the codetag of an address
 * @t: the table
 * @addr: the tag of an event
 *
 * Return: the tag, or NULL when @addr is 0 or not in the table.
 */
static inline const struct kmt_tag *kmt_tags_find(const struct kmt_tags *t,
						  uint64_t addr)
{
	uint32_t i;

	if (!addr || !kmt_map_find(&t->map, addr, &i))
		return NULL;
	return &t->tags[i];
}

/**
 * kmt_tags_free() - release what kmt_tags_load() allocated
 * @t: the table
 */
void kmt_tags_free(struct kmt_tags *t);

#endif /* __KMEMTRACE_TAGS_H */
