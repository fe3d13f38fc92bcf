/* Comparing runs: matched results (compare_match.c) become rows of penalties, intervals,
 * tests and flags. */
#include "analysis/compare.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analysis/combined.h"
#include "analysis/shown.h"
#include "analysis/compare_match.h"
#include "core/idle.h"
#include "core/inference.h"
#include "core/monitor.h"
#include "core/stats.h"
#include "core/json.h"

/* What one comparison was asked: its margin, the param it varies, the metrics it keeps. */
struct comparison {
    const struct vp_compare_options *options;
    const struct vp_run_index *base, *candidates;
    const json_t *const *candidate_runs;
    size_t candidate_count;
};

static bool metric_wanted(const struct vp_compare_options *options, const char *name)
{
    for (size_t i = 0; i < options->metric_count; i++)
        if (strcmp(options->metrics[i], name) == 0)
            return true;
    return options->metric_count == 0;
}

static size_t values_of(const json_t *metric, double *out, size_t cap)
{
    size_t n = 0, i;
    const json_t *value;
    json_array_foreach(json_object_get(metric, "values"), i, value)
        if (n < cap)
            out[n++] = json_number_value(value);
    return n;
}

static void flag(json_t *flags, const char *format, double value)
{
    char text[160];
    snprintf(text, sizeof text, format, value);
    json_array_append_new(flags, json_string(text));
}

/* What makes one side's figure doubtful: spread, steal, other load, uneven starts,
 * cache warnings. */
static void result_flags(const json_t *result, const json_t *metric, const char *side,
                         json_t *flags)
{
    char format[96];
    double cv = 100 * vp_json_number(metric, "stddev") / fabs(vp_json_number(metric, "mean"));
    if (cv > 10) {
        snprintf(format, sizeof format, "%s: unreliable, CV %%.1f%%%%", side);
        flag(flags, format, cv);
    } else if (cv > 5) {
        snprintf(format, sizeof format, "%s: CV %%.1f%%%% above 5%%%%", side);
        flag(flags, format, cv);
    }
    const json_t *summary = json_object_get(json_object_get(result, "monitor"), "summary");
    double steal = vp_monitor_mean(summary, "cpu.steal");
    if (steal > 1) {
        snprintf(format, sizeof format, "%s: steal %%.1f%%%%", side);
        flag(flags, format, steal);
    }
    /* The sampler itself is one running task; more than one beyond the jobs and the
     * --load processes virtperf started for this result is load it did not start. */
    double runq = vp_monitor_mean(summary, "runq");
    double jobs = (double)json_integer_value(json_object_get(result, "jobs"));
    double own_load = (double)json_integer_value(json_object_get(json_object_get(result, "load"),
                                                                 "processes"));
    if (runq > jobs + own_load + 1.5) {
        snprintf(format, sizeof format, "%s: other load, run queue %%.1f for %g jobs%s", side,
                 jobs, own_load > 0 ? " and their --load" : "");
        flag(flags, format, runq);
    }
    double last = vp_json_number(result, "last_done_s"), first = vp_json_number(result, "first_done_s");
    double skew = vp_json_number(result, "start_skew_s");
    if (last > 0 && skew / last > 0.05) {
        snprintf(format, sizeof format, "%s: start skew %%.1f%%%% of the run", side);
        flag(flags, format, 100 * skew / last);
    }
    if (last > 0 && (last - first) / last > 0.05 && jobs > 1) {
        snprintf(format, sizeof format, "%s: first/last done %%.0f%%%% apart", side);
        flag(flags, format, 100 * (last - first) / last);
    }
    size_t i;
    const json_t *warning;
    json_array_foreach(json_object_get(result, "warnings"), i, warning) {
        if (strstr(json_string_value(warning), "served from cache")) {
            snprintf(format, sizeof format, "%s: served from cache", side);
            json_array_append_new(flags, json_string(format));
            break;
        }
    }
}

/* Timer and wake-up latency depend on whether idle CPUs halt or poll: results measured
 * under different idle policies (driver, latency request, held or not) are not on the
 * same terms, and the row says so. */
static void idle_flag(const json_t *base_result, const json_t *candidate_result, json_t *flags)
{
    const json_t *base = json_object_get(base_result, "idle");
    const json_t *candidate = json_object_get(candidate_result, "idle");
    if (!base || !candidate)
        return;
    char base_text[160], candidate_text[160], line[400];
    vp_idle_describe(base, base_text, sizeof base_text);
    vp_idle_describe(candidate, candidate_text, sizeof candidate_text);
    if (strcmp(base_text, candidate_text) == 0)
        return;
    snprintf(line, sizeof line, "idle policy differs: base %s; candidate %s", base_text,
             candidate_text);
    json_array_append_new(flags, json_string(line));
}

static const char *verdict(double ratio_low, double ratio_high, double p_adjusted, size_t n_min,
                           int higher_better, double margin, char *buf, size_t len)
{
    if (n_min < VP_MIN_REPS_FOR_VERDICT)
        return "not enough repetitions";
    if (ratio_low >= 1 - margin && ratio_high <= 1 + margin) {
        snprintf(buf, len, "within +-%g%%", margin * 100);
        return buf;
    }
    if (p_adjusted < 0.05 && (ratio_high < 1 || ratio_low > 1)) {
        int worse = higher_better ? ratio_high < 1 : ratio_low > 1;
        return worse ? "slower" : "faster";
    }
    return "no significant difference";
}

/* One candidate's cell of a row; p_adjusted and verdict are filled in later. */
static json_t *compare_metric(const json_t *base_result, const json_t *base_metric,
                              const json_t *candidate_result, const json_t *candidate_metric,
                              const char *run_id, int higher_better, double scale,
                              double *base_centre)
{
    double a[1000], b[1000];
    size_t n_a = values_of(base_metric, a, 1000), n_b = values_of(candidate_metric, b, 1000);
    for (size_t i = 0; i < n_b; i++)
        b[i] *= scale; /* --normalize clock: the candidate's times in the base's cycles */
    if (strcmp(vp_json_text(base_metric, "better"), "zero") == 0) { /* a signed figure: its size */
        for (size_t i = 0; i < n_a; i++)
            a[i] = fabs(a[i]);
        for (size_t i = 0; i < n_b; i++)
            b[i] = fabs(b[i]);
    }
    enum vp_centre centre = higher_better ? VP_CENTRE_MEAN : VP_CENTRE_MEDIAN;
    struct vp_ratio_interval interval;
    json_t *cell = json_pack("{s:s,s:i}", "run", run_id, "n", (int)n_b);
    json_t *flags = json_array();
    *base_centre = centre == VP_CENTRE_MEAN ? vp_mean(a, n_a) : vp_percentile(a, n_a, 50);
    double value = centre == VP_CENTRE_MEAN ? vp_mean(b, n_b) : vp_percentile(b, n_b, 50);
    json_object_set_new(cell, "value", isfinite(value) ? json_real(value) : json_null());
    if (vp_ratio_interval(a, n_a, b, n_b, centre, 0x5eed, &interval) == 0) {
        double penalty = higher_better ? (1 - interval.ratio) * 100 : (interval.ratio - 1) * 100;
        json_object_set_new(cell, "ratio", json_real(interval.ratio));
        json_object_set_new(cell, "ci", json_pack("[f,f]", interval.low, interval.high));
        json_object_set_new(cell, "ci_method", json_string(interval.method));
        json_object_set_new(cell, "penalty_pct", json_real(penalty));
        json_object_set_new(cell, "p", json_real(vp_mann_whitney_p(a, n_a, b, n_b)));
    } else {
        bool base_positive = true; /* which side has the value a ratio cannot take */
        for (size_t i = 0; i < n_a; i++)
            base_positive = base_positive && a[i] > 0;
        json_array_append_new(flags, json_string(base_positive
                                                     ? "no ratio: a candidate value is zero or "
                                                       "negative"
                                                     : "base: no ratio: a base value is zero or "
                                                       "negative"));
    }
    result_flags(base_result, base_metric, "base", flags);
    result_flags(candidate_result, candidate_metric, "candidate", flags);
    idle_flag(base_result, candidate_result, flags);
    json_object_set_new(cell, "flags", flags);
    return cell;
}

/* Fingerprint fields that should match for a fair comparison, where they differ. */
static json_t *fingerprint_differences(const json_t *base, const json_t *const *candidates,
                                       size_t count)
{
    static const struct { const char *group, *key, *label; } fields[] = {
        { "cpu", "model", "CPU model" }, { NULL, "kernel", "kernel" },
        { "cpu", "governor", "frequency governor" }, { "cpu", "caches", "cache sizes" },
        { "cpu", "threads", "CPU threads" },
    };
    json_t *differences = json_array();
    const json_t *base_host = json_object_get(json_object_get(base, "run"), "host");
    for (size_t c = 0; c < count; c++) {
        const json_t *host = json_object_get(json_object_get(candidates[c], "run"), "host");
        for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
            const json_t *a = fields[f].group ? json_object_get(json_object_get(base_host, fields[f].group), fields[f].key)
                                              : json_object_get(base_host, fields[f].key);
            const json_t *b = fields[f].group ? json_object_get(json_object_get(host, fields[f].group), fields[f].key)
                                              : json_object_get(host, fields[f].key);
            if ((a || b) && !json_equal(a, b)) {
                char line[256];
                snprintf(line, sizeof line, "%s differs between base and %s",
                         fields[f].label, vp_json_text(json_object_get(candidates[c], "run"), "id"));
                json_array_append_new(differences, json_string(line));
            }
        }
    }
    return differences;
}

/* The clock a CPU model's name states ("... X5570 @ 2.93GHz": 2.93), or 0. */
double vp_model_ghz(const char *model)
{
    const char *at = model ? strrchr(model, '@') : NULL;
    if (!at)
        return 0;
    char *end;
    double ghz = strtod(at + 1, &end);
    while (*end == ' ')
        end++;
    if (strncasecmp(end, "GHz", 3) == 0 && ghz > 0 && ghz < 100)
        return ghz;
    if (strncasecmp(end, "MHz", 3) == 0 && ghz > 0 && ghz < 100000)
        return ghz / 1000;
    return 0;
}

/* A run's nominal clock: --clock-ghz's value for its place among the runs (0: base), or
 * its CPU model's; *source says which. 0 when neither gives one. */
static double nominal_ghz(const struct vp_compare_options *options, const json_t *document,
                          size_t place, const char **source)
{
    if (place < options->clock_ghz_count && options->clock_ghz[place] > 0) {
        *source = "--clock-ghz";
        return options->clock_ghz[place];
    }
    *source = "the CPU model's name";
    return vp_model_ghz(vp_json_text(json_object_get(json_object_get(json_object_get(
        document, "run"), "host"), "cpu"), "model"));
}

/* --normalize clock, for a time metric: the factor that turns the candidate's seconds into
 * the base's clock (its GHz over the base's, as the CNAF study divided by the ratio of
 * clock frequencies), and {"by", "base_ghz", "candidate_ghz", "source"?} to say so; or a
 * flag string when a side has no clock. Both sides' effective clocks (app's ghz) where
 * both have one, else both nominal clocks (nominal_ghz), never one of each. NULL: nothing
 * to normalise. */
static json_t *clock_scale(const struct comparison *comparison, const json_t *base,
                           size_t candidate_place, const json_t *candidate, const char *metric,
                           double *scale)
{
    const struct vp_compare_options *options = comparison->options;
    const json_t *definition = json_object_get(json_object_get(base, "metrics"), metric);
    if (!options->normalize_clock || strcmp(vp_json_text(definition, "unit"), "s") != 0)
        return NULL;
    double base_ghz = vp_json_number(json_object_get(json_object_get(base, "metrics"), "ghz"), "mean");
    double candidate_ghz = vp_json_number(
        json_object_get(json_object_get(candidate, "metrics"), "ghz"), "mean");
    if (base_ghz > 0 && candidate_ghz > 0) {
        *scale = candidate_ghz / base_ghz;
        return json_pack("{s:s,s:f,s:f}", "by", "clock", "base_ghz", base_ghz, "candidate_ghz",
                         candidate_ghz);
    }
    const char *base_source, *candidate_source;
    double base_nominal = nominal_ghz(options, comparison->base->run, 0, &base_source);
    double candidate_nominal = nominal_ghz(options, comparison->candidate_runs[candidate_place],
                                           candidate_place + 1, &candidate_source);
    if (base_nominal > 0 && candidate_nominal > 0) {
        *scale = candidate_nominal / base_nominal;
        char source[96];
        snprintf(source, sizeof source, "%s", base_source);
        if (strcmp(base_source, candidate_source) != 0)
            snprintf(source, sizeof source, "base: %s, candidate: %s", base_source,
                     candidate_source);
        return json_pack("{s:s,s:f,s:f,s:s}", "by", "nominal clock", "base_ghz", base_nominal,
                         "candidate_ghz", candidate_nominal, "source", source);
    }
    bool base_has = base_ghz > 0 || base_nominal > 0;
    bool candidate_has = candidate_ghz > 0 || candidate_nominal > 0;
    if (!base_has && !candidate_has)
        return json_string("base: not normalised by clock: neither run has an effective clock "
                           "(ghz) or a nominal one (--clock-ghz, a CPU model's name)");
    if (!base_has) /* "base: " flags are said with the base run's id */
        return json_string("base: not normalised by clock: the base has no effective clock "
                           "(ghz) or nominal one (--clock-ghz, its CPU model's name)");
    if (!candidate_has)
        return json_string("not normalised by clock: the candidate has no effective clock "
                           "(ghz) or nominal one (--clock-ghz, its CPU model's name)");
    return json_string("not normalised by clock: one run has an effective clock (ghz), the "
                       "other only a nominal one; give --clock-ghz for both");
}

/* The varied param's value in result, as text ("4096", "/gpfs"). */
static void param_text(const json_t *result, const char *param, char *buf, size_t len)
{
    const json_t *value = json_object_get(json_object_get(result, "params"), param);
    if (json_is_string(value))
        snprintf(buf, len, "%s", json_string_value(value));
    else if (json_is_integer(value))
        snprintf(buf, len, "%lld", (long long)json_integer_value(value));
    else if (json_is_number(value))
        snprintf(buf, len, "%g", json_number_value(value));
    else
        snprintf(buf, len, "-");
}

/* The rows of one base result, a cell for every candidate run: compared where the run
 * has the result, "not in this run" where it has not. */
static void add_rows(json_t *rows, const struct comparison *comparison, const json_t *base_result,
                     const json_t *const *matches, const bool *by_total)
{
    const char *vary = comparison->options->vary;
    char variant[460], hosts[256];
    vp_match_variant_text(comparison->base, base_result, variant, 200);
    vp_match_hosts_text(base_result, hosts, sizeof hosts); /* ranks=4: a row per host count */
    strncat(variant, variant[0] ? hosts : hosts + (hosts[0] == ' '), sizeof variant - strlen(variant) - 1);
    const char *name;
    const json_t *base_metric;
    json_object_foreach(json_object_get(base_result, "metrics"), name, base_metric) {
        if (!metric_wanted(comparison->options, name))
            continue;
        int higher_better = strcmp(vp_json_text(base_metric, "better"), "higher") == 0;
        json_t *cells = json_array();
        double base_centre = NAN;
        size_t compared = 0;
        for (size_t c = 0; c < comparison->candidate_count; c++) {
            const char *run_id = vp_json_text(json_object_get(comparison->candidate_runs[c], "run"), "id");
            const json_t *candidate_metric =
                json_object_get(json_object_get(matches[c], "metrics"), name);
            if (!candidate_metric) {
                json_array_append_new(cells, json_pack("{s:s,s:s}", "run", run_id, "verdict",
                                                       "not in this run"));
                continue;
            }
            double scale = 1;
            json_t *normalized = clock_scale(comparison, base_result, c, matches[c], name,
                                             &scale);
            json_t *cell = compare_metric(base_result, base_metric, matches[c], candidate_metric,
                                          run_id, higher_better, scale, &base_centre);
            if (normalized && json_is_object(normalized))
                json_object_set_new(cell, "normalized", normalized);
            else if (normalized)
                json_array_append_new(json_object_get(cell, "flags"), normalized);
            if (by_total[c]) { /* said where the two ran their jobs differently */
                char base_layout[96], candidate_layout[96], paired[240];
                vp_match_layout_text(base_result, base_layout, sizeof base_layout);
                vp_match_layout_text(matches[c], candidate_layout, sizeof candidate_layout);
                snprintf(paired, sizeof paired, "paired by total jobs: %s / %s", base_layout,
                         candidate_layout);
                json_object_set_new(cell, "paired", json_string(paired));
            }
            if (vary) {
                char value[300];
                param_text(matches[c], vary, value, sizeof value);
                json_object_set_new(cell, "param_value", json_string(value));
            }
            json_array_append_new(cells, cell);
            compared++;
        }
        if (compared == 0) {
            json_decref(cells);
            continue;
        }
        json_t *row = json_pack(
            "{s:s,s:O,s:s,s:I,s:s,s:s,s:s,s:s,s:{s:o,s:I},s:o}", "bench",
            vp_json_text(base_result, "bench"), "params", json_object_get(base_result, "params"),
            "variant", variant,
            "jobs", (json_int_t)json_integer_value(json_object_get(base_result, "jobs")), "metric", name,
            "unit", vp_json_text(base_metric, "unit"), "better", vp_json_text(base_metric, "better"),
            "centre", higher_better ? "mean" : "median", "base", "value",
            isfinite(base_centre) ? json_real(base_centre) : json_null(), "n",
            (json_int_t)json_integer_value(json_object_get(base_metric, "n")), "candidates",
            cells);
        if (vary) {
            char value[300];
            param_text(base_result, vary, value, sizeof value);
            json_object_set_new(row, "varied", json_pack("{s:s,s:s}", "param", vary, "base", value));
        }
        json_array_append_new(rows, row);
    }
}

/* Phase 1: every ok base result found in at least one candidate becomes rows; each run
 * that lacks it is listed as unmatched, and so is a result no candidate has. */
static void match_base_results(const struct comparison *comparison, json_t *rows,
                               json_t *unmatched)
{
    size_t count = comparison->candidate_count;
    const json_t **matches = calloc(count ? count : 1, sizeof *matches);
    bool *by_total = calloc(count ? count : 1, sizeof *by_total);
    if (!matches || !by_total)
        abort();
    size_t i;
    const json_t *base_result;
    json_array_foreach(json_object_get(comparison->base->run, "results"), i, base_result) {
        if (strcmp(vp_json_text(base_result, "status"), "ok") != 0)
            continue;
        char *key = vp_match_key(base_result, comparison->options->vary, false);
        size_t found = 0;
        for (size_t c = 0; c < count; c++) {
            matches[c] = vp_match_find(&comparison->candidates[c], key);
            by_total[c] = false;
            if (!matches[c]) {
                matches[c] = vp_match_find_by_total(&comparison->candidates[c], base_result,
                                           comparison->options->vary);
                by_total[c] = matches[c] != NULL;
            }
            found += matches[c] != NULL;
        }
        free(key);
        char label[600], line[700];
        vp_match_result_label(comparison->base, base_result, label, sizeof label);
        if (found > 0)
            add_rows(rows, comparison, base_result, matches, by_total);
        else {
            snprintf(line, sizeof line, "%s: in no candidate run", label);
            json_array_append_new(unmatched, json_string(line));
        }
        for (size_t c = 0; found > 0 && c < count; c++) {
            if (matches[c])
                continue;
            snprintf(line, sizeof line, "%s: not in %s", label,
                     vp_json_text(json_object_get(comparison->candidate_runs[c], "run"), "id"));
            json_array_append_new(unmatched, json_string(line));
        }
    }
    free(matches);
    free(by_total);
}

/* Phase 2: what the candidates have that the base has not is listed too, never dropped. */
static void list_candidate_only(const struct comparison *comparison, json_t *unmatched)
{
    for (size_t c = 0; c < comparison->candidate_count; c++) {
        const json_t *run = comparison->candidate_runs[c];
        size_t i;
        const json_t *result;
        json_array_foreach(json_object_get(run, "results"), i, result) {
            if (strcmp(vp_json_text(result, "status"), "ok") != 0)
                continue;
            char *key = vp_match_key(result, comparison->options->vary, false);
            if (!vp_match_find(comparison->base, key) &&
                !vp_match_find_by_total(comparison->base, result, comparison->options->vary)) {
                char line[700], label[600];
                vp_match_result_label(&comparison->candidates[c], result, label, sizeof label);
                snprintf(line, sizeof line, "%s: only in %s", label,
                         vp_json_text(json_object_get(run, "run"), "id"));
                json_array_append_new(unmatched, json_string(line));
            }
            free(key);
        }
    }
}

/* Phase 3: Benjamini-Hochberg over every test of the table, then each cell's verdict. */
static void judge_cells(json_t *rows, double margin)
{
    size_t tests = 0, r, i;
    json_t *row, *cell;
    json_array_foreach(rows, r, row)
        json_array_foreach(json_object_get(row, "candidates"), i, cell)
            tests += json_object_get(cell, "p") != NULL;
    double *p = calloc(tests ? tests : 1, sizeof *p);
    if (!p)
        abort();
    size_t k = 0;
    json_array_foreach(rows, r, row)
        json_array_foreach(json_object_get(row, "candidates"), i, cell)
            if (json_object_get(cell, "p"))
                p[k++] = vp_json_number(cell, "p");
    vp_benjamini_hochberg(p, tests);
    k = 0;
    json_array_foreach(rows, r, row) {
        int higher_better = strcmp(vp_json_text(row, "better"), "higher") == 0;
        size_t n_base = (size_t)json_integer_value(json_object_get(json_object_get(row, "base"), "n"));
        json_array_foreach(json_object_get(row, "candidates"), i, cell) {
            char buf[64];
            if (json_object_get(cell, "verdict"))
                continue; /* not in this run */
            if (!json_object_get(cell, "p")) {
                json_object_set_new(cell, "verdict", json_string("no verdict"));
                continue;
            }
            size_t n_min = n_base < (size_t)json_integer_value(json_object_get(cell, "n"))
                               ? n_base : (size_t)json_integer_value(json_object_get(cell, "n"));
            json_object_set_new(cell, "p_adjusted", json_real(p[k]));
            const json_t *ci = json_object_get(cell, "ci");
            json_object_set_new(cell, "verdict", json_string(verdict(
                json_number_value(json_array_get(ci, 0)), json_number_value(json_array_get(ci, 1)),
                p[k], n_min, higher_better, margin, buf, sizeof buf)));
            k++;
        }
    }
    free(p);
}

/* "; they differ in bs: try --vary bs" when a benchmark of the base run is in a candidate
 * with other values of exactly one param (the GridKa read sizes, CNAF's paths). */
static void vary_hint(const json_t *base, const json_t *const *candidates, size_t count,
                      char *hint, size_t len)
{
    size_t i, j;
    const json_t *a, *b;
    json_array_foreach(json_object_get(base, "results"), i, a) {
        for (size_t c = 0; c < count; c++) {
            json_array_foreach(json_object_get(candidates[c], "results"), j, b) {
                if (strcmp(vp_json_text(a, "bench"), vp_json_text(b, "bench")) != 0)
                    continue;
                json_t *differing = json_object();
                vp_match_mark_differences(differing, json_object_get(a, "params"), json_object_get(b, "params"));
                vp_match_mark_differences(differing, json_object_get(b, "params"), json_object_get(a, "params"));
                const char *name = NULL;
                json_t *ignored;
                json_object_foreach(differing, name, ignored)
                    break;
                if (json_object_size(differing) == 1)
                    snprintf(hint, len, "; %s differs in %s: try --vary %s",
                             vp_json_text(a, "bench"), name, name);
                json_decref(differing);
                if (hint[0])
                    return;
            }
        }
    }
}

/* --vary's param as the base run's results spell it (as given, else with '-' and '_'
 * swapped: --vary read-size finds read_size), into spelled; -1 with err naming the
 * params its results have when none has it. */
static int spell_vary(const json_t *base, const char *vary, char *spelled, size_t len,
                      char *err, size_t err_len)
{
    json_t *names = json_object();
    size_t i;
    const json_t *result;
    json_array_foreach(json_object_get(base, "results"), i, result) {
        const char *name;
        const json_t *value;
        json_object_foreach((json_t *)json_object_get(result, "params"), name, value)
            json_object_set_new(names, name, json_true());
    }
    bool found = false;
    for (int attempt = 0; attempt < 3 && !found; attempt++) {
        snprintf(spelled, len, "%s", vary);
        for (char *c = spelled; *c && attempt > 0; c++)
            if (*c == (attempt == 1 ? '-' : '_'))
                *c = attempt == 1 ? '_' : '-';
        found = json_object_get(names, spelled) != NULL;
    }
    char accepted[400] = "";
    size_t used = 0;
    const char *name;
    const json_t *value;
    json_object_foreach(names, name, value)
        if (used < sizeof accepted)
            used += (size_t)snprintf(accepted + used, sizeof accepted - used, "%s%s",
                                     used ? ", " : "", name);
    json_decref(names);
    if (found)
        return 0;
    snprintf(err, err_len, "--vary %s: no result of the base run has that param; accepted: "
             "one of its results' params (%s)", vary, used ? accepted : "none");
    return -1;
}

json_t *vp_compare(const json_t *base, const json_t *const *candidates, size_t candidate_count,
                   const struct vp_compare_options *asked, char *err, size_t err_len)
{
    struct vp_compare_options spelled_options = *asked;
    const struct vp_compare_options *options = &spelled_options;
    if (asked->clock_ghz_count && asked->clock_ghz_count != candidate_count + 1) {
        snprintf(err, err_len, "--clock-ghz: %zu clocks given for %zu runs; accepted: one "
                 "GHz per run, the base's first (2.93,2.00)", asked->clock_ghz_count,
                 candidate_count + 1);
        return NULL;
    }
    char vary[128];
    if (asked->vary) {
        if (spell_vary(base, asked->vary, vary, sizeof vary, err, err_len) != 0)
            return NULL;
        spelled_options.vary = vary;
    }
    json_t *rows = json_array(), *unmatched = json_array();
    struct vp_run_index base_index, *indexes = calloc(candidate_count ? candidate_count : 1,
                                                   sizeof *indexes);
    if (!indexes)
        abort();
    vp_match_index_run(&base_index, base, options->vary);
    for (size_t c = 0; c < candidate_count; c++)
        vp_match_index_run(&indexes[c], candidates[c], options->vary);
    struct comparison comparison = { .options = options, .base = &base_index,
                                     .candidates = indexes, .candidate_runs = candidates,
                                     .candidate_count = candidate_count };
    match_base_results(&comparison, rows, unmatched);
    list_candidate_only(&comparison, unmatched);
    vp_match_free_index(&base_index);
    for (size_t c = 0; c < candidate_count; c++)
        vp_match_free_index(&indexes[c]);
    free(indexes);
    if (json_array_size(rows) == 0) {
        char hint[200] = "";
        if (!options->vary)
            vary_hint(base, candidates, candidate_count, hint, sizeof hint);
        snprintf(err, err_len, "no results in common: the runs share no benchmark with the same "
                 "params%s and job count%s (%zu unmatched)%s", options->vary ? " but --vary's" : "",
                 options->metric_count ? " and a --metric asked for" : "",
                 json_array_size(unmatched), hint);
        json_decref(rows);
        json_decref(unmatched);
        return NULL;
    }
    judge_cells(rows, options->margin);
    vp_combine_workload_rows(rows, options->margin);
    size_t r;
    json_t *row;
    json_array_foreach(rows, r, row)
        vp_shown_comparison_row(row);
    json_t *ids = json_array();
    for (size_t c = 0; c < candidate_count; c++)
        json_array_append_new(ids, json_string(vp_json_text(json_object_get(candidates[c], "run"), "id")));
    json_t *comparison_json = json_pack("{s:s,s:o,s:f,s:o,s:o,s:o}", "base",
                     vp_json_text(json_object_get(base, "run"), "id"), "candidates", ids, "margin",
                     options->margin, "rows", rows, "unmatched", unmatched, "fingerprint_differences",
                     fingerprint_differences(base, candidates, candidate_count));
    if (options->vary)
        json_object_set_new(comparison_json, "vary", json_string(options->vary));
    if (options->normalize_clock)
        json_object_set_new(comparison_json, "normalize", json_string("clock"));
    return comparison_json;
}
