#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: kmemtrace debugfs files exist, root-only where they leak
#              addresses, one cpuN per possible CPU, enabled switches
# requires: CONFIG_KMEMTRACE, debugfs at /sys/kernel/debug

D=/sys/kernel/debug/kmemtrace
fail() { echo "FAIL: $*"; exit 1; }

mode_is() {
	m=$(stat -c %a "$D/$1") || fail "$D/$1 missing"
	[ "$m" = "$2" ] || fail "$1 has mode $m, want $2"
}

mode_is enabled 600
mode_is buffers 600
mode_is clock 600
mode_is abi_version 444
mode_is dropped 444
mode_is stats 444
mode_is caches 400
mode_is subbufs 444
mode_is subbuf_size 444
mode_is tags 400
mode_is stacks 400
mode_is stack_sample 600
mode_is stack_frees 600
mode_is sample_period 600
mode_is sample_seed 600
mode_is sample_stats 400

ncpu=$(grep -c '^processor' /proc/cpuinfo)
[ "$ncpu" -ge 2 ] || fail "want at least 2 CPUs, have $ncpu"
i=0
while [ $i -lt "$ncpu" ]; do
	mode_is cpu$i 400
	i=$((i + 1))
done
[ ! -e "$D/cpu$ncpu" ] || fail "cpu$ncpu exists with $ncpu CPUs"

# The TSC is sched_clock()'s on x86 (not under a hypervisor's clock);
# local is in force unless the boot chose tsc (make stress's relay boots).
clock="[local] tsc"
grep -qw 'kmemtrace.clock=tsc' /proc/cmdline && clock="local [tsc]"
[ "$(cat $D/clock)" = "$clock" ] || fail "clock is '$(cat $D/clock)', want '$clock'"
[ "$(cat $D/abi_version)" = 3 ] || fail "abi_version is $(cat $D/abi_version)"
[ "$(cat $D/subbufs)" = 64 ] || fail "subbufs is $(cat $D/subbufs), want 64"
[ "$(cat $D/subbuf_size)" = 65536 ] || fail "subbuf_size is $(cat $D/subbuf_size)"
case $(cat $D/dropped) in
''|*[!0-9]*) fail "dropped is not a number: $(cat $D/dropped)" ;;
esac
[ "$(head -n 1 $D/stats)" = "# kmemtrace stats v2" ] || fail "stats header"
[ "$(grep -vc '^#' $D/stats)" = "$ncpu" ] || fail "stats wants $ncpu CPU lines"
[ "$(grep -v '^#' $D/stats | awk 'NF != 5' | wc -l)" = 0 ] ||
	fail "stats lines want 5 fields"
[ "$(head -n 1 $D/caches)" = "# kmemtrace caches v1" ] || fail "caches header"
# Every slab cache has a distinct nonzero id; kmalloc-64 is one of them.
grep -v '^#' $D/caches | awk '$1 == 0 || seen[$1]++ { bad = 1 } END { exit bad }' ||
	fail "cache ids not distinct and nonzero"
grep -q '^[0-9]* kmalloc-64 64 64$' $D/caches || fail "no kmalloc-64 in caches"

# tags: a header, then "tag file:line function module" for every
# codetag; the benchmark's kmalloc line is one, built in.
[ "$(head -n 1 $D/tags)" = "# kmemtrace tags v1" ] || fail "tags header"
grep -v '^#' $D/tags | awk 'NF != 4 || $1 !~ /^[0-9a-f]{16}$/ || $2 !~ /:[0-9]+$/ { bad = 1 }
	END { exit bad }' || fail "tags lines want 4 fields: tag file:line function module"
grep -q '^[0-9a-f]* lib/kmemtrace_bench.c:[0-9]* [a-z_]* -$' $D/tags ||
	fail "no lib/kmemtrace_bench.c tag in tags"
ntags=$(grep -vc '^#' $D/tags)
nallocinfo=$(tail -n +3 /proc/allocinfo | wc -l)
[ "$ntags" = "$nallocinfo" ] || fail "tags lists $ntags tags, allocinfo $nallocinfo"
[ "$(cat $D/stack_sample)" = 0 ] || fail "stack_sample is not 0 at boot"
[ "$(cat $D/stack_frees)" = 0 ] || fail "stack_frees is not 0 at boot"
[ "$(head -n 1 $D/stacks)" = "# kmemtrace stacks v1" ] || fail "stacks header"
[ "$(cat $D/sample_period)" = 0 ] || fail "sample_period is not 0 at boot"
[ "$(cat $D/sample_seed)" = 0 ] || fail "sample_seed is not 0 at boot"
[ "$(head -n 2 $D/sample_stats | tail -n 1)" = "# period 0" ] ||
	fail "sample_stats: $(head -n 2 $D/sample_stats | tr '\n' ' ')"

[ "$(cat $D/enabled)" = 0 ] || fail "enabled at boot without kmemtrace.enable"
echo 1 >$D/enabled || fail "cannot write 1"
[ "$(cat $D/enabled)" = 1 ] || fail "enabled does not read 1"
echo 0 >$D/enabled || fail "cannot write 0"
[ "$(cat $D/enabled)" = 0 ] || fail "enabled does not read 0"
echo "ok: modes, $ncpu cpu files, abi_version, geometry, tags, stacks, enabled 0/1"
