// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace - tables printed as text, JSON or CSV
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"
#include "utils.h"

void kmt_table_init(struct kmt_table *t, const char *name,
		    const struct kmt_col *cols, size_t nr_cols)
{
	memset(t, 0, sizeof(*t));
	t->name = name;
	t->cols = cols;
	t->nr_cols = nr_cols;
}

void kmt_table_title(struct kmt_table *t, const char *fmt, ...)
{
	va_list ap;

	free(t->title);
	va_start(ap, fmt);
	if (vasprintf(&t->title, fmt, ap) < 0)
		t->title = NULL;
	va_end(ap);
}

union kmt_cell *kmt_table_row(struct kmt_table *t)
{
	union kmt_cell *row;

	t->cells = kmt_grow(t->cells, t->nr_rows, &t->size,
			    t->nr_cols * sizeof(*t->cells), 16);
	row = &t->cells[t->nr_rows++ * t->nr_cols];
	memset(row, 0, t->nr_cols * sizeof(*row));
	return row;
}

void kmt_cell_str(union kmt_cell *c, const char *s)
{
	c->str = s ? xstrdup(s) : NULL;
}

void kmt_table_free(struct kmt_table *t)
{
	size_t i, j;

	for (i = 0; i < t->nr_rows; i++)
		for (j = 0; j < t->nr_cols; j++)
			if (t->cols[j].type == KMT_STR)
				free(t->cells[i * t->nr_cols + j].str);
	free(t->cells);
	free(t->title);
	memset(t, 0, sizeof(*t));
}

void kmt_format_ns(uint64_t ns, char *buf, size_t len)
{
	static const struct {
		uint64_t scale;
		const char *unit;
	} units[] = {
		{ 1000000000, "s" }, { 1000000, "ms" }, { 1000, "us" },
	};
	double v;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (ns < units[i].scale)
			continue;
		v = (double)ns / units[i].scale;
		/* Three significant digits, more for long runs of seconds. */
		snprintf(buf, len, v >= 100 ? "%.0f%s" : v >= 10 ? "%.1f%s" :
			 "%.2f%s", v, units[i].unit);
		return;
	}
	snprintf(buf, len, "%lluns", (unsigned long long)ns);
}

/* ------------------------------------------------------------------ text */

#define BAR_WIDTH	40

/* A cell as text, in @buf or as a string of the table. */
static const char *cell_text(const struct kmt_col *col, const union kmt_cell *c,
			     char *buf, size_t len)
{
	int n, i;

	switch (col->type) {
	case KMT_U64:
		if (c->u == KMT_OVERFLOW)
			return "overflow";
		snprintf(buf, len, "%llu", (unsigned long long)c->u);
		break;
	case KMT_S64:
		snprintf(buf, len, "%lld", (long long)c->s);
		break;
	case KMT_HEX:
		snprintf(buf, len, "0x%llx", (unsigned long long)c->u);
		break;
	case KMT_PCT:
		if (c->d < 0)
			return "?";
		snprintf(buf, len, "%.1f%%", c->d);
		break;
	case KMT_NS:
		if (c->u == KMT_NONE)
			return "-";
		kmt_format_ns(c->u, buf, len);
		break;
	case KMT_STR:
		return c->str ? c->str : "-";
	case KMT_BAR:
		n = c->d * BAR_WIDTH + 0.5;
		n = n < 0 ? 0 : n > BAR_WIDTH ? BAR_WIDTH : n;
		/* At least one mark for a bucket that is not empty. */
		if (!n && c->d > 0)
			n = 1;
		buf[0] = '|';
		for (i = 0; i < BAR_WIDTH && i + 2 < (int)len; i++)
			buf[i + 1] = i < n ? '*' : ' ';
		buf[i + 1] = '|';
		buf[i + 2] = '\0';
		break;
	}
	return buf;
}

/* Strings go left, in the last column without padding. */
static void print_text(FILE *f, const struct kmt_table *t)
{
	size_t *width = xcalloc(t->nr_cols, sizeof(*width));
	const union kmt_cell *row;
	char buf[128];
	const char *s;
	size_t i, j, w;

	for (j = 0; j < t->nr_cols; j++) {
		width[j] = strlen(t->cols[j].name);
		if ((size_t)t->cols[j].width > width[j])
			width[j] = t->cols[j].width;
		for (i = 0; i < t->nr_rows; i++) {
			s = cell_text(&t->cols[j], &t->cells[i * t->nr_cols + j],
				      buf, sizeof(buf));
			w = strlen(s);
			if (w > width[j])
				width[j] = w;
		}
	}
	fputc('\n', f);
	if (t->title)
		fprintf(f, "%s\n", t->title);
	for (i = 0; i <= t->nr_rows; i++) {
		row = i ? &t->cells[(i - 1) * t->nr_cols] : NULL;
		for (j = 0; j < t->nr_cols; j++) {
			s = row ? cell_text(&t->cols[j], &row[j], buf, sizeof(buf)) :
				  t->cols[j].name;
			if (j)
				fputs(t->cols[j].type == KMT_STR ? "  " : " ", f);
			if (t->cols[j].type != KMT_STR && t->cols[j].type != KMT_BAR)
				fprintf(f, "%*s", (int)width[j], s);
			else if (j + 1 < t->nr_cols)
				fprintf(f, "%-*s", (int)width[j], s);
			else
				fputs(s, f);
		}
		fputc('\n', f);
	}
	free(width);
}

/* ------------------------------------------------------------------ JSON */

/*
 * The length of the UTF-8 sequence at @p (RFC 3629: no overlong form, no
 * surrogate, nothing above U+10FFFF), or 0 if @p does not start one.
 */
static size_t utf8_len(const unsigned char *p)
{
	unsigned int lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (*p < 0xc2 || *p > 0xf4)
		return 0;
	n = *p < 0xe0 ? 2 : *p < 0xf0 ? 3 : 4;
	if (*p == 0xe0)
		lo = 0xa0;
	else if (*p == 0xed)
		hi = 0x9f;
	else if (*p == 0xf0)
		lo = 0x90;
	else if (*p == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

/*
 * A JSON string: quotes, backslashes and control characters escaped, and
 * each byte that does not start a valid UTF-8 sequence replaced by
 * U+FFFD, as Go's encoding/json does, so that a task name that is not
 * UTF-8 still gives valid JSON.
 */
static void json_string(FILE *f, const char *s)
{
	const unsigned char *p;
	size_t n;

	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\') {
			fprintf(f, "\\%c", *p);
		} else if (*p < 0x20 || *p == 0x7f) {
			fprintf(f, "\\u%04x", *p);
		} else if (*p < 0x80) {
			fputc(*p, f);
		} else {
			n = utf8_len(p);
			if (!n) {
				fputs("\\ufffd", f);
				continue;
			}
			fwrite(p, 1, n, f);
			p += n - 1;
		}
	}
	fputc('"', f);
}

/* Start a member of the current object: a comma after the first one. */
static void json_member(struct kmt_out *o, const char *name)
{
	fprintf(o->f, "%s\n%*s", o->nr[o->depth]++ ? "," : "", 2 * o->depth, "");
	json_string(o->f, name);
	fputs(": ", o->f);
}

static void json_cell(FILE *f, const struct kmt_col *col,
		      const union kmt_cell *c)
{
	switch (col->type) {
	case KMT_NS:
		if (c->u == KMT_NONE) {
			fputs("null", f);
			break;
		}
		fprintf(f, "%llu", (unsigned long long)c->u);
		break;
	case KMT_U64:
		if (c->u == KMT_OVERFLOW)
			fputs("null", f);
		else
			fprintf(f, "%llu", (unsigned long long)c->u);
		break;
	case KMT_S64:
		fprintf(f, "%lld", (long long)c->s);
		break;
	case KMT_HEX:
		fprintf(f, "\"0x%llx\"", (unsigned long long)c->u);
		break;
	case KMT_PCT:
		if (c->d < 0)
			fputs("null", f);
		else
			fprintf(f, "%.2f", c->d);
		break;
	case KMT_STR:
		json_string(f, c->str);
		break;
	case KMT_BAR:
		break;
	}
}

static void print_json(struct kmt_out *o, const struct kmt_table *t)
{
	const union kmt_cell *row;
	size_t i, j, n;

	json_member(o, t->name);
	fputc('[', o->f);
	for (i = 0; i < t->nr_rows; i++) {
		row = &t->cells[i * t->nr_cols];
		fprintf(o->f, "%s\n%*s{", i ? "," : "", 2 * o->depth + 2, "");
		for (j = 0, n = 0; j < t->nr_cols; j++) {
			if (t->cols[j].type == KMT_BAR)
				continue;
			fputs(n++ ? ", " : "", o->f);
			json_string(o->f, t->cols[j].name);
			fputs(": ", o->f);
			json_cell(o->f, &t->cols[j], &row[j]);
		}
		fputc('}', o->f);
	}
	if (t->nr_rows)
		fprintf(o->f, "\n%*s", 2 * o->depth, "");
	fputc(']', o->f);
}

/* ------------------------------------------------------------------- CSV */

static void csv_string(FILE *f, const char *s)
{
	if (!s)
		return;
	if (!s[strcspn(s, ",\"\r\n")]) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void print_csv(struct kmt_out *o, const struct kmt_table *t)
{
	const union kmt_cell *row;
	char buf[64];
	size_t i, j, n;

	if (o->nr[0]++)
		fputc('\n', o->f);
	fprintf(o->f, "# %s\n", t->name);
	for (i = 0; i <= t->nr_rows; i++) {
		row = i ? &t->cells[(i - 1) * t->nr_cols] : NULL;
		for (j = 0, n = 0; j < t->nr_cols; j++) {
			if (t->cols[j].type == KMT_BAR)
				continue;
			if (n++)
				fputc(',', o->f);
			if (!row)
				csv_string(o->f, t->cols[j].name);
			else if (t->cols[j].type == KMT_STR)
				csv_string(o->f, row[j].str);
			else if (t->cols[j].type == KMT_NS && row[j].u != KMT_NONE)
				fprintf(o->f, "%llu", (unsigned long long)row[j].u);
			else if (t->cols[j].type == KMT_NS)
				;
			else if (t->cols[j].type == KMT_PCT && row[j].d >= 0)
				fprintf(o->f, "%.2f", row[j].d);
			else if (t->cols[j].type == KMT_PCT)
				;
			else if (t->cols[j].type == KMT_U64 &&
				 row[j].u == KMT_OVERFLOW)
				;
			else
				fputs(cell_text(&t->cols[j], &row[j], buf,
						sizeof(buf)), o->f);
		}
		fputc('\n', o->f);
	}
}

/* ---------------------------------------------------------------- output */

void kmt_out_begin(struct kmt_out *o, FILE *f, enum kmt_format format)
{
	memset(o, 0, sizeof(*o));
	o->f = f;
	o->format = format;
	if (format == KMT_JSON) {
		fputc('{', f);
		o->depth = 1;
	}
}

void kmt_out_object(struct kmt_out *o, const char *name)
{
	if (o->format != KMT_JSON)
		return;
	json_member(o, name);
	fputc('{', o->f);
	o->depth++;
	o->nr[o->depth] = 0;
}

void kmt_out_close(struct kmt_out *o)
{
	if (o->format != KMT_JSON)
		return;
	o->depth--;
	if (o->nr[o->depth + 1])
		fprintf(o->f, "\n%*s", 2 * o->depth, "");
	fputc('}', o->f);
}

void kmt_out_u64(struct kmt_out *o, const char *name, uint64_t v)
{
	if (o->format != KMT_JSON)
		return;
	json_member(o, name);
	fprintf(o->f, "%llu", (unsigned long long)v);
}

void kmt_out_str(struct kmt_out *o, const char *name, const char *s)
{
	if (o->format != KMT_JSON)
		return;
	json_member(o, name);
	json_string(o->f, s);
}

void kmt_out_table(struct kmt_out *o, const struct kmt_table *t)
{
	switch (o->format) {
	case KMT_TEXT:
		print_text(o->f, t);
		break;
	case KMT_JSON:
		print_json(o, t);
		break;
	case KMT_CSV:
		print_csv(o, t);
		break;
	}
}

void kmt_out_end(struct kmt_out *o)
{
	if (o->format != KMT_JSON)
		return;
	fputs("\n}\n", o->f);
}
