#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# failed_allocations.sh - a failed allocation is no event: a load of
# every allocator (kmemtrace_bench, paced) whose slab and page
# allocations fail at random (failslab and fail_page_alloc at 5%, for
# its task only: make-it-fail) is recorded.  Some of its runs must
# fail; the recording must pass check with nothing dropped, no event may
# carry a NULL pointer, and at every call site of the load's
# functions each allocation recorded must have its free: an allocation
# that failed is not a live object.

out=/tmp/failed
tmp=/tmp/failed
. /kmt/failures-lib.sh

dmesg -c >/dev/null
dmesg -n 1

fault_injection_on
for a in failslab fail_page_alloc; do
	echo Y >$F/$a/task-filter
	echo 5 >$F/$a/probability
	echo 1 >$F/$a/interval
	echo -1 >$F/$a/times
done

record_start || fail "record did not start: $(cat $tmp.record)"
# The load, its allocations failing: each run stops at its first failed
# allocation.  Paced, so that the small buffers of this boot keep up.
# No fork and no open in the failing shell, whose own would fail too:
# its files are open before, so that a write fails only when the load's
# allocations do (ENOMEM, the only error kmemtrace_bench's run returns
# for a valid request).
taskset -c 0 sh -c '
	exec 3>'$B' 2>/dev/null
	echo 1 >/proc/self/make-it-fail
	ok=0 bad=0 i=0
	while [ $i -lt 40 ]; do
		for op in kmalloc-64 kmalloc-large cache bulk pages-0 pages-3 percpu vmalloc; do
			if echo "$op 20 2000" >&3; then
				ok=$((ok + 1))
			else
				bad=$((bad + 1))
			fi
		done
		i=$((i + 1))
	done
	until echo 0 >/proc/self/make-it-fail; do :; done
	echo "$ok $bad" >'$tmp'.load'
for a in failslab fail_page_alloc; do
	echo 0 >$F/$a/probability
done
dmesg -n 7
splats >$tmp.splats
[ ! -s $tmp.splats ] || { cat $tmp.splats; fail "the kernel log reports a bug"; }
kill -INT $rec
wait $rec || fail "kmemtrace record exited $?: $(cat $tmp.record)"
set -- $(cat $tmp.load)
echo "load: $1 runs done, $2 stopped by a failed allocation"
[ "${2:-0}" -gt 0 ] || fail "no allocation of the load failed: $(cat $tmp.load)"

kmemtrace check $out >$tmp.check 2>&1 || { cat $tmp.check; fail "check failed"; }
[ "$(cat $out/dropped)" = 0 ] || fail "$(cat $out/dropped) events dropped"
kmemtrace dump $out | awk '$0 ~ / ptr=0x0+ / || $0 ~ / ptr=0+ / || / ptr=\(null\)/' >$tmp.null
[ ! -s $tmp.null ] || { head -n 5 $tmp.null; fail "events with a NULL pointer"; }
# The load's sites: allocations recorded, and those not freed.
kmemtrace report -v sites --csv -n 100000 $out 2>/dev/null |
	awk -F, '$12 ~ /^pair_/ { n += $1; f += $5; live += $7 }
		END { print n + 0, f + 0, live + 0 }' >$tmp.sites
set -- $(cat $tmp.sites)
echo "the load's call sites: $1 allocations recorded, $2 freed, $3 live"
[ "$1" -gt 0 ] || fail "no allocation of the load recorded"
if [ "$1" != "$2" ] || [ "$3" != 0 ]; then
	kmemtrace report -v live --list -n 1000000 $out 2>/dev/null | grep ' pair_' | head -n 5
	fail "allocations of the load without their free"
fi
echo "ok: no NULL pointer, every recorded allocation of the load freed, $(tail -n 1 $tmp.check)"
