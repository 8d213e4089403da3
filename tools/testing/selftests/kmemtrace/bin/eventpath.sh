#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# eventpath.sh [KERNEL [SAMPLE|off|pairs]] - what one recorded event costs, function
# by function: boots KERNEL (default bench-b, as make bench builds it)
# with QEMU's gdb stub while the guest records (guest/eventpath.sh; with
# SAMPLE, sampling one allocation per SAMPLE bytes) and allocates, stops
# at each kmemtrace probe and single-steps it to its return (gdb, with
# interrupts and timers masked while stepping: the path of the event
# alone), three calls each (with SAMPLE, of probe_*_sampled(): the
# sampling fast path, and the events it lets through; on a kernel with
# CONFIG_KMEMTRACE_SAMPLE_HOOKS, such as bench-c, of the hooks the
# allocators call for those events, kmemtrace_sampled_*()).  Prints, per
# probe, the instructions of each call and, for the shortest, how many
# ran in each function.  That is the
# probe's whole cost on the allocating CPU but the tracepoint's call site
# in the allocator (a static key, preemption count and a static call:
# about six instructions, not stepped).
#
# An opt-in measurement (make eventpath), not a test: it explains the
# per-event figures of make bench (Documentation/trace/kmemtrace.rst,
# Cost) and checks what an optimisation of the probes changed.
#
# With "off", nothing records: it steps one kmemtrace_bench pair of each
# operation make bench's off row is over on (and of two it is not), the
# allocation and the free from the bench's call to its return, on KERNEL
# as it is, so that bin/offpath.sh can set kernel (a) beside (b) function
# by function.  With "pairs", the same pairs while the guest records
# (relay): the probes with the entry hooks, trampolines and scopes that
# name the events' callers (make eventpath EVENTPATH_SAMPLE=pairs); with
# "pairs-N", the same pairs while the guest samples one allocation per N
# bytes: what every pair pays for sampling, taking no sample if N is large.
# With "prof" (a kernel with allocation profiling, such as bench-c), the
# pairs of "off" with profiling switched on and nothing recording: where
# the figures of make bench's (c)prof column go.

set -eu
. "$(dirname "$0")/lib.sh"

kernel=${1:-bench-b}
sample=${2:-0}
BUILD=$(kmt_build "$kernel")
VMLINUX=$BUILD/vmlinux
OUT=$KMT_CACHE/out/eventpath-$kernel-$sample
LOG=$OUT/console.log
PROBES="probe_kmalloc probe_kfree probe_kmem_cache_alloc probe_kmem_cache_free
	probe_mm_page_alloc probe_mm_page_free probe_vmalloc probe_vfree
	probe_percpu_alloc_percpu probe_percpu_free_percpu"

CFG=$KMT_SELFTESTS/configs
case $kernel in
bench-a) "$KMT_BIN/stage.sh" "build-$kernel" "$KMT_BIN/build.sh" "$kernel" \
		"$CFG/base.config" "$CFG/bench.config" ;;
bench-b) "$KMT_BIN/stage.sh" "build-$kernel" "$KMT_BIN/build.sh" "$kernel" \
		"$CFG/base.config" "$CFG/bench.config" "$CFG/bench-kmemtrace.config" ;;
bench-c) "$KMT_BIN/stage.sh" "build-$kernel" "$KMT_BIN/build.sh" "$kernel" \
		"$CFG/base.config" "$CFG/bench.config" "$CFG/bench-kmemtrace.config" \
		"$CFG/bench-profiling.config" ;;
esac
[ -f "$VMLINUX" ] || kmt_die "no $VMLINUX"
# A sampling recording attaches the probes' sampling fast paths.  Off,
# the breakpoints are the bench's pairs, LABEL:FUNCTION:CONDITION.
case $sample in
pairs-*) pairs_sample=${sample#pairs-} ;;
*) pairs_sample=0 ;;
esac
if [ "$sample" = off ] || [ "$sample" = prof ] || [ "${sample%%-*}" = pairs ]; then
	PROBES='pages-0:pair_pages:$rdi==0 pages-3:pair_pages:$rdi==3
		kmalloc-large:pair_kmalloc:$rdi==16384 vmalloc:pair_vmalloc:1
		percpu:pair_percpu:1 kmalloc-64:pair_kmalloc:$rdi==64
		kmalloc-4096:pair_kmalloc:$rdi==4096
		cache:pair_cache:1'
elif [ "$sample" != 0 ] &&
	grep -q '^CONFIG_KMEMTRACE_SAMPLE_HOOKS=y' "$BUILD/.config"; then
	# The allocators count down inline and call kmemtrace_sampled_*()
	# (the hooks) for the sampled allocation and for frees that may be
	# of sampled objects: step those.
	PROBES=$(for p in $PROBES; do echo "kmemtrace_sampled_${p#probe_}"; done)
elif [ "$sample" != 0 ]; then
	PROBES=$(for p in $PROBES; do echo "${p}_sampled"; done)
fi
# EVENTPATH_OPS="LABEL...": only those probes or bench pairs (a few
# minutes each under gdb), e.g. EVENTPATH_OPS=vmalloc make offpath.
if [ -n "${EVENTPATH_OPS:-}" ]; then
	PROBES=$(for p in $PROBES; do
		for o in $EVENTPATH_OPS; do
			if [ "${p%%:*}" = "$o" ]; then echo "$p"; fi
		done
	done)
	[ -n "$PROBES" ] || kmt_die "EVENTPATH_OPS=$EVENTPATH_OPS names nothing to step"
fi
command -v gdb >/dev/null || kmt_die "no gdb (apt-get install gdb)"
rm -rf "$OUT"
mkdir -p "$OUT"
port=$((20000 + $$ % 20000))
# The guest records everything for "pairs" (kmt.sample=0), samples for
# "pairs-N".
guest_sample=$sample
[ "${sample%%-*}" = pairs ] && guest_sample=$pairs_sample
cmdline="kmt.mode=eventpath kmt.sample=$guest_sample"
# Profiling can be switched on at run time only in a kernel booted so.
if [ "$sample" = prof ]; then
	cmdline="$cmdline sysctl.vm.mem_profiling=0"
fi

qemu-system-x86_64 -accel tcg,thread=single -smp "$KMT_SMP" -m 1G \
	-cpu qemu64,-cx16 -kernel "$BUILD/arch/x86/boot/bzImage" \
	-initrd "${KMT_INITRAMFS:-$KMT_CACHE/out/initramfs.cpio}" \
	-append "console=ttyS0 panic=-1 nokaslr kunit.enable=0 trace_event= $cmdline" \
	-gdb "tcp:127.0.0.1:$port" -display none -monitor none \
	-serial file:"$LOG" -no-reboot </dev/null &
qemu=$!
trap 'kill $qemu 2>/dev/null || :' EXIT

i=0
until grep -q '^KMT-EVENTPATH-READY' "$LOG" 2>/dev/null; do
	kill -0 $qemu 2>/dev/null || kmt_die "QEMU exited; console: $LOG"
	[ $i -lt 600 ] || kmt_die "the guest never got ready; console: $LOG"
	i=$((i + 1))
	sleep 1
done
! grep -q '^KMT-EVENTPATH-ERROR' "$LOG" || kmt_die "guest: $(grep '^KMT-EVENTPATH-ERROR' "$LOG")"

for p in $PROBES; do
	label=${p%%:*}
	loc=$p
	if [ "$label" != "$p" ]; then
		loc=${p#*:}
		loc="${loc%%:*} if ${loc#*:}"
	fi
	timeout 600 gdb -nx -batch \
		-ex "python port = $port; probe = '$loc'; label = '$label'" \
		-ex "python out = '$OUT/pcs'; reps = 3" \
		-x "$KMT_BIN/eventpath.py" "$VMLINUX" >"$OUT/gdb-$label.log" 2>&1 ||
		kmt_die "gdb on $label failed: $OUT/gdb-$label.log"
done
kill $qemu 2>/dev/null || true
wait $qemu 2>/dev/null || true

# Each pc by the function it is in: "LABEL N FUNCTION ..." per call, for
# the table here and for bin/offpath.sh.
nm -n "$VMLINUX" | python3 -c '
import bisect, sys
syms = []
for line in open("/dev/stdin"):
    f = line.split()
    if len(f) == 3 and f[1] in "tTwW":
        syms.append((int(f[0], 16), f[2]))
addrs = [a for a, _ in syms]
for line in open(sys.argv[1]):
    f = line.split()
    names = []
    for x in f[2:]:
        i = bisect.bisect_right(addrs, int(x, 16)) - 1
        names.append(syms[i][1] if i >= 0 else "?")
    print(f[0], f[1], " ".join(names))
' "$OUT/pcs" >"$OUT/names"

python3 -c '
import collections, sys
calls = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    calls[f[0]].append(f[2:])
print("instructions per call of each %s, stepped to its return"
      " (%s, sample_period %s)" % ("bench pair" if sys.argv[3] == "off"
      else "bench pair, allocation profiling on" if sys.argv[3] == "prof"
      else "bench pair recording" if sys.argv[3].startswith("pairs")
      else "probe", sys.argv[2], sys.argv[3]))
for probe, runs in calls.items():
    best = min(runs, key=len)
    print("%-28s %s" % (probe, " ".join(str(len(r)) for r in runs)))
    per = collections.Counter(best)
    for fn, n in sorted(per.items(), key=lambda kv: -kv[1]):
        print("    %5d  %s" % (n, fn))
' "$OUT/names" "$kernel" "$sample" | tee "$OUT/table.txt"
kmt_log "event paths: $OUT/table.txt"
exit 0
