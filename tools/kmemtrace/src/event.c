// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace - event decoding: names, byte order, ABI 1 and 2 events
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

/* An ABI 1 event. */
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

/* An ABI 2 event. */
struct kmt_event_v2 {
	__u16	magic;
	__u8	abi_version;
	__u8	kind;
	__u8	type;
	__u8	order;
	__u16	flags;
	__u16	cpu;
	__u8	migratetype;
	__u8	__reserved;
	__u32	pid;
	__s32	node;
	__u32	gfp_flags;
	__u32	cache_id;
	__u32	stack_id;
	__u64	seq;
	__u64	timestamp;
	__u64	call_site;
	__u64	ptr;
	__u64	bytes_req;
	__u64	bytes_alloc;
	__u64	tag;
} __packed;

static_assert(sizeof(struct kmt_event_v2) == KMT_EVENT_SIZE_V2,
	      "an ABI 2 event is KMT_EVENT_SIZE_V2 bytes");
static_assert(offsetof(struct kmemtrace_event, timestamp) == 8,
	      "the time stamp follows magic, abi_version, kind and type");

static const char * const kind_names[] = {
	[KMEMTRACE_KIND_ALLOC]	= "alloc",
	[KMEMTRACE_KIND_FREE]	= "free",
	[KMEMTRACE_KIND_REALLOC]	= "realloc",
	[KMEMTRACE_KIND_SPLIT]	= "split",
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
		{ KMEMTRACE_FLAG_UNTRACKED,	"untracked" },
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
	/* abi_version, kind, type and __reserved0 are bytes. */
	ev->timestamp = bswap_64(ev->timestamp);
	ev->flags = bswap_16(ev->flags);
	ev->cpu = bswap_16(ev->cpu);
	/* order and migratetype are bytes. */
	ev->__reserved1 = bswap_16(ev->__reserved1);
	ev->pid = bswap_32(ev->pid);
	ev->node = (__s32)bswap_32((__u32)ev->node);
	ev->gfp_flags = bswap_32(ev->gfp_flags);
	ev->cache_id = bswap_32(ev->cache_id);
	ev->stack_id = bswap_32(ev->stack_id);
	ev->sample_period = bswap_32(ev->sample_period);
	ev->seq = bswap_64(ev->seq);
	ev->call_site = bswap_64(ev->call_site);
	ev->ptr = bswap_64(ev->ptr);
	ev->bytes_req = bswap_64(ev->bytes_req);
	ev->bytes_alloc = bswap_64(ev->bytes_alloc);
	ev->tag = bswap_64(ev->tag);
}

/* Fill @ev from the ABI 2 event @v, in the byte order of @v. */
static void event_from_v2(struct kmemtrace_event *ev,
			  const struct kmt_event_v2 *v)
{
	memset(ev, 0, sizeof(*ev));
	ev->magic = v->magic;
	ev->abi_version = v->abi_version;
	ev->kind = v->kind;
	ev->type = v->type;
	ev->timestamp = v->timestamp;
	ev->flags = v->flags;
	ev->cpu = v->cpu;
	ev->order = v->order;
	ev->migratetype = v->migratetype;
	ev->pid = v->pid;
	ev->node = v->node;
	ev->gfp_flags = v->gfp_flags;
	ev->cache_id = v->cache_id;
	ev->stack_id = v->stack_id;
	ev->seq = v->seq;
	ev->call_site = v->call_site;
	ev->ptr = v->ptr;
	ev->bytes_req = v->bytes_req;
	ev->bytes_alloc = v->bytes_alloc;
	ev->tag = v->tag;
}

void kmt_event_from_v2(struct kmemtrace_event *ev, const unsigned char *raw)
{
	struct kmt_event_v2 v;

	memcpy(&v, raw, sizeof(v));
	event_from_v2(ev, &v);
}

void kmt_event_from_v1(struct kmemtrace_event *ev, const unsigned char *raw)
{
	struct kmt_event_v1 v1;
	struct kmt_event_v2 v2;
	bool swapped;
	uint32_t cpu;

	memcpy(&v1, raw, sizeof(v1));
	/* Every field keeps its size but cpu: only it needs the byte order. */
	swapped = v1.magic == KMEMTRACE_MAGIC_SWAPPED;
	cpu = swapped ? bswap_32(v1.cpu) : v1.cpu;
	memset(&v2, 0, sizeof(v2));
	v2.magic = v1.magic;
	v2.abi_version = v1.abi_version;
	v2.kind = v1.kind;
	v2.type = v1.type;
	v2.order = v1.order;
	v2.flags = v1.flags;
	v2.cpu = cpu > UINT16_MAX ? UINT16_MAX : cpu;
	if (swapped)
		v2.cpu = bswap_16(v2.cpu);
	v2.migratetype = v1.migratetype;
	v2.pid = v1.pid;
	v2.node = v1.node;
	v2.gfp_flags = v1.gfp_flags;
	v2.cache_id = v1.cache_id;
	v2.seq = v1.seq;
	v2.timestamp = v1.timestamp;
	v2.call_site = v1.call_site;
	v2.ptr = v1.ptr;
	v2.bytes_req = v1.bytes_req;
	v2.bytes_alloc = v1.bytes_alloc;
	event_from_v2(ev, &v2);
	/* In the byte order of @raw, as every other field. */
	if (cpu > UINT16_MAX)
		ev->__reserved1 = swapped ? bswap_16(1) : 1;
}
