#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a transparent huge page allocated, split and freed page by
#              page (thpsplit) is recorded as its order-9 allocation,
#              one split into 512 order-0 pieces before any of them is
#              freed, and 512 order-0 frees of its pages; kmemtrace
#              report pairs each free with its piece, so that nothing of
#              it is still allocated at the end
# requires: CONFIG_TRANSPARENT_HUGEPAGE, debugfs, the kmemtrace tool and
#           thpsplit in PATH

fail() { echo "FAIL: $*"; exit 1; }
command -v kmemtrace >/dev/null || { echo "SKIP: no kmemtrace tool"; exit 4; }
command -v thpsplit >/dev/null || { echo "SKIP: no thpsplit"; exit 4; }
[ -e /sys/kernel/mm/transparent_hugepage/enabled ] ||
	{ echo "SKIP: no CONFIG_TRANSPARENT_HUGEPAGE"; exit 4; }

T=/sys/kernel/mm/transparent_hugepage/enabled
out=/tmp/thp_split
rm -rf $out /tmp/thp_split.pid
# The test kernel gives huge pages where madvise() asks, and has no
# madvise() (tinyconfig): huge pages for every mapping while it runs.
mode=$(sed 's/.*\[\(.*\)\].*/\1/' $T)
echo always >$T || fail "cannot set $T"
kmemtrace record -o $out -- sh -c 'thpsplit >/tmp/thp_split.pid'
rc=$?
echo "$mode" >$T
[ $rc = 0 ] || fail "record failed"
pid=$(cat /tmp/thp_split.pid)
[ -n "$pid" ] || fail "thpsplit failed (a huge page not given is a failure here)"
kmemtrace check $out >/dev/null || fail "check found corrupt streams"
kmemtrace dump $out >$out/dump.txt || fail "dump failed"

# The fields of dump's lines: "cpu= seq= ts= KIND TYPE site= ptr= req=
# alloc= gfp= node= pid= order= ...".
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p"; }
grep " alloc pages .* pid=$pid order=9 " $out/dump.txt >$out/thp.txt
[ "$(wc -l <$out/thp.txt)" = 1 ] ||
	fail "$(wc -l <$out/thp.txt) order-9 page allocations by thpsplit, not 1"
ptr=$(field ptr <$out/thp.txt)
echo "# the huge page: $ptr"
grep " split pages .* ptr=$ptr " $out/dump.txt >$out/split.txt
[ "$(wc -l <$out/split.txt)" = 1 ] ||
	fail "$(wc -l <$out/split.txt) splits of $ptr, not 1"
set -- $(field req <$out/split.txt) $(field alloc <$out/split.txt) \
	$(field order <$out/split.txt)
[ "$*" = "4096 2097152 0" ] || fail "split req, alloc, order: $*"

# Every page of it freed once, as an order-0 page, after the split.
# Awk's numbers are doubles: addresses compare as their high digits, and
# offsets from the last six (2 MiB aligned: the page is in one 16 MiB).
awk -v ptr=$ptr '
	function low(s,	i, n) {
		n = 0
		for (i = length(s) - 5; i <= length(s); i++)
			n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return n
	}
	function high(s) { return substr(s, 1, length(s) - 6) }
	{ for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] } }
	$5 != "pages" { next }
	$4 == "split" && f["ptr"] == ptr { split_seen = 1; next }
	$4 != "free" || high(f["ptr"]) != high(ptr) { next }
	{
		off = low(f["ptr"]) - low(ptr)
		if (off < 0 || off >= 2097152)
			next
		if (!split_seen || f["order"] != 0 || (off % 4096))
			bad++
		if (seen[off]++)
			twice++
		n++
	}
	END {
		printf "# %d frees of its pages, %d before the split or not of a page, %d twice\n",
			n, bad, twice
		exit !(n == 512 && !bad && !twice)
	}' $out/dump.txt || fail "the pages of $ptr were not each freed once after the split"

# Nothing of it is still allocated: each free paired with its piece.
kmemtrace report -v live --list $out >$out/live.txt || fail "report failed"
if grep -q "$ptr" $out/live.txt; then
	grep "$ptr" $out/live.txt
	fail "report says $ptr is still allocated"
fi
echo "ok: the huge page's allocation, split and 512 frees pair up"
