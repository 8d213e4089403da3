// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace - names of the GFP flags and migrate types events carry
 *
 * gfp_t bits are not part of the kernel's ABI.  The kernel's own names
 * are in the format of its kmalloc tracepoint (as perf kmem reads them),
 * which record saves: they are used when the trace has it.  Otherwise,
 * those of Linux 6.12 (include/linux/gfp_types.h), which kmemtrace
 * records, up to ___GFP_ZEROTAGS_BIT: the bits after it depend on the
 * configuration.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gfp.h"
#include "utils.h"

#define GFP_DMA			0x1u
#define GFP_HIGHMEM		0x2u
#define GFP_DMA32		0x4u
#define GFP_MOVABLE		0x8u
#define GFP_RECLAIMABLE		0x10u
#define GFP_HIGH		0x20u
#define GFP_IO			0x40u
#define GFP_FS			0x80u
#define GFP_ZERO		0x100u
#define GFP_DIRECT_RECLAIM	0x400u
#define GFP_KSWAPD_RECLAIM	0x800u
#define GFP_WRITE		0x1000u
#define GFP_NOWARN		0x2000u
#define GFP_RETRY_MAYFAIL	0x4000u
#define GFP_NOFAIL		0x8000u
#define GFP_NORETRY		0x10000u
#define GFP_MEMALLOC		0x20000u
#define GFP_COMP		0x40000u
#define GFP_NOMEMALLOC		0x80000u
#define GFP_HARDWALL		0x100000u
#define GFP_THISNODE		0x200000u
#define GFP_ACCOUNT		0x400000u
#define GFP_ZEROTAGS		0x800000u

#define GFP_RECLAIM		(GFP_DIRECT_RECLAIM | GFP_KSWAPD_RECLAIM)
#define GFP_KERNEL_		(GFP_RECLAIM | GFP_IO | GFP_FS)
#define GFP_USER_		(GFP_KERNEL_ | GFP_HARDWALL)
#define GFP_HIGHUSER_		(GFP_USER_ | GFP_HIGHMEM)
/* __GFP_SKIP_KASAN is 0 without CONFIG_KASAN_HW_TAGS, as on x86. */
#define GFP_HIGHUSER_MOVABLE_	(GFP_HIGHUSER_ | GFP_MOVABLE)
#define GFP_TRANSHUGE_LIGHT_	((GFP_HIGHUSER_MOVABLE_ | GFP_COMP | \
				  GFP_NOMEMALLOC | GFP_NOWARN) & ~GFP_RECLAIM)

static const struct kmt_gfp_name gfp_names[] = {
	{ GFP_TRANSHUGE_LIGHT_ | GFP_DIRECT_RECLAIM, "GFP_TRANSHUGE" },
	{ GFP_TRANSHUGE_LIGHT_,		"GFP_TRANSHUGE_LIGHT" },
	{ GFP_HIGHUSER_MOVABLE_,	"GFP_HIGHUSER_MOVABLE" },
	{ GFP_HIGHUSER_,		"GFP_HIGHUSER" },
	{ GFP_USER_,			"GFP_USER" },
	{ GFP_KERNEL_ | GFP_ACCOUNT,	"GFP_KERNEL_ACCOUNT" },
	{ GFP_KERNEL_,			"GFP_KERNEL" },
	{ GFP_RECLAIM | GFP_IO,		"GFP_NOFS" },
	{ GFP_HIGH | GFP_KSWAPD_RECLAIM, "GFP_ATOMIC" },
	{ GFP_RECLAIM,			"GFP_NOIO" },
	{ GFP_KSWAPD_RECLAIM | GFP_NOWARN, "GFP_NOWAIT" },
	{ GFP_DMA,			"GFP_DMA" },
	{ GFP_HIGHMEM,			"__GFP_HIGHMEM" },
	{ GFP_DMA32,			"GFP_DMA32" },
	{ GFP_HIGH,			"__GFP_HIGH" },
	{ GFP_IO,			"__GFP_IO" },
	{ GFP_FS,			"__GFP_FS" },
	{ GFP_NOWARN,			"__GFP_NOWARN" },
	{ GFP_RETRY_MAYFAIL,		"__GFP_RETRY_MAYFAIL" },
	{ GFP_NOFAIL,			"__GFP_NOFAIL" },
	{ GFP_NORETRY,			"__GFP_NORETRY" },
	{ GFP_COMP,			"__GFP_COMP" },
	{ GFP_ZERO,			"__GFP_ZERO" },
	{ GFP_NOMEMALLOC,		"__GFP_NOMEMALLOC" },
	{ GFP_MEMALLOC,			"__GFP_MEMALLOC" },
	{ GFP_HARDWALL,			"__GFP_HARDWALL" },
	{ GFP_THISNODE,			"__GFP_THISNODE" },
	{ GFP_RECLAIMABLE,		"__GFP_RECLAIMABLE" },
	{ GFP_MOVABLE,			"__GFP_MOVABLE" },
	{ GFP_ACCOUNT,			"__GFP_ACCOUNT" },
	{ GFP_WRITE,			"__GFP_WRITE" },
	{ GFP_RECLAIM,			"__GFP_RECLAIM" },
	{ GFP_DIRECT_RECLAIM,		"__GFP_DIRECT_RECLAIM" },
	{ GFP_KSWAPD_RECLAIM,		"__GFP_KSWAPD_RECLAIM" },
	{ GFP_ZEROTAGS,			"__GFP_ZEROTAGS" },
};

void kmt_gfp_names_builtin(struct kmt_gfp_names *g)
{
	memset(g, 0, sizeof(*g));
	g->names = gfp_names;
	g->nr = ARRAY_SIZE(gfp_names);
}

/* --------------------------------------------- the recorded format */

/* Deepest nesting of parentheses and unary operators in a mask. */
#define GFP_MAX_DEPTH	64
/* Most names in a table. */
#define GFP_MAX_NAMES	256
#define NAME_IN_MASK \
	"a mask has a name where a number should be (an enum the kernel did not resolve?)"

/*
 * A cursor over the "print fmt:" line: @s the next character, @depth the
 * nesting, @why what went wrong.
 */
struct cursor {
	const char *s;
	unsigned int depth;
	const char *why;
};

static bool fail(struct cursor *c, const char *why)
{
	if (!c->why)
		c->why = why;
	return false;
}

static void skip_blanks(struct cursor *c)
{
	while (*c->s == ' ' || *c->s == '\t')
		c->s++;
}

/* Take the operator @op, but not as the start of a longer one (| of ||). */
static bool take_op(struct cursor *c, const char *op)
{
	size_t n = strlen(op);

	skip_blanks(c);
	if (strncmp(c->s, op, n))
		return false;
	if (n == 1 && (c->s[1] == op[0] || (op[0] != '~' && c->s[1] == '=')))
		return false;
	c->s += n;
	return true;
}

static bool is_ident(int ch)
{
	return isalnum(ch) || ch == '_';
}

static bool parse_or(struct cursor *c, uint64_t *v);
static bool parse_unary(struct cursor *c, uint64_t *v);

/* A C integer constant, with its suffixes. */
static bool parse_number(struct cursor *c, uint64_t *v)
{
	unsigned long long n;
	char *end;

	errno = 0;
	n = strtoull(c->s, &end, 0);
	if (end == c->s || errno)
		return fail(c, "a number in a mask cannot be read");
	c->s = end;
	while (*c->s == 'u' || *c->s == 'U' || *c->s == 'l' || *c->s == 'L')
		c->s++;
	if (is_ident(*c->s))
		return fail(c, "a number in a mask cannot be read");
	*v = n;
	return true;
}

/*
 * After "(": a cast, "(TYPE)" of names and stars followed by what it
 * casts, or a parenthesis.  A name in parentheses followed by anything
 * else is a name where a number should be.
 */
static bool parse_paren(struct cursor *c, uint64_t *v)
{
	skip_blanks(c);
	if (isalpha(*c->s) || *c->s == '_') {
		while (is_ident(*c->s) || *c->s == ' ' || *c->s == '\t' ||
		       *c->s == '*')
			c->s++;
		if (*c->s != ')')
			return fail(c, NAME_IN_MASK);
		c->s++;
		skip_blanks(c);
		if (*c->s != '(' && *c->s != '~' && !is_ident(*c->s))
			return fail(c, NAME_IN_MASK);
		/* The value is what matters: gfp_t and unsigned long hold it. */
		return parse_unary(c, v);
	}
	if (!parse_or(c, v))
		return false;
	skip_blanks(c);
	if (*c->s != ')')
		return fail(c, "a ')' is missing in a mask");
	c->s++;
	return true;
}

static bool parse_unary(struct cursor *c, uint64_t *v)
{
	bool ok;

	skip_blanks(c);
	if (++c->depth > GFP_MAX_DEPTH)
		return fail(c, "a mask is nested too deep");
	if (*c->s == '~' || *c->s == '-') {
		char op = *c->s++;

		ok = parse_unary(c, v);
		if (ok)
			*v = op == '~' ? ~*v : -*v;
	} else if (*c->s == '(') {
		c->s++;
		ok = parse_paren(c, v);
	} else if (isdigit(*c->s)) {
		ok = parse_number(c, v);
	} else if (isalpha(*c->s) || *c->s == '_') {
		ok = fail(c, NAME_IN_MASK);
	} else {
		ok = fail(c, "a mask cannot be read");
	}
	c->depth--;
	return ok;
}

static bool parse_add(struct cursor *c, uint64_t *v)
{
	uint64_t w;
	bool plus;

	if (!parse_unary(c, v))
		return false;
	for (;;) {
		if (take_op(c, "+"))
			plus = true;
		else if (take_op(c, "-"))
			plus = false;
		else
			return true;
		if (!parse_unary(c, &w))
			return false;
		*v = plus ? *v + w : *v - w;
	}
}

static bool parse_shift(struct cursor *c, uint64_t *v)
{
	uint64_t w;
	bool left;

	if (!parse_add(c, v))
		return false;
	for (;;) {
		if (take_op(c, "<<"))
			left = true;
		else if (take_op(c, ">>"))
			left = false;
		else
			return true;
		if (!parse_add(c, &w))
			return false;
		if (w >= 64)
			return fail(c, "a mask shifts by 64 bits or more");
		*v = left ? *v << w : *v >> w;
	}
}

static bool parse_and(struct cursor *c, uint64_t *v)
{
	uint64_t w;

	if (!parse_shift(c, v))
		return false;
	while (take_op(c, "&")) {
		if (!parse_shift(c, &w))
			return false;
		*v &= w;
	}
	return true;
}

static bool parse_xor(struct cursor *c, uint64_t *v)
{
	uint64_t w;

	if (!parse_and(c, v))
		return false;
	while (take_op(c, "^")) {
		if (!parse_and(c, &w))
			return false;
		*v ^= w;
	}
	return true;
}

static bool parse_or(struct cursor *c, uint64_t *v)
{
	uint64_t w;

	if (!parse_xor(c, v))
		return false;
	while (take_op(c, "|")) {
		if (!parse_xor(c, &w))
			return false;
		*v |= w;
	}
	return true;
}

/* A string literal; its contents are appended to @strings at @len. */
static bool parse_string(struct cursor *c, char **strings, size_t *len)
{
	const char *start;
	size_t n;

	skip_blanks(c);
	if (*c->s != '"')
		return fail(c, "a name is not a string");
	start = ++c->s;
	while (*c->s && *c->s != '"' && *c->s != '\\')
		c->s++;
	if (*c->s != '"')
		return fail(c, "a name is not a plain string");
	n = c->s++ - start;
	if (strings) {
		*strings = xrealloc(*strings, *len + n + 1);
		memcpy(*strings + *len, start, n);
		(*strings)[*len + n] = '\0';
		*len += n + 1;
	}
	return true;
}

static bool take_char(struct cursor *c, char ch, const char *why)
{
	skip_blanks(c);
	if (*c->s != ch)
		return fail(c, why);
	c->s++;
	return true;
}

/*
 * The table being read: @masks and, at @name_at in @strings (@len bytes
 * so far), the names of its @nr entries.
 */
struct table {
	uint32_t masks[GFP_MAX_NAMES];
	size_t name_at[GFP_MAX_NAMES];
	size_t nr;
	char *strings;
	size_t len;
};

/* One "{MASK, "NAME"}" of the table, appended to @t. */
static bool parse_entry(struct cursor *c, struct table *t)
{
	uint64_t mask;

	if (!take_char(c, '{', "a table entry is not {MASK, \"NAME\"}") ||
	    !parse_or(c, &mask) ||
	    !take_char(c, ',', "a table entry is not {MASK, \"NAME\"}"))
		return false;
	if (mask > UINT32_MAX)
		return fail(c, "a mask is wider than the 32 bits of gfp flags");
	if (t->nr == GFP_MAX_NAMES)
		return fail(c, "more than 256 names");
	t->masks[t->nr] = mask;
	t->name_at[t->nr] = t->len;
	if (!parse_string(c, &t->strings, &t->len) ||
	    !take_char(c, '}', "a table entry is not {MASK, \"NAME\"}"))
		return false;
	t->nr++;
	return true;
}

/* Move @c to the table of the "__print_flags(REC->gfp_flags, ..." in it. */
static bool find_table(struct cursor *c)
{
	const char *p = c->s;

	while ((p = strstr(p, "__print_flags("))) {
		c->s = p + strlen("__print_flags(");
		p = c->s;
		skip_blanks(c);
		if (strncmp(c->s, "REC->gfp_flags", 14))
			continue;
		c->s += 14;
		return take_char(c, ',', "__print_flags() of gfp_flags cannot be read") &&
		       parse_string(c, NULL, NULL) &&
		       take_char(c, ',', "__print_flags() of gfp_flags has no table");
	}
	return fail(c, "no __print_flags(REC->gfp_flags, ...) in its print fmt");
}

int kmt_gfp_names_parse(struct kmt_gfp_names *g, const char *text,
			const char **why)
{
	struct cursor c = { 0 };
	struct table *t;
	const char *fmt;
	char *line;
	size_t i;
	bool ok;

	memset(g, 0, sizeof(*g));
	fmt = strncmp(text, "print fmt:", 10) ? strstr(text, "\nprint fmt:") : text;
	if (!fmt) {
		*why = "no \"print fmt:\" line";
		return -EINVAL;
	}
	fmt += *fmt == '\n';
	line = xstrndup(fmt, strcspn(fmt, "\n"));
	t = xcalloc(1, sizeof(*t));
	c.s = line;
	ok = find_table(&c);
	while (ok) {
		ok = parse_entry(&c, t);
		if (ok && take_char(&c, ')', NULL))
			break;
		ok = ok && take_char(&c, ',', "the table does not end with ')'");
	}
	free(line);
	if (!ok) {
		*why = c.why;
		free(t->strings);
		free(t);
		return -EINVAL;
	}
	g->owned = xcalloc(t->nr, sizeof(*g->owned));
	for (i = 0; i < t->nr; i++) {
		g->owned[i].mask = t->masks[i];
		g->owned[i].name = t->strings + t->name_at[i];
	}
	g->strings = t->strings;
	g->names = g->owned;
	g->nr = t->nr;
	g->from_format = true;
	free(t);
	return 0;
}

size_t kmt_gfp_names_load(struct kmt_gfp_names *g, const char *dir)
{
	const char *why;
	char *path, *buf;
	size_t len;
	int ret;

	kmt_gfp_names_builtin(g);
	if (!dir)
		return 0;
	ret = read_side_file(dir, KMT_GFP_FORMAT_FILE, &path, &buf, &len);
	if (ret)
		return ret != -ENOENT;
	ret = kmt_gfp_names_parse(g, buf, &why);
	if (ret) {
		kmt_err("%s: %s, gfp flags named as in Linux 6.12", path, why);
		kmt_gfp_names_builtin(g);
	}
	free(buf);
	free(path);
	return ret ? 1 : 0;
}

void kmt_gfp_names_free(struct kmt_gfp_names *g)
{
	free(g->owned);
	free(g->strings);
	memset(g, 0, sizeof(*g));
}

void kmt_gfp_names_format(const struct kmt_gfp_names *g, uint32_t gfp,
			  char *buf, size_t len)
{
	size_t i, used = 0;
	int n;

	if (!len)
		return;
	buf[0] = '\0';
	if (!gfp) {
		snprintf(buf, len, "none");
		return;
	}
	for (i = 0; i < g->nr && gfp && used < len; i++) {
		if ((gfp & g->names[i].mask) != g->names[i].mask)
			continue;
		gfp &= ~g->names[i].mask;
		n = snprintf(buf + used, len - used, "%s%s", used ? "|" : "",
			     g->names[i].name);
		used += n > 0 ? n : 0;
	}
	if (gfp && used < len)
		snprintf(buf + used, len - used, "%s0x%x", used ? "|" : "", gfp);
}

const char *kmt_migratetype_name(unsigned int mt)
{
	static const char * const names[] = {
		"unmovable", "movable", "reclaimable", "highatomic",
	};

	return mt < ARRAY_SIZE(names) ? names[mt] : NULL;
}
