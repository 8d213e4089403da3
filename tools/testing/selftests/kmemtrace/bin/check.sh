#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# check.sh - run every kmemtrace test layer and sum them up:
#   build   the kernel, the tool and the initramfs build (make initramfs)
#   host    tools/kmemtrace tests on the host (host/run.sh, KTAP)
#   series  make series: git am of the whole series on the pristine tree
#           gives the tree built here (bin/series.sh --check)
#   boots   QEMU boots, each with its guest shell tests (KTAP on the
#           console), the boot itself and a console free of kernel warnings:
#           test     KUnit suites kmemtrace and kmem_trace (the tracepoint
#                    fixes) and the debugfs/stream tests
#           params   bad kmemtrace.* parameters, CPU hotplug (maxcpus=1),
#                    allocation profiling off from boot
#           modules  samples/kmemtrace: a known pattern against the report
#                    and /proc/allocinfo, unload with live allocations,
#                    a second probe on the same tracepoints
#           overrun  recording from boot into tiny buffers: exact loss
#           pollwake a reader in poll() woken before a buffer of two odd
#                    sub-buffers is full
#           ftrace   the tracers' startup selftests, test.d/kmemtrace,
#                    trace-cmd and libtraceevent reading the tracer's
#                    entries, a smoke of upstream's ftracetest (make
#                    ftracetest runs all of it), what of it failed rerun
#                    on the off kernel (ftrace-off)
#           off      a CONFIG_KMEMTRACE=n kernel (built here too), with
#                    the KUnit suite of the series' tracepoint fixes
#           watchdog a guest that never ends, on the off kernel: run.sh
#                    stops it at its timeout with QEMU's vCPU state saved
#           stress   a debug kernel (lockdep, KASAN, ...; built here too)
#                    under a 2-CPU allocation load: switching on and off,
#                    tracers, readers, CPU hotplug, back-to-back records
#   bench   make bench's smoke: every mode and operation once with 1% of
#           the pairs, on the off and test kernels (bin/bench.sh smoke),
#           and the hooked entry points' code while off (offasm.sh)
#   perfkmem  perf kmem beside kmemtrace record on one load, alone on the
#           off kernel (the fixes without kmemtrace), and alone on the
#           unpatched tree (kernel (u), built here too)
# Work runs two at a time, so that both host CPUs are busy: host and
# series beside the test, params, modules, overrun and pollwake boots;
# then two lanes of boots: ftrace, off, ftrace-off and perf kmem on the
# test and off kernels; bench, stress and perf kmem on kernel (u).
# Every test is one line in $KMT_CACHE/out/results; the last line printed
# is "N passed, N failed[, N skipped]".  Exits 1 if anything failed.

set -u
. "$(dirname "$0")/lib.sh"

RES=$KMT_CACHE/out/results
. "$KMT_BIN/boot-lib.sh"

build_initramfs

# The host tests and the series check need no QEMU: they run in the
# background beside the first boots (one host CPU each), with results of
# their own added to the others' when the boots' two lanes start.
(RES=$OUT/results.host
 : >"$RES"
 if [ -x "$KMT_CACHE/tool/host/kmemtrace" ]; then
	if KMT_TSAN=$(kmt_build_tsan); then
		export KMT_TSAN
		result PASS build.tool_tsan
	else
		result FAIL build.tool_tsan
	fi
	rm -rf "$OUT/host"
	"$KMT_BIN/stage.sh" host-test sh "$KMT_SELFTESTS/host/run.sh" \
		"$KMT_CACHE/tool/host/kmemtrace" "$OUT/host" >"$OUT/host.ktap" 2>&1
	ktap host. <"$OUT/host.ktap"
	grep -q . "$OUT/host.ktap" || result FAIL host.run
	grep '^kmemtrace: stage ' "$OUT/host.ktap"
 fi

 # The series as a maintainer gets it: git format-patch output that git
 # am applies to the pristine tree, giving exactly the tree built here.
 "$KMT_BIN/stage.sh" series "$KMT_BIN/series.sh" --check >"$OUT/series.txt" 2>&1
 grep '^\(PASS\|FAIL\) series\.' "$OUT/series.txt" >>"$RES" ||
	result FAIL series.run
 grep -v '^\(PASS\|FAIL\) ' "$OUT/series.txt"
) &
hostlane=$!

# The ftrace startup selftests (CONFIG_FTRACE_STARTUP_TEST) of a boot.
selftests() {
	awk '/^Testing .*: / { name = $0; sub(/^Testing /, "", name)
				sub(/: .*/, "", name); gsub(/[ #]+/, "_", name) }
	     name && /PASSED/ { print "PASS ftrace_selftest." name; name = "" }
	     name && /FAILED/ { print "FAIL ftrace_selftest." name; name = "" }' \
		"$OUT/$1/console.log" >>"$RES"
}

# The KUnit suite runs in the first boot only, the ftrace startup
# selftests (which "trace_event=" turns off) in the ftrace boot only.
NOSELF="trace_event="
boot test "$KERNEL" "$NOSELF" 'kmemtrace_test\.'
grep -q '^[A-Z]* test\.kmemtrace\.' "$RES" || result FAIL kunit.kmemtrace_suite_ran
grep -q '^[A-Z]* test\.kmem_trace\.' "$RES" || result FAIL kunit.kmem_trace_suite_ran
K0="kunit.enable=0 $NOSELF"
PARAMS="maxcpus=1 sysctl.vm.mem_profiling=0 kmemtrace.subbufs=abc"
PARAMS="$PARAMS kmemtrace.subbuf_size=100 kmemtrace.enable=maybe"
PARAMS="$PARAMS kmemtrace.subbufs=2048 kmemtrace.subbuf_size=2097152"
PARAMS="$PARAMS kmemtrace.sample=2147483648 kmemtrace.sample_seed=xyz"
PARAMS="$PARAMS kmemtrace.clock=hpet kmemtrace.clock=tsc"
boot params "$KERNEL" "$K0 $PARAMS" 'kmemtrace_params\.'
# The sample modules: a known pattern, its codetags against allocinfo, a
# module unloaded with live allocations (alloc_tag warns about each of
# its lines: expected), a second probe on the same tracepoints.  The
# pattern runs as soon as "enabled" reads 1: when that was the relay
# sink's key, on before the probes were attached, the module's cache,
# page, percpu and vmalloc events went missing in some boots (KUnit
# test_enabled_after_probes now).
boot modules "$KERNEL" "$K0" 'kmemtrace_modules\.' '' \
	'at lib/alloc_tag.c:[0-9]+ alloc_tag_module_unload'
# The heap profiles of the sampled recording (modules/sample.sh), read
# by go tool pprof.
"$KMT_BIN/pprof-check.sh" "$OUT/modules/guest/sample-pprof" >>"$RES"
boot overrun "$KERNEL" \
	"$K0 kmemtrace.enable=1 kmemtrace.subbufs=4 kmemtrace.subbuf_size=4096" \
	'kmemtrace_overrun\.'
# Two sub-buffers not a whole number of events: a reader in poll() is
# woken before the buffer is full (guest/pollwake).
boot pollwake "$KERNEL" "$K0 kmemtrace.subbufs=2 kmemtrace.subbuf_size=200" \
	'kmemtrace_pollwake\.'

# The CONFIG_KMEMTRACE=n kernel and the debug kernel are built first, so
# that the two long single-threaded boots, ftrace and stress, can run
# side by side below, one host CPU each.
off=
if build_kernel off; then
	off=1
	# kmemtrace_bench, the allocation load, is in both kernels.
	if nm "$(kmt_build off)/vmlinux" | grep -i kmemtrace | grep -v kmemtrace_bench; then
		result FAIL build.kmemtrace_off_has_no_kmemtrace_symbols
	else
		result PASS build.kmemtrace_off_has_no_kmemtrace_symbols
	fi
fi
debug=
build_kernel debug && debug=1

# The series check's git repository is kernel (u)'s tree too (its
# worktree): the host lane is done before the lanes below build it.
wait "$hostlane"
cat "$OUT/results.host" >>"$RES"

# From here on, two lanes run side by side:
#   this shell: the ftrace boot, then the off and ftrace-off boots, which
#               rerun what failed in the ftrace boot's upstream ftracetest,
#               then the perf kmem boots of the test and off kernels;
#   background: the bench smoke (single-threaded TCG, -icount), then the
#               stress boot, then kernel (u) and its perf kmem boot, with
#               results of their own added to the others' at the end.
# Measured warm on a 2-core host, both lanes running: ftrace 302 s, off
# 7 s, perf kmem 71 s and 69 s; bench smoke about 100 s, stress 298 s,
# kernel (u) 9 s and its boot 36 s.
#
# The stress boot: kmemtrace on a kernel with lockdep, KASAN, debug
# objects and lists, atomic-sleep and preemption checks and jump labels,
# under a 2-CPU allocation load (guest/stress).  pci=noacpi: that slow a kernel can
# take longer than ACPICA's 30 s loop timeout to evaluate QEMU's _PRT,
# which then leaves the virtio disk without an interrupt and the boot
# hung; the BIOS's $PIR table routes it as well.
# 6.12's ORC data for return_to_handler (the function graph tracer's
# return trampoline) is wrong at its last instructions: a stack trace
# taken in an interrupt that lands there (KASAN saves one for every
# allocation) makes the unwinder warn once, "stack going in the
# wrong direction? at return_to_handler+0x46".  Upstream's, not
# kmemtrace's; see guest/stress-lib.sh.
rm -f "$OUT/bench-smoke.done"
(RES=$OUT/results.lane
 : >"$RES"
 # make bench, once over with 1% of the pairs, so that it cannot rot.
 if "$KMT_BIN/stage.sh" bench-smoke "$KMT_BIN/bench.sh" smoke >"$OUT/bench-smoke.log" 2>&1; then
	result PASS bench.smoke
 else
	tail -n 20 "$OUT/bench-smoke.log"
	result FAIL bench.smoke
 fi
 : >"$OUT/bench-smoke.done"

 if [ -n "$debug" ]; then
	boot stress "$KERNEL_DEBUG" "$K0 pci=noacpi" 'kmemtrace_stress\.' single \
		'stack going in the wrong direction\? at return_to_handler\+'
	grep -q '^[A-Z]* boot\.stress$' "$RES" || result FAIL boot.stress
 fi

 # perf kmem alone on kernel (u), the unpatched tree: in this lane,
 # which is the shorter one with it (see the perf kmem boots below).
 TOOLS=$OUT/bench-smoke/initramfs-tools.cpio
 if [ ! -f "$TOOLS" ]; then
	result FAIL perfkmem.tools_initramfs_upstream
 elif "$KMT_BIN/stage.sh" build-upstream "$KMT_BIN/upstream.sh" "$TOOLS" \
	"$OUT/initramfs-upstream.cpio"; then
	result PASS build.upstream
	BOOT_INITRAMFS=$OUT/initramfs-upstream.cpio
	boot perfkmem-upstream=perfkmem upstream "kunit.enable=0" \
		'kmemtrace_perfkmem\.'
 else
	result FAIL build.upstream
 fi
) &
lane=$!

# Upstream's ftracetest: its smoke (guest/ftrace.sh); make ftracetest runs
# all of it.
boot ftrace "$KERNEL" "kunit.enable=0 kmt.ftracetest=smoke" 'kmemtrace tracer - ' single
selftests ftrace
grep -q '^PASS ftrace_selftest.tracer_kmemtrace' "$RES" ||
	result FAIL ftrace_selftest.tracer_kmemtrace_ran
if "$KMT_BIN/tep-compare.sh" "$OUT/ftrace/guest/rawtrace"; then
	result PASS ftrace.libtraceevent_decodes_kmem_entries
else
	result FAIL ftrace.libtraceevent_decodes_kmem_entries
fi
"$KMT_BIN/trace-cmd-check.sh" "$OUT/ftrace/guest" >>"$RES"

# CONFIG_KMEMTRACE=n: boots, passes the KUnit suite of the series'
# tracepoint fixes (kmem_trace, which needs no kmemtrace; the test boot
# runs it too), and runs upstream ftracetest for comparison.
if [ -n "$off" ]; then
	boot off "$KERNEL_OFF" "$NOSELF kunit.filter_glob=kmem_trace" 'kmemtrace_off\.'
	grep -q '^[A-Z]* off\.kmem_trace\.' "$RES" ||
		result FAIL kunit.kmem_trace_suite_ran_without_kmemtrace
	# Only the upstream tests that failed with kmemtrace.
	rerun_off ftrace-off "$OUT/ftrace/guest/ftracetest.ktap" "kunit.enable=0"
	# run.sh's watchdog, on a guest that never ends (kmt.mode=hang).
	"$KMT_BIN/watchdog-check.sh" "$KERNEL_OFF" "$K0" >>"$RES"
fi

# perf kmem, the tool users run, as the witness of the series' slab
# tracepoint fixes (guest/perfkmem): beside kmemtrace record on the test
# kernel, where both see the same load; alone on the CONFIG_KMEMTRACE=n
# kernel, where it sees the load exactly too; alone on kernel (u), the
# unpatched tree (bin/upstream.sh, in the other lane), where it shows
# what the fixes change.  The boots append make bench's tools initramfs
# (perf), which the bench smoke made: they wait for it, in the other lane.
while [ ! -e "$OUT/bench-smoke.done" ] && kill -0 "$lane" 2>/dev/null; do
	sleep 1
done
TOOLS=$OUT/bench-smoke/initramfs-tools.cpio
if [ -f "$TOOLS" ]; then
	BOOT_INITRAMFS=$TOOLS
	boot perfkmem "$KERNEL" "$K0" 'kmemtrace_perfkmem\.'
	# The CONFIG_KMEMTRACE=n kernel: the fixes stand without kmemtrace.
	if [ -n "$off" ]; then
		boot perfkmem-off=perfkmem "$KERNEL_OFF" "$K0" 'kmemtrace_perfkmem\.'
	else
		result FAIL boot.perfkmem-off
	fi
	BOOT_INITRAMFS=
else
	result FAIL perfkmem.tools_initramfs
fi

wait "$lane"
cat "$OUT/results.lane" >>"$RES"

"$KMT_BIN/ftracetest-compare.sh" "$OUT/ftrace/guest/ftracetest.ktap" \
	"$OUT/ftrace-off/guest/ftracetest.ktap" >>"$RES"
grep -q '^PASS upstream\.' "$RES" || result FAIL upstream.ftracetest_ran

summary "$OUT/*/console.log"
