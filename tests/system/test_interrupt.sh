#!/bin/bash
# Ctrl-C mid-run: exit 130, no job process left, finished results kept, the run marked
# interrupted. A job killed from outside: its result fails with the reason, the next
# result still runs.
. "$(dirname "$0")/lib.sh"

children_of() { pgrep -P "$1" | tr '\n' ' '; }

wait_for_children() { # PID COUNT
    for _ in $(seq 1 200); do
        [ "$(pgrep -P "$1" | wc -l)" -ge "$2" ] && return 0
        sleep 0.05
    done
    return 1
}

"$VP" run mem.latency cpu --sizes=16k --accesses=100k --ops=20g --jobs 2 --reps 2 --quiet >"$WORK/out" 2>&1 &
runner=$!
# The cpu jobs appear once mem.latency has finished and been stored.
for _ in $(seq 1 200); do
    [ "$(sqlite3 "$VIRTPERF_DB" "SELECT COUNT(*) FROM results" 2>/dev/null)" = 1 ] && break
    sleep 0.05
done
wait_for_children $runner 2 || fail "the cpu jobs never started"
jobs_before=$(children_of $runner)
kill -INT $runner
wait $runner
status=$?
[ "$status" -eq 130 ] || fail "SIGINT: exit $status, want 130"
for pid in $jobs_before; do
    kill -0 "$pid" 2>/dev/null && fail "job $pid survived the interrupt"
done
[ "$(sqlite3 "$VIRTPERF_DB" "SELECT status FROM runs")" = interrupted ] || fail "run not marked interrupted"
[ "$(sqlite3 "$VIRTPERF_DB" "SELECT bench || ':' || status FROM results ORDER BY seq" | tr '\n' ' ')" = "mem.latency:ok cpu:interrupted " ] || fail "results after SIGINT: $(sqlite3 "$VIRTPERF_DB" "SELECT bench, status FROM results")"
expect_contains "$WORK/out" "finished results kept"
ls /dev/shm | grep -q virtperf && fail "shared memory left in /dev/shm"

# A job killed by a signal: its result fails with the reason, the next one runs.
"$VP" run cpu mem.latency --ops=20g --sizes=16k --accesses=100k --jobs 2 --reps 2 --quiet --db "$WORK/crash.db" >"$WORK/out" 2>&1 &
runner=$!
wait_for_children $runner 2 || fail "the cpu jobs never started"
sleep 0.3
victim=$(pgrep -P $runner | head -1)
kill -KILL "$victim"
wait $runner
status=$?
[ "$status" -eq 1 ] || fail "killed job: exit $status, want 1"
reason=$(sqlite3 "$WORK/crash.db" "SELECT error FROM results WHERE bench = 'cpu'")
case "$reason" in
    *"killed by signal 9"*) ;;
    *) fail "killed job reason: '$reason'" ;;
esac
[ "$(sqlite3 "$WORK/crash.db" "SELECT status FROM results WHERE bench = 'mem.latency'")" = ok ] || fail "the result after a failed one did not run"
[ "$(pgrep -P $runner | wc -l)" -eq 0 ] || fail "children left after a failed result"
finish
