#!/bin/bash
# run --containers: containers virtperf starts itself through podman from a root directory
# of this virtperf (no registry), one run over 1..2 containers: one result per count, each
# container under ranks.hosts on the one kernel they share (the same machine), started
# together, each container's CPU from its cgroup. Bad input is refused before one starts;
# Ctrl-C stops the run (exit 130) and no container or socket is left.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "podman's containers here need root"
command -v podman >/dev/null || skip "podman is not installed (scripts/deps.sh containers)"
export VIRTPERF_CACHE="$WORK/cache"
cleanup() {
    for name in $(podman ps -a --format '{{.Names}}' 2>/dev/null | grep '^virtperf-'); do
        podman rm -f "$name" >/dev/null 2>&1
    done
    rm -rf "$WORK"
}
trap cleanup EXIT

left_nothing() { # PID WHAT
    local names
    names=$(podman ps -a --format '{{.Names}}' | grep "^virtperf-$1-")
    [ -z "$names" ] || fail "$2: containers left: $names"
    ! ls /tmp/virtperf-containers.* 2>/dev/null | grep -q "virtperf-$1-" ||
        fail "$2: sockets of the run left in /tmp/virtperf-containers.*"
}

expect_status 2 "$VP" run cpu --containers 1 --container-engine docker
expect_contains "$WORK/err" "--container-engine docker: not yet"
expect_status 2 "$VP" run cpu --containers 1 --guests 1
expect_contains "$WORK/err" "--guests and --containers: one of them"
expect_status 2 "$VP" run cpu --containers 1..99
expect_contains "$WORK/err" "--containers: '1..99' is not valid"

expect_status 0 "$VP" run cpu --containers 1..2 --ops 20m --reps 3 --label boxes --json "$WORK/boxes.json"
python3 - "$WORK/boxes.json" <<'PY' || fail "run --containers 1..2: one result per count, per container, on one kernel"
import json, sys
results = json.load(open(sys.argv[1]))["results"]
assert [r["ranks"]["count"] for r in results] == [1, 2], [r.get("ranks") for r in results]
two = results[1]
for r in results:
    assert r["status"] == "ok", r.get("error")
    assert r["guests"]["engine"] == "podman"
    for h in r["ranks"]["hosts"]:
        assert h["host"].startswith("virtperf-") and h["fingerprint"]["container"]["engine"] == "podman", h["host"]
    for g in r["guests"]["hosts"]:  # each container's cgroup ran its job
        assert g["cpu_pct"] > 30, g
hosts = two["ranks"]["hosts"]
assert hosts[0]["fingerprint"]["boot_id"] == hosts[1]["fingerprint"]["boot_id"]
assert hosts[1]["machine"] == hosts[0]["rank"], [h["machine"] for h in hosts]  # one machine
assert 0 < two["ranks"]["start_skew_bound_s"] < 0.01, two["ranks"]
PY
left_nothing '[0-9]*' "a finished run"

"$VP" run cpu --containers 2 --ops 200m --reps 20 --label interrupted >"$WORK/int.out" 2>&1 &
RUN=$!
for _ in $(seq 1 300); do grep -q '^run [0-9]' "$WORK/int.out" && break; sleep 0.1; done
sleep 1
kill -INT $RUN
wait $RUN
status=$?
[ $status -eq 130 ] || fail "Ctrl-C should exit 130, got $status: $(tail -5 "$WORK/int.out")"
left_nothing $RUN "Ctrl-C"
finish
