#!/bin/bash
# How together virtperf-mpi's ranks start: the start skew across ranks (the spread of
# every job's real start, on rank 0's clock through the measured offsets) at 2, 4 and 8
# ranks on this machine (oversubscribed beyond its CPUs), with virtperf's
# sleep-to-an-agreed-instant start against a start when MPI_Barrier returns, the way
# most MPI benchmarks begin. Median and p99 over REPS repetitions of the null
# benchmark (no work: only the start is measured), per round, and the ratio
# barrier / instant. Not a test: numbers depend on the machine; rerun it on yours.
# Usage: bench/mpi_skew.sh [ROUNDS] [REPS]   (defaults 3 and 50)
set -u
cd "$(dirname "$0")/.." || exit 1
ROUNDS=${1:-3}
REPS=${2:-50}
scripts/deps.sh build mpi || exit 1
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null || exit 1
[ -x build/virtperf-mpi ] || { echo "virtperf-mpi was not built (no MPI found)" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PMIX_MCA_gds=hash
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs, $(uname -r)"
printf '%-6s %-6s %-9s %12s %12s %12s %12s %10s %10s\n' round ranks "" "instant p50" "p99" \
    "barrier p50" "p99" "ratio p50" "ratio p99"
for round in $(seq "$ROUNDS"); do
    for ranks in 2 4 8; do
        for start in instant barrier; do
            mpirun --oversubscribe --bind-to none -np "$ranks" build/virtperf-mpi run null \
                --reps "$REPS" --warmup 2 --start-with "$start" --quiet --db "$work/db" \
                --json "$work/$start.json" >/dev/null 2>"$work/err" ||
                { cat "$work/err" >&2; exit 1; }
        done
        python3 - "$work/instant.json" "$work/barrier.json" "$round" "$ranks" <<'PY'
import json, sys
def skews(path):
    timing = json.load(open(path))["results"][0]["timing"]
    return sorted(t["start_skew_s"] for t in timing)
def pct(values, p):
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]
instant, barrier = skews(sys.argv[1]), skews(sys.argv[2])
i50, i99, b50, b99 = (pct(instant, 50), pct(instant, 99), pct(barrier, 50), pct(barrier, 99))
print("%-6s %-6s %-9s %10.1fus %10.1fus %10.1fus %10.1fus %9.2fx %9.2fx" % (
    sys.argv[3], sys.argv[4], "", i50 * 1e6, i99 * 1e6, b50 * 1e6, b99 * 1e6,
    b50 / i50 if i50 else float("inf"), b99 / i99 if i99 else float("inf")))
PY
    done
done
