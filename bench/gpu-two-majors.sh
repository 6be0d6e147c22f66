#!/bin/sh
# Two CUDA majors on one GPU, with a ripple built elsewhere; builds nothing.
# On a machine with a GPU and CUDA 13 in /usr/local/cuda:
#
#   1. unpacks CUDA 12.4's NVRTC, nvJitLink and cudart (.deb files from
#      bench/gpu-fetch-debs.sh) with dpkg -x into a toolkit home;
#   2. ripple toolkits with both homes: both listed by one process;
#   3. ripple devices, and ripple cuda-smoke for each home: both pass on the
#      GPU (12.4 through the driver's module API, 13 through cudart's
#      library API);
#   4. makes the demo repository with its two toolkit homes pointing at
#      12.4 and 13; ripple toolkits there must report the demo's 12.9.1 pin
#      as disagreeing with the probe (exit 1, naming both);
#   5. pins the two toolkits to what was probed (rules and ci/versions.yml,
#      one commit) and runs the demo's CI for linux-64 in one ripple run,
#      in which both lines' cuda-smoke nodes must pass on the GPU.
#
# Prints each command and its output, then a summary; exits 0 only when all
# of it held.
#
#   bench/gpu-two-majors.sh [--ripple BIN] [--bundle DIR] [--debs DIR]
#                           [--cuda13 DIR] [--work DIR] [--keep DIR]
#
#   --ripple BIN   the binary (default: BUNDLE/ripple, else build/ripple)
#   --bundle DIR   from bench/gpu-bundle.sh: the binary and its libraries;
#                  those this machine lacks go on LD_LIBRARY_PATH
#                  (default gpu/bundle when it exists)
#   --debs DIR     CUDA 12.4's .deb files (default gpu/debs)
#   --cuda13 DIR   the CUDA 13 home (default /usr/local/cuda)
#   --work DIR     where to unpack and make the demo (default: a new
#                  temporary folder, removed at the end unless --keep)
#   --keep DIR     copy the outputs (JSON, run logs, this log) into DIR
#                  ($OUT on the device machine)
#   --home12 DIR   a CUDA 12 home to use instead of unpacking --debs (to
#                  try this script with the fake toolkits of the tests)
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
ripple="" bundle="" debs=gpu/debs cuda13=/usr/local/cuda work="" keep=""
home12=""
while [ $# -gt 0 ]; do
	case $1 in
	--ripple) ripple=$2; shift ;;
	--bundle) bundle=$2; shift ;;
	--debs) debs=$2; shift ;;
	--cuda13) cuda13=$2; shift ;;
	--work) work=$2; shift ;;
	--keep) keep=$2; shift ;;
	--home12) home12=$2; shift ;;
	-h|--help) sed -n '2,38p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "gpu-two-majors: unknown option '$1'" >&2; exit 2 ;;
	esac
	shift
done
[ -z "$bundle" ] && [ -d gpu/bundle ] && bundle=gpu/bundle
if [ -z "$ripple" ]; then
	if [ -n "$bundle" ]; then ripple=$bundle/ripple; else ripple=build/ripple; fi
fi
abs() { case $1 in /*) echo "$1" ;; *) echo "$(pwd)/$1" ;; esac; }
ripple=$(abs "$ripple")
debs=$(abs "$debs")
[ -n "$bundle" ] && bundle=$(abs "$bundle")
[ -n "$keep" ] && { mkdir -p "$keep"; keep=$(cd "$keep" && pwd); }
if [ -z "$work" ]; then
	work=$(mktemp -d "${TMPDIR:-/tmp}/ripple-two-majors.XXXXXX")
	[ -n "$keep" ] || trap 'rm -rf "$work"' EXIT
else
	mkdir -p "$work"
	work=$(cd "$work" && pwd)
fi
log=$work/two-majors.log
: > "$log"

say() { printf '%s\n' "$*" | tee -a "$log"; }
heading() { say ""; say "== $*"; }
verdicts=""
verdict() {	# verdict ok|FAIL TEXT
	verdicts="$verdicts$1  $2
"
	say "-> $1: $2"
}
# run WANT CMD...: print and run CMD, output into $out and the log;
# sets $rc; WANT is the exit status expected (for the log only)
run() {
	want=$1
	shift
	say "\$ $*"
	out=$work/last.out
	"$@" > "$out" 2>&1
	rc=$?
	tee -a "$log" < "$out"
	say "(exit $rc, expected $want)"
}
finish() {
	heading "Summary"
	printf '%s' "$verdicts" | tee -a "$log"
	if [ -n "$keep" ]; then
		cp "$log" "$keep/" 2>/dev/null
		cp "$work"/*.json "$keep/" 2>/dev/null
		[ -d "$work/demo/.ripple/logs" ] &&
			cp -r "$work/demo/.ripple/logs" "$keep/run-logs"
	fi
	case $verdicts in
	*FAIL*) say "gpu-two-majors: FAILED"; exit 1 ;;
	*) say "gpu-two-majors: all held"; exit 0 ;;
	esac
}
die() { verdict FAIL "$*"; finish; }

heading "This machine"
say "host: $(uname -srm); $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")"
if command -v nvidia-smi >/dev/null 2>&1; then
	nvidia-smi --query-gpu=index,name,driver_version,memory.total \
		--format=csv,noheader 2>&1 | tee -a "$log"
else
	say "(no nvidia-smi)"
fi
if ! command -v git >/dev/null 2>&1 && [ -n "$bundle" ] &&
    [ -x "$bundle/bin/git" ]; then
	PATH=$bundle/bin:$PATH
	say "git: none here; using the bundle's ($bundle/bin/git)"
fi
for t in dpkg git ldd; do
	command -v $t >/dev/null 2>&1 || die "needs $t on PATH"
done
[ -x "$ripple" ] || die "no ripple binary at $ripple"
[ -d "$cuda13" ] || die "no CUDA 13 home at $cuda13"

if [ -n "$bundle" ]; then
	heading "Libraries for ripple (from $bundle, only those missing here)"
	mkdir -p "$work/libs"
	for f in "$bundle"/lib/*; do
		so=$(basename "$f")
		if ldconfig -p 2>/dev/null | grep -q "^[[:space:]]*$so "; then
			say "system    $so"
		else
			ln -sf "$f" "$work/libs/$so"
			say "bundled   $so"
		fi
	done
	LD_LIBRARY_PATH=$work/libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export LD_LIBRARY_PATH
fi
if ldd "$ripple" | grep -q 'not found'; then
	ldd "$ripple" | tee -a "$log"
	die "ripple does not find all its libraries here"
fi

if [ -n "$home12" ]; then
	h12=$(cd "$home12" && pwd -P)
	heading "CUDA 12 from $h12 (--home12)"
else
	heading "CUDA 12.4 from Debian's packages, unpacked with dpkg -x"
	ls "$debs"/*.deb > /dev/null 2>&1 || die "no .deb files in $debs"
	mkdir -p "$work/cuda-12.4"
	for f in "$debs"/*.deb; do
		say "dpkg -x $(basename "$f")"
		dpkg -x "$f" "$work/cuda-12.4" || die "dpkg -x $f failed"
	done
	h12=$work/cuda-12.4/usr
	ls -l "$h12"/lib/*-linux-gnu/ | tee -a "$log"
fi
h13=$(cd "$cuda13" && pwd -P)
export CUDA_HOME="$h13"

heading "Both toolkits in one process"
run 0 "$ripple" toolkits --home "$h12" --home "$h13"
if [ "$rc" = 0 ] && ! grep -q 'NOT FOUND' "$out" &&
    grep -q 'nvrtc      12\.4' "$out" && grep -q 'nvrtc      13\.' "$out"; then
	verdict ok "toolkits lists CUDA 12.4 and 13 in one process"
else
	verdict FAIL "toolkits did not list both toolkits"
fi
"$ripple" toolkits --home "$h12" --home "$h13" --json > "$work/toolkits.json" 2>&1

heading "Devices, through each runtime"
run 0 "$ripple" devices --home "$h13"
grep -q 'sm_' "$out" && verdict ok "devices (CUDA 13 runtime) lists a GPU" ||
	verdict FAIL "devices (CUDA 13 runtime) lists no GPU"
run 0 "$ripple" devices --home "$h12"
grep -q 'sm_' "$out" && verdict ok "devices (CUDA 12.4 runtime) lists a GPU" ||
	verdict FAIL "devices (CUDA 12.4 runtime) lists no GPU"

heading "cuda-smoke on the GPU, once per toolkit"
for v in 12.4 13; do
	if [ $v = 12.4 ]; then h=$h12; else h=$h13; fi
	run 0 "$ripple" cuda-smoke --home "$h" --no-cache
	if [ "$rc" = 0 ] && grep -q 'cuda-smoke: passed' "$out"; then
		verdict ok "cuda-smoke passed with CUDA $v ($(sed -n 's/.*through the //p' "$out"))"
	else
		verdict FAIL "cuda-smoke with CUDA $v did not pass (exit $rc)"
	fi
	"$ripple" cuda-smoke --home "$h" --no-cache --json \
		> "$work/cuda-smoke-$v.json" 2>&1
done

heading "The demo, its toolkit homes at 12.4 and 13"
say "\$ RIPPLE_DEMO_CTK12_HOME=$h12 RIPPLE_DEMO_CTK13_HOME=$h13 make-demo-repo $work/demo"
RIPPLE_DEMO_CTK12_HOME=$h12 RIPPLE_DEMO_CTK13_HOME=$h13 \
	"$top/examples/cuda-bindings/make-demo-repo" "$work/demo" \
	> "$work/make-demo.out" 2>&1 || {
	cat "$work/make-demo.out" | tee -a "$log"
	die "make-demo-repo failed"
}
cd "$work/demo" || die "no demo folder"
grep 'home:' ripple.yml | tee -a "$log"

heading "A pin that disagrees with the probe (the demo pins 12.9.1)"
run 1 "$ripple" toolkits
if [ "$rc" = 1 ] && grep -q "toolkit 'ctk12' is pinned to 12.9.1 but $h12 has NVRTC 12.4" "$out"; then
	verdict ok "the 12.9.1 pin against the 12.4 probe is an error naming both (exit 1)"
else
	verdict FAIL "the disagreeing pin was not reported as expected"
fi
say "\$ $ripple plan --base main   (first and last lines)"
"$ripple" plan --base main > "$work/plan.out" 2>&1
say "(exit $?; whether plan reports the pin is trust item 6's business)"
{ head -4 "$work/plan.out"; echo "  ..."; tail -2 "$work/plan.out"; } |
	tee -a "$log"

heading "Pin what was probed, commit, and run the demo's CI for linux-64"
# pins: MAJOR.MINOR from the probe, PATCH from version.json if any
pin_of() {	# pin_of HOME
	"$ripple" toolkits --home "$1" > "$work/pin.out" 2>&1
	c=$(sed -n 's/.*version\.json:.* cuda=\([0-9.]*\).*/\1/p' "$work/pin.out" | head -1)
	mm=$(sed -n 's/^  nvrtc *\([0-9]*\.[0-9]*\) .*/\1/p' "$work/pin.out" | head -1)
	case $c in
	"$mm".*) echo "$c" ;;
	*) echo "$mm.0" ;;
	esac
}
p12=$(pin_of "$h12")
[ "$p12" = 12.4.0 ] && p12=12.4.1	# Debian's 12.4.127~12.4.1
p13=$(pin_of "$h13")
say "pins: ctk12 $p12, ctk13 $p13"
sed -e "s/ctk12: {version: \"12\.9\.1\"/ctk12: {version: \"$p12\"/" \
    -e "s/ctk13: {version: \"13\.0\.2\"/ctk13: {version: \"$p13\"/" \
    -e '/^    tags: "v12\.9\.\*"$/a\    tags-follow-toolkit: false' \
    ripple.yml > ripple.yml.new && mv ripple.yml.new ripple.yml
sed -e "s/^  12: 12\.9\.1/  12: $p12/" -e "s/^  13: 13\.0\.2/  13: $p13/" \
    ci/versions.yml > versions.new && mv versions.new ci/versions.yml
git -c user.name=gpu -c user.email=gpu@example.com commit -qam \
	"ci: pin the toolkits found on this GPU machine" || die "git commit failed"
run 0 "$ripple" toolkits
[ "$rc" = 0 ] && verdict ok "with the probed pins, toolkits agrees (exit 0)" ||
	verdict FAIL "toolkits still disagrees with the probed pins"
run 0 "$ripple" check
say "\$ $ripple run --platform linux-64 --keep-going --run-id gpu-two-majors --json > run.json"
"$ripple" run --platform linux-64 --keep-going --run-id gpu-two-majors \
	--json > "$work/run.json" 2> "$work/run.err"
run_rc=$?
tee -a "$log" < "$work/run.err"
say "(exit $run_rc; the JSON document is in run.json; the cuda-smoke nodes' logs follow)"
for v in 12 13; do
	l=$(ls .ripple/logs/gpu-two-majors/*cuda-smoke*bindings-$v* 2>/dev/null | head -1)
	if [ -z "$l" ]; then
		verdict FAIL "the run has no log of cuda-smoke[root=bindings-$v]"
		continue
	fi
	say "--- $l"
	tee -a "$log" < "$l"
	if grep -q '"status": "passed"' "$l" && grep -q '"verified": true' "$l"; then
		verdict ok "ripple run: cuda-smoke[root=bindings-$v] passed on the GPU ($(sed -n 's/.*"launch_api": "\(.*\)".*/\1/p' "$l"))"
	else
		verdict FAIL "ripple run: cuda-smoke[root=bindings-$v] did not pass"
	fi
done
[ "$run_rc" = 0 ] && verdict ok "ripple run exited 0" ||
	verdict FAIL "ripple run exited $run_rc"
finish
