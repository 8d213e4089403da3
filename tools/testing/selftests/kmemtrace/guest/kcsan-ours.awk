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

function ours(line) {
	return line ~ /kmemtrace|probe_(kmalloc|krealloc|kfree|kmem_cache|mm_page|percpu|vmalloc|vrealloc|vfree)|cpu_file_|ring_consume|relay_/
}

/^(\[ *[0-9.]+\] )?BUG: KCSAN: / && !inrep {
	inrep = 1
	mine = 0
	n = 0
	title = $0
}
inrep {
	buf[n++] = $0
	if (ours($0))
		mine = 1
	if ($0 ~ /^(\[ *[0-9.]+\] )?=+\r?$/ && n > 1) {
		inrep = 0
		if (mine) {
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
