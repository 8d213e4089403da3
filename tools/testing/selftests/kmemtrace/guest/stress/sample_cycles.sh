#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: under a full allocation load on both CPUs, sampled
#              recordings (`kmemtrace record -s 16384`) run back to back
#              while cpu1 goes offline and online: every recording
#              passes `kmemtrace check` and the exact accounting of
#              record-check.sh, every event carries the recording's
#              sample_period, every free it holds is of an object it
#              sampled (none without its alloc) and no object is
#              allocated twice without a free between (beyond the
#              dropped events), and the kernel does not complain
# requires: CONFIG_KMEMTRACE, CONFIG_KMEMTRACE_BENCH, 2 CPUs with cpu1
#           hotpluggable, the kmemtrace tool
#
# The sampled-object table and the inline count-down are shared by both
# CPUs, interrupts and hotplug: this is their race test.

. /kmt/stress-lib.sh
SECS=${KMT_STRESS_SECS:-20}
PERIOD=16384
dir=/tmp/sample_cycles
out=/tmp/sample_cycles.rec
fail() { echo "FAIL: $*"; exit 1; }

[ -e $K/sample_period ] || { echo "SKIP: no $K/sample_period"; exit 4; }
stress_begin $dir
t0=$(date +%s)
stress_start $dir load:0 load:1 hotplug
runs=0 failed=0 events=0 frees=0 dropped=0
while [ $(($(date +%s) - t0)) -lt "$SECS" ]; do
	runs=$((runs + 1))
	rm -rf $out
	mkdir -p $out
	cp $K/stats $out/stats.before
	rc=0
	kmemtrace record -e -s $PERIOD -o $out -- sleep 2 \
		>$out/record.txt 2>&1 || rc=1
	/kmt/check-exact.sh $out >$out/exact.txt 2>&1 || rc=1
	set -- $(tail -n 1 $out/exact.txt)
	d=0
	[ "$1 $6" != "total: dropped" ] || d=$7
	# In time order: a free must find its object allocated (sampled)
	# earlier in the recording.  Pointers are keyed by family: slab
	# and page memory share addresses over time, percpu and vmalloc
	# have their own.
	kmemtrace dump $out >$out/dump.txt 2>&1
	awk -v period=$PERIOD -v dropped="$d" '
		function fam(t) { return t == "percpu" || t == "vmalloc" ? t : "mem" }
		{ sp = ""; ptr = "" }
		{ for (i = 6; i <= NF; i++) {
			if ($i ~ /^sample_period=/) sp = substr($i, 15)
			if ($i ~ /^ptr=/) ptr = substr($i, 5)
		} }
		sp != period { bad++; next }
		{ n++; k = fam($5) ptr }
		# A stray free whose object is allocated later: show both.
		$4 == "alloc" && (k in sf) && shown++ < 10 {
			print "stray free: " sf[k]; print "later alloc: " $0
			delete sf[k]
		}
		# An alloc of memory the recording has live: a free of the
		# earlier object went unseen.
		$4 == "alloc" && !/untracked/ && (k in live) {
			dbl++
			if (shown++ < 10) print "alloc of live memory: " $0
		}
		$4 == "alloc" && !/untracked/ { live[k] = 1 }
		$4 == "free" { frees++
			       if (!(k in live)) { stray++; sf[k] = $0 }
			       delete live[k] }
		END {
			for (k in sf)
				if (shown++ < 10)
					print "stray free: " sf[k]
			printf "events %d frees %d stray %d dropped %d double %d\n",
			       n, frees, stray, dropped, dbl
			if (bad) printf "%d events without sample_period %d\n", bad, period
			exit bad || stray + dbl > dropped
		}' $out/dump.txt >$out/frees.txt || rc=1
	set -- $(grep '^events ' $out/frees.txt)
	[ "$1" != events ] || {
		events=$((events + $2)); frees=$((frees + $4)); dropped=$((dropped + $8))
	}
	if [ $rc != 0 ]; then
		failed=$((failed + 1))
		echo "sampled run $runs FAILED:"
		cat $out/record.txt $out/exact.txt $out/frees.txt
		# Every event of the first stray pointers, and the recording
		# itself for the host (guest/ of the boot's output).
		what='\(stray free\|alloc of live memory\)'
		for p in $(sed -n "s/^$what: .* ptr=\([^ ]*\) .*/\2/p" \
			   $out/frees.txt | sort -u | head -n 3); do
			echo "events of $p:"
			grep " ptr=$p " $out/dump.txt
		done
		mkdir -p /tmp/out/sample_cycles
		cp -r $out /tmp/out/sample_cycles/run$runs
	fi
done
stress_stop
echo "$(($(date +%s) - t0)) s: $runs sampled recordings ($failed failed):" \
	"$events events, $frees frees of sampled objects, $dropped dropped"
cat $K/sample_stats | head -n 4
stress_report || lfail=1
[ "$(cat $K/sample_period)" = 0 ] || fail "sample_period left at $(cat $K/sample_period)"
[ $failed = 0 ] || fail "$failed of $runs sampled recordings are not exact"
[ "$events" -gt 0 ] || fail "nothing recorded"
[ "$frees" -gt 0 ] || fail "no free of a sampled object recorded"
[ -z "${lfail:-}" ] || fail "a stress loop failed"
splats && echo "ok: no kernel complaints" || fail "the kernel complained"
