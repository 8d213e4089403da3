#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Apply the kmemtrace series to the extracted kernel tree:
#  - new files: everything under the repository's kernel-path folders,
#  - edits: the patches patches/series names, in its order (no fuzz),
#  - MAINTAINERS: our entries merged into the kernel's, in sorted order.
#
# The result is assembled in a staging directory from pristine copies and
# then written into the tree only where a file's content changed, so Kbuild
# rebuilds just what an edit affects.  Originals are saved in
# $KMT_CACHE/src/VERSION/orig before a file is first overwritten, and a
# file the series stops touching is restored from there.

set -eu
. "$(dirname "$0")/lib.sh"

SRC=$(kmt_src)
ORIG=$(kmt_orig)
STAGE=$KMT_CACHE/stage
MANIFEST=$SRC/.kmt-manifest
OVERLAY_DIRS="Documentation include kernel lib mm samples scripts tools"

[ -f "$SRC/.kmt-extracted" ] || kmt_die "$SRC is not extracted (run make source)"

# The pristine copy of a tree file: saved original, else the untouched tree.
pristine() {
	if [ -e "$ORIG/$1" ]; then
		cat "$ORIG/$1"
	elif [ -e "$ORIG/$1.kmt-new" ]; then
		return 1
	elif [ -e "$SRC/$1" ]; then
		cat "$SRC/$1"
	else
		return 1
	fi
}

stage_pristine() {
	[ -e "$STAGE/$1" ] && return 0
	mkdir -p "$(dirname "$STAGE/$1")"
	pristine "$1" >"$STAGE/$1" || { rm -f "$STAGE/$1"; return 1; }
}

rm -rf "$STAGE"
mkdir -p "$STAGE" "$ORIG"
cd "$KMT_REPO"

# New files at their kernel paths.
git ls-files -co --exclude-standard -- $OVERLAY_DIRS | while read -r f; do
	[ -f "$f" ] || continue
	mkdir -p "$STAGE/$(dirname "$f")"
	cp -p "$f" "$STAGE/$f"
done

# Edits to upstream files.
[ -f patches/series ] || kmt_die "patches/series is missing"
grep -v '^[[:space:]]*\(#\|$\)' patches/series | while read -r p _; do
	case $p in
	*.patch)	;;
	*)		continue ;;	# a commit of new files only
	esac
	[ -f "patches/$p" ] || kmt_die "patches/series names missing patches/$p"
	sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "patches/$p" | while read -r f; do
		stage_pristine "$f" || true
	done
	patch -p1 -F0 -s -N --no-backup-if-mismatch -d "$STAGE" <"patches/$p" ||
		kmt_die "patches/$p does not apply to linux-source-6.12 $(kmt_version)"
done

# Our MAINTAINERS entries, merged in alphabetical order.
stage_pristine MAINTAINERS
awk -f "$KMT_BIN/merge-maintainers.awk" MAINTAINERS \
	"$STAGE/MAINTAINERS" "$STAGE/MAINTAINERS" \
	>"$STAGE/MAINTAINERS.new"
mv "$STAGE/MAINTAINERS.new" "$STAGE/MAINTAINERS"

# Write changed files into the tree, saving originals first.
(cd "$STAGE" && find . -type f | sed 's|^\./||' | sort) >"$STAGE.manifest"
changed=0
while read -r f; do
	if [ ! -e "$ORIG/$f" ] && [ ! -e "$ORIG/$f.kmt-new" ]; then
		mkdir -p "$(dirname "$ORIG/$f")"
		if [ -e "$SRC/$f" ]; then
			cp -p "$SRC/$f" "$ORIG/$f"
		else
			: >"$ORIG/$f.kmt-new"
		fi
	fi
	if ! cmp -s "$STAGE/$f" "$SRC/$f"; then
		mkdir -p "$(dirname "$SRC/$f")"
		cp "$STAGE/$f" "$SRC/$f"
		changed=$((changed + 1))
	fi
done <"$STAGE.manifest"

# Files the series no longer touches go back to upstream, with a new
# time stamp: make must rebuild what was built from the patched file.
restored=0
if [ -f "$MANIFEST" ]; then
	comm -23 "$MANIFEST" "$STAGE.manifest" | while read -r f; do
		if [ -e "$ORIG/$f" ]; then
			cp "$ORIG/$f" "$SRC/$f"
		else
			rm -f "$SRC/$f"
		fi
		rm -f "$ORIG/$f" "$ORIG/$f.kmt-new"
	done
	restored=$(comm -23 "$MANIFEST" "$STAGE.manifest" | wc -l)
fi
mv "$STAGE.manifest" "$MANIFEST"
kmt_log "series applied to $SRC: $changed file(s) updated, $restored restored"
