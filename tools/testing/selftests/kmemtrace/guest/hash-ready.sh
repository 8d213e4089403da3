#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# hash-ready.sh - wait until %p prints hashed pointers.  The tracer's text
# output hashes pointers (%p), which print "(____ptrval____)" until the
# random pool is ready and the hash key is set: a blocking read readies
# the pool; then wait (10 s at most) for the key.  Leaves the nop tracer.

T=/sys/kernel/tracing
head -c 1 /dev/random >/dev/null
echo kmemtrace >$T/current_tracer
i=0
while [ $i -lt 100 ]; do
	echo >$T/trace
	cat /proc/meminfo >/dev/null
	grep -q '(____ptrval____)' $T/trace || break
	sleep 0.1
	i=$((i + 1))
done
echo nop >$T/current_tracer
