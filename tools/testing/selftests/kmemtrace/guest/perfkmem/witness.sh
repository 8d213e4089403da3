#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# witness.sh - perf kmem, the tool users already run, as the witness of
# the series' slab and page tracepoint fixes (the patches "mm/slab: trace
# each object of bulk allocations and frees", "mm/slab: trace a large
# kmalloc() of a run-time size once" and "mm/page_alloc: trace the pages
# alloc_pages_bulk() takes from the per-CPU lists").  Needs Debian's perf:
# the boot appends make bench's tools initramfs.
#
# One window of a known load, kmemtrace_bench on CPU 0: $N kmalloc() and
# kfree() pairs of 64 bytes and of 16 KiB (a size not known at compile
# time: pair_kmalloc), $N kmem_cache_alloc()/kmem_cache_free() pairs
# (pair_cache) and $N bulk pairs of 16 objects (pair_bulk), recorded by
# "perf kmem record" and, on a kernel with kmemtrace, by "kmemtrace
# record" at the same time.
#
# With kmemtrace (the series applied), per call site of the load:
#  - perf kmem stat --caller (Hit, Total_alloc, Total_req) and kmemtrace
#    report -v sites (allocs, bytes_alloc, bytes_req) agree, and both are
#    the load's: 2N at pair_kmalloc (N x 64 + N x 16384 bytes), N at
#    pair_cache, 16N at pair_bulk;
#  - the frees: perf kmem stat has no frees per call site, so perf's are
#    its kfree and kmem_cache_free events at the load's functions (perf
#    script); kmemtrace's, the frees it pairs with each site's
#    allocations.  Both are the load's.  kmemtrace records a kfree() of a
#    cache's object as a free of that cache's allocation: the same event.
# Without kmemtrace (kernel (a), upstream 6.12), the same load as perf
# kmem sees it, which the fixes change:
#  - no bulk allocation or free at all (0 of 16N);
#  - each 16 KiB kmalloc() seen twice, once more naming __kmalloc_noprof,
#    the helper, as its caller: 3N allocations for 2N frees.
# Both print perf's table, for the changelog's claim to be a measured one.
#
# A second window, perf kmem --page record alone (it records callchains),
# witnesses the page tracepoint fixes: $N vmalloc() and vfree() pairs of
# 16 KiB (pair_vmalloc: four order-0 pages each, which vmalloc takes
# with alloc_pages_bulk()) and $N alloc_pages()/__free_pages() pairs of
# order 0 (pair_pages).  Per load function, from perf script's
# callchains: the page frees under it, and how many of them free a page
# (pfn) that an mm_page_alloc under the same function allocated in the
# window.  Page tables vmalloc allocates for its mappings are never
# freed, so they do not count.  With the fixes (any kernel with the
# series): 4N of 4N pair_vmalloc pages, N of N pair_pages pages.  Kernel
# (u): N of N pair_pages pages, but vmalloc's 4N pages freed and not
# one allocated.  (perf kmem --page stat itself fails on 6.12's page
# events with Debian's perf 6.1: its libtraceevent rejects their print
# format, "bad op token {"; its output is kept for the host, and the
# counts come from perf script, which decodes the fields.)

D=/sys/kernel/debug/kmemtrace
B=/sys/kernel/debug/kmemtrace_bench/run
out=/tmp/perfkmem-record
tmp=/tmp/perfkmem
N=1000
. /kmt/modules-lib.sh

command -v perf >/dev/null || { echo "no perf: the tools initramfs is missing"; exit 1; }
# Kernel (u) has the load as a module (bin/upstream.sh).
[ -e $B ] || [ ! -f /kmt/perfkmem/kmemtrace_bench_mod.ko ] ||
	insmod /kmt/perfkmem/kmemtrace_bench_mod.ko
[ -w $B ] || { echo "no $B (CONFIG_KMEMTRACE_BENCH)"; exit 1; }
echo 0 >/proc/sys/kernel/kptr_restrict
echo -1 >/proc/sys/kernel/perf_event_paranoid
kmt=
[ -d $D ] && kmt=1
# The series' slab tracepoint fixes add kmem:krealloc: without it, this is
# the unpatched tree (kernel (u)); with it and without kmemtrace, the
# CONFIG_KMEMTRACE=n kernel, where the fixes stand alone.
fixed=
[ -d /sys/kernel/tracing/events/kmem/krealloc ] ||
	[ -d /sys/kernel/debug/tracing/events/kmem/krealloc ] && fixed=1

# The load's functions, by name in both tools' call sites.
awk '$3 ~ /^pair_(kmalloc|cache|bulk)$/' /proc/kallsyms >$tmp.funcs
if [ "$(wc -l <$tmp.funcs)" != 3 ]; then
	echo "kallsyms lacks the load's functions:"
	cat $tmp.funcs
	exit 1
fi

[ -z "$kmt" ] || record_start || { echo "kmemtrace record did not start"; cat $tmp.record; exit 1; }
# What perf kmem record runs: perf record -a -R -c 1 -e kmem:kmalloc ...
# (slab events); its reader on CPU 1, the load on CPU 0.  It starts with
# its events disabled (-D -1) and says when it has enabled them (ack on
# its control fifos), so that the load is in its window whole.
rm -f $tmp.data $tmp.ctl $tmp.ack
mkfifo $tmp.ctl $tmp.ack
taskset -c 1 perf kmem record -N -B -m 4096 -D -1 \
	--control fifo:$tmp.ctl,$tmp.ack -o $tmp.data >$tmp.perf 2>&1 &
perf=$!
# Opened read-write, a fifo does not wait for its other end.
exec 3<>$tmp.ctl 4<>$tmp.ack
echo enable >&3
ack=
read -r -t 120 ack <&4
[ "$ack" = ack ] || { echo "perf did not enable its events"; cat $tmp.perf; exit 1; }
for op in kmalloc-64 kmalloc-large cache bulk; do
	taskset -c 0 sh -c "echo $op $N >$B" || { echo "kmemtrace_bench $op failed"; exit 1; }
done
kill -INT $perf
wait $perf
[ -z "$kmt" ] || record_stop

# perf's allocations per call site, its lost events, and its frees by
# the function of their call site.
perf kmem -i $tmp.data --caller stat -l 100000 >$tmp.named 2>&1
# For the host (the boot's guest/ directory): perf's whole table.
mkdir -p /tmp/out/perfkmem
cp $tmp.named /tmp/out/perfkmem/perf-kmem-stat-caller.txt
perf report -i $tmp.data --stats 2>/dev/null | awk '
	/^Aggregated stats:/ { on = 1; next }
	/ stats:$/ { on = 0 }
	on && $1 ~ /^LOST/ && $2 == "events:" { lost += $3 }
	END { print lost + 0 }' >$tmp.lost
perf script -i $tmp.data -F event,trace 2>/dev/null |
	awk '/kmem:(kfree|kmem_cache_free):/ {
		for (i = 1; i <= NF; i++)
			if ($i ~ /^call_site=/) { f = substr($i, 11); sub(/\+.*/, "", f) }
		if (f ~ /^pair_(kmalloc|cache|bulk)$/) n[f]++ }
	     END { for (f in n) print f, n[f] }' >$tmp.pfrees

# perf's call sites in the load's functions and __kmalloc_noprof:
# "FUNC FUNC+OFF HITS BYTES_ALLOC BYTES_REQ".  perf 6.1 leaves some call
# sites in a module as addresses: those are named here from kallsyms,
# the symbol at or below (addresses compared as 16-digit strings).
awk 'function hex(s,  i, n) { n = 0
		for (i = 1; i <= length(s); i++)
			n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return n }
	FNR == NR { if ($2 ~ /^[tT]$/) { a[n] = $1; name[n++] = $3 } next }
	/^ *[A-Za-z_.0-9]+\+[0-9a-f]+ *\|/ || /^ *0x[0-9a-f]+ *\|/ {
	gsub(/\|/, " "); split($2, al, "/"); split($3, rq, "/")
	site = $1
	if (site ~ /^0x/) {
		x = substr(site, 3); b = -1
		for (i = 0; i < n; i++)
			if (a[i] <= x && (b < 0 || a[i] > a[b]))
				b = i
		if (b >= 0)
			site = sprintf("%s+%x", name[b],
				hex(substr(x, 9)) - hex(substr(a[b], 9)))
	}
	f = site; sub(/\+.*/, "", f)
	if (f ~ /^(pair_(kmalloc|cache|bulk)|__kmalloc_noprof)$/)
		print f, site, $4, al[1], rq[1] }' /proc/kallsyms $tmp.named |
	sort >$tmp.psites

echo "perf kmem stat --caller, the load's call sites (perf lost $(cat $tmp.lost) events):"
echo "  call_site hits bytes_alloc bytes_req"
awk '{ print "  " $2, $3, $4, $5 }' $tmp.psites
echo "perf's frees at the load's functions (kfree, kmem_cache_free events):"
sed 's/^/  /' $tmp.pfrees
echo "perf kmem stat's summary (the whole window, the load and the rest):"
sed -n '/^Total bytes/p' $tmp.named | sed 's/^/  /'

result perf_lost_nothing "$(cat $tmp.lost)"
# perf's sums per load function, and its frees.
psum() { awk -v f=$1 -v c=$2 '$1 == f { s += $c } END { print s + 0 }' $tmp.psites; }
pfrees() { awk -v f=$1 '$1 == f { print $2 }' $tmp.pfrees | grep . || echo 0; }

# The page window.  "FUNC FREES PAIRED" per load function, from perf
# script: an event's callchain is under FUNC if one of its addresses is
# in FUNC (kallsyms: FUNC's address up to the next symbol's).
awk '$2 ~ /^[tT]$/ { print $1, $3 }' /proc/kallsyms | sort >$tmp.syms
awk '$2 ~ /^pair_(vmalloc|pages)$/ { f[$2] = $1; next }
	{ for (g in f) if (f[g] != "" && $1 > f[g] && (e[g] == "" || $1 < e[g])) e[g] = $1 }
	END { for (g in f) print g, f[g], e[g] }' $tmp.syms >$tmp.prange
rm -f $tmp.pdata
taskset -c 1 perf kmem --page record -N -B -m 4096 -D -1 \
	--control fifo:$tmp.ctl,$tmp.ack -o $tmp.pdata >$tmp.perf 2>&1 &
perf=$!
echo enable >&3
ack=
read -r -t 120 ack <&4
[ "$ack" = ack ] || { echo "perf --page did not enable its events"; cat $tmp.perf; exit 1; }
for op in vmalloc pages-0; do
	taskset -c 0 sh -c "echo $op $N >$B" || { echo "kmemtrace_bench $op failed"; exit 1; }
done
kill -INT $perf
wait $perf
perf report -i $tmp.pdata --stats 2>/dev/null | awk '
	/^Aggregated stats:/ { on = 1; next }
	/ stats:$/ { on = 0 }
	on && $1 ~ /^LOST/ && $2 == "events:" { lost += $3 }
	END { print lost + 0 }' >$tmp.plost
perf kmem -i $tmp.pdata --page stat >$tmp.pstat 2>&1
cp $tmp.pstat /tmp/out/perfkmem/perf-kmem-page-stat.txt
# Each event as "alloc|free PFN ADDR..." (kernel addresses: 16 hex
# digits, compared as strings), then per function the frees under it and
# those whose pfn an alloc under it allocated before.
perf script -i $tmp.pdata -F event,trace,ip,sym 2>/dev/null |
	awk 'function flush() { if (ev != "") print ev, pfn, chain; ev = "" }
	/kmem:mm_page_(alloc|free):/ {
		flush()
		ev = $0 ~ /mm_page_alloc:/ ? "alloc" : "free"
		pfn = ""; chain = ""
		for (i = 1; i <= NF; i++)
			if ($i ~ /^pfn=/) pfn = substr($i, 5)
		next }
	ev != "" && $1 ~ /^[0-9a-f]+$/ { chain = chain " " $1 "/" $2 }
	END { flush() }' >$tmp.pevents
# Only the load's own events: one of an interrupt (a softirq's RCU
# callback freeing a slab's page, say) that came while the load ran has
# the load's frames further up its callchain, past the interrupt entry.
entry='^(asm_|sysvec_|common_interrupt|irq_exit|__irq_exit_rcu'
entry="$entry|handle_softirqs|__do_softirq|do_softirq)"
awk -v entry="$entry" 'FNR == NR { lo[$1] = $2; hi[$1] = $3; next }
	{ under = ""; irq = 0
	  for (i = 3; i <= NF && under == ""; i++) {
		split($i, fr, "/")
		if (fr[2] ~ entry)
			irq = 1
		for (g in lo)
			if (fr[1] >= lo[g] && fr[1] < hi[g]) under = g
	  }
	  if (under == "") next
	  if (irq) { inirq[under]++; next }
	  if ($1 == "alloc") live[under, $2] = 1
	  else { frees[under]++; if (live[under, $2]) { paired[under]++; live[under, $2] = 0 } } }
	END { for (g in lo) print g, frees[g] + 0, paired[g] + 0, inirq[g] + 0 }' \
	$tmp.prange $tmp.pevents | sort >$tmp.ppairs
echo "perf kmem --page record (perf lost $(cat $tmp.plost) events): page frees" \
	"under each load function, how many free a page mm_page_alloc showed" \
	"allocated there, and the events of interrupts that came meanwhile (not counted):"
echo "  function frees paired interrupts"
sed 's/^/  /' $tmp.ppairs
result perf_page_lost_nothing "$(cat $tmp.plost)"
ppair() { awk -v f=$1 -v c=$2 '$1 == f { print $c }' $tmp.ppairs | grep . || echo 0; }

# pages_want FUNC FREES PAIRED: FUNC's page frees and paired frees, or
# what they are instead.
pages_want() {
	pw_frees=$(ppair $1 2)
	pw_paired=$(ppair $1 3)
	[ "$pw_frees" = $2 ] && [ "$pw_paired" = $3 ] ||
		echo "$1: $pw_frees page frees, $pw_paired paired; want $2 and $3"
}

# The page fixes: every page the load frees was traced allocated.
pages_exact() {
	pages_want pair_vmalloc $((4 * N)) $((4 * N))
	pages_want pair_pages $N $N
}

# The load as perf kmem sees it with the fixes: exactly.
load_exact() {
	for f in "pair_kmalloc $((2 * N)) $((N * (64 + 16384)))" "pair_cache $N $((N * 64))" \
		 "pair_bulk $((16 * N)) $((16 * N * 64))"; do
		set -- $f
		[ "$(psum $1 3)" = $2 ] || echo "perf: $1 $(psum $1 3) allocations, want $2"
		[ "$(psum $1 4)" = $3 ] || echo "perf: $1 $(psum $1 4) bytes, want $3"
		[ "$(pfrees $1)" = $2 ] || echo "perf: $1 $(pfrees $1) frees, want $2"
	done
	[ "$(psum __kmalloc_noprof 3)" = 0 ] || echo "perf still names __kmalloc_noprof"
}

if [ -z "$kmt" ] && [ -n "$fixed" ]; then
	# The CONFIG_KMEMTRACE=n kernel: the fixes need no kmemtrace.
	load_exact >$tmp.f0
	result fixes_without_kmemtrace "$([ -s $tmp.f0 ] && echo 1 || echo 0)" $tmp.f0
	pages_exact >$tmp.f0
	result page_fixes_without_kmemtrace "$([ -s $tmp.f0 ] && echo 1 || echo 0)" $tmp.f0
	exit $failed
fi

if [ -z "$kmt" ]; then
	# Kernel (u): what perf misses.
	h=$(psum pair_bulk 3)
	f=$(pfrees pair_bulk)
	{ [ "$h" = 0 ] && [ "$f" = 0 ] ||
		echo "perf saw bulk allocations: $h, frees $f"; } >$tmp.f1
	result unpatched_bulk_untraced "$([ -s $tmp.f1 ] && echo 1 || echo 0)" $tmp.f1
	want=$((N * 16384))
	h=$(psum __kmalloc_noprof 3)
	b=$(psum __kmalloc_noprof 4)
	{ [ "$h" = $N ] && [ "$b" = $want ] ||
		echo "__kmalloc_noprof: $h hits $b bytes, want $N $want"
	  h=$(psum pair_kmalloc 3)
	  f=$(pfrees pair_kmalloc)
	  [ "$h" = $((2 * N)) ] && [ "$f" = $((2 * N)) ] ||
		echo "pair_kmalloc: $h hits $f frees, want $((2 * N)) each"
	} >$tmp.f2
	result unpatched_large_kmalloc_twice "$([ -s $tmp.f2 ] && echo 1 || echo 0)" $tmp.f2
	# vmalloc()'s pages: freed, and none seen allocated; alloc_pages()'s
	# are whole.
	{ pages_want pair_vmalloc $((4 * N)) 0
	  pages_want pair_pages $N $N
	} >$tmp.f3
	result unpatched_bulk_pages_untraced "$([ -s $tmp.f3 ] && echo 1 || echo 0)" $tmp.f3
	echo "perf kmem on this kernel: pair_bulk 0 of $((16 * N)) allocations and frees;" \
		"$N 16 KiB allocations more, named __kmalloc_noprof;" \
		"vmalloc()'s pages $((4 * N)) freed, 0 allocated"
	exit $failed
fi

record_complete kmemtrace_record_whole
pages_exact >$tmp.f3
result page_allocations_pair "$([ -s $tmp.f3 ] && echo 1 || echo 0)" $tmp.f3
# kmemtrace's sites of the slab types, as perf names them (no "0x"):
# "FUNC FUNC+OFF ALLOCS BYTES_ALLOC BYTES_REQ FREES".
kmemtrace report -v sites --csv -n 100000 --type kmalloc,cache $out 2>/dev/null |
	awk -F, '$11 ~ /^0x/ { s = $12; sub(/\+0x/, "+", s); f = s; sub(/\+.*/, "", f)
		if (f ~ /^(pair_(kmalloc|cache|bulk)|__kmalloc_noprof)$/)
			print f, s, $1, $3, $2, $5 }' | sort >$tmp.ksites
echo "kmemtrace report -v sites, the same call sites:"
echo "  call_site allocs bytes_alloc bytes_req frees"
awk '{ print "  " $2, $3, $4, $5, $6 }' $tmp.ksites

# The same allocations and bytes at the same call sites.
awk '{ print $2, $3, $4, $5 }' $tmp.psites >$tmp.pcmp
awk '{ print $2, $3, $4, $5 }' $tmp.ksites >$tmp.kcmp
diff $tmp.pcmp $tmp.kcmp >$tmp.d1
result same_allocations_and_bytes_per_site $? $tmp.d1

# The load's, in both; the frees per function.
ksum() { awk -v f=$1 -v c=$2 '$1 == f { s += $c } END { print s + 0 }' $tmp.ksites; }
for f in "pair_kmalloc $((2 * N)) $((N * (64 + 16384)))" "pair_cache $N 0" \
	 "pair_bulk $((16 * N)) 0"; do
	set -- $f
	[ "$(psum $1 3)" = $2 ] || echo "perf: $1 $(psum $1 3) allocations, want $2"
	[ "$(ksum $1 3)" = $2 ] || echo "kmemtrace: $1 $(ksum $1 3) allocations, want $2"
	[ "$3" = 0 ] || [ "$(ksum $1 4)" = $3 ] || echo "kmemtrace: $1 $(ksum $1 4) bytes, want $3"
	[ "$(pfrees $1)" = $2 ] || echo "perf: $1 $(pfrees $1) frees, want $2"
	[ "$(ksum $1 6)" = $2 ] || echo "kmemtrace: $1 $(ksum $1 6) frees, want $2"
done >$tmp.d2
[ "$(psum __kmalloc_noprof 3)" = 0 ] || echo "perf still names __kmalloc_noprof" >>$tmp.d2
result the_load_exactly_in_both "$([ -s $tmp.d2 ] && echo 1 || echo 0)" $tmp.d2
exit $failed
