#!/bin/bash
# Side-by-side on loopback: net.stream against iperf3 (1 and 2 streams, same duration and
# window) and net.rr (350-byte TCP round trips) against sockperf ping-pong with
# --full-rtt, alternating run by run; prints each round's ratios, then medians over ROUNDS.
# Usage: bench/net_peers.sh [ROUNDS] [SECONDS]   (defaults 3 and 5). Not a test.
set -eu
cd "$(dirname "$0")/.." || exit 1
ROUNDS=${1:-3}
SECONDS_PER_RUN=${2:-5}
scripts/deps.sh build peers
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
WORK=$(mktemp -d)
export VIRTPERF_DB="$WORK/peers.db"
IPERF_PORT=$((30000 + $$ % 10000))
SOCKPERF_PORT=$((IPERF_PORT + 1))
iperf3 -s -p "$IPERF_PORT" >/dev/null 2>&1 &
iperf=$!
sockperf sr --tcp -i 127.0.0.1 -p "$SOCKPERF_PORT" >/dev/null 2>&1 &
sockperf_server=$!
trap 'kill $iperf $sockperf_server 2>/dev/null; rm -rf "$WORK"' EXIT
sleep 0.5

vp_stream() { # STREAMS -> bytes/s
    build/virtperf run net.stream --streams "$1" --duration "${SECONDS_PER_RUN}s" --reps 1 \
        --warmup 0 --quiet --json "$WORK/vp.json" >/dev/null
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["metrics"]["throughput"]["mean"])' "$WORK/vp.json"
}

iperf_stream() { # STREAMS -> bytes/s
    iperf3 -c 127.0.0.1 -p "$IPERF_PORT" -P "$1" -t "$SECONDS_PER_RUN" -J >"$WORK/iperf.json"
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["end"]["sum_received"]["bits_per_second"] / 8)' "$WORK/iperf.json"
}

vp_rr() { # -> "mean_s p50_s p99_s"
    build/virtperf run net.rr --size 350 --duration "${SECONDS_PER_RUN}s" --reps 1 --warmup 0 \
        --quiet --json "$WORK/vp.json" >/dev/null
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["results"][0]["metrics"]["latency"]["distribution"]; print(d["mean"], d["p50"], d["p99"])' "$WORK/vp.json"
}

sockperf_rr() { # -> "mean_s p50_s p99_s"
    sockperf pp --tcp -i 127.0.0.1 -p "$SOCKPERF_PORT" -m 350 -t "$SECONDS_PER_RUN" --full-rtt \
        >"$WORK/sockperf.txt" 2>&1
    sed 's/\x1b\[[0-9;]*m//g' "$WORK/sockperf.txt" | awk '
        /avg-rtt=/ { sub(/.*avg-rtt=/, ""); sub(/ .*/, ""); mean = $0 }
        /percentile 50.000/ { p50 = $NF }
        /percentile 99.000/ { p99 = $NF }
        END { printf "%.9f %.9f %.9f\n", mean / 1e6, p50 / 1e6, p99 / 1e6 }'
}

median() { python3 -c 'import statistics,sys; print(statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }

echo "loopback, $ROUNDS rounds of ${SECONDS_PER_RUN}s, medians"
for streams in 1 2; do
    vp=() peer=()
    for _ in $(seq 1 "$ROUNDS"); do
        vp+=("$(vp_stream "$streams")")
        peer+=("$(iperf_stream "$streams")")
    done
    vp_median=$(median "${vp[@]}")
    peer_median=$(median "${peer[@]}")
    python3 -c 'import sys; v, p = float(sys.argv[2]), float(sys.argv[3]); print(f"net.stream {sys.argv[1]} stream(s): virtperf {v * 8 / 1e9:.2f} Gbit/s, iperf3 {p * 8 / 1e9:.2f} Gbit/s, ratio {v / p:.3f}")' "$streams" "$vp_median" "$peer_median"
done
vp_mean=() vp_p50=() vp_p99=() peer_mean=() peer_p50=() peer_p99=()
for round in $(seq 1 "$ROUNDS"); do
    read -r mean p50 p99 < <(vp_rr)
    vp_mean+=("$mean") vp_p50+=("$p50") vp_p99+=("$p99")
    read -r mean p50 p99 < <(sockperf_rr)
    peer_mean+=("$mean") peer_p50+=("$p50") peer_p99+=("$p99")
    python3 -c 'import sys; r = sys.argv[1]; v = list(map(float, sys.argv[2:5])); p = list(map(float, sys.argv[5:8])); print(f"net.rr round {r}: virtperf p50 {v[1] * 1e6:.1f} us, sockperf p50 {p[1] * 1e6:.1f} us; ratios mean {v[0] / p[0]:.3f} p50 {v[1] / p[1]:.3f} p99 {v[2] / p[2]:.3f}")' \
        "$round" "${vp_mean[-1]}" "${vp_p50[-1]}" "${vp_p99[-1]}" "${peer_mean[-1]}" "${peer_p50[-1]}" "${peer_p99[-1]}"
done
python3 -c 'import sys; vm, v50, vp, pm, p50, pp = map(float, sys.argv[1:]); print(f"net.rr 350 B round trip, medians: virtperf mean {vm * 1e6:.1f} us p50 {v50 * 1e6:.1f} us p99 {vp * 1e6:.1f} us; sockperf mean {pm * 1e6:.1f} us p50 {p50 * 1e6:.1f} us p99 {pp * 1e6:.1f} us; ratios mean {vm / pm:.3f} p50 {v50 / p50:.3f} p99 {vp / pp:.3f}")' \
    "$(median "${vp_mean[@]}")" "$(median "${vp_p50[@]}")" "$(median "${vp_p99[@]}")" \
    "$(median "${peer_mean[@]}")" "$(median "${peer_p50[@]}")" "$(median "${peer_p99[@]}")"
