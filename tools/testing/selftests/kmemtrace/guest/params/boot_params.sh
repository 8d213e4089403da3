#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: bad kmemtrace.* boot parameters are rejected with a message
#              naming them, and the defaults stay in force; a buffer size
#              above the per-CPU cap is refused; nothing is allocated
#              before recording is first enabled; kmemtrace.clock=tsc
#              records with the TSC
# requires: booted with kmemtrace.subbufs=abc kmemtrace.subbuf_size=100
#           kmemtrace.enable=maybe kmemtrace.subbufs=2048
#           kmemtrace.subbuf_size=2097152 kmemtrace.sample=2147483648
#           kmemtrace.sample_seed=xyz kmemtrace.clock=hpet
#           kmemtrace.clock=tsc, no kunit (the harness's params boot);
#           runs first in that boot

D=/sys/kernel/debug/kmemtrace
P=/sys/module/kmemtrace/parameters
fail() { echo "FAIL: $*"; exit 1; }

grep -q 'kmemtrace.subbufs=abc' /proc/cmdline ||
	{ echo "SKIP: not the params boot"; exit 4; }

# Built in but never enabled: no buffer memory, no cpuN files.
[ "$(cat $D/buffers)" = "released 0" ] ||
	fail "buffers is '$(cat $D/buffers)' before any recording"
[ ! -e $D/cpu0 ] || fail "cpu0 exists before any recording"

want_msg() {
	dmesg | grep -qF "$1" || fail "no message '$1'"
}
want_msg "kmemtrace: invalid kmemtrace.subbufs=abc: want 2..4096, keeping 64"
want_msg "kmemtrace: invalid kmemtrace.subbuf_size=100: want 192..536870912, keeping 65536"
want_msg "kmemtrace: invalid kmemtrace.enable=maybe: want 0 or 1, keeping 0"
# 2048 x 64 KiB fits the cap of 1 GiB per CPU; 2048 x 2 MiB does not.
msg="kmemtrace: invalid kmemtrace.subbuf_size=2097152: buffers of 4096 MiB per CPU"
want_msg "$msg are above the 1024 MiB limit, keeping 65536"
msg="kmemtrace: invalid kmemtrace.sample=2147483648: want 0 (every event)"
want_msg "$msg to 1073741824 bytes, keeping 0"
want_msg "kmemtrace: invalid kmemtrace.sample_seed=xyz: want a number, 0 for a random seed"
want_msg "kmemtrace: invalid kmemtrace.clock=hpet: want local or tsc, keeping local"
# Then kmemtrace.clock=tsc, where the TSC is sched_clock()'s (x86 here).
[ "$(cat $P/clock)" = tsc ] || fail "parameter clock is $(cat $P/clock)"
[ "$(cat $D/clock)" = "local [tsc]" ] || fail "clock is '$(cat $D/clock)'"
[ "$(cat $D/sample_period)" = 0 ] || fail "sample_period is $(cat $D/sample_period)"
[ "$(cat $D/sample_seed)" = 0 ] || fail "sample_seed is $(cat $D/sample_seed)"

[ "$(cat $D/subbufs)" = 2048 ] || fail "subbufs is $(cat $D/subbufs)"
[ "$(cat $D/subbuf_size)" = 65536 ] || fail "subbuf_size is $(cat $D/subbuf_size)"
[ "$(cat $D/enabled)" = 0 ] || fail "enabled is $(cat $D/enabled)"
[ "$(cat $P/subbufs)" = 2048 ] || fail "parameter subbufs is $(cat $P/subbufs)"
[ "$(cat $P/subbuf_size)" = 65536 ] || fail "parameter subbuf_size"
[ "$(cat $P/enable)" = N ] || fail "parameter enable is $(cat $P/enable)"

# And kmemtrace works with the defaults.
kmemtrace record -o /tmp/params -- ls -R /proc/self >/dev/null ||
	fail "record failed"
kmemtrace check /tmp/params || fail "check failed"
want=$((2048 * 65536 * $(ls -d $D/cpu[0-9]* | wc -l)))
[ "$(cat $D/buffers)" = "allocated $want" ] ||
	fail "buffers is '$(cat $D/buffers)', want 'allocated $want'"
echo "ok: 7 bad parameters rejected with messages, defaults in force," \
	"buffers allocated on first use ($want bytes), recorded with the tsc clock"
