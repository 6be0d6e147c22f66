#!/bin/sh
# tests/layout/check.sh [BUILDDIR]: the house rules of docs/architecture.md.
#
# 1. Every `#include "..."` between districts points down: a file may
#    include only its own district and the districts listed for it below.
# 2. No circle of files: the file-to-file call graph read from the objects
#    (nm: who defines, who uses each symbol) sorts topologically inside
#    every folder (tsort reports a loop otherwise).
# 3. No source file over 650 lines.
# 4. Headers only POSIX has (fnmatch, regex, glob, dlfcn, fork and wait,
#    prctl, ioctl, uname) only in base/'s POSIX files (*_posix.c,
#    base/place.c) and base/regex.c (regex.h when not _WIN32):
#    everything else calls base/ (docs/windows.md).
# Prints each violation and exits 1 if there is one; run from the top.
set -u
build=${1:-build}
fail=0

district() {	# district FILE: the district a path belongs to
	case $1 in
	engine/*/*) d=${1#engine/}; echo "engine/${d%%/*}" ;;
	*/*) echo "${1%%/*}" ;;
	*) echo "" ;;
	esac
}

allowed() {	# allowed DISTRICT: what it may include, itself aside
	case $1 in
	base) echo "" ;;
	rules) echo "base" ;;
	cache) echo "base" ;;
	graph) echo "base rules" ;;
	engine/cuda) echo "base cache" ;;
	engine/plan) echo "base rules cache graph" ;;
	engine/run) echo "base rules cache graph engine/plan engine/cuda" ;;
	engine/release) echo "base rules cache graph engine/plan" ;;
	engine/cli) echo "base rules cache graph engine/plan engine/cuda engine/run engine/release" ;;
	*) echo "?" ;;
	esac
}

edges=$(mktemp)
trap 'rm -f "$edges" "$edges.d" "$edges.u" "$edges.posix"' EXIT

for f in $(find base rules graph cache engine -name '*.[ch]' | LC_ALL=C sort); do
	from=$(district "$f")
	ok=$(allowed "$from")
	grep -n '^#include "' "$f" | while IFS= read -r line; do
		inc=${line#*\"}
		inc=${inc%%\"*}
		to=$(district "$inc")
		[ -n "$to" ] || continue
		echo "$from $to" >> "$edges"
		[ "$to" = "$from" ] && continue
		case " $ok " in
		*" $to "*) ;;
		*) echo "layout: $f:${line%%:*}: $from includes $inc ($to is above it)"
		   echo x >> "$edges.bad" ;;
		esac
	done
done
if [ -s "$edges.bad" ] 2>/dev/null; then fail=1; fi
rm -f "$edges.bad"

echo "cross-district includes (from -> to: count):"
awk '$1 != $2' "$edges" | LC_ALL=C sort | uniq -c |
	awk '{ printf "  %-15s -> %-15s %d\n", $2, $3, $1 }'

# Call graph from the objects: symbol definitions and uses per file.
objs=$(find "$build/base" "$build/rules" "$build/graph" "$build/cache" \
	"$build/engine" -name '*.o' 2>/dev/null | LC_ALL=C sort)
if [ -z "$objs" ]; then
	echo "layout: no objects under $build; build first" >&2
	exit 1
fi
for o in $objs; do
	src=${o#"$build"/}
	src=${src%.o}.c
	[ -f "$src" ] || continue	# an object whose source moved away
	nm "$o" | awk -v f="$src" '
		NF == 3 && $2 ~ /^[TDBR]$/ { print $3, f > "/dev/stdout" }
	' >> "$edges.d"
	nm -u "$o" | awk -v f="$src" '{ print $NF, f }' >> "$edges.u"
done
LC_ALL=C sort -k1,1 "$edges.d" > "$edges.d2"; mv "$edges.d2" "$edges.d"
LC_ALL=C sort -k1,1 "$edges.u" > "$edges.u2"; mv "$edges.u2" "$edges.u"
# user-file defining-file pairs, same folder only, each folder sorted apart
join "$edges.u" "$edges.d" | awk '$2 != $3 { print $2, $3 }' |
	LC_ALL=C sort -u > "$edges"
for dir in base rules graph cache engine/cuda engine/plan engine/run \
    engine/release engine/cli; do
	awk -v d="$dir/" 'index($1, d) == 1 && index($2, d) == 1 &&
		substr($1, length(d) + 1) !~ /\// &&
		substr($2, length(d) + 1) !~ /\//' "$edges" > "$edges.f"
	if ! tsort < "$edges.f" > /dev/null 2> "$edges.e"; then
		echo "layout: a circle of files calling each other in $dir/:"
		sed 's/^/  /' "$edges.e"
		fail=1
	fi
	rm -f "$edges.f" "$edges.e"
done
# Circles across districts are include violations already (calls follow
# declarations), but check the whole graph too.
if ! tsort < "$edges" > /dev/null 2> "$edges.e"; then
	echo "layout: a circle of files calling each other:"
	sed 's/^/  /' "$edges.e"
	fail=1
fi
rm -f "$edges.e"

for f in $(find base rules graph cache engine -name '*.c' | LC_ALL=C sort); do
	n=$(wc -l < "$f")
	if [ "$n" -gt 650 ]; then
		echo "layout: $f has $n lines (split it by concept; limit 650)"
		fail=1
	fi
done
for f in $(find base rules graph cache engine -name '*.[ch]' | LC_ALL=C sort); do
	# base/regex.c: <regex.h> on POSIX, PCRE2's pcre2posix.h on Windows.
	case $f in base/*_posix.c|base/place.c|base/regex.c) continue ;; esac
	grep -nE '^#include <(fnmatch|regex|glob|dlfcn|sys/wait|sys/prctl|sys/ioctl|sys/utsname)\.h>' "$f" |
	while IFS= read -r line; do
		echo "layout: $f:${line%%:*}: ${line#*:} is POSIX only: call" \
			"base/ (fnmatch.h, regex.h, proc.h, cudalib.h, host.h)"
		echo x >> "$edges.posix"
	done
done
if [ -s "$edges.posix" ] 2>/dev/null; then fail=1; fi
rm -f "$edges.posix"
[ $fail = 0 ] && echo "layout: ok (includes point down, no circles, files under 650 lines, POSIX-only headers in base/ only)"
exit $fail
