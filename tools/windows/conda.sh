#!/bin/sh
# `ripple record` of conda packages on Windows answers as on Linux: a
# repository with real packages made by tests/support/mkconda.py (a
# .tar.bz2, a .conda with its info-*.tar.zst; and the refused ones: a
# version or build index.json contradicts, a .conda without its info
# tarball, a file that is no archive) is recorded with build/ripple, then
# the same again with build-windows/ripple.exe under Wine (libarchive.dll,
# libbz2-1.dll, libzstd.dll beside it), and each command's stdout, stderr
# and exit status are compared byte for byte (a package's absolute path
# in a message aside: Z:/work/... under Wine). A file that is no archive
# at all is a placeholder on both (engine/run/conda.c), recorded as is.
#
#   tools/windows/conda.sh
#
# Needs build/ripple, build-windows/ripple.exe (ninja windows), python3,
# zstd, git. Exits 1 when any answer differs. `ninja check-windows` runs it.
# RIPPLE_EXE: another ripple.exe (tools/windows/bundle.sh: the bundle's).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
lin=$top/build/ripple
exe=${RIPPLE_EXE:-$top/build-windows/ripple.exe}
wine=${WINE:-/usr/lib/wine/wine64}
out=$top/build-windows/conda
for f in "$lin" "$exe"; do
	[ -f "$f" ] || {
		echo "conda.sh: $f is missing (ninja; ninja windows)" >&2
		exit 2
	}
done
rm -rf "$out"
mkdir -p "$out/repo"
repo=$out/repo
export WINEPREFIX=$top/build-windows/wineprefix WINEDEBUG=-all
unset GITHUB_ACTIONS GITHUB_REF GITHUB_EVENT_NAME GITHUB_BASE_REF \
	RIPPLE_REMOTE_CACHE RIPPLE_REF RIPPLE_CACHE
export TERM=dumb

# The repository of tests/e2e/conda_record_test.c, one folder per case.
(
	set -e
	cd "$repo"
	git init -q -b main .
	printf '.ripple/\ndist/\n' > .gitignore
	mkdir pkg && echo 'x = 1' > pkg/a.py
	cat > ripple.yml <<'YML'
version: 1
roots:
  pkg: {path: pkg, tags: "v*"}
artifacts:
  conda:
    each: {root: [pkg]}
    inputs: [root.sources]
    command: ["true"]
    outputs: ["dist/**/*.conda", "dist/**/*.tar.bz2"]
    version: "${root.version}"
releases:
  pkg:
    each: {root: [pkg]}
    tag: root.tags
    artifacts: [conda]
YML
	git add -A
	git -c user.name=t -c user.email=t@example.com commit -qm c
	git tag v1.0.5
	mk() { python3 "$top/tests/support/mkconda.py" "$@"; }
	f=pkg-1.0.5-h1234_0
	mk conda "dist/ok/$f.conda" pkg 1.0.5 h1234_0
	mk bz2 "dist/ok/$f.tar.bz2" pkg 1.0.5 h1234_0
	mk conda "dist/version/$f.conda" pkg 1.0.4 h1234_0
	mk bz2 "dist/build/$f.tar.bz2" pkg 1.0.5 h9999_0
	mk conda-noinfo "dist/noinfo/$f.conda" pkg 1.0.5 h1234_0
	mkdir -p dist/junk && echo 'no archive' > "dist/junk/$f.tar.bz2"
) > "$out/repo.log" 2>&1 || {
	echo "conda.sh: making the repository failed ($out/repo.log)" >&2
	exit 1
}

f=pkg-1.0.5-h1234_0
node='artifact:conda[root=pkg]'
# The commands, one a line: NAME ARG... (split on spaces).
cmds="record-ok record --run t --tag v1.0.5 --node $node --status ok --artifact dist/ok/$f.conda --artifact dist/ok/$f.tar.bz2
finish record --run t --finish ok
release release v1.0.5 --dry-run --json
version record --run t2 --tag v1.0.5 --node $node --status ok --artifact dist/version/$f.conda
build record --run t3 --tag v1.0.5 --node $node --status ok --artifact dist/build/$f.tar.bz2
noinfo record --run t4 --tag v1.0.5 --node $node --status ok --artifact dist/noinfo/$f.conda
junk record --run t5 --tag v1.0.5 --node $node --status ok --artifact dist/junk/$f.tar.bz2"

# all SIDE RIPPLE...: every command in a fresh .ripple/, outputs in $out.
all() {
	side=$1
	shift
	rm -rf "$repo/.ripple"
	echo "$cmds" | while read -r name args; do
		# shellcheck disable=SC2086
		(cd "$repo" && "$@" $args) > "$out/$name.$side" \
			2> "$out/$name.$side.err"
		echo $? > "$out/$name.$side.rc"
	done
}
all linux "$lin"
all wine "$wine" "$exe"
# A message naming the package by its absolute path says Z:/work/... on
# Windows (Wine's drive for /) where Linux says /work/...: the one
# difference allowed, made equal before comparing.
sed -i "s|Z:$repo/|$repo/|g" "$out"/*.wine.err

n=0 same=0
for name in $(echo "$cmds" | cut -d' ' -f1); do
	n=$((n + 1))
	if cmp -s "$out/$name.linux" "$out/$name.wine" &&
	   cmp -s "$out/$name.linux.err" "$out/$name.wine.err" &&
	   cmp -s "$out/$name.linux.rc" "$out/$name.wine.rc"; then
		same=$((same + 1))
		printf 'same     %-10s exit %s, %5d bytes out, %4d bytes err\n' \
			"$name" "$(cat "$out/$name.linux.rc")" \
			"$(wc -c < "$out/$name.linux")" \
			"$(wc -c < "$out/$name.linux.err")"
	else
		printf 'DIFFERS  %-10s exit %s (Linux) %s (Wine)\n' "$name" \
			"$(cat "$out/$name.linux.rc")" \
			"$(cat "$out/$name.wine.rc")"
		diff "$out/$name.linux" "$out/$name.wine" | head -n 10
		diff "$out/$name.linux.err" "$out/$name.wine.err" | head -n 10
	fi
done
echo "conda: $same of $n record and release commands give the same" \
	"stdout, stderr and exit status on Linux and under Wine"
[ $same = $n ]
