#!/bin/bash
# Side-by-side: virtperf's disk benchmarks against dd and fio with the same parameters on
# the same file system, alternating run by run, each round's ratios printed, then medians.
#   disk.write, a new file        O_DIRECT, bs 64k, 1 GiB   vs dd oflag=direct conv=fsync
#   disk.write --preallocate=on   (fio's layout: fallocate)  vs fio rw=write
#   disk.read                     O_DIRECT, bs 64k, 1 GiB    vs fio rw=read
#   disk.randread                 O_DIRECT, bs 4k, depth 1, 256 MiB vs fio rw=randread
#   disk.read with 2 jobs                                    vs fio numjobs=2
# The write rates are end to end (open .. fsync .. close: dd's figure, and fio's, whose
# runtime holds its end_fsync); the read rates the I/O loop's (fio's bw). A sync and a second's pause before every run keep one
# run's write-back out of the next. Usage: bench/disk_peers.sh [DIR] [ROUNDS] [CASES]
# (DIR defaults to a temp dir under /var/tmp, ROUNDS to 3, CASES to "write read"; "write"
# alone runs the two write cases). Not a test: it asserts nothing.
set -eu
cd "$(dirname "$0")/.." || exit 1
DIR=${1:-}
ROUNDS=${2:-3}
CASES=${3:-write read}
scripts/deps.sh build peers
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
WORK=$(mktemp -d)
[ -n "$DIR" ] || DIR=$(mktemp -d /var/tmp/vp-disk-peers.XXXXXX)
trap 'rm -rf "$WORK"; rm -f "$DIR"/virtperf-* "$DIR"/fio-peer.* "$DIR"/dd-peer' EXIT
export VIRTPERF_DB="$WORK/peers.db"

settle() { sync; sleep 1; }

# virtperf BENCH SIZE BS JOBS RATE [OPTION...] -> "bytes_per_s iops p50_s"; RATE is the
# metric (throughput: end to end; io_throughput: the I/O loop); with several jobs the rate
# is all bytes over first start .. last done (span_throughput), as fio's group figure is.
virtperf_case() {
    local bench=$1 size=$2 bs=$3 jobs=$4 rate=$5
    shift 5
    settle
    build/virtperf run "$bench" --path "$DIR" --size "$size" --bs "$bs" --jobs "$jobs" \
        --direct=on "$@" --reps 1 --warmup 0 --quiet --json "$WORK/vp.json" >/dev/null
    python3 - "$WORK/vp.json" "$rate" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
m = r["metrics"]
rate = m[sys.argv[2]]["mean"] if r["jobs"] == 1 else m["span_throughput"]["mean"]
iops = m["iops"]["mean"] * rate / m["io_throughput"]["mean"]
print(rate, iops, m["latency"]["distribution"]["p50"])
PY
}

# fio RW SIZE BS JOBS -> "bytes_per_s iops p50_s" (the group's figures)
fio_case() {
    settle
    fio --name=peer --directory="$DIR" --filename_format='fio-peer.$jobnum' --rw="$1" \
        --size="$2" --bs="$3" --numjobs="$4" --group_reporting --direct=1 --ioengine=psync \
        --iodepth=1 --end_fsync=1 --output-format=json >"$WORK/fio.json"
    rm -f "$DIR"/fio-peer.*
    python3 - "$WORK/fio.json" "$1" <<'PY'
import json, sys
job = json.load(open(sys.argv[1]))["jobs"][0]
side = job["write" if "write" in sys.argv[2] else "read"]
print(side["bw_bytes"], side["iops"], side["clat_ns"]["percentile"]["50.000000"] / 1e9)
PY
}

# dd SIZE BS -> "bytes_per_s iops p50_s": a new file, O_DIRECT, fsync before the rate is
# taken (dd reports no per-block latency: "nan")
dd_case() {
    local bytes blocks
    bytes=$(numfmt --from=iec "${1^^}")
    blocks=$((bytes / $(numfmt --from=iec "${2^^}")))
    settle
    dd if=/dev/zero of="$DIR/dd-peer" bs="$2" count="$blocks" oflag=direct conv=fsync \
        2>"$WORK/dd.txt"
    rm -f "$DIR/dd-peer"
    awk -v blocks="$blocks" '/copied/ { for (i = 1; i <= NF; i++) if ($i == "s,") seconds = $(i - 1);
        bytes = $1 } END { printf "%s %s nan\n", bytes / seconds, blocks / seconds }' "$WORK/dd.txt"
}

# LABEL PEER "VIRTPERF ARGS" "PEER ARGS": ROUNDS alternating runs, each round's ratios, then
# the medians (virtperf / peer: above 1 is virtperf faster, for p50 above 1 is slower)
run_case() {
    local label=$1 peer=$2 vp_args=$3 peer_args=$4
    : >"$WORK/vp.txt"
    : >"$WORK/peer.txt"
    for round in $(seq 1 "$ROUNDS"); do
        # shellcheck disable=SC2086 # the argument lists are split on purpose
        virtperf_case $vp_args >>"$WORK/vp.txt"
        # shellcheck disable=SC2086
        "${peer}_case" $peer_args >>"$WORK/peer.txt"
        python3 - "$label" "$round" "$WORK/vp.txt" "$WORK/peer.txt" <<'PY'
import sys
label, round_, vp_file, peer_file = sys.argv[1:]
vp = list(map(float, open(vp_file).readlines()[-1].split()))
peer = list(map(float, open(peer_file).readlines()[-1].split()))
print(f"  {label} round {round_}: virtperf {vp[0] / 1e6:.1f} MB/s, peer {peer[0] / 1e6:.1f} MB/s, "
      f"ratio {vp[0] / peer[0]:.3f}")
PY
    done
    python3 - "$label" "$WORK/vp.txt" "$WORK/peer.txt" <<'PY'
import math, statistics, sys
label, vp_file, peer_file = sys.argv[1:]
vp = [list(map(float, line.split())) for line in open(vp_file)]
peer = [list(map(float, line.split())) for line in open(peer_file)]
med = lambda rows, i: statistics.median(row[i] for row in rows)
ratios = [v[0] / p[0] for v, p in zip(vp, peer)]
p50 = f"{med(vp, 2) * 1e6:9.1f} {med(peer, 2) * 1e6:9.1f} {med(vp, 2) / med(peer, 2):7.3f}" \
    if not math.isnan(med(peer, 2)) else f"{med(vp, 2) * 1e6:9.1f} {'-':>9} {'-':>7}"
print(f"{label:<30} {med(vp, 0) / 1e6:10.1f} {med(peer, 0) / 1e6:10.1f} {med(vp, 0) / med(peer, 0):7.3f}"
      f" {min(ratios):6.3f}-{max(ratios):.3f}"
      f" {med(vp, 1):10.0f} {med(peer, 1):10.0f} {med(vp, 1) / med(peer, 1):7.3f} {p50}")
PY
}

echo "directory: $DIR ($(df -T "$DIR" | awk 'NR == 2 {print $2 " on " $1}')), $ROUNDS rounds, medians"
header() {
    printf '%-30s %10s %10s %7s %12s %10s %10s %7s %9s %9s %7s\n' case "vp MB/s" "peer MB/s" \
        ratio "per round" "vp IOPS" "peer IOPS" ratio "vp p50us" "peer p50us" ratio
}
header
for group in $CASES; do
    case $group in
    write)
        run_case "write 64k 1g, new file vs dd" dd "disk.write 1g 64k 1 throughput" "1g 64k"
        run_case "write 64k 1g, laid out vs fio" fio \
            "disk.write 1g 64k 1 throughput --preallocate=on" "write 1g 64k 1"
        ;;
    read)
        run_case "read 64k 1g direct" fio "disk.read 1g 64k 1 io_throughput" "read 1g 64k 1"
        run_case "randread 4k qd1 256m" fio "disk.randread 256m 4k 1 io_throughput" \
            "randread 256m 4k 1"
        run_case "read 64k 2 jobs x 512m" fio "disk.read 512m 64k 2 io_throughput" \
            "read 512m 64k 2"
        ;;
    *)
        echo "bench/disk_peers.sh: unknown case group '$group'; accepted: write, read" >&2
        exit 2
        ;;
    esac
done
