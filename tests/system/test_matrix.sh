#!/bin/bash
# matrix: net results from two source hosts (one imported, as gathered from another
# machine) to two destinations (servers on 127.0.0.1 and 127.0.0.2) form a 2 x 2 table,
# in the terminal, in JSON and as a heatmap in the report.
. "$(dirname "$0")/lib.sh"
PORT=$((40000 + $$ % 20000))
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

expect_status 0 "$VP" run cpu --ops=1m --reps 1 --label local --quiet
expect_usage_error "matrix: no net results with a peer" "$VP" matrix local
expect_usage_error "matrix: accepted: 1 to 256 runs" "$VP" matrix
finish
