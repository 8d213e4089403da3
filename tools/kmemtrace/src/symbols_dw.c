// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace - symbolizing call sites with a vmlinux, through elfutils libdw
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elfutils/libdwfl.h>

#include "symbols.h"
#include "utils.h"

struct kmt_dw {
	Dwfl *dwfl;
	Dwfl_Module *mod;
};

static char *debuginfo_path;

static const Dwfl_Callbacks offline_callbacks = {
	.find_debuginfo		= dwfl_standard_find_debuginfo,
	.debuginfo_path		= &debuginfo_path,
	.section_address	= dwfl_offline_section_address,
};

struct kmt_dw *kmt_dw_open(const char *path)
{
	struct kmt_dw *dw = xcalloc(1, sizeof(*dw));

	dw->dwfl = dwfl_begin(&offline_callbacks);
	if (!dw->dwfl)
		goto fail;
	dwfl_report_begin(dw->dwfl);
	dw->mod = dwfl_report_offline(dw->dwfl, "vmlinux", path, -1);
	if (!dw->mod || dwfl_report_end(dw->dwfl, NULL, NULL))
		goto fail;
	return dw;
fail:
	kmt_err("%s: %s", path, dwfl_errmsg(-1));
	kmt_dw_close(dw);
	return NULL;
}

int kmt_dw_symbol_addr(struct kmt_dw *dw, const char *name, uint64_t *addr)
{
	int i, n = dwfl_module_getsymtab(dw->mod);
	const char *sym_name;
	GElf_Addr sym_addr;
	GElf_Sym sym;

	for (i = 0; i < n; i++) {
		sym_name = dwfl_module_getsym_info(dw->mod, i, &sym, &sym_addr,
						   NULL, NULL, NULL);
		if (sym_name && !strcmp(sym_name, name)) {
			*addr = sym_addr;
			return 0;
		}
	}
	return -ENOENT;
}

int kmt_dw_line(struct kmt_dw *dw, uint64_t addr, char *buf, size_t len)
{
	const char *file;
	Dwfl_Line *line;
	int lineno;

	if (dwfl_addrmodule(dw->dwfl, addr) != dw->mod)
		return -ENOENT;
	/* @addr is a return address: the call is in the byte before it. */
	line = dwfl_module_getsrc(dw->mod, addr - 1);
	file = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
	if (!file)
		return -ENOENT;
	snprintf(buf, len, "%s:%d", file, lineno);
	return 0;
}

int kmt_dw_format(struct kmt_dw *dw, uint64_t addr, char *buf, size_t len)
{
	const char *name;
	GElf_Off off;
	GElf_Sym sym;
	int n;

	if (dwfl_addrmodule(dw->dwfl, addr) != dw->mod)
		return -ENOENT;
	name = dwfl_module_addrinfo(dw->mod, addr, &off, &sym, NULL, NULL, NULL);
	if (!name)
		return -ENOENT;
	n = snprintf(buf, len, "%s+0x%llx", name, (unsigned long long)off);
	if (n < 0 || (size_t)n + 3 >= len)
		return 0;
	buf[n] = ' ';
	buf[n + 1] = '(';
	if (kmt_dw_line(dw, addr, buf + n + 2, len - n - 3)) {
		buf[n] = '\0';
		return 0;
	}
	n += strlen(buf + n);
	snprintf(buf + n, len - n, ")");
	return 0;
}

void kmt_dw_close(struct kmt_dw *dw)
{
	if (!dw)
		return;
	if (dw->dwfl)
		dwfl_end(dw->dwfl);
	free(dw);
}
