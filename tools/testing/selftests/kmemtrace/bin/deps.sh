#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# deps.sh [PACKAGE...] - install the Debian packages the kmemtrace build,
# QEMU boot and tool need, or only the PACKAGEs given (make bench's perf
# and bpftrace).  Runs apt-get only when something is missing, so a warm
# machine does not touch the network.  Needs root (or sudo) the first time.
#
# The boots need QEMU 8.1 or later (kmt_qemu_mttcg in lib.sh says why).
# Debian 12's is 7.2: without arguments, this installs bookworm-backports'
# qemu-system-x86 instead (or over it), adding that suite to apt's sources
# as /etc/apt/sources.list.d/kmemtrace-bookworm-backports.sources.

set -eu
. "$(dirname "$0")/lib.sh"

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

old_qemu=
[ $# != 0 ] || kmt_qemu_mttcg || old_qemu=1

[ -z "$missing" ] && [ -z "$old_qemu" ] && exit 0

SUDO=
if [ "$(id -u)" != 0 ]; then
	command -v sudo >/dev/null ||
		kmt_die "need root or sudo to install:$missing${old_qemu:+ QEMU 8.1+}"
	SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive

# On Debian 12, QEMU from bookworm-backports: added to apt's sources
# first, so that a new machine downloads one QEMU, not two.
bpo=
if [ -n "$old_qemu" ] && grep -qx 'VERSION_CODENAME=bookworm' /etc/os-release 2>/dev/null; then
	bpo=1
	rest=
	for p in $missing; do
		[ "$p" = qemu-system-x86 ] || rest="$rest $p"
	done
	missing=$rest
	if ! apt-cache policy 2>/dev/null | grep -q 'bookworm-backports'; then
		printf '%s\n' 'Types: deb' 'URIs: http://deb.debian.org/debian' \
			'Suites: bookworm-backports' 'Components: main' \
			'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' |
			$SUDO tee /etc/apt/sources.list.d/kmemtrace-bookworm-backports.sources \
			>/dev/null
	fi
fi

$SUDO apt-get update -q
if [ -n "$missing" ]; then
	echo "kmemtrace: installing host packages:$missing"
	# shellcheck disable=SC2086
	$SUDO apt-get install -y -q --no-install-recommends $missing
fi
if [ -n "$bpo" ]; then
	v=$(kmt_qemu_version)
	echo "kmemtrace: QEMU ${v:-is missing}${v:+ is older than 8.1}:" \
		"installing bookworm-backports' qemu-system-x86"
	$SUDO apt-get install -y -q --no-install-recommends \
		-t bookworm-backports qemu-system-x86 ||
		echo "kmemtrace: warning: bookworm-backports' QEMU did not install" >&2
fi
if [ $# = 0 ] && ! kmt_qemu_mttcg; then
	v=$(kmt_qemu_version)
	echo "kmemtrace: warning: QEMU ${v:-is missing}${v:+ is older than 8.1}:" \
		"the boots run single-threaded TCG" >&2
fi
