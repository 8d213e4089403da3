# SPDX-License-Identifier: GPL-2.0
#
# Shared settings of the kmemtrace QEMU harness, sourced by the other
# scripts in this directory.  Everything is driven by the top-level
# Makefile, which exports KMT_CACHE, KMT_PIN and KMT_REPO.

: "${KMT_REPO:?KMT_REPO must name the kmemtrace repository}"
: "${KMT_CACHE:?KMT_CACHE must name the cache directory}"
: "${KMT_PIN:?KMT_PIN must name the pinned linux-source-6.12 version}"

# Sub-makes get their own -j; an outer make's jobserver only adds noise.
unset MAKEFLAGS MFLAGS MAKELEVEL

KMT_BIN=$KMT_REPO/tools/testing/selftests/kmemtrace/bin
KMT_SELFTESTS=$KMT_REPO/tools/testing/selftests/kmemtrace
KMT_JOBS=${KMT_JOBS:-$(nproc)}

kmt_die() {
	echo "kmemtrace: error: $*" >&2
	exit 1
}

kmt_log() {
	echo "kmemtrace: $*"
}

# kmt_qemu_version: qemu-system-x86_64's version, e.g. "10.0.2".
kmt_qemu_version() {
	qemu-system-x86_64 --version 2>/dev/null |
		sed -n '1s/^QEMU emulator version \([0-9][0-9.]*\).*/\1/p'
}

# kmt_qemu_mttcg: whether QEMU's multi-threaded TCG runs patched kernel
# text correctly: 8.1 or later.  Before QEMU commit deba78709a ("accel/tcg:
# Always lock pages before translation"), a vCPU translating a function
# while another vCPU's text_poke() wrote its last byte could keep the old
# translation: the guest then took an int3 no longer in memory ("Oops:
# int3" at __free_pages+0x1, the __fentry__ call kmemtrace_enable() had
# just patched, with the patched call in the Code: line).  Single-threaded
# TCG cannot race so; run.sh falls back to it on an older QEMU.
kmt_qemu_mttcg() {
	_v=$(kmt_qemu_version)
	_major=${_v%%.*}
	_minor=${_v#*.}
	_minor=${_minor%%.*}
	[ -n "$_major" ] && [ "$_major" -gt 8 ] 2>/dev/null ||
		{ [ "$_major" = 8 ] && [ "$_minor" -ge 1 ]; }
}

# The version actually used: the pin, unless fetch.sh had to fall back.
kmt_version() {
	if [ -f "$KMT_CACHE/version" ]; then
		cat "$KMT_CACHE/version"
	else
		echo "$KMT_PIN"
	fi
}

kmt_src() {
	echo "$KMT_CACHE/src/$(kmt_version)/linux-source-6.12"
}

# kmt_build_tsan: the tool again, with ThreadSanitizer, for the host test
# of -j's threads: print its path, or fail with the build's log.
kmt_build_tsan() {
	_tsan=$KMT_CACHE/tool/tsan
	mkdir -p "$_tsan"
	make -s -j"$(nproc)" -C "$KMT_REPO/tools/kmemtrace" O="$_tsan" \
		KERNEL_SRC="$(kmt_src)" EXTRA_CFLAGS=-fsanitize=thread \
		LDFLAGS=-fsanitize=thread >"$_tsan/build.log" 2>&1 || {
		cat "$_tsan/build.log" >&2
		echo "kmemtrace: tools/kmemtrace (ThreadSanitizer) failed to build" >&2
		return 1
	}
	echo "$_tsan/kmemtrace"
}

kmt_orig() {
	echo "$KMT_CACHE/src/$(kmt_version)/orig"
}

# kmt_pristine: the unpatched tree, a worktree of series.sh's repository
# at its tag "pristine", made (and the repository with it) if missing.
kmt_pristine() {
	_git=$KMT_CACHE/src/$(kmt_version)/git
	_tree=$KMT_CACHE/src/$(kmt_version)/pristine
	if [ ! -d "$_tree" ]; then
		git -C "$_git" rev-parse -q --verify pristine >/dev/null 2>&1 ||
			"$KMT_BIN/series.sh" >/dev/null || kmt_die "make series failed"
		git -C "$_git" worktree prune
		git -C "$_git" worktree add -q --detach "$_tree" pristine ||
			kmt_die "cannot make the worktree $_tree"
	fi
	echo "$_tree"
}

kmt_build() {
	echo "$KMT_CACHE/build/$(kmt_version)/$1"
}
