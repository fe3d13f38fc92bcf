#!/bin/bash
# virtperf's app against hyperfine on the same command: the median wall time of ROUNDS
# rounds of RUNS runs each, per round, and the ratio virtperf / hyperfine. Both time a
# fresh process from start to exit with no shell in between (hyperfine --shell=none, app
# without --shell) and read its output through a pipe (hyperfine --output=pipe), pinned
# to CPU 0. Not a test: rerun it on the machine you have.
# The tools take turns, round by round, and the median of the per-round ratios is
# printed last (a shared machine drifts more between rounds than the tools differ).
# Usage: bench/app_peers.sh [ROUNDS] [RUNS] [COMMAND]   (defaults 9, 10 and xz -1 on 1 MB
# of generated text)
set -u
cd "$(dirname "$0")/.." || exit 1
ROUNDS=${1:-9}
RUNS=${2:-10}
scripts/deps.sh build peers || exit 1
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null || exit 1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
head -c 750000 /dev/urandom | base64 >"$work/input"
COMMAND=${3:-"xz -1 -c -T1 $work/input"}
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs, $(uname -r)"
echo "command: $COMMAND"
printf '%-6s %16s %16s %8s\n' round "virtperf p50" "hyperfine p50" ratio
for round in $(seq "$ROUNDS"); do
    build/virtperf run app --cmd "$COMMAND" --reps "$RUNS" --warmup 2 --pin 0 \
        --quiet --db "$work/db" --json "$work/app.json" >/dev/null 2>&1 ||
        { echo "virtperf failed" >&2; exit 1; }
    taskset -c 0 hyperfine --shell=none --runs "$RUNS" --warmup 2 --style none \
        --output=pipe --export-json "$work/hyperfine.json" "$COMMAND" >/dev/null 2>&1 ||
        { echo "hyperfine failed" >&2; exit 1; }
    python3 - "$work/app.json" "$work/hyperfine.json" "$round" "$work/ratios" <<'PY'
import json, statistics, sys
ours = statistics.median(json.load(open(sys.argv[1]))["results"][0]["metrics"]["wall_time"]["values"])
theirs = statistics.median(json.load(open(sys.argv[2]))["results"][0]["times"])
print("%-6s %14.2fms %14.2fms %7.3fx" % (sys.argv[3], ours * 1e3, theirs * 1e3, ours / theirs))
open(sys.argv[4], "a").write("%r\n" % (ours / theirs))
PY
done
python3 -c 'import statistics, sys; r = [float(x) for x in open(sys.argv[1])]; print("median of the %d round ratios: %.3fx (min %.3f, max %.3f)" % (len(r), statistics.median(r), min(r), max(r)))' "$work/ratios"
