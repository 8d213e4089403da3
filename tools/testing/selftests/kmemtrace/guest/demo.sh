#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh OUT - record a small workload on every CPU with the kmemtrace
# tool into OUT/record, for `make run` to report on the host.

out=$1
echo "kmemtrace: recording /kmt/workload.sh on $(nproc) CPUs"
kmemtrace record -o "$out/record" -- /kmt/workload.sh
echo "kmemtrace: record exited $?"
cat /sys/kernel/debug/kmemtrace/stats
