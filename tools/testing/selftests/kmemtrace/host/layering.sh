#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# layering.sh SRC_DIR - the module layering of tools/kmemtrace/src
#
# The tool is layered (Documentation/kmemtrace.rst, DESIGN):
#   base      utils hash opts fmt table protobuf sitetab livetab kmemtrace.h
#   stream    trace.h (event, stream, merge, tracedir, sidefiles) header comms
#             symbols* kallsyms tags stacks gfp
#             dump_fields.h filter (the event streams, side files, options)
#             sample (the sample period of a trace, the weight of a sample)
#             profile (the pprof profile writer, given samples by address)
#             periodic (record --pprof-every: reads DIR's streams, writes
#             profiles; record's, not the engine's)
#   engine    replay: pairs allocations with frees and calls consumers
#   consumers report (report.c, report_views.?), sitesums, lifetimes,
#             stackstat, keysums, pagesums, mismatches, allocinfo, plot,
#             pprof,
#             and the
#             commands check, dump, record, kmemtrace.c
# Rules, from the #include lines and the identifiers of each file:
#   1. no file includes a .c file;
#   2. base and stream files include neither the engine's header nor a
#      consumer's (replay.h, report.h, lifetimes.h, stackstat.h, ...);
#   3. the engine (replay.c, replay.h) names no consumer: no identifier
#      starting with a consumer's name and _ (plot_, pprof_, ...), nor
#      report_views;
#   4. a consumer reaches into no other's state: plot.c, pprof.c,
#      sitesums.c, lifetimes.c, stackstat.c, keysums.c, pagesums.c,
#      mismatches.c and
#      allocinfo.c use neither struct report nor a run's ->r, nor report's functions
#      (report_run, report_views), nor each other's;
#   5. no view or consumer walks the engine's live table by its slots: they
#      use replay_live_next() or the live callback (a consumer may keep a
#      live table of its own, livetab.h).
# Prints each broken rule as "FILE: rule N: what"; exits 1 if any.

set -u
[ $# -eq 1 ] || { echo "usage: $0 SRC_DIR" >&2; exit 2; }
CONSUMERS="plot pprof sitesums lifetimes stackstat keysums pagesums mismatches allocinfo"
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
	protobuf.? sitetab.? livetab.? sample.? profile.? periodic.?; do
	[ -e "$f" ] || continue
	for h in $(includes "$f"); do
		case $h in
		replay.h|report.h|report_views.h|pprof.h|plot.h|sitesums.h|\
		lifetimes.h|stackstat.h|keysums.h|\
		pagesums.h|mismatches.h|allocinfo.h)
			broken "$f" 2 "includes $h" ;;
		esac
	done
done

for f in replay.c replay.h; do
	[ -e "$f" ] || continue
	grep -nE "\<($(echo "$CONSUMERS" | tr ' ' '|'))_[a-z_]*|report_views\>" "$f" |
	while IFS= read -r line; do
		echo "$f: rule 3: names a consumer: $line"
	done | grep . && bad=1
done

for c in $CONSUMERS; do
	f=$c.c
	[ -e "$f" ] || continue
	others=$(echo "$CONSUMERS" | tr ' ' '\n' | grep -vx "$c" | paste -sd'|' -)
	reach="struct report\>|->r\.|\.r\.|\<report_run\>|\<report_views\>"
	grep -nE "$reach|\<($others)_[a-z_]*\(" "$f" |
	while IFS= read -r line; do
		echo "$f: rule 4: reaches into another consumer: $line"
	done | grep . && bad=1
done
for f in *.c; do
	case $f in replay.c) continue ;; esac
	grep -n 'live\.slots\|live\.bits' "$f" |
	while IFS= read -r line; do
		echo "$f: rule 5: walks the live table: $line"
	done | grep . && bad=1
done
exit $bad
