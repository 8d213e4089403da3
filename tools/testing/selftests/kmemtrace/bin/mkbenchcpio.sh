#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# mkbenchcpio.sh CPIO - the tools make bench sets beside kmemtrace, as a
# second initramfs: Debian's perf and bpftrace with their libraries, and
# the headers bpftrace's clang front end parses tracepoint formats with
# (the uapi headers behind <linux/types.h>, and <stddef.h> and <stdbool.h>
# of clang's own).  About 240 MB: only the boots that run them append it
# to the test initramfs (bin/bench.sh); the kernel unpacks both.

set -eu
. "$(dirname "$0")/lib.sh"

CPIO=$1
ROOT=$KMT_CACHE/benchcpio

rm -rf "$ROOT"
mkdir -p "$ROOT/usr/bin" "$ROOT/usr/include"
for tool in perf bpftrace; do
	path=$(command -v $tool) || kmt_die "no $tool (make bench installs it)"
	# Debian's /usr/bin/perf may be a wrapper for perf_VERSION.
	for bin in "$path" /usr/bin/${tool}_[0-9]*; do
		[ -f "$bin" ] || continue
		cp -L "$bin" "$ROOT/usr/bin/"
		for lib in $(ldd "$bin" | awk '$2 == "=>" { print $3 } $1 ~ /^\// { print $1 }'); do
			[ -e "$ROOT$lib" ] && continue
			mkdir -p "$ROOT$(dirname "$lib")"
			cp -L "$lib" "$ROOT$lib"
		done
	done
done
cp -r /usr/include/linux /usr/include/asm-generic "$ROOT/usr/include/"
cp -rL /usr/include/x86_64-linux-gnu/asm "$ROOT/usr/include/asm"
# clang's own headers, where bpftrace's clang looks for them.
inc=$(find /usr/lib/llvm-*/lib/clang -path '*include/stddef.h' | head -n 1)
inc=$(dirname "$inc")
[ -d "$inc" ] || kmt_die "no clang headers for bpftrace (libclang-common)"
mkdir -p "$ROOT$inc"
cp "$inc/stddef.h" "$inc/stdbool.h" "$inc/stdarg.h" "$inc/__stddef_max_align_t.h" \
	"$ROOT$inc/" 2>/dev/null || cp "$inc/stddef.h" "$inc/stdbool.h" "$ROOT$inc/"
(cd "$ROOT" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) >"$CPIO"
