#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Assemble the guest initramfs: static busybox, the guest init, the guest
# tests, ftracetest with kmemtrace's tests, static chrt (busybox has
# none), ringmap, ringpoll, macro, failnth and thpsplit (guest/*.c), the static
# kmemtrace tool and Debian's trace-cmd with its shared libraries, as
# $KMT_CACHE/out/initramfs.cpio.

set -eu
. "$(dirname "$0")/lib.sh"

ROOT=$KMT_CACHE/initramfs
CPIO=${KMT_INITRAMFS:-$KMT_CACHE/out/initramfs.cpio}
GUEST=$KMT_SELFTESTS/guest

rm -rf "$ROOT"
mkdir -p "$ROOT/bin" "$ROOT/kmt" "$(dirname "$CPIO")"
cp /bin/busybox "$ROOT/bin/busybox"
file -b /bin/busybox 2>/dev/null | grep -q static ||
	ldd /bin/busybox 2>&1 | grep -q 'not a dynamic' ||
	kmt_die "/bin/busybox is not static (install busybox-static)"
cp "$KMT_CACHE/tool/static/kmemtrace" "$ROOT/bin/kmemtrace"
cp "$GUEST/init" "$ROOT/init"
cp "$GUEST/run-tests.sh" "$GUEST/demo.sh" "$GUEST/workload.sh" \
	"$GUEST/ftrace.sh" "$GUEST/hash-ready.sh" "$GUEST/bench.sh" \
	"$GUEST/benchmark.sh" "$GUEST/eventpath.sh" "$GUEST/record-check.sh" \
	"$GUEST/check-exact.sh" "$GUEST/stress-loop.sh" \
	"$GUEST/stress-lib.sh" "$GUEST/modules-lib.sh" "$GUEST/failures-lib.sh" \
	"$GUEST/kcsan-ours.awk" \
	"$ROOT/kmt/"
# ftracetest, with kmemtrace's test.d/kmemtrace, from the prepared tree.
cp -r "$(kmt_src)/tools/testing/selftests/ftrace" "$ROOT/kmt/ftrace"
${CC:-cc} -static -O2 -o "$ROOT/bin/chrt" "$GUEST/chrt.c"
# failnth fails the N-th allocation of one write (guest/failures).
${CC:-cc} -static -O2 -o "$ROOT/bin/failnth" "$GUEST/failnth.c"
# macro runs the benchmark's macro workloads (guest/macro.c).
${CC:-cc} -static -O2 -o "$ROOT/bin/macro" "$GUEST/macro.c"
# ringmap reads a cpuN buffer through mmap(), with this tree's uapi header.
${CC:-cc} -static -O2 -I"$KMT_REPO/include/uapi" -o "$ROOT/bin/ringmap" \
	"$GUEST/ringmap.c"
# ringpoll waits in poll() on a cpuN buffer a child fills.
${CC:-cc} -static -O2 -I"$KMT_REPO/include/uapi" -o "$ROOT/bin/ringpoll" \
	"$GUEST/ringpoll.c"
# thpsplit maps a transparent huge page, splits it and frees its pages.
${CC:-cc} -static -O2 -o "$ROOT/bin/thpsplit" "$GUEST/thpsplit.c"
for d in "$GUEST"/*/; do
	mode=$(basename "$d")
	mkdir -p "$ROOT/kmt/$mode"
	cp "$d"*.sh "$ROOT/kmt/$mode/"
done
# The sample modules of the test kernel (or of kernel $KMT_MODULES_KERNEL),
# when it was built with modules, for the guest/modules tests.
for ko in "$(kmt_build "${KMT_MODULES_KERNEL:-kmemtrace}")"/samples/kmemtrace/*.ko; do
	[ -f "$ko" ] || continue
	mkdir -p "$ROOT/kmt/modules"
	cp "$ko" "$ROOT/kmt/modules/"
done
# Debian's trace-cmd with its shared libraries, at the paths ldd names.
TRACE_CMD=$(command -v trace-cmd) || kmt_die "no trace-cmd (install trace-cmd)"
mkdir -p "$ROOT/usr/bin"
cp "$TRACE_CMD" "$ROOT/usr/bin/trace-cmd"
for lib in $(ldd "$TRACE_CMD" | awk '$2 == "=>" { print $3 } $1 ~ /^\// { print $1 }'); do
	mkdir -p "$ROOT$(dirname "$lib")"
	cp -L "$lib" "$ROOT$lib"
done
chmod +x "$ROOT/init" "$ROOT"/kmt/*.sh
# Optional: the ftracetest files the ftrace boot should run, and no other.
if [ -n "${KMT_FTRACETEST_ONLY:-}" ]; then
	cp "$KMT_FTRACETEST_ONLY" "$ROOT/kmt/ftracetest.only"
fi
(cd "$ROOT" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) >"$CPIO"
