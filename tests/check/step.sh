#!/bin/sh
# tests/check/step.sh [--show] BUILDDIR NAME STAMP CMD [ARG...]: one step
# of `ninja check`. Runs CMD (with RIPPLE_CHECK_STEP=1 in its environment)
# and records the outcome in BUILDDIR/check/NAME.result, which
# tests/check/summary.sh counts:
#   exit 0   passed: "pass NAME"; STAMP is touched (- for none), so ninja
#            runs the step again only when its inputs change
#   exit 77  skipped, it checked nothing: "skip NAME: REASON", the reason
#            being the last line CMD printed; no STAMP, so the next check
#            tries again (the automake convention for a skipped test)
#   else     failed: "fail NAME (exit N)"; CMD's output is printed
# The output goes to BUILDDIR/check/NAME.log (--show: to the terminal too).
# Exits 0 whatever CMD did, so that ninja goes on to the summary, which
# fails the check.
set -u
show=no
[ "$1" = --show ] && { show=yes; shift; }
b=$1 name=$2 stamp=$3
shift 3
mkdir -p "$b/check"
log=$b/check/$name.log
res=$b/check/$name.result
[ "$stamp" = - ] || rm -f "$stamp"
rm -f "$res"
export RIPPLE_CHECK_STEP=1
if [ "$show" = yes ]; then
	{ "$@" 2>&1; echo $? > "$log.rc"; } | tee "$log"
	rc=$(cat "$log.rc")
	rm -f "$log.rc"
else
	rc=0
	"$@" > "$log" 2>&1 || rc=$?
fi
case $rc in
0)	echo "pass $name" > "$res"
	[ "$stamp" = - ] || touch "$stamp" ;;
77)	reason=$(grep -v '^[[:space:]]*$' "$log" | tail -n 1 |
	    sed "s/^$name: //")
	echo "skip $name: ${reason:-no reason given}" > "$res"
	[ "$show" = yes ] || echo "$name: skipped: $reason" ;;
*)	[ "$show" = yes ] || cat "$log"
	echo "fail $name (exit $rc; log $log)" > "$res" ;;
esac
exit 0
