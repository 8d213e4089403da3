// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace - turning call site addresses into symbol names
 *
 * The text backend reads the "ADDRESS TYPE NAME [MODULE]" lines of
 * /proc/kallsyms and System.map; the libdw backend (symbols_dw.c) reads a
 * vmlinux and is only built when libdw is available.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "header.h"
#include "kallsyms.h"
#include "symbols.h"
#include "utils.h"

/* What kallsyms_symbol() fills. */
struct symtab_load {
	struct kmt_symtab *st;
	size_t size;
	size_t lines;
};

/*
 * Keep a text symbol (type t, T, w or W) with an address; @name is the
 * rest of the line, maybe with a "\t[MODULE]" and spaces after the name.
 */
static int kallsyms_symbol(void *arg, const char *name, char type,
			   unsigned long long start)
{
	struct symtab_load *l = arg;
	struct kmt_sym *sym;
	const char *mod;
	size_t len;

	l->lines++;
	/* strchr() finds the NUL of "tTwW" too. */
	if (!start || !type || !strchr("tTwW", type))
		return 0;
	len = strcspn(name, " \t\r");
	if (!len)
		return 0;
	/* Kept apart: symtab_sort() keeps one name per address. */
	if (!l->st->has_text && len == 5 && !strncmp(name, "_text", 5) &&
	    !name[len + strspn(name + len, " \t\r")]) {
		l->st->has_text = true;
		l->st->text = start;
	}
	if (l->st->nr == l->size) {
		l->size = l->size ? l->size * 2 : 1024;
		l->st->syms = xrealloc(l->st->syms, l->size * sizeof(*l->st->syms));
	}
	sym = &l->st->syms[l->st->nr++];
	sym->addr = start;
	sym->order = l->lines;
	sym->name = kmt_strings_add(&l->st->names, name, len, 0);
	sym->module = NULL;
	mod = name + len;
	if (!*mod)
		return 0;
	mod += strspn(mod, " \t\r");
	len = strcspn(mod, " \t\r");
	if (len > 2 && mod[0] == '[' && mod[len - 1] == ']')
		sym->module = kmt_strings_add(&l->st->names, mod + 1, len - 2, 0);
	return 0;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct kmt_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/*
 * Sort by address and keep only the first symbol of each address.  The
 * symbols of kallsyms and System.map mostly come sorted already: check
 * first, which is quicker than sorting them again.
 */
static void symtab_sort(struct kmt_symtab *st)
{
	size_t i, n = 0;

	/* Sorted already, as kallsyms is; qsort() never sees NULL (nr 0). */
	for (i = 1; i < st->nr; i++)
		if (sym_cmp(&st->syms[i - 1], &st->syms[i]) > 0)
			break;
	if (i < st->nr)
		qsort(st->syms, st->nr, sizeof(*st->syms), sym_cmp);
	for (i = 0; i < st->nr; i++) {
		if (n && st->syms[n - 1].addr == st->syms[i].addr)
			continue;
		st->syms[n++] = st->syms[i];
	}
	st->nr = n;
}

int kmt_symtab_load_text(struct kmt_symtab *st, const char *path)
{
	struct symtab_load l = { .st = st, .size = st->nr };
	int ret;

	ret = is_dir(path);
	if (ret > 0)
		ret = -EISDIR;
	if (!ret && kallsyms__parse(path, &l, kallsyms_symbol))
		ret = -errno;
	if (ret) {
		kmt_err("%s: %s", path, strerror(-ret));
		return ret;
	}
	if (!st->nr)
		kmt_err("%s: no text symbols with an address (kptr_restrict?)", path);
	symtab_sort(st);
	return 0;
}

const struct kmt_sym *kmt_symtab_lookup(const struct kmt_symtab *st,
					uint64_t addr, uint64_t *off)
{
	size_t lo = 0, hi = st->nr, mid;

	/* Find the last symbol at or below @addr. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (st->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr - st->syms[lo - 1].addr >= KMT_SYM_MAX_OFFSET)
		return NULL;
	*off = addr - st->syms[lo - 1].addr;
	return &st->syms[lo - 1];
}

#ifdef HAVE_LIBDW
/*
 * The KASLR offset is where _text is in the traced kernel, from kallsyms
 * or else from the trace's header, minus where it is in the vmlinux.
 */
static int symtab_load_vmlinux(struct kmt_symtab *st, const char *path,
			       const struct kmt_header *h)
{
	uint64_t link, text;
	int ret = 0;

	st->dw = kmt_dw_open(path);
	if (!st->dw)
		return -EINVAL;
	if (st->has_text)
		text = st->text;
	else
		ret = kmt_header_get_u64(h, "text", &text);
	if (!ret && !kmt_dw_symbol_addr(st->dw, "_text", &link))
		st->bias = text - link;
	return 0;
}
#else
static int symtab_load_vmlinux(struct kmt_symtab *st, const char *path,
			       const struct kmt_header *h)
{
	(void)st;
	(void)h;
	kmt_err("%s: this kmemtrace was built without libdw (STATIC=1), use -s System.map instead",
		path);
	return -EOPNOTSUPP;
}
#endif /* HAVE_LIBDW */

int kmt_symtab_load_vmlinux(struct kmt_symtab *st, const char *path)
{
	struct kmt_header none = { 0 };

	return symtab_load_vmlinux(st, path, &none);
}

/* Load a kallsyms or System.map file and check it against the header. */
static int symtab_load_checked(struct kmt_symtab *st, const char *path,
			       const struct kmt_header *h)
{
	int ret;

	ret = kmt_symtab_load_text(st, path);
	if (ret || !st->nr)
		return ret;
	kmt_header_match_text(h, path, st->has_text ? &st->text : NULL);
	return 0;
}

int kmt_symtab_setup(struct kmt_symtab *st, const char *dir,
		     const char *symfile, const char *vmlinux)
{
	struct kmt_header h = { 0 };
	char *path = NULL;
	int ret = 0;

	memset(st, 0, sizeof(*st));
	/* kmt_trace_load_dir() already reported what is wrong with it. */
	if (dir)
		kmt_header_load(&h, dir, true);
	if (symfile) {
		ret = symtab_load_checked(st, symfile, &h);
	} else if (dir) {
		path = path_join(dir, "kallsyms");
		if (!access(path, F_OK))
			ret = symtab_load_checked(st, path, &h);
		free(path);
	}
	if (!ret && vmlinux) {
		kmt_header_match_vmlinux(&h, vmlinux);
		ret = symtab_load_vmlinux(st, vmlinux, &h);
	}
	kmt_header_free(&h);
	return ret;
}

void kmt_symtab_format(const struct kmt_symtab *st, uint64_t addr,
		       char *buf, size_t len)
{
	const struct kmt_sym *sym;
	uint64_t off;

	if (st->dw && !kmt_dw_format(st->dw, addr - st->bias, buf, len))
		return;
	sym = kmt_symtab_lookup(st, addr, &off);
	if (!sym)
		snprintf(buf, len, "0x%llx", (unsigned long long)addr);
	else if (sym->module)
		snprintf(buf, len, "%s+0x%llx [%s]", sym->name,
			 (unsigned long long)off, sym->module);
	else
		snprintf(buf, len, "%s+0x%llx", sym->name,
			 (unsigned long long)off);
}

int kmt_symtab_line(const struct kmt_symtab *st, uint64_t addr, char *buf,
		    size_t len)
{
	if (!st->dw)
		return -ENOENT;
	return kmt_dw_line(st->dw, addr - st->bias, buf, len);
}

void kmt_symcache_init(struct kmt_symcache *c, const struct kmt_symtab *st)
{
	memset(c, 0, sizeof(*c));
	c->st = st;
}

uint32_t kmt_symcache_index(struct kmt_symcache *c, uint64_t addr)
{
	char name[512];
	uint32_t i;
	bool added;

	if (kmt_map_find(&c->map, addr, &i))
		return i;
	i = kmt_map_insert(&c->map, addr, c->nr, &added);
	if (c->nr == c->size) {
		c->size = c->size ? 2 * c->size : 64;
		c->names = xrealloc(c->names, c->size * sizeof(*c->names));
		c->lens = xrealloc(c->lens, c->size * sizeof(*c->lens));
	}
	kmt_symtab_format(c->st, addr, name, sizeof(name));
	c->lens[i] = strlen(name);
	/* Readable 16 bytes at a time, for fmt_blocks(). */
	c->names[i] = kmt_strings_add(&c->strings, name, c->lens[i], 16);
	c->nr++;
	return i;
}

const char *kmt_symcache_name(struct kmt_symcache *c, uint64_t addr,
			      size_t *len)
{
	uint32_t i = kmt_symcache_index(c, addr);

	if (len)
		*len = c->lens[i];
	return c->names[i];
}

void kmt_symcache_free(struct kmt_symcache *c)
{
	kmt_strings_free(&c->strings);
	free(c->names);
	free(c->lens);
	kmt_map_free(&c->map);
	memset(c, 0, sizeof(*c));
}

void kmt_symtab_free(struct kmt_symtab *st)
{
	kmt_strings_free(&st->names);
	free(st->syms);
	kmt_dw_close(st->dw);
	memset(st, 0, sizeof(*st));
}
