#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Replay the regression corpus of the kmemtrace fuzz targets under
# AddressSanitizer and UndefinedBehaviorSanitizer, without libFuzzer.
#
# usage: run.sh SCRATCH_DIR [CORPUS_DIR]
#
# Builds SCRATCH_DIR/kmt-fuzz-replay from kmt-fuzz.c and the tool's
# sources with ${CC:-cc}, then replays every file of CORPUS_DIR/TARGET
# (default: the corpus next to this script) with target TARGET, and prints
# one KTAP result per target.  A sanitizer report, a leak, a crash or a
# replay longer than 120 s fails the target; its log ends up as "# "
# lines.  When $CC cannot build with the sanitizers, every target is
# skipped.
# Exit status: 0 when every target passed or was skipped, 1 otherwise.

set -u

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: $0 SCRATCH_DIR [CORPUS_DIR]" >&2
	exit 2
fi
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$1" || exit 1
SCRATCH=$(cd "$1" && pwd)
CORPUS=$(cd "${2:-$HERE/corpus}" && pwd) || exit 1
REPLAY=$SCRATCH/kmt-fuzz-replay
export CC="${CC:-cc}"

targets=
for d in "$CORPUS"/*/; do
	[ -d "$d" ] && targets="$targets $(basename "$d")"
done

echo "KTAP version 1"
set -- $targets
if [ $# -eq 0 ]; then
	echo "Bail out! no TARGET directory in $CORPUS"
	exit 1
fi
echo "1..$#"

skip=
echo 'int main(void) { return 0; }' > "$SCRATCH/probe.c"
if ! "$CC" -fsanitize=address,undefined -o "$SCRATCH/probe" "$SCRATCH/probe.c" \
		> "$SCRATCH/probe.log" 2>&1; then
	skip="$CC cannot build with -fsanitize=address,undefined"
elif ! make -s -C "$HERE" O="$SCRATCH" -j2 replay > "$SCRATCH/build.log" 2>&1; then
	sed 's/^/# /' "$SCRATCH/build.log"
	echo "Bail out! cannot build kmt-fuzz-replay"
	exit 1
fi

# Any report fails the replay; leaks are looked for at exit.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=98
n=0
failed=0
for t in $targets; do
	n=$((n + 1))
	if [ -n "$skip" ]; then
		echo "ok $n $t # SKIP $skip"
		continue
	fi
	# An input that makes a parser loop for ever fails too.
	TMPDIR=$SCRATCH timeout 120 "$REPLAY" "$t" "$CORPUS/$t" > "$SCRATCH/$t.log" 2>&1
	status=$?
	[ $status -eq 124 ] && echo "timed out after 120 s" >> "$SCRATCH/$t.log"
	if [ $status -eq 0 ]; then
		echo "# $(tail -n 1 "$SCRATCH/$t.log" | sed 's/^kmt-fuzz: //')"
		echo "ok $n $t"
	else
		# The file replayed last is the culprit, then the report.
		grep -v '^kmt-fuzz: ' "$SCRATCH/$t.log" | tail -n 40 |
			sed 's/^/# /'
		grep '^kmt-fuzz: ' "$SCRATCH/$t.log" | tail -n 1 | sed 's/^/# /'
		echo "not ok $n $t"
		failed=$((failed + 1))
	fi
done
echo "# $((n - failed)) of $n passed"
[ $failed -eq 0 ]
