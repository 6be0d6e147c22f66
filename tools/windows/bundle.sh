#!/bin/sh
# The dist-windows bundle is self-contained: unpacked alone (no
# build-windows/ DLL within reach), its ripple.exe answers as Linux's
# ripple does.
#
#   tools/windows/bundle.sh
#
# 1. The tarball (build-windows/dist/ripple-*-windows-x86_64.tar.gz),
#    unpacked into build-windows/bundle-check/: bin/ holds ripple.exe and
#    exactly the DLLs its MANIFEST lists; every DLL ripple.exe and those
#    DLLs import is in bin/ or is Windows' own (no mingw-w64 runtime:
#    winpthreads, which the source sets' threads use, and libgcc are
#    linked into ripple.exe); ripple.exe reserves 8 MiB of stack for its
#    main thread (configure.sh's -Wl,--stack), as the pool's threads get.
# 2. tools/windows/compare.sh and conda.sh with that ripple.exe
#    (RIPPLE_EXE): the demo's answers, parallel cold plans on -j 1 and -j
#    4 with threads counted, 4,096-deep trees, conda packages through
#    libarchive.dll.
# 3. libcurl.dll loads from the bundle: a plan with a remote cache at a
#    closed port warns with curl's own "Failed to connect" (without the
#    DLL: "cannot load libcurl.dll").
#
# Needs what compare.sh and conda.sh need, and `ninja dist-windows`.
# Exits 1 when any check fails. `ninja check-windows` runs it.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
wine=${WINE:-/usr/lib/wine/wine64}
objdump=x86_64-w64-mingw32-objdump
tgz=$(ls build-windows/dist/ripple-*-windows-x86_64.tar.gz 2>/dev/null |
	head -n 1)
[ -n "$tgz" ] || {
	echo "bundle.sh: no bundle in build-windows/dist (ninja dist-windows)" >&2
	exit 2
}
out=$top/build-windows/bundle-check
rm -rf "$out"
mkdir -p "$out"
tar xzf "$tgz" -C "$out" || exit 1
dir=$(ls -d "$out"/ripple-*-windows-x86_64)
bin=$dir/bin
fail=0 n=0
check() {
	n=$((n + 1))
	if [ "$1" = ok ]; then
		echo "ok       $2"
	else
		fail=$((fail + 1))
		echo "FAIL     $2"
	fi
}

# 1. What the bundle holds, and what its programs import.
listed=$(sed -n 's/^\([^# ][^ ]*\.dll\)  [0-9]*$/\1/p' "$dir/MANIFEST" |
	sort | tr '\n' ' ')
held=$(cd "$bin" && ls -- *.dll | sort | tr '\n' ' ')
r=no
[ -n "$held" ] && [ "$listed" = "$held" ] && r=ok
check $r "bin/ holds the $(echo $held | wc -w) DLLs the MANIFEST lists, no other"
missing=
for f in "$bin"/ripple.exe "$bin"/*.dll; do
	for d in $($objdump -p "$f" | sed -n 's/^\tDLL Name: //p'); do
		[ -f "$bin/$d" ] && continue
		grep -q "^$d system$" build-windows/dlls.txt ||
			missing="$missing $(basename "$f"):$d"
	done
done
check "$([ -z "$missing" ] && echo ok)" "every DLL imported is in bin/ or Windows' own${missing:+:$missing}"
r=no
if ! $objdump -p "$bin/ripple.exe" |
	grep -qi 'DLL Name: lib\(winpthread\|gcc_s\)' &&
	x86_64-w64-mingw32-nm "$bin/ripple.exe" | grep -q ' T pthread_create$'
then
	r=ok
fi
check $r "winpthreads linked into ripple.exe (no libwinpthread-1.dll)"
reserve=$($objdump -p "$bin/ripple.exe" | sed -n 's/^SizeOfStackReserve[ \t]*//p')
r=no
[ -n "$reserve" ] && [ $((0x$reserve)) -ge $((8 << 20)) ] && r=ok
check $r "ripple.exe's main thread reserves 8 MiB of stack, as the pool's threads (0x${reserve:-?})"

# 2. The bundle's ripple.exe against Linux's.
RIPPLE_EXE=$bin/ripple.exe WINE=$wine sh tools/windows/compare.sh \
	> "$out/compare.log" 2>&1
rc=$?
check "$([ $rc = 0 ] && echo ok)" "compare.sh with the bundle's ripple.exe: $(tail -n 1 "$out/compare.log" | cut -d'(' -f1)"
[ $rc = 0 ] || grep -v '^same' "$out/compare.log" | head -n 20
RIPPLE_EXE=$bin/ripple.exe WINE=$wine sh tools/windows/conda.sh \
	> "$out/conda.log" 2>&1
rc=$?
check "$([ $rc = 0 ] && echo ok)" "conda.sh with the bundle's ripple.exe (libarchive.dll): $(tail -n 1 "$out/conda.log")"
[ $rc = 0 ] || grep -v '^same' "$out/conda.log" | head -n 20

# 3. libcurl.dll, loaded on first use.
export WINEPREFIX=$top/build-windows/wineprefix WINEDEBUG=-all
(cd build-windows/compare/cold && "$wine" "$bin/ripple.exe" plan --json \
	--remote-cache http://127.0.0.1:9/) > /dev/null 2> "$out/curl.err"
rc=$?
r=no
grep -q 'Failed to connect' "$out/curl.err" && [ $rc = 0 ] && r=ok
check $r "libcurl.dll loads: a closed remote cache is curl's 'Failed to connect' (exit $rc)"

echo "bundle: $((n - fail)) of $n checks pass ($(basename "$tgz"): $(wc -c < "$tgz") bytes; unpacked $(du -sk "$dir" | cut -f1) KiB)"
[ $fail = 0 ]
