#!/bin/bash
# report: a self-contained page (no script, no external URL) that headless Chromium
# renders without loading a single resource, every chart with a non-zero size; a
# screenshot is kept in $REPORT_SCREENSHOT when set. Chromium's own background traffic
# cannot leave the machine: every host name resolves to nothing.
. "$(dirname "$0")/lib.sh"
CHROMIUM=$(command -v chromium || command -v chromium-browser)
[ -n "$CHROMIUM" ] || { fail "chromium not installed (scripts/deps.sh test installs it)"; finish; }
chrome() {
    timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
        --no-first-run --disable-component-update --disable-sync --hide-scrollbars \
        --host-resolver-rules="MAP * ~NOTFOUND" --no-pings --disable-domain-reliability \
        --user-data-dir="$WORK/profile" "$@" 2>>"$WORK/chrome.log"
}

expect_status 0 "$VP" run cpu --ops=2m --reps 5 --label bare --quiet
expect_status 0 "$VP" run cpu --ops=2m --reps 5 --label guest --quiet
expect_status 0 "$VP" run net.rr --jobs 1..2 --duration 200ms --reps 2 --label sweep --quiet
expect_status 0 "$VP" report bare guest sweep -o "$WORK/report.html"
expect_contains "$WORK/out" "wrote $WORK/report.html"
page="$WORK/report.html"
charts=$(grep -o '<svg' "$page" | wc -l)
[ "$charts" -ge 5 ] || fail "only $charts charts in the report"
grep -qiE '<script|src=|href=|url\(|@import' "$page" && fail "the report loads something: $(grep -oiE '<script|src=|href=|url\(|@import' "$page" | sort -u)"
grep -oE 'https?://[^"]*' "$page" | grep -v '^http://www.w3.org/2000/svg$' && fail "the report names an external URL"
for text in "Verdicts against bare" "Environments" "Scaling" "Latency distributions" "Monitor" "knee:"; do
    expect_contains "$page" "$text"
done
# Read like the studies: the machine's use against the job count, one CDF chart per
# benchmark with each job count overlaid, the monitor's time series folded away.
expect_contains "$page" "sweep: net.rr, the machine's CPU against jobs"
expect_contains "$page" "net.rr latency per operation (CDF to p99.9)"
[ "$(grep -o 'class="title">net.rr latency per operation (CDF' "$page" | wc -l)" -eq 1 ] ||
    fail "the latency CDFs of one benchmark are not one chart"
expect_contains "$page" "sweep jobs=1"
expect_contains "$page" "sweep jobs=2"
expect_contains "$page" "<details><summary>The whole machine while each result was measured"
grep -q 'class="title">net.rr latency, 1 job' "$page" &&
    fail "a loopback result (the embedded server) was drawn as a one-cell matrix"

# Every chart has a size once laid out: a copy of the page measures them.
cp "$page" "$WORK/measure.html"
cat >>"$WORK/measure.html" <<'HTML'
<script>
document.querySelectorAll('details').forEach(d => { d.open = true; }); /* folded series too */
const sizes = [...document.querySelectorAll('svg')].map(s => s.getBoundingClientRect())
    .map(r => Math.round(r.width) + 'x' + Math.round(r.height));
const out = document.createElement('pre');
out.id = 'sizes';
out.textContent = sizes.join(' ');
document.body.appendChild(out);
const loaded = document.createElement('pre');
loaded.id = 'resources';
loaded.textContent = performance.getEntriesByType('resource').map(r => r.name).join(' ') || 'none';
document.body.appendChild(loaded);
</script>
HTML
chrome --dump-dom "file://$WORK/measure.html" >"$WORK/dom.html"
sizes=$(sed -n 's/.*<pre id="sizes">\([^<]*\)<\/pre>.*/\1/p' "$WORK/dom.html")
[ "$(echo "$sizes" | wc -w)" -eq "$charts" ] || fail "measured $(echo "$sizes" | wc -w) charts of $charts: $(tail -3 "$WORK/chrome.log")"
for size in $sizes; do
    case "$size" in 0x*|*x0) fail "a chart has no size: $size" ;; esac
done
resources=$(sed -n 's/.*<pre id="resources">\([^<]*\)<\/pre>.*/\1/p' "$WORK/dom.html")
[ "$resources" = none ] || fail "the page loaded resources: $resources"

# The page itself, as a reader sees it.
chrome --window-size=1150,2400 --screenshot="$WORK/report.png" "file://$page" >/dev/null
[ "$(stat -c %s "$WORK/report.png" 2>/dev/null || echo 0)" -gt 20000 ] || fail "no screenshot"
[ -n "${REPORT_SCREENSHOT:-}" ] && cp "$WORK/report.png" "$REPORT_SCREENSHOT"

# Markup in labels and in an imported document's text is text: a label and an imported
# run whose label, hostname and warnings hold elements; the page Chromium builds holds
# none of them. (A start time that holds one is no time: the import refuses it.)
MARKUP='<script>document.title="pwned"</script><img src=x onerror=alert(1)><b id="inj">x</b>'
expect_status 0 "$VP" run cpu --ops=2m --reps 5 --label "$MARKUP" --quiet
expect_status 0 "$VP" results export guest -o "$WORK/guest.json"
python3 - "$WORK/guest.json" "$MARKUP" <<'PY' || fail "cannot make the hostile document"
import json, sys
path, markup = sys.argv[1], sys.argv[2]
d = json.load(open(path))
d["run"]["id"] = d["run"]["id"][:-4] + "beef"
d["run"]["label"] = "imported" + markup
d["run"]["host"]["hostname"] = markup
for result in d["results"]:
    result["warnings"] = [markup]
json.dump(d, open(path, "w"))
d["run"]["started_at"] = "<img src=x onerror=alert(3)>"
json.dump(d, open(path + ".time", "w"))
PY
expect_usage_error "run.started_at: '<img src=x onerror=alert(3)>' is not a time" "$VP" results import "$WORK/guest.json.time"
expect_status 0 "$VP" results import "$WORK/guest.json"
expect_status 0 "$VP" report "$MARKUP" "imported$MARKUP" bare -o "$WORK/hostile.html"
chrome --dump-dom "file://$WORK/hostile.html" >"$WORK/hostile-dom.html"
[ -s "$WORK/hostile-dom.html" ] || fail "Chromium built no page: $(tail -3 "$WORK/chrome.log")"
for element in '<script' '<img' '<b id="inj"'; do
    grep -qF "$element" "$WORK/hostile-dom.html" && fail "an injected $element element is in the page"
done
grep -qF '&lt;script&gt;' "$WORK/hostile-dom.html" || fail "the labels are not shown as text"
grep -q '<title>pwned' "$WORK/hostile-dom.html" && fail "injected script ran"

expect_usage_error "report: accepted: 1 to 16 runs and -o FILE" "$VP" report bare
expect_usage_error "run 'nosuch': not found" "$VP" report nosuch -o "$WORK/x.html"
[ -e "$WORK/x.html" ] && fail "a refused report left a file"
finish
