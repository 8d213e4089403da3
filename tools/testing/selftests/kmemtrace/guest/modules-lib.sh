#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# modules-lib.sh - what the guest/modules tests share.  Sourced after
# setting D (the kmemtrace debugfs directory), out (the recording's
# directory) and tmp (a prefix for scratch files).  Each test prints its
# checks as KTAP lines with ok, not_ok or result, and exits nonzero if one
# failed ($failed).

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
not_ok() {	# not_ok NAME [FILE]: FILE holds what differed
	n=$((n + 1))
	echo "not ok $n $1"
	[ -z "${2:-}" ] || sed 's/^/# /' "$2"
	failed=1
}
result() {	# result NAME STATUS [FILE]
	if [ "$2" = 0 ]; then ok "$1"; else not_ok "$1" "${3:-}"; fi
}

# record_start: `kmemtrace record` into $out in the background, returning
# once recording is on (1 if it never comes on within 10 s).
record_start() {
	rm -rf $out
	kmemtrace record -q -e -o $out >$tmp.record 2>&1 &
	rec=$!
	i=0
	while [ "$(cat $D/enabled)" != 1 ]; do
		kill -0 $rec 2>/dev/null && [ $i -lt 100 ] || return 1
		i=$((i + 1))
		sleep 0.1
	done
}

# record_stop: stop it; its exit status is in $rrc.
record_stop() {
	kill -INT $rec
	wait $rec
	rrc=$?
}

# record_complete NAME [FILE...]: one check that the recording is whole:
# record succeeded, the streams are valid, nothing was dropped, and each
# FILE is in it.
record_complete() {
	name=$1
	shift
	{ [ $rrc = 0 ] || { echo "kmemtrace record exited $rrc:"; cat $tmp.record; }
	  kmemtrace check $out >/dev/null 2>&1 || echo "kmemtrace check $out failed"
	  [ "$(cat $out/dropped 2>/dev/null)" = 0 ] ||
		echo "dropped: $(cat $out/dropped 2>&1), want 0"
	  for f; do
		[ -f "$out/$f" ] || echo "no $out/$f"
	  done; } >$tmp.clean
	result "$name" "$([ -s $tmp.clean ] && echo 1 || echo 0)" $tmp.clean
}

# possible_cpus: the number of possible CPUs (percpu sizes count them all).
possible_cpus() {
	awk -F, '{ for (i = 1; i <= NF; i++) { split($i, r, "-")
		n += (r[2] == "" ? 1 : r[2] - r[1] + 1) } } END { print n }' \
		/sys/devices/system/cpu/possible
}
