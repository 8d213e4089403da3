// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace - copying one CPU's stream to a file in a thread of its own
 *
 * See drain.h and Documentation/kmemtrace.rst (record).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "drain.h"
#include "hash.h"
#include "trace.h"
#include "utils.h"

/* Whole events per read(); the kernel's read() returns whole events only. */
#define DRAIN_READ_SIZE		(2730 * KMEMTRACE_EVENT_SIZE)
/*
 * How long an empty stream is waited for before it is read again: the
 * kernel wakes poll() only once a sub-buffer's worth is there.
 */
#define DRAIN_POLL_MS		100

struct kmt_drain {
	int in;
	int out;
	int notify;
	int stop_fd;
	int cpu;
	char *name;
	char *out_name;
	pthread_t thread;
	bool started;
	atomic_bool stopping;
	atomic_uint_least64_t bytes;
	atomic_bool failed;
	/* The thread's own: the output failed, events are only counted. */
	bool out_failed;
	atomic_uint_least64_t unwritten;
	/* The thread's own: the pids seen, and the last one. */
	struct kmt_map seen;
	uint32_t last_pid;
	bool has_last;
	/* Shared with kmt_drain_pids(): pids seen for the first time. */
	pthread_mutex_t lock;
	uint32_t *queue;
	size_t queued;
	size_t cap;
	unsigned char *buf;
	/* The kernel's buffer, mapped, and its ring size; NULL: read(). */
	const unsigned char *map;
	size_t map_size;
	uint64_t ring_size;
};

static bool queue_pid(struct kmt_drain *d, uint32_t pid)
{
	bool added;

	d->last_pid = pid;
	d->has_last = true;
	kmt_map_insert(&d->seen, pid, 0, &added);
	if (!added)
		return false;
	pthread_mutex_lock(&d->lock);
	if (d->queued == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 64;
		d->queue = xrealloc(d->queue, d->cap * sizeof(*d->queue));
	}
	d->queue[d->queued++] = pid;
	pthread_mutex_unlock(&d->lock);
	return true;
}

/*
 * Note the pids of the whole events of the @n bytes at @p, the stream
 * having given @done bytes before.  The events are in host byte
 * order: record runs on the traced machine.  Consecutive events mostly
 * come from one task: only a change of pid costs a lookup.
 */
static void note_pids(struct kmt_drain *d, const unsigned char *p,
		      uint64_t done, size_t n)
{
	size_t off = (KMEMTRACE_EVENT_SIZE - done % KMEMTRACE_EVENT_SIZE) %
		     KMEMTRACE_EVENT_SIZE;
	bool queued = false;
	uint16_t magic;
	uint32_t pid;

	if (d->notify < 0)
		return;
	for (; off + KMEMTRACE_EVENT_SIZE <= n; off += KMEMTRACE_EVENT_SIZE) {
		memcpy(&magic, p + off + offsetof(struct kmemtrace_event, magic),
		       sizeof(magic));
		memcpy(&pid, p + off + offsetof(struct kmemtrace_event, pid),
		       sizeof(pid));
		if (magic != KMEMTRACE_MAGIC || (d->has_last && pid == d->last_pid))
			continue;
		queued |= queue_pid(d, pid);
	}
	if (queued && d->notify >= 0) {
		uint64_t one = 1;

		if (write(d->notify, &one, sizeof(one)) < 0 && errno != EAGAIN)
			kmt_err("eventfd: %s", strerror(errno));
	}
}

/*
 * Write the @n bytes of events at @p to the output and note their pids,
 * the output having @done bytes before; return the bytes it has after.
 * Once the output failed, the events are only counted as unwritten: they
 * are read and lost, as a drop is, and record says how many.  When a
 * write fails, the part of an event written is cut off the file, which
 * then holds whole events only, for check to read to the end.
 */
static uint64_t output(struct kmt_drain *d, const unsigned char *p, size_t n,
		       uint64_t done)
{
	size_t w = 0, keep, cut;
	ssize_t ret;
	int err = 0;

	while (!d->out_failed && w < n) {
		ret = write(d->out, p + w, n - w);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0) {
			err = errno;
			break;
		}
		w += ret;
	}
	if (err) {
		kmt_err("%s: %s: recording stops; the events read from %s from now on are lost",
			d->out_name, strerror(err), d->name);
		cut = (done + w) % KMEMTRACE_EVENT_SIZE;
		keep = cut < w ? w - cut : 0;
		if (keep < w && ftruncate(d->out, done + keep))
			kmt_err("%s: %s", d->out_name, strerror(errno));
		else
			w = keep;
		d->out_failed = true;
		atomic_store(&d->failed, true);
	}
	note_pids(d, p, done, w);
	if (w < n)
		atomic_fetch_add_explicit(&d->unwritten, (n - w) / KMEMTRACE_EVENT_SIZE,
					  memory_order_relaxed);
	return done + w;
}

/* Copy what the stream has; return bytes read, 0 if empty, -1 on error. */
static ssize_t drain_once(struct kmt_drain *d)
{
	uint64_t done = atomic_load_explicit(&d->bytes, memory_order_relaxed);
	ssize_t n;

	do {
		n = read(d->in, d->buf, DRAIN_READ_SIZE);
	} while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EAGAIN)
		return 0;
	if (n < 0) {
		kmt_err("%s: %s", d->name, strerror(errno));
		return -1;
	}
	if (!n)
		return 0;
	atomic_store_explicit(&d->bytes, output(d, d->buf, n, done),
			      memory_order_relaxed);
	return n;
}

/*
 * drain_once() for a mapped buffer: the events are written to the output
 * straight from the kernel's buffer, then handed back; nothing is copied
 * to a buffer of ours first.
 */
static ssize_t drain_once_mapped(struct kmt_drain *d)
{
	uint64_t done = atomic_load_explicit(&d->bytes, memory_order_relaxed);
	struct kmemtrace_ring_pos pos;
	uint64_t n, off, first;

	if (ioctl(d->in, KMEMTRACE_IOC_POS, &pos)) {
		kmt_err("%s: %s", d->name, strerror(errno));
		return -1;
	}
	n = pos.head - pos.tail;
	if (!n)
		return 0;
	if (n > d->ring_size || n % KMEMTRACE_EVENT_SIZE) {
		kmt_err("%s: bad ring positions: head %llu, tail %llu", d->name,
			(unsigned long long)pos.head, (unsigned long long)pos.tail);
		return -1;
	}
	off = pos.tail % d->ring_size;
	first = n < d->ring_size - off ? n : d->ring_size - off;
	done = output(d, d->map + off, first, done);
	if (n > first)
		done = output(d, d->map, n - first, done);
	if (ioctl(d->in, KMEMTRACE_IOC_CONSUME, &n)) {
		kmt_err("%s: %s", d->name, strerror(errno));
		return -1;
	}
	atomic_store_explicit(&d->bytes, done, memory_order_relaxed);
	return n;
}

/*
 * Map the kernel's buffer if it lets us (kernels with KMEMTRACE_IOC_POS);
 * plain files and older kernels are read().
 */
static void try_map(struct kmt_drain *d)
{
	struct kmemtrace_ring_pos pos;
	void *map;

	if (ioctl(d->in, KMEMTRACE_IOC_POS, &pos) || !pos.size ||
	    pos.size % KMEMTRACE_EVENT_SIZE || pos.size > pos.map_size ||
	    pos.map_size > SIZE_MAX)
		return;
	map = mmap(NULL, pos.map_size, PROT_READ, MAP_SHARED, d->in, 0);
	if (map == MAP_FAILED)
		return;
	d->map = map;
	d->map_size = pos.map_size;
	d->ring_size = pos.size;
}

static void *drain_thread(void *arg)
{
	struct kmt_drain *d = arg;
	cpu_set_t set;
	struct pollfd pfd[2] = {
		{ .fd = d->in, .events = POLLIN },
		{ .fd = d->stop_fd, .events = POLLIN },
	};
	bool readable = false;
	bool stop;
	ssize_t n;

	/*
	 * On the CPU whose buffer it empties, where the events are written:
	 * the buffer is local, and each CPU pays for draining its own events.
	 * A CPU record may not use (offline, or not in its affinity) leaves
	 * the drain where the scheduler puts it.
	 */
	if (d->cpu >= 0 && d->cpu < CPU_SETSIZE) {
		CPU_ZERO(&set);
		CPU_SET(d->cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	for (;;) {
		/* Once stopping, a read that starts after it sees everything. */
		stop = atomic_load(&d->stopping);
		n = d->map ? drain_once_mapped(d) : drain_once(d);
		if (n < 0) {
			atomic_store(&d->failed, true);
			break;
		}
		if (n > 0) {
			readable = false;
			continue;
		}
		if (stop)
			break;
		/*
		 * Polled readable but empty: a plain file at its end (the
		 * tests), or a released buffer.  Only wait to be stopped.
		 */
		if (readable) {
			poll(&pfd[1], 1, DRAIN_POLL_MS);
			readable = false;
			continue;
		}
		if (poll(pfd, 2, DRAIN_POLL_MS) > 0 && pfd[0].revents)
			readable = true;
	}
	return NULL;
}

struct kmt_drain *kmt_drain_start(int in, int out, int cpu, const char *name,
				  const char *out_name, int notify, bool map)
{
	struct kmt_drain *d = xcalloc(1, sizeof(*d));
	sigset_t all, old;
	int err;

	d->in = in;
	d->out = out;
	d->cpu = cpu;
	d->notify = notify;
	d->name = xstrdup(name);
	d->out_name = xstrdup(out_name);
	d->buf = xmalloc(DRAIN_READ_SIZE);
	atomic_init(&d->stopping, false);
	atomic_init(&d->bytes, 0);
	atomic_init(&d->failed, false);
	atomic_init(&d->unwritten, 0);
	pthread_mutex_init(&d->lock, NULL);
	if (map)
		try_map(d);
	d->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (d->stop_fd < 0) {
		kmt_err("eventfd: %s", strerror(errno));
		kmt_drain_free(d);
		return NULL;
	}
	/* Signals are record's: the thread starts with all of them blocked. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&d->thread, NULL, drain_thread, d);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		kmt_err("%s: cannot start a thread: %s", name, strerror(err));
		kmt_drain_free(d);
		return NULL;
	}
	d->started = true;
	return d;
}

uint64_t kmt_drain_bytes(const struct kmt_drain *d)
{
	return atomic_load_explicit(&d->bytes, memory_order_relaxed);
}

bool kmt_drain_failed(const struct kmt_drain *d)
{
	return atomic_load(&d->failed);
}

uint64_t kmt_drain_unwritten(const struct kmt_drain *d)
{
	return atomic_load_explicit(&d->unwritten, memory_order_relaxed);
}

size_t kmt_drain_pids(struct kmt_drain *d, uint32_t *pids, size_t max)
{
	size_t n;

	pthread_mutex_lock(&d->lock);
	n = d->queued < max ? d->queued : max;
	memcpy(pids, d->queue, n * sizeof(*pids));
	memmove(d->queue, d->queue + n, (d->queued - n) * sizeof(*pids));
	d->queued -= n;
	pthread_mutex_unlock(&d->lock);
	return n;
}

int kmt_drain_finish(struct kmt_drain *d)
{
	uint64_t one = 1;

	if (!d->started)
		return atomic_load(&d->failed) ? -1 : 0;
	atomic_store(&d->stopping, true);
	if (write(d->stop_fd, &one, sizeof(one)) < 0)
		kmt_err("eventfd: %s", strerror(errno));
	pthread_join(d->thread, NULL);
	d->started = false;
	return atomic_load(&d->failed) ? -1 : 0;
}

void kmt_drain_free(struct kmt_drain *d)
{
	if (!d)
		return;
	if (d->started)
		kmt_drain_finish(d);
	if (d->stop_fd >= 0)
		close(d->stop_fd);
	if (d->map)
		munmap((void *)d->map, d->map_size);
	pthread_mutex_destroy(&d->lock);
	kmt_map_free(&d->seen);
	free(d->queue);
	free(d->buf);
	free(d->name);
	free(d->out_name);
	free(d);
}
