#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a cpuN buffer read through mmap() (KMEMTRACE_IOC_POS and
#              KMEMTRACE_IOC_CONSUME) gives exactly the events the CPU
#              wrote, and the file refuses writable or short mappings and
#              bad hand-backs; record gives the same streams mapped or
#              with --read
# requires: CONFIG_KMEMTRACE, ringmap and the kmemtrace tool in PATH

D=/sys/kernel/debug/kmemtrace
fail() { echo "FAIL: $*"; exit 1; }
command -v ringmap >/dev/null || { echo "SKIP: no ringmap"; exit 4; }
command -v kmemtrace >/dev/null || { echo "SKIP: no kmemtrace tool"; exit 4; }

written() {	# written CPU: events the CPU wrote, from stats
	awk -v c="$1" '$1 == c { print $2 }' $D/stats
}

echo 1 > $D/enabled || fail "cannot enable"
echo 0 > $D/enabled
# Nothing left over: the test counts what one window writes.
for f in $D/cpu*; do cat "$f" > /dev/null; done
w0=$(written 0)
echo 1 > $D/enabled
taskset -c 0 sh -c 'i=0; while [ $i -lt 50 ]; do ls / > /dev/null; i=$((i + 1)); done'
echo 0 > $D/enabled
w1=$(written 0)
out=$(ringmap $D/cpu0) || fail "ringmap: $out"
echo "cpu0 wrote $((w1 - w0)) events; ringmap: $out"
set -- $out
[ "$2" = $((w1 - w0)) ] || fail "mapped $2 events, cpu0 wrote $((w1 - w0))"
[ "$2" -gt 50 ] || fail "only $2 events"
[ $(($6 - $4 + 1)) = "$2" ] || fail "sequence numbers $4..$6 for $2 events"
[ "$(cat $D/cpu0 | wc -c)" = 0 ] || fail "events left after handing all back"

# The same workload, recorded mapped and with read(): both exact.
for how in "" --read; do
	rm -rf /tmp/relay_mmap
	kmemtrace record $how -o /tmp/relay_mmap -- /kmt/workload.sh 1 ||
		fail "record $how failed"
	kmemtrace check /tmp/relay_mmap > /tmp/relay_mmap.check ||
		{ cat /tmp/relay_mmap.check; fail "check of record $how failed"; }
	tail -n 1 /tmp/relay_mmap.check
done
echo "ok: mapped reads exact, refusals, record mapped and --read"
