// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace - the codetags of a trace: DIR/tags
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tags.h"
#include "trace.h"
#include "utils.h"

/* A "file:line": a colon followed by a decimal line number. */
static bool is_file_line(const struct kmt_field *f)
{
	const char *colon = memrchr(f->s, ':', f->len);
	size_t digits;

	if (!colon || colon == f->s)
		return false;
	digits = f->s + f->len - colon - 1;
	return digits && strspn(colon + 1, "0123456789") >= digits;
}

/* What kmt_tags_load() parses into, and the lines it skipped. */
struct tags_parse {
	struct kmt_tags *t;
	size_t problems;
};

/* "TAG FILE:LINE FUNCTION MODULE [unloaded]" */
static int tags_line(void *arg, const char *path, size_t nr, const char *line)
{
	struct tags_parse *p = arg;
	struct kmt_tags *t = p->t;
	struct kmt_field f[6];
	struct kmt_tag tag;
	size_t n, len;

	n = kmt_split_fields(line, f, ARRAY_SIZE(f));
	if (n < 4 || n > 5 || parse_hex(f[0].s, f[0].len, &tag.addr) ||
	    !tag.addr || !is_file_line(&f[1]) ||
	    (n == 5 && (f[4].len != 8 || memcmp(f[4].s, "unloaded", 8)))) {
		kmt_err("%s: line %zu: not \"TAG FILE:LINE FUNCTION MODULE [unloaded]\", skipped",
			path, nr);
		p->problems++;
		return 0;
	}
	tag.file_line = xstrndup(f[1].s, f[1].len);
	tag.func = xstrndup(f[2].s, f[2].len);
	tag.module = f[3].len == 1 && f[3].s[0] == '-' ? NULL :
		     xstrndup(f[3].s, f[3].len);
	tag.unloaded = n == 5;
	tag.line = nr;
	len = f[1].len + (tag.module ? f[3].len + 3 : 0) + 1;
	tag.text = xmalloc(len);
	if (tag.module)
		snprintf(tag.text, len, "%s [%s]", tag.file_line, tag.module);
	else
		snprintf(tag.text, len, "%s", tag.file_line);
	/* Thousands of lines: grow by doubling. */
	if (!(t->nr & (t->nr - 1)))
		t->tags = xrealloc(t->tags, (t->nr < 16 ? 16 : 2 * t->nr) *
				   sizeof(*t->tags));
	t->tags[t->nr++] = tag;
	return 0;
}

/* By address, the tag of a loaded module first, then in file order. */
static int tag_cmp(const void *a, const void *b)
{
	const struct kmt_tag *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->unloaded != y->unloaded)
		return x->unloaded ? 1 : -1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static void tag_free(struct kmt_tag *tag)
{
	free(tag->file_line);
	free(tag->func);
	free(tag->module);
	free(tag->text);
}

size_t kmt_tags_load(struct kmt_tags *t, const char *dir)
{
	struct tags_parse p = { .t = t };
	struct kmt_line_parser lp = { .what = "tags", .max_version = 1,
				      .fn = tags_line, .arg = &p };
	size_t i, n = 0;
	int ret;

	memset(t, 0, sizeof(*t));
	if (!dir)
		return 0;
	ret = kmt_parse_side_file(dir, "tags", &lp);
	if (ret == -ENOENT)
		return 0;
	if (ret) {
		kmt_tags_free(t);
		p.problems++;
	} else {
		t->present = true;
	}
	if (t->nr)
		qsort(t->tags, t->nr, sizeof(*t->tags), tag_cmp);
	for (i = 0; i < t->nr; i++) {
		if (n && t->tags[n - 1].addr == t->tags[i].addr) {
			tag_free(&t->tags[i]);
			continue;
		}
		t->tags[n] = t->tags[i];
		kmt_map_insert(&t->map, t->tags[n].addr, n, NULL);
		n++;
	}
	t->nr = n;
	return p.problems;
}

void kmt_tags_free(struct kmt_tags *t)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		tag_free(&t->tags[i]);
	free(t->tags);
	kmt_map_free(&t->map);
	memset(t, 0, sizeof(*t));
}
