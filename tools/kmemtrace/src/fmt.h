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

/* Longest output of fmt_u64(), fmt_x64() and fmt_s64(), and more. */
#define FMT_U64_MAX	24

/* "00" to "99", to write two digits at a time. */
#define FMT_TENS(t)	{ t, '0' }, { t, '1' }, { t, '2' }, { t, '3' }, \
			{ t, '4' }, { t, '5' }, { t, '6' }, { t, '7' }, \
			{ t, '8' }, { t, '9' }
static const char fmt_digits2[100][2] = {
	FMT_TENS('0'), FMT_TENS('1'), FMT_TENS('2'), FMT_TENS('3'),
	FMT_TENS('4'), FMT_TENS('5'), FMT_TENS('6'), FMT_TENS('7'),
	FMT_TENS('8'), FMT_TENS('9'),
};

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
		memcpy(p, fmt_digits2[i], 2);
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, fmt_digits2[v], 2);
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

/* Write @v as "%llx" would. */
static inline char *fmt_x64(char *p, uint64_t v)
{
	static const char hex[] = "0123456789abcdef";
	unsigned int len = v ? (67 - __builtin_clzll(v)) / 4 : 1;
	char *end = p + len;

	p = end;
	while (v >= 0x100) {
		p -= 2;
		p[0] = hex[(v >> 4) & 0xf];
		p[1] = hex[v & 0xf];
		v >>= 8;
	}
	if (v >= 0x10) {
		*--p = hex[v & 0xf];
		v >>= 4;
	}
	*--p = hex[v];
	return end;
}

/* Copy the string @s of @len bytes, without its NUL. */
static inline char *fmt_mem(char *p, const char *s, size_t len)
{
	memcpy(p, s, len);
	return p + len;
}

/* Copy a string literal, without its NUL. */
#define fmt_lit(p, s)	fmt_mem(p, s, sizeof(s) - 1)

#endif /* __KMEMTRACE_FMT_H */
