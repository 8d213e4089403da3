// SPDX-License-Identifier: GPL-2.0
/*
 * comms-test - exercise the comms reader of kmemtrace (comms.c)
 *
 * usage: comms-test DIR QUERY...
 *
 * Loads DIR/comms with kmt_comms_load() and prints "problems N", then for
 * each QUERY a line: for "PID", "PID NAME" with the name
 * kmt_comms_lookup() gives, or "PID ?" for none; for "PID=NAME",
 * "PID=NAME yes" or "PID=NAME no" as kmt_comms_match() answers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comms.h"

int main(int argc, char **argv)
{
	struct kmt_comms c;
	const char *name;
	char *eq;
	uint32_t pid;
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: comms-test DIR QUERY...\n");
		return 2;
	}
	printf("problems %zu\n", kmt_comms_load(&c, argv[1], false));
	for (i = 2; i < argc; i++) {
		pid = strtoul(argv[i], NULL, 10);
		eq = strchr(argv[i], '=');
		if (eq) {
			printf("%s %s\n", argv[i],
			       kmt_comms_match(&c, pid, eq + 1) ? "yes" : "no");
			continue;
		}
		name = kmt_comms_lookup(&c, pid);
		printf("%s %s\n", argv[i], name ? name : "?");
	}
	kmt_comms_free(&c);
	return 0;
}
