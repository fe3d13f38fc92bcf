#!/bin/bash
# Records a reference machine for `app --preset`: runs every workload alone (one job,
# pinned to CPU 0, 9 measured repetitions after one warm-up) and prints each one's median
# wall time, the figure src/bench/app_workload.c keeps as reference_seconds (a score of 1
# means as fast as that machine). Rerun it to move the reference, update the table and
# docs/app-workloads.md (which machine, which program versions) together.
# Usage: bench/app_reference.sh [REPS]   (default 9)
set -u
cd "$(dirname "$0")/.." || exit 1
REPS=${1:-9}
scripts/deps.sh build presets || exit 1
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null || exit 1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs, $(uname -r)"
for program in xz gcc sqlite3 python3; do
    echo "  $program: $(/usr/bin/$program --version 2>&1 | head -1)"
done
build/virtperf run app --preset all --jobs 1 --pin 0 --reps "$REPS" --warmup 1 --quiet \
    --db "$work/db" --json "$work/run.json" >/dev/null || { echo "the workloads failed" >&2; exit 1; }
python3 - "$work/run.json" <<'PY'
import json, statistics, sys
for result in json.load(open(sys.argv[1]))["results"]:
    values = result["metrics"]["wall_time"]["values"]
    print("%-8s median %.3f s  (min %.3f, max %.3f, %d repetitions)" % (
        result["params"]["preset"], statistics.median(values), min(values), max(values), len(values)))
PY
