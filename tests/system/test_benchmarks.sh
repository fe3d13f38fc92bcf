#!/bin/bash
# Every benchmark in a short mode through the real binary, with sane, asserted figures
# in the documented JSON document.
. "$(dirname "$0")/lib.sh"

run_json() {
    expect_status 0 "$VP" run "$@" --reps 3 --warmup 1 --quiet --json "$WORK/doc.json"
}

run_json cpu --ops=2m --jobs 2
json_check "$WORK/doc.json" 'd["schema"] == "virtperf/1" and d["run"]["host"]["cpu"]["threads"] >= 1' "document header"
json_check "$WORK/doc.json" '(lambda r: r["status"] == "ok" and r["metrics"]["score"]["n"] == 3 and r["metrics"]["score"]["unit"] == "ops/s" and r["metrics"]["score"]["better"] == "higher" and 1e7 < r["metrics"]["score"]["mean"] < 1e11)(d["results"][0])' "cpu score out of range"
json_check "$WORK/doc.json" '(lambda r: len(r["per_job"]) == 2 and abs(sum(j["metrics"]["score"]["mean"] for j in r["per_job"]) - r["metrics"]["score"]["mean"]) < 1e-6 * r["metrics"]["score"]["mean"])(d["results"][0])' "cpu total is not the sum of its jobs"
json_check "$WORK/doc.json" '(lambda r: all(k in r for k in ("start_skew_s", "first_done_s", "last_done_s", "monitor", "timing")) and 0 <= r["start_skew_s"] < 0.05 and r["first_done_s"] <= r["last_done_s"] and len(r["timing"]) == 3)(d["results"][0])' "cpu timing fields"
json_check "$WORK/doc.json" '(lambda m: m["samples"] >= 1 and all(c in m["series"] for c in ("t", "cpu.busy", "cpu.steal", "cpu.idle", "ctxsw", "faults.minor", "faults.major", "runq")) and any(c.startswith("net.lo.") for c in m["series"]) and 0 <= m["summary"]["cpu.busy"]["mean"] <= 100)(d["results"][0]["monitor"])' "monitor columns"

for mode in byte wide nt; do
    run_json mem.write --size=16m --passes=2 --mode=$mode
    json_check "$WORK/doc.json" '(lambda r: r["status"] == "ok" and r["params"] == {"size": 16777216, "passes": 2, "mode": "'$mode'"} and 1e8 < r["metrics"]["bandwidth"]["mean"] < 1e12 and 1e7 < r["metrics"]["first_touch"]["mean"] < 1e12 and 0 < r["metrics"]["time"]["mean"] < 5 and r["metrics"]["time"]["better"] == "lower")(d["results"][0])' "mem.write --mode=$mode figures"
    json_check "$WORK/doc.json" '(lambda r: abs(r["metrics"]["bandwidth"]["mean"] * r["metrics"]["time"]["mean"] / (2 * 16777216) - 1) < 0.5)(d["results"][0])' "mem.write bandwidth disagrees with its time ($mode)"
done

run_json mem.stream --size=16m
json_check "$WORK/doc.json" '(lambda m: all(1e8 < m[k]["mean"] < 1e12 and m[k]["max"] >= m[k]["mean"] for k in ("copy", "scale", "add", "triad")))(d["results"][0]["metrics"])' "mem.stream bandwidths out of range"

run_json mem.latency --sizes=16k,32m --accesses=500k
json_check "$WORK/doc.json" 'len(d["results"]) == 2 and [r["params"]["size"] for r in d["results"]] == [16384, 33554432]' "mem.latency sweep points"
json_check "$WORK/doc.json" '(lambda a, b: 1e-10 < a < 1e-7 and 1e-9 < b < 1e-5 and b > 2 * a)(d["results"][0]["metrics"]["latency"]["mean"], d["results"][1]["metrics"]["latency"]["mean"])' "mem.latency: 32m should be far slower than 16k"
finish
