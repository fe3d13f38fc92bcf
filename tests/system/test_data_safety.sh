#!/bin/bash
# What `virtperf data` may delete and open where someone else can write the fileset's
# directory: remove deletes only files it can prove prepare laid out (no link in any
# part of the name, a regular file of the caller's, the manifest's size, the seeded
# content), names and keeps the rest; a prepare killed with SIGKILL is resumed by the
# same prepare, cleared by another or by remove; the data benchmarks refuse a FIFO (or
# anything but a regular file) by name instead of blocking in open.
. "$(dirname "$0")/lib.sh"
SET=$WORK/set
VICTIM=$WORK/victim
mkdir "$SET" "$VICTIM"

# --- a planted link: evil -> the victim's directory, evil/precious added to the manifest.
expect_status 0 "$VP" data prepare --source "$SET" --files 4 --file-size 8k --seed 3
printf 'precious\n' >"$VICTIM/precious"
ln -s "$VICTIM" "$SET/evil"
python3 - "$SET/virtperf-manifest.json" <<'PY' || fail "cannot plant the manifest entries"
import json, sys
m = json.load(open(sys.argv[1]))
m["files"].append({"name": "evil/precious", "size": 9, "sha256": "0" * 64})
json.dump(m, open(sys.argv[1], "w"))
PY
head -c 8192 /dev/urandom >"$SET/file-00001.dat" # same size, not the seeded content
if [ "$(id -u)" -eq 0 ]; then chown nobody "$SET/file-00002.dat"; fi
expect_status 1 "$VP" data remove --source "$SET"
[ -e "$VICTIM/precious" ] || fail "data remove deleted a file through a planted link"
expect_contains "$WORK/err" "kept evil/precious: a part of the name is a symbolic link"
expect_contains "$WORK/err" "kept file-00001.dat: not the content prepare laid out (seed 3)"
if [ "$(id -u)" -eq 0 ]; then
    expect_contains "$WORK/err" "kept file-00002.dat: owned by uid"
    [ -e "$SET/file-00002.dat" ] || fail "data remove deleted another user's file"
fi
[ -e "$SET/file-00001.dat" ] || fail "data remove deleted a file that is not what prepare laid out"
[ ! -e "$SET/file-00000.dat" ] && [ ! -e "$SET/file-00003.dat" ] || fail "data remove kept its own files"
[ -e "$SET/virtperf-manifest.json" ] || fail "the manifest went while files it lists were kept"
expect_contains "$WORK/out" "removed 2 of the 5 files virtperf-manifest.json listed"
# A truncated file is kept too (not the manifest's size).
rm -rf "$SET" && mkdir "$SET"
expect_status 0 "$VP" data prepare --source "$SET" --files 2 --file-size 8k --seed 3
truncate -s 4096 "$SET/file-00000.dat"
expect_status 1 "$VP" data remove --source "$SET"
expect_contains "$WORK/err" "kept file-00000.dat: 4096 bytes, the manifest says 8192"

# --- a prepare killed with SIGKILL: resumed by the same prepare, cleared by another.
kill_prepare() { # ARGS...: starts prepare and kills it once its second file is being written
    "$VP" data prepare --source "$SET" "$@" 2>/dev/null &
    local pid=$!
    for _ in $(seq 1 400); do
        [ -e "$SET/file-00001.dat.virtperf-tmp" ] && break
        sleep 0.01
    done
    kill -KILL $pid
    { wait $pid; } 2>/dev/null
    [ $? -eq 137 ] || fail "the prepare to kill had ended before its second file"
    [ -e "$SET/file-00000.dat" ] || fail "no complete file before the kill"
}
rm -rf "$SET" && mkdir "$SET"
kill_prepare --files 3 --file-size 48m --seed 5
expect_status 0 "$VP" data prepare --source "$SET" --files 3 --file-size 48m --seed 5
expect_contains "$WORK/out" "kept 1 complete files an interrupted prepare of this fileset left"
(cd "$SET" && python3 -c '
import hashlib, json
m = json.load(open("virtperf-manifest.json"))
assert all(hashlib.sha256(open(f["name"], "rb").read()).hexdigest() == f["sha256"] for f in m["files"])
assert m["seed"] == 5 and len(m["files"]) == 3') || fail "a resumed prepare's manifest does not match its files"
[ -z "$(ls -A "$SET" | grep -v -e '^file-0000[0-2].dat$' -e '^virtperf-manifest.json$')" ] ||
    fail "a resumed prepare left other files: $(ls -A "$SET")"
expect_status 0 "$VP" data remove --source "$SET"
kill_prepare --files 3 --file-size 48m --seed 5
expect_status 0 "$VP" data prepare --source "$SET" --files 2 --file-size 4k --seed 9
expect_contains "$WORK/err" "removed the 2 files an interrupted prepare of another fileset left"
expect_status 0 "$VP" data remove --source "$SET"
kill_prepare --files 3 --file-size 48m --seed 5
expect_status 0 "$VP" data remove --source "$SET"
expect_contains "$WORK/out" "removed 2 of the 3 files .virtperf-prepare.json listed, and it"
[ -z "$(ls -A "$SET")" ] || fail "remove left what a killed prepare made: $(ls -A "$SET")"

# --- a FIFO in place of a file: refused by name at once, not a job blocked in open.
expect_status 0 "$VP" data prepare --source "$SET" --files 3 --file-size 64k
rm "$SET/file-00001.dat" && mkfifo "$SET/file-00001.dat"
for bench in data.read data.copy; do
    expect_status 1 timeout 60 "$VP" run $bench --source "$SET" --per-job 3 --reps 1 --warmup 0 \
        --quiet --json "$WORK/fifo.json"
    json_check "$WORK/fifo.json" '"file-00001.dat: a FIFO; accepted: a regular file" in d["results"][0]["error"]' \
        "$bench: a FIFO in the fileset is not refused by name"
done

# --- a read that never returns (a hung mount: a FUSE filesystem whose reads of one file
# block until it is unmounted; no signal ends the kernel's wait): the job is ended once
# the request has taken --timeout, and the result names the file.
[ -c /dev/fuse ] || skip "no /dev/fuse for the hung-mount check"
/usr/bin/python3 -c 'import fusepy' 2>/dev/null || skip "Debian's python3-fusepy is not installed (scripts/deps.sh test)"
rm -rf "$SET" && mkdir "$SET"
expect_status 0 "$VP" data prepare --source "$SET" --files 3 --file-size 64k
HUNG=$WORK/hung
mkdir "$HUNG"
/usr/bin/python3 "$(dirname "$0")/stall_fs.py" "$SET" "$HUNG" file-00001.dat "$WORK/release" &
fuse_pid=$!
trap 'touch "$WORK/release"; sleep 0.3; umount -l "$HUNG" 2>/dev/null; kill -9 $fuse_pid 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 1 100); do [ -e "$HUNG/virtperf-manifest.json" ] && break; sleep 0.05; done
[ -e "$HUNG/virtperf-manifest.json" ] || fail "the FUSE filesystem did not come up"
started=$SECONDS
expect_status 1 timeout -s KILL 60 "$VP" run data.read --source "$HUNG" --per-job 3 --timeout 2s \
    --reps 1 --warmup 0 --quiet --json "$WORK/hung.json"
[ $((SECONDS - started)) -le 20 ] || fail "a hung read held the run $((SECONDS - started)) s with --timeout 2s"
json_check "$WORK/hung.json" '"file-00001.dat: read: no answer within --timeout 2 s" in d["results"][0]["error"]' \
    "a read blocked in the kernel did not fail its job by the deadline, naming the file"
expect_contains "$WORK/err" "does not end (blocked in the kernel, on a hung mount?): left behind"
touch "$WORK/release" # the hung read answers (EIO): the job left behind ends, the mount is free
for _ in $(seq 1 100); do umount "$HUNG" 2>/dev/null && break; sleep 0.1; done
wait $fuse_pid || fail "the FUSE filesystem did not exit 0 once unmounted"
trap 'rm -rf "$WORK"' EXIT
finish
