#!/bin/bash
# net.probe against known interruptions: a 300 ms SIGSTOP of serve (~300 ms, both
# directions), a veth link set down for 100 ms between two namespaces (within 15 ms of
# the outage), one direction stopped for 200 ms (only that direction's gap), steady drops
# (loss, not gaps); Ctrl-C mid-probe keeps the result; bad input refused.
. "$(dirname "$0")/lib.sh"
PORT=$((10000 + $$ % 20000)) # below the ephemeral ports
NETNS_A=vpprobe-a-$$
NETNS_B=vpprobe-b-$$
SERVE_PID=
cleanup() {
    [ -n "$SERVE_PID" ] && kill -CONT "$SERVE_PID" 2>/dev/null && kill "$SERVE_PID" 2>/dev/null
    ip netns del "$NETNS_A" 2>/dev/null
    ip netns del "$NETNS_B" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

# metric RESULT_JSON NAME: a metric's mean
metric() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["results"][0]["metrics"][sys.argv[2]]["mean"])' "$1" "$2"; }
# within VALUE LOW HIGH: LOW <= VALUE <= HIGH
within() { python3 -c 'import sys; v, lo, hi = map(float, sys.argv[1:]); sys.exit(0 if lo <= v <= hi else 1)' "$@"; }

expect_usage_error "--rate: '0' is not valid" "$VP" run net.probe --rate 0
expect_usage_error "--gap-threshold 0.0005 s is shorter than the probe period" "$VP" run net.probe --gap-threshold 500us
expect_usage_error "--size: '8' is not valid" "$VP" run net.probe --size 8

# Nothing wrong: every probe answered, the longest silence about a period.
expect_status 0 "$VP" run net.probe --duration 1s --json "$WORK/quiet.json"
json_check "$WORK/quiet.json" '(lambda m: m["loss"]["mean"] == 0 and 900 <= m["probes"]["mean"] <= 1001 and 0 < m["longest_gap"]["mean"] < 0.05 and m["rtt"]["distribution"]["count"] == m["probes"]["mean"])(d["results"][0]["metrics"])' \
    "a quiet loopback: every probe answered"
json_check "$WORK/quiet.json" '(lambda t: t["period_s"] == 0.001 and len(t["rtt_max_s"]) >= 10 and max(t["rtt_max_s"]) > 0)(d["results"][0]["timeline"][0])' \
    "the timeline should carry the round trip over time"
expect_status 0 "$VP" run net.probe --tcp --duration 500ms --json "$WORK/tcp.json"
json_check "$WORK/tcp.json" '(lambda m: m["loss"]["mean"] == 0 and m["probes"]["mean"] > 400 and "longest_gap_to_peer" not in m)(d["results"][0]["metrics"])' \
    "--tcp: answered in order, no directions"

# serve stopped for 300 ms: a gap of ~300 ms in the round trip and in both directions.
"$VP" serve --bind 127.0.0.1 --port "$PORT" --quiet 2>"$WORK/serve.log" &
SERVE_PID=$!
for _ in $(seq 1 100); do "$VP" run net.probe --peer 127.0.0.1:$PORT --duration 100ms --quiet >/dev/null 2>&1 && break; sleep 0.05; done
"$VP" run net.probe --peer 127.0.0.1:$PORT --duration 2s --quiet --json "$WORK/stop.json" >"$WORK/stop.out" 2>&1 &
client=$!
sleep 0.8
stopped_at=$(date +%s%N)
kill -STOP "$SERVE_PID"
sleep 0.3
kill -CONT "$SERVE_PID"
wait $client || fail "net.probe across a stopped server failed: $(tail -3 "$WORK/stop.out")"
gap=$(metric "$WORK/stop.json" longest_gap)
echo "SIGSTOP 300 ms: longest_gap $gap s"
within "$gap" 0.28 0.36 || fail "a 300 ms SIGSTOP of serve: longest_gap $gap s"
within "$(metric "$WORK/stop.json" longest_outage)" 0.28 0.36 || fail "a 300 ms SIGSTOP of serve: one outage as long as its gap"
within "$(metric "$WORK/stop.json" longest_gap_to_peer)" 0.25 0.36 || fail "the stopped server saw no gap in our probes"
within "$(metric "$WORK/stop.json" longest_gap_from_peer)" 0.25 0.36 || fail "the stopped server's own probes showed no gap"
json_check "$WORK/stop.json" '(lambda g: len(g) == 1 and abs(__import__("datetime").datetime.strptime(g[0]["start_utc"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=__import__("datetime").timezone.utc).timestamp() - '"$stopped_at"' / 1e9) < 0.05)([x for x in d["results"][0]["timeline"][0]["gaps"] if x["direction"] == "round_trip" and x["length_s"] > 0.2])' \
    "the timeline should place the one long gap where serve was stopped (wall clock)"

# The report draws it: the round trip over time, the gap as a box, its start in a table.
expect_status 0 "$VP" report "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["run"]["id"])' "$WORK/stop.json")" -o "$WORK/stop.html"
grep -q "<h2>Interruptions</h2>" "$WORK/stop.html" || fail "the report has no Interruptions section"
start_utc=$(python3 -c 'import json, sys; print(max(json.load(open(sys.argv[1]))["results"][0]["timeline"][0]["gaps"], key=lambda g: g["length_s"])["start_utc"])' "$WORK/stop.json")
grep -q "$start_utc" "$WORK/stop.html" || fail "the report's gap table lacks the gap at $start_utc"

# Ctrl-C mid-probe: a normal result of what it saw, the run marked interrupted.
"$VP" run net.probe --peer 127.0.0.1:$PORT --duration 30s --quiet --json "$WORK/int.json" >"$WORK/int.out" 2>&1 &
client=$!
sleep 1
kill -INT $client
wait $client
[ $? -eq 130 ] || fail "Ctrl-C during net.probe: want exit 130"
json_check "$WORK/int.json" '(lambda r: r["status"] == "ok" and 50 < r["metrics"]["probes"]["mean"] < 2000 and any("ended by Ctrl-C after" in w for w in r["warnings"]))(d["results"][0])' \
    "Ctrl-C should keep the probe's result, said to have ended early"
# --background: the probe beside another benchmark of the same run, for as long as it
# runs; the stop shows in the probe, and the other benchmark's result is there too.
"$VP" run net.rr --peer 127.0.0.1:$PORT --duration 2s --reps 1 --warmup 0 --background net.probe \
    --quiet --json "$WORK/bg.json" >"$WORK/bg.out" 2>&1 &
client=$!
sleep 1
kill -STOP "$SERVE_PID"
sleep 0.3
kill -CONT "$SERVE_PID"
wait $client || fail "net.rr with net.probe in the background failed: $(tail -3 "$WORK/bg.out")"
json_check "$WORK/bg.json" '(lambda r: [x["bench"] for x in r] == ["net.rr", "net.probe"] and all(x["status"] == "ok" for x in r) and 0.28 <= r[1]["metrics"]["longest_gap"]["mean"] <= 0.36 and any("in the background of the run" in w for w in r[1]["warnings"]))(d["results"])' \
    "--background net.probe should watch beside net.rr and see the stop"
expect_usage_error "--background: 'cpu' is not valid; accepted: a benchmark that watches" "$VP" run net.rr --background cpu
kill "$SERVE_PID"
wait "$SERVE_PID" || fail "serve did not end successfully on SIGTERM after the probes"
SERVE_PID=

# Two hosts in namespaces: a link flap, a one-way outage, steady drops.
two_hosts "$NETNS_A" "$NETNS_B" 198.18.4
ip netns exec "$NETNS_B" "$VP" serve --bind 198.18.4.2 --port 7310 --quiet 2>"$WORK/ns-serve.log" &
ns_serve=$!
sleep 0.5
probe_in_a() { # JSON DURATION: probes B from A in the background
    ip netns exec "$NETNS_A" "$VP" run net.probe --peer 198.18.4.2:7310 --duration "$2" --quiet --json "$1" >"$1.out" 2>&1 &
    client=$!
}

# The link down for 100 ms. The truth: it went down while `ip link set down` ran and
# came up while `ip link set up` ran, so the outage lies between the time from the end
# of the one to the start of the other and the time from the start of the one to the end
# of the other. Now and then the kernel brings a veth's carrier back about a second late
# (bench/probe_accuracy.sh sees it in a few flaps of a hundred, ping seeing the same
# silence): such a flap is said and flapped again, once.
for attempt in 1 2; do
    probe_in_a "$WORK/flap.json" 2s
    sleep 0.8
    t0=$(date +%s%N); ip -n "$NETNS_A" link set vpa$$ down; t1=$(date +%s%N)
    sleep 0.1
    t2=$(date +%s%N); ip -n "$NETNS_A" link set vpa$$ up; t3=$(date +%s%N)
    wait $client || fail "net.probe across a link flap failed: $(tail -3 "$WORK/flap.json.out")"
    gap=$(metric "$WORK/flap.json" longest_gap)
    low=$(python3 -c "print(($t2 - $t1) / 1e9)") high=$(python3 -c "print(($t3 - $t0) / 1e9)")
    echo "link down 100 ms (truth $low..$high s): longest_gap $gap s"
    within "$gap" 0 "$(python3 -c "print($high + 0.5)")" && break
    echo "the carrier came back late: flapping again"
    sleep 1
done
within "$gap" "$(python3 -c "print($low - 0.015)")" "$(python3 -c "print($high + 0.015)")" ||
    fail "a link flap of $low..$high s: longest_gap $gap s (want within 15 ms of it)"

# B's egress stopped for 200 ms (a tbf with no room on its side of the link): the round
# trip and the peer-to-us direction stop; our probes still reach it.
probe_in_a "$WORK/oneway.json" 2s
sleep 0.8
tc -n "$NETNS_B" qdisc add dev vpb$$ root tbf rate 8kbit burst 1600 limit 1
sleep 0.2
tc -n "$NETNS_B" qdisc del dev vpb$$ root
wait $client || fail "net.probe across a one-way outage failed: $(tail -3 "$WORK/oneway.json.out")"
echo "one way 200 ms: round trip $(metric "$WORK/oneway.json" longest_gap) s, to the peer $(metric "$WORK/oneway.json" longest_gap_to_peer) s, from the peer $(metric "$WORK/oneway.json" longest_gap_from_peer) s"
within "$(metric "$WORK/oneway.json" longest_gap)" 0.17 0.25 || fail "a one-way outage: the round trip should stop ~200 ms"
within "$(metric "$WORK/oneway.json" longest_gap_from_peer)" 0.17 0.25 || fail "a one-way outage: the peer's probes should stop ~200 ms"
within "$(metric "$WORK/oneway.json" longest_gap_to_peer)" 0 0.05 || fail "a one-way outage: our probes kept reaching the peer"

# Every 10th echo B sends dropped (iptables: a u32 match on the probe's kind byte, the
# 17th of the UDP payload, and the nth match; exact, where a tbf's drops varied from 0 to
# 80% with the scheduler): single losses, so loss is what the rule dropped, and no gap
# over a 20 ms --gap-threshold.
echo_kind=2 # VP_PROBE_ECHO in src/net/probe.h
ip netns exec "$NETNS_B" iptables -A OUTPUT -o vpb$$ -p udp -m u32 --u32 "0>>22&0x3C@24>>24=$echo_kind" \
    -m statistic --mode nth --every 10 --packet 0 -j DROP
ip netns exec "$NETNS_A" "$VP" run net.probe --peer 198.18.4.2:7310 --duration 1s --gap-threshold 20ms \
    --quiet --json "$WORK/loss.json" >"$WORK/loss.json.out" 2>&1 &
client=$!
wait $client || fail "net.probe across steady drops failed: $(tail -3 "$WORK/loss.json.out")"
dropped=$(ip netns exec "$NETNS_B" iptables -L OUTPUT -v -n -x | awk '$3 == "DROP" { print $1 }')
ip netns exec "$NETNS_B" iptables -F OUTPUT
lost=$(python3 -c "print($(metric "$WORK/loss.json" loss) * $(metric "$WORK/loss.json" probes) / 100)")
echo "steady drops (every 10th echo): $dropped echoes dropped, $lost probes lost, gaps $(metric "$WORK/loss.json" gaps)"
within "$lost" "$(python3 -c "print(0.9 * $dropped)")" "$(python3 -c "print(1.1 * $dropped + 1)")" ||
    fail "steady drops: the probes lost should be the echoes dropped"
[ "${dropped:-0}" -gt 0 ] || fail "the rule dropped no echo"
json_check "$WORK/loss.json" 'd["results"][0]["metrics"]["gaps"]["mean"] == 0' "steady drops should not count as gaps"
kill $ns_serve
wait $ns_serve || fail "serve in the namespace did not exit 0 on SIGTERM"
finish
