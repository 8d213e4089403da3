/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace - fast number formatting for the commands that print every
 * event
 *
 * printf() parses its format for every call, which costs more than the
 * rest of "kmemtrace dump" together.  These write what "%llu", "%llx"
 * and "%d" would, and return the end of what they wrote.  They turn eight
 * decimal digits at a time into text with a few multiplications on a
 * 64-bit word, rather than a division per digit, and sixteen hexadecimal
 * digits with a few SSE2 instructions where there are.  The end of each
 * number is computed apart from its digits, so that the numbers of a line
 * are written side by side rather than one after the other.
 */
#ifndef __KMEMTRACE_FMT_H
#define __KMEMTRACE_FMT_H

#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/*
 * Room for the output of fmt_u64(), fmt_x64() or fmt_s64(): they may
 * write past the end of the number, not past this.
 */
#define FMT_U64_MAX	24

/* Store the 8 bytes of @v, the lowest first. */
static inline void fmt_store_le(char *p, uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	memcpy(p, &v, 8);
}

/* "0 " to "9 ", then "10" to "99": a number below 100, digits first. */
static const char fmt_small[] = {
	"0 1 2 3 4 5 6 7 8 9 101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
};

/* '0' in every byte: digits of 0 to 9 plus this are text. */
#define FMT_ZEROS	0x3030303030303030ULL

/*
 * The 8 decimal digits of @v, below 10^8, as bytes of 0 to 9, the highest
 * digit in the lowest byte: "abcdefgh" is split into abcd and efgh, each
 * of those into two pairs of digits, and each pair into two digits, in
 * all the lanes of the word at once.
 */
static inline uint64_t fmt_dec8(uint32_t v)
{
	uint64_t x = (v / 10000) | (uint64_t)(v % 10000) << 32;
	uint64_t hi;

	/* abcd -> ab and cd, in 16-bit lanes: x * 10486 >> 20 is x / 100. */
	hi = (x * 10486 >> 20) & 0x0000007f0000007fULL;
	x = hi | (x - hi * 100) << 16;
	/* ab -> a and b, in 8-bit lanes: x * 103 >> 10 is x / 10. */
	hi = (x * 103 >> 10) & 0x000f000f000f000fULL;
	return hi | (x - hi * 10) << 8;
}

/* Powers of ten, for the number of digits. */
static const uint64_t fmt_pow10[20] = {
	1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
	10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
	100000000000ULL, 1000000000000ULL, 10000000000000ULL,
	100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
	100000000000000000ULL, 1000000000000000000ULL,
	10000000000000000000ULL,
};

/* Number of decimal digits of @v, without looking at the digits. */
static inline unsigned int fmt_u64_len(uint64_t v)
{
	/* log10(2) is about 1233 / 4096: a guess, one too high at most. */
	unsigned int t = (64 - __builtin_clzll(v | 1)) * 1233 >> 12;

	return t + 1 - ((v | 1) < fmt_pow10[t]);
}

/* Write the @len lowest of the 8 digits of @v, below 10^8. */
static inline char *fmt_dec8_tail(char *p, uint32_t v, unsigned int len)
{
	fmt_store_le(p, (fmt_dec8(v) + FMT_ZEROS) >> (8 * (8 - len)));
	return p + len;
}

/* fmt_u64() of a number of more than 8 digits, @len. */
static inline char *fmt_u64_long(char *p, uint64_t v, unsigned int len)
{
	uint64_t hi = v / 100000000;

	if (len <= 16) {
		p = fmt_dec8_tail(p, hi, len - 8);
	} else {
		p = fmt_dec8_tail(p, hi / 100000000, len - 16);
		fmt_store_le(p, fmt_dec8(hi % 100000000) + FMT_ZEROS);
		p += 8;
	}
	fmt_store_le(p, fmt_dec8(v % 100000000) + FMT_ZEROS);
	return p + 8;
}

/* fmt_u64() of a number of 3 digits or more. */
static inline char *fmt_u64_big(char *p, uint64_t v)
{
	unsigned int len = fmt_u64_len(v);

	if (len <= 8)
		return fmt_dec8_tail(p, v, len);
	return fmt_u64_long(p, v, len);
}

/* fmt_u64() of a number below 100. */
static inline char *fmt_u64_small(char *p, unsigned int v)
{
	memcpy(p, fmt_small + 2 * v, 2);
	return p + 1 + (v >= 10);
}

/*
 * Write @v as "%llu" would.  Most numbers of an event are small: CPU,
 * order, node, pid...  A macro, so that their case is inline wherever a
 * number is written, which compilers do not do for a function called
 * that often.
 */
#define fmt_u64(p, v) ({						\
	char *__fmt_p = (p);						\
	uint64_t __fmt_v = (v);						\
									\
	__fmt_v < 100 ? fmt_u64_small(__fmt_p, __fmt_v) :		\
			fmt_u64_big(__fmt_p, __fmt_v);			\
})

/* Write @v as "%lld" would. */
static inline char *fmt_s64(char *p, int64_t v)
{
	if (v >= 0)
		return fmt_u64(p, v);
	*p++ = '-';
	return fmt_u64(p, -(uint64_t)v);
}

#ifdef __SSE2__
/*
 * The 16 hex digits of @v as ASCII, in two words: @hi the first 8 digits,
 * the highest in the lowest byte, @lo the last 8.  Each byte of @v, the
 * highest first, is split into its two nibbles side by side in a vector.
 */
static inline void fmt_hex16(uint64_t v, uint64_t *hi, uint64_t *lo)
{
	__m128i x = _mm_cvtsi64_si128(__builtin_bswap64(v));
	__m128i mask = _mm_set1_epi8(0x0f);
	__m128i d = _mm_unpacklo_epi8(_mm_and_si128(_mm_srli_epi64(x, 4), mask),
				      _mm_and_si128(x, mask));
	__m128i letter = _mm_cmpgt_epi8(d, _mm_set1_epi8(9));

	d = _mm_add_epi8(d, _mm_set1_epi8('0'));
	d = _mm_add_epi8(d, _mm_and_si128(letter, _mm_set1_epi8('a' - '0' - 10)));
	*hi = _mm_cvtsi128_si64(d);
	*lo = _mm_cvtsi128_si64(_mm_unpackhi_epi64(d, d));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	*hi = __builtin_bswap64(*hi);
	*lo = __builtin_bswap64(*lo);
#endif
}
#else
/* The 8 hex digits of @v as ASCII, the highest digit in the lowest byte. */
static inline uint64_t fmt_hex8(uint32_t v)
{
	uint64_t x = v;

	/* Each nibble in a byte of its own, the lowest nibble last... */
	x = ((x & 0xffff0000ULL) >> 16) | (x & 0xffffULL) << 32;
	x = ((x & 0x0000ff000000ff00ULL) >> 8) | (x & 0x000000ff000000ffULL) << 16;
	x = ((x & 0x00f000f000f000f0ULL) >> 4) | (x & 0x000f000f000f000fULL) << 8;
	/* ... then as '0'-'9' and 'a'-'f'. */
	return x + FMT_ZEROS +
	       (((x + 0x0606060606060606ULL) >> 4) & 0x0101010101010101ULL) *
	       ('a' - '0' - 10);
}

static inline void fmt_hex16(uint64_t v, uint64_t *hi, uint64_t *lo)
{
	*hi = fmt_hex8(v >> 32);
	*lo = fmt_hex8(v);
}
#endif

/* Write @v as "%llx" would. */
static inline char *fmt_x64(char *p, uint64_t v)
{
	unsigned int len = (67 - __builtin_clzll(v | 1)) / 4;
	uint64_t hi, lo;

	fmt_hex16(v, &hi, &lo);
	if (len <= 8) {
		fmt_store_le(p, lo >> (8 * (8 - len)));
		return p + len;
	}
	fmt_store_le(p, hi >> (8 * (16 - len)));
	fmt_store_le(p + len - 8, lo);
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
