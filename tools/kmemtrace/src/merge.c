// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace - the k-way merge of the streams of a trace in time order, a batch at a
 * time
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

/* Whether event @x of stream @a comes before event @y of stream @b. */
static inline bool event_before(const struct kmemtrace_event *x, size_t a,
				const struct kmemtrace_event *y, size_t b)
{
	if (x->timestamp != y->timestamp)
		return x->timestamp < y->timestamp;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu;
	if (x->seq != y->seq)
		return x->seq < y->seq;
	return a < b;
}

/* Whether the next event of stream @a comes before that of stream @b. */
static inline bool merge_before(const struct kmt_merge *m, size_t a, size_t b)
{
	return event_before(m->head[a], a, m->head[b], b);
}

static void merge_sift_down(struct kmt_merge *m, size_t i)
{
	size_t child, top = m->heap[i];

	for (;;) {
		child = 2 * i + 1;
		if (child >= m->nr)
			break;
		if (child + 1 < m->nr &&
		    merge_before(m, m->heap[child + 1], m->heap[child]))
			child++;
		if (!merge_before(m, m->heap[child], top))
			break;
		m->heap[i] = m->heap[child];
		i = child;
	}
	m->heap[i] = top;
}

void kmt_merge_start(struct kmt_merge *m, struct kmt_trace *t,
		     struct kmt_stats *st)
{
	size_t i;

	memset(m, 0, sizeof(*m));
	m->t = t;
	m->st = st;
	m->heap = xcalloc(t->nr, sizeof(*m->heap));
	m->head = xcalloc(t->nr, sizeof(*m->head));
	for (i = 0; i < t->nr; i++) {
		memset(&st[i], 0, sizeof(st[i]));
		t->streams[i].defer = true;
		m->head[i] = kmt_stream_head(&t->streams[i], &st[i]);
		if (m->head[i])
			m->heap[m->nr++] = i;
	}
	for (i = m->nr / 2; i-- > 0;)
		merge_sift_down(m, i);
}

static inline size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;

	return m < c ? m : c;
}

/* The event at index @i of the chunk of @s. */
static inline const struct kmemtrace_event *
stream_event(const struct kmt_stream *s, size_t i)
{
	return (const struct kmemtrace_event *)(s->buf + i * KMEMTRACE_EVENT_SIZE);
}

/*
 * kmt_merge_batch() of two streams, the common case, from its @n-th
 * event on.  Which stream goes on is a coin toss that would mispredict
 * a branch every other event: it is computed without one, for as many
 * events as neither stream can run out in.
 */
static size_t merge_batch2(struct kmt_merge *m,
			   const struct kmemtrace_event **ev, size_t n,
			   size_t max)
{
	size_t a = m->heap[0], b = m->heap[1], k;
	struct kmt_stream *sa = &m->t->streams[a], *sb = &m->t->streams[b];
	const struct kmemtrace_event *pa = stream_event(sa, sa->pos);
	const struct kmemtrace_event *pb = stream_event(sb, sb->pos);
	const struct kmemtrace_event *ea = stream_event(sa, sa->valid);
	const struct kmemtrace_event *eb = stream_event(sb, sb->valid);
	uintptr_t take_b;

	while (n < max && pa < ea && pb < eb) {
		k = min3((size_t)(ea - pa), (size_t)(eb - pb), max - n);
		while (k--) {
			if (pa->timestamp != pb->timestamp)
				take_b = pb->timestamp < pa->timestamp;
			else
				take_b = event_before(pb, b, pa, a);
			/* Masks, as compilers turn a ?: into a branch. */
			ev[n++] = (const struct kmemtrace_event *)
				  ((uintptr_t)pa ^
				   (((uintptr_t)pa ^ (uintptr_t)pb) & -take_b));
			pa += 1 - take_b;
			pb += take_b;
		}
	}
	sa->pos = pa - stream_event(sa, 0);
	sb->pos = pb - stream_event(sb, 0);
	m->head[a] = pa;
	m->head[b] = pb;
	/* Refill a stream that ran out first, as kmt_merge_batch() does. */
	if (pa == ea || pb == eb) {
		m->refill = true;
		if (pb == eb) {
			m->heap[0] = b;
			m->heap[1] = a;
		}
	} else if (merge_before(m, b, a)) {
		m->heap[0] = b;
		m->heap[1] = a;
	}
	return n;
}

/*
 * Hand the chunk buffer of @s, whose events were all returned, to
 * @m->swap, and read on into the one it gives, after the bytes of a
 * partial event left.
 */
static void merge_swap(struct kmt_merge *m, struct kmt_stream *s)
{
	size_t keep = s->len - s->whole;
	unsigned char *buf;

	if (!s->buf)
		return;
	buf = m->swap(m->swap_arg, s->buf);
	memcpy(buf, s->buf + s->whole, keep);
	s->buf = buf;
	s->len = keep;
	s->whole = 0;
}

size_t kmt_merge_batch(struct kmt_merge *m,
		       const struct kmemtrace_event **ev, size_t max)
{
	struct kmt_stream *s;
	size_t n = 0, i;

	/* Refill the stream whose chunk the last batch used up. */
	if (m->refill) {
		i = m->heap[0];
		m->refill = false;
		if (m->swap)
			merge_swap(m, &m->t->streams[i]);
		m->head[i] = kmt_stream_head(&m->t->streams[i], &m->st[i]);
		if (!m->head[i])
			m->heap[0] = m->heap[--m->nr];
		if (m->nr)
			merge_sift_down(m, 0);
	}
	while (n < max && m->nr) {
		i = m->heap[0];
		s = &m->t->streams[i];
		ev[n++] = m->head[i];
		if (++s->pos == s->valid) {
			/* Reading on would overwrite the events returned. */
			m->refill = true;
			break;
		}
		m->head[i] = (const struct kmemtrace_event *)
			(s->buf + s->pos * KMEMTRACE_EVENT_SIZE);
		if (m->nr > 1)
			merge_sift_down(m, 0);
		if (m->nr == 2)
			return merge_batch2(m, ev, n, max);
	}
	return n;
}

/* End merge @m, printing the problems found if @print. */
static size_t merge_end(struct kmt_merge *m, bool print)
{
	const struct kmemtrace_event *ev[KMT_MERGE_BATCH];
	struct kmt_stream *s;
	size_t i, errors = 0;

	/* Read what is left, if the caller stopped early. */
	while (kmt_merge_batch(m, ev, KMT_MERGE_BATCH))
		;
	for (i = 0; i < m->t->nr; i++) {
		s = &m->t->streams[i];
		s->defer = false;
		if (!print) {
			free(s->msgs);
			s->msgs = NULL;
			s->msgs_len = 0;
		}
		kmt_stream_flush(s);
		errors += m->st[i].errors;
	}
	free(m->heap);
	free(m->head);
	m->heap = NULL;
	m->head = NULL;
	return errors;
}

void kmt_merge_ahead_start(struct kmt_merge *m)
{
	size_t i;

	for (i = 0; i < m->t->nr; i++)
		kmt_stream_ahead_start(&m->t->streams[i]);
}

bool kmt_merge_read_ahead(struct kmt_merge *m)
{
	size_t i;

	for (i = 0; i < m->t->nr; i++)
		if (kmt_stream_read_ahead(&m->t->streams[i]))
			return true;
	return false;
}

void kmt_merge_ahead_stop(struct kmt_merge *m)
{
	size_t i;

	for (i = 0; i < m->t->nr; i++)
		kmt_stream_ahead_stop(&m->t->streams[i]);
}

size_t kmt_merge_end(struct kmt_merge *m)
{
	kmt_merge_ahead_stop(m);
	return merge_end(m, true);
}

void kmt_merge_drop(struct kmt_merge *m)
{
	kmt_merge_ahead_stop(m);
	merge_end(m, false);
}
