#!/bin/sh
# `ripple keys` at a commit of a generated repository (100,000 files in 500
# packages, one artifact per package) against `git ls-tree -r` of the same
# commit, measured in the same run; reports best-of-R times and the ratio.
#   bench/keys_bench.sh [RIPPLE] [N] [R]
set -eu
ripple=$(realpath "${1:-build/ripple}")
n=${2:-100000}
reps=${3:-5}
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)/repo
trap 'rm -rf "$(dirname "$dir")"' EXIT
"$here/gen-repo.sh" "$dir" "$n" 500 >/dev/null
# One root per package: each artifact's input is that package's sources.
{
	echo "version: 1"
	echo "roots:"
	i=0
	while [ $i -lt 500 ]; do
		printf '  p%03d: {path: pkg%03d}\n' $i $i
		i=$((i + 1))
	done
	echo "artifacts:"
	echo "  lib:"
	echo "    each: {root: roots}"
	echo "    inputs: [root.sources]"
	echo '    command: [cc, "${root.path}"]'
} > "$dir/.rules.yml"

now_ns() { date +%s%N; }
best() {	# best wall time in ms of "$@" over $reps runs
	b=""
	r=0
	while [ $r -lt "$reps" ]; do
		t0=$(now_ns)
		"$@" >/dev/null
		t1=$(now_ns)
		ms=$(( (t1 - t0) / 1000000 ))
		if [ -z "$b" ] || [ "$ms" -lt "$b" ]; then b=$ms; fi
		r=$((r + 1))
	done
	echo "$b"
}
git_ms=$(best git -C "$dir" ls-tree -r HEAD)
keys_ms=$(best "$ripple" -C "$dir" keys --rules "$dir/.rules.yml" --rev HEAD)
files=$(git -C "$dir" ls-tree -r HEAD | wc -l)
echo "repository: $files files, 500 packages, 500 nodes"
echo "git ls-tree -r HEAD   ${git_ms} ms (best of $reps)"
echo "ripple keys --rev HEAD ${keys_ms} ms (best of $reps)"
awk -v a="$keys_ms" -v b="$git_ms" 'BEGIN { if (b < 1) b = 1;
	printf "ratio ripple/git    %.2f (goal: <= 1.00)\n", a / b }'
