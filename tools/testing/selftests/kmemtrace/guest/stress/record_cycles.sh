#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: under a full allocation load on both CPUs, `kmemtrace
#              record` runs back to back while the tracer switches
#              kmemtrace/function/function_graph/nop with kmem_function
#              toggled and cpu1 goes offline and online: every recording
#              passes `kmemtrace check`, its missing events are exactly
#              the dropped ones on every CPU (record-check.sh), and the
#              kernel does not complain
# requires: CONFIG_KMEMTRACE, CONFIG_KMEMTRACE_BENCH, the kmemtrace tracer,
#           2 CPUs with cpu1 hotpluggable, the kmemtrace tool

. /kmt/stress-lib.sh
SECS=${KMT_STRESS_SECS:-30}
dir=/tmp/record_cycles
out=/tmp/record_cycles.rec
fail() { echo "FAIL: $*"; exit 1; }

stress_begin $dir
t0=$(date +%s)
stress_start $dir load:0 load:1 tracer hotplug
runs=0 failed=0 attempted=0 recorded=0 dropped=0
while [ $(($(date +%s) - t0)) -lt "$SECS" ]; do
	runs=$((runs + 1))
	/kmt/record-check.sh $out sleep 2 >/tmp/record_cycles.txt 2>&1
	rc=$?
	set -- $(tail -n 1 /tmp/record_cycles.txt)
	if [ "$1 $2 $4 $6" = "total: attempted recorded dropped" ]; then
		attempted=$((attempted + $3))
		recorded=$((recorded + $5))
		dropped=$((dropped + $7))
	else
		rc=1
	fi
	if [ $rc != 0 ]; then
		failed=$((failed + 1))
		echo "record run $runs FAILED:"
		cat /tmp/record_cycles.txt
	fi
	rm -rf $out
done
stress_stop
echo "$(($(date +%s) - t0)) s: record $runs runs ($failed failed):" \
	"attempted $attempted, recorded $recorded, dropped $dropped"
stress_report || lfail=1
[ $failed = 0 ] || fail "$failed of $runs recordings are not exact"
[ "$recorded" -gt 0 ] || fail "nothing recorded"
[ -z "${lfail:-}" ] || fail "a stress loop failed"
splats && echo "ok: no kernel complaints" || fail "the kernel complained"
