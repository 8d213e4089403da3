#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: the relay buffers are allocated on first use and freed only
#              by "release" in the buffers file, which is refused while
#              recording; the cpuN files come and go with them
# requires: CONFIG_KMEMTRACE, the kmemtrace tool in PATH

D=/sys/kernel/debug/kmemtrace
fail() { echo "FAIL: $*"; exit 1; }

ncpu=$(grep -c '^processor' /proc/cpuinfo)
want=$(($(cat $D/subbufs) * $(cat $D/subbuf_size) * ncpu))

[ "$(stat -c %a $D/buffers)" = 600 ] || fail "buffers is not 0600"
echo 1 >$D/enabled || fail "cannot enable"
[ "$(cat $D/buffers)" = "allocated $want" ] ||
	fail "buffers is '$(cat $D/buffers)' while recording, want $want bytes"
if echo release >$D/buffers 2>/tmp/release.err; then
	fail "release accepted while recording"
fi
grep -q 'busy' /tmp/release.err || fail "release while recording: $(cat /tmp/release.err)"
[ -e $D/cpu0 ] || fail "cpu0 gone after a refused release"
echo 0 >$D/enabled || fail "cannot disable"

echo release >$D/buffers || fail "release refused while not recording"
[ "$(cat $D/buffers)" = "released 0" ] || fail "buffers is '$(cat $D/buffers)'"
[ ! -e $D/cpu0 ] || fail "cpu0 still there after release"
echo release >$D/buffers || fail "a second release is not a no-op"

echo allocate >$D/buffers || fail "cannot allocate"
[ "$(cat $D/buffers)" = "allocated $want" ] || fail "allocate: '$(cat $D/buffers)'"
[ -e $D/cpu$((ncpu - 1)) ] || fail "no cpu$((ncpu - 1)) file after allocate"
echo release >$D/buffers || fail "cannot release again"

# The tool allocates what it needs.
kmemtrace record -o /tmp/release -- ls -R /proc/self >/dev/null ||
	fail "record after release failed"
kmemtrace check /tmp/release || fail "check after release failed"
echo "ok: allocated on use ($want bytes), release refused while recording," \
	"files removed and recreated"
