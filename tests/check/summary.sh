#!/bin/sh
# tests/check/summary.sh BUILDDIR: the end of `ninja check`. Counts the
# Criterion tests (BUILDDIR/check/tests.tap) and the other steps
# (BUILDDIR/check/*.result, written by tests/check/step.sh), lists each
# skip with its reason and each failure, and ends with one line,
#   N passed, N failed, N skipped
# (what CI reads). A step that checked nothing is a skip, never a pass.
# Exit 1 when anything failed or a step has no result.
set -eu
b=$1
tap=$b/check/tests.tap
[ -f "$tap" ] || { echo "check: no test results ($tap)"; exit 1; }
# Criterion's TAP: "ok - SUITE::TEST  (0.1s)", "ok - ... # SKIP REASON"
# ("test was skipped" is a test left out by --filter: not counted),
# "not ok - ...".
awk '
	/^ok - .*# SKIP test was skipped$/ { next }
	/^ok - .*# SKIP / { name = $3; r = $0; sub(/.*# SKIP /, "", r)
		if (length(r) > 110) r = substr(r, 1, 107) "..."
		print "skip " name ": " r; next }
	/^ok - / { print "pass " $3; next }
	/^not ok - / { print "fail " $4; next }
' "$tap" > "$b/check/tests.outcomes"
tests_failed=$(grep -c '^fail ' "$b/check/tests.outcomes" || true)
for r in "$b"/check/*.result; do
	[ -e "$r" ] || continue
	# the test runner's own failure counts only when no test failed
	# (a crash, a missing binary): failing tests are counted above
	case $r in */tests.result)
		grep -q '^fail' "$r" && [ "$tests_failed" = 0 ] || continue ;;
	esac
	cat "$r"
done > "$b/check/steps.outcomes"
cat "$b/check/tests.outcomes" "$b/check/steps.outcomes" |
    grep -v '^pass ' > "$b/check/notes" || true
if grep -q '^skip ' "$b/check/notes"; then
	echo "check: skipped (each checked nothing here):"
	grep '^skip ' "$b/check/notes" | sed 's/^skip /  /'
fi
if grep -q '^fail ' "$b/check/notes"; then
	echo "check: FAILED:"
	grep '^fail ' "$b/check/notes" | sed 's/^fail /  /'
fi
ntests=$(grep -c . "$b/check/tests.outcomes" || true)
nsteps=$(grep -c . "$b/check/steps.outcomes" || true)
echo "check: $ntests tests, $nsteps other steps ($(sed 's/^[a-z]* //; s/[: ].*//' \
    "$b/check/steps.outcomes" | tr '\n' ' ' | sed 's/ $//'))"
cat "$b/check/tests.outcomes" "$b/check/steps.outcomes" | awk '
	/^pass / { p++ } /^fail / { f++ } /^skip / { s++ }
	END { printf "%d passed, %d failed, %d skipped\n", p, f, s
		exit f > 0 }'
