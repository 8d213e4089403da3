#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# stress-loop.sh LOOP DIR [ARG] - repeat one kind of stress until the file
# DIR/stop or DIR/LOOP[ARG].stop exists, keeping how many cycles ran in
# DIR/LOOP[ARG].count and the failures in DIR/LOOP[ARG].fail (one line
# each); DIR/LOOP[ARG].done says it has stopped.  LOOPs:
#   load CPU   kmemtrace_bench "mix" runs pinned on CPU (skipped while
#              the CPU is offline)
#   enable     kmemtrace recording on and off
#   tracer     current_tracer function, function_graph, nop, kmemtrace
#              in turn, one switch a cycle, with the kmemtrace tracer
#              option kmem_function set and cleared under each
#   reader CPU dd of a few sub-buffers of cpuN, appended to DIR/cpuN,
#              then the file closed
#   hotplug    cpu1 offline and online again

K=/sys/kernel/debug/kmemtrace
T=/sys/kernel/tracing
C=/sys/devices/system/cpu/cpu1/online
loop=$1
dir=$2
arg=${3:-}
name=$dir/$loop$arg
n=0
: >"$name.fail"

failed() {
	echo "$loop$arg cycle $n: $*" >>"$name.fail"
}

# set FILE VALUE: write VALUE to FILE, noting a failure.
set_to() {
	echo "$2" >"$1" 2>/dev/null || failed "echo $2 > $1 failed"
}

# One switch, to the tracer after the current one in the list; each
# switch is logged with its start and end (uptime) in DIR/tracer.log.
# kmemtrace comes last and stays longest: recording on and off is cheap
# while the tracer keeps the probes attached, and both share them.  Its
# kmem_function traces every function: in a loaded debug kernel under
# TCG, switching that on and off takes half a minute.
tracers="function function_graph nop kmemtrace"
cycle_tracer() {
	t=$(echo $tracers | cut -d' ' -f$((n % 4 + 1)))
	s=$(cut -d' ' -f1 /proc/uptime)
	set_to $T/current_tracer "$t"
	set_to $T/options/kmem_function 1
	sleep 0.2
	set_to $T/options/kmem_function 0
	echo "$t $s-$(cut -d' ' -f1 /proc/uptime)" >>"$name.log"
	[ "$t" != kmemtrace ] || sleep 3
}

cycle() {
	case $loop in
	load)
		taskset -c "$arg" sh -c "echo 'mix 1000' >/sys/kernel/debug/kmemtrace_bench/run" \
			2>/dev/null || sleep 0.1 ;;
	enable)
		set_to $K/enabled 1
		set_to $K/enabled 0 ;;
	tracer)
		cycle_tracer ;;
	reader)
		timeout 60 dd if=$K/cpu"$arg" bs=65520 count=4 2>/dev/null \
			>>"$dir/cpu$arg"
		[ $? != 124 ] || failed "reader of cpu$arg hung"
		sleep 0.05 ;;
	hotplug)
		set_to $C 0
		sleep 0.1
		set_to $C 1
		sleep 0.1 ;;
	esac
}

# The count is replaced, never rewritten in place: "echo >" truncates
# first, and a reader (stress_count) could read an empty file between.
echo 0 >"$name.count"
while [ ! -e "$dir/stop" ] && [ ! -e "$name.stop" ]; do
	cycle
	n=$((n + 1))
	echo $n >"$name.count.new" && mv "$name.count.new" "$name.count"
done
touch "$name.done"
