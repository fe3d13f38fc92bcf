#!/bin/bash
# run --guests --migrate-to: a second libvirtd on this machine (its own mount namespace,
# tests/libvirt_daemon.sh) stands in for another hypervisor. A TCG guest serving net.probe
# is live-migrated there and back while this host probes it: both moves are kept with
# libvirt's figures, and the gap the probe saw from this host covers each move's downtime
# (less two probe periods) and lasts no longer than the move and a second; nothing is
# left on either daemon. A migration libvirt refuses (to the guest's own daemon) ends the
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

URI=$(second_libvirt_up "$ELSEWHERE") || fail "the second libvirtd did not answer: $(tail -3 "$ELSEWHERE/libvirtd.log")"

# There and back while net.probe watches from this host.
expect_status 0 timeout 240 "$VP" run net.probe cpu --duration 8 --reps 1 --warmup 0 --guests 1 \
    --guest-net "$BRIDGE" --guest-accel tcg --migrate-to "$URI" --migrate-at 1.5 --migrate-back \
    --label moved --json "$WORK/moved.json"
expect_contains "$WORK/out" "net.probe from this host:"
python3 - "$WORK/moved.json" "$URI" <<'PY' || fail "both moves kept with libvirt's figures, and the probe's gap within what the downtime and the period allow"
import json, sys
result, cpu = json.load(open(sys.argv[1]))["results"]
assert result["status"] == "ok", result.get("error")
# cpu's point: the guest one of the point's ranks, its words carried on over its new channel
assert cpu["status"] == "ok" and [m["status"] for m in cpu["migrations"]] == ["ok", "ok"], cpu.get("error")
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
