# SPDX-License-Identifier: GPL-2.0
#
# boot-lib.sh - the results, builds and QEMU boots of make check
# (check.sh), make stress (stress.sh) and make ftracetest (ftracetest.sh),
# sourced after lib.sh with RES set to the results file of the run: RES
# is emptied, and gets one "PASS|FAIL|SKIP NAME" line per test; summary()
# sums it up at the end.

OUT=$KMT_CACHE/out
mkdir -p "$OUT"
: >"$RES"
t0=$(date +%s)

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
# result names must match; THREAD is TCG's thread mode (run.sh chooses:
# multi, or single on a QEMU before 8.1);
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
	if KMT_TCG_THREAD=${4:-} KMT_INITRAMFS=${BOOT_INITRAMFS:-} \
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


# build_initramfs: the test kernel, the tool and the initramfs (make
# initramfs), as make check's first step.
build_initramfs() {
	if "$KMT_BIN/stage.sh" build ${KMT_MAKE:-make} -s -C "$KMT_REPO" initramfs; then
		result PASS build.kernel_tool_initramfs
	else
		result FAIL build.kernel_tool_initramfs
	fi
}

# build_kernel NAME: the test kernel's configuration with configs/NAME.config
# on top (off, debug, kcsan), in build NAME.  Fails as its result does.
build_kernel() {
	if "$KMT_BIN/stage.sh" "build-$1" "$KMT_BIN/build.sh" "$1" \
		"$KMT_SELFTESTS/configs/base.config" \
		"$KMT_SELFTESTS/configs/kmemtrace.config" \
		"$KMT_SELFTESTS/configs/$1.config"; then
		result PASS "build.kmemtrace_$1"
	else
		result FAIL "build.kmemtrace_$1"
		return 1
	fi
}

# rerun_off NAME KTAP CMDLINE: the upstream ftracetest tests that failed in
# KTAP (a boot's guest/ftracetest.ktap), rerun on the CONFIG_KMEMTRACE=n
# kernel in boot NAME, on an initramfs that lists them; no boot when none
# failed, which is most often.  bin/ftracetest-compare.sh then fails a
# test only if it fails with kmemtrace and passes without.
rerun_off() {
	rm -rf "${OUT:?}/$1"
	"$KMT_BIN/ftracetest-failed.sh" "$2" >"$OUT/$1.only"
	[ -s "$OUT/$1.only" ] || return 0
	BOOT_INITRAMFS=$OUT/initramfs-$1.cpio
	KMT_FTRACETEST_ONLY=$OUT/$1.only \
	KMT_INITRAMFS=$BOOT_INITRAMFS "$KMT_BIN/mkinitramfs.sh"
	boot "$1=ftrace" "$KERNEL_OFF" "$3" "" single
	BOOT_INITRAMFS=
}

# summary CONSOLES [noskips]: print what failed (and what was skipped,
# unless noskips), where the results and CONSOLES are, the time taken,
# and last "N passed, N failed[, N skipped]".  Fails if anything failed.
summary() {
	if [ "${2:-}" = noskips ]; then
		grep -E '^FAIL ' "$RES" | sed 's/^/kmemtrace: /'
	else
		grep -E '^(FAIL|SKIP) ' "$RES" | sed 's/^/kmemtrace: /'
	fi
	pass=$(grep -c '^PASS ' "$RES")
	fail=$(grep -c '^FAIL ' "$RES")
	skip=$(grep -c '^SKIP ' "$RES")
	kmt_log "results: $RES; consoles: $1; total $(($(date +%s) - t0))s"
	echo "$pass passed, $fail failed$([ "$skip" = 0 ] || echo ", $skip skipped")"
	[ "$fail" = 0 ]
}
