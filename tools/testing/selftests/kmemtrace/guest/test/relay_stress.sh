#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: the relay streams stay exact while `kmemtrace record` reads
#              them continuously and every CPU allocates at full rate:
#              over at least 10 M events, recorded in chunks that fit in
#              memory, every event is well formed and in seq order, and
#              on every CPU the events missing from the stream are exactly
#              those counted as dropped (record-check.sh); with
#              kmemtrace.clock=tsc (make stress), the recording's header
#              says the kernel stamped the TSC
# requires: CONFIG_KMEMTRACE, CONFIG_KMEMTRACE_BENCH, 2 or more CPUs, the
#           kmemtrace tool in PATH

TARGET=${KMT_STRESS_EVENTS:-10000000}
# Pairs of "mix" per CPU per chunk: about 1.7 M events per chunk.
PAIRS=${KMT_STRESS_PAIRS:-150000}
out=/tmp/relay_stress
fail() { echo "FAIL: $*"; exit 1; }

[ -e /sys/kernel/debug/kmemtrace_bench/run ] ||
	{ echo "SKIP: no CONFIG_KMEMTRACE_BENCH"; exit 4; }
command -v kmemtrace >/dev/null || { echo "SKIP: no kmemtrace tool"; exit 4; }
[ "$(nproc)" -ge 2 ] || { echo "SKIP: needs 2 CPUs"; exit 4; }

t0=$(date +%s)
attempted=0 recorded=0 dropped=0 chunks=0 failed=0
while [ $attempted -lt "$TARGET" ]; do
	chunks=$((chunks + 1))
	/kmt/record-check.sh $out /kmt/bench.sh mix $PAIRS >/tmp/chunk.txt 2>&1
	rc=$?
	set -- $(tail -n 1 /tmp/chunk.txt)
	[ "$1 $2 $4 $6" = "total: attempted recorded dropped" ] ||
		{ cat /tmp/chunk.txt; fail "chunk $chunks: no totals"; }
	[ "$3" -gt 0 ] || { cat /tmp/chunk.txt; fail "chunk $chunks: no events"; }
	attempted=$((attempted + $3))
	recorded=$((recorded + $5))
	dropped=$((dropped + $7))
	if [ $chunks = 1 ] && grep -qw 'kmemtrace.clock=tsc' /proc/cmdline &&
	   ! grep -qx stamp=tsc $out/header; then
		fail "kmemtrace.clock=tsc, but the header has $(grep stamp= $out/header)"
	fi
	if [ $rc != 0 ]; then
		failed=$((failed + 1))
		echo "chunk $chunks FAILED:"
		cat /tmp/chunk.txt
	fi
	rm -rf $out
done
echo "$chunks chunks in $(($(date +%s) - t0))s: attempted $attempted," \
	"recorded $recorded, dropped $dropped"
[ $failed = 0 ] || fail "$failed of $chunks chunks have invalid or unaccounted events"
echo "ok: every chunk checked and accounted exactly"
