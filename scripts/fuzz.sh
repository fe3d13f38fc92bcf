#!/bin/bash
# Long fuzzing outside CI: every libFuzzer target (fuzz/meson.build) from its corpus for
# up to RUNS executions or SECONDS seconds, whichever comes first, under ASan+UBSan;
# prints each target's executions and crashes. make test runs each for 20 s only.
# Usage: scripts/fuzz.sh [SECONDS] [RUNS] [TARGET...]   (defaults 600, 10000000 and every
# target; run two at once on two cores by naming them). Not a test.
set -u
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-600}
RUNS=${2:-10000000}
shift 2 2>/dev/null || shift $#
TARGETS=${*:-$(sed -n "s/^foreach name : \[\(.*\)\]/\1/p" fuzz/meson.build | tr -d "',")}
scripts/deps.sh build test
if [ ! -f build-fuzz/build.ninja ]; then
    CC=clang meson setup build-fuzz -Dfuzz=true -Dtests=disabled -Dbuildtype=debug \
        -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
fi
ninja -C build-fuzz >/dev/null || exit 1
status=0
for target in $TARGETS; do
    work=$(mktemp -d)
    mkdir "$work/corpus" "$work/found" # what the run finds apart from the seeds (one is
    cp fuzz/corpus/"$target"/* "$work/corpus/" # named timeout-overflow: not a finding)
    ASAN_OPTIONS=detect_leaks=1 build-fuzz/fuzz/fuzz_$target -runs="$RUNS" \
        -max_total_time="$SECONDS_EACH" -max_len=65536 -print_final_stats=1 -error_exitcode=1 \
        -artifact_prefix="$work/found/" "$work/corpus" \
        >"$work/log" 2>&1
    result=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
    crashes=$(ls "$work/found" | wc -l)
    printf '%-10s %12s executions, %s crashes, exit %s\n' "$target" "${runs:-?}" "$crashes" "$result"
    if [ $result -ne 0 ]; then
        tail -30 "$work/log"
        mkdir -p build-fuzz/artifacts
        cp "$work"/found/* build-fuzz/artifacts/ 2>/dev/null
        echo "reproducers kept in build-fuzz/artifacts/"
        status=1
    fi
    rm -rf "$work"
done
exit $status
