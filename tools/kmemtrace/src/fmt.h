/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace - fast number formatting for the commands that print every
 * event
 *
 * printf() parses its format for every call, which costs more than the
 * rest of "kmemtrace dump" together.  These write what "%llu", "%llx"
 * and "%d" would, and return the end of what they wrote.
 */
#ifndef __KMEMTRACE_FMT_H
#define __KMEMTRACE_FMT_H

#include <stdint.h>
#include <string.h>

/*
 * Room for the output of fmt_u64(), fmt_x64() or fmt_s64(): they may
 * write past the end of the number, not past this.
 */
#define FMT_U64_MAX	24

/* "00" to "99", to write two digits at a time. */
static const char fmt_digits2[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899";

/* Number of decimal digits of @v. */
static inline unsigned int fmt_u64_len(uint64_t v)
{
	unsigned int n = 1;

	for (;;) {
		if (v < 10)
			return n;
		if (v < 100)
			return n + 1;
		if (v < 1000)
			return n + 2;
		if (v < 10000)
			return n + 3;
		v /= 10000;
		n += 4;
	}
}

/* Write @v as "%llu" would. */
static inline char *fmt_u64(char *p, uint64_t v)
{
	unsigned int len = fmt_u64_len(v);
	char *end = p + len;
	unsigned int i;

	p = end;
	while (v >= 100) {
		i = v % 100;
		v /= 100;
		p -= 2;
		memcpy(p, fmt_digits2 + 2 * i, 2);
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, fmt_digits2 + 2 * v, 2);
	} else {
		*--p = '0' + v;
	}
	return end;
}

/* Write @v as "%lld" would. */
static inline char *fmt_s64(char *p, int64_t v)
{
	if (v >= 0)
		return fmt_u64(p, v);
	*p++ = '-';
	return fmt_u64(p, -(uint64_t)v);
}

/* The 8 hex digits of @v, as bytes, the highest digit in the lowest byte. */
static inline uint64_t fmt_x32_digits(uint64_t v)
{
	/* Each nibble in a byte of its own, the lowest nibble first... */
	v = ((v & 0xffff0000ULL) << 16) | (v & 0xffffULL);
	v = ((v & 0x0000ff000000ff00ULL) << 8) | (v & 0x000000ff000000ffULL);
	v = ((v & 0x00f000f000f000f0ULL) << 4) | (v & 0x000f000f000f000fULL);
	/* ... then as '0'-'9' and 'a'-'f', the highest first in memory. */
	v += 0x3030303030303030ULL + (((v + 0x0606060606060606ULL) >> 4) &
				      0x0101010101010101ULL) * ('a' - '0' - 10);
	return __builtin_bswap64(v);
}

/*
 * Write @v as "%llx" would: 16 digits at once in a 128-bit number, the
 * leading zeros shifted out.  Writes 16 bytes whatever the length.
 */
static inline char *fmt_x64(char *p, uint64_t v)
{
	unsigned __int128 x;
	unsigned int len = v ? (67 - __builtin_clzll(v)) / 4 : 1;

	x = (unsigned __int128)fmt_x32_digits(v & 0xffffffff) << 64 |
	    fmt_x32_digits(v >> 32);
	x >>= 8 * (16 - len);
	memcpy(p, &x, 16);
	return p + len;
}

/* Copy the string @s of @len bytes, without its NUL. */
static inline char *fmt_mem(char *p, const char *s, size_t len)
{
	memcpy(p, s, len);
	return p + len;
}

/* Copy a string literal, without its NUL. */
#define fmt_lit(p, s)	fmt_mem(p, s, sizeof(s) - 1)

/*
 * Copy a string of @len bytes 16 at a time: @s must be readable, and @p
 * writable, up to @len rounded up to 16 bytes.
 */
static inline char *fmt_blocks(char *p, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i += 16)
		memcpy(p + i, s + i, 16);
	return p + len;
}

#endif /* __KMEMTRACE_FMT_H */
