#!/bin/bash
# data.copy against the native clients on the same files, from the same xrootd on
# loopback: root:// against xrdcp, http:// against curl, and from an nfs-ganesha in a
# network namespace of its own (a veth away) nfs:// against libnfs's nfs-cat (its nfs-cp
# refuses /dev/null as a destination; nfs-cat writes to stdout, sent there), with 1 and 4
# jobs (4 tool processes at once), virtperf first in odd rounds and the tool first in even
# ones. Throughput is bytes over the
# wall time from the first start to the last end: virtperf's span_throughput, and for
# the tools the wall time of the processes minus their fixed start cost (measured on an
# empty file each round). xrdcp is given virtperf's request size and one request in
# flight (XRD_CPCHUNKSIZE, XRD_CPPARALLELCHUNKS=1) and plain reads
# (XRD_CPUSEPGWRTRD=0: XRootD 5's xrdcp otherwise asks for page reads with a CRC32C
# per 4 KiB, which cost it 40% here), so both make the same requests; xrdcp with its
# defaults (8 MiB chunks, 4 in flight, page reads) is printed beside for information. Prints each round's ratio virtperf / tool and the medians. Not a test:
# rerun it on the machine you have. Needs root (xrootd serves as nobody).
# Usage: bench/data_peers.sh [ROUNDS] [FILE_SIZE] [READ_SIZE]   (defaults 7, 256m, 1m)
# PROTOS="nfs" (any of root http nfs; all by default) runs only those comparisons.
set -u
cd "$(dirname "$0")/.." || exit 1
ROUNDS=${1:-7}
FILE_SIZE=${2:-256m}
READ_SIZE=${3:-1m}
PROTOS=" ${PROTOS:-root http nfs} "
scripts/deps.sh build data nfs || exit 1
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null || exit 1
[ "$(id -u)" -eq 0 ] || { echo "run as root: xrootd serves as nobody only when root starts it" >&2; exit 1; }
PORT=$((20000 + $$ % 10000))
work=$(mktemp -d)
set_dir=$(mktemp -d /tmp/vp-peers-set.XXXXXX)
NFS_NETNS=vp-peers-nfs-$$
cleanup() {
    [ -n "${XROOTD_PID:-}" ] && kill "$XROOTD_PID" 2>/dev/null
    ip netns pids "$NFS_NETNS" 2>/dev/null | xargs -r kill -9
    ip netns del "$NFS_NETNS" 2>/dev/null
    rm -rf "$work" "$set_dir" "${XROOTD_HOME:-/nonexistent}" "${GANESHA_HOME:-/nonexistent}"
}
trap cleanup EXIT
chmod 755 "$set_dir"
build/virtperf data prepare --source "$set_dir" --files 4 --file-size "$FILE_SIZE" >/dev/null || exit 1
: >"$set_dir/empty"
# the system tests' xrootd helper, without its request trace
. tests/system/lib.sh
# shellcheck disable=SC2034 # read by lib.sh's start_xrootd
XROOTD_TRACE=0
trap 'cleanup; rm -rf "$WORK"' EXIT
start_xrootd "$set_dir" "$PORT" $((PORT + 1))
ROOT=root://127.0.0.1:$PORT/$set_dir
HTTP=http://127.0.0.1:$((PORT + 1))/$set_dir
# the NFS server in its own namespace, this host at 198.18.11.1, the server at .2
ip netns add "$NFS_NETNS" && ip link add vpnfs$$ type veth peer name vpnfs$$s netns "$NFS_NETNS" &&
    ip addr add 198.18.11.1/24 dev vpnfs$$ && ip link set vpnfs$$ up &&
    ip -n "$NFS_NETNS" addr add 198.18.11.2/24 dev vpnfs$$s && ip -n "$NFS_NETNS" link set vpnfs$$s up &&
    ip -n "$NFS_NETNS" link set lo up || exit 1
start_ganesha "$set_dir" "$NFS_NETNS" 198.18.11.2
NFS=nfs://198.18.11.2$set_dir
read_bytes=$(python3 -c 'import sys; u = {"k": 1024, "m": 1 << 20, "g": 1 << 30}; t = sys.argv[1]; print(int(t[:-1]) * u[t[-1]] if t[-1] in u else int(t))' "$READ_SIZE")
total_bytes=$(python3 -c 'import json, sys; print(sum(f["size"] for f in json.load(open(sys.argv[1]))["files"]))' "$set_dir/virtperf-manifest.json")

now() { date +%s.%N; }
# tool_seconds JOBS KIND: wall seconds for JOBS processes of the tool, each copying
# 4/JOBS files, minus the tool's start cost on the empty file
tool_seconds() {
    local jobs=$1 kind=$2 start end empty_start empty_end
    copy_one() {
        case "$kind" in
            xrdcp) XRD_CPUSEPGWRTRD=0 XRD_CPCHUNKSIZE=$read_bytes XRD_CPPARALLELCHUNKS=1 \
                xrdcp -s -f "$ROOT/$1" /dev/null ;;
            xrdcp-defaults) xrdcp -s -f "$ROOT/$1" /dev/null ;;
            curl) curl -s -f -o /dev/null "$HTTP/$1" ;;
            nfs-cat) nfs-cat "$NFS/$1" >/dev/null ;;
        esac
    }
    empty_start=$(now)
    copy_one empty || exit 1
    empty_end=$(now)
    start=$(now)
    for job in $(seq 0 $((jobs - 1))); do
        (for file in $(seq "$job" "$jobs" 3); do copy_one "file-0000$file.dat" || exit 1; done) &
    done
    wait
    end=$(now)
    python3 -c 'import sys; s, e, es, ee, n = map(float, sys.argv[1:]); print(e - s - (ee - es) * 4 / n)' \
        "$start" "$end" "$empty_start" "$empty_end" "$jobs"
}
virtperf_rate() { # JOBS URL
    build/virtperf run data.copy --source "$2" --jobs "$1" --per-job $((4 / $1)) --read-size "$READ_SIZE" \
        --reps 1 --warmup 0 --quiet --db "$work/db" --json "$work/v.json" >/dev/null 2>&1 || { echo "virtperf failed" >&2; exit 1; }
    python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["results"][0]["metrics"]["span_throughput"]["mean"])' "$work/v.json"
}
# measure_pair JOBS URL TOOL: virtperf's rate into ours and the tool's into theirs, the
# order swapped every other round
measure_pair() {
    local tool_s
    if [ $((round % 2)) -eq 1 ]; then
        ours=$(virtperf_rate "$1" "$2")
        tool_s=$(tool_seconds "$1" "$3")
    else
        tool_s=$(tool_seconds "$1" "$3")
        ours=$(virtperf_rate "$1" "$2")
    fi
    theirs=$(python3 -c 'import sys; print(float(sys.argv[1]) / float(sys.argv[2]))' "$total_bytes" "$tool_s")
}

echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs, $(uname -r)"
echo "files: 4 x $FILE_SIZE, read size $READ_SIZE; xrootd $(xrootd -v 2>&1 | head -1) on loopback; nfs-ganesha over a veth (NFSv3)"
printf '%-6s %-5s %-6s %12s %12s %8s %16s\n' round jobs proto virtperf tool ratio "xrdcp defaults"
for round in $(seq "$ROUNDS"); do
    for jobs in 1 4; do
        if [[ "$PROTOS" == *" root "* ]]; then
        measure_pair "$jobs" "$ROOT" xrdcp
        defaults=$(python3 -c 'import sys; print(float(sys.argv[1]) / float(sys.argv[2]))' "$total_bytes" "$(tool_seconds "$jobs" xrdcp-defaults)")
        python3 -c 'import sys; r, j, o, t, d = sys.argv[1:6]; o, t, d = float(o), float(t), float(d); print("%-6s %-5s %-6s %9.0f MB/s %7.0f MB/s %7.3fx %11.0f MB/s" % (r, j, "root", o / 1e6, t / 1e6, o / t, d / 1e6)); open(sys.argv[6], "a").write("root %s %r\n" % (j, o / t))' \
            "$round" "$jobs" "$ours" "$theirs" "$defaults" "$work/ratios"
        fi
        if [[ "$PROTOS" == *" http "* ]]; then
        measure_pair "$jobs" "$HTTP" curl
        python3 -c 'import sys; r, j, o, t = sys.argv[1:5]; o, t = float(o), float(t); print("%-6s %-5s %-6s %9.0f MB/s %7.0f MB/s %7.3fx" % (r, j, "http", o / 1e6, t / 1e6, o / t)); open(sys.argv[5], "a").write("http %s %r\n" % (j, o / t))' \
            "$round" "$jobs" "$ours" "$theirs" "$work/ratios"
        fi
        if [[ "$PROTOS" == *" nfs "* ]]; then
        measure_pair "$jobs" "$NFS" nfs-cat
        python3 -c 'import sys; r, j, o, t = sys.argv[1:5]; o, t = float(o), float(t); print("%-6s %-5s %-6s %9.0f MB/s %7.0f MB/s %7.3fx" % (r, j, "nfs", o / 1e6, t / 1e6, o / t)); open(sys.argv[5], "a").write("nfs %s %r\n" % (j, o / t))' \
            "$round" "$jobs" "$ours" "$theirs" "$work/ratios"
        fi
    done
done
stop_ganesha
python3 - "$work/ratios" <<'PY'
import collections, statistics, sys
groups = collections.defaultdict(list)
for line in open(sys.argv[1]):
    proto, jobs, ratio = line.split()
    groups[(proto, jobs)].append(float(ratio))
for (proto, jobs), ratios in sorted(groups.items()):
    print("%s, %s job%s: median ratio %.3fx over %d rounds (min %.3f, max %.3f)" % (
        proto, jobs, "" if jobs == "1" else "s", statistics.median(ratios), len(ratios), min(ratios), max(ratios)))
PY
