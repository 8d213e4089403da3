#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# pprof-check.sh DIR - the heap profiles that kmemtrace record
# --pprof-every wrote in the guest's sampled recording (guest/modules/
# sample.sh copies them to DIR), read on the host by go tool pprof, the
# reader fleet profilers share: every profile parses, says it is sampled
# with the guest's period, and the last one holds kmemtrace_pattern's
# bulk sites in its inuse_space.  Prints one PASS or FAIL line.

name=modules.pprof_go_reads_guest_profiles
fail() { echo "kmemtrace: pprof-check: $*" >&2; echo "FAIL $name"; exit 1; }

command -v go >/dev/null || { echo "SKIP $name (no go: apt-get install golang-go)"; exit 0; }
ls "$1"/heap-*.pb.gz >/dev/null 2>&1 || fail "no profiles in $1"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp PPROF_TMPDIR=$tmp GOFLAGS=-mod=mod
last=
for f in "$1"/heap-*.pb.gz; do
	go tool pprof -raw "$f" >"$tmp/raw" 2>"$tmp/err" || fail "$f: $(cat "$tmp/err")"
	grep -q '^PeriodType: space bytes$' "$tmp/raw" && grep -q '^Period: 16384$' "$tmp/raw" ||
		fail "$f: not sampled at 16384: $(head -n 4 "$tmp/raw")"
	last=$f
done
go tool pprof -top -sample_index=inuse_space "$last" >"$tmp/top" 2>"$tmp/err" ||
	fail "$last: $(cat "$tmp/err")"
for f in pattern_bulk_kmalloc pattern_bulk_pages pattern_bulk_vmalloc; do
	grep -q " $f\$" "$tmp/top" || fail "$last: no $f in -top: $(head -n 20 "$tmp/top")"
done
echo "PASS $name"
