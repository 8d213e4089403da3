#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# deps.sh [PACKAGE...] - install the Debian packages the kmemtrace build,
# QEMU boot and tool need, or only the PACKAGEs given (make bench's perf
# and bpftrace).  Runs apt-get only when something is missing, so a warm
# machine does not touch the network.  Needs root (or sudo) the first time.

set -eu

PKGS="make gcc libc6-dev flex bison bc libelf-dev libdw-dev libssl-dev
cpio xz-utils kmod perl python3 qemu-system-x86 busybox-static git
ca-certificates libtraceevent-dev trace-cmd time sparse zlib1g-dev
golang-go babeltrace2"
[ $# = 0 ] || PKGS="$*"

missing=
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
	     grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done

[ -z "$missing" ] && exit 0

echo "kmemtrace: installing host packages:$missing"
SUDO=
if [ "$(id -u)" != 0 ]; then
	command -v sudo >/dev/null ||
		{ echo "kmemtrace: error: need root or sudo to install:$missing" >&2; exit 1; }
	SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $missing
