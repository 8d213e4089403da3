#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# check.sh - run every kmemtrace test layer and sum them up:
#   build   the kernel, the tool and the initramfs build (make initramfs)
#   host    tools/kmemtrace tests on the host (host/run.sh, KTAP)
#   boots   QEMU boots, each with its guest shell tests (KTAP on the
#           console), the boot itself and a console free of kernel warnings:
#           test     KUnit suite kmemtrace and the debugfs/stream tests
#           params   bad kmemtrace.* parameters, CPU hotplug (maxcpus=1)
#           overrun  recording from boot into tiny buffers: exact loss
#           off      a CONFIG_KMEMTRACE=n kernel (built here too)
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

# boot NAME KERNEL CMDLINE: one QEMU boot running the guest tests of NAME.
boot() {
	if grep -q '^FAIL build' "$RES"; then
		result FAIL "boot.$1"
		return
	fi
	if "$KMT_BIN/stage.sh" "boot-$1" "$KMT_BIN/run.sh" "$1" "$3" "$2"; then
		result PASS "boot.$1"
	else
		result FAIL "boot.$1"
	fi
	log=$OUT/$1/console.log
	[ -f "$log" ] || return
	ktap "" <"$log"
	grep -q "^[A-Z]* kmemtrace_$1\\." "$RES" || result FAIL "boot.$1.tests_ran"
	if grep -nE 'WARNING:|BUG:|Oops|Call Trace:|UBSAN:|Kernel panic' "$log"; then
		result FAIL "boot.$1.console_clean"
	else
		result PASS "boot.$1.console_clean"
	fi
}

# The KUnit suite runs in the first boot only.
boot test kmemtrace ""
grep -q '^[A-Z]* kmemtrace\.' "$RES" || result FAIL kunit.kmemtrace_suite_ran
boot params kmemtrace "kunit.enable=0 maxcpus=1 kmemtrace.subbufs=abc kmemtrace.subbuf_size=100 kmemtrace.enable=maybe"
boot overrun kmemtrace "kunit.enable=0 kmemtrace.enable=1 kmemtrace.subbufs=4 kmemtrace.subbuf_size=4096"

# CONFIG_KMEMTRACE=n: builds, leaves no trace of kmemtrace, boots.
if "$KMT_BIN/stage.sh" build-off "$KMT_BIN/build.sh" off \
	"$KMT_SELFTESTS/configs/base.config" \
	"$KMT_SELFTESTS/configs/kmemtrace.config" \
	"$KMT_SELFTESTS/configs/off.config"; then
	result PASS build.kmemtrace_off
	if nm "$(kmt_build off)/vmlinux" | grep -i kmemtrace; then
		result FAIL build.kmemtrace_off_has_no_kmemtrace_symbols
	else
		result PASS build.kmemtrace_off_has_no_kmemtrace_symbols
	fi
	boot off off "kunit.enable=0"
else
	result FAIL build.kmemtrace_off
fi

grep -E '^(FAIL|SKIP) ' "$RES" | sed 's/^/kmemtrace: /'
pass=$(grep -c '^PASS ' "$RES")
fail=$(grep -c '^FAIL ' "$RES")
skip=$(grep -c '^SKIP ' "$RES")
kmt_log "results: $RES; consoles: $OUT/*/console.log; total $(($(date +%s) - t0))s"
echo "$pass passed, $fail failed$([ "$skip" = 0 ] || echo ", $skip skipped")"
[ "$fail" = 0 ]
