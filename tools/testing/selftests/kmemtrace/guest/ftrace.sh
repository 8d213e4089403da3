#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ftrace.sh OUT - the ftrace boot: run kmemtrace's ftracetest tests
# (test.d/kmemtrace) with KTAP on the console, then upstream's whole
# ftracetest suite with its KTAP saved to OUT/ftracetest.ktap, which the
# host compares between the kmemtrace and the CONFIG_KMEMTRACE=n kernel.

out=$1
cd /kmt/ftrace || exit 1
./ftracetest -K -v test.d/kmemtrace
ls -d test.d/*/ | grep -v kmemtrace >/tmp/dirs
# shellcheck disable=SC2046
./ftracetest -K $(cat /tmp/dirs) >"$out/ftracetest.ktap" 2>&1
echo "kmemtrace: upstream ftracetest: $(grep -c '^ok' "$out/ftracetest.ktap") ok," \
	"$(grep -c '^not ok' "$out/ftracetest.ktap") not ok"
