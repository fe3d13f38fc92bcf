#!/bin/bash
# compare: a run with CPU hogs beside its job is found significantly slower than one
# without, with the contention flagged; bad input is refused clearly.
. "$(dirname "$0")/lib.sh"
hogs=()
cleanup() {
    [ ${#hogs[@]} -gt 0 ] && kill "${hogs[@]}" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

expect_status 0 "$VP" run cpu --ops=5m --reps 6 --pin 0 --label bare --quiet
for _ in 1 2; do
    taskset -c 0 sh -c 'while :; do :; done' &
    hogs+=($!)
done
expect_status 0 "$VP" run cpu --ops=5m --reps 6 --pin 0 --label contended --quiet
kill "${hogs[@]}"
hogs=()
expect_status 0 "$VP" compare bare contended --json "$WORK/compare.json"
json_check "$WORK/compare.json" '(lambda c: c["verdict"] == "slower" and c["penalty_pct"] > 20 and c["ci"][1] < 1 and c["p_adjusted"] < 0.05 and c["ci_method"] == "t-log")(d["rows"][0]["candidates"][0])' "the contended run is not found slower"
json_check "$WORK/compare.json" 'any("other load" in f for f in d["rows"][0]["candidates"][0]["flags"])' "the contention is not flagged"
json_check "$WORK/compare.json" 'd["rows"][0]["centre"] == "mean" and d["rows"][0]["metric"] == "score" and d["rows"][0]["base"]["n"] == 6' "compare row"
expect_status 0 "$VP" compare bare contended
expect_contains "$WORK/out" "slower"
expect_contains "$WORK/out" "other load"

# Too few repetitions: no verdict. Nothing in common, unknown runs, bad flags: exit 2.
expect_status 0 "$VP" run cpu --ops=5m --reps 3 --pin 0 --label short --quiet
expect_status 0 "$VP" compare bare short --json "$WORK/short.json"
json_check "$WORK/short.json" 'd["rows"][0]["candidates"][0]["verdict"] == "not enough repetitions"' "verdict with 3 repetitions"
expect_status 0 "$VP" run mem.latency --sizes=16k --accesses=100k --reps 5 --label other --quiet
expect_usage_error "compare: no results in common" "$VP" compare bare other
expect_usage_error "run 'nosuch': not found" "$VP" compare bare nosuch
expect_usage_error "compare: accepted: a base run and 1 to 63 candidate runs" "$VP" compare bare
expect_usage_error "--margin: 'lots' is not valid" "$VP" compare bare contended --margin lots
finish
