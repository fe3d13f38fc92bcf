#!/bin/bash
# Side-by-side measurement of virtperf against peer tools on this machine, printed as
# ratios (run it a few times on a shared machine and quote the medians):
#   - mem.stream triad vs an -O3 -march=native STREAM-style triad (bench/triad_ref.c, the
#     widest vectors this CPU has), 1 and 2 jobs, per round and as median / min / max of
#     the best-of ratios, and the vector target virtperf's kernels ran (which goes first
#     swapped every other round)
#   - vs sysbench memory (sequential writes) and stress-ng --stream (read+write rate)
#   - virtperf's start skew for 2..16 jobs
# Usage: bench/peers.sh [ROUNDS]   (default 3). Not a test: it asserts nothing.
set -eu
cd "$(dirname "$0")/.." || exit 1
ROUNDS=${1:-3}
SIZE=$((256 * 1024 * 1024))   # bytes per array, virtperf's default
scripts/deps.sh build peers
[ -x build/virtperf ] || { meson setup build >/dev/null; }
ninja -C build >/dev/null
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cc -O3 -march=native -pthread -o "$WORK/triad_ref" bench/triad_ref.c
export VIRTPERF_DB="$WORK/peers.db"

json_field() { # FILE PYTHON-EXPRESSION over d
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

ratio() { python3 -c "import sys; print(f'{float(sys.argv[1]) / float(sys.argv[2]):.3f}')" "$1" "$2"; }
gbps() { python3 -c "import sys; print(f'{float(sys.argv[1]) / 1e9:.2f}')" "$1"; }

# The reference with one thread per job on CPUs 0..JOBS-1, repetitions started together;
# prints the best and mean rates.
reference_triad() { # JOBS
    "$WORK/triad_ref" $SIZE 11 "$1"
}

printf '%-6s %-5s %14s %14s %14s %14s %9s %9s\n' round jobs "vp best GB/s" "ref best GB/s" \
    "vp mean GB/s" "ref mean GB/s" "best" "mean"
for round in $(seq 1 "$ROUNDS"); do
    for jobs in 1 2; do
        # which goes first swapped every other round
        [ $((round % 2)) -eq 0 ] && read -r ref_best ref_mean < <(reference_triad $jobs)
        build/virtperf run mem.stream --jobs $jobs --pin spread --reps 10 --quiet \
            --json "$WORK/stream.json" >/dev/null
        vp_best=$(json_field "$WORK/stream.json" 'd["results"][0]["metrics"]["triad"]["max"]')
        vp_mean=$(json_field "$WORK/stream.json" 'd["results"][0]["metrics"]["triad"]["mean"]')
        [ $((round % 2)) -eq 1 ] && read -r ref_best ref_mean < <(reference_triad $jobs)
        printf '%-6s %-5s %14s %14s %14s %14s %9s %9s\n' "$round" "$jobs" \
            "$(gbps "$vp_best")" "$(gbps "$ref_best")" "$(gbps "$vp_mean")" "$(gbps "$ref_mean")" \
            "$(ratio "$vp_best" "$ref_best")" "$(ratio "$vp_mean" "$ref_mean")"
        echo "$jobs $(ratio "$vp_best" "$ref_best")" >>"$WORK/ratios"
    done
done
echo "virtperf's kernels: $(json_field "$WORK/stream.json" 'd["results"][0]["kernels"]["target"]'); the reference: -march=native on $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
echo "triad best-of ratio virtperf/reference over the rounds (a drop shows in the minimum):"
python3 - "$WORK/ratios" <<'PY'
import statistics, sys
by_jobs = {}
for line in open(sys.argv[1]):
    jobs, value = line.split()
    by_jobs.setdefault(jobs, []).append(float(value))
for jobs, values in sorted(by_jobs.items()):
    print(f"  {jobs} job(s): median {statistics.median(values):.3f}, min {min(values):.3f}, "
          f"max {max(values):.3f} ({len(values)} rounds)")
PY

echo
echo "Other peers (1 job; different kernels, so the ratio is context, not a target):"
build/virtperf run mem.stream --jobs 1 --reps 10 --quiet --json "$WORK/stream.json" >/dev/null
vp_triad=$(json_field "$WORK/stream.json" 'd["results"][0]["metrics"]["triad"]["mean"]')
sysbench_mib=$(sysbench memory --memory-block-size=256M --memory-total-size=20G \
    --memory-oper=write --threads=1 run | sed -n 's/.*(\([0-9.]*\) MiB\/sec).*/\1/p')
stress_rw=$(stress-ng --stream 1 --stream-l3-size 64M -t 12s --metrics 2>&1 |
    awk '/memory rate:/ {for (i = 1; i <= NF; i++) if ($i == "MB") s += $(i - 1)} END {print s}')
sysbench_bps=$(python3 -c "import sys; print(float(sys.argv[1]) * 1048576)" "$sysbench_mib")
stress_bps=$(python3 -c "import sys; print(float(sys.argv[1]) * 1e6)" "$stress_rw")
printf '  virtperf triad mean      %8s GB/s\n' "$(gbps "$vp_triad")"
printf '  sysbench memory write    %8s GB/s  (virtperf/sysbench %s)\n' "$(gbps "$sysbench_bps")" \
    "$(ratio "$vp_triad" "$sysbench_bps")"
printf '  stress-ng stream r+w     %8s GB/s  (virtperf/stress-ng %s)\n' "$(gbps "$stress_bps")" \
    "$(ratio "$vp_triad" "$stress_bps")"

echo
echo "Start skew (median over 20 repetitions of cpu --ops=5m) on $(nproc) CPUs:"
build/virtperf run cpu --ops=5m --jobs 2,4,8,16 --reps 20 --quiet --json "$WORK/skew.json" >/dev/null
json_field "$WORK/skew.json" '"\n".join("  %2d jobs: median %7.1f us, max %8.1f us" % (r["jobs"], r["start_skew_s"] * 1e6, r["start_skew_max_s"] * 1e6) for r in d["results"])'
