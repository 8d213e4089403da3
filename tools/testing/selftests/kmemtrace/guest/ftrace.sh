#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ftrace.sh OUT - the ftrace boot: run kmemtrace's ftracetest tests
# (test.d/kmemtrace) with KTAP on the console, save a kmemtrace trace in
# raw form with its format files in OUT/rawtrace and one recorded by
# trace-cmd in OUT/trace.dat, then upstream's ftracetest tests with their
# KTAP saved to OUT/ftracetest.ktap, which the host compares between the
# kmemtrace and the CONFIG_KMEMTRACE=n kernel: the whole suite with
# kmt.ftracetest=all on the kernel command line (make ftracetest, about
# 4 minutes of it under TCG), else the smoke below (make check, about 1).

out=$1
T=/sys/kernel/tracing
cd /kmt/ftrace || exit 1

# failed_logs: the logs ftracetest kept in /tmp/ft-logs (its -l) of the
# upstream tests that failed (without -k it keeps no others), in the
# host's out directory and on the console, which is all that says why one
# failed.
failed_logs() {
	mkdir -p "$out/ftracetest-failed"
	for f in /tmp/ft-logs/*-log.*; do
		[ -f "$f" ] || continue
		cp "$f" "$out/ftracetest-failed/"
		echo "kmemtrace: upstream ftracetest failed, its log: ${f##*/}"
		sed 's/^/  /' "$f"
	done
}

# The comparison boot of the CONFIG_KMEMTRACE=n kernel runs only the
# upstream tests that failed with kmemtrace, listed in ftracetest.only.
if [ -f /kmt/ftracetest.only ]; then
	# shellcheck disable=SC2046
	./ftracetest -K -l /tmp/ft-logs $(cat /kmt/ftracetest.only) >"$out/ftracetest.ktap" 2>&1
	echo "kmemtrace: upstream ftracetest (only): $(grep -c '^ok' "$out/ftracetest.ktap") ok," \
		"$(grep -c '^not ok' "$out/ftracetest.ktap") not ok"
	failed_logs
	exit 0
fi

/kmt/hash-ready.sh

./ftracetest -K -k -v test.d/kmemtrace
# Every test's log, passed or not (-k keeps them), for the host: the
# console has the failed ones only.
cp -rL logs/latest "$out/kmemtrace-ftracetest-logs"

# For the host to decode with libtraceevent from the format files alone,
# and compare with the tracer's own raw output.
R=$out/rawtrace
mkdir -p $R
echo kmemtrace >$T/current_tracer
echo 1 >$T/tracing_on
ls -R /proc/self >/dev/null
echo 0 >$T/tracing_on
echo 1 >$T/options/raw
cat $T/trace >$R/trace.raw
echo 0 >$T/options/raw
cat $T/events/header_page >$R/header_page
cat $T/events/ftrace/kmem_alloc/format >$R/kmem_alloc.format
cat $T/events/ftrace/kmem_free/format >$R/kmem_free.format
for c in $T/per_cpu/cpu*; do
	timeout 5 cat "$c/trace_pipe_raw" >"$R/${c##*/}.raw"
done
echo nop >$T/current_tracer

# What a generic consumer sees: trace-cmd's own recording, for the host to
# decode with trace-cmd report (bin/trace-cmd-check.sh).
if command -v trace-cmd >/dev/null; then
	trace-cmd record -p kmemtrace -o "$out/trace.dat" ls -R /proc/self \
		>/dev/null 2>"$out/trace-cmd.log"
	echo "kmemtrace: trace-cmd record exited $?"
	echo nop >$T/current_tracer
fi
suite=smoke
for arg in $(cat /proc/cmdline); do
	case $arg in
	kmt.ftracetest=*) suite=${arg#kmt.ftracetest=} ;;
	esac
done
case $suite in
all|smoke) ;;
*)	# No ftracetest.ktap: the host's upstream.ftracetest_ran fails.
	echo "kmemtrace: kmt.ftracetest=$suite: neither all nor smoke"
	exit 1 ;;
esac
if [ "$suite" = all ]; then
	for d in test.d/*/; do
		[ "$d" = test.d/kmemtrace/ ] || echo "$d"
	done >/tmp/tests
else
	# The smoke: what the series touches, the trace files, ring buffer,
	# events, instances and the function tracer's filters, which
	# kmem_function uses.  Left to make ftracetest: the slowest two,
	# 00basic/basic2.tc (every tracer in turn, which
	# test.d/kmemtrace/other-tracers.tc does with kmemtrace in between)
	# and ftrace/fgraph-multi.tc (function graph instances), 2 of the
	# suite's 4 minutes, and what kmemtrace does not touch (dynamic
	# events, kprobes, triggers, direct calls).
	cat >/tmp/tests <<EOT
test.d/00basic/basic1.tc
test.d/00basic/basic3.tc
test.d/00basic/basic4.tc
test.d/00basic/ringbuffer_size.tc
test.d/00basic/snapshot.tc
test.d/00basic/trace_marker.tc
test.d/00basic/trace_pipe.tc
test.d/event/event-enable.tc
test.d/event/event-pid.tc
test.d/event/subsystem-enable.tc
test.d/event/toplevel-enable.tc
test.d/ftrace/fgraph-filter.tc
test.d/ftrace/func-filter-glob.tc
test.d/ftrace/func-filter-notrace-pid.tc
test.d/ftrace/func-filter-pid.tc
test.d/ftrace/func_set_ftrace_file.tc
test.d/instances/
EOT
fi
# shellcheck disable=SC2046
./ftracetest -K -l /tmp/ft-logs $(cat /tmp/tests) >"$out/ftracetest.ktap" 2>&1
echo "kmemtrace: upstream ftracetest ($suite): $(grep -c '^ok' "$out/ftracetest.ktap") ok," \
	"$(grep -c '^not ok' "$out/ftracetest.ktap") not ok"
failed_logs
