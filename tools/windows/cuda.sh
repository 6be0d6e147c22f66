#!/bin/sh
# The CUDA toolkit by its Windows names: ripple.exe under Wine probes and
# runs the fake toolkits built as DLLs (windows.ninja: nvrtc64_*_0.dll,
# nvJitLink_*_0.dll, cudart64_*.dll in bin/x64 for 13.0, bin for 12.4 with
# its nvcuda.dll), and must answer as build/ripple does with the same
# fakes built for Linux (ninja fake-cuda): the same versions and identity
# (`toolkits --json`), the same kernel compiled, linked, launched through
# the same API and verified (`cuda-smoke --no-cache --json`; the paths and
# times left out of the comparison), and a home without the libraries
# refused naming the Windows folders and names tried.
#
#   tools/windows/cuda.sh       (ninja check-windows runs it)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
lin=build/ripple
wine=${WINE:-/usr/lib/wine/wine64}
out=build-windows/cuda-check
for f in $lin build/tests/fake-cuda-12.4/lib64/libnvrtc.so.12 \
    build/tests/fake-cuda-13.0/lib64/libnvrtc.so.13 build-windows/ripple.exe \
    build-windows/tests/fake-cuda-13.0/bin/x64/nvrtc64_130_0.dll; do
	[ -f "$f" ] || {
		echo "cuda.sh: $f is missing (ninja; ninja fake-cuda;" \
			"ninja -f windows.ninja fake-cuda-windows)" >&2
		exit 2
	}
done
command -v jq >/dev/null || { echo "cuda.sh: jq is missing" >&2; exit 2; }
mkdir -p "$out"
export WINEPREFIX=$top/build-windows/wineprefix WINEDEBUG=-all
unset CUDA_HOME RIPPLE_FAKE_CUDA_DEVICES
n=0 same=0
# What must agree: everything but paths and times.
norm='del(.ms, .home, .toolkits[]?.home, .toolkits[]?.libraries) |
	(.builds[]? |= del(.compile_ms, .link_ms))'

# one NAME ARG...: build/ripple with HOME=build/tests/..., ripple.exe with
# HOME=build-windows/tests/... ("@" in ARG stands for the home).
one() {
	name=$1 v=$2
	shift 2
	n=$((n + 1))
	largs= wargs=
	for a in "$@"; do
		case $a in
		@) largs="$largs build/tests/fake-cuda-$v"
		   wargs="$wargs tests/fake-cuda-$v" ;;
		*) largs="$largs $a" wargs="$wargs $a" ;;
		esac
	done
	# shellcheck disable=SC2086
	$lin $largs > "$out/$name.linux" 2> "$out/$name.linux.err"
	lrc=$?
	# shellcheck disable=SC2086
	(cd build-windows && "$wine" ./ripple.exe $wargs) > "$out/$name.wine" \
		2> "$out/$name.wine.err"
	wrc=$?
	jq -S "$norm" "$out/$name.linux" > "$out/$name.linux.n" 2>/dev/null
	jq -S "$norm" "$out/$name.wine" > "$out/$name.wine.n" 2>/dev/null
	if [ $lrc = $wrc ] && [ -s "$out/$name.linux.n" ] &&
	    cmp -s "$out/$name.linux.n" "$out/$name.wine.n"; then
		same=$((same + 1))
		printf 'same     %-14s exit %d: ripple%s\n' "$name" $lrc "$wargs"
	else
		printf 'DIFFERS  %-14s exit %d (Linux) %d (Wine): ripple%s\n' \
			"$name" $lrc $wrc "$wargs"
		diff "$out/$name.linux.n" "$out/$name.wine.n" | head -n 20
		head -n 5 "$out/$name.wine.err"
	fi
}

one toolkits-12 12.4 toolkits --home @ --json
one toolkits-13 13.0 toolkits --home @ --json
one smoke-12 12.4 cuda-smoke --home @ --no-cache --json
one smoke-13 13.0 cuda-smoke --home @ --no-cache --json
one smoke-13-arch 13.0 cuda-smoke --home @ --no-cache --arch sm_80 --json

# A home without the libraries: refused, naming Windows' folders and names.
n=$((n + 1))
mkdir -p build-windows/tests/fake-cuda-none/bin
(cd build-windows && "$wine" ./ripple.exe cuda-smoke --home \
	tests/fake-cuda-none --no-cache) > "$out/none.wine" 2>&1
rc=$?
if [ $rc != 0 ] && grep -q 'tests/fake-cuda-none/bin/x64, tests/fake-cuda-none/bin for nvrtc64_\*_0.dll' "$out/none.wine"; then
	same=$((same + 1))
	echo "refused  none           exit $rc: $(head -n 1 "$out/none.wine")"
else
	echo "WRONG    none           exit $rc: $(head -n 1 "$out/none.wine")"
fi
echo "cuda: $same of $n checks agree with Linux (fake toolkits as DLLs" \
	"by their Windows names, under Wine)"
[ $same = $n ]
