#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: kmemtrace.enable=1 records from early boot; with tiny
#              buffers they overflow, and on every CPU the events missing
#              from the stream are exactly the ones counted as dropped
# requires: booted with kmemtrace.enable=1 kmemtrace.subbufs=4
#           kmemtrace.subbuf_size=4096 (the harness's overrun boot)

D=/sys/kernel/debug/kmemtrace
fail() { echo "FAIL: $*"; exit 1; }

grep -q 'kmemtrace.subbufs=4 ' /proc/cmdline ||
	{ echo "SKIP: not the overrun boot"; exit 4; }
[ "$(cat $D/enabled)" = 1 ] || fail "not recording since boot"
[ "$(cat $D/subbufs)" = 4 ] || fail "subbufs is $(cat $D/subbufs)"
[ "$(cat $D/subbuf_size)" = 4096 ] || fail "subbuf_size $(cat $D/subbuf_size)"
[ "$(cat $D/dropped)" -gt 0 ] || fail "no overrun with 16 KiB buffers"

# Nothing has read the buffers yet: they start at the first boot event.
out=/tmp/overrun
kmemtrace record -o $out -- /kmt/workload.sh 1 || fail "record failed"
kmemtrace check $out >$out/check.txt 2>&1
rc=$?
cat $out/check.txt
[ $rc = 0 ] || fail "missing events do not match the dropped counters"
first=$(kmemtrace dump $out | awk 'NR == 1 { print; exit }')
echo "first event: $first"
grep -q '^cpu0: .*first seq 0' $out/check.txt || fail "cpu0 does not start at seq 0"
echo "ok: boot recorded from seq 0, gaps equal dropped ($(cat $D/dropped))"
