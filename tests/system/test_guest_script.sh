#!/bin/bash
# A real guest: scripts/guest.sh boots Debian's cloud kernel in a transient libvirt
# domain (QEMU TCG, software emulation) with build/virtperf inside. Its computation is far slower than here and
# `compare` says so; its clock, measured by time.drift against a virtperf serve on
# this machine's loopback, shows the 2 s step a setup script inside the guest makes (the
# step happens in the guest's clock only, never this machine's). A workload of app
# --preset runs inside it on the programs --with-programs brought; a plan file runs in it.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PORT=$((10000 + $$ % 20000)) # below the ephemeral ports (32768 up), which other sockets take
SERVE_PID=
use_libvirt
cleanup() {
    [ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null
    stop_libvirt
    rm -rf "$WORK"
}
trap cleanup EXIT

"$ROOT/scripts/guest.sh" --bogus >/dev/null 2>"$WORK/err"
[ $? -eq 2 ] && grep -q "unknown argument '--bogus'" "$WORK/err" || fail "guest.sh should refuse an unknown argument with status 2"
expect_status 0 "$ROOT/scripts/guest.sh" --help
expect_contains "$WORK/out" "usage: scripts/guest.sh [--accel tcg|kvm]"
# libvirtd not reachable (its sockets hidden in a mount namespace): refused, saying how
# to start it, before anything is made
expect_status 2 unshare -m sh -c "mount -t tmpfs none /run/libvirt && exec '$ROOT/scripts/guest.sh' -- run cpu"
expect_contains "$WORK/err" "guest.sh: libvirt's qemu:///system does not answer; start libvirtd"

# A plan in the guest: guest.sh copies the file in; the imported run keeps the plan's text
# and compare sets its steps here and there side by side, the study's figures beside
# them. TCG translates every instruction: the guest's verified computation is far slower.
# (Its system calls need not be: this machine may itself be a guest whose system calls
# cost a microsecond, as much as TCG's; the row is compared, not judged.)
cat >"$WORK/plan.ini" <<'PLAN'
[global]
reps = 5
[computation]
bench = cpu vcost.syscall time.read
ops = 2m
clock = monotonic
[memory]
bench = mem.write
size = 4m
passes = 2
then.mem.write.bandwidth = 1.39 GB/s
then-penalty.mem.write.bandwidth = 5%
PLAN
expect_status 0 "$VP" run --plan "$WORK/plan.ini" --label bare --quiet
expect_status 0 "$ROOT/scripts/guest.sh" --label tcg --timeout 300 -- run --plan "$WORK/plan.ini" --quiet
expect_contains "$WORK/out" "imported as run"
expect_status 0 "$VP" compare bare tcg
expect_contains "$WORK/out" "then, figures: mem.write bandwidth 1.39 GB/s (1.295 GiB/s); mem.write bandwidth penalty +5%"
grep -qE '^ +tcg: .* [+-][0-9.]+% \[.*\] .*\(then \+5%\)$' "$WORK/out" ||
    fail "the guest's plan run should come back as the step's penalty beside the study's: $(cat "$WORK/out")"
expect_status 0 "$VP" compare bare tcg --json "$WORK/cmp.json"
python3 - "$WORK/cmp.json" <<'PY' || fail "compare bare tcg: the guest's computation should be significantly slower"
import json, sys
d = json.load(open(sys.argv[1]))
cpu = [r for r in d["rows"] if r["bench"] == "cpu"][0]["candidates"][0]
assert cpu["verdict"] == "slower" and cpu["ratio"] < 0.5 and cpu["ci"][1] < 1, cpu
assert [r for r in d["rows"] if r["bench"] == "vcost.syscall"][0]["candidates"][0]["ratio"] > 0
PY
expect_status 0 "$VP" results show tcg
expect_contains "$WORK/out" "[memory]"
expect_status 0 "$VP" results export tcg -o "$WORK/tcg.json"
json_check "$WORK/tcg.json" 'd["run"]["host"]["hypervisor"]["name"] != "none" and d["run"]["host"]["hostname"] == "virtperf-guest"' "the guest's fingerprint should name its hypervisor"
# Under TCG the guest's clocksource is usually hpet or acpi_pm, whose reads are system
# calls: time.read must then say so, naming it.
json_check "$WORK/tcg.json" '(lambda source, warnings: source in ("tsc", "kvm-clock") or any("off the vDSO fast path (clocksource " + source in w for w in warnings))(d["run"]["host"]["clock"]["clocksource"], [w for r in d["results"] if r["bench"] == "time.read" for w in r.get("warnings", [])])' "a guest clock read off the vDSO fast path should be warned of"

# time.drift in the guest against this machine: the guest steps its own clock to the
# second 2 s ahead (date -s takes whole seconds: a step of 0.5 to 2 s), and the offset moves
# by the step's size. The step waits for the measurement's connection to this machine
# (10.0.2.2:PORT established in the guest's /proc/net/tcp), then 2 s: on a loaded
# machine the TCG guest's virtperf can take longer than a fixed sleep to start, and a
# step before the first sample is no step at all.
"$VP" serve --bind 127.0.0.1 --port "$PORT" --quiet 2>"$WORK/serve.log" &
SERVE_PID=$!
cat >"$WORK/step.sh" <<STEP
until grep -q " 0202000A:$(printf %04X "$PORT") 01 " /proc/net/tcp; do sleep 0.1; done
sleep 2
date -s "@\$(( \$(date +%s) + 2 ))"
STEP
expect_status 0 "$ROOT/scripts/guest.sh" --label tcg-drift --timeout 300 --setup "$WORK/step.sh" -- run time.drift --peer "10.0.2.2:$PORT" --duration 8s --interval 500ms --reps 1 --warmup 0 --quiet
expect_status 0 "$VP" results export tcg-drift -o "$WORK/drift.json"
python3 - "$WORK/drift.json" <<'PY' || fail "the guest's clock step should be counted, sized and seen locally"
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
m = {name: metric["mean"] for name, metric in r["metrics"].items()}
# date -s sets whole seconds, and the guest takes a moment between reading the time and
# setting it: the step is 2 s less a fraction of a second.
assert r["status"] == "ok" and m["steps"] >= 1 and 0.5 < m["largest_step"] < 2.05, m
# Between the first and the last sample the offset also moves by the guest's drift (a TCG
# guest's clock can run thousands of ppm slow on a busy host): what the step does not
# explain, the measured drift over the 8 s must.
drift_move = abs(m["drift_ppm"]) * 1e-6 * 8
assert abs(m["offset"] - m["offset_start"] - m["largest_step"]) < 0.01 + 1.5 * drift_move, m
assert m["local_steps"] >= 1 and m["samples"] >= 10, m
PY
[ -n "$SERVE_PID" ] && kill "$SERVE_PID"
wait "$SERVE_PID"
[ $? -eq 0 ] || fail "the time.drift reference server did not stop cleanly on SIGTERM"
SERVE_PID=

# app --preset in the guest: --with-programs brings Debian's python3 and what it opens;
# the workload's output is checked there as here, and compare sets the two against each
# other (TCG emulates every instruction: far slower), --normalize clock saying that
# neither side has an effective clock where the counters are hidden.
expect_status 0 "$VP" run app --preset python --reps 1 --warmup 0 --label preset-bare --quiet
expect_status 0 "$ROOT/scripts/guest.sh" --with-programs --label preset-tcg --timeout 300 -- \
    run app --preset python --reps 1 --warmup 0 --quiet
expect_status 0 "$VP" compare preset-bare preset-tcg --metric wall_time --normalize clock --json "$WORK/preset.json"
json_check "$WORK/preset.json" '(lambda c: d["rows"][0]["params"]["preset"] == "python" and c["ratio"] > 2 and (c.get("normalized") or any("not normalised by clock" in f for f in c["flags"])))(d["rows"][0]["candidates"][0])' \
    "python in the TCG guest should be far slower than here, and the clock normalisation said"

# The guest's own error line, not a parse failure here: its virtperf refuses a --path.
expect_status 2 "$ROOT/scripts/guest.sh" --timeout 300 -- run disk.write --path /nonexistent
expect_contains "$WORK/err" "guest: virtperf: --path /nonexistent: no such directory"
grep -qiE "Traceback|not valid JSON|UnicodeDecodeError" "$WORK/err" && fail "the guest's failure surfaced as a parse error: $(cat "$WORK/err")"

# A result that fails in the guest (nothing listens on the host's port 9): exit 1, and the
# run is not imported under its label, its document kept in a file that is named.
expect_status 1 "$ROOT/scripts/guest.sh" --label failed-guest --timeout 300 -- run net.connect \
    --peer 10.0.2.2:9 --reps 1 --warmup 0 --quiet
expect_contains "$WORK/err" "not imported as 'failed-guest'"
kept=$(sed -n "s/.*its document is \([^ ]*\) .*/\1/p" "$WORK/err")
[ -s "$kept" ] || fail "the failed guest run's document was not kept: $(cat "$WORK/err")"
rm -f "$kept"
expect_status 2 "$VP" results show failed-guest

# (guest.sh's --disk-dir is no longer booted here, to keep the suite in its time: the
# same disks, virtio and IDE, are covered by test_guests.sh through run --guests.)
finish
