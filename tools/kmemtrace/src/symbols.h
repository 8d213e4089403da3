/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace - turning call site addresses into symbol names
 */
#ifndef __KMEMTRACE_SYMBOLS_H
#define __KMEMTRACE_SYMBOLS_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hash.h"
#include "utils.h"

/* A call site further than this from the symbol before it is not resolved. */
#define KMT_SYM_MAX_OFFSET	0x100000

/**
 * struct kmt_sym - one text symbol of a kallsyms or System.map file
 * @addr: address of the symbol
 * @name: symbol name
 * @module: module name, NULL for symbols of the kernel image
 * @order: line of the symbol in its file, to keep sorting stable
 */
struct kmt_sym {
	uint64_t addr;
	char *name;
	char *module;
	size_t order;
};

struct kmt_dw;

/**
 * struct kmt_symtab - everything known to symbolize call sites
 * @syms: text symbols from a kallsyms or System.map file, sorted by address
 * @nr: number of @syms
 * @has_text: whether the kallsyms or System.map file had a _text symbol
 * @text: its address; not in @syms when another symbol shares it, as
 *	startup_64 does on x86_64
 * @dw: vmlinux opened with libdw, NULL when none
 * @bias: what to subtract from a traced address to get a vmlinux address
 *	(the KASLR offset, computed from "_text" when kallsyms is known)
 * @names: the names of @syms
 */
struct kmt_symtab {
	struct kmt_sym *syms;
	size_t nr;
	bool has_text;
	uint64_t text;
	struct kmt_dw *dw;
	uint64_t bias;
	struct kmt_strings names;
};

/**
 * kmt_symtab_load_text() - read a /proc/kallsyms or System.map file
 * @st: the table, zero-initialised; symbols are added to it
 * @path: the file, lines of "ADDRESS TYPE NAME [MODULE]"
 *
 * Only text symbols (types t, T, w and W) with a non-zero address are kept.
 * Of several symbols at one address, the first one of the file wins.
 *
 * Return: 0 on success, -errno on failure (reported with kmt_err()).
 */
int kmt_symtab_load_text(struct kmt_symtab *st, const char *path);

/**
 * kmt_symtab_lookup() - find the text symbol an address belongs to
 * @st: the table
 * @addr: the address
 * @off: on success, @addr minus the address of the symbol
 *
 * Return: the symbol, or NULL if none is close enough before @addr.
 */
const struct kmt_sym *kmt_symtab_lookup(const struct kmt_symtab *st,
					uint64_t addr, uint64_t *off);

/**
 * kmt_symtab_load_vmlinux() - use a vmlinux (with libdw) for symbols
 * @st: the table; if it already holds kallsyms symbols, they are used to
 *	compute the KASLR offset of the traced kernel
 * @path: the vmlinux file
 *
 * Return: 0 on success, -errno on failure (reported with kmt_err()).
 */
int kmt_symtab_load_vmlinux(struct kmt_symtab *st, const char *path);

/**
 * kmt_symtab_setup() - load the symbols "report" and "dump" use
 * @st: the table, zero-initialised
 * @dir: a record directory whose "kallsyms" file is used when present,
 *	or NULL
 * @symfile: a kallsyms or System.map file to use instead, or NULL
 * @vmlinux: a vmlinux to use first, or NULL
 *
 * Return: 0 on success, -errno on failure (reported with kmt_err()).
 */
int kmt_symtab_setup(struct kmt_symtab *st, const char *dir,
		     const char *symfile, const char *vmlinux);

/**
 * kmt_symtab_format() - write an address as "func+0xoff"
 * @st: the table
 * @addr: the address
 * @buf: where to write; "func+0xoff [module]" for a module symbol,
 *	"func+0xoff (file:line)" when a vmlinux with debug info knows the
 *	line, or "0xADDRESS" when no symbol matches
 * @len: size of @buf
 */
void kmt_symtab_format(const struct kmt_symtab *st, uint64_t addr,
		       char *buf, size_t len);

/**
 * kmt_symtab_line() - the source line of a call site, as "file:line"
 * @st: the table
 * @addr: the call site
 * @buf: where to write
 * @len: size of @buf
 *
 * Return: 0 on success, -ENOENT when no vmlinux with debug info (-k) has
 * a line for @addr.
 */
int kmt_symtab_line(const struct kmt_symtab *st, uint64_t addr, char *buf,
		    size_t len);

/**
 * struct kmt_symcache - the names of the call sites seen, formatted once
 * @st: the symbols
 * @map: call site to index in @names
 * @names: kmt_symtab_format() of each call site
 * @lens: the length of each of @names
 * @nr: number of call sites
 * @size: number of call sites @names and @lens have room for
 * @strings: where the text of @names is kept
 */
struct kmt_symcache {
	const struct kmt_symtab *st;
	struct kmt_map map;
	char **names;
	size_t *lens;
	size_t nr;
	size_t size;
	struct kmt_strings strings;
};

/**
 * kmt_symcache_init() - set up a cache of call site names
 * @c: the cache
 * @st: the symbols, which must outlive the cache
 */
void kmt_symcache_init(struct kmt_symcache *c, const struct kmt_symtab *st);

/**
 * kmt_symcache_name() - kmt_symtab_format() of a call site, computed once
 * @c: the cache
 * @addr: the call site
 * @len: if not NULL, set to the length of the name
 *
 * Return: the name, valid until kmt_symcache_free(), followed by at least
 * 16 zero bytes.
 */
const char *kmt_symcache_name(struct kmt_symcache *c, uint64_t addr,
			      size_t *len);

/**
 * kmt_symcache_index() - the index of a call site's name in a cache
 * @c: the cache
 * @addr: the call site
 *
 * Return: I, for @c->names[I] (followed by at least 16 zero bytes) and
 * @c->lens[I].
 */
uint32_t kmt_symcache_index(struct kmt_symcache *c, uint64_t addr);

/**
 * kmt_symcache_free() - release a cache of call site names
 * @c: the cache
 */
void kmt_symcache_free(struct kmt_symcache *c);

/**
 * kmt_symtab_free() - release a table
 * @st: the table
 */
void kmt_symtab_free(struct kmt_symtab *st);

#ifdef HAVE_LIBDW
/**
 * kmt_dw_open() - open a vmlinux with libdw
 * @path: the vmlinux file
 *
 * Return: the handle, or NULL on failure (reported with kmt_err()).
 */
struct kmt_dw *kmt_dw_open(const char *path);

/**
 * kmt_dw_symbol_addr() - link-time address of a symbol of the vmlinux
 * @dw: the handle
 * @name: the symbol, e.g. "_text"
 * @addr: on success, its address
 *
 * Return: 0 on success, -ENOENT if the symbol is not found.
 */
int kmt_dw_symbol_addr(struct kmt_dw *dw, const char *name, uint64_t *addr);

/**
 * kmt_dw_format() - write a vmlinux address as "func+0xoff (file:line)"
 * @dw: the handle
 * @addr: link-time address of a call site
 * @buf: where to write; the "(file:line)" part needs debug info
 * @len: size of @buf
 *
 * Return: 0 on success, -ENOENT if no symbol contains @addr.
 */
int kmt_dw_format(struct kmt_dw *dw, uint64_t addr, char *buf, size_t len);

/**
 * kmt_dw_line() - write the source line of a vmlinux address as "file:line"
 * @dw: the handle
 * @addr: link-time address of a call site (a return address: the line is
 *	that of the byte before it, the call)
 * @buf: where to write
 * @len: size of @buf
 *
 * Return: 0 on success, -ENOENT if the vmlinux has no line for @addr (no
 * debug info).
 */
int kmt_dw_line(struct kmt_dw *dw, uint64_t addr, char *buf, size_t len);

/**
 * kmt_dw_close() - release a handle of kmt_dw_open()
 * @dw: the handle
 */
void kmt_dw_close(struct kmt_dw *dw);
#else
/* Without libdw, kmt_symtab_load_vmlinux() fails and these are unused. */
static inline int kmt_dw_symbol_addr(struct kmt_dw *dw, const char *name,
				     uint64_t *addr)
{
	(void)dw;
	(void)name;
	(void)addr;
	return -ENOENT;
}

static inline int kmt_dw_format(struct kmt_dw *dw, uint64_t addr,
				char *buf, size_t len)
{
	(void)dw;
	(void)addr;
	(void)buf;
	(void)len;
	return -ENOENT;
}

static inline int kmt_dw_line(struct kmt_dw *dw, uint64_t addr, char *buf,
			      size_t len)
{
	(void)dw;
	(void)addr;
	(void)buf;
	(void)len;
	return -ENOENT;
}

static inline void kmt_dw_close(struct kmt_dw *dw)
{
	(void)dw;
}
#endif /* HAVE_LIBDW */

#endif /* __KMEMTRACE_SYMBOLS_H */
