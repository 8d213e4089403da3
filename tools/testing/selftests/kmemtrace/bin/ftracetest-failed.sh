#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ftracetest-failed.sh KTAP [FTRACE_DIR] - the test.d/.../*.tc files
# (relative to FTRACE_DIR, the ftracetest directory, by default the
# prepared tree's) of the tests that did not pass in an ftracetest KTAP
# log, found by their description line.  ftracetest runs the tests
# flagged "instance" a second time in an instance, and names that run
# "(instance) DESCRIPTION": it is the same file.

set -eu
if [ $# -ge 2 ]; then
	FT=$2
else
	. "$(dirname "$0")/lib.sh"
	FT=$(kmt_src)/tools/testing/selftests/ftrace
fi

[ -f "$1" ] || exit 0
awk -f "$(dirname "$0")/ktap.awk" "$1" | sed -n 's/^FAIL //p' |
	sed 's/^(instance) //' | sort -u |
while read -r desc; do
	(cd "$FT" && grep -rlxF "# description: $desc" test.d --include='*.tc') || true
done | sort -u
