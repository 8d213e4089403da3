#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: bad kmemtrace.* boot parameters are rejected with a message
#              naming them, and the defaults stay in force
# requires: booted with kmemtrace.subbufs=abc kmemtrace.subbuf_size=100
#           kmemtrace.enable=maybe (the harness's params boot)

D=/sys/kernel/debug/kmemtrace
P=/sys/module/kmemtrace/parameters
fail() { echo "FAIL: $*"; exit 1; }

grep -q 'kmemtrace.subbufs=abc' /proc/cmdline ||
	{ echo "SKIP: not the params boot"; exit 4; }

want_msg() {
	dmesg | grep -qF "$1" || fail "no message '$1'"
}
want_msg "kmemtrace: invalid kmemtrace.subbufs=abc: want 2..4096, keeping 64"
want_msg "kmemtrace: invalid kmemtrace.subbuf_size=100: want 160..536870912, keeping 65536"
want_msg "kmemtrace: invalid kmemtrace.enable=maybe: want 0 or 1, keeping 0"

[ "$(cat $D/subbufs)" = 64 ] || fail "subbufs is $(cat $D/subbufs)"
[ "$(cat $D/subbuf_size)" = 65536 ] || fail "subbuf_size is $(cat $D/subbuf_size)"
[ "$(cat $D/enabled)" = 0 ] || fail "enabled is $(cat $D/enabled)"
[ "$(cat $P/subbufs)" = 64 ] || fail "parameter subbufs is $(cat $P/subbufs)"
[ "$(cat $P/subbuf_size)" = 65536 ] || fail "parameter subbuf_size"
[ "$(cat $P/enable)" = N ] || fail "parameter enable is $(cat $P/enable)"

# And kmemtrace works with the defaults.
kmemtrace record -o /tmp/params -- ls -R /proc/self >/dev/null ||
	fail "record failed"
kmemtrace check /tmp/params || fail "check failed"
echo "ok: 3 bad parameters rejected with messages, defaults in force"
