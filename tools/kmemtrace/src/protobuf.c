// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace protobuf - write the protocol buffers wire format
 *
 * A field is a key, (field number << 3) | wire type, then its value: a
 * varint (wire type 0, 7 bits a byte, low bits first) or a length and as
 * many bytes (wire type 2).  See protobuf.h.
 */
#include <stdlib.h>
#include <string.h>

#include "protobuf.h"
#include "utils.h"

#define PB_VARINT	0
#define PB_LEN		2

static void pb_room(struct kmt_pb *b, size_t n)
{
	if (b->len + n <= b->size)
		return;
	while (b->len + n > b->size)
		b->size = b->size ? 2 * b->size : 256;
	b->p = xrealloc(b->p, b->size);
}

static void pb_varint(struct kmt_pb *b, uint64_t v)
{
	pb_room(b, 10);
	while (v >= 0x80) {
		b->p[b->len++] = (uint8_t)v | 0x80;
		v >>= 7;
	}
	b->p[b->len++] = v;
}

static size_t varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static void pb_key(struct kmt_pb *b, unsigned int field, unsigned int wire)
{
	pb_varint(b, (uint64_t)field << 3 | wire);
}

void kmt_pb_uint(struct kmt_pb *b, unsigned int field, uint64_t v)
{
	if (!v)
		return;
	pb_key(b, field, PB_VARINT);
	pb_varint(b, v);
}

void kmt_pb_bytes(struct kmt_pb *b, unsigned int field, const void *data,
		  size_t len)
{
	pb_key(b, field, PB_LEN);
	pb_varint(b, len);
	pb_room(b, len);
	if (len)
		memcpy(b->p + b->len, data, len);
	b->len += len;
}

void kmt_pb_msg(struct kmt_pb *b, unsigned int field, struct kmt_pb *m)
{
	kmt_pb_bytes(b, field, m->p, m->len);
	m->len = 0;
}

void kmt_pb_packed(struct kmt_pb *b, unsigned int field, const uint64_t *v,
		   size_t n)
{
	size_t i, len = 0;

	if (!n)
		return;
	for (i = 0; i < n; i++)
		len += varint_len(v[i]);
	pb_key(b, field, PB_LEN);
	pb_varint(b, len);
	for (i = 0; i < n; i++)
		pb_varint(b, v[i]);
}

void kmt_pb_free(struct kmt_pb *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}
