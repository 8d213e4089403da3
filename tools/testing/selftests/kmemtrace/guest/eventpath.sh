#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# eventpath.sh - the guest half of bin/eventpath.sh: records (relay, or
# sampled with kmt.sample=N on the command line, or not at all with
# kmt.sample=off or, allocation profiling switched on, kmt.sample=prof)
# and keeps allocating
# through kmemtrace_bench while the host single-steps allocator events
# through QEMU's gdb stub.  A reader keeps the buffers from filling up,
# so that the events stepped are written, not dropped.  Stops after
# kmt.seconds= (default 600) or when the host writes nothing: the host
# kills QEMU when it is done.

K=/sys/kernel/debug/kmemtrace
B=/sys/kernel/debug/kmemtrace_bench/run
sample=0
seconds=600
for arg in $(cat /proc/cmdline); do
	case $arg in
	kmt.sample=*) sample=${arg#kmt.sample=} ;;
	kmt.seconds=*) seconds=${arg#kmt.seconds=} ;;
	esac
done

# kmt.sample=off: nothing records (bin/offpath.sh), on kernels with or
# without kmemtrace; kmt.sample=prof: nothing records either, but
# allocation profiling counts (a kernel built with it, booted with
# sysctl.vm.mem_profiling set).
if [ "$sample" = prof ]; then
	{ echo 1 >/proc/sys/vm/mem_profiling; } 2>/dev/null
	[ "$(cat /proc/sys/vm/mem_profiling 2>/dev/null)" = 1 ] ||
		echo "KMT-EVENTPATH-ERROR vm.mem_profiling is not 1"
	sample=off
elif [ "$sample" != off ]; then
	[ "$sample" = 0 ] || echo "$sample" >$K/sample_period ||
		echo "KMT-EVENTPATH-ERROR sample_period"
	echo 1 >$K/enabled || echo "KMT-EVENTPATH-ERROR enabled"
fi
echo "KMT-EVENTPATH-READY sample $sample"
i=0
while [ $i -lt $((seconds * 5)) ]; do
	for op in kmalloc-64 kmalloc-4096 cache pages-0 pages-3 kmalloc-large \
	    vmalloc percpu; do
		echo "$op 4" >$B
	done
	cat $K/cpu0 $K/cpu1 >/dev/null 2>&1
	sleep 0.2
	i=$((i + 1))
done
[ "$sample" = off ] || echo 0 >$K/enabled
