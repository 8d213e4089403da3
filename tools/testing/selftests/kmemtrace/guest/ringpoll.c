// SPDX-License-Identifier: GPL-2.0
/*
 * ringpoll CPU TRIALS - a reader waiting in poll() on kmemtrace's cpuN
 * buffer is woken when the buffer becomes readable, whatever the
 * geometry: a reader must never sleep on a full buffer.
 *
 * A child allocates on CPU (open and close of a file, each a struct
 * file) while this program, on another CPU, reads
 * /sys/kernel/debug/kmemtrace/cpuCPU with the ioctls: each trial lets the
 * child fill the buffer, stops it, hands back all but the most events
 * that do not make the file readable (poll()'s threshold, a sub-buffer's
 * worth) and waits in poll(), where another process lets the child go
 * on 20 ms later.  The writer used to wake its readers every
 * sub-buffer's worth from its last wake-up, whether anyone waited or
 * not, so a reader that waited for the rest could find the buffer full
 * before the writer's next wake-up: with two sub-buffers of 200 bytes,
 * one trial in three.  Prints "trials N asleep_full H"; exits 1 if a
 * poll() slept to its timeout (1 s) and the buffer was full by then.
 *
 * Built statically into the test initramfs, as ringmap is.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/kmemtrace.h>

static void fail(const char *what)
{
	perror(what);
	exit(1);
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		fail("sched_setaffinity");
}

static unsigned long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000ULL + t.tv_nsec / 1000000;
}

static unsigned long long fill(int fd)
{
	struct kmemtrace_ring_pos pos;

	if (ioctl(fd, KMEMTRACE_IOC_POS, &pos))
		fail("KMEMTRACE_IOC_POS");
	return pos.head - pos.tail;
}

int main(int argc, char **argv)
{
	unsigned long long ready, keep, bytes, i, t0, trials, asleep_full = 0;
	struct kmemtrace_ring_pos pos;
	unsigned int subbuf_size;
	struct pollfd pfd;
	char path[64];
	int cpu, fd, f, n, status;
	pid_t child, resumer;
	FILE *sz;

	if (argc != 3) {
		fprintf(stderr, "usage: ringpoll CPU TRIALS\n");
		return 2;
	}
	cpu = atoi(argv[1]);
	trials = strtoull(argv[2], NULL, 10);
	sz = fopen("/sys/kernel/debug/kmemtrace/subbuf_size", "r");
	if (!sz || fscanf(sz, "%u", &subbuf_size) != 1)
		fail("subbuf_size");
	fclose(sz);
	snprintf(path, sizeof(path), "/sys/kernel/debug/kmemtrace/cpu%d", cpu);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		fail(path);
	if (ioctl(fd, KMEMTRACE_IOC_POS, &pos))
		fail("KMEMTRACE_IOC_POS");
	/* poll()'s threshold, and the most events below it. */
	ready = subbuf_size < pos.size ? subbuf_size : pos.size;
	keep = (ready - 1) / KMEMTRACE_EVENT_SIZE * KMEMTRACE_EVENT_SIZE;

	child = fork();
	if (child < 0)
		fail("fork");
	if (!child) {
		pin(cpu);
		for (;;) {
			f = open("/", O_RDONLY);
			if (f >= 0)
				close(f);
		}
	}
	pin(!cpu);
	for (i = 0; i < trials; i++) {
		/* Full: what the child allocates now is dropped. */
		for (n = 0; fill(fd) < pos.size; n++) {
			if (n == 5000) {
				fprintf(stderr, "ringpoll: cpu%d not full after 5 s\n", cpu);
				kill(child, SIGKILL);
				return 1;
			}
			usleep(1000);
		}
		if (kill(child, SIGSTOP) || waitpid(child, NULL, WUNTRACED) < 0)
			fail("stopping the child");
		bytes = fill(fd) - keep;
		if (ioctl(fd, KMEMTRACE_IOC_CONSUME, &bytes))
			fail("KMEMTRACE_IOC_CONSUME");
		/* Let the child go on once this one waits in poll(). */
		resumer = fork();
		if (resumer < 0)
			fail("fork");
		if (!resumer) {
			usleep(20000);
			_exit(kill(child, SIGCONT) ? 1 : 0);
		}
		pfd.fd = fd;
		pfd.events = POLLIN;
		t0 = now_ms();
		n = poll(&pfd, 1, 1000);
		if (n < 0)
			fail("poll");
		/*
		 * poll() looks once more when its time is up: asleep all that
		 * time, it can still return the buffer readable (full).
		 */
		if (now_ms() - t0 >= 900 && fill(fd) == pos.size)
			asleep_full++;
		if (waitpid(resumer, &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			fail("resuming the child");
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	/* Hand everything back, for whoever reads next. */
	bytes = fill(fd);
	if (ioctl(fd, KMEMTRACE_IOC_CONSUME, &bytes))
		fail("KMEMTRACE_IOC_CONSUME");
	printf("trials %llu asleep_full %llu (ring %llu bytes, readable at %llu)\n",
	       trials, asleep_full, (unsigned long long)pos.size, ready);
	return asleep_full ? 1 : 0;
}
