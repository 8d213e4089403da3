#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh [smoke|tool] - make bench: what kmemtrace costs, side by side with
# the kernel without it, upstream's kmem trace events and allocation
# profiling, in one run.
#
# Builds three kernels from configs/bench.config (Debian-like: -O2, jump
# labels, no debug options):
#   (a) CONFIG_KMEMTRACE=n                       bench-a
#   (b) (a) + kmemtrace and its tracer           bench-b
#   (c) (b) + CONFIG_MEM_ALLOC_PROFILING         bench-c
# and boots each under QEMU TCG with -icount shift=0,sleep=off, so the
# guest clock advances one nanosecond per guest instruction: every figure
# is guest instructions, repeatable, whatever else the host is doing.  The
# guest (guest/benchmark.sh) runs the kmemtrace_bench operations in each
# mode; guest/../host/bench-table.awk makes the table.  Writes
# $KMT_CACHE/out/bench/table.txt and prints it.
#
# "smoke" (make check) runs every mode and operation once with 1% of the
# pairs and one ramp step, to prove the benchmark still works; its figures
# mean nothing.  It builds no kernel: it boots make check's, which it
# needs built, the CONFIG_KMEMTRACE=n one (off) as (a) and the test kernel
# (kmemtrace) as (b) and (c), so that a fresh make check builds four
# kernels, not seven.  Neither has BPF (their ftracetest runs would grow
# with the kprobe events bpftrace needs), so on (a) only perf stands for
# what users run instead; the bpftrace modes run in make bench only.
# KMT_BENCH_REPS (2) is how many timed runs of each micro-operation,
# KMT_BENCH_MREPS (9) of each macro workload, KMT_BENCH_SMREPS (40) of the
# paired runs sampling's macro goal is judged by, KMT_BENCH_SCALE (100) the
# percentage of the default pair counts.  KMT_BENCH_FP=1 builds and boots
# a fourth kernel, (c) with the frame-pointer unwinder instead of ORC
# (configs/bench-fp.config, bench-cfp), in (c)'s sampling modes: what a
# sample's stack walk costs where the frames are chained.
# "tool" (make bench-tool) runs only the host part, the tool's speed, in
# about a minute: $KMT_CACHE/out/bench-tool/table.txt.

set -eu
. "$(dirname "$0")/lib.sh"

smoke=${1:-}
tool_only=
if [ "$smoke" = tool ]; then
	tool_only=1
	smoke=
fi
OUT=$KMT_CACHE/out/bench${smoke:+-smoke}${tool_only:+-tool}
CFG=$KMT_SELFTESTS/configs
mkdir -p "$OUT"

if [ -n "$smoke" ]; then
	reps=1
	smreps=1
	args="kmt.scale=1 kmt.reps=1"
	ramp=smoke
else
	reps=${KMT_BENCH_REPS:-2}
	# The macro workloads' runs spread by a few percent (messaging's
	# schedule differs run to run): the table takes the median of these.
	args="kmt.scale=${KMT_BENCH_SCALE:-100} kmt.reps=$reps"
	args="$args kmt.mreps=${KMT_BENCH_MREPS:-9}"
	smreps=${KMT_BENCH_SMREPS:-40}
	ramp=1
fi

# The tool on the host, one core: a synthetic trace (mkstream -w: 10 M
# events on 2 CPUs, 100 k for the smoke) through report, check and dump,
# beside cat of the same files (the I/O floor; for dump, writing its text
# again) and beside host/floor.c, the least work each command has to do.
# report -j 2 runs on two cores (report-j2), when the host has them, and
# beside it report -j 1 on each half of the trace by time at once
# (halves: what a replay split by time could do, before joining them),
# and how long a cache line takes to go to the other CPU and back in
# each round (floor xcore): what the threads of -j 2 pay for each line
# one of them writes and the other reads, which moves with where the
# host runs the two CPUs.
# Every stream is read from a copy written one file after the other, as
# a recording copied off its machine is: how the files were written moves
# cat more than anything the tool does (cat-4k: the streams as
# mkstream wrote them, 4 KiB of each in turn).
# Wall time on a shared host: the least of 5 rounds, each running every
# command once, so that a busy moment of the host hits one round and not
# one command.
tool_run() {	# tool_run [-c CPUS] NAME COMMAND...: keep the best "MS PEAK_KIB" of NAME
	cpus=0
	if [ "$1" = -c ]; then
		cpus=$2
		shift 2
	fi
	name=$1
	shift
	t0=$(date +%s%N)
	/usr/bin/time -f '%M' -o "$OUT/time.txt" taskset -c "$cpus" "$@" \
		>/dev/null 2>&1 || kmt_die "tool benchmark: $name failed: $*"
	t1=$(date +%s%N)
	t="$(((t1 - t0) / 1000000)) $(cat "$OUT/time.txt")"
	if [ ! -s "$OUT/best.$name" ] || [ "${t% *}" -lt "$(cut -d' ' -f1 "$OUT/best.$name")" ]; then
		echo "$t" >"$OUT/best.$name"
	fi
}

# seq_copy FROM TO: copy each file of directory FROM into TO, one after
# the other, each in 1 MiB writes.  Streams written 4 KiB of each in
# turn (mkstream, floor split and cut) lie in the page cache so that cat
# takes 2.4 times as long as on such a copy (make bench-tool's cat and
# cat-4k): the copies put every command on one layout.
seq_copy() {
	mkdir -p "$2" || kmt_die "cannot make $2"
	for f in "$1"/*; do
		dd if="$f" of="$2/${f##*/}" bs=1M status=none ||
			kmt_die "cannot copy $f"
	done
}

tool_bench() {
	events=$([ -n "$smoke" ] && echo 100000 || echo 10000000)
	dir=$OUT/synthetic
	kmt=$KMT_CACHE/tool/host/kmemtrace
	floor=$OUT/floor
	${CC:-cc} -O2 -I"$KMT_REPO/include/uapi" -o "$OUT/mkstream" \
		"$KMT_SELFTESTS/host/mkstream.c" -lm || kmt_die "cannot build mkstream"
	src=$KMT_REPO/tools/kmemtrace/src
	${CC:-cc} -O2 -Wall -D_GNU_SOURCE -I"$KMT_REPO/include/uapi" -I"$src" -o "$floor" \
		"$KMT_SELFTESTS/host/floor.c" "$src/hash.c" "$src/utils.c" ||
		kmt_die "cannot build floor"
	rm -rf "$dir" "$dir-mkstream"
	mkdir -p "$dir-mkstream"
	"$OUT/mkstream" -w "$events" -c 2 "$dir-mkstream" || kmt_die "mkstream -w failed"
	seq_copy "$dir-mkstream" "$dir"
	echo "KMT-BENCH-TOOL-TRACE $events $(cat "$dir"/cpu* | wc -c)"
	"$kmt" dump "$dir" >"$OUT/dump.txt" || kmt_die "kmemtrace dump failed"
	# The floors do the work they stand for: every event, every line.
	for m in read merge pair; do
		n=$("$floor" $m "$dir/cpu0" "$dir/cpu1" | awk '{ print $1 }')
		[ "$n" = "$events" ] || kmt_die "floor $m saw $n events of $events"
	done
	for m in lines dump; do
		n=$("$floor" $m "$dir/cpu0" "$dir/cpu1" | wc -l)
		[ "$n" = "$events" ] || kmt_die "floor $m wrote $n lines for $events events"
	done
	rm -f "$OUT"/best.*
	two=
	[ "$(nproc)" -lt 2 ] || two=0,1
	# The least two cores can do (report -j 2's): pair on each half of
	# the pointers at once, from streams split beforehand.
	rm -rf "$OUT/split" "$OUT/halves"
	if [ -n "$two" ]; then
		mkdir -p "$OUT/split.w" "$OUT/halves.w"
		"$floor" split "$dir/cpu0" "$dir/cpu1" "$OUT/split.w" ||
			kmt_die "floor split failed"
		# The halves by time, with the trace's other files.
		"$floor" cut "$dir/cpu0" "$dir/cpu1" "$OUT/halves.w" >/dev/null ||
			kmt_die "floor cut failed"
		for k in 0 1; do
			seq_copy "$OUT/split.w/$k" "$OUT/split/$k"
			seq_copy "$OUT/halves.w/$k" "$OUT/halves/$k"
			for f in "$dir"/*; do
				case ${f##*/} in
				cpu*) ;;
				*) cp "$f" "$OUT/halves/$k/" ;;
				esac
			done
		done
		rm -rf "$OUT/split.w" "$OUT/halves.w"
		n=$("$floor" pair2 "$OUT/split" | awk '{ n += $1 } END { print n }')
		[ "$n" = "$events" ] || kmt_die "floor pair2 saw $n events of $events"
		n=0
		for k in 0 1; do
			n=$((n + $("$floor" read "$OUT/halves/$k/cpu0" "$OUT/halves/$k/cpu1" |
				   awk '{ print $1 }')))
		done
		[ "$n" = "$events" ] || kmt_die "the halves by time have $n events of $events"
	fi
	# Nothing of the files written is left to write back while timed.
	sync
	# What -j 2 prints is what -j 1 does, on every view.
	if [ -n "$two" ]; then
		"$kmt" report -j 1 -v all "$dir" >"$OUT/report-j1.txt" 2>&1 ||
			kmt_die "kmemtrace report -j 1 failed"
		"$kmt" report -j 2 -v all "$dir" >"$OUT/report-j2.txt" 2>&1 ||
			kmt_die "kmemtrace report -j 2 failed"
		cmp -s "$OUT/report-j1.txt" "$OUT/report-j2.txt" ||
			kmt_die "report -j 2 -v all differs from -j 1"
		rm -f "$OUT/report-j1.txt" "$OUT/report-j2.txt"
	fi
	rm -f "$OUT/xcore.txt"
	for _ in 1 2 3 4 5; do
		tool_run cat /bin/cat "$dir/cpu0" "$dir/cpu1"
		tool_run report "$kmt" report -j 1 "$dir"
		# How far apart the host runs the CPUs now: -j 2 pays it.
		[ -z "$two" ] || "$floor" xcore >>"$OUT/xcore.txt" ||
			kmt_die "floor xcore failed"
		[ -z "$two" ] || tool_run -c "$two" report-j2 "$kmt" report -j 2 "$dir"
		tool_run check "$kmt" check "$dir"
		tool_run dump "$kmt" dump "$dir"
		tool_run cat-dump /bin/cat "$OUT/dump.txt"
		for m in read merge pair lines dump; do
			tool_run floor-$m "$floor" $m "$dir/cpu0" "$dir/cpu1"
		done
		[ -z "$two" ] || tool_run -c "$two" floor-pair2 "$floor" pair2 "$OUT/split"
		[ -z "$two" ] || tool_run -c "$two" halves sh -c \
			'"$1" report -j 1 "$2/0" & p=$!
			"$1" report -j 1 "$2/1" || exit 1; wait $p' sh "$kmt" "$OUT/halves"
		tool_run cat-4k /bin/cat "$dir-mkstream/cpu0" "$dir-mkstream/cpu1"
	done
	for name in cat report report-j2 check dump cat-dump floor-read floor-merge \
		    floor-pair floor-pair2 floor-lines floor-dump halves cat-4k; do
		[ -s "$OUT/best.$name" ] || continue
		awk -v n=$name '{ printf "KMT-BENCH-TOOL %s %.3f %s\n", n, $1 / 1000, $2 }' \
			"$OUT/best.$name"
	done
	[ -z "$two" ] || awk 'NR == 1 || $1 < lo { lo = $1 } NR == 1 || $1 > hi { hi = $1 }
		END { print "KMT-BENCH-TOOL-XCORE", lo, hi }' "$OUT/xcore.txt"
	rm -rf "$dir" "$dir-mkstream" "$OUT/split" "$OUT/halves" "$OUT/dump.txt" \
		"$OUT/xcore.txt"
}
if [ -n "$tool_only" ]; then
	tool_bench >"$OUT/tool.txt"
	awk -v tool_only=1 -f "$KMT_SELFTESTS/host/bench-table.awk" "$OUT/tool.txt" \
		>"$OUT/table.txt"
	cat "$OUT/table.txt"
	kmt_log "table: $OUT/table.txt"
	exit 0
fi

# pcpu_bytes NAME: the static per-CPU data of kernel NAME, in bytes.
pcpu_bytes() {
	awk '$3 == "__per_cpu_start" { s = $1 } $3 == "__per_cpu_end" { e = $1 }
		END { print s, e }' "$(kmt_build "$1")/System.map" | {
		read -r s e
		echo $((0x$e - 0x$s))
	}
}

build() {	# build NAME FRAGMENT...
	name=$1
	shift
	"$KMT_BIN/stage.sh" "build-$name" "$KMT_BIN/build.sh" "$name" \
		"$CFG/base.config" "$CFG/bench.config" "$@"
}

# What users run instead, on (a): Debian's perf and bpftrace, in a second
# initramfs appended to (a)'s boot only.
"$KMT_BIN/stage.sh" bench-tools sh -c '
	"$1/deps.sh" linux-perf bpftrace &&
	"$1/mkbenchcpio.sh" "$2/bench-tools.cpio" &&
	cat "$3" "$2/bench-tools.cpio" >"$2/initramfs-tools.cpio"' sh \
	"$KMT_BIN" "$OUT" "$KMT_CACHE/out/initramfs.cpio"

# The kernel each of (a), (b) and (c) boots, and what (a) runs instead of
# kmemtrace.
if [ -n "$smoke" ]; then
	ka=off
	kb=kmemtrace
	kc=kmemtrace
	anchors=n,floor,perf
	# Every boot without the ftrace startup selftests, which the test
	# kernels run at boot, and with allocation profiling off until (c)
	# turns it on, as the bench kernels have it.
	args="$args trace_event= sysctl.vm.mem_profiling=0"
	for k in $ka $kb $kc; do
		[ -f "$(kmt_build $k)/arch/x86/boot/bzImage" ] ||
			kmt_die "the smoke boots make check's kernel '$k': build it first"
	done
else
	ka=bench-a
	kb=bench-b
	kc=bench-c
	anchors=n,floor,perf,bpf-live,bpf-print
	build bench-a
	build bench-b "$CFG/bench-kmemtrace.config"
	# (a') is (a) laid out as (b) is, but for kmemtrace's code: every
	# function aligned to 64 bytes, and the static per-CPU data kmemtrace
	# adds padded in (lib/kmemtrace_bench.c), which moves where the
	# percpu allocator's first chunk has room.  The same code: the spread
	# of (a) that layout alone makes.
	pad=$(($(pcpu_bytes bench-b) - $(pcpu_bytes bench-a)))
	[ "$pad" -gt 0 ] || pad=
	KMT_KCFLAGS="-falign-functions=64${pad:+ -DKMEMTRACE_BENCH_PERCPU_PAD=$pad}" \
		build bench-a2
	build bench-c "$CFG/bench-kmemtrace.config" "$CFG/bench-profiling.config"
	[ "${KMT_BENCH_FP:-0}" = 0 ] ||
		build bench-cfp "$CFG/bench-kmemtrace.config" \
			"$CFG/bench-profiling.config" "$CFG/bench-fp.config"
fi

# One boot per kernel: icount needs single-threaded TCG.  The vCPU has no
# CMPXCHG16B: QEMU 7.2's TCG under -icount now and then takes an interrupt
# right after one with a garbage EFLAGS (a double fault at the instruction
# after SLUB's this_cpu_cmpxchg16b(), in 3 of 14 ramp boots; none in 5
# without CX16, none in 4 without -icount), so SLUB takes its
# interrupt-disabling fallback on every kernel alike.
KMT_BENCH_CPU="qemu64,-cx16"
boot() {	# boot NAME KERNEL MODES [EXTRA_CMDLINE [INITRAMFS]]
	KMT_INITRAMFS=${5:-$KMT_CACHE/out/initramfs.cpio} \
	KMT_TCG_THREAD=single \
	KMT_QEMU_EXTRA="-cpu $KMT_BENCH_CPU -icount shift=0,sleep=off,align=off" \
	KMT_TIMEOUT=${KMT_BENCH_TIMEOUT:-1800} \
		"$KMT_BIN/stage.sh" "boot-$1" "$KMT_BIN/run.sh" bench \
		"kunit.enable=0 kmt.modes=$3 $args ${4:-}" "$2" "${smoke:+smoke-}$1"
	# Below, $1 is the boot's name and $2 its modes.
	set -- "$1" "$3"
	cp "$KMT_CACHE/out/${smoke:+smoke-}$1/guest/bench.txt" "$OUT/$1.txt"
	log=$KMT_CACHE/out/${smoke:+smoke-}$1/console.log
	if grep -q '^KMT-BENCH-ERROR' "$OUT/$1.txt"; then
		grep '^KMT-BENCH-ERROR' "$OUT/$1.txt"
		kmt_die "the $1 benchmark boot failed; see $log"
	fi
	grep -q '^KMT-BENCH-END' "$OUT/$1.txt" ||
		kmt_die "the $1 benchmark did not finish; see $log"
	# Every operation of every mode, and nothing lost where it records.
	for mode in $(echo "$2" | tr , ' '); do
		n=$(awk -v m="$mode" '$1 == "KMT-BENCH" && $2 == m && $5 > 0 && $6 > 0' \
			"$OUT/$1.txt" | wc -l)
		[ "$n" = $((12 * ${reps:-1})) ] ||
			kmt_die "$1: mode $mode has $n timed runs, want $((12 * ${reps:-1}))"
	done
	# The floor writes an event for each allocation and each free.
	if awk '$1 == "KMT-BENCH" && $2 == "floor" && $7 < 2 * $5 { bad = 1 }
		END { exit !bad }' "$OUT/$1.txt"; then
		kmt_die "$1: the floor missed allocations or frees; see $OUT/$1.txt"
	fi
	if awk '$1 == "KMT-BENCH" && $8 != 0 { bad = 1 } END { exit !bad }' "$OUT/$1.txt"; then
		kmt_die "$1: events were dropped in a timed run; see $OUT/$1.txt"
	fi
	# The paired sampling runs hold the reader: the buffers keep it all.
	if awk '$1 == "KMT-BENCH-SMACRO" && $6 != 0 { bad = 1 } END { exit !bad }' \
		"$OUT/$1.txt"; then
		kmt_die "$1: a paired sampling run dropped events; see $OUT/$1.txt"
	fi
	if awk '$1 == "KMT-BENCH-ANCHOR" && ($4 != 0 || $6 == 0) { bad = 1 } END { exit !bad }' \
		"$OUT/$1.txt"; then
		grep '^KMT-BENCH-ANCHOR' "$OUT/$1.txt"
		kmt_die "$1: perf or bpftrace lost events, or saw none; see $log"
	fi
}

boot bench-a $ka $anchors "" "$OUT/initramfs-tools.cpio"
a2=
if [ -z "$smoke" ]; then
	boot bench-a2 bench-a2 n
	a2=$OUT/bench-a2.txt
	sed -i 's/^KMT-BENCH\(-MACRO\)\{0,1\} n /KMT-BENCH\1 n2 /' "$a2"
	# (a) and (a') booted once more each, without the macro workloads:
	# a boot alone moves some operations (kmalloc-4096 by 0.2%, percpu
	# by 0.6% across boots of (a)), and the spread off is judged
	# against takes that in too.
	boot bench-a3 $ka n kmt.mreps=0
	boot bench-a4 bench-a2 n kmt.mreps=0
	sed -i 's/^KMT-BENCH n /KMT-BENCH n3 /' "$OUT/bench-a3.txt"
	sed -i 's/^KMT-BENCH n /KMT-BENCH n4 /' "$OUT/bench-a4.txt"
	a2="$a2 $OUT/bench-a3.txt $OUT/bench-a4.txt"
fi
modes=off,relay,relay+tsc,drain,tracer,events,relay+tracer,relay+function
boot bench-b $kb "$modes,relay+stacks,relay+stacks64" kmt.ramp=$ramp
# Allocation profiling can be switched on at run time only in a kernel
# booted with sysctl.vm.mem_profiling set (to 0 here, off until the
# profiling modes turn it on): without it, a kernel built with
# CONFIG_MEM_ALLOC_PROFILING_ENABLED_BY_DEFAULT=n, as (c) is, makes the
# sysctl read-only at boot (lib/alloc_tag.c: the page allocator's tags
# need page_ext, set up at boot or never).
# Sampling's goal on the macro workloads from paired runs of their own
# (guest/benchmark.sh, sample_macro): KMT_BENCH_SMREPS (40) of each: two
# modes, three workloads.
boot bench-c $kc c-off,profiling,profiling+relay,relay+sample,relay+sample1 \
	"sysctl.vm.mem_profiling=0 kmt.smacro=$smreps"
n=$(grep -c '^KMT-BENCH-SMACRO ' "$OUT/bench-c.txt" || true)
[ "$n" = $((6 * smreps)) ] ||
	kmt_die "bench-c: $n paired sampling runs, want $((6 * smreps))"
# (c) with frame pointers: its modes renamed fp-*, set beside (c)'s.
fp=
if [ -z "$smoke" ] && [ "${KMT_BENCH_FP:-0}" != 0 ]; then
	boot bench-cfp bench-cfp c-off,relay+sample,relay+sample1 \
		sysctl.vm.mem_profiling=0
	fp=$OUT/bench-cfp.txt
	sed -i 's/^\(KMT-BENCH\(-MACRO\)\{0,1\}\) c-off /\1 fp-off /
		s/^\(KMT-BENCH\(-MACRO\|-READER\)\{0,1\}\) relay+sample /\1 fp-sample /
		s/^\(KMT-BENCH\(-MACRO\)\{0,1\}\) relay+sample1 /\1 fp-sample1 /' "$fp"
fi

# The hooked entry points, (a) against (b): one no-op more (offasm.sh).
"$KMT_BIN/offasm.sh" "$(kmt_build $ka)/vmlinux" "$(kmt_build $kb)/vmlinux" \
	>"$OUT/offasm.txt" || true
# The smoke's (b) is the test kernel, whose CONFIG_KMEMTRACE_SAMPLE_HOOKS
# puts inline sampling hooks in these (patch 0014a); every other hooked
# entry point must run (a)'s instructions to its first call.
if [ -n "$smoke" ]; then
	differ=$(awk -v hooks="__alloc_pages_noprof __kmalloc_large_noprof
		__kmalloc_large_node_noprof kfree krealloc_noprof
		__vmalloc_node_range_noprof vrealloc_noprof" '
		BEGIN { n = split(hooks, h); for (i = 1; i <= n; i++) ok[h[i]] = 1 }
		$1 == "KMT-OFFASM" && $3 == "DIFFERS" && !($2 in ok) { print $2 }' \
		"$OUT/offasm.txt")
	[ -z "$differ" ] || kmt_die "off, these hooked entry points run" \
		"more than (a): $differ; see $OUT/offasm.txt"
fi

# Kernel text and data, (a) against (b), and the static per-CPU data of
# (a), (b) and (a').
{
	for k in bench-a:$ka bench-b:$kb; do
		size "$(kmt_build ${k#*:})/vmlinux" | awk -v k=${k%%:*} 'NR == 2 {
			print "KMT-BENCH-SIZE " k " " $1 " " $2 " " $3 }'
		echo "KMT-BENCH-PCPU ${k%%:*} $(pcpu_bytes ${k#*:})"
	done
	[ -n "$smoke" ] || echo "KMT-BENCH-PCPU bench-a2 $(pcpu_bytes bench-a2)"
} >"$OUT/size.txt"

tool_bench >"$OUT/tool.txt"

{
	echo "kmemtrace benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), commit" \
		"$(git -C "$KMT_REPO" describe --always --dirty 2>/dev/null || echo unknown)," \
		"host $(uname -m), $(nproc) CPUs; kernels: linux-source-6.12 $(kmt_version)"
	echo "QEMU $(kmt_qemu_version) TCG -icount shift=0,sleep=off:" \
		"1 guest ns = 1 guest instruction;" \
		"$KMT_SMP vCPUs, -cpu $KMT_BENCH_CPU;" \
		"${smoke:+SMOKE RUN (1% of the pairs): figures mean nothing; }$args"
	echo
	awk -f "$KMT_SELFTESTS/host/bench-table.awk" \
		"$OUT/bench-a.txt" $a2 "$OUT/bench-b.txt" \
		"$OUT/bench-c.txt" $fp "$OUT/size.txt" "$OUT/offasm.txt" \
		"$OUT/tool.txt"
} >"$OUT/table.txt"
cat "$OUT/table.txt"
kmt_log "table: $OUT/table.txt"
