#!/bin/bash
# run --guests: guests virtperf starts itself through libvirt (TCG here), one run over
# 1..2 guests: one result per count, each guest under ranks.hosts with its own boot id and
# the domain libvirt ran, the start skew across guests with its bound, the host's own
# monitor per count (two busy TCG guests load this 2-CPU host about twice as much as one)
# and each guest's QEMU vCPU threads. Bad input is refused before a guest starts; nothing
# of a run is left (test_guests_faults.sh: a guest destroyed mid-run, Ctrl-C).
. "$(dirname "$0")/lib.sh"
use_libvirt
cleanup() {
    stop_libvirt
    ip link del "vpbr$$" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
export VIRTPERF_CACHE="$WORK/cache"
# the image made, then refused: libvirt's QEMU user could not read it through $WORK (0700)
expect_status 2 "$VP" run cpu --guests 1 --guest-accel tcg
expect_contains "$WORK/err" "--guests: libvirt's QEMU user cannot reach the guests' image"
chmod 755 "$WORK"


# refused before anything starts: exit 2, one line naming the flag and what is accepted
expect_status 2 "$VP" run cpu --guests 0
expect_contains "$WORK/err" "--guests: '0' is not valid; accepted: a count"
expect_status 2 "$VP" run cpu --guests 1 --guest-accel bogus
expect_contains "$WORK/err" "--guest-accel: 'bogus' is not valid; accepted: auto, kvm or tcg"
expect_status 2 "$VP" run cpu --guests 1 --guest-net vp-nosuch$$
expect_contains "$WORK/err" "--guest-net: 'vp-nosuch$$' is not a bridge on this host"
mkdir -p "$WORK/disks"
expect_status 2 "$VP" run cpu --guests 2 --guest-disk "$WORK/disks" --guest-disk-size 100000G
expect_contains "$WORK/err" "--guest-disk: $WORK/disks has"
expect_status 2 "$VP" run net.rr --guests 1 --guest-accel tcg
expect_contains "$WORK/err" "--guests: a net benchmark talks to a server on this host, which guests reach only through a NIC; accepted: --guest-net BRIDGE"
expect_status 2 "$VP" run cpu --guests 1 --reps auto
expect_contains "$WORK/err" "--reps auto: not with --guests"
# a guest whose init could not set up what it was asked refuses the steps with its own
# words: exit 2, nothing stored, nothing left (--guest-mount of an NFS server at this
# host's address on the bridge, where none serves; a step a member cannot run is refused
# the same way: test_containers.sh)
BRIDGE=vpbr$$
test_bridge "$BRIDGE"
expect_status 2 "$VP" run cpu --guests 1 --guest-accel tcg --guest-net "$BRIDGE" \
    --guest-mount "nfs://$SUBNET.1/srv/none:/mnt/store" --reps 1 --db "$WORK/refused.db"
expect_contains "$WORK/err" "in guest virtperf-"
expect_contains "$WORK/err" "--guest-mount: mount -t nfs -o vers=3,nolock,proto=tcp,mountproto=tcp $SUBNET.1:/srv/none /mnt/store failed in the guest: mount: "
[ ! -e "$WORK/refused.db" ] || [ "$(store_count "$WORK/refused.db" results)" -eq 0 ] ||
    fail "a refused mount stored results"
guests_left_nothing '[0-9]*' "a refusal"

# One run, 1 then 2 guests, each its own kernel: a computation, and SPring-8 2005's RPC
# from the guests to a server on this host over a bridge the test made (no NIC of it
# faces the outside), each guest its own address. Meanwhile the first guest's QEMU's
# own Pss (/proc/PID/smaps_rollup) is sampled: the result's figure, taken at the last
# point's end, is the last sample's within 10%.
"$VP" run cpu net.rr --ops 20m --size 350 --duration 500ms --guests 1..2 \
    --guest-net "$BRIDGE" --guest-accel tcg --reps 3 --label two --json "$WORK/two.json" \
    >"$WORK/out" 2>"$WORK/err" &
RUN=$!
pss_kb=0
while kill -0 $RUN 2>/dev/null; do
    qemu=$(pgrep -f "guest=virtperf-$RUN-1," | head -1)
    sample=$([ -n "$qemu" ] && awk '/^Pss:/ {print $2}' "/proc/$qemu/smaps_rollup" 2>/dev/null)
    [ -n "$sample" ] && pss_kb=$sample
    sleep 0.2
done
wait $RUN || fail "run --guests 1..2 failed: $(tail -3 "$WORK/err")"
ip link del "$BRIDGE"
expect_contains "$WORK/out" "ranks=2"
expect_contains "$WORK/out" "MiB over its RAM"
expect_contains "$WORK/out" "(p50),"
python3 - "$WORK/two.json" "$pss_kb" <<'PY' || fail "run --guests 1..2: each guest's QEMU memory beyond its RAM, its Pss that of its smaps_rollup"
import json, sys
last = json.load(open(sys.argv[1]))["results"][-1]
sampled = int(sys.argv[2]) * 1024
first = last["guests"]["hosts"][0]
for g in last["guests"]["hosts"]:
    # the guest's RAM (512 MiB, touched in part) is found, and QEMU holds more beyond it
    assert 0 < g["guest_ram_pss_bytes"] < g["qemu_pss_bytes"] <= g["qemu_rss_bytes"], g
    assert g["qemu_overhead_pss_bytes"] == g["qemu_pss_bytes"] - g["guest_ram_pss_bytes"], g
    assert (1 << 20) < g["qemu_overhead_pss_bytes"] < (4 << 30), g
# their times from start to ready, summed up
ready = sorted(g["ready_s"] for g in last["guests"]["hosts"])
assert ready[0] <= last["guests"]["ready_p50_s"] <= last["guests"]["ready_p95_s"] <= ready[-1], last["guests"]
print("  guest 1: QEMU Pss %.0f MiB, %.0f MiB beyond its RAM; smaps_rollup %.0f MiB" % (
    first["qemu_pss_bytes"] / 2**20, first["qemu_overhead_pss_bytes"] / 2**20, sampled / 2**20), file=sys.stderr)
assert abs(first["qemu_pss_bytes"] - sampled) <= 0.1 * sampled, (first["qemu_pss_bytes"], sampled)
PY
python3 - "$WORK/two.json" <<'PY' || fail "run --guests 1..2: the results should be one per count, per guest, started together, with the host's monitor"
import json, sys
results = json.load(open(sys.argv[1]))["results"]
assert [(r["bench"], r["ranks"]["count"]) for r in results] == \
    [("cpu", 1), ("net.rr", 1), ("cpu", 2), ("net.rr", 2)], [r.get("ranks") for r in results]
for r in results:
    assert r["status"] == "ok", r.get("error")
    hosts = r["ranks"]["hosts"]
    assert all(h["host"].startswith("virtperf-") for h in hosts), hosts
    assert all(h["fingerprint"]["domain"]["type"] == "tcg" for h in hosts)
    assert all("<domain type='qemu'" in h["fingerprint"]["domain"]["xml"] for h in hosts)
    # each guest has libvirt's virtio-rng: its kernel's random numbers are ready at once
    assert all(h["fingerprint"].get("hwrng") == "virtio_rng.0" for h in hosts), hosts
    assert r["guests"]["accel"] == "tcg" and r["guests"]["count"] == len(hosts)
    for g in r["guests"]["hosts"]:  # each guest's vCPU thread ran its job
        assert g["qemu_vcpu_cpu_pct"] > 30, g
one, rpc_one, two, rpc_two = results
ids = {h["fingerprint"]["boot_id"] for h in two["ranks"]["hosts"]}
assert len(ids) == 2, ids
assert len({h["machine"] for h in two["ranks"]["hosts"]}) == 2
# started together: the skew is measured and bounded by the clocks' offsets
bound = two["ranks"]["start_skew_bound_s"]
assert 0 < bound < 0.01, bound
assert two["start_skew_s"] < 0.05, two["start_skew_s"]
assert 0 < two["first_done_s"] < 10, two["first_done_s"]  # on the host's clock, not a guest's
# the hypervisor's view: two busy TCG guests take about twice the host CPU of one
busy1 = one["monitor"]["summary"]["cpu.busy"]["mean"]
busy2 = two["monitor"]["summary"]["cpu.busy"]["mean"]
assert busy2 > 1.4 * busy1, (busy1, busy2)
# the round trips went to this host's server, from each guest's own address on the bridge
for r in (rpc_one, rpc_two):
    assert r["params"]["peer"].startswith("198.18.") and r["params"]["size"] == 350, r["params"]
    for h in r["ranks"]["hosts"]:
        assert h["metrics"]["latency"]["mean"] > 0 and h["peer"]["interface"] == "eth0", h.get("peer")
assert len({h["peer"]["local_address"] for h in rpc_two["ranks"]["hosts"]}) == 2
# the hypervisor's network: the host's monitor counts its NIC and the guests' ports, never
# the bridge that repeats them, and its input is the guests' requests (350 bytes each plus
# their headers: 1.08 to 1.15 of the payload here), not nothing and not twice
for r in (rpc_one, rpc_two):
    nics, summary = r["monitor"]["nics"], r["monitor"]["summary"]
    counted = {kind for n in nics.values() if n["counted"] for kind in [n["kind"]]}
    assert counted == {"physical", "port"}, nics
    assert all(not n["counted"] for n in nics.values() if n["kind"] == "bridge"), nics
    payload = sum(h["metrics"]["rate"]["mean"] for h in r["ranks"]["hosts"]) * 350
    received = summary["network.rx"]["mean"]
    print("  %d guests: host network in %.2f x the requests' payload" % (
        r["ranks"]["count"], received / payload), file=sys.stderr)
    assert 0.9 <= received / payload <= 1.5, (received, payload, nics)
PY
guests_left_nothing '[0-9]*' "a finished run"
expect_status 0 "$VP" scaling two
expect_contains "$WORK/out" "guests"
expect_contains "$WORK/out" "mem/member"
# SPring-8 2005's NIC load against the VM count: the host's, at every count
expect_status 0 "$VP" scaling two --json "$WORK/scaling.json"
json_check "$WORK/scaling.json" 'all(p["nic_rate"] > 1e5 for g in d["groups"] if g["bench"] == "net.rr" for p in g["points"])' \
    "scaling: the host's NIC load should count the guests' traffic at every count"
# and what each guest held of the host's memory (its QEMU's Pss: its RAM touched and the
# rest), and how soon the guests were ready, at every count
json_check "$WORK/scaling.json" 'all(p["member_memory_bytes"] > (64 << 20) and p["ready_p50_s"] > 0 for g in d["groups"] for p in g["points"])' \
    "scaling: each count should say what a guest held of the host's memory and when the guests were ready"

# A known cost injected through libvirt: guest 1's vCPU capped at 40% of a host CPU
# (the vCPUs pinned, compact)
# (<cputune> quota), shown as its QEMU vCPU's CPU within 10% of the cap while guest 2 runs
# unlimited; and a disk step, each guest writing its own virtio ext4 image made in $WORK/disks.
expect_status 0 "$VP" run cpu disk.write --ops 10m --size 8m --reps 3 --guests 2 \
    --guest-cpu-cap 40@1 --guest-pin compact --guest-disk "$WORK/disks" --guest-disk-size 96M --guest-accel tcg \
    --label capped --json "$WORK/capped.json"
python3 - "$WORK/capped.json" <<'PY' || fail "--guest-cpu-cap 40@1: guest 1 alone at 40% of a CPU; each guest on its own disk"
import json, sys
cpu, write = json.load(open(sys.argv[1]))["results"]
assert cpu["status"] == "ok" and write["status"] == "ok", (cpu.get("error"), write.get("error"))
capped, free = cpu["guests"]["hosts"]
print("  guest 1 capped at 40%%: its vCPU %.1f%%" % capped["qemu_vcpu_cpu_pct"], file=sys.stderr)
assert abs(capped["qemu_vcpu_cpu_pct"] - 40) / 40 < 0.1, capped
# The other guest is not held to the cap: its score is well above the capped one's (2.5x
# to 2.7x in most runs; its CPU is shared with QEMU's unpinned threads and the host's, and
# was seen as low as 1.5x, so the bound is 1.25x). Its vCPU's CPU share says nothing
# here: the work is fixed (--ops), so it finishes early and waits for the capped guest.
one, two = (h["metrics"]["score"]["mean"] for h in cpu["ranks"]["hosts"])
assert two > 1.25 * one, (one, two, free)
assert "<quota>40000</quota>" in cpu["ranks"]["hosts"][0]["fingerprint"]["domain"]["xml"]
assert "<quota>" not in cpu["ranks"]["hosts"][1]["fingerprint"]["domain"]["xml"]
for h in cpu["ranks"]["hosts"]:  # --guest-pin compact: each vCPU on a host CPU
    assert "<vcpupin vcpu='0' cpuset='" in h["fingerprint"]["domain"]["xml"], h["host"]
# every setting the guests ran with is kept beside the result
want = {"cpus": 1, "memory_mib": 512, "pin": "compact", "cpu_cap_pct": 40, "cpu_cap_guest": 1,
        "disk_bus": "virtio", "disk_mib": 96}
kernel = cpu["guests"]["settings"].pop("kernel")  # the cloud kernel: no emulated device
assert kernel.startswith("/boot/vmlinuz-") and kernel.endswith("-cloud-amd64"), kernel
assert cpu["guests"]["settings"] == want, cpu["guests"]["settings"]
for h in write["ranks"]["hosts"]:
    d = h["device"]
    assert d["name"] == "vda" and d["fstype"] == "ext4" and d["mount"] == "/mnt/disk", d
    assert d["write_bytes"] >= 8 << 20, d
PY
guests_left_nothing '[0-9]*' "a run with disks"
expect_status 0 "$VP" results show capped
expect_contains "$WORK/out" "guests' settings: 1 vCPU, 512 MiB, pinned compact, vCPUs capped at 40% (guest 1 alone), a 96 MiB disk on virtio"

# Both sides in one run (--and-host), the IHEP 2010 study's table: 2 jobs on this host
# against one job in each of 2 guests, writing to the same storage ($WORK/disks: the
# host's jobs work there, each guest's image is made there), their repetitions
# alternating host, guests, host, guests; `compare RUN` pairs the two sides by total jobs.
expect_status 2 "$VP" run cpu --and-host
expect_contains "$WORK/err" "--and-host: only beside the guests or containers of a run"
expect_status 2 "$VP" run net.rr --guests 1 --and-host --guest-accel tcg
expect_contains "$WORK/err" "--guests: a net benchmark talks to a server on this host, which guests reach only through a NIC"
expect_status 0 "$VP" run disk.write --size 4m --reps 2 --warmup 1 --guests 2 --and-host \
    --guest-disk "$WORK/disks" --guest-disk-size 64M --guest-accel tcg --label ihep --json "$WORK/ihep.json"
python3 - "$WORK/ihep.json" "$WORK/disks" <<'PY' || fail "--and-host: the host's 2 jobs and 2 guests' one each, ok, repetitions alternating, the host's on the guests' storage"
import json, os, sys
results = json.load(open(sys.argv[1]))["results"]
assert [r["side"]["name"] for r in results] == ["host", "guests"], [r.get("side") for r in results]
host, guests = results
assert host["status"] == "ok" and guests["status"] == "ok", (host.get("error"), guests.get("error"))
assert host["jobs"] == 2 and "ranks" not in host, host["jobs"]
assert guests["ranks"]["count"] == 2 and all(h["jobs"] == 1 for h in guests["ranks"]["hosts"])
# warm-up and 2 measured repetitions each, host first, never both sides at once
h, g = host["side"]["starts_s"], guests["side"]["starts_s"]
assert len(h) == 3 and len(g) == 3, (h, g)
assert h[0] == 0 and h[0] < g[0] < h[1] < g[1] < h[2] < g[2], (h, g)
# the host's jobs wrote on the filesystem that holds the guests' images
assert host["device"]["mount"] == os.popen("stat -c %m " + sys.argv[2]).read().strip(), host["device"]
PY
expect_status 0 "$VP" results show ihep
expect_contains "$WORK/out" "side: this host's own jobs, repetitions alternating with the guests'"
expect_status 0 "$VP" compare ihep --json "$WORK/sides.json"
expect_contains "$WORK/out" "ihep (host)"
expect_contains "$WORK/out" "ihep (guests)"
json_check "$WORK/sides.json" 'any(c.get("paired", "").startswith("paired by total jobs: 2 jobs on 1 host / 1 job on each of 2 hosts") for r in d["rows"] for c in r["candidates"])' \
    "compare RUN should pair the host's 2 jobs with the 2 guests' one each"
expect_status 2 "$VP" compare capped
expect_contains "$WORK/err" "compare: capped is one run without sides"
guests_left_nothing '[0-9]*' "a run of both sides"

finish
