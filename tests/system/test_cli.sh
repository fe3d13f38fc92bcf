#!/bin/bash
# The CLI: help, version, list, and bad input: one line naming the input and the
# accepted form, exit 2, nothing stored, and an unwritable --db refused up front.
. "$(dirname "$0")/lib.sh"

expect_status 0 "$VP" --version
expect_contains "$WORK/out" "virtperf 0."
expect_status 0 "$VP" --help
for command in run list sysinfo results; do
    expect_status 0 "$VP" $command --help
    expect_contains "$WORK/out" "usage: virtperf"
done
expect_status 0 "$VP" list
for bench in cpu mem.write mem.stream mem.latency; do
    expect_contains "$WORK/out" "$bench"
done
expect_status 0 "$VP" list mem.write
expect_contains "$WORK/out" "--size"
expect_contains "$WORK/out" "default 256m"
expect_contains "$WORK/out" "from 4 KiB to 64 GiB"
expect_contains "$WORK/out" "first_touch  B/s    higher is better"
expect_status 0 "$VP" sysinfo
expect_contains "$WORK/out" "clocksource"
expect_contains "$WORK/out" "advisories:"
expect_status 0 "$VP" sysinfo --json
json_check "$WORK/out" '"cpu" in d["fingerprint"] and isinstance(d["advisories"], list) and d["fingerprint"]["cpu"]["threads"] >= 1' "sysinfo --json lacks the fingerprint"
# hwloc's I/O and libxml2 plugins stay unloaded (virtperf keeps no I/O object): the
# dynamic loader names every library it opens
LD_DEBUG=files "$VP" sysinfo >/dev/null 2>"$WORK/loaded" || fail "sysinfo under LD_DEBUG failed"
grep -q "file=.*libhwloc" "$WORK/loaded" || fail "LD_DEBUG should list the libraries sysinfo loads"
grep -E "file=.*(hwloc_(gl|pci|opencl|xml_libxml)|libX11)" "$WORK/loaded" | head -3 | grep . &&
    fail "sysinfo should not load hwloc's I/O or libxml2 plugins"

expect_status 0 "$VP" results list
expect_contains "$WORK/out" "no runs stored yet"
expect_usage_error "unknown command 'frobnicate'" "$VP" frobnicate
expect_usage_error "unknown benchmark 'nosuch'; accepted: cpu, mem.write" "$VP" run nosuch
expect_usage_error "--jobs: '0' is not valid; accepted: N, a list 1,2,4 or a range 1..8" "$VP" run cpu --jobs 0
expect_usage_error "--jobs: '3,1'" "$VP" run cpu --jobs 3,1
expect_usage_error "--pin: 'sideways' is not valid; accepted: none, compact, spread, or a CPU list" "$VP" run cpu --pin sideways
expect_usage_error "--pin: CPU 4095 does not exist here" "$VP" run cpu --pin 4095
expect_usage_error "--reps: '0' is not valid; accepted: a whole number from 1 to 1000" "$VP" run cpu --reps 0
expect_usage_error "--size: '12x' is not valid; accepted: a size in bytes" "$VP" run mem.write --size=12x
expect_usage_error "--mode: 'fast' is not valid; accepted: one of byte|wide|nt" "$VP" run mem.write --mode=fast
expect_usage_error "--sizes: 'small' is not valid" "$VP" run mem.latency --sizes=small
expect_usage_error "--passes: not an option of the selected benchmarks" "$VP" run cpu --passes=3
expect_usage_error "--duration: none of the selected benchmarks is time-bound" "$VP" run mem.stream --duration 1s
expect_usage_error "--duration: '1h' is not valid" "$VP" run cpu --duration 1h
expect_usage_error "--monitor-hz: '0' is not valid" "$VP" run cpu --monitor-hz 0
expect_usage_error "run: unknown or incomplete option '--frob'" "$VP" run cpu --frob
expect_usage_error "results: unknown action 'purge'" "$VP" results purge
expect_usage_error "run 'nosuch': not found" "$VP" results show nosuch
expect_usage_error "list: unknown benchmark 'cpu2'" "$VP" list cpu2
expect_usage_error "sysinfo: unknown option '--xml'; accepted: --json, --db, --help" "$VP" sysinfo --xml
# every subcommand's flags by its table: an unknown one is named with what is accepted, a
# value refused names the flag, a flag of another action is refused, never ignored
expect_usage_error "compare: unknown option '--marign'; accepted: --margin, --vary" "$VP" compare a b --marign 3
expect_usage_error "scaling: --qos: " "$VP" scaling latest --qos nonsense
expect_usage_error "serve: --port needs a value; accepted: --port N" "$VP" serve --port
expect_usage_error "results: --format: 'xml' is not valid; accepted: json, csv" "$VP" results export latest --format=xml
expect_usage_error "results show: -o and --format are export's alone" "$VP" results show latest -o "$WORK/x.json"
expect_usage_error "data index: --files, --file-size and --seed are prepare's" "$VP" data index --source "$WORK" --seed 2
expect_usage_error "plan: --workloads: '0' is not valid; accepted: a positive number" "$VP" plan --workloads 0 --per-host 2
expect_runs 0 "bad input stored a run"

# An unwritable database is refused before any benchmark starts (the run would take
# seconds; the refusal must be immediate).
start=$(date +%s%N)
expect_usage_error "--db /proc/virtperf.db" "$VP" run cpu --ops=1g --db /proc/virtperf.db
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$elapsed_ms" -lt 1000 ] || fail "unwritable --db took ${elapsed_ms} ms to refuse"
expect_usage_error "--json: cannot write '/proc/nope/x.json'" "$VP" run cpu --json /proc/nope/x.json
expect_runs 0 "a refused run stored something"

# --units after any command: bits for network rates by default, one style when asked.
expect_status 0 "$VP" run net.stream --duration 0.2s --reps 2 --warmup 0 --label units --quiet
expect_contains "$WORK/out" "b/s"
expect_status 0 "$VP" results show @units --units iec
expect_contains "$WORK/out" "iB/s"
grep -q " b/s\| [kMG]b/s" "$WORK/out" && fail "--units iec still showed bits"
expect_usage_error "--units: 'xx' is not valid; accepted: field" "$VP" results show @units --units xx
# ... or before the command's name ("unknown command '--units'" it was)
expect_status 0 "$VP" --units iec results show @units
grep -q " b/s\| [kMG]b/s" "$WORK/out" && fail "--units iec before the command still showed bits"
expect_contains "$WORK/out" "iB/s"
finish
