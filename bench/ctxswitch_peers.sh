#!/bin/bash
# Side-by-side: vcost.ctxswitch against `perf bench sched pipe` (linux-perf) and
# stress-ng --switch (pipe method), all on CPU 0, alternating, medians over ROUNDS, as
# seconds per context switch. perf reports a round trip (two switches) per op, so its
# figure is halved; stress-ng reports "nanosecs per context switch" itself (it sends
# one way until the pipe fills, a different rhythm: context, not a like-for-like ratio).
# Cross-CPU: vcost.ctxswitch --placement=cross pins the partner to CPU 1; perf cannot
# pin its two ends apart, so it runs on CPUs 0-1 where the scheduler places them.
# Usage: bench/ctxswitch_peers.sh [ROUNDS] (default 5). Not a test.
set -eu
cd "$(dirname "$0")/.." || exit 1
ROUNDS=${1:-5}
scripts/deps.sh build peers
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export VIRTPERF_DB="$WORK/peers.db"

vp_cost() { # PLACEMENT: seconds per switch
    build/virtperf run vcost.ctxswitch --placement "$1" --round-trips 200k --pin 0 --reps 1 \
        --warmup 1 --quiet --json "$WORK/vp.json" >/dev/null
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["metrics"]["cost"]["mean"])' "$WORK/vp.json"
}

perf_cost() { # CPUS: seconds per switch (half perf's round trip)
    taskset -c "$1" perf bench sched pipe -l 200000 2>/dev/null |
        awk '/usecs\/op/ { printf "%.9g\n", $1 / 2 / 1e6 }'
}

stress_cost() {
    stress-ng --switch 1 --taskset 0 -t 3 --metrics 2>&1 |
        awk '/nanosecs per context switch/ { for (i = 1; i <= NF; i++) if ($(i + 1) == "nanosecs") printf "%.9g\n", $i / 1e9 }'
}

for name in vp_same perf_same stress_same vp_cross perf_cross; do : >"$WORK/$name"; done
for _ in $(seq 1 "$ROUNDS"); do
    vp_cost same >>"$WORK/vp_same"
    perf_cost 0 >>"$WORK/perf_same"
    stress_cost >>"$WORK/stress_same"
    vp_cost cross >>"$WORK/vp_cross"
    perf_cost 0,1 >>"$WORK/perf_cross"
done
python3 - "$WORK" <<'PY'
import statistics, sys
def median(name):
    return statistics.median(float(l) for l in open(f"{sys.argv[1]}/{name}") if l.strip())
vs, ps, ss, vc, pc = (median(n) for n in ("vp_same", "perf_same", "stress_same", "vp_cross", "perf_cross"))
print(f"same CPU:  vcost.ctxswitch {vs * 1e6:.3f} us, perf bench sched pipe {ps * 1e6:.3f} us "
      f"(ratio {vs / ps:.3f}), stress-ng --switch {ss * 1e6:.3f} us (ratio {vs / ss:.3f})")
print(f"cross CPU: vcost.ctxswitch {vc * 1e6:.3f} us, perf on CPUs 0-1 {pc * 1e6:.3f} us "
      f"(ratio {vc / pc:.3f}; perf's placement is the scheduler's)")
PY
