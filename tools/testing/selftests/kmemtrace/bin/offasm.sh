#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# offasm.sh VMLINUX_A VMLINUX_B - kmemtrace's hooks cost one no-op while off.
#
# For each allocator entry point kmemtrace hooks, compares the code of
# kernel (a) (no kmemtrace) and (b) (kmemtrace built in, off) from the
# function's entry to its first call (the __fentry__ call of the function
# tracer aside), or to its first tail call or return: the path every call
# takes before it does any work.  A call or jump into a part GCC split
# off the function (.part.N, .cold) is followed: it is the same path.
# Addresses are left out (branch targets inside the function,
# RIP-relative displacements, absolute addresses of data), as are the
# static-branch no-ops of (b) that (a) does not have.
# Prints one line per function:
#
#   KMT-OFFASM function same|reordered|DIFFERS|absent nops N instructions N +N
#
# where nops is the number of no-ops (b) adds on that path, instructions
# the number of instructions on it in (a), and +N how many more (b) has,
# its no-ops aside.  "same": the same instructions; "reordered": as many,
# but GCC allocated registers or scheduled them differently (or a struct
# that kmemtrace extends has other offsets); "DIFFERS": (b) runs more
# instructions on the path, or more than one no-op.  Exits 1 if any
# function differs; the paths are printed under it, (a) first.
#
# A function GCC inlined into every caller in both kernels is "absent";
# its callers in the list are compared instead.

set -u

[ $# = 2 ] || { echo "usage: $0 VMLINUX_A VMLINUX_B" >&2; exit 2; }

# The entry points on the benchmark's paths and the other hooked APIs.
FUNCS="alloc_pages_noprof alloc_pages_mpol_noprof folio_alloc_noprof
folio_alloc_mpol_noprof vma_alloc_folio_noprof __alloc_pages_noprof
__folio_alloc_noprof alloc_pages_bulk_noprof get_free_pages_noprof
get_zeroed_page_noprof __free_pages free_pages __folio_put folios_put_refs
__kmalloc_large_noprof __kmalloc_large_node_noprof kfree krealloc_noprof
kfree_sensitive __kvmalloc_node_noprof kvfree kvfree_sensitive
kvrealloc_noprof vmemdup_user free_percpu vfree __vmalloc_node_range_noprof
vrealloc_noprof mempool_alloc_noprof mempool_free"

# path VMLINUX FUNCTION: the normalised instructions from the entry of
# FUNCTION to its first call, tail call or return, one per line.
path() {
	objdump -d --no-show-raw-insn "$1" --disassemble="$2" 2>/dev/null | awk -v fn="$2" '
		$0 ~ "^[0-9a-f]+ <" fn ">:$" { on = 1; next }
		!on || !/^ *[0-9a-f]+:\t/ { next }
		{
			sub(/^ *[0-9a-f]+:\t/, "")
			sub(/ +$/, "")
			# RIP-relative: the symbol from the comment, not the offset
			if (match($0, /# [0-9a-f]+ <[^>]*>$/)) {
				sym = substr($0, RSTART + 2)
				sub(/^[0-9a-f]+ /, "", sym)
				sub(/ *# .*$/, "")
				gsub(/[-0-9a-fx]+\(%rip\)/, sym "(%rip)")
			}
			gsub(/[0-9a-f]+ <[^>]*>/, "&")
			# Targets in the function: where they land moves.
			gsub("[0-9a-f]+ <" fn "\\+0x[0-9a-f]+>", "<" fn "+L>")
			gsub(/[0-9a-f]+ </, "<")
			gsub(/\$0xffffffff[0-9a-f]+/, "$ADDR")
			print
			if ($1 ~ /^call/ && $0 !~ /<__fentry__>/)
				exit
			if ($1 ~ /^(ret|jmp)/ && $0 !~ "<" fn "\\+L>")
				exit
		}'
}

# path_all VMLINUX FUNCTION FILE: path() into FILE, and on into the part
# GCC split off FUNCTION (FUNCTION.part.N, FUNCTION.cold) when the path
# ends in a call or jump to it: the rest of the function, which a split
# (to inline the head into a caller) puts behind one jump more.
path_all() {
	_fn=$2
	path "$1" "$_fn" >"$3"
	while :; do
		_re="s/^\\(call\\|jmp\\) *<\\($_fn\\.\\(part\\.[0-9]*\\|cold\\)\\)>\$/\\2/p"
		_to=$(tail -n 1 "$3" | sed -n "$_re")
		[ -n "$_to" ] || break
		path "$1" "$_to" >>"$3"
		_fn=$_to
	done
}

is_nop() {
	case $1 in
	nop*|"xchg   %ax,%ax")	return 0 ;;
	esac
	return 1
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
for f in $FUNCS; do
	path_all "$1" "$f" "$tmp/a"
	path_all "$2" "$f" "$tmp/b"
	if [ ! -s "$tmp/a" ] && [ ! -s "$tmp/b" ]; then
		echo "KMT-OFFASM $f absent nops 0 instructions 0 +0"
		continue
	fi
	# Drop the no-ops (b) adds: walk both paths, skipping no-ops of (b)
	# that do not match (a)'s next instruction.
	nops=0
	: >"$tmp/b2"
	exec 3<"$tmp/a"
	IFS= read -r la <&3 || la=
	while IFS= read -r lb; do
		if [ "$lb" != "$la" ] && is_nop "$lb"; then
			nops=$((nops + 1))
			continue
		fi
		echo "$lb" >>"$tmp/b2"
		IFS= read -r la <&3 || la=
	done <"$tmp/b"
	exec 3<&-
	n=$(wc -l <"$tmp/a")
	more=$(($(wc -l <"$tmp/b2") - n))
	if cmp -s "$tmp/a" "$tmp/b2" && [ $nops -le 1 ]; then
		echo "KMT-OFFASM $f same nops $nops instructions $n +0"
	elif [ $more -le 0 ] && [ $nops -le 1 ]; then
		echo "KMT-OFFASM $f reordered nops $nops instructions $n +$more"
	else
		echo "KMT-OFFASM $f DIFFERS nops $nops instructions $n +$more"
		diff "$tmp/a" "$tmp/b2" | sed 's/^/    /'
		bad=1
	fi
done
exit $bad
