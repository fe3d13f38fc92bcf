#!/bin/bash
# The PostgreSQL site store (--db postgresql://..., results push) against a real server
# the test starts (Debian's postgresql: initdb in a scratch directory, a private port):
# the store and compare tests run against it as they do against SQLite; eight
# writers at once lose and duplicate nothing; a push is idempotent, from two hosts at
# once too; a server killed mid-push or mid-run leaves no half run and loses no result;
# a refusing server is exit 1 (after a run's containers started too, leaving none) and a
# bad URL exit 2, never showing a password; the
# documents exported from both stores are equal; three hosts (network namespaces) write
# one campaign whose compare and report equal those of one SQLite holding the same runs;
# virtperf-mpi's rank 0 writes it as a plain run does.
. "$(dirname "$0")/lib.sh"
suppress_library_leaks # virtperf-mpi: Open MPI's own leaks suppressed (lib.sh)
HERE=$(cd "$(dirname "$0")" && pwd)

# test_compare judges measured figures (significance, the run's own load): it runs
# against the server in the release pass alone (VP_MEASURING_ONLY, as tests/run_all.sh
# sets it for a test in both passes); the sanitized pass runs everything else.
if measuring_only; then
    [ "$(id -u)" -eq 0 ] || skip "needs root (the server runs as postgres)"
    start_postgresql
    VP_SITE_URL=$PG_URL bash "$HERE/test_compare.sh" >"$WORK/test_compare.log" 2>&1
    status=$?
    [ "$status" -eq 0 ] || fail "test_compare against PostgreSQL exited $status: $(grep -E 'FAIL|skip' "$WORK/test_compare.log" | head -n 5)"
    stop_postgresql
    finish
fi

# Three "hosts", each a namespace joined to this one by a veth pair: vpsN at
# 198.18.2N.2, this side at 198.18.2N.1, where the server listens too.
[ "$(id -u)" -eq 0 ] || skip "needs root (the server runs as postgres, the hosts are namespaces)"
command -v podman >/dev/null || skip "podman is not installed (scripts/deps.sh containers): a refusal beside containers"
HOSTS=()
for n in 1 2 3; do
    ns=vps$n$$
    ip netns add "$ns" || skip "needs ip netns"
    HOSTS+=("$ns")
    ip link add vps$n$$a type veth peer name vps$n$$b netns "$ns"
    ip addr add "198.18.2$n.1/30" dev vps$n$$a
    ip link set vps$n$$a up
    ip -n "$ns" addr add "198.18.2$n.2/30" dev vps$n$$b
    ip -n "$ns" link set vps$n$$b up
    ip -n "$ns" link set lo up
done
trap 'for ns in "${HOSTS[@]}"; do ip netns del "$ns" 2>/dev/null; done; forget_postgresql; rm -rf "$WORK"' EXIT
start_postgresql 198.18.21.1 198.18.22.1 198.18.23.1

# section N: the time the section before took, for whoever keeps the suite short.
SECTION_START=$SECONDS
section() { echo "section $(($1 - 1)): $((SECONDS - SECTION_START)) s"; SECTION_START=$SECONDS; }
# kill_when OUT PATTERN PID [restart]: once OUT has a line matching PATTERN, the server
# killed (kill_postgresql), and started again at once with "restart"; then PID waited
# for, its status in STATUS.
kill_when() {
    for _ in $(seq 1 600); do grep -q "$2" "$1" && break; sleep 0.05; done
    kill_postgresql
    [ "${4:-}" != restart ] || restart_postgresql
    wait "$3"
    STATUS=$?
}
# sorted_json FILE: the document with its keys sorted, for comparing two.
sorted_json() { python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1])), sort_keys=True))' "$1"; }
# results_per_run STORE: "uuid results" lines, sorted, of every run in STORE.
results_per_run() {
    local sql="SELECT uuid || ' ' || (SELECT COUNT(*) FROM results WHERE run_id = r.id) FROM runs r ORDER BY uuid"
    case "$1" in
    postgres*://*) psql -X -At -d "$1" -c "$sql" ;;
    *) sqlite3 "$1" "$sql" ;;
    esac
}

section 1
# 1. The same system tests as against SQLite, each in a database of its own: the store
# (results), and compare with scaling and plan (see above). report and matrix load runs
# as compare does: section 9 sets report's page over this server against SQLite's.
against=(test_results)
sanitized || against+=(test_compare) # (run alone: the release pass runs it measuring only)
for test in "${against[@]}"; do
    VP_SITE_URL=$PG_URL bash "$HERE/$test.sh" >"$WORK/$test.log" 2>&1
    status=$?
    [ "$status" -eq 0 ] || fail "$test against PostgreSQL exited $status: $(grep -E 'FAIL|skip' "$WORK/$test.log" | head -n 5)"
done

section 2
# 2. Eight writers at once: eight runs, each once and whole.
site_database writers
pids=()
for w in 1 2 3 4 5 6 7 8; do
    "$VP" run cpu --ops=1m --reps 2 --label "w$w" --quiet --db "$SITE" >"$WORK/w$w.out" 2>&1 &
    pids+=($!)
done
for w in 1 2 3 4 5 6 7 8; do
    wait "${pids[$((w - 1))]}" || fail "writer $w exited $?: $(tail -n 2 "$WORK/w$w.out")"
done
[ "$(psql -X -At -d "$SITE" -c "SELECT COUNT(DISTINCT uuid) || ' ' || COUNT(*) || ' ' || COUNT(DISTINCT label) FROM runs WHERE status = 'ok'")" = "8 8 8" ] ||
    fail "eight writers: want 8 distinct ok runs with 8 labels: $(psql -X -At -d "$SITE" -c 'SELECT id, label, status FROM runs')"
[ "$(psql -X -At -d "$SITE" -c "SELECT COUNT(*) FROM results")" = 8 ] || fail "eight writers: want 8 results"
[ "$(psql -X -At -d "$SITE" -c "SELECT COUNT(*) FROM metric_values")" = \
  "$(psql -X -At -d "$SITE" -c "SELECT 2 * COUNT(*) FROM metrics")" ] || fail "eight writers: a metric lacks a repetition's value"

section 3
# 3. The JSON contract: a run stored in PostgreSQL exports as its --json document, and as
# the same document from SQLite once pushed there (and the other way in 4).
"$VP" run cpu mem.write --ops=1m --size=1m --passes=1 --reps 2 --label contract --quiet \
    --db "$SITE" --json "$WORK/contract.run.json" >/dev/null 2>&1 || fail "the contract run failed"
expect_status 0 "$VP" results export contract --db "$SITE" -o "$WORK/contract.pg.json"
expect_status 0 "$VP" results push contract --db "$SITE" --to "$WORK/copy.db"
expect_status 0 "$VP" results export contract --db "$WORK/copy.db" -o "$WORK/contract.sqlite.json"
[ "$(sorted_json "$WORK/contract.pg.json")" = "$(sorted_json "$WORK/contract.run.json")" ] ||
    fail "the document exported from PostgreSQL differs from the run's own"
[ "$(sorted_json "$WORK/contract.pg.json")" = "$(sorted_json "$WORK/contract.sqlite.json")" ] ||
    fail "the documents exported from PostgreSQL and SQLite differ"

section 4
# 4. Push twice: the second adds nothing.
LOCAL=$WORK/local.db
for n in 1 2 3; do
    "$VP" run cpu --ops=1m --reps 2 --label "local$n" --quiet --db "$LOCAL" >/dev/null 2>&1 || fail "local run $n failed"
done
site_database pushed
expect_status 0 "$VP" results push --db "$LOCAL" --to "$SITE"
[ "$(grep -c '^pushed run' "$WORK/out")" = 3 ] || fail "the first push should push 3 runs: $(cat "$WORK/out")"
expect_status 0 "$VP" results push --db "$LOCAL" --to "$SITE"
[ "$(grep -c 'already: nothing added' "$WORK/out")" = 3 ] || fail "the second push should add nothing: $(cat "$WORK/out")"
[ "$(results_per_run "$SITE")" = "$(results_per_run "$LOCAL")" ] || fail "after two pushes the site store differs from the local one"
[ "$(store_count "$SITE" results)" = 3 ] || fail "two pushes: want 3 results, $(store_count "$SITE" results)"
# the JSON contract the other way: runs made into SQLite export the same from PostgreSQL
for n in 1 2 3; do
    "$VP" results export "local$n" --db "$LOCAL" -o "$WORK/local$n.sqlite.json" || fail "export local$n from SQLite"
    "$VP" results export "local$n" --db "$SITE" -o "$WORK/local$n.pg.json" || fail "export local$n from PostgreSQL"
    cmp -s "$WORK/local$n.sqlite.json" "$WORK/local$n.pg.json" ||
        fail "run local$n exports differently from SQLite and from PostgreSQL"
done
# A row the server refuses amid a run's rows (sent without waiting for each answer): that
# run is not pushed and says why, nothing of it stays, the runs after it are pushed whole.
site_database refusing
expect_status 0 "$VP" results list --db "$SITE"
psql -X -q -d "$SITE" -v ON_ERROR_STOP=1 >/dev/null <<'SQL' || fail "cannot add the refusing trigger"
CREATE FUNCTION refuse_local2() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF (SELECT r.label FROM runs r JOIN results s ON s.run_id = r.id WHERE s.id = NEW.result_id) = 'local2' THEN
        RAISE EXCEPTION 'the test refuses this row';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER refuse_local2 BEFORE INSERT ON metric_values FOR EACH ROW EXECUTE FUNCTION refuse_local2();
SQL
expect_status 1 "$VP" results push --db "$LOCAL" --to "$SITE"
expect_contains "$WORK/err" "not pushed, nothing of it kept there: "
expect_contains "$WORK/err" ": the test refuses this row"
[ "$(grep -c '^pushed run' "$WORK/out")" = 2 ] || fail "the runs beside the refused one should be pushed: $(cat "$WORK/out")"
refused=$(sqlite3 "$LOCAL" "SELECT uuid FROM runs WHERE label = 'local2'")
[ "$(results_per_run "$SITE")" = "$(results_per_run "$LOCAL" | grep -v "^$refused ")" ] ||
    fail "a refused run left rows, or the runs beside it lack some: $(results_per_run "$SITE")"
[ "$(store_count "$SITE" metric_values)" = "$(sqlite3 "$LOCAL" "SELECT COUNT(*) FROM metric_values v JOIN results s ON s.id = v.result_id JOIN runs r ON r.id = s.run_id WHERE r.label != 'local2'")" ] ||
    fail "the pushed runs' values are not all there, or the refused one's are"

section 5
# 5. The same runs pushed from two hosts at once: each run once.
site_database twice
cp "$LOCAL" "$WORK/host1.db"
cp "$LOCAL" "$WORK/host2.db"
ip netns exec "${HOSTS[0]}" "$VP" results push --db "$WORK/host1.db" \
    --to "postgresql://vpsite@198.18.21.1:$PG_PORT/twice" >"$WORK/push1.out" 2>&1 &
first=$!
ip netns exec "${HOSTS[1]}" "$VP" results push --db "$WORK/host2.db" \
    --to "postgresql://vpsite@198.18.22.1:$PG_PORT/twice" >"$WORK/push2.out" 2>&1 &
second=$!
wait "$first" || fail "the first host's push exited $?: $(cat "$WORK/push1.out")"
wait "$second" || fail "the second host's push exited $?: $(cat "$WORK/push2.out")"
[ "$(cat "$WORK/push1.out" "$WORK/push2.out" | grep -c '^pushed run')" = 3 ] ||
    fail "two hosts pushing the same 3 runs should push each once: $(cat "$WORK/push1.out" "$WORK/push2.out")"
[ "$(results_per_run "$SITE")" = "$(results_per_run "$LOCAL")" ] || fail "two hosts' pushes: the site store differs from the local one"

section 6
# 6. The server killed mid-push: no half run; pushing again brings the rest.
expect_status 0 "$VP" results export local1 --db "$LOCAL" -o "$WORK/one.json"
python3 - "$WORK/one.json" "$WORK/many" <<'PY'
import copy, json, os, sys
doc = json.load(open(sys.argv[1]))
os.makedirs(sys.argv[2])
result = doc["results"][0]
doc["results"] = [copy.deepcopy(result) for _ in range(30)]
for n in range(10):
    doc["run"]["id"] = "%032x" % (0xfeed0000 + n)
    json.dump(doc, open(os.path.join(sys.argv[2], "%02d.json" % n), "w"))
PY
BIG=$WORK/big.db
for file in "$WORK"/many/*.json; do
    "$VP" results import "$file" --db "$BIG" >/dev/null || fail "cannot import $file"
done
site_database killed
"$VP" results push --db "$BIG" --to "$SITE" >"$WORK/killed.out" 2>"$WORK/killed.err" &
kill_when "$WORK/killed.out" '^pushed run' $!
[ "$STATUS" -eq 1 ] || fail "a push whose server was killed exited $STATUS, want 1: $(tail -n 2 "$WORK/killed.err")"
grep -q "not pushed, nothing of it kept there" "$WORK/killed.err" || fail "the failed push does not say what failed: $(head -n 2 "$WORK/killed.err")"
# it stops at the server's loss: one run failed, the rest not tried (and said so)
[ "$(grep -c "not pushed, nothing of it kept there" "$WORK/killed.err")" = 1 ] ||
    fail "a push whose server is gone should stop at the run it lost: $(head -n 4 "$WORK/killed.err")"
grep -q "can no longer be reached: stopped, the [0-9]* run(s) after that one not tried" "$WORK/killed.err" ||
    fail "the stopped push does not say it stopped: $(cat "$WORK/killed.err")"
restart_postgresql
pushed=$(results_per_run "$SITE")
count=$(grep -c . <<<"$pushed")
[ "$count" -ge 1 ] && [ "$count" -lt 10 ] || fail "the kill should land mid-push: $count of 10 runs there"
grep -v ' 30$' <<<"$pushed" | grep -q . && fail "a half run is in the site store: $(grep -v ' 30$' <<<"$pushed")"
expect_status 0 "$VP" results push --db "$BIG" --to "$SITE"
[ "$(results_per_run "$SITE")" = "$(results_per_run "$BIG")" ] || fail "after the second push the site store lacks runs or results"

section 7
# 7. The server killed mid-run: exit 1, every result in --json.
site_database midrun
"$VP" run cpu mem.write mem.stream --ops=20m --size=64m --passes=2 --reps 3 --db "$SITE" \
    --json "$WORK/midrun.json" >"$WORK/midrun.out" 2>"$WORK/midrun.err" &
kill_when "$WORK/midrun.out" '^cpu' $!
[ "$STATUS" -eq 1 ] || fail "a run whose store died exited $STATUS, want 1: $(tail -n 3 "$WORK/midrun.err")"
json_check "$WORK/midrun.json" 'len(d["results"]) == 3 and [r["bench"] for r in d["results"]] == ["cpu", "mem.write", "mem.stream"]' "the JSON document of a run whose store died"
expect_contains "$WORK/midrun.out" "NOT stored in the results database"
restart_postgresql
# The server restarted between two results: the run connects again and loses nothing.
site_database restarted
"$VP" run cpu time.ticks mem.write --ops=1m --size=1m --passes=1 --duration 1s --reps 3 \
    --db "$SITE" >"$WORK/restarted.out" 2>"$WORK/restarted.err" &
kill_when "$WORK/restarted.out" '^cpu' $! restart
[ "$STATUS" -eq 0 ] || fail "a run whose server restarted between results exited $STATUS, want 0: $(tail -n 3 "$WORK/restarted.err")"
[ "$(psql -X -At -d "$SITE" -c "SELECT string_agg(bench, ' ' ORDER BY seq) || ' ' || MIN(r.status) FROM results s JOIN runs r ON r.id = s.run_id")" = "cpu time.ticks mem.write ok" ] ||
    fail "a run whose server restarted between results should store all three and end ok: $(psql -X -At -d "$SITE" -c "SELECT bench, r.status FROM results s JOIN runs r ON r.id = s.run_id")"

section 8
# 8. Refusals: a wrong password, no such database, a read-only role are exit 1 in one
# line; a URL with a password or malformed is exit 2; no password is ever printed.
site_database refusals
printf '*:%s:*:vpsite:wrong\n' "$PG_PORT" >"$WORK/wrong.pgpass"
chmod 600 "$WORK/wrong.pgpass"
PGPASSFILE=$WORK/wrong.pgpass "$VP" run cpu --ops=1m --reps 2 --db "$SITE" >"$WORK/out" 2>"$WORK/err"
status=$?
[ "$status" -eq 1 ] || fail "a wrong password: exit $status, want 1"
[ "$(wc -l <"$WORK/err")" -eq 1 ] && grep -q 'password authentication failed for user "vpsite"' "$WORK/err" ||
    fail "a wrong password should be one line naming it: $(cat "$WORK/err")"
grep -q "stored as run" "$WORK/out" && fail "a run refused by its store said it was stored"
PGPASSFILE=/dev/null PGPASSWORD=$(cat "$PG_HOME/password") \
    expect_status 0 "$VP" run cpu --ops=1m --reps 2 --label viaenv --quiet --db "$SITE"
"$VP" results list --db "$PG_URL/nosuch" >"$WORK/out" 2>"$WORK/err"
[ $? -eq 1 ] && grep -q 'database "nosuch" does not exist' "$WORK/err" || fail "no such database: $(cat "$WORK/err")"
psql -X -q -d "$SITE" -c "CREATE ROLE reader LOGIN PASSWORD 'readerpw'; GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader" ||
    fail "cannot make a read-only role"
printf '*:%s:*:reader:readerpw\n' "$PG_PORT" >>"$PGPASSFILE"
"$VP" run cpu --ops=1m --reps 2 --db "postgresql://reader@127.0.0.1:$PG_PORT/refusals" >"$WORK/out" 2>"$WORK/err"
status=$?
[ "$status" -eq 1 ] && grep -q "permission denied" "$WORK/err" || fail "a read-only role: exit $status: $(cat "$WORK/err")"
# the same refusal once a run's containers have started (the store takes no run after
# they answered): exit 1, and none of them, nor their directory, is left
(cd "$WORK" && VIRTPERF_CACHE="$WORK/cache" exec "$VP" run null --reps 1 --containers 1 \
    --db "postgresql://reader@127.0.0.1:$PG_PORT/refusals") >"$WORK/out" 2>"$WORK/err" &
RUN=$!
wait $RUN
status=$?
[ "$status" -eq 1 ] && grep -q "permission denied" "$WORK/err" && grep -q "1 container started" "$WORK/err" ||
    fail "a read-only role beside containers: exit $status: $(cat "$WORK/err")"
left=$(podman ps -a --format '{{.Names}}' | grep "^virtperf-$RUN-")
[ -z "$left" ] || fail "a refusal after the containers started left them: $left"
! ls -d /tmp/virtperf-containers-*/virtperf-"$RUN"-* "$WORK"/virtperf-box-* 2>/dev/null | grep -q . ||
    fail "a refusal after the containers started left their directories"
expect_status 0 "$VP" results list --db "postgresql://reader@127.0.0.1:$PG_PORT/refusals"
expect_contains "$WORK/out" "viaenv"
secret=$(cat "$PG_HOME/password")
expect_usage_error "the URL carries a password" "$VP" results list --db "postgresql://vpsite:$secret@127.0.0.1:$PG_PORT/refusals"
expect_usage_error "the URL carries a password" "$VP" run cpu --db "$SITE?password=$secret"
grep -q "$secret" "$WORK/out" && fail "a password in a URL was printed"
expect_usage_error "not a PostgreSQL URL" "$VP" results list --db "postgresql://[::1"
grep -rq "$secret" <(psql -X -At -d "$SITE" -c "SELECT command FROM runs") && fail "a password was stored with a run"

section 9
# 9. A campaign over three hosts: the first writes the site store directly, the other two
# to their own SQLite and push. compare and report over the site store give what one
# SQLite holding the same runs gives.
site_database campaign
campaign_pids=()
for n in 1 2 3; do
    site_url="postgresql://vpsite@198.18.2$n.1:$PG_PORT/campaign"
    if [ "$n" = 1 ]; then
        ip netns exec "${HOSTS[0]}" "$VP" run cpu mem.write --ops=1m --size=1m --passes=1 --reps 3 --jobs 1,2 \
            --label host1 --quiet --db "$site_url" >"$WORK/host1.out" 2>&1 &
    else
        ip netns exec "${HOSTS[$((n - 1))]}" bash -c '"$1" run cpu mem.write --ops=1m --size=1m --passes=1 --reps 3 --jobs 1,2 --label "host$2" --quiet --db "$3" &&
            "$1" results push --db "$3" --to "$4"' _ "$VP" "$n" "$WORK/campaign$n.db" "$site_url" >"$WORK/host$n.out" 2>&1 &
    fi
    campaign_pids+=($!)
done
for n in 1 2 3; do
    wait "${campaign_pids[$((n - 1))]}" || fail "host $n exited $?: $(tail -n 3 "$WORK/host$n.out")"
done
expect_status 0 "$VP" results push --db "$SITE" --to "$WORK/campaign.db"
[ "$(results_per_run "$SITE" | wc -l)" = 3 ] || fail "the campaign should hold 3 runs"
for store in "$SITE" "$WORK/campaign.db"; do
    tag=$(basename "$store")
    "$VP" compare host1 host2 host3 --db "$store" >"$WORK/compare.$tag" 2>&1 || fail "compare over $store failed: $(tail -n 2 "$WORK/compare.$tag")"
    "$VP" report host1 host2 host3 --db "$store" -o "$WORK/report.$tag.html" >/dev/null 2>&1 || fail "report over $store failed"
    { "$VP" scaling host2 --db "$store" && "$VP" plan --workloads 20 --from host3 --host-cost 3000 \
        --current-cost 1000 --db "$store"; } >"$WORK/scaling.$tag" 2>&1 || fail "scaling or plan over $store failed: $(tail -n 2 "$WORK/scaling.$tag")"
done
cmp -s "$WORK/compare.campaign" "$WORK/compare.campaign.db" || fail "compare differs between the site store and SQLite: $(diff "$WORK/compare.campaign" "$WORK/compare.campaign.db" | head -n 6)"
grep -q "host2" "$WORK/compare.campaign" || fail "the campaign's compare does not name host2's run"
cmp -s "$WORK/scaling.campaign" "$WORK/scaling.campaign.db" || fail "scaling or plan differs between the site store and SQLite: $(diff "$WORK/scaling.campaign" "$WORK/scaling.campaign.db" | head -n 6)"
grep -q "efficiency" "$WORK/scaling.campaign" || fail "the campaign's scaling table is missing: $(head -n 3 "$WORK/scaling.campaign")"
# (the page says when it was made: that line aside, the two must be the same)
for page in "$WORK/report.campaign.html" "$WORK/report.campaign.db.html"; do
    sed 's/Generated [0-9TZ:-]* from/Generated from/' "$page" >"$page.timeless"
done
cmp -s "$WORK/report.campaign.html.timeless" "$WORK/report.campaign.db.html.timeless" ||
    fail "report differs between the site store and SQLite: $(diff <(tr '>' '\n' <"$WORK/report.campaign.html.timeless") <(tr '>' '\n' <"$WORK/report.campaign.db.html.timeless") | head -n 8 | cut -c1-300)"
grep -q "host3" "$WORK/report.campaign.html" || fail "the campaign's report does not name host3's run"

section 10
# 10. virtperf-mpi stores from rank 0 into the site store as a plain run does.
MPI_VP=$(dirname "$VP")/virtperf-mpi
if command -v mpirun >/dev/null && [ -x "$MPI_VP" ]; then
    site_database ranks
    use_open_mpi # lib.sh: as root, leak checks on, PMIx's store in the process
    "${MPIRUN[@]}" -n 2 -x PGPASSFILE -x ASAN_OPTIONS \
        -x LSAN_OPTIONS "$MPI_VP" run cpu --ops=1m --reps 2 --label ranks --quiet --db "$SITE" \
        >"$WORK/mpi.out" 2>&1 || fail "virtperf-mpi into the site store exited $?: $(tail -n 3 "$WORK/mpi.out")"
    [ "$(psql -X -At -d "$SITE" -c "SELECT label || ' ' || status FROM runs")" = "ranks ok" ] ||
        fail "virtperf-mpi's run is not in the site store whole: $(psql -X -At -d "$SITE" -c 'SELECT label, status FROM runs')"
else
    fail "virtperf-mpi or mpirun is missing (scripts/deps.sh mpi), so rank 0's writing was not checked"
fi

# Neither binary links libpq: it is loaded when a store is a URL (store/libpq_loaded.c),
# so a rank writing SQLite, or none, loads none of the libraries libpq pulls in.
for binary in "$VP" "$MPI_VP"; do
    [ -x "$binary" ] || continue
    needed=$(readelf -d "$binary" | grep NEEDED) || fail "readelf lists nothing $binary needs"
    case $needed in *libpq*) fail "$(basename "$binary") links libpq; it should load it when a store is a URL" ;; esac
done

section 11
for ns in "${HOSTS[@]}"; do ip netns del "$ns"; done
HOSTS=()
stop_postgresql
finish
