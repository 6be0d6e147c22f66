#!/bin/sh
# examples/cuda-bindings/demo.sh [DIR]
#
# ripple's main job on the cuda-bindings demo, start to end: make the demo
# repository (in DIR, else a new temporary folder), run CI at main as three
# runners (one per platform) sharing one run, plan and run a pull request
# against it (reuse, rebuild, early cutoff, `why`), run CI at two release
# tags, and ask whether each tag is releasable. The demo's "builds" are tiny
# shell scripts; the whole thing takes about 9 s of CPU time, about that
# much wall time on an idle machine and minutes on a busy one (README.md
# has measured figures). Builds nothing of ripple
# itself: run `./configure && ninja` first. RIPPLE (default build/ripple
# next to this checkout) picks the binary. Exits non-zero when a step does
# not do what it should.
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
log=$(mktemp "${TMPDIR:-/tmp}/ripple-demo-log.XXXXXX")
all=$(mktemp "${TMPDIR:-/tmp}/ripple-demo-all.XXXXXX")
trap 'rm -f "$log" "$all"' EXIT

step=0
heading() {
	step=$((step + 1))
	printf '\n== %d. %s\n' "$step" "$1"
}
note() {	# note LINE...: indented explanation
	printf '%s\n' "$@" | sed 's/^/   /; s/^ *$//'
}
fail() {
	echo "demo: $*" >&2
	exit 1
}
cmdline() {	# cmdline ARG...: print "$ ripple ARG..." quoted for a shell
	printf '$ ripple'
	for a in "$@"; do
		case $a in
		*[!A-Za-z0-9_./=:-]*) printf " '%s'" "$a" ;;
		*) printf ' %s' "$a" ;;
		esac
	done
	printf '\n'
}
clip() {	# clip N: the first N lines of stdin, then how many were cut
	awk -v n="$1" 'NR <= n { print } END {
		if (NR > n) printf "   ... (%d more lines not shown)\n", NR - n }'
}
rip() {	# rip WANT ARG...: run ripple into $log; its exit must be in WANT
	want=$1
	shift
	cmdline "$@"
	rc=0
	"$ripple" "$@" > "$log" 2>&1 || rc=$?
	case " $want " in
	*" $rc "*) ;;
	*) cat "$log"; fail "'ripple $*' exited $rc (expected $want)" ;;
	esac
}
show() {	# show N WANT ARG...: rip, then print at most N lines of output
	n=$1
	shift
	rip "$@"
	clip "$n" < "$log"
}
runners() {	# runners ARG...: `ripple run ARG... --platform P` for each
	: > "$all"	# platform; their output also goes to $all
	for p in linux-64 linux-aarch64 win-64; do
		rip "0 4" run "$@" --platform "$p" --keep-going
		cat "$log" >> "$all"
		# joining, and the summary with its zero counts left out
		grep -E '^run [^ ]+ (ok|failed|interrupted)|^run [^ ]+: joining' \
			"$log" | sed -e 's/, 0 failed//; s/, 0 timed out//; s/, 0 interrupted//' \
			-e 's/, 0 blocked//; s/, 0 skipped//; s/, 0 deferred//' \
			-e 's/, 0 tested//; s/ (0 cut off)//; s/^/   /'
	done
}
upload() {	# upload TAG: keep the tag's dist/ as CI keeps its artifacts
	mkdir -p ".ripple/uploads/$1"
	cp -R dist ".ripple/uploads/$1/"
}
clean_checkout() {	# clean_checkout REV: a CI runner's fresh checkout
	git checkout -q "$1"
	rm -rf dist test-reports
}

heading "Make the demo repository"
note "Two release lines of one package (cuda_bindings_12/ on CUDA 12.9," \
	"cuda_bindings/ on CUDA 13.0), plus cuda_core (built per CUDA major)," \
	"cuda_pathfinder and the cuda_python metapackage; release tags and a" \
	"few pull-request branches. The rules are ripple.yml at the root."
"$here/make-demo-repo" "$dir" > /dev/null || fail "make-demo-repo failed"
cd "$dir"
echo "   in $dir"
show 5 0 check

heading "CI at main: three runners, one run"
note "Each runner executes the nodes of its platform (the others are" \
	"'remote' to it) and records every result, keyed by content, into" \
	"the shared run 'baseline'. No GPU here: GPU tests are 'deferred'," \
	"and ripple exits 4 for that, which is not a failure in this demo."
runners --run-id baseline

heading "Plan a pull request: a fix on the CUDA 12 line only"
git checkout -q pr/bindings-12-fix
note "The branch edits cuda_bindings_12/cuda/bindings/driver.pyx. ripple" \
	"compares each node's content key with the baseline run: changed" \
	"inputs rebuild (root causes), their dependents follow (cascades), and" \
	"everything else, including the whole CUDA 13 line, is reused."
rip 0 plan --base main
note "(one line per node to build or test; the first few:)"
grep -E '^  (build|test) ' "$log" | sed 's/  */ /g; s/^ /   /' | clip 3
grep -E '^[0-9]+ build, ' "$log" | sed 's/^/   /'
grep -qE ', [1-9][0-9]* reuse' "$log" || fail "the plan reuses nothing"

heading "Run the pull request"
note "The same three runners, now with --base main. Nodes the plan reuses" \
	"are copied from the baseline. A cascade whose rebuilt input came out" \
	"byte-identical is 'cut off': reused instead of run (early cutoff)."
runners --base main --run-id pr-bindings-12-fix
cut=$(grep -c 'cut off at' "$all" || true)
if [ "$cut" -gt 0 ]; then
	note "" "Early cutoff: $cut nodes over the three runners, e.g.:"
	grep 'cut off at' "$all" | sed 's/^\[[0-9/]*\] /   /' | clip 2
else
	note "" "(no early cutoff: every rebuilt output changed)"
fi

heading "Why did it rebuild?"
note "A root cause names the file that changed, with both blob ids:"
show 6 0 why 'artifact:bindings-wheel[platform=linux-64,python=3.12,root=bindings-12]' \
	--base main
note "" "A cascade names the upstream whose key changed. core-variant[cuda=12]" \
	"rebuilt because the CUDA 12 bindings did; its output was identical," \
	"which is why the merged core-wheel was cut off above:"
show 6 0 why 'artifact:core-variant[cuda=12,platform=linux-64,python=3.12]' \
	--base main

heading "Versions of the two release lines (from tags, like setuptools-scm)"
note "Every record carries its root's version (rule field version:)." \
	"bindings-12 counts from v12.9.* tags and a fallback version raised" \
	"after each release (12.9.10.dev0 since v12.9.9); bindings-13 from" \
	"v13.0.* tags. On this branch, neither is a release:"
show 1 0 version bindings-12
show 1 0 version bindings-13

heading "CI at the release tags"
note "The tag's CI builds what the release publishes (the release node's" \
	"closure: wheels for every platform and Python, and the sdist), with" \
	"--tag so the records say which tag they are for. Each starts from a" \
	"clean checkout (dist/ removed). At a tag, the version is the tag's."
clean_checkout v13.0.1
show 1 0 version bindings-13
runners 'release:bindings[root=bindings-13]' --tag v13.0.1 --run-id tag-v13.0.1
upload v13.0.1
clean_checkout v12.9.9
show 1 0 version bindings-12
runners 'release:bindings[root=bindings-12]' --tag v12.9.9 --run-id tag-v12.9.9
upload v12.9.9
git checkout -q main

heading "Is a tag releasable? (ripple release TAG --dry-run)"
note "Each check on one line; then the artifacts that would be published," \
	"each recorded by the tag's run, with the tag's version. The release" \
	"reads every file it would publish (here from the tag's uploads)."
show 100 0 release v13.0.1 --dry-run --artifacts .ripple/uploads/v13.0.1
grep -q '^release v13.0.1: ' "$log" || fail "no release line for v13.0.1"
note "" "The maintenance line, from its own tag family (its checks; its" \
	"artifact table is like the one above):"
show 11 0 release v12.9.9 --dry-run --artifacts .ripple/uploads/v12.9.9
note "" "A non-canonical spelling of a version fails (and no CI ran there):"
git tag v13.0.01 pr/bindings-13-change
show 10 1 release v13.0.01 --dry-run
note "" "A real tag that CI never ran at fails too:"
show 10 1 release v13.0.0 --dry-run
grep -q '^FAIL  run ' "$log" || fail "v13.0.0 did not fail its run check"

printf '\nDone. The demo repository is in %s\n' "$dir"
