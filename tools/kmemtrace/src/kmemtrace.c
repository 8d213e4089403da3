// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace - record and analyse the kernel allocations traced by kmemtrace
 *
 * "kmemtrace COMMAND ..." runs one of the commands below; each command
 * lives in its own file with its own usage() and parse_args().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comms.h"
#include "header.h"
#include "kmemtrace.h"
#include "trace.h"
#include "utils.h"

#ifndef VERSION
#define VERSION "unknown"
#endif

struct command {
	const char *name;
	int (*main)(int argc, char **argv);
	const char *help;
};

static const struct command commands[] = {
	{ "record",	record_main,	"record allocations and frees into a directory" },
	{ "report",	report_main,	"summarize a recorded trace" },
	{ "check",	check_main,	"validate the event streams of a recorded trace" },
	{ "dump",	dump_main,	"print every recorded event as one line of text" },
	{ "plot",	plot_main,	"draw a recorded trace as an SVG picture" },
	{ "pprof",	pprof_main,	"write a recorded trace as a pprof heap profile" },
	{ "ctf",	ctf_main,	"make a recorded trace readable by CTF readers" },
};

static void kmemtrace_usage(int status)
{
	FILE *out = status ? stderr : stdout;
	size_t i;

	fprintf(out, "kmemtrace version %s\n\n", VERSION);
	fprintf(out, "  usage: kmemtrace COMMAND [OPTIONS] [ARGS]\n\n");
	fprintf(out, "  commands:\n");
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(out, "     %-7s - %s\n", commands[i].name, commands[i].help);
	fprintf(out, "\n  options:\n");
	fprintf(out, "     -h/--help     print this help\n");
	fprintf(out, "     -V/--version  print the version\n\n");
	fprintf(out, "  \"kmemtrace COMMAND --help\" describes a command.\n");
	fprintf(out, "  Exit status: 0 on success, 1 on errors, 2 on usage errors.\n");
	exit(status);
}

/* The version, and the versions of the formats it reads and writes. */
static void kmemtrace_version(void)
{
	printf("kmemtrace version %s\n", VERSION);
	printf("reads event ABI %d to %d\n", KMT_ABI_V1, KMEMTRACE_ABI_VERSION);
	printf("files: header v%d, comms v%d; report output v%d\n",
	       KMT_HEADER_VERSION, KMT_COMMS_VERSION, KMT_REPORT_VERSION);
}

int main(int argc, char **argv)
{
	char prog[64];
	size_t i;

	if (argc < 2)
		kmemtrace_usage(KMT_EXIT_USAGE);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		kmemtrace_usage(0);
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		kmemtrace_version();
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(commands); i++) {
		if (strcmp(argv[1], commands[i].name))
			continue;
		/* getopt_long() names the program in its messages. */
		snprintf(prog, sizeof(prog), "kmemtrace %s", commands[i].name);
		argv[1] = prog;
		return commands[i].main(argc - 1, argv + 1);
	}
	kmt_err("unknown command '%s'", argv[1]);
	kmemtrace_usage(KMT_EXIT_USAGE);
	return KMT_EXIT_USAGE;
}
