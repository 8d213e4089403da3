#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: allocation profiling built in but off from boot
#              (sysctl.vm.mem_profiling=0): /proc/allocinfo counts
#              nothing new, yet every alloc event still names its
#              codetag, so the benchmark's kmalloc()s resolve to their
#              line of lib/kmemtrace_bench.c
# requires: CONFIG_MEM_ALLOC_PROFILING, CONFIG_KMEMTRACE_BENCH, booted
#           with sysctl.vm.mem_profiling=0

B=/sys/kernel/debug/kmemtrace_bench/run
out=/tmp/profiling_off
fail() { echo "FAIL: $*"; exit 1; }

[ -f /proc/allocinfo ] || { echo "SKIP: no /proc/allocinfo"; exit 4; }
[ -e $B ] || { echo "SKIP: no $B"; exit 4; }
[ "$(cat /proc/sys/vm/mem_profiling)" = 0 ] ||
	fail "vm.mem_profiling is $(cat /proc/sys/vm/mem_profiling), want 0"

counters() {
	awk '/ lib\/kmemtrace_bench\.c:[0-9]+ func:pair_kmalloc / { print $1, $2 }' /proc/allocinfo
}
before=$(counters)
[ -n "$before" ] || fail "no line of pair_kmalloc in /proc/allocinfo"
/kmt/record-check.sh $out sh -c "echo 'kmalloc-64 100' >$B" ||
	fail "recording the benchmark failed"
after=$(counters)
[ "$before" = "$after" ] ||
	fail "allocinfo's pair_kmalloc line went from '$before' to '$after'"
n=$(kmemtrace dump $out | grep -c ' alloc kmalloc .* line=lib/kmemtrace_bench\.c:[0-9]* ')
[ "$n" = 100 ] || fail "$n kmalloc events name lib/kmemtrace_bench.c, want 100"
echo "ok: allocinfo unchanged ($after), 100 events at the benchmark's line"
