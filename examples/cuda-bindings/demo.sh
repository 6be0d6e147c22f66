#!/bin/sh
# examples/cuda-bindings/demo.sh [DIR]
#
# ripple's main job on the cuda-bindings demo, start to end: make the demo
# repository (in DIR, else a new temporary folder), record a baseline CI run
# at main, then ask ripple what a pull request must build and test, why,
# which versions the two release lines have, and whether a tag is
# releasable. Builds nothing itself: run `./configure && ninja` first.
# RIPPLE (default build/ripple next to this checkout) picks the binary.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
ripple=${RIPPLE:-$top/build/ripple}
case $ripple in /*) ;; *) ripple=$(pwd)/$ripple ;; esac
[ -x "$ripple" ] || {
	echo "demo: no ripple binary at $ripple (run ./configure && ninja first)" >&2
	exit 2
}
if [ $# -ge 1 ]; then
	dir=$1
else
	dir=$(mktemp -d "${TMPDIR:-/tmp}/ripple-demo.XXXXXX")
fi

step=0
heading() {
	step=$((step + 1))
	printf '\n== %d. %s\n' "$step" "$1"
}
note() {
	printf '%s\n' "$@" | sed 's/^/   /; s/^ *$//'
}
show() {	# show CMD...: print the command, then run it
	printf '\n$ ripple'
	for a in "$@"; do
		case $a in
		*[!A-Za-z0-9_./=:-]*) printf " '%s'" "$a" ;;
		*) printf ' %s' "$a" ;;
		esac
	done
	printf '\n'
	"$ripple" "$@"
}
fail() {
	echo "demo: $*" >&2
	exit 1
}

heading "Make the demo repository"
note "Two release lines of one package (cuda_bindings_12/ on CUDA 12.9," \
	"cuda_bindings/ on CUDA 13.0), plus cuda_core (built per CUDA major)," \
	"cuda_pathfinder and the cuda_python metapackage; tags and a few" \
	"pull-request branches. Rules: ripple.yml at the repository's root."
"$here/make-demo-repo" "$dir" > /dev/null || fail "make-demo-repo failed"
cd "$dir"
echo "   in $dir"
show check || fail "ripple check failed"

heading "Record a baseline: CI ran everything at main"
if "$ripple" run --help > /dev/null 2>&1; then
	note "ripple run builds and tests every node at main and remembers" \
		"each result with its content key."
	show run --run baseline > /dev/null || fail "ripple run failed at main"
	echo "   (done: every node built or tested at main)"
else
	note "This ripple has no 'run' yet: record every node at main as" \
		"passed, as a CI job would after building them."
	"$ripple" record --run baseline --node '*' --status ok > /dev/null ||
		fail "ripple record failed"
	"$ripple" record --run baseline --finish ok > /dev/null ||
		fail "ripple record --finish failed"
	echo "   recorded $("$ripple" graph --format json | grep -c '"id"') nodes in run 'baseline'"
fi

heading "Plan a pull request: a fix on the CUDA 12 line only"
git checkout -q pr/bindings-12-fix
note "The branch edits cuda_bindings_12/cuda/bindings/driver.pyx. ripple" \
	"compares every node's content key with the baseline: what changed is" \
	"rebuilt (root causes), what depends on it follows (cascades), the rest" \
	"is reused. The CUDA 13 line and core's CUDA 13 variant are untouched."
show plan --base main || fail "ripple plan failed"

heading "Why did it rebuild?"
note "A root cause names the file that changed, with both blob ids:"
show why 'artifact:bindings-wheel[platform=linux-64,python=3.12,root=bindings-12]' \
	--base main || fail "ripple why failed"
note "" "A cascade names its upstream chain down to that root cause:"
show why 'test:core-tests[cuda=12,platform=linux-64,python=3.12]' \
	--base main || fail "ripple why failed"
note "" "And a reused node says where its result comes from:"
show why 'test:core-tests[cuda=13,platform=linux-64,python=3.12]' \
	--base main || fail "ripple why failed"

heading "Versions of the two release lines (from tags, like setuptools-scm)"
git checkout -q main
note "bindings-12 has tags v12.9.* and a fallback 12.9.10.dev0 that" \
	"older releases do not end; bindings-13 counts from its v13.0.* tags."
show version bindings-12 || fail "ripple version failed"
show version bindings-13 || fail "ripple version failed"
show version bindings-13 --rev v13.0.1 || fail "ripple version failed"

heading "Is a tag releasable?"
if "$ripple" release --help > /dev/null 2>&1; then
	note "CI ran at the tag v13.0.1 (recorded here as run 'tag-v13.0.1')."
	"$ripple" record --run tag-v13.0.1 --rev v13.0.1 --tag v13.0.1 \
		--node '*' --status ok > /dev/null &&
		"$ripple" record --run tag-v13.0.1 --finish ok > /dev/null ||
		fail "ripple record failed at v13.0.1"
	note "v13.0.1 belongs to the current line, its notes exist and its CI" \
		"run is complete: the dry run passes."
	show release v13.0.1 --dry-run || fail "release v13.0.1 should pass"
	note "" "v13.0.01 is a non-canonical spelling on a commit of no CI run:" \
		"the dry run fails and says why."
	git tag v13.0.01 pr/bindings-13-change
	if show release v13.0.01 --dry-run; then
		fail "release v13.0.01 should fail"
	fi
	echo "   (failed, as expected)"
else
	note "This ripple has no 'release' command yet: skipping the release dry run."
fi

printf '\nDone. The demo repository is in %s\n' "$dir"
