#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# series.sh - the kmemtrace series as a maintainer applies it.
#
#   series.sh          write it: one commit per line of patches/series on
#                      a git repository of the pristine Debian tree, then
#                      git format-patch with a cover letter into
#                      $KMT_CACHE/series/
#   series.sh --check  write it, then git am the whole series on the
#                      pristine tree and compare the result, byte for
#                      byte, with the tree prepare.sh builds; one PASS or
#                      FAIL line per check ("series.NAME")
#
# The repository ($KMT_CACHE/src/VERSION/git) is made once from the
# package's tarball and tagged "pristine".  Each commit that adds files
# also adds their F: lines to our MAINTAINERS entry, so that the entry
# exists from the first new file on and get_maintainer.pl works at every
# commit.  Commits get the identity of
# our MAINTAINERS entry, its Signed-off-by, and author dates one minute
# apart, ending at the date of the repository's last commit.

set -u
. "$(dirname "$0")/lib.sh"

SRC=$(kmt_src)
GIT=$KMT_CACHE/src/$(kmt_version)/git
OUT=$KMT_CACHE/series
SERIES=$KMT_REPO/patches/series
OVERLAY_DIRS="Documentation include kernel lib mm samples scripts tools"
check=
[ "${1:-}" = --check ] && check=1

fails=0
result() {	# result PASS|FAIL NAME [WHY]
	if [ -n "$check" ]; then
		echo "$1 series.$2"
	elif [ "$1" = FAIL ]; then
		echo "kmemtrace: series: $2: ${3:-failed}" >&2
	fi
	[ "$1" = PASS ] || fails=$((fails + 1))
	[ "$1" = PASS ] || [ -z "${3:-}" ] || echo "kmemtrace: series: $3" >&2
}

git_() {
	git -C "$GIT" -c user.name="$NAME" -c user.email="$EMAIL" \
		-c advice.addIgnoredFile=false -c core.autocrlf=false "$@"
}

# The project identity: the M: line of our MAINTAINERS entry.
ident=$(sed -n 's/^M:[[:space:]]*//p' "$KMT_REPO/MAINTAINERS" | head -n 1)
NAME=${ident% <*}
EMAIL=${ident##*<}
EMAIL=${EMAIL%>}
[ -n "$NAME" ] && [ -n "$EMAIL" ] || kmt_die "no M: line in MAINTAINERS"

pristine_repo() {
	git -C "$GIT" rev-parse -q --verify pristine >/dev/null 2>&1 && return
	kmt_log "making a git repository of the pristine tree in $GIT"
	rm -rf "$GIT" "$GIT.tmp"
	mkdir -p "$GIT.tmp"
	dpkg-deb --fsys-tarfile "$KMT_CACHE/dl/linux-source-6.12_$(kmt_version)_all.deb" |
		tar -xO ./usr/src/linux-source-6.12.tar.xz |
		tar -xJ -C "$GIT.tmp" || kmt_die "cannot extract the kernel source"
	mv "$GIT.tmp/linux-source-6.12" "$GIT"
	rmdir "$GIT.tmp"
	git -C "$GIT" init -q
	git_ add -f -A
	GIT_AUTHOR_DATE="2025-01-01T00:00:00Z" GIT_COMMITTER_DATE="2025-01-01T00:00:00Z" \
		git_ commit -q -m "linux-source-6.12 $(kmt_version)" ||
		kmt_die "cannot commit the pristine tree"
	git_ tag pristine
}

# Check out the pristine tree on a branch, and nothing else.
reset_to() {
	git_ checkout -q -f -B "$1" pristine &&
	git_ clean -q -f -d -x
}

entries() {
	grep -v '^[[:space:]]*\(#\|$\)' "$SERIES"
}

# The new files a series line names, as git ls-files lists them.
new_files() {
	[ $# -gt 0 ] || return 0
	git -C "$KMT_REPO" ls-files -co --exclude-standard -- "$@"
}

# Author dates: one minute apart, the last at the repository's HEAD.
n=$(entries | wc -l)
end=$(git -C "$KMT_REPO" log -1 --format=%ct 2>/dev/null || date +%s)
start=$((end - 60 * n))

pristine_repo
reset_to kmt-series || kmt_die "cannot reset $GIT"
rm -rf "$OUT"
mkdir -p "$OUT"
: >"$OUT/added"

i=0
entries | while read -r first paths; do
	i=$((i + 1))
	f=$KMT_REPO/patches/$first
	[ -f "$f" ] || kmt_die "patches/series names missing patches/$first"
	case $first in
	*.patch)
		git_ apply --index "$f" ||
			kmt_die "patches/$first does not apply to the pristine tree"
		;;
	*.msg)	;;
	*)	kmt_die "patches/series: $first is neither .patch nor .msg" ;;
	esac
	for p in $paths; do
		files=$(new_files "$p")
		[ -n "$files" ] || kmt_die "patches/series: no new file under $p"
		for nf in $files; do
			mkdir -p "$GIT/$(dirname "$nf")"
			cp -p "$KMT_REPO/$nf" "$GIT/$nf"
			echo "$nf" >>"$OUT/added"
		done
		(cd "$GIT" && echo "$files" | xargs git -c advice.addIgnoredFile=false add -f)
	done
	# Our MAINTAINERS entry grows with the files: its F: lines that
	# match something in the tree by now, merged into the kernel's.
	if [ -n "$paths" ]; then
		git_ show pristine:MAINTAINERS >"$OUT/MAINTAINERS.orig"
		awk -v root="$GIT" '
			/^F:/ {
				p = $2; sub(/\/$/, "", p)
				if (system("ls -d " root "/" p " >/dev/null 2>&1"))
					next
			}
			{ print }' "$KMT_REPO/MAINTAINERS" >"$OUT/MAINTAINERS.ours"
		awk -f "$KMT_BIN/merge-maintainers.awk" "$OUT/MAINTAINERS.ours" \
			"$OUT/MAINTAINERS.orig" "$OUT/MAINTAINERS.orig" >"$GIT/MAINTAINERS"
		rm -f "$OUT/MAINTAINERS.orig" "$OUT/MAINTAINERS.ours"
		git_ add MAINTAINERS
	fi
	# The message: the mail header's subject, then the body.
	git mailinfo "$OUT/msg" /dev/null <"$f" >"$OUT/info" ||
		kmt_die "patches/$first: no mail header"
	subject=$(sed -n 's/^Subject: //p' "$OUT/info")
	from=$(sed -n 's/^Author: //p' "$OUT/info")
	email=$(sed -n 's/^Email: //p' "$OUT/info")
	[ "$from <$email>" = "$ident" ] ||
		kmt_die "patches/$first: From: is not $ident"
	{ echo "$subject"; echo; cat "$OUT/msg"; } >"$OUT/commit-msg"
	grep -qx "Signed-off-by: $ident" "$OUT/commit-msg" ||
		kmt_die "patches/$first: no Signed-off-by: $ident"
	d="@$((start + 60 * i)) +0000"
	GIT_AUTHOR_DATE=$d GIT_COMMITTER_DATE=$d \
		git_ commit -q --allow-empty-message -F "$OUT/commit-msg" ||
		kmt_die "patches/$first: nothing to commit"
done || exit 1
rm -f "$OUT/msg" "$OUT/info" "$OUT/commit-msg"

# Every patch and every new file in exactly one commit.
entries | awk '{ print $1 }' | sort >"$OUT/listed"
sort -u "$OUT/added" >"$OUT/added.s"
missing=$(cd "$KMT_REPO/patches" && ls -- *.patch *.msg | sort | comm -23 - "$OUT/listed")
twice=$(uniq -d "$OUT/listed"; sort "$OUT/added" | uniq -d)
unlisted=$(new_files $OVERLAY_DIRS | sort | comm -23 - "$OUT/added.s")
rm -f "$OUT/listed" "$OUT/added" "$OUT/added.s"
if [ -z "$missing$twice$unlisted" ]; then
	result PASS covers_every_patch_and_file
else
	result FAIL covers_every_patch_and_file \
		"not in patches/series, or in it twice: $missing $twice $unlisted"
fi

# The series and its cover letter.
git_ format-patch -q --binary --cover-letter --thread=shallow --zero-commit \
	-o "$OUT" pristine..kmt-series || kmt_die "git format-patch failed"
cover=$OUT/0000-cover-letter.patch
subject=$(sed -n 's/^Subject: \[PATCH\] //p' "$KMT_REPO/patches/0000-cover-letter.txt" | head -n 1)
awk -v subject="$subject" -v blurb="$KMT_REPO/patches/0000-cover-letter.txt" \
    -v table="$KMT_SELFTESTS/bench-results.txt" -v version="$(kmt_version)" '
	function body(file, skip,   line, n) {
		while ((getline line <file) > 0) {
			if (skip && !n) {
				if (line == "")
					n = 1
				continue
			}
			if (line == "@TABLE@") {
				while ((getline line <table) > 0)
					print (line == "" ? "" : "  " line)
				continue
			}
			gsub(/@VERSION@/, version, line)
			print line
		}
	}
	/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, subject) }
	/\*\*\* BLURB HERE \*\*\*/ { body(blurb, 1); next }
	{ print }' "$cover" >"$cover.new" && mv "$cover.new" "$cover"
grep -q 'HERE \*\*\*' "$cover" && kmt_die "cover letter template not filled"

if [ -z "$check" ]; then
	kmt_log "series: $(ls "$OUT"/*.patch | wc -l) files (cover letter and $n patches) in $OUT/"
	exit $fails
fi

# Every commit: our identity as author, its Signed-off-by, dates in order.
bad=$(git_ log --reverse --format='%H %at %an <%ae>' pristine..kmt-series |
	awk -v ident="$ident" '{
		id = $3; for (i = 4; i <= NF; i++) id = id " " $i
		if (id != ident || $2 <= last) print $1
		last = $2 }')
for c in $(git_ rev-list pristine..kmt-series); do
	git_ log -1 --format=%B "$c" | grep -qx "Signed-off-by: $ident" || bad="$bad $c"
done
if [ -z "$bad" ] && [ "$(git_ rev-list --count pristine..kmt-series)" = "$n" ]; then
	result PASS signed_off_in_date_order
else
	result FAIL signed_off_in_date_order \
		"commits without identity, sign-off or date order: $bad"
fi

# git am of the whole series on the pristine tree gives the harness's tree.
reset_to kmt-am || kmt_die "cannot reset $GIT"
# shellcheck disable=SC2046
if git_ am -q --no-3way --keep-cr $(ls "$OUT"/[0-9]*.patch | grep -v /0000-) 2>"$OUT/am.log"; then
	result PASS git_am_applies
else
	git_ am --abort 2>/dev/null
	result FAIL git_am_applies "$(head -n 5 "$OUT/am.log")"
fi
if diff -r -q -x .git -x '.kmt-*' "$GIT" "$SRC" >"$OUT/identity.diff" 2>&1; then
	result PASS git_am_tree_is_the_harness_tree
else
	result FAIL git_am_tree_is_the_harness_tree \
		"$(wc -l <"$OUT/identity.diff") differences, see $OUT/identity.diff"
fi
reset_to kmt-series >/dev/null 2>&1
exit $fails
