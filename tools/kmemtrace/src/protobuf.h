/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace protobuf - the protocol buffers wire format, for pprof
 *
 * Just what writing a message takes: varints, length-delimited fields
 * (strings and nested messages) and packed repeated varints, appended to
 * a growing buffer.  See https://protobuf.dev/programming-guides/encoding/.
 */
#ifndef __KMEMTRACE_PROTOBUF_H
#define __KMEMTRACE_PROTOBUF_H

#include <stddef.h>
#include <stdint.h>

/**
 * struct kmt_pb - a message being written
 * @p: its bytes
 * @len: number of bytes written
 * @size: room in @p
 *
 * Zero-initialised, it is empty.
 */
struct kmt_pb {
	uint8_t *p;
	size_t len;
	size_t size;
};

/**
 * kmt_pb_uint() - append a varint field, unless it is 0 (the default)
 * @b: the message
 * @field: the field number
 * @v: the value (an int64 field's non-negative value too)
 */
void kmt_pb_uint(struct kmt_pb *b, unsigned int field, uint64_t v);

/**
 * kmt_pb_bytes() - append a length-delimited field: a string or bytes
 * @b: the message
 * @field: the field number
 * @data: the bytes
 * @len: their number
 */
void kmt_pb_bytes(struct kmt_pb *b, unsigned int field, const void *data,
		  size_t len);

/**
 * kmt_pb_msg() - append a nested message, and empty it for the next one
 * @b: the message
 * @field: the field number
 * @m: the nested message
 */
void kmt_pb_msg(struct kmt_pb *b, unsigned int field, struct kmt_pb *m);

/**
 * kmt_pb_packed() - append a packed repeated varint field
 * @b: the message
 * @field: the field number
 * @v: the values
 * @n: their number; nothing is written for 0
 */
void kmt_pb_packed(struct kmt_pb *b, unsigned int field, const uint64_t *v,
		   size_t n);

/**
 * kmt_pb_free() - release a message
 * @b: the message, left empty
 */
void kmt_pb_free(struct kmt_pb *b);

#endif /* __KMEMTRACE_PROTOBUF_H */
