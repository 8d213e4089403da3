/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * kmemtrace binary event format.
 *
 * Every event kmemtrace writes to its per-CPU relay files
 * (/sys/kernel/debug/kmemtrace/cpuN) is one struct kmemtrace_event: a
 * fixed-size record in the byte order of the traced machine.  A reader
 * recognises the byte order by @magic (KMEMTRACE_MAGIC reads back as
 * KMEMTRACE_MAGIC_SWAPPED on a machine of the other endianness) and the
 * layout by @abi_version, which is also exported in
 * /sys/kernel/debug/kmemtrace/abi_version.
 *
 * See Documentation/trace/kmemtrace.rst and
 * Documentation/ABI/testing/debugfs-kmemtrace.
 */
#ifndef _UAPI_LINUX_KMEMTRACE_H
#define _UAPI_LINUX_KMEMTRACE_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define KMEMTRACE_ABI_VERSION	3
#define KMEMTRACE_MAGIC		0x4d4b	/* "KM" in a little-endian dump */
#define KMEMTRACE_MAGIC_SWAPPED	0x4b4d

/**
 * enum kmemtrace_kind - what happened to the memory
 * @KMEMTRACE_KIND_ALLOC: memory was handed out
 * @KMEMTRACE_KIND_FREE: memory was given back
 * @KMEMTRACE_KIND_REALLOC: memory was resized where it is (krealloc(),
 *	vrealloc()); the event carries the new sizes.  A resize that moves
 *	the memory is an alloc of the new memory and a free of the old.
 * @KMEMTRACE_KIND_SPLIT: a page allocation was split where it is into
 *	allocations of a lower order, each freed on its own from then on
 *	(split_page(), the split of a transparent huge page or a large
 *	folio): @ptr is the first page, @order the order of the pieces,
 *	@bytes_req the bytes of each piece and @bytes_alloc those of the
 *	allocation split, a power of two times @bytes_req.  Only of
 *	KMEMTRACE_TYPE_PAGES.  The pieces keep the allocation's call site,
 *	time and codetag; no piece is allocated or freed by the split.
 */
enum kmemtrace_kind {
	KMEMTRACE_KIND_ALLOC	= 1,
	KMEMTRACE_KIND_FREE	= 2,
	KMEMTRACE_KIND_REALLOC	= 3,
	KMEMTRACE_KIND_SPLIT	= 4,
};

/**
 * enum kmemtrace_type - which allocator API the memory belongs to
 * @KMEMTRACE_TYPE_KMALLOC: kmalloc() family
 * @KMEMTRACE_TYPE_CACHE: kmem_cache_alloc() family
 * @KMEMTRACE_TYPE_PAGES: page allocator
 * @KMEMTRACE_TYPE_PERCPU: percpu allocator
 * @KMEMTRACE_TYPE_VMALLOC: vmalloc() family
 */
enum kmemtrace_type {
	KMEMTRACE_TYPE_KMALLOC	= 1,
	KMEMTRACE_TYPE_CACHE	= 2,
	KMEMTRACE_TYPE_PAGES	= 3,
	KMEMTRACE_TYPE_PERCPU	= 4,
	KMEMTRACE_TYPE_VMALLOC	= 5,
};

/* Bits of struct kmemtrace_event::flags */
#define KMEMTRACE_FLAG_INTERRUPT	0x0001	/* recorded outside task context */
/*
 * Memory an allocator took (or gave back) as backing store or bookkeeping
 * for memory that has events of its own: the pages of slabs, vmalloc
 * areas and percpu chunks, a vmalloc area's page array (a kmalloc or a
 * vmalloc), vm_struct and vmap_area.  Analyses that add up bytes skip these, or they
 * count the memory twice.  The alloc and the free of the same memory are
 * both flagged.
 */
#define KMEMTRACE_FLAG_BACKING		0x0002
/*
 * A page free with no alloc event, ever: memory the page allocator gets
 * that it never handed out (memblock memory at boot, hotplugged memory,
 * free_reserved_page() and free_reserved_area() of init memory, the free
 * pages compaction isolated and gives back, CMA ranges).  Analyses that
 * pair frees with allocations skip these.
 */
#define KMEMTRACE_FLAG_UNPAIRED		0x0004
/*
 * The event was sampled for a stack trace (see @stack_id) but the stack
 * depot had no room for it: @stack_id is 0.
 */
#define KMEMTRACE_FLAG_STACK_LOST	0x0008
/*
 * An allocation the allocator does not charge to its codetag, so that
 * /proc/allocinfo does not count it: percpu memory from the first or the
 * reserved chunk, which have no extension vector to hold tags.  @tag
 * still names the line.
 */
#define KMEMTRACE_FLAG_UNCHARGED	0x0010
/*
 * A sampled allocation (@sample_period set) that kmemtrace could not
 * enter into its table of sampled objects: its free will not be recorded.
 * On a split (KMEMTRACE_KIND_SPLIT) of a sampled allocation: kmemtrace
 * stops following it, as the table cannot hold its pieces, whose frees
 * will not be recorded.  Analyses of what is still allocated leave it out.
 */
#define KMEMTRACE_FLAG_UNTRACKED	0x0020

/* No NUMA node was asked for (NUMA_NO_NODE). */
#define KMEMTRACE_NO_NODE	(-1)

/**
 * struct kmemtrace_event - one allocation or free, as written to relay
 * @magic: KMEMTRACE_MAGIC
 * @abi_version: KMEMTRACE_ABI_VERSION of the kernel that wrote the event
 * @kind: enum kmemtrace_kind
 * @type: enum kmemtrace_type
 * @__reserved0: 0
 * @timestamp: nanoseconds of trace_clock_local() (ftrace's trace_clock
 *	"local"); while the kmemtrace ftrace tracer records the event too,
 *	exactly the time stamp of its entry there.  With the "tsc" clock
 *	(/sys/kernel/debug/kmemtrace/clock), the TSC, which the kernel
 *	converts to the same nanoseconds as a reader takes the event
 * @flags: KMEMTRACE_FLAG_* bits
 * @cpu: CPU the event was recorded on
 * @order: page order for KMEMTRACE_TYPE_PAGES (of the pieces for a split),
 *	0 otherwise
 * @migratetype: migrate type of a page allocation, 0 otherwise
 * @__reserved1: 0
 * @pid: pid of the current task (the interrupted one in interrupt context)
 * @node: NUMA node asked for, KMEMTRACE_NO_NODE when any; for pages,
 *	the node the pages are on
 * @gfp_flags: gfp_t of the allocation, 0 for frees
 * @cache_id: slab cache identity for KMEMTRACE_TYPE_CACHE allocs and
 *	frees (see /sys/kernel/debug/kmemtrace/caches), 0 otherwise
 * @stack_id: stack depot handle of the kernel stack that made the event,
 *	resolved in /sys/kernel/debug/kmemtrace/stacks; 0 if the event was
 *	not sampled for a stack (see kmemtrace.stack_sample)
 * @sample_period: 0 when every event is recorded; for an event of a
 *	sampled recording, the mean number of bytes allocated between two
 *	samples the event was drawn with (an allocation of S bytes stands
 *	for 1 / (1 - exp(-S / sample_period)) allocations like it)
 * @seq: per-CPU sequence number; every event the CPU tried to record
 *	takes one, so a gap in @seq means the events in the gap were dropped
 * @call_site: an address inside the function that called the allocator
 *	API (kmalloc(), alloc_pages(), vfree(), ...), even when the event
 *	comes from deep inside the allocator; 0 if no API call was seen,
 *	as for pages freed by the last put_page() of some paths
 * @ptr: address of the memory: for pages the kernel virtual address of
 *	the first page, for percpu the __percpu pointer
 * @bytes_req: bytes the caller asked for; 0 for frees but of pages;
 *	for percpu, for all possible CPUs (the size asked for, rounded up
 *	to 4 bytes, times num_possible_cpus())
 * @bytes_alloc: bytes the allocator actually reserved; 0 for frees but
 *	of pages, which always know their size; for percpu, for all
 *	possible CPUs, plus the memcg accounting the allocation needs
 * @tag: for allocs and resizes in a kernel built with
 *	CONFIG_MEM_ALLOC_PROFILING, the address of the allocation's codetag
 *	(the struct alloc_tag of the source line that called the API, as
 *	/proc/allocinfo counts it), resolved to file, line, function and
 *	module in /sys/kernel/debug/kmemtrace/tags; 0 otherwise and for frees
 *
 * @magic, @abi_version, @kind and @type keep their offsets in every
 * version: a reader finds the byte order and the layout from them.
 * Version 3 gained KMEMTRACE_KIND_SPLIT without a change of layout;
 * kernels before it never write one.
 *
 * Version 3 (96 bytes) moved @timestamp up to directly after @kind and
 * @type, so that a reader of the header alone (CTF's event header: id =
 * @kind and @type as one 16-bit field, then the time) has the time, and
 * added @sample_period.  Version 2 (88 bytes) had, after @type: @order,
 * @flags, @cpu, @migratetype, a reserved byte, @pid, @node, @gfp_flags,
 * @cache_id, @stack_id, @seq, @timestamp, @call_site, @ptr, @bytes_req,
 * @bytes_alloc, @tag.  Version 1 (80 bytes) had no @stack_id and @tag, a
 * 32-bit @cpu and @migratetype after @cache_id.
 */
struct kmemtrace_event {
	__u16	magic;
	__u8	abi_version;
	__u8	kind;
	__u8	type;
	__u8	__reserved0[3];
	__u64	timestamp;
	__u16	flags;
	__u16	cpu;
	__u8	order;
	__u8	migratetype;
	__u16	__reserved1;
	__u32	pid;
	__s32	node;
	__u32	gfp_flags;
	__u32	cache_id;
	__u32	stack_id;
	__u32	sample_period;
	__u64	seq;
	__u64	call_site;
	__u64	ptr;
	__u64	bytes_req;
	__u64	bytes_alloc;
	__u64	tag;
} __attribute__((packed));

#define KMEMTRACE_EVENT_SIZE	96

/**
 * struct kmemtrace_ring_pos - a cpuN buffer's positions, for mmap() readers
 * @head: bytes of events written since the buffer was allocated
 * @tail: bytes handed back by readers since then
 * @size: bytes of the ring, a whole number of events: the byte at stream
 *	offset X is at offset X % @size of the mapping
 * @map_size: bytes of the buffer, the length to give mmap()
 *
 * An mmap() reader maps a cpuN file whole (read-only, from offset 0), then
 * in a loop asks for the positions with KMEMTRACE_IOC_POS, uses the events
 * between @tail and @head (whole events; they stay in place until handed
 * back) and hands them back with KMEMTRACE_IOC_CONSUME, giving the number
 * of bytes.  read() and the ioctls share @tail: one reader at a time.
 */
struct kmemtrace_ring_pos {
	__u64	head;
	__u64	tail;
	__u64	size;
	__u64	map_size;
};

#define KMEMTRACE_IOC_MAGIC	0xb9
#define KMEMTRACE_IOC_POS	_IOR(KMEMTRACE_IOC_MAGIC, 1, struct kmemtrace_ring_pos)
#define KMEMTRACE_IOC_CONSUME	_IOW(KMEMTRACE_IOC_MAGIC, 2, __u64)

#endif /* _UAPI_LINUX_KMEMTRACE_H */
