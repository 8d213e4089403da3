// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace - small helpers shared by the commands
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "utils.h"

static void (*kmt_err_before)(void);

void kmt_err_hook(void (*fn)(void))
{
	kmt_err_before = fn;
}

void kmt_err(const char *fmt, ...)
{
	va_list ap;

	if (kmt_err_before)
		kmt_err_before();
	fputs("kmemtrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void out_of_memory(size_t size)
{
	kmt_err("out of memory allocating %zu bytes", size);
	exit(1);
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		out_of_memory(size);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		out_of_memory(nmemb * size);
	return p;
}

uint64_t kmt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

void *xcalloc_lines(size_t size)
{
	size_t len = (size + 63) & ~(size_t)63;
	void *p = aligned_alloc(64, len ? len : 64);

	if (!p)
		out_of_memory(size);
	memset(p, 0, len);
	return p;
}

void *xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);

	if (!p)
		out_of_memory(size);
	return p;
}

#define HUGE_PAGE_SIZE	(2UL << 20)

/* Round @size up to whole huge pages. */
static size_t table_size(size_t size)
{
	return (size + HUGE_PAGE_SIZE - 1) & ~(HUGE_PAGE_SIZE - 1);
}

/*
 * Fault the pages of a new table in by writing them.  Read first, a page
 * would map the zero page, and its first write replace it, which flushes
 * the TLB of every CPU the process runs on: with -j, the other threads'
 * CPUs, interrupted for each page of the table.
 */
static void table_populate(unsigned char *p, size_t len)
{
	size_t off;

#ifdef MADV_POPULATE_WRITE
	if (!madvise(p, len, MADV_POPULATE_WRITE))
		return;
#endif
	for (off = 0; off < len; off += 4096)
		p[off] = 0;
}

void *xalloc_table(size_t size)
{
	uintptr_t start, aligned;
	size_t len;
	void *p;

	if (size < HUGE_PAGE_SIZE) {
		/* calloc() maps a big one fresh, unwritten: write it too. */
		p = xcalloc(1, size);
		table_populate(p, size);
		if (size)
			((unsigned char *)p)[size - 1] = 0;
		return p;
	}
	/* Map one huge page more, to align the table on one. */
	len = table_size(size);
	p = mmap(NULL, len + HUGE_PAGE_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		out_of_memory(size);
	start = (uintptr_t)p;
	aligned = (start + HUGE_PAGE_SIZE - 1) & ~(HUGE_PAGE_SIZE - 1);
	if (aligned > start)
		munmap(p, aligned - start);
	munmap((void *)(aligned + len), start + HUGE_PAGE_SIZE - aligned);
#ifdef MADV_HUGEPAGE
	madvise((void *)aligned, len, MADV_HUGEPAGE);
#endif
	table_populate((unsigned char *)aligned, len);
	return (void *)aligned;
}

void xfree_table(void *p, size_t size)
{
	if (size < HUGE_PAGE_SIZE)
		free(p);
	else if (p)
		munmap(p, table_size(size));
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		out_of_memory(strlen(s) + 1);
	return p;
}

/* Bytes of the blocks of struct kmt_strings. */
#define STRINGS_BLOCK	(64 * 1024)

char *kmt_strings_add(struct kmt_strings *s, const char *str, size_t len,
		      size_t slack)
{
	size_t need = len + 1 + slack, size;
	char *p;

	if (need > s->left) {
		size = need > STRINGS_BLOCK ? need : STRINGS_BLOCK;
		s->blocks = xrealloc(s->blocks, (s->nr + 1) * sizeof(*s->blocks));
		s->room = xmalloc(size);
		s->blocks[s->nr++] = s->room;
		s->left = size;
	}
	p = s->room;
	memcpy(p, str, len);
	p[len] = '\0';
	/* The slack is the start of the next string, or unused bytes. */
	s->room += len + 1;
	s->left -= len + 1;
	return p;
}

void kmt_strings_free(struct kmt_strings *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		free(s->blocks[i]);
	free(s->blocks);
	memset(s, 0, sizeof(*s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);

	if (!p)
		out_of_memory(n + 1);
	return p;
}

char *path_join(const char *dir, const char *name)
{
	size_t len = strlen(dir) + strlen(name) + 2;
	char *p = xmalloc(len);

	snprintf(p, len, "%s/%s", dir, name);
	return p;
}

const char *path_basename(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

int is_dir(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	return S_ISDIR(st.st_mode);
}

int is_regular(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	return S_ISREG(st.st_mode);
}

int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= n;
	}
	return 0;
}

static int read_fd(int fd, char **buf, size_t *len)
{
	size_t size = 4096, used = 0;
	char *p = xmalloc(size);
	ssize_t n;

	for (;;) {
		if (size - used < 2) {
			size *= 2;
			p = xrealloc(p, size);
		}
		n = read(fd, p + used, size - used - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			free(p);
			return n;
		}
		if (!n)
			break;
		used += n;
	}
	p[used] = '\0';
	*buf = p;
	*len = used;
	return 0;
}

int read_file(const char *path, char **buf, size_t *len)
{
	int fd, ret;

	/*
	 * Opening a FIFO waits for a writer unless O_NONBLOCK; without it
	 * again, reading a FIFO that has none returns end of file.
	 */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fcntl(fd, F_SETFL, 0)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	ret = read_fd(fd, buf, len);
	close(fd);
	return ret;
}

int read_side_file(const char *dir, const char *name, char **path,
		   char **buf, size_t *len)
{
	int ret;

	*path = path_join(dir, name);
	ret = read_file(*path, buf, len);
	if (ret) {
		if (ret != -ENOENT)
			kmt_err("%s: %s, ignored", *path, strerror(-ret));
		free(*path);
		*path = NULL;
	}
	return ret;
}

int write_string(const char *path, const char *s)
{
	int fd, ret;

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = write_all(fd, s, strlen(s));
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

int write_file(const char *path, const void *buf, size_t len)
{
	int fd, ret;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	ret = write_all(fd, buf, len);
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

int copy_file(const char *src, const char *dst)
{
	size_t len;
	char *buf;
	int ret;

	ret = read_file(src, &buf, &len);
	if (ret) {
		kmt_err("%s: %s", src, strerror(-ret));
		return ret;
	}
	ret = write_file(dst, buf, len);
	if (ret)
		kmt_err("%s: %s", dst, strerror(-ret));
	free(buf);
	return ret;
}

int close_side_file(FILE *f, const char *path, int ret)
{
	if (ferror(f) && !ret)
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	if (ret) {
		kmt_err("%s: %s", path, strerror(-ret));
		unlink(path);
	}
	return ret;
}

int parse_hex(const char *s, size_t len, uint64_t *val)
{
	uint64_t v = 0;
	size_t i;
	int d;

	if (!len || len > 16)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		d = hex_digit(s[i]);
		if (d < 0)
			return -EINVAL;
		v = v << 4 | d;
	}
	*val = v;
	return 0;
}

size_t split_list(char *s, char **items, size_t max)
{
	size_t n = 0;
	char *save, *item;

	for (item = strtok_r(s, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		if (n < max)
			items[n] = item;
		n++;
	}
	return n;
}

int parse_ns(const char *s, uint64_t *ns)
{
	static const struct {
		const char *unit;
		uint64_t scale;
	} units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		{ "s", 1000000000 }, { "", 1 },
	};
	uint64_t whole = 0, frac = 0, div = 1;
	const char *p = s;
	size_t i;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++)
		if (__builtin_mul_overflow(whole, 10, &whole) ||
		    __builtin_add_overflow(whole, *p - '0', &whole))
			return -EINVAL;
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (div >= 1000000000)
				continue;
			frac = frac * 10 + (*p - '0');
			div *= 10;
		}
	}
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcmp(p, units[i].unit))
			continue;
		/* A fraction of a nanosecond is no time stamp. */
		if (units[i].scale == 1 && div > 1)
			return -EINVAL;
		if (__builtin_mul_overflow(whole, units[i].scale, ns) ||
		    __builtin_add_overflow(*ns, frac * units[i].scale / div, ns))
			return -EINVAL;
		return 0;
	}
	return -EINVAL;
}

int parse_u64(const char *s, uint64_t *val)
{
	unsigned long long v;
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -EINVAL;
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return -EINVAL;
	*val = v;
	return 0;
}

int read_u64_file(const char *path, uint64_t *val)
{
	size_t len;
	char *buf;
	int ret;

	ret = read_file(path, &buf, &len);
	if (ret)
		return ret;
	ret = parse_u64(buf, val);
	free(buf);
	return ret;
}
