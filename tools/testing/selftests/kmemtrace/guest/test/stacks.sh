#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: with stack_sample=1 and stack_frees=1 every event that
#              reaches a buffer (or is dropped) was given a stack or
#              counted as lost, exactly; the stacks file lists them,
#              without kmemtrace's own frames, every frame kernel text
#              (none of user space), and the benchmark's
#              stacks name the benchmark's functions
# requires: CONFIG_KMEMTRACE_STACKS, CONFIG_KMEMTRACE_BENCH, debugfs

D=/sys/kernel/debug/kmemtrace
B=/sys/kernel/debug/kmemtrace_bench/run
fail() { echo 0 >$D/enabled; echo 0 >$D/stack_sample; echo "FAIL: $*"; exit 1; }

[ -e $B ] || { echo "SKIP: no $B"; exit 4; }

# "captured lost unlisted" of the stacks file's second line
counters() {
	sed -n 's/^# captured \([0-9]*\) lost \([0-9]*\) unlisted \([0-9]*\)$/\1 \2 \3/p' $D/stacks
}
# events recorded plus dropped (but in NMI, which no probe sees), all CPUs
events() {
	grep -v '^#' $D/stats | awk '{ n += $2 + $3 - $5 } END { print n + 0 }'
}

set -- $(counters)
[ $# = 3 ] || fail "stacks counters line: '$(sed -n 2p $D/stacks)'"
c0=$1 l0=$2 u0=$3
echo 1 >$D/stack_sample || fail "cannot set stack_sample"
echo 1 >$D/stack_frees || fail "cannot set stack_frees"
e0=$(events)
echo 1 >$D/enabled || fail "cannot enable"
echo "kmalloc-64 200" >$B || fail "benchmark run failed"
echo "pages-0 50" >$B || fail "benchmark run failed"
echo 0 >$D/enabled
e1=$(events)
echo 0 >$D/stack_sample
echo 0 >$D/stack_frees
set -- $(counters)
c1=$1 l1=$2 unlisted=$(($3 - u0))
[ $((c1 + l1 - c0 - l0)) = $((e1 - e0)) ] ||
	fail "stacks captured $((c1 - c0)) + lost $((l1 - l0)), events $((e1 - e0))"
[ $((e1 - e0)) -ge 500 ] || fail "only $((e1 - e0)) events for 250 pairs"
[ "$unlisted" = 0 ] || fail "$unlisted stacks not listed"
echo "# $((c1 - c0)) stacks captured, $((l1 - l0)) lost, for $((e1 - e0)) events"

# Every listed stack has as many frames as it says, none of them ours
# first, and the benchmark's pairs are among them.
awk '/^stack / { if (want) bad = 1; want = $3; first = 1; next }
     /^ [0-9a-f]+ / { if (!want) bad = 1; want--
		     if (first && $2 ~ /^(__)?(kmemtrace_|probe_|__traceiter_)/) ours = 1
		     first = 0; next }
     !/^#/ { bad = 1 }
     END { exit bad || want || ours }' $D/stacks ||
	fail "stacks file is malformed or starts stacks in kmemtrace's frames"
# Every frame is a kernel address with a symbol: the walk from a system
# call ends at its entry, not at the user-space address it came from.
bad=$(awk '/^ [0-9a-f]+ / && ($1 !~ /^ffff/ || $2 !~ /\+0x[0-9a-f]+\/0x/)' $D/stacks | head -3)
[ -z "$bad" ] || fail "frames that are not kernel text: $bad"
grep -q ' pair_kmalloc+0x' $D/stacks || fail "no stack through pair_kmalloc"
grep -q ' pair_pages+0x' $D/stacks || fail "no stack through pair_pages"
echo "ok: every event of the window has its stack or is counted lost"
