#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# stress-lib.sh - sourced by the stress boot's tests (guest/stress): run
# stress-loop.sh loops in the background and stop them, and look for
# kernel splats.

K=/sys/kernel/debug/kmemtrace
T=/sys/kernel/tracing
C=/sys/devices/system/cpu/cpu1/online
# What a console must not show (bin/check.sh's console_clean).
SPLAT='WARNING:|BUG:|Oops|Call Trace:|UBSAN:|KASAN|Kernel panic|lockdep is turned off'
SPLAT="$SPLAT|possible circular locking|inconsistent lock state|possible recursive locking"
SPLAT="$SPLAT|suspicious RCU usage|BUG: sleeping function"

# Functions the function tracers trace: the allocator entry points the
# load calls.  Under TCG, tracing or patching every function of a loaded
# guest takes minutes per switch; kmem_function still traces them all.
FILTER='__kmalloc_noprof kfree kmem_cache_alloc_noprof kmem_cache_free vfree __free_pages'

# stress_begin DIR: skip (exit 4) without what the stress tests need, else
# start with an empty DIR and an empty kernel log.
stress_begin() {
	[ -e /sys/kernel/debug/kmemtrace_bench/run ] ||
		{ echo "SKIP: no CONFIG_KMEMTRACE_BENCH"; exit 4; }
	grep -qw kmemtrace $T/available_tracers ||
		{ echo "SKIP: no tracer"; exit 4; }
	[ -e $C ] || { echo "SKIP: cpu1 cannot be hotplugged"; exit 4; }
	rm -rf "$1"
	mkdir -p "$1"
	dmesg -c >/dev/null
}

# stress_start DIR LOOP[:ARG]...: start the loops, records their pids.
# The enable loop runs at real-time priority, above the load.
stress_start() {
	sdir=$1
	shift
	rm -f "$sdir/stop"
	: >$T/set_ftrace_filter
	for f in $FILTER; do
		echo "$f" >>$T/set_ftrace_filter
	done
	spids=
	for l in "$@"; do
		rt=
		[ "$l" != enable ] || rt="chrt -f 10"
		$rt /kmt/stress-loop.sh "${l%%:*}" "$sdir" "$(echo "$l" | sed -n 's/.*://p')" &
		spids="$spids $!"
	done
}

# stress_stop: stop the loops and wait for them; put the tracer, the
# recording and cpu1 back.
stress_stop() {
	touch "$sdir/stop"
	for p in $spids; do
		wait "$p"
	done
	echo 0 >$K/enabled
	echo nop >$T/current_tracer
	echo 0 >$T/options/kmem_function
	: >$T/set_ftrace_filter
	[ ! -e $C ] || echo 1 >$C
}

# stress_count NAME: cycles the loop NAME has run.
stress_count() {
	cat "$sdir/$1.count" 2>/dev/null || echo 0
}

# stress_report: print the cycles of every loop and its failures; return
# 1 if any loop failed.
stress_report() {
	for f in "$sdir"/*.count; do
		printf '%s %s cycles\n' "$(basename "$f" .count)" "$(cat "$f")"
	done
	[ ! -s "$sdir/tracer.log" ] ||
		echo "tracer switches (uptime s):" $(cat "$sdir/tracer.log")
	cat "$sdir"/*.fail | head -n 20
	! cat "$sdir"/*.fail | grep -q .
}

# The one complaint that is expected: 6.12's ORC data for
# return_to_handler, the function graph tracer's return trampoline, is
# wrong at its last instructions (after its stack pointer is restored,
# before the return), so a stack trace taken in an interrupt that lands
# there (KASAN saves one for every allocation) makes the unwinder warn
# once, "stack going in the wrong direction? at return_to_handler+0x46".
# It is the unwinder's warning about upstream's trampoline, whatever
# kmemtrace does; bin/check.sh lets the same line through.
SPLAT_UPSTREAM='WARNING: stack going in the wrong direction\? at return_to_handler\+'

# splats: print the kernel's complaints since dmesg was last cleared;
# return 1 if there are any.  A KCSAN report counts only if kmemtrace is
# in it (kcsan-ours.awk): the others are races between upstream
# functions, named but not held against kmemtrace.
splats() {
	! dmesg | awk -f /kmt/kcsan-ours.awk | grep -E "$SPLAT" |
		grep -vE "$SPLAT_UPSTREAM" | head -n 20 | grep .
}
