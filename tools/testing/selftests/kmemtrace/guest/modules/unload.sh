#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: kmemtrace_pattern loaded with leak=1 and unloaded while
#              recording: the kernel says its allocations are still
#              alive, the report lists them live at their file:line of
#              the module's source, and the tags file keeps the module's
#              tags, marked unloaded
# requires: CONFIG_SAMPLE_KMEMTRACE=m, CONFIG_MEM_ALLOC_PROFILING,
#           CONFIG_MODULE_UNLOAD, the kmemtrace tool in PATH,
#           /kmt/modules/kmemtrace_pattern.ko
#
# Leaves the leaked allocations (and the module's codetags) behind: run
# it after the other tests that load kmemtrace_pattern.  The kernel's
# alloc_tag code WARN()s once per leaking tag at the unload.

D=/sys/kernel/debug/kmemtrace
KO=/kmt/modules/kmemtrace_pattern.ko
MOD=kmemtrace_pattern
out=/tmp/modules_unload
tmp=/tmp/modules_unload.tmp

[ -f $KO ] || { echo "# SKIP: no $KO"; exit 4; }
[ -f /proc/allocinfo ] || { echo "# SKIP: no /proc/allocinfo"; exit 4; }
command -v kmemtrace >/dev/null || { echo "# SKIP: no kmemtrace tool"; exit 4; }
! grep -q "^$MOD " /proc/modules || { echo "# SKIP: $MOD is loaded"; exit 4; }

. /kmt/modules-lib.sh

# What leak=1 leaves, per site (kmemtrace_pattern.c's table, "held"
# column but the cache's): live allocations and their bytes as the live
# view counts them (x86_64, 4 KiB pages, SLUB without debugging).
ncpu=$(possible_cpus)
cat >$tmp.want <<EOF
pattern_kmalloc_small 3 96
pattern_kzalloc 1 64
pattern_krealloc 5 1280
pattern_pages 8 32768
pattern_pages_order2 2 32768
pattern_vmalloc 4 49152
pattern_kvmalloc 11 22528
pattern_percpu 6 $((6 * 24 * ncpu))
EOF
echo "KTAP version 1"
echo "1..5"

seen=$(dmesg | wc -l)
if record_start; then
	{ insmod $KO leak=1 && grep "\[$MOD\]" /proc/allocinfo >$tmp.allocinfo &&
	  rmmod $MOD; } >$tmp.mod 2>&1
	st=$?
	# The kallsyms of a module loaded and unloaded between two of
	# record's polls are lost: the check does not need them.
	record_stop
	result insmod_leak_rmmod_in_record "$st" $tmp.mod
else
	not_ok insmod_leak_rmmod_in_record $tmp.record
	exit 1
fi

record_complete record_complete tags

# Only the line itself: the WARN()s around it would read as a splat.
dmesg | tail -n +$((seen + 1)) |
	grep -o "$MOD: memory allocation(s) from the module still alive.*" >$tmp.dmesg
{ echo "want \"$MOD: memory allocation(s) from the module still alive\" in dmesg"
  cat $tmp.dmesg; } >$tmp.alive
result kernel_says_still_alive "$([ -s $tmp.dmesg ] && echo 0 || echo 1)" $tmp.alive

# The lines of the module's sites, as /proc/allocinfo named them while
# it was loaded: function -> file:line.
sed -n 's/^ *[-0-9]* *[0-9]* \([^ ]*\) \['"$MOD"'\] func:\([^ ]*\).*/\2 \1/p' \
	$tmp.allocinfo | sort >$tmp.lines

# The tags file keeps the module's tags, marked unloaded: each site's
# file:line and function, and no tag of the module without "unloaded"
# (earlier loads of the module leave tags of their own, unloaded too).
awk -v mod=$MOD '!/^#/ && $4 == mod { print $3, $2, $5 }' $out/tags \
	2>/dev/null | sort -u >$tmp.tags
{ grep -v ' unloaded$' $tmp.tags | sed 's/^/not marked unloaded: /'
  while read -r f line; do
	grep -qx "$f $line unloaded" $tmp.tags ||
		echo "no unloaded tag for $f at $line"
  done <$tmp.lines
  [ -s $tmp.lines ] || echo "no line of $MOD in /proc/allocinfo"; } >$tmp.diff
result tags_marked_unloaded "$([ -s $tmp.diff ] && echo 1 || echo 0)" $tmp.diff

# The live view by line: what leak=1 left, at the module's lines.
kmemtrace report -v live --by line --csv -n 1000000 $out 2>$tmp.err |
awk -F, '
	/^# / { table = $0 == "# live"; hdr = 1; next }
	!table || /^$/ { next }
	hdr { for (i = 1; i <= NF; i++) col[$i] = i; hdr = 0; next }
	$col["group"] ~ /kmemtrace_pattern\.c:/ {
		g = $col["group"]; sub(/ \[kmemtrace_pattern\]$/, "", g)
		print g, $col["count"], $col["bytes"] }' |
	sort >$tmp.got
while read -r f count bytes; do
	line=$(awk -v f="$f" '$1 == f { print $2 }' $tmp.lines)
	echo "${line:-$f} $count $bytes"
done <$tmp.want | sort >$tmp.want.lines
diff $tmp.want.lines $tmp.got >$tmp.diff 2>&1
{ echo "want (-) and got (+): file:line live bytes"
  cat $tmp.diff $tmp.err; } >$tmp.live
result live_at_module_lines "$([ -s $tmp.diff ] && echo 1 || echo 0)" $tmp.live

rm -f $tmp.*
[ $failed = 0 ]
