#!/bin/bash
# app: the user's own program as a benchmark. A sleep (wall about its argument, almost no
# CPU), a busy loop (CPU about wall), a program that prints "events: 250" (seconds per
# event exactly wall / 250), a failing program (failed, its last stderr line shown), a
# program that outlives --timeout (killed with its whole process group), Ctrl-C (no child
# left), bad input refused before anything runs, and the effective clock: measured, or
# the "not exposed" warning where this machine hides the hardware counters.
. "$(dirname "$0")/lib.sh"
MARK=$$ # in the commands' arguments, so leftover processes can be found

expect_status 0 "$VP" run app --cmd "sleep 0.3$MARK" --reps 3 --warmup 0 --quiet --json "$WORK/sleep.json"
json_check "$WORK/sleep.json" '(lambda m: all(0.3 <= w < 0.6 for w in m["wall_time"]["values"]) and m["cpu_user"]["mean"] + m["cpu_system"]["mean"] < 0.05 and m["max_rss"]["mean"] > 100000)(d["results"][0]["metrics"])' \
    "sleep 0.3: wall should be about 0.3 s and CPU about none"

expect_status 0 "$VP" run app --shell --cmd 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done' \
    --reps 3 --warmup 0 --pin 0 --quiet --json "$WORK/busy.json"
json_check "$WORK/busy.json" '(lambda m: m["wall_time"]["mean"] > 0.05 and (m["cpu_user"]["mean"] + m["cpu_system"]["mean"]) > 0.4 * m["wall_time"]["mean"])(d["results"][0]["metrics"])' \
    "a busy loop: CPU time should be about its wall time"

expect_status 0 "$VP" run app --shell --cmd 'echo "events: 250"; sleep 0.05' \
    --events-regex 'events: ([0-9]+)' --jobs 2 --reps 3 --warmup 0 --quiet --json "$WORK/events.json"
json_check "$WORK/events.json" 'all(abs(t - w / 250) < 1e-12 for j in d["results"][0]["per_job"] for t, w in zip(j["metrics"]["time_per_event"]["values"], j["metrics"]["wall_time"]["values"]))' \
    "time_per_event is not wall_time / the events the program printed"
expect_status 0 "$VP" run app --cmd "sleep 0.05" --events 10 --reps 2 --warmup 0 --quiet --json "$WORK/fixed.json"
json_check "$WORK/fixed.json" 'abs(d["results"][0]["metrics"]["time_per_event"]["mean"] - d["results"][0]["metrics"]["wall_time"]["mean"] / 10) < 1e-12' \
    "--events 10: time_per_event is not wall_time / 10"

# The effective clock: measured and near perf stat's, or said to be hidden.
if python3 -c 'import json, sys; sys.exit(0 if "ghz" in json.load(open(sys.argv[1]))["results"][0]["metrics"] else 1)' "$WORK/busy.json"; then
    perf_ghz=$(perf stat -x, -e cycles,task-clock sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done' 2>&1 >/dev/null |
        awk -F, '$3 == "cycles" { c = $1 } $3 == "task-clock" { t = $1 } END { print c / (t * 1e6) }')
    json_check "$WORK/busy.json" 'abs(d["results"][0]["metrics"]["ghz"]["mean"] / '"$perf_ghz"' - 1) < 0.2' \
        "ghz differs from perf stat's ($perf_ghz GHz) by more than 20%"
else
    json_check "$WORK/busy.json" 'any("hardware counters (cycles, instructions) are not exposed here" in w for w in d["results"][0]["warnings"])' \
        "ghz missing without the 'not exposed' warning"
fi

# compare --normalize clock: times in the base's clock (the CNAF study's 2.93 / 2.00 GHz).
# This machine may hide the counters, so the clocks are written into copies of a run.
expect_status 0 "$VP" run app --cmd "sleep 0.05" --reps 5 --warmup 0 --label clock-src --quiet
expect_status 0 "$VP" results export @clock-src -o "$WORK/clock-src.json"
python3 - "$WORK/clock-src.json" "$WORK" <<'PY'
import json, sys
source = json.load(open(sys.argv[1]))
source["results"][0]["metrics"].pop("ghz", None) # counters exposed or not, as on a guest
source["run"]["host"]["cpu"]["model"] = "Test CPU" # a name that states no clock


def write(tag, ghz=None, model=None, zero=False):
    d = json.loads(json.dumps(source))
    d["run"]["id"], d["run"]["label"] = tag, tag
    if ghz:
        d["results"][0]["metrics"]["ghz"] = {"unit": "GHz", "better": "higher", "aggregate": "mean",
                                             "values": [ghz] * 5, "n": 5}
    if model:
        d["run"]["host"]["cpu"]["model"] = model
    if zero: # times of 0: no ratio can be taken
        wall = d["results"][0]["metrics"]["wall_time"]
        d["results"][0]["metrics"]["wall_time"] = {key: wall[key] for key in ("unit", "better", "aggregate")}
        d["results"][0]["metrics"]["wall_time"].update({"values": [0.0] * 5, "n": 5})
    json.dump(d, open(sys.argv[2] + "/" + tag + ".json", "w"))


write("slow-clock", ghz=2.00)
write("fast-clock", ghz=2.93)
write("no-clock")
write("no-clock-2")
write("zero-time", zero=True)
# the CNAF study's two machines, by their models' names alone
write("rated-fast", model="Intel(R) Xeon(R) CPU X5570 @ 2.93GHz")
write("rated-slow", model="Intel(R) Xeon(R) CPU E5405 @ 2.00GHz")
PY
for tag in slow-clock fast-clock no-clock no-clock-2 zero-time rated-fast rated-slow; do
    expect_status 0 "$VP" results import "$WORK/$tag.json"
done
expect_status 0 "$VP" compare @slow-clock @fast-clock --normalize clock --metric wall_time --json "$WORK/norm.json"
json_check "$WORK/norm.json" 'd["normalize"] == "clock" and abs(d["rows"][0]["candidates"][0]["ratio"] - 2.93 / 2.00) < 1e-9 and d["rows"][0]["candidates"][0]["normalized"]["candidate_ghz"] == 2.93' \
    "--normalize clock did not scale the candidate's time by its clock over the base's"
expect_status 0 "$VP" compare @slow-clock @no-clock --normalize clock --metric wall_time --json "$WORK/nonorm.json"
json_check "$WORK/nonorm.json" 'abs(d["rows"][0]["candidates"][0]["ratio"] - 1) < 1e-9 and any("not normalised by clock" in f for f in d["rows"][0]["candidates"][0]["flags"])' \
    "a side without an effective clock should be compared as measured, and say so"
# the flags name the side they are about ("base: " ones are said with the base run's id)
expect_status 0 "$VP" compare @no-clock @slow-clock --normalize clock --metric wall_time --json "$WORK/nobase.json"
json_check "$WORK/nobase.json" 'any(f.startswith("base: not normalised by clock: the base has no effective clock (ghz)") for f in d["rows"][0]["candidates"][0]["flags"])' \
    "a base without a clock should be said as the base's"
expect_status 0 "$VP" compare @no-clock @no-clock-2 --normalize clock --metric wall_time --json "$WORK/neither.json"
json_check "$WORK/neither.json" 'any("neither run has an effective clock" in f for f in d["rows"][0]["candidates"][0]["flags"])' \
    "two runs without a clock should be said as neither's"
# A nominal clock where no effective one is known: the models' names (2.93 and 2.00 GHz),
# or --clock-ghz, said as such; the same copies of one run, so the ratio is the clocks'.
expect_status 0 "$VP" compare @rated-fast @rated-slow --normalize clock --metric wall_time --json "$WORK/rated.json"
json_check "$WORK/rated.json" '(lambda c: abs(c["ratio"] - 2.00 / 2.93) < 1e-9 and c["normalized"]["by"] == "nominal clock" and c["normalized"]["source"] == "the CPU model'"'"'s name")(d["rows"][0]["candidates"][0])' \
    "the models' rated clocks were not used where no effective clock is known"
expect_status 0 "$VP" compare @rated-fast @rated-slow --normalize clock --metric wall_time
expect_contains "$WORK/out" "normalised by nominal clock: candidate 2 GHz against base 2.93 GHz, from the CPU model's name"
expect_status 0 "$VP" compare @no-clock @no-clock-2 --clock-ghz 2.93,2.00 --metric wall_time --json "$WORK/given.json"
json_check "$WORK/given.json" '(lambda c: abs(c["ratio"] - 2.00 / 2.93) < 1e-9 and c["normalized"]["source"] == "--clock-ghz")(d["rows"][0]["candidates"][0])' \
    "--clock-ghz was not used as the runs' nominal clocks"
expect_usage_error "--clock-ghz: 1 clocks given for 2 runs" "$VP" compare @no-clock @no-clock-2 --clock-ghz 2.93
expect_usage_error "--clock-ghz: 'fast' is not valid" "$VP" compare @no-clock @no-clock-2 --clock-ghz fast
expect_status 0 "$VP" compare @zero-time @no-clock --metric wall_time --json "$WORK/zero.json"
json_check "$WORK/zero.json" '"ratio" not in d["rows"][0]["candidates"][0] and "base: no ratio: a base value is zero or negative" in d["rows"][0]["candidates"][0]["flags"]' \
    "a base of zeros should be said as the base's"
expect_status 0 "$VP" compare @no-clock @zero-time --metric wall_time --json "$WORK/zero.json"
json_check "$WORK/zero.json" '"no ratio: a candidate value is zero or negative" in d["rows"][0]["candidates"][0]["flags"]' \
    "a candidate of zeros should be said as the candidate's"

# A failing program fails the result with its last stderr line.
expect_status 1 "$VP" run app --shell --cmd 'echo first >&2; echo "the real reason" >&2; exit 3' \
    --reps 2 --quiet --json "$WORK/fail.json"
json_check "$WORK/fail.json" 'd["results"][0]["status"] == "failed" and "exited 3; its last stderr line: the real reason" in d["results"][0]["error"]' \
    "a failing program: the result should fail with its last stderr line"

# --timeout kills the program and everything in its process group.
start=$(date +%s%N)
expect_status 1 "$VP" run app --shell --cmd "sleep 41.$MARK & sleep 42.$MARK" --timeout 300ms \
    --reps 1 --warmup 0 --quiet --json "$WORK/timeout.json"
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$elapsed_ms" -lt 5000 ] || fail "--timeout 300ms took ${elapsed_ms} ms"
json_check "$WORK/timeout.json" '"killed after --timeout 0.3 s" in d["results"][0]["error"]' "the timeout is not the result's error"
sleep 0.2
pgrep -f "^sleep 4[12].$MARK" >/dev/null && fail "--timeout left processes running: $(pgrep -af "sleep 4[12].$MARK")"

# Ctrl-C: the run is interrupted and no child is left.
"$VP" run app --shell --cmd "sleep 43.$MARK & sleep 44.$MARK" --reps 1 --warmup 0 --quiet \
    >"$WORK/int.out" 2>&1 &
runner=$!
for _ in $(seq 50); do pgrep -f "^sleep 44.$MARK" >/dev/null && break; sleep 0.1; done
kill -INT "$runner"
wait "$runner"
status=$?
[ "$status" -eq 130 ] || fail "Ctrl-C: virtperf exited $status, want 130"
sleep 0.2
pgrep -f "^sleep 4[34].$MARK" >/dev/null && fail "Ctrl-C left processes running: $(pgrep -af "sleep 4[34].$MARK")"

# Bad input, refused before anything runs.
runs_before=$(sqlite3 "$VIRTPERF_DB" "SELECT COUNT(*) FROM runs")
expect_usage_error "--cmd: 'nosuchprogram$MARK' is not an executable file or a program in PATH" \
    "$VP" run app --cmd "nosuchprogram$MARK -x"
expect_usage_error "app needs --cmd" "$VP" run app
expect_usage_error "--cmd: a ' quote is not closed" "$VP" run app --cmd "echo 'open"
expect_usage_error "--events-regex: 'events' is not valid; accepted: an extended regex with exactly one capture group" \
    "$VP" run app --cmd true --events-regex events
expect_usage_error "--cwd /nonexistent$MARK: no such directory" "$VP" run app --cmd true --cwd "/nonexistent$MARK"
expect_usage_error "--env: 'NOEQUALS' is not valid" "$VP" run app --cmd true --env NOEQUALS
expect_runs "$runs_before" "bad input stored a run"

# --cwd and --env reach the program.
expect_status 0 "$VP" run app --shell --cmd '[ "$(pwd)" = /tmp ] && [ "$VP_APP_TEST" = yes ]' \
    --cwd /tmp --env "VP_APP_TEST=yes OTHER=1" --reps 1 --warmup 0 --quiet
finish
