#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# benchmark.sh OUT - the guest half of make bench (bin/bench.sh).
#
# Runs the kmemtrace_bench operations in each mode named by kmt.modes= on
# the kernel command line and prints one line per timed run,
#
#   KMT-BENCH MODE OP REP PAIRS NSECS EVENTS DROPPED
#
# NSECS is guest time, which under QEMU -icount counts instructions;
# EVENTS and DROPPED are what the mode's recorder saw on CPU 0 during the
# timed run (0 where nothing records).  Also prints "KMT-BENCH-MEM" lines
# (what kmemtrace holds), "KMT-BENCH-MACRO" lines (the macro workloads,
# see run_macro), "KMT-BENCH-READER" lines (what the reader of modes relay
# and relay+sample runs when idle, see reader_idle) and, for kmt.ramp=1,
# "KMT-BENCH-RAMP" lines (the lossless capture ramp).  kmt.scale= is the
# percentage of the default pair counts to run, kmt.reps= how many timed
# runs per operation, kmt.mreps= how many runs of each macro workload
# (kmt.reps=), kmt.smacro= how many paired runs of the sampling cost on the
# macro workloads (0; see sample_macro), kmt.period= the sampling modes'
# mean bytes between samples (524288).
#
# The timed loop runs on CPU 0.  A relay mode's `kmemtrace record` runs
# on CPU 1 and is stopped (SIGSTOP) during the timed loop, so the figure
# is the allocating CPU's alone (the guest clock counts the instructions
# of every vCPU); mode "drain" leaves it running, so its figure includes
# the reader.  The buffers hold the whole timed loop, so nothing is lost
# (DROPPED says so).
#
# The tools a user would run instead, on the kernel without kmemtrace
# (their binaries come in the second initramfs make bench appends):
# "perf" is perf record -e 'kmem:*' -c 1 -a (what perf kmem record runs);
# "bpf-live" a bpftrace script keeping a memleak-style map of what is
# live, "bpf-print" one printing every event.  Their readers are stopped
# during the timed loop as relay's is, their buffers hold the whole run,
# and what they lost is checked when the mode ends ("KMT-BENCH-ANCHOR
# MODE lost N").  EVENTS is 0 for them: make bench divides by the events
# mode's count.
#
# "floor" attaches kmemtrace_bench's floor (lib/kmemtrace_bench.c) to the
# same tracepoints: the least a recorder writes per event, counted as
# relay's events are.

out=$1
B=/sys/kernel/debug/kmemtrace_bench/run
F=/sys/kernel/debug/kmemtrace_bench/floor
K=/sys/kernel/debug/kmemtrace
T=/sys/kernel/tracing
modes=
scale=100
reps=1
ramp=0
period=524288
mreps=
smacro=0
for arg in $(cat /proc/cmdline); do
	case $arg in
	kmt.modes=*) modes=$(echo "${arg#kmt.modes=}" | tr , ' ') ;;
	kmt.scale=*) scale=${arg#kmt.scale=} ;;
	kmt.reps=*) reps=${arg#kmt.reps=} ;;
	kmt.ramp=*) ramp=${arg#kmt.ramp=} ;;
	kmt.period=*) period=${arg#kmt.period=} ;;
	kmt.mreps=*) mreps=${arg#kmt.mreps=} ;;
	kmt.smacro=*) smacro=${arg#kmt.smacro=} ;;
	esac
done
log=$out/bench.txt
: >"$log"

say() {
	echo "$*"
	echo "$*" >>"$log"
}

# Operation and its pairs at scale 100: ~5-20 M instructions each.
OPS="kmalloc-8:20000 kmalloc-64:20000 kmalloc-256:20000 kmalloc-1024:20000
kmalloc-4096:10000 kmalloc-large:5000 cache:20000 pages-0:10000 pages-3:5000
percpu:2000 vmalloc:2000 bulk:1000"

rec=
rec_dir=/tmp/bench-rec
anchor_tag=KMT-BENCH-ANCHOR

# record_start [CPU]: kmemtrace record into $rec_dir, on CPU if given.
record_start() {
	rm -rf "$rec_dir"
	if [ -n "${1:-}" ]; then
		taskset -c "$1" kmemtrace record -e -o "$rec_dir" >/tmp/record.log 2>&1 &
	else
		kmemtrace record -e -o "$rec_dir" >/tmp/record.log 2>&1 &
	fi
	rec=$!
	i=0
	while [ "$(cat $K/enabled)" != 1 ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

record_stop() {
	[ -n "$rec" ] || return 0
	kill -CONT "$rec" 2>/dev/null
	kill -INT "$rec"
	wait "$rec"
	rc=$?
	# Into the log: a ramp step's output goes to a pipe that keeps one line.
	if [ $rc != 0 ]; then
		say "KMT-BENCH-ERROR record exited $rc"
		while read -r line; do
			say "KMT-BENCH-ERROR record: $line"
		done </tmp/record.log
	fi
	rec=
	rm -rf "$rec_dir"
}

# The allocator tracepoints of kmem, as a memleak-style tool keeps them:
# what is live now, by pointer (and page frame), and a count of the
# events, which says it saw them.  <stddef.h> and <stdbool.h>: bpftrace
# 0.17 parses the tracepoint formats with clang, which needs them for
# size_t and bool.
BPF_LIVE='#include <stddef.h>
#include <stdbool.h>
tracepoint:kmem:kmalloc, tracepoint:kmem:kmem_cache_alloc {
	@live[args->ptr] = args->bytes_alloc; @events = count(); }
tracepoint:kmem:kfree, tracepoint:kmem:kmem_cache_free {
	delete(@live[args->ptr]); @events = count(); }
tracepoint:kmem:mm_page_alloc {
	@pages[args->pfn] = args->order; @events = count(); }
tracepoint:kmem:mm_page_free {
	delete(@pages[args->pfn]); @events = count(); }'
BPF_PRINT='#include <stddef.h>
#include <stdbool.h>
tracepoint:kmem:* { printf("%s %d %d\n", probe, cpu, tid); }'

# anchor_start MODE: start perf or bpftrace on every CPU, reader on CPU 1.
anchor_start() {
	rm -f /tmp/anchor.log /tmp/perf.data
	case $1 in
	perf)
		taskset -c 1 perf record -e 'kmem:*' -c 1 -a -N -B -m "${KMT_PERF_PAGES:-4096}" \
			-o /tmp/perf.data >/tmp/anchor.log 2>&1 &
		rec=$!
		ready='^$' ;;
	bpf-*)
		script=$BPF_LIVE
		[ "$1" = bpf-print ] && script=$BPF_PRINT
		BPFTRACE_PERF_RB_PAGES=${KMT_BPF_PAGES:-4096} taskset -c 1 bpftrace -e "$script" \
			-o /tmp/anchor.out >/tmp/anchor.log 2>&1 &
		rec=$!
		ready='^Attaching' ;;
	esac
	# perf says nothing when it starts: give it the time bpftrace takes.
	i=0
	while [ $i -lt 600 ] && kill -0 "$rec" 2>/dev/null; do
		if [ "$1" = perf ]; then
			[ -s /tmp/perf.data ] && break
		elif grep -q "$ready" /tmp/anchor.log /tmp/anchor.out 2>/dev/null; then
			break
		fi
		sleep 0.5
		i=$((i + 1))
	done
	if ! kill -0 "$rec" 2>/dev/null; then
		say "KMT-BENCH-ERROR $1 did not start"
		cat /tmp/anchor.log
		rec=
	fi
}

# anchor_stop MODE: stop it, and say what it lost.
anchor_stop() {
	[ -n "$rec" ] || return 0
	kill -CONT "$rec" 2>/dev/null
	kill -INT "$rec"
	wait "$rec"
	rec=
	case $1 in
	perf)
		# "Aggregated stats": LOST and LOST_SAMPLES records, samples.
		perf report -i /tmp/perf.data --stats 2>/dev/null | awk '
			/^Aggregated stats:/ { on = 1; next }
			/ stats:$/ { on = 0 }
			on && $1 ~ /^LOST/ && $2 == "events:" { lost += $3 }
			on && $1 == "SAMPLE" && $2 == "events:" { n = $3 }
			END { print lost + 0, n + 0 }' >/tmp/perf.stats
		read -r lost samples </tmp/perf.stats ;;
	bpf-*)
		lost=$(cat /tmp/anchor.log /tmp/anchor.out 2>/dev/null |
			awk '/^Lost [0-9]+ events/ { n += $2 } END { print n + 0 }')
		if [ "$1" = bpf-print ]; then
			samples=$(grep -c '^tracepoint:' /tmp/anchor.out)
		else
			samples=$(awk '/^@events: / { print $2 }' /tmp/anchor.out)
		fi ;;
	esac
	say "$anchor_tag $1 lost $lost samples ${samples:-0}"
	rm -f /tmp/perf.data /tmp/anchor.out
}

# mode_start MODE / mode_stop MODE: switch the recorders of MODE on, off.
mode_start() {
	# Sampling at Go's default mean, 512 KiB (kmt.period=), or of every
	# allocation (what a sample costs): set before recording starts.
	case $1 in
	*sample1) echo 1 >$K/sample_period ;;
	*sample*) echo "$period" >$K/sample_period ;;
	esac
	# The clock changes only while the buffers are released.
	case $1 in
	*tsc*)	echo release >$K/buffers
		echo tsc >$K/clock || say "KMT-BENCH-ERROR $1: no tsc clock" ;;
	esac
	case $1 in
	*relay*|drain) record_start 1 ;;
	perf|bpf-*) anchor_start "$1" ;;
	esac
	case $1 in
	*tracer*|*function*)
		[ "${1#*function}" != "$1" ] && echo 1 >$T/options/kmem_function
		echo kmemtrace >$T/current_tracer ;;
	events)
		echo 1 >$T/events/kmem/enable ;;
	floor)
		echo Y >$F || say "KMT-BENCH-ERROR $1: cannot attach the floor" ;;
	esac
	case $1 in
	profiling*)
		# A kernel that cannot switch it on has the sysctl read-only
		# (booted without sysctl.vm.mem_profiling=): the mode would
		# measure no profiling at all.
		{ echo 1 >/proc/sys/vm/mem_profiling; } 2>/dev/null
		[ "$(cat /proc/sys/vm/mem_profiling 2>/dev/null)" = 1 ] ||
			say "KMT-BENCH-ERROR $1: vm.mem_profiling is not 1" ;;
	esac
	# Stack traces: of every event, or of one in 64 per CPU.
	case $1 in
	*stacks64) echo 64 >$K/stack_sample ;;
	*stacks) echo 1 >$K/stack_sample ;;
	esac
}

mode_stop() {
	case $1 in
	perf|bpf-*) anchor_stop "$1" ;;
	esac
	record_stop
	[ "$1" = floor ] && echo N >$F
	case $1 in
	*tsc*)	echo release >$K/buffers
		echo local >$K/clock ;;
	esac
	if [ -d $T ]; then
		echo nop >$T/current_tracer
		[ -f $T/options/kmem_function ] && echo 0 >$T/options/kmem_function
		echo 0 >$T/events/kmem/enable
		echo >$T/trace
	fi
	# Read-only where it could not be switched on: only switch it off.
	[ "$(cat /proc/sys/vm/mem_profiling 2>/dev/null)" = 1 ] &&
		echo 0 >/proc/sys/vm/mem_profiling
	[ -f $K/stack_sample ] && echo 0 >$K/stack_sample
	[ -f $K/sample_period ] && echo 0 >$K/sample_period
}

# timed MODE OP PAIRS: one timed run, in a shell pinned on CPU 0 that runs
# only builtins from the first count to the last, so that the events
# counted are the loop's, give or take the reads of the counters (which
# the empty run, OP "none", measures).  Prints "NSECS EVENTS DROPPED".
timed() {
	taskset -c 0 sh -c '
		K=$1 T=$2 B=$3 F=$4 mode=$5 op=$6 pairs=$7
		count() {	# sets E and D for CPU 0
			E=0 D=0
			case $mode in
			*relay*|drain)
				while read -r c e d rest; do
					[ "$c" = 0 ] && E=$e D=$d
				done <$K/stats ;;
			tracer|events)
				while read -r k v rest; do
					case $k in
					entries:|overrun:) E=$((E + v)) ;;
					esac
				done <$T/per_cpu/cpu0/stats ;;
			floor)
				while read -r c e; do
					[ "$c" = 0 ] && E=$e
				done <$F ;;
			esac
		}
		[ -d $T ] && echo >$T/trace
		count
		e0=$E d0=$D
		[ "$op" = none ] || echo "$op $pairs" >$B || exit 1
		read -r o p ns <$B
		count
		echo "$ns $((E - e0)) $((D - d0))"
	' sh $K $T $B $F "$@"
}

# run_op MODE OP PAIRS REP: warm up, then one timed run on CPU 0.
run_op() {
	warm=$(($3 / 10 + 1))
	taskset -c 0 sh -c "echo '$2 $warm' >$B" || say "KMT-BENCH-ERROR $1 $2 warm-up failed"
	# Let the reader take the warm-up's events, then hold it.
	if [ -n "$rec" ] && [ "$1" != drain ]; then
		sleep 0.2
		kill -STOP "$rec"
	fi
	# The events of reading the counters, then the run's.
	set -- "$@" $(timed "$1" none 0) $(timed "$1" "$2" "$3")
	[ -n "$rec" ] && kill -CONT "$rec"
	if [ $# != 10 ]; then
		say "KMT-BENCH-ERROR $1 $2 run failed"
		return
	fi
	say "KMT-BENCH $1 $2 $4 $3 $8 $(($9 - $6)) $((${10} - $7))"
}

# What kmemtrace holds: buffers and free memory before and after
# recording starts, from released buffers.  After the micro-operations:
# their first mode, which the off figures compare, runs in a kernel that
# has not recorded yet.  Run before it, this left the relay buffers' vmap
# areas (8 MiB) and per-CPU pointers allocated, and vmalloc()/vfree()
# paid +0.25% for the longer walks of the vmap area trees.
memory() {
	[ -d $K ] || return 0
	echo release >$K/buffers || say "KMT-BENCH-ERROR cannot release the buffers"
	free0=$(awk '/^MemFree:/ { print $2 * 1024 }' /proc/meminfo)
	say "KMT-BENCH-MEM off_buffers $(awk '{ print $2 }' $K/buffers)"
	record_start 1
	free1=$(awk '/^MemFree:/ { print $2 * 1024 }' /proc/meminfo)
	say "KMT-BENCH-MEM on_buffers $(awk '{ print $2 }' $K/buffers)"
	say "KMT-BENCH-MEM on_memfree_delta $((free0 - free1))"
	record_stop
}

# The lossless capture ramp: kmalloc-64 pairs paced on both CPUs while
# record drains with default buffers; double the rate until events are
# dropped, then bisect.  Rates are events per guest second, both CPUs.
# Guest time in centiseconds (/proc/uptime): under -icount, instructions.
uptime_cs() {
	read -r up _ </proc/uptime
	echo "${up%.*}${up#*.}" | sed 's/^0*//'
}

# ramp_step EVENTS_PER_SEC: prints the dropped count, then the rate the
# two CPUs reached (events per guest second), below the one asked for
# when they cannot allocate that fast.
ramp_step() {
	pairs_rate=$(($1 / 4))
	pairs=$((pairs_rate / 4 + 1))	# a quarter of a guest second
	# ... or 2 M events (192 MB), still 20 times each CPU's default relay
	# buffer: the recording goes to the guest's tmpfs, which 5.4 M events
	# filled (record: "No space left on device"; its drains stopped, and
	# the events lost then were counted against the reader's speed).
	[ $pairs -le 500000 ] || pairs=500000
	d0=$(cat $K/dropped)
	record_start
	t0=$(uptime_cs)
	taskset -c 0 sh -c "echo 'kmalloc-64 $pairs $pairs_rate' >$B" &
	p0=$!
	taskset -c 1 sh -c "echo 'kmalloc-64 $pairs $pairs_rate' >$B" &
	p1=$!
	wait $p0 $p1
	t1=$(uptime_cs)
	reached=$((pairs * 4 * 100 / (t1 - t0 > 0 ? t1 - t0 : 1)))
	sleep 0.5
	record_stop
	d1=$(cat $K/dropped)
	say "KMT-BENCH-RAMP $1 $((pairs * 4)) $((d1 - d0)) $reached"
	echo "$((d1 - d0)) $reached"
}

# A rate is lossless if two steps at it drop nothing: a single step now
# and then drops at a rate the same boot then holds twice (the guest's
# page cache and the drains' scheduling vary from step to step).
# Sets $reached to the lower rate the two steps reached.
lossless() {	# lossless EVENTS_PER_SEC: exit 0 if two steps drop nothing
	# shellcheck disable=SC2046 # two words: dropped, reached
	set -- "$1" $(ramp_step "$1" | tail -n 1)
	reached=$3
	[ "$2" = 0 ] || return 1
	# shellcheck disable=SC2046
	set -- "$1" $(ramp_step "$1" | tail -n 1)
	[ "$3" -ge "$reached" ] || reached=$3
	[ "$2" = 0 ]
}

ramp() {
	[ -d $K ] || return 0
	good=0
	bad=0
	rate=100000
	while [ $rate -le 1000000000 ]; do
		if lossless $rate; then
			good=$rate
			# The CPUs, not the reader, set the pace: no rate above
			# what they reached can be asked of it.
			if [ $((reached * 10)) -lt $((rate * 9)) ]; then
				say "KMT-BENCH-LOSSLESS $reached 0 allocators"
				return
			fi
			rate=$((rate * 2))
		else
			bad=$rate
			break
		fi
	done
	i=0
	while [ $bad != 0 ] && [ $i -lt "$1" ]; do
		mid=$(((good + bad) / 2))
		if lossless $mid; then
			good=$mid
		else
			bad=$mid
		fi
		i=$((i + 1))
	done
	say "KMT-BENCH-LOSSLESS $good $bad"
}

# The macro workloads: what a whole workload pays, with the mode's reader
# running (not stopped: the user's recording drains as it goes).
#   messaging       hackbench's pattern (perf bench sched messaging -p):
#                   2 groups of 20 senders and 20 receivers on pipes, 20
#                   rounds
#   msg-fifo        the same processes under SCHED_FIFO (chrt -f 1): a
#                   woken receiver waits for the sender to finish, so the
#                   program, not the time, decides every switch.  Under
#                   the default policy the run's instructions follow its
#                   context switches (some 3000 each), and how often a
#                   woken receiver preempts its sender changes with a few
#                   instructions here or there: runs in a row fall into
#                   regimes of 1800 to 3500 switches a run, single runs
#                   340 to 4900, 40 to 57 million instructions
#                   (Documentation/trace/kmemtrace.rst, Cost)
#   tree            unpack a tree of files into tmpfs, walk it, remove it
# All run on CPU 0, as the micro-operations' loop does, and the reader on
# CPU 1: spread over both CPUs, messaging's runs spread twice as far (an
# interquartile range of 13% of the median against 7%, 12 runs of each).
# Prints "KMT-BENCH-MACRO MODE NAME REP NSECS DROPPED CTXT" (DROPPED: what
# kmemtrace dropped meanwhile; CTXT: the context switches of the whole
# system meanwhile).  They run in a pass of their own, after the
# micro-operations: a reader that keeps up with the paced loops may not
# keep up with a whole workload (bpftrace printing every event does not),
# and what an anchor loses then is reported ("KMT-BENCH-ANCHOR-MACRO"),
# not held against the micro-operations' runs.
macro_setup() {
	tar -cf /tmp/tree.tar -C /kmt ftrace
}

dropped_now() {
	if [ -f $K/dropped ]; then cat $K/dropped; else echo 0; fi
}

# Allocations sampled so far in this recording, all CPUs (sample_stats).
sampled_now() {
	if [ -f $K/sample_stats ]; then
		awk '!/^#/ { n += $2 } END { print n + 0 }' $K/sample_stats
	else
		echo 0
	fi
}

# Context switches since boot, all CPUs.
ctxt_now() {
	awk '$1 == "ctxt" { print $2 }' /proc/stat
}

# macro_one MODE REP TAG NAME CMD...: one timed run of CMD on CPU 0, its
# line; while sampling, also "TAG-SAMPLES MODE NAME REP SAMPLES": how much
# of what the run paid were samples, and how much the count-down.  With
# macro_held set, the run waits for the system to settle and holds the
# reader first.
macro_one() {
	m=$1
	r=$2
	tag=$3
	name=$4
	shift 4
	d0=$(dropped_now)
	s0=$(sampled_now)
	macro_hold "$m"
	c0=$(ctxt_now)
	ns=$(taskset -c 0 "$@") || say "KMT-BENCH-ERROR $m $name failed"
	c1=$(ctxt_now)
	macro_release
	say "$tag $m $name $r $ns $(($(dropped_now) - d0)) $((c1 - c0))"
	case $m in
	*sample*) say "$tag-SAMPLES $m $name $r $(($(sampled_now) - s0))" ;;
	esac
}

# MODE REP [TAG]: TAG (KMT-BENCH-MACRO) names the lines.
run_macro() {	# run_macro MODE REP [TAG]
	loops=$((20 * scale / 100 + 1))
	macro_one "$1" "$2" "${3:-KMT-BENCH-MACRO}" messaging \
		macro messaging 2 "$loops"
	macro_one "$1" "$2" "${3:-KMT-BENCH-MACRO}" msg-fifo \
		chrt -f 1 macro messaging 2 "$loops"
	macro_one "$1" "$2" "${3:-KMT-BENCH-MACRO}" tree \
		macro time sh -c 'mkdir /tmp/tree &&
			tar -xf /tmp/tree.tar -C /tmp/tree &&
			find /tmp/tree >/dev/null && rm -rf /tmp/tree'
}

# Whether every thread of the reader has stopped.
reader_stopped() {
	for t in /proc/"$rec"/task/*/stat; do
		read -r _ _ st _ <"$t" || return 1
		[ "$st" = T ] || return 1
	done
}

# For macro_held runs: let the reader drain, stop it, and wait until each
# of its threads has (kill returns before they stop, and stopping them
# ran inside the run: +0.14% on tree), then let the system settle (what
# the mode before left to do, a recording's end among it, ran inside
# c-off's runs: +1.8% on tree).
macro_hold() {	# macro_hold MODE
	[ -n "${macro_held:-}" ] || return 0
	if [ -n "$rec" ]; then
		sleep 0.2
		kill -STOP "$rec"
		i=0
		until reader_stopped; do
			i=$((i + 1))
			if [ $i -gt 500 ]; then
				say "KMT-BENCH-ERROR $1: the reader did not stop"
				break
			fi
			sleep 0.01
		done
	fi
	sleep 0.2
}

macro_release() {
	[ -n "${macro_held:-}" ] && [ -n "$rec" ] && kill -CONT "$rec"
	return 0
}

# Sampling's cost on the macro workloads, for its goal (<= 1%): kmt.smacro=
# runs of each workload in c-off and relay+sample, alternating (a new
# recording each run), each run after the system settled and with the
# reader stopped, as the micro-operations' relay runs are: the allocating
# CPU's cost, which the other vCPU's work would blur (the guest clock
# counts both; kmemtrace record's own cost is KMT-BENCH-READER's).  A
# sample's event waits in the buffers, which hold thousands of runs'.
# In the pass above, each mode's runs come one after the other with the
# reader running: there the reader's work, and what the mode before left
# to do, moved tree's difference by a percent or two (Documentation/
# trace/kmemtrace.rst, Cost).
# Prints "KMT-BENCH-SMACRO MODE NAME REP NSECS DROPPED CTXT".
sample_macro() {
	for mode in c-off relay+sample; do
		case " $modes " in
		*" $mode "*) ;;
		*) return 0 ;;
		esac
	done
	macro_held=1
	for rep in $(seq 1 "$smacro"); do
		for mode in c-off relay+sample; do
			mode_start "$mode"
			run_macro "$mode" "$rep" KMT-BENCH-SMACRO
			mode_stop "$mode"
		done
	done
	macro_held=
}

# Once a boot, before the first mode: each operation three times its
# pairs, nothing recording.  vmalloc()'s first 4000 or so pairs of a boot
# cost up to 9% more than the ones after (7146, 6948, then 6537-6681
# instructions a pair in 2000-pair runs, 10 runs of kernel (a)): without
# this, the first mode of a boot, the one the off figures compare, paid
# for the state the others then found.
warm_all() {
	for o in $OPS; do
		pairs=$((${o#*:} * scale / 100 * 3))
		[ $pairs -gt 0 ] || pairs=1
		taskset -c 0 sh -c "echo '${o%:*} $pairs' >$B" ||
			say "KMT-BENCH-ERROR ${o%:*} warm-up failed"
	done
}

say "KMT-BENCH-KERNEL $(uname -r) modes: $modes scale $scale reps $reps"
[ -f $B ] || { say "KMT-BENCH-ERROR no $B"; exit 1; }
# The percpu pairs in a chunk of their own: where they would find room in
# the first chunk depends on the processes of the boot so far, and what
# the allocator's searches cost with it (kmemtrace_bench.c).
echo 1 >${B%/run}/percpu_chunk || say "KMT-BENCH-ERROR cannot set percpu_chunk"
warm_all
for mode in $modes; do
	mode_start "$mode"
	for rep in $(seq 1 "$reps"); do
		for o in $OPS; do
			pairs=$((${o#*:} * scale / 100))
			[ $pairs -gt 0 ] || pairs=1
			run_op "$mode" "${o%:*}" "$pairs" "$rep"
		done
	done
	mode_stop "$mode"
done
memory
if command -v macro >/dev/null; then
	macro_setup
	anchor_tag=KMT-BENCH-ANCHOR-MACRO
	for mode in $modes; do
		# Sampling every allocation only prices a sample.
		case $mode in *sample1) continue ;; esac
		mode_start "$mode"
		for rep in $(seq 1 "${mreps:-$reps}"); do
			run_macro "$mode" "$rep"
		done
		mode_stop "$mode"
	done
	[ "$smacro" -gt 0 ] && sample_macro
	anchor_tag=KMT-BENCH-ANCHOR
fi
# What `kmemtrace record` itself runs while nothing allocates (its
# wake-ups, the names of tasks): its threads' run time over two seconds
# with CPU 0 idle, which under -icount is their instructions (the vCPUs
# share one clock, and only CPU 1 runs).  "KMT-BENCH-READER MODE N", N an
# average second's instructions; needs /proc/PID/sched (SCHED_DEBUG).
reader_ns() {
	awk '/^se.sum_exec_runtime/ { n += $NF } END { printf "%.0f", n * 1e6 }' \
		/proc/"$rec"/task/*/sched
}
reader_idle() {
	mode_start "$1"
	if [ -f /proc/"$rec"/sched ]; then
		sleep 1
		t0=$(reader_ns)
		sleep 2
		say "KMT-BENCH-READER $1 $((($(reader_ns) - t0) / 2))"
	fi
	mode_stop "$1"
}
for mode in $modes; do
	case $mode in relay|relay+sample) reader_idle "$mode" ;; esac
done
case $ramp in
1)	ramp 4 ;;
smoke)	ramp_step 100000 >/dev/null ;;
esac
say "KMT-BENCH-END"
