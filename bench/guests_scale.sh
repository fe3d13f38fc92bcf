#!/bin/bash
# How `virtperf run --guests` scales on this machine: for 1, 2 and 4 guests (COUNTS), the
# start skew across guests (p50 and p99 over REPS repetitions of the null benchmark, on
# the host's clock through the measured offsets) beside its error bound, the guests' time
# from start to their first word (boot to ready) as p50 and p95 over them, what each
# guest's QEMU holds of this host's memory beyond the guest's RAM (Pss, mean over the
# guests: Firecracker's VMM overhead), and the wall time of the whole command. Then one
# guest's start to ready against a plain boot of the same domain to the same binary's
# start (what the agent itself does before it says ready), as a ratio per round. Then the
# same computation in one guest started by `run --guests 1` and by scripts/guest.sh (a
# transient libvirt domain of its own, user networking): the two must agree, as a ratio
# per round. TCG unless ACCEL=kvm. Not a test: numbers depend on the machine (and TCG
# guests beyond its CPUs crawl); rerun it on yours.
# Usage: bench/guests_scale.sh [ROUNDS] [REPS]   (defaults 3 and 30); VP=path/to/virtperf
# gives the tables of another build (an older commit's, say); SKEW_ONLY=1 stops after the
# skew table, BOOT_ONLY=1 gives the boot table alone.
set -u
cd "$(dirname "$0")/.." || exit 1
ROUNDS=${1:-3}
REPS=${2:-30}
COUNTS=${COUNTS:-1 2 4}
VP=${VP:-build/virtperf}
ACCEL=${ACCEL:-tcg}
scripts/deps.sh build guests || exit 1
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null || exit 1
work=$(mktemp -d)
chmod 755 "$work"
# the plain boot's domain (below) goes too when the bench is stopped mid-boot
trap 'virsh -c qemu:///system destroy virtperf-plain-boot >/dev/null 2>&1; rm -rf "$work"' EXIT
export VIRTPERF_DB="$work/db"
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs, $(uname -r); guests: $ACCEL"
[ "${BOOT_ONLY:-0}" = 1 ] && COUNTS=""
[ -z "$COUNTS" ] || printf '%-6s %-7s %12s %12s %12s %12s %12s %14s %10s\n' round guests "skew p50" "skew p99" "bound" \
    "ready p50" "ready p95" "overhead/guest" "wall"
for round in $(seq "$ROUNDS"); do
    for count in $COUNTS; do
        started=$(date +%s.%N)
        "$VP" run null --guests "$count" --guest-accel "$ACCEL" --reps "$REPS" --warmup 2 \
            --quiet --json "$work/null.json" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
        wall=$(echo "$(date +%s.%N) - $started" | bc)
        python3 - "$work/null.json" "$round" "$count" "$wall" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
skews = sorted(t["start_skew_s"] for t in r["timing"])
pct = lambda p: skews[min(len(skews) - 1, int(round(p / 100 * (len(skews) - 1))))]
guests = r["guests"]
overhead = [h["qemu_overhead_pss_bytes"] for h in guests["hosts"] if "qemu_overhead_pss_bytes" in h]
us = lambda s: "%.1f us" % (s * 1e6)
print("%-6s %-7s %12s %12s %12s %12s %12s %14s %9.1fs" % (sys.argv[2], sys.argv[3], us(pct(50)), us(pct(99)),
      us(r["ranks"]["start_skew_bound_s"]), "%.2f s" % guests["ready_p50_s"],
      "%.2f s" % guests["ready_p95_s"],
      "%.0f MiB" % (sum(overhead) / len(overhead) / 2**20) if overhead else "-", float(sys.argv[4])))
PY
    done
done
[ "${SKEW_ONLY:-0}" = 1 ] && exit 0

# Boot to ready against a plain boot of the same guest: the domain the last run's guest
# ran (its XML, from the result), less the channel, started with `virsh create`; its init
# starts the same virtperf, which finds no channel and says so on the serial console at
# once. The time from `virsh create` to that line is the boot to the binary's start; the
# run's ready_s (its start to the agent's hello) beside it, order alternating per round.
echo
echo "one guest, start to ready: run --guests 1 against a plain boot of its domain to the binary's start"
printf '%-6s %12s %12s %8s\n' round "ready" "plain boot" ratio
plain_boot() { # the seconds from `virsh create` to the agent's first line, or nothing
    python3 - "$work/one.json" "$work/plain.xml" "$work/plain.console" <<'PY' || return 1
import json, sys, xml.etree.ElementTree as tree
xml = json.load(open(sys.argv[1]))["results"][0]["ranks"]["hosts"][0]["fingerprint"]["domain"]["xml"]
domain = tree.fromstring(xml)
domain.attrib.pop("id", None)
domain.find("name").text = "virtperf-plain-boot"
for useless in ("uuid", "seclabel"):
    for node in domain.findall(useless):
        domain.remove(node)
devices = domain.find("devices")
for channel in devices.findall("channel"):
    devices.remove(channel)
for node in devices.findall("serial") + devices.findall("console"):
    node.find("source").set("path", sys.argv[3])
tree.ElementTree(domain).write(sys.argv[2])
PY
    rm -f "$work/plain.console"
    local started now
    started=$(date +%s.%N)
    virsh -c qemu:///system create "$work/plain.xml" >/dev/null || return 1
    for _ in $(seq 6000); do
        if grep -q "guest-agent: no virtio-serial port" "$work/plain.console" 2>/dev/null; then
            now=$(date +%s.%N)
            virsh -c qemu:///system destroy virtperf-plain-boot >/dev/null 2>&1
            echo "$now - $started" | bc
            return 0
        fi
        sleep 0.01
    done
    virsh -c qemu:///system destroy virtperf-plain-boot >/dev/null 2>&1
    return 1
}
ready_of_run() {
    "$VP" run null --guests 1 --guest-accel "$ACCEL" --reps 1 --quiet --json "$work/one.json" \
        >/dev/null 2>"$work/err" || { cat "$work/err" >&2; return 1; }
    python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["results"][0]["guests"]["hosts"][0]["ready_s"])' "$work/one.json"
}
ready_of_run >/dev/null || exit 1 # the domain the plain boot copies
for round in $(seq "$ROUNDS"); do
    if [ $((round % 2)) = 1 ]; then
        ready=$(ready_of_run) && plain=$(plain_boot) || { echo "round $round failed" >&2; exit 1; }
    else
        plain=$(plain_boot) && ready=$(ready_of_run) || { echo "round $round failed" >&2; exit 1; }
    fi
    printf '%-6s %10.2f s %10.2f s %8.3f\n' "$round" "$ready" "$plain" "$(echo "$ready / $plain" | bc -l)"
done
[ "${BOOT_ONLY:-0}" = 1 ] && exit 0
echo
echo "one guest, the same computation: run --guests 1 against scripts/guest.sh (score, M ops/s)"
printf '%-6s %14s %14s %8s\n' round "--guests 1" "guest.sh" ratio
for round in $(seq "$ROUNDS"); do
    build/virtperf run cpu --ops 20m --reps 5 --guests 1 --guest-accel "$ACCEL" --quiet \
        --json "$work/ours.json" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
    scripts/guest.sh --accel "$ACCEL" --smp 1 --memory 512 -- run cpu --ops 20m --reps 5 --quiet \
        >"$work/script.out" 2>&1 || { tail -5 "$work/script.out" >&2; exit 1; }
    build/virtperf results export latest -o "$work/script.json" >/dev/null
    python3 - "$work/ours.json" "$work/script.json" "$round" <<'PY'
import json, sys
score = lambda path: json.load(open(path))["results"][0]["metrics"]["score"]["mean"] / 1e6
ours, script = score(sys.argv[1]), score(sys.argv[2])
print("%-6s %14.1f %14.1f %8.3f" % (sys.argv[3], ours, script, ours / script))
PY
done
