#!/bin/bash
# run --uml: the third kind of member (User-Mode Linux, Debian's user-mode-linux), one
# entry in the kinds table. 1 then 2 instances started together, each its own kernel
# named uml in its fingerprint, the CPU each cost this host counted from its processes,
# its jobs at native speed beside this host's (--and-host); a plan's uml = key; what UML
# cannot do refused by name; Ctrl-C leaves no instance and no directory behind.
. "$(dirname "$0")/lib.sh"
command -v linux >/dev/null || skip "the UML kernel is not installed (scripts/deps.sh uml)"
# ASan's shadow memory does not map in a UML instance's address space: under the
# sanitizers this host's side runs sanitized and the instances run the release build
if sanitized; then
    VIRTPERF_MEMBER_BINARY=$(cd "$(dirname "$VP")/.." && pwd)/build/virtperf
    [ -x "$VIRTPERF_MEMBER_BINARY" ] || skip "no release build beside $VP for the instances"
    export VIRTPERF_MEMBER_BINARY
fi
export VIRTPERF_CACHE="$WORK/cache"
cd "$WORK" || exit 1

# left_nothing WHAT: no UML kernel of this test's runs and no run directory remain
left_nothing() {
    pgrep -f "rootflags=$VIRTPERF_CACHE" >/dev/null && fail "$1: a UML instance is left: $(pgrep -af "rootflags=$VIRTPERF_CACHE")"
    ls -d /tmp/virtperf-UML* 2>/dev/null | while read -r dir; do
        [ "$(stat -c %U "$dir")" = "$(id -un)" ] && fail "$1: a run directory is left: $dir"
    done
}

expect_usage_error "--uml: '0' is not valid; accepted: a count" "$VP" run cpu --uml 0
expect_usage_error "--guest-cpus: only for the guests of a run" "$VP" run cpu --uml 1 --guest-cpus 2
expect_usage_error "--containers and --uml: one of them" "$VP" run cpu --uml 1 --containers 1
expect_usage_error "--uml: a net benchmark talks to a server on this host, and UML instances have no network here yet" \
    "$VP" run net.rr --uml 1
left_nothing "a refusal"

# 1 then 2 instances, each cpu job alone in its kernel; every figure of theirs checked
expect_status 0 "$VP" run cpu --uml 1..2 --ops 20m --reps 3 --json "$WORK/two.json"
expect_contains "$WORK/err" "2 UML instances started (uml)"
json_check "$WORK/two.json" '[r["ranks"]["count"] for r in d["results"]] == [1, 2] and all(r["status"] == "ok" for r in d["results"])' \
    "--uml 1..2: one result per count, each ok"
json_check "$WORK/two.json" 'all(h["fingerprint"]["hypervisor"]["name"] == "uml" and h["fingerprint"]["container"]["kind"] == "none" and h["fingerprint"]["uml"]["memory_mib"] == 256 for r in d["results"] for h in r["ranks"]["hosts"])' \
    "each instance's fingerprint names UML (not the host's CPUID, not a container), with its memory"
json_check "$WORK/two.json" '(lambda two: len({h["fingerprint"]["boot_id"] for h in two["ranks"]["hosts"]}) == 2 and two["guests"]["engine"] == "uml" and two["guests"]["members"] == "UML instances" and 0 < two["ranks"]["start_skew_bound_s"] < 0.01)(d["results"][1])' \
    "2 instances: two kernels, the kind recorded, started together within a bound"
# what each instance cost this host: its processes' CPU, its one busy job most of it
json_check "$WORK/two.json" 'all(g["cpu_pct"] > 30 for r in d["results"] for g in r["guests"]["hosts"])' \
    "each instance's CPU on this host should count its busy job"
left_nothing "a run"

# beside this host's own jobs, alternating: the same computation at native speed
expect_status 0 "$VP" run cpu --uml 2 --and-host --ops 20m --reps 4 --label beside
expect_contains "$WORK/out" "side: the UML instances', repetitions alternating with this host's own jobs"
expect_status 0 "$VP" compare beside --json "$WORK/beside.json"
json_check "$WORK/beside.json" '(lambda c: "2 jobs on 1 host / 1 job on each of 2 hosts" in c["paired"] and 0.5 < c["ratio"] < 2)(d["rows"][0]["candidates"][0])' \
    "--and-host: the UML instances' side against this host's, a computation near native speed"

# a plan's key is the kind's name
printf '[global]\numl = 1,2\n\n[c]\nbench = cpu\nops = 10m\n' >"$WORK/plan.ini"
expect_status 0 "$VP" run --plan "$WORK/plan.ini" --dry-run
expect_contains "$WORK/out" "# [c] in uml 1,2"

# Ctrl-C mid-run: exit 130, the finished result kept, every instance and directory gone
interrupt_run "$WORK/ctrl-c.out" "$VP" run cpu --uml 2 --duration 1s --reps 30 --label stopped
sleep 0.5
left_nothing "Ctrl-C"
[ "$(sqlite3 "$VIRTPERF_DB" "SELECT status FROM runs WHERE label = 'stopped'")" = interrupted ] ||
    fail "Ctrl-C: the run should be kept as interrupted"
finish
