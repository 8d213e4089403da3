#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run.sh MODE [EXTRA_CMDLINE [KERNEL [NAME]]] - boot a kernel (default:
# the one built as "kmemtrace") under QEMU (TCG, $KMT_SMP vCPUs) with
# kmt.mode=MODE, bounded by $KMT_TIMEOUT seconds.  $KMT_QEMU_EXTRA, if
# set, is added to QEMU's options (make bench: -icount).
#
# Output goes to $KMT_CACHE/out/NAME (default MODE): console.log, and the files the guest
# wrote to its virtio disk, unpacked into guest/.  A guest that hangs,
# panics or never prints KMT-DONE fails here with the log's path.
# MODE demo then prints the host-side report of the recorded workload and
# each analysis briefly (demo-report.sh), and writes its plots to OUT.

set -eu
. "$(dirname "$0")/lib.sh"

mode=$1
extra=${2:-}
OUT=$KMT_CACHE/out/${4:-$mode}
BUILD=$(kmt_build "${3:-kmemtrace}")
LOG=$OUT/console.log
DISK=$OUT/disk.img

rm -rf "$OUT"
mkdir -p "$OUT/guest"
truncate -s 256M "$DISK"

# Multi-threaded TCG unless QEMU may run stale patched text (lib.sh).
thread=${KMT_TCG_THREAD:-}
if [ -z "$thread" ]; then
	thread=multi
	kmt_qemu_mttcg || thread=single
fi
kmt_log "booting ($mode, $KMT_SMP vCPUs, TCG $thread," \
	"timeout ${KMT_TIMEOUT}s); console: $LOG"
# QEMU's human monitor on two FIFOs (chardev pipe): when the guest hangs,
# or the kernel reports an RCU stall, the watchdog below saves what QEMU
# itself knows of every vCPU (registers, local APIC: IRR, ISR, timer)
# to monitor.log before it kills QEMU: a hang under TCG is then told
# apart as the guest's or the emulator's.
MON=$OUT/monitor
mkfifo "$MON.in" "$MON.out"
rc=0
qemu-system-x86_64 -accel "tcg,thread=$thread" \
	-smp "$KMT_SMP" -m 1G ${KMT_QEMU_EXTRA:-} \
	-kernel "$BUILD/arch/x86/boot/bzImage" \
	-initrd "${KMT_INITRAMFS:-$KMT_CACHE/out/initramfs.cpio}" \
	-append "console=ttyS0 panic=-1 nokaslr kmt.mode=$mode $extra" \
	-drive file="$DISK",format=raw,if=virtio \
	-display none -monitor none -serial file:"$LOG" -no-reboot \
	-chardev pipe,id=mon,path="$MON" -mon chardev=mon,mode=readline \
	</dev/null &
qpid=$!

# monitor_dump WHY: QEMU's state of each vCPU, appended to monitor.log
# without the monitor's echo of the commands; waits until QEMU has
# answered them all (every vCPU's IRR line is in, and the output stopped
# growing: the monitor's greeting is there before any answer, and a host
# busy with other guests may take more than a second to give one; at
# most 10 seconds).
# Both FIFOs are opened read-write, which never blocks: QEMU may have
# exited since the watchdog looked, and an open for writing alone would
# then wait for a reader for ever (the open for reading, cat's, would
# wait for a writer: cat is killed at the end either way).
monitor_dump() {
	raw=$OUT/monitor.raw
	: >"$raw"
	cat 0<>"$MON.out" >>"$raw" &
	cat_pid=$!
	cpu=0
	{
		echo "info cpus"
		while [ $cpu -lt "$KMT_SMP" ]; do
			echo "cpu $cpu"
			echo "info registers"
			echo "info lapic $cpu"
			cpu=$((cpu + 1))
		done
	} 1<>"$MON.in"
	size=-1
	waited=0
	while [ $waited -lt 10 ]; do
		now=$(wc -c <"$raw")
		if [ "$now" = "$size" ] &&
		   [ "$(grep -ac '^IRR' "$raw")" -ge "$KMT_SMP" ]; then
			break
		fi
		size=$now
		sleep 1
		waited=$((waited + 1))
	done
	kill "$cat_pid" 2>/dev/null || true
	{ echo "== $1"; grep -av '^(qemu)' "$raw" || true; } >>"$OUT/monitor.log"
	rm -f "$raw"
}

# The watchdog: polls once a second, so that it ends with QEMU.
(
	n=0
	stalled=
	while kill -0 "$qpid" 2>/dev/null; do
		if [ $n -ge "$KMT_TIMEOUT" ]; then
			monitor_dump "timeout after ${KMT_TIMEOUT}s"
			: >"$OUT/timed-out"
			kill "$qpid" 2>/dev/null || break
			n=0
			while kill -0 "$qpid" 2>/dev/null && [ $n -lt 10 ]; do
				sleep 1
				n=$((n + 1))
			done
			kill -9 "$qpid" 2>/dev/null || true
			break
		fi
		if [ -z "$stalled" ] &&
		   grep -q 'rcu: INFO: .* detected stalls' "$LOG" 2>/dev/null; then
			stalled=1
			monitor_dump "RCU stall on the console after ${n}s"
		fi
		sleep 1
		n=$((n + 1))
	done
) &
wpid=$!
wait "$qpid" || rc=$?
wait "$wpid" || true
[ -f "$OUT/timed-out" ] && rc=124

if [ $rc = 124 ]; then
	kmt_die "guest timed out after ${KMT_TIMEOUT}s; console: $LOG," \
		"QEMU's vCPU state: $OUT/monitor.log"
elif [ $rc != 0 ]; then
	kmt_die "qemu exited with $rc; console: $LOG"
elif ! grep -q '^KMT-DONE' "$LOG"; then
	grep -m1 -A20 -E 'Kernel panic|BUG:|Oops' "$LOG" || tail -n 20 "$LOG"
	kmt_die "guest did not finish (panic or crash?); console: $LOG"
fi
tar -xf "$DISK" -C "$OUT/guest" 2>/dev/null || true

if [ "$mode" = demo ]; then
	sed -n '/^kmemtrace: recording/,/^KMT-DONE/p' "$LOG" | grep -v KMT-DONE >"$OUT/guest.txt"
	sed -n '/^kmemtrace: ftrace:/q;p' "$OUT/guest.txt"
	[ -f "$OUT/guest/record/cpu0" ] || kmt_die "the guest recorded nothing; console: $LOG"
	echo
	sh "$KMT_BIN/demo-report.sh" "$KMT_CACHE/tool/host/kmemtrace" \
		"$OUT/guest/record" "$OUT" "$BUILD/vmlinux" ||
		kmt_die "kmemtrace report or plot failed on $OUT/guest/record"
	echo
	kmt_log "streams: $OUT/guest/record (kmemtrace dump/report/check/plot DIR)"
	echo
	sed -n '/^kmemtrace: ftrace:/,$p' "$OUT/guest.txt"
fi
