#!/bin/bash
# time.drift against a virtperf serve on loopback (same clock: offset and drift near zero,
# no steps), through a relay that delays one direction only (the offset shows the
# asymmetry and the error bound covers it), through a relay whose reference clock steps
# (a step reported, the result kept), and with a peer that stops answering (failed, what
# was measured so far kept in the error); no --peer refused. time.ticks and --load: the
# load really runs, and leaves no process or file behind.
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
PORT=$((10000 + $$ % 20000)) # below the ephemeral ports (32768 up), which other sockets take
RELAY=$((PORT + 1))
PIDS=
cleanup() {
    for pid in $PIDS; do kill -CONT "$pid" 2>/dev/null; kill "$pid" 2>/dev/null; done
    rm -rf "$WORK"
}
trap cleanup EXIT

wait_port() { # PORT: until something listens there
    for _ in $(seq 1 100); do
        python3 -c "import socket; socket.create_connection(('127.0.0.1', $1), timeout=1)" 2>/dev/null && return 0
        sleep 0.05
    done
    fail "nothing listens on $1"
}

"$VP" serve --bind 127.0.0.1 --port "$PORT" --quiet 2>"$WORK/serve.log" &
SERVE_PID=$!
PIDS="$SERVE_PID"
wait_port "$PORT"

expect_usage_error "time.drift needs --peer HOST[:PORT]" "$VP" run time.drift
expect_usage_error "--interval" "$VP" run time.drift --peer 127.0.0.1:$PORT --interval 10s
expect_usage_error "--load: 'heavy' is not valid" "$VP" run time.ticks --load heavy

# Loopback: both ends read the same clock, so the true offset is 0 and every measured one
# lies within the error bound (a busy moment widens the bound, never breaks it).
expect_status 0 "$VP" run time.drift --peer 127.0.0.1:$PORT --duration 3s --interval 500ms --reps 2 --warmup 0 --label loop --quiet --json "$WORK/loop.json"
json_check "$WORK/loop.json" '(lambda m: all(abs(o) <= b and abs(s) <= b < 1e-3 for o, s, b in zip(m["offset"]["values"], m["offset_start"]["values"], m["error_bound"]["values"])) and all(abs(v) < max(20, 4 * e) for v, e in zip(m["drift_ppm"]["values"], m["drift_error"]["values"])) and m["steps"]["values"] == [0, 0] and m["backward_jumps"]["values"] == [0, 0] and m["samples"]["values"] == [7, 7])(d["results"][0]["metrics"])' "loopback drift: offset, drift, steps or error bound"

# drift_ppm and the offsets are signed: closer to zero is better, and compare weighs their
# sizes (a drift of -5 ppm against +5 ppm is no change, not a negative ratio).
json_check "$WORK/loop.json" '[d["results"][0]["metrics"][m]["better"] for m in ("drift_ppm", "offset", "offset_start", "largest_step", "drift_error")] == ["zero", "zero", "zero", "zero", "lower"]' \
    "the signed drift figures are not 'closer to zero is better'"
expect_status 0 "$VP" run time.drift --peer 127.0.0.1:$PORT --duration 1.5s --interval 500ms --reps 2 --warmup 0 --label loop2 --quiet
expect_status 0 "$VP" compare loop loop2 --metric drift_ppm --metric offset --json "$WORK/signed.json"
json_check "$WORK/signed.json" 'all(r["better"] == "zero" and r["candidates"][0]["ratio"] > 0 and r["base"]["value"] >= 0 for r in d["rows"]) and len(d["rows"]) == 2' \
    "compare of signed drift figures did not weigh their sizes"

# A watch: one repetition of --duration and no warm-up unless asked (--duration 300 means
# five minutes, not thirty).
expect_status 0 "$VP" run time.drift --peer 127.0.0.1:$PORT --duration 1s --interval 500ms --quiet --json "$WORK/watch.json"
json_check "$WORK/watch.json" '(lambda r: r["reps"] == 1 and r["warmup"] == 0 and len(r["timing"]) == 1 and r["duration_s"] == 1 and not r.get("warnings"))(d["results"][0])' "time.drift: one watch by default"
# Too short to tell a drift: the result says so and how to fix it.
expect_status 0 "$VP" run time.drift --peer 127.0.0.1:$PORT --duration 100ms --quiet --json "$WORK/short.json"
json_check "$WORK/short.json" 'any("a drift needs at least 3" in w and "--duration" in w for w in d["results"][0]["warnings"])' "time.drift over one sample should warn"

# 20 ms on the way to the server, none back: offset about -10 ms, bound at least 10 ms.
python3 "$HERE/time_relay.py" "$RELAY" "$PORT" delay 0.02 &
PIDS="$PIDS $!"
wait_port "$RELAY"
expect_status 0 "$VP" run time.drift --peer 127.0.0.1:$RELAY --duration 2s --interval 500ms --exchanges 2 --reps 1 --warmup 0 --quiet --json "$WORK/asym.json"
json_check "$WORK/asym.json" '(lambda m: -0.012 < m["offset"]["mean"] < -0.008 and m["error_bound"]["mean"] >= 0.01 and abs(m["offset"]["mean"]) <= m["error_bound"]["mean"] and abs(m["offset_start"]["mean"]) <= m["error_bound"]["mean"] and m["steps"]["mean"] == 0)(d["results"][0]["metrics"])' "asymmetric path: the offset should show it and the error bound cover it"

# The reference steps 50 ms ahead after 1.2 s: one step of about -50 ms, result ok. The
# drift stays near zero within its own error (the Python relay adds 10-200 us of scatter,
# so over 3 s that error is 3-90 ppm here); a 50 ms step taken into the fit would make it
# about 16000 ppm.
python3 "$HERE/time_relay.py" "$((RELAY + 1))" "$PORT" step 1.2 0.05 &
PIDS="$PIDS $!"
wait_port "$((RELAY + 1))"
expect_status 0 "$VP" run time.drift --peer 127.0.0.1:$((RELAY + 1)) --duration 3s --interval 500ms --reps 1 --warmup 0 --quiet --json "$WORK/step.json"
json_check "$WORK/step.json" '(lambda m: d["results"][0]["status"] == "ok" and m["steps"]["mean"] == 1 and -0.051 < m["largest_step"]["mean"] < -0.049 and abs(m["drift_ppm"]["mean"]) < max(20, 4 * m["drift_error"]["mean"]) and m["drift_error"]["mean"] < 200 and m["max_offset"]["mean"] > 0.049)(d["results"][0]["metrics"])' "a reference step: counted and sized, drift kept"

# What the step explains: sysinfo (from the stored results) and the report say so.
expect_status 0 "$VP" sysinfo --json
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert any(a.startswith('the clock steps: 1 against the reference') for a in d['result_advisories']), d['result_advisories']" "$WORK/out" || fail "sysinfo did not advise of the clock step"
expect_status 0 "$VP" report latest -o "$WORK/report.html"
expect_contains "$WORK/report.html" "the clock steps: 1 against the reference"
expect_status 0 "$VP" sysinfo --db "$WORK/none.db"
expect_contains "$WORK/out" "from this host's stored results: none"
[ ! -e "$WORK/none.db" ] || fail "sysinfo created a database by looking"
# The same measurement again, now that the reference has stepped for good: no step, and
# sysinfo goes by the newest result of each configuration, so the advisory is gone.
expect_status 0 "$VP" run time.drift --peer 127.0.0.1:$((RELAY + 1)) --duration 3s --interval 500ms --reps 1 --warmup 0 --quiet --json "$WORK/after.json"
json_check "$WORK/after.json" 'd["results"][0]["metrics"]["steps"]["mean"] == 0' "a reference 50 ms off but steady: no step"
expect_status 0 "$VP" sysinfo --json
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert not any(a.startswith('the clock steps') for a in d['result_advisories']), d['result_advisories']" "$WORK/out" || fail "sysinfo should go by the newest result of a configuration"

# The peer stops answering (SIGSTOP) after about a second: failed, the samples so far in the error.
"$VP" run time.drift --peer 127.0.0.1:$PORT --duration 20s --interval 200ms --timeout 1s --reps 1 --warmup 0 --quiet --json "$WORK/stall.json" >/dev/null 2>&1 &
client=$!
sleep 1.2
kill -STOP "$SERVE_PID"
wait $client
[ $? -eq 1 ] || fail "a silent peer: want exit 1"
kill -CONT "$SERVE_PID"
json_check "$WORK/stall.json" '(lambda r: r["status"] == "failed" and "the peer stopped answering after" in r["error"] and "so far" in r["error"] and "drift" in r["error"] and "timed out" in r["error"])(d["results"][0])' "a silent peer: failed with what was gathered"
[ "$(sqlite3 "$VIRTPERF_DB" "SELECT status FROM results ORDER BY id DESC LIMIT 1")" = failed ] || fail "the failed drift result was not stored"

# time.ticks under a cpu load on every CPU: the load runs (the monitor sees busy CPUs),
# lost ticks are a percentage, and no load process outlives the run. About 1000 expiries
# in 1 s; the last delivery may come late and bring the ticks it lost with it.
expect_status 0 "$VP" run time.ticks --load cpu --duration 1s --reps 2 --warmup 0 --quiet --json "$WORK/ticks.json"
json_check "$WORK/ticks.json" '(lambda r: r["monitor"]["summary"]["cpu.busy"]["mean"] > 80 and 0 <= r["metrics"]["lost_ticks"]["mean"] <= 100 and 900 <= r["metrics"]["expiries"]["mean"] <= 1001 + r["metrics"]["longest_loss"]["mean"])(d["results"][0])' "time.ticks --load cpu: CPUs not busy or figures off"
expect_status 0 "$VP" run time.ticks --duration 1s --reps 2 --warmup 0 --quiet --json "$WORK/idle.json"
json_check "$WORK/idle.json" 'd["results"][0]["monitor"]["summary"]["cpu.busy"]["mean"] < 60' "time.ticks without --load: the CPUs should not be busy"
sleep 0.2
[ "$(pgrep -f "^$VP run" | wc -l)" -eq 0 ] || fail "load processes outlived the run"

# --load io writes a file with no name: none is left in /var/tmp, and Ctrl-C stops it all.
before=$(ls /var/tmp | wc -l)
"$VP" run time.timer --load io --duration 5s --reps 3 --warmup 0 --quiet --json "$WORK/io.json" >/dev/null 2>&1 &
client=$!
sleep 2
kill -INT $client
wait $client
sleep 0.2
[ "$(pgrep -f "^$VP run" | wc -l)" -eq 0 ] || fail "Ctrl-C left load processes running"
[ "$(ls /var/tmp | wc -l)" -eq "$before" ] || fail "--load io left a file in /var/tmp"
finish
