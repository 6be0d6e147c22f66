#!/bin/sh
# Copy the DLLs a Windows program needs from a prefix into a folder, by
# walking import tables (objdump -p), and print each one copied with its
# size in bytes. DLLs not in the prefix are Windows' own (KERNEL32.dll,
# WINHTTP.dll, ...) and are listed as "system". EXTRA names DLLs the
# program loads itself (base/dl_win.c: libcurl, libzip, libarchive), walked the same.
# A DLL of mingw-w64's own runtime (libwinpthread-1.dll, libgcc_s_seh-1.dll,
# libstdc++-6.dll: the toolchain's folders have them, Windows has not) is
# an error: ripple links those statically, so the bundle is ripple.exe and
# the prefix's DLLs alone.
#
#   tools/windows/dlls.sh PROGRAM.exe PREFIX/bin DEST [EXTRA.dll ...]
set -eu
exe=$1 bin=$2 dest=$3
shift 3
objdump=x86_64-w64-mingw32-objdump
cc=x86_64-w64-mingw32-gcc
seen=" "
todo=$exe
for d in "$@"; do
	[ -f "$bin/$d" ] || { echo "dlls.sh: $bin/$d missing" >&2; exit 1; }
	seen="$seen$d "
	cp "$bin/$d" "$dest/$d"
	echo "$d $(wc -c < "$dest/$d") (loaded at run time)"
	todo="$todo $dest/$d"
done
while [ -n "$todo" ]; do
	next=
	for f in $todo; do
		for d in $($objdump -p "$f" | sed -n 's/^\tDLL Name: //p'); do
			case $seen in *" $d "*) continue ;; esac
			seen="$seen$d "
			if [ -f "$bin/$d" ]; then
				cp "$bin/$d" "$dest/$d"
				echo "$d $(wc -c < "$dest/$d")"
				next="$next $dest/$d"
			elif rt=$($cc -print-file-name="$d") &&
				[ "$rt" != "$d" ]; then
				# The toolchain's own runtime (winpthreads,
				# libgcc, libstdc++, ...): Windows has none
				# of it, and listed as "system" the bundle
				# would not start (Windows: a missing DLL).
				echo "dlls.sh: $f needs $d, mingw-w64's" \
					"runtime ($rt), which Windows does not" \
					"have: link it statically (configure.sh:" \
					"-Wl,-Bstatic -lwinpthread -Wl,-Bdynamic;" \
					"-static-libgcc)" >&2
				exit 1
			else
				echo "$d system"
			fi
		done
	done
	todo=$next
done
