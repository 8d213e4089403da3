#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Fuzz the parsers of the kmemtrace tool with libFuzzer (clang).
#
# usage: fuzz.sh [-t SECONDS] [-j JOBS] OUT [TARGET...]
#
# Builds OUT/kmt-fuzz, then runs each TARGET (default: all of them, see
# kmt-fuzz.c) for SECONDS (default 60) on a copy of corpus/TARGET in
# OUT/corpus/TARGET, which grows with the inputs that find new code.  A
# crash stops the target and leaves the input in OUT/crash/TARGET.  The
# last line of each target says how many inputs it ran.
#
# An input found to crash, once fixed, goes into corpus/TARGET after
# minimizing it (OUT/kmt-fuzz -minimize_crash=1 INPUT, with
# KMT_FUZZ_TARGET=TARGET).  To add what a long run found to the corpus:
#   KMT_FUZZ_TARGET=TARGET OUT/kmt-fuzz -merge=1 corpus/TARGET OUT/corpus/TARGET

set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
TARGETS="stream header comms caches stats dropped kallsyms tags stacks elf trace"
seconds=60
jobs=1
while getopts t:j: opt; do
	case $opt in
	t)	seconds=$OPTARG ;;
	j)	jobs=$OPTARG ;;
	*)	echo "usage: $0 [-t SECONDS] [-j JOBS] OUT [TARGET...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ $# -lt 1 ]; then
	echo "usage: $0 [-t SECONDS] [-j JOBS] OUT [TARGET...]" >&2
	exit 2
fi
mkdir -p "$1"
OUT=$(cd "$1" && pwd)
shift
[ $# -gt 0 ] || set -- $TARGETS

make -s -C "$HERE" O="$OUT" -j2 fuzz
mkdir -p "$OUT/tmp"
status=0
for t in "$@"; do
	mkdir -p "$OUT/corpus/$t" "$OUT/crash/$t"
	[ -d "$HERE/corpus/$t" ] && cp -n "$HERE/corpus/$t"/* "$OUT/corpus/$t"/ 2> /dev/null
	echo "# $t: $seconds s"
	# Jobs log to OUT/fuzz-N.log; one job logs to OUT/TARGET.log.
	par=
	[ "$jobs" -gt 1 ] && par="-jobs=$jobs -workers=$jobs"
	(cd "$OUT" && TMPDIR=$OUT/tmp KMT_FUZZ_TARGET=$t "$OUT/kmt-fuzz" \
		-max_total_time="$seconds" $par -dict="$HERE/kmt.dict" \
		-max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$OUT/crash/$t/" "$OUT/corpus/$t" \
		> "$OUT/$t.log" 2>&1) || status=1
	grep -E '^stat::number_of_executed_units|^==[0-9]+==ERROR|runtime error|^SUMMARY' \
		"$OUT/$t.log" | sed "s|^|$t: |"
done
exit $status
