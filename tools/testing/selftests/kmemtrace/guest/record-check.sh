#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# record-check.sh DIR CMD [ARGS...] - record into DIR with `kmemtrace
# record -e` while CMD runs, then check the streams and account for
# every event exactly (check-exact.sh).  Exits 1 if record, check or
# the accounting fails.

D=/sys/kernel/debug/kmemtrace
dir=$1
shift
rm -rf "$dir"
mkdir -p "$dir"
cp $D/stats "$dir/stats.before"
kmemtrace record -e -o "$dir" -- "$@" 2>"$dir/record.txt"
rc=$?
[ $rc = 0 ] || cat "$dir/record.txt"
/kmt/check-exact.sh "$dir" || rc=1
exit $rc
