#!/bin/bash
# run --guests --migrate-to: a second libvirtd on this machine (its own mount namespace,
# tests/libvirt_daemon.sh) stands in for another hypervisor. The SPring-8 quick plan,
# given that daemon with --set, runs its rpc step in a guest moved there and back within
# the repetition (its channel's words carried over), and its interruption step probes
# the guest from this host while it moves there and back: each move kept with libvirt's
# figures, and the gap the probe saw covers each move's downtime (less two probe periods)
# and lasts no longer than the move and a second; nothing is left on either daemon (a
# run killed by SIGKILL leaves its guest till the next run with a migration); a result the
# guest sent between a move there and the move back is read from the middle QEMU's channel
# (both moves inside one 1 s point, the first slowed to some 6 s); the plan's
# placeholder second hypervisor is refused, naming the --set that gives one; a migration
# that outlasts --guest-timeout is aborted, the run ending with libvirt's words, and a
# Ctrl-C during one ends the run at once; flags are refused where they cannot hold,
# before any guest starts.
. "$(dirname "$0")/lib.sh"
use_libvirt
BRIDGE=vptm$$
ELSEWHERE="$WORK/elsewhere"
cleanup() {
    tc qdisc del dev lo root 2>/dev/null
    second_libvirt_down "$ELSEWHERE"
    stop_libvirt
    ip link del "$BRIDGE" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
export VIRTPERF_CACHE="$WORK/cache"
chmod 755 "$WORK" # libvirt's QEMU user reads the guests' image through it
test_bridge "$BRIDGE"

# Refused before any guest starts.
expect_status 2 "$VP" run net.probe --migrate-to qemu:///system
expect_contains "$WORK/err" "--migrate-to: only for the guests of a run"
expect_status 2 "$VP" run net.probe --guests 1 --migrate-to nowhere
expect_contains "$WORK/err" "--migrate-to: 'nowhere' is not a libvirt URI"
expect_status 2 "$VP" run net.probe --guests 1 --migrate-to qemu:///system --migrate-at 0
expect_contains "$WORK/err" "--migrate-at: '0' is not valid"
expect_status 2 "$VP" run cpu --containers 1 --migrate-to qemu:///system
expect_contains "$WORK/err" "--migrate-to: only for the guests of a run"
expect_status 2 "$VP" run net.probe --guests 1 --guest-net "$BRIDGE" --guest-accel tcg \
    --migrate-to "qemu:///system?socket=$WORK/no-such-socket"
expect_contains "$WORK/err" "--migrate-to: cannot reach libvirt there"
# the SPring-8 plan's second hypervisor is a placeholder until the user names one
PLANS="$(cd "$(dirname "$0")/../.." && pwd)/plans"
expect_status 2 "$VP" run --plan "$PLANS/spring8-2005-quick.ini" --set "global.guest-net=$BRIDGE" \
    --guest-accel tcg
expect_contains "$WORK/err" "plan step [interruption]: --migrate-to: cannot reach libvirt there"
expect_contains "$WORK/err" "--set interruption.migrate-to=URI"

URI=$(second_libvirt_up "$ELSEWHERE") || fail "the second libvirtd did not answer: $(tail -3 "$ELSEWHERE/libvirtd.log")"

# A run killed by SIGKILL leaves its guest to migrate (libvirt auto-destroys no such
# domain); the next run with a migration destroys it before its own start.
"$VP" run cpu --duration 30 --reps 1 --warmup 0 --guests 1 --guest-accel tcg --migrate-to "$URI" \
    --migrate-at 20 >"$WORK/killed.out" 2>&1 &
KILLED=$!
for _ in $(seq 1 600); do grep -q "guest started" "$WORK/killed.out" && break; sleep 0.1; done
kill -KILL $KILLED
{ wait $KILLED; killed_status=$?; } 2>/dev/null # (bash's "Killed" notice, expected)
[ $killed_status -eq 137 ] || fail "the run killed with SIGKILL should end by it: $(tail -3 "$WORK/killed.out")"
virsh -c qemu:///system list --name | grep -qx "virtperf-$KILLED-1" ||
    fail "a killed run's guest to migrate was expected left until the next run"

# The SPring-8 plan's interruption: net.probe from this host into a guest that moves
# there and back (its second hypervisor given with --set); its rpc step in one guest,
# moved there, its words carried on over the new channel, and back after the point's
# end: its 1 s of measurements end before a move of 0.4 s or more and the 0.3 s after
# it, and --migrate-back brings the guest home before the next step, whose moves begin
# there (the same guest: a step left on the other daemon made the next one's move fail,
# "Attempt to migrate guest to the same host").
QUICK=(--set rpc.guests=1 --set rpc.duration=1s --set global.reps=1 --set "global.guest-net=$BRIDGE"
    --set "rpc.migrate-to=$URI" --set rpc.migrate-at=0.3s --set rpc.migrate-back=on
    --guest-accel tcg)
# (a 14 s probe: both moves and the second after each inside it beside another test)
moved_run() {
    timeout 240 "$VP" run --plan "$PLANS/spring8-2005-quick.ini" "${QUICK[@]}" \
        --set "interruption.migrate-to=$URI" --set interruption.duration=14s --label moved \
        --json "$WORK/moved.json" >"$WORK/out" 2>"$WORK/err"
}
# QEMU's TCG (these machines' only accelerator) now and then resumes a migrated guest with
# its memory or state amiss, beside another test more often (1 run in 8 here): its kernel
# crashes at once ("Kernel panic" on its console, which the run shows for a guest gone).
# That run, and only that one, is made once more; whatever else fails, fails.
moved_run
status=$?
if [ $status -ne 0 ] && grep -q "Kernel panic" "$WORK/err"; then
    echo "  a migrated TCG guest's kernel crashed (QEMU's fault, its console below); once more:"
    grep -A5 "console ended with" "$WORK/err" | sed 's/^/    /'
    moved_run
    status=$?
fi
[ $status -eq 0 ] || fail "the plan run with its moves exited $status, want 0: $(head -c 600 "$WORK/err")"
expect_contains "$WORK/out" "net.probe from this host:"
virsh -c qemu:///system list --name | grep -qx "virtperf-$KILLED-1" &&
    fail "the next run with --migrate-to should have destroyed the killed run's guest"
python3 - "$WORK/moved.json" "$URI" <<'PY' || fail "both moves kept with libvirt's figures, and the probe's gap within what the downtime and the period allow"
import json, sys
results = json.load(open(sys.argv[1]))["results"]
rpc = [r for r in results if r["bench"] == "net.rr"][0]
assert rpc["status"] == "ok" and [(m["status"], m["to"]) for m in rpc["migrations"]] == [("ok", sys.argv[2]), ("ok", "qemu:///system")], rpc.get("error")
assert [m.get("after_point", False) for m in rpc["migrations"]] == [False, True], rpc["migrations"]
result = [r for r in results if r["bench"] == "net.probe"][0]
assert result["status"] == "ok" and result["step"] == "interruption", (result.get("error"), result.get("migrations"))
moves = result["migrations"]
assert [(m["from"], m["to"]) for m in moves] == [("qemu:///system", sys.argv[2]), (sys.argv[2], "qemu:///system")], moves
period = result["timeline"][0]["period_s"] if "timeline" in result else 0.001
for m in moves:
    assert m["status"] == "ok" and m["probe_covered"], m
    downtime, total, gap = m["downtime_ms"] / 1e3, m["total_ms"] / 1e3, m["probe_gap_s"]
    print("  %s -> %s: downtime %.0f ms, total %.0f ms, the probe's gap %.0f ms" % (m["from"][:20], m["to"][:20], downtime * 1e3, total * 1e3, gap * 1e3))
    assert 0 < downtime <= total and m["data_bytes"] > 0 and m["memory_iterations"] >= 1, m
    # the guest answers nothing while it is stopped; it cannot be silent longer than the
    # move took and the second after it in which the bridge learns its new port
    assert 0.8 * downtime - 2 * period <= gap <= m["seconds"] + 1.0, (downtime, gap, m)
PY
expect_status 0 "$VP" report moved -o "$WORK/moved.html"
expect_contains "$WORK/moved.html" "migration: start to end, as high as the downtime libvirt gives"
expect_contains "$WORK/moved.html" "<th>gap net.probe saw</th>"
second_libvirt_guests=$(virsh -c "$URI" list --all --name | grep -c virtperf-)
[ "$second_libvirt_guests" -eq 0 ] || fail "the second libvirtd still holds $second_libvirt_guests guests"
guests_left_nothing '[0-9]*' "a run that migrated its guest there and back"
expect_status 0 "$VP" results show moved
expect_contains "$WORK/out" "migration of virtperf-"
expect_contains "$WORK/out" "after the point's end (its measurements were over), bringing the guest home"

# The moves are slowed on the loopback: htb only for the second daemon's migration ports
# (61440-61503, outside the ephemeral ports: whatever else runs beside this test keeps its
# loopback), a burst above the loopback's 64 KiB segments (a smaller one drops them until
# the stream breaks).
tc qdisc add dev lo root handle 1: htb default 10 &&
    tc class add dev lo parent 1: classid 1:10 htb rate 100gbit quantum 65536 &&
    tc class add dev lo parent 1: classid 1:20 htb rate 200mbit burst 256kb &&
    tc filter add dev lo parent 1: protocol ip u32 match ip dport 61440 0xffc0 flowid 1:20 ||
    fail "cannot slow libvirt's migration ports on the loopback"
# There and back within one word: a move there of some 6 s (200 Mbit/s) outlasts the
# guest's 1 s of net.rr, whose result then waits in it; the move back begins 0.05 s after
# it arrived, before that result was read. The result, sent from the middle QEMU, is read
# from that QEMU's channel (it waited there, unread, while the host read the newest one
# until --guest-timeout).
expect_status 0 timeout 120 "$VP" run net.rr --guests 1 --guest-net "$BRIDGE" --guest-accel tcg \
    --duration 1s --reps 1 --warmup 0 --migrate-to "$URI" --migrate-at 0.05 --migrate-back \
    --guest-timeout 60 --label within --json "$WORK/within.json"
python3 - "$WORK/within.json" <<'PY' || fail "a result sent between two moves should be read from the middle channel"
import json, sys
rr = json.load(open(sys.argv[1]))["results"][0]
assert rr["status"] == "ok", rr.get("error")
assert [m["status"] for m in rr["migrations"]] == ["ok", "ok"], rr["migrations"]
PY
# A migration that does not end within --guest-timeout is aborted: the run ends with
# libvirt's words, the guest named, nothing left on either daemon. Its stream is slowed to
# 8 Mbit/s for some 128 MiB.
tc class change dev lo parent 1: classid 1:20 htb rate 8mbit burst 256kb ||
    fail "cannot slow libvirt's migration ports further"
expect_status 1 timeout 240 "$VP" run cpu --duration 11 --reps 1 --warmup 0 --guests 1 \
    --guest-accel tcg --guest-timeout 10 --migrate-to "$URI" --migrate-at 0.5 --label slow
expect_contains "$WORK/out" "its migration did not end in 10 s (--guest-timeout) and was aborted: its migration to $URI failed: libvirt"
# Ctrl-C during such a move: the run ends at once (the move aborted, not waited for)
"$VP" run cpu --duration 20 --reps 1 --warmup 0 --guests 1 --guest-accel tcg --migrate-to "$URI" \
    --migrate-at 0.5 --label interrupted >"$WORK/interrupted.out" 2>&1 &
RUN=$!
for _ in $(seq 1 600); do pgrep -f "qemu-system.*guest=virtperf-$RUN-1.*-incoming" >/dev/null && break; sleep 0.05; done
sleep 0.5
kill -INT $RUN
interrupted_at=$SECONDS
wait $RUN
status=$?
[ $status -eq 130 ] || fail "Ctrl-C during a migration should exit 130, got $status: $(tail -3 "$WORK/interrupted.out")"
[ $((SECONDS - interrupted_at)) -le 5 ] ||
    fail "Ctrl-C during a migration took $((SECONDS - interrupted_at)) s to end the run (the move waited for)"
tc qdisc del dev lo root
[ "$(virsh -c "$URI" list --all --name | grep -c virtperf-)" -eq 0 ] ||
    fail "an aborted or interrupted migration left a guest on the second libvirtd"
guests_left_nothing '[0-9]*' "a run whose migration was aborted, or interrupted"
# (the second daemon is no child of this shell: that it ran until now is what is checked)
kill -0 "$(cat "$ELSEWHERE/pid" 2>/dev/null)" 2>/dev/null ||
    fail "the second libvirtd had stopped before the test ended: $(tail -3 "$ELSEWHERE/libvirtd.log")"
finish
