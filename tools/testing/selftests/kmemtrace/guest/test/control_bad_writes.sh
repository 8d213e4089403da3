#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: writes to enabled other than 0 and 1, to buffers other
#              than allocate and release, and to clock other than local
#              and tsc, fail with EINVAL (a clock change while the
#              buffers are allocated with EBUSY) and change
#              nothing, on or off, and lose no recorded event; the
#              read-only files refuse any write and keep their content
# requires: CONFIG_KMEMTRACE, debugfs at /sys/kernel/debug

D=/sys/kernel/debug/kmemtrace
fail() { echo 0 >$D/enabled; echo "FAIL: $*"; exit 1; }

events() {
	grep -v '^#' $D/stats | awk '{ n += $2 } END { print n + 0 }'
}

dropped0=$(cat $D/dropped)
for state in 0 1; do
	echo $state >$D/enabled || fail "cannot set $state"
	for bad in 2 -1 on off yes 0x1 1x " " "1 1" 99999999999; do
		err=$(printf '%s' "$bad" | dd of=$D/enabled 2>&1) &&
			fail "writing '$bad' succeeded"
		case $err in
		*"Invalid argument"*) ;;
		*) fail "writing '$bad': '$err', want Invalid argument" ;;
		esac
		[ "$(cat $D/enabled)" = $state ] ||
			fail "writing '$bad' changed enabled from $state"
	done
done

# buffers takes "allocate" and "release" only; recording goes on.
for bad in 1 0 free allocatex "allocate release" " "; do
	err=$(printf '%s' "$bad" | dd of=$D/buffers 2>&1) &&
		fail "writing '$bad' to buffers succeeded"
	case $err in
	*"Invalid argument"*) ;;
	*) fail "writing '$bad' to buffers: '$err', want Invalid argument" ;;
	esac
done
[ "$(cat $D/enabled)" = 1 ] || fail "bad buffers writes stopped recording"

# clock takes "local" and "tsc", and changes only while the buffers are
# released: the clock in force is taken, the other is busy (local in
# force, or tsc in make stress's relay boots, kmemtrace.clock=tsc).
clock0=$(cat $D/clock)
case $clock0 in
"[local] tsc") cur=local other=tsc ;;
"local [tsc]") cur=tsc other=local ;;
*) fail "clock reads '$clock0'" ;;
esac
for bad in TSC loca "local tsc" " " hpet; do
	err=$(printf '%s' "$bad" | dd of=$D/clock 2>&1) &&
		fail "writing '$bad' to clock succeeded"
	case $err in
	*"Invalid argument"*) ;;
	*) fail "writing '$bad' to clock: '$err', want Invalid argument" ;;
	esac
done
err=$(printf $other | dd of=$D/clock 2>&1) &&
	fail "changing clock to $other while allocated succeeded"
case $err in
*"Device or resource busy"*) ;;
*) fail "changing clock while allocated: '$err', want busy" ;;
esac
printf $cur | dd of=$D/clock 2>/dev/null || fail "writing the clock in force, $cur, failed"
[ "$(cat $D/clock)" = "$clock0" ] || fail "clock went from '$clock0' to '$(cat $D/clock)'"
[ "$(cat $D/enabled)" = 1 ] || fail "bad clock writes stopped recording"

# stack_sample takes a number up to 2^32-1, stack_frees 0 or 1.
for f in stack_sample stack_frees; do
	for bad in -1 on abc " " "1 1" 4294967296; do
		err=$(printf '%s' "$bad" | dd of=$D/$f 2>&1) &&
			fail "writing '$bad' to $f succeeded"
		case $err in
		*"Invalid argument"*) ;;
		*) fail "writing '$bad' to $f: '$err', want Invalid argument" ;;
		esac
		[ "$(cat $D/$f)" = 0 ] || fail "writing '$bad' changed $f"
	done
done
err=$(printf 2 | dd of=$D/stack_frees 2>&1) && fail "writing 2 to stack_frees succeeded"
[ "$(cat $D/stack_frees)" = 0 ] || fail "writing 2 changed stack_frees"

# While recording, sample_period and sample_seed are busy for any number,
# and a bad one is still EINVAL; nothing changes.
for f in sample_period sample_seed; do
	for busy in 4096 0; do
		err=$(printf '%s' "$busy" | dd of=$D/$f 2>&1) &&
			fail "writing '$busy' to $f while recording succeeded"
		case $err in
		*"Device or resource busy"*) ;;
		*) fail "writing '$busy' to $f: '$err', want busy" ;;
		esac
	done
	for bad in -1 abc " " "1 1" 18446744073709551616; do
		err=$(printf '%s' "$bad" | dd of=$D/$f 2>&1) &&
			fail "writing '$bad' to $f while recording succeeded"
		# Beyond 64 bits, the debugfs attribute says ERANGE.
		case $err in
		*"Invalid argument"*|*"Numerical result out of range"*) ;;
		*) fail "writing '$bad' to $f: '$err', want Invalid argument" ;;
		esac
		[ "$(cat $D/$f)" = 0 ] || fail "writing '$bad' changed $f"
	done
done

# Not recording: sample_period takes 0 to 2^30 only.
echo 0 >$D/enabled
for bad in 1073741825 4294967296 -1 abc; do
	err=$(printf '%s' "$bad" | dd of=$D/sample_period 2>&1) &&
		fail "writing '$bad' to sample_period succeeded"
	case $err in
	*"Invalid argument"*) ;;
	*) fail "writing '$bad' to sample_period: '$err', want Invalid argument" ;;
	esac
	[ "$(cat $D/sample_period)" = 0 ] || fail "writing '$bad' changed sample_period"
done
echo 1 >$D/enabled

# Still recording after the rejected writes, and nothing was lost.
events0=$(events)
ls -R /proc/self >/dev/null
echo 0 >$D/enabled
events1=$(events)
[ "$events1" -gt "$events0" ] || fail "no events after rejected writes"
[ "$(cat $D/dropped)" = "$dropped0" ] ||
	fail "dropped went from $dropped0 to $(cat $D/dropped)"
# Read-only files, root or not: EINVAL, content unchanged.
for f in abi_version dropped caches subbufs subbuf_size tags stacks sample_stats; do
	before=$(cat $D/$f)
	err=$(printf 1 | dd of=$D/$f conv=notrunc 2>&1) && fail "writing $f succeeded"
	case $err in
	*"Invalid argument"*|*"Permission denied"*) ;;
	*) fail "writing $f: '$err'" ;;
	esac
	[ "$(cat $D/$f)" = "$before" ] || fail "writing $f changed it"
done
# A stream keeps its data through a rejected write.
size=$(stat -c %s $D/cpu0)
printf 1 | dd of=$D/cpu0 conv=notrunc 2>/dev/null && fail "writing cpu0 succeeded"
[ "$(stat -c %s $D/cpu0)" = "$size" ] || fail "writing cpu0 changed it"
echo "ok: 10 bad values rejected in both states; $((events1 - events0)) events;"
echo "ok: read-only files and cpu0 refuse writes"
