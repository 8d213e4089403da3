/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace - command line options described once, for getopt_long() and
 * for the help text
 */
#ifndef __KMEMTRACE_OPTS_H
#define __KMEMTRACE_OPTS_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

/**
 * struct kmt_opt - one option of a command
 * @name: the long name, without "--"
 * @val: the short option letter, or a value from 256 up for none
 * @arg: the name of the argument in the help text, NULL for none
 * @help: what it does; "\n" starts a continuation line
 */
struct kmt_opt {
	const char *name;
	int val;
	const char *arg;
	const char *help;
};

/**
 * kmt_opts_getopt() - the arguments getopt_long() needs
 * @opts: the options
 * @nr: number of @opts
 * @lo: array of @nr + 1 entries to fill, the last one zeroed
 * @so: string of 2 * @nr + 1 bytes to fill with the short options
 */
void kmt_opts_getopt(const struct kmt_opt *opts, size_t nr, struct option *lo,
		     char *so);

/**
 * kmt_opts_usage() - print the options as the help text lists them
 * @f: the stream
 * @opts: the options
 * @nr: number of @opts
 */
void kmt_opts_usage(FILE *f, const struct kmt_opt *opts, size_t nr);

/**
 * kmt_opts_join() - the options of two tables in one
 * @a: the first table
 * @na: number of entries of @a
 * @b: the second table
 * @nb: number of entries of @b
 * @n: set to @na + @nb
 *
 * Return: the new table, to be freed by the caller.
 */
struct kmt_opt *kmt_opts_join(const struct kmt_opt *a, size_t na,
			      const struct kmt_opt *b, size_t nb, size_t *n);

/**
 * struct kmt_getopt - getopt_long()'s arguments for a command's options
 * @opts: its own options and the filters', in one table
 * @lo: the long options, for getopt_long()
 * @so: the short options, for getopt_long()
 */
struct kmt_getopt {
	struct kmt_opt *opts;
	struct option *lo;
	char *so;
};

/**
 * kmt_getopt_init() - getopt_long()'s arguments for two option tables
 * @g: filled in; free with kmt_getopt_free()
 * @a: the command's options
 * @na: number of entries of @a
 * @b: the options it shares (the filters'), NULL for none
 * @nb: number of entries of @b
 */
void kmt_getopt_init(struct kmt_getopt *g, const struct kmt_opt *a, size_t na,
		     const struct kmt_opt *b, size_t nb);

/**
 * kmt_getopt_free() - free what kmt_getopt_init() allocated
 * @g: as kmt_getopt_init() filled it
 */
void kmt_getopt_free(struct kmt_getopt *g);

/* The most threads -j starts. */
#define KMT_MAX_JOBS	64

/**
 * kmt_cpus() - the number of CPUs the process may run on, at least 1
 *
 * Return: the number.
 */
unsigned int kmt_cpus(void);

/**
 * kmt_parse_jobs() - the number of threads of -j N, or the default
 * @arg: N, or NULL for the default: the CPUs the process may run on
 * @jobs: where to store the number
 *
 * Return: 0, or -1 when @arg is not a number from 1 to KMT_MAX_JOBS.
 */
int kmt_parse_jobs(const char *arg, unsigned int *jobs);

#endif /* __KMEMTRACE_OPTS_H */
