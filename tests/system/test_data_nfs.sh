#!/bin/bash
# nfs:// sources through libnfs against a real NFS server: nfs-ganesha in a network
# namespace of its own, the client in another, a veth between them (the GridKa study's
# NFS, served for real). data.copy reads a fileset over NFSv3 (the export's real path)
# and v4 (its pseudo path, ?version=4), every byte checked against the manifest; a 4 KiB
# read size goes to the wire as one READ each (the client's packets out are at least the
# requests), 512 KiB as few; data.read reads ranges; data prepare lays a fileset out over
# v3 and it reads back; data.copy --to nfs:// writes its copies to the server (bytes out
# at least the copies', none left; two runs whose pids are the same, at once, never share
# a copy's name); data remove over v3 deletes it but for a file whose content is
# not what prepare wrote; data index over v3 writes a manifest for files made by hand
# (left out: a link, a directory), which data.copy --verify then reads, and which remove
# refuses to delete; a directory the server does not export is refused with libnfs's
# reason, naming the mount.
. "$(dirname "$0")/lib.sh"
NETNS_CLIENT=vpnfs-c-$$
NETNS_STORE=vpnfs-s-$$
SET=$(mktemp -d /tmp/vp-nfsset.XXXXXX)
cleanup() {
    [ -n "${GANESHA_PID:-}" ] && kill -9 "$GANESHA_PID" 2>/dev/null
    ip netns pids "$NETNS_STORE" 2>/dev/null | xargs -r kill -9
    ip netns del "$NETNS_CLIENT" 2>/dev/null
    ip netns del "$NETNS_STORE" 2>/dev/null
    rm -rf "$WORK" "$SET" "${GANESHA_HOME:-/nonexistent}"
}
trap cleanup EXIT
"$VP" run data.copy --source nfs://198.18.9.2/x --db "$WORK/probe.db" 2>"$WORK/built" >/dev/null
grep -q "built without libnfs" "$WORK/built" && skip "this virtperf was built without libnfs (scripts/deps.sh nfs)"
chmod 755 "$SET"
two_hosts "$NETNS_CLIENT" "$NETNS_STORE" 198.18.9
FILE_SIZE=$((2 << 20))
expect_status 0 "$VP" data prepare --source "$SET" --files 4 --file-size 2m
mkdir -m 777 "$SET/laid-out" # (a directory under the export: prepare writes there over v3)
mkdir -m 777 "$SET/by-hand" "$SET/by-hand/sub" # (files index reads over v3)
head -c 300000 /dev/urandom >"$SET/by-hand/b.bin"
head -c 70000 /dev/urandom >"$SET/by-hand/a.bin"
ln -s a.bin "$SET/by-hand/link.bin"
start_ganesha "$SET" "$NETNS_STORE" 198.18.9.2
client() { ip netns exec "$NETNS_CLIENT" "$@"; }
packets_out() { client cat "/sys/class/net/vpa$$/statistics/tx_packets"; }

# v3 at 4 KiB and 512 KiB reads, then v4: every file whole, its SHA-256 checked
before=$(packets_out)
expect_status 0 client "$VP" run data.copy --source "nfs://198.18.9.2$SET" --jobs 2 --per-job 2 \
    --read-size 4k --reps 2 --warmup 0 --verify --json "$WORK/v3-4k.json"
small=$(($(packets_out) - before))
before=$(packets_out)
expect_status 0 client "$VP" run data.copy --source "nfs://198.18.9.2$SET" --jobs 2 --per-job 2 \
    --read-size 512k --reps 2 --warmup 0 --verify --json "$WORK/v3-512k.json"
large=$(($(packets_out) - before))
expect_status 0 client "$VP" run data.copy --source "nfs://198.18.9.2/export?version=4" --jobs 2 \
    --per-job 2 --read-size 512k --reps 2 --warmup 0 --verify --json "$WORK/v4.json"
for run in v3-4k v3-512k v4; do
    json_check "$WORK/$run.json" "all(r['status'] == 'ok' and r['data']['scheme'] == 'nfs' and r['metrics']['bytes']['mean'] == r['jobs'] * 2 * $FILE_SIZE for r in d['results'])" \
        "$run: each job should read its 2 files whole over nfs://"
done
# 2 jobs x 2 files x 2 MiB at 4 KiB, twice: 4096 READs went out, each a packet at least
requests=$((2 * 2 * 2 * FILE_SIZE / 4096))
[ "$small" -ge "$requests" ] ||
    fail "4 KiB reads should be one READ each on the wire: $small packets out for $requests reads"
[ "$large" -lt $((small / 4)) ] ||
    fail "512 KiB reads should take far fewer packets out than 4 KiB ones: $large against $small"
echo "packets out: $small at 4 KiB, $large at 512 KiB ($requests reads at 4 KiB)"

# copies written to the server (--to nfs://): every byte goes out again, none is left
mkdir -m 777 "$SET/copies"
bytes_out() { client cat "/sys/class/net/vpa$$/statistics/tx_bytes"; }
before=$(bytes_out)
expect_status 0 client "$VP" run data.copy --source "nfs://198.18.9.2$SET" --jobs 2 --per-job 2 \
    --reps 2 --warmup 0 --verify --to "nfs://198.18.9.2$SET/copies" --json "$WORK/to.json"
sent=$(($(bytes_out) - before))
copied=$((2 * 2 * 2 * FILE_SIZE))
[ "$sent" -ge "$copied" ] ||
    fail "--to nfs://: the copies' $copied bytes should go out to the server, $sent bytes went"
[ -z "$(ls -A "$SET/copies")" ] || fail "--to nfs:// should leave no copy: $(ls -A "$SET/copies")"
echo "--to nfs://: $sent bytes out for $copied bytes copied"
# two runs at once whose processes have the same pids (each in a pid namespace of its
# own, as two hosts or two guests may) copying into one directory: no copy of one is the
# other's (a name shared would be truncated, written and removed under the other's feet)
twins=()
for side in a b; do
    client unshare -pf --mount-proc "$VP" run data.copy --source "nfs://198.18.9.2$SET" \
        --jobs 2 --per-job 2 --reps 12 --warmup 0 --to "nfs://198.18.9.2$SET/copies" \
        --db "$WORK/twin-$side.db" --json "$WORK/twin-$side.json" >"$WORK/twin-$side.out" 2>&1 &
    twins+=("$side:$!")
done
for twin in "${twins[@]}"; do
    wait "${twin#*:}"
    status=$?
    [ "$status" -eq 0 ] ||
        fail "two runs copying into one directory at once: run ${twin%%:*} exited $status: $(grep -m1 'job [0-9]*:' "$WORK/twin-${twin%%:*}.out")"
done
[ -z "$(ls -A "$SET/copies")" ] || fail "two runs' copies should all be gone: $(ls -A "$SET/copies")"
expect_status 1 client "$VP" run data.copy --source "nfs://198.18.9.2$SET" --reps 1 --warmup 0 \
    --to "nfs://198.18.9.2$SET/no-such-dir" --json "$WORK/to-gone.json"
json_check "$WORK/to-gone.json" "'no-such-dir' in d['results'][0]['error'] and 'mount' in d['results'][0]['error']" \
    "--to a directory the server lacks: the job fails naming it and libnfs's mount"

# ranges at random offsets (data.read: pread), checked against the seeded content
expect_status 0 client "$VP" run data.read --source "nfs://198.18.9.2$SET" --jobs 2 --ranges 16 \
    --read-size 64k --reps 1 --warmup 0 --verify --json "$WORK/ranges.json"
json_check "$WORK/ranges.json" "d['results'][0]['status'] == 'ok' and d['results'][0]['metrics']['bytes']['mean'] == 2 * d['results'][0]['params']['per-job'] * 16 * 65536" \
    "data.read: 16 ranges of 64 KiB in each job's file over nfs://"

# a fileset laid out over v3, read back by prepare, then copied and checked
expect_status 0 client "$VP" data prepare --source "nfs://198.18.9.2$SET/laid-out" --files 2 --file-size 1m
expect_contains "$WORK/out" "each read back and checked"
[ "$(stat -c %s "$SET/laid-out/file-00001.dat")" -eq $((1 << 20)) ] ||
    fail "prepare over nfs:// should leave its files on the server: $(ls -l "$SET/laid-out")"
expect_status 0 client "$VP" run data.copy --source "nfs://198.18.9.2$SET/laid-out" --reps 1 \
    --warmup 0 --verify --quiet

# remove over v3: a file changed after prepare is kept and named, with the manifest
last=$(((1 << 20) - 1))
dd if="$SET/laid-out/file-00001.dat" of="$WORK/byte" bs=1 skip=$last count=1 status=none
put_last_byte() { dd of="$SET/laid-out/file-00001.dat" bs=1 seek=$last conv=notrunc status=none; }
printf 'X' | put_last_byte
expect_status 1 client "$VP" data remove --source "nfs://198.18.9.2$SET/laid-out"
expect_contains "$WORK/out" "removed 1 of the 2 files virtperf-manifest.json listed"
expect_contains "$WORK/err" "kept file-00001.dat: not the content prepare laid out"
[ ! -e "$SET/laid-out/file-00000.dat" ] && [ -e "$SET/laid-out/file-00001.dat" ] &&
    [ -e "$SET/laid-out/virtperf-manifest.json" ] ||
    fail "remove over nfs:// should delete the file prepare wrote and keep the changed one and the manifest: $(ls "$SET/laid-out")"
put_last_byte <"$WORK/byte" # (its content again)
expect_status 0 client "$VP" data remove --source "nfs://198.18.9.2$SET/laid-out"
expect_contains "$WORK/out" "removed 1 of the 2 files virtperf-manifest.json listed, and it"
[ -z "$(ls -A "$SET/laid-out")" ] || fail "remove over nfs:// should leave nothing: $(ls -A "$SET/laid-out")"

# index over v3: the regular files made by hand, each one's SHA-256 as sha256sum says
expect_status 0 client "$VP" data index --source "nfs://198.18.9.2$SET/by-hand"
expect_contains "$WORK/out" "indexed 2 files under nfs://198.18.9.2$SET/by-hand"
python3 - "$SET/by-hand" <<'PY' || fail "index over nfs:// should list a.bin and b.bin with their sizes and SHA-256"
import hashlib, json, os, sys
d = json.load(open(os.path.join(sys.argv[1], 'virtperf-manifest.json')))
files = {f['name']: f for f in d['files']}
assert sorted(files) == ['a.bin', 'b.bin'], files
for name, f in files.items():
    data = open(os.path.join(sys.argv[1], name), 'rb').read()
    assert f['size'] == len(data) and f['sha256'] == hashlib.sha256(data).hexdigest(), f
PY
expect_status 0 client "$VP" run data.copy --source "nfs://198.18.9.2$SET/by-hand" --reps 1 \
    --warmup 0 --verify --per-job 2 --quiet
expect_status 2 client "$VP" data index --source "nfs://198.18.9.2$SET/by-hand"
expect_contains "$WORK/err" "already holds a fileset"
expect_status 2 client "$VP" data remove --source "nfs://198.18.9.2$SET/by-hand"
expect_contains "$WORK/err" "indexes files virtperf did not lay out; nothing removed"
[ -e "$SET/by-hand/a.bin" ] || fail "remove should never delete files virtperf did not make"

# refused: a directory the server does not export, with libnfs's reason
expect_status 2 client "$VP" run data.copy --source "nfs://198.18.9.2/srv/not-exported" --reps 1
expect_contains "$WORK/err" "nfs://198.18.9.2/srv/not-exported/virtperf-manifest.json: mount: "
expect_contains "$WORK/err" "MNT3ERR_ACCES"

stop_ganesha
finish
