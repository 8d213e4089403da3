#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: three `kmemtrace record` runs back to back, each under a
#              load that overflows the tiny buffers: each recording
#              prints and stores its own drops (not the kernel's count
#              since boot, which grows across them), and `kmemtrace
#              check` holds every CPU to them exactly: the seq numbers
#              its recording lacks (leading + gaps + trailing) are its
#              drops while recording, per CPU and in total
# requires: booted with kmemtrace.subbufs=4 kmemtrace.subbuf_size=4096
#           (the harness's overrun boot), CONFIG_KMEMTRACE_BENCH; runs
#           after early_overrun.sh, which reads the boot's recording

D=/sys/kernel/debug/kmemtrace
B=/sys/kernel/debug/kmemtrace_bench/run
fail() { echo "FAIL: $*"; exit 1; }

grep -q 'kmemtrace.subbufs=4 ' /proc/cmdline ||
	{ echo "SKIP: not the overrun boot"; exit 4; }
[ -e $B ] || { echo "SKIP: no $B (CONFIG_KMEMTRACE_BENCH)"; exit 4; }
# The boot records from its start: stop that.  What it left in the
# buffers goes into the first recording, as events before its window.
echo 0 >$D/enabled || fail "cannot disable kmemtrace"

# load: every allocator, 2000 pairs of each, on every CPU at once, and
# the file system workload: far more than the 16 KiB of buffer of a CPU
# holds between two reads of record's drain thread for it, which runs on
# that CPU, beside the load
load='for cpu in $(seq 0 $(($(nproc) - 1))); do
	taskset -c $cpu sh -c "echo mix 2000 >'$B'" &
done
/kmt/workload.sh 1
wait'

# num KEY LINE: the number after "KEY " in LINE
num() {
	echo "$2" | sed -n "s/.*[:,] $1 \([0-9][0-9]*\).*/\1/p"
}

for i in 1 2 3; do
	dir=/tmp/back_to_back.$i
	rm -rf $dir
	boot_before=$(cat $D/dropped)
	kmemtrace record -q -o $dir -- sh -c "$load" 2>/tmp/back_to_back.$i.txt ||
		{ cat /tmp/back_to_back.$i.txt; fail "record $i failed"; }
	boot_after=$(cat $D/dropped)
	cat /tmp/back_to_back.$i.txt
	line=$(grep '^kmemtrace: recorded ' /tmp/back_to_back.$i.txt)
	printed=$(echo "$line" | sed -n 's/.* into [^ ]*, \([0-9][0-9]*\) dropped$/\1/p')
	[ -n "$printed" ] || fail "record $i: no 'N dropped' of its own in '$line'"
	[ "$printed" -gt 0 ] || fail "record $i: nothing dropped, no overrun to account for"
	# Its own drops: what the kernel's count since boot grew by.
	[ "$printed" = $((boot_after - boot_before)) ] ||
		fail "record $i: printed $printed dropped, the kernel dropped" \
			"$((boot_after - boot_before)) meanwhile" \
			"($boot_before to $boot_after since boot)"
	[ "$(cat $dir/dropped)" = "$printed" ] ||
		fail "record $i: $dir/dropped says $(cat $dir/dropped), record printed $printed"
	[ "$(cat $dir/dropped.start)" = "$boot_before" ] ||
		fail "record $i: $dir/dropped.start says" \
			"$(cat $dir/dropped.start), not $boot_before"
	[ -f $dir/stats.start ] || fail "record $i: no $dir/stats.start"
	# From the second one on, a count since boot would be wrong.
	[ $i = 1 ] || [ "$boot_after" -gt "$printed" ] ||
		fail "record $i: no drops before it, nothing to tell apart"

	kmemtrace check $dir >$dir/check.txt 2>&1
	rc=$?
	cat $dir/check.txt
	[ $rc = 0 ] || fail "record $i: kmemtrace check failed"
	[ "$(tail -n 1 $dir/check.txt)" = "result: ok" ] ||
		fail "record $i: check does not end with 'result: ok'"
	total=$(grep '^total: ' $dir/check.txt)
	case $total in
	*"not exact"*)	fail "record $i: check is not exact: $total" ;;
	esac
	gaps=$(num gaps "$total")
	leading=$(num leading "$total")
	trailing=$(num trailing "$total")
	dropped=$(num dropped "$total")
	[ -n "$gaps" ] && [ -n "$leading" ] && [ -n "$trailing" ] &&
		[ -n "$dropped" ] || fail "record $i: cannot read '$total'"
	[ "$dropped" = "$printed" ] ||
		fail "record $i: check says dropped $dropped, record printed $printed"
	[ $((gaps + leading + trailing)) = "$printed" ] ||
		fail "record $i: gaps $gaps + leading $leading + trailing" \
			"$trailing is not the $printed dropped"

	# The same per CPU, from the counters record kept: every seq number
	# a CPU took while recording is an event of the stream or a drop.
	awk -v start="$dir/stats.start" -v end="$dir/stats" '
	function num(key) {
		if (!match($0, ", " key " [0-9]+"))
			return -1
		return substr($0, RSTART + length(key) + 3,
			      RLENGTH - length(key) - 3) + 0
	}
	FILENAME == start && !/^#/ { s[$1] = $4; ds[$1] = $3 }
	FILENAME == end && !/^#/ { e[$1] = $4; de[$1] = $3; ncpu = $1 + 1 }
	FILENAME != start && FILENAME != end && /^cpu[0-9]+: events/ {
		cpu = substr($1, 4, length($1) - 4) + 0
		seen[cpu] = 1
		events = substr($3, 1, length($3) - 1) + 0
		earlier = num("earlier")
		win[cpu] = events - (earlier < 0 ? 0 : earlier)
		gaps = events ? num("gaps") : 0
		lost[cpu] = num("leading") + gaps + num("trailing")
		said[cpu] = num("dropped")
	}
	END {
		bad = 0
		for (cpu = 0; cpu < ncpu; cpu++) {
			att = e[cpu] - s[cpu]
			drop = de[cpu] - ds[cpu]
			if (!seen[cpu]) {
				if (drop)
					bad++
				continue
			}
			ok = win[cpu] + drop == att && lost[cpu] == drop &&
			     said[cpu] == drop
			printf "cpu%d: took %.0f, recorded %.0f, dropped %.0f, missing %.0f%s\n",
				cpu, att, win[cpu], drop, lost[cpu],
				ok ? "" : " MISMATCH"
			bad += !ok
		}
		exit bad != 0
	}' $dir/stats.start $dir/stats $dir/check.txt ||
		fail "record $i: a CPU's events and drops do not add up"
	echo "ok: record $i: $printed dropped while recording" \
		"($boot_after since boot), all accounted for"
done
