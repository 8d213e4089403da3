// SPDX-License-Identifier: GPL-2.0
/*
 * macro - the macro workloads of the benchmark, timed in guest nanoseconds
 * (under -icount, guest instructions).
 *
 *   macro messaging GROUPS LOOPS
 *	hackbench's (perf bench sched messaging's) pattern with processes and
 *	socketpairs: each group has 20 senders and 20 receivers, and every
 *	sender writes LOOPS 100-byte messages to each receiver of its group.
 *   macro time CMD [ARGS...]
 *	runs CMD and waits for it.
 *
 * Prints the elapsed CLOCK_MONOTONIC nanoseconds; exits 1 if a process
 * or CMD failed.  Built statically into the test initramfs, as chrt is.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FDS	20	/* senders and receivers per group, as hackbench */
#define MSG	100	/* bytes per message, as hackbench */

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "macro: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int write_all(int fd, const char *buf, size_t n)
{
	ssize_t w;

	while (n) {
		w = write(fd, buf, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		buf += w;
		n -= w;
	}
	return 0;
}

static void receiver(int fd, unsigned long bytes)
{
	char buf[MSG];
	ssize_t n;

	while (bytes) {
		n = read(fd, buf, bytes < sizeof(buf) ? bytes : sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(1);
		bytes -= n;
	}
	_exit(0);
}

static void sender(const int *fds, unsigned long loops)
{
	char msg[MSG];
	unsigned long i;
	int j;

	memset(msg, 'k', sizeof(msg));
	for (i = 0; i < loops; i++)
		for (j = 0; j < FDS; j++)
			if (write_all(fds[j], msg, sizeof(msg)))
				_exit(1);
	_exit(0);
}

static int messaging(unsigned long groups, unsigned long loops)
{
	unsigned long g, started = 0;
	int out[FDS], sv[2], j, status, failed = 0;
	pid_t pid;

	for (g = 0; g < groups; g++) {
		for (j = 0; j < FDS; j++) {
			if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
				die("socketpair");
			pid = fork();
			if (pid < 0)
				die("fork");
			if (!pid) {
				close(sv[1]);
				receiver(sv[0], loops * FDS * MSG);
			}
			started++;
			close(sv[0]);
			out[j] = sv[1];
		}
		for (j = 0; j < FDS; j++) {
			pid = fork();
			if (pid < 0)
				die("fork");
			if (!pid)
				sender(out, loops);
			started++;
		}
		for (j = 0; j < FDS; j++)
			close(out[j]);
	}
	while (started--) {
		if (wait(&status) < 0)
			die("wait");
		failed |= !WIFEXITED(status) || WEXITSTATUS(status);
	}
	return failed;
}

int main(int argc, char **argv)
{
	unsigned long long start = now_ns();
	int status, failed;
	pid_t pid;

	if (argc == 4 && !strcmp(argv[1], "messaging")) {
		failed = messaging(strtoul(argv[2], NULL, 0),
				   strtoul(argv[3], NULL, 0));
	} else if (argc >= 3 && !strcmp(argv[1], "time")) {
		pid = fork();
		if (pid < 0)
			die("fork");
		if (!pid) {
			execvp(argv[2], argv + 2);
			_exit(127);
		}
		if (waitpid(pid, &status, 0) < 0)
			die("waitpid");
		failed = !WIFEXITED(status) || WEXITSTATUS(status);
	} else {
		fprintf(stderr,
			"usage: macro messaging GROUPS LOOPS | macro time CMD [ARGS...]\n");
		return 2;
	}
	printf("%llu\n", now_ns() - start);
	return failed;
}
