#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# failures-lib.sh - what the guest/failures tests share.  Sourced after
# setting out (the recording's directory) and tmp (a prefix for scratch
# files).
#   fail MSG            end the test, console loglevel restored
#   fault_injection_on  failslab and fail_page_alloc may fail any slab or
#                       page allocation, whatever its GFP flags, silently:
#                       nothing fails until a task's fail-nth or
#                       make-it-fail asks
#   splats              the kernel log's reports of a bug, but for those
#                       that failing allocations make upstream print
# and, from modules-lib.sh, record_start: kmemtrace record into $out in
# the background ($rec), returning once recording is on (1 if it never
# comes on).

D=/sys/kernel/debug/kmemtrace
F=/sys/kernel/debug
B=/sys/kernel/debug/kmemtrace_bench/run
. /kmt/modules-lib.sh

fail() { dmesg -n 7; echo "FAIL: $*"; exit 1; }

fault_injection_on() {
	[ -d $F/failslab ] && [ -d $F/fail_page_alloc ] ||
		fail "no failslab or fail_page_alloc in debugfs (CONFIG_FAULT_INJECTION_DEBUG_FS)"
	for a in failslab fail_page_alloc; do
		echo N >$F/$a/ignore-gfp-wait
		echo 0 >$F/$a/verbose
	done
	echo N >$F/fail_page_alloc/ignore-gfp-highmem
	echo 0 >$F/fail_page_alloc/min-order
}

# While allocations fail on purpose, warn_alloc()'s reports and
# allocation profiling's WARN when a slab's extension vector cannot be
# allocated (prepare_slab_obj_exts_hook(), upstream's) are expected: the
# tests keep the console quiet meanwhile (dmesg -n 1) and check the log.
splats() {
	dmesg | grep -E -e 'BUG:|WARNING:|KASAN:|UBSAN:|Oops|suspicious RCU' \
		-e 'lockdep is turned off|circular locking|inconsistent lock' |
		grep -v 'at mm/slub.c:[0-9]* alloc_tagging_slab_alloc_hook'
}
