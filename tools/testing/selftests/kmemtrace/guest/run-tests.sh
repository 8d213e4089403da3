#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run-tests.sh DIR SUITE - run every DIR/*.sh guest test and print KTAP,
# as a subtest named SUITE.
#
# A test passes by exiting 0, is skipped by exiting 4 (kselftest's
# KSFT_SKIP) and fails otherwise.  Its output is printed as KTAP
# diagnostics, so the console log keeps it next to the result.  A test
# that prints a plan ("1..N") and exits 0 must have printed N results
# ("ok I ..." or "not ok I ..."): one that stopped early, or a plan not
# kept up with its checks, fails.

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
	plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$out" | head -n 1)
	got=$(grep -cE '^(not )?ok [0-9]+( |$)' "$out")
	if [ "$rc" = 0 ] && [ -n "$plan" ] && [ "$plan" != "$got" ]; then
		echo "plan 1..$plan, but $got results" >>"$out"
		rc=1
	fi
	sed 's/^/    # /' "$out"
	case $rc in
	0) echo "    ok $i $name" ;;
	4) echo "    ok $i $name # SKIP" ;;
	*) echo "    not ok $i $name # exit $rc"; failed=1 ;;
	esac
done
[ $failed = 0 ] && echo "ok 1 $suite" || echo "not ok 1 $suite"
