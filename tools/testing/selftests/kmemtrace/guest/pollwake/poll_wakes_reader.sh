#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a reader waiting in poll() on a cpuN buffer is woken when
#              it becomes readable, before the buffer is full, with two
#              sub-buffers of 200 bytes (not a whole number of events):
#              30 times the reader hands back all but two events and
#              waits while cpu1 allocates; a poll() that times out with
#              the buffer full fails the test (before the fix, one in
#              three did)
# requires: booted with kmemtrace.subbufs=2 kmemtrace.subbuf_size=200
#           (the harness's pollwake boot), 2 CPUs, ringpoll

D=/sys/kernel/debug/kmemtrace
fail() { echo "FAIL: $*"; exit 1; }

grep -q 'kmemtrace.subbuf_size=200' /proc/cmdline ||
	{ echo "SKIP: not the pollwake boot"; exit 4; }
command -v ringpoll >/dev/null || { echo "SKIP: no ringpoll"; exit 4; }
[ "$(cat $D/subbufs) $(cat $D/subbuf_size)" = "2 200" ] ||
	fail "geometry $(cat $D/subbufs) x $(cat $D/subbuf_size)"
[ -e /sys/devices/system/cpu/cpu1 ] || { echo "SKIP: one CPU"; exit 4; }

echo 1 >$D/enabled || fail "cannot enable"
out=$(ringpoll 1 30)
rc=$?
echo 0 >$D/enabled
echo "ringpoll: $out"
[ $rc = 0 ] || fail "a reader slept in poll() on a full buffer"
echo "ok: woken every time"
