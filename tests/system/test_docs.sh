#!/bin/bash
# The manual page's benchmark and preset sections are the tables': the block between
# the GENERATED markers of docs/virtperf.1 must be exactly what `virtperf list --man`
# writes now (scripts/man.sh refreshes it). A benchmark option added, renamed or
# removed without the manual fails here. Also: every flag that a command's --help lists
# has a paragraph in the manual; every flag a command line of
# the README or docs/*.md uses is one its command takes (doc_flags.py); the README stays
# an index (under 250 lines) whose links to docs/ all exist.
. "$(dirname "$0")/lib.sh"
PAGE="$(dirname "$0")/../../docs/virtperf.1"

expect_status 0 "$VP" list --man
awk '/^\.\\" BEGIN GENERATED/ { inside = 1; next } /^\.\\" END GENERATED/ { inside = 0 } inside' \
    "$PAGE" >"$WORK/in_page"
[ -s "$WORK/in_page" ] || fail "docs/virtperf.1 has no GENERATED block"
if ! diff -u "$WORK/in_page" "$WORK/out" >"$WORK/diff"; then
    fail "docs/virtperf.1 differs from 'virtperf list --man' (run scripts/man.sh): $(head -20 "$WORK/diff")"
fi
# roff_flag NAME: how the manual writes --NAME (every '-' escaped)
roff_flag() { printf '%s' "--$1" | sed 's/-/\\-/g'; }
for option in udp ops accesses count round-trips; do # the options the manual once lacked
    grep -qF -- "\\fB$(roff_flag "$option")\\fR" "$WORK/in_page" || fail "the manual lacks --$option"
done
for command in run compare report scaling plan matrix results data serve sysinfo list; do
    expect_status 0 "$VP" $command --help
    for flag in $(grep -oE '^  (-[a-z], )?--[a-z-]+' "$WORK/out" | sed 's/^.*--//'); do
        [ "$flag" = help ] && continue
        grep -qF -- "$(roff_flag "$flag")" "$PAGE" || fail "the manual lacks $command's --$flag"
    done
done
ROOT="$(dirname "$0")/../.."
python3 "$(dirname "$0")/doc_flags.py" "$VP" "$ROOT/README.md" "$ROOT"/docs/*.md >"$WORK/flags" ||
    fail "a documented command line uses a flag its command does not take: $(head -20 "$WORK/flags")"
lines=$(wc -l <"$ROOT/README.md")
[ "$lines" -lt 250 ] || fail "README.md has $lines lines: it is the index; the manuals go in docs/"
for linked in $(grep -oE '\(docs/[a-z0-9.-]+\)' "$ROOT/README.md" | tr -d '()'); do
    [ -f "$ROOT/$linked" ] || fail "README.md links to $linked, which does not exist"
done
finish
