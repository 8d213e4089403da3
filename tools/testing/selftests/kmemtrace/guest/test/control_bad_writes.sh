#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: writes to enabled other than 0 and 1 fail with EINVAL and
#              change nothing, on or off, and lose no recorded event
# requires: CONFIG_KMEMTRACE, debugfs at /sys/kernel/debug

D=/sys/kernel/debug/kmemtrace
fail() { echo 0 >$D/enabled; echo "FAIL: $*"; exit 1; }

events() {
	grep -v '^#' $D/stats | awk '{ n += $2 } END { print n + 0 }'
}

for state in 0 1; do
	echo $state >$D/enabled || fail "cannot set $state"
	for bad in 2 -1 on off yes 0x1 1x " " "1 1" 99999999999; do
		err=$(printf '%s' "$bad" | dd of=$D/enabled 2>&1) &&
			fail "writing '$bad' succeeded"
		case $err in
		*"Invalid argument"*) ;;
		*) fail "writing '$bad': '$err', want Invalid argument" ;;
		esac
		[ "$(cat $D/enabled)" = $state ] ||
			fail "writing '$bad' changed enabled from $state"
	done
done

# Still recording after the rejected writes, and nothing was lost.
before=$(events)
ls -R /proc/self >/dev/null
echo 0 >$D/enabled
after=$(events)
[ "$after" -gt "$before" ] || fail "no events after rejected writes"
[ "$(cat $D/dropped)" = 0 ] || fail "dropped $(cat $D/dropped)"
echo "ok: 10 bad values rejected in both states; $((after - before)) events"
