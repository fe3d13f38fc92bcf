#!/bin/bash
# Every test of `make test`, in order: build, cmocka unit tests, the same under
# ASan+UBSan, the system tests against the real binary (each once: the measuring ones on
# the release build, the others under the sanitizers; see below), then each fuzz target
# for a short while. Ends with one summary line
# "N passed, M failed, K skipped" and a non-zero exit when anything failed. A test that
# exits 77 was skipped: counted and named, never a pass; under CI (CI=true), whose
# machine has every package, a skip is a failure.
set -u
cd "$(dirname "$0")/.."
FUZZ_SECONDS=${FUZZ_SECONDS:-10} # scripts/fuzz.sh fuzzes for longer
passed=0
failed=0
skipped=0
failures=""
skips=""

record() { # NAME STATUS
    if [ "$2" -eq 0 ]; then
        passed=$((passed + 1))
    elif [ "$2" -eq 77 ] && [ "${CI:-}" != true ]; then
        skipped=$((skipped + 1))
        skips="$skips $1"
    else
        failed=$((failed + 1))
        failures="$failures $1"
        [ "$2" -eq 77 ] && echo "$1 skipped under CI, where every package is installed: a failure"
    fi
}

step() { echo; echo "=== $*"; }

count_meson_tests() { # BUILD_DIR NAME
    meson test -C "$1" --print-errorlogs >"$1/test-output.txt" 2>&1
    local status=$?
    local ok fail
    ok=$(awk '/^Ok:/ {print $2}' "$1/test-output.txt")
    fail=$(awk '/^Fail:/ {print $2}' "$1/test-output.txt")
    skip=$(awk '/^Skipped:/ {print $2}' "$1/test-output.txt")
    grep -E '^ *[0-9]+/[0-9]+ ' "$1/test-output.txt"
    passed=$((passed + ${ok:-0}))
    failed=$((failed + ${fail:-0}))
    for ((i = 0; i < ${skip:-0}; i++)); do record "$2" 77; done
    if [ $status -ne 0 ]; then
        cat "$1/test-output.txt"
        [ "${fail:-0}" -gt 0 ] || { failed=$((failed + 1)); }
        failures="$failures $2"
    fi
}

step "source checks"
bash tests/check_layers.sh
record check_layers $?

step "build (release)"
# A build/ that `make run` configured before cmocka was installed has no unit tests:
# ask for them now (meson then looks for cmocka again).
if [ -f build/build.ninja ]; then
    meson configure build -Dtests=enabled >/dev/null
else
    meson setup build -Dtests=enabled >/dev/null
fi
ninja -C build || { echo "0 passed, 1 failed"; exit 1; }

step "unit tests (cmocka)"
count_meson_tests build unit

step "unit tests under ASan+UBSan"
[ -f build-asan/build.ninja ] || meson setup build-asan -Dbuildtype=debug -Dtests=enabled \
    -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
if ninja -C build-asan >/dev/null; then
    count_meson_tests build-asan unit-asan
else
    record build-asan 1
fi

# Each system test runs once: under ASan+UBSan, where what matters is the code each path
# runs, except those that judge measured figures (clock drift, timer and idle latency,
# the vcost micro-costs, rates through tbf, a compare's significance, a guest's speed,
# interruptions against known truth, a store saturating behind tbf) or
# build their own tree, which need the release build. test_net runs in both: its hostile
# clients under the sanitizers (VP_SANITIZED leaves its deadlines and rates out there),
# its rates and deadlines in release (VP_MEASURING_ONLY leaves the rest out there).
release_only="test_time test_idle test_vcost test_mpi_hosts test_guest test_fresh
    test_stream_codegen test_compare test_probe test_migration test_data_saturation
    test_study_plans test_guests test_containers"
in_release() { case " $(echo $release_only) test_net " in *" $1 "*) return 0 ;; esac; return 1; }
in_sanitized() { case " $(echo $release_only) " in *" $1 "*) return 1 ;; esac; return 0; }
run_system_test() { # LABEL VP SANITIZED MEASURING_ONLY TEST
    local started=$SECONDS
    VP="$2" VP_SANITIZED="$3" VP_MEASURING_ONLY="$4" timeout 300 bash "$5"
    local status=$?
    echo "    $1: $((SECONDS - started)) s"
    record "$1" $status
}

step "system tests (release build: the measuring ones)"
export REPORT_SCREENSHOT="$PWD/build/report.png" # test_report.sh keeps its screenshot there
for test in tests/system/test_*.sh; do
    name=$(basename "$test" .sh)
    measuring_only=0
    in_sanitized "$name" && measuring_only=1 # both passes: here only what it measures
    in_release "$name" && run_system_test "$name.sh" "$PWD/build/virtperf" 0 $measuring_only "$test"
done

step "system tests under ASan+UBSan"
for test in tests/system/test_*.sh; do
    name=$(basename "$test" .sh)
    in_sanitized "$name" && run_system_test "asan:$name.sh" "$PWD/build-asan/virtperf" 1 0 "$test"
done
unset REPORT_SCREENSHOT

step "fuzz targets (${FUZZ_SECONDS}s each)"
if [ ! -f build-fuzz/build.ninja ]; then
    CC=clang meson setup build-fuzz -Dfuzz=true -Dtests=disabled -Dbuildtype=debug \
        -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
fi
if ninja -C build-fuzz >/dev/null; then
    for target in document units procfs protocol manifest plan channel; do
        work=$(mktemp -d)
        cp fuzz/corpus/$target/* "$work/"
        ASAN_OPTIONS=detect_leaks=1 build-fuzz/fuzz/fuzz_$target -max_total_time="$FUZZ_SECONDS" -error_exitcode=1 \
            -max_len=65536 -print_final_stats=0 -artifact_prefix="$work/" "$work" >"$work/log" 2>&1
        status=$?
        grep -E "Done|ERROR|SUMMARY" "$work/log" | tail -2
        [ $status -eq 0 ] || tail -40 "$work/log"
        record "fuzz_$target" $status
        rm -rf "$work"
    done
else
    record build-fuzz 1
fi

echo
[ -z "$skips" ] || echo "skipped:$skips"
[ -z "$failures" ] || echo "failed:$failures"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
