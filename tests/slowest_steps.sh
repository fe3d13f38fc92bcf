#!/bin/bash
# Where the suite's time goes: run it with VP_TRACE_DIR=DIR (every system test then traces
# its commands into DIR, each with the second it began at; tests/system/lib.sh), then
#   tests/slowest_steps.sh DIR [N]
# lists the N (20) steps that took longest, each as seconds, test and the command.
# A step is a traced command and what ran until the next one (a loop's body included).
set -u
[ $# -ge 1 ] && [ -d "$1" ] || { echo "usage: tests/slowest_steps.sh TRACE_DIR [N]" >&2; exit 2; }
count=${2:-20}
case "$count" in '' | *[!0-9]*) echo "slowest_steps: N '$count' is not valid; accepted: a count" >&2; exit 2 ;; esac
for trace in "$1"/*.trace; do
    [ -e "$trace" ] || { echo "slowest_steps: no .trace file in $1" >&2; exit 2; }
    awk -v test="$(basename "$trace" .trace)" '
        /^\++ [0-9]+ / {
            if (started != "") printf "%d\t%s\t%s\n", $2 - started, test, step
            started = $2; step = substr($0, index($0, $3), 160)
        }' "$trace"
done | sort -t"$(printf '\t')" -k1,1nr | head -n "$count"
