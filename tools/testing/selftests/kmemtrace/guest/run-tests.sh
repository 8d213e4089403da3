#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run-tests.sh DIR SUITE - run every DIR/*.sh guest test and print KTAP,
# as a subtest named SUITE.
#
# A test passes by exiting 0, is skipped by exiting 4 (kselftest's
# KSFT_SKIP) and fails otherwise.  Its output is printed as KTAP
# diagnostics, so the console log keeps it next to the result.

dir=$1
suite=$2
n=$(ls "$dir"/*.sh | wc -l)
echo "KTAP version 1"
echo "1..1"
echo "    KTAP version 1"
echo "    # Subtest: $suite"
echo "    1..$n"
i=0
failed=0
for t in "$dir"/*.sh; do
	i=$((i + 1))
	name=$(basename "$t" .sh)
	out=/tmp/$name.log
	sh "$t" >"$out" 2>&1
	rc=$?
	sed 's/^/    # /' "$out"
	case $rc in
	0) echo "    ok $i $name" ;;
	4) echo "    ok $i $name # SKIP" ;;
	*) echo "    not ok $i $name # exit $rc"; failed=1 ;;
	esac
done
[ $failed = 0 ] && echo "ok 1 $suite" || echo "not ok 1 $suite"
