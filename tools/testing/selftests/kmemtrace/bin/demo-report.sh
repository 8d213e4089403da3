#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# demo-report.sh KMEMTRACE RECORD_DIR OUT_DIR [VMLINUX] - what `make run`
# shows of the workload the demo guest recorded (guest/demo.sh): the
# report, then each analysis briefly, then the SVG plots, written to
# OUT_DIR with their paths printed.  Each section names the command that
# prints it in full.  Exit status 1 if a command failed.

set -eu

if [ $# -lt 3 ] || [ $# -gt 4 ]; then
	echo "usage: $0 KMEMTRACE RECORD_DIR OUT_DIR [VMLINUX]" >&2
	exit 2
fi
kmt=$1
rec=$2
out=$3
vmlinux=${4:-}
failed=0

# section TITLE COMMAND...: a blank line, the title, the command as a user
# would type it, then its output.  The notes and warnings of the first
# command (no header, symbols that do not match...) are not repeated.
section() {
	title=$1
	shift
	echo
	echo "kmemtrace: $title"
	echo "kmemtrace: \$ kmemtrace $*" |
		sed "s|$rec|DIR|g${vmlinux:+; s|$vmlinux|VMLINUX|g}"
	if [ "$title" = summary ]; then
		"$kmt" "$@" 2>&1 && return
	else
		"$kmt" "$@" 2> "$out/stderr" && return
		cat "$out/stderr"
	fi
	failed=1
}

mkdir -p "$out"
# Symbolize with the guest's vmlinux: file:line when it has debug info.
set --
[ -n "$vmlinux" ] && set -- -k "$vmlinux"
echo "kmemtrace: the guest recorded only the workload, /kmt/workload.sh, from"
echo "kmemtrace: its start to its end, dropping what boot left in the buffers"
echo "kmemtrace: (kmemtrace record -e -- /kmt/workload.sh); other tasks' and"
echo "kmemtrace: interrupts' allocations meanwhile are in it too."
echo "kmemtrace: DIR is $rec${vmlinux:+, VMLINUX is $vmlinux}"
section summary report "$@" "$rec"
section "live: what is still allocated at the end, by call site, with its age" \
	report "$@" -v live -n 5 "$rec"
section "lines: what is still allocated, by source line (the codetags in DIR/tags)" \
	report "$@" -v live --by line -n 5 "$rec"
section "stacks: the stacks that reached the top call sites (DIR/stacks)" \
	report "$@" -v stacks --stacks 2 -n 3 "$rec"
section "lifetimes: alloc to free, per call site, as a log2 histogram" \
	report "$@" -v lifetimes -n 2 "$rec"
section "frees: on another CPU, by another API or cache, without an alloc" \
	report "$@" -v frees -n 3 "$rec"
section "caches: each slab cache's allocations, waste, frees and live objects" \
	report "$@" -v caches -n 5 "$rec"
section "pages: page allocations by order and migrate type" \
	report "$@" -v pages "$rec"
section "gfp: allocations by GFP flags" \
	report "$@" -v gfp -n 5 "$rec"

echo
for chart in live sizes lifetimes; do
	if "$kmt" plot "$@" -c "$chart" -o "$out/$chart.svg" "$rec" 2> "$out/stderr"; then
		echo "kmemtrace: kmemtrace plot -c $chart: $out/$chart.svg"
	else
		cat "$out/stderr"
		failed=1
	fi
done
rm -f "$out/stderr"
exit $failed
