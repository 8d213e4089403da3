#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tep-compare.sh DIR - decode the kmem_alloc/kmem_free entries a guest
# saved in DIR (see guest/ftrace.sh) with libtraceevent, from the format
# files alone, and check that they are exactly the entries the tracer's
# own raw output printed.

set -eu
. "$(dirname "$0")/lib.sh"

dir=$1
dec=$KMT_CACHE/tool/tep-decode
cc -Wall -O2 -o "$dec" "$KMT_SELFTESTS/host/tep-decode.c" -ltraceevent
# raw output: pid cpu ts, then type kind call_site ptr req alloc ... (15
# fields) for kmem_alloc, type call_site ptr bytes ... (10) for kmem_free.
awk 'NF == 15 { print $4, $5, $6, $7, $8, $9 } NF == 10 { print $4, $5, $6, $7 }' \
	"$dir/trace.raw" | sort >"$dir/want"
"$dec" "$dir" | sort >"$dir/got"
kmt_log "libtraceevent decoded $(wc -l <"$dir/got") kmem entries," \
	"the tracer printed $(wc -l <"$dir/want")"
[ -s "$dir/want" ] && cmp -s "$dir/want" "$dir/got"
