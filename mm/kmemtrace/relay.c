// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace relay channel: one buffer of kmemtrace.subbufs sub-buffers of
 * kmemtrace.subbuf_size bytes per CPU, exported as the root-only files
 * /sys/kernel/debug/kmemtrace/cpuN.
 *
 * The channel runs in no-overwrite mode: when a CPU's sub-buffers are all
 * full, new events are dropped (and counted by the caller) until a reader
 * consumes one.  Nothing already recorded is ever overwritten.  The channel
 * is opened at early boot without files and gets them once debugfs is up.
 * CPUs brought online later get a buffer from relay's CPU hotplug callback;
 * the buffer of a CPU that goes offline stays readable.
 *
 * See Documentation/trace/kmemtrace.rst.
 */

#define pr_fmt(fmt) "kmemtrace: " fmt

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

int __init kmemtrace_relay_open(void)
{
	kmemtrace_chan = relay_open(NULL, NULL, kmemtrace_subbuf_size,
				    kmemtrace_subbufs,
				    &kmemtrace_relay_callbacks, NULL);
	return kmemtrace_chan ? 0 : -ENOMEM;
}

int __init kmemtrace_relay_setup_files(struct dentry *dir)
{
	return relay_late_setup_files(kmemtrace_chan, "cpu", dir);
}

/*
 * Copy @ev into this CPU's buffer.  Called with interrupts disabled, so
 * nothing else on this CPU writes the buffer meanwhile.
 * Return: false if the buffer was full and @ev was dropped.
 */
bool kmemtrace_relay_write(const struct kmemtrace_event *ev)
{
	void *slot = relay_reserve(kmemtrace_chan, sizeof(*ev));

	if (unlikely(!slot))
		return false;
	memcpy(slot, ev, sizeof(*ev));
	return true;
}
