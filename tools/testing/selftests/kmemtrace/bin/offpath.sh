#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# offpath.sh - where kmemtrace built in but off costs instructions: steps
# one kmemtrace_bench pair of each operation (eventpath.sh KERNEL off) on
# bench kernel (a), without kmemtrace, and (b), with it, and prints for
# each the instructions of the shortest of three pairs and every function
# whose count differs.  make bench's off row says how much; this says
# where, exactly, without -icount's averaging: an opt-in measurement
# (make offpath), not a test.

set -eu
. "$(dirname "$0")/lib.sh"

for k in bench-a bench-b; do
	"$KMT_BIN/eventpath.sh" "$k" off >/dev/null
done
OUT=$KMT_CACHE/out/offpath
mkdir -p "$OUT"

python3 - "$KMT_CACHE/out/eventpath-bench-a-off/names" \
	"$KMT_CACHE/out/eventpath-bench-b-off/names" <<'EOF' | tee "$OUT/table.txt"
import collections, sys

def load(path):
    runs = collections.defaultdict(list)
    for line in open(path):
        f = line.split()
        runs[f[0]].append(f[2:])
    return {op: min(r, key=len) for op, r in runs.items()}

a, b = load(sys.argv[1]), load(sys.argv[2])
print("instructions of one bench pair, kmemtrace off: (a) without it, (b) built in;")
print("the shortest of three pairs each; functions whose counts differ, (a) -> (b)")
for op in a:
    if op not in b:
        continue
    na, nb = len(a[op]), len(b[op])
    print("%-14s %6d %6d  %+d" % (op, na, nb, nb - na))
    ca, cb = collections.Counter(a[op]), collections.Counter(b[op])
    for fn in sorted(set(ca) | set(cb), key=lambda f: -(cb[f] - ca[f])):
        if ca[fn] != cb[fn]:
            print("    %-40s %5d %5d  %+d" % (fn, ca[fn], cb[fn], cb[fn] - ca[fn]))
EOF
kmt_log "off paths: $OUT/table.txt"
