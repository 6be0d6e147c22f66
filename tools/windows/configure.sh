#!/bin/sh
# Configure the Windows build: make sure the libraries are built
# (tools/windows/deps.sh, cached under build-windows/deps), then write
# build-windows/config.ninja for windows.ninja. `ninja windows` runs this.
#
#   tools/windows/configure.sh [--no-deps]
#
# --no-deps: use the prefix as it is, leaving out (with a warning) the
# libraries not built yet; `ninja -f windows.ninja check-windows` needs
# only libzip, ripple.exe needs them all.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
out=build-windows
deps=$out/deps
host=x86_64-w64-mingw32

nodeps=no
if [ "${1:-}" = --no-deps ]; then
	nodeps=yes
else
	nice -n 10 sh tools/windows/deps.sh "$deps"
fi

prefix=$(cd "$deps/prefix" && pwd)
pkgs="libgit2 yaml-0.1 libxxhash sqlite3 jansson libprotobuf-c libcrypto
libpcre2-8 libpcre2-posix"
export PKG_CONFIG_LIBDIR="$prefix/lib/pkgconfig"
export PKG_CONFIG_PATH=
have=
for p in $pkgs; do
	if pkg-config --exists "$p"; then
		have="$have $p"
	elif [ $nodeps = yes ]; then
		echo "configure.sh: warning: $p not built yet; ripple.exe" \
			"will not build without it" >&2
	else
		echo "configure.sh: $p missing in $PKG_CONFIG_LIBDIR" \
			"(run tools/windows/deps.sh)" >&2
		exit 1
	fi
done
cflags=$([ -z "$have" ] || pkg-config --cflags $have)
libs=$([ -z "$have" ] || pkg-config --libs $have)
command -v protoc-c >/dev/null || {
	echo "configure.sh: protoc-c (protobuf-c-compiler) runs on this" \
		"machine; install it" >&2
	exit 1
}

# Every program links the manifest (UTF-8 code page, long paths) and
# CRT_noglob.o: MinGW's C runtime would otherwise expand wildcards in
# arguments ('artifact:*' would match files in the current folder).
mkdir -p "$out"
$host-windres -I tools/windows tools/windows/ripple.rc -O coff \
	-o "$out/manifest.o"
noglob=$($host-gcc -print-file-name=CRT_noglob.o)

# __USE_MINGW_ANSI_STDIO: mingw-w64's own C99 printf (%zu, %lld) in place
# of msvcrt's. -Wno-format: GCC reads format(printf) on MinGW as msvcrt's
# dialect and flags every %zu; the Linux build checks the same strings.
# --stack 8 MiB: the main thread's stack reserve (mingw-w64's default is
# 2 MiB), as Linux's main thread and base/pool.c's threads have: the
# main thread keys source sets too (worker 0, and all of -j 1), by walks
# that recurse once per folder (a 4,096-deep tree: about 1.1 MiB under
# Wine). Reserved, not committed: pages are committed as they are used.
# CURL_STATICLIB, ZIP_STATIC, LIBARCHIVE_STATIC: libcurl, libzip and
# libarchive are loaded at run time (base/dl.h); cache/curl_dl.c,
# -Wl,--build-id: the CodeView record host_build_id (base/host_win.c) reads,
# which keys the rules model memo to this build (without one, no memo).
# engine/run/zip_dl.c and engine/run/archive_dl.c define their functions
# as forwarders, which curl.h, zip.h and archive.h would otherwise
# declare dllimport.
mkdir -p "$out"
cat > "$out/config.ninja" <<NINJA
# written by tools/windows/configure.sh; edits are lost on the next run
cc = $host-gcc
winprefix = $prefix
extra_cflags = -D__USE_MINGW_ANSI_STDIO=1 -D_WIN32_WINNT=0x0A00 -Wno-format -DCURL_STATICLIB -DZIP_STATIC -DLIBARCHIVE_STATIC
extra_ldflags = -static-libgcc -Wl,--stack,8388608 -Wl,--build-id $out/manifest.o $noglob
pkg_cflags = $cflags
pkg_libs = $libs -Wl,-Bstatic -lwinpthread -Wl,-Bdynamic -lbcrypt
protoc_c = protoc-c
wine = ${WINE:-/usr/lib/wine/wine64}
winegcc = ${WINEGCC:-winegcc}
NINJA
echo "configure.sh: wrote $out/config.ninja (libraries in $prefix)"
