#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# pprof-check.sh DIR - the heap profiles that kmemtrace record
# --pprof-every wrote in the guest's sampled recording (guest/modules/
# sample.sh copies them to DIR, with the module's /proc/allocinfo lines
# as DIR/allocinfo), read on the host by go tool pprof, the reader fleet
# profilers share: every profile parses and says it is sampled with the
# guest's period, and in the last one, per bulk function of
# kmemtrace_pattern, go tool pprof's inuse_objects and inuse_space are
# within 4 standard deviations of allocinfo's exact count and bytes (the
# bound of guest/modules/sample.sh).  Writes the -top listing beside
# allocinfo's lines to DIR/top-vs-allocinfo.txt.  Prints one PASS or
# FAIL line.

name=modules.pprof_go_reads_guest_profiles
fail() { echo "kmemtrace: pprof-check: $*" >&2; echo "FAIL $name"; exit 1; }

command -v go >/dev/null || { echo "SKIP $name (no go: apt-get install golang-go)"; exit 0; }
dir=$1
ls "$dir"/heap-*.pb.gz >/dev/null 2>&1 || fail "no profiles in $dir"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp PPROF_TMPDIR=$tmp GOFLAGS=-mod=mod
last=
for f in "$dir"/heap-*.pb.gz; do
	go tool pprof -raw "$f" >"$tmp/raw" 2>"$tmp/err" || fail "$f: $(cat "$tmp/err")"
	grep -q '^PeriodType: space bytes$' "$tmp/raw" && grep -q '^Period: 16384$' "$tmp/raw" ||
		fail "$f: not sampled at 16384: $(head -n 4 "$tmp/raw")"
	last=$f
done
for idx in inuse_space inuse_objects; do
	go tool pprof -top -sample_index=$idx -unit=B "$last" >"$tmp/$idx" \
		2>"$tmp/err" || fail "$last: $(cat "$tmp/err")"
done
[ -s "$dir/allocinfo" ] || fail "no $dir/allocinfo"
{
	echo "go tool pprof -top -sample_index=inuse_space $(basename "$last"):"
	sed -n '/flat%/,$p' "$tmp/inuse_space" | head -n 8
	echo "/proc/allocinfo (bytes calls line func) at the same time:"
	cat "$dir/allocinfo"
} >"$dir/top-vs-allocinfo.txt"
# Estimate against exact, per function: n allocations of S bytes each
# are sampled with p = 1 - exp(-S / 16384); the scaled count has the
# deviation sqrt(n (1 - p) / p), the bytes S times that.  allocinfo
# charges a vmalloc() per page, and its page array (8 bytes a page) to
# the caller too: n is calls / (pages + 1), as modules/sample.sh has it.
for fs in pattern_bulk_kmalloc:512 pattern_bulk_pages:4096 \
	  pattern_bulk_vmalloc:16384 pattern_bulk_kmalloc_large:16384; do
	f=${fs%:*} s=${fs#*:}
	set -- $(grep " func:$f " "$dir/allocinfo")
	[ $# -ge 2 ] || fail "no $f in $dir/allocinfo"
	bytes=$1 calls=$2
	est_b=$(awk -v f=$f '$NF == f { sub(/B$/, "", $1); print $1 }' "$tmp/inuse_space")
	est_n=$(awk -v f=$f '$NF == f { sub(/B$/, "", $1); print $1 }' "$tmp/inuse_objects")
	[ -n "$est_b" ] && [ -n "$est_n" ] ||
		fail "$last: no $f in -top: $(head -n 20 "$tmp/inuse_space")"
	awk -v f=$f -v s=$s -v b=$bytes -v c=$calls -v eb=$est_b -v en=$est_n 'BEGIN {
		pg = f == "pattern_bulk_vmalloc" ? s / 4096 : 0
		n = c / (pg + 1); b -= n * pg * 8
		if (!n || b != n * s) {
			printf "%s: allocinfo has %d bytes in %d calls, not %d-byte objects\n",
				f, b, c, s
			exit 1
		}
		p = 1 - exp(-s / 16384); sd = sqrt(n * (1 - p) / p)
		printf "%s: objects %d, pprof %d (%+.2f sd); bytes %d, pprof %d (%+.2f sd)\n",
			f, n, en, (en - n) / sd, b, eb, (eb - b) / (s * sd)
		exit (en - n > 4 * sd || n - en > 4 * sd ||
		      eb - b > 4 * s * sd || b - eb > 4 * s * sd)
	}' >>"$dir/top-vs-allocinfo.txt" ||
		fail "$f: $(tail -n 1 "$dir/top-vs-allocinfo.txt")"
done
echo "PASS $name"
