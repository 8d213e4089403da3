# SPDX-License-Identifier: GPL-2.0
#
# Reduce the KTAP in a console log (KUnit's and the guest tests') to one
# line per leaf test: "PASS name", "FAIL name" or "SKIP name", the name
# being the enclosing subtests joined by dots.  A result line is a leaf
# when no deeper result came right before it.  Kernel messages between
# the KTAP lines are ignored; a printk time stamp prefix is dropped.

{
	sub(/\r$/, "")
	sub(/^\[ *[0-9]+\.[0-9]+\] /, "")
	match($0, /^ */)
	depth = int(RLENGTH / 4)
	line = substr($0, RLENGTH + 1)
}

BEGIN { lastdepth = -1 }

depth == 0 && line ~ /^KTAP version / {
	lastdepth = -1
	next
}

line ~ /^# Subtest: / {
	subtest[depth] = substr(line, 12)
	next
}

line ~ /^(not )?ok [0-9]+ / {
	name = line
	sub(/^(not )?ok [0-9]+ /, "", name)
	directive = ""
	if (index(name, " # ")) {
		directive = substr(name, index(name, " # ") + 3)
		name = substr(name, 1, index(name, " # ") - 1)
	}
	if (lastdepth <= depth) {
		full = ""
		for (d = 1; d <= depth; d++)
			if (subtest[d] != "")
				full = full subtest[d] "."
		full = full name
		if (directive ~ /^SKIP/)
			print "SKIP " full
		else if (line ~ /^ok/)
			print "PASS " full
		else
			print "FAIL " full
	}
	delete subtest[depth + 1]
	lastdepth = depth
}
