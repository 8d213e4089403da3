#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# stress.sh - make stress: the concurrency runs too long for make check.
#   kcsan      a KCSAN kernel (configs/kcsan.config) running the debug
#              kernel's stress workload (switching on and off, tracers,
#              readers, CPU hotplug, back-to-back records under a 2-CPU
#              allocation load) and the relay stress test with the tsc
#              clock: no KCSAN report
#   smp8       the relay stress test with 8 vCPUs (TCG runs them on the
#              host's cores) and the tsc clock: every CPU's stream
#              checked exactly
#   failures   the debug kernel with fault injection and small buffers:
#              kmemtrace's own allocations failed one by one (fail-nth),
#              a load whose allocations fail at random, and the OOM
#              killer, all recorded and checked (guest/failures)
#   overrun.N  recording from boot into tiny buffers, KMT_STRESS_RUNS times
#   stress.N   the debug kernel's stress boot, KMT_STRESS_RUNS times
# Each run is one line in $KMT_CACHE/out/stress-results; the last line
# printed is "N passed, N failed".  Exits 1 if anything failed.

set -u
. "$(dirname "$0")/lib.sh"

RES=$KMT_CACHE/out/stress-results
RUNS=${KMT_STRESS_RUNS:-3}
. "$KMT_BIN/boot-lib.sh"

# Boot names differ from make check's: each boot's console stays.
K0="kunit.enable=0 trace_event="

build_initramfs
build_kernel debug
build_kernel kcsan

# KCSAN: the stress workload, and the test boot's relay stress.  Any
# "BUG: KCSAN" report is a splat (boot-lib.sh).  The relay stress runs
# with the tsc clock (make check's with local): the reader then writes
# the stamps it converts into the pages the probes write, up to the head
# it read, while every CPU records; KCSAN watches both.
boot kcsan=stress kcsan "$K0 pci=noacpi" 'kmemtrace_stress\.' single \
	'stack going in the wrong direction\? at return_to_handler\+'
boot kcsan-relay=test kcsan "$K0 kmemtrace.clock=tsc" 'kmemtrace_test\.relay_stress'

# Eight vCPUs on the test kernel: the relay stress test allocates on
# every online CPU and checks every stream; a quarter of the pairs per CPU
# per chunk, so that a chunk's streams still fit in the guest's memory
# (the kernel hands KMT_STRESS_PAIRS= to init's environment); the tsc
# clock, converted on eight streams at once.
KMT_SMP=8 boot smp8=test "$KERNEL" "$K0 kmemtrace.clock=tsc KMT_STRESS_PAIRS=40000" \
	'kmemtrace_test\.relay_stress'

# Failed allocations and memory pressure.  Small buffers, so that
# enabling recording makes few allocations to fail one by one.
boot failures "$KERNEL_DEBUG" \
	"$K0 pci=noacpi kmemtrace.subbufs=4 kmemtrace.subbuf_size=65536" \
	'kmemtrace_failures\.' single

i=1
while [ $i -le "$RUNS" ]; do
	boot "overrun$i=overrun" "$KERNEL" \
		"$K0 kmemtrace.enable=1 kmemtrace.subbufs=4 kmemtrace.subbuf_size=4096" \
		'kmemtrace_overrun\.'
	boot "stress$i=stress" "$KERNEL_DEBUG" "$K0 pci=noacpi" 'kmemtrace_stress\.' single \
		'stack going in the wrong direction\? at return_to_handler\+'
	i=$((i + 1))
done

summary "$OUT/NAME/console.log"
