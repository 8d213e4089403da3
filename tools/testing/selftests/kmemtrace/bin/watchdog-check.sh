#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# watchdog-check.sh KERNEL CMDLINE - run.sh's watchdog, tested: boots
# KERNEL with kmt.mode=hang (a guest that never ends, guest/init) and a
# timeout of $KMT_WATCHDOG_TIMEOUT seconds (default 30), and prints a
# PASS or FAIL line for each of:
#   watchdog.times_out    run.sh fails, saying the guest timed out
#   watchdog.qemu_killed  no QEMU of that boot is left running
#   watchdog.vcpu_state   monitor.log holds, for each of the $KMT_SMP
#                         vCPUs, its registers and its local APIC state
#                         (the timer, ISR and IRR): what tells a hang of
#                         the guest from one of the emulator
# The boot's files are in $KMT_CACHE/out/watchdog.

set -u
. "$(dirname "$0")/lib.sh"

kernel=$1
cmdline=$2
timeout=${KMT_WATCHDOG_TIMEOUT:-30}
OUT=$KMT_CACHE/out/watchdog
LOG=$KMT_CACHE/out/watchdog.log

check() {	# check NAME CONDITION...: PASS or FAIL NAME
	name=$1
	shift
	if "$@"; then
		echo "PASS watchdog.$name"
	else
		echo "FAIL watchdog.$name"
	fi
}

if KMT_TIMEOUT=$timeout "$KMT_BIN/run.sh" hang "$cmdline" "$kernel" watchdog \
	>"$LOG" 2>&1; then
	echo "FAIL watchdog.times_out"
else
	check times_out grep -q "guest timed out after ${timeout}s" "$LOG"
fi
no_qemu() {
	! pgrep -f "file=$OUT/disk.img" >/dev/null
}
check qemu_killed no_qemu

# Every vCPU once: "CPU#N" before its registers, the APIC dump's header,
# its timer and ISR and IRR lines, in that order (the monitor ends its
# lines with CR LF).
vcpu_state() {
	awk -v n="$KMT_SMP" -v t="$timeout" '
		{ sub(/\r$/, "") }
		NR == 1 && $0 != "== timeout after " t "s" { bad = 1 }
		/^CPU#[0-9]+$/ { cpu = substr($0, 5); regs[cpu] = 0 }
		/^RIP=/ && cpu != "" { regs[cpu]++ }
		/^dumping local APIC state for CPU / { apic = $7 }
		/^Timer\t/ && apic != "" { timer[apic]++ }
		/^ISR\t/ && apic != "" { isr[apic]++ }
		/^IRR\t/ && apic != "" { irr[apic]++ }
		END {
			for (i = 0; i < n; i++)
				if (regs[i] != 1 || timer[i] != 1 ||
				    isr[i] != 1 || irr[i] != 1) {
					printf "vCPU %d: registers %d, timer %d, ISR %d, IRR %d\n",
					       i, regs[i], timer[i], isr[i], irr[i]
					bad = 1
				}
			exit bad
		}' "$OUT/monitor.log" >&2
}
check vcpu_state vcpu_state
