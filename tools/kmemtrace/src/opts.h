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

#endif /* __KMEMTRACE_OPTS_H */
