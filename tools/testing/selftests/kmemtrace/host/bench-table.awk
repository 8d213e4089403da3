# SPDX-License-Identifier: GPL-2.0
#
# bench-table.awk - the table of make bench, from the KMT-BENCH lines the
# guests printed (guest/benchmark.sh) and the kernel sizes (bin/bench.sh).
#
# A figure is guest instructions per allocation and free pair (QEMU
# -icount: 1 ns of guest time per instruction), the fastest of the
# repetitions; "spread" is how far the slowest one was from it.

function pct(x, base) {
	return base ? sprintf("%+.2f%%", (x - base) * 100 / base) : "-"
}

function fmt(x) {
	return x == "" ? "-" : sprintf("%.1f", x)
}

$1 == "KMT-BENCH" {
	mode = $2; op = $3; v = $6 / $5
	if (!((mode, op) in best) || v < best[mode, op])
		best[mode, op] = v
	if (!((mode, op) in worst) || v > worst[mode, op])
		worst[mode, op] = v
	if (mode ~ /^n[0-9]*$/)
		runs[op] = runs[op] " " v
	if ($5 > 0)
		evpp[mode, op] = $7 / $5
	dropped[mode] += $8
	if (!(op in seen_op)) { seen_op[op] = 1; ops[nops++] = op }
	if (!(mode in seen_mode)) { seen_mode[mode] = 1 }
	next
}
$1 == "KMT-BENCH-ANCHOR-MACRO" { macro_lost[$2] = $4; next }
$1 == "KMT-BENCH-MACRO" {
	mruns[$2, $3, ++nmruns[$2, $3]] = $5
	macro_lost[$2] += $6
	if (!($3 in seen_macro)) { seen_macro[$3] = 1; macros[nmacros++] = $3 }
	next
}
$1 == "KMT-BENCH-MACRO-SAMPLES" { msamples[$2, $3] += $5; nmsamples[$2, $3]++; next }
# Sampling's paired macro runs (guest/benchmark.sh, sample_macro): their
# modes prefixed "s:", apart from the table's.
$1 == "KMT-BENCH-SMACRO" {
	mruns["s:" $2, $3, ++nmruns["s:" $2, $3]] = $5
	spair[$2, $3, $4] = $5
	if (NF >= 7) sctxt[$2, $3, $4] = $7
	if ($4 > nspair) nspair = $4
	if (!($3 in seen_macro)) { seen_macro[$3] = 1; macros[nmacros++] = $3 }
	next
}
$1 == "KMT-BENCH-SMACRO-SAMPLES" { msamples["s:" $2, $3] += $5; nmsamples["s:" $2, $3]++; next }
$1 == "KMT-BENCH-MEM" { mem[$2] = $3; next }
$1 == "KMT-BENCH-READER" { reader[$2] = $3; next }
$1 == "KMT-BENCH-RAMP" { ramp[nramp++] = $0; next }
$1 == "KMT-BENCH-LOSSLESS" { lossless_good = $2; lossless_bad = $3; lossless_by = $4; next }
$1 == "KMT-BENCH-ANCHOR" { anchor[$2] = "lost " $4 ", " $6 " samples"; next }
$1 == "KMT-BENCH-SIZE" { text[$2] = $3; data[$2] = $4; bss[$2] = $5; next }
$1 == "KMT-BENCH-PCPU" { pcpu[$2] = $3; next }
$1 == "KMT-BENCH-TOOL-TRACE" { tool_events = $2; tool_bytes = $3; next }
$1 == "KMT-BENCH-TOOL" { tool_secs[$2] = $3; tool_kib[$2] = $4; next }
$1 == "KMT-BENCH-TOOL-XCORE" { tool_xcore = ($2 == $3) ? $2 : $2 " to " $3; next }
$1 == "KMT-OFFASM" {
	asm_n++
	asm_kind[$3]++
	if ($3 != "same" && $3 != "reordered" && $3 != "absent")
		asm_bad = asm_bad " " $2 "(" $NF ")"
	asm_nops += $5
	next
}

END {
	macro_medians()
	if (tool_only) {
		tool_table()
		print ""
		print "Goals"
		tool_goals()
		exit
	}
	nm = split("n n2 off relay relay+tsc drain tracer events floor perf bpf-live bpf-print relay+tracer relay+function relay+stacks relay+stacks64 c-off profiling profiling+relay relay+sample relay+sample1 fp-off fp-sample fp-sample1", modes, " ")
	split("(a)n (a')n (b)off relay rel+tsc relay+rd tracer events floor perf bpf-live bpf-print rel+trc rel+fn rel+stk rel+stk64 (c)off (c)prof prof+rel (c)smp (c)smp1 (fp)off (fp)smp (fp)smp1", label, " ")

	print "Instructions per alloc+free pair, and overhead vs (a) (kernel (a): no kmemtrace)"
	print "  relay: record on CPU 1 stopped during the timed loop (the allocating CPU's cost);"
	print "  rel+tsc: the same with the tsc clock (the TSC stamped, converted when read);"
	print "  relay+rd: record draining meanwhile (the guest clock also counts the reader's"
	print "  instructions); tracer: kmemtrace tracer; events: upstream events/kmem/*;"
	print "  rel+fn: relay + tracer with kmem_function; rel+stk, rel+stk64: relay with the"
	print "  stack of every event, of one in 64 (stack_sample); (c)off: kernel (c), nothing on;"
	print "  (c)prof: vm.mem_profiling=1 on (c); (a')n: (a) laid out as (b) but for"
	print "  kmemtrace's code (-falign-functions=64, and (b)'s static per-CPU data padded"
	print "  in), the same code: the layout spread."
	print "  (c)smp: relay on (c) sampling one allocation per 512 KiB (sample_period),"
	print "  with its stack, and the frees of the sampled objects; (c)smp1: sampling every"
	print "  allocation (sample_period 1), what a sample costs."
	if ("fp-off" in seen_mode)
		print "  (fp)off, (fp)smp, (fp)smp1: kernel (c) with the frame-pointer unwinder (KMT_BENCH_FP=1)."
	print "  On (a), what users run instead:"
	print "  perf: perf record -e 'kmem:*' -c 1 -a; bpf-live: bpftrace keeping a map of the"
	print "  live allocations (memleak-style); bpf-print: bpftrace printing every event."
	if ("floor" in seen_mode) {
		print "  floor: on (a), a probe on the same tracepoints writing an event's 96 bytes"
		print "  (twelve stores, the TSC, a number) into a per-CPU array and nothing else:"
		print "  the least a recorder does per event (lib/kmemtrace_bench.c)."
	}
	printf "%-14s", "operation"
	for (m = 1; m <= nm; m++)
		if (modes[m] in seen_mode)
			printf " %16s", label[m]
	printf "\n"
	for (i = 0; i < nops; i++) {
		op = ops[i]
		base = best["n", op]
		printf "%-14s", op
		for (m = 1; m <= nm; m++) {
			if (!(modes[m] in seen_mode))
				continue
			if (modes[m] == "n")
				printf " %16s", fmt(base)
			else if ((modes[m], op) in best)
				printf " %8s %7s", fmt(best[modes[m], op]),
					pct(best[modes[m], op], base)
			else
				printf " %16s", "-"
		}
		printf "\n"
	}

	print ""
	print "Cost per recorded event: (mode - (a)) / events recorded per pair, instructions"
	print "  (events per pair in brackets; (c)prof: per allocation counted; perf, bpf-live,"
	print "  bpf-print: per event of the events mode, which records the same tracepoints)"
	printf "%-14s", "operation"
	for (m = 4; m <= nm; m++)
		if (modes[m] in seen_mode && modes[m] != "c-off" && modes[m] !~ /^fp-/)
			printf " %14s", label[m]
	printf "\n"
	for (i = 0; i < nops; i++) {
		op = ops[i]
		base = best["n", op]
		printf "%-14s", op
		for (m = 4; m <= nm; m++) {
			mode = modes[m]
			if (!(mode in seen_mode) || mode == "c-off" || mode ~ /^fp-/)
				continue
			n = evpp[mode, op]
			if (mode == "profiling")
				n = evpp["relay", op] / 2
			if (mode == "perf" || mode ~ /^bpf-/)
				n = evpp["events", op]
			# Fewer than one event per pair: not this mode's events.
			if (n >= 1 && (mode, op) in best) {
				cost[mode, op] = (best[mode, op] - base) / n
				printf " %8.1f [%3.0f]", cost[mode, op], n
			} else {
				printf " %14s", "-"
			}
		}
		printf "\n"
	}

	# The draining reader runs when the scheduler lets it: not repeatable.
	spread = 0; dspread = 0
	for (k in best) {
		if (best[k] <= 0)
			continue
		split(k, sa, SUBSEP)
		v = (worst[k] - best[k]) / best[k]
		if (sa[1] == "drain") {
			if (v > dspread) dspread = v
		} else if (v > spread) {
			spread = v; spread_at = k
		}
	}
	split(spread_at, sa, SUBSEP)
	printf "\nRepeatability: largest spread between repetitions %.3f%% (%s %s); relay+rd %.1f%%\n",
		spread * 100, sa[1], sa[2], dspread * 100
	for (m = 1; m <= nm; m++)
		if (modes[m] in anchor)
			printf "%s: %s in all (its reader stopped during each timed run, as relay's)\n",
				modes[m], anchor[modes[m]]
	for (m = 1; m <= nm; m++)
		if (dropped[modes[m]])
			printf "DROPPED: %d events lost in mode %s: its figures are invalid\n",
				dropped[modes[m]], modes[m]

	print ""
	if (text["bench-a"])
		printf "vmlinux text (a) %d, (b) %d bytes: %s; data %+d, bss %+d bytes\n",
			text["bench-a"], text["bench-b"], pct(text["bench-b"], text["bench-a"]),
			data["bench-b"] - data["bench-a"], bss["bench-b"] - bss["bench-a"]
	if ("bench-a2" in pcpu)
		printf "static per-CPU data (a) %d, (b) %d, (a') %d bytes\n",
			pcpu["bench-a"], pcpu["bench-b"], pcpu["bench-a2"]
	if ("off_buffers" in mem)
		printf "memory: off: %d bytes of buffers (plus the data and bss above); on: %d bytes of buffers (MemFree fell by %d)\n",
			mem["off_buffers"], mem["on_buffers"], mem["on_memfree_delta"]
	for (i = 0; i < nramp; i++) {
		split(ramp[i], rr, " ")
		printf "ramp: %d events/s offered (%d events): %d dropped\n", rr[2], rr[3], rr[4]
	}
	sample_goals()
	fp_lines()
	if (lossless_good != "")
		printf "lossless capture (default buffers, record draining, 2 vCPUs): %d events/s with 0 dropped in two steps; %s\n",
			lossless_good, lossless_bad ? "drops at " lossless_bad " events/s" : \
			lossless_by == "allocators" ? "the most the two CPUs allocated: the reader kept up with all of it" : \
			"no drops seen"

	macro_table()
	off_table()
	tool_table()

	print ""
	print "Goals"
	if (worst_off > -1e9)
		goal(off_fails == 0, sprintf("built in, off: <= +0.1%% instructions, or within (a)'s own spread (layout and boot), or a figure (a) ran itself, on every operation: worst %+.2f%% (%s)%s", worst_off, worst_off_op, off_fails ? ", over on" off_fail_ops : ""))
	if (asm_n)
		goal(asm_bad == "", sprintf("built in, off: each hooked entry point runs (a)'s instructions to its first call, no-ops aside (objdump): %d of %d%s", asm_kind["same"] + asm_kind["reordered"] + asm_kind["absent"], asm_n, asm_bad == "" ? "" : "; more in" asm_bad))
	if (text["bench-a"])
		goal((text["bench-b"] - text["bench-a"]) * 100 / text["bench-a"] <= 0.5,
			sprintf("built in, off: <= +0.5%% vmlinux text: %s", pct(text["bench-b"], text["bench-a"])))
	worst_ev = 0; worst_ratio = 0; worst_tr = 0; worst_prof = 0; least_ev = 0
	worst_tsc = 0; least_tsc = 0; worst_fl = 0; least_fl = 0
	over_ratio = ""; over_tr = ""
	# Why the ratios to upstream's events are over where they are: the
	# events a scope names the caller of or flags pay its entry hooks,
	# which upstream's events, naming no caller there, do not.
	scoped = "; over on%s, events a scope names or flags (the entry hooks; kmemtrace.rst, Cost)"
	for (i = 0; i < nops; i++) {
		op = ops[i]
		if (("relay+tsc", op) in cost && cost["relay+tsc", op] > worst_tsc) {
			worst_tsc = cost["relay+tsc", op]; worst_tsc_op = op
		}
		if (("relay+tsc", op) in cost && (!least_tsc || cost["relay+tsc", op] < least_tsc))
			least_tsc = cost["relay+tsc", op]
		if (("relay", op) in cost && cost["relay", op] > worst_ev) {
			worst_ev = cost["relay", op]; worst_ev_op = op
		}
		if (("floor", op) in cost && cost["floor", op] > worst_fl) {
			worst_fl = cost["floor", op]; worst_fl_op = op
		}
		if (("floor", op) in cost && (!least_fl || cost["floor", op] < least_fl))
			least_fl = cost["floor", op]
		if (("relay", op) in cost && (!least_ev || cost["relay", op] < least_ev)) {
			least_ev = cost["relay", op]; least_ev_op = op
		}
		if (("relay", op) in cost && ("events", op) in cost && cost["events", op] > 0) {
			r = cost["relay", op] / cost["events", op]
			if (r > worst_ratio) { worst_ratio = r; worst_ratio_op = op }
			if (r > 1 / 3) over_ratio = over_ratio " " op
		}
		if (("tracer", op) in cost && ("events", op) in cost && cost["events", op] > 0) {
			r = cost["tracer", op] / cost["events", op]
			if (r > worst_tr) { worst_tr = r; worst_tr_op = op }
			if (r > 1) over_tr = over_tr " " op
		}
		if (("relay", op) in best && ("profiling", op) in best &&
		    best["profiling", op] > best["n", op]) {
			r = (best["relay", op] - best["n", op]) / (best["profiling", op] - best["n", op])
			if (r > worst_prof) { worst_prof = r; worst_prof_op = op }
		}
	}
	# Why: the least event already costs more than the goal (the
	# tracepoint's call, the probe, interrupts off and on, a time stamp);
	# the events whose callers or flags come from a scope pay the entry
	# hooks on top.
	if (worst_ev)
		goal(worst_ev <= 60, sprintf("relay on: <= 60 instructions per recorded event: worst %.1f (%s) (the least event, %s's, costs %.1f; the events a scope names or flags pay up to %.1f more: entry hooks, the page events a large kmalloc() suppresses)%s%s", worst_ev, worst_ev_op, least_ev_op, least_ev, worst_ev - least_ev, worst_tsc ? sprintf("; with the tsc clock %.1f to %.1f (%s)", least_tsc, worst_tsc, worst_tsc_op) : "", worst_fl ? sprintf("; the floor, an event's stores and nothing else, %.1f to %.1f (%s)", least_fl, worst_fl, worst_fl_op) : ""))
	if (worst_ratio)
		goal(worst_ratio <= 1 / 3, sprintf("relay on: <= 1/3 of the upstream event's cost per event: worst %.2fx (%s)%s", worst_ratio, worst_ratio_op, over_ratio == "" ? "" : sprintf(scoped, over_ratio)))
	# Per pair as well: where upstream records the pages of a large
	# kmalloc() as events of their own, it records more events a pair.
	if (worst_tr)
		goal(worst_tr <= 1, sprintf("tracer on: <= the upstream event's cost per event: worst %.2fx (%s; per pair %.0f against %.0f, %d events against %d)%s", worst_tr, worst_tr_op, best["tracer", worst_tr_op] - best["n", worst_tr_op], best["events", worst_tr_op] - best["n", worst_tr_op], evpp["tracer", worst_tr_op], evpp["events", worst_tr_op], over_tr == "" ? "" : sprintf(scoped, over_tr)))
	# Beside what users run instead: relay's cost per event against each
	# anchor's, on the operations both record.
	na = split("perf bpf-live bpf-print", anc, " ")
	for (a = 1; a <= na; a++) {
		worst_an = 0
		for (i = 0; i < nops; i++) {
			op = ops[i]
			if (("relay", op) in cost && (anc[a], op) in cost && cost[anc[a], op] > 0) {
				r = cost["relay", op] / cost[anc[a], op]
				if (r > worst_an) { worst_an = r; worst_an_op = op }
			}
		}
		if (worst_an)
			goal(worst_an < 1, sprintf("relay on: cheaper per event than %s: worst %.2fx its cost (%s)", anc[a], worst_an, worst_an_op))
	}
	if (lossless_good != "")
		goal(lossless_good >= 4800000, sprintf("lossless capture: >= 4.8 M events/s on 2 vCPUs (2x one read() reader's 2.4 M): %.1f M%s", lossless_good / 1e6, lossless_why()))
	tool_goals()
}

# What bounds the lossless rate under -icount, where the vCPUs share one
# clock of 10^9 guest instructions a second: the ramp's kmalloc-64 pair
# allocated, recorded and drained (relay+rd), per event, and the reader's
# part of it (relay+rd less relay).
function lossless_why(	op, n, all, rd) {
	op = "kmalloc-64"
	if (!(("drain", op) in best) || !(("relay", op) in cost) ||
	    !(("drain", op) in cost) || evpp["relay", op] <= 0)
		return ""
	n = evpp["relay", op]
	all = best["drain", op] / n
	rd = cost["drain", op] - cost["relay", op]
	if (rd <= 0)
		return ""
	return sprintf(" (under -icount at most %.1f M: %.0f instructions per event allocated, recorded and drained; the reader's %.0f of them would drain %.1f M)",
		1e3 / all, all, rd, 1e3 / rd)
}

# Sampling (relay+sample on (c)) against allocation profiling's counting,
# per alloc+free pair, and on the macro workloads.  Sampling's cost is
# what switching it on adds to (c); profiling's what a user pays for it,
# (c) with it on against (a) without it: its hooks built in
# (alloc_hooks() sets current->alloc_tag either way) and its counting.
function sample_goals(	i, op, s, p, r, worst, worst_op, fails, w, ws, u, unsure, why_op, why_s, sm, fifo) {
	if (!("relay+sample" in seen_mode))
		return
	worst = -1e9; fails = ""
	for (i = 0; i < nops; i++) {
		op = ops[i]
		if (!(("relay+sample", op) in best) || !(("profiling", op) in best) ||
		    !(("c-off", op) in best))
			continue
		s = best["relay+sample", op] - best["c-off", op]
		p = best["profiling", op] - best["n", op]
		# Below the layout noise, profiling counts as 1 instruction.
		r = s / (p > 1 ? p : 1)
		if (r > 2) {
			fails = fails sprintf(" %s(%+.1f vs %+.1f)", op, s, p)
			if (why_op == "" || s > why_s) { why_op = op; why_s = s }
		}
		if (r > worst) { worst = r; worst_op = op }
	}
	if (worst > -1e9)
		goal(fails == "", sprintf("sampling (512 KiB) per alloc+free pair, over (c) off, <= 2x allocation profiling's, over (a): worst %.1fx (%s)%s%s", worst, worst_op, fails == "" ? "" : "; over on" fails, fails == "" ? "" : sample_why(why_op)))
	# Met only if the whole interval of the difference is within 1%.
	# Judged by the paired runs when the bench ran them: the mean of the
	# differences of each pair, whose interval holds however the boot
	# drifts from pair to pair; else by the table's runs: the two
	# medians' half-widths added, as notches that must not overlap.
	ws = 0; w = ""; unsure = 0
	sm = nspair ? "s:" : ""
	# Judged by msg-fifo when it ran: the same processes on a schedule
	# the program fixes; messaging is shown beside (messaging_line()).
	fifo = sm && (("c-off", "msg-fifo", 1) in spair)
	for (i = 0; i < nmacros; i++) {
		if (fifo && macros[i] == "messaging")
			continue
		if (sm)
			r = paired_diff(macros[i])
		else
			r = macro_diff("relay+sample", "c-off", i)
		if (r == "")
			continue
		u = macro_u
		w = w sprintf(" %s %+.2f%% +-%.2f%%", macros[i], r, u)
		if (r - u <= 1 && r + u > 1) {
			w = w " (cannot tell)"
			unsure = 1
		}
		if (r + u > ws) ws = r + u
	}
	if (w != "")
		goal(ws <= 1, "sampling (512 KiB) on the macro workloads, over (c) off, " \
			(sm ? sprintf("%d pair%s of runs, the two modes alternating, the reader stopped (the allocating CPU's cost), the mean of the pairs' differences", paired_n, paired_n == 1 ? "" : "s") : \
			 "the medians' difference") \
			" and its 95% interval: <= 1%:" w \
			(unsure ? sprintf("; more runs (make bench KMT_BENCH_%s=N) narrow the interval", sm ? "SMREPS" : "MREPS") : ""))
	if (fifo)
		messaging_line()
	macro_samples_line(sm)
	reader_line()
}

# Messaging under the default policy, beside the goal: its pairs' mean
# difference, and the difference at equal context switches
# (ctxt_diff()), which is what the added instructions cost.
function messaging_line(	r, u, a) {
	r = paired_diff("messaging")
	if (r == "")
		return
	u = macro_u
	a = ctxt_diff("messaging")
	printf "  sampling (512 KiB) on messaging under the default policy, not judged (its runs' instructions follow their context switches, whose number changes in regimes; msg-fifo is the same processes on a schedule the program fixes): the mean of the pairs' differences %+.2f%% +-%.2f%%", r, u
	if (a != "")
		printf "; context switches a run: c-off %.0f, relay+sample %.0f; %.0f instructions a switch (r %.2f); at equal switches %+.2f%% +-%.2f%%", ctxt_c[1], ctxt_c[2], ctxt_b, ctxt_r, a, ctxt_u
	printf "\n"
}

# The difference of the paired runs of macro workload @name at equal
# context switches: a line of instructions against switches fitted in
# each mode with a common slope (an analysis of covariance), the offset
# between the two lines in percent of c-off's mean run, "" without the
# switches.  Sets ctxt_u (the half-width of its 95% interval, from the
# residuals), ctxt_c[1], ctxt_c[2] (each mode's mean switches a run),
# ctxt_b (the slope) and ctxt_r (the correlation within the modes).
function ctxt_diff(name,	md, i, k, cnt, mx, my, dx, dy, sxx, sxy, syy, b, n, s2, se) {
	split("c-off relay+sample", md, " ")
	for (i = 1; i <= 2; i++) {
		cnt[i] = mx[i] = my[i] = 0
		for (k = 1; k <= nspair; k++)
			if ((md[i], name, k) in sctxt) {
				cnt[i]++
				mx[i] += sctxt[md[i], name, k]
				my[i] += spair[md[i], name, k]
			}
		if (cnt[i] < 2)
			return ""
		mx[i] /= cnt[i]
		my[i] /= cnt[i]
	}
	sxx = sxy = syy = 0
	for (i = 1; i <= 2; i++)
		for (k = 1; k <= nspair; k++)
			if ((md[i], name, k) in sctxt) {
				dx = sctxt[md[i], name, k] - mx[i]
				dy = spair[md[i], name, k] - my[i]
				sxx += dx * dx; sxy += dx * dy; syy += dy * dy
			}
	n = cnt[1] + cnt[2]
	if (sxx <= 0 || syy <= 0 || n < 4 || my[1] <= 0)
		return ""
	b = sxy / sxx
	s2 = (syy - b * sxy) / (n - 3)
	se = sqrt((s2 > 0 ? s2 : 0) * (1 / cnt[1] + 1 / cnt[2] + (mx[2] - mx[1]) ^ 2 / sxx))
	ctxt_u = t95(n - 3) * se * 100 / my[1]
	ctxt_c[1] = mx[1]; ctxt_c[2] = mx[2]
	ctxt_b = b
	ctxt_r = sxy / sqrt(sxx * syy)
	return ((my[2] - my[1]) - b * (mx[2] - mx[1])) * 100 / my[1]
}

# What the samples of a macro run cost: the samples per run times what a
# sampled pair costs over (c) off on the slab and page paths ((c)smp1),
# as a share of (c) off's run; the rest of the difference is the
# count-down and the look-ups of every allocation and free.  @sm: the
# prefix of the runs the goal was judged by.
function macro_samples_line(sm,	i, k, ko, n, lo, hi, one, op, w, ops, nops) {
	nops = split("kmalloc-8 cache pages-0", ops, " ")
	lo = hi = ""
	for (i = 1; i <= nops; i++) {
		op = ops[i]
		if (!(("relay+sample1", op) in best) || !(("c-off", op) in best))
			continue
		one = best["relay+sample1", op] - best["c-off", op]
		if (lo == "" || one < lo) lo = one
		if (hi == "" || one > hi) hi = one
	}
	if (lo == "")
		return
	w = ""
	for (i = 0; i < nmacros; i++) {
		k = sm "relay+sample" SUBSEP macros[i]; ko = sm "c-off" SUBSEP macros[i]
		if (!(k in nmsamples) || !(ko in macro) || macro[ko] <= 0)
			continue
		n = msamples[k] / nmsamples[k]
		w = w sprintf("%s %s %.0f samples a run, %.2f-%.2f%%", w == "" ? "" : ";",
			macros[i], n, n * lo * 100 / macro[ko], n * hi * 100 / macro[ko])
	}
	if (w != "")
		printf "  sampling (512 KiB) on the macro workloads, the samples alone (a sampled pair costs %.0f-%.0f instructions over (c) off, slab to pages, (c)smp1), of (c) off's run:%s\n", lo, hi, w
}

# What kmemtrace record runs a second while nothing allocates: under
# -icount, what the other vCPU adds to a macro run while it records.
function reader_line(	w) {
	if ("relay" in reader)
		w = sprintf(" full recording (b) %.2f million", reader["relay"] / 1e6)
	if ("relay+sample" in reader)
		w = w sprintf("%s sampling (c) %.2f million", w == "" ? "" : ",",
			reader["relay+sample"] / 1e6)
	if (w != "")
		printf "  the reader idle (kmemtrace record, nothing allocating), instructions a second:%s\n", w
}

# How much slower sampling runs macro workload @name than (c) off in the
# paired runs, in percent of off's mean: the mean of the pairs'
# differences; macro_u: the half-width of its 95% interval, Student's t
# times the differences' standard deviation over the square root of the
# pairs (a whole interval, +-100%, with one pair); paired_n: the pairs.
function paired_diff(name,	k, n, d, sum, sq, off, mean, sd) {
	n = 0; sum = sq = off = 0
	for (k = 1; k <= nspair; k++) {
		if (!(("c-off", name, k) in spair) || !(("relay+sample", name, k) in spair))
			continue
		d[++n] = spair["relay+sample", name, k] - spair["c-off", name, k]
		sum += d[n]
		off += spair["c-off", name, k]
	}
	paired_n = n
	if (!n || off <= 0)
		return ""
	mean = sum / n
	off /= n
	for (k = 1; k <= n; k++)
		sq += (d[k] - mean) ^ 2
	sd = n > 1 ? sqrt(sq / (n - 1)) : 0
	macro_u = n > 1 ? t95(n - 1) * sd / sqrt(n) * 100 / off : 100
	return mean * 100 / off
}

# Student's t for a two-sided 95% interval with @df degrees of freedom.
function t95(df) {
	if (df <= 10)
		return substr("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228", \
			      (df - 1) * 6 + 1, 6) + 0
	return df <= 20 ? 2.086 : df <= 30 ? 2.042 : df <= 60 ? 2.000 : 1.96
}

# How much slower @mode runs macro workload @i than @base, in percent of
# @base's median, "" without both; macro_u: the half-width of its
# interval, the two medians' added, as notches that must not overlap.
function macro_diff(mode, base, i,	ks, ko) {
	ks = mode SUBSEP macros[i]; ko = base SUBSEP macros[i]
	if (!(ks in macro) || !(ko in macro))
		return ""
	macro_u = (mnotch[ks] + mnotch[ko]) * 100 / macro[ko]
	return (macro[ks] - macro[ko]) * 100 / macro[ko]
}

# Kernel (c) built with the frame-pointer unwinder (make bench
# KMT_BENCH_FP=1), beside ORC's (c): what one sample costs each ((c)smp1
# less (c)off: an allocation with its stack and its free), and what
# sampling at 512 KiB adds over each kernel's own off.  Not a goal: the
# bench's kernels, as the distributions', unwind with ORC.
function fp_lines(	i, op, w, r) {
	if (!("fp-sample" in seen_mode))
		return
	print ""
	print "Frame pointers: kernel (c) with CONFIG_UNWINDER_FRAME_POINTER against (c) with ORC,"
	print "  each over its own off; instructions per alloc+free pair"
	printf "%-14s %12s %12s %12s %12s %12s\n", "operation", "sample1 ORC", "sample1 FP",
		"512K ORC", "512K FP", "FP off vs (a)"
	for (i = 0; i < nops; i++) {
		op = ops[i]
		if (!(("fp-sample1", op) in best) || !(("fp-off", op) in best))
			continue
		printf "%-14s %12s %12.1f %12s %12.1f %12s\n", op,
			(("relay+sample1", op) in best) ? sprintf("%.1f", best["relay+sample1", op] - best["c-off", op]) : "-",
			best["fp-sample1", op] - best["fp-off", op],
			(("relay+sample", op) in best) ? sprintf("%.1f", best["relay+sample", op] - best["c-off", op]) : "-",
			best["fp-sample", op] - best["fp-off", op],
			pct(best["fp-off", op], best["n", op])
	}
	w = ""
	for (i = 0; i < nmacros; i++)
		if ((r = macro_diff("fp-sample", "fp-off", i)) != "")
			w = w sprintf(" %s %+.2f%% +-%.2f%%", macros[i], r, macro_u)
	if (w != "")
		print "sampling (512 KiB) on the macro workloads with frame pointers, over (fp)off:" w
}

# Why sampling misses its budget on @op: what one sampled allocation and
# its free cost ((c)smp1 samples every allocation), how much of it is the
# stack walk (rel+stk less relay: one stack per pair, of the allocation),
# how often the default mean samples @op (the cost it adds over a sample's
# cost), and what 2x profiling leaves per sample at that rate.
function sample_why(op,	one, walk, s, p, every) {
	if (!(("relay+sample1", op) in best))
		return ""
	one = best["relay+sample1", op] - best["c-off", op]
	s = best["relay+sample", op] - best["c-off", op]
	p = best["profiling", op] - best["n", op]
	if (one <= 0 || s <= 0)
		return ""
	every = one / s
	# rel+stk saves a stack for every allocation, backing store too.
	walk = (("relay+stacks", op) in best) && evpp["relay+stacks", op] >= 2 ? \
		sprintf(", %.0f of it the stack walk and depot", (best["relay+stacks", op] - \
			best["relay", op]) * 2 / evpp["relay+stacks", op]) : ""
	return sprintf(" (on %s a sampled pair costs %.0f instructions%s; at 512 KiB about one pair in %.0f is sampled, and 2x profiling leaves %.0f per sample)",
		op, one, walk, every, 2 * (p > 1 ? p : 1) * every)
}

# The macro workloads' runs spread far more than the micro-operations'
# (messaging's schedule differs from run to run): each figure is the
# median of its runs, and mnotch[] the half-width of an approximate 95%
# interval of that median, 1.58 IQR / sqrt(n) (McGill, Tukey and Larsen's
# notch, a box plot's), the quartiles as Tukey's hinges.
function macro_medians(	k, parts, n, i, j, v, t, h) {
	for (k in nmruns) {
		split(k, parts, SUBSEP)
		n = nmruns[k]
		for (i = 1; i <= n; i++)
			v[i] = mruns[parts[1], parts[2], i]
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
				t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
			}
		macro[k] = median_of(v, 1, n)
		h = int((n + 1) / 2)
		mnotch[k] = 1.58 * (median_of(v, n - h + 1, n) - median_of(v, 1, h)) / sqrt(n)
		mcount[k] = n
		delete v
	}
}

function median_of(v, lo, hi,	m) {
	m = int((lo + hi) / 2)
	return (hi - lo) % 2 ? (v[m] + v[m + 1]) / 2 : v[m]
}

# The macro workloads (guest/benchmark.sh's run_macro): millions of guest
# instructions per run, the median of the repetitions, and the overhead vs
# (a), with the mode's reader running; below each row, each median's
# 95% interval as a percentage of it.
function macro_table(	i, m, mode, line) {
	if (!nmacros)
		return
	print ""
	print "Macro workloads: millions of instructions per run, and overhead vs (a), readers running"
	print "  messaging: hackbench's pattern, 2 groups of 20+20 processes on pipes;"
	if ("msg-fifo" in seen_macro)
		print "  msg-fifo: the same under SCHED_FIFO (the program fixes the schedule);"
	print "  tree: unpack a tree of files into tmpfs, walk it, remove it; all on CPU 0"
	print "  The median of " mcount["n", macros[0]] " runs; \"+-\": the half-width of its 95% interval"
	print "  (1.58 IQR / sqrt(runs), a box plot's notch), % of the median"
	line = sprintf("%-12s", "workload")
	for (m = 1; m <= nm; m++)
		if ((modes[m], macros[0]) in macro)
			line = line sprintf(" %17s", label[m])
	print line
	for (i = 0; i < nmacros; i++) {
		line = sprintf("%-12s", macros[i])
		for (m = 1; m <= nm; m++) {
			mode = modes[m]
			if (!((mode, macros[0]) in macro))
				continue
			if (!((mode, macros[i]) in macro)) {
				line = line sprintf(" %17s", "-")
				continue
			}
			if (mode == "n")
				line = line sprintf(" %17.1f", macro[mode, macros[i]] / 1e6)
			else
				line = line sprintf(" %8.1f %8s", macro[mode, macros[i]] / 1e6,
					pct(macro[mode, macros[i]], macro["n", macros[i]]))
		}
		print line
		line = sprintf("%-12s", "  +-")
		for (m = 1; m <= nm; m++) {
			mode = modes[m]
			if (!((mode, macros[0]) in macro))
				continue
			if (((mode, macros[i]) in macro) && macro[mode, macros[i]] > 0)
				line = line sprintf(" %17s", sprintf("%.2f%%",
					mnotch[mode, macros[i]] * 100 / macro[mode, macros[i]]))
			else
				line = line sprintf(" %17s", "-")
		}
		print line
	}
	line = ""
	for (m = 1; m <= nm; m++)
		if (macro_lost[modes[m]] > 0)
			line = line sprintf(" %s %d,", label[m], macro_lost[modes[m]])
	if (line != "")
		print "  events lost meanwhile (the reader did not keep up):" substr(line, 1, length(line) - 1)
}

# Off against (a): the overhead of (b) with kmemtrace off, the spread of
# (a) across two layouts of the same code ((a')) and across boots (n3, n4:
# a second boot of each), and whether the overhead is within +0.1% or
# that spread.  Then what objdump says of the hooked
# entry points (bin/offasm.sh).
function off_table(	i, op, o, sp, ok, k, v, have, same, nr, r) {
	worst_off = -1e9
	off_fails = 0
	if (!("off" in seen_mode))
		return
	print ""
	print "Off: (b) with kmemtrace off against (a), and (a)'s own spread: how far (a')"
	print "  and a second boot of each of (a) and (a') are from (a), the most"
	printf "%-14s %9s %9s %8s\n", "operation", "off", "spread", "off ok"
	for (i = 0; i < nops; i++) {
		op = ops[i]
		if (!(("off", op) in best) || best["n", op] <= 0)
			continue
		o = (best["off", op] - best["n", op]) * 100 / best["n", op]
		sp = 0; have = 0
		for (k = 2; k <= 4; k++) {
			if (!(("n" k, op) in best))
				continue
			have = 1
			v = (best["n" k, op] - best["n", op]) * 100 / best["n", op]
			if (v < 0)
				v = -v
			if (v > sp)
				sp = v
		}
		ok = o <= 0.1 || o <= sp
		# Or (b)'s figure is one (a) or (a') itself ran, to 0.01%:
		# an operation with two states (pages-3 read 5359 and 5367
		# in the repetitions of one boot of (a)), and (b) met the
		# slower one in each of its runs.
		same = 0
		if (!ok) {
			nr = split(runs[op], r, " ")
			for (k = 1; k <= nr; k++) {
				v = (best["off", op] - r[k]) * 100 / r[k]
				if (v >= -0.01 && v <= 0.01)
					same = 1
			}
			ok = same
		}
		printf "%-14s %+8.2f%% %s %8s\n", op, o,
			have ? sprintf("%8.2f%%", sp) : "        -",
			same ? "(a) ran it" : ok ? "yes" : "NO"
		if (!ok) { off_fails++; off_fail_ops = off_fail_ops " " op }
		if (o > worst_off) { worst_off = o; worst_off_op = op }
	}
	if (asm_n)
		printf "objdump, (a) against (b), entry to first call of %d hooked entry points: %d the same (no-ops aside), %d reordered (registers, scheduling, struct offsets), %d inlined away, %d differ%s; %d no-ops in all\n",
			asm_n, asm_kind["same"], asm_kind["reordered"], asm_kind["absent"],
			asm_n - asm_kind["same"] - asm_kind["reordered"] - asm_kind["absent"],
			asm_bad == "" ? "" : " (+instructions:" asm_bad ")", asm_nops
}

function goal(ok, what) {
	printf "  [%s] %s\n", ok ? "met" : "NOT MET", what
}

# The tool's rows: each command beside cat of the streams (its floor; for
# dump, cat of the streams and of its text) and beside host/floor.c, the
# least work the command has to do.
function tool_table(	n, tools, i, t, fl, least, rate, vs) {
	if (!tool_events)
		return
	printf "\ntools/kmemtrace on the host, one core (report-j2: report -j 2 on two), synthetic trace of %d events (%.0f MB, copied one stream after the other), least of 5 runs:\n",
		tool_events, tool_bytes / 1e6
	n = split("cat report report-j2 check dump cat-dump cat-4k", tools, " ")
	least["report"] = "floor-pair"
	least["check"] = "floor-read"
	least["dump"] = "floor-dump"
	for (i = 1; i <= n; i++) {
		t = tools[i]
		if (!(t in tool_secs))
			continue
		fl = tool_floor(t)
		rate = (tool_secs[t] > 0) ? tool_events / tool_secs[t] / 1e6 : 0
		vs = ""
		if (t !~ /^cat/ && fl > 0)
			vs = sprintf("  %.2fx its floor", tool_secs[t] / fl)
		if ((t in least) && (least[t] in tool_secs) && tool_secs[least[t]] > 0)
			vs = vs sprintf(", %.2fx the least", tool_secs[t] / tool_secs[least[t]])
		if (t == "report-j2" && tool_secs[t] > 0 && ("report" in tool_secs))
			vs = vs sprintf(", %.2fx report's speed", tool_secs["report"] / tool_secs[t])
		# Its merging thread reads and merges the streams on one core.
		if (t == "report-j2" && ("floor-merge" in tool_secs) && tool_secs["floor-merge"] > 0)
			vs = vs sprintf(", %.2fx floor merge", tool_secs[t] / tool_secs["floor-merge"])
		# The same bytes in the page cache as mkstream wrote them.
		if (t == "cat-4k" && tool_secs["cat"] > 0)
			vs = sprintf("  %.2fx cat: the streams as mkstream wrote them, 4 KiB of each in turn",
				     tool_secs[t] / tool_secs["cat"])
		printf("  %-9s %7.3f s %7.1f M events/s  peak RSS %6.1f MiB (%.2fx the trace)%s\n",
		       t, tool_secs[t], rate, tool_kib[t] / 1024,
		       tool_kib[t] * 1024 / tool_bytes, vs)
	}
	if (!("floor-read" in tool_secs))
		return
	print "the least work of each command on one core (host/floor.c), against the same floor:"
	tool_least("read", "check", "read every event and check it")
	tool_least("merge", "", "+ merge the streams in time order")
	tool_least("pair", "report", "+ pair allocs with frees, sums per call site")
	tool_least("pair2", "report-j2", "pair on two cores, each on half the pointers (split first)")
	tool_least("lines", "", "+ write a fixed line of dump's fields per event")
	tool_least("dump", "dump", "+ write every field as text")
	# Not a floor: what a replay split by time could do, before the join.
	if (("halves" in tool_secs) && tool_floor("report") > 0)
		printf("  %-9s %7.3f s  %5.2fx its floor  %-8s %s\n", "halves", tool_secs["halves"],
		       tool_secs["halves"] / tool_floor("report"), "(report-j2)",
		       "report -j 1 on each half of the trace by time, at once (cut first)")
	if (tool_xcore != "")
		printf("a cache line's round trip between the two CPUs (floor xcore), in the rounds: %s ns\n",
		       tool_xcore)
}

# Seconds of what command @t is measured against: cat of what it reads
# (and, for dump, of what it writes).
function tool_floor(t) {
	if (!("cat" in tool_secs))
		return 0
	if (t == "dump" || t == "floor-dump" || t == "floor-lines")
		return ("cat-dump" in tool_secs) ? tool_secs["cat"] + tool_secs["cat-dump"] : 0
	return tool_secs["cat"]
}

function tool_least(m, cmd, what,	t, fl) {
	t = "floor-" m
	if (!(t in tool_secs))
		return
	fl = tool_floor(t)
	printf("  %-9s %7.3f s  %5.2fx its floor  %-8s %s\n", m, tool_secs[t],
	       fl > 0 ? tool_secs[t] / fl : 0, cmd ? "(" cmd ")" : "", what)
}

# The tool's goals; the least of a command says how near the goal it can
# come on this host.
function tool_goals(	rate, lp, ld, lp2, lc2, xc) {
	if (("floor-pair" in tool_secs) && tool_floor("report") > 0)
		lp = sprintf(" (the least report: %.2fx)", tool_secs["floor-pair"] / tool_floor("report"))
	if (("floor-dump" in tool_secs) && tool_floor("dump") > 0)
		ld = sprintf(" (the least dump: %.2fx)", tool_secs["floor-dump"] / tool_floor("dump"))
	if (("dump" in tool_secs) && tool_floor("dump") > 0)
		goal(tool_secs["dump"] <= 1.5 * tool_floor("dump"),
			sprintf("dump within 1.5x of its floor: %.2fx%s", tool_secs["dump"] / tool_floor("dump"), ld))
	if (("report" in tool_secs) && tool_secs["report"] > 0) {
		rate = tool_events / tool_secs["report"] / 1e6
		goal(rate >= 25, sprintf("report >= 25 M events/s on one core: %.1f", rate))
		if (tool_floor("report") > 0) {
			goal(tool_secs["report"] <= 2 * tool_secs["cat"], sprintf("report within 2x of the I/O floor: %.2fx%s", tool_secs["report"] / tool_secs["cat"], lp))
			goal(tool_secs["check"] <= 1.5 * tool_secs["cat"], sprintf("check within 1.5x of the I/O floor: %.2fx", tool_secs["check"] / tool_secs["cat"]))
		}
	}
	if (("report-j2" in tool_secs) && tool_secs["report-j2"] > 0 && ("report" in tool_secs)) {
		# What two cores give here, sharing nothing: pair, and report
		# on each half of the trace by time.
		if (("floor-pair2" in tool_secs) && tool_secs["floor-pair2"] > 0 && tool_floor("report") > 0) {
			lp2 = sprintf("pair2 is %.2fx pair's speed", tool_secs["floor-pair"] / tool_secs["floor-pair2"])
			lc2 = sprintf("pair2 %.2fx", tool_secs["floor-pair2"] / tool_floor("report"))
		}
		if (("halves" in tool_secs) && tool_secs["halves"] > 0 && tool_floor("report") > 0) {
			lp2 = lp2 (lp2 ? ", " : "") sprintf("report on each half by time at once %.2fx report's",
							   tool_secs["report"] / tool_secs["halves"])
			lc2 = lc2 (lc2 ? ", " : "") sprintf("halves %.2fx", tool_secs["halves"] / tool_floor("report"))
		}
		if (("cat-4k" in tool_secs) && tool_floor("report") > 0)
			lc2 = lc2 (lc2 ? "; " : "") sprintf("cat-4k, the same bytes as mkstream wrote them, %.2fx cat",
							   tool_secs["cat-4k"] / tool_secs["cat"])
		# What -j 2 pays for each line one thread writes and the other reads.
		if (tool_xcore != "")
			xc = "; a cache line's round trip between the CPUs " tool_xcore " ns"
		goal(tool_secs["report"] >= 1.8 * tool_secs["report-j2"],
			sprintf("report -j 2 >= 1.8x report -j 1's speed: %.2fx%s%s", tool_secs["report"] / tool_secs["report-j2"],
				lp2 ? " (two cores sharing nothing: " lp2 ")" : "", xc))
		if (tool_floor("report") > 0)
			goal(tool_secs["report-j2"] <= 2 * tool_secs["cat"],
				sprintf("report -j 2 within 2x of the I/O floor: %.2fx%s",
					tool_secs["report-j2"] / tool_secs["cat"],
					lc2 ? " (two cores sharing nothing: " lc2 ")" : ""))
	}
	if (("report" in tool_kib) && tool_bytes > 0)
		goal(tool_kib["report"] * 1024 <= 0.5 * tool_bytes,
			sprintf("report peak RSS <= 0.5x the trace: %.2fx", tool_kib["report"] * 1024 / tool_bytes))
}
