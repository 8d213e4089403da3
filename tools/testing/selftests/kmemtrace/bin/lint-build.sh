#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# lint-build.sh - sparse (C=2) and W=1 on every C file the series adds or
# touches, compared with the same files of the unpatched tree: prints the
# warnings the series adds, exits 1 if there are any.
#
# Both trees are configured alike (tinyconfig, base.config and
# kmemtrace.config; the unpatched tree drops the options it does not
# have) and built out of tree in $KMT_CACHE/build/VERSION/lint and
# lint-pristine.  The unpatched tree is a worktree of series.sh's
# repository at the tag "pristine" ($KMT_CACHE/src/VERSION/pristine).
# A warning is compared by file and text, without its line and column,
# so that lines the series moves do not count as new.
#
# Then the files the series adds are built once more, with W=1, in a
# config without KUnit (configs/lint-lean.config,
# in $KMT_CACHE/build/VERSION/lint-lean), where they must not warn at all:
# code that only the test config compiles out, or in, shows there.

set -u
. "$(dirname "$0")/lib.sh"

SRC=$(kmt_src)
CONFIGS=$KMT_SELFTESTS/configs

command -v sparse >/dev/null || kmt_die "sparse is not installed (make deps)"
PRISTINE=$(kmt_pristine) || exit 1

cd "$KMT_REPO" || exit 1
touched=$(grep -v '^[[:space:]]*\(#\|$\)' patches/series | awk '$1 ~ /\.patch$/ { print $1 }' |
	sed 's|^|patches/|' | xargs sed -n 's|^+++ b/\(.*\.c\)$|\1|p' | sort -u)
added=$(git ls-files -co --exclude-standard -- mm kernel lib samples | grep '\.c$' |
	grep -v '_test\.c$')
# The KUnit suite too: it is built in the test config.
added="$added $(git ls-files -- 'mm/kmemtrace/*_test.c')"
# A .c file another one includes is checked as part of that one.
included() {
	grep -qs "^#include \"$(basename "$1")\"" "$(dirname "$SRC/$1")"/*.c
}
objects=
for f in $touched; do
	included "$f" || objects="$objects $f"
done
touched=$objects
# Warnings are what we compare, not errors; kernel/relay.c needs RELAY,
# which only kmemtrace selects.
printf 'CONFIG_WERROR=n\nCONFIG_RELAY=y\n' >"$KMT_CACHE/out/lint.config"

# warnings TREE NAME OBJECTS...: build OBJECTS with W=1 and sparse and
# print their warnings as "file: text".
warnings() {
	tree=$1
	out=$(kmt_build "$2")
	shift 2
	mkdir -p "$out"
	kmake="make -C $tree O=$out ARCH=x86_64 -j$KMT_JOBS"
	# shellcheck disable=SC2086
	if [ ! -f "$out/.config" ] || [ "$CONFIGS/kmemtrace.config" -nt "$out/.config" ] ||
	   [ "$CONFIGS/base.config" -nt "$out/.config" ] ||
	   { [ -n "$LINT_EXTRA" ] && [ "$LINT_EXTRA" -nt "$out/.config" ]; } ||
	   ! grep -q '^CONFIG_RELAY=y' "$out/.config"; then
		{ $kmake tinyconfig &&
		  "$tree/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" \
			"$CONFIGS/base.config" "$CONFIGS/kmemtrace.config" \
			"$KMT_CACHE/out/lint.config" $LINT_EXTRA &&
		  $kmake olddefconfig; } >"$out/config.log" 2>&1 ||
			kmt_die "cannot configure $out (see $out/config.log)"
	fi
	objs=
	for f in "$@"; do
		[ -f "$tree/$f" ] || continue
		objs="$objs ${f%.c}.o"
		rm -f "$out/${f%.c}.o"
	done
	# shellcheck disable=SC2086
	$kmake W=1 $LINT_SPARSE $objs >"$out/lint.log" 2>&1 ||
		{ tail -n 20 "$out/lint.log"; kmt_die "lint build in $out failed"; }
	grep -E '^[^ :]+:[0-9]+(:[0-9]+)?: (warning|error):' "$out/lint.log" |
		sed -E "s|^($tree/)?([^:]+):[0-9]+(:[0-9]+)?: |\\2: |" | sort
}

LINT_EXTRA=
LINT_SPARSE=C=2
# shellcheck disable=SC2086
warnings "$SRC" lint $touched $added >"$KMT_CACHE/out/lint-patched.txt" || exit 1
# shellcheck disable=SC2086
warnings "$PRISTINE" lint-pristine $touched >"$KMT_CACHE/out/lint-pristine.txt" || exit 1

# What the patched tree says that the unpatched one does not, counted.
new=$(comm -23 "$KMT_CACHE/out/lint-patched.txt" "$KMT_CACHE/out/lint-pristine.txt")
nf=$(echo $touched $added | wc -w)
if [ -n "$new" ]; then
	kmt_log "sparse/W=1: warnings the series adds (file: warning, without line):"
	echo "$new" | uniq -c
	exit 1
fi
kmt_log "sparse/W=1: no new warnings in $nf files" \
	"($(wc -l <"$KMT_CACHE/out/lint-pristine.txt") in the unpatched tree's)"

# Our files alone, without KUnit: no warning.
LINT_EXTRA=$CONFIGS/lint-lean.config
LINT_SPARSE=
lean=$(echo $added | tr ' ' '\n' | grep -v '_test\.c$')
# shellcheck disable=SC2086
warnings "$SRC" lint-lean $lean >"$KMT_CACHE/out/lint-lean.txt" || exit 1
if [ -s "$KMT_CACHE/out/lint-lean.txt" ]; then
	kmt_log "W=1 without KUnit: warnings in our files:"
	cat "$KMT_CACHE/out/lint-lean.txt"
	exit 1
fi
for opt in KMEMTRACE KMEMTRACE_TRACER KMEMTRACE_STACKS; do
	grep -q "^CONFIG_$opt=y" "$(kmt_build lint-lean)/.config" ||
		kmt_die "lint-lean: CONFIG_$opt is not set (see configs/lint-lean.config)"
done
kmt_log "W=1 without KUnit: no warnings in $(echo $lean | wc -w) files"
