#!/bin/bash
# run --guests with emulated devices, beside paravirtual ones in one run (--group): a
# TCG guest with --guest-nic e1000 and --guest-disk-bus sata (Debian's generic kernel,
# which drives them; the cloud kernel has neither driver) and one with virtio's (the
# cloud kernel), on a bridge the test made, started together: net.stream into this
# host's server and a disk write on each guest's disk both run; each group's result keeps
# its NIC model, disk bus and kernel, and its one guest; the emulated guest's fingerprint
# names the drivers its kernel bound (e1000, ahci) and the domain XML the models;
# `virtperf compare RUN` gives the emulated NIC's penalty against virtio's with its
# interval; `virtperf report` gives the emulated-NIC advisory from inside the guest,
# named after it. Refusals come before any guest starts.
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
guests_left_nothing '[0-9]*' "a refusal"

# a group's words refused before any guest starts
expect_status 2 "$VP" run cpu --group pv:guests=1 --group emu:guests=1,guest-nic=ne2k
expect_contains "$WORK/err" "--group emu: --guest-nic: 'ne2k' is not valid"
expect_status 2 "$VP" run cpu --group pv:guests=1 --group emu:guests=1,guest-nic=e1000 --guest-accel tcg
expect_contains "$WORK/err" "--group emu: --guest-nic: the guests have a NIC on --guest-net BRIDGE only"
guests_left_nothing '[0-9]*' "a refusal"

# both groups at once: the paravirtual guest is virtperf-PID-1, the emulated one -2
expect_status 0 "$VP" run net.stream disk.write --guest-accel tcg --guest-net "$BRIDGE" \
    --guest-disk "$WORK/disks" --guest-disk-size 96M --group pv:guests=1 \
    --group emu:guests=1,guest-nic=e1000,guest-disk-bus=sata --size 8m --duration 1s --reps 5 \
    --warmup 0 --label nics --json "$WORK/nics.json" --db "$WORK/db"
expect_contains "$WORK/err" "virtperf: emu: 1 guest started (libvirt"
python3 - "$WORK/nics.json" <<'PY' || fail "--group pv and --group emu: each group's result should have passed traffic and written through its own devices, said so"
import json, sys
doc = json.load(open(sys.argv[1]))
results = {(r["bench"], r["side"]["name"]): r for r in doc["results"]}
assert len(doc["results"]) == 4 and len(results) == 4, sorted(results)
for bench in ("net.stream", "disk.write"):
    for side, nic, bus, driver, controller in (("pv", "virtio", "virtio", "virtio_net", "virtio_blk"),
                                               ("emu", "e1000", "sata", "e1000", "ahci")):
        r = results[(bench, side)]
        assert r["status"] == "ok", (bench, side, r.get("error"))
        assert r["side"]["members"] == "guests" and r["metrics"]["throughput"]["mean"] > 0, r["side"]
        settings = r["guests"]["settings"]
        assert settings["nic"] == nic and settings["disk_bus"] == bus, settings
        assert ("-cloud-" in settings["kernel"]) == (side == "pv"), settings
        assert r["ranks"]["count"] == 1 and len(r["guests"]["hosts"]) == 1, r["ranks"]
        guest = r["ranks"]["hosts"][0]["fingerprint"]
        assert guest["hostname"].endswith("-1" if side == "pv" else "-2"), guest["hostname"]
        drivers = {n["name"]: n["driver"] for n in guest["nics"]}
        assert drivers.get("eth0") == driver, drivers
        if side == "emu":
            assert any(d.get("controller") == controller for d in guest["disks"]), guest["disks"]
            xml = guest["domain"]["xml"]
            assert "<model type='e1000'/>" in xml and "bus='sata'" in xml, xml
PY
guests_left_nothing '[0-9]*' "the groups' run"
# compare RUN: the emulated NIC's guest against the paravirtual one's, with an interval
expect_status 0 "$VP" compare nics --json "$WORK/cmp.json" --db "$WORK/db"
expect_contains "$WORK/out" "nics (emu)"
json_check "$WORK/cmp.json" '(lambda c: c["ratio"] < 1 and c["ci"][1] < 1 and c["verdict"] == "slower")([r for r in d["rows"] if r["bench"] == "net.stream"][0]["candidates"][0])' \
    "compare nics: the emulated NIC's net.stream should be slower than virtio's, its interval below 1"
expect_status 0 "$VP" report nics -o "$WORK/report.html" --db "$WORK/db"
grep -q "virtperf-[0-9]*-2: NIC eth0 uses the emulated e1000 driver" "$WORK/report.html" ||
    fail "the report should give the emulated-NIC advisory from inside the emulated group's guest"
finish
