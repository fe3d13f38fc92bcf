#!/bin/bash
# Each study's quick plan runs here, every step ok: IHEP 2010, CNAF 2007, SPring-8 2005,
# and GridKa on a fileset one store serves over NFS (nfs-ganesha) and XRootD, with each
# protocol's network input and the read size's effect;
# two runs of the IHEP plan come back as its steps, then (the study's words and figures,
# its penalties beside the rows they stand for) and now (with penalties and intervals),
# in compare, results show and the report; CNAF's figures sit on the job counts they were
# given for; SPring-8's RPC step says where it stops scaling.
. "$(dirname "$0")/lib.sh"
PLANS="$(cd "$(dirname "$0")/../.." && pwd)/plans"
PORT=$((10000 + $$ % 20000)) # below the ephemeral ports
NETNS_CLIENT=vpgk-c-$$
NETNS_STORE=vpgk-s-$$
cleanup() {
    [ -n "${XROOTD_PID:-}" ] && kill -9 "$XROOTD_PID" 2>/dev/null
    [ -n "${GANESHA_PID:-}" ] && kill -9 "$GANESHA_PID" 2>/dev/null
    ip netns pids "$NETNS_STORE" 2>/dev/null | xargs -r kill -9
    ip netns del "$NETNS_CLIENT" 2>/dev/null
    ip netns del "$NETNS_STORE" 2>/dev/null
    rm -rf "$WORK" "${XROOTD_HOME:-/nonexistent}" "${GANESHA_HOME:-/nonexistent}"
}
trap cleanup EXIT
cd "$WORK" || exit 1

all_ok() { # FILE STEPS: every result ok, as many as plan-check counted
    json_check "$1" 'len(d["results"]) > 0 and all(r["status"] == "ok" for r in d["results"]) and d["run"].get("plan")' \
        "$(basename "$1"): every result of the plan should be ok"
}
# (the IHEP plan with its 5 repetitions a step, compared below, its streams 0.3 s each
# instead of 1 s and its iozone files 8 MiB instead of 32; the other two with 2
# repetitions, CNAF's streams 0.3 s and its clock step 0.5 s, for time: what is checked
# of them is their tables), on this host alone:
# their guest steps as the guests' jobs at once (--no-guests; test_guests runs a plan's
# steps in guests)
ihep_shorter=(--set network.duration=0.3s --set disk.size=8m)
for study in ihep-2010 cnaf-2007 spring8-2005; do
    fewer=("${ihep_shorter[@]}")
    [ "$study" = ihep-2010 ] || fewer=(--set global.reps=2)
    [ "$study" = cnaf-2007 ] && fewer+=(--set network.duration=0.3s --set clock.duration=0.5s)
    [ "$study" = spring8-2005 ] && fewer+=(--set interruption.duration=1s) # 10 s: for a migration
    expect_status 0 "$VP" run --plan "$PLANS/$study-quick.ini" --no-guests "${fewer[@]}" --label "$study" --quiet --json "$WORK/$study.json"
    all_ok "$WORK/$study.json"
done
# the IHEP plan again, as a second environment: its steps then and now
expect_status 0 "$VP" run --plan "$PLANS/ihep-2010-quick.ini" --no-guests "${ihep_shorter[@]}" --label ihep-again --quiet
expect_status 0 "$VP" compare ihep-2010 ihep-again
expect_contains "$WORK/out" "[disk]"
# the quick plans take 5 repetitions: their comparisons end in verdicts
grep -q "not enough repetitions" "$WORK/out" && fail "a quick plan's comparison gave no verdict: $(grep -m3 'not enough repetitions' "$WORK/out")"
expect_contains "$WORK/out" "  then: write penalty ~10%, read ~40%"
expect_contains "$WORK/out" "  then, figures: disk.write throughput penalty +10%; disk.read throughput penalty +40%"
grep -qE '^ +ihep-again: .* [+-][0-9.]+% \[[+-][0-9.]+, [+-][0-9.]+\]' "$WORK/out" ||
    fail "compare should give each step's penalty with its interval: $(grep -A3 '^\[disk\]' "$WORK/out")"
# the study's penalty beside the penalty now, on the rows it stands for and no other
[ "$(grep -A1 -E '^  disk.write throughput ' "$WORK/out" | grep -cE '^ +ihep-again: .*\] .*\(then \+10%\)$')" -ge 1 ] &&
    [ "$(grep -A1 -E '^  disk.read throughput ' "$WORK/out" | grep -cE '^ +ihep-again: .*\(then \+40%\)$')" -ge 1 ] &&
    ! grep -A1 -E '^  disk.rewrite throughput ' "$WORK/out" | grep -q '(then ' ||
    fail "compare should give the study's penalty beside write's and read's: $(grep -A12 '^\[disk\]' "$WORK/out")"
expect_status 0 "$VP" results show ihep-2010
grep -qE '^  disk.write throughput +jobs 2 .* per job .* / .* / .* / ' "$WORK/out" ||
    fail "results show should give the per-job spread of each step's results"
expect_status 0 "$VP" report ihep-2010 ihep-again -o "$WORK/ihep.html"
expect_contains "$WORK/ihep.html" "The plan's steps, then and now"
expect_contains "$WORK/ihep.html" "write penalty ~10%"
expect_contains "$WORK/ihep.html" "(then +10%)"
# it opens with the study, then the headline verdicts (the rest folded), curves, monitor
python3 - "$WORK/ihep.html" <<'PY' || fail "the report should open with the study's steps, then the headline verdicts, with every other metric folded"
import sys
page = open(sys.argv[1]).read()
order = [page.find(t) for t in ("The plan's steps, then and now", "<h2>Verdicts against", "<h2>Environments", "<h2>Monitor")]
assert all(i >= 0 for i in order) and order == sorted(order), order
verdicts = page[order[1]:page.find("<h2>Environments")]
folded = verdicts.find("<details><summary>Every other metric")
assert folded > 0, "nothing folded"
assert "disk.write" in verdicts[:folded] and ">throughput<" in verdicts[:folded], "the headline rows"
assert ">open_time<" not in verdicts[:folded] and ">open_time<" in verdicts[folded:], "open_time should be folded"
PY
# CNAF 2007: the study's bandwidth beside now's, at the job counts it stands for
expect_status 0 "$VP" results show cnaf-2007
# (as the plan gave it, the study's own words and unit, then in this run's unit)
grep -A12 '^\[contention-one-socket\]' "$WORK/out" | grep -qE '^  mem.write bandwidth +jobs 1 .* then 1.39 GB/s \(1.29[0-9]* GiB/s\) ' &&
    grep -A12 '^\[contention-one-socket\]' "$WORK/out" | grep -qE '^  mem.write bandwidth +jobs 2 .* then 1.75 GB/s \(1.6[0-9]* GiB/s\) ' ||
    fail "CNAF 2007: each job count's row should carry the study's figure for it: $(grep -A12 '^\[contention-one-socket\]' "$WORK/out")"
grep -qE '^  disk.write throughput .* then 0.32 Gb/s \(40 MB/s\) ' "$WORK/out" ||
    fail "CNAF 2007: the study's 0.32 Gb/s should read as it wrote it: $(grep -E '^  disk.write throughput' "$WORK/out")"
json_check "$WORK/cnaf-2007.json" 'any(r["bench"] == "mem.write" and r["pin"] == "spread" for r in d["results"])' \
    "CNAF 2007's contention step should pin spread"
expect_status 0 "$VP" results show spring8-2005
grep -qE '^  optimum: net.rr latency: [0-9]+ jobs? \(QoS: ' "$WORK/out" ||
    fail "SPring-8 2005: the RPC step should say where it stops scaling: $(grep -A6 '^\[rpc\]' "$WORK/out")"
json_check "$WORK/spring8-2005.json" 'sorted(r["jobs"] for r in d["results"] if r["bench"] == "net.rr") == [1, 2, 4] and all(r["params"]["size"] == 350 for r in d["results"] if r["bench"] == "net.rr")' \
    "SPring-8 2005: 350-byte RPCs at 1, 2 and 4 (ranks on one host)"

# GridKa: one store serving the same fileset over NFS (nfs-ganesha) and XRootD, in a
# network namespace of its own, the plan run from another: job time and network input
# for each protocol at each job count, and the read size's effect
chmod 755 "$WORK"
mkdir "$WORK/gridka-set"
expect_status 0 "$VP" data prepare --source ./gridka-set --files 8 --file-size 4m
two_hosts "$NETNS_CLIENT" "$NETNS_STORE" 198.18.14
start_ganesha "$WORK/gridka-set" "$NETNS_STORE" 198.18.14.2
start_xrootd "$WORK/gridka-set" "$PORT" $((PORT + 1)) "$NETNS_STORE"
STORE_ROOT=root://198.18.14.2:$PORT/$WORK/gridka-set
STORE_NFS=nfs://198.18.14.2$WORK/gridka-set
# (its guest step's jobs at once here: test_guests_programs reads an xrootd from a guest)
expect_status 0 ip netns exec "$NETNS_CLIENT" "$VP" run --plan "$PLANS/gridka-quick.ini" --no-guests --set global.reps=3 \
    --set "nfs-4k.source=$STORE_NFS" --set "nfs-512k.source=$STORE_NFS" \
    --set "xrootd-4k.source=$STORE_ROOT" --set "xrootd-512k.source=$STORE_ROOT" \
    --set "xrootd-512k-guests.source=$STORE_ROOT" --label gridka --quiet --json "$WORK/gridka.json"
all_ok "$WORK/gridka.json"
python3 - "$WORK/gridka.json" <<'PY' || fail "GridKa: each protocol's job time and network input at 1, 2, 4 jobs x 4k, 512k, the guest step's 2 x 2 jobs here, 4 KiB reads slower"
import json, sys
results = json.load(open(sys.argv[1]))["results"]
assert len(results) == 13 and results[-1]["jobs"] == 4, [(r["step"], r["jobs"]) for r in results]
assert sorted({r["data"]["scheme"] for r in results}) == ["nfs", "root"]
for r in results:
    # the store's bytes crossed the client's link once: counted, not twice, not missed
    read = r["metrics"]["bytes"]["mean"] * r["reps"]
    received = r["data"]["network_rx_bytes"]
    assert 0.95 * read <= received <= 1.5 * read, (r["step"], r["jobs"], read, received)
def job_time(step, jobs):
    return next(r["metrics"]["job_time"]["mean"] for r in results if r["step"] == step and r["jobs"] == jobs)
# one request in flight a job: 4 KiB reads take 128 round trips where 512 KiB take one
for proto in ("nfs", "xrootd"):
    small, large = job_time(proto + "-4k", 1), job_time(proto + "-512k", 1)
    print("%s: one job's time %.1f ms at 4 KiB, %.1f ms at 512 KiB" % (proto, small * 1e3, large * 1e3))
    assert small > 1.5 * large, (proto, small, large)
PY
expect_status 0 "$VP" results show gridka
for step in nfs-4k nfs-512k xrootd-4k xrootd-512k xrootd-512k-guests; do
    expect_contains "$WORK/out" "[$step]"
done
grep -qE "source nfs://198.18.14.2.* \(nfs, 8 files\): network in [0-9.]+ [KMG]iB" "$WORK/out" ||
    fail "results show should give the NFS steps' network input: $(grep -m2 'source nfs' "$WORK/out")"
stop_xrootd
stop_ganesha
finish
