#!/bin/sh
# Time `ripple check` and `ripple plan` on rules that are large in one
# dimension each, in a one-file repository, to find loops that grow with
# the square of the input (issue 14, item 12). Prints one line per shape:
# its name, N, and the CPU time of each command in milliseconds. A linear
# implementation keeps every shape within a few seconds at N = 100000
# (most well under one; expanding 100,000 nodes is the slowest). The
# sources and artifacts shapes pass the loader's 10^6 YAML nodes past about
# N = 80000 and are refused there, as they should be.
#   bench/scale_bench.sh [N] [SHAPE...]      (RIPPLE=path/to/ripple)
# Shapes: axis-values axis-experimental axis-used matrix-needs
# source-patterns source-excludes sources artifacts map-keys
# yaml-duplicate-keys yaml-anchors yaml-merge roots unknown-names
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-100000}
[ $# -gt 0 ] && shift
shapes=${*:-axis-values axis-experimental axis-used matrix-needs source-patterns source-excludes sources artifacts map-keys yaml-duplicate-keys yaml-anchors yaml-merge roots unknown-names}
ripple=${RIPPLE:-$here/build/ripple}
[ -x "$ripple" ] || { echo "no ripple binary at $ripple (run ninja)" >&2; exit 2; }
ripple=$(cd "$(dirname "$ripple")" && pwd)/$(basename "$ripple")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.invalid
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.invalid
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
git init -q -b main "$tmp/repo"
mkdir -p "$tmp/repo/src"
echo 'int a;' > "$tmp/repo/src/a.c"
printf '.ripple/\n' > "$tmp/repo/.gitignore"
git -C "$tmp/repo" add -A
git -C "$tmp/repo" commit -q -m init

# gen SHAPE N: the rules file on stdout. Lists are written one item a line.
gen() {
	awk -v shape="$1" -v n="$2" 'BEGIN {
	print "version: 1"
	print "policy: {max-nodes: 1000000}"  # lowers nothing: the flag raises the ceiling
	if (shape == "axis-values" || shape == "axis-experimental" ||
	    shape == "axis-used" || shape == "matrix-needs") {
		print "axes:\n  big:\n    values:"
		for (i = 0; i < n; i++)
			printf "      - v%d\n", i
		if (shape == "axis-experimental") {
			print "    experimental:"
			for (i = 0; i < n; i++)
				printf "      - v%d\n", i
		}
	}
	if (shape == "source-patterns" || shape == "source-excludes") {
		print "sources:\n  s:\n    paths:"
		if (shape == "source-patterns")
			for (i = 0; i < n; i++)
				printf "      - p%d/**\n", i
		else
			print "      - \"**\""
		print "      - src/**"
		if (shape == "source-excludes") {
			print "    exclude:"
			for (i = 0; i < n; i++)
				printf "      - p%d/**\n", i
		}
	}
	if (shape == "roots") {
		print "roots:"
		for (i = 0; i < n; i++)
			printf "  r%d: {path: p%d}\n", i, i
	}
	if (shape == "sources") {
		print "sources:"
		for (i = 0; i < n; i++)
			printf "  s%d: {paths: [p%d/**]}\n", i, i
	}
	print "artifacts:"
	if (shape == "axis-values" || shape == "map-keys" ||
	    shape == "axis-experimental" || shape ~ /^yaml-/)
		print "  a: {command: [\"true\"]}"
	if (shape == "axis-used" || shape == "matrix-needs")
		print "  a: {each: {big: axes.big}, command: [\"true\"]}"
	if (shape == "matrix-needs")
		print "  b: {each: {big: axes.big}, needs: [a], command: [\"true\"]}"
	if (shape == "source-patterns" || shape == "source-excludes")
		print "  a: {inputs: [s], command: [\"true\"]}"
	if (shape == "sources")
		for (i = 0; i < n; i++)
			printf "  a%d: {inputs: [s%d], command: [\"true\"]}\n", i, i
	if (shape == "artifacts")
		for (i = 0; i < n; i++)
			printf "  a%d: {needs: [a%d], command: [\"true\"]}\n", i, i + 1, i
	if (shape == "artifacts")
		printf "  a%d: {command: [\"true\"]}\n", n
	if (shape == "unknown-names")	# an error each
		for (i = 0; i < n; i++)
			printf "  a%d: {needs: [b%d], command: [\"true\"]}\n", i, i
	if (shape == "roots")
		print "  a: {command: [\"true\"]}"
	if (shape == "map-keys") {
		print "  b:\n    command: [\"true\"]\n    env:"
		for (i = 0; i < n; i++)
			printf "      K%d: v\n", i
	}
	if (shape == "yaml-duplicate-keys") {	# an error per copy
		print "  b:\n    command: [\"true\"]\n    env:"
		for (i = 0; i < n; i++)
			printf "      K: v\n"
	}
	if (shape == "yaml-anchors" || shape == "yaml-merge") {
		print "  b:\n    command:"
		for (i = 0; i < n; i++)
			printf "      - &v%d x%d\n", i, i
		print "    env: &env"
		for (i = 0; i < n; i++)
			printf "      E%d: *v%d\n", i, i
	}
	if (shape == "yaml-merge") {
		print "  c:\n    command: [\"true\"]\n    env:\n      <<: *env"
		for (i = 0; i < n; i++)
			printf "      F%d: v\n", i
	}
	}'
}

# ms CMD...: the CPU milliseconds (user + system) CMD took; the wall clock
# of a shared machine says more about its neighbours. A failure is shown
# unless the shape expects one ($expect_fail).
ms() {
	t=$( ("$@" >/dev/null 2>"$tmp/err" ||
	    { [ -n "$expect_fail" ] || { echo "failed: $*"; head -5 "$tmp/err"; } >&2; }
	    times) | tail -n 1)
	echo "$t" | awk '{ t = 0; for (i = 1; i <= 2; i++) {
		split($i, a, "m"); sub("s", "", a[2]); t += a[1] * 60 + a[2] }
		printf "%d\n", t * 1000 }'
}

printf '%-18s %8s %10s %10s\n' shape N check_ms plan_ms
for s in $shapes; do
	gen "$s" "$n" > "$tmp/repo/ripple.yml"
	git -C "$tmp/repo" add ripple.yml
	git -C "$tmp/repo" commit -q -m "$s"
	expect_fail=
	case $s in yaml-duplicate-keys|unknown-names) expect_fail=1 ;; esac
	c=$(cd "$tmp/repo" && ms "$ripple" check --no-drift --max-nodes 1000000)
	p=$(cd "$tmp/repo" && ms "$ripple" plan --max-nodes 1000000)
	printf '%-18s %8s %10s %10s\n' "$s" "$n" "$c" "$p"
done
