// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace relay channel: one buffer of kmemtrace.subbufs sub-buffers of
 * kmemtrace.subbuf_size bytes per CPU, exported as the root-only files
 * /sys/kernel/debug/kmemtrace/cpuN.
 *
 * The channel runs in no-overwrite mode: when a CPU's sub-buffers are all
 * full, new events are dropped (and counted by the caller) until a reader
 * consumes one.  Nothing already recorded is ever overwritten.  The channel
 * is opened when recording is first enabled, and closed on request (core.c);
 * opened at early boot (kmemtrace.enable=1) it has no files until debugfs
 * is up.
 * CPUs brought online later get a buffer from relay's CPU hotplug callback;
 * the buffer of a CPU that goes offline stays readable.
 *
 * See Documentation/trace/kmemtrace.rst.
 */

#define pr_fmt(fmt) "kmemtrace: " fmt

#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/relay.h>

#include "kmemtrace.h"

static struct rchan *kmemtrace_chan __read_mostly;

static struct dentry *create_buf_file(const char *filename,
				      struct dentry *parent, umode_t mode,
				      struct rchan_buf *buf, int *is_global)
{
	/* Asked at early boot, before debugfs: no file yet. */
	if (!filename)
		return NULL;
	/* Events carry kernel addresses: root only, whatever relay asks. */
	return debugfs_create_file(filename, 0400, parent, buf,
				   &relay_file_operations);
}

static int remove_buf_file(struct dentry *dentry)
{
	debugfs_remove(dentry);
	return 0;
}

static const struct rchan_callbacks kmemtrace_relay_callbacks = {
	.create_buf_file	= create_buf_file,
	.remove_buf_file	= remove_buf_file,
};

/**
 * kmemtrace_relay_open() - allocate a buffer for every CPU
 * @dir: the debugfs directory for the cpuN files, or NULL at early boot
 *	(kmemtrace_relay_setup_files() adds them later)
 *
 * CPU hotplug is held off, so that a CPU coming up meanwhile gets its
 * buffer either here or from relay's hotplug callback.
 *
 * Context: Process context, may sleep; kmemtrace_mutex held.
 * Return: 0, or -ENOMEM.
 */
int kmemtrace_relay_open(struct dentry *dir)
{
	struct rchan *chan;

	cpus_read_lock();
	chan = relay_open(dir ? "cpu" : NULL, dir, kmemtrace_subbuf_size,
			  kmemtrace_subbufs, &kmemtrace_relay_callbacks, NULL);
	cpus_read_unlock();
	if (!chan)
		return -ENOMEM;
	WRITE_ONCE(kmemtrace_chan, chan);
	return 0;
}

int __init kmemtrace_relay_setup_files(struct dentry *dir)
{
	return relay_late_setup_files(kmemtrace_chan, "cpu", dir);
}

/**
 * kmemtrace_relay_close() - free the buffers and remove their files
 *
 * Context: Process context, may sleep; kmemtrace_mutex held, and no
 * probe writes to the buffers any more.
 */
void kmemtrace_relay_close(void)
{
	struct rchan *chan = kmemtrace_chan;

	WRITE_ONCE(kmemtrace_chan, NULL);
	relay_close(chan);
}

/**
 * kmemtrace_relay_bytes() - bytes of buffer allocated
 *
 * Context: Process context; kmemtrace_mutex held or the answer may be
 * out of date.
 * Return: the size of the buffers of every CPU that has one.
 */
u64 kmemtrace_relay_bytes(void)
{
	struct rchan *chan = READ_ONCE(kmemtrace_chan);
	unsigned int cpus = 0;
	int cpu;

	if (!chan)
		return 0;
	for_each_possible_cpu(cpu)
		cpus += !!*per_cpu_ptr(chan->buf, cpu);
	return (u64)cpus * chan->alloc_size;
}

/**
 * kmemtrace_relay_write() - append an event to this CPU's buffer
 * @ev: the complete event
 *
 * relay_reserve() advances the sub-buffer offset before the caller has
 * written the event, and relay readers read partial sub-buffers up to
 * that offset: a reader on another CPU could consume the slot while it
 * still holds zeros or an event of the previous lap, and the real event
 * would be lost without a trace.  So the event is copied in first and the
 * offset that publishes it is stored after it, with release ordering.
 *
 * A full buffer is never switched into relay's "full" state either: that
 * switch counts the current sub-buffer as produced before it notices that
 * no sub-buffer is free, and a reader that looks in between takes the
 * buffer for overwritten and skips a whole sub-buffer of unread events.
 * The event is dropped before anything changes instead, and the caller
 * counts it.
 *
 * Context: Interrupts disabled, not NMI: nothing else on this CPU writes
 * the buffer meanwhile.
 * Return: false if the buffer was full and @ev was dropped.
 */
bool kmemtrace_relay_write(const struct kmemtrace_event *ev)
{
	struct rchan_buf *buf = *this_cpu_ptr(kmemtrace_chan->buf);
	size_t offset;

	/* A CPU whose buffer could not be allocated when it came up. */
	if (unlikely(!buf))
		return false;
	offset = buf->offset;
	if (unlikely(offset + sizeof(*ev) > kmemtrace_chan->subbuf_size)) {
		/* The reader frees sub-buffers concurrently. */
		if (buf->subbufs_produced + 1 - READ_ONCE(buf->subbufs_consumed) >=
		    kmemtrace_chan->n_subbufs)
			return false;
		if (!relay_switch_subbuf(buf, sizeof(*ev)))
			return false;
		offset = 0;
	}
	memcpy(buf->data + offset, ev, sizeof(*ev));
	/* Publish the event; pairs with the reader's smp_rmb() in relay. */
	smp_store_release(&buf->offset, offset + sizeof(*ev));
	return true;
}
