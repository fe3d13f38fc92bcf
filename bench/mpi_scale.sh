#!/bin/bash
# What virtperf-mpi costs at scale on this machine (ranks oversubscribed on its CPUs):
# the wall time of `virtperf-mpi run null` against a plain MPI launch of the same ranks
# (bench/mpi_plain.c: init, one barrier, finalize), alternating (which goes first swapped
# every other round), each round's ratio and the median; then, once per rank count, the
# peak RSS of rank 0 and of the median rank
# (GNU time around each rank) beside the plain launch's, the bytes a run's result holds
# per rank (the exported JSON of null, disk.write and net.rr, whose ranks carry their
# figures, histograms and fingerprints), and the time to store one run per rank (its
# JSON imported into a new database: the same rows rank 0 writes). Not a test: rerun it
# on your machine.
# Usage: bench/mpi_scale.sh [ROUNDS] [RANKS...]   (defaults 3 and 4 8 16 32)
set -u
cd "$(dirname "$0")/.." || exit 1
ROUNDS=${1:-3}
shift $(($# > 0 ? 1 : 0))
RANKS=${*:-4 8 16 32}
scripts/deps.sh build mpi peers || exit 1
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null || exit 1
[ -x build/virtperf-mpi ] || { echo "virtperf-mpi was not built (no MPI found)" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PMIX_MCA_gds=hash
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpicc -O2 -o "$work/plain" bench/mpi_plain.c || exit 1
MPIRUN=(mpirun --oversubscribe --bind-to none)

seconds() { # COMMAND... -> wall seconds; the command must succeed
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
    end=$(date +%s.%N)
    echo "$end - $start" | bc
}
launch_virtperf() { # RANKS -> wall seconds of virtperf-mpi run null over them
    seconds "${MPIRUN[@]}" -np "$1" build/virtperf-mpi run null --reps 1 --warmup 0 --quiet \
        --db "$work/db"
}
# timed PREFIX COMMAND...: a rank under GNU time, its peak RSS in PREFIX.RANK
cat >"$work/timed" <<'EOF'
#!/bin/bash
prefix=$1
shift
exec /usr/bin/time -f %M -o "$prefix.$OMPI_COMM_WORLD_RANK" "$@"
EOF
chmod +x "$work/timed"

echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs, $(uname -r)"
echo "wall time of a launch, virtperf-mpi run null --reps 1 / plain MPI launch"
for ranks in $RANKS; do
    ratios=()
    for round in $(seq "$ROUNDS"); do
        if [ $((round % 2)) -eq 1 ]; then # the order swapped every other round
            plain=$(seconds "${MPIRUN[@]}" -np "$ranks" "$work/plain")
            virtperf=$(launch_virtperf "$ranks")
        else
            virtperf=$(launch_virtperf "$ranks")
            plain=$(seconds "${MPIRUN[@]}" -np "$ranks" "$work/plain")
        fi
        ratio=$(echo "scale=3; $virtperf / $plain" | bc)
        ratios+=("$ratio")
        printf '  %3d ranks round %d: plain %6.2f s, virtperf-mpi %6.2f s, ratio %s\n' \
            "$ranks" "$round" "$plain" "$virtperf" "$ratio"
    done
    printf '%3d ranks: median ratio %s\n' "$ranks" \
        "$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')"
done

echo "peak RSS per rank (KiB: rank 0, median rank; plain launch's median), result bytes per rank, store ms per rank"
printf '%6s %10s %12s %12s %12s %12s %12s %14s\n' ranks "rank 0" "median rank" "plain" \
    "null B/rank" "disk B/rank" "net B/rank" "store ms/rank"
for ranks in $RANKS; do
    "${MPIRUN[@]}" -np "$ranks" "$work/timed" "$work/rss" \
        build/virtperf-mpi run null --reps 1 --warmup 0 --quiet --db "$work/db" \
        --json "$work/null.json" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
    "${MPIRUN[@]}" -np "$ranks" "$work/timed" "$work/plain_rss" "$work/plain" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
    "${MPIRUN[@]}" -np "$ranks" build/virtperf-mpi run disk.write --size 1m --path /var/tmp \
        --reps 1 --warmup 0 --quiet --db "$work/db" --json "$work/disk.json" >/dev/null \
        2>"$work/err" || { cat "$work/err" >&2; exit 1; }
    "${MPIRUN[@]}" -np "$ranks" build/virtperf-mpi run net.rr --duration 500ms --reps 1 \
        --warmup 0 --quiet --db "$work/db" --json "$work/net.json" >/dev/null \
        2>"$work/err" || { cat "$work/err" >&2; exit 1; }
    rm -f "$work/store.db"
    store_s=$(seconds build/virtperf results import "$work/disk.json" --db "$work/store.db")
    median_of() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
    printf '%6d %10s %12s %12s %12d %12d %12d %14.2f\n' "$ranks" "$(cat "$work/rss.0")" \
        "$(cat "$work"/rss.* | median_of)" "$(cat "$work"/plain_rss.* | median_of)" \
        $(($(stat -c %s "$work/null.json") / ranks)) $(($(stat -c %s "$work/disk.json") / ranks)) \
        $(($(stat -c %s "$work/net.json") / ranks)) "$(echo "$store_s * 1000 / $ranks" | bc -l)"
    rm -f "$work"/rss.* "$work"/plain_rss.*
done
