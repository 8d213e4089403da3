#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# check-exact.sh DIR - run `kmemtrace check DIR` on streams read from
# the kernel since DIR/stats.before was copied from the stats file (with
# recording off and the buffers empty), and account exactly for every
# event each CPU took since then, with DIR/stats copied at the end:
#   next_seq(end) - next_seq(before)  events attempted
#   = events in the stream + dropped(end) - dropped(before),
# and the stream's seq numbers missing since next_seq(before), gaps and
# trailing ones, number exactly the events dropped meanwhile.
# Prints check's complaints, a line per CPU and a last line
#   "total: attempted A recorded R dropped D".
# Exits 1 if check fails or anything does not add up.

dir=$1
rc=0
kmemtrace check "$dir" >"$dir/check.txt" 2>&1 || rc=1
grep -v -e '^cpu[0-9]*: events' -e '^result: ok' "$dir/check.txt" |
	head -n 12
awk -v before="$dir/stats.before" -v after="$dir/stats" -v rc=$rc '
function num(key) {
	if (!match($0, key " [0-9]+"))
		return 0
	return substr($0, RSTART + length(key) + 1, RLENGTH - length(key) - 1) + 0
}
FILENAME == before && !/^#/ { nb[$1] = $4; db[$1] = $3 }
FILENAME == after && !/^#/ { na[$1] = $4; da[$1] = $3; ncpu = $1 + 1 }
FILENAME != before && FILENAME != after && /^cpu[0-9]+: events/ {
	cpu = substr($1, 4, length($1) - 4) + 0
	ev[cpu] = num("events"); first[cpu] = num("first seq")
	gaps[cpu] = num("gaps"); trail[cpu] = num("trailing")
}
END {
	bad = rc != 0
	for (cpu = 0; cpu < ncpu; cpu++) {
		att = na[cpu] - nb[cpu]; drop = da[cpu] - db[cpu]
		if (ev[cpu])
			lost = first[cpu] - nb[cpu] + gaps[cpu] + trail[cpu]
		else
			lost = att
		ok = lost == drop && ev[cpu] + drop == att
		printf "cpu%d: attempted %.0f recorded %.0f dropped %.0f missing %.0f%s\n",
			cpu, att, ev[cpu], drop, lost, ok ? "" : " MISMATCH"
		bad += !ok
		ta += att; tr += ev[cpu]; td += drop
	}
	printf "total: attempted %.0f recorded %.0f dropped %.0f\n", ta, tr, td
	exit bad != 0
}' "$dir/stats.before" "$dir/stats" "$dir/check.txt"
