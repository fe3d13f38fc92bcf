#!/bin/bash
# Side-by-side: virtperf's disk benchmarks against fio with the same parameters on the
# same file system, alternating run by run, printed as ratios (medians over ROUNDS).
#   disk.write / disk.read  O_DIRECT, bs 64k, 1 GiB, psync      vs fio rw=write / rw=read
#   disk.randread           O_DIRECT, bs 4k, depth 1, 256 MiB   vs fio rw=randread
#   disk.read with 2 jobs                                       vs fio numjobs=2
# Usage: bench/disk_peers.sh [DIR] [ROUNDS]  (DIR defaults to a temp dir under /var/tmp).
# Not a test: it asserts nothing.
set -eu
cd "$(dirname "$0")/.."
DIR=${1:-}
ROUNDS=${2:-3}
scripts/deps.sh build peers
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
WORK=$(mktemp -d)
[ -n "$DIR" ] || DIR=$(mktemp -d /var/tmp/vp-disk-peers.XXXXXX)
trap 'rm -rf "$WORK"; rm -f "$DIR"/virtperf-* "$DIR"/fio-peer.*' EXIT
export VIRTPERF_DB="$WORK/peers.db"

# virtperf BENCH SIZE BS JOBS -> "bytes_per_s iops p50_s"; with several jobs the rate is
# all bytes over first start .. last done (span_throughput), as fio's group figure is.
virtperf_case() {
    build/virtperf run "$1" --path "$DIR" --size "$2" --bs "$3" --jobs "$4" --direct=on \
        --reps 1 --warmup 0 --quiet --json "$WORK/vp.json" >/dev/null
    python3 - "$WORK/vp.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
m = r["metrics"]
rate = m["io_throughput"]["mean"] if r["jobs"] == 1 else m["span_throughput"]["mean"]
iops = m["iops"]["mean"] * rate / m["io_throughput"]["mean"]
print(rate, iops, m["latency"]["distribution"]["p50"])
PY
}

# fio RW SIZE BS JOBS -> "bytes_per_s iops p50_s" (the group's figures)
fio_case() {
    fio --name=peer --directory="$DIR" --filename_format='fio-peer.$jobnum' --rw="$1" \
        --size="$2" --bs="$3" --numjobs="$4" --group_reporting --direct=1 --ioengine=psync \
        --iodepth=1 --end_fsync=1 --output-format=json >"$WORK/fio.json"
    python3 - "$WORK/fio.json" "$1" <<'PY'
import json, sys
job = json.load(open(sys.argv[1]))["jobs"][0]
side = job["write" if "write" in sys.argv[2] else "read"]
print(side["bw_bytes"], side["iops"], side["clat_ns"]["percentile"]["50.000000"] / 1e9)
PY
}

run_case() { # LABEL BENCH FIO_RW SIZE BS JOBS
    : >"$WORK/vp.txt"
    : >"$WORK/fio.txt"
    for _ in $(seq 1 "$ROUNDS"); do
        virtperf_case "$2" "$4" "$5" "$6" >>"$WORK/vp.txt"
        fio_case "$3" "$4" "$5" "$6" >>"$WORK/fio.txt"
        rm -f "$DIR"/fio-peer.*
    done
    python3 - "$1" "$WORK/vp.txt" "$WORK/fio.txt" <<'PY'
import statistics, sys
label, vp_file, fio_file = sys.argv[1:]
vp = [list(map(float, line.split())) for line in open(vp_file)]
fio = [list(map(float, line.split())) for line in open(fio_file)]
med = lambda rows, i: statistics.median(row[i] for row in rows)
print(f"{label:<24} {med(vp, 0) / 1e6:10.1f} {med(fio, 0) / 1e6:10.1f} {med(vp, 0) / med(fio, 0):7.3f}"
      f" {med(vp, 1):10.0f} {med(fio, 1):10.0f} {med(vp, 1) / med(fio, 1):7.3f}"
      f" {med(vp, 2) * 1e6:9.1f} {med(fio, 2) * 1e6:9.1f} {med(vp, 2) / med(fio, 2):7.3f}")
PY
}

echo "directory: $DIR ($(df -T "$DIR" | awk 'NR == 2 {print $2 " on " $1}')), $ROUNDS rounds, medians"
printf '%-24s %10s %10s %7s %10s %10s %7s %9s %9s %7s\n' case "vp MB/s" "fio MB/s" ratio \
    "vp IOPS" "fio IOPS" ratio "vp p50us" "fio p50us" ratio
run_case "write 64k 1g direct" disk.write write 1g 64k 1
run_case "read 64k 1g direct" disk.read read 1g 64k 1
run_case "randread 4k qd1 256m" disk.randread randread 256m 4k 1
run_case "read 64k 2 jobs x 512m" disk.read read 512m 64k 2
