#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: kmemtrace_bench's floor file: Y attaches the floor once (a
#              second Y does not attach it twice), every pair of a run
#              is written on the CPU that ran it, N detaches it (nothing
#              more is counted), and bad writes fail with EINVAL without
#              attaching it
# requires: CONFIG_KMEMTRACE_BENCH, CONFIG_TRACEPOINTS, debugfs at
#           /sys/kernel/debug

B=/sys/kernel/debug/kmemtrace_bench/run
F=/sys/kernel/debug/kmemtrace_bench/floor
fail() { echo "FAIL: $*"; exit 1; }

[ -e $F ] || { echo "SKIP: no $F"; exit 4; }

# every CPU's count, one line
counts() { awk '{ printf "%s%s:%s", NR > 1 ? " " : "", $1, $2 }' $F; }
# CPU 1's count
cpu1() { awk '$1 == 1 { print $2 }' $F; }
# run PAIRS: that many kmem_cache_alloc()/kmem_cache_free() pairs on CPU 1
run() { taskset -c 1 sh -c "echo 'cache $1' >$B" || fail "cache $1 failed"; }

[ "$(awk 'END { print NR }' $F)" -ge 2 ] || fail "$F has no line for CPU 1"

echo N >$F || fail "writing N failed"
before=$(counts)
for bad in maybe 2 x; do
	err=$(printf '%s' "$bad" | dd of=$F 2>&1) && fail "writing '$bad' succeeded"
	case $err in
	*"Invalid argument"*) ;;
	*) fail "writing '$bad': '$err', want Invalid argument" ;;
	esac
done
run 1000
[ "$(counts)" = "$before" ] || fail "bad writes attached the floor: $before, then $(counts)"
echo "# bad writes: EINVAL, the floor left detached"

echo Y >$F || fail "writing Y failed"
echo Y >$F || fail "writing Y again failed"
c0=$(cpu1)
run 1000
c1=$(cpu1)
# The run's 2000 events, and the few of the shell around it; twice
# attached would write each event twice.
[ $((c1 - c0)) -ge 2000 ] && [ $((c1 - c0)) -lt 4000 ] ||
	fail "1000 cache pairs on CPU 1 wrote $((c1 - c0)) events, want 2000 and a few"
echo "# attached: $((c1 - c0)) events for 1000 pairs; $F:"
sed 's/^/# /' $F

echo N >$F || fail "writing N failed"
echo N >$F || fail "writing N again failed"
before=$(counts)
run 1000
[ "$(counts)" = "$before" ] || fail "detached, the floor still wrote: $before, then $(counts)"
echo "# detached: nothing written"
