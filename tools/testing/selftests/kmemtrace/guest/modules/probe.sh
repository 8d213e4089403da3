#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: kmemtrace_probe's own probes on kmemtrace's tracepoints
#              coexist with kmemtrace's and count what it records: per
#              type, the events of one task running kmemtrace_bench
#              requests (pid=), and the events whose call site is in
#              kmemtrace_pattern while it loads (module=)
# requires: CONFIG_SAMPLE_KMEMTRACE=m, CONFIG_KMEMTRACE_BENCH, the
#           kmemtrace tool in PATH, /kmt/modules/kmemtrace_probe.ko and
#           kmemtrace_pattern.ko

D=/sys/kernel/debug/kmemtrace
C=/sys/kernel/debug/kmemtrace_probe/counts
B=/sys/kernel/debug/kmemtrace_bench/run
KO=/kmt/modules/kmemtrace_probe.ko
PATTERN=/kmt/modules/kmemtrace_pattern.ko
out=/tmp/modules_probe
tmp=/tmp/modules_probe.tmp

if [ ! -f $KO ] || [ ! -f $PATTERN ]; then
	echo "# SKIP: no $KO or $PATTERN"
	exit 4
fi
[ -e $B ] || { echo "# SKIP: no $B"; exit 4; }
command -v kmemtrace >/dev/null || { echo "# SKIP: no kmemtrace tool"; exit 4; }
for m in kmemtrace_probe kmemtrace_pattern; do
	! grep -q "^$m " /proc/modules || { echo "# SKIP: $m is loaded"; exit 4; }
done

. /kmt/modules-lib.sh

# A dropped event would be counted by the probe only: record_complete
# (modules-lib.sh) checks there is none.

# kmemtrace's events of $out as "TYPE ALLOCS FREES REALLOCS" lines, of the
# pid $1, or ("") of the call sites in module $2.
# The vmap_area a vmalloc() takes from its slab cache is named after
# the vmalloc() caller by kmemtrace, after alloc_vmap_area() by the
# tracepoint: not counted for a module.
kmemtrace_counts() {
	vmap=$(awk '$2 == "vmap_area" { print $1 }' $out/caches 2>/dev/null)
	kmemtrace dump $out 2>>$tmp.err | awk -v pid="$1" -v mod="$2" -v vmap="$vmap" '
		mod != "" && vmap != "" && index($0, " cache_id=" vmap " ") { next }
		pid != "" { p = ""
			for (i = 6; i <= NF; i++)
				if ($i ~ /^pid=/) { p = substr($i, 5); break }
			if (p != pid) next }
		mod != "" && substr($0, length($0) - length(mod) - 2) != " [" mod "]" { next }
		{ c[$5 " " $4]++ }
		END { split("kmalloc cache pages percpu vmalloc", t, " ")
			for (i = 1; i <= 5; i++)
				print t[i], c[t[i] " alloc"] + 0, c[t[i] " free"] + 0,
				      c[t[i] " realloc"] + 0 }'
}

# The probe's counts, as "TYPE ALLOCS FREES REALLOCS" lines.
probe_counts() {
	grep -v '^#' $C
}

# compare NAME TYPE FIELDS...: one check of some columns of a type (2:
# allocs, 3: frees, 4: reallocs) of $tmp.kmt and $tmp.probe.
compare() {
	name=$1
	type=$2
	shift 2
	for f; do
		k=$(awk -v t="$type" -v f="$f" '$1 == t { print $f }' $tmp.kmt)
		p=$(awk -v t="$type" -v f="$f" '$1 == t { print $f }' $tmp.probe)
		[ -n "$k" ] && [ "$k" = "$p" ] && continue
		{ echo "$type $(echo x allocs frees reallocs | cut -d' ' -f"$f"):" \
		       "kmemtrace $k, kmemtrace_probe $p"
		  echo "kmemtrace:"; cat $tmp.kmt
		  echo "kmemtrace_probe:"; cat $tmp.probe; } >$tmp.diff
		not_ok "$name" $tmp.diff
		return
	done
	ok "$name"
}

echo "KTAP version 1"
echo "1..11"

# --- pid=: one task's kmemtrace_bench requests -----------------------------
# The task blocks on a FIFO until recording runs, so that the probe (from
# its load) and kmemtrace (from enabling) see the same events of it.  The
# operations leave out kmalloc-large, whose pages kmemtrace does not
# report apart from the kmalloc (kmemtrace_probe.c says why).
fifo=/tmp/modules_probe.fifo
rm -f $fifo
mkfifo $fifo
sh -c "read go <$fifo
	for op in 'kmalloc-64 50' 'kmalloc-1024 40' 'cache 30' 'pages-0 20' \
		  'pages-3 10' 'percpu 8' 'vmalloc 6' 'bulk 4'; do
		echo \"\$op\" >$B || exit 1
	done" &
helper=$!
i=0
until [ "$(cut -d' ' -f3 /proc/$helper/stat 2>/dev/null)" = S ] &&
      grep -q "$fifo" /proc/$helper/cmdline 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 100 ] || break
	sleep 0.1
done
sleep 0.5

insmod $KO pid=$helper >$tmp.insmod 2>&1
result insmod_probe_pid "$?" $tmp.insmod
if record_start; then
	echo 0 >$C
	echo go >$fifo
	wait $helper
	hst=$?
	record_stop
	[ $hst = 0 ] || echo "the bench requests failed ($hst)" >>$tmp.record
	probe_counts >$tmp.probe
	rmmod kmemtrace_probe
	record_complete record_pid_complete
	kmemtrace_counts $helper "" >$tmp.kmt
	compare pid_kmalloc kmalloc 2 4
	compare pid_cache cache 2
	# kmemtrace types the kfree() of a kmem_cache object as the cache's
	# free, the probe (which cannot see the cache) as a kfree.
	for f in $tmp.kmt $tmp.probe; do
		awk '{ print } $1 == "kmalloc" || $1 == "cache" { f += $3 }
		     END { print "slab", 0, f, 0 }' "$f" >$tmp.sum && mv $tmp.sum "$f"
	done
	compare pid_slab_frees slab 3
	compare pid_pages pages 2 3
	compare pid_percpu percpu 2 3
	compare pid_vmalloc vmalloc 2 3 4
else
	not_ok record_pid_complete $tmp.record
	rmmod kmemtrace_probe
	exit 1
fi

# --- module=: the call sites in kmemtrace_pattern while it loads -----------
# Compared where the tracepoint and kmemtrace both name the API's caller:
# allocs and frees of the cache, allocs and frees of vmalloc, percpu
# allocs (kmemtrace_probe.c says why the others differ); and with the
# module's table: 7 and 4, 10 and 6, 12.
insmod $KO module=kmemtrace_pattern >$tmp.insmod 2>&1
result insmod_probe_module "$?" $tmp.insmod
if record_start; then
	insmod $PATTERN >$tmp.pattern 2>&1
	pst=$?
	record_stop
	[ $pst = 0 ] || { echo "insmod $PATTERN failed:"; cat $tmp.pattern; } >>$tmp.record
	probe_counts >$tmp.probe
	rmmod kmemtrace_probe
	rmmod kmemtrace_pattern
	record_complete record_module_complete
	kmemtrace_counts "" kmemtrace_pattern >$tmp.kmt
	awk '$1 == "cache" || $1 == "vmalloc" { print $1, $2, $3 }
	     $1 == "percpu" { print $1, $2 }' $tmp.kmt >$tmp.k
	awk '$1 == "cache" || $1 == "vmalloc" { print $1, $2, $3 }
	     $1 == "percpu" { print $1, $2 }' $tmp.probe >$tmp.p
	printf 'cache 7 4\npercpu 12\nvmalloc 10 6\n' >$tmp.want
	{ diff $tmp.k $tmp.p | sed 's/^/kmemtrace (-), kmemtrace_probe (+): /'
	  diff $tmp.want $tmp.p | sed 's/^/table (-), kmemtrace_probe (+): /'
	} >$tmp.diff
	{ cat $tmp.diff; cat $tmp.err 2>/dev/null; } >$tmp.out
	result module_counts "$([ -s $tmp.diff ] && echo 1 || echo 0)" $tmp.out
else
	not_ok record_module_complete $tmp.record
	rmmod kmemtrace_probe
	exit 1
fi

rm -f $tmp.* $fifo
[ $failed = 0 ]
