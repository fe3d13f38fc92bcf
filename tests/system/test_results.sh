#!/bin/bash
# results export / import / delete: a run moves between databases intact; malformed or
# hostile documents are refused with exit 2 and nothing written.
. "$(dirname "$0")/lib.sh"
OTHER=$(new_store other) # a second store: another file, or another database on the site server

expect_status 0 "$VP" run cpu --ops=1m --jobs 2 --reps 2 --label bare --quiet
expect_status 0 "$VP" results export bare -o "$WORK/export.json"
json_check "$WORK/export.json" 'd["schema"] == "virtperf/1" and d["run"]["label"] == "bare" and d["results"][0]["bench"] == "cpu"' "export document"
expect_status 0 "$VP" results export bare --format csv -o "$WORK/export.csv"
python3 - "$WORK/export.csv" "$WORK/export.json" <<'PY' || fail "CSV export does not match the JSON document"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
doc = json.load(open(sys.argv[2]))
want = [(r["bench"], name, m["mean"]) for r in doc["results"] for name, m in r["metrics"].items()]
got = [(row["bench"], row["metric"], float(row["mean"])) for row in rows]
assert got == want, (got, want)
assert all(row["label"] == "bare" and json.loads(row["params"]) == doc["results"][0]["params"] for row in rows)
PY
# A latency distribution gets a second row over the individual requests (the SPring-8
# study's min/max/avg/SD of every request), beside the row over repetitions.
expect_status 0 "$VP" run net.rr --duration 0.3s --reps 2 --warmup 0 --label rr --quiet
expect_status 0 "$VP" results export rr -o "$WORK/rr.json"
expect_status 0 "$VP" results export rr --format csv -o "$WORK/rr.csv"
python3 - "$WORK/rr.csv" "$WORK/rr.json" <<'PY' || fail "the CSV lacks the per-request row of the latency distribution"
import csv, json, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["metric"] == "latency"]
dist = json.load(open(sys.argv[2]))["results"][0]["metrics"]["latency"]["distribution"]
assert [r["over"] for r in rows] == ["repetitions", "requests"], rows
req = rows[1]
assert int(req["n"]) == dist["count"] > 100 and float(req["min"]) == dist["min"] and float(req["max"]) == dist["max"] and float(req["stddev"]) == dist["stddev"], (req, dist)
PY
expect_status 0 "$VP" results show rr
expect_contains "$WORK/out" "(over every operation)"
expect_usage_error "--format: 'xml' is not valid; accepted: json, csv" "$VP" results export bare --format xml
expect_status 0 "$VP" results import "$WORK/export.json" --db "$OTHER"
expect_contains "$WORK/out" "imported as run 1"
expect_status 0 "$VP" results export latest --db "$OTHER" -o "$WORK/again.json"
python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); sys.exit(0 if a == b else 1)' "$WORK/export.json" "$WORK/again.json" || fail "export -> import -> export changed the document"
expect_usage_error "already in the database" "$VP" results import "$WORK/export.json" --db "$OTHER"

before=$(store_count "$OTHER" results)
printf '{"schema": "virtperf/1", "run": ' >"$WORK/truncated.json"
expect_usage_error "is not valid JSON" "$VP" results import "$WORK/truncated.json" --db "$OTHER"
python3 - "$WORK/export.json" "$WORK/hostile.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["run"]["id"] = "fresh"
d["results"][0]["jobs"] = 10**9
json.dump(d, open(sys.argv[2], "w"))
PY
expect_usage_error "results[0].jobs: accepted: a whole number from 1 to 1024" "$VP" results import "$WORK/hostile.json" --db "$OTHER"
# a time that is not one, a benchmark this virtperf does not have: refused, not stored
for change in 'd["run"]["started_at"] = "yesterday"' 'd["results"][0]["started_at"] = "2026-13-01T00:00:00Z"' \
    'd["run"]["started_at"] = "2026-02-30T12:00:00Z"' 'd["results"][0]["bench"] = "no.such"'; do
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); d["run"]["id"] = "fresh"
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))' "$WORK/export.json" "$WORK/hostile.json" "$change" || fail "cannot make the document for: $change"
    case $change in
    *yesterday*) want="run.started_at: 'yesterday' is not a time; accepted: UTC as YYYY-MM-DDTHH:MM:SSZ" ;;
    *2026-13*) want="results[0].started_at: '2026-13-01T00:00:00Z' is not a time" ;;
    *2026-02-30*) want="run.started_at: '2026-02-30T12:00:00Z' is not a time" ;;
    *) want="results[0].bench: 'no.such' is not a benchmark of this virtperf; accepted: one 'virtperf list' names" ;;
    esac
    expect_usage_error "$want" "$VP" results import "$WORK/hostile.json" --db "$OTHER"
done
# another program's database with a runs table: said so, not "relation already exists"
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("create table runs (a int)"); c.commit()' "$WORK/foreign.db"
expect_usage_error "database: not a virtperf database (a table runs of another program's" \
    "$VP" results list --db "$WORK/foreign.db"
printf '{"schema": "virtperf/1", "schema": "x"}' >"$WORK/dup.json"
expect_usage_error "duplicate object key" "$VP" results import "$WORK/dup.json" --db "$OTHER"
[ "$(store_count "$OTHER" results)" = "$before" ] || fail "a refused import wrote results"
[ "$(store_count "$OTHER" runs)" = 1 ] || fail "a refused import wrote a run"

expect_status 0 "$VP" results delete 1 --db "$OTHER"
[ "$(store_count "$OTHER" results)" = 0 ] || fail "delete left results behind"
expect_usage_error "run '1': not found" "$VP" results delete 1 --db "$OTHER"
finish
