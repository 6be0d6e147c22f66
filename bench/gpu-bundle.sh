#!/bin/sh
# Carry a ripple built here to a machine that lacks its libraries (a GPU
# machine with Ubuntu 24.04 and no libgit2 or libyaml): copy the binary and
# every shared library it loads, except glibc's own (the loader, libc, libm,
# libdl, libpthread, librt, libresolv: the target's newer glibc serves), into
# one folder. bench/gpu-two-majors.sh --bundle DIR then puts on
# LD_LIBRARY_PATH only those the target does not have itself. The git
# program goes along too (OUTDIR/bin/git), for make-demo-repo on a machine
# without git; the script uses it only where git is missing.
# A default build links libgit2, SQLite and their chain from static
# archives (./configure): ldd then lists only Kerberos' GSSAPI and its
# libraries besides glibc, and the bundle's other libraries are those of
# the dlopened libcurl, libzip and libarchive; a --shared-libs build
# carries libgit2 and the rest as well.
#
#   bench/gpu-bundle.sh [--without LIB]... [RIPPLE] [OUTDIR]
#                                   (default build/ripple, gpu/bundle)
#
# --without LIB leaves out a library ripple loads only when a command needs
# it (libarchive, libcurl, libzip: the start of its soname) and everything
# only it pulls in: libarchive brings libxml2 and 30 MB of ICU data, more
# than a device run's carry allows beside the CUDA debs. A command that
# needs it then says which package to install, as on a machine without it.
#
# Writes OUTDIR/ripple, OUTDIR/lib/<soname>... and OUTDIR/MANIFEST (where
# each came from, and the system it was built on). Removes OUTDIR first.
set -eu

without=
while [ $# -gt 0 ]; do
	case $1 in
	--without) [ $# -ge 2 ] || { echo "gpu-bundle: --without needs a" \
		"library name (libarchive, libcurl, libzip)" >&2; exit 2; }
		without="$without $2"; shift 2 ;;
	-*) echo "gpu-bundle: unknown option '$1'" >&2; exit 2 ;;
	*) break ;;
	esac
done
bin=${1:-build/ripple}
out=${2:-gpu/bundle}
[ -x "$bin" ] || {
	echo "gpu-bundle: no ripple binary at '$bin' (run ./configure && ninja)" >&2
	exit 2
}
command -v ldd >/dev/null 2>&1 || { echo "gpu-bundle: needs ldd" >&2; exit 2; }
if ldd "$bin" | grep -q 'not found'; then
	ldd "$bin" >&2
	echo "gpu-bundle: '$bin' does not find all its libraries here" >&2
	exit 1
fi

rm -rf "$out"
mkdir -p "$out/lib" "$out/bin"
cp "$bin" "$out/ripple"
git=$(command -v git || true)
[ -n "$git" ] && cp "$git" "$out/bin/git"
{
	echo "# ripple bundle made by bench/gpu-bundle.sh"
	echo "# built on: $(. /etc/os-release && echo "$PRETTY_NAME"), $(uname -m)"
	echo "# binary: $bin; git: ${git:-none}"
	echo "# soname  copied from"
} > "$out/MANIFEST"
# Libraries ripple dlopens when a command needs them (base/dl.h: the
# remote cache's libcurl, cache/curl_dl.c; the wheel reader's libzip,
# engine/run/zip_dl.c): ldd of the binary does not list them.
dl=
# (Their sonames are the ones ./configure found: libzip.so.4 on Debian 12,
# libzip.so.5 on Debian 13; build/config.ninja names them.)
for soname in $(grep -o 'RIPPLE_LIB[A-Z]*_SONAME=\\"[^\\]*' \
		build/config.ninja 2>/dev/null | sed 's/.*"//') ; do
	skip=no
	for w in $without; do
		case $soname in "$w".so*) skip=yes ;; esac
	done
	if [ $skip = yes ]; then
		echo "# $soname  left out (--without)" >> "$out/MANIFEST"
		continue
	fi
	path=$(ldconfig -p 2>/dev/null | awk -v s="$soname" \
		'$1 == s && $NF ~ /^\// { print $NF; exit }')
	if [ -z "$path" ]; then
		echo "gpu-bundle: $soname is not installed here (left out)" >&2
		continue
	fi
	dl="$dl $path"
done
{
	ldd "$bin"
	[ -n "$git" ] && ldd "$git"
	for path in $dl; do
		echo "	$(basename "$path") => $path (0)"
		ldd "$path"
	done
} |
	awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' | sort -u |
while read -r soname path; do
	case $soname in
	ld-linux*|libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*|\
	libresolv.so.*)
		continue ;;
	esac
	cp -L "$path" "$out/lib/$soname"
	echo "$soname  $path" >> "$out/MANIFEST"
done
echo "gpu-bundle: $out: ripple and $(ls "$out/lib" | wc -l) libraries," \
	"$(du -sh "$out" | cut -f1)"
cat "$out/MANIFEST"
