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
rc=0
timeout --foreground -k 10 "$KMT_TIMEOUT" \
	qemu-system-x86_64 -accel "tcg,thread=$thread" \
	-smp "$KMT_SMP" -m 1G ${KMT_QEMU_EXTRA:-} \
	-kernel "$BUILD/arch/x86/boot/bzImage" \
	-initrd "${KMT_INITRAMFS:-$KMT_CACHE/out/initramfs.cpio}" \
	-append "console=ttyS0 panic=-1 nokaslr kmt.mode=$mode $extra" \
	-drive file="$DISK",format=raw,if=virtio \
	-display none -monitor none -serial file:"$LOG" -no-reboot \
	</dev/null || rc=$?

if [ $rc = 124 ] || [ $rc = 137 ]; then
	kmt_die "guest timed out after ${KMT_TIMEOUT}s; console: $LOG"
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
