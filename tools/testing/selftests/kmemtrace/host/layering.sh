#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# layering.sh SRC_DIR - the module layering of tools/kmemtrace/src
#
# The tool is layered (Documentation/kmemtrace.rst, DESIGN):
#   base      utils hash opts fmt table protobuf kmemtrace.h
#   stream    trace.h (event, stream, merge, tracedir, sidefiles) header comms
#             symbols* kallsyms tags stacks gfp
#             dump_fields.h filter (the event streams, side files, options)
#   engine    replay: pairs allocations with frees and calls consumers
#   consumers report (report.c, report_views.c), plot, pprof, and the
#             commands check, dump, record, kmemtrace.c
# Rules, from the #include lines and the identifiers of each file:
#   1. no file includes a .c file;
#   2. base and stream files include neither the engine's header nor a
#      consumer's (replay.h, report.h, pprof.h, plot.h);
#   3. the engine (replay.c, replay.h) names no consumer: no plot_, pprof_
#      or report_views identifier, no view flag steering it from outside;
#   4. a consumer other than report reaches into no other's state: plot.c
#      and pprof.c use neither struct report nor a run's ->r, nor report's
#      functions (report_run, report_views), nor each other's.
# Prints each broken rule as "FILE: rule N: what"; exits 1 if any.

set -u
[ $# -eq 1 ] || { echo "usage: $0 SRC_DIR" >&2; exit 2; }
cd "$1" || exit 2
bad=0

broken() {	# broken FILE RULE TEXT
	echo "$1: rule $2: $3"
	bad=1
}

includes() {	# includes FILE: the local headers FILE includes
	sed -n 's/^#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$1"
}

for f in *.c *.h; do
	for h in $(includes "$f"); do
		case $h in *.c) broken "$f" 1 "includes $h" ;; esac
	done
done

for f in utils.? hash.? opts.? fmt.h table.? kmemtrace.h trace.h event.c stream.c merge.c \
	tracedir.c sidefiles.c header.? comms.? \
	symbols.? symbols_dw.c kallsyms.? tags.? stacks.? gfp.? dump_fields.h filter.? \
	protobuf.?; do
	[ -e "$f" ] || continue
	for h in $(includes "$f"); do
		case $h in
		replay.h|report.h|pprof.h|plot.h) broken "$f" 2 "includes $h" ;;
		esac
	done
done

for f in replay.c replay.h; do
	[ -e "$f" ] || continue
	grep -n '\<\(plot\|pprof\)_[a-z_]*\|report_views\>' "$f" |
	while IFS= read -r line; do
		echo "$f: rule 3: names a consumer: $line"
	done | grep . && bad=1
done

for f in plot.c pprof.c; do
	[ -e "$f" ] || continue
	other=pprof
	[ "$f" = pprof.c ] && other=plot
	grep -n "struct report\>\|->r\.\|\.r\.\|\<report_run\>\|\<report_views\>\|\<${other}_[a-z_]*(" "$f" |
	while IFS= read -r line; do
		echo "$f: rule 4: reaches into another consumer: $line"
	done | grep . && bad=1
done
exit $bad
