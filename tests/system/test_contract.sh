#!/bin/bash
# The JSON contract: every benchmark family run briefly, and the document's key paths
# (tests/system/json_keys.py) must equal tests/system/data/json_keys.txt, recorded before
# the source tree was restructured. A key added, renamed or dropped fails here; a change
# that is meant goes with a new data file in the same commit (json_keys.py FILE > ...).
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)

expect_status 0 "$VP" run cpu mem.write mem.stream mem.latency disk.write disk.randread \
    net.stream net.rr net.connect time.read time.timer time.ticks 'vcost.*' --reps 2 \
    --warmup 0 --duration 0.2s --size 4m --passes 1 --sizes 64k --accesses 100k \
    --path "$WORK" --bs 64k --clock monotonic --count 20 --json "$WORK/run.json" --quiet
python3 "$HERE/json_keys.py" "$WORK/run.json" >"$WORK/keys.txt" || fail "json_keys.py failed"
if ! diff -u "$HERE/data/json_keys.txt" "$WORK/keys.txt" >"$WORK/keys.diff"; then
    fail "the JSON document's keys changed: $(head -40 "$WORK/keys.diff")"
fi
finish
