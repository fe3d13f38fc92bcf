#!/bin/sh
# Refreshes the generated part of docs/virtperf.1, the RUN OPTIONS, COMMAND OPTIONS,
# BENCHMARKS and PRESETS sections between the "BEGIN GENERATED" and "END GENERATED"
# comment lines, from the commands' flag tables and the benchmark tables (`virtperf list
# --man`). Run it after changing a flag or a benchmark's options, metrics or description; tests/system/test_docs.sh fails until it has been run.
# Usage: scripts/man.sh [VIRTPERF]   (default build/virtperf)
set -eu
cd "$(dirname "$0")/.."
binary=${1:-build/virtperf}
page=docs/virtperf.1
generated=$(mktemp)
trap 'rm -f "$generated" "$page.new"' EXIT
"$binary" list --man >"$generated"
awk -v generated="$generated" '
    /^\.\\" BEGIN GENERATED/ { print; while ((getline line < generated) > 0) print line; skipping = 1; next }
    /^\.\\" END GENERATED/ { skipping = 0 }
    !skipping { print }
' "$page" >"$page.new"
grep -q '^\.\\" END GENERATED' "$page.new" || { echo "man.sh: $page lacks the GENERATED markers" >&2; exit 1; }
mv "$page.new" "$page"
