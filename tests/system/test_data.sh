#!/bin/bash
# The data benchmarks against real stores: a fileset laid out by `virtperf data prepare`
# read from its directory and from an xrootd serving it over root:// and HTTP (its
# XrdHttp plugin): exact bytes, checksums, the read size seen on the server's side;
# faults (a server that is not there, a missing, unreadable, truncated or corrupted
# file, a server killed mid-copy) each give one error naming the file and leave no scratch file; bad
# input is refused with exit 2 before anything runs; prepare, index and remove keep to
# what they may touch.
. "$(dirname "$0")/lib.sh"
suppress_library_leaks everywhere # under ASan: gfal2's own leaks suppressed (lib.sh)
PORT=$((10000 + $$ % 20000)) # below the ephemeral ports
HTTP_PORT=$((PORT + 1))
SET=$(mktemp -d /tmp/vp-dataset.XXXXXX)
cleanup() {
    [ -n "${XROOTD_PID:-}" ] && kill -9 "$XROOTD_PID" 2>/dev/null
    rm -rf "$WORK" "$SET" "${XROOTD_HOME:-/nonexistent}"
}
trap cleanup EXIT
chmod 755 "$SET"
SCRATCH=$WORK/scratch
mkdir "$SCRATCH"

scratch_empty() { [ -z "$(ls -A "$SCRATCH")" ] || fail "$1: scratch files left: $(ls -A "$SCRATCH")"; }

# --- prepare: 6 files of 1 MiB, seeded content, a manifest with sizes and SHA-256.
expect_status 0 "$VP" data prepare --source "$SET" --files 6 --file-size 1m --seed 7
[ "$(ls "$SET" | wc -l)" -eq 7 ] || fail "prepare should make 6 files and a manifest: $(ls "$SET")"
want=$(sha256sum "$SET/file-00003.dat" | cut -d' ' -f1)
grep -q "$want" "$SET/virtperf-manifest.json" || fail "the manifest should hold each file's SHA-256"
[ "$(gzip -c "$SET/file-00000.dat" | wc -c)" -gt 1040000 ] || fail "laid-out content should not compress"
expect_usage_error "already holds a fileset" "$VP" data prepare --source "$SET" --files 2 --file-size 4k
expect_usage_error "--file-size '2m:1m'" "$VP" data prepare --source "$WORK" --files 2 --file-size 2m:1m
expect_usage_error "--files N and --file-size SIZE are required" "$VP" data prepare --source "$WORK"
expect_usage_error "data prepare: --source ftp://x/y: accepted: a directory, or a root://" "$VP" data prepare --source ftp://x/y --files 1 --file-size 1k
expect_usage_error "data remove: --source ftp://x/y: accepted: a directory, or a root://" "$VP" data remove --source ftp://x/y
# A directory not there yet is made (as mkdir -p); under a file, refused. Its progress,
# not on a terminal, is no run of carriage-return redraws.
expect_status 0 "$VP" data prepare --source "$WORK/new/set" --files 2 --file-size 4k
[ -s "$WORK/new/set/virtperf-manifest.json" ] || fail "prepare did not make its missing directory"
grep -q $'\r' "$WORK/err" && fail "prepare's progress redrew a line in a pipe: $(od -c "$WORK/err" | head -3)"
touch "$WORK/plain"
expect_usage_error "data: --source $WORK/plain/set: no such directory" "$VP" data prepare --source "$WORK/plain/set" --files 1 --file-size 4k

# --- bad input to the benchmarks: exit 2, one line, no run stored.
expect_usage_error "--source is required" "$VP" run data.copy
expect_usage_error "no such directory" "$VP" run data.copy --source "$WORK/nowhere"
expect_usage_error "accepted: a directory, or a root://" "$VP" run data.copy --source ftp://host/x
expect_usage_error "no fileset manifest" "$VP" run data.copy --source "$SCRATCH"
expect_usage_error "--per-job 7" "$VP" run data.copy --source "$SET" --per-job 7
expect_usage_error "--files 9: the manifest lists 6" "$VP" run data.read --source "$SET" --files 9
expect_usage_error "--to $WORK/none" "$VP" run data.copy --source "$SET" --to "$WORK/none"
mkdir "$WORK/bad"
printf '{"format": "virtperf fileset", "version": 1, "files": [{"name": "../etc/passwd", "size": 1, "sha256": "%064d"}]}' 0 >"$WORK/bad/virtperf-manifest.json"
expect_usage_error "files[0].name: accepted: a relative path" "$VP" run data.copy --source "$WORK/bad"
printf '{"format": "virtperf fileset", "version": 1, "files": [' >"$WORK/bad/virtperf-manifest.json"
expect_usage_error "not JSON" "$VP" run data.copy --source "$WORK/bad"
expect_runs 0 "refused runs should store nothing"

# --- a directory source: every byte, checked; the read size sweep; the spread across jobs.
expect_status 0 "$VP" run data.copy --source "$SET" --jobs 2 --per-job 3 --read-size 64k,1m \
    --verify --to "$SCRATCH" --reps 2 --json "$WORK/posix.json"
json_check "$WORK/posix.json" 'len(d["results"]) == 2 and all(r["status"] == "ok" and r["metrics"]["bytes"]["mean"] == 2 * 3 * 1048576 for r in d["results"])' \
    "two jobs x three 1 MiB files, at each read size"
json_check "$WORK/posix.json" '[r["metrics"]["iops"]["mean"] * r["metrics"]["job_time"]["mean"] // 1 for r in d["results"]][0] >= 90' \
    "64k reads: 16 requests a file"
json_check "$WORK/posix.json" 'all(r["data"]["scheme"] == "posix" and r["data"]["files"] == 6 and r["data"]["job_time_across_jobs"]["max"] >= r["data"]["job_time_across_jobs"]["min"] > 0 for r in d["results"])' \
    "the source and the jobs' spread beside the figures"
json_check "$WORK/posix.json" 'all(r["metrics"]["cpu_user"]["mean"] + r["metrics"]["cpu_system"]["mean"] > 0 for r in d["results"])' \
    "CPU seconds per job"
scratch_empty "after a copy with --to"
expect_status 0 "$VP" run data.read --source "$SET" --per-job 2 --ranges 20 --read-size 16k \
    --verify --json "$WORK/read.json"
json_check "$WORK/read.json" 'd["results"][0]["metrics"]["bytes"]["mean"] == 2 * 20 * 16384 and d["results"][0]["metrics"]["latency"]["distribution"]["count"] == 40 * d["results"][0]["reps"]' \
    "data.read: --ranges requests of --read-size per file, each in the distribution"
expect_status 0 "$VP" results export latest -o "$WORK/export.json"
VIRTPERF_DB=$WORK/other.db expect_status 0 "$VP" results import "$WORK/export.json"
json_check "$WORK/export.json" '"data" in d["results"][0]' "export should carry the data part"

# --- a plan whose steps read different filesets: each step its own manifest (the GridKa
# quick plan's directory steps on an 8-file set after xrootd steps on a larger one). The
# 2-file set's step comes first, the 6-file set's last: every file it reads is its own.
printf '%s\n' '[global]' 'reps = 1' 'warmup = 0' '[small]' 'bench = data.copy' \
    "source = $WORK/new/set" 'read-size = 4k' '[large]' 'bench = data.copy' "source = $SET" \
    'read-size = 64k' >"$WORK/filesets.ini"
expect_status 0 "$VP" run --plan "$WORK/filesets.ini" --json "$WORK/filesets.json"
json_check "$WORK/filesets.json" '[(r["status"], r["data"]["files"], r["metrics"]["bytes"]["mean"]) for r in d["results"]] == [("ok", 2, 4096), ("ok", 6, 1048576)]' \
    "each plan step should read its own fileset's files"

# --- index: a manifest for files that are there, never removed by virtperf.
mkdir "$WORK/own"
head -c 300000 /dev/urandom >"$WORK/own/a.root"
head -c 5000 /dev/urandom >"$WORK/own/b.root"
expect_status 0 "$VP" data index --source "$WORK/own"
expect_status 0 "$VP" run data.copy --source "$WORK/own" --per-job 2 --verify --json "$WORK/own.json"
json_check "$WORK/own.json" 'd["results"][0]["metrics"]["bytes"]["mean"] == 305000' "copy of indexed files"
expect_usage_error "--verify: data.read checks ranges against the seeded content" \
    "$VP" run data.read --source "$WORK/own" --verify
expect_usage_error "indexes files virtperf did not lay out" "$VP" data remove --source "$WORK/own"
[ -e "$WORK/own/a.root" ] || fail "remove deleted a file virtperf did not lay out"

# --- faults on a directory source: the file named, the job's copy gone.
cp -r "$SET" "$WORK/broken"
truncate -s 500000 "$WORK/broken/file-00001.dat"
expect_status 1 "$VP" run data.copy --source "$WORK/broken" --per-job 6 --to "$SCRATCH" --json "$WORK/trunc.json"
json_check "$WORK/trunc.json" '"file-00001.dat: 500000 bytes read, the manifest says 1048576" in d["results"][0]["error"]' \
    "a truncated file fails with its name and both lengths"
scratch_empty "after a truncated file"
cp "$SET/file-00001.dat" "$WORK/broken/"
printf 'X' | dd of="$WORK/broken/file-00002.dat" bs=1 seek=70000 conv=notrunc status=none
expect_status 1 "$VP" run data.read --source "$WORK/broken" --files 3 --per-job 3 --ranges 64 --read-size 64k --verify --json "$WORK/bad.json"
json_check "$WORK/bad.json" '"file-00002.dat: byte 70000 is not what was laid out" in d["results"][0]["error"]' \
    "--verify finds the changed byte"
expect_status 1 "$VP" run data.copy --source "$WORK/broken" --files 3 --per-job 3 --verify --json "$WORK/sum.json"
json_check "$WORK/sum.json" '"file-00002.dat: SHA-256" in d["results"][0]["error"]' "copy --verify checks the SHA-256"
rm "$WORK/broken/file-00004.dat"
expect_status 1 "$VP" run data.copy --source "$WORK/broken" --per-job 6 --json "$WORK/gone.json"
json_check "$WORK/gone.json" '"file-00004.dat: open: No such file or directory" in d["results"][0]["error"]' \
    "a missing file fails with its name and the system's reason"

# --- prepare interrupted: nothing left behind, not even the directory it made.
"$VP" data prepare --source "$WORK/big" --files 50 --file-size 64m >/dev/null 2>"$WORK/prep.err" &
prep=$!
for _ in $(seq 1 100); do [ -n "$(ls -A "$WORK/big" 2>/dev/null)" ] && break; sleep 0.05; done
kill -INT $prep
wait $prep
status=$?
[ "$status" -eq 130 ] || fail "an interrupted prepare should exit 130, got $status: $(cat "$WORK/prep.err")"
[ ! -e "$WORK/big" ] || fail "an interrupted prepare left $(ls -A "$WORK/big")"

# --- the same fileset through xrootd: root:// and HTTP.
start_xrootd "$SET" "$PORT" "$HTTP_PORT"
ROOT_URL=root://127.0.0.1:$PORT/$SET
HTTP_URL=http://127.0.0.1:$HTTP_PORT/$SET
: >"$XROOTD_LOG"
expect_status 0 "$VP" run data.copy --source "$ROOT_URL" --jobs 2 --per-job 2 --read-size 12k \
    --verify --reps 1 --warmup 0 --to "$SCRATCH" --json "$WORK/root.json"
json_check "$WORK/root.json" 'd["results"][0]["status"] == "ok" and d["results"][0]["metrics"]["bytes"]["mean"] == 2 * 2 * 1048576 and d["results"][0]["data"]["scheme"] == "root"' \
    "root://: every byte of 4 files, SHA-256 checked"
reads=$(grep -c 'read 12288@' "$XROOTD_LOG")
[ "$reads" -ge $((4 * 85)) ] || fail "the server should see 12k reads (4 files x 86), saw $reads"
# (0.9 of them at least: the monitor's last sample at its stop is skipped when the one
# before came less than a fifth of its period earlier, and under ASan this point's last
# 20 ms carry a few percent of its bytes: a clean clone saw that fail at 1.0)
json_check "$WORK/root.json" 'd["results"][0]["data"]["network_rx_bytes"] >= 0.9 * 4 * 1048576' \
    "the monitor's network input should have seen the bytes"
scratch_empty "after a root:// copy"
: >"$XROOTD_LOG"
expect_status 0 "$VP" run data.read --source "$ROOT_URL" --per-job 2 --ranges 10 --read-size 96k \
    --verify --reps 1 --warmup 0 --json "$WORK/rootread.json"
reads=$(grep -c 'read 98304@' "$XROOTD_LOG")
[ "$reads" -eq 20 ] || fail "data.read: the server should see 20 reads of 96k, saw $reads"

# prepare through a URL (a store the client reaches only by root:// or https://): written
# by the server, read back and checked; the files and manifest are what a local prepare
# lays out, and the benchmarks read them; existing names are refused.
for url in "$ROOT_URL/byroot" "$HTTP_URL/byhttp"; do
    dir=$SET/${url##*/}
    mkdir "$dir" && chown nobody "$dir"
    expect_status 0 "$VP" data prepare --source "$url" --files 3 --file-size 256k --seed 11
    expect_contains "$WORK/out" "laid out 3 files under $url (seed 11), each read back and checked"
    (cd "$dir" && python3 -c '
import hashlib, json
m = json.load(open("virtperf-manifest.json"))
assert m["seed"] == 11 and [f["name"] for f in m["files"]] == ["file-00000.dat", "file-00001.dat", "file-00002.dat"]
assert all(hashlib.sha256(open(f["name"], "rb").read()).hexdigest() == f["sha256"] and f["size"] == 262144 for f in m["files"])') ||
        fail "prepare through $url: the manifest does not match the files the server holds"
    [ -z "$(ls -A "$dir" | grep virtperf-tmp)" ] || fail "prepare through $url left temporary files: $(ls -A "$dir")"
    expect_usage_error "already holds a fileset" "$VP" data prepare --source "$url" --files 1 --file-size 4k
done
cmp "$SET/byroot/file-00002.dat" "$SET/byhttp/file-00002.dat" || fail "the same seed laid out different content by root:// and HTTP"
expect_status 0 "$VP" run data.read --source "$ROOT_URL/byroot" --per-job 3 --ranges 4 --verify --reps 1 --warmup 0 --quiet
# remove and index through root:// (gfal2's stat, listing and removal)
expect_status 0 "$VP" data remove --source "$ROOT_URL/byroot"
expect_contains "$WORK/out" "removed 3 of the 3 files virtperf-manifest.json listed, and it"
[ -z "$(ls -A "$SET/byroot")" ] || fail "remove through root:// left $(ls -A "$SET/byroot")"
head -c 50000 /dev/urandom >"$SET/byroot/by-hand.bin" && chown nobody "$SET/byroot/by-hand.bin"
expect_status 0 "$VP" data index --source "$ROOT_URL/byroot"
expect_contains "$WORK/out" "indexed 1 files under $ROOT_URL/byroot"
grep -q "$(sha256sum "$SET/byroot/by-hand.bin" | cut -c1-64)" "$SET/byroot/virtperf-manifest.json" ||
    fail "index through root:// should record by-hand.bin's SHA-256: $(cat "$SET/byroot/virtperf-manifest.json")"
mkdir "$SET/taken" && chown nobody "$SET/taken" && cp "$SET/byhttp/file-00001.dat" "$SET/taken/"
expect_status 1 "$VP" data prepare --source "$ROOT_URL/taken" --files 3 --file-size 256k --seed 11
expect_contains "$WORK/err" "taken/file-00001.dat: exists (a fileset is laid out only where none of its names exists)"
[ "$(ls -A "$SET/taken")" = file-00001.dat ] || fail "a refused prepare through a URL left files: $(ls -A "$SET/taken")"
rm -rf "$SET/byroot" "$SET/byhttp" "$SET/taken"
: >"$XROOTD_LOG"
expect_status 0 "$VP" run data.read --source "$HTTP_URL" --per-job 2 --ranges 10 --read-size 96k \
    --verify --reps 1 --warmup 0 --json "$WORK/httpread.json"
# davix may answer a read from bytes it already holds: at least half the 20 ranges reach
# the server, each a GET for exactly --read-size bytes
python3 - "$XROOTD_LOG" <<'PY' || fail "data.read over HTTP: ranged GETs of 96k should reach the server"
import re, sys
spans = [int(b) - int(a) + 1 for a, b in re.findall(r"Range: bytes=(\d+)-(\d+)", open(sys.argv[1], errors="replace").read())]
sys.exit(0 if 10 <= len(spans) <= 20 and set(spans) == {98304} else 1)
PY
expect_status 0 "$VP" run data.copy --source "$HTTP_URL" --per-job 3 --verify --json "$WORK/http.json"
json_check "$WORK/http.json" 'd["results"][0]["metrics"]["bytes"]["mean"] == 3 * 1048576 and d["results"][0]["data"]["scheme"] == "http"' \
    "http://: every byte, SHA-256 checked"

# faults through the library: its own words, the URL, no scratch file.
cp "$SET/virtperf-manifest.json" "$WORK/manifest.json"
sed -i 's/file-00005.dat/file-00099.dat/' "$WORK/manifest.json"
expect_status 1 "$VP" run data.copy --source "$ROOT_URL" --manifest "$WORK/manifest.json" \
    --per-job 6 --json "$WORK/rootgone.json" --to "$SCRATCH"
json_check "$WORK/rootgone.json" '"file-00099.dat: open: " in d["results"][0]["error"] and "No such file" in d["results"][0]["error"]' \
    "root://: a missing file names the URL and gfal2's reason"
scratch_empty "after a missing root:// file"
# a file the server may not read (xrootd runs as nobody): its words, the URL
chown root "$SET/file-00002.dat"
chmod 600 "$SET/file-00002.dat"
expect_status 1 "$VP" run data.copy --source "$ROOT_URL" --per-job 6 --json "$WORK/denied.json"
json_check "$WORK/denied.json" '"file-00002.dat: open: " in d["results"][0]["error"] and "ermission denied" in d["results"][0]["error"]' \
    "root://: a file the server may not read names the URL and 'Permission denied'"
chown nobody "$SET/file-00002.dat"
closed=$((PORT + 2))
expect_status 1 "$VP" run data.copy --source "root://127.0.0.1:$closed/$SET" --manifest "$SET/virtperf-manifest.json" \
    --timeout 3s --json "$WORK/refused.json"
json_check "$WORK/refused.json" '"root://127.0.0.1:" in d["results"][0]["error"] and "refused" in d["results"][0]["error"].lower()' \
    "an unreachable server: the URL and 'Connection refused'"
expect_usage_error "no fileset manifest" "$VP" run data.copy --source "root://127.0.0.1:$closed/$SET" --timeout 2s

# the server killed mid-copy: the job fails with the library's words, no copy left.
"$VP" run data.copy --source "$ROOT_URL" --per-job 6 --read-size 4k --reps 20 --warmup 0 \
    --to "$SCRATCH" --timeout 3s --json "$WORK/killed.json" >"$WORK/killed.out" 2>&1 &
copy=$!
for _ in $(seq 1 100); do [ -n "$(ls -A "$SCRATCH")" ] && break; sleep 0.05; done
sleep 0.2
kill -9 "$XROOTD_PID"
{ wait "$XROOTD_PID"; killed_status=$?; } 2>/dev/null # (bash's "Killed" notice, expected)
[ $killed_status -eq 137 ] || fail "xrootd should have died from SIGKILL"
XROOTD_PID=
wait $copy
status=$?
[ "$status" -eq 1 ] || fail "a copy whose server died should exit 1, got $status: $(tail -3 "$WORK/killed.out")"
json_check "$WORK/killed.json" 'd["results"][0]["status"] == "failed" and "root://127.0.0.1:" in d["results"][0]["error"]' \
    "the server died: the result fails naming the URL"
scratch_empty "after the server died"
rm -rf "$XROOTD_HOME"

finish
