/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace - tables printed as text, JSON or CSV
 *
 * Every view of "kmemtrace report" but the summary builds tables: named
 * columns of typed cells.  One printer writes them as aligned text for
 * people, or as JSON or CSV for programs, so that the three always hold
 * the same data.
 */
#ifndef __KMEMTRACE_TABLE_H
#define __KMEMTRACE_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "utils.h"

/**
 * enum kmt_cell_type - how a column's cells are stored and shown
 * @KMT_U64: unsigned number; KMT_OVERFLOW for a sum that did not fit in
 *	64 bits: "overflow" in text, empty in CSV, null in JSON
 * @KMT_S64: signed number
 * @KMT_HEX: unsigned number, "0x..." in text and CSV, a string in JSON
 * @KMT_PCT: percentage, a double, "12.3%" in text; below 0 for unknown:
 *	"?" in text, empty in CSV, null in JSON
 * @KMT_NS: duration in nanoseconds, "1.23ms" in text, a number elsewhere;
 *	KMT_NONE for none: "-" in text, empty in CSV, null in JSON
 * @KMT_STR: string; NULL is "-" in text, empty in CSV, null in JSON
 * @KMT_BAR: histogram bar: a double from 0 to 1, text only
 */
enum kmt_cell_type {
	KMT_U64,
	KMT_S64,
	KMT_HEX,
	KMT_PCT,
	KMT_NS,
	KMT_STR,
	KMT_BAR,
};

/**
 * struct kmt_col - a column
 * @name: name, the header in text and CSV and the key in JSON
 * @type: type of the cells
 * @width: minimum width in text
 */
struct kmt_col {
	const char *name;
	enum kmt_cell_type type;
	int width;
};

/* A KMT_U64 sum that saturated (add_u64_sat()). */
#define KMT_OVERFLOW	UINT64_MAX

/* A KMT_NS cell without a duration. */
#define KMT_NONE	UINT64_MAX

/* A column of @type, and one at least @width wide in text. */
#define KMT_COL(n, t)		{ .name = (n), .type = (t) }
#define KMT_COLW(n, t, w)	{ .name = (n), .type = (t), .width = (w) }

/**
 * union kmt_cell - one cell, of its column's type
 * @u: for KMT_U64 and KMT_HEX
 * @s: for KMT_S64
 * @d: for KMT_PCT and KMT_BAR
 * @str: for KMT_STR, owned by the table
 */
union kmt_cell {
	uint64_t u;
	int64_t s;
	double d;
	char *str;
};

/**
 * struct kmt_table - a table being filled
 * @name: name, the key of the table in JSON and CSV
 * @title: what text output prints above the table, or NULL
 * @cols: the columns
 * @nr_cols: number of columns
 * @cells: the cells, row after row
 * @nr_rows: number of rows
 * @size: rows @cells has room for
 */
struct kmt_table {
	const char *name;
	char *title;
	const struct kmt_col *cols;
	size_t nr_cols;
	union kmt_cell *cells;
	size_t nr_rows;
	size_t size;
};

/**
 * enum kmt_format - output format
 * @KMT_TEXT: aligned columns
 * @KMT_JSON: one JSON document
 * @KMT_CSV: comma-separated values, a "# NAME" line before each table
 */
enum kmt_format {
	KMT_TEXT,
	KMT_JSON,
	KMT_CSV,
};

/**
 * kmt_table_init() - start a table
 * @t: the table
 * @name: its name
 * @cols: its columns, which must outlive the table
 * @nr_cols: number of @cols
 */
void kmt_table_init(struct kmt_table *t, const char *name,
		    const struct kmt_col *cols, size_t nr_cols);

/**
 * kmt_table_title() - set the title text output prints
 * @t: the table
 * @fmt: printf() format of the title
 */
__printf(2, 3) void kmt_table_title(struct kmt_table *t, const char *fmt, ...);

/**
 * kmt_table_row() - add a row
 * @t: the table
 *
 * Return: the cells of the new row, zeroed, to be filled in.
 */
union kmt_cell *kmt_table_row(struct kmt_table *t);

/**
 * kmt_cell_str() - set a string cell
 * @c: the cell
 * @s: the string, copied; NULL for none
 */
void kmt_cell_str(union kmt_cell *c, const char *s);

/**
 * kmt_table_free() - release a table
 * @t: the table
 */
void kmt_table_free(struct kmt_table *t);

/**
 * struct kmt_out - where tables go
 * @f: the stream
 * @format: the format
 * @nr: number of tables or objects written, for separators
 * @depth: JSON objects open
 */
struct kmt_out {
	FILE *f;
	enum kmt_format format;
	size_t nr[8];
	int depth;
};

/**
 * kmt_out_begin() - start the output
 * @o: the output
 * @f: the stream
 * @format: the format; JSON opens its top-level object
 */
void kmt_out_begin(struct kmt_out *o, FILE *f, enum kmt_format format);

/**
 * kmt_out_object() - open a JSON object as a member of the current one
 * @o: the output
 * @name: the member name
 *
 * Text and CSV ignore objects.
 */
void kmt_out_object(struct kmt_out *o, const char *name);

/**
 * kmt_out_close() - close the JSON object kmt_out_object() opened
 * @o: the output
 */
void kmt_out_close(struct kmt_out *o);

/**
 * kmt_out_u64() - a number member of the current JSON object
 * @o: the output
 * @name: the member name
 * @v: the number
 *
 * Text and CSV ignore members.
 */
void kmt_out_u64(struct kmt_out *o, const char *name, uint64_t v);

/**
 * kmt_out_str() - a string member of the current JSON object
 * @o: the output
 * @name: the member name
 * @s: the string, NULL for null
 */
void kmt_out_str(struct kmt_out *o, const char *name, const char *s);

/**
 * kmt_out_table() - print a table
 * @o: the output
 * @t: the table; in text, a blank line, the title, the header and the
 *	rows; in JSON, an array of objects named after the table, one per
 *	row; in CSV, a "# NAME" line, the header and the rows, and a blank
 *	line between tables
 */
void kmt_out_table(struct kmt_out *o, const struct kmt_table *t);

/**
 * kmt_out_end() - finish the output, closing JSON's top-level object
 * @o: the output
 */
void kmt_out_end(struct kmt_out *o);

/**
 * kmt_format_ns() - a duration in nanoseconds as text
 * @ns: the duration
 * @buf: where to write "0ns", "830ns", "1.25us", "12.0ms", "3.20s"...
 *	three significant digits
 * @len: size of @buf
 */
void kmt_format_ns(uint64_t ns, char *buf, size_t len);

#endif /* __KMEMTRACE_TABLE_H */
