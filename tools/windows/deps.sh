#!/bin/sh
# Build ripple's libraries for x86_64 Windows with Debian's mingw-w64, from
# Debian's own source packages (`apt-get source`, pinned below; no binaries
# from anywhere else), into a prefix with pkg-config files:
#
#   tools/windows/deps.sh [DIR]     DIR defaults to build-windows/deps
#
# DIR/prefix/{bin,include,lib,lib/pkgconfig}: the DLLs (bin), headers and
# import libraries. DIR/dl holds the source packages, DIR/src their trees,
# DIR/logs one log per package, DIR/stamps one stamp per package and
# version: a package whose stamp exists is not built again, so changing a
# pin rebuilds that package (and, by hand, what links it: rm DIR/stamps/*).
# Runs one job at a time (JOBS to change) and is meant to run nice'd.
#
# Needs (Debian 12): gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64
# mingw-w64-tools cmake dpkg-dev tcl perl (SQLite's amalgamation) and deb-src
# lines for the Debian mirror (docs/windows.md says how).
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
deps=${1:-$top/build-windows/deps}
mkdir -p "$deps"
deps=$(cd "$deps" && pwd)
prefix=$deps/prefix
host=x86_64-w64-mingw32
jobs=${JOBS:-1}
toolchain=$top/tools/windows/mingw-w64.cmake

# The pins: Debian 12 (bookworm) source packages, in build order.
pins="
zlib=1:1.2.13.dfsg-1
libyaml=0.2.5-1
sqlite3=3.40.1-2+deb12u2
jansson=2.14-2
xxhash=0.8.1-1
pcre2=10.42-1
http-parser=2.9.4-5
libgit2=1.5.1+ds-1+deb12u1
curl=7.88.1-10+deb12u15
protobuf-c=1.4.1-1
libzip=1.7.3-1
openssl=3.0.17-1~deb12u2
bzip2=1.0.8-5
libzstd=1.5.4+dfsg2-5
libarchive=3.6.2-1+deb12u4
"

for t in $host-gcc cmake dpkg-source tclsh make; do
	command -v $t >/dev/null 2>&1 || {
		echo "deps.sh: $t not found; install gcc-mingw-w64-x86-64" \
			"g++-mingw-w64-x86-64 mingw-w64-tools cmake dpkg-dev tcl" >&2
		exit 1
	}
done

mkdir -p "$deps/dl" "$deps/src" "$deps/logs" "$deps/stamps" \
	"$prefix/bin" "$prefix/include" "$prefix/lib/pkgconfig"

# A prefix built in another folder and copied here (another checkout's
# build-windows/deps, a restored CI cache) still names that folder in its
# pkg-config files, libtool archives and *-config scripts: ripple.exe
# would compile against the other tree's headers and libraries. They are
# made to name this one (zlib.pc, written by pc() below, says where the
# prefix was built). No zlib.pc yet (a first build): nothing to rewrite;
# the file is tested first, as sed's failure would end the script (set -e).
was=
if [ -f "$prefix/lib/pkgconfig/zlib.pc" ]; then
	was=$(sed -n 's/^prefix=//p' "$prefix/lib/pkgconfig/zlib.pc")
fi
if [ -n "$was" ] && [ "$was" != "$prefix" ]; then
	echo "deps.sh: the prefix was built in $was; its files now name" \
		"$prefix"
	grep -rlI -F "$was" "$prefix/lib" "$prefix/bin" 2>/dev/null |
		while read -r f; do
			sed -i "s|$was|$prefix|g" "$f"
		done
fi

export PKG_CONFIG_LIBDIR="$prefix/lib/pkgconfig"
export PKG_CONFIG_PATH=
export CFLAGS="-O2 -g0"
export LDFLAGS="-static-libgcc"

# fetch PKG VERSION: the verified, unpacked tree; prints its path.
fetch() {
	pkg=$1 ver=$2
	dsc=${pkg}_${ver#*:}.dsc
	if [ ! -f "$deps/dl/$dsc" ]; then
		# apt-get may fail on a detached signature (.asc) the mirror
		# lacks after fetching the rest; dpkg-source -x checks every
		# file against the .dsc's checksums below.
		(cd "$deps/dl" && apt-get source --download-only \
			"$pkg=$ver") >&2 || true
		[ -f "$deps/dl/$dsc" ] || {
			echo "deps.sh: cannot fetch $pkg $ver from the mirror" \
				"(deb-src lines? a newer pin?)" >&2
			exit 1
		}
	fi
	tree=$deps/src/$pkg-${ver#*:}
	rm -rf "$tree"
	dpkg-source -x "$deps/dl/$dsc" "$tree" >&2
	echo "$tree"
}

# pc NAME TITLE DESCRIPTION VERSION LIBS: write NAME.pc for the prefix.
pc() {
	cat > "$prefix/lib/pkgconfig/$1.pc" <<EOF
prefix=$prefix
libdir=\${prefix}/lib
includedir=\${prefix}/include
Name: $2
Description: $3 (Debian source, built for Windows)
Version: $4
Libs: -L\${libdir} $5
Cflags: -I\${includedir}
EOF
}

cmake_build() {
	src=$1; shift
	rm -rf "$src/_win"
	cmake -S "$src" -B "$src/_win" -G "Unix Makefiles" \
		-DCMAKE_TOOLCHAIN_FILE="$toolchain" \
		-DRIPPLE_WIN_PREFIX="$prefix" \
		-DCMAKE_BUILD_TYPE=Release \
		-DCMAKE_C_FLAGS_RELEASE="-O2 -DNDEBUG" \
		-DCMAKE_INSTALL_PREFIX="$prefix" \
		-DCMAKE_PREFIX_PATH="$prefix" \
		-DCMAKE_INSTALL_LIBDIR=lib \
		-DBUILD_SHARED_LIBS=ON "$@"
	cmake --build "$src/_win" -j "$jobs"
	cmake --install "$src/_win"
}

autotools_build() {
	src=$1; shift
	(cd "$src" && ./configure --host=$host --prefix="$prefix" \
		--enable-shared --disable-static "$@" &&
		make -j "$jobs" && make install)
}

# zlib: Debian's tree (dfsg) has no win32/ folder, so neither zlib's CMake
# nor its win32 makefile builds a DLL; the library is 15 files, compiled
# here into zlib1.dll, the name zlib's own Windows builds use.
build_zlib() {
	src=$1
	objs=
	for f in adler32 compress crc32 deflate gzclose gzlib gzread gzwrite \
		infback inffast inflate inftrees trees uncompr zutil; do
		$host-gcc $CFLAGS -c "$src/$f.c" -o "$src/$f.o"
		objs="$objs $src/$f.o"
	done
	$host-gcc -shared -o "$prefix/bin/zlib1.dll" $objs $LDFLAGS \
		-Wl,--out-implib,"$prefix/lib/libz.dll.a"
	cp "$src/zlib.h" "$prefix/include/"
	cp "$src/zconf.h.in" "$prefix/include/zconf.h"
	v=$(sed -n 's/^#define ZLIB_VERSION "\(.*\)"/\1/p' "$src/zlib.h")
	pc zlib zlib "zlib compression library" "$v" -lz
}

# libyaml: Debian's tree has no configure script; CMake builds the DLL but
# writes no pkg-config file.
build_libyaml() {
	cmake_build "$1" -DBUILD_TESTING=OFF -DINSTALL_CMAKE_DIR=lib/cmake/yaml
	pc yaml-0.1 LibYAML "YAML parser and emitter" 0.2.5 -lyaml
}

# SQLite's Debian tree is the full source: tclsh makes the amalgamation on
# this machine, then it is compiled once into sqlite3.dll.
build_sqlite3() {
	src=$1
	mkdir -p "$src/_host"
	(cd "$src/_host" && ../configure --disable-tcl >/dev/null &&
		make sqlite3.c sqlite3.h)
	$host-gcc $CFLAGS -shared -o "$prefix/bin/sqlite3.dll" \
		-DSQLITE_THREADSAFE=1 -DSQLITE_ENABLE_FTS5 \
		-DSQLITE_ENABLE_DBSTAT_VTAB -DSQLITE_API='__declspec(dllexport)' \
		"$src/_host/sqlite3.c" $LDFLAGS \
		-Wl,--out-implib,"$prefix/lib/libsqlite3.dll.a"
	cp "$src/_host/sqlite3.h" "$src/src/sqlite3ext.h" "$prefix/include/"
	v=$(sed -n 's/^#define SQLITE_VERSION *"\(.*\)"/\1/p' \
		"$src/_host/sqlite3.h")
	pc sqlite3 SQLite "SQL database engine" "$v" -lsqlite3
}

build_jansson() {
	cmake_build "$1" -DJANSSON_BUILD_SHARED_LIBS=ON \
		-DJANSSON_BUILD_DOCS=OFF -DJANSSON_WITHOUT_TESTS=ON \
		-DJANSSON_EXAMPLES=OFF
}

# xxHash: one translation unit, kept as a static archive (no DLL).
build_xxhash() {
	src=$1
	$host-gcc $CFLAGS -c "$src/xxhash.c" -o "$src/xxhash.o"
	$host-ar crs "$prefix/lib/libxxhash.a" "$src/xxhash.o"
	cp "$src/xxhash.h" "$prefix/include/"
	[ ! -f "$src/xxh3.h" ] || cp "$src/xxh3.h" "$prefix/include/"
	v=$(awk '/define XXH_VERSION_(MAJOR|MINOR|RELEASE)/{printf "%s%s", s, $3; s="."}' \
		"$src/xxhash.h")
	pc libxxhash xxHash "extremely fast hash" "$v" -lxxhash
}

build_pcre2() {
	cmake_build "$1" -DBUILD_STATIC_LIBS=OFF -DPCRE2_BUILD_PCRE2_8=ON \
		-DPCRE2_BUILD_TESTS=OFF \
		-DPCRE2_BUILD_PCRE2GREP=OFF -DPCRE2_SUPPORT_JIT=OFF
}

# http-parser: Debian's libgit2 is repacked without its bundled copy, so
# libgit2 links Debian's http-parser (a static archive inside git2.dll).
build_http_parser() {
	src=$1
	$host-gcc $CFLAGS -DHTTP_PARSER_STRICT=0 -c "$src/http_parser.c" \
		-o "$src/http_parser.o"
	$host-ar crs "$prefix/lib/libhttp_parser.a" "$src/http_parser.o"
	cp "$src/http_parser.h" "$prefix/include/"
}

# libgit2 without SSH, HTTPS through WinHTTP. Debian's tree has no deps/
# (its winhttp import library for old MinGW included): mingw-w64 10 ships
# winhttp.h and libwinhttp.a, so the MinGW branch links those instead.
build_libgit2() {
	src=$1
	sed -i 's|add_subdirectory("${PROJECT_SOURCE_DIR}/deps/winhttp".*|# deps/winhttp: mingw-w64 has its own (tools/windows/deps.sh)|' \
		"$src/cmake/SelectWinHTTP.cmake"
	cmake_build "$src" -DBUILD_TESTS=OFF -DBUILD_CLI=OFF \
		-DBUILD_EXAMPLES=OFF -DBUILD_FUZZERS=OFF -DUSE_SSH=OFF \
		-DUSE_HTTPS=WinHTTP -DUSE_SHA1=CollisionDetection \
		-DREGEX_BACKEND=pcre2 -DUSE_HTTP_PARSER=system \
		-DUSE_NTLMCLIENT=OFF -DUSE_GSSAPI=OFF -DUSE_BUNDLED_ZLIB=OFF \
		-DUSE_THREADS=ON
}

build_curl() {
	cmake_build "$1" -DCURL_USE_SCHANNEL=ON -DCURL_USE_OPENSSL=OFF \
		-DBUILD_CURL_EXE=OFF -DBUILD_TESTING=OFF -DCURL_USE_LIBPSL=OFF \
		-DCURL_USE_LIBSSH2=OFF -DCURL_USE_LIBSSH=OFF -DUSE_NGHTTP2=OFF \
		-DCURL_BROTLI=OFF -DCURL_ZSTD=OFF -DUSE_LIBIDN2=OFF \
		-DCURL_DISABLE_LDAP=ON -DENABLE_MANUAL=OFF -DCURL_ZLIB=ON
}

# protobuf-c: the C runtime only; protoc-c runs on the build machine.
build_protobuf_c() {
	autotools_build "$1" --disable-protoc
}

build_libzip() {
	cmake_build "$1" -DENABLE_BZIP2=OFF -DENABLE_LZMA=OFF \
		-DENABLE_ZSTD=OFF -DENABLE_GNUTLS=OFF -DENABLE_MBEDTLS=OFF \
		-DENABLE_OPENSSL=OFF -DENABLE_WINDOWS_CRYPTO=ON \
		-DENABLE_COMMONCRYPTO=OFF -DBUILD_TOOLS=OFF -DBUILD_REGRESS=OFF \
		-DBUILD_EXAMPLES=OFF -DBUILD_DOC=OFF
}

# OpenSSL: for libcrypto's SHA-256 (EVP), as on Linux; libcurl and
# libgit2 use Schannel and WinHTTP, not OpenSSL, so the algorithms ripple
# never calls are left out to shorten the build. OpenSSL's own Configure
# (its mingw64 target) sets its flags, so ours are not passed.
build_openssl() {
	(cd "$1" && env -u CFLAGS -u LDFLAGS ./Configure mingw64 \
		--cross-compile-prefix=$host- --prefix="$prefix" --libdir=lib \
		shared no-tests no-engine no-module no-legacy no-dso no-comp \
		no-ct no-ocsp no-srp no-ts no-cms no-idea no-camellia no-seed \
		no-whirlpool no-rc2 no-rc4 no-bf no-cast no-mdc2 no-aria \
		no-sm2 no-sm3 no-sm4 && \
		make -j "$jobs" build_libs && make install_dev install_runtime_libs)
}

# bzip2, for libarchive's .tar.bz2 (conda's older package format): seven
# files compiled directly into libbz2-1.dll, the name bzip2's MinGW builds
# use (Debian's tree has only a Unix makefile).
build_bzip2() {
	src=$1
	objs=
	for f in blocksort huffman crctable randtable compress decompress \
		bzlib; do
		$host-gcc $CFLAGS -D_FILE_OFFSET_BITS=64 -c "$src/$f.c" \
			-o "$src/$f.o"
		objs="$objs $src/$f.o"
	done
	$host-gcc -shared -o "$prefix/bin/libbz2-1.dll" $objs $LDFLAGS \
		-Wl,--out-implib,"$prefix/lib/libbz2.dll.a"
	cp "$src/bzlib.h" "$prefix/include/"
	pc bzip2 bzip2 "block-sorting file compressor" 1.0.8 -lbz2
}

# zstd, for libarchive's .tar.zst (the info and pkg tarballs inside a
# .conda): the library only, decompression and compression, no legacy
# formats, no threads (ripple only reads).
build_libzstd() {
	cmake_build "$1/build/cmake" -DZSTD_BUILD_PROGRAMS=OFF \
		-DZSTD_BUILD_TESTS=OFF -DZSTD_BUILD_STATIC=OFF \
		-DZSTD_BUILD_SHARED=ON -DZSTD_LEGACY_SUPPORT=OFF \
		-DZSTD_MULTITHREAD_SUPPORT=OFF -DZSTD_BUILD_CONTRIB=OFF
}

# libarchive, for conda packages (engine/run/conda.c): tar and zip with
# zlib, bzip2 and zstd; no OpenSSL, xz, lz4, XML (xar) or iconv, none of
# which a conda package uses; no regex library (only its mtree and
# pattern matching use one). Its CMake builds a static copy beside the
# DLL and installs both; only the DLL target is built here, and installed
# by hand. Its one run test (CHECK_C_SOURCE_RUNS: was zlib built with
# ZLIB_WINAPI?) crashes Debian 12's CMake 3.25 when cross-compiling
# (a segmentation fault, no emulator to run it with): the answer is
# written in instead, no (build_zlib above).
build_libarchive() {
	src=$1
	perl -0pi -e 's/TRY_MACRO_FOR_LIBRARY\(\n\s*"\$\{ZLIB_INCLUDE_DIR\}" "\$\{ZLIB_LIBRARIES\}"\n\s*RUNS\n[^\n]*\n\s*ZLIB_WINAPI\)/SET(ZLIB_WINAPI FALSE) # tools\/windows\/deps.sh/' \
		"$src/CMakeLists.txt"
	grep -q 'SET(ZLIB_WINAPI FALSE)' "$src/CMakeLists.txt" || {
		echo "deps.sh: libarchive's ZLIB_WINAPI test not found" >&2
		exit 1
	}
	rm -rf "$src/_win"
	cmake -S "$src" -B "$src/_win" -G "Unix Makefiles" \
		-DCMAKE_TOOLCHAIN_FILE="$toolchain" \
		-DRIPPLE_WIN_PREFIX="$prefix" \
		-DCMAKE_BUILD_TYPE=Release \
		-DCMAKE_C_FLAGS_RELEASE="-O2 -DNDEBUG" \
		-DCMAKE_PREFIX_PATH="$prefix" \
		-DENABLE_OPENSSL=OFF -DENABLE_MBEDTLS=OFF -DENABLE_NETTLE=OFF \
		-DENABLE_LIBB2=OFF -DENABLE_LZ4=OFF -DENABLE_LZO=OFF \
		-DENABLE_LZMA=OFF -DENABLE_ZSTD=ON -DENABLE_ZLIB=ON \
		-DENABLE_BZip2=ON -DENABLE_LIBXML2=OFF -DENABLE_EXPAT=OFF \
		-DENABLE_PCREPOSIX=OFF -DENABLE_LIBGCC=OFF -DENABLE_CNG=OFF \
		-DENABLE_TAR=OFF -DENABLE_CPIO=OFF -DENABLE_CAT=OFF \
		-DENABLE_XATTR=OFF -DENABLE_ACL=OFF -DENABLE_ICONV=OFF \
		-DENABLE_TEST=OFF -DENABLE_WERROR=OFF -DPOSIX_REGEX_LIB=NONE \
		-DZSTD_INCLUDE_DIR="$prefix/include" \
		-DZSTD_LIBRARY="$prefix/lib/libzstd.dll.a"
	grep -q '^#define HAVE_ZSTD_H 1' "$src/_win/config.h" &&
		grep -q '^#define HAVE_BZLIB_H 1' "$src/_win/config.h" &&
		grep -q '^#define HAVE_ZLIB_H 1' "$src/_win/config.h" || {
		echo "deps.sh: libarchive found not all of zlib, bzip2, zstd" >&2
		exit 1
	}
	cmake --build "$src/_win" -j "$jobs" --target archive
	cp "$(find "$src/_win" -name 'libarchive*.dll' | head -n 1)" \
		"$prefix/bin/libarchive.dll"
	cp "$(find "$src/_win" -name 'libarchive*.dll.a' | head -n 1)" \
		"$prefix/lib/libarchive.dll.a"
	cp "$src/libarchive/archive.h" "$src/libarchive/archive_entry.h" \
		"$prefix/include/"
	pc libarchive libarchive "multi-format archive library" 3.6.2 \
		-larchive
}

# deps.sh DIR --one PKG VERSION: fetch and build one package in a process
# of its own, so that `set -e` stops it at the first failing command.
if [ "${2:-}" = --one ]; then
	tree=$(fetch "$3" "$4")
	build_$(echo "$3" | tr - _) "$tree"
	exit 0
fi

start=$(date +%s)
for pin in $pins; do
	pkg=${pin%%=*} ver=${pin#*=}
	stamp=$deps/stamps/$pkg-${ver#*:}
	[ ! -f "$stamp" ] || continue
	log=$deps/logs/$pkg.log
	t0=$(date +%s)
	echo "deps.sh: $pkg $ver (log: $log)"
	if ! sh "$0" "$deps" --one "$pkg" "$ver" >"$log" 2>&1; then
		echo "deps.sh: $pkg $ver failed; the end of $log:" >&2
		tail -n 30 "$log" >&2
		exit 1
	fi
	echo "$pkg $ver $(($(date +%s) - t0)) s" > "$stamp"
	echo "deps.sh: $pkg done in $(($(date +%s) - t0)) s"
done
# Debug information stays in the trees; the DLLs ship without it.
$host-strip --strip-unneeded "$prefix"/bin/*.dll
echo "deps.sh: all in $prefix ($(($(date +%s) - start)) s this run)"
