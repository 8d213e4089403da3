// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace - the kernel stacks of a trace: DIR/stacks
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stacks.h"
#include "trace.h"
#include "utils.h"

/* What the parser keeps from line to line. */
struct stacks_parse {
	struct kmt_stacks *s;
	struct kmt_stack *cur;	/* the stack whose frames come, or NULL */
	size_t want;		/* the frames its line says it has */
	size_t problems;
};

static void stack_free(struct kmt_stack *st)
{
	size_t i;

	for (i = 0; i < st->nr; i++)
		free(st->frames[i].sym);
	free(st->frames);
}

/* The stack being read ends: drop it if it lacks frames. */
static void stack_end(struct stacks_parse *p, const char *path)
{
	struct kmt_stack *st = p->cur;

	p->cur = NULL;
	if (!st || st->nr == p->want)
		return;
	kmt_err("%s: line %zu: stack %08x has %zu frames, not %zu, skipped",
		path, st->line, st->handle, st->nr, p->want);
	p->problems++;
	stack_free(st);
	p->s->nr--;
}

/* "stack HANDLE NFRAMES", or " ADDRESS SYMBOL" of the stack before. */
static int stacks_line(void *arg, const char *path, size_t nr, const char *line)
{
	struct stacks_parse *p = arg;
	struct kmt_stacks *s = p->s;
	struct kmt_stack *st;
	struct kmt_field f[4];
	uint64_t v, frames;
	const char *sym;
	char buf[32];
	size_t n;

	n = kmt_split_fields(line, f, ARRAY_SIZE(f));
	if (line[0] == ' ' && p->cur) {
		st = p->cur;
		sym = n >= 2 ? f[1].s : NULL;
		if (n < 2 || parse_hex(f[0].s, f[0].len, &v) || st->nr == p->want) {
			kmt_err("%s: line %zu: not \" ADDRESS SYMBOL\" of stack %08x, skipped",
				path, nr, st->handle);
			p->problems++;
			return 0;
		}
		st->frames[st->nr].addr = v;
		st->frames[st->nr].sym = xstrndup(sym, strcspn(sym, "\r"));
		st->nr++;
		return 0;
	}
	stack_end(p, path);
	if (n != 3 || f[0].len != 5 || memcmp(f[0].s, "stack", 5) ||
	    parse_hex(f[1].s, f[1].len, &v) || !v || v > UINT32_MAX ||
	    f[2].len >= sizeof(buf)) {
		kmt_err("%s: line %zu: not \"stack HANDLE NFRAMES\", skipped", path, nr);
		p->problems++;
		return 0;
	}
	memcpy(buf, f[2].s, f[2].len);
	buf[f[2].len] = '\0';
	/* The kernel's stacks have 64 frames at most; allow for more. */
	if (parse_u64(buf, &frames) || !frames || frames > 4096) {
		kmt_err("%s: line %zu: bad frame count '%s', skipped", path, nr, buf);
		p->problems++;
		return 0;
	}
	if (!(s->nr & (s->nr - 1)))
		s->stacks = xrealloc(s->stacks, (s->nr < 16 ? 16 : 2 * s->nr) *
				     sizeof(*s->stacks));
	st = &s->stacks[s->nr++];
	st->handle = v;
	st->frames = xcalloc(frames, sizeof(*st->frames));
	st->nr = 0;
	st->line = nr;
	p->cur = st;
	p->want = frames;
	return 0;
}

/* The "# captured N lost N unlisted N" line, if the file has one. */
static void stacks_counts(struct kmt_stacks *s, const char *buf)
{
	unsigned long long c, l, u;
	const char *p;

	for (p = buf; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (*p != '#')
			break;
		if (sscanf(p, "# captured %llu lost %llu unlisted %llu", &c, &l,
			   &u) == 3) {
			s->has_counts = true;
			s->captured = c;
			s->lost = l;
			s->unlisted = u;
			return;
		}
	}
}

static int stack_cmp(const void *a, const void *b)
{
	const struct kmt_stack *x = a, *y = b;

	if (x->handle != y->handle)
		return x->handle < y->handle ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

size_t kmt_stacks_load(struct kmt_stacks *s, const char *dir)
{
	struct kmt_line_parser lp = { .what = "stacks", .max_version = 1,
				      .fn = stacks_line };
	struct stacks_parse p = { .s = s };
	size_t len, i, n = 0;
	char *path, *buf;
	int ret;

	memset(s, 0, sizeof(*s));
	if (!dir)
		return 0;
	ret = read_side_file(dir, "stacks", &path, &buf, &len);
	if (ret)
		return ret != -ENOENT;
	stacks_counts(s, buf);
	lp.path = path;
	lp.arg = &p;
	if (kmt_parse_lines(buf, &lp)) {
		p.cur = NULL;
		kmt_stacks_free(s);
		p.problems++;
	} else {
		stack_end(&p, path);
		s->present = true;
	}
	free(buf);
	if (s->nr)
		qsort(s->stacks, s->nr, sizeof(*s->stacks), stack_cmp);
	for (i = 0; i < s->nr; i++) {
		if (n && s->stacks[n - 1].handle == s->stacks[i].handle) {
			kmt_err("%s: line %zu: stack %08x listed twice, skipped",
				path, s->stacks[i].line, s->stacks[i].handle);
			p.problems++;
			stack_free(&s->stacks[i]);
			continue;
		}
		s->stacks[n] = s->stacks[i];
		kmt_map_insert(&s->map, s->stacks[n].handle, n, NULL);
		n++;
	}
	s->nr = n;
	free(path);
	return p.problems;
}

size_t kmt_stack_from(const struct kmt_stack *st, uint64_t call_site)
{
	size_t i;

	for (i = 0; i < st->nr; i++)
		if (st->frames[i].addr == call_site)
			return i;
	return 0;
}

void kmt_stacks_free(struct kmt_stacks *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		stack_free(&s->stacks[i]);
	free(s->stacks);
	kmt_map_free(&s->map);
	memset(s, 0, sizeof(*s));
}
