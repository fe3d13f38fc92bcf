#!/bin/bash
# The fingerprint's memory-copy speed (memory.copy_bandwidth) is measured once per boot and
# kept in $VIRTPERF_CACHE: the first command measures it (128 MiB for a moment), the next
# read it and hold none of that memory; a figure kept from another boot is measured again;
# one measured while every CPU was busy is kept as busy and never enters a fingerprint.
. "$(dirname "$0")/lib.sh"

export VIRTPERF_CACHE="$WORK/cache"
mkdir -p "$VIRTPERF_CACHE"
KEPT="$VIRTPERF_CACHE/memory-copy-speed"
BOOT_ID=$(cat /proc/sys/kernel/random/boot_id)

# peak RSS in KiB of one command, which must succeed
peak_rss() {
    python3 - "$@" <<'PY'
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
if done.returncode != 0:
    sys.exit(f"{sys.argv[1:]} exited {done.returncode}")
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
}

first=$(peak_rss "$VP" run null --reps 1 --warmup 0 --quiet --db "$WORK/db") || fail "the first run failed"
read -r kept_boot rate state <"$KEPT" || fail "the first run kept no figure in $KEPT"
[ "$kept_boot" = "$BOOT_ID" ] || fail "the kept figure is for boot $kept_boot, not this one ($BOOT_ID)"
python3 -c 'import sys; sys.exit(not float(sys.argv[1]) > 1e8)' "$rate" || fail "kept copy speed $rate B/s is not a measurement"
second=$(peak_rss "$VP" run null --reps 1 --warmup 0 --quiet --db "$WORK/db") || fail "the second run failed"
[ "$second" -lt $((first - 65536)) ] || fail "the second run held ${second} KiB at its peak, the measuring one ${first} KiB: it measured again"
cmp -s <(echo "$kept_boot $rate $state") "$KEPT" || fail "the second run changed the kept figure: $(cat "$KEPT")"
if [ "$state" = quiet ]; then
    expect_status 0 "$VP" sysinfo --json
    json_check "$WORK/out" "d['fingerprint']['memory']['copy_bandwidth'] == float('$rate')" "the fingerprint does not carry the kept quiet figure"
fi

# Another boot's figure is measured again, for this boot.
echo "00000000-0000-0000-0000-000000000000 123456789 quiet" >"$KEPT"
expect_status 0 "$VP" run null --reps 1 --warmup 0 --quiet --db "$WORK/db"
read -r kept_boot rate state <"$KEPT"
[ "$kept_boot" = "$BOOT_ID" ] && [ "$rate" != 123456789 ] || fail "another boot's figure was kept: $(cat "$KEPT")"

# Every CPU busy (two spinners per CPU): the figure is kept as busy and left out.
rm -f "$KEPT"
spinners=()
for _ in $(seq $((2 * $(nproc)))); do
    sh -c 'while :; do :; done' &
    spinners+=($!)
done
"$VP" sysinfo --json >"$WORK/busy.json" 2>"$WORK/err"
status=$?
for pid in "${spinners[@]}"; do
    kill "$pid"
    wait "$pid"
    [ $? -eq 143 ] || fail "spinner $pid did not end by its SIGTERM"
done
[ "$status" -eq 0 ] || fail "sysinfo on a busy machine exited $status: $(cat "$WORK/err")"
read -r kept_boot rate state <"$KEPT" || fail "nothing kept on a busy machine"
[ "$state" = busy ] || fail "a figure measured beside $((2 * $(nproc))) spinners was kept as $state"
json_check "$WORK/busy.json" '"copy_bandwidth" not in d["fingerprint"]["memory"]' "a busy figure entered the fingerprint"

finish
