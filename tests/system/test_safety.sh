#!/bin/bash
# Safety of results: a result the database refuses is never reported as stored (the run
# fails, the JSON keeps it, the run is marked failed); a database locked by another
# process is waited for, as long as VIRTPERF_DB_TIMEOUT says, then refused clearly.
. "$(dirname "$0")/lib.sh"

# A database that refuses the second result (a trigger stands in for a full disk or a
# damaged page; SQLite returns the same error path).
expect_status 0 "$VP" run null --reps 1 --warmup 0 --quiet
sqlite3 "$VIRTPERF_DB" "CREATE TRIGGER refuse BEFORE INSERT ON results WHEN (SELECT COUNT(*) FROM results) >= 2 BEGIN SELECT RAISE(ABORT, 'simulated I/O error'); END;" ||
    fail "cannot add the refusing trigger"
expect_status 1 "$VP" run null --jobs 1,2,3 --reps 2 --warmup 0 --json "$WORK/lost.json"
expect_contains "$WORK/err" "null jobs=2: database: cannot store the result: simulated I/O error"
expect_contains "$WORK/out" "run 2: 2 result(s) NOT stored in the results database"
grep -q "stored as run" "$WORK/out" && fail "a run that lost results said 'stored as run'"
json_check "$WORK/lost.json" '[r["jobs"] for r in d["results"]] == [1, 2, 3] and d["run"]["status"] == "failed"' "the JSON document lacks the refused results or calls the run ok"
json_check "$WORK/lost.json" 'all(any("not in the results database" in w for w in r["warnings"]) for r in d["results"][1:]) and "warnings" not in d["results"][0]' "the refused results are not marked"
[ "$(sqlite3 "$VIRTPERF_DB" "SELECT status FROM runs WHERE id = 2")" = failed ] || fail "the run is not marked failed in the database"
sqlite3 "$VIRTPERF_DB" "DROP TRIGGER refuse;" || fail "cannot drop the trigger"

# Another process holds the write lock for 2 s: a run waits and stores everything.
hold_lock() { # SECONDS: holds an exclusive lock, prints "locked" once it has it
    python3 -c 'import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
db.execute("COMMIT")' "$VIRTPERF_DB" "$1"
}
hold_lock 2 >"$WORK/lock.out" &
holder=$!
for _ in $(seq 1 50); do grep -q locked "$WORK/lock.out" && break; sleep 0.05; done
expect_status 0 "$VP" run null --jobs 1,2 --reps 1 --warmup 0 --quiet
wait $holder || fail "the lock holder did not end successfully"
expect_contains "$WORK/out" "stored as run 3"
# Held longer than VIRTPERF_DB_TIMEOUT: refused when the database is opened (exit 2, as
# every database that cannot be opened), saying why.
hold_lock 3 >"$WORK/lock.out" &
holder=$!
for _ in $(seq 1 50); do grep -q locked "$WORK/lock.out" && break; sleep 0.05; done
VIRTPERF_DB_TIMEOUT=1 expect_status 2 "$VP" run null --reps 1 --warmup 0 --quiet
wait $holder || fail "the lock holder did not end successfully"
expect_contains "$WORK/err" "locked by another process for more than 1 s (VIRTPERF_DB_TIMEOUT sets the wait)"
VIRTPERF_DB_TIMEOUT=soon expect_usage_error "VIRTPERF_DB_TIMEOUT: 'soon' is not valid" "$VP" run null

# An imported run whose uuid is another run's label captures nothing: a bare reference
# that names two runs is refused (before: 'results delete bare' deleted the import);
# @LABEL, uuid:U and id:N name one kind.
expect_status 0 "$VP" run null --reps 1 --warmup 0 --label bare --quiet
expect_status 0 "$VP" results export bare -o "$WORK/bare.json"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); d["run"]["id"] = "bare"; d["run"]["label"] = "imported"
json.dump(d, open(sys.argv[1], "w"))' "$WORK/bare.json" || fail "cannot make the hijacking document"
expect_status 0 "$VP" results import "$WORK/bare.json"
count_runs
runs_before=$RUNS
expect_usage_error "run 'bare' is ambiguous: it names run" "$VP" results delete bare
expect_contains "$WORK/err" "accepted: one of uuid:bare, @bare"
expect_runs "$runs_before" "an ambiguous delete deleted a run"
expect_status 0 "$VP" results show @bare
expect_contains "$WORK/out" "label bare"
expect_status 0 "$VP" results show uuid:bare
expect_contains "$WORK/out" "label imported"
expect_usage_error "run @nosuch: no run has that label" "$VP" results show @nosuch

# A run killed with SIGKILL is marked abandoned, not left running for ever.
"$VP" run null --reps 1000 --warmup 0 --label killed --quiet >/dev/null 2>&1 &
victim=$!
for _ in $(seq 1 100); do
    [ "$(sqlite3 -cmd ".timeout 5000" "$VIRTPERF_DB" "SELECT status FROM runs WHERE label = 'killed'")" = running ] && break
    sleep 0.05
done
kill -KILL $victim
{ wait $victim; } 2>/dev/null # (bash's "Killed" notice, expected)
expect_status 0 "$VP" results list
[ "$(sqlite3 "$VIRTPERF_DB" "SELECT status FROM runs WHERE label = 'killed'")" = abandoned ] ||
    fail "a killed run is not marked abandoned"
# A live run in another pid namespace on the same host (a container, with the same
# hostname) is not taken for gone: its pid means nothing here.
if [ "$(id -u)" -eq 0 ]; then
    unshare --pid --fork --mount-proc true || fail "unshare cannot make a pid namespace as root"
    unshare --pid --fork --mount-proc "$VP" run null --reps 1000 --warmup 0 --label elsewhere \
        --quiet >/dev/null 2>&1 &
    elsewhere=$!
    for _ in $(seq 1 100); do
        [ "$(sqlite3 -cmd ".timeout 5000" "$VIRTPERF_DB" "SELECT status FROM runs WHERE label = 'elsewhere'")" = running ] && break
        sleep 0.05
    done
    expect_status 0 "$VP" results list
    [ "$(sqlite3 -cmd ".timeout 5000" "$VIRTPERF_DB" "SELECT status FROM runs WHERE label = 'elsewhere'")" = running ] ||
        fail "a live run in another pid namespace was marked abandoned"
    wait $elsewhere || fail "the run in another pid namespace exited $?"
    [ "$(sqlite3 "$VIRTPERF_DB" "SELECT status FROM runs WHERE label = 'elsewhere'")" = ok ] ||
        fail "the run in another pid namespace did not end ok"
else
    echo "(not root: the check of a run in another pid namespace is left out)"
fi

# Output files: nothing is created before there is something to write (a refusal leaves
# no X.tmp-PID), a killed run's leftover temporary file is swept, a full stdout fails.
expect_usage_error "run: unknown or incomplete option '--nosuch'" "$VP" run null --json "$WORK/out.json" --nosuch
expect_usage_error "unknown benchmark 'nosuch'" "$VP" run nosuch --json "$WORK/out.json"
ls "$WORK"/out.json* >/dev/null 2>&1 && fail "a refused run left $(ls "$WORK"/out.json*)"
: >"$WORK/out.json.tmp-4194303" # no process has that pid: a leftover of a killed run
expect_status 0 "$VP" run null --reps 1 --warmup 0 --quiet --json "$WORK/out.json"
[ -e "$WORK/out.json.tmp-4194303" ] && fail "a stale temporary file was not swept"
expect_usage_error "-o: cannot write '/nonexistent/x.html'" "$VP" report latest -o /nonexistent/x.html
expect_usage_error "import: '$WORK' is a directory" "$VP" results import "$WORK"
"$VP" results list >/dev/full 2>"$WORK/err"
[ $? -eq 1 ] || fail "writing to a full stdout did not fail"
expect_contains "$WORK/err" "cannot write to standard output: No space left on device"
# A document written into a file that fills up on the way (4 KiB of tmpfs, the run's
# JSON is more): exit 1 naming the file, no temporary file left, the old file as it was.
if [ "$(id -u)" = 0 ]; then
    mkdir -p "$WORK/small"
    unshare -m sh -c 'mount -t tmpfs -o size=4k tmpfs "$1" && echo old >"$1/run.json" &&
        "$2" results export latest -o "$1/run.json"; status=$?
        ls -A "$1" >"$3/small.ls"; cat "$1/run.json" >"$3/small.kept"; exit $status' \
        sh "$WORK/small" "$VP" "$WORK" >"$WORK/out" 2>"$WORK/err"
    [ $? -eq 1 ] || fail "a document that did not fit did not fail (exit 1): $(cat "$WORK/err" "$WORK/out")"
    expect_contains "$WORK/err" "-o: cannot write '$WORK/small/run.json': No space left on device"
    [ "$(cat "$WORK/small.ls")" = run.json ] || fail "a failed write left: $(cat "$WORK/small.ls")"
    [ "$(cat "$WORK/small.kept")" = old ] || fail "a failed write changed the file it was to replace"
fi

# Control characters in an imported label never reach the terminal.
expect_status 0 "$VP" results export @killed -o "$WORK/ctl.json"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); d["run"]["id"] = "ctl"; d["run"]["label"] = "a\x1b[2J\rb\nFAKE"
json.dump(d, open(sys.argv[1], "w"))' "$WORK/ctl.json" || fail "cannot make the control-character document"
expect_status 0 "$VP" results import "$WORK/ctl.json"
expect_status 0 "$VP" results list
grep -q $'\x1b' "$WORK/out" && fail "results list printed an ESC from a label"
expect_contains "$WORK/out" "a?[2J?b?FAKE"

# A damaged database is an error (exit 1, naming the database and integrity_check's first
# line), never a shortened run: 2,000 results, then 600 random bytes every 16 KiB.
DAMAGED=$WORK/damaged.db
expect_status 0 "$VP" run null --reps 2 --warmup 0 --quiet --db "$DAMAGED" --json "$WORK/one.json"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); d["run"]["id"] = "many"; d["run"]["label"] = "many"
d["results"] = d["results"] * 2000
json.dump(d, open(sys.argv[1], "w"))' "$WORK/one.json" || fail "cannot make the 2,000-result document"
expect_status 0 "$VP" results import "$WORK/one.json" --db "$DAMAGED"
[ "$(sqlite3 "$DAMAGED" "SELECT COUNT(*) FROM results WHERE run_id = 2")" = 2000 ] || fail "the import did not store 2,000 results"
python3 -c 'import os, random, sys
random.seed(7)
size = os.path.getsize(sys.argv[1])
with open(sys.argv[1], "r+b") as f:
    for at in range(16384, size, 16384):
        f.seek(at); f.write(random.randbytes(600))' "$DAMAGED" || fail "cannot damage the database"
for command in "results show many" "results export many -o $WORK/damaged.json" "report many -o $WORK/damaged.html" "results list"; do
    expect_status 1 "$VP" $command --db "$DAMAGED"
    expect_contains "$WORK/err" "database $DAMAGED: "
    expect_contains "$WORK/err" "(PRAGMA integrity_check: "
    [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "'$command' on a damaged database: not one line: $(cat "$WORK/err")"
done
[ -e "$WORK/damaged.json" ] || [ -e "$WORK/damaged.html" ] && fail "a damaged database's run was written out"
finish
