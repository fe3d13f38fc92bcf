#!/bin/bash
# compare: a run with CPU hogs beside its job is found significantly slower than one
# without, with the contention flagged; scaling names a sweep's knee and plan turns it
# into hosts; bad input is refused clearly.
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
json_check "$WORK/compare.json" 'd["unmatched"] == []' "nothing should be unmatched"
json_check "$WORK/compare.json" 'd["rows"][0]["centre"] == "mean" and d["rows"][0]["metric"] == "score" and d["rows"][0]["base"]["n"] == 6' "compare row"
expect_status 0 "$VP" compare bare contended
expect_contains "$WORK/out" "slower"
expect_contains "$WORK/out" "other load"
# The factor beside the penalty: a score (higher better) at a ratio r is 1/r times worse,
# the figure its time would show.
factor=$(python3 -c 'import json, sys; print("%.2fx worse" % (1 / json.load(open(sys.argv[1]))["rows"][0]["candidates"][0]["ratio"]))' "$WORK/compare.json")
expect_contains "$WORK/out" "($factor)"

# virtperf's own --load is expected load: recorded on the result, and its processes are
# not counted as "other load" (they were before: a run queue of 3 for 1 job + 2 loads).
for label in load-a load-b; do
    expect_status 0 "$VP" run time.ticks --load cpu --load-jobs 2 --duration 1s --reps 3 --warmup 0 --label $label --quiet
done
expect_status 0 "$VP" compare load-a load-b --json "$WORK/load.json"
json_check "$WORK/load.json" 'not any("other load" in f for r in d["rows"] for c in r["candidates"] for f in c["flags"])' "the run's own --load was flagged as other load"
expect_status 0 "$VP" results export load-a -o "$WORK/load-a.json"
json_check "$WORK/load-a.json" 'd["results"][0]["load"] == {"kind": "cpu", "processes": 2} and d["results"][0]["monitor"]["summary"]["runq"]["mean"] > 2.5' "the load is not recorded, or did not run"

# Results of one benchmark told apart by a param: the rows and the unmatched lines name it.
expect_status 0 "$VP" run time.read --clock realtime,monotonic --reps 2 --warmup 0 --label clocks-a --quiet
expect_status 0 "$VP" run time.read --clock realtime --reps 2 --warmup 0 --label clocks-b --quiet
expect_status 0 "$VP" compare clocks-b clocks-a --json "$WORK/clocks.json"
json_check "$WORK/clocks.json" '[r["variant"] for r in d["rows"]] == ["", ""] and d["unmatched"] == ["time.read clock=monotonic jobs=1: only in " + d["candidates"][0]]' "a lone result has no variant; an unmatched one names its clock"
expect_status 0 "$VP" compare clocks-a clocks-b --json "$WORK/clocks.json"
json_check "$WORK/clocks.json" '[r["variant"] for r in d["rows"]] == ["clock=realtime", "clock=realtime"]' "rows should name the param that tells results apart"
expect_contains "$WORK/out" "time.read clock=realtime"
expect_contains "$WORK/out" "unmatched: time.read clock=monotonic jobs=1: in no candidate run"

# Too few repetitions: no verdict. Nothing in common, unknown runs, bad flags: exit 2.
expect_status 0 "$VP" run cpu --ops=5m --reps 3 --pin 0 --label short --quiet
expect_status 0 "$VP" compare bare short --json "$WORK/short.json"
json_check "$WORK/short.json" 'd["rows"][0]["candidates"][0]["verdict"] == "not enough repetitions"' "verdict with 3 repetitions"
expect_status 0 "$VP" run cpu mem.latency --ops=5m --sizes=16k --accesses=100k --reps 5 --pin 0 --label wider --quiet
expect_status 0 "$VP" compare bare wider --json "$WORK/wider.json"
json_check "$WORK/wider.json" 'any("mem.latency jobs=1: only in" in u for u in d["unmatched"])' "a result only the candidate has is not listed"
expect_status 0 "$VP" run mem.latency --sizes=16k --accesses=100k --reps 5 --label other --quiet
expect_usage_error "compare: no results in common" "$VP" compare bare other
# Many runs: each pairing made where it exists; a run that shares nothing is listed, the
# table is not refused. The base's flags name the base run.
expect_status 0 "$VP" compare bare contended other --json "$WORK/three.json"
json_check "$WORK/three.json" '[c["verdict"] for c in d["rows"][0]["candidates"]][1] == "not in this run" and "p" in d["rows"][0]["candidates"][0] and any("cpu jobs=1: not in " in u for u in d["unmatched"]) and any("mem.latency jobs=1: only in" in u for u in d["unmatched"])' \
    "a third run that shares nothing is not listed, or the pairs that exist are lost"
expect_status 0 "$VP" compare bare contended other
bare_id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["base"])' "$WORK/three.json")
if grep -q "! base: .*(" "$WORK/out"; then
    grep "! base: " "$WORK/out" | grep -qv "($bare_id)" && fail "a base flag names another run than the base: $(grep '! base' "$WORK/out")"
fi
# Across a parameter: the GridKa study's 4k against 512k reads, as one command.
expect_status 0 "$VP" run disk.read --bs 512k --size 8m --path "$WORK" --reps 5 --label big --quiet
expect_status 0 "$VP" run disk.read --bs 4k --size 8m --path "$WORK" --reps 5 --label small --quiet
expect_usage_error "disk.read differs in bs: try --vary bs" "$VP" compare big small
expect_status 0 "$VP" compare big small --vary bs --metric throughput --metric iops --json "$WORK/vary.json"
json_check "$WORK/vary.json" 'd["vary"] == "bs" and sorted(r["metric"] for r in d["rows"]) == ["iops", "throughput"] and all(r["varied"] == {"param": "bs", "base": "524288"} and r["candidates"][0]["param_value"] == "4096" for r in d["rows"])' \
    "--vary bs sets 512k reads against 4k ones, only the metrics asked for"
expect_status 0 "$VP" report big small --vary bs -o "$WORK/vary.html"
expect_contains "$WORK/vary.html" "bs=4096: "
expect_usage_error "--vary: accepted: a benchmark option" "$VP" compare big small --vary ''
# --vary takes a param in either spelling (an option's '-' or the params' '_') and
# refuses one no result has (it compared each result with itself, +0.0%)
expect_usage_error "--vary nosuch: no result of the base run has that param; accepted: one of its results' params (bs," \
    "$VP" compare big small --vary nosuch
expect_status 0 "$VP" run null --fail-rep 3 --reps 5 --warmup 0 --label rep3 --quiet
expect_status 0 "$VP" run null --fail-rep 4 --reps 5 --warmup 0 --label rep4 --quiet
for spelling in fail-rep fail_rep; do
    expect_status 0 "$VP" compare rep3 rep4 --vary "$spelling" --json "$WORK/spelled.json"
    json_check "$WORK/spelled.json" 'd["rows"] and all(r["varied"] == {"param": "fail-rep", "base": "3"} and r["candidates"][0]["param_value"] == "4" for r in d["rows"])' \
        "--vary $spelling sets fail-rep 3 against 4"
done
expect_usage_error "run 'nosuch': not found" "$VP" compare bare nosuch
expect_usage_error "compare: bare is one run without sides; accepted: a base run and 1 to 63 candidate runs" "$VP" compare bare
expect_usage_error "--margin: 'lots' is not valid" "$VP" compare bare contended --margin lots
# A sweep: the knee and the CPU saturation point; plan arithmetic from it and by hand.
expect_status 0 "$VP" run cpu --ops=40m --jobs 1..4 --pin spread --reps 3 --label sweep --quiet
expect_status 0 "$VP" scaling sweep --json "$WORK/scaling.json"
ncpu=$(nproc)
# More jobs than CPUs share them, so the knee cannot lie beyond the CPU count.
json_check "$WORK/scaling.json" '(lambda g: [p["jobs"] for p in g["points"]] == [1, 2, 3, 4] and 1 <= g["knee_jobs"] <= min('$ncpu', 4) and g["points"][0]["efficiency"] == 1 and all(0 < p["fairness"] <= 1 + 1e-9 for p in g["points"]) and g["points"][0]["fairness"] == 1)(d["groups"][0])' "cpu sweep: knee beyond the CPU count"
if [ "$ncpu" -lt 4 ]; then
    json_check "$WORK/scaling.json" 'd["groups"][0]["points"]['$ncpu']["efficiency"] < 0.85' "per-job efficiency with more jobs than CPUs"
fi
expect_status 0 "$VP" scaling sweep
expect_contains "$WORK/out" "per host (QoS: per-job >= 0.9x its value at 1 job)"
# Any sweep (the GridKa study's 10,30,70 jobs): relative to its smallest count; a rule
# given judges only the metrics it names, beside each N; the headline metrics by default.
expect_status 0 "$VP" run net.rr --jobs 2,3 --duration 0.2s --reps 2 --warmup 0 --label rr23 --quiet
expect_status 0 "$VP" scaling rr23 --qos 'p99<=1.5x' --json "$WORK/rr.json"
json_check "$WORK/rr.json" '[g["metric"] for g in d["groups"]] == ["latency"] and d["groups"][0]["relative_to_jobs"] == 2 and d["groups"][0]["judged"] == "p99" and [p["judged"] for p in d["groups"][0]["points"]] == [p["p99"] for p in d["groups"][0]["points"]] and d["groups"][0]["rule"] == "p99 <= 1.5x its value at 2 jobs"' \
    "a 2,3 sweep: latency judged on its p99, relative to 2 jobs, the only metric shown"
expect_status 0 "$VP" scaling rr23 --qos 'p99<=1.5x' --metric rate --metric latency --json "$WORK/rate.json"
json_check "$WORK/rate.json" 'sorted(g["metric"] for g in d["groups"]) == ["latency", "rate"] and [g["rule"] for g in d["groups"] if g["metric"] == "rate"] == ["per-job >= 0.9x its value at 2 jobs"]' \
    "a p99 rule was applied to a rate"
expect_status 0 "$VP" scaling rr23 --metric latency
expect_contains "$WORK/out" "p99 (judged)"
expect_status 0 "$VP" plan --workloads 50 --per-host 6 --host-cost 1.5 --current-cost 1
expect_contains "$WORK/out" "50 workloads at 6 per host (--per-host): 9 hosts, consolidation 5.6:1"
expect_contains "$WORK/out" "hardware: 9 x 1.5 = 13.5 against 50 x 1 = 50: 73% saved"
expect_status 0 "$VP" plan --workloads 10 --from sweep --metric cpu:score
expect_contains "$WORK/out" "the knee of cpu:score"
expect_usage_error "scaling: the run holds no sweep" "$VP" scaling bare
expect_usage_error "--qos: 'fast' is not valid" "$VP" scaling sweep --qos fast
expect_usage_error "plan: accepted: --workloads N and either --per-host N or --from RUN" "$VP" plan --workloads 5
expect_usage_error "plan: --metric disk.read:iops: not swept" "$VP" plan --workloads 5 --from sweep --metric disk.read:iops
expect_usage_error "--host-cost and --current-cost go together" "$VP" plan --workloads 5 --per-host 2 --host-cost 3
finish
