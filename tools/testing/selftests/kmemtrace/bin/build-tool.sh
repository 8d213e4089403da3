#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Build tools/kmemtrace twice: for the host (with libdw symbolization) and
# statically for the busybox guest, with the kallsyms parser of the kernel
# source's tools/lib/symbol.

set -eu
. "$(dirname "$0")/lib.sh"

for v in host static; do
	out=$KMT_CACHE/tool/$v
	mkdir -p "$out"
	flags=
	[ $v = static ] && flags=STATIC=1
	# shellcheck disable=SC2086
	make -s -j"$KMT_JOBS" -C "$KMT_REPO/tools/kmemtrace" O="$out" KERNEL_SRC="$(kmt_src)" \
		$flags >"$out/build.log" 2>&1 || {
		cat "$out/build.log"
		kmt_die "tools/kmemtrace ($v) failed to build; log: $out/build.log"
	}
done
