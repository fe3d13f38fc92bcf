#!/bin/bash
# How fast `results push` fills a PostgreSQL site store: RUNS runs of RESULTS results each
# (one real cpu result copied) imported into a local SQLite file, then pushed into a new
# database of a scratch PostgreSQL server on loopback (the tests' own: initdb in a temp
# dir, fsync off), ROUNDS times. Each round prints the push's seconds, its results per
# second and its ratio to `results import` of the same documents into a new SQLite file
# (the same store code with no server round trip): the cost of the wire and the server.
# Usage: bench/push_scale.sh [ROUNDS [RUNS [RESULTS]]]   (default 3 10 100); as root.
# Not a test: it asserts nothing.
set -eu
cd "$(dirname "$0")/.." || exit 1
ROUNDS=${1:-3}
RUNS=${2:-10}
RESULTS=${3:-100}
scripts/deps.sh build site test >/dev/null
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
VP=$PWD/build/virtperf
. tests/system/lib.sh
set +u
start_postgresql

"$VP" run cpu --reps 5 --quiet --db "$WORK/seed.db" >/dev/null
"$VP" results export --db "$WORK/seed.db" -o "$WORK/seed.json" 1
python3 - "$WORK/seed.json" "$WORK/runs" "$RUNS" "$RESULTS" <<'PY'
import copy, json, os, sys
doc = json.load(open(sys.argv[1]))
os.makedirs(sys.argv[2])
result = doc["results"][0]
doc["results"] = [copy.deepcopy(result) for _ in range(int(sys.argv[4]))]
for n in range(int(sys.argv[3])):
    doc["run"]["id"] = "%032x" % (0xbe0c0000 + n)
    json.dump(doc, open(os.path.join(sys.argv[2], "%04d.json" % n), "w"))
PY

seconds_of() { # CMD...: the wall seconds CMD took (its output dropped)
    local started
    started=$(date +%s.%N)
    "$@" >/dev/null
    python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.3f}')" "$started" "$(date +%s.%N)"
}
import_all() { # DB
    for file in "$WORK"/runs/*.json; do "$VP" results import "$file" --db "$1"; done
}

total=$((RUNS * RESULTS))
printf '%-6s %12s %12s %12s %14s\n' round "import s" "push s" "push res/s" "push/import"
for round in $(seq 1 "$ROUNDS"); do
    rm -f "$WORK/local.db"
    imported=$(seconds_of import_all "$WORK/local.db")
    site_database "round$round"
    pushed=$(seconds_of "$VP" results push --db "$WORK/local.db" --to "$SITE")
    [ "$(psql -X -At -d "$SITE" -c 'SELECT COUNT(*) FROM results')" = "$total" ] ||
        { echo "round $round: the site store does not hold the $total results" >&2; exit 1; }
    python3 -c "import sys; i, p, n = float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]); print(f'{sys.argv[1]:<6} {i:12.3f} {p:12.3f} {n / p:12.0f} {p / i:14.2f}')" \
        "$round" "$imported" "$pushed" "$total"
done
stop_postgresql
echo "($RUNS runs of $RESULTS cpu results; machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'))"
