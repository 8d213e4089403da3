#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bisect-check.sh FRAGMENT... - build the kernel after every patch of the
# series, so that it bisects.
#
# Writes the series (series.sh), checks its commits out one by one in a
# worktree of its repository ($KMT_CACHE/src/VERSION/bisect) and builds
# each, out of tree in $KMT_CACHE/build/VERSION/bisect, from tinyconfig
# plus the config fragments (options the tree does not have yet are
# dropped, as olddefconfig does), with its modules.  Kbuild rebuilds only
# what each patch changes.  Stops at the first patch that does not build.
#
# The patch that adds lib/kmem_trace_kunit.c ends the tracepoint fixes
# that stand without kmemtrace: that kernel is also booted (guest tests
# of mode "off": no kmemtrace files), and its KUnit suite kmem_trace
# must pass, so that the fixes are shown to build, boot and pass their
# tests alone.

set -eu
. "$(dirname "$0")/lib.sh"

GIT=$KMT_CACHE/src/$(kmt_version)/git
TREE=$KMT_CACHE/src/$(kmt_version)/bisect
OUT=$(kmt_build bisect)
KMAKE="make -C $TREE O=$OUT ARCH=x86_64 -j$KMT_JOBS"

"$KMT_BIN/series.sh" || kmt_die "make series failed"
if [ ! -d "$TREE" ]; then
	git -C "$GIT" worktree prune
	git -C "$GIT" worktree add -q --detach "$TREE" pristine ||
		kmt_die "cannot make the worktree $TREE"
fi
mkdir -p "$OUT"
KMT_INITRAMFS=$OUT/initramfs.cpio "$KMT_BIN/mkinitramfs.sh" ||
	kmt_die "cannot make the initramfs"

# fixes_boot I SUBJECT: boot the fixes-only kernel and check its suite.
fixes_boot() {
	name=bisect-fixes
	log=$KMT_CACHE/out/$name/console.log
	KMT_INITRAMFS=$OUT/initramfs.cpio "$KMT_BIN/run.sh" off \
		"trace_event= kunit.filter_glob=kmem_trace" bisect $name ||
		kmt_die "patch $1 ($2) does not boot; console: $log"
	# The serial console ends its lines with CR LF.
	tr -d '\r' <"$log" >"$log.txt"
	pass=$(sed -n 's/^# kmem_trace: pass:\([0-9]*\) fail:0 skip:0 total:\1$/\1/p' "$log.txt")
	[ -n "$pass" ] && [ "$pass" -gt 0 ] &&
		grep -q '^ok [0-9]* kmem_trace$' "$log.txt" &&
		grep -q '^    ok [0-9]* no_kmemtrace$' "$log.txt" ||
		kmt_die "patch $1 ($2): KUnit kmem_trace or the off tests failed; console: $log"
	kmt_log "patch $1 boots without kmemtrace; KUnit kmem_trace: $pass of $pass cases pass"
}

t0=$(date +%s)
i=0
for c in pristine $(git -C "$GIT" rev-list --reverse pristine..kmt-series); do
	subject=$(git -C "$GIT" log -1 --format=%s "$c")
	git -C "$TREE" checkout -q -f --detach "$c" ||
		kmt_die "cannot check out $c"
	log=$OUT/build-$i.log
	t=$(date +%s)
	if ! { $KMAKE tinyconfig &&
	       "$TREE/scripts/kconfig/merge_config.sh" -m -O "$OUT" "$OUT/.config" "$@" &&
	       $KMAKE olddefconfig && $KMAKE bzImage &&
	       { ! grep -q '^CONFIG_MODULES=y' "$OUT/.config" || $KMAKE modules; }
	     } >"$log" 2>&1; then
		tail -n 20 "$log"
		kmt_die "patch $i ($subject) does not build; log: $log"
	fi
	# A patch to code the config does not build rebuilds nothing.
	objs=$(grep -cE '^  (CC|LD|AR) ' "$log" || true)
	kmt_log "patch $i builds ($(($(date +%s) - t))s, $objs objects): $subject"
	if [ -z "${booted:-}" ] && [ -f "$TREE/lib/kmem_trace_kunit.c" ]; then
		[ ! -f "$TREE/include/linux/kmemtrace.h" ] ||
			kmt_die "patch $i: kmem_trace's suite comes after kmemtrace"
		fixes_boot $i "$subject"
		booted=1
	fi
	i=$((i + 1))
done
[ -n "${booted:-}" ] || kmt_die "no patch adds lib/kmem_trace_kunit.c"
kmt_log "bisect-check: the pristine tree and all $((i - 1)) patches build; $(($(date +%s) - t0))s"
