#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# offcheck.sh - what the series changes in mm/ when CONFIG_KMEMTRACE=n.
#
# Builds mm/ of the patched and of the unpatched tree with the same
# configuration (the test config with kmemtrace off, off.config, and
# without CONFIG_DEBUG_ATOMIC_SLEEP, whose __LINE__ in might_sleep() would
# differ wherever a patch adds lines) and compares objdump -d of every
# object, function by function.  Prints each object whose code differs
# with the functions that do, and exits 1 if any differs that
# offcheck.expected does not list: the kmemtrace hooks must compile to
# nothing, so only the tracepoint fixes of the series may change code.

set -u
. "$(dirname "$0")/lib.sh"

SRC=$(kmt_src)
CONFIGS=$KMT_SELFTESTS/configs
EXPECTED=$KMT_BIN/offcheck.expected
OUT=$KMT_CACHE/out/offcheck

PRISTINE=$(kmt_pristine) || exit 1
mkdir -p "$OUT"
printf 'CONFIG_DEBUG_ATOMIC_SLEEP=n\n' >"$OUT/nolines.config"

build_mm() {	# build_mm TREE NAME
	out=$(kmt_build "$2")
	mkdir -p "$out"
	kmake="make -C $1 O=$out ARCH=x86_64 -j$KMT_JOBS"
	{ $kmake tinyconfig &&
	  "$1/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" \
		"$CONFIGS/base.config" "$CONFIGS/kmemtrace.config" \
		"$CONFIGS/off.config" "$OUT/nolines.config" &&
	  $kmake olddefconfig && $kmake mm/; } >"$out/offcheck.log" 2>&1 ||
		{ tail -n 20 "$out/offcheck.log"; kmt_die "building mm/ in $out failed"; }
}

# Disassembly of one object, one line per instruction, prefixed with
# its function, addresses left out (jump and call targets are kept as
# symbol+offset).
disasm() {
	objdump -d --no-show-raw-insn "$1" | awk '
		/^[0-9a-f]+ <.*>:$/ { fn = $2; next }
		/^ +[0-9a-f]+:\t/ {
			sub(/^ +[0-9a-f]+:\t/, "")
			gsub(/[0-9a-f]+ </, "<")	# targets: by symbol+offset
			print fn " " $0
		}'
}

build_mm "$SRC" offcheck
build_mm "$PRISTINE" offcheck-pristine
a=$(kmt_build offcheck-pristine)
b=$(kmt_build offcheck)

: >"$OUT/differs"
(cd "$a" && find mm -name '*.o' ! -name '*.mod.o' | sort) | while read -r o; do
	[ -f "$b/$o" ] || { echo "$o (gone)" >>"$OUT/differs"; continue; }
	disasm "$a/$o" >"$OUT/a.s"
	disasm "$b/$o" >"$OUT/b.s"
	cmp -s "$OUT/a.s" "$OUT/b.s" && continue
	fns=$(diff "$OUT/a.s" "$OUT/b.s" | sed -n 's/^[<>] \(<[^>]*>:\).*/\1/p' |
		tr -d '<>:' | sort -u | tr '\n' ' ')
	echo "$o: $fns" >>"$OUT/differs"
done
rm -f "$OUT/a.s" "$OUT/b.s"

n=$(find "$a/mm" -name '*.o' ! -name '*.mod.o' | wc -l)
unexpected=$(awk -F: 'NR == FNR { if ($0 !~ /^#/ && NF) ok[$1] = 1; next }
	!($1 in ok)' "$EXPECTED" "$OUT/differs")
kmt_log "CONFIG_KMEMTRACE=n: $(wc -l <"$OUT/differs") of $n objects in mm/" \
	"differ from the unpatched tree's:"
sed 's/^/kmemtrace:   /' "$OUT/differs"
if [ -n "$unexpected" ]; then
	kmt_log "not in $(basename "$EXPECTED") (a hook that is not compiled out?):"
	echo "$unexpected" | sed 's/^/kmemtrace:   /'
	exit 1
fi
