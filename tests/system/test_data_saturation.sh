#!/bin/bash
# A store that saturates, on purpose: the GridKa study's NFS curve. An xrootd in its own
# network namespace serves a fileset through a link that tbf holds to 200 Mbit/s; 1, 2 and
# 4 jobs copy 8 MiB files from it at once; then an nfs-ganesha beside it serves the same
# files over NFSv3 to 1 and 8 jobs, in 512 KiB and in 4 KiB reads. Each job alone can fill
# the link, so the aggregate over the run (first start to last done) must stay within 20%
# of the limit at every job count and job time must grow in proportion to the jobs. The
# client's link is a bridge's port, as on a hypervisor host: its network input must count
# each byte once. The files are large enough that a job's fixed cost (connect, login,
# open, TCP's slow start: some 30 ms here) is a few percent of its time: with 4 MiB files
# one job alone measured 0.84 of the limit in a CI run and 8 jobs 0.89 in another, the
# setup's cost and not the store's limit.
. "$(dirname "$0")/lib.sh"
PORT=$((10000 + $$ % 20000)) # below the ephemeral ports
NETNS_CLIENT=vpdata-c-$$
NETNS_STORE=vpdata-s-$$
SET=$(mktemp -d /tmp/vp-dataset.XXXXXX)
cleanup() {
    [ -n "${XROOTD_PID:-}" ] && kill -9 "$XROOTD_PID" 2>/dev/null
    [ -n "${GANESHA_PID:-}" ] && kill -9 "$GANESHA_PID" 2>/dev/null
    ip netns pids "$NETNS_STORE" 2>/dev/null | xargs -r kill -9
    ip netns del "$NETNS_CLIENT" 2>/dev/null
    ip netns del "$NETNS_STORE" 2>/dev/null
    rm -rf "$WORK" "$SET" "${XROOTD_HOME:-/nonexistent}" "${GANESHA_HOME:-/nonexistent}"
}
trap cleanup EXIT
chmod 755 "$SET"
RATE_BITS=200000000

two_hosts "$NETNS_CLIENT" "$NETNS_STORE" 198.18.7
# The client's side as a hypervisor host's: its address on a bridge whose port is the
# link, so each byte from the store crosses two interfaces (the port, then the bridge).
ip -n "$NETNS_CLIENT" link add vpbr$$ type bridge
ip -n "$NETNS_CLIENT" addr del 198.18.7.1/24 dev vpa$$
ip -n "$NETNS_CLIENT" link set vpa$$ master vpbr$$
ip -n "$NETNS_CLIENT" addr add 198.18.7.1/24 dev vpbr$$
ip -n "$NETNS_CLIENT" link set vpbr$$ up
ip netns exec "$NETNS_STORE" tc qdisc add dev vpb$$ root tbf rate 200mbit burst 32kb latency 50ms ||
    skip "tc tbf is not available"
expect_status 0 "$VP" data prepare --source "$SET" --files 8 --file-size 8m
start_xrootd "$SET" "$PORT" $((PORT + 1)) "$NETNS_STORE"

# saturated JSON LABEL: the run in JSON held the link at every job count, each byte counted
# once, job time growing with the jobs in proportion
saturated() {
    python3 - "$1" "$RATE_BITS" "$2" <<'PY' || fail "the tbf-limited store should saturate over $2"
import json, sys
results = json.load(open(sys.argv[1]))["results"]
limit = float(sys.argv[2]) / 8
print(sys.argv[3] + ":", file=sys.stderr)
ok = len(results) >= 2 and all(r["status"] == "ok" for r in results)
times = {}
for r in results:
    span = r["metrics"]["span_throughput"]["mean"]
    times[r["jobs"]] = r["metrics"]["job_time"]["mean"]
    print("  jobs %d: span %.1f Mbit/s (%.2f of the limit), job time %.3f s" % (
        r["jobs"], span * 8 / 1e6, span / limit, times[r["jobs"]]), file=sys.stderr)
    # (TCP flows sharing tbf's 32 kB bucket back off together and leave some of it
    # unused, the more so the more flows: 0.90-0.95 of the rate here, and in clean clones
    # 0.898 at 8 jobs, 0.83-0.86 at 4 in a slow hour; 0.80 still tells a held link from a
    # free one, which gives many times the limit)
    ok = ok and 0.80 * limit <= span <= 1.02 * limit
    # network in: the store's bytes once (plus TCP/IP and the protocol's framing), not the
    # port's and the bridge's both; of the interface the route to the store leaves by
    read = r["metrics"]["bytes"]["mean"] * r["reps"]
    received = r["data"]["network_rx_bytes"]
    print("  jobs %d: network in %.3f x the bytes read, on %s" % (
        r["jobs"], received / read, r["data"].get("network_interface")), file=sys.stderr)
    ok = ok and 0.98 <= received / read <= 1.10 and r["data"].get("network_interface", "").startswith("vpbr")
    nics = r["monitor"]["nics"]
    ok = ok and all(n["counted"] == (n["kind"] == "port") for name, n in nics.items() if name.startswith("vp"))
    ok = ok and {nics[name]["kind"] for name in nics if name.startswith("vp")} == {"bridge", "port"}
    # the monitor's own headline: the bridge's port alone (the bridge repeats it), at most
    # the link's rate
    ok = ok and 0 < r["monitor"]["summary"]["network.rx"]["mean"] <= 1.1 * limit
counts = sorted(times)
for fewer, more in zip(counts, counts[1:]):
    ratio = times[more] / times[fewer]
    print("  job time x%.2f from %d to %d jobs" % (ratio, fewer, more), file=sys.stderr)
    ok = ok and 0.8 * more / fewer <= ratio <= 1.2 * more / fewer
sys.exit(0 if ok else 1)
PY
}
expect_status 0 ip netns exec "$NETNS_CLIENT" "$VP" run data.copy \
    --source "root://198.18.7.2:$PORT/$SET" --jobs 1,2,4 --per-job 1 --read-size 512k \
    --reps 2 --warmup 0 --json "$WORK/saturated.json"
saturated "$WORK/saturated.json" root://
# NFS from the same store and link (nfs-ganesha beside the xrootd): the GridKa study's
# saturating protocol, at 1 and 8 jobs, with 512 KiB and with 4 KiB reads (one READ each:
# the link's limit holds either way here, the headers a few percent more network in)
start_ganesha "$SET" "$NETNS_STORE" 198.18.7.2
expect_status 0 ip netns exec "$NETNS_CLIENT" "$VP" run data.copy \
    --source "nfs://198.18.7.2$SET" --jobs 1,8 --per-job 1 --read-size 512k \
    --reps 2 --warmup 0 --json "$WORK/saturated-nfs.json"
saturated "$WORK/saturated-nfs.json" nfs://
expect_status 0 ip netns exec "$NETNS_CLIENT" "$VP" run data.copy \
    --source "nfs://198.18.7.2$SET" --jobs 1,8 --per-job 1 --read-size 4k \
    --reps 1 --warmup 0 --json "$WORK/saturated-nfs-4k.json"
saturated "$WORK/saturated-nfs-4k.json" "nfs:// 4k"
stop_xrootd
stop_ganesha
finish
