#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# workload.sh [ROUNDS] - a little of everything that allocates kernel
# memory (file system walks, pipes, forks, tmpfs files), once per online
# CPU, pinned there, so every CPU's buffer gets events.

rounds=${1:-5}
for cpu in $(seq 0 $(($(nproc) - 1))); do
	taskset -c "$cpu" sh -c "
		for i in \$(seq $rounds); do
			ls -lR /sys/kernel/debug/kmemtrace /proc/self >/dev/null 2>&1
			cat /proc/meminfo >/dev/null
			echo \$i | tee /tmp/workload.$cpu >/dev/null
			rm -f /tmp/workload.$cpu
		done" &
done
wait
