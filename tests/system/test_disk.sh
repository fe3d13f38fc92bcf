#!/bin/bash
# disk.*: on a small loop-mounted ext4 (and a tmpfs), exact operation counts and bytes,
# --verify catching a corrupted file, free-space, path and O_DIRECT refusals (ramfs has
# no O_DIRECT; tmpfs has it since Linux 6.6), ENOSPC,
# Ctrl-C and killed jobs leaving no file behind, the cache warning, io_uring.
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -ne 0 ] || ! command -v mkfs.ext4 >/dev/null; then
    skip "needs root and mkfs.ext4 (e2fsprogs) for its loop filesystem"
fi
MNT="$WORK/ext4"
RAMFS="$WORK/ramfs"
RO="$WORK/readonly"
mkdir -p "$MNT" "$RAMFS" "$RO"
cleanup() {
    umount "$MNT" "$RAMFS" "$RO" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
truncate -s 96M "$WORK/fs.img"
mkfs.ext4 -q -F "$WORK/fs.img"
if ! mount -o loop "$WORK/fs.img" "$MNT" 2>"$WORK/err"; then
    skip "this machine refuses loop mounts: $(cat "$WORK/err")"
fi
mount -t ramfs ramfs "$RAMFS"
mount -t tmpfs -o size=1m,ro tmpfs "$RO"

leftovers() { find "$1" -name 'virtperf-*' | tr '\n' ' '; }

# Exact counts: every operation of every job and measured repetition is in the histogram,
# and the device saw at least the bytes the jobs wrote (O_DIRECT, fsync on).
expect_status 0 "$VP" run disk.write disk.read --path "$MNT" --size 8m --bs 64k --jobs 2 --reps 2 --quiet --json "$WORK/doc.json"
json_check "$WORK/doc.json" 'all(r["status"] == "ok" and r["metrics"]["latency"]["distribution"]["count"] == 128 * 2 * 2 for r in d["results"])' "histogram counts are not ops x jobs x reps"
json_check "$WORK/doc.json" '(lambda r: r["device"]["write_bytes"] >= 0.9 * 2 * 2 * 8 * 2**20 and r["device"]["fstype"] == "ext4" and "warnings" not in r)(d["results"][0])' "device counters for disk.write"
json_check "$WORK/doc.json" '(lambda r: r["device"]["read_bytes"] >= 0.9 * 2 * 2 * 8 * 2**20 and "warnings" not in r)(d["results"][1])' "device counters for disk.read"
json_check "$WORK/doc.json" 'all(set(("throughput", "io_throughput", "iops", "latency", "open_time", "io_time", "fsync_time", "close_time", "stonewall_throughput", "span_throughput")) <= set(r["metrics"]) for r in d["results"])' "disk metric names"
json_check "$WORK/doc.json" 'all(r["metrics"]["io_throughput"]["mean"] >= r["metrics"]["throughput"]["mean"] and abs(r["metrics"]["iops"]["mean"] * 65536 / r["metrics"]["io_throughput"]["mean"] - 1) < 1e-6 for r in d["results"])' "io_throughput, throughput and iops disagree"
json_check "$WORK/doc.json" 'd["results"][0]["metrics"]["fsync_time"]["mean"] > 0 and d["results"][1]["metrics"]["fsync_time"]["mean"] == 0' "fsync timed on writes only"
[ -z "$(leftovers "$MNT")" ] || fail "files left after a run: $(leftovers "$MNT")"

# Buffered reread comes from the page cache, and says so.
expect_status 0 "$VP" run disk.reread --path "$MNT" --size 8m --direct=off --reps 2 --quiet --json "$WORK/reread.json"
json_check "$WORK/reread.json" 'any("served from cache" in w for w in d["results"][0].get("warnings", []))' "buffered reread not flagged as served from cache"

# --keep leaves exactly --size bytes; --verify passes on it, then catches a corrupted byte.
expect_status 0 "$VP" run disk.write --path "$MNT" --size 4m --keep --reps 1 --warmup 0 --quiet
[ "$(stat -c %s "$MNT/virtperf-job0.dat")" = 4194304 ] || fail "kept file is not 4 MiB"
expect_status 0 "$VP" run disk.read --path "$MNT" --size 4m --reuse --verify --reps 1 --quiet
printf 'X' | dd of="$MNT/virtperf-job0.dat" bs=1 seek=3000000 conv=notrunc status=none
expect_status 1 "$VP" run disk.read --path "$MNT" --size 4m --reuse --verify --reps 1 --quiet --json "$WORK/verify.json"
json_check "$WORK/verify.json" '"byte 3000000 does not hold what was written" in d["results"][0]["error"]' "--verify missed the corrupted byte"
expect_status 0 "$VP" run disk.rewrite disk.randwrite --path "$MNT" --size 4m --bs 4k --verify --reps 2 --quiet
rm -f "$MNT/virtperf-job0.dat"

# --preallocate=on (fio's layout) reserves the whole file before a write that --duration
# stops early, so the kept file is --size bytes of allocated blocks; without it the write
# allocates as it goes and the file ends where the write stopped. ramfs cannot reserve:
# refused before anything runs.
for preallocate in on off; do
    expect_status 0 "$VP" run disk.write --path "$MNT" --size 32m --bs 4k --direct=on --duration 20ms --preallocate=$preallocate --keep --reps 1 --warmup 0 --quiet --json "$WORK/prealloc.json"
    written=$(python3 -c 'import json, sys; print(int(json.load(open(sys.argv[1]))["results"][0]["metrics"]["ops"]["mean"]) * 4096)' "$WORK/prealloc.json")
    read -r size blocks < <(stat -c '%s %b' "$MNT/virtperf-job0.dat")
    if [ "$preallocate" = on ]; then
        [ "$size" = 33554432 ] && [ $((blocks * 512)) -ge 33554432 ] || fail "--preallocate=on: the kept file is $size bytes in $blocks blocks, not 32 MiB reserved"
    else
        [ "$size" = "$written" ] && [ "$size" -lt 33554432 ] || fail "--preallocate=off: the kept file is $size bytes, the write wrote $written"
    fi
    rm -f "$MNT/virtperf-job0.dat"
done
expect_usage_error "--preallocate=on: ramfs at $RAMFS cannot reserve blocks (fallocate); accepted there: --preallocate=off" "$VP" run disk.write --path "$RAMFS" --size 1m --preallocate=on --quiet

# Links planted at the names virtperf uses: never followed. A mode-600 file of root's
# behind a link at the kept name survives --keep (the kept file replaces the link) and
# --reuse (refused); a kept file of another user's is refused too.
printf 'secret\n' >"$WORK/victim"
chmod 600 "$WORK/victim"
ln -s "$WORK/victim" "$MNT/virtperf-job0.dat"
expect_status 1 "$VP" run disk.read --path "$MNT" --size 4m --reuse --reps 1 --warmup 0 --quiet --json "$WORK/link.json"
json_check "$WORK/link.json" '"--reuse: " in d["results"][0]["error"] and "a link is never followed" in d["results"][0]["error"]' "--reuse followed a link"
expect_status 0 "$VP" run disk.write disk.rewrite --path "$MNT" --size 4m --keep --reps 2 --quiet
[ "$(cat "$WORK/victim")" = secret ] || fail "a write through a planted link changed the victim file"
[ -f "$MNT/virtperf-job0.dat" ] && [ ! -L "$MNT/virtperf-job0.dat" ] || fail "--keep did not replace the planted link with its file"
chown nobody "$MNT/virtperf-job0.dat"
expect_status 1 "$VP" run disk.read --path "$MNT" --size 4m --reuse --reps 1 --warmup 0 --quiet --json "$WORK/other.json"
json_check "$WORK/other.json" '"is not a regular file of uid 0" in d["results"][0]["error"]' "--reuse read another user's file"
rm -f "$MNT/virtperf-job0.dat"
[ -z "$(leftovers "$MNT")" ] || fail "files left after the link checks: $(leftovers "$MNT")"

# Refusals: exit 2, one line, nothing written.
count_runs
runs_before=$RUNS
expect_usage_error "GiB for 1 jobs x 1 GiB, " "$VP" run disk.write --path "$MNT" --size 1g
expect_contains "$WORK/err" "(ext4)"
expect_usage_error "no such directory" "$VP" run disk.read --path "$WORK/nowhere"
expect_usage_error "not a directory" "$VP" run disk.read --path "$WORK/fs.img"
expect_usage_error "not writable" "$VP" run disk.write --path "$RO"
expect_usage_error "--size 100000 is not a multiple of --bs 65536" "$VP" run disk.write --path "$MNT" --size 100000
expect_usage_error "--iodepth above 1 needs --engine=io_uring" "$VP" run disk.randread --path "$MNT" --iodepth 4
expect_usage_error "--direct=on: ramfs at $RAMFS refuses O_DIRECT" "$VP" run disk.write --path "$RAMFS" --size 4m --direct=on
expect_runs "$runs_before" "refused runs were stored"
expect_status 0 "$VP" run disk.write disk.read --path "$RAMFS" --size 4m --reps 2 --quiet --json "$WORK/ramfs.json"
json_check "$WORK/ramfs.json" 'all(any("O_DIRECT refused by ramfs" in w for w in r["warnings"]) and any("no block device counters for ramfs" in w for w in r["warnings"]) for r in d["results"])' "ramfs fallback not said"
[ -z "$(leftovers "$RAMFS")" ] || fail "files left on ramfs: $(leftovers "$RAMFS")"

# --duration (fio's time_based): a small file's blocks go round and round in their seeded
# order until the time is up, every operation counted; random writes verify block by
# block against what was last written, with psync and with io_uring in flight.
expect_status 0 "$VP" run disk.randread --path "$MNT" --size 1m --bs 4k --duration 500ms --reps 2 --warmup 0 --quiet --json "$WORK/timed.json"
json_check "$WORK/timed.json" '(lambda m: m["ops"]["mean"] > 256 and m["latency"]["distribution"]["count"] == sum(m["ops"]["values"]) and 0.45 <= m["io_time"]["mean"] < 0.7 and all(abs(i * t / o - 1) < 1e-9 for i, t, o in zip(m["iops"]["values"], m["io_time"]["values"], m["ops"]["values"])))(d["results"][0]["metrics"])' "--duration: not time-bound or its ops miscounted"
json_check "$WORK/timed.json" 'd["results"][0]["duration_s"] == 0.5 and "stonewall_throughput" in d["results"][0]["metrics"]' "--duration not stored, or the op log dropped"
expect_status 0 "$VP" run disk.randwrite disk.rewrite --path "$MNT" --size 1m --bs 4k --duration 300ms --verify --reps 2 --quiet --json "$WORK/timedw.json"
json_check "$WORK/timedw.json" 'all(r["metrics"]["ops"]["mean"] > 256 for r in d["results"])' "--duration writes did not go round"
expect_status 0 "$VP" run disk.randwrite --path "$MNT" --size 8m --bs 4k --duration 200ms --verify --engine io_uring --iodepth 8 --reps 2 --quiet
json_check "$WORK/doc.json" 'all(r["metrics"]["ops"]["values"] == [256.0, 256.0] for r in d["results"])' "without --duration: one pass, every block once"

# io_uring with requests in flight.
expect_status 0 "$VP" run disk.randread --path "$MNT" --size 8m --bs 4k --engine io_uring --iodepth 8 --reps 2 --quiet --json "$WORK/uring.json"
json_check "$WORK/uring.json" 'd["results"][0]["metrics"]["latency"]["distribution"]["count"] == 2048 * 2' "io_uring op count"

# ENOSPC: the filesystem fills up after the free-space check passed (another writer
# takes what is left); the result fails with the errno text and the file goes. With 64k
# blocks the last write is short (what fits is written): its reason is still ENOSPC.
"$VP" run disk.write --path "$MNT" --size 40m --bs 64k --sync=on --reps 1 --warmup 0 --quiet >"$WORK/full.out" 2>&1 &
runner=$!
for _ in $(seq 1 400); do [ -n "$(leftovers "$MNT")" ] && break; sleep 0.05; done
free_kib=$(df -k --output=avail "$MNT" | tail -1)
fallocate -l "$((free_kib - 256))K" "$MNT/filler" 2>/dev/null || dd if=/dev/zero of="$MNT/filler" bs=1M status=none 2>/dev/null
wait $runner
[ $? -eq 1 ] || fail "a full filesystem: want exit 1: $(cat "$WORK/full.out")"
grep -q "No space left on device" "$WORK/full.out" || fail "ENOSPC not reported: $(cat "$WORK/full.out")"
[ -z "$(leftovers "$MNT")" ] || fail "files left after ENOSPC: $(leftovers "$MNT")"
rm -f "$MNT/filler"
# A short write (a full tmpfs writes what fits; here a file size limit 12 KiB past a 64k
# block) is followed by one for the rest, which says why.
expect_status 1 bash -c 'trap "" XFSZ; ulimit -f 4108; exec "$0" run disk.write --path "$1" --size 8m --bs 64k --direct=off --reps 1 --warmup 0 --quiet' "$VP" "$MNT"
expect_contains "$WORK/out" "at byte 4194304: File too large (after 12288 of 65536 bytes)"

# Ctrl-C and a killed job: no file left behind.
"$VP" run disk.write --path "$MNT" --size 32m --bs 4k --sync=on --reps 100 --quiet >/dev/null 2>&1 &
runner=$!
for _ in $(seq 1 400); do [ -n "$(leftovers "$MNT")" ] && break; sleep 0.05; done
[ -n "$(leftovers "$MNT")" ] || fail "disk.write never created its file"
kill -INT $runner
wait $runner
[ $? -eq 130 ] || fail "SIGINT during disk.write: want exit 130"
[ -z "$(leftovers "$MNT")" ] || fail "files left after SIGINT: $(leftovers "$MNT")"
"$VP" run disk.write --path "$MNT" --size 16m --bs 4k --sync=on --reps 100 --jobs 2 --quiet >/dev/null 2>&1 &
runner=$!
job=
for _ in $(seq 1 400); do
    job=$(pgrep -P $runner | head -1)
    [ -n "$job" ] && [ -n "$(leftovers "$MNT")" ] && break
    sleep 0.05
done
[ -n "$job" ] || fail "disk.write --jobs 2 never started a job"
kill -KILL "$job"
wait $runner
[ $? -eq 1 ] || fail "a killed disk job: want exit 1"
[ -z "$(leftovers "$MNT")" ] || fail "files left after a killed job: $(leftovers "$MNT")"

# The whole run killed (SIGKILL: nothing of it can clean up): its directory stays until
# the next run on the same --path, which removes it and says so; one whose owner still
# runs, or that does not say who owns it, is left alone.
"$VP" run disk.write --path "$MNT" --size 16m --bs 4k --sync=on --reps 100 --quiet >/dev/null 2>&1 &
runner=$!
for _ in $(seq 1 400); do [ -n "$(leftovers "$MNT")" ] && break; sleep 0.05; done
left=$(leftovers "$MNT")
kill -KILL $runner
{ wait $runner; } 2>/dev/null
[ $? -eq 137 ] || fail "the run to kill had ended before SIGKILL"
pkill -KILL -P $runner 2>/dev/null
[ -n "$left" ] || fail "the killed run made no directory"
mkdir "$MNT/virtperf-notours"
sleep 1000 & sleeper=$!
mkdir "$MNT/virtperf-alive" && printf '%s %s %s\n' $sleeper "$(awk '{print $22}' /proc/$sleeper/stat)" "$(cat /proc/sys/kernel/random/boot_id)" >"$MNT/virtperf-alive/.virtperf-owner"
expect_status 0 "$VP" run disk.write --path "$MNT" --size 1m --reps 1 --warmup 0 --quiet
expect_contains "$WORK/err" "removing ${left% }, left by a virtperf (pid $runner) that is gone"
[ "$(leftovers "$MNT" | tr ' ' '\n' | grep -v -e notours -e alive | grep -c .)" -eq 0 ] || fail "a killed run's directory was not reclaimed: $(leftovers "$MNT")"
[ -d "$MNT/virtperf-notours" ] && [ -d "$MNT/virtperf-alive" ] || fail "a directory that is not an orphan of ours was removed"
kill $sleeper
wait $sleeper 2>/dev/null
[ $? -eq 143 ] || fail "the stand-in owner process had ended before the test stopped it"
rm -rf "$MNT/virtperf-notours" "$MNT/virtperf-alive"
finish
