# SPDX-License-Identifier: GPL-2.0
#
# Merge the entries of our MAINTAINERS into the kernel's.
# Usage: awk -f merge-maintainers.awk OURS KERNEL KERNEL
#
# Entries are blocks separated by blank lines, titled by their first line;
# the kernel's start after the line "Maintainers List".  The kernel's list
# is sorted only approximately, so each of our entries goes where it is out
# of order with the fewest kernel entries: before entry k where
# (titles before k sorting after ours) + (titles from k on sorting before
# ours) is smallest.

FNR == 1 { nfile++; started = 0; prev = "" }

nfile == 1 {
	if ($0 == "") { cur = ""; next }
	if (cur == "") { title[++n] = toupper($0); cur = $0 }
	body[n] = body[n] $0 "\n"
	next
}

!started {
	if (nfile == 3)
		print
	if ($0 ~ /^Maintainers List/)
		started = 1
	next
}

# A kernel entry title: a line after a blank line, in the entry list.
{ isentry = (prev == "" && $0 ~ /^[A-Z0-9]/ && $0 != "THE REST") }

nfile == 2 {
	if (isentry)
		ktitle[++m] = toupper($0)
	prev = $0
	next
}

nfile == 3 && !placed {
	placed = 1
	for (j = 1; j <= n; j++)
		where[j] = best_slot(title[j])
}

nfile == 3 {
	if (isentry) {
		k++
		for (j = 1; j <= n; j++)
			if (where[j] == k)
				printf "%s\n", body[j]
	}
	if ($0 == "THE REST")
		for (j = 1; j <= n; j++)
			if (where[j] > m)
				printf "%s\n", body[j]
	print
	prev = $0
}

function best_slot(t,    cost, best, bestk, kk) {
	cost = 0
	for (kk = 1; kk <= m; kk++)
		if (ktitle[kk] < t)
			cost++
	best = cost
	bestk = 1
	for (kk = 1; kk <= m; kk++) {
		cost += (ktitle[kk] > t) - (ktitle[kk] < t)
		if (cost < best) {
			best = cost
			bestk = kk + 1
		}
	}
	return bestk
}
