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
# build-windows/compare/demo, made once with the Linux ripple. Needs
# build/ripple (./configure && ninja) and build-windows/ripple.exe (ninja
# windows). Prints one line per command; exits 1 when any stdout or exit
# status differs, showing how (stderr differences are shown, not failed:
# notes about the machine, such as its CUDA toolkits, may differ). `ninja
# check-windows` runs it.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
lin=$top/build/ripple
exe=$top/build-windows/ripple.exe
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
if [ ! -d "$demo/.git" ]; then
	rm -rf "$demo"
	echo "compare.sh: making the demo repository in $demo"
	RIPPLE=$lin sh examples/cuda-bindings/demo.sh "$demo" \
		> "$out/demo.log" 2>&1 || {
		echo "compare.sh: demo.sh failed (see $out/demo.log)" >&2
		exit 1
	}
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
one graph-dot graph --format dot
echo "compare: $same of $n commands give the same output and exit status" \
	"on Linux and under Wine ($demo); $notes with other notes on stderr"
[ $same = $n ]
