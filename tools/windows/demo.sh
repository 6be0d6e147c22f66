#!/bin/sh
# The cuda-bindings demo's win-64 nodes run by ripple.exe under Wine, and
# compared with the same nodes run by Linux's build/ripple.
#
# The demo (examples/cuda-bindings) is made with its toolkit homes at the
# fake CUDA 12.9 and 13.0 toolkits of windows.ninja (fake-cuda-demo: the
# DLLs by NVIDIA's Windows names in bin/ and bin/x64/, the Linux libraries
# in lib64/ of the same folders), then cloned as Git for Windows checks
# out (core.symlinks false: the demo's symlinked helper is a file holding
# its target). In the clone, `ripple.exe run` of the six rules that have
# win-64 nodes runs exactly those nodes (the platform is the host's,
# win-64; the other platforms' nodes are remote; the rules' runners: is
# not read) and pathfinder-wheel, the platform-less wheel they need; their
# POSIX shell scripts run by
# build-windows/tests/sh/sh.exe (tests/windows/sh.c), the stand-in for Git
# for Windows' sh.exe, found in the action's PATH with Debian's tools
# (Git for Windows' usr/bin holds both). Checked:
#   - sh.exe itself: paths translated, a timeout and leftovers killed;
#   - every win-64 node ok, the toolkits probed (each record's identity),
#     the checkout's two committed symlinks held as files noted;
#   - a second run (--base HEAD) reuses every node, and so does one with
#     the rules' runners: removed (the run does not read it);
#   - at a commit that breaks pathfinder's tests, both win-64 test rows
#     fail with the test's own message in the report (their upstream
#     nodes reused);
#   - each win-64 CI job (`ripple.exe jobs`) run with --job, as
#     windows-latest runners sharing one run: the same records as above;
#   - the demo's GPU tests (cuda-smoke, platform-less) pass on a fake GPU
#     through the DLLs of each line's toolkit, as on Linux;
#   - Linux's build/ripple runs the same nodes (--platform win-64) in a
#     clone of its own: the same keys, the same output digests, the same
#     bytes in dist/ (and, for the record, how a checkout with symlinks
#     differs: the bindings wheels list the helper's content there).
# The last line is the figure line for the issue note.
#
#   tools/windows/demo.sh       (ninja check-windows runs it)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
lin=$top/build/ripple
exe=$top/build-windows/ripple.exe
sh_exe=$top/build-windows/tests/sh/sh.exe
wine=${WINE:-/usr/lib/wine/wine64}
home12=$top/build-windows/tests/demo-cuda-12.9
home13=$top/build-windows/tests/demo-cuda-13.0
work=$top/build-windows/demo-check
for f in "$lin" "$exe" "$sh_exe" "$home12/bin/nvrtc64_120_0.dll" \
    "$home12/lib64/libnvrtc.so.12" "$home13/bin/x64/nvrtc64_130_0.dll" \
    "$home13/lib64/libnvrtc.so.13"; do
	[ -f "$f" ] || {
		echo "demo.sh: $f is missing (ninja; ninja -f windows.ninja" \
			"build-windows/tests/sh/sh.exe fake-cuda-demo)" >&2
		exit 2
	}
done
command -v jq >/dev/null || { echo "demo.sh: jq is missing" >&2; exit 2; }
export WINEPREFIX=$top/build-windows/wineprefix WINEDEBUG=-all
unset CUDA_HOME RIPPLE_FAKE_CUDA_DEVICES RIPPLE_CACHE RIPPLE_REMOTE_CACHE
# The action's PATH: sh.exe's folder, then Debian's tools (on a runner,
# Git for Windows' usr/bin); Wine puts WINEPATH before its own folders.
winpath() { printf 'Z:%s' "$1" | tr / '\\'; }
WINEPATH="$(winpath "$(dirname "$sh_exe")");$(winpath /usr/bin);$(winpath /bin)"
export WINEPATH
targets="bindings-wheel bindings-test-ext core-variant core-wheel
driver-windows pathfinder-tests-win"

n=0 ok=0
check() {	# check WHAT COMMAND...: count a check that COMMAND passes
	what=$1
	shift
	n=$((n + 1))
	if "$@"; then
		ok=$((ok + 1))
		echo "ok       $what"
	else
		echo "FAILED   $what"
	fi
}
wrip() {	# wrip CLONE OUT ARG...: ripple.exe under Wine in CLONE
	d=$1 o=$2
	shift 2
	(cd "$d" && "$wine" "$exe" "$@") > "$o" 2>&1
	rc=$?
}
lrip() {	# lrip CLONE OUT ARG...: build/ripple in CLONE
	d=$1 o=$2
	shift 2
	(cd "$d" && "$lin" "$@") > "$o" 2>&1
	rc=$?
}
# records FILE: a run's records as sorted "node key digest status" lines
records() {
	jq -r '.records[] | [.node_id, .key, .output_digest // "-",
		.status] | join(" ")' "$1" | sort
}
# identity FILE: each record's node and toolkit identity, sorted
identity() {
	jq -r '.records[] | select(.metadata["toolkit-identity"]) |
		.node_id + " " + .metadata["toolkit-identity"]' "$1" | sort
}

rm -rf "$work" && mkdir -p "$work" || exit 2

# 0. The stand-in itself, on a small repository: arguments that are
# Windows paths and the working folder arrive as Unix paths, a timeout
# ends the script with what it started, and what a script leaves running
# ends with it (as the job object ends it on Windows).
t=$work/stand-in
nap=$((100 + $$ % 800))	# sleeps of lengths no other check uses at once
mkdir -p "$t/src" && echo x > "$t/src/a" && printf '.ripple/\n' > "$t/.gitignore"
cat > "$t/ripple.yml" <<YML
version: 1
sources:
  s: {paths: ["src/**"]}
tests:
  args:
    needs: [s]
    command: [sh, -c, 'echo "[\$1] [\$2] [\$PWD]"; echo "PATH=\$PATH";
              test -f "\$1"', sh,
              '$(winpath "$t/src/a")', "a b"]
  slow:
    needs: [s]
    command: "sleep $nap & sleep $((nap + 1)); echo not reached"
    timeout: 2
  orphan:
    needs: [s]
    command: "(sleep 3; echo late > late.txt) & echo started"
YML
(cd "$t" && git init -q && git add -A && git -c user.name=demo \
	-c user.email=demo@example.org commit -q -m initial) || exit 2
wrip "$t" "$work/t1.out" run --keep-going --run-id t1
sleep 5
# PATH: WINEPATH's three folders, then Wine's own, each translated.
log=$t/.ripple/logs/t1/test%3Aargs.log
check "sh.exe: Windows paths, PATH and the folder as Unix paths" \
	eval 'grep -qx "\[$t/src/a\] \[a b\] \[$t\]" "$log" &&
	grep -q "^PATH=$(dirname "$sh_exe"):/usr/bin:/bin:/" "$log"'
check "sh.exe: a timeout ends the script and what it started" \
	eval 'grep -q "^run t1 failed: .* 2 tested, 0 failed, 1 timed out" "$work/t1.out" &&
	! ps -eo args | grep -q "^sleep \($nap\|$((nap + 1))\)$"'
check "sh.exe: what a script leaves running ends with it" \
	test ! -e "$t/late.txt"

# The demo and its clones: three without symlinks, as Git for Windows
# checks out (for Windows, for Linux, for the CI jobs), one with them.
RIPPLE_DEMO_CTK12_HOME=$home12 RIPPLE_DEMO_CTK13_HOME=$home13 \
	examples/cuda-bindings/make-demo-repo "$work/origin" > /dev/null ||
	{ echo "demo.sh: make-demo-repo failed" >&2; exit 2; }
for c in win lin jobs; do
	git clone -q -c core.symlinks=false "$work/origin" "$work/$c" ||
		exit 2
done
git clone -q "$work/origin" "$work/lin-links" || exit 2
wanted=$(lrip "$work/lin" "$work/nodes.out" graph --format json &&
	jq -r '.nodes[].id' "$work/nodes.out" | grep -c 'platform=win-64')
[ "${wanted:-0}" -gt 0 ] || {
	echo "demo.sh: the demo has no win-64 nodes?" >&2
	cat "$work/nodes.out" >&2
	exit 2
}

# 1. The win-64 nodes on Windows: each ok, toolkits probed.
# shellcheck disable=SC2086
wrip "$work/win" "$work/w1.out" run $targets --run-id w1
wrc=$rc
wrip "$work/win" "$work/w1.json" cache export --run w1
records "$work/w1.json" > "$work/w1.rec"
wok=$(grep 'platform=win-64' "$work/w1.rec" | grep -c ' ok$')
check "ripple.exe runs the $wanted win-64 nodes: $wok ok (exit $wrc)" \
	eval '[ $wrc = 0 ] && [ "$wok" = "$wanted" ] &&
	! grep -v " ok$" "$work/w1.rec"'
cp -R "$work/win/dist" "$work/w1-dist" || exit 2
check "ripple.exe notes the 2 committed symlinks the checkout holds as files" \
	grep -q "^ripple run: note: this checkout holds 2 committed symlinks .*: cuda_bindings/cuda/bindings/_version_check.py, cuda_bindings_12/cuda/bindings/_version_check.py$" \
	"$work/w1.out"
identity "$work/w1.json" > "$work/w1.id"
nid=$(grep -c . "$work/w1.id")
ntk=$(grep -c '^artifact:\(bindings-wheel\|bindings-test-ext\|core-variant\)\[' \
	"$work/w1.rec")
check "each of the $ntk toolkit nodes recorded the fake toolkit probed ($nid)" \
	eval '[ "$nid" = "$ntk" ] && ! grep -v \
	-e " ctk12 cudart=12.9 nvjitlink=12.9 nvrtc=12.9 pin=12.9.1$" \
	-e " ctk13 cudart=13.0 nvjitlink=13.0 nvrtc=13.0 pin=13.0.2$" \
	"$work/w1.id"'

# 2. Again: everything reused.
# shellcheck disable=SC2086
wrip "$work/win" "$work/w2.out" run $targets --run-id w2 --base HEAD
all=$(wc -l < "$work/w1.rec" | tr -d ' ')
check "a second run reuses all $all nodes (exit $rc)" \
	eval '[ $rc = 0 ] && grep -q "^run w2 ok: 0 built, $all reused" "$work/w2.out"'
# The run reads no runners: (which says where CI jobs go): the same rules
# without it give the same nodes and keys.
sed '/^runners:/,/^$/d' "$work/win/ripple.yml" > "$work/no-runners.yml"
# shellcheck disable=SC2086
wrip "$work/win" "$work/w2r.out" run $targets --rules "$work/no-runners.yml" \
	--run-id w2r --base HEAD
check "without runners: in the rules, the same $all nodes, all reused (exit $rc)" \
	eval '! grep -q "^runners:" "$work/no-runners.yml" && [ $rc = 0 ] &&
	grep -q "^run w2r ok: 0 built, $all reused" "$work/w2r.out"'

# 3. A commit that breaks pathfinder's tests: both win-64 rows fail.
(cd "$work/win" && git checkout -q -b broken &&
	echo "broken on purpose" > cuda_pathfinder/tests/FAIL &&
	git add cuda_pathfinder/tests/FAIL &&
	git -c user.name=demo -c user.email=demo@example.org \
	commit -q -m "break pathfinder's tests") || exit 2
wrip "$work/win" "$work/w3.out" run pathfinder-tests-win --keep-going \
	--run-id w3 --base main
check "a failing test is reported as failed: 2 rows, the test's message (exit $rc)" \
	eval '[ $rc = 1 ] && grep -q "^run w3 failed: 0 built, 2 reused .* 0 tested, 2 failed" "$work/w3.out" &&
	grep -q "^FAILED: test:pathfinder-tests-win\[platform=win-64,python=3.12\]" "$work/w3.out" &&
	grep -q "^FAILED: test:pathfinder-tests-win\[platform=win-64,python=3.13\]" "$work/w3.out" &&
	grep -q "FAILED: cuda_pathfinder/tests/FAIL exists: broken on purpose" "$work/w3.out"'
(cd "$work/win" && git checkout -q main) || exit 2

# 4. As windows-latest runners would: each win-64 CI job of `ripple.exe
# jobs` run with --job in a clone of its own, all joining one run.
jobs=$( (cd "$work/jobs" && "$wine" "$exe" jobs --json) |
	jq -r '.jobs[] | select(.platform == "win-64") | .name')
njobs=0 jobs_ok=0
for j in $jobs; do
	njobs=$((njobs + 1))
	wrip "$work/jobs" "$work/job-$j.out" run --job "$j" --run-id ci
	[ $rc = 0 ] && jobs_ok=$((jobs_ok + 1))
done
wrip "$work/jobs" "$work/ci.json" cache export --run ci
records "$work/ci.json" > "$work/ci.rec"
check "the $njobs win-64 CI jobs run with --job: $jobs_ok exit 0, the nodes of run w1" \
	eval '[ $njobs -gt 0 ] && [ $jobs_ok = $njobs ] &&
	cmp -s "$work/ci.rec" "$work/w1.rec"'

# 5. The demo's GPU tests, cuda-smoke (one per CUDA line, platform-less):
# ripple finds its GPUs through $CUDA_HOME's runtime (the fake's one
# device, computing on the CPU); each node loads its own toolkit's DLLs,
# compiles, links, launches and verifies, as on Linux with the Linux
# fakes of the same homes (paths and times aside).
smoke_norm='del(.ms, .home) | (.builds[]? |= del(.compile_ms, .link_ms))'
CUDA_HOME=$home13 wrip "$work/win" "$work/g1.out" run cuda-smoke --run-id g1
grc=$rc
CUDA_HOME=$home13 lrip "$work/lin" "$work/g1l.out" run cuda-smoke \
	--run-id g1
lgrc=$rc
nsmoke=0 smoke_same=0
for r in bindings-12:12.9 bindings-13:13.0; do
	v=${r#*:} r=${r%:*}
	f="test%3Acuda-smoke[root=$r].log"
	nsmoke=$((nsmoke + 1))
	jq -S "$smoke_norm" "$work/win/.ripple/logs/g1/$f" > "$work/g1-$r.w" \
		2>/dev/null
	jq -S "$smoke_norm" "$work/lin/.ripple/logs/g1/$f" > "$work/g1-$r.l" \
		2>/dev/null
	[ "$(jq -r '.status, .launched, .verified, .home' \
	    "$work/win/.ripple/logs/g1/$f" | tr '\n' ' ')" = \
	    "passed true true $top/build-windows/tests/demo-cuda-$v " ] &&
	    cmp -s "$work/g1-$r.w" "$work/g1-$r.l" &&
		smoke_same=$((smoke_same + 1))
done
check "the demo's $nsmoke GPU tests pass through the DLLs on a fake GPU, as on Linux: $smoke_same (exit $grc, $lgrc)" \
	eval '[ $grc = 0 ] && [ $lgrc = 0 ] && [ $smoke_same = $nsmoke ] &&
	grep -q "^run g1 ok: .* 2 tested, 0 failed" "$work/g1.out"'

# 6. Linux runs the same nodes in its own clone: same keys, same bytes.
# shellcheck disable=SC2086
lrip "$work/lin" "$work/l1.out" run $targets --platform win-64 --run-id l1
lrc=$rc
lrip "$work/lin" "$work/l1.json" cache export --run l1
records "$work/l1.json" > "$work/l1.rec"
check "build/ripple runs the same nodes on Linux (exit $lrc)" \
	eval '[ $lrc = 0 ] && [ -s "$work/l1.rec" ]'
cut -d' ' -f1,2 "$work/w1.rec" > "$work/w1.keys"
cut -d' ' -f1,2 "$work/l1.rec" > "$work/l1.keys"
same_keys=$(comm -12 "$work/w1.keys" "$work/l1.keys" | wc -l | tr -d ' ')
check "the same nodes and keys: $same_keys of $all" \
	cmp -s "$work/w1.keys" "$work/l1.keys"
same=$(comm -12 "$work/w1.rec" "$work/l1.rec" | wc -l | tr -d ' ')
check "the same output digests: $same of $all" \
	cmp -s "$work/w1.rec" "$work/l1.rec"
identity "$work/l1.json" > "$work/l1.id"
check "the same toolkit identities recorded" cmp -s "$work/w1.id" "$work/l1.id"
files=$(cd "$work/w1-dist" && find . -type f | sort)
nfiles=$(printf '%s\n' "$files" | grep -c .)
check "the same $nfiles files in dist/, byte for byte" \
	diff -r "$work/w1-dist" "$work/lin/dist"

# For the record: a checkout with symlinks (Linux's default) gives other
# bytes for the wheels whose manifest lists the symlinked helper.
# shellcheck disable=SC2086
lrip "$work/lin-links" "$work/k1.out" run $targets --platform win-64 \
	--run-id k1
lrip "$work/lin-links" "$work/k1.json" cache export --run k1
records "$work/k1.json" > "$work/k1.rec"
check "no such note from a checkout with links" \
	eval '[ -s "$work/k1.rec" ] && ! grep -q "note: this checkout holds" "$work/k1.out"'
links_same=$(comm -12 "$work/w1.rec" "$work/k1.rec" | wc -l | tr -d ' ')
links_keys=$(cut -d' ' -f1,2 "$work/k1.rec" |
	comm -12 "$work/w1.keys" - | wc -l | tr -d ' ')
echo "note     a Linux checkout with symlinks: $links_keys of $all keys" \
	"and $links_same of $all records the same (the bindings wheels list" \
	"the helper's content, not its link text, and their dependents' keys" \
	"follow)"

echo "demo: $ok of $n checks pass; win-64 nodes under Wine: $wok ok," \
	"$all reused on the second run, $jobs_ok of $njobs CI jobs ok with" \
	"--job, $smoke_same of $nsmoke GPU tests passed, $same of $all" \
	"identical to Linux (keys, output digests; $nfiles files in dist/)"
[ $ok = $n ]
