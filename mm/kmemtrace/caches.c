// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace cache names: slab cache id -> name, readable from any context.
 *
 * Events name their slab cache by a small id (mm/slub.c numbers caches as
 * they are created).  The tracer's output (kernel/trace/trace_kmemtrace.c)
 * prints the name, and output runs in any context: ftrace_dump() prints
 * the buffer on an oops or panic from an interrupt or NMI, maybe while
 * this CPU or another holds slab_mutex.  So the name is looked up in an
 * xarray under rcu_read_lock() only, never under slab_mutex: each entry
 * is a copy of the name, added when the cache is created and freed after
 * an RCU grace period when it is destroyed.  Caches created before the
 * xarray can allocate its nodes (radix_tree_init() runs after the slab
 * allocator is up) are added by an initcall.
 *
 * See Documentation/trace/kmemtrace.rst.
 */

#define pr_fmt(fmt) "kmemtrace: " fmt

#include <linux/init.h>
#include <linux/kmemtrace.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/xarray.h>
#include "../slab.h"

struct kmemtrace_cache_name {
	struct rcu_head	rcu;
	char		name[];
};

static DEFINE_XARRAY(kmemtrace_cache_names);
/* Set under slab_mutex once the caches of the boot are in the map. */
static bool kmemtrace_caches_ready;

static void cache_add(unsigned int id, const char *name)
{
	struct kmemtrace_cache_name *n;
	size_t len = strlen(name) + 1;

	n = kmalloc(struct_size(n, name, len), GFP_KERNEL);
	if (!n)
		return;
	memcpy(n->name, name, len);
	if (xa_insert(&kmemtrace_cache_names, id, n, GFP_KERNEL))
		kfree(n);
}

/**
 * kmemtrace_cache_add() - remember the name of a new slab cache
 * @id: the cache's kmemtrace id
 * @name: its name, copied
 *
 * Does nothing during early boot; kmemtrace_caches_init() adds those
 * caches.  A cache whose name cannot be copied stays unnamed (its events
 * print the id).
 *
 * Context: Process context with slab_mutex held, may sleep; or early boot.
 */
void kmemtrace_cache_add(unsigned int id, const char *name)
{
	if (id && READ_ONCE(kmemtrace_caches_ready))
		cache_add(id, name);
}

/**
 * kmemtrace_cache_del() - forget the name of a destroyed slab cache
 * @id: the cache's kmemtrace id
 *
 * The name is freed once no reader can still see it.
 *
 * Context: Process context.
 */
void kmemtrace_cache_del(unsigned int id)
{
	struct kmemtrace_cache_name *n = xa_erase(&kmemtrace_cache_names, id);

	if (n)
		kfree_rcu(n, rcu);
}

/**
 * kmemtrace_cache_name() - the name of the slab cache with a kmemtrace id
 * @id: the cache_id of an event
 * @buf: where to put the name
 * @size: size of @buf
 *
 * Takes no lock and does not sleep.
 *
 * Context: Any context, NMI included.
 * Return: true if @buf holds the name; false if no live cache has that id.
 */
bool kmemtrace_cache_name(unsigned int id, char *buf, size_t size)
{
	struct kmemtrace_cache_name *n;
	bool found = false;

	if (!id)
		return false;
	rcu_read_lock();
	n = xa_load(&kmemtrace_cache_names, id);
	if (n) {
		strscpy(buf, n->name, size);
		found = true;
	}
	rcu_read_unlock();
	return found;
}

/**
 * kmemtrace_cache_backing() - the objects of @s are allocator bookkeeping
 * @s: a cache an allocator keeps for itself
 *
 * Every alloc and free of its objects is flagged KMEMTRACE_FLAG_BACKING,
 * as the events under a KMEMTRACE_SCOPE_BACKING scope are: for objects
 * that one API call allocates and another path frees later, which no
 * scope covers, such as vmalloc's vmap_area, freed by lazy purging.
 *
 * The cache must be its own (SLAB_NO_MERGE): one that slab merging shares
 * with other caches would flag their objects too.
 *
 * Context: Process context, before the cache is used.
 */
void kmemtrace_cache_backing(struct kmem_cache *s)
{
	/* Merged: another cache's objects are in it. */
	if (WARN_ONCE(s->refcount > 1, "kmemtrace: %s is a merged cache\n",
		      s->name))
		return;
	WRITE_ONCE(s->kmemtrace_backing, true);
}

/* The caches of the boot, created before the map could take them. */
static int __init kmemtrace_caches_init(void)
{
	struct kmem_cache *s;

	mutex_lock(&slab_mutex);
	list_for_each_entry(s, &slab_caches, list)
		if (s->kmemtrace_id)
			cache_add(s->kmemtrace_id, s->name);
	WRITE_ONCE(kmemtrace_caches_ready, true);
	mutex_unlock(&slab_mutex);
	return 0;
}
early_initcall(kmemtrace_caches_init);
