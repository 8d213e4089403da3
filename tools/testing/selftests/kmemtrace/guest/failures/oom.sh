#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# oom.sh - recording through reclaim and the OOM killer: a task takes
# anonymous memory (awk doubling a string, overcommit on) until the OOM
# killer kills it, while kmemtrace record records (it and this shell are
# out of the OOM killer's reach, oom_score_adj -1000).  The OOM killer
# must kill the hog, record must finish, the streams pass check exactly
# (events the small buffers could not hold are dropped and counted), and
# the kernel log must show no warning, bug or KASAN report.  The OOM
# report's own stack dump stays off the console (dmesg -n 1 meanwhile).

out=/tmp/oom
tmp=/tmp/oom
. /kmt/failures-lib.sh

echo -1000 >/proc/self/oom_score_adj
echo 1 >/proc/sys/vm/overcommit_memory
dmesg -c >/dev/null
record_start || fail "record did not start: $(cat $tmp.record)"
dmesg -n 1
sh -c 'echo 1000 >/proc/self/oom_score_adj
	exec awk "BEGIN { s = \"x\"; while (1) s = s s }"' >/dev/null 2>&1 &
hog=$!
wait $hog
hrc=$?
dmesg -n 7
kill -INT $rec
wait $rec || fail "kmemtrace record exited $?: $(cat $tmp.record)"
echo 0 >/proc/sys/vm/overcommit_memory
dmesg >$tmp.dmesg
grep -q "Out of memory: Killed process $hog " $tmp.dmesg ||
	fail "the OOM killer did not kill the hog (pid $hog, exit $hrc):" \
		"$(grep -i -m 3 'memory' $tmp.dmesg)"
echo "the OOM killer killed the hog (pid $hog, exit status $hrc)"
splats >$tmp.bad
[ ! -s $tmp.bad ] || { cat $tmp.bad; fail "the kernel log reports a bug"; }
kmemtrace check $out >$tmp.check 2>&1 || { cat $tmp.check; fail "check failed"; }
echo "ok: $(tail -n 1 $tmp.check)"
rm -rf $out
