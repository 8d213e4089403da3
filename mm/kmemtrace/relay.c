// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace relay channel: one buffer of kmemtrace.subbufs sub-buffers of
 * kmemtrace.subbuf_size bytes per CPU, exported as the root-only files
 * /sys/kernel/debug/kmemtrace/cpuN.
 *
 * relay allocates the buffers (one per CPU, also for CPUs that come online
 * later, kept readable when a CPU goes offline) and creates their files.
 * The cpuN files have their own read() and poll(), though: relay's reader
 * reads the sub-buffer being written by combining several fields that
 * relay_switch_subbuf() changes one at a time (produced, offset, data,
 * padding), so a reader running during a switch on another CPU can take a
 * sub-buffer that still holds the previous lap for a complete one, or
 * reset its position into the current one and read it twice.  Each buffer
 * is used instead as a ring of whole events with one writer, its CPU, and
 * one reader at a time:
 *
 *   @head  bytes written since the buffer was allocated; the writer copies
 *          the event in, then publishes it with a store-release of @head;
 *   @tail  bytes read; the reader copies events out, then hands their room
 *          back with a store-release of @tail.
 *
 * With the "tsc" clock (clock.c) the writer stamps the TSC, and the reader
 * converts the stamps of the events up to @head before it copies them out
 * or gives their positions, each event once (@stamped).
 *
 * The writer never overwrites what was not read: when the ring is full
 * the event is dropped (and counted by the caller).  A reader sees an event
 * only once it is whole.  The ring size is the buffer size rounded down to
 * whole events; sub-buffers are only the unit of reader wake-ups.
 *
 * The channel is opened when recording is first enabled, and closed on
 * request (core.c); opened at early boot (kmemtrace.enable=1) it has no
 * files until debugfs is up.
 *
 * See Documentation/trace/kmemtrace.rst.
 */

#define pr_fmt(fmt) "kmemtrace: " fmt

#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/relay.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "kmemtrace.h"

/* The ring (struct kmemtrace_ring) and its writer are in kmemtrace.h. */
struct rchan *kmemtrace_chan __read_mostly;
DEFINE_PER_CPU(struct kmemtrace_ring, kmemtrace_ring);
/* Bytes of a CPU's buffer used: the buffer size in whole events. */
size_t kmemtrace_ring_size __read_mostly;

static struct kmemtrace_ring *buf_ring(struct rchan_buf *buf)
{
	return per_cpu_ptr(&kmemtrace_ring, buf->cpu);
}

static int cpu_file_open(struct inode *inode, struct file *file)
{
	/* Holds a reference to the buffer, as relay's own files do. */
	return relay_file_operations.open(inode, file);
}

static int cpu_file_release(struct inode *inode, struct file *file)
{
	return relay_file_operations.release(inode, file);
}

/* Hand @n bytes read out back to the writer. */
static void ring_consume(struct kmemtrace_ring *ring, size_t n)
{
	ring->tail_pos += n;
	if (ring->tail_pos >= kmemtrace_ring_size)
		ring->tail_pos -= kmemtrace_ring_size;
	/* Only once they are read out; pairs with the writer's READ_ONCE(). */
	smp_store_release(&ring->tail, ring->tail + n);
}

/*
 * Read whole events.  A buffer released (core.c) while its file was open
 * reads as empty: its ring positions may belong to a new buffer already.
 * The file's inode lock, held here and in the ioctls, keeps the release
 * from finishing (and so a new buffer from taking the positions) while
 * a read is under way: relay_close() sets @finalized, then removing the
 * file takes that lock.
 */
static ssize_t cpu_file_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct rchan_buf *buf = file->private_data;
	struct kmemtrace_ring *ring = buf_ring(buf);
	size_t size = kmemtrace_ring_size, n;
	ssize_t done = 0;
	u64 head;

	count = rounddown(count, KMEMTRACE_EVENT_SIZE);
	if (!count)
		return -EINVAL;
	inode_lock(file_inode(file));
	/* Pairs with the writer's store-release: the events are whole. */
	head = smp_load_acquire(&ring->head);
	if (!READ_ONCE(buf->finalized))
		kmemtrace_clock_convert(ring, buf->start, head);
	while (!READ_ONCE(buf->finalized) && done < count && ring->tail != head) {
		n = min3(count - done, (size_t)(head - ring->tail),
			 size - ring->tail_pos);
		if (copy_to_user(ubuf + done, buf->start + ring->tail_pos, n)) {
			if (!done)
				done = -EFAULT;
			break;
		}
		done += n;
		ring_consume(ring, n);
	}
	inode_unlock(file_inode(file));
	return done;
}

/* Where an mmap() reader is (uapi's struct kmemtrace_ring_pos). */
static void cpu_file_pos(struct rchan_buf *buf, struct kmemtrace_ring_pos *pos)
{
	struct kmemtrace_ring *ring = buf_ring(buf);

	/* Pairs with the writer's store-release, as in read(). */
	pos->head = smp_load_acquire(&ring->head);
	pos->tail = ring->tail;
	pos->size = kmemtrace_ring_size;
	pos->map_size = buf->chan->alloc_size;
	/* Released: the positions may be a new buffer's already. */
	if (READ_ONCE(buf->finalized))
		pos->head = pos->tail;
	else
		kmemtrace_clock_convert(ring, buf->start, pos->head);
}

/* Hand back @bytes an mmap() reader used: whole events it was given. */
static int cpu_file_consume(struct rchan_buf *buf, u64 bytes)
{
	struct kmemtrace_ring *ring = buf_ring(buf);
	u64 head;

	if (READ_ONCE(buf->finalized))
		return -ENODATA;
	/* Pairs with the writer's store-release: no more than was written. */
	head = smp_load_acquire(&ring->head);
	if (bytes % KMEMTRACE_EVENT_SIZE || bytes > head - ring->tail)
		return -EINVAL;
	ring_consume(ring, bytes);
	return 0;
}

static long cpu_file_ioctl(struct file *file, unsigned int cmd,
			   unsigned long arg)
{
	struct rchan_buf *buf = file->private_data;
	struct kmemtrace_ring_pos pos;
	long ret = 0;
	u64 bytes;

	switch (cmd) {
	case KMEMTRACE_IOC_POS:
		inode_lock(file_inode(file));
		cpu_file_pos(buf, &pos);
		inode_unlock(file_inode(file));
		if (copy_to_user((void __user *)arg, &pos, sizeof(pos)))
			ret = -EFAULT;
		break;
	case KMEMTRACE_IOC_CONSUME:
		if (copy_from_user(&bytes, (void __user *)arg, sizeof(bytes)))
			return -EFAULT;
		inode_lock(file_inode(file));
		ret = cpu_file_consume(buf, bytes);
		inode_unlock(file_inode(file));
		break;
	default:
		ret = -ENOTTY;
	}
	return ret;
}

/*
 * The buffer whole, read-only: a reader must not write what the writer
 * owns.  relay's mmap() maps its pages and checks the length, not the
 * offset, and its fault handler maps whatever vmalloc_to_page() finds
 * past the buffer: a mapping at an offset would reach kernel memory
 * beyond it.
 */
static int cpu_file_mmap(struct file *file, struct vm_area_struct *vma)
{
	if (vma->vm_pgoff)
		return -EINVAL;
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	vm_flags_clear(vma, VM_MAYWRITE);
	return relay_file_operations.mmap(file, vma);
}

/*
 * Readable once a sub-buffer's worth is there, as relay's files are.
 *
 * A reader that is not has the writer wake it when it is: the writer's
 * own next wake-up may be later, as it wakes every sub-buffer's worth
 * from the last one, reader or not, and the ring may fill before (with
 * two sub-buffers of a size not a whole number of events, it does).  The
 * writer also wakes it when the ring is full (kmemtrace_relay_full()).
 */
static __poll_t cpu_file_poll(struct file *file, poll_table *wait)
{
	struct rchan_buf *buf = file->private_data;
	struct kmemtrace_ring *ring = buf_ring(buf);
	size_t ready = min_t(size_t, kmemtrace_subbuf_size, kmemtrace_ring_size);
	u64 tail;

	if (READ_ONCE(buf->finalized))
		return EPOLLERR;
	poll_wait(file, &buf->read_wait, wait);
	/*
	 * Waiting, before looking: pairs with the barrier of the writer's
	 * wq_has_sleeper(), after its head store (as sock_poll_wait()).
	 */
	smp_mb();
	inode_lock(file_inode(file));
	tail = ring->tail;
	/* Pairs with the writer's store-release, as in read(). */
	if (smp_load_acquire(&ring->head) - tail >= ready) {
		inode_unlock(file_inode(file));
		return EPOLLIN | EPOLLRDNORM;
	}
	/* A released buffer's ring may be a new buffer's already. */
	if (!READ_ONCE(buf->finalized))
		WRITE_ONCE(ring->wake_at, tail + ready);
	inode_unlock(file_inode(file));
	return 0;
}

static const struct file_operations cpu_file_fops = {
	.owner		= THIS_MODULE,
	.open		= cpu_file_open,
	.read		= cpu_file_read,
	.poll		= cpu_file_poll,
	.unlocked_ioctl	= cpu_file_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.mmap		= cpu_file_mmap,
	.release	= cpu_file_release,
};

static struct dentry *create_buf_file(const char *filename,
				      struct dentry *parent, umode_t mode,
				      struct rchan_buf *buf, int *is_global)
{
	/* Asked at early boot, before debugfs: no file yet. */
	if (!filename)
		return NULL;
	/*
	 * Events carry kernel addresses: root only, whatever relay asks.
	 * debugfs' full proxy has no mmap(): the file is created "unsafe",
	 * which is safe here because its operations touch only the buffer,
	 * which every open file holds a reference to (relay's open()), and
	 * the built-in ring and channel state.
	 */
	return debugfs_create_file_unsafe(filename, 0400, parent, buf,
					  &cpu_file_fops);
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
 * Context: Process context, may sleep; kmemtrace_mutex held, and no
 * probe writes to the buffers.
 * Return: 0, or -ENOMEM.
 */
int kmemtrace_relay_open(struct dentry *dir)
{
	struct rchan *chan;
	int cpu;

	/* New buffers start empty; files of released ones read as empty. */
	for_each_possible_cpu(cpu)
		per_cpu(kmemtrace_ring, cpu) = (struct kmemtrace_ring){ };
	kmemtrace_ring_size = rounddown((size_t)kmemtrace_subbufs *
					kmemtrace_subbuf_size,
					KMEMTRACE_EVENT_SIZE);
	cpus_read_lock();
	chan = relay_open(dir ? "cpu" : NULL, dir, kmemtrace_subbuf_size,
			  kmemtrace_subbufs, &kmemtrace_relay_callbacks, NULL);
	cpus_read_unlock();
	if (!chan)
		return -ENOMEM;
	WRITE_ONCE(kmemtrace_chan, chan);
	return 0;
}

/**
 * kmemtrace_relay_allocated() - whether the buffers are allocated
 *
 * Context: kmemtrace_mutex held, or the answer may be out of date.
 * Return: true between kmemtrace_relay_open() and kmemtrace_relay_close().
 */
bool kmemtrace_relay_allocated(void)
{
	return READ_ONCE(kmemtrace_chan);
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
 * Context: Process context; kmemtrace_mutex held, which keeps the channel
 * from being closed (and freed) meanwhile.
 * Return: the size of the buffers of every CPU that has one.
 */
u64 kmemtrace_relay_bytes(void)
{
	struct rchan *chan = kmemtrace_chan;
	unsigned int cpus = 0;
	int cpu;

	if (!chan)
		return 0;
	for_each_possible_cpu(cpu)
		cpus += !!*per_cpu_ptr(chan->buf, cpu);
	return (u64)cpus * chan->alloc_size;
}

/**
 * kmemtrace_relay_attach() - find this CPU's buffer, at its first event
 * @ring: this CPU's ring, its @next still NULL
 *
 * relay allocates the buffers when recording is first enabled, and that
 * of a CPU coming up later as it comes up (its hotplug callback), and
 * tells the ring nothing: the writer looks its buffer up here, at its
 * first event, and keeps where it writes from then on.  The rings start
 * over when the buffers are allocated again (kmemtrace_relay_open()).
 *
 * Context: As kmemtrace_relay_reserve().
 * Return: the buffer's first slot, or NULL if this CPU has no buffer
 * (then asked again at each event).
 */
void *kmemtrace_relay_attach(struct kmemtrace_ring *ring)
{
	struct rchan_buf *buf = *this_cpu_ptr(kmemtrace_chan->buf);

	if (!buf)
		return NULL;
	ring->start = buf->start;
	ring->end = buf->start + kmemtrace_ring_size;
	/* No event was published without a slot: @ring->head is 0. */
	ring->next = buf->start;
	return ring->next;
}

/**
 * kmemtrace_relay_wake() - wake a reader waiting in poll
 * @ring: this CPU's ring, written up to where a reader asked to be woken
 *	or a sub-buffer's worth more since the last wake-up
 *	(kmemtrace_relay_commit())
 *
 * Context: As kmemtrace_relay_commit().
 */
void kmemtrace_relay_wake(struct kmemtrace_ring *ring)
{
	struct rchan_buf *buf = *this_cpu_ptr(kmemtrace_chan->buf);

	WRITE_ONCE(ring->wake_at, ring->head + kmemtrace_subbuf_size);
	/* Orders the head store before the waiter check; pairs with poll. */
	if (wq_has_sleeper(&buf->read_wait))
		irq_work_queue(&buf->wakeup_work);
}

/**
 * kmemtrace_relay_full() - wake a reader waiting in poll: the ring is full
 *
 * Called for each event dropped; wakes once for each time the ring
 * fills.  A reader that looked at the ring just before it filled may
 * have asked to be woken at a point the writer did not see yet (poll);
 * without it, nothing would be written that could wake it.
 *
 * Context: As kmemtrace_relay_commit(), the event dropped.
 */
void kmemtrace_relay_full(void)
{
	struct kmemtrace_ring *ring = this_cpu_ptr(&kmemtrace_ring);
	struct rchan_buf *buf = *this_cpu_ptr(kmemtrace_chan->buf);

	/* No buffer for this CPU, or woken already at this head. */
	if (!buf || ring->full_at == ring->head)
		return;
	ring->full_at = ring->head;
	/* Pairs with poll's barrier, as kmemtrace_relay_wake()'s. */
	if (wq_has_sleeper(&buf->read_wait))
		irq_work_queue(&buf->wakeup_work);
}
