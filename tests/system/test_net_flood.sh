#!/bin/bash
# virtperf serve under a flood of connections from another address, silent ones and ones
# that send HELLO then stall: real clients, keyed and unkeyed, still complete every test
# (eviction takes a handshake of the source holding the most, the oldest of them; a
# finished handshake is never evicted), and the server's memory and descriptors come
# back once the flood ends. A flood from the keyed client's own address evicts its
# handshakes too: the client tries again (a few times, pausing longer each time) and is
# served.
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
PORT=$((10000 + ($$ + 7) % 20000))
SERVE_PID=
FLOOD_PID=
cleanup() {
    [ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null
    [ -n "$FLOOD_PID" ] && kill "$FLOOD_PID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
printf 'correct horse battery staple\n' >"$WORK/key"
chmod 600 "$WORK/key"

stop_serve() {
    kill -TERM "$SERVE_PID"
    wait "$SERVE_PID" || fail "serve's status after SIGTERM following the flood was not 0"
    SERVE_PID=
}

# flood_and_test MODE SOURCE CLIENT_ARGS...: three real net.rr runs (from 127.0.0.1)
# while SOURCE floods.
flood_and_test() {
    local mode=$1 source=$2
    shift 2
    python3 "$HERE/net_hostile.py" hold "$PORT" 4 "$source" "$mode" >"$WORK/flood.out" &
    FLOOD_PID=$!
    sleep 1 # the handshake slots full
    local ok=0
    for round in 1 2 3; do
        "$VP" run net.rr --peer 127.0.0.1:$PORT "$@" --duration 200ms --reps 1 --warmup 0 \
            --quiet --json "$WORK/real.json" >/dev/null 2>&1 && ok=$((ok + 1)) ||
            echo "  $mode flood, round $round: $(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["results"][0].get("error"))' "$WORK/real.json" 2>&1)" >&2
    done
    wait $FLOOD_PID || fail "the $mode flood did not end successfully"
    FLOOD_PID=
    local opened
    opened=$(cat "$WORK/flood.out")
    [ "$ok" -eq 3 ] || fail "a $mode flood of $opened connections from $source kept a real client ($*) out in $((3 - ok)) of 3 runs"
    [ "$opened" -gt 200 ] || fail "the $mode flood opened only $opened connections: no flood"
    echo "  $mode flood from $source: $opened connections, real client $* served $ok of 3"
}

serve --max-sessions 16 --key-file "$WORK/key"
fds_before=$(ls /proc/$SERVE_PID/fd | wc -l)
flood_and_test silent 127.0.0.2 --key-file "$WORK/key"
flood_and_test hello 127.0.0.2 --key-file "$WORK/key"
flood_and_test silent 127.0.0.1 --key-file "$WORK/key" # (its handshakes evicted alike)
grep -q "evicted" "$WORK/serve.log" || fail "a full set of handshake slots evicted nothing"
sleep 0.5
fds_after=$(ls /proc/$SERVE_PID/fd | wc -l)
[ "$fds_after" -le $((fds_before + 2)) ] || fail "serve kept $fds_after descriptors after the flood (before: $fds_before)"
stop_serve

serve --max-sessions 16
# The client's side of an eviction, where a flood cannot be timed: a server that closes
# its first 3 handshakes after their HELLO (as serve does to make room) serves the 4th
# try (relayed to serve); one that closes every one is given up on after the client's 6
# tries, saying so.
evicting() { # N: the server that closes N, in EVICTING
    python3 "$HERE/net_hostile.py" evicting-server $((PORT + 1)) "$1" "$PORT" >"$WORK/evicting.out" &
    EVICTING=$!
    wait_listening $((PORT + 1))
}
evicting 3
expect_status 0 "$VP" run net.rr --peer 127.0.0.1:$((PORT + 1)) --duration 200ms --reps 1 \
    --warmup 0 --quiet --db "$WORK/evicted.db"
wait $EVICTING || fail "the evicting server did not end successfully"
[ "$(cat "$WORK/evicting.out")" = 3 ] || fail "the evicting server closed $(cat "$WORK/evicting.out") handshakes, want 3"
evicting 6
expect_status 1 "$VP" run net.rr --peer 127.0.0.1:$((PORT + 1)) --duration 200ms --reps 1 \
    --warmup 0 --quiet --db "$WORK/evicted.db" --json "$WORK/evicted.json"
wait $EVICTING || fail "the evicting server did not end successfully"
[ "$(cat "$WORK/evicting.out")" = 6 ] || fail "the client tried $(cat "$WORK/evicting.out") times, want 6"
json_check "$WORK/evicted.json" '"the peer closed the connection during the handshake, 6 times" in d["results"][0]["error"]' \
    "a client whose every handshake was closed should say how often it tried"
flood_and_test silent 127.0.0.2
flood_and_test hello 127.0.0.2
stop_serve
finish
