#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ftracetest.sh - make ftracetest: upstream's whole ftracetest suite on
# the test kernel (the ftrace boot of make check, with kmt.ftracetest=all
# instead of its smoke, guest/ftrace.sh), the tests that failed rerun on
# the CONFIG_KMEMTRACE=n kernel, and one result per upstream test
# (bin/ftracetest-compare.sh): a test fails only if it fails with
# kmemtrace and passes without.  Each result is one line in
# $KMT_CACHE/out/ftracetest-results; the last line printed is
# "N passed, N failed, N skipped".  Exits 1 if anything failed.

set -u
. "$(dirname "$0")/lib.sh"

OUT=$KMT_CACHE/out
RES=$OUT/ftracetest-results
mkdir -p "$OUT"
: >"$RES"
t0=$(date +%s)

. "$KMT_BIN/boot-lib.sh"

if "$KMT_BIN/stage.sh" build ${KMT_MAKE:-make} -s -C "$KMT_REPO" initramfs; then
	result PASS build.kernel_tool_initramfs
else
	result FAIL build.kernel_tool_initramfs
fi
if "$KMT_BIN/stage.sh" build-off "$KMT_BIN/build.sh" off \
	"$KMT_SELFTESTS/configs/base.config" \
	"$KMT_SELFTESTS/configs/kmemtrace.config" \
	"$KMT_SELFTESTS/configs/off.config"; then
	result PASS build.kmemtrace_off
else
	result FAIL build.kmemtrace_off
fi

# Boot names differ from make check's: each boot's console stays.  No
# startup selftests (trace_event=): make check runs those.
boot ftracetest-all=ftrace "$KERNEL" "kunit.enable=0 trace_event= kmt.ftracetest=all" \
	'kmemtrace tracer - ' single
WITH=$OUT/ftracetest-all/guest/ftracetest.ktap
WITHOUT=$OUT/ftracetest-all-off/guest/ftracetest.ktap
rm -rf "$OUT/ftracetest-all-off"
"$KMT_BIN/ftracetest-failed.sh" "$WITH" >"$OUT/ftracetest-all.only"
if [ -s "$OUT/ftracetest-all.only" ]; then
	BOOT_INITRAMFS=$OUT/initramfs-ftracetest-all-off.cpio
	KMT_FTRACETEST_ONLY=$OUT/ftracetest-all.only \
	KMT_INITRAMFS=$BOOT_INITRAMFS "$KMT_BIN/mkinitramfs.sh"
	boot ftracetest-all-off=ftrace "$KERNEL_OFF" "kunit.enable=0 trace_event=" "" single
	BOOT_INITRAMFS=
fi
"$KMT_BIN/ftracetest-compare.sh" "$WITH" "$WITHOUT" >>"$RES"
grep -q '^PASS upstream\.' "$RES" || result FAIL upstream.ftracetest_ran

grep -E '^FAIL ' "$RES" | sed 's/^/kmemtrace: /'
pass=$(grep -c '^PASS ' "$RES")
fail=$(grep -c '^FAIL ' "$RES")
skip=$(grep -c '^SKIP ' "$RES")
kmt_log "results: $RES; consoles: $OUT/ftracetest-all*/console.log; total $(($(date +%s) - t0))s"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
