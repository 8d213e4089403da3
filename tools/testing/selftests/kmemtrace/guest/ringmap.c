// SPDX-License-Identifier: GPL-2.0
/*
 * ringmap CPUFILE - read a kmemtrace cpuN buffer through mmap(), as
 * kmemtrace record does, and check the interface on the way: the positions
 * KMEMTRACE_IOC_POS gives, the mappings the file refuses (writable, of the
 * wrong length, at an offset), the hand-backs KMEMTRACE_IOC_CONSUME refuses (not whole
 * events, more than written), and unknown ioctls.  Every event between
 * tail and head must be whole (magic, ABI) with consecutive sequence
 * numbers.  Prints "events N first_seq S last_seq L", then hands the
 * events back; exits 1 with a message on the first failed check.
 *
 * Built statically into the test initramfs, as chrt is.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/kmemtrace.h>

static void fail(const char *what)
{
	fprintf(stderr, "ringmap: %s (errno %d: %s)\n", what, errno,
		strerror(errno));
	exit(1);
}

static void expect_errno(long ret, int want, const char *what)
{
	if (ret != -1 || errno != want) {
		fprintf(stderr, "ringmap: %s: returned %ld, errno %d, expected errno %d\n",
			what, ret, ret == -1 ? errno : 0, want);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	struct kmemtrace_ring_pos pos, after;
	unsigned long long first = 0, prev = 0, n = 0;
	struct kmemtrace_event ev;
	unsigned char *map;
	__u64 bytes, off;
	long page = sysconf(_SC_PAGESIZE);
	int fd, rw;

	if (argc != 2) {
		fprintf(stderr, "usage: ringmap CPUFILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0)
		fail(argv[1]);
	if (ioctl(fd, KMEMTRACE_IOC_POS, &pos))
		fail("KMEMTRACE_IOC_POS");
	if (!pos.size || pos.size % KMEMTRACE_EVENT_SIZE ||
	    pos.size > pos.map_size || pos.map_size % page ||
	    pos.head < pos.tail || pos.head - pos.tail > pos.size) {
		fprintf(stderr,
			"ringmap: bad positions: head %llu tail %llu size %llu map_size %llu\n",
			(unsigned long long)pos.head, (unsigned long long)pos.tail,
			(unsigned long long)pos.size, (unsigned long long)pos.map_size);
		return 1;
	}
	expect_errno(ioctl(fd, _IO(KMEMTRACE_IOC_MAGIC, 9)), ENOTTY,
		     "unknown ioctl");
	/* Read-only opens are refused by the VFS, others by the file. */
	expect_errno((long)mmap(NULL, pos.map_size, PROT_READ | PROT_WRITE,
				MAP_SHARED, fd, 0), EACCES, "writable mmap");
	rw = open(argv[1], O_RDWR);
	if (rw < 0)
		fail("open for writing (root may)");
	expect_errno((long)mmap(NULL, pos.map_size, PROT_READ | PROT_WRITE,
				MAP_SHARED, rw, 0), EPERM,
		     "writable mmap of a read-write open");
	close(rw);
	expect_errno((long)mmap(NULL, pos.map_size - page, PROT_READ,
				MAP_SHARED, fd, 0), EINVAL, "short mmap");
	/* Past the buffer is kernel memory: only the buffer, from its start. */
	expect_errno((long)mmap(NULL, pos.map_size, PROT_READ, MAP_SHARED,
				fd, page), EINVAL, "mmap at an offset");
	expect_errno((long)mmap(NULL, pos.map_size, PROT_READ, MAP_SHARED,
				fd, pos.map_size), EINVAL, "mmap past the buffer");
	map = mmap(NULL, pos.map_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		fail("mmap");
	expect_errno(mprotect(map, page, PROT_READ | PROT_WRITE), EACCES,
		     "mprotect to writable");
	for (off = pos.tail; off < pos.head; off += KMEMTRACE_EVENT_SIZE) {
		memcpy(&ev, map + off % pos.size, sizeof(ev));
		if (ev.magic != KMEMTRACE_MAGIC ||
		    ev.abi_version != KMEMTRACE_ABI_VERSION) {
			fprintf(stderr, "ringmap: no event at stream offset %llu\n",
				(unsigned long long)off);
			return 1;
		}
		if (n && ev.seq != prev + 1) {
			fprintf(stderr, "ringmap: seq %llu after %llu\n",
				(unsigned long long)ev.seq, prev);
			return 1;
		}
		if (!n)
			first = ev.seq;
		prev = ev.seq;
		n++;
	}
	printf("events %llu first_seq %llu last_seq %llu\n", n, first, prev);
	bytes = 1;
	expect_errno(ioctl(fd, KMEMTRACE_IOC_CONSUME, &bytes), EINVAL,
		     "consume 1 byte");
	bytes = pos.head - pos.tail + KMEMTRACE_EVENT_SIZE;
	expect_errno(ioctl(fd, KMEMTRACE_IOC_CONSUME, &bytes), EINVAL,
		     "consume more than written");
	bytes = pos.head - pos.tail;
	if (ioctl(fd, KMEMTRACE_IOC_CONSUME, &bytes))
		fail("KMEMTRACE_IOC_CONSUME");
	if (ioctl(fd, KMEMTRACE_IOC_POS, &after))
		fail("KMEMTRACE_IOC_POS");
	if (after.tail != pos.head) {
		fprintf(stderr, "ringmap: tail %llu after handing back up to %llu\n",
			(unsigned long long)after.tail, (unsigned long long)pos.head);
		return 1;
	}
	munmap(map, pos.map_size);
	close(fd);
	return 0;
}
