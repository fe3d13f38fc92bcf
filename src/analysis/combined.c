/* Combining workloads into one figure, as HEPscore and SPEC do: for the results of
 * `app --preset` (one result per workload), the geometric mean of the per-workload
 * ratios with an interval, appended to a comparison as rows of their own, and the
 * geometric mean of a run's scores against the reference machine. */
#include "analysis/combined.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/inference.h"
#include "core/json.h"

#define Z95 1.959963984540054
#define MAX_WORKLOADS 32

/* The workload a result or row is of: its params' preset, or NULL. */
static const char *workload_of(const json_t *item)
{
    if (strcmp(vp_json_text(item, "bench"), "app") != 0)
        return NULL;
    const json_t *preset = json_object_get(json_object_get(item, "params"), "preset");
    return json_is_string(preset) && strcmp(json_string_value(preset), VP_COMBINED_NAME) != 0
               ? json_string_value(preset) : NULL;
}

/* Whether row and other are the same question for another workload: same metric and
 * job count (and host count), every param but the preset equal. */
static bool same_question(const json_t *row, const json_t *other)
{
    if (strcmp(vp_json_text(row, "metric"), vp_json_text(other, "metric")) != 0 ||
        !json_equal(json_object_get(row, "jobs"), json_object_get(other, "jobs")))
        return false;
    json_t *a = json_deep_copy(json_object_get(row, "params"));
    json_t *b = json_deep_copy(json_object_get(other, "params"));
    json_object_del(a, "preset");
    json_object_del(b, "preset");
    bool same = json_equal(a, b);
    json_decref(a);
    json_decref(b);
    return same;
}

static const char *verdict(double low, double high, bool higher_better, double margin,
                           json_int_t fewest)
{
    if (fewest < VP_MIN_REPS_FOR_VERDICT) /* as every row of the table says */
        return "not enough repetitions";
    if (low >= 1 - margin && high <= 1 + margin)
        return "within margin";
    if (high < 1 || low > 1)
        return (high < 1) == higher_better ? "slower" : "faster";
    return "no significant difference";
}

/* One combined cell: the geometric mean of the rows' ratios for candidate c, and its
 * interval from each ratio's own (a normal interval on logarithms, workloads taken as
 * independent). NULL when a workload has no ratio for this candidate. */
static json_t *combine_cell(const json_t *const *rows, size_t count, size_t c, bool higher_better,
                            double margin)
{
    double log_sum = 0, variance = 0, value_log_sum = 0;
    const char *run = NULL;
    json_int_t fewest = INT64_MAX; /* the fewest repetitions of any side of any workload */
    for (size_t i = 0; i < count; i++) {
        const json_t *cell = json_array_get(json_object_get(rows[i], "candidates"), c);
        json_int_t n_base = json_integer_value(json_object_get(json_object_get(rows[i], "base"), "n"));
        json_int_t n_cell = json_integer_value(json_object_get(cell, "n"));
        fewest = n_base < fewest ? n_base : fewest;
        fewest = n_cell < fewest ? n_cell : fewest;
        const json_t *ci = json_object_get(cell, "ci");
        double ratio = vp_json_number(cell, "ratio"), value = vp_json_number(cell, "value");
        double low = json_number_value(json_array_get(ci, 0)), high = json_number_value(json_array_get(ci, 1));
        if (!(ratio > 0) || !(low > 0) || !(high >= low) || !(value > 0))
            return NULL;
        double se = (log(high) - log(low)) / (2 * Z95);
        log_sum += log(ratio);
        value_log_sum += log(value);
        variance += se * se;
        run = vp_json_text(cell, "run");
    }
    double k = (double)count, centre = log_sum / k, half = Z95 * sqrt(variance) / k;
    double ratio = exp(centre), low = exp(centre - half), high = exp(centre + half);
    json_t *cell = json_pack("{s:s,s:f,s:f,s:[f,f],s:s,s:f,s:s,s:[]}", "run", run, "value",
                             exp(value_log_sum / k), "ratio", ratio, "ci", low, high, "ci_method",
                             "geometric mean of the workloads' ratios; normal on logarithms",
                             "penalty_pct", higher_better ? (1 - ratio) * 100 : (ratio - 1) * 100,
                             "verdict", verdict(low, high, higher_better, margin, fewest), "flags");
    json_object_set_new(cell, "n", json_integer((json_int_t)count));
    return cell;
}

/* Combines rows[0..count) (one per workload, same question) into one row. */
static json_t *combine_rows(const json_t *const *rows, size_t count, double margin)
{
    bool higher_better = strcmp(vp_json_text(rows[0], "better"), "higher") == 0;
    double base_log_sum = 0;
    char names[400] = "";
    for (size_t i = 0; i < count; i++) {
        base_log_sum += log(vp_json_number(json_object_get(rows[i], "base"), "value"));
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? "," : "",
                 workload_of(rows[i]));
    }
    json_t *params = json_deep_copy(json_object_get(rows[0], "params"));
    json_object_set_new(params, "preset", json_string(VP_COMBINED_NAME));
    char variant[460];
    snprintf(variant, sizeof variant, "preset=%s (geometric mean of %s)", VP_COMBINED_NAME, names);
    json_t *cells = json_array();
    size_t candidates = json_array_size(json_object_get(rows[0], "candidates"));
    for (size_t c = 0; c < candidates; c++) {
        json_t *cell = combine_cell(rows, count, c, higher_better, margin);
        const char *run = vp_json_text(json_array_get(json_object_get(rows[0], "candidates"), c), "run");
        json_array_append_new(cells, cell ? cell : json_pack("{s:s,s:s}", "run", run, "verdict",
                                                              "not in this run"));
    }
    double base_value = exp(base_log_sum / (double)count);
    return json_pack("{s:s,s:o,s:s,s:O,s:O,s:O,s:O,s:s,s:{s:o,s:i},s:o}", "bench", "app", "params",
                     params, "variant", variant, "jobs", json_object_get(rows[0], "jobs"), "metric",
                     json_object_get(rows[0], "metric"), "unit", json_object_get(rows[0], "unit"),
                     "better", json_object_get(rows[0], "better"), "centre", "geomean",
                     "base", "value", isfinite(base_value) ? json_real(base_value) : json_null(),
                     "n", (int)count, "candidates", cells);
}

void vp_combine_workload_rows(json_t *rows, double margin)
{
    size_t original = json_array_size(rows);
    bool *grouped = calloc(original ? original : 1, sizeof *grouped);
    if (!grouped)
        abort();
    for (size_t i = 0; i < original; i++) {
        const json_t *row = json_array_get(rows, i);
        if (!workload_of(row) || grouped[i])
            continue;
        const json_t *group[MAX_WORKLOADS];
        size_t count = 0;
        for (size_t j = i; j < original && count < MAX_WORKLOADS; j++) {
            const json_t *other = json_array_get(rows, j);
            if (!grouped[j] && workload_of(other) && same_question(row, other)) {
                group[count++] = other;
                grouped[j] = true;
            }
        }
        if (count >= 2)
            json_array_append_new(rows, combine_rows(group, count, margin));
    }
    free(grouped);
}

json_t *vp_workload_scores(const json_t *results)
{
    json_t *scores = json_array();
    size_t i, j;
    const json_t *result, *other;
    json_t *seen = json_object();
    json_array_foreach(results, i, result) {
        char key[32];
        snprintf(key, sizeof key, "%lld", (long long)json_integer_value(json_object_get(result, "jobs")));
        if (!workload_of(result) || json_object_get(seen, key))
            continue;
        json_object_set_new(seen, key, json_true());
        double log_sum = 0;
        size_t count = 0;
        json_t *each = json_object();
        json_array_foreach(results, j, other) {
            const json_t *score = json_object_get(json_object_get(other, "metrics"), "score");
            double mean = vp_json_number(score, "mean");
            if (!workload_of(other) || strcmp(vp_json_text(other, "status"), "ok") != 0 ||
                !json_equal(json_object_get(other, "jobs"), json_object_get(result, "jobs")) ||
                !(mean > 0))
                continue;
            log_sum += log(mean);
            count++;
            json_object_set_new(each, workload_of(other), json_real(mean));
        }
        if (count == 0) {
            json_decref(each);
            continue;
        }
        json_array_append_new(scores, json_pack("{s:O,s:f,s:i,s:o}", "jobs",
                                                json_object_get(result, "jobs"), "score",
                                                exp(log_sum / (double)count), "workloads",
                                                (int)count, "each", each));
    }
    json_decref(seen);
    return scores;
}
