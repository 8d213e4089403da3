# SPDX-License-Identifier: GPL-2.0
#
# boot-lib.sh - the results and QEMU boots of make check (check.sh) and
# make stress (stress.sh), sourced after lib.sh with OUT and RES set: RES
# gets one "PASS|FAIL|SKIP NAME" line per test.

result() {	# result PASS|FAIL|SKIP NAME
	echo "$1 $2" >>"$RES"
}

ktap() {	# ktap PREFIX < KTAP
	awk -f "$KMT_BIN/ktap.awk" | sed "s/^\([A-Z]*\) /\1 $1/" >>"$RES"
}

# A kernel's complaints: warnings, oopses, lockdep reports, KASAN,
# sleeping in atomic context (guest/stress-lib.sh greps the same).  Not
# "lockdep" alone: a lockdep kernel says "RCU lockdep checking is enabled".
SPLAT='WARNING:|BUG:|Oops|Call Trace:|UBSAN:|KASAN|Kernel panic'
SPLAT="$SPLAT|lockdep is turned off|possible circular locking|inconsistent lock state"
SPLAT="$SPLAT|possible recursive locking|suspicious RCU usage|BUG: sleeping function"

# boot NAME[=MODE] KERNEL CMDLINE TESTS [THREAD [ALLOW]]: one QEMU boot
# of KERNEL (a build: $KERNEL, $KERNEL_OFF or $KERNEL_DEBUG) running the
# guest tests of MODE (NAME unless given); TESTS is a pattern their
# result names must match; THREAD is TCG's thread mode, multi by default;
# ALLOW is a pattern of the one kernel warning the boot expects.
# shellcheck disable=SC2034 # for the scripts that source this
KERNEL=kmemtrace
# shellcheck disable=SC2034
KERNEL_OFF=off
# shellcheck disable=SC2034
KERNEL_DEBUG=debug
boot() {
	name=${1%%=*}
	mode=${1#*=}
	shift
	if grep -q "^FAIL build.*$1" "$RES"; then
		result FAIL "boot.$name"
		return
	fi
	if KMT_TCG_THREAD=${4:-multi} KMT_INITRAMFS=${BOOT_INITRAMFS:-} \
	   "$KMT_BIN/stage.sh" "boot-$name" "$KMT_BIN/run.sh" "$mode" "$2" "$1" "$name"; then
		result PASS "boot.$name"
	else
		result FAIL "boot.$name"
	fi
	log=$OUT/$name/console.log
	[ -f "$log" ] || return
	ktap "$name." <"$log"
	[ -z "$3" ] || grep -q "^[A-Z]* $name\.$3" "$RES" ||
		result FAIL "boot.$name.tests_ran"
	# A boot may expect one kind of warning (its last argument, a
	# pattern of the WARNING line): drop those, a WARN()'s up to its end
	# marker, a one-line warning alone.  KCSAN reports that do not
	# involve kmemtrace are upstream's races (kcsan-ours.awk).
	if awk -v allow="${5:-}" '
		/cut here/ { cut = 1 }
		allow != "" && /WARNING:/ && $0 ~ allow {
			if (cut)
				skip = 1
			cut = 0
			next
		}
		/WARNING:/ { cut = 0 }
		!skip { print }
		skip && /---\[ end trace/ { skip = 0 }' "$log" |
	   awk -f "$KMT_SELFTESTS/guest/kcsan-ours.awk" | grep -nE "$SPLAT"; then
		result FAIL "boot.$name.console_clean"
	else
		result PASS "boot.$name.console_clean"
	fi
}

