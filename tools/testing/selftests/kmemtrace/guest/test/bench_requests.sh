#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: kmemtrace_bench's run file: "OP N RATE" takes at least the
#              N / RATE seconds its pacing promises (make bench's ramp
#              relies on it), and bad requests fail with EINVAL without
#              replacing the last run's result
# requires: CONFIG_KMEMTRACE_BENCH, debugfs at /sys/kernel/debug

B=/sys/kernel/debug/kmemtrace_bench/run
fail() { echo "FAIL: $*"; exit 1; }

[ -e $B ] || { echo "SKIP: no $B"; exit 4; }

# 400 pairs at 1000 per second: 0.4 s at least; flat out they take ~1 ms.
echo "kmalloc-64 400 1000" >$B || fail "paced run failed"
set -- $(cat $B)
[ "$1 $2" = "kmalloc-64 400" ] || fail "read back '$*', want kmalloc-64 400 NSECS"
[ "$3" -ge 400000000 ] || fail "400 pairs at 1000/s took $3 ns, want >= 400000000"
echo "# paced: 400 pairs at 1000/s in $3 ns"
last=$(cat $B)

for bad in "kmalloc-64" "kmalloc-64 0" "kmalloc-64 10 0" "kmalloc-64 10 x" \
	   "kmalloc-64 10 99999999999" "nosuch 10" "kmalloc-64 -1"; do
	err=$(printf '%s' "$bad" | dd of=$B 2>&1) && fail "writing '$bad' succeeded"
	case $err in
	*"Invalid argument"*) ;;
	*) fail "writing '$bad': '$err', want Invalid argument" ;;
	esac
	[ "$(cat $B)" = "$last" ] || fail "writing '$bad' replaced the last result"
done
echo "# bad requests: EINVAL, last result kept"
