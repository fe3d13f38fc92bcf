#!/bin/bash
# How `virtperf run --guests` scales on this machine: for 1, 2 and 4 guests (COUNTS), the
# start skew across guests (p50 and p99 over REPS repetitions of the null benchmark, on
# the host's clock through the measured offsets) beside its error bound, the guests' time
# from start to their first word (boot to ready) as p50 and p95 over them, what each
# guest's QEMU holds of this host's memory beyond the guest's RAM (Pss, mean over the
# guests: Firecracker's VMM overhead), and the wall time of the whole command. Then the same computation in one guest started by `run --guests 1` and by
# scripts/guest.sh (a transient libvirt domain of its own, user networking): the two must agree, as a
# ratio per round. TCG unless ACCEL=kvm. Not a test: numbers depend on the machine (and
# TCG guests beyond its CPUs crawl); rerun it on yours.
# Usage: bench/guests_scale.sh [ROUNDS] [REPS]   (defaults 3 and 30); VP=path/to/virtperf
# gives the skew table of another build (an older commit's, say); SKEW_ONLY=1 stops there.
set -u
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
REPS=${2:-30}
COUNTS=${COUNTS:-1 2 4}
VP=${VP:-build/virtperf}
ACCEL=${ACCEL:-tcg}
scripts/deps.sh build guests || exit 1
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null || exit 1
work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
export VIRTPERF_DB="$work/db"
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs, $(uname -r); guests: $ACCEL"
printf '%-6s %-7s %12s %12s %12s %12s %12s %14s %10s\n' round guests "skew p50" "skew p99" "bound" \
    "ready p50" "ready p95" "overhead/guest" "wall"
for round in $(seq "$ROUNDS"); do
    for count in $COUNTS; do
        started=$(date +%s.%N)
        "$VP" run null --guests "$count" --guest-accel "$ACCEL" --reps "$REPS" --warmup 2 \
            --quiet --json "$work/null.json" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
        wall=$(echo "$(date +%s.%N) - $started" | bc)
        python3 - "$work/null.json" "$round" "$count" "$wall" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
skews = sorted(t["start_skew_s"] for t in r["timing"])
pct = lambda p: skews[min(len(skews) - 1, int(round(p / 100 * (len(skews) - 1))))]
guests = r["guests"]
overhead = [h["qemu_overhead_pss_bytes"] for h in guests["hosts"] if "qemu_overhead_pss_bytes" in h]
us = lambda s: "%.1f us" % (s * 1e6)
print("%-6s %-7s %12s %12s %12s %12s %12s %14s %9.1fs" % (sys.argv[2], sys.argv[3], us(pct(50)), us(pct(99)),
      us(r["ranks"]["start_skew_bound_s"]), "%.2f s" % guests["ready_p50_s"],
      "%.2f s" % guests["ready_p95_s"],
      "%.0f MiB" % (sum(overhead) / len(overhead) / 2**20) if overhead else "-", float(sys.argv[4])))
PY
    done
done
[ "${SKEW_ONLY:-0}" = 1 ] && exit 0
echo
echo "one guest, the same computation: run --guests 1 against scripts/guest.sh (score, M ops/s)"
printf '%-6s %14s %14s %8s\n' round "--guests 1" "guest.sh" ratio
for round in $(seq "$ROUNDS"); do
    build/virtperf run cpu --ops 20m --reps 5 --guests 1 --guest-accel "$ACCEL" --quiet \
        --json "$work/ours.json" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
    scripts/guest.sh --accel "$ACCEL" --smp 1 --memory 512 -- run cpu --ops 20m --reps 5 --quiet \
        >"$work/script.out" 2>&1 || { tail -5 "$work/script.out" >&2; exit 1; }
    build/virtperf results export latest -o "$work/script.json" >/dev/null
    python3 - "$work/ours.json" "$work/script.json" "$round" <<'PY'
import json, sys
score = lambda path: json.load(open(path))["results"][0]["metrics"]["score"]["mean"] / 1e6
ours, script = score(sys.argv[1]), score(sys.argv[2])
print("%-6s %14.1f %14.1f %8.3f" % (sys.argv[3], ours, script, ours / script))
PY
done
