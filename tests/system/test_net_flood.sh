#!/bin/bash
# virtperf serve under a flood of connections from another address, silent ones and ones
# that send HELLO then stall: real clients, keyed and unkeyed, still complete every test
# (eviction takes the least progressed handshake, then one of the source holding the
# most, then the oldest; a finished handshake is never evicted), and the server's memory
# and descriptors come back once the flood ends.
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

# flood_and_test MODE CLIENT_ARGS...: three real net.rr runs while 127.0.0.2 floods.
flood_and_test() {
    local mode=$1
    shift
    python3 "$HERE/net_hostile.py" hold "$PORT" 6 127.0.0.2 "$mode" >"$WORK/flood.out" &
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
    [ "$ok" -eq 3 ] || fail "a $mode flood of $opened connections kept a real client ($*) out in $((3 - ok)) of 3 runs"
    [ "$opened" -gt 200 ] || fail "the $mode flood opened only $opened connections: no flood"
    echo "  $mode flood: $opened connections, real client $* served $ok of 3"
}

serve --max-sessions 16 --key-file "$WORK/key"
fds_before=$(ls /proc/$SERVE_PID/fd | wc -l)
flood_and_test silent --key-file "$WORK/key"
flood_and_test hello --key-file "$WORK/key"
grep -q "evicted" "$WORK/serve.log" || fail "a full set of handshake slots evicted nothing"
sleep 0.5
fds_after=$(ls /proc/$SERVE_PID/fd | wc -l)
[ "$fds_after" -le $((fds_before + 2)) ] || fail "serve kept $fds_after descriptors after the flood (before: $fds_before)"
stop_serve

serve --max-sessions 16
flood_and_test silent
flood_and_test hello
stop_serve
finish
