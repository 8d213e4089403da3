#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ftracetest-compare.sh WITH.ktap WITHOUT.ktap - one result per upstream
# ftracetest test, run on the kmemtrace kernel (WITH) and on the same
# kernel built with CONFIG_KMEMTRACE=n (WITHOUT):
#   PASS  passes with kmemtrace (XFAIL counts as a pass, as ftracetest does)
#   SKIP  unsupported here, or fails without kmemtrace as well (the
#         minimal test configuration, not this series)
#   FAIL  fails with kmemtrace but not without it: this series broke it
# Prints "PASS|FAIL|SKIP upstream.NAME" lines, and a tally on stderr.

with=$1
without=$2
KTAP_AWK=$(dirname "$0")/ktap.awk

results() {
	[ -f "$1" ] && awk -f "$KTAP_AWK" "$1"
}

results "$without" | sed -n 's/^FAIL //p' | sort >/tmp/kmt-ftrace-off-fail.$$
results "$with" | while read -r verdict name; do
	if [ "$verdict" = FAIL ] &&
	   grep -qxF "$name" /tmp/kmt-ftrace-off-fail.$$; then
		verdict=SKIP
	fi
	echo "$verdict upstream.$name"
done
rm -f /tmp/kmt-ftrace-off-fail.$$
