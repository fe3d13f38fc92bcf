#!/bin/bash
# run --containers --container-engine docker: the same containers through a Docker engine
# (the root directory imported once as the image virtperf-root:HASH). The test starts a
# dockerd of its own (its socket, data and state in the test's directory, no iptables, no
# bridge: the containers use the host's network), so a site's docker is never touched, and
# checks the daemon's exit at the end. Two containers at once: one result per count, each
# container's CPU from its cgroup, a net.rr between the host's server and them; nothing left
# after the run or after Ctrl-C; a daemon that does not answer is refused (exit 2).
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "dockerd needs root"
command -v dockerd >/dev/null || skip "docker is not installed (scripts/deps.sh containers)"
export VIRTPERF_CACHE="$WORK/cache" DOCKER_HOST="unix://$WORK/docker.sock"
dockerd --host "$DOCKER_HOST" --data-root "$WORK/docker" --exec-root "$WORK/exec" \
    --pidfile "$WORK/docker.pid" --iptables=false --ip6tables=false --bridge=none \
    >"$WORK/dockerd.log" 2>&1 &
DOCKERD=$!
# what dockerd leaves mounted in its directories (the default netns) goes before them
remove_work() {
    for mount in $(awk -v work="$WORK" 'index($2, work) == 1 { print $2 }' /proc/mounts | sort -r); do
        umount "$mount"
    done
    rm -rf "$WORK"
}
cleanup() {
    for name in $(docker ps -aq 2>/dev/null); do docker rm -f "$name" >/dev/null 2>&1; done
    docker network rm vp-dnet >/dev/null 2>&1 # its bridge would outlive the daemon
    kill $DOCKERD 2>/dev/null && wait $DOCKERD
    remove_work
}
trap cleanup EXIT
cd "$WORK" # the containers' work directories are made here
for _ in $(seq 1 100); do docker info >/dev/null 2>&1 && break; sleep 0.2; done
docker info >/dev/null 2>&1 || fail "dockerd did not answer: $(tail -3 "$WORK/dockerd.log")"

left_nothing() { # PID WHAT
    local names
    names=$(docker ps -a --format '{{.Names}}' | grep "^virtperf-$1-")
    [ -z "$names" ] || fail "$2: containers left: $names"
}

DOCKER_HOST="unix://$WORK/none.sock" expect_status 2 "$VP" run cpu --containers 1 --container-engine docker
expect_contains "$WORK/err" "--container-engine docker: the Docker daemon does not answer"

expect_status 0 "$VP" run cpu net.rr --containers 2 --container-engine docker --ops 20m --duration 0.3s --reps 3 --label docked --json "$WORK/docked.json"
python3 - "$WORK/docked.json" <<'PY' || fail "run --containers 2 --container-engine docker: two containers at once from the imported root"
import json, os, sys
cpu, rpc = json.load(open(sys.argv[1]))["results"]
for r in (cpu, rpc):
    assert r["status"] == "ok", r.get("error")
    assert r["guests"]["engine"] == "docker" and r["ranks"]["count"] == 2, r["guests"]
    for h in r["ranks"]["hosts"]:
        assert h["fingerprint"]["container"]["engine"] == "docker", h["fingerprint"].get("container")
    assert 0 < r["ranks"]["start_skew_bound_s"] < 0.01, r["ranks"]
for g in cpu["guests"]["hosts"]:  # each container's cgroup ran its job
    assert g["cpu_pct"] > (5 if os.environ.get("VP_SANITIZED") == "1" else 30), g
assert rpc["params"]["peer"].startswith("127.0.0.1:") and rpc["metrics"]["rate"]["mean"] > 0
PY
docker image inspect "virtperf-root:$(ls "$WORK/cache" | sed -n 's/^root-//p' | cut -c1-16)" >/dev/null 2>&1 ||
    fail "the root's image virtperf-root:HASH should be kept as a cache"
left_nothing '[0-9]*' "a finished run"

# on a network of docker's made here (198.18.13.0/24): this host's server on its gateway
docker network create --subnet 198.18.13.0/24 vp-dnet >/dev/null || fail "docker network create failed"
expect_status 0 "$VP" run net.rr --containers 1 --container-engine docker --container-net vp-dnet --duration 0.3s --reps 2 --label docked-net --json "$WORK/net.json"
python3 - "$WORK/net.json" <<'PY' || fail "--container-engine docker --container-net NETWORK: the server on the network's gateway"
import json, sys
(r,) = json.load(open(sys.argv[1]))["results"]
assert r["status"] == "ok" and r["params"]["peer"].startswith("198.18.13.1:"), (r.get("error"), r["params"])
assert r["ranks"]["hosts"][0]["peer"]["local_address"].startswith("198.18.13."), r["ranks"]["hosts"][0]["peer"]
PY
left_nothing '[0-9]*' "a run on a network"
docker network rm vp-dnet >/dev/null || fail "docker network rm vp-dnet failed"

interrupt_run "$WORK/int.out" "$VP" run cpu --containers 2 --container-engine docker --ops 200m --reps 20 \
    --label interrupted
left_nothing $RUN "Ctrl-C"

kill $DOCKERD
wait $DOCKERD
status=$?
[ $status -eq 0 ] || fail "dockerd should stop cleanly on SIGTERM, exited $status: $(tail -3 "$WORK/dockerd.log")"
trap remove_work EXIT
finish
