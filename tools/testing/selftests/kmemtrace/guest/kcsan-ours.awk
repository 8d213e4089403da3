# SPDX-License-Identifier: GPL-2.0
#
# kcsan-ours.awk - pass a kernel log through, but for the KCSAN reports
# that do not involve kmemtrace: a report ("BUG: KCSAN: ..." up to its
# "=====" line) is kept only if one of its stack frames is kmemtrace's
# (its probes, core and relay files).  The others are data races between
# upstream functions (workqueue, GUP against the LRU, ...), which the
# stress workload happens to run into; each is named on stderr, and the
# log keeps its first line with "(upstream)" appended, so no report goes
# unseen.  Used on the guest's dmesg (stress-lib.sh) and on the console
# (bin/boot-lib.sh).

# The readers of the timekeeper's NMI-safe seqcount latch read it racily
# by design and retry (kernel/time/timekeeping.c: "the latch ... allows
# NMI-safe readers"); KCSAN reports them as races "at unknown origin".
# A report whose every access is in one of them is upstream's, whoever
# called them (kmemtrace_stop()'s synchronize_srcu() reads the clock).
function latch_reader(line) {
	sub(/^(\[ *[0-9.]+\] )? */, "", line)
	return line ~ /^(timekeeping_cycles_to_ns|timekeeping_get_ns|fast_tk_get_delta_ns|ktime_get_[a-z_]*fast_ns|ktime_get_fast_timestamps)\+/
}

function ours(line) {
	return line ~ /kmemtrace|probe_(kmalloc|krealloc|kfree|kmem_cache|mm_page|percpu|vmalloc|vrealloc|vfree)|cpu_file_|ring_consume|relay_/
}

/^(\[ *[0-9.]+\] )?BUG: KCSAN: / && !inrep {
	inrep = 1
	mine = 0
	n = 0
	accesses = 0
	latched = 0
	title = $0
}
inrep {
	buf[n++] = $0
	if (top) {
		# The first frame of an access: the code that made it.
		accesses++
		latched += latch_reader($0)
		top = 0
	}
	if ($0 ~ / to 0x[0-9a-f]+ of [0-9]+ bytes by /)
		top = 1
	if (ours($0))
		mine = 1
	if ($0 ~ /^(\[ *[0-9.]+\] )?=+\r?$/ && n > 1) {
		inrep = 0
		if (accesses && latched == accesses) {
			sub(/BUG: KCSAN: /, "KCSAN (upstream): ", title)
			print title
			print "kcsan-ours: upstream report, a timekeeper latch reader: " title > "/dev/stderr"
		} else if (mine) {
			for (i = 0; i < n; i++)
				print buf[i]
		} else {
			sub(/BUG: KCSAN: /, "KCSAN (upstream): ", title)
			print title
			print "kcsan-ours: upstream report, no kmemtrace frame: " title > "/dev/stderr"
		}
	}
	next
}
{ print }
END {
	for (i = 0; inrep && i < n; i++)
		print buf[i]
}
