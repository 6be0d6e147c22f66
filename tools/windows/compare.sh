#!/bin/sh
# The Windows build answers as the Linux build does: run the demo's
# read-only commands with build/ripple and with build-windows/ripple.exe
# under Wine, on the same repository, and compare their output byte for
# byte (JSON, text) and their exit status.
#
#   tools/windows/compare.sh [DEMO]
#
# DEMO: a repository made by examples/cuda-bindings/demo.sh (its runs are
# in its cache, so plans reuse, releases find their runs); default
# build-windows/compare/demo, made with the Linux ripple, and made again
# when build/ripple changed (its SHA-256 in compare/demo.stamp). Needs
# build/ripple (./configure && ninja) and build-windows/ripple.exe (ninja
# windows). Prints one line per command; exits 1 when any stdout or exit
# status differs, showing how (stderr differences are shown, not failed:
# notes about the machine, such as its CUDA toolkits, may differ). Then
# parallel cold plans (source sets keyed on threads: -j 1 and -j 4, both
# builds, the same bytes; strace shows -j 4 starting threads under Wine)
# on a clone of the demo without its cache, and on a repository whose
# folders nest 4,096 and 4,097 deep (tests/support/mkdeep.py; python3):
# the same keys, and the same error, on every thread. `ninja
# check-windows` runs it.
# RIPPLE_EXE: another ripple.exe to compare (tools/windows/bundle.sh: the
# one in the dist-windows bundle, unpacked alone).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
lin=$top/build/ripple
exe=${RIPPLE_EXE:-$top/build-windows/ripple.exe}
wine=${WINE:-/usr/lib/wine/wine64}
out=$top/build-windows/compare
for f in "$lin" "$exe"; do
	[ -x "$f" ] || [ -f "$f" ] || {
		echo "compare.sh: $f is missing (ninja; ninja windows)" >&2
		exit 2
	}
done
command -v "$wine" >/dev/null 2>&1 || {
	echo "compare.sh: no Wine at $wine (apt-get install wine64)" >&2
	exit 2
}
mkdir -p "$out"
demo=${1:-$out/demo}
stamp=
if [ $# -eq 0 ]; then
	stamp=$(sha256sum < "$lin")
	[ "$stamp" = "$(cat "$out/demo.stamp" 2>/dev/null)" ] || rm -rf "$demo"
fi
if [ ! -d "$demo/.git" ]; then
	rm -rf "$demo"
	echo "compare.sh: making the demo repository in $demo"
	RIPPLE=$lin sh examples/cuda-bindings/demo.sh "$demo" \
		> "$out/demo.log" 2>&1 || {
		echo "compare.sh: demo.sh failed (see $out/demo.log)" >&2
		exit 1
	}
	[ -z "$stamp" ] || echo "$stamp" > "$out/demo.stamp"
fi
demo=$(cd "$demo" && pwd)
export WINEPREFIX=$top/build-windows/wineprefix WINEDEBUG=-all
# The same environment for both: no colours, no GitHub, no remote cache.
unset GITHUB_ACTIONS GITHUB_REF GITHUB_EVENT_NAME GITHUB_BASE_REF \
	RIPPLE_REMOTE_CACHE RIPPLE_REF RIPPLE_CACHE
export TERM=dumb

n=0 same=0 notes=0
# one NAME ARG...: run both, compare stdout and exit status.
one() {
	name=$1
	shift
	n=$((n + 1))
	(cd "$demo" && "$lin" "$@") > "$out/$name.linux" 2> "$out/$name.linux.err"
	lrc=$?
	(cd "$demo" && "$wine" "$exe" "$@") > "$out/$name.wine" \
		2> "$out/$name.wine.err"
	wrc=$?
	if [ $lrc = $wrc ] && cmp -s "$out/$name.linux" "$out/$name.wine"; then
		same=$((same + 1))
		printf 'same     %-14s exit %d, %6d bytes: ripple %s\n' "$name" \
			$lrc "$(wc -c < "$out/$name.linux")" "$*"
	else
		printf 'DIFFERS  %-14s exit %d (Linux) %d (Wine): ripple %s\n' \
			"$name" $lrc $wrc "$*"
		diff "$out/$name.linux" "$out/$name.wine" | head -n 20
		head -n 5 "$out/$name.wine.err"
	fi
	# Notes on stderr may differ where the machines do (a CUDA toolkit
	# installed for Linux is no toolkit for Windows): shown, not failed.
	if ! cmp -s "$out/$name.linux.err" "$out/$name.wine.err"; then
		notes=$((notes + 1))
		diff "$out/$name.linux.err" "$out/$name.wine.err" |
			sed -n 's/^[<>] /         stderr: &/p' | head -n 4
	fi
}

wheel='artifact:bindings-wheel[platform=linux-64,python=3.12,root=bindings-12]'
core='artifact:core-variant[cuda=12,platform=linux-64,python=3.12]'
one version --version
one check check --json
one plan plan --json
one plan-base plan --base main --json
one plan-pr plan --head pr/bindings-12-fix --base main --json
one plan-docs plan --head pr/docs-only --base main --json
one plan-text plan --head pr/bindings-12-fix --base main --verbose
one why why "$wheel" --head pr/bindings-12-fix --base main --json
one why-core why "$core" --head pr/bindings-12-fix --base main --json
one version-12 version bindings-12 --json
one version-13 version bindings-13 --json
one version-tag version bindings-13 --rev v13.0.1 --json
one release-13 release v13.0.1 --dry-run --json \
	--artifacts .ripple/uploads/v13.0.1
one release-12 release v12.9.9 --dry-run --json \
	--artifacts .ripple/uploads/v12.9.9
one release-bad release v13.0.01 --dry-run --json
one graph graph --format json
one run-dry-win run --dry-run --platform win-64 --json
one graph-dot graph --format dot

# jobs DIR NAME STRICT ARG...: `ripple ARG... -j 1` and `-j 4` (source
# sets keyed on 4 threads: base/pool.c on winpthreads under Wine), on
# Linux and under Wine, in DIR: stdout and exit status the same all four
# ways; stderr the same between -j 1 and -j 4 of each build and, with
# STRICT (yes), between the builds too (errors on stderr, no toolkit
# notes).
jobs() {
	dir=$1 name=$2 strict=$3
	shift 3
	n=$((n + 1))
	for j in 1 4; do
		(cd "$dir" && "$lin" "$@" -j $j) > "$out/$name.linux$j" \
			2> "$out/$name.linux$j.err"
		echo $? > "$out/$name.linux$j.rc"
		(cd "$dir" && "$wine" "$exe" "$@" -j $j) > "$out/$name.wine$j" \
			2> "$out/$name.wine$j.err"
		echo $? > "$out/$name.wine$j.rc"
	done
	ok=yes last=no
	for v in linux4 wine1 wine4; do
		cmp -s "$out/$name.linux1" "$out/$name.$v" &&
			cmp -s "$out/$name.linux1.rc" "$out/$name.$v.rc" ||
			ok="stdout or exit status of $v"
	done
	for b in linux wine; do
		cmp -s "$out/$name.${b}1.err" "$out/$name.${b}4.err" ||
			ok="stderr of $b -j 1 and -j 4"
	done
	[ $strict = no ] ||
		cmp -s "$out/$name.linux1.err" "$out/$name.wine1.err" ||
		ok="stderr of Linux and Wine"
	lrc=$(cat "$out/$name.linux1.rc")
	if [ "$ok" = yes ]; then
		same=$((same + 1)) last=yes
		printf 'same     %-14s exit %d, %6d bytes, -j 1 and -j 4: ripple %s\n' \
			"$name" $lrc $(($(wc -c < "$out/$name.linux1") + \
			$(wc -c < "$out/$name.linux1.err"))) "$*"
	else
		printf 'DIFFERS  %-14s %s: ripple %s\n' "$name" "$ok" "$*"
		for v in linux4 wine1 wine4; do
			diff "$out/$name.linux1" "$out/$name.$v" | head -n 5
			diff "$out/$name.linux1.err" "$out/$name.$v.err" |
				head -n 5
		done
	fi
}

# Cold plans keyed on threads (issue 28): a clone of the demo without its
# cache (no memo: every source set is keyed, more than 8 of them, so -j 4
# starts threads).
cold=$out/cold
rm -rf "$cold"
git clone -q "$demo" "$cold" || exit 1
jobs "$cold" cold-plan no plan --json
jobs "$cold" cold-plan-pr no plan --head origin/pr/bindings-12-fix \
	--base origin/main --json
jobs "$cold" cold-why no why "$wheel" --head origin/pr/bindings-12-fix \
	--base origin/main --json

# That -j 4 started threads under Wine (without them the answers above
# would agree trivially): strace counts the threads of ripple.exe's
# process with -j 4 and -j 1, Wine's server started before.
if command -v strace >/dev/null 2>&1; then
	n=$((n + 1))
	# Threads the process's first thread made (wine64 becomes
	# ripple.exe's process; Wine's server and services are others).
	for j in 1 4; do
		"$wine" "$exe" --version > /dev/null 2>&1
		(cd "$cold" && strace -f -qq -e trace=clone,clone3 \
			-o "$out/threads$j.txt" "$wine" "$exe" plan --json \
			-j $j) > "$out/threads$j.json" 2> /dev/null
		echo $? > "$out/threads$j.rc"
		pid=$(sed -n '1s/ .*//p' "$out/threads$j.txt")
		eval "t$j=\$(grep -c \"^\${pid:-none} .*CLONE_THREAD\" \
			\"\$out/threads\$j.txt\")"
	done
	if [ "$t4" -gt "$t1" ] && [ "$(cat "$out/threads1.rc")" = 0 ] &&
		[ "$(cat "$out/threads4.rc")" = 0 ] &&
		cmp -s "$out/threads1.json" "$out/cold-plan.linux1" &&
		cmp -s "$out/threads4.json" "$out/cold-plan.linux1"; then
		same=$((same + 1))
		echo "same     threads        ripple.exe plan -j 4 started" \
			"$((t4 - t1)) more threads than -j 1 under Wine"
	else
		echo "DIFFERS  threads        ripple.exe plan under Wine:" \
			"$t4 threads with -j 4, $t1 with -j 1 (exit" \
			"$(cat "$out/threads4.rc"), $(cat "$out/threads1.rc")), or" \
			"a plan other than Linux's"
	fi
else
	echo "note     threads        not counted: no strace"
fi

# Folders 4,096 deep (graph/tree.c's limit, git's core.maxTreeDepth),
# walked by recursion on the pool's threads, whose stacks Windows makes
# smaller than Linux's by default (base/pool.c sets 8 MiB): 16 sets over
# them key as with -j 1 and as on Linux; 4,097 deep is the same clear
# error on every thread, never a crash.
deep=$out/deep
rm -rf "$deep"
mkdir -p "$deep"
(cd "$deep" && git init -q && ok=$(python3 "$top/tests/support/mkdeep.py" \
	4096 16) && bad=$(python3 "$top/tests/support/mkdeep.py" 4097 16) &&
	git update-ref refs/heads/ok "$ok" && git update-ref refs/heads/bad \
	"$bad" && git -c core.maxTreeDepth=100000 repack -adq &&
	git -c core.maxTreeDepth=100000 prune) > /dev/null 2>&1 || {
	echo "compare.sh: could not make the deep repository in $deep" >&2
	exit 1
}
jobs "$deep" deep-plan yes plan --head ok --json
jobs "$deep" deep-why yes why artifact:n00 --head ok --json
jobs "$deep" deep-too-deep yes plan --head bad --json
if [ $last = yes ] && ! grep -q 'tree too deep: folders nest more than 4096' \
	"$out/deep-too-deep.wine4.err"; then
	echo "DIFFERS  deep-too-deep  not the error expected:" \
		"$(head -c 200 "$out/deep-too-deep.wine4.err")"
	same=$((same - 1))
fi
# A set keyed from tree ids (n01: d01/**) is refused at 4,097 too.
jobs "$deep" deep-too-deep-ids yes why artifact:n01 --head bad --json

echo "compare: $same of $n commands give the same output and exit status" \
	"on Linux and under Wine ($demo); $notes with other notes on stderr"
[ $same = $n ]
