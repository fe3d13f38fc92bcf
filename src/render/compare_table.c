/* compare's table (compare_table.h). */
#include "render/compare_table.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "core/json.h"
#include "core/units.h"

/* "5.85x worse" or "1.20x better": the factor the candidate's value is off the base's in
 * the direction that matters, the same figure for a rate and for the time it takes (a
 * penalty reads +83% on a score and +485% on its wall time for one slowdown). */
static void worse_by(const json_t *row, const json_t *cell, char *buf, size_t len)
{
    double ratio = json_number_value(json_object_get(cell, "ratio"));
    bool higher_better = strcmp(json_string_value(json_object_get(row, "better")), "higher") == 0;
    double factor = higher_better ? 1 / ratio : ratio;
    if (!(ratio > 0) || !isfinite(factor))
        snprintf(buf, len, "-");
    else if (fabs(factor - 1) < 0.005)
        snprintf(buf, len, "1.00x");
    else if (factor >= 1)
        snprintf(buf, len, "%.2fx worse", factor);
    else
        snprintf(buf, len, "%.2fx better", 1 / factor);
}

/* One row; label_width aligns the rows' labels, and the flags under the base value:
 * the base's once, with the base run's id, each candidate's with its own. */
static void print_row(FILE *out, const json_t *row, int label_width, const char *base_id,
                      enum vp_unit_style units)
{
    char base[32];
    const char *unit = json_string_value(json_object_get(row, "unit"));
    enum vp_unit_style style = vp_json_unit_style(row, units);
    vp_format_value(json_number_value(json_object_get(json_object_get(row, "base"), "value")),
                    unit, style, base, sizeof base);
    fprintf(out, "%-*s jobs=%-3lld %-20s %-6s %12s", label_width, vp_json_text(row, "label"),
           (long long)json_integer_value(json_object_get(row, "jobs")),
           json_string_value(json_object_get(row, "metric")),
           json_string_value(json_object_get(row, "centre")), base);
    size_t i;
    const json_t *cell;
    json_array_foreach(json_object_get(row, "candidates"), i, cell) {
        const json_t *ci = json_object_get(cell, "ci");
        const json_t *param_value = json_object_get(cell, "param_value");
        fprintf(out, "  |");
        if (param_value) /* --vary: the candidate's value of the param */
            fprintf(out, " %s=%s", json_string_value(json_object_get(json_object_get(row, "varied"),
                                                               "param")),
                   json_string_value(param_value));
        if (!ci) {
            fprintf(out, " %s", json_string_value(json_object_get(cell, "verdict")));
            continue;
        }
        char value[32];
        vp_format_value(json_number_value(json_object_get(cell, "value")), unit, style, value,
                        sizeof value);
        char p[32] = "p=-"; /* combined rows have an interval and no test */
        if (json_object_get(cell, "p_adjusted"))
            snprintf(p, sizeof p, "p=%.3g", json_number_value(json_object_get(cell, "p_adjusted")));
        char factor[32];
        worse_by(row, cell, factor, sizeof factor);
        fprintf(out, " %12s %+6.1f%% (%s) [%.3f, %.3f] %s %s", value,
               json_number_value(json_object_get(cell, "penalty_pct")), factor,
               json_number_value(json_array_get(ci, 0)), json_number_value(json_array_get(ci, 1)),
               p, json_string_value(json_object_get(cell, "verdict")));
    }
    fputc('\n', out);
    json_t *said = json_object(); /* the base's flags repeat in every cell: once is enough */
    json_array_foreach(json_object_get(row, "candidates"), i, cell) {
        size_t f;
        const json_t *text;
        json_array_foreach(json_object_get(cell, "flags"), f, text) {
            const char *flag = json_string_value(text);
            bool of_base = strncmp(flag, "base:", 5) == 0;
            if (of_base && json_object_get(said, flag))
                continue;
            json_object_set_new(said, flag, json_true());
            fprintf(out, "%*s ! %s (%s)\n", label_width + 35, "", flag,
                   of_base ? base_id : json_string_value(json_object_get(cell, "run")));
        }
        const json_t *normalized = json_object_get(cell, "normalized");
        const json_t *paired = json_object_get(cell, "paired");
        if (paired)
            fprintf(out, "%*s ! %s (%s)\n", label_width + 35, "", json_string_value(paired),
                    json_string_value(json_object_get(cell, "run")));
        const char *source = json_string_value(json_object_get(normalized, "source"));
        if (normalized)
            fprintf(out, "%*s ! normalised by %s: candidate %.3g GHz against base %.3g GHz%s%s (%s)\n",
                   label_width + 35, "", json_string_value(json_object_get(normalized, "by")),
                   json_number_value(json_object_get(normalized, "candidate_ghz")),
                   json_number_value(json_object_get(normalized, "base_ghz")),
                   source ? ", from " : "", source ? source : "",
                   json_string_value(json_object_get(cell, "run")));
    }
    json_decref(said);
}

void vp_print_comparison(FILE *out, json_t *const *documents, size_t count,
                         const json_t *comparison, enum vp_unit_style units)
{
    for (size_t d = 0; d < count; d++) {
        const json_t *run = json_object_get(documents[d], "run");
        const char *label = json_string_value(json_object_get(run, "label"));
        fprintf(out, "%s %s (%s, %s)\n", d == 0 ? "base     " : "candidate", label ? label : "-",
               json_string_value(json_object_get(run, "id")),
               json_string_value(json_object_get(json_object_get(run, "host"), "hostname")));
    }
    size_t i;
    const json_t *item;
    fprintf(out, "\npenalty: positive = the candidate is worse (Nx: by what factor, the same "
           "for a rate and its time); [95%% interval of CAND/BASE]; p adjusted "
           "(Benjamini-Hochberg)\n\n");
    int label_width = 12;
    json_array_foreach(json_object_get(comparison, "rows"), i, item) {
        int width = (int)strlen(vp_json_text(item, "label"));
        label_width = width > label_width ? width : label_width;
    }
    json_array_foreach(json_object_get(comparison, "rows"), i, item)
        print_row(out, item, label_width, json_string_value(json_object_get(comparison, "base")),
                  units);
    json_array_foreach(json_object_get(comparison, "unmatched"), i, item)
        fprintf(out, "unmatched: %s\n", json_string_value(item));
    json_array_foreach(json_object_get(comparison, "fingerprint_differences"), i, item)
        fprintf(out, "environment: %s\n", json_string_value(item));
}
