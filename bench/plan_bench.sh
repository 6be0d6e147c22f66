#!/bin/sh
# Benchmark `ripple plan` and `ripple why` on a generated repository of
# 100,000 files over 500 packages (bench/gen-repo.sh), one source set and
# one artifact per package, a baseline run recorded with `ripple record`,
# and a head commit that edits 10 files in 3 packages. Compares the plan
# with `git diff --name-only BASE HEAD` on the same repository in the same
# run (hyperfine when installed, else a timing loop of $RUNS runs, median).
# Goals (issue 4): plan <= 1.5 x git diff; why < 50 ms.
#   bench/plan_bench.sh [DIR] [N] [P]      (RIPPLE=path/to/ripple, RUNS=10)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-${TMPDIR:-/tmp}/ripple-plan-bench}
n=${2:-100000}
p=${3:-500}
runs=${RUNS:-10}
ripple=${RIPPLE:-$here/build/ripple}
[ -x "$ripple" ] || { echo "no ripple binary at $ripple (run ninja)" >&2; exit 2; }
ripple=$(cd "$(dirname "$ripple")" && pwd)/$(basename "$ripple")

"$here/bench/gen-repo.sh" "$dir" "$n" "$p" >/dev/null
cd "$dir"
git config user.email bench@example.com
git config user.name Bench
# Rules on the base commit (main~1); the 10 edits are replayed on top.
git checkout -q -b bench main~1
awk -v p="$p" 'BEGIN {
	print "version: 1"
	print "sources:"
	for (i = 0; i < p; i++)
		printf "  src-pkg%03d: {paths: [pkg%03d/**]}\n", i, i
	print "artifacts:"
	for (i = 0; i < p; i++)
		printf "  pkg%03d: {inputs: [src-pkg%03d], command: [build, pkg%03d]}\n", i, i, i
	print "policy:"
	print "  unclaimed-paths: rebuild-all"
}' > ripple.yml
printf '.ripple/\n' > .gitignore
git add ripple.yml .gitignore
git commit -q -m rules
base=$(git rev-parse HEAD)
t0=$(date +%s%N)
"$ripple" record --run base --node '*' --status ok >/dev/null
"$ripple" record --run base --finish ok
t1=$(date +%s%N)
git cherry-pick main >/dev/null
echo "repository: $dir, $(git ls-files | wc -l) files, $p artifacts"
echo "record of the baseline run: $(( (t1 - t0) / 1000000 )) ms"
echo "changed: $(git diff --name-only "$base" HEAD | wc -l) files"
"$ripple" plan --base "$base" | tail -1

# median wall time in ms of a command line, $runs runs after one warm-up
median_ms() {
	sh -c "$1" >/dev/null 2>&1
	i=0
	while [ $i -lt "$runs" ]; do
		s=$(date +%s%N)
		sh -c "$1" >/dev/null 2>&1
		e=$(date +%s%N)
		echo $(( (e - s) / 1000 ))
		i=$((i + 1))
	done | sort -n | awk '{ v[NR] = $1 } END {
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.2f\n", m / 1000 }'
}

plan="'$ripple' plan --base $base"
gitdiff="git diff --name-only $base HEAD"
why="'$ripple' why artifact:pkg000 --base $base"
if command -v hyperfine >/dev/null 2>&1; then
	hyperfine -N --warmup 2 --runs "$runs" "$gitdiff" "$plan" "$why"
fi
g=$(median_ms "$gitdiff")
pl=$(median_ms "$plan")
w=$(median_ms "$why")
echo "git diff --name-only: $g ms (median of $runs)"
echo "ripple plan:          $pl ms"
echo "ripple why:           $w ms"
awk -v g="$g" -v p="$pl" -v w="$w" 'BEGIN {
	r = g > 0 ? p / g : 0
	printf "plan / git diff:      %.2fx (goal <= 1.5x): %s\n", r,
		r <= 1.5 ? "met" : "MISSED"
	printf "why:                  %.2f ms (goal < 50 ms): %s\n", w,
		w < 50 ? "met" : "MISSED"
}'
