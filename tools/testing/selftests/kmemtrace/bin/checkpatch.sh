#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch.sh (make lint, make checkpatch) - what a maintainer runs on
# the series before applying it:
#   - scripts/checkpatch.pl --strict on every patch of the series (make
#     series), which adds every new file whole;
#   - scripts/kernel-doc -none -Wall on every C file and header we add;
#   - scripts/get_maintainer.pl: every file the series adds names our
#     MAINTAINERS entry;
#   - sparse (make C=2) and W=1 on every C file we add or touch, against
#     the unpatched tree (lint-build.sh).
# Prints only what they complain about; exits 1 if anything.
#
# Two kinds of finding are left out, each where it cannot be fixed:
#  - OPEN_ENDED_LINE and PARENTHESIS_ALIGNMENT in include/trace/events/*.h
#    and kernel/trace/trace_entries.h, where TRACE_EVENT() and
#    FTRACE_ENTRY() are laid out as every other event in those files is
#    ("TP_STRUCT__entry(" at the end of a line);
#  - CAMELCASE on the names libraries give the tool: libdw's and libelf's
#    types (Dwfl*, GElf_*), zlib's deflateInit2() and deflateEnd() and
#    libFuzzer's entry point;
#  - LONG_LINE and REPEATED_WORD in the tool's host tests (host/run.sh),
#    whose here-documents are the tool's expected output byte for byte
#    and whose cmp of the -j runs names two files alike (out, out.j).

set -u
. "$(dirname "$0")/lib.sh"

SRC=$(kmt_src)
CP="perl $SRC/scripts/checkpatch.pl --no-tree --strict --show-types"
OVERLAY_DIRS="Documentation include kernel lib mm samples scripts tools"
cd "$KMT_REPO" || exit 1
rc=0

# checkpatch's report without its summary, less the trace header idiom.
filter() {
	awk 'BEGIN { RS = ""; ORS = "\n\n" }
		/^(total|NOTE|.*has no obvious style problems)/ { next }
		/^[A-Z]+:(OPEN_ENDED_LINE|PARENTHESIS_ALIGNMENT):/ &&
		/FILE: (include\/trace\/events\/[^:]*|kernel\/trace\/trace_entries)\.h:/ { next }
		/^CHECK:CAMELCASE: Avoid CamelCase: <(Dwfl[A-Za-z_]*|GElf_[A-Za-z]+)>/ { next }
		/^CHECK:CAMELCASE: Avoid CamelCase: <LLVMFuzzerTestOneInput>/ { next }
		/^CHECK:CAMELCASE: Avoid CamelCase: <deflate(Init2|End)>/ { next }
		/^WARNING:(LONG_LINE|REPEATED_WORD):/ &&
		/FILE: tools\/testing\/selftests\/kmemtrace\/host\/run\.sh:/ { next }
		/^[A-Z]+:[A-Z_]+:/ { print; found = 1 }
		END { exit !found }'
}

# The series.
"$KMT_BIN/series.sh" >/dev/null || { kmt_log "make series failed"; exit 1; }
np=0
for p in "$KMT_CACHE"/series/[0-9]*.patch; do
	case $p in */0000-cover-letter.patch) continue ;; esac
	np=$((np + 1))
	# From the series folder: in a git tree checkpatch leaves a cache there.
	if (cd "$KMT_CACHE/series" && $CP "$p") 2>&1 | filter >"$KMT_CACHE/series/cp.out"
	then
		echo "== $(basename "$p")"
		cat "$KMT_CACHE/series/cp.out"
		rc=1
	fi
done
rm -f "$KMT_CACHE/series/cp.out"

# The kernel-doc of the C files and headers we add (checkpatch saw them
# in the series).
files=$(git ls-files -co --exclude-standard -- '*.c' '*.h')
for f in $files; do
	out=$("$SRC/scripts/kernel-doc" -none -Wall "$f" 2>&1)
	[ -z "$out" ] || { echo "$out"; rc=1; }
done

# Every file we add names our entry.
ident=$(sed -n 's/^M:[[:space:]]*//p' MAINTAINERS | head -n 1)
new=$(git ls-files -co --exclude-standard -- $OVERLAY_DIRS)
# shellcheck disable=SC2016
nobody=$(cd "$SRC" && echo "$new" | xargs -n 1 -P "$KMT_JOBS" sh -c '
	perl scripts/get_maintainer.pl --no-git --no-git-fallback --no-rolestats \
		-f "$1" 2>/dev/null | grep -qxF "$0" || echo "$1"' "$ident")
if [ -n "$nobody" ]; then
	kmt_log "get_maintainer.pl does not name $ident for:"
	echo "$nobody" | sed 's/^/  /'
	rc=1
fi

# sparse and W=1, ours against the unpatched tree's.
"$KMT_BIN/lint-build.sh" || rc=1

n=$(echo "$files" | wc -w)
if [ $rc = 0 ]; then
	kmt_log "lint: clean: checkpatch --strict on $np patches," \
		"kernel-doc on $n files, get_maintainer on $(echo "$new" | wc -w) files," \
		"sparse and W=1"
else
	kmt_log "lint found problems (above)"
fi
exit $rc
