#!/bin/sh
# cuda-smoke with a cold cubin cache against a warm one, in the same run.
#
#   bench/cuda_smoke_bench.sh [RIPPLE] [ROUNDS] [-- cuda-smoke options...]
#
# Each round empties a cache directory, runs `ripple cuda-smoke --json
# --cache-dir D` (cold: NVRTC compile + nvJitLink link + store put), then runs
# it again (warm: the cubin comes from D). Reports the median of the build
# phase as the action measures it (cold: compile + link; warm: the store
# lookup), of the action's total (build + load + launch + check; without a
# GPU the launch is deferred), and of each process's wall time (which adds
# process start and dlopen of NVRTC, nvJitLink and cudart). Goal: the warm
# build phase at least 20 times faster than the cold one.
# Needs python3 (to read the JSON). Exit 0 when the goal is met, else 1.
set -eu
ripple=${1:-build/ripple}
rounds=${2:-5}
[ $# -ge 2 ] && shift 2 || shift $#
[ "${1:-}" = "--" ] && shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

now_ns() { date +%s%N; }

i=0
while [ "$i" -lt "$rounds" ]; do
	rm -rf "$tmp/cache"
	t0=$(now_ns)
	"$ripple" cuda-smoke --json --cache-dir "$tmp/cache" "$@" \
	    >"$tmp/cold.$i.json" || [ $? -eq 4 ]
	t1=$(now_ns)
	"$ripple" cuda-smoke --json --cache-dir "$tmp/cache" "$@" \
	    >"$tmp/warm.$i.json" || [ $? -eq 4 ]
	t2=$(now_ns)
	echo "$(( (t1 - t0) / 1000 )) $(( (t2 - t1) / 1000 ))" >>"$tmp/wall"
	i=$((i + 1))
done

python3 - "$tmp" "$rounds" <<'PY'
import json, statistics, sys
tmp, rounds = sys.argv[1], int(sys.argv[2])
def load(kind, i):
    with open(f"{tmp}/{kind}.{i}.json") as f:
        return json.load(f)
cold = [load("cold", i) for i in range(rounds)]
warm = [load("warm", i) for i in range(rounds)]
for c, w in zip(cold, warm):
    assert c["cache_hits"] == 0, "cold run hit the cache"
    assert w["cache_hits"] == len(w["builds"]), "warm run missed the cache"
    assert c["status"] == w["status"] != "failed", (c["status"], c["error"])
wall = [tuple(int(x) / 1000 for x in l.split()) for l in open(f"{tmp}/wall")]
med = statistics.median
cb = med(r["ms"]["compile"] + r["ms"]["link"] for r in cold)
wb = med(r["ms"]["lookup"] for r in warm)
ct = med(r["ms"]["total"] for r in cold)
wt = med(r["ms"]["total"] for r in warm)
cw = med(c for c, _ in wall)
ww = med(w for _, w in wall)
print(f"cuda-smoke bench: {rounds} rounds, status {cold[0]['status']}, "
      f"archs {', '.join(b['arch'] for b in cold[0]['builds'])} (medians)")
print(f"  build phase   cold {cb:9.3f} ms  warm {wb:9.3f} ms  ratio {cb / max(wb, 1e-6):8.1f}x")
print(f"  action total  cold {ct:9.3f} ms  warm {wt:9.3f} ms  ratio {ct / max(wt, 1e-6):8.1f}x")
print(f"  process wall  cold {cw:9.3f} ms  warm {ww:9.3f} ms  ratio {cw / max(ww, 1e-6):8.1f}x")
ok = cb / max(wb, 1e-6) >= 20
print(f"  goal (warm build phase >= 20x faster): {'met' if ok else 'NOT met'}")
sys.exit(0 if ok else 1)
PY
