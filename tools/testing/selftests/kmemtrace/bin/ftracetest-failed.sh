#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ftracetest-failed.sh KTAP - the test.d/.../*.tc files (relative to the
# ftracetest directory) of the tests that did not pass in an ftracetest
# KTAP log, found by their description line.

set -eu
. "$(dirname "$0")/lib.sh"

FT=$(kmt_src)/tools/testing/selftests/ftrace
[ -f "$1" ] || exit 0
awk -f "$KMT_BIN/ktap.awk" "$1" | sed -n 's/^FAIL //p' | sort -u |
while read -r desc; do
	(cd "$FT" && grep -rlxF "# description: $desc" test.d --include='*.tc') || true
done | sort -u
