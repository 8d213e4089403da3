/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace - small helpers shared by the commands
 */
#ifndef __KMEMTRACE_UTILS_H
#define __KMEMTRACE_UTILS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit status of a command line usage error. */
#define KMT_EXIT_USAGE	2

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

/* Whether this machine is big-endian. */
#define KMT_HOST_BIG_ENDIAN	(__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)

/* The kernel's __printf() and __packed; <linux/compiler.h> is not usable here. */
#define __kmt_attribute(x)	__attribute__((x))
#ifndef __printf
#define __printf(a, b)		__kmt_attribute(format(printf, a, b))
#endif
#ifndef __packed
#define __packed		__kmt_attribute(packed)
#endif

/**
 * add_u64_sat() - add to a 64-bit total, saturating instead of wrapping
 * @sum: the total; UINT64_MAX once a sum did not fit, and from then on
 * @v: what to add
 *
 * Totals of numbers read from a trace (seq gaps, bytes) can exceed 64
 * bits only in a corrupt trace, but then must not wrap around to a small
 * plausible number: callers keep the return value as an overflow flag
 * and show the total as such.
 *
 * Return: true if the sum did not fit in 64 bits.
 */
static inline bool add_u64_sat(uint64_t *sum, uint64_t v)
{
	if (!__builtin_add_overflow(*sum, v, sum))
		return false;
	*sum = UINT64_MAX;
	return true;
}

/**
 * kmt_err() - print "kmemtrace: MESSAGE\n" on stderr
 * @fmt: printf() format of the message, without the trailing newline
 */
__printf(1, 2) void kmt_err(const char *fmt, ...);

/**
 * kmt_err_hook() - call a function before each kmt_err() message
 * @fn: the function, e.g. one erasing a progress line; NULL for none
 */
void kmt_err_hook(void (*fn)(void));

/**
 * xmalloc() - malloc() that exits on failure
 * @size: bytes to allocate
 *
 * Return: the new memory, never NULL.
 */
void *xmalloc(size_t size);

/**
 * xcalloc() - calloc() that exits on failure
 * @nmemb: number of elements
 * @size: bytes per element
 *
 * Return: the new zeroed memory, never NULL.
 */
void *xcalloc(size_t nmemb, size_t size);

/**
 * kmt_cpu_relax() - tell the CPU a thread spins, waiting for another
 */
static inline void kmt_cpu_relax(void)
{
#if defined(__x86_64__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

/**
 * kmt_now_ns() - the time now, in ns of CLOCK_MONOTONIC
 *
 * Return: the time.
 */
uint64_t kmt_now_ns(void);

/**
 * xcalloc_lines() - zeroed memory in cache lines of its own
 * @size: bytes
 *
 * For what one thread writes often while another writes the memory
 * malloc() would put next to it (a shard's context of a consumer): no
 * cache line is shared.  free() releases it.
 *
 * Return: the new zeroed memory, never NULL.
 */
void *xcalloc_lines(size_t size);

/**
 * xrealloc() - realloc() that exits on failure
 * @ptr: memory to resize, or NULL
 * @size: new size in bytes
 *
 * Return: the resized memory, never NULL.
 */
void *xrealloc(void *ptr, size_t size);

/**
 * xalloc_table() - allocate zeroed memory for a big, randomly accessed table
 * @size: bytes to allocate
 *
 * Tables of 2 MiB or more get transparent huge pages where the kernel
 * gives them on request, which saves most of the TLB misses of random
 * lookups.  Every page is written before the table is returned: a page
 * first read maps the zero page, and its first write then flushes the
 * TLB of every CPU the process runs on (with -j, interrupting the other
 * threads once per page).
 *
 * Return: the new zeroed memory, never NULL; free it with xfree_table().
 */
void *xalloc_table(size_t size);

/**
 * xfree_table() - release what xalloc_table() allocated
 * @p: the table, or NULL
 * @size: the size it was allocated with
 */
void xfree_table(void *p, size_t size);

/**
 * xstrdup() - strdup() that exits on failure
 * @s: string to copy
 *
 * Return: the copy, never NULL.
 */
char *xstrdup(const char *s);

/**
 * xstrndup() - strndup() that exits on failure
 * @s: string to copy
 * @n: the most bytes to copy
 *
 * Return: the copy, never NULL.
 */
char *xstrndup(const char *s, size_t n);

/**
 * kmt_grow() - make room for one more element at the end of an array
 * @arr: the array, of @nr elements of @elem bytes, NULL when empty
 * @nr: the elements it holds
 * @size: the elements it has room for, doubled (from @first) when @nr
 *	  reaches it
 * @elem: the size of an element
 * @first: the room of the first allocation
 *
 * The one growth rule of the tool's arrays, which keep their elements
 * at their index.
 *
 * Return: the array, moved when it grew; never NULL.
 */
static inline void *kmt_grow(void *arr, size_t nr, size_t *size, size_t elem,
			     size_t first)
{
	if (nr < *size)
		return arr;
	*size = *size ? 2 * *size : first;
	return xrealloc(arr, *size * elem);
}

/**
 * struct kmt_strings - strings allocated together, freed together
 * @blocks: the memory they are in, 64 KiB or so a block
 * @nr: number of @blocks
 * @room: where the next string goes in the last block
 * @left: bytes left there
 *
 * Tables of many names (symbols, call sites) would spend as long in
 * malloc() and free() as in the rest of their work, and scatter the
 * names in memory.  Zero-initialised, it is empty.
 */
struct kmt_strings {
	char **blocks;
	size_t nr;
	char *room;
	size_t left;
};

/**
 * kmt_strings_add() - copy a string into a struct kmt_strings
 * @s: the strings
 * @str: the string, not NUL-terminated
 * @len: its length
 * @slack: bytes after its NUL that must be readable, as a reader that
 *	copies 16 bytes at a time reads past it
 *
 * Return: the copy, NUL-terminated, valid until kmt_strings_free().
 */
char *kmt_strings_add(struct kmt_strings *s, const char *str, size_t len,
		      size_t slack);

/**
 * kmt_strings_free() - release all the strings of a struct kmt_strings
 * @s: the strings, left empty
 */
void kmt_strings_free(struct kmt_strings *s);

/**
 * path_join() - build "DIR/NAME"
 * @dir: directory
 * @name: file name inside @dir
 *
 * Return: the new path, to be freed by the caller.
 */
char *path_join(const char *dir, const char *name);

/**
 * path_basename() - last component of a path, without modifying it
 * @path: the path
 *
 * Return: pointer into @path after its last '/'.
 */
const char *path_basename(const char *path);

/**
 * is_dir() - tell whether a path names a directory
 * @path: the path
 *
 * Return: 1 for a directory, 0 for anything else, -errno if stat() failed.
 */
int is_dir(const char *path);

/**
 * is_regular() - tell whether a path names a regular file
 * @path: the path; a symbolic link is followed
 *
 * Return: 1 for a regular file, 0 for anything else, -errno if stat()
 * failed.
 */
int is_regular(const char *path);

/**
 * write_all() - write a whole buffer, retrying short writes and EINTR
 * @fd: file descriptor
 * @buf: bytes to write
 * @len: number of bytes
 *
 * Return: 0 on success, -errno on failure.
 */
int write_all(int fd, const void *buf, size_t len);

/**
 * read_file() - read a whole file into memory
 * @path: file to read; works for files whose size stat() does not know,
 *	and reads a FIFO without a writer as empty rather than waiting
 * @buf: on success, the NUL-terminated contents, to be freed by the caller
 * @len: on success, the number of bytes read (without the NUL)
 *
 * Return: 0 on success, -errno on failure.
 */
int read_file(const char *path, char **buf, size_t *len);

/**
 * read_side_file() - read a file of a recording that may be absent
 * @dir: the recording's directory
 * @name: the file's name in it (tags, stacks, stats, ...)
 * @path: on success, the file's path, to be freed by the caller
 * @buf: on success, as read_file()
 * @len: on success, as read_file()
 *
 * A file that is there but cannot be read is reported (and ignored).
 *
 * Return: 0 on success; -ENOENT if the file is absent, another -errno if
 * it could not be read; nothing is left to free on failure.
 */
int read_side_file(const char *dir, const char *name, char **path,
		   char **buf, size_t *len);

/**
 * write_string() - replace the contents of a file by a string
 * @path: file to open with O_WRONLY | O_TRUNC; it must exist
 * @s: the new contents
 *
 * Return: 0 on success, -errno on failure.
 */
int write_string(const char *path, const char *s);

/**
 * write_file() - write a buffer to a file, creating or truncating it
 * @path: the file
 * @buf: what to write
 * @len: bytes of @buf
 *
 * Return: 0, or a negative errno (the file may be left partly written).
 */
int write_file(const char *path, const void *buf, size_t len);

/**
 * copy_file() - copy a file, creating or truncating the destination
 * @src: file to read
 * @dst: file to write
 *
 * Return: 0 on success, -errno on failure; kmt_err() names the failing file.
 */
int copy_file(const char *src, const char *dst);

/**
 * close_side_file() - finish writing a file of a recording
 * @f: the file, open for writing; closed here
 * @path: its name, for the message
 * @ret: 0, or the -errno of an error while writing it
 *
 * A file that could not be written whole is removed, so that no partial
 * side file is left to be taken for a whole one.
 *
 * Return: 0 on success, -errno on failure; kmt_err() names the file.
 */
int close_side_file(FILE *f, const char *path, int ret);

/**
 * hex_digit() - the value of a hexadecimal digit
 * @c: the character
 *
 * Return: 0-15, or -1 if @c is not a hexadecimal digit.
 */
static inline int hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/**
 * parse_hex() - parse hex digits without 0x, as the kernel's %lx prints
 * @s: the digits, not NUL-terminated
 * @len: their number, 1 to 16
 * @val: on success, the number
 *
 * Return: 0 on success, -EINVAL if @s is not 1 to 16 hex digits.
 */
int parse_hex(const char *s, size_t len, uint64_t *val);

/**
 * split_list() - split a comma-separated list in place
 * @s: the list; its commas become NULs
 * @items: where to point at the items
 * @max: the room in @items
 *
 * Return: the number of items, which may be more than @max: only the
 * first @max are in @items.
 */
size_t split_list(char *s, char **items, size_t max);

/**
 * parse_ns() - parse a duration or a time stamp
 * @s: nanoseconds, or a decimal number with a unit: ns, us, ms or s
 * @ns: on success, the nanoseconds
 *
 * Return: 0 on success, -EINVAL if @s is not one, or overflows.
 */
int parse_ns(const char *s, uint64_t *ns);

/**
 * parse_u64() - parse an unsigned number, decimal or 0x hexadecimal
 * @s: the text; surrounding blanks and one trailing newline are allowed
 * @val: on success, the number
 *
 * Return: 0 on success, -EINVAL if @s is not a number.
 */
int parse_u64(const char *s, uint64_t *val);

/**
 * read_u64_file() - read a file holding one unsigned number
 * @path: the file, e.g. "DIR/dropped"
 * @val: on success, the number
 *
 * Return: 0 on success, -errno on failure, -EINVAL for bad contents.
 */
int read_u64_file(const char *path, uint64_t *val);

#endif /* __KMEMTRACE_UTILS_H */
