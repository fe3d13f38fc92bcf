#!/bin/bash
# run --guests when things go wrong: a guest destroyed mid-run (virsh destroy) is named
# and its console shown, exit 1, the finished step's result kept (each guest writing its
# own emulated IDE disk);
# Ctrl-C gives exit 130 (under --guest-accel auto, which on a host where /dev/kvm opens
# runs KVM or says it fell back to TCG); neither leaves a domain, socket, console file or
# disk image behind; a hostile guest's lead of INT64_MAX, and its console of escape
# sequences before a 20 MiB hello, are named and shown printable. Runs under the
# sanitizers too: these are the fleet's paths that free what a lost member held.
. "$(dirname "$0")/lib.sh"
use_libvirt
cleanup() {
    stop_libvirt
    rm -rf "$WORK"
}
trap cleanup EXIT
export VIRTPERF_CACHE="$WORK/cache"
chmod 755 "$WORK" # libvirt's QEMU user reads the guests' image through it
mkdir "$WORK/disks"

# A guest destroyed mid-run is named, exit 1, the finished results kept; Ctrl-C gives
# exit 130; neither leaves anything behind. (One after the other: four TCG guests booting
# at once on two CPUs take minutes.)
# (a disk step first, each guest an emulated IDE disk, CNAF 2007's other bus, which go too)
"$VP" run disk.write cpu --size 16m --ops 300m --reps 5 --guests 2 --guest-disk "$WORK/disks" \
    --guest-disk-size 128M --guest-disk-bus ide --guest-accel tcg --label destroyed --json "$WORK/destroyed.json" \
    >"$WORK/destroyed.out" 2>&1 &
RUN=$!
for _ in $(seq 1 900); do grep -q '^disk.write ' "$WORK/destroyed.out" && break; sleep 0.1; done
sleep 1
virsh -c qemu:///system destroy "virtperf-$RUN-2" >/dev/null ||
    fail "virsh destroy virtperf-$RUN-2 failed: $(cat "$WORK/destroyed.out")"
wait $RUN
status=$?
[ $status -eq 1 ] || fail "a run whose guest was destroyed should exit 1, got $status: $(tail -5 "$WORK/destroyed.out")"
grep -q "guest 2 (virtperf-$RUN-2).*it is gone" "$WORK/destroyed.out" ||
    fail "the destroyed guest should be named: $(grep -i error "$WORK/destroyed.out")"
# (a guest gone shows its console: a kernel that crashed says why there)
grep -q "virtperf-$RUN-2's console ended with:" "$WORK/destroyed.out" ||
    fail "the console of the guest gone should be shown: $(tail -5 "$WORK/destroyed.out")"
python3 - "$WORK/destroyed.json" <<'PY' || fail "the disk step's result should be kept, each guest writing its own disk"
import json, sys
write, cpu = json.load(open(sys.argv[1]))["results"]
assert write["bench"] == "disk.write" and write["status"] == "ok", write.get("error")
for h in write["ranks"]["hosts"]:
    d = h["device"]
    assert d["name"] == "sda" and d["mount"] == "/mnt/disk" and d["write_bytes"] >= 16 << 20, d
assert cpu["status"] == "failed" and "it is gone" in cpu["error"], cpu.get("error")
PY
guests_left_nothing $RUN "a destroyed guest"
# (--guest-accel auto, the default: where /dev/kvm opens, as on the cloud machines this
# runs on, a nested KVM guest never answers or QEMU refuses it (failed to set MSR), and
# the run says it fell back to TCG, and why)
interrupt_run "$WORK/int.out" "$VP" run cpu --guests 1 --ops 100m --reps 20 --label interrupted
if [ -w /dev/kvm ] && virsh -c qemu:///system capabilities | grep -q "<domain type='kvm'"; then
    grep -q "1 guest started (libvirt kvm)" "$WORK/int.out" ||
        { grep -qE "kvm did not (answer in 10 s|start \(libvirt refused the domain: .*\)): fell back to TCG" "$WORK/int.out" &&
          grep -q "1 guest started (libvirt tcg)" "$WORK/int.out"; } ||
        fail "auto should run under KVM or say it fell back: $(head -3 "$WORK/int.out")"
fi
guests_left_nothing $RUN "Ctrl-C"
# SIGKILL of a guests run: libvirt destroys its domains (autodestroy) as its connection
# closes, before any other command; the next virtperf to make a scratch directory in /tmp
# and in --guest-disk's directory reclaims the run's files there
setsid "$VP" run cpu --guests 1 --ops 100m --reps 50 --guest-accel tcg --guest-disk "$WORK/disks" \
    --guest-disk-size 64M --label killed >"$WORK/kill.out" 2>&1 &
KILLED=$!
wait_for_run "$WORK/kill.out"
kill -9 -- -$KILLED
{ wait $KILLED; killed_status=$?; } 2>/dev/null # (bash's "Killed" notice, expected)
[ $killed_status -eq 137 ] || fail "the guests run should have been killed: $(tail -3 "$WORK/kill.out")"
for _ in $(seq 1 50); do
    virsh -c qemu:///system list --all --name | grep -q "^virtperf-$KILLED-" || break
    sleep 0.2
done
"$VP" run disk.write --path /tmp --size 64k --reps 1 --db "$WORK/kill.db" >/dev/null 2>"$WORK/kill.err" ||
    fail "a run after the killed one failed: $(cat "$WORK/kill.err")"
"$VP" run disk.write --path "$WORK/disks" --size 64k --reps 1 --db "$WORK/kill.db" >/dev/null \
    2>>"$WORK/kill.err" || fail "a run after the killed one failed: $(cat "$WORK/kill.err")"
expect_contains "$WORK/kill.err" "left by a virtperf (pid $KILLED) that is gone"
guests_left_nothing $KILLED "SIGKILL"
# a hostile guest (tests/hostile/hostile_member.c booted in place of virtperf) asks for a
# lead of INT64_MAX: named, the run failed, nothing overflows (UBSan), nothing left
VIRTPERF_MEMBER_BINARY=$(dirname "$VP")/hostile_member "$VP" run null --guests 1 --reps 1 \
    --guest-accel tcg --label hostile-lead --db "$WORK/hostile.db" --json "$WORK/hostile.json" \
    >"$WORK/hostile.out" 2>&1 &
HOSTILE=$!
wait $HOSTILE
status=$?
[ $status -eq 1 ] || fail "a hostile guest's lead should fail the run (1), got $status: $(tail -3 "$WORK/hostile.out")"
python3 - "$WORK/hostile.json" "$HOSTILE" <<'PY' || fail "the hostile guest is named by the host's name for it"
import json, sys
result = json.load(open(sys.argv[1]))["results"][0]
assert result["status"] == "failed", result["status"]
want = "guest 1 (virtperf-%s-1): asked for a lead of 9223372036854775807 ns" % sys.argv[2]
assert want in result["error"], result["error"]
host = result["ranks"]["hosts"][0]["fingerprint"]
assert host["hostname"] == "virtperf-%s-1" % sys.argv[2] and host["hostname_said"] == "virtperf-1-1", host
PY
guests_left_nothing $HOSTILE "a hostile guest"
# a guest that writes escape sequences, a bell and a fake line of virtperf's to its
# console, then sends a hello of 20 MiB (1 MiB is what a hello holds; its mode appended
# to the binary, as it comes before the run's words): refused by its header, the guest
# named, its console's last lines shown printable, nothing left
VIRTPERF_MEMBER_BINARY=$(hostile_with_mode huge-hello) "$VP" run null --guests 1 --reps 1 --guest-accel tcg \
    --db "$WORK/hostile.db" >"$WORK/hello.out" 2>"$WORK/hello.err" &
HOSTILE=$!
wait $HOSTILE
status=$?
[ $status -eq 2 ] || fail "a guest's 20 MiB hello should be refused (2), got $status: $(cat -v "$WORK/hello.err")"
expect_contains "$WORK/hello.err" "virtperf: virtperf-$HOSTILE-1 did not answer with a member's hello (a hello frame of 20971520 bytes: accepted: at most 1048576)"
expect_contains "$WORK/hello.err" "virtperf: virtperf-$HOSTILE-1's console ended with:"
grep -qxF '  ?[2J?]0;owned?hostile console' "$WORK/hello.err" ||
    fail "the guest's console should be shown made printable: $(cat -v "$WORK/hello.err")"
! grep -qP '[\x00-\x08\x0b-\x1f\x7f]' "$WORK/hello.err" ||
    fail "a control byte of the guest's console reached the terminal: $(cat -v "$WORK/hello.err")"
! grep -q '^virtperf: all results stored ok' "$WORK/hello.err" ||
    fail "the guest's fake line was shown as one of virtperf's"
guests_left_nothing $HOSTILE "a guest's 20 MiB hello"
finish
