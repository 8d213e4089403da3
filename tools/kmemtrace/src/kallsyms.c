// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace - kallsyms__parse() for builds outside a kernel tree
 *
 * Built only when the kernel's tools/lib/symbol/kallsyms.c is not found
 * (see the Makefile); it parses lines the same way: a hexadecimal
 * address, one space, the type letter, one space, and the name up to
 * the end of the line, at most KSYM_NAME_LEN bytes of it.
 */
#include <stdio.h>
#include <stdlib.h>

#include "kallsyms.h"
#include "utils.h"

#define KSYM_NAME_LEN	512

int kallsyms__parse(const char *filename, void *arg,
		    int (*process_symbol)(void *arg, const char *name,
					  char type, unsigned long long start))
{
	char name[KSYM_NAME_LEN + 1];
	unsigned long long start;
	int c, err = 0, digits;
	size_t i;
	char type;
	FILE *f;

	f = fopen(filename, "re");
	if (!f)
		return -1;
	while (!err) {
		start = 0;
		digits = 0;
		while ((c = getc(f)) != EOF && hex_digit(c) >= 0) {
			start = start << 4 | hex_digit(c);
			digits++;
		}
		if (c == EOF)
			break;
		if (!digits || c != ' ')
			goto skip;
		c = getc(f);
		if (c == EOF || c == '\n')
			continue;
		type = c;
		c = getc(f);
		if (c != ' ')
			goto skip;
		for (i = 0; i < KSYM_NAME_LEN; i++) {
			c = getc(f);
			if (c == EOF || c == '\n')
				break;
			name[i] = c;
		}
		name[i] = '\0';
		if (i == KSYM_NAME_LEN)
			while ((c = getc(f)) != EOF && c != '\n')
				;
		err = process_symbol(arg, name, type, start);
		continue;
skip:
		while (c != EOF && c != '\n')
			c = getc(f);
	}
	fclose(f);
	return err;
}
