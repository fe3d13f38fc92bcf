#!/bin/bash
# How together one host's jobs start: the start skew of `virtperf run null --jobs 2`
# (the spread of the jobs' recorded starts, per repetition) unpinned and with --pin
# spread, each with the monitor at its default 10 Hz and at 0.1 Hz, each under the
# machine's own idle policy and with a 0 us latency request held (root), per round: p50,
# p99, max and how many repetitions were later than 20 us. bench/mpi_skew.sh measures the same
# across MPI ranks beside an MPI_Barrier start. Not a test: rerun it on your machine.
# Usage: bench/start_skew.sh [ROUNDS] [REPS] [JOBS]   (defaults 3, 200 and 2)
set -u
cd "$(dirname "$0")/.." || exit 1
ROUNDS=${1:-3}
REPS=${2:-200}
JOBS=${3:-2}
scripts/deps.sh build || exit 1
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null || exit 1
work=$(mktemp -d)
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs, $(uname -r); null --jobs $JOBS --reps $REPS"
echo "cpuidle driver: $(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none)"
# held: a 0 us request at /dev/cpu_dma_latency kept by a process of its own for the run (as
# cyclictest does by default): idle CPUs then poll instead of halting; a halted vCPU is
# woken through its host, which is most of a guest's start tail
holder=""
release_latency() {
    [ -n "$holder" ] || return 0
    kill "$holder"
    wait "$holder"
    [ $? = 143 ] || { echo "the latency holder ended on its own" >&2; exit 1; }
    holder=""
}
trap 'release_latency; rm -rf "$work"' EXIT
hold_latency() {
    rm -f "$work/held"
    python3 -c 'import os, signal, struct, sys
fd = os.open("/dev/cpu_dma_latency", os.O_WRONLY)
os.write(fd, struct.pack("i", 0))
open(sys.argv[1], "w").close()
signal.pause()' "$work/held" &
    holder=$!
    for _ in $(seq 50); do [ -e "$work/held" ] && return 0; sleep 0.1; done
    echo "cannot hold a latency request (root and /dev/cpu_dma_latency are needed)" >&2
    exit 1
}
for round in $(seq "$ROUNDS"); do
    for setting in "" "--monitor-hz 0.1" "--pin spread" "--pin spread --monitor-hz 0.1"; do
        for idle in own held; do
            [ "$idle" = held ] && hold_latency
            # shellcheck disable=SC2086 # the setting's words are split on purpose
            build/virtperf run null --jobs "$JOBS" --reps "$REPS" $setting --quiet --db "$work/db" \
                --json "$work/null.json" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
            release_latency
            python3 - "$work/null.json" "$round" "${setting:-unpinned}, $idle" <<'PY'
import json, sys
timing = json.load(open(sys.argv[1]))["results"][0]["timing"]
skews = sorted(t["start_skew_s"] for t in timing)
pct = lambda p: skews[min(len(skews) - 1, int(round(p / 100 * (len(skews) - 1))))]
late = sum(s > 20e-6 for s in skews)
print(f"round {sys.argv[2]} {sys.argv[3]:<36} p50 {pct(50) * 1e6:7.1f} us  p99 {pct(99) * 1e6:7.1f} us"
      f"  max {skews[-1] * 1e6:7.1f} us  later than 20 us: {late} of {len(skews)}")
PY
        done
    done
done
