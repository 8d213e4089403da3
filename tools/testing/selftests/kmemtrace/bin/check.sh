#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# check.sh - run every kmemtrace test layer and sum them up:
#   build   the kernel, the tool and the initramfs build (make initramfs)
#   host    tools/kmemtrace tests on the host (host/run.sh, KTAP)
#   guest   one QEMU boot: KUnit suite kmemtrace and the guest shell tests
#           (KTAP on the console), the boot itself, and a console free of
#           kernel warnings
# Every test is one line in $KMT_CACHE/out/results; the last line printed
# is "N passed, N failed[, N skipped]".  Exits 1 if anything failed.

set -u
. "$(dirname "$0")/lib.sh"

OUT=$KMT_CACHE/out
RES=$OUT/results
mkdir -p "$OUT"
: >"$RES"
t0=$(date +%s)

result() {	# result PASS|FAIL|SKIP NAME
	echo "$1 $2" >>"$RES"
}

ktap() {	# ktap PREFIX < KTAP
	awk -f "$KMT_BIN/ktap.awk" | sed "s/^\([A-Z]*\) /\1 $1/" >>"$RES"
}

if "$KMT_BIN/stage.sh" build ${KMT_MAKE:-make} -s -C "$KMT_REPO" initramfs; then
	result PASS build.kernel_tool_initramfs
else
	result FAIL build.kernel_tool_initramfs
fi

if [ -x "$KMT_CACHE/tool/host/kmemtrace" ]; then
	rm -rf "$OUT/host"
	"$KMT_BIN/stage.sh" host-test sh "$KMT_SELFTESTS/host/run.sh" \
		"$KMT_CACHE/tool/host/kmemtrace" "$OUT/host" >"$OUT/host.ktap" 2>&1
	ktap host. <"$OUT/host.ktap"
	grep -q . "$OUT/host.ktap" || result FAIL host.run
fi

if grep -q '^FAIL build' "$RES"; then
	result FAIL guest.boot
elif "$KMT_BIN/stage.sh" boot "$KMT_BIN/run.sh" test; then
	result PASS guest.boot
else
	result FAIL guest.boot
fi
LOG=$OUT/test/console.log
if [ -f "$LOG" ]; then
	ktap "" <"$LOG"
	grep -q '^[A-Z]* kmemtrace\.' "$RES" || result FAIL kunit.kmemtrace_suite_ran
	if grep -nE 'WARNING:|BUG:|Oops|Call Trace:|UBSAN:|Kernel panic' "$LOG"; then
		result FAIL guest.console_clean
	else
		result PASS guest.console_clean
	fi
fi

grep -E '^(FAIL|SKIP) ' "$RES" | sed 's/^/kmemtrace: /'
pass=$(grep -c '^PASS ' "$RES")
fail=$(grep -c '^FAIL ' "$RES")
skip=$(grep -c '^SKIP ' "$RES")
kmt_log "results: $RES; console: $LOG; total $(($(date +%s) - t0))s"
echo "$pass passed, $fail failed$([ "$skip" = 0 ] || echo ", $skip skipped")"
[ "$fail" = 0 ]
