#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# upstream.sh - kernel (u), the unpatched 6.12 tree as users run it, and
# its initramfs, for the perf kmem witness (guest/perfkmem): tinyconfig,
# base.config and upstream.config, built out of tree from the pristine
# worktree (kmt_pristine) into $KMT_CACHE/build/VERSION/upstream.  The
# load, lib/kmemtrace_bench.c, which that tree lacks, is built against it
# as a module (kmemtrace_bench_mod.ko), and the initramfs is make bench's
# tools initramfs (perf) with the module in /kmt/perfkmem.
#
# upstream.sh TOOLS_CPIO OUT_CPIO

set -eu
. "$(dirname "$0")/lib.sh"

TOOLS=$1
CPIO=$2
CFG=$KMT_SELFTESTS/configs
PRISTINE=$(kmt_pristine)
BUILD=$(kmt_build upstream)
MOD=$KMT_CACHE/out/upstream-mod

[ -f "$TOOLS" ] || kmt_die "no $TOOLS (make bench's tools initramfs)"
KMT_BUILD_SRC=$PRISTINE "$KMT_BIN/build.sh" upstream "$CFG/base.config" \
	"$CFG/upstream.config"

rm -rf "$MOD"
mkdir -p "$MOD/root/kmt/perfkmem"
cp "$KMT_REPO/lib/kmemtrace_bench.c" "$MOD/"
cat >"$MOD/kmemtrace_bench_mod.c" <<'MODEOF'
/* lib/kmemtrace_bench.c, the load, as a module of a kernel without it. */
#define pr_fmt(fmt) "kmemtrace_bench: " fmt

#include <linux/module.h>
#include "kmemtrace_bench.c"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kmemtrace_bench, built out of tree");
MODEOF
echo 'obj-m := kmemtrace_bench_mod.o' >"$MOD/Kbuild"
make -s -C "$PRISTINE" O="$BUILD" M="$MOD" ARCH=x86_64 modules \
	>"$MOD/build.log" 2>&1 ||
	{ tail -n 20 "$MOD/build.log"; kmt_die "kmemtrace_bench_mod.ko failed to build"; }
cp "$MOD/kmemtrace_bench_mod.ko" "$MOD/root/kmt/perfkmem/"
{ cat "$TOOLS"
  (cd "$MOD/root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet); } >"$CPIO"
