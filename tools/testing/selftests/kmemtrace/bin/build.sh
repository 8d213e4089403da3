#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# build.sh NAME FRAGMENT... - configure and build a kernel.
#
# The kernel is built out of tree in $KMT_CACHE/build/VERSION/NAME from
# tinyconfig plus the config fragments, so Kbuild rebuilds only what
# changed.  Fails, naming the log, if the build fails or a fragment's
# option did not make it into the final .config.

set -eu
. "$(dirname "$0")/lib.sh"

name=$1
shift
SRC=${KMT_BUILD_SRC:-$(kmt_src)}
OUT=$(kmt_build "$name")
LOG=$OUT/build.log
mkdir -p "$OUT"
# KMT_KCFLAGS: extra compiler flags (make bench's layout twin of (a)), in
# the environment, where Kbuild reads KCFLAGS: they may be several words.
KMAKE="make -C $SRC O=$OUT ARCH=x86_64 -j$KMT_JOBS"
if [ -n "${KMT_KCFLAGS:-}" ]; then
	KCFLAGS=$KMT_KCFLAGS
	export KCFLAGS
fi

configure() {
	$KMAKE tinyconfig
	"$SRC/scripts/kconfig/merge_config.sh" -m -O "$OUT" "$OUT/.config" "$@"
	$KMAKE olddefconfig
}

# Every option the fragments set (the last one wins) must be in the result.
verify() {
	awk -F= '/^CONFIG_/ { want[$1] = $2 } END { for (o in want) print o "=" want[o] }' "$@" |
	while IFS='=' read -r opt val; do
		if [ "$val" = n ]; then
			! grep -q "^$opt=" "$OUT/.config" || echo "$opt"
		else
			grep -qx "$opt=$val" "$OUT/.config" || echo "$opt"
		fi
	done | sort >"$OUT/config.missing"
	if [ -s "$OUT/config.missing" ]; then
		kmt_log "error: options not set in $OUT/.config (dependencies?):"
		sed 's/^/kmemtrace:   /' "$OUT/config.missing"
		return 1
	fi
}

# Out-of-tree builds need a clean source tree; an in-tree make spoils it.
if [ -e "$SRC/.config" ] || [ -d "$SRC/include/config" ]; then
	kmt_log "source tree was configured in place; cleaning it (make mrproper)"
	make -s -C "$SRC" ARCH=x86_64 mrproper
fi

kmt_log "building kernel '$name' in $OUT (log: $LOG)"
# A kernel with modules also builds them (the samples/kmemtrace tests'),
# in the same make: one walk of the tree instead of two.
targets() {
	echo bzImage
	! grep -q '^CONFIG_MODULES=y' "$OUT/.config" || echo modules
}

# Configuring costs 10-20 s even when nothing changed, so it is skipped
# when the fragments are the same and neither .config nor any Kconfig or
# *.config file of the tree changed since the last configuration (Kbuild
# still runs syncconfig itself when the compiler changes).
STAMP=$OUT/.kmt-configured
want=$(cat "$@" | cksum)
configured() {
	[ -f "$STAMP" ] && [ -f "$OUT/.config" ] && [ "$(cat "$STAMP")" = "$want" ] &&
		[ -z "$(find "$OUT/.config" -newer "$STAMP")" ] &&
		[ -z "$(find "$SRC" \( -name 'Kconfig*' -o -name '*.config' \) \
			-newer "$STAMP" -print -quit)" ]
}
reconfigure() {
	configured && return
	rm -f "$STAMP"
	configure "$@" && echo "$want" >"$STAMP"
}

# shellcheck disable=SC2046 # targets() prints one word per target
if ! { reconfigure "$@" && verify "$@" && $KMAKE $(targets); } >"$LOG" 2>&1; then
	tail -n 30 "$LOG"
	kmt_die "kernel '$name' failed to build; full log: $LOG"
fi
grep -E '^(  CC|  LD|  AR)' "$LOG" | wc -l | sed 's/^/kmemtrace: objects rebuilt: /'
