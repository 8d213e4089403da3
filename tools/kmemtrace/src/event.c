// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace - event decoding: names, byte order, ABI 1 events
 *
 * Part of the stream layer (trace.h); see Documentation/kmemtrace.rst.
 */
#include <assert.h>
#include <byteswap.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace.h"
#include "utils.h"

static_assert(sizeof(struct kmemtrace_event) == KMEMTRACE_EVENT_SIZE,
	      "struct kmemtrace_event must be KMEMTRACE_EVENT_SIZE bytes");

/* An ABI 1 event; from seq on, the fields are those of ABI 2. */
struct kmt_event_v1 {
	__u16	magic;
	__u8	abi_version;
	__u8	kind;
	__u8	type;
	__u8	order;
	__u16	flags;
	__u32	cpu;
	__u32	pid;
	__s32	node;
	__u32	gfp_flags;
	__u32	cache_id;
	__u8	migratetype;
	__u8	__reserved[3];
	__u64	seq;
	__u64	timestamp;
	__u64	call_site;
	__u64	ptr;
	__u64	bytes_req;
	__u64	bytes_alloc;
} __packed;

static_assert(sizeof(struct kmt_event_v1) == KMT_EVENT_SIZE_V1,
	      "an ABI 1 event is KMT_EVENT_SIZE_V1 bytes");
static_assert(offsetof(struct kmt_event_v1, seq) ==
	      offsetof(struct kmemtrace_event, seq),
	      "ABI 1 and 2 share the layout from seq on");

/* How far into a stream its first event with a known magic is looked for. */

static const char * const kind_names[] = {
	[KMEMTRACE_KIND_ALLOC]	= "alloc",
	[KMEMTRACE_KIND_FREE]	= "free",
	[KMEMTRACE_KIND_REALLOC]	= "realloc",
};

static const char * const type_names[] = {
	[KMEMTRACE_TYPE_KMALLOC]	= "kmalloc",
	[KMEMTRACE_TYPE_CACHE]		= "cache",
	[KMEMTRACE_TYPE_PAGES]		= "pages",
	[KMEMTRACE_TYPE_PERCPU]		= "percpu",
	[KMEMTRACE_TYPE_VMALLOC]	= "vmalloc",
};

const char *kmt_kind_name(unsigned int kind)
{
	if (kind >= ARRAY_SIZE(kind_names) || !kind_names[kind])
		return "?";
	return kind_names[kind];
}

const char *kmt_type_name(unsigned int type)
{
	if (type >= ARRAY_SIZE(type_names) || !type_names[type])
		return "?";
	return type_names[type];
}

void kmt_flags_format(unsigned int flags, char *buf, size_t len)
{
	static const struct {
		unsigned int bit;
		const char *name;
	} names[] = {
		{ KMEMTRACE_FLAG_INTERRUPT,	"irq" },
		{ KMEMTRACE_FLAG_BACKING,	"backing" },
		{ KMEMTRACE_FLAG_UNPAIRED,	"unpaired" },
		{ KMEMTRACE_FLAG_STACK_LOST,	"stack_lost" },
		{ KMEMTRACE_FLAG_UNCHARGED,	"uncharged" },
	};
	size_t i, used = 0;
	int n;

	if (!len)
		return;
	buf[0] = '\0';
	if (!flags) {
		snprintf(buf, len, "0");
		return;
	}
	for (i = 0; i < ARRAY_SIZE(names) && used < len; i++) {
		if (!(flags & names[i].bit))
			continue;
		flags &= ~names[i].bit;
		n = snprintf(buf + used, len - used, "%s%s", used ? "," : "",
			     names[i].name);
		used += n > 0 ? n : 0;
	}
	if (flags && used < len)
		snprintf(buf + used, len - used, "%s0x%x", used ? "," : "", flags);
}

int kmt_cpu_from_name(const char *path)
{
	const char *name = path_basename(path);
	long cpu = 0;
	const char *p;

	if (strncmp(name, "cpu", 3) || !name[3])
		return -1;
	for (p = name + 3; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		cpu = cpu * 10 + (*p - '0');
		if (cpu > INT_MAX)
			return -1;
	}
	return cpu;
}

void kmt_event_swab(struct kmemtrace_event *ev)
{
	ev->magic = bswap_16(ev->magic);
	ev->flags = bswap_16(ev->flags);
	ev->cpu = bswap_16(ev->cpu);
	/* migratetype and __reserved are bytes. */
	ev->pid = bswap_32(ev->pid);
	ev->node = (__s32)bswap_32((__u32)ev->node);
	ev->gfp_flags = bswap_32(ev->gfp_flags);
	ev->cache_id = bswap_32(ev->cache_id);
	ev->stack_id = bswap_32(ev->stack_id);
	ev->seq = bswap_64(ev->seq);
	ev->timestamp = bswap_64(ev->timestamp);
	ev->call_site = bswap_64(ev->call_site);
	ev->ptr = bswap_64(ev->ptr);
	ev->bytes_req = bswap_64(ev->bytes_req);
	ev->bytes_alloc = bswap_64(ev->bytes_alloc);
	ev->tag = bswap_64(ev->tag);
}

void kmt_event_from_v1(struct kmemtrace_event *ev, const unsigned char *raw)
{
	struct kmt_event_v1 v;
	bool swapped;
	uint32_t cpu;

	memcpy(&v, raw, sizeof(v));
	/* Every field keeps its size but cpu: only it needs the byte order. */
	swapped = v.magic == KMEMTRACE_MAGIC_SWAPPED;
	cpu = swapped ? bswap_32(v.cpu) : v.cpu;
	memset(ev, 0, offsetof(struct kmemtrace_event, seq));
	ev->magic = v.magic;
	ev->abi_version = v.abi_version;
	ev->kind = v.kind;
	ev->type = v.type;
	ev->order = v.order;
	ev->flags = v.flags;
	ev->cpu = cpu > UINT16_MAX ? UINT16_MAX : cpu;
	ev->__reserved = cpu > UINT16_MAX;
	if (swapped)
		ev->cpu = bswap_16(ev->cpu);
	ev->migratetype = v.migratetype;
	ev->pid = v.pid;
	ev->node = v.node;
	ev->gfp_flags = v.gfp_flags;
	ev->cache_id = v.cache_id;
	memcpy(&ev->seq, raw + offsetof(struct kmt_event_v1, seq),
	       KMT_EVENT_SIZE_V1 - offsetof(struct kmt_event_v1, seq));
	ev->tag = 0;
}
