#!/bin/bash
# virtperf-mpi across hosts: three network namespaces stand in for three hosts (a veth
# each into a bridge, an address each in 198.18.0.0/15), mpirun starts one rank in each
# through an rsh agent that runs the remote command with `ip netns exec`. One host's
# link is limited to 200 Mbit/s each way by tbf: the matrix must show that host's row
# and column held by it (0.5..1.1 of it) and the other links over 3x it; fan-in (both
# other ranks into rank 0 at once, with --key-file) must show the limited host slower
# than the other in its per-host figures; the CNAF 2007 quick plan runs through over the
# three. Everything made is removed on every exit.
. "$(dirname "$0")/lib.sh"
VP_MPI=${VP_MPI:-$(dirname "$VP")/virtperf-mpi}
PLANS="$(cd "$(dirname "$0")/../.." && pwd)/plans"
[ -x "$VP_MPI" ] || skip "virtperf-mpi was not built (scripts/deps.sh mpi, then rebuild)"
command -v mpirun >/dev/null || skip "mpirun is not installed (scripts/deps.sh mpi)"
ip netns add "vpcheck$$" 2>/dev/null || skip "cannot make network namespaces (needs root)"
ip netns del "vpcheck$$"
use_open_mpi # lib.sh: as root, oversubscribed, leak checks on

LIMIT_MBIT=200
cleanup() {
    namespace_hosts_down
    rm -rf "$WORK"
}
trap cleanup EXIT
namespace_hosts 3 # lib.sh: P, SUBNET, MPIRUN

# host 2's link, both ways: its own egress and the bridge's egress toward it. The queue
# holds 400 ms at the rate, so TCP keeps the link full most of the time: with 50 ms,
# tbf's drops held a 1.5 s stream at 0.77..0.93 of the rate on a loaded 2-CPU machine.
# With 400 ms, 1 s streams measured 0.94..0.96 in every local run, but 0.74 and 0.66 in
# clean clones under CI's load (a drop and its recovery stall a 1 s stream). Longer
# streams would cost the suite time it has not got, so a held cell passes from 0.5 of the
# rate: the test's point is the held row and column against free links over 3x the rate.
ip netns exec "${P}n2" tc qdisc add dev eth0 root tbf rate ${LIMIT_MBIT}mbit burst 32kb latency 400ms &&
    tc qdisc add dev "${P}v2" root tbf rate ${LIMIT_MBIT}mbit burst 32kb latency 400ms ||
    fail "cannot limit host 2's link"
# The matrix: every ordered pair alone.
expect_status 0 timeout 180 "${MPIRUN[@]}" "$VP_MPI" run net.stream --duration 1 --reps 2 \
    --warmup 0 --topology matrix --quiet --json "$WORK/matrix.json"
json_check "$WORK/matrix.json" 'len(d["results"]) == 6 and all(r["status"] == "ok" and r["ranks"]["topology"] == "matrix" and len(r["ranks"]["links"]) == 1 for r in d["results"])' \
    "the matrix of 3 ranks is 6 results, one link each"
expect_status 0 "$VP" matrix latest --metric throughput --json "$WORK/cells.json"
python3 - "$WORK/cells.json" "$SUBNET.12" "$LIMIT_MBIT" <<'PY' || fail "the limited host's row and column are not at the limit, or the others not far above it"
import json, sys
m = json.load(open(sys.argv[1]))["matrices"][0]
limited, limit = sys.argv[2], int(sys.argv[3]) * 1e6 / 8
cells = {}
for r, source in enumerate(m["sources"]):
    for c, destination in enumerate(m["destinations"]):
        value = m["values"][r][c] if c < len(m["values"][r]) else None
        if value is not None:
            cells[(source, destination)] = value
assert len(cells) == 6, cells
for (source, destination), value in sorted(cells.items()):
    through_limit = source.endswith(limited) or destination.endswith(limited)
    ratio = value / limit
    print("  %-22s -> %-22s %8.1f MB/s  %.2f x the limit" % (source, destination, value / 1e6, ratio))
    # (held: 0.94..0.96 locally, down to 0.66 under CI's load; free: over 3x)
    assert (0.5 <= ratio <= 1.1) if through_limit else ratio > 3, (source, destination, ratio)
PY

# Fan-in with a key: both other ranks into rank 0 at once; host 2 is the slow one.
head -c 32 /dev/urandom >"$WORK/key"
chmod 600 "$WORK/key"
expect_status 0 timeout 120 "${MPIRUN[@]}" "$VP_MPI" run net.stream --duration 1.5 --reps 2 \
    --warmup 0 --topology fan-in --key-file "$WORK/key" --quiet --json "$WORK/fanin.json"
json_check "$WORK/fanin.json" 'd["results"][0]["ranks"]["topology"] == "fan-in" and sorted((l["from"], l["to"]) for l in d["results"][0]["ranks"]["links"]) == [(1, 0), (2, 0)]' \
    "fan-in links ranks 1 and 2 to rank 0"
json_check "$WORK/fanin.json" 'len({tuple(h["fingerprint"]["addresses"]) for h in d["results"][0]["ranks"]["hosts"]}) == 2' \
    "ranks in namespaces of their own (ip netns exec: network and mount) each took their own fingerprint (their own addresses)"
json_check "$WORK/fanin.json" '[h["rank"] for h in d["results"][0]["ranks"]["hosts"]] == [1, 2] and d["results"][0]["ranks"]["hosts"][0]["metrics"]["throughput"]["mean"] * 3 < d["results"][0]["ranks"]["hosts"][1]["metrics"]["throughput"]["mean"]' \
    "in fan-in the limited host (rank 1) is far slower than rank 2"
json_check "$WORK/fanin.json" 'abs(d["results"][0]["metrics"]["throughput"]["mean"] - sum(h["metrics"]["throughput"]["mean"] for h in d["results"][0]["ranks"]["hosts"])) < 0.05 * d["results"][0]["metrics"]["throughput"]["mean"]' \
    "fan-in's aggregate is the hosts' sum"
expect_status 0 "$VP" results show latest
expect_contains "$WORK/out" "fan-in: rank 1"

# The CNAF 2007 quick plan over the three hosts (2 repetitions a step, shorter network
# and clock steps, for time): every
# step completes (its application step once died here, a rank's connection closed with
# no reason given).
(cd "$WORK" && timeout 300 "${MPIRUN[@]}" "$VP_MPI" run --plan "$PLANS/cnaf-2007-quick.ini" \
    --set global.reps=2 --set network.duration=0.3s --set clock.duration=0.5s --label cnaf-hosts --quiet --json "$WORK/cnaf.json" >"$WORK/cnaf.out" 2>"$WORK/cnaf.err") ||
    fail "the CNAF quick plan over three hosts failed: $(tail -3 "$WORK/cnaf.err")"
json_check "$WORK/cnaf.json" 'len(d["results"]) > 10 and all(r["status"] == "ok" for r in d["results"]) and {r["step"] for r in d["results"]} >= {"application", "network", "disk"}' \
    "every result of the CNAF quick plan over three hosts should be ok"
finish
