#!/bin/bash
# run --guests --migrate-to: a second libvirtd on this machine (its own mount namespace,
# tests/libvirt_daemon.sh) stands in for another hypervisor. A TCG guest running cpu is
# moved there and back within a repetition (its channel's words carried over); the
# SPring-8 quick plan's interruption step, given that daemon with --set, probes a guest
# from this host while it moves there and back: both moves are kept with libvirt's
# figures, and the gap the probe saw covers each move's downtime (less two probe periods)
# and lasts no longer than the move and a second; nothing is left on either daemon (a
# run killed by SIGKILL leaves its guest till the next run with a migration); the plan's
# placeholder second hypervisor is refused, naming the --set that gives one. A migration libvirt refuses (to the guest's own daemon) ends the
# run with libvirt's reason and the guest named, nothing left; flags are refused where
# they cannot hold, before any guest starts.
. "$(dirname "$0")/lib.sh"
use_libvirt
BRIDGE=vptm$$
ELSEWHERE="$WORK/elsewhere"
cleanup() {
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

# A benchmark whose words cross the move: the guest one of the point's ranks, there and
# back within a repetition, its words carried on over each new channel.
expect_status 0 timeout 240 "$VP" run cpu --duration 6 --reps 1 --warmup 0 --guests 1 \
    --guest-accel tcg --migrate-to "$URI" --migrate-at 1 --migrate-back --label moved-cpu \
    --json "$WORK/cpu.json"
json_check "$WORK/cpu.json" 'd["results"][0]["status"] == "ok" and [(m["status"], m["to"]) for m in d["results"][0]["migrations"]] == [("ok", "'"$URI"'"), ("ok", "qemu:///system")]' \
    "cpu in a guest moved there and back: ok, both moves kept"

# A run killed by SIGKILL leaves its guest to migrate (libvirt auto-destroys no such
# domain); the next run with a migration destroys it before its own start.
"$VP" run cpu --duration 30 --reps 1 --warmup 0 --guests 1 --guest-accel tcg --migrate-to "$URI" \
    --migrate-at 20 >"$WORK/killed.out" 2>&1 &
KILLED=$!
for _ in $(seq 1 600); do grep -q "guest started" "$WORK/killed.out" && break; sleep 0.1; done
kill -KILL $KILLED
wait $KILLED 2>/dev/null
[ $? -eq 137 ] || fail "the run killed with SIGKILL should end by it: $(tail -3 "$WORK/killed.out")"
virsh -c qemu:///system list --name | grep -qx "virtperf-$KILLED-1" ||
    fail "a killed run's guest to migrate was expected left until the next run"

# The SPring-8 plan's interruption: net.probe from this host into a guest that moves
# there and back (its second hypervisor given with --set; the rpc step cut short).
QUICK=(--set rpc.guests=1 --set rpc.duration=100ms --set global.reps=1 --set "global.guest-net=$BRIDGE"
    --guest-accel tcg)
expect_status 0 timeout 240 "$VP" run --plan "$PLANS/spring8-2005-quick.ini" "${QUICK[@]}" \
    --set "interruption.migrate-to=$URI" --label moved --json "$WORK/moved.json"
expect_contains "$WORK/out" "net.probe from this host:"
virsh -c qemu:///system list --name | grep -qx "virtperf-$KILLED-1" &&
    fail "the next run with --migrate-to should have destroyed the killed run's guest"
python3 - "$WORK/moved.json" "$URI" <<'PY' || fail "both moves kept with libvirt's figures, and the probe's gap within what the downtime and the period allow"
import json, sys
result = [r for r in json.load(open(sys.argv[1]))["results"] if r["bench"] == "net.probe"][0]
assert result["status"] == "ok" and result["step"] == "interruption", result.get("error")
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

# A migration libvirt refuses: to the daemon the guest runs on.
expect_status 1 timeout 240 "$VP" run net.probe --duration 3 --guests 1 --guest-net "$BRIDGE" \
    --guest-accel tcg --migrate-to qemu:///system --migrate-at 0.5 --label refused
expect_contains "$WORK/out" "its migration to qemu:///system failed: libvirt"
guests_left_nothing '[0-9]*' "a run whose migration failed"
finish
