// SPDX-License-Identifier: GPL-2.0
/*
 * failnth N FILE STRING - write STRING to FILE with the N-th slab or page
 * allocation of that write() failed (fault injection's fail-nth, see
 * Documentation/fault-injection/fault-injection.rst), and print
 *
 *	write 0|ERRNO-NAME injected 0|1
 *
 * "injected 1" when the write made N allocations or more, so that the
 * N-th failed; "injected 0" when it made fewer (N is past its last).
 * FILE is opened, and the fail-nth file written, before the counting
 * starts: only the write() of STRING counts.  Exits 2 on a usage error
 * or if the fault injection files cannot be used.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char path[64], buf[32];
	int nth, fd, rc = 0;
	ssize_t n;

	if (argc != 4 || atoi(argv[1]) <= 0) {
		fprintf(stderr, "usage: failnth N FILE STRING\n");
		return 2;
	}
	snprintf(path, sizeof(path), "/proc/self/task/%d/fail-nth", gettid());
	nth = open(path, O_RDWR);
	fd = open(argv[2], O_WRONLY);
	if (nth < 0 || fd < 0) {
		perror(nth < 0 ? path : argv[2]);
		return 2;
	}
	n = strlen(argv[1]);
	if (write(nth, argv[1], n) != n) {
		perror("failnth: fail-nth");
		return 2;
	}
	if (write(fd, argv[3], strlen(argv[3])) < 0)
		rc = errno;
	/* 0 once the N-th allocation was failed, else what is left of N. */
	n = pread(nth, buf, sizeof(buf) - 1, 0);
	if (n <= 0) {
		perror("failnth: fail-nth");
		return 2;
	}
	buf[n] = 0;
	/* Not injected: stop counting before printing allocates. */
	if (atoi(buf) && write(nth, "0", 1) != 1) {
		perror("failnth: fail-nth");
		return 2;
	}
	printf("write %s injected %d\n", rc ? strerrorname_np(rc) : "0",
	       atoi(buf) == 0);
	return 0;
}
