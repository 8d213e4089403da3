#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh OUT - record a small workload on every CPU with the kmemtrace
# tool into OUT/record, for `make run` to report on the host.  Only the
# workload: -e drops what the buffers hold from before the recording.

out=$1
K=/sys/kernel/debug/kmemtrace
echo "kmemtrace: recording /kmt/workload.sh on $(nproc) CPUs, from its start to its end"
# With the stack of every event, so that the report can show them.
[ -f $K/stack_sample ] && echo 1 >$K/stack_sample &&
	echo "kmemtrace: echo 1 > $K/stack_sample: a stack for every alloc event"
kmemtrace record -e -q -o "$out/record" -- /kmt/workload.sh
echo "kmemtrace: record exited $?"
[ -f $K/stack_sample ] && echo 0 >$K/stack_sample
cat /sys/kernel/debug/kmemtrace/stats

# The same events through ftrace, on one timeline with function calls,
# with hashed pointers once %p can hash them.
T=/sys/kernel/tracing
if grep -qw kmemtrace $T/available_tracers 2>/dev/null; then
	/kmt/hash-ready.sh
	echo kmemtrace >$T/current_tracer
	ls /proc/self >/dev/null
	echo 0 >$T/tracing_on
	echo "kmemtrace: ftrace: echo kmemtrace > current_tracer; cat trace"
	grep -m 6 -E 'kmem_(alloc|free): ' $T/trace
	echo 1 >$T/options/kmem_minimalistic
	echo "kmemtrace: ftrace: echo 1 > options/kmem_minimalistic; cat trace"
	grep -m 10 -E '^#|^  [-+~]' $T/trace
	echo 0 >$T/options/kmem_minimalistic
	echo >$T/trace
	echo 1 >$T/options/kmem_function
	echo 1 >$T/tracing_on
	cat /proc/version >/dev/null
	echo 0 >$T/tracing_on
	echo 0 >$T/options/kmem_function
	echo "kmemtrace: ftrace: echo 1 > options/kmem_function; cat trace"
	grep -m 1 -B 8 -E 'kmem_alloc: kmalloc' $T/trace
	echo nop >$T/current_tracer
fi
