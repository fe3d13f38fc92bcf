#!/bin/bash
# The idle policy of timing results: --hold-latency holds a 0 us CPU latency request for
# the result and releases it after; every timing result records the policy it ran under;
# compare flags two results measured under different policies; a request that cannot be
# held fails the result with the reason.
. "$(dirname "$0")/lib.sh"
[ -c /dev/cpu_dma_latency ] || skip "no /dev/cpu_dma_latency (PM QoS) on this kernel"
request_now() { python3 -c 'import struct; print(struct.unpack("i", open("/dev/cpu_dma_latency", "rb").read(4))[0])'; }
before=$(request_now)

expect_status 0 "$VP" run time.timer --hold-latency --duration 300ms --reps 2 --warmup 0 --quiet --json "$WORK/held.json"
json_check "$WORK/held.json" '(lambda i: i["held"] is True and i["latency_request_us"] == 0)(d["results"][0]["idle"])' "--hold-latency: the result does not say a 0 us request was held"
[ "$(request_now)" = "$before" ] || fail "the latency request was not released after the run ($(request_now), was $before)"
# Released after its result, not at exit: time.drift (no --hold-latency of its own) runs
# next in the same run and must see the machine's own policy.
PORT=$((10000 + $$ % 20000)) # below the ephemeral ports (32768 up), which other sockets take
"$VP" serve --bind 127.0.0.1 --port "$PORT" --quiet 2>"$WORK/serve.log" &
serve=$!
sleep 0.3
expect_status 0 "$VP" run time.timer time.drift --hold-latency --peer "127.0.0.1:$PORT" --duration 1s --interval 200ms --quiet --json "$WORK/next.json"
kill -TERM $serve
wait $serve || fail "serve did not exit 0 on SIGTERM"
json_check "$WORK/next.json" '(lambda t, r: t["held"] is True and r["held"] is False and r["latency_request_us"] == '"$before"')(d["results"][0]["idle"], d["results"][1]["idle"])' "the request held for time.timer was still held for the next result"
expect_status 0 "$VP" run time.timer time.ticks vcost.ctxswitch --duration 300ms --reps 2 --warmup 0 --label free
expect_contains "$WORK/out" "idle policy: "
expect_status 0 "$VP" results export free -o "$WORK/free.json"
json_check "$WORK/free.json" 'all(r["idle"]["held"] is False and r["idle"]["latency_request_us"] == '"$before"' for r in d["results"])' "timing results without --hold-latency: policy not recorded as the machine's"
json_check "$WORK/free.json" '"idle" in d["run"]["host"] and d["run"]["host"]["idle"].get("latency_request_us") == '"$before" "the fingerprint lacks the idle policy"

# Another process holds a request (as a running cyclictest does): same params, different
# policy, and compare says so.
python3 -c 'import struct, time; f = open("/dev/cpu_dma_latency", "wb", buffering=0); f.write(struct.pack("i", 0)); time.sleep(4)' &
holder=$!
sleep 0.3
expect_status 0 "$VP" run time.timer --duration 300ms --reps 5 --warmup 0 --label polled --quiet
wait $holder || fail "the request holder did not exit 0"
expect_status 0 "$VP" run time.timer --duration 300ms --reps 5 --warmup 0 --label halted --quiet
expect_status 0 "$VP" compare polled halted --json "$WORK/compare.json"
json_check "$WORK/compare.json" 'any("idle policy differs" in f and "latency request 0 us;" in f for r in d["rows"] for c in r["candidates"] for f in c["flags"])' "compare did not flag the different idle policies"

# A request that cannot be held: the device read-only in a private mount namespace.
if unshare -m true 2>/dev/null; then
    : >"$WORK/device"
    expect_status 1 unshare -m sh -c 'mount --make-rprivate / && mount --bind "$0" /dev/cpu_dma_latency && mount -o remount,bind,ro /dev/cpu_dma_latency && exec "$@"' \
        "$WORK/device" "$VP" run time.timer --hold-latency --duration 200ms --reps 1 --warmup 0 --quiet --json "$WORK/refused.json"
    json_check "$WORK/refused.json" '"--hold-latency: cannot hold a 0 us request at /dev/cpu_dma_latency" in d["results"][0]["error"]' "an unholdable request did not fail the result with the reason"
fi
finish
