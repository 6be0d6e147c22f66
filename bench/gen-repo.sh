#!/bin/sh
# Generate a benchmark repository with git fast-import: N files (default
# 100000) spread over P top-level packages (default 500), each package
# pkgNNN/ holding src/dK/ folders of 20 files, plus a second commit that
# edits 10 files in 3 packages (for incremental measurements).
#   bench/gen-repo.sh DIR [N] [P]
set -eu
dir=${1:?usage: bench/gen-repo.sh DIR [N] [P]}
n=${2:-100000}
p=${3:-500}
rm -rf "$dir"
git init -q -b main "$dir"
awk -v n="$n" -v p="$p" '
function blob(text) {
	printf "data %d\n%s", length(text), text
}
BEGIN {
	per = int((n + p - 1) / p)
	printf "commit refs/heads/main\n"
	printf "author Bench <bench@example.com> 1704067200 +0000\n"
	printf "committer Bench <bench@example.com> 1704067200 +0000\n"
	blob("generated\n")
	made = 0
	for (i = 0; i < p && made < n; i++)
		for (j = 0; j < per && made < n; j++) {
			printf "M 100644 inline pkg%03d/src/d%02d/f%03d.c\n", i, int(j / 20), j
			blob(sprintf("/* package %d file %d */\nint f%d_%d;\n", i, j, i, j))
			made++
		}
	printf "\ncommit refs/heads/main\n"
	printf "author Bench <bench@example.com> 1704153600 +0000\n"
	printf "committer Bench <bench@example.com> 1704153600 +0000\n"
	blob("ten edits in three packages\n")
	for (k = 0; k < 10; k++) {
		printf "M 100644 inline pkg%03d/src/d00/f%03d.c\n", (k % 3) * 7, k
		blob(sprintf("/* edited %d */\n", k))
	}
	printf "\n"
}' | git -C "$dir" fast-import --quiet
git -C "$dir" checkout -q main
echo "$dir: $(git -C "$dir" ls-files | wc -l) files"
