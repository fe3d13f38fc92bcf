#!/bin/bash
# Programs in guests virtperf starts: the image carries what the run's steps need of this
# host (app --preset's program and files, --cmd's program, --guest-programs' paths) at
# their own paths, and time.drift in a guest takes the host that runs it as its reference
# (the run's server), as the CNAF 2007 study's clock test against the hypervisor did;
# data.copy from a root:// store carries gfal2 and its XRootD plugin, and --guest-mount
# mounts an NFS export (nfs-ganesha in a namespace on the bridge) through the guest's
# kernel, so guests read a shared store over the bridge as the GridKa study's worker nodes
# did, both ways and over NFSv3 and v4 (test_guests.sh: a mount the guest cannot make ends the run with its
# words). What a guest would refuse (a program it would not find) is refused before any
# image is made or guest boots. One boot runs a plan of the five.
. "$(dirname "$0")/lib.sh"
use_libvirt
OWN=$(mktemp -d /var/tmp/vp-programs.XXXXXX) # a guest mounts its own /tmp over the image's
BRIDGE=vpbp$$
PORT=$((10000 + $$ % 20000)) # below the ephemeral ports
NETNS_STORE=vpgp-s-$$
cleanup() {
    [ -n "${XROOTD_PID:-}" ] && kill -9 "$XROOTD_PID" 2>/dev/null
    [ -n "${GANESHA_PID:-}" ] && kill -9 "$GANESHA_PID" 2>/dev/null
    ip netns pids "$NETNS_STORE" 2>/dev/null | xargs -r kill -9
    ip netns del "$NETNS_STORE" 2>/dev/null
    rm -rf "${XROOTD_HOME:-/nonexistent}" "${GANESHA_HOME:-/nonexistent}"
    stop_libvirt
    ip link del "$BRIDGE" 2>/dev/null
    rm -rf "$WORK" "$OWN"
}
trap cleanup EXIT
export VIRTPERF_CACHE="$WORK/cache"
chmod 755 "$WORK"

# a program of the user's: it counts the lines of its data, a file it does not name itself
mkdir "$OWN/bin" "$OWN/data"
printf '#!/bin/sh\necho "events: $(wc -l <%s/data/lines)"\n' "$OWN" >"$OWN/bin/count"
chmod 755 "$OWN" "$OWN/bin" "$OWN/data" "$OWN/bin/count"
seq 7 >"$OWN/data/lines"

# refused before any image is made: a program the guests would look for elsewhere, a
# path of the host's working directory, paths a guest has its own of or not absolute
PATH="$OWN/bin:$PATH" expect_status 2 "$VP" run app --cmd count --guests 1 --guest-accel tcg
expect_contains "$WORK/err" "--cmd: 'count' is $OWN/bin/count here, but a guest or container looks for it in /usr/local/bin:/usr/bin"
expect_status 2 "$VP" run app --cmd ./count --guests 1 --guest-accel tcg
expect_contains "$WORK/err" "--cmd: './count' is a path from this host's working directory"
expect_status 2 "$VP" run app --cmd "$OWN/bin/count" --guests 1 --guest-programs "$WORK"
expect_contains "$WORK/err" "--guests: $WORK is under /tmp, /proc, /sys, /dev or /run, which each guest has its own of"
expect_status 2 "$VP" run app --cmd "$OWN/bin/count" --guests 1 --guest-programs data
expect_contains "$WORK/err" "--guest-programs: 'data' is not an absolute path"
expect_status 2 "$VP" run app --cmd "$OWN/bin/count" --guest-programs "$OWN/data"
expect_contains "$WORK/err" "--guest-programs: only for the guests, containers or UML instances of a run"
! ls "$WORK/cache" 2>/dev/null | grep -q '^guest-' ||
    fail "a refusal made the guests' image: $(ls "$WORK/cache")"
guests_left_nothing '[0-9]*' "a refusal"
# on one host time.drift has no reference of its own
expect_status 2 "$VP" run time.drift --peer embedded
expect_contains "$WORK/err" "time.drift needs --peer HOST[:PORT]"

test_bridge "$BRIDGE"
mkdir "$OWN/set"
expect_status 0 "$VP" data prepare --source "$OWN/set" --files 2 --file-size 1m
XROOTD_TRACE=0 start_xrootd "$OWN/set" "$PORT" $((PORT + 1))
# the NFS server at .200 on the bridge, in a namespace of its own
ip netns add "$NETNS_STORE" &&
    ip link add vpgs$$ type veth peer name vpgt$$ netns "$NETNS_STORE" &&
    ip link set vpgs$$ master "$BRIDGE" && ip link set vpgs$$ up &&
    ip -n "$NETNS_STORE" addr add "$SUBNET.200/24" dev vpgt$$ &&
    ip -n "$NETNS_STORE" link set vpgt$$ up && ip -n "$NETNS_STORE" link set lo up ||
    fail "cannot put the NFS server's namespace on the bridge"
start_ganesha "$OWN/set" "$NETNS_STORE" "$SUBNET.200"
MOUNT="nfs://$SUBNET.200$OWN/set:/mnt/store"
cat >"$WORK/plan.ini" <<EOF
[global]
guests = 1
guest-accel = tcg
guest-net = $BRIDGE
guest-programs = $OWN/data
guest-mount = $MOUNT
reps = 1
warmup = 0

[xz]
bench = app
preset = xz

[count]
bench = app
cmd = $OWN/bin/count
events-regex = events: ([0-9]+)

[clock]
bench = time.drift
duration = 2500ms
interval = 500ms

[store]
bench = data.copy
source = root://$SUBNET.1:$PORT/$OWN/set
read-size = 512k
verify = on

[nfs-store]
bench = data.copy
source = /mnt/store
read-size = 512k
verify = on
EOF
expect_status 0 "$VP" run --plan "$WORK/plan.ini" --label carried --json "$WORK/carried.json"
stop_xrootd
# NFSv4: the guest's kernel mounts the export's pseudo path as nfs4; its copies go back to
# the server through libnfs (--to nfs://, v3), which the guest carries for it
mkdir -m 777 "$OWN/set/copies"
expect_status 0 "$VP" run data.copy --source /mnt/store --guests 1 --guest-accel tcg \
    --guest-net "$BRIDGE" --guest-mount "nfs://$SUBNET.200/export?version=4:/mnt/store" \
    --to "nfs://$SUBNET.200$OWN/set/copies" --read-size 512k --verify --reps 1 --warmup 0 \
    --json "$WORK/v4.json"
json_check "$WORK/v4.json" "d['results'][0]['status'] == 'ok' and d['results'][0]['metrics']['bytes']['mean'] == 1 << 20 and d['results'][0]['guests']['settings']['mount_command'].startswith('-t nfs4 ')" \
    "a guest should mount the export over NFSv4 (nfs4, the pseudo path) and read a file whole from it"
json_check "$WORK/v4.json" "any('libnfs' in p for p in d['results'][0]['guests']['programs'])" \
    "a guest writing its copies to nfs:// should carry libnfs"
[ -z "$(ls -A "$OWN/set/copies")" ] || fail "--to nfs:// from a guest should leave no copy: $(ls -A "$OWN/set/copies")"
stop_ganesha
ip link del "$BRIDGE"
python3 - "$WORK/carried.json" "$OWN" "${BRIDGE}" <<'PY' || fail "the guest should run the carried programs and measure its clock against this host"
import json, sys
results, own = json.load(open(sys.argv[1]))["results"], sys.argv[2]
xz, count, clock, store, nfs = results
for r in results:
    assert r["status"] == "ok", (r["bench"], r.get("error"))
    assert r["ranks"]["hosts"][0]["host"].startswith("virtperf-"), r["ranks"]
    carried = r["guests"]["programs"]
    assert {"/usr/bin/xz", own + "/bin/count", own + "/data"} <= set(carried), carried
# xz's own check of its output ran in the guest; the user's program read its data there
wall = count["metrics"]["wall_time"]["mean"]
assert abs(count["metrics"]["time_per_event"]["mean"] * 7 / wall - 1) < 0.01, count["metrics"]
# the reference is this host's server on the bridge, reached from the guest's address
peer = clock["params"]["peer"]
assert peer.startswith("198.18.") and peer.split(":")[0].endswith(".1"), peer
assert clock["metrics"]["samples"]["mean"] >= 3, clock["metrics"]["samples"]
# the guest read the store's file through the gfal2 it carried, checked against its seed
data = store["ranks"]["hosts"][0]["data"]
assert data["scheme"] == "root" and data["files"] == 2, data
assert store["metrics"]["bytes"]["mean"] == 1 << 20, store["metrics"]["bytes"]
assert any(p.endswith("/gfal2-plugins/libgfal_plugin_xrootd.so") for p in store["guests"]["programs"]), store["guests"]["programs"]
# the guest's kernel mounted the export: its jobs read the same files from a directory
data = nfs["ranks"]["hosts"][0]["data"]
assert data["scheme"] == "posix" and data["source"] == "/mnt/store" and data["files"] == 2, data
assert nfs["metrics"]["bytes"]["mean"] == 1 << 20, nfs["metrics"]["bytes"]
settings = nfs["guests"]["settings"]
assert settings["mount"].endswith("/set:/mnt/store"), settings
assert settings["mount_command"].startswith("-t nfs -o vers=3,nolock,proto=tcp,mountproto=tcp "), settings
PY
guests_left_nothing '[0-9]*' "a finished run"
expect_status 0 "$VP" results show carried
expect_contains "$WORK/out" "guests' mount: $MOUNT (mount -t nfs -o vers=3,nolock,proto=tcp,mountproto=tcp $SUBNET.200:$OWN/set /mnt/store)"
expect_contains "$WORK/out" "this host's files in their image: /etc/gfal2.d /lib/x86_64-linux-gnu/libgfal2.so.2 /usr/bin/xz /usr/lib/x86_64-linux-gnu/gfal2-plugins/libgfal_plugin_xrootd.so $OWN/bin/count $OWN/data"

finish
