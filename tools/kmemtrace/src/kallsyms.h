/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace - the kallsyms parser of the kernel's tools/lib/symbol
 *
 * The tool links tools/lib/symbol/kallsyms.c of the kernel tree it is
 * built in (or of KERNEL_SRC, see the Makefile), and src/kallsyms.c,
 * which implements the same function, only when that tree is not there.
 * This is the one function of tools/lib/symbol/kallsyms.h it uses,
 * declared without the tools/include headers that file needs, which
 * would shadow the system's <linux/types.h>; u64 is unsigned long long.
 */
#ifndef __KMEMTRACE_KALLSYMS_H
#define __KMEMTRACE_KALLSYMS_H

/**
 * kallsyms__parse() - call a function for each line of a kallsyms file
 * @filename: a /proc/kallsyms or System.map file
 * @arg: passed to @process_symbol
 * @process_symbol: called with the name (the rest of the line, so with
 *	"\t[MODULE]" for module symbols), the type letter and the address
 *	of every line that starts "ADDRESS TYPE "; a nonzero return stops
 *	the parse and is returned
 *
 * Return: 0, what @process_symbol returned, or -1 (errno set) if
 * @filename cannot be opened.
 */
int kallsyms__parse(const char *filename, void *arg,
		    int (*process_symbol)(void *arg, const char *name,
					  char type, unsigned long long start));

#endif /* __KMEMTRACE_KALLSYMS_H */
