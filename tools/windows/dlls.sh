#!/bin/sh
# Copy the DLLs a Windows program needs from a prefix into a folder, by
# walking import tables (objdump -p), and print each one copied with its
# size in bytes. DLLs not in the prefix are Windows' own (KERNEL32.dll,
# WINHTTP.dll, ...) and are listed as "system". EXTRA names DLLs the
# program loads itself (base/dl_win.c: libcurl, libzip, libarchive), walked the same.
#
#   tools/windows/dlls.sh PROGRAM.exe PREFIX/bin DEST [EXTRA.dll ...]
set -eu
exe=$1 bin=$2 dest=$3
shift 3
objdump=x86_64-w64-mingw32-objdump
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
			else
				echo "$d system"
			fi
		done
	done
	todo=$next
done
