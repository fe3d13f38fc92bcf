#!/bin/bash
# The engine: pinning read back inside each job, a --jobs sweep, the results list,
# --watch, and the JSON document on stdout.
. "$(dirname "$0")/lib.sh"
ncpu=$(nproc)
last=$((ncpu - 1))

expect_status 0 "$VP" run cpu --ops=1m --jobs 2 --pin "$last,0" --reps 2 --quiet --json "$WORK/pin.json"
json_check "$WORK/pin.json" '[j["cpu_binding"] for j in d["results"][0]["per_job"]] == ["'$last'", "0"] and [j["cpu_seen"] for j in d["results"][0]["per_job"]] == ['$last', 0] and [j["cpu_planned"] for j in d["results"][0]["per_job"]] == ['$last', 0]' "--pin LIST not read back inside the jobs"
expect_status 0 "$VP" run cpu --ops=1m --jobs 2 --pin none --reps 2 --quiet --json "$WORK/free.json"
json_check "$WORK/free.json" 'all(j["cpu_planned"] is None and j["cpu_binding"] == ("0-'$last'" if '$last' > 0 else "0") for j in d["results"][0]["per_job"])' "--pin none should leave jobs on every CPU"
expect_status 0 "$VP" run cpu --ops=1m --jobs 2 --pin compact --reps 2 --quiet --json "$WORK/compact.json"
json_check "$WORK/compact.json" 'len(set(j["cpu_binding"] for j in d["results"][0]["per_job"])) == min(2, '$ncpu')' "compact should use distinct cores"

expect_status 0 "$VP" run cpu --ops=1m --jobs 1..3 --pin spread --reps 2 --label sweep --quiet --json "$WORK/sweep.json"
json_check "$WORK/sweep.json" '[r["jobs"] for r in d["results"]] == [1, 2, 3] and [len(r["per_job"]) for r in d["results"]] == [1, 2, 3] and d["run"]["label"] == "sweep"' "--jobs 1..3 should give one result per job count"
expect_status 0 "$VP" results list
expect_contains "$WORK/out" "sweep"
[ "$(grep -c ' ok ' "$WORK/out")" -ge 4 ] || fail "results list should show 4 ok runs: $(cat "$WORK/out")"
expect_status 0 "$VP" results show sweep
expect_contains "$WORK/out" "cpu  jobs=3 pin=spread"

# compact and spread place 2 jobs alike on a machine of one package: the result says so
# (on more packages they differ, and it must not).
expect_status 0 "$VP" run cpu --ops 1m --jobs 2 --pin compact --reps 1 --warmup 0 --quiet --json "$WORK/compact.json"
json_check "$WORK/compact.json" '(any("--pin compact: the same CPUs as --pin spread on this machine (1 package)" in w for w in d["results"][0].get("warnings", [])) == (d["run"]["host"]["cpu"]["packages"] == 1))' \
    "compact = spread on one package should be said, and only there"

# --reps auto: null's headline (1 per job) never varies, so its interval is reached at
# the least, 5 repetitions, with every job ending when told there are no more.
expect_status 0 "$VP" run null --jobs 3 --reps auto --warmup 1 --quiet --json "$WORK/auto.json"
json_check "$WORK/auto.json" '(lambda r: r["status"] == "ok" and r["reps"] == 5 and r["metrics"]["rep"]["values"] == [1, 2, 3, 4, 5] and "warnings" not in r)(d["results"][0])' \
    "--reps auto should stop at 5 repetitions of a steady figure, every job ended"
# the rule itself is tests/unit/test_inference.c's; what is refused:
expect_usage_error "--reps auto:MAX: '3' is not valid; accepted: a whole number from 5" "$VP" run null --reps auto:3
expect_usage_error "--target: goes with --reps auto" "$VP" run null --target 1
expect_usage_error "--target: 'x' is not valid" "$VP" run null --reps auto --target x

# --watch: the CPU use of a busy process named 'yes' is seen by the monitor.
yes >/dev/null &
busy=$!
expect_status 0 "$VP" run cpu --duration 300ms --reps 2 --watch yes --watch nosuchprocess \
    --quiet --json "$WORK/watch.json"
kill $busy
wait $busy
[ $? -eq 143 ] || fail "the busy 'yes' did not end by the SIGTERM it was sent"
json_check "$WORK/watch.json" 'd["results"][0]["monitor"]["summary"]["watch.yes.cpu"]["mean"] > 20' "--watch yes did not see the busy process"
# Sampled at 50 Hz, an interval is 2 of the kernel's 1/100 s ticks: one tick too many
# would read 150%. A process of one thread is held to what it can use: 100% of a CPU.
yes >/dev/null &
busy=$!
expect_status 0 "$VP" run cpu --duration 500ms --reps 2 --watch yes --monitor-hz 50 --quiet \
    --json "$WORK/watch50.json"
kill $busy
wait $busy
[ $? -eq 143 ] || fail "the busy 'yes' did not end by the SIGTERM it was sent"
json_check "$WORK/watch50.json" '0 < max(d["results"][0]["monitor"]["series"]["watch.yes.cpu"]) <= 100' \
    "a watched process of one thread read over 100% of a CPU"
# A name no process has is said, not shown as 0% of a CPU.
json_check "$WORK/watch.json" '"watch.nosuchprocess.cpu" not in d["results"][0]["monitor"]["summary"] and "--watch nosuchprocess: no process of that name ran while this was measured" in d["results"][0]["warnings"]' \
    "--watch of a process that never ran showed a figure instead of saying so"
json_check "$WORK/watch.json" 'd["results"][0]["duration_s"] == 0.3' "--duration not recorded"

# The Done-when command, on smaller arrays: documented JSON on stdout, tables on stderr.
"$VP" run mem.stream --size=8m --jobs 1..2 --pin spread --reps 2 --json - >"$WORK/stdout.json" 2>"$WORK/err" || fail "mem.stream --json - failed"
json_check "$WORK/stdout.json" 'd["schema"] == "virtperf/1" and [r["jobs"] for r in d["results"]] == [1, 2] and all(set(r["metrics"]) == {"copy", "scale", "add", "triad"} for r in d["results"]) and all(k in d["results"][1]["metrics"]["triad"] for k in ("unit", "better", "mean", "stddev", "min", "max", "n", "p50"))' "--json - document"
expect_contains "$WORK/err" "mem.stream  jobs=2"
finish
