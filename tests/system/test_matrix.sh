#!/bin/bash
# matrix: net results from two source hosts (one imported, as gathered from another
# machine) to two destinations (servers on 127.0.0.1 and 127.0.0.2) form a 2 x 2 table,
# in the terminal, in JSON and as a heatmap in the report.
. "$(dirname "$0")/lib.sh"
PORT=$((10000 + $$ % 20000)) # below the ephemeral ports (32768 up), which other sockets take
servers=()
cleanup() {
    [ ${#servers[@]} -gt 0 ] && kill "${servers[@]}" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
for address in 127.0.0.1 127.0.0.2; do
    "$VP" serve --bind $address --port $PORT --quiet &
    servers+=($!)
done
sleep 0.5

for destination in 1 2; do
    expect_status 0 "$VP" run net.stream --peer 127.0.0.$destination:$PORT --duration 200ms --reps 2 --label to$destination --quiet
    "$VP" results export to$destination -o "$WORK/to$destination.json"
    # The same run as another host would have sent it.
    python3 - "$WORK/to$destination.json" "$WORK/remote$destination.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["run"]["id"] = "remote-" + d["run"]["id"]
d["run"]["label"] = "remote-" + d["run"]["label"]
d["run"]["host"]["hostname"] = "hostB"
json.dump(d, open(sys.argv[2], "w"))
PY
    expect_status 0 "$VP" results import "$WORK/remote$destination.json"
done
expect_status 0 "$VP" matrix to1 to2 remote-to1 remote-to2 --metric throughput --json "$WORK/matrix.json"
json_check "$WORK/matrix.json" '(lambda m: len(d["matrices"]) == 1 and m["sources"][1] == "hostB" and len(m["sources"]) == 2 and m["destinations"] == ["127.0.0.1:'$PORT'", "127.0.0.2:'$PORT'"] and all(v is not None and v > 1e6 for row in m["values"] for v in row))(d["matrices"][0])' "2 x 2 throughput matrix"
expect_status 0 "$VP" matrix to1 to2 remote-to1 remote-to2 --metric throughput
expect_contains "$WORK/out" "source \\ destination"
expect_contains "$WORK/out" "127.0.0.2:$PORT"
expect_status 0 "$VP" report to1 to2 remote-to1 remote-to2 -o "$WORK/report.html"
expect_contains "$WORK/report.html" "<h2>Matrices</h2>"
expect_contains "$WORK/report.html" "hostB"

# Hosts are known by identity, not hostname: two hosts named "twin" stay two rows (their
# address tells them apart); a destination address that a run's host has is named after
# that host; a cell measured twice says so.
python3 - "$WORK/to1.json" "$WORK" <<'PY'
import json, sys
base = json.load(open(sys.argv[1]))
def variant(name, host_id, addresses, tag, peer_address=None):
    d = json.loads(json.dumps(base))
    d["run"]["id"] = tag
    d["run"]["label"] = tag
    d["run"]["host"].update(hostname=name, host_id=host_id, addresses=addresses)
    if peer_address:
        d["results"][0]["peer"]["address"] = peer_address
    json.dump(d, open(sys.argv[2] + "/" + tag + ".json", "w"))
variant("twin", "aaaa", ["198.18.7.1"], "twin-a", "198.18.7.2")
variant("twin", "bbbb", ["198.18.7.2"], "twin-b", "198.18.7.1")
variant("twin", "bbbb", ["198.18.7.2"], "twin-b-again", "198.18.7.1")
PY
for tag in twin-a twin-b twin-b-again; do
    expect_status 0 "$VP" results import "$WORK/$tag.json"
done
expect_status 0 "$VP" matrix @twin-a @twin-b @twin-b-again --metric throughput --json "$WORK/twins.json"
json_check "$WORK/twins.json" '(lambda m: m["sources"] == ["twin 198.18.7.1", "twin 198.18.7.2"] and m["destinations"] == ["twin 198.18.7.2", "twin 198.18.7.1"] and m["values"][0][0] is not None and m["values"][1][1] is not None)(d["matrices"][0])' \
    "two hosts with one hostname collapsed, or a destination was not named after its host"
json_check "$WORK/twins.json" 'len(d["notes"]) == 1 and "twin 198.18.7.2 -> twin 198.18.7.1 measured more than once" in d["notes"][0]' \
    "a cell measured twice is not noted"
expect_status 0 "$VP" matrix @twin-a @twin-b @twin-b-again --metric throughput
expect_contains "$WORK/out" "note: net.stream (every metric) jobs=1: twin 198.18.7.2 -> twin 198.18.7.1 measured more than once"

expect_status 0 "$VP" run cpu --ops=1m --reps 1 --label local --quiet
expect_usage_error "matrix: no net results with a peer" "$VP" matrix local
expect_usage_error "matrix: accepted: 1 to 256 runs" "$VP" matrix
finish
