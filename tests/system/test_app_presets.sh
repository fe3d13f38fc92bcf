#!/bin/bash
# app --preset: the workloads that ship with virtperf. Every workload runs, its output is
# checked and scored; --preset all gives one result per workload and the run prints their
# geometric mean; a program that gives a wrong answer fails its result (the checks can
# fail: a fake sqlite3 and a fake gcc are mounted over Debian's in a private mount
# namespace); bad combinations are refused; compare adds a combined row whose ratio is
# the geometric mean of the workloads' ratios.
. "$(dirname "$0")/lib.sh"

expect_status 0 "$VP" run app --preset all --reps 2 --warmup 0 --label presets --json "$WORK/all.json"
json_check "$WORK/all.json" '[r["params"]["preset"] for r in d["results"]] == ["xz", "gcc", "sqlite", "python"] and all(r["status"] == "ok" for r in d["results"])' \
    "--preset all should give one ok result per workload, in order"
json_check "$WORK/all.json" 'all(r["metrics"]["score"]["mean"] > 0 and abs(r["metrics"]["score"]["values"][0] * r["metrics"]["wall_time"]["values"][0] / (r["metrics"]["score"]["values"][1] * r["metrics"]["wall_time"]["values"][1]) - 1) < 1e-9 for r in d["results"])' \
    "score should be the reference time over the wall time of each repetition"
grep -Eq "^score jobs=1: [0-9.]+, the geometric mean of 4 workloads' speed against the reference machine \(xz [0-9.]+, gcc [0-9.]+, sqlite [0-9.]+, python [0-9.]+\)" "$WORK/out" ||
    fail "no combined score line: $(grep score "$WORK/out")"
python3 - "$WORK/all.json" "$WORK/out" <<'PY' || fail "the score line is not the geometric mean of the workloads' scores"
import json, math, re, sys
d = json.load(open(sys.argv[1]))
scores = [r["metrics"]["score"]["mean"] for r in d["results"]]
printed = float(re.search(r"^score jobs=1: ([0-9.]+)", open(sys.argv[2]).read(), re.M).group(1))
sys.exit(0 if abs(printed - math.exp(sum(map(math.log, scores)) / 4)) < 0.001 else 1)
PY

# Bad input: refused before anything runs.
expect_usage_error "--preset xz: accepted without --cmd" "$VP" run app --preset xz --cmd "ls"
expect_usage_error "--preset: 'gzip' is not valid; accepted: comma-separated words of xz|gcc|sqlite|python, or all" \
    "$VP" run app --preset gzip
expect_usage_error "or --preset xz|gcc|sqlite|python|all" "$VP" run app

# Wrong answers fail the result: fake programs over Debian's, in a private namespace.
if unshare -m true 2>/dev/null; then
    printf '#!/bin/sh\ncat >/dev/null\necho "1|2"\n' >"$WORK/fake-sqlite3"
    printf '#!/bin/sh\nprintf "#!/bin/sh\\necho 12345\\n" >"$4"\nchmod +x "$4"\n' >"$WORK/fake-gcc"
    chmod +x "$WORK/fake-sqlite3" "$WORK/fake-gcc"
    expect_status 1 unshare -m sh -c "mount --bind '$WORK/fake-sqlite3' /usr/bin/sqlite3 &&
        mount --bind '$WORK/fake-gcc' /usr/bin/gcc &&
        '$VP' run app --preset sqlite,gcc --reps 1 --warmup 0 --quiet --json '$WORK/wrong.json'"
    json_check "$WORK/wrong.json" 'all(r["status"] == "failed" for r in d["results"]) and "app --preset sqlite: wrong output from byte 0" in d["results"][0]["error"] and "app --preset gcc: wrong output from byte 0: got '"'"'12345" in d["results"][1]["error"]' \
        "a wrong answer from the program should fail its result with what was wrong"
else
    echo "note: no mount namespaces here: the wrong-answer checks were not exercised"
    skip "needs mount namespaces (unshare -m) and root"
fi

# compare: a combined row, the geometric mean of the per-workload ratios. The candidate
# is the same run with every workload's times multiplied by a known factor.
expect_status 0 "$VP" results export @presets -o "$WORK/base.json"
python3 - "$WORK/base.json" "$WORK/slow.json" <<'PY'
import json, statistics, sys
d = json.load(open(sys.argv[1]))
d["run"]["id"], d["run"]["label"] = "slowed", "slowed"
for r, factor in zip(d["results"], (1.2, 1.5, 2.0, 1.0)):
    for m in [r["metrics"]["wall_time"]] + [j["metrics"]["wall_time"] for j in r["per_job"]]:
        m["values"] = [v * factor for v in m["values"]]
        for key, value in (("mean", statistics.mean), ("stddev", statistics.stdev), ("min", min),
                           ("max", max), ("p50", statistics.median)):
            if key in m:
                m[key] = value(m["values"])
json.dump(d, open(sys.argv[2], "w"))
PY
expect_status 0 "$VP" results import "$WORK/slow.json"
expect_status 0 "$VP" compare @presets @slowed --metric wall_time --json "$WORK/cmp.json"
json_check "$WORK/cmp.json" '(lambda c: c["params"]["preset"] == "combined" and c["centre"] == "geomean" and abs(c["candidates"][0]["ratio"] - (1.2 * 1.5 * 2.0) ** 0.25) < 1e-6 and c["candidates"][0]["ci"][0] <= c["candidates"][0]["ratio"] <= c["candidates"][0]["ci"][1] and c["candidates"][0]["verdict"] == "not enough repetitions")([r for r in d["rows"] if r["params"].get("preset") == "combined"][0])' \
    "the combined row should be the geometric mean of the workloads' ratios, inside its interval"
expect_status 0 "$VP" compare @presets @slowed --metric wall_time
expect_contains "$WORK/out" "app preset=combined (geometric mean of xz,gcc,sqlite,python)"
finish
