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
	objs=$(grep -cE '^  (CC|LD|AR) ' "$log")
	kmt_log "patch $i builds ($(($(date +%s) - t))s, $objs objects): $subject"
	i=$((i + 1))
done
kmt_log "bisect-check: the pristine tree and all $((i - 1)) patches build; $(($(date +%s) - t0))s"
