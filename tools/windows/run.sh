#!/bin/sh
# `ripple run` under Wine: ripple.exe builds and tests a small repository
# whose actions are a Windows program (tests/windows/act.c, built as
# build-windows/act.exe: Wine has no sh, and its findstr finds nothing),
# and this checks what base/proc_win.c promises: the action's exit status,
# its stdout in the node's log, the rules' environment and nothing else,
# a reused second run, a failure, a timeout that kills the action, a
# process the action left running killed with its job when it exits, and
# scripts: a shell command (sh -c) and a script named as the command (its
# #! line's interpreter found in PATH), with act.exe copied to bin/sh.exe
# standing in for Git for Windows' sh.exe (WINEPATH puts bin/ in PATH).
#
#   tools/windows/run.sh        (ninja check-windows runs it)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
exe=$top/build-windows/ripple.exe
act=$top/build-windows/act.exe
wine=${WINE:-/usr/lib/wine/wine64}
repo=$top/build-windows/run-check
for f in "$exe" "$act"; do
	[ -f "$f" ] || {
		echo "run.sh: $f is missing (ninja -f windows.ninja)" >&2
		exit 2
	}
done
export WINEPREFIX=$top/build-windows/wineprefix WINEDEBUG=-all
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
rip() {	# rip ARG...: ripple.exe in the repository; output in $repo.out
	(cd "$repo" && WINEPATH="Z:$(echo "$repo/bin" | tr / '\\')" \
		"$wine" "$exe" "$@") > "$repo.out" 2>&1
	rc=$?
}
has() { grep -q -- "$1" "$repo.out"; }

rm -rf "$repo" && mkdir -p "$repo/src" "$repo/tests" "$repo/tools" \
	"$repo/bin" || exit 2
cp "$act" "$repo/tools/act.exe"
cp "$act" "$repo/bin/sh.exe"
printf '#!/bin/sh\ncopy src/lib.txt\n' > "$repo/tools/gen"
printf '#!/usr/bin/env python9\nprint(1)\n' > "$repo/tools/py"
printf '# a comment\nhello\n' > "$repo/src/lib.txt"
echo test > "$repo/tests/t.txt"
printf '.ripple/\nout/\n' > "$repo/.gitignore"
cat > "$repo/ripple.yml" <<'YML'
version: 1
sources:
  lib-src: {paths: ["src/**"]}
  tests-src: {paths: ["tests/**"]}
  tool: {paths: ["tools/**"]}
artifacts:
  lib:
    inputs: [lib-src, tool]
    command: [tools/act.exe, copy, src/lib.txt, out/lib.bin]
    outputs: [out/lib.bin]
  gen:
    inputs: [lib-src, tool]
    command: [tools/gen, out/gen.bin]
    outputs: [out/gen.bin]
  shelled:
    inputs: [lib-src, tool]
    command: "copy src/lib.txt out/sh.bin"
    outputs: [out/sh.bin]
tests:
  lib-test:
    needs: [lib, tests-src]
    command: [tools/act.exe, grep, hello, out/lib.bin]
  env-test:
    needs: [tool]
    command: [tools/act.exe, env, FROM_RULES]
    env: {FROM_RULES: "C:/x y"}
  leak-test:
    needs: [tool]
    command: [tools/act.exe, env, WINEPREFIX]
  fail-test:
    needs: [tool]
    command: [tools/act.exe, exit, "3"]
  slow-test:
    needs: [tool]
    command: [tools/act.exe, sleep, "60000"]
    timeout: 2
  orphan-test:
    needs: [tool]
    command: [tools/act.exe, orphan, "3000", out/late.txt]
  py-test:
    needs: [tool]
    command: [tools/py]
YML
(cd "$repo" && git init -q && git add -A &&
	git -c user.name=ripple -c user.email=ripple@example.org \
	commit -q -m initial) || exit 2

rip run lib lib-test env-test --run-id r1
check "run: lib built and lib-test, env-test passed (exit $rc)" \
	eval '[ $rc = 0 ] && has "1 built, 0 reused" && has "2 tested, 0 failed"'
check "the output is the action's: out/lib.bin is 'hello'" \
	eval '[ "$(cat "$repo/out/lib.bin")" = hello ]'
check "the action's stdout is in its log, the rules' env reached it" \
	grep -q '^FROM_RULES=C:/x y' "$repo/.ripple/logs/r1/test%3Aenv-test.log"
rip run lib lib-test --run-id r2 --base HEAD
check "a second run reuses lib and lib-test (exit $rc)" \
	eval '[ $rc = 0 ] && has "0 built, 2 reused"'
rip run leak-test --run-id r3
check "ripple's own environment does not reach the action (exit $rc)" \
	eval '[ $rc != 0 ] && has "1 failed"'
rip run fail-test --run-id r4
check "a failing action fails its node with its exit code (exit $rc)" \
	eval '[ $rc = 1 ] && has "1 failed" && has "exit 3\|exit code 3\|exited 3\|status 3"'
t0=$(date +%s)
rip run slow-test --run-id r5
t1=$(date +%s)
check "a timeout ends the action: timed out in $((t1 - t0)) s (exit $rc)" \
	eval '[ $rc != 0 ] && has "1 timed out" && [ $((t1 - t0)) -lt 30 ]'
# The control: outside ripple, the orphan's child does write its file.
(cd "$repo" && "$wine" tools/act.exe orphan 1000 out/control.txt)
sleep 4
check "control: act.exe's orphan writes its file when nothing kills it" \
	test -e "$repo/out/control.txt"
rip run orphan-test --run-id r6
sleep 5
check "what the action left running ended with it (exit $rc)" \
	eval '[ $rc = 0 ] && [ ! -e "$repo/out/late.txt" ]'
rip run gen shelled --run-id r7
check "a #! script runs with sh.exe from PATH, a shell command with sh -c (exit $rc)" \
	eval '[ $rc = 0 ] && has "2 built" &&
	[ "$(cat "$repo/out/gen.bin")" = hello ] &&
	[ "$(cat "$repo/out/sh.bin")" = hello ]'
rip run py-test --run-id r8
check "a script whose interpreter is not in PATH is named (exit $rc)" \
	eval '[ $rc != 0 ] && has "interpreter .python9. is not in the action.s PATH"'
echo "run: $ok of $n checks pass (ripple.exe run under Wine, $repo)"
[ $ok = $n ]
