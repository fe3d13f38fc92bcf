#!/bin/bash
# net.probe's accuracy on a known interruption, beside ping: two network namespaces on a
# veth pair, `virtperf serve` in one; the link is set down for 50, 100 and 200 ms,
# ROUNDS times each, while net.probe (1000 probes/s) and `ping -i 0.001 -D` (its replies
# timestamped) run from the other. The truth of each flap lies between the time from the
# end of `ip link set down` to the start of `ip link set up` and the time from the start
# of the one to the end of the other; the error is each tool's longest silence minus the
# middle of that interval. Now and then the kernel brings the veth's carrier back about
# a second late (both tools then agree on the longer silence): such flaps are counted
# apart. (`ip monitor`'s "state UP" is no truth either: it is reported ~1 s after the
# down, long after traffic passes again.) Prints every flap, then per length the mean and worst error of
# each tool. Not a test: rerun it on the machine you have. Needs root.
# Usage: bench/probe_accuracy.sh [ROUNDS]   (default 20)
set -u
cd "$(dirname "$0")/.." || exit 1
ROUNDS=${1:-20}
scripts/deps.sh build peers || exit 1
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null || exit 1
VP=$PWD/build/virtperf
A=vpacc-a-$$ B=vpacc-b-$$
work=$(mktemp -d)
cleanup() {
    [ -n "${serve:-}" ] && kill "$serve" 2>/dev/null
    ip netns del "$A" 2>/dev/null
    ip netns del "$B" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
ip netns add "$A" && ip netns add "$B" || { echo "needs root and ip netns" >&2; exit 1; }
ip link add va netns "$A" type veth peer name vb netns "$B"
ip -n "$A" addr add 198.18.6.1/24 dev va
ip -n "$B" addr add 198.18.6.2/24 dev vb
for ns in "$A" "$B"; do ip -n "$ns" link set lo up; done
ip -n "$A" link set va up
ip -n "$B" link set vb up
ip netns exec "$B" "$VP" serve --bind 198.18.6.2 --quiet 2>/dev/null &
serve=$!
sleep 0.5
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs, $(uname -r)"
printf '%-6s %-5s %12s %12s %12s\n' flap round "truth" "virtperf" "ping"
for length in 0.05 0.1 0.2; do
    for round in $(seq "$ROUNDS"); do
        ip netns exec "$A" "$VP" run net.probe --peer 198.18.6.2 --duration 1.5s --quiet \
            --db "$work/db" --json "$work/probe.json" >/dev/null 2>&1 &
        probe=$!
        ip netns exec "$A" ping -n -D -i 0.001 -w 2 198.18.6.2 >"$work/ping.out" 2>&1 &
        ping=$!
        sleep 0.6
        t0=$(date +%s%N); ip -n "$A" link set va down; t1=$(date +%s%N)
        sleep "$length"
        t2=$(date +%s%N); ip -n "$A" link set va up; t3=$(date +%s%N)
        wait $probe || { echo "net.probe failed" >&2; exit 1; }
        wait $ping
        python3 - "$work/probe.json" "$work/ping.out" "$t0" "$t1" "$t2" "$t3" "$length" "$round" \
            "$work/errors" <<'PY'
import json, re, sys
probe = json.load(open(sys.argv[1]))["results"][0]["metrics"]["longest_gap"]["mean"]
stamps = [float(s) for s in re.findall(r"^\[(\d+\.\d+)\] \d+ bytes from", open(sys.argv[2]).read(), re.M)]
ping = max(b - a for a, b in zip(stamps, stamps[1:])) if len(stamps) > 1 else float("nan")
t0, t1, t2, t3 = (int(x) / 1e9 for x in sys.argv[3:7])
low, high = t2 - t1, t3 - t0
truth = (low + high) / 2
late = probe > high + 0.5 and ping > high + 0.5 # both silent far longer: the carrier came back late
print("%-6s %-5s %8.1f..%-8.1f %+10.1fms %+10.1fms%s" % (sys.argv[7], sys.argv[8], low * 1e3,
      high * 1e3, (probe - truth) * 1e3, (ping - truth) * 1e3, "  late carrier" if late else ""))
open(sys.argv[9], "a").write("%s %r %r %d\n" % (sys.argv[7], probe - truth, ping - truth, late))
PY
    done
done
python3 - "$work/errors" <<'PY'
import collections, statistics, sys
rows = collections.defaultdict(list)
late = collections.Counter()
for line in open(sys.argv[1]):
    length, probe, ping, was_late = line.split()
    if was_late == "1":
        late[length] += 1
        continue
    rows[length].append((float(probe), float(ping)))
print("\nerror against the middle of the truth interval (ms), mean and worst; flaps whose")
print("carrier came back late (both tools silent > 0.5 s longer than the ip commands) apart")
for length, pairs in rows.items():
    probe = [p for p, _ in pairs]
    ping = [q for _, q in pairs if q == q]
    print("flap %4.0f ms: net.probe %+.1f, %+.1f   ping %+.1f, %+.1f   (%d flaps, %d late)" % (
        float(length) * 1e3, statistics.mean(probe) * 1e3, max(probe, key=abs) * 1e3,
        statistics.mean(ping) * 1e3 if ping else float("nan"),
        max(ping, key=abs) * 1e3 if ping else float("nan"), len(pairs), late[length]))
PY
