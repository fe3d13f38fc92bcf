#!/bin/bash
# Side-by-side: time.timer --rt against cyclictest -p80 -m (rt-tests), one thread pinned
# to CPU 0, 1 ms interval, same duration, alternating (the order swapped every round),
# under each idle policy on the same terms: the machine's own (cyclictest --laptop
# leaves /dev/cpu_dma_latency alone, as virtperf does by default) and a 0 us latency
# request held (cyclictest's default; virtperf --hold-latency). In a guest whose cpuidle
# driver is haltpoll the two policies differ by ~2-3x: comparing across them compares
# policies, not tools. Prints the medians of p50 and p99 wake-up latency over ROUNDS, and the median,
# quartiles and range of the per-round ratios: this VM's tail moves by tens of percent
# from one minute to the next, so one ratio of medians says little. Both run SCHED_FIFO:
# a normal-priority cyclictest keeps the default 50 us timer slack (virtperf's jobs set
# 1 ns), which alone adds ~50 us. cyclictest's main thread, which wakes every 10 ms, goes
# to CPU 1 (--mainaffinity=1): left on CPU 0 beside the measuring thread it keeps that
# vCPU warm and lowers its own p50 by ~10% on this VM, a help virtperf's job does not get.
# Usage: bench/timer_peers.sh [ROUNDS] [SECONDS] (defaults 3 and 10). Not a test.
set -eu
cd "$(dirname "$0")/.." || exit 1
ROUNDS=${1:-3}
SECONDS_PER_RUN=${2:-10}
scripts/deps.sh build peers # cyclictest comes with rt-tests
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export VIRTPERF_DB="$WORK/peers.db"
loops=$((SECONDS_PER_RUN * 1000))
run_virtperf() { # POLICY
    local hold=off
    [ "$1" = held ] && hold=on
    build/virtperf run time.timer --rt --hold-latency=$hold --interval 1ms \
        --duration "${SECONDS_PER_RUN}s" --pin 0 --reps 1 --warmup 0 --quiet \
        --json "$WORK/vp.json" >/dev/null
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["results"][0]["metrics"]["latency"]["distribution"]; print(d["p50"] * 1e6, d["p99"] * 1e6)' "$WORK/vp.json" >>"$WORK/vp-$1.txt"
}

run_cyclictest() { # POLICY
    local laptop=--laptop
    [ "$1" = held ] && laptop=
    cyclictest -t1 -a0 --mainaffinity=1 -p80 -m -i1000 -l"$loops" -q $laptop -h10000 \
        >"$WORK/cyclic.out" 2>&1
    python3 - "$WORK/cyclic.out" >>"$WORK/cyclic-$1.txt" <<'PY'
import sys
counts = {}
for line in open(sys.argv[1]):
    fields = line.split()
    if len(fields) < 2 or not fields[0].isdigit():
        continue  # comments and cyclictest's warnings
    latency, count = fields[:2]
    counts[int(latency)] = int(count)
total = sum(counts.values())
def percentile(p):
    seen = 0
    for latency in sorted(counts):
        seen += counts[latency]
        if seen >= p / 100 * total:
            return latency
print(percentile(50), percentile(99))
PY
}

# Whichever runs first in a round fares differently on this VM: alternate the order.
for policy in own held; do
    for round in $(seq 1 "$ROUNDS"); do
        if [ $((round % 2)) -eq 1 ]; then
            run_virtperf $policy; run_cyclictest $policy
        else
            run_cyclictest $policy; run_virtperf $policy
        fi
    done
done
for policy in own held; do
    echo "idle policy: $policy ($( [ $policy = own ] && echo "the machine's; cyclictest --laptop" || echo "0 us request held; virtperf --hold-latency"))"
    python3 - "$WORK/vp-$policy.txt" "$WORK/cyclic-$policy.txt" <<'PY'
import statistics, sys
vp = [list(map(float, l.split())) for l in open(sys.argv[1])]
cy = [list(map(float, l.split())) for l in open(sys.argv[2])]
for i, name in enumerate(("p50", "p99")):
    v, c = statistics.median(r[i] for r in vp), statistics.median(r[i] for r in cy)
    # each round's two runs are minutes apart at most: their ratio drifts less than either
    ratios = sorted(a[i] / b[i] for a, b in zip(vp, cy))
    quartiles = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else ratios * 3
    print(f"  wake-up latency {name}: time.timer {v:.1f} us, cyclictest {c:.1f} us, ratio of "
          f"medians {v / c:.3f}; per-round ratio median {statistics.median(ratios):.3f}, "
          f"quartiles {quartiles[0]:.3f}-{quartiles[2]:.3f}, range {ratios[0]:.3f}-{ratios[-1]:.3f}")
PY
done
