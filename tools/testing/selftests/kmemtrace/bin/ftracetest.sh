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

RES=$KMT_CACHE/out/ftracetest-results
. "$KMT_BIN/boot-lib.sh"

build_initramfs
build_kernel off

# Boot names differ from make check's: each boot's console stays.  No
# startup selftests (trace_event=): make check runs those.
boot ftracetest-all=ftrace "$KERNEL" "kunit.enable=0 trace_event= kmt.ftracetest=all" \
	'kmemtrace tracer - ' single
WITH=$OUT/ftracetest-all/guest/ftracetest.ktap
rerun_off ftracetest-all-off "$WITH" "kunit.enable=0 trace_event="
"$KMT_BIN/ftracetest-compare.sh" "$WITH" \
	"$OUT/ftracetest-all-off/guest/ftracetest.ktap" >>"$RES"
grep -q '^PASS upstream\.' "$RES" || result FAIL upstream.ftracetest_ran

summary "$OUT/ftracetest-all*/console.log" noskips
