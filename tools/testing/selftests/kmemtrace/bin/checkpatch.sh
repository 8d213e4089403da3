#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run the kernel's scripts/checkpatch.pl on every C file and header the
# series adds and on every patch in patches/, and scripts/kernel-doc on
# the C files.  Prints only what they complain about; exits 1 if anything.

set -u
. "$(dirname "$0")/lib.sh"

SRC=$(kmt_src)
CP="$SRC/scripts/checkpatch.pl --quiet --no-tree --show-types"
cd "$KMT_REPO" || exit 1
rc=0

files=$(git ls-files -co --exclude-standard -- '*.c' '*.h')
for f in $files; do
	# shellcheck disable=SC2086
	$CP -f "$f" || rc=1
	out=$("$SRC/scripts/kernel-doc" -none -Wall "$f" 2>&1)
	[ -z "$out" ] || { echo "$out"; rc=1; }
done
for p in patches/*.patch; do
	# shellcheck disable=SC2086
	$CP "$KMT_REPO/$p" || rc=1
done
n=$(echo "$files" | wc -w)
if [ $rc = 0 ]; then
	kmt_log "checkpatch and kernel-doc: clean ($n files, $(ls patches/*.patch | wc -l) patches)"
else
	kmt_log "checkpatch/kernel-doc found problems (above)"
fi
exit $rc
