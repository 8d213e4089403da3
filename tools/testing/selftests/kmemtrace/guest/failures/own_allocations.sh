#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# own_allocations.sh - kmemtrace's own allocations fail cleanly.  This
# boot's buffers are small (kmemtrace.subbufs=4 kmemtrace.subbuf_size=65536),
# so that switching recording on makes few allocations: the relay
# channel, each CPU's buffer, its pages and its cpuN file.  With fault
# injection's fail-nth (failnth.c; failslab and fail_page_alloc set to
# fail any slab or page allocation of the task, whatever its GFP flags),
# each allocation of a write is failed in turn, from the first to the
# last, for the writes that allocate: "allocate" to buffers, 1 to
# stack_sample (the stack table), and 1 to enabled with a sample period
# set (the sample table).  A write whose allocation failed must fail with
# ENOMEM, the kernel log must say so in a kmemtrace line, and nothing may
# stay allocated or on; then the write is done without a fault, and a
# recording after the sweeps must be exact.

out=/tmp/own
tmp=/tmp/own
. /kmt/failures-lib.sh

dmesg -c >/dev/null
dmesg -n 1

fault_injection_on
[ "$(cat $D/enabled)" = 0 ] || fail "recording is on"
echo release >$D/buffers || fail "cannot release the buffers"

# sweep NAME FILE VALUE CHECK UNDO: fail allocation 1, 2, ... of writing
# VALUE to FILE until a write makes fewer; after each, CHECK (a command)
# must succeed.  The write without a fault must succeed too, then UNDO.
sweep() {
	name=$1 file=$2 value=$3 check=$4 undo=$5
	n=0
	failed=0
	while :; do
		n=$((n + 1))
		[ $n -le 2000 ] || fail "$name: still allocating at $n"
		dmesg -c >/dev/null
		set -- $(failnth $n $file "$value")
		[ "$1" = write ] || fail "$name: failnth: $*"
		[ "$4" = 1 ] || break
		if [ "$2" = 0 ]; then
			# kmemtrace did without it: recording works all the same.
			eval "$undo"
			continue
		fi
		failed=$((failed + 1))
		[ "$2" = ENOMEM ] ||
			fail "$name: allocation $n failed the write with $2, not ENOMEM"
		dmesg | grep -q 'kmemtrace: ' ||
			fail "$name: allocation $n failed the write with nothing in the log"
		eval "$check" || fail "$name: after allocation $n failed: $why"
		splats >$tmp.splats
		[ ! -s $tmp.splats ] || { cat $tmp.splats
			fail "$name: allocation $n: the kernel log reports a bug"; }
	done
	[ "$2" = 0 ] || fail "$name: the write failed with $2 without a fault"
	echo "$name: $((n - 1)) allocations, each failed in turn: $failed failed" \
		"the write (ENOMEM, logged), $((n - 1 - failed)) were done without"
	eval "$undo"
}

released() {
	why="buffers: $(cat $D/buffers), enabled $(cat $D/enabled)"
	[ "$(cat $D/buffers)" = "released 0" ] && [ ! -e $D/cpu0 ] &&
		[ "$(cat $D/enabled)" = 0 ]
}
sweep buffers $D/buffers allocate released 'echo release >$D/buffers'

no_stacks() {
	why="stack_sample $(cat $D/stack_sample)"
	[ "$(cat $D/stack_sample)" = 0 ]
}
sweep stack_sample $D/stack_sample 1 no_stacks 'echo 0 >$D/stack_sample'

echo 65536 >$D/sample_period || fail "cannot set sample_period"
off() {
	why="enabled $(cat $D/enabled)"
	[ "$(cat $D/enabled)" = 0 ]
}
sweep enabled_sampling $D/enabled 1 off 'echo 0 >$D/enabled'
echo 0 >$D/sample_period || fail "cannot reset sample_period"

dmesg -n 7
# Everything works after the sweeps: an exact recording of a known load.
kmemtrace record -q -e -o $out -- sh -c "echo 'mix 200' >$B" ||
	fail "kmemtrace record failed after the sweeps"
kmemtrace check $out >$tmp.check 2>&1 || { cat $tmp.check; fail "check failed"; }
echo "ok: then a recording passes check ($(tail -n 1 $tmp.check))"
