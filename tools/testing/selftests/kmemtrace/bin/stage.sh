#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# stage.sh NAME COMMAND... - run one stage of the build and print how long
# it took, so slow stages are visible in every make run.

name=$1
shift
start=$(date +%s)
"$@"
rc=$?
echo "kmemtrace: stage $name: $(($(date +%s) - start))s$([ $rc = 0 ] || echo ", FAILED ($rc)")"
exit $rc
