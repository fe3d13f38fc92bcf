#!/bin/bash
# run --containers: containers virtperf starts itself through podman from a root directory
# of this virtperf (no registry), one run over 1..2 containers: one result per count, each
# container under ranks.hosts on the one kernel they share (the same machine), started
# together, each container's CPU from its cgroup; a --topology between this host and a
# container (a matrix with an external server too); a network of podman's (the server on its gateway). Bad input is refused
# before one starts; Ctrl-C stops the run (exit 130) and no container or socket is left.
# Runs under the sanitizers (the fleet's code and the agent in each container are the
# sanitized build's).
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "podman's containers here need root"
command -v podman >/dev/null || skip "podman is not installed (scripts/deps.sh containers)"
export VIRTPERF_CACHE="$WORK/cache"
cleanup() {
    remove_ended_containers
    podman network rm "vp-net-$$" >/dev/null 2>&1
    [ -n "${EXT:-}" ] && kill "$EXT" 2>/dev/null
    rm -rf "$WORK" "${KEYS:-}"
}
trap cleanup EXIT
cd "$WORK" # the containers' work directories are made here

# whether the run that named NAME (virtperf-PID-N...) is over: another test's run may be
# going on beside this one
run_over() { local pid=${1#virtperf-}; ! kill -0 "${pid%%-*}" 2>/dev/null; }
left_nothing() { # PID WHAT: nothing of run PID ('[0-9]*': of any run that is over) left
    local name left=""
    for name in $(podman ps -a --format '{{.Names}}' | grep "^virtperf-$1-"); do
        run_over "$name" && left="$left $name"
    done
    [ -z "$left" ] || fail "$2: containers left:$left"
    for name in $(ls /tmp/virtperf-containers-* 2>/dev/null | grep "^virtperf-$1-"); do
        run_over "$name" && fail "$2: a channel of the run left in /tmp/virtperf-containers-*: $name"
    done
    ! ls -d virtperf-box-* 2>/dev/null | grep -q . || fail "$2: work directories left: $(ls -d virtperf-box-*)"
}

expect_status 2 "$VP" run cpu --containers 1 --guests 1
expect_contains "$WORK/err" "--guests and --containers: one of them"
expect_status 2 "$VP" run cpu --containers 1..99
expect_contains "$WORK/err" "--containers: '1..99' is not valid"

expect_status 0 "$VP" run cpu --containers 1..2 --ops 20m --reps 3 --label boxes --json "$WORK/boxes.json"
python3 - "$WORK/boxes.json" <<'PY' || fail "run --containers 1..2: one result per count, per container, on one kernel"
import json, os, sys
results = json.load(open(sys.argv[1]))["results"]
assert [r["ranks"]["count"] for r in results] == [1, 2], [r.get("ranks") for r in results]
# a busy job's cgroup: most of a CPU alone, less beside another test under the sanitizers
least_cpu = 5 if os.environ.get("VP_SANITIZED") == "1" else 30
two = results[1]
for r in results:
    assert r["status"] == "ok", r.get("error")
    assert r["guests"]["engine"] == "podman"
    for h in r["ranks"]["hosts"]:
        assert h["host"].startswith("virtperf-") and h["fingerprint"]["container"]["engine"] == "podman", h["host"]
    for g in r["guests"]["hosts"]:  # each container's cgroup ran its job
        assert g["cpu_pct"] > least_cpu, g
        # and held memory; its engine's shim (conmon) a process of its own, a few MiB
        assert 0 < g["cgroup_memory_bytes"] < (1 << 30) and 0 < g["shim_pss_bytes"] < (64 << 20), g
    assert r["guests"]["ready_p50_s"] <= r["guests"]["ready_p95_s"], r["guests"]
hosts = two["ranks"]["hosts"]
assert hosts[0]["fingerprint"]["boot_id"] == hosts[1]["fingerprint"]["boot_id"]
assert hosts[1]["machine"] == hosts[0]["rank"], [h["machine"] for h in hosts]  # one machine
assert 0 < two["ranks"]["start_skew_bound_s"] < 0.01, two["ranks"]
# one job a container, no more than this host's CPUs: nothing said of crowding
if os.cpu_count() >= 2:
    assert not any("CPUs'" in w for r in results for w in r.get("warnings", [])), results
PY
left_nothing '[0-9]*' "a finished run"
# more jobs than this host's CPUs (online, as virtperf counts them, whatever this shell's
# affinity): each result says its start skew is the CPUs'
cpus=$(getconf _NPROCESSORS_ONLN)
expect_status 0 "$VP" run null --containers 2 --jobs "$cpus" --reps 2 --json "$WORK/crowded.json"
expect_contains "$WORK/out" "$((2 * cpus)) jobs on this host's $cpus CPUs: a job waits for a CPU to start"
json_check "$WORK/crowded.json" 'any("the start skew is the CPUs\x27" in w for w in d["results"][0]["warnings"])' "a run of more jobs than CPUs"

# a disk step in a container writes to this host's disk (its /work in --guest-disk DIR),
# not to the container's memory; the directory goes with the container
mkdir "$WORK/boxdisk"
expect_status 0 "$VP" run disk.write --size 4m --reps 2 --containers 1 --guest-disk "$WORK/boxdisk" --label boxdisk --json "$WORK/boxdisk.json"
python3 - "$WORK/boxdisk.json" "$WORK/boxdisk" <<'PY' || fail "a container's disk step: on this host's disk, in --guest-disk DIR"
import json, sys
(r,) = json.load(open(sys.argv[1]))["results"]
assert r["status"] == "ok", r.get("error")
(host,) = r["ranks"]["hosts"]
assert host["fingerprint"]["container"]["work"].startswith(sys.argv[2] + "/virtperf-box-"), host["fingerprint"]["container"]
assert not any("tmpfs" in w for w in r.get("warnings", []) + host.get("warnings", [])), r.get("warnings")
PY
[ -z "$(ls "$WORK/boxdisk")" ] || fail "the container's work directory should be gone: $(ls "$WORK/boxdisk")"

# A plan's step in containers of its own; the other step on this host, the containers
# paused. --no-guests runs every step here, each container's jobs at once.
cat >"$WORK/boxes.ini" <<'INI'
[global]
reps = 2

[alone]
bench = null

[boxes]
bench = null
jobs = 2
containers = 1..2
and-host = on
INI
"$VP" run --plan "$WORK/boxes.ini" --dry-run >"$WORK/dry" || fail "--dry-run of a plan with containers"
expect_contains "$WORK/dry" "# [boxes] in containers 1..2, and on this host, alternating"
grep -qx '# \[alone\]' "$WORK/dry" || fail "--dry-run: [alone] should run on this host: $(cat "$WORK/dry")"
expect_status 0 "$VP" run --plan "$WORK/boxes.ini" --label plan-boxes --json "$WORK/plan.json"
python3 - "$WORK/plan.json" <<'PY' || fail "a plan's step in containers: [alone] here, [boxes] at 1 and 2 containers beside this host's jobs"
import json, sys
results = json.load(open(sys.argv[1]))["results"]
shape = [(r["step"], r.get("side", {}).get("name"), r["jobs"], r.get("ranks", {}).get("count"))
         for r in results]
assert shape == [("alone", None, 1, None), ("boxes", "host", 2, None), ("boxes", "guests", 2, 1),
                 ("boxes", "host", 4, None), ("boxes", "guests", 2, 2)], shape
assert all(r["status"] == "ok" for r in results), [r.get("error") for r in results]
assert "guests" not in results[0]
PY
expect_status 0 "$VP" run --plan "$WORK/boxes.ini" --no-guests --label plan-here --json "$WORK/here.json"
expect_contains "$WORK/out" "[boxes] containers = 1..2: --no-guests, run on this host as jobs = 2,4"
python3 - "$WORK/here.json" <<'PY' || fail "--no-guests: every step here, each container's jobs at once"
import json, sys
results = json.load(open(sys.argv[1]))["results"]
assert [(r["step"], r["jobs"]) for r in results] == [("alone", 1), ("boxes", 2), ("boxes", 4)], results
assert not any("ranks" in r or "guests" in r or "side" in r for r in results)
PY
# compare and report with a run of both sides anywhere: each side listed apart, its
# containers' results never dropped for its host side's; alone in a report, the verdicts
# of its containers against its host side, and each side's resource curves
expect_status 0 "$VP" compare plan-here plan-boxes --json "$WORK/both.json"
expect_contains "$WORK/out" "candidate plan-boxes (host)"
expect_contains "$WORK/out" "candidate plan-boxes (containers)"
json_check "$WORK/both.json" 'len(d["candidates"]) == 2 and len(d["rows"]) > 0 and all(len(r["candidates"]) == 2 for r in d["rows"])' \
    "compare BASE RUN: a run of both sides should be two candidates, each compared"
expect_status 0 "$VP" report plan-boxes -o "$WORK/sides.html"
expect_contains "$WORK/sides.html" "Verdicts against plan-boxes (host)"
for side in "host): null, the machine.s CPU against jobs" "containers): null, the machine.s CPU against containers"; do
    grep -q "plan-boxes ($side" "$WORK/sides.html" || fail "report of a run of both sides: no chart 'plan-boxes ($side'"
done
grep -q "null jobs=2 in 2 containers" "$WORK/sides.html" || fail "report: a monitor title should name the count of containers"
# a plan's net step in containers talks to the run's server (named by --set STEP.peer)
printf '[global]\nreps = 1\n[rpc]\nbench = net.rr\nduration = 0.3s\ncontainers = 1\n' >"$WORK/rpc.ini"
expect_status 0 "$VP" run --plan "$WORK/rpc.ini" --label plan-rpc --json "$WORK/rpc.json"
json_check "$WORK/rpc.json" 'd["results"][0]["status"] == "ok" and d["results"][0]["ranks"]["count"] == 1 and d["results"][0]["metrics"]["rate"]["mean"] > 0 and d["results"][0]["params"]["peer"].startswith("127.0.0.1:")' \
    "a plan's net.rr step in a container"
# --and-host with a net benchmark: this host's jobs to the run's server too, alternating
expect_status 0 "$VP" run net.rr --duration 0.3s --reps 2 --containers 1 --and-host --label net-sides --json "$WORK/sides.json"
python3 - "$WORK/sides.json" <<'PY' || fail "--and-host net.rr: both sides to the run's one server, the same params"
import json, sys
host, boxes = json.load(open(sys.argv[1]))["results"]
assert (host["side"]["name"], boxes["side"]["name"]) == ("host", "guests")
assert host["side"]["members"] == boxes["side"]["members"] == "containers", host["side"]
assert host["status"] == boxes["status"] == "ok", (host.get("error"), boxes.get("error"))
assert host["params"] == boxes["params"] and host["params"]["peer"].startswith("127.0.0.1:"), host["params"]
assert host["metrics"]["rate"]["mean"] > 0 and boxes["metrics"]["rate"]["mean"] > 0
PY
expect_status 0 "$VP" results show net-sides
expect_contains "$WORK/out" "side: the containers', repetitions alternating with this host's own jobs"
expect_contains "$WORK/out" "side: this host's own jobs, repetitions alternating with the containers'"
expect_status 0 "$VP" compare net-sides
expect_contains "$WORK/out" "net.rr       jobs=1   latency"
# --topology matrix: this host and the container each serve (the container on the
# loopback it shares, a port of its own) and each connects to the other alone; --peer
# names one more end, a server of no part of the run (keyed: the key is carried into the
# container at its path, which must not be under the container's own /work), which each
# end connects to and whose server sends to each (net.stream --reverse). A run from this
# host alone to that server shares this host's row in `virtperf matrix`.
KEYS=$(mktemp -d /var/tmp/vp-keys.XXXXXX)
head -c 32 /dev/urandom >"$KEYS/ext.key" && chmod 600 "$KEYS/ext.key"
EXT_PORT=$((10000 + $$ % 20000))
"$VP" serve --bind 127.0.0.1 --port $EXT_PORT --key-file "$KEYS/ext.key" --quiet &
EXT=$!
sleep 0.3
expect_status 0 "$VP" run net.stream --duration 0.3s --reps 2 --containers 1 --topology matrix \
    --peer 127.0.0.1:$EXT_PORT --key-file "$KEYS/ext.key" --label box-matrix --json "$WORK/matrix.json"
python3 - "$WORK/matrix.json" $EXT_PORT <<'PY' || fail "--containers 1 --topology matrix --peer: every ordered pair of this host, the container and the external server, each alone"
import json, sys
results = json.load(open(sys.argv[1]))["results"]
links = [(r["ranks"]["links"][0]["from_label"].split()[0], r["ranks"]["links"][0]["to_label"].split()[0],
          r["params"]["reverse"]) for r in results]
assert links == [("this-host", "container-1", "off"), ("this-host", "external", "off"),
                 ("container-1", "this-host", "off"), ("container-1", "external", "off"),
                 ("external", "this-host", "on"), ("external", "container-1", "on")], links
ports = {}
for r in results:
    assert r["status"] == "ok" and r["params"]["peer"] == "matrix", (r.get("error"), r["params"])
    (link,) = r["ranks"]["links"]
    client = link["to"] if r["params"]["reverse"] == "on" else link["from"]
    (host,) = r["ranks"]["hosts"]  # the connecting end alone ran jobs
    assert host["rank"] == client and host["metrics"]["throughput"]["mean"] > 0, (host["rank"], link)
    ports[link["to_label"] if r["params"]["reverse"] == "off" else link["from_label"]] = host["peer"]["port"]
# this host's and the container's servers are not the same one; the external end is the server given
assert ports["external 127.0.0.1:" + sys.argv[2]] == int(sys.argv[2]), ports
assert len(set(ports.values())) == 3, ports
PY
expect_status 0 "$VP" run net.stream --duration 0.3s --reps 2 --peer 127.0.0.1:$EXT_PORT \
    --key-file "$KEYS/ext.key" --label box-plain --quiet
expect_status 0 "$VP" matrix box-matrix box-plain --metric throughput --json "$WORK/table.json"
python3 - "$WORK/table.json" $EXT_PORT "$(hostname)" <<'PY' || fail "virtperf matrix: this host one row (its name) across a members' run and a run of its own, the external server a row and a column"
import json, sys
port, name = sys.argv[2], sys.argv[3]
table = json.load(open(sys.argv[1]))
(m,) = table["matrices"]
external = "127.0.0.1:" + port
assert m["sources"] == [name, "container-1 127.0.0.1", external], m["sources"]
assert sorted(m["destinations"]) == sorted([name, "container-1 127.0.0.1", external]), m["destinations"]
for row, cells in zip(m["sources"], m["values"]):
    for column, value in zip(m["destinations"], cells):
        assert (value is None) == (row == column), (row, column, value)
(note,) = table["notes"]  # this host -> the server: in both runs
assert name + " -> " + external + " measured more than once" in note, note
PY
expect_status 2 "$VP" run net.stream --containers 1 --topology fan-in --peer 127.0.0.1:$EXT_PORT
expect_contains "$WORK/err" "--peer: not with --topology; accepted: --topology without --peer (the topology names each job's server), or --topology matrix --peer HOST"
cp -p "$KEYS/ext.key" "$WORK/ext.key"
expect_status 2 "$VP" run net.stream --containers 1 --topology matrix --peer 127.0.0.1:$EXT_PORT \
    --key-file "$WORK/ext.key"
expect_contains "$WORK/err" "which each container has its own of"
kill $EXT
wait $EXT || fail "the external server should stop cleanly on SIGTERM"
rm -rf "$KEYS"
# a container that only serves a link and dies there is named (exit 1), nothing left
"$VP" run net.rr --duration 6s --reps 1 --warmup 0 --containers 1 --topology matrix --label served \
    --json "$WORK/served.json" >"$WORK/served.out" 2>&1 &
RUN=$!
for _ in $(seq 1 300); do podman container exists "virtperf-$RUN-1" 2>/dev/null && break; sleep 0.1; done
sleep 3
podman kill "virtperf-$RUN-1" >/dev/null 2>&1 || fail "podman kill virtperf-$RUN-1 failed"
wait $RUN
status=$?
[ $status -eq 1 ] || fail "a serving container killed mid-link should fail the run (exit 1), got $status: $(tail -3 "$WORK/served.out")"
json_check "$WORK/served.json" 'd["results"][0]["status"] == "failed" and "container 1 (virtperf-'$RUN'-1): gone while it served this link" in d["results"][0]["error"]' \
    "the container that served the link should be named as gone"
left_nothing $RUN "a serving container killed"
# a plan's step says its topology (kept where the step runs in containers, left out with a
# note where it runs on this host)
printf '[global]\nreps = 2\n[rpc]\nbench = net.rr\nduration = 0.3s\ncontainers = 1\ntopology = matrix\n[local]\nbench = null\ntopology = matrix\n' >"$WORK/linked.ini"
expect_status 0 "$VP" run --plan "$WORK/linked.ini" --label plan-matrix --json "$WORK/linked.json"
expect_contains "$WORK/out" "[local] topology = matrix: one host here, left out"
python3 - "$WORK/linked.json" <<'PY' || fail "a plan's topology = matrix: the step's two links, the host step as it was"
import json, sys
results = json.load(open(sys.argv[1]))["results"]
assert [(r["step"], r["status"]) for r in results] == [("rpc", "ok")] * 2 + [("local", "ok")], results
assert [r["ranks"]["links"][0]["from"] for r in results[:2]] == [0, 1]
assert "ranks" not in results[2]
PY
# each side checks only its own steps: the host step's directory is this host's alone
mkdir "$WORK/hosts-own"
printf '[global]\nreps = 2\n[here]\nbench = disk.write\nsize = 1m\npath = %s\n[box]\nbench = null\ncontainers = 1\n' "$WORK/hosts-own" >"$WORK/own.ini"
expect_status 0 "$VP" run --plan "$WORK/own.ini" --label own-steps --json "$WORK/own.json"
json_check "$WORK/own.json" '[(r["step"], r["status"]) for r in d["results"]] == [("here", "ok"), ("box", "ok")]' \
    "a container should not check the step this host runs alone (its path is not in the container)"
# a step the containers cannot run is refused by them, in their words: exit 2, nothing
# stored (the directory is this host's, not theirs)
printf '[global]\nreps = 1\n[box]\nbench = disk.write\nsize = 1m\npath = %s\ncontainers = 1\n' "$WORK/hosts-own" >"$WORK/theirs.ini"
expect_status 2 "$VP" run --plan "$WORK/theirs.ini" --db "$WORK/theirs.db"
expect_contains "$WORK/err" "in container virtperf-"
expect_contains "$WORK/err" "[box]: --path $WORK/hosts-own: no such directory; accepted: an existing directory"
[ ! -e "$WORK/theirs.db" ] || [ "$(store_count "$WORK/theirs.db" results)" -eq 0 ] ||
    fail "a step the containers refused stored results"
# the same plan's rpc step in containers given on the command line: its topology is kept
printf '[global]\nreps = 2\n[rpc]\nbench = net.rr\nduration = 0.3s\ntopology = matrix\n' >"$WORK/given.ini"
expect_status 0 "$VP" run --plan "$WORK/given.ini" --containers 1 --label plan-given --json "$WORK/given.json"
python3 - "$WORK/given.json" <<'PY' || fail "--plan F --containers 1: the step's topology = matrix between this host and the container"
import json, sys
results = json.load(open(sys.argv[1]))["results"]
assert [(r["step"], r["status"], r["params"]["peer"]) for r in results] == [("rpc", "ok", "matrix")] * 2, results
assert [r["ranks"]["links"][0]["from"] for r in results] == [0, 1]
PY
# on a network of podman's made here (its subnet in 198.18.0.0/15): this host's server on
# the network's gateway, a container's own on its address there
NET=vp-net-$$
podman network create --subnet 198.18.12.0/24 "$NET" >/dev/null || fail "podman network create $NET failed"
expect_status 0 "$VP" run net.rr --duration 0.3s --reps 2 --containers 1 --container-net "$NET" --label box-net --json "$WORK/bridged.json"
expect_status 0 "$VP" run net.rr --duration 0.3s --reps 2 --containers 1 --container-net "$NET" --topology matrix --label box-net-matrix --json "$WORK/bridged-matrix.json"
python3 - "$WORK/bridged.json" "$WORK/bridged-matrix.json" <<'PY' || fail "--container-net NETWORK: the server on its gateway, the container's on its address"
import json, sys
(plain,) = json.load(open(sys.argv[1]))["results"]
assert plain["status"] == "ok" and plain["params"]["peer"].startswith("198.18.12.1:"), (plain.get("error"), plain["params"])
assert plain["metrics"]["rate"]["mean"] > 0
assert plain["ranks"]["hosts"][0]["fingerprint"]["container"]["network"].startswith("vp-net-")
matrix = json.load(open(sys.argv[2]))["results"]
assert [r["status"] for r in matrix] == ["ok", "ok"], [r.get("error") for r in matrix]
servers = {r["ranks"]["links"][0]["to"]: r["ranks"]["hosts"][0]["peer"] for r in matrix}
assert servers[0]["address"] == "198.18.12.1", servers  # this host, on the network's gateway
assert servers[1]["address"].startswith("198.18.12.") and servers[1]["address"] != "198.18.12.1", servers
PY
expect_status 2 "$VP" run net.rr --containers 1 --container-net "no-such-net-$$"
expect_contains "$WORK/err" "--container-net no-such-net-$$: podman knows no gateway of a network no-such-net-$$"
expect_status 2 "$VP" run cpu --containers 1 --container-net 'a/b'
expect_contains "$WORK/err" "--container-net: 'a/b' is not valid; accepted: host, bridge or the name of a network"
printf '[b]\nbench = null\ncontainers = 1\n[a]\nbench = null\nand-host = on\n' >"$WORK/alone.ini"
expect_status 2 "$VP" run --plan "$WORK/alone.ini"
expect_contains "$WORK/err" "and-host: this step runs on this host alone"
printf '[a]\nbench = null\nguests = 1\n[b]\nbench = null\ncontainers = 1\n' >"$WORK/mixed.ini"
expect_status 2 "$VP" run --plan "$WORK/mixed.ini"
expect_contains "$WORK/err" "guests and containers: one kind per run"
expect_status 2 "$VP" run --plan "$WORK/boxes.ini" --no-guests --containers 1
expect_contains "$WORK/err" "--no-guests: not with --guests, --containers or --and-host"
left_nothing '[0-9]*' "a plan's run"

# a program of this host in the container: its root carries it (with its libraries) at
# its own path, found in the container as here
expect_status 0 "$VP" run app --cmd 'md5sum /etc/passwd' --containers 1 --reps 1 --warmup 0 --label carried --json "$WORK/carried.json"
json_check "$WORK/carried.json" 'd["results"][0]["status"] == "ok" and d["results"][0]["guests"]["programs"] == ["/usr/bin/md5sum"]' \
    "--cmd's program should be carried into the container"
left_nothing '[0-9]*' "a run with a carried program"

interrupt_run "$WORK/int.out" "$VP" run cpu --containers 2 --ops 200m --reps 20 --label interrupted
left_nothing $RUN "Ctrl-C"
finish
