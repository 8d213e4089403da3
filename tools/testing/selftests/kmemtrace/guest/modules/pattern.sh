#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: kmemtrace_pattern's allocations, recorded while it loads:
#              per site (one function, one line, one codetag each) the
#              allocations and bytes of the table in its source, the tags
#              file names the lines /proc/allocinfo names, and report
#              --view allocinfo equals the module's /proc/allocinfo lines
# requires: CONFIG_SAMPLE_KMEMTRACE=m, CONFIG_MEM_ALLOC_PROFILING, the
#           kmemtrace tool in PATH, /kmt/modules/kmemtrace_pattern.ko
#
# Prints KTAP, one line per check, with what differed as diagnostics.

D=/sys/kernel/debug/kmemtrace
KO=/kmt/modules/kmemtrace_pattern.ko
MOD=kmemtrace_pattern
out=/tmp/modules_pattern
tmp=/tmp/modules_pattern.tmp

[ -f $KO ] || { echo "# SKIP: no $KO"; exit 4; }
[ -f /proc/allocinfo ] || { echo "# SKIP: no /proc/allocinfo"; exit 4; }
command -v kmemtrace >/dev/null || { echo "# SKIP: no kmemtrace tool"; exit 4; }
! grep -q "^$MOD " /proc/modules || { echo "# SKIP: $MOD is loaded"; exit 4; }

. /kmt/modules-lib.sh

# The table of kmemtrace_pattern.c, as kmemtrace reports it: per site
# (function), the type of its events, allocs, bytes requested and bytes
# allocated (x86_64, 4 KiB pages, SLUB without debugging).  PCPU: the
# bytes of one alloc_percpu() of 24 bytes, for all possible CPUs.
ncpu=$(possible_cpus)
PCPU=$((24 * ncpu))
cat >$tmp.want <<EOF
pattern_kmalloc_small kmalloc 3 72 96
pattern_kmalloc_1k kmalloc 4 4000 4096
pattern_kzalloc kmalloc 6 240 384
pattern_krealloc kmalloc 5 1000 1280
pattern_cache cache 7 504 504
pattern_pages pages 8 32768 32768
pattern_pages_order2 pages 2 32768 32768
pattern_free_pages pages 9 73728 73728
pattern_vmalloc vmalloc 10 100000 122880
pattern_kvmalloc kmalloc 11 22000 22528
pattern_percpu percpu 12 $((12 * PCPU)) $((12 * PCPU))
EOF
echo "KTAP version 1"
echo "1..6"

# The window: loading the module, and reading its /proc/allocinfo lines.
if record_start; then
	insmod $KO >$tmp.insmod 2>&1
	st=$?
	grep "\[$MOD\]" /proc/allocinfo >$tmp.allocinfo
	record_stop
	result insmod_in_record "$st" $tmp.insmod
else
	not_ok insmod_in_record $tmp.record
	exit 1
fi

record_complete record_complete tags

# Per site, from the sites view of each type (other types' events at the
# same site, such as page tables under vmalloc(), are not the site's).
for type in kmalloc cache pages percpu vmalloc; do
	kmemtrace report -v sites --csv -n 1000000 --type $type $out 2>>$tmp.err |
	awk -F, -v type=$type -v mod="[$MOD]" '
		/^# / { table = $0 == "# sites"; hdr = 1; next }
		!table || /^$/ { next }
		hdr { for (i = 1; i <= NF; i++) col[$i] = i; hdr = 0; next }
		{	site = $col["call_site"]
			if (index(site, mod) == 0) next
			sub(/\+0x[0-9a-f]+.*/, "", site)
			a[site] += $col["allocs"]; r[site] += $col["bytes_req"]
			b[site] += $col["bytes_alloc"] }
		END { for (s in a) print s, type, a[s], r[s], b[s] }'
done | sort >$tmp.got
# Each vmalloc() also takes a vmap_area from its slab cache: flagged
# backing (kmemtrace_cache_backing()), it is no site's.
sort $tmp.want >$tmp.want.sorted
diff $tmp.want.sorted $tmp.got >$tmp.diff 2>&1
{ echo "want (-) and got (+): function type allocs bytes_req bytes_alloc"
  cat $tmp.diff $tmp.err 2>/dev/null; } >$tmp.sites
result sites_match_table "$([ -s $tmp.diff ] && echo 1 || echo 0)" $tmp.sites

# One codetag per site: the tags file names the file:line and function
# /proc/allocinfo names, each site once.
sed -n 's/^ *[-0-9]* *[0-9]* \([^ ]*\) \['"$MOD"'\] func:\([^ ]*\).*/\1 \2/p' \
	$tmp.allocinfo | sort >$tmp.lines.allocinfo
awk -v mod=$MOD '!/^#/ && $4 == mod && NF == 4 { print $2, $3 }' \
	$out/tags 2>/dev/null | sort >$tmp.lines.tags
{ diff $tmp.lines.allocinfo $tmp.lines.tags
  awk '{ print $2 }' $tmp.lines.tags | uniq -d | sed 's/^/more than one tag: /'
  awk '{ print $1 }' $tmp.want | while read -r f; do
	grep -q " $f\$" $tmp.lines.tags || echo "no tag of $f"
  done; } >$tmp.diff 2>&1
{ echo "/proc/allocinfo (-) and $out/tags (+): file:line function"
  cat $tmp.diff; } >$tmp.tags
result tags_match_allocinfo "$([ -s $tmp.diff ] && echo 1 || echo 0)" $tmp.tags

# The allocinfo view: the net bytes and calls of each tag over the window,
# as /proc/allocinfo prints them.  Every tag of the module was created in
# the window, so its counters are the window's.  A tag the window never
# touched is not in the view, and reads "0 0" in /proc/allocinfo.
kmemtrace report --view allocinfo --module $MOD $out >$tmp.view 2>$tmp.err
st=$?
grep ' func:' $tmp.view | sed 's/ *$//' | sort >$tmp.view.lines
# Percpu memory from the first chunk, which /proc/allocinfo does not
# count (no extension vector for tags), is flagged uncharged: the view
# leaves it out too, and the line reads 0 0 in both.
sed 's/ *$//' $tmp.allocinfo | while read -r bytes calls rest; do
	line=$(printf '%12s %8s %s' "$bytes" "$calls" "$rest")
	if [ "$bytes $calls" = "0 0" ] && ! grep -qF " $rest" $tmp.view.lines; then
		continue
	fi
	echo "$line"
done | sort >$tmp.allocinfo.lines
diff $tmp.allocinfo.lines $tmp.view.lines >$tmp.diff 2>&1
{ [ $st = 0 ] || { echo "report --view allocinfo exited $st:"; cat $tmp.err; }
  echo "/proc/allocinfo (-) and report --view allocinfo (+):"
  cat $tmp.diff; } >$tmp.view.out
result allocinfo_view "$([ $st != 0 ] || [ -s $tmp.diff ] && echo 1 || echo 0)" \
	$tmp.view.out

# Out of the window: unloading frees everything, no codetag keeps bytes.
seen=$(dmesg | wc -l)
rmmod $MOD >$tmp.rmmod 2>&1
st=$?
dmesg | tail -n +$((seen + 1)) | grep -i "$MOD\|alloc_tag" >>$tmp.rmmod
grep -q "still alive" $tmp.rmmod && st=1
result rmmod_clean "$st" $tmp.rmmod

# A failed run leaves its recording for the host (run.sh unpacks it).
[ $failed = 0 ] || { mkdir -p /tmp/out && cp -r $out /tmp/out/; }
rm -f $tmp.*
[ $failed = 0 ]
