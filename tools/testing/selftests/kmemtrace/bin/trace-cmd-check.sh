#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# trace-cmd-check.sh DIR - decode DIR/trace.dat, recorded in the guest with
# `trace-cmd record -p kmemtrace` (guest/ftrace.sh), with the host's
# trace-cmd report, as a user of a generic tool would, and print one
# PASS/FAIL line per check:
#   ftrace.trace_cmd_report     trace-cmd decodes kmem_alloc and kmem_free
#   ftrace.trace_cmd_comms      at most 1% of them lack the task's comm (<...>)
#   ftrace.trace_cmd_symbolic   every one names its type, kind and GFP
#                               flags as the tracer's trace file does, no
#                               numbers

set -u
. "$(dirname "$0")/lib.sh"

dir=$1
rep=$dir/trace-cmd.report
if ! trace-cmd report -i "$dir/trace.dat" >"$rep" 2>"$dir/trace-cmd.err"; then
	kmt_log "trace-cmd report failed: $(head -n 3 "$dir/trace-cmd.err")" >&2
	echo "FAIL ftrace.trace_cmd_report"
	exit 0
fi

grep -E ' kmem_(alloc|free): ' "$rep" >"$dir/trace-cmd.kmem"
total=$(wc -l <"$dir/trace-cmd.kmem")
nocomm=$(grep -c '^ *<\.\.\.>-' "$dir/trace-cmd.kmem")
# kmem_alloc: [realloc |split ]TYPE call_site=... gfp_flags=NAMES node=...
# kmem_free: TYPE call_site=...
types='(kmalloc|cache|pages|percpu|vmalloc)'
gfp='(none|_*GFP_[A-Z0-9_]+(\|(_*GFP_[A-Z0-9_]+|0x[0-9a-f]+))*)'
symbolic="kmem_alloc: +(realloc |split )?$types call_site=.* gfp_flags=$gfp node="
symbolic="$symbolic|kmem_free: +$types call_site="
numeric=$(grep -cvE "$symbolic" "$dir/trace-cmd.kmem")
kmt_log "trace-cmd report: $total kmem entries, $nocomm without comm, $numeric not symbolic" >&2
grep -m 3 -vE "$symbolic" "$dir/trace-cmd.kmem" >&2

if [ "$total" -gt 0 ]; then
	echo "PASS ftrace.trace_cmd_report"
else
	echo "FAIL ftrace.trace_cmd_report"
fi
if [ "$total" -gt 0 ] && [ $((nocomm * 100)) -le "$total" ]; then
	echo "PASS ftrace.trace_cmd_comms"
else
	echo "FAIL ftrace.trace_cmd_comms"
fi
if [ "$total" -gt 0 ] && [ "$numeric" = 0 ]; then
	echo "PASS ftrace.trace_cmd_symbolic"
else
	echo "FAIL ftrace.trace_cmd_symbolic"
fi
