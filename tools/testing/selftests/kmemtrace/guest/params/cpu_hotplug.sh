#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a CPU brought online gets a buffer and a cpuN file; a CPU
#              taken offline keeps its file and recorded events readable
# requires: CONFIG_HOTPLUG_CPU, booted with maxcpus=1 on 2 vCPUs

D=/sys/kernel/debug/kmemtrace
C=/sys/devices/system/cpu/cpu1
fail() { echo "FAIL: $*"; exit 1; }

[ -e $C/online ] || { echo "SKIP: cpu1 cannot be hotplugged"; exit 4; }
[ "$(cat $C/online)" = 0 ] || { echo "SKIP: cpu1 online at boot"; exit 4; }
echo allocate >$D/buffers || fail "cannot allocate the buffers"
[ -e $D/cpu0 ] || fail "no cpu0 file with buffers allocated"
[ ! -e $D/cpu1 ] || fail "cpu1 file exists before cpu1 was ever online"

echo 1 >$C/online || fail "cannot online cpu1"
[ -e $D/cpu1 ] || fail "no cpu1 file after onlining cpu1"

echo 1 >$D/enabled
taskset -c 1 ls -R /proc/self >/dev/null || fail "cannot run on cpu1"
echo 0 >$D/enabled
echo 0 >$C/online || fail "cannot offline cpu1"

[ -e $D/cpu1 ] || fail "cpu1 file gone after offlining cpu1"
cat $D/cpu1 >/tmp/cpu1 || fail "cannot read cpu1 while offline"
size=$(stat -c %s /tmp/cpu1)
[ "$size" -gt 0 ] || fail "no events kept for offline cpu1"
mkdir -p /tmp/hotplug && mv /tmp/cpu1 /tmp/hotplug/cpu1
kmemtrace check /tmp/hotplug || fail "cpu1 stream corrupt"
echo "ok: cpu1 file created on online, $((size / 96)) events kept offline"
