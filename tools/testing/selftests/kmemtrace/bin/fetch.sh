#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Fetch Debian's linux-source-6.12 package at the pinned version (KMT_PIN)
# into $KMT_CACHE/dl and extract it once into $KMT_CACHE/src/VERSION.
# When the pinned version is gone from the archive, the newest 6.12 the
# archive offers is used instead, with a loud warning.  A cached package is
# used without asking the archive at all.

set -eu
. "$(dirname "$0")/lib.sh"

PKG=linux-source-6.12
DL=$KMT_CACHE/dl
mkdir -p "$DL"

deb_of() {
	# apt-get download escapes ':' in the epoch as %3a; 6.12 has none.
	echo "$DL/${PKG}_$1_all.deb"
}

download() {
	(cd "$DL" && apt-get download -q "$PKG=$1") >"$DL/download.log" 2>&1
}

fallback() {
	newest=$(apt-cache madison "$PKG" 2>/dev/null | awk '{ print $3; exit }')
	if [ -z "$newest" ] && [ -f "$(deb_of "$(kmt_version)")" ]; then
		newest=$(kmt_version)	# offline: the one already cached
	fi
	[ -n "$newest" ] || kmt_die "no $PKG in the apt archive (see $DL/download.log)"
	cat >&2 <<-MSG
	kmemtrace: ****************************************************
	kmemtrace: WARNING: pinned $PKG $KMT_PIN is not in the archive.
	kmemtrace: WARNING: falling back to the newest: $newest
	kmemtrace: WARNING: update KMT_PIN in the Makefile if it works.
	kmemtrace: ****************************************************
	MSG
	echo "$newest"
}

ver=$KMT_PIN
if [ ! -f "$(deb_of "$ver")" ]; then
	kmt_log "downloading $PKG $ver"
	if ! download "$ver" &&
	   ! { apt-get update -q >/dev/null 2>&1 && download "$ver"; }; then
		ver=$(fallback)
		[ -f "$(deb_of "$ver")" ] || download "$ver" ||
			kmt_die "cannot download $PKG $ver (see $DL/download.log)"
	fi
fi
echo "$ver" >"$KMT_CACHE/version.new"
mv "$KMT_CACHE/version.new" "$KMT_CACHE/version"

src=$(kmt_src)
if [ -f "$src/.kmt-extracted" ]; then
	exit 0
fi
kmt_log "extracting $PKG $ver into $src"
rm -rf "$(dirname "$src")"
mkdir -p "$(dirname "$src")"
dpkg-deb --fsys-tarfile "$(deb_of "$ver")" |
	tar -xO ./usr/src/linux-source-6.12.tar.xz |
	tar -xJ -C "$(dirname "$src")"
[ -f "$src/Makefile" ] || kmt_die "$PKG $ver did not contain linux-source-6.12/"
touch "$src/.kmt-extracted"
