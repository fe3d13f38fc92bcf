#!/bin/bash
# No flag of run is ignored where a run can be asked for: each flag `virtperf run --help`
# lists is, on virtperf-mpi's command line and as a key of a plan file, honoured (its
# effect found in the run's document or output) or refused (exit 2, one line naming it);
# a plan's virtperf-mpi keys, on one host, become what one host does, said in a note.
# Flags honoured together are given in one run; the others one at a time. A flag of run's
# help that no case here covers fails the walk: a new flag says here where it is honoured.
# (The guests' and containers' flags on virtperf-mpi are walked by test_mpi.sh, refused;
# as plan keys here, refused without members; a plan's guests and containers keys start
# members in test_containers.sh and test_study_plans.sh.)
. "$(dirname "$0")/lib.sh"
VP_MPI=${VP_MPI:-$(dirname "$VP")/virtperf-mpi}
[ -x "$VP_MPI" ] || skip "virtperf-mpi was not built (scripts/deps.sh mpi, then rebuild)"
command -v mpirun >/dev/null || skip "mpirun is not installed (scripts/deps.sh mpi)"
command -v script >/dev/null || skip "script (bsdutils) is not installed"
use_open_mpi # lib.sh: as root, oversubscribed, leak checks on
cd "$WORK"
MPI_WALKED=" "
PLAN_WALKED=" "

# holds DOC OUT EXPR WHAT: EXPR holds, in python over d (the document DOC), r (its first
# result), mon (r's monitor, or its first rank's), out (the output in OUT) and labels(DB)
# (the labels of the runs stored in DB)
holds() {
    python3 - "$1" "$2" "$3" <<'PY' || fail "$4"
import json, os, sqlite3, sys
d = json.load(open(sys.argv[1])) if os.path.exists(sys.argv[1]) else {}
r = (d.get("results") or [{}])[0]
mon = r.get("monitor") or (r.get("ranks", {}).get("hosts") or [{}])[0].get("monitor", {})
out = open(sys.argv[2], errors="replace").read()
def labels(db):
    return [row[0] for row in sqlite3.connect(db).execute("select label from runs")] \
        if os.path.exists(db) else []
ok = eval(sys.argv[3])
if not ok:
    print("  %s" % out[-600:], file=sys.stderr)
sys.exit(0 if ok else 1)
PY
}

# The flags honoured together, with what each does: FLAG VALUE|CHECK (VALUE: $DB, $JSON
# and $WATCH stand for the run's database, document and the process name to watch).
TOGETHER='--jobs 2|r["jobs"] == 2
--pin compact|r["pin"] == "compact"
--reps 2|r["reps"] == 2
--warmup 2|r["warmup"] == 2
--duration 0.3s|r["duration_s"] == 0.3
--label walk|d["run"]["label"] == "walk"
--db $DB|labels("$DB") == ["walk"]
--json $JSON|r["bench"] == "cpu"
--monitor-hz 5|mon["hz"] == 5
--watch $WATCH|"watch.$WATCH.cpu" in mon["summary"]
--quiet|"[1/" not in out'

# together CONTEXT DB JSON WATCH OUT: checks each of TOGETHER's effects on the run that
# wrote JSON and OUT
together() {
    local flag check
    while IFS='|' read -r flag check; do
        check=${check//\$DB/$2}
        check=${check//\$WATCH/$4}
        holds "$3" "$5" "$check" "$1: ${flag%% *} not honoured ($check)"
        [ "$1" = virtperf-mpi ] && MPI_WALKED+="${flag%% *} " || PLAN_WALKED+="${flag%% *} "
    done <<<"$TOGETHER"
}

# together_args DB JSON WATCH: TOGETHER's flags as words
together_args() {
    local flag
    while IFS='|' read -r flag _; do
        flag=${flag//\$DB/$1}
        flag=${flag//\$JSON/$2}
        echo "${flag//\$WATCH/$3}"
    done <<<"$TOGETHER"
}

# --- virtperf-mpi's command line
# mpi WANT ARGS...: virtperf-mpi run ARGS under mpirun -np $NP, or (no NP) a singleton
# (one rank started without mpirun: 0.5 s where mpirun -np 1 takes 2.4 s under ASan);
# its output in $WORK/out
mpi() {
    local want=$1 launch=()
    shift
    [ -n "${NP:-}" ] && launch=("${MPIRUN[@]}" -np "$NP")
    "${launch[@]}" "$VP_MPI" run "$@" </dev/null >"$WORK/out" 2>&1
    local status=$?
    [ $status -eq "$want" ] || fail "virtperf-mpi run $*: exit $status, want $want: $(tail -5 "$WORK/out")"
}
mpi_refused() { # FLAG TEXT ARGS...: exit 2, TEXT said, nothing stored
    local flag=$1 text=$2
    shift 2
    mpi 2 "$@" --db "$WORK/refused.db"
    grep -qF -- "$text" "$WORK/out" || fail "virtperf-mpi $flag: not refused by name: $(head -3 "$WORK/out")"
    [ ! -e "$WORK/refused.db" ] || fail "virtperf-mpi $flag: refused, yet a database was made"
    MPI_WALKED+="$flag "
}
# shellcheck disable=SC2046 # one word a line
mpi 0 cpu $(together_args "$WORK/mpi.db" "$WORK/mpi.json" virtperf-mpi)
together virtperf-mpi "$WORK/mpi.db" "$WORK/mpi.json" virtperf-mpi "$WORK/out"
mpi_refused --target "--target: goes with --reps auto" null --target 10
mpi_refused --background "--background: not accepted by virtperf-mpi yet" null --background net.probe
NP=2 mpi 0 null --ranks 1 --reps 1 --db "$WORK/mpi.db" --json "$WORK/ranks.json"
holds "$WORK/ranks.json" "$WORK/out" 'len(d["results"]) == 1 and r["ranks"]["count"] == 1' "virtperf-mpi --ranks 1 on 2 ranks: one result on one rank"
NP=2 mpi 0 net.rr --topology matrix --duration 0.2s --reps 1 --warmup 0 --db "$WORK/mpi.db" --json "$WORK/matrix.json"
holds "$WORK/matrix.json" "$WORK/out" 'len(d["results"]) == 2 and all(x["ranks"]["topology"] == "matrix" and len(x["ranks"]["links"]) == 1 for x in d["results"])' "virtperf-mpi --topology matrix: a result per ordered pair"
NP=2 mpi 0 null --start-with barrier --reps 1 --db "$WORK/mpi.db" --json "$WORK/barrier.json"
holds "$WORK/barrier.json" "$WORK/out" 'r["ranks"]["start_with"] == "barrier" and "started when MPI_Barrier returned" in out' "virtperf-mpi --start-with barrier"
MPI_WALKED+="--ranks --topology --start-with "
printf '[global]\nreps = 1\n\n[s]\nbench = null\nguests = 1\n' >"$WORK/plan.ini"
mpi 0 --plan "$WORK/plan.ini" --set s.reps=3 --no-guests --db "$WORK/mpi.db" --json "$WORK/plan.json"
holds "$WORK/plan.json" "$WORK/out" 'r["step"] == "s" and r["reps"] == 3 and "guests = 1: virtperf-mpi, run on ranks 1" in out' "virtperf-mpi --plan --set --no-guests: the step, its reps set, its guests on ranks"
MPI_WALKED+="--plan --set --no-guests "
mpi_refused --dry-run "--dry-run: not taken by virtperf-mpi" --plan "$WORK/plan.ini" --dry-run
mpi_refused --here "--here: not taken by virtperf-mpi" --plan "$WORK/plan.ini" --here
while read -r flag _; do MPI_WALKED+="$flag "; done < <(member_flags) # test_mpi.sh's walk

# --- a plan's keys (run under a terminal: --quiet is about its progress line)
plan_run() { # WANT PLAN_TEXT ARGS...: virtperf run --plan of PLAN_TEXT, its output in out
    local want=$1
    printf '%b' "$2" >"$WORK/walk.ini"
    shift 2
    script -qec "$(printf '%q ' "$VP" run --plan "$WORK/walk.ini" "$@")" /dev/null \
        </dev/null >"$WORK/out" 2>&1
    local status=$?
    [ $status -eq "$want" ] || fail "a plan of '$(tr '\n' ' ' <"$WORK/walk.ini")': exit $status, want $want: $(tail -5 "$WORK/out")"
}
plan_refused() { # KEY TEXT PLAN_TEXT: exit 2, TEXT said, nothing stored
    plan_run 2 "$3" --db "$WORK/refused.db"
    grep -qF -- "$2" "$WORK/out" || fail "plan key $1: not refused by name: $(head -3 "$WORK/out")"
    [ ! -e "$WORK/refused.db" ] || fail "plan key $1: refused, yet a database was made"
    PLAN_WALKED+="--$1 "
}
global=""
step=""
while IFS='|' read -r flag _; do
    key=${flag%% *}
    key=${key#--}
    value=${flag#* }
    [ "$value" = "$flag" ] && value=on
    value=${value//\$DB/$WORK/plan.db}
    value=${value//\$JSON/$WORK/plan-doc.json}
    value=${value//\$WATCH/virtperf}
    case $key in
    label | db | json | quiet | reps) global+="$key = $value\n" ;;
    *) step+="$key = $value\n" ;;
    esac
done <<<"$TOGETHER"
plan_run 0 "[global]\n${global}\n[s]\nbench = cpu\n${step}"
together plan "$WORK/plan.db" "$WORK/plan-doc.json" virtperf "$WORK/out"
plan_run 0 '[s]\nbench = null\nreps = auto:6\ntarget = 10\n' --db "$WORK/plan.db" --json "$WORK/target.json"
holds "$WORK/target.json" "$WORK/out" 'r["reps_target"] == 0.1 and 5 <= r["reps"] <= 6' "plan key target: kept as the result's reps_target"
PLAN_WALKED+="--target "
for key in background plan set dry-run here no-guests; do
    plan_refused "$key" "$key: not a plan key" "[global]\n$key = on\n\n[s]\nbench = null\n"
done
for key in ranks topology start-with; do
    value=$( case $key in ranks) echo 2 ;; topology) echo matrix ;; *) echo barrier ;; esac)
    plan_run 0 "[s]\nbench = null\nreps = 1\n$key = $value\n" --db "$WORK/plan.db"
    grep -qF "note: [s] $key = $value: one host here" "$WORK/out" ||
        fail "plan key $key on one host: not said in a note: $(cat "$WORK/out")"
    plan_refused "$key" "--$key: 'bogus' is not valid" "[s]\nbench = null\n$key = bogus\n"
done
while read -r flag value; do
    key=${flag#--}
    case $key in
    guests | containers | uml) PLAN_WALKED+="$flag "; continue ;; # start members: see above and test_uml.sh
    and-host) plan_refused "$key" "and-host: this step runs on this host alone" "[s]\nbench = null\nand-host = on\n"; continue ;;
    group) plan_refused "$key" "group: not a plan key" "[global]\ngroup = $value\n\n[s]\nbench = null\n"; continue ;;
    esac
    plan_refused "$key" "--$key: only for the" "[global]\n$key = ${value:-on}\n\n[s]\nbench = null\n"
done < <(member_flags)

# --- every flag of run's help was walked in both
while read -r flag _; do
    [ "$flag" = --help ] && continue
    case "$MPI_WALKED" in *" $flag "*) ;; *) fail "no case walks $flag on virtperf-mpi's command line" ;; esac
    case "$PLAN_WALKED" in *" $flag "*) ;; *) fail "no case walks $flag as a plan key" ;; esac
done < <("$VP" run --help | awk '$1 ~ /^--/ {print $1}')
finish
