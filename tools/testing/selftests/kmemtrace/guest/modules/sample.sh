#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: sampled recording (kmemtrace record -s) against
#              /proc/allocinfo: kmemtrace_pattern bulk=16384 holds 16384
#              kmalloc(512)s, 4096 pages and 256 vmalloc(16K)s, loaded
#              while kmemtrace samples one allocation per 16 KiB on
#              average; per site, the scaled estimate of the objects and
#              bytes still allocated, computed here from the events and
#              by kmemtrace report, is within 4 standard deviations of
#              what /proc/allocinfo counts exactly; every sampled alloc
#              has a stack, the period is busy while recording,
#              record --pprof-every writes a profile per second, and
#              with --pprof-only keeps those and not the streams
# requires: CONFIG_SAMPLE_KMEMTRACE=m, CONFIG_MEM_ALLOC_PROFILING,
#           CONFIG_KMEMTRACE_STACKS, the kmemtrace tool in PATH,
#           /kmt/modules/kmemtrace_pattern.ko
#
# The estimator is Go's heap profiler's: a sampled allocation of S bytes
# stands for w = 1 / (1 - exp(-S / N)) allocations (N: the mean,
# sample_period), sampled with probability p = 1 - exp(-S / N).  For n
# allocations of S bytes the estimate of the count, the sum of w over the
# samples, has the standard deviation sqrt(n (1 - p) / p); of the bytes,
# S times that.  The draws are seeded (sample_seed=1), but the count
# down is shared with whatever else allocates on the CPU meanwhile, so
# the test is statistical: a 4-deviation bound fails about once in 16000
# checks.
#
# Prints KTAP, one line per check, with what differed as diagnostics.

D=/sys/kernel/debug/kmemtrace
KO=/kmt/modules/kmemtrace_pattern.ko
MOD=kmemtrace_pattern
out=/tmp/modules_sample
tmp=/tmp/modules_sample.tmp
PERIOD=16384
BULK=16384
SEED=1
# The bulk sites checked, and the bytes of each of their objects.
SITES="pattern_bulk_kmalloc pattern_bulk_pages pattern_bulk_vmalloc pattern_bulk_kmalloc_large"
SIZES="512 4096 16384 16384"
NCHECKS=$(($(echo $SITES | wc -w) * 2))	# objects and bytes
for arg in $(cat /proc/cmdline); do
	case $arg in
	kmt.sample_seed=*) SEED=${arg#kmt.sample_seed=} ;;
	esac
done

[ -f $KO ] || { echo "# SKIP: no $KO"; exit 4; }
[ -f /proc/allocinfo ] || { echo "# SKIP: no /proc/allocinfo"; exit 4; }
[ -f $D/sample_period ] || { echo "# SKIP: no $D/sample_period"; exit 4; }
command -v kmemtrace >/dev/null || { echo "# SKIP: no kmemtrace tool"; exit 4; }
! grep -q "^$MOD " /proc/modules || { echo "# SKIP: $MOD is loaded"; exit 4; }

. /kmt/modules-lib.sh

# Busybox awk has no exp() and sqrt(): a series and Newton's method, for
# both estimates below.
MATH='
	function expneg(x,	k, s, t, i) {	# exp(-x), x >= 0
		for (k = 0; x > 0.5; k++)
			x /= 2
		s = 1; t = 1
		for (i = 1; i < 20; i++) { t *= -x / i; s += t }
		for (; k > 0; k--)
			s *= s
		return s
	}
	function root(x,	r, i) {
		if (x <= 0)
			return 0
		r = x > 1 ? x : 1
		for (i = 0; i < 100; i++)
			r = (r + x / r) / 2
		return r
	}
'

echo "KTAP version 1"
echo "1..9"

# record -s sets the period for the recording, and 0 after it.
echo $SEED >$D/sample_seed
rm -rf $out
kmemtrace record -q -e -s $PERIOD --pprof-every 1 -o $out >$tmp.record 2>&1 &
rec=$!
i=0
while [ "$(cat $D/enabled)" != 1 ]; do
	kill -0 $rec 2>/dev/null && [ $i -lt 100 ] || break
	i=$((i + 1))
	sleep 0.1
done
if [ "$(cat $D/enabled)" != 1 ]; then
	not_ok sample_period_set_by_record $tmp.record
	exit 1
fi
{ [ "$(cat $D/sample_period)" = $PERIOD ] ||
	echo "sample_period is $(cat $D/sample_period) while recording"; } >$tmp.set
# Recording: the period cannot change under it.
if echo 4096 >$D/sample_period 2>$tmp.busy; then
	echo "sample_period took a new value while recording" >>$tmp.busy
	busy=1
else
	grep -q "busy" $tmp.busy; busy=$?
fi
insmod $KO bulk=$BULK >$tmp.insmod 2>&1
st=$?
grep "\[$MOD\]" /proc/allocinfo >$tmp.allocinfo
cat $D/sample_stats >$tmp.stats
# At least one interval's profile while recording.
sleep 1.5
record_stop
[ "$(cat $D/sample_period)" = 0 ] ||
	echo "sample_period is $(cat $D/sample_period) after recording" >>$tmp.set
result sample_period_set_by_record "$([ -s $tmp.set ] && echo 1 || echo 0)" $tmp.set
result insmod_in_sampled_record "$st" $tmp.insmod
result sample_period_busy_while_recording "$busy" $tmp.busy

record_complete record_complete tags stacks sample_stats

# Every event is sampled; every alloc has a stack (or says it lost it).
kmemtrace dump $out >$tmp.dump 2>$tmp.err
awk -v period=$PERIOD '
	/ sample_period=/ { split($0, f, " sample_period="); split(f[2], g, " ")
			    if (g[1] != period) bad++ }
	!/ sample_period=/ { unsampled++ }
	$4 == "alloc" && / stack_id=0x0 / && !/stack_lost/ { nostack++ }
	$4 == "alloc" { allocs++ }
	END { if (!allocs) print "no alloc event"
	      if (bad) print bad " events of another sample_period"
	      if (unsampled) print unsampled " events without sample_period"
	      if (nostack) print nostack " allocs without a stack" }' \
	$tmp.dump >$tmp.events
cat $tmp.err >>$tmp.events
result events_sampled_with_stacks "$([ -s $tmp.events ] && echo 1 || echo 0)" \
	$tmp.events

# Per function of the module: estimate and exact count and bytes.
awk -v mod=$MOD '!/^#/ && $4 == mod { print "tag", "0x" $1, $3 }' $out/tags \
	>$tmp.tags
sed -n 's/^ *\([0-9]*\) *\([0-9]*\) [^ ]* \['"$MOD"'\] func:\([^ ]*\).*/exact \3 \1 \2/p' \
	$tmp.allocinfo >$tmp.exact
cat $tmp.tags $tmp.exact $tmp.dump |
awk -v period=$PERIOD -v sites="$SITES" -v sizes="$SIZES" "$MATH"'
	$1 == "tag" { fn[$2] = $3; next }
	$1 == "exact" { bytes[$2] = $3; calls[$2] = $4; next }
	{	delete kv
		for (i = 6; i <= NF; i++)
			if (split($i, a, "=") == 2)
				kv[a[1]] = a[2]
	}
	$4 == "alloc" && (kv["tag"] in fn) && $0 !~ /untracked/ {
		w = 1 / (1 - expneg(kv["alloc"] / period))
		live[kv["ptr"]] = fn[kv["tag"]]
		lw[kv["ptr"]] = w
		lb[kv["ptr"]] = w * kv["alloc"]
		next
	}
	$4 == "free" && (kv["ptr"] in live) { delete live[kv["ptr"]] }
	END {
		for (p in live) { ec[live[p]] += lw[p]; eb[live[p]] += lb[p] }
		# /proc/allocinfo charges a vmalloc() per page, and its page
		# array (a pointer per page) to the caller too: objects are
		# calls / (pages + 1), and the array is no object of the caller (it is
		# a backing event, which sampling skips).
		nsites = split(sites, want)
		split(sizes, size)
		for (i = 1; i <= nsites; i++) {
			f = want[i]; s = size[i]
			pg = f == "pattern_bulk_vmalloc" ? s / 4096 : 0
			n = calls[f] / (pg + 1)
			bytes[f] -= n * pg * 8
			if (!n || bytes[f] != n * s) {
				printf "FAIL %s: /proc/allocinfo has %d bytes in %d calls,",
				       f, bytes[f], calls[f]
				printf " not %d-byte objects\n", s
				continue
			}
			p = 1 - expneg(s / period)
			sdc = root(n * (1 - p) / p)
			z = (ec[f] - n) / sdc
			printf "%s %s: objects %d, estimate %.1f, sd %.1f (%+.2f sd)\n",
			       z * z <= 16 ? "ok" : "FAIL", f, n, ec[f], sdc, z
			z = (eb[f] - bytes[f]) / (s * sdc)
			printf "%s %s: bytes %d, estimate %.0f, sd %.0f (%+.2f sd)\n",
			       z * z <= 16 ? "ok" : "FAIL", f, bytes[f], eb[f],
			       s * sdc, z
		}
	}' >$tmp.estimate 2>&1
cat $tmp.estimate $tmp.stats | sed 's/^/# /'
# Two figures a site, each within its bound (awk failing prints fewer).
result estimate_within_4_sd "$([ "$(grep -c '^ok ' $tmp.estimate)" = $NCHECKS ] &&
	echo 0 || echo 1)" $tmp.estimate

# The tool's own estimates (report scales by the events' weights): the
# live objects and bytes of each site, of the site's own type (before
# vmap_area was flagged backing, its 64-byte cache alloc named after the
# vmalloc() caller added a sample that stood for 256 objects), within
# the same bounds.
for type in kmalloc pages vmalloc; do
	kmemtrace report -v sites --csv -n 1000000 --type $type $out 2>>$tmp.err
done |
awk -F, -v mod="[$MOD]" '
	/^# sampled, mean / { sampled = 1 }
	/^# / { table = $0 == "# sites"; hdr = 1; next }
	!table || /^$/ { next }
	hdr { for (i = 1; i <= NF; i++) col[$i] = i; hdr = 0; next }
	{	site = $col["call_site"]
		if (index(site, mod) == 0) next
		sub(/\+0x[0-9a-f]+.*/, "", site)
		print "report", site, $col["live"], $col["live_bytes"] }
	END { if (sampled != 1) print "report says nothing of sampling" }' >$tmp.report
grep -q "^report pattern_bulk_kmalloc " $tmp.report ||
	cat $tmp.err >>$tmp.report
cat $tmp.exact $tmp.report |
awk -v period=$PERIOD -v sites="$SITES" -v sizes="$SIZES" "$MATH"'
	$1 == "exact" { bytes[$2] = $3; calls[$2] = $4; next }
	$1 == "report" { ec[$2] += $3; eb[$2] += $4; next }
	{ print "FAIL " $0 }
	END {
		nsites = split(sites, want)
		split(sizes, size)
		for (i = 1; i <= nsites; i++) {
			f = want[i]; s = size[i]
			pg = f == "pattern_bulk_vmalloc" ? s / 4096 : 0
			n = calls[f] / (pg + 1)
			if (!n) { print "FAIL " f ": not in /proc/allocinfo"; continue }
			p = 1 - expneg(s / period)
			sdc = root(n * (1 - p) / p)
			z = (ec[f] - n) / sdc
			printf "%s %s: objects %d, report %d, sd %.1f (%+.2f sd)\n",
			       z * z <= 16 ? "ok" : "FAIL", f, n, ec[f], sdc, z
			z = (eb[f] - n * s) / (s * sdc)
			printf "%s %s: bytes %d, report %d, sd %.0f (%+.2f sd)\n",
			       z * z <= 16 ? "ok" : "FAIL", f, n * s, eb[f], s * sdc, z
		}
	}' >$tmp.estimate2 2>&1
sed 's/^/# /' $tmp.estimate2
result report_estimate_within_4_sd "$([ "$(grep -c '^ok ' $tmp.estimate2)" = $NCHECKS ] &&
	echo 0 || echo 1)" $tmp.estimate2

# Heap profiles written while recording: one per second, gzipped.
ls $out/pprof 2>&1 | grep -c '^heap-.*\.pb\.gz$' >$tmp.n
{ [ "$(cat $tmp.n)" -ge 2 ] || { echo "profiles:"; ls -l $out/pprof; cat $tmp.record; }
  for f in $out/pprof/heap-*.pb.gz; do
	gzip -dc "$f" >/dev/null 2>&1 || echo "$f is no gzip file"
  done; } >$tmp.pprof 2>&1
result pprof_every_second "$([ -s $tmp.pprof ] && echo 1 || echo 0)" $tmp.pprof
# For go tool pprof on the host (bin/pprof-check.sh).
mkdir -p /tmp/out/sample-pprof && cp $out/pprof/heap-*.pb.gz /tmp/out/sample-pprof/
cp $tmp.allocinfo /tmp/out/sample-pprof/allocinfo

# --pprof-only: the profiles, and no stream left (nor CTF links to one).
rm -rf $out.only
kmemtrace record -q -s $PERIOD --pprof-every 1 --pprof-only -o $out.only -- \
	sh -c 'cat /proc/allocinfo /proc/slabinfo >/dev/null; sleep 2.2' >$tmp.only 2>&1
{ grep -q "streams not kept (--pprof-only)" $tmp.only || cat $tmp.only
  ls $out.only | grep -E '^(cpu[0-9]+|ctf)$'
  [ "$(ls $out.only/pprof | grep -c '^heap-.*\.pb\.gz$')" -ge 2 ] ||
	{ echo "profiles:"; ls -l $out.only/pprof; }
  for f in $out.only/pprof/heap-*.pb.gz; do
	gzip -dc "$f" >/dev/null 2>&1 || echo "$f is no gzip file"
  done; } >$tmp.onlyout 2>&1
result pprof_only_keeps_no_streams "$([ -s $tmp.onlyout ] && echo 1 || echo 0)" $tmp.onlyout
rm -rf $out.only

# Out of the window: the module frees its allocations.
rmmod $MOD >$tmp.rmmod 2>&1 || { cat $tmp.rmmod; failed=1; }

[ $failed = 0 ] || { mkdir -p /tmp/out && cp -r $out /tmp/out/; }
rm -f $tmp.*
[ $failed = 0 ]
