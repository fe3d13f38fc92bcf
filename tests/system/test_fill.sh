#!/bin/bash
# A fill (--guests A..auto, --containers A..auto): members added, the first count then
# doubling, each count measured and judged, until a count breaks the QoS rule, this
# host's CPUs or --keep-free, or the most held; then the gap halved to one. Known costs
# decide where it stops: containers running a CPU benchmark on more of them than this
# host has CPUs (each gets at most CPUs/count of one); a second TCG guest capped at 30%
# of a CPU (--guest-cpu-cap 30@2); a --keep-free this host cannot keep with another
# guest. Every result carries its count's verdict, the last the optimum and the reason;
# the counts measured are the ones the verdicts lead to. Refusals before anything
# starts; nothing left.
. "$(dirname "$0")/lib.sh"
use_libvirt
command -v podman >/dev/null || skip "podman is not installed (scripts/deps.sh containers)"
cleanup() {
    stop_libvirt
    remove_ended_containers
    rm -rf "$WORK"
}
trap cleanup EXIT
export VIRTPERF_CACHE="$WORK/cache"
chmod 755 "$WORK"

# refused before any member starts: exit 2, one line naming the flag and what is accepted
expect_status 2 "$VP" run cpu --containers 1..auto:33
expect_contains "$WORK/err" "--containers: '1..auto:33' is not valid; accepted: A..auto or A..auto:MOST (a fill from A members up to MOST, 1 <= A <= MOST <= 32)"
expect_status 2 "$VP" run cpu --containers 3..auto:2
expect_contains "$WORK/err" "--containers: '3..auto:2' is not valid"
expect_status 2 "$VP" run cpu --containers 2 --qos 'p99<=1.5x'
expect_contains "$WORK/err" "--qos: not with a fixed count of members; accepted: --containers A..auto (a fill)"
expect_status 2 "$VP" run cpu --containers 1..4 --keep-free 1G
expect_contains "$WORK/err" "--keep-free: not with a fixed count of members"
expect_status 2 "$VP" run cpu --qos 'p99<=1.5x'
expect_contains "$WORK/err" "--qos: only for the guests, containers or UML instances of a run"
expect_status 2 "$VP" run cpu --containers 1..auto --qos 'p99>=1.5x'
expect_contains "$WORK/err" "--qos: 'p99>=1.5x' is not valid; accepted: per_job>=F"
expect_status 2 "$VP" run cpu --containers 1..auto --keep-free 12
expect_contains "$WORK/err" "--keep-free: '12' is not valid; accepted: a size of at least 1M"
expect_status 2 "$VP" run cpu --containers 1..auto --and-host
expect_contains "$WORK/err" "--and-host: not with --containers A..auto; accepted: a fill of members alone"
expect_status 2 "$VP" run cpu --group a:containers=1 --group b:containers=1 --qos 'p99<=2x'
expect_contains "$WORK/err" "--group: not with --qos (a group's count is fixed)"
[ -z "$(podman ps -a --format '{{.Names}}' | grep "^virtperf-" | while read -r n; do run_ended "$n" && echo "$n"; done)" ] ||
    fail "a refusal left a container"

# fill_holds DOC CPUS: the fill's results in DOC are the counts its verdicts lead to (as
# run/fill.c decides: double from the first, then halve the gap), each result's count its
# members', the last with the optimum (the largest count that held) and a reason; with
# CPUS given, every count of more members than CPUS broke (each got at most CPUS/count).
fill_holds() {
    python3 - "$1" "${2:-0}" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
cpus = int(sys.argv[2])
fills = [r["fill"] for r in results]
counts = [f["count"] for f in fills]
for r, f in zip(results, fills):
    assert r["status"] == "ok", r.get("error")
    assert r["ranks"]["count"] == f["count"], (r["ranks"]["count"], f)
    assert f["verdict"] in ("held", "rule", "cpu", "memory") and f["why"], f
    if cpus and f["count"] > cpus:
        assert f["verdict"] != "held", ("more members than CPUs held", f)
verdict = {f["count"]: f["verdict"] for f in fills}
first, most = counts[0], max(counts)
good, bad, order = 0, 0, []
count = first
while count:  # the fill's decisions replayed on the verdicts seen
    order.append(count)
    if verdict.get(count) is None:
        break
    if verdict[count] == "held":
        good = max(good, count)
    elif not bad or count < bad:
        bad = count
    if bad:
        count = good + (bad - good) // 2 if good and bad - good > 1 else 0
    else:
        count = 2 * good if good < most else 0
        count = min(count, most) if count else 0
        if count and count not in verdict:
            count = 0  # memory: fewer than doubling, checked by the reason below
assert order[:len(counts)] == counts, ("counts measured", counts, "decisions", order)
last = fills[-1]
assert all("optimum" not in f for f in fills[:-1]) and "optimum" in last, fills
assert last["optimum"] == good, (last, good)
assert last["stopped"] in ("rule", "cpu", "memory", "most") and last["reason"], last
print(last["optimum"], last["stopped"])
PY
}

# fill_seen DOC: each count's verdict and why, and its members' scores (for a failure)
fill_seen() {
    python3 - "$1" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    scores = [round(h["metrics"]["score"]["mean"] / 1e6, 1) for h in r["ranks"]["hosts"]]
    print(f'{r["fill"]["count"]}: {r["fill"]["verdict"]} ({r["fill"]["why"]}), M/s {scores};', end=" ")
PY
}

# containers, a CPU benchmark: more of them than CPUs cannot each keep 0.9x of one alone
cpus=$(nproc)
expect_status 0 "$VP" run cpu --ops 20m --reps 2 --containers 1..auto:4 --label boxes \
    --json "$WORK/boxes.json"
outcome=$(fill_holds "$WORK/boxes.json" "$cpus") || fail "containers' fill: $outcome"
expect_contains "$WORK/out" "fill: optimum ${outcome% *} container"
[ "${outcome% *}" -ge 1 ] || fail "containers' fill found no count that held: $outcome"
if [ "$cpus" -lt 4 ]; then
    case "${outcome#* }" in rule | cpu) ;; *) fail "4 containers on $cpus CPUs: stopped by ${outcome#* }, want the rule or the CPUs" ;; esac
fi
expect_status 0 "$VP" results show boxes
expect_contains "$WORK/out" "fill: optimum ${outcome% *}; stopped by"
expect_status 0 "$VP" scaling boxes --json "$WORK/scaling.json"
# the report draws what each member held and their time to ready against the count
expect_status 0 "$VP" report boxes -o "$WORK/boxes.html"
grep -q "memory each member held against containers" "$WORK/boxes.html" ||
    fail "the report of a fill lacks the members' memory curve"
grep -q "time to ready (p50) against containers" "$WORK/boxes.html" ||
    fail "the report of a fill lacks the members' time-to-ready curve"

# a plan's step as a fill, its rule in [global] (the SPring-8 plan's rpc step): the
# study view says what the fill found beside the step's reference
printf '%s\n' '[global]' 'qos = per_job>=0.5' '[box]' 'bench = cpu' 'ops = 5m' 'reps = 1' \
    'containers = 1..auto:2' 'reference = 2 at most' >"$WORK/fill.ini"
expect_status 0 "$VP" run --plan "$WORK/fill.ini" --label planned
expect_status 0 "$VP" results show planned
expect_contains "$WORK/out" "then: 2 at most"
grep -qE "found by the fill: the optimum count of containers [12] \(stopped by (rule|cpu|most): " "$WORK/out" ||
    fail "the study view of a planned fill: $(grep 'found by' "$WORK/out")"

# the rule judges a benchmark's headline metrics, as `virtperf scaling` does by default:
# net.rr's latency p99 (here a rule no count breaks), never the CPU its clients used, a
# cost (2 containers' clients keep about twice the CPU of one busy: 1.2x broken at once)
expect_status 0 "$VP" run net.rr --duration 0.5s --reps 2 --containers 1..auto:2 \
    --qos 'p99<=1000x' --label rr-fill --json "$WORK/rr-fill.json"
outcome=$(fill_holds "$WORK/rr-fill.json") || fail "net.rr containers' fill: $outcome"
case "$outcome" in
"2 most" | "1 cpu") ;;
*) fail "net.rr under a p99 rule no count breaks: $outcome, want 2 most (or 1 cpu): $(grep 'fill:' "$WORK/out" | tail -1)" ;;
esac

# more memory kept free than this host has: the first count breaks it, no optimum
total_mib=$(awk '/^MemTotal:/ {print int($2 / 1024) + 1024}' /proc/meminfo)
expect_status 0 "$VP" run cpu --ops 5m --reps 1 --containers 1..auto --keep-free "${total_mib}M" \
    --label keep --json "$WORK/keep.json"
expect_contains "$WORK/out" "fill: optimum 0 containers; stopped by --keep-free: "
outcome=$(fill_holds "$WORK/keep.json") || fail "a fill over --keep-free: $outcome"
[ "$outcome" = "0 memory" ] || fail "a fill over --keep-free: $outcome, want 0 memory"

# TCG guests: the second capped at 30% of a CPU cannot keep 0.9x of the first's rate
expect_status 0 "$VP" run cpu --ops 4m --reps 3 --guests 1..auto:2 --guest-accel tcg \
    --guest-cpu-cap 30@2 --label capped --json "$WORK/capped.json"
expect_contains "$WORK/err" "virtperf: 1 more guest started (libvirt"
outcome=$(fill_holds "$WORK/capped.json") || fail "guests' fill: $outcome"
[ "$outcome" = "1 rule" ] || fail "a second guest capped at 30%: $outcome, want 1 rule; $(fill_seen "$WORK/capped.json")"
python3 - "$WORK/capped.json" <<'PY' || fail "guests' fill: each count's guests' cost to this host, the capped guest as soon ready as the other"
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    hosts = r["guests"]["hosts"]
    assert len(hosts) == r["fill"]["count"], hosts
    for h in hosts:
        assert h["qemu_pss_bytes"] > h["qemu_overhead_pss_bytes"] > 0, h
# the cap is set once the capped guest answered: it boots as fast as the other (capped
# from its start, it took three times as long)
first, capped = (h["ready_s"] for h in hosts)
print("  ready: guest 1 %.2f s, guest 2 (capped at 30%%) %.2f s" % (first, capped), file=sys.stderr)
assert capped < 2 * first, (first, capped)
PY

# TCG guests, --keep-free just above what one guest leaves: no room for a second
available_mib=$(awk '/^MemAvailable:/ {print int($2 / 1024)}' /proc/meminfo)
expect_status 0 "$VP" run cpu --ops 2m --reps 1 --guests 1..auto:4 --guest-accel tcg \
    --keep-free "$((available_mib - 380))M" --label tight --json "$WORK/tight.json"
outcome=$(fill_holds "$WORK/tight.json") || fail "guests' fill under --keep-free: $outcome"
case "$outcome" in "1 memory" | "0 memory") ;; *) fail "a guest of ~250 MiB with 380 MiB to spare: $outcome, want stopped by memory" ;; esac
expect_contains "$WORK/out" "stopped by --keep-free"
guests_left_nothing '[0-9]*' "the fills"
finish
