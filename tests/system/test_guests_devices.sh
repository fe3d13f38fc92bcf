#!/bin/bash
# run --guests with emulated devices: --guest-nic e1000 and --guest-disk-bus sata in one
# TCG guest (Debian's generic kernel, which drives them; the cloud kernel has neither
# driver), on a bridge the test made: net.stream into this host's server and a disk
# write on the guest's disk both run; the result keeps the NIC model, the disk bus and
# the kernel booted; the guest's fingerprint names the drivers its kernel bound (e1000,
# ahci) and the domain XML the models; `virtperf report` gives the emulated-NIC advisory
# from inside the guest, named after it. Refusals come before any guest starts.
. "$(dirname "$0")/lib.sh"
use_libvirt
ls /boot/vmlinuz-*-amd64 2>/dev/null | grep -qv -- -cloud- ||
    skip "Debian's generic kernel is not installed (scripts/deps.sh guests)"
BRIDGE=vptd$$
cleanup() {
    stop_libvirt
    ip link del "$BRIDGE" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
export VIRTPERF_CACHE="$WORK/cache"
chmod 755 "$WORK"
test_bridge "$BRIDGE"
mkdir -p "$WORK/disks"

# refused before anything starts, each naming what is accepted
expect_status 2 "$VP" run cpu --guests 1 --guest-nic ne2k
expect_contains "$WORK/err" "--guest-nic: 'ne2k' is not valid; accepted: virtio, e1000, e1000e or rtl8139"
expect_status 2 "$VP" run cpu --guests 1 --guest-disk-bus floppy
expect_contains "$WORK/err" "--guest-disk-bus: 'floppy' is not valid; accepted: virtio, ide, sata or scsi"
expect_status 2 "$VP" run cpu --guests 1 --guest-accel tcg --guest-nic e1000
expect_contains "$WORK/err" "--guest-nic: the guests have a NIC on --guest-net BRIDGE only"
expect_status 2 "$VP" run cpu --guests 1 --guest-accel tcg --guest-disk-bus sata
expect_contains "$WORK/err" "--guest-disk-bus: the guests have a disk with --guest-disk DIR only"
expect_status 2 "$VP" run cpu --containers 1 --guest-nic e1000
expect_contains "$WORK/err" "--guest-nic"
virsh -c qemu:///system list --name | grep -q '^virtperf-' && fail "a refusal started a guest"

expect_status 0 "$VP" run net.stream disk.write --guests 1 --guest-accel tcg --guest-net "$BRIDGE" \
    --guest-nic e1000 --guest-disk "$WORK/disks" --guest-disk-bus sata --guest-disk-size 96M \
    --size 8m --duration 1s --reps 1 --warmup 0 --label emulated --json "$WORK/emulated.json" \
    --db "$WORK/db"
python3 - "$WORK/emulated.json" <<'PY' || fail "--guest-nic e1000 --guest-disk-bus sata: the run should have passed traffic and written through the emulated devices, said so"
import json, sys
doc = json.load(open(sys.argv[1]))
results = {r["bench"]: r for r in doc["results"]}
for bench in ("net.stream", "disk.write"):
    r = results[bench]
    assert r["status"] == "ok", (bench, r.get("error"))
    settings = r["guests"]["settings"]
    assert settings["nic"] == "e1000" and settings["disk_bus"] == "sata", settings
    assert "-cloud-" not in settings["kernel"] and settings["kernel"].startswith("/boot/vmlinuz-"), settings
    guest = r["ranks"]["hosts"][0]["fingerprint"]
    drivers = {n["name"]: n["driver"] for n in guest["nics"]}
    assert drivers.get("eth0") == "e1000", drivers
    assert any(d.get("controller") == "ahci" for d in guest["disks"]), guest["disks"]
    xml = guest["domain"]["xml"]
    assert "<model type='e1000'/>" in xml and "bus='sata'" in xml, xml
assert results["net.stream"]["metrics"]["throughput"]["mean"] > 0
assert results["disk.write"]["metrics"]["throughput"]["mean"] > 0
PY
guests_left_nothing '[0-9]*' "the emulated devices' run"
expect_status 0 "$VP" report emulated -o "$WORK/report.html" --db "$WORK/db"
grep -q "virtperf-[0-9]*-1: NIC eth0 uses the emulated e1000 driver" "$WORK/report.html" ||
    fail "the report should give the emulated-NIC advisory from inside the guest"
finish
