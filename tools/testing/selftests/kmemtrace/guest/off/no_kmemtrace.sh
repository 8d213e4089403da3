#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a CONFIG_KMEMTRACE=n kernel boots, allocates and frees as
#              usual, has no kmemtrace files, and the tool says why
# requires: the harness's kernel built with CONFIG_KMEMTRACE=n

fail() { echo "FAIL: $*"; exit 1; }

[ ! -e /sys/kernel/debug/kmemtrace ] || fail "kmemtrace directory exists"
[ ! -e /sys/module/kmemtrace ] || fail "kmemtrace parameters exist"
/kmt/workload.sh 2 || fail "workload failed"
err=$(kmemtrace record -o /tmp/off -- true 2>&1) && fail "record succeeded"
case $err in
*"CONFIG_KMEMTRACE"*) ;;
*) fail "record error does not name CONFIG_KMEMTRACE: $err" ;;
esac
echo "ok: no kmemtrace files, workload runs, tool explains: $err"
