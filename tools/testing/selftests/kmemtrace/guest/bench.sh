#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh OP PAIRS [CPU...] - run PAIRS allocation and free pairs of OP
# (see lib/kmemtrace_bench.c; "mix" is all of them) at full rate on each
# CPU given, default every online CPU, pinned there, all at once.  Exits
# 1 if any run failed.

B=/sys/kernel/debug/kmemtrace_bench/run
op=$1
pairs=$2
shift 2
[ $# -gt 0 ] || set -- $(seq 0 $(($(nproc) - 1)))
pids=
for cpu in "$@"; do
	taskset -c "$cpu" sh -c "echo '$op $pairs' >$B" &
	pids="$pids $!"
done
rc=0
for pid in $pids; do
	wait "$pid" || rc=1
done
exit $rc
