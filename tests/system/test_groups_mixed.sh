#!/bin/bash
# run --group with groups of two kinds at once: a TCG guest and a podman container
# writing one filesystem together (the guest's disk image and the container's /work both
# in --guest-disk's DIR), as the CNAF 2007 study ran its Xen and VMware guests beside
# each other onto one store: one result per group, each its own kind's, its side the
# group's name, what its members cost the host its own; `virtperf results show` says each
# group. Nothing of either kind is left.
. "$(dirname "$0")/lib.sh"
use_libvirt
command -v podman >/dev/null || skip "podman is not installed (scripts/deps.sh containers)"
cleanup() {
    stop_libvirt
    remove_ended_containers
    rm -rf "$WORK"
}
trap cleanup EXIT
export VIRTPERF_CACHE="$WORK/cache"
chmod 755 "$WORK"
mkdir -p "$WORK/store"

expect_status 0 "$VP" run disk.write --size 8m --reps 2 --warmup 0 --guest-accel tcg \
    --guest-disk "$WORK/store" --guest-disk-size 64M --group vms:guests=1 \
    --group boxes:containers=1 --label mixed --json "$WORK/mixed.json"
expect_contains "$WORK/err" "virtperf: vms: 1 guest started (libvirt"
expect_contains "$WORK/err" "virtperf: boxes: 1 container started (podman"
python3 - "$WORK/mixed.json" <<'PY' || fail "a guest group and a container group: one result each, of its own kind, both written"
import json, sys
results = json.load(open(sys.argv[1]))["results"]
sides = {r["side"]["name"]: r for r in results}
assert len(results) == 2 and sorted(sides) == ["boxes", "vms"], [r.get("side") for r in results]
for name, members, engine, suffix in (("vms", "guests", "libvirt", "-1"), ("boxes", "containers", "podman", "-2")):
    r = sides[name]
    assert r["status"] == "ok", (name, r.get("error"))
    assert r["side"]["members"] == members and r["guests"]["engine"] == engine, (r["side"], r["guests"]["engine"])
    assert r["ranks"]["count"] == 1 and r["ranks"]["hosts"][0]["host"].endswith(suffix), r["ranks"]["hosts"][0]["host"]
    assert [h["name"] for h in r["guests"]["hosts"]] == [r["ranks"]["hosts"][0]["host"]], r["guests"]["hosts"]
    assert r["metrics"]["throughput"]["mean"] > 0
PY
expect_status 0 "$VP" results show mixed
expect_contains "$WORK/out" "side: group vms, its guests started with the run's other groups'"
expect_contains "$WORK/out" "side: group boxes, its containers started with the run's other groups'"
guests_left_nothing '[0-9]*' "the mixed groups' run"
for name in $(podman ps -a --format '{{.Names}}' | grep '^virtperf-'); do
    run_ended "$name" && fail "the mixed groups' run left its container $name"
done
finish
