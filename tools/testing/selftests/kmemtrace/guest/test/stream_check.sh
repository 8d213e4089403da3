#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a recorded workload gives valid streams on every CPU:
#              right magic, ABI, CPU, gap-free sequence numbers
# requires: CONFIG_KMEMTRACE, the kmemtrace tool in PATH

D=/sys/kernel/debug/kmemtrace
fail() { echo "FAIL: $*"; exit 1; }
command -v kmemtrace >/dev/null || { echo "SKIP: no kmemtrace tool"; exit 4; }

out=/tmp/stream_check
rm -rf $out
kmemtrace record -o $out -- /kmt/workload.sh 2 || fail "record failed"
[ "$(cat $D/enabled)" = 0 ] || fail "record left recording on"
kmemtrace check $out || fail "check found corrupt streams"

ncpu=$(grep -c '^processor' /proc/cpuinfo)
i=0
while [ $i -lt "$ncpu" ]; do
	size=$(stat -c %s $out/cpu$i) || fail "no cpu$i stream"
	[ "$size" -gt 0 ] || fail "cpu$i stream is empty"
	[ $((size % 96)) = 0 ] || fail "cpu$i stream is $size bytes"
	i=$((i + 1))
done
kmemtrace report $out | head -n 20
