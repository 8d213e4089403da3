#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run the host tests of tools/kmemtrace (KTAP on stdout).

set -eu
. "$(dirname "$0")/lib.sh"

KMT_TSAN=$(kmt_build_tsan) || exit 1
export KMT_TSAN

rm -rf "$KMT_CACHE/out/host"
exec sh "$KMT_SELFTESTS/host/run.sh" "$KMT_CACHE/tool/host/kmemtrace" "$KMT_CACHE/out/host"
