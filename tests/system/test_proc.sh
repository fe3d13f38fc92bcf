#!/bin/bash
# /proc files that break a parser never turn into figures. In a private mount namespace,
# /proc/stat is replaced by (1) a large file as a 256-CPU host writes it, which must be
# read whole, and (2) text no parser accepts. A static file has no tick deltas, so the
# CPU figures of a net result cannot be measured: they must be left out with a warning
# saying why, never reported as 0, while the rest of the result stands. With text no
# parser accepts the monitor cannot sample: the result fails naming /proc/stat. The
# fingerprint's steal is read from the whole large file, and is "unknown" with an
# advisory for the unparsable one.
. "$(dirname "$0")/lib.sh"
unshare -m true 2>/dev/null || skip "needs mount namespaces (unshare -m) and root"

python3 - "$WORK/large_stat" <<'PY'
import sys
with open(sys.argv[1], "w") as out:
    out.write("cpu  9000 10 800 50000 30 4 5 2000 0 0\n")
    for cpu in range(256):
        out.write(f"cpu{cpu} 35 0 3 195 0 0 0 8 0 0\n")
    out.write("intr 123456789" + " 3" * 200000 + "\n")
    out.write("ctxt 987654\nbtime 1\nprocesses 5\nprocs_running 4\nprocs_blocked 0\n")
PY
printf 'not a /proc/stat\n' >"$WORK/garbage_stat"

# in_namespace STAT_FILE CMD...: runs CMD with STAT_FILE over /proc/stat
in_namespace() {
    local stat=$1
    shift
    unshare -m sh -c 'mount --make-rprivate / && mount --bind "$0" /proc/stat && exec "$@"' \
        "$stat" "$@"
}

expect_status 0 in_namespace "$WORK/large_stat" "$VP" run net.rr --duration 300ms --reps 2 \
    --quiet --json "$WORK/large.json"
json_check "$WORK/large.json" '"client_cpu" not in d["results"][0]["metrics"] and "server_cpu" not in d["results"][0]["metrics"]' \
    "large /proc/stat: a CPU figure was reported without ticks to measure it"
for side in client server; do
    json_check "$WORK/large.json" 'any("'$side'_cpu not measured: /proc/stat could not be read or parsed on the '$side' side" in w for w in d["results"][0]["warnings"])' \
        "large /proc/stat: no warning for the unmeasured ${side}_cpu"
done
json_check "$WORK/large.json" 'd["results"][0]["metrics"]["rate"]["mean"] > 0' "large /proc/stat: net.rr lost its own figures"
# Unparsable: the monitor cannot sample, and the result says so instead of zeros.
expect_status 1 in_namespace "$WORK/garbage_stat" "$VP" run net.rr --duration 300ms --reps 2 \
    --quiet --json "$WORK/garbage.json"
json_check "$WORK/garbage.json" 'd["results"][0]["status"] == "failed" and "/proc/stat" in d["results"][0]["error"] and "metrics" not in d["results"][0]' \
    "unparsable /proc/stat: the result did not fail with the reason"
json_check "$WORK/large.json" 'abs(d["run"]["host"]["steal_percent_since_boot"] - 100 * 2000 / 61849) < 0.01' \
    "large /proc/stat: steal not read from the whole file"
expect_status 0 in_namespace "$WORK/garbage_stat" "$VP" sysinfo
expect_contains "$WORK/out" "steal         unknown"
expect_contains "$WORK/out" "steal time unknown: /proc/stat could not be read or parsed"
finish
