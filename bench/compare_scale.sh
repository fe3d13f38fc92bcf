#!/bin/bash
# How compare's time grows with the number of results: two imported runs of N results
# each (the null benchmark's result with N different params), compared; prints the
# seconds for export alone and for the whole compare at each N. Linear growth means the
# matching is not quadratic (it was: 0.44 s at 400 results, over 120 s at 34,300).
# Usage: bench/compare_scale.sh [N...]   (default 5000 10000 20000). Not a test.
set -eu
cd "$(dirname "$0")/.." || exit 1
[ -x build/virtperf ] || { meson setup build >/dev/null && ninja -C build >/dev/null; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export VIRTPERF_DB="$WORK/scale.db"
build/virtperf run null --reps 5 --warmup 0 --label seed --quiet >/dev/null
build/virtperf results export seed -o "$WORK/seed.json"
printf '%8s %12s %12s\n' results "export s" "compare s"
[ $# -gt 0 ] || set -- 5000 10000 20000
for n in "$@"; do
    for side in a b; do
        python3 - "$WORK/seed.json" "$WORK/$side.json" "$n" "$side" <<'PY'
import copy, json, sys
d = json.load(open(sys.argv[1]))
template, n, side = d["results"][0], int(sys.argv[3]), sys.argv[4]
d["results"] = []
for i in range(n):
    result = copy.deepcopy(template)
    result["params"]["fail-job"], result["params"]["fail-rep"] = i % 1000, i // 1000
    d["results"].append(result)
d["run"]["id"] = side * 32
d["run"]["label"] = "scale-%s-%d" % (side, n)
json.dump(d, open(sys.argv[2], "w"))
PY
        build/virtperf results import "$WORK/$side.json" >/dev/null
    done
    start=$(date +%s.%N)
    build/virtperf results export "scale-a-$n" -o "$WORK/out.json"
    exported=$(date +%s.%N)
    build/virtperf compare "scale-a-$n" "scale-b-$n" --json "$WORK/cmp.json" >/dev/null
    done_at=$(date +%s.%N)
    python3 -c "import sys; a, b, c = map(float, sys.argv[2:]); print('%8s %12.2f %12.2f' % (sys.argv[1], b - a, c - b))" \
        "$n" "$start" "$exported" "$done_at"
    build/virtperf results delete "scale-a-$n" >/dev/null
    build/virtperf results delete "scale-b-$n" >/dev/null
done
