#!/bin/bash
# Plan files (run --plan): every plan in plans/ passes plan-check; a broken plan (unknown
# key, bad value, no bench, a key outside a section, not INI, a run key in a step, a
# study figure of no metric of the step, in a wrong unit or outside a step) is
# refused with FILE:LINE, exit 2 and nothing stored; --set overrides a key (and names
# itself when its value is bad); --dry-run prints the command lines; a plan run is one
# stored run whose text results show, export carries and import restores.
. "$(dirname "$0")/lib.sh"
PLANS="$(cd "$(dirname "$0")/../.." && pwd)/plans"
cd "$WORK" || exit 1

for plan in "$PLANS"/*.ini; do
    expect_status 0 "$VP" plan-check "$plan"
    expect_contains "$WORK/out" "ok"
done
[ "$(ls "$PLANS"/*-quick.ini | wc -l)" -eq 4 ] || fail "plans/ should hold a quick variant per study"
for plan in "$PLANS"/*.ini; do
    head -1 "$plan" | grep -qE '^; (CNAF 2007|SPring-8 2005|GridKa|IHEP 2010)' ||
        fail "$plan should open with a comment naming its study"
done

# The study plans' VM steps run in guests virtperf starts; --no-guests runs them here as
# the guests' jobs at once, and virtperf-mpi takes guests = SPEC as its ranks.
dry_where() { # PLAN LINE: --dry-run prints LINE
    expect_status 0 "$VP" run --plan "$PLANS/$1" --dry-run
    grep -qxF "$2" "$WORK/out" || fail "$1 --dry-run lacks '$2': $(grep '^#' "$WORK/out")"
}
dry_where ihep-2010.ini "# [disk] in guests 8, and on this host, alternating"
dry_where ihep-2010.ini "# [network] in guests 1..8"
dry_where ihep-2010.ini "# [cpu]"
dry_where spring8-2005.ini "# [rpc] in guests 1..auto:10"
dry_where cnaf-2007.ini "# [disk] in guests 1,2"
dry_where cnaf-2007.ini "# [network] in guests 2"
expect_contains "$WORK/out" "--topology=matrix net.stream"
# each quick plan with VMs in its study has its steps in guests too (GridKa's jobs read a
# shared store: no VM in the study, none in its plans)
dry_where ihep-2010-quick.ini "# [disk] in guests 2, and on this host, alternating"
dry_where ihep-2010-quick.ini "# [network] in guests 1,2"
dry_where cnaf-2007-quick.ini "# [disk] in guests 1,2"
dry_where cnaf-2007-quick.ini "# [network] in guests 2"
dry_where spring8-2005-quick.ini "# [rpc] in guests 1,2,4"
dry_where spring8-2005-quick.ini "# [interruption] in guests 1"
expect_contains "$WORK/out" "--migrate-to=qemu+ssh://second-hypervisor/system --migrate-at=2s --migrate-back net.probe"
# --no-guests leaves [global]'s settings of the guests out with them, said (a run refused
# guest-net = vpbr0 as a flag without guests); the command line's are still judged
expect_status 0 "$VP" run --plan "$PLANS/spring8-2005-quick.ini" --no-guests --set rpc.duration=100ms \
    --set global.reps=1 --set interruption.duration=200ms --db "$WORK/nog.db"
expect_contains "$WORK/out" "note: [global] guest-net = vpbr0: left out (--no-guests: the steps run on this host)"
expect_status 2 "$VP" run --plan "$PLANS/spring8-2005-quick.ini" --no-guests --guest-net vpbr0
expect_contains "$WORK/err" "--guest-net: only for the guests of a run"
expect_status 0 "$VP" run --plan "$PLANS/cnaf-2007.ini" --no-guests --dry-run
expect_contains "$WORK/out" "[network] topology = matrix: one host here, left out"
expect_status 0 "$VP" run --plan "$PLANS/ihep-2010.ini" --no-guests --dry-run
expect_contains "$WORK/out" "--path=. --jobs=8 iozone"
expect_contains "$WORK/out" "--reverse=on --jobs=1,2,3,4,5,6,7,8 net.stream"
expect_contains "$WORK/out" "[disk] guests = 8: --no-guests, run on this host as jobs = 8"
expect_contains "$WORK/out" "[disk] and-host = on: left out"
! grep -q '^# .* in guests' "$WORK/out" || fail "--no-guests: a step still runs in guests"
# a step's and-host = off is the step's, over [global]'s on; a switch takes on or off only
printf '[global]\nguests = 1\nand-host = on\n[both]\nbench = null\n[alone]\nbench = null\nand-host = off\n' >sides.ini
expect_status 0 "$VP" run --plan sides.ini --dry-run
expect_contains "$WORK/out" "# [both] in guests 1, and on this host, alternating"
grep -qx '# \[alone\] in guests 1' "$WORK/out" || fail "[alone] and-host = off should run in the guest alone: $(cat "$WORK/out")"
printf '[a]\nbench = null\nguests = 1\nand-host = maybe\n' >switch.ini
expect_status 2 "$VP" run --plan switch.ini --dry-run
expect_contains "$WORK/err" "switch.ini:4: and-host = maybe: a switch; accepted: on, off, true or false"
# a fill (guests = 1..auto:10) left out: its range swept here, qos with the guests
expect_status 0 "$VP" run --plan "$PLANS/spring8-2005.ini" --no-guests --dry-run
expect_contains "$WORK/out" "--jobs=1,2,3,4,5,6,7,8,9,10 net.rr"
expect_contains "$WORK/out" "[rpc] guests = 1..auto:10: --no-guests, run on this host as jobs = 1,2,3,4,5,6,7,8,9,10"
printf '[a]\nbench = null\njobs = 1,2\nguests = 2\n' >multi.ini
expect_status 2 "$VP" run --plan multi.ini --no-guests
expect_contains "$WORK/err" "multi.ini:3: guests = 2 with jobs = 1,2: not runnable on this host alone"

cat >small.ini <<'PLAN'
; a small plan
[global]
reps = 2
warmup = 0
size = 8m

[memory]
bench = mem.write
passes = 2
jobs = 1,2

[disk]
bench = dd
path = .
PLAN
expect_status 0 "$VP" run --plan small.ini --dry-run
expect_contains "$WORK/out" "virtperf run --reps=2 --warmup=0 --size=8m --passes=2 --jobs=1,2 mem.write"
expect_contains "$WORK/out" "--size=8m --path=. dd"
expect_runs 0 "--dry-run should run nothing"

# broken plans: FILE:LINE and what is accepted (a study figure too)
bad() { # WHAT TEXT-OF-PLAN: the plan's error names WHAT
    printf '%b' "$2" >bad.ini
    expect_usage_error "$1" "$VP" run --plan bad.ini
    expect_usage_error "$1" "$VP" plan-check bad.ini
}
bad "bad.ini:3: --sizes: not an option" '[m]\nbench = mem.write\nsizes = 8m\n'
bad "bad.ini:2: --reps: '0' is not valid" '[global]\nreps = 0\n[m]\nbench = mem.write\n'
bad "bad.ini:3: --size: '9x' is not valid" '[m]\nbench = mem.write\nsize = 9x\n'
bad "bad.ini: [m]: no bench" '[m]\nsize = 8m\n'
bad "bad.ini:1: reps outside a section" 'reps = 2\n[m]\nbench = cpu\n'
bad "bad.ini:2: unknown benchmark 'nosuch'" '[m]\nbench = nosuch\n'
bad "bad.ini:3: label belongs to the whole run" '[m]\nbench = mem.write\nlabel = x\n'
bad "bad.ini:1: not INI" '[m\nbench = cpu\n'
bad "bad.ini: [global]: no step" '[global]\nreps = 2\n'
bad "bad.ini:2: frobnicate: not a run flag nor an option of any step" '[global]\nfrobnicate = 1\n[m]\nbench = cpu\n'
# options in the bench line (--help printed usage and exited 0, --db=X was shown and
# ignored), a key or a section given twice (the last silently won)
bad "bad.ini:2: bench: '--help' is an option; accepted: benchmark names only" '[m]\nbench = null --help\n'
bad "bad.ini:2: bench: '--db=x.db' is an option" '[m]\nbench = null --db=x.db\n'
bad "bad.ini:4: reps is given twice in [m] (first at line 3)" '[m]\nbench = null\nreps = 2\nreps = 3\n'
bad "bad.ini:6: [m] opens a second time (first at line 2)" '[m]\nbench = null\n[n]\nbench = null\n[m]\nreps = 3\n'
bad "bad.ini:6: [global] opens a second time (first at line 2)" '[global]\nreps = 2\n[m]\nbench = null\n[global]\nwarmup = 0\n'
# the study's figures: a metric of one of the step's benchmarks, in a unit of its kind
bad "bad.ini:3: then.mem.write.speed: mem.write has no metric 'speed'; accepted: time, bandwidth" '[m]\nbench = mem.write\nthen.mem.write.speed = 3 s\n'
bad "bad.ini:3: then.mem.write.time: '3 Gb/s' is not a figure of time (s); accepted: a number >= 0 and one of: s, ms" '[m]\nbench = mem.write\nthen.mem.write.time = 3 Gb/s\n'
bad "bad.ini:3: then.disk.read.throughput: [m] does not run disk.read; accepted: a figure of its benchmarks (mem.write)" '[m]\nbench = mem.write\nthen.disk.read.throughput = 1 MB/s\n'
bad "bad.ini:4: then-penalty.mem.write.time@x: '@x' is not a job count" '[m]\nbench = mem.write\njobs = 1\nthen-penalty.mem.write.time@x = 3%\n'
bad "bad.ini:3: then-penalty.mem.write.time: '3' is not a penalty; accepted: a percentage" '[m]\nbench = mem.write\nthen-penalty.mem.write.time = 3\n'
bad "bad.ini:2: then.mem.write.time belongs to a step, not to [global]" '[global]\nthen.mem.write.time = 3 s\n[m]\nbench = mem.write\n'
expect_usage_error "--set memory.size: --size: '3q' is not valid" "$VP" run --plan small.ini --set memory.size=3q
expect_usage_error "small.ini has no step [nosuch]" "$VP" run --plan small.ini --set nosuch.x=1
expect_usage_error "benchmarks go in the plan's steps" "$VP" run --plan small.ini mem.write
expect_usage_error "--plan nowhere.ini: No such file" "$VP" run --plan nowhere.ini
expect_runs 0 "refused plans should store nothing"

# a run: one stored run, --set applied, the text kept through export and import
expect_status 0 "$VP" run --plan small.ini --set memory.passes=1 --label planned --quiet --json "$WORK/run.json"
expect_runs 1 "a plan is one stored run"
json_check "$WORK/run.json" 'len(d["results"]) == 4 and [r["bench"] for r in d["results"]] == ["mem.write", "mem.write", "disk.write", "disk.read"]' \
    "the steps in order: mem.write at 1 and 2 jobs, then dd"
json_check "$WORK/run.json" 'all(r["params"]["passes"] == 1 for r in d["results"][:2]) and all(r["params"]["size"] == 8388608 for r in d["results"])' \
    "--set memory.passes=1 and [global]'s size should hold"
expect_status 0 "$VP" results show planned
expect_contains "$WORK/out" "  bench = dd"
expect_contains "$WORK/out" "; --set memory.passes=1"
expect_status 0 "$VP" results export planned -o "$WORK/export.json"
json_check "$WORK/export.json" '"[memory]" in d["run"]["plan"] and "--set memory.passes=1" in d["run"]["plan"]' "export should carry the plan"
VIRTPERF_DB=$WORK/other.db expect_status 0 "$VP" results import "$WORK/export.json"
VIRTPERF_DB=$WORK/other.db expect_status 0 "$VP" results export latest -o "$WORK/again.json"
json_check "$WORK/again.json" '"[memory]" in d["run"]["plan"]' "import should restore the plan"
finish
