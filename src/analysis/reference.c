/* Parsing of a study's figures kept in a plan file (reference.h): the key names a
 * benchmark's metric, the value is converted from the unit the study wrote into the
 * metric's base unit. */
#include "analysis/reference.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"

#define THEN "then."
#define THEN_PENALTY "then-penalty."

/* The units a figure may be written in, per base unit of a metric. */
static const struct unit_scale {
    const char *base, *suffix;
    double scale;
} unit_scales[] = {
    { "s", "s", 1 }, { "s", "ms", 1e-3 }, { "s", "us", 1e-6 }, { "s", "ns", 1e-9 },
    { "s", "min", 60 }, { "s", "h", 3600 },
    { "B/s", "B/s", 1 }, { "B/s", "kB/s", 1e3 }, { "B/s", "MB/s", 1e6 }, { "B/s", "GB/s", 1e9 },
    { "B/s", "KiB/s", 1024.0 }, { "B/s", "MiB/s", 1048576.0 }, { "B/s", "GiB/s", 1073741824.0 },
    { "B/s", "b/s", 1 / 8.0 }, { "B/s", "kb/s", 1e3 / 8 }, { "B/s", "Mb/s", 1e6 / 8 },
    { "B/s", "Gb/s", 1e9 / 8 },
    { "B", "B", 1 }, { "B", "kB", 1e3 }, { "B", "MB", 1e6 }, { "B", "GB", 1e9 },
    { "B", "KiB", 1024.0 }, { "B", "MiB", 1048576.0 }, { "B", "GiB", 1073741824.0 },
    { "ops/s", "/s", 1 }, { "ops/s", "ops/s", 1 }, { "ops/s", "k/s", 1e3 },
    { "ops/s", "M/s", 1e6 },
};

bool vp_reference_key(const char *key)
{
    return strncmp(key, THEN, strlen(THEN)) == 0 ||
           strncmp(key, THEN_PENALTY, strlen(THEN_PENALTY)) == 0;
}

/* "12.5 Gb/s": the number, and the unit after it without blanks around it ("" for
 * none); -1 when the text does not start with a number or the unit is too long. */
static int split_figure(const char *text, double *number, char *unit, size_t unit_len)
{
    while (isspace((unsigned char)*text))
        text++;
    if (!isdigit((unsigned char)*text) && *text != '.' && *text != '+' && *text != '-')
        return -1;
    errno = 0;
    char *end;
    *number = strtod(text, &end);
    if (end == text || errno == ERANGE || !isfinite(*number))
        return -1;
    while (isspace((unsigned char)*end))
        end++;
    size_t len = strlen(end);
    while (len && isspace((unsigned char)end[len - 1]))
        len--;
    if (len >= unit_len)
        return -1;
    memcpy(unit, end, len);
    unit[len] = '\0';
    return 0;
}

/* The units of one base unit's kind, "s, ms, us" ("" for a base unit without others). */
static void accepted_units(const char *base, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof unit_scales / sizeof unit_scales[0] && used < len; i++)
        if (strcmp(unit_scales[i].base, base) == 0)
            used += (size_t)snprintf(out + used, len - used, "%s%s", used ? ", " : "",
                                     unit_scales[i].suffix);
}

/* VALUE in the metric's base unit: a number and one of its kind's units (the base unit
 * itself, or none, always accepted). */
static int convert(const char *text, const char *base, double *value)
{
    double number;
    char unit[16];
    if (split_figure(text, &number, unit, sizeof unit) != 0 || number < 0)
        return -1;
    if (!unit[0] || strcmp(unit, base) == 0) {
        *value = number;
        return 0;
    }
    for (size_t i = 0; i < sizeof unit_scales / sizeof unit_scales[0]; i++) {
        const struct unit_scale *scale = &unit_scales[i];
        if (strcmp(scale->base, base) == 0 && strcmp(unit, scale->suffix) == 0) {
            *value = number * scale->scale;
            return 0;
        }
    }
    return -1;
}

static int parse_penalty(const char *text, double *percent)
{
    char unit[4];
    return split_figure(text, percent, unit, sizeof unit) == 0 && strcmp(unit, "%") == 0 ? 0 : -1;
}

int vp_reference_parse(const char *key, const char *value, struct vp_reference *reference,
                       char *err, size_t err_len)
{
    static const char form[] = "accepted: then.BENCH.METRIC[@JOBS] = VALUE UNIT or "
                               "then-penalty.BENCH.METRIC[@JOBS] = PERCENT%";
    *reference = (struct vp_reference){ .penalty = strncmp(key, THEN_PENALTY,
                                                           strlen(THEN_PENALTY)) == 0 };
    const char *name = key + strlen(reference->penalty ? THEN_PENALTY : THEN);
    char text[200];
    if (!vp_reference_key(key) || strlen(name) >= sizeof text) {
        snprintf(err, err_len, "%s: not a study figure; %s", key, form);
        return -1;
    }
    snprintf(text, sizeof text, "%s", name);
    char *at = strrchr(text, '@');
    if (at) {
        char *end;
        errno = 0;
        unsigned long jobs = strtoul(at + 1, &end, 10);
        if (!isdigit((unsigned char)at[1]) || *end || errno || jobs < 1 || jobs > 100000) {
            snprintf(err, err_len, "%s: '@%s' is not a job count; %s (JOBS 1..100000)", key,
                     at + 1, form);
            return -1;
        }
        reference->jobs = (unsigned)jobs;
        *at = '\0';
    }
    char *dot = strrchr(text, '.');
    if (!dot || dot == text || !dot[1]) {
        snprintf(err, err_len, "%s: no BENCH.METRIC in it; %s", key, form);
        return -1;
    }
    *dot = '\0';
    const struct vp_bench *bench = vp_bench_find(text);
    if (!bench || strlen(text) >= sizeof reference->bench) {
        snprintf(err, err_len, "%s: no benchmark '%s'; accepted: a benchmark of the step "
                 "('virtperf list')", key, text);
        return -1;
    }
    const struct vp_metric *metric = NULL;
    for (size_t m = 0; m < bench->metric_count && !metric; m++)
        if (strcmp(bench->metrics[m].name, dot + 1) == 0)
            metric = &bench->metrics[m];
    if (!metric) {
        char names[600];
        size_t used = 0;
        names[0] = '\0';
        for (size_t m = 0; m < bench->metric_count && used < sizeof names; m++)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", m ? ", " : "",
                                     bench->metrics[m].name);
        snprintf(err, err_len, "%s: %s has no metric '%s'; accepted: %s", key, text, dot + 1,
                 names);
        return -1;
    }
    snprintf(reference->bench, sizeof reference->bench, "%.63s", text); /* a known name */
    snprintf(reference->metric, sizeof reference->metric, "%s", metric->name);
    snprintf(reference->unit, sizeof reference->unit, "%s", metric->unit);
    if (reference->penalty) {
        if (parse_penalty(value, &reference->value) == 0)
            return 0;
        snprintf(err, err_len, "%s: '%s' is not a penalty; accepted: a percentage such as 10%% "
                 "or -3%% (positive: worse than the base)", key, value);
        return -1;
    }
    if (convert(value, metric->unit, &reference->value) == 0)
        return 0;
    char units[300];
    accepted_units(metric->unit, units, sizeof units);
    snprintf(err, err_len, "%s: '%s' is not a figure of %s (%s); accepted: a number >= 0 "
             "and one of: %s", key, value, metric->name, metric->unit,
             units[0] ? units : metric->unit);
    return -1;
}
