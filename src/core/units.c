/* Parsing and formatting of sizes, durations, counts, job specs and CPU lists. */
#include "core/units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Reads a leading unsigned decimal; returns the end pointer or NULL when absent. */
static const char *read_unsigned(const char *text, uint64_t *value)
{
    if (!isdigit((unsigned char)*text))
        return NULL;
    errno = 0;
    char *end;
    unsigned long long parsed = strtoull(text, &end, 10);
    if (errno == ERANGE)
        return NULL;
    *value = parsed;
    return end;
}

static int multiply_checked(uint64_t value, uint64_t factor, uint64_t *out)
{
    if (factor != 0 && value > UINT64_MAX / factor)
        return -1;
    *out = value * factor;
    return 0;
}

int vp_parse_size(const char *text, uint64_t *bytes)
{
    uint64_t value;
    const char *rest = read_unsigned(text, &value);
    if (!rest)
        return -1;
    uint64_t factor = 1;
    switch (tolower((unsigned char)*rest)) {
    case 'k': factor = 1ULL << 10; rest++; break;
    case 'm': factor = 1ULL << 20; rest++; break;
    case 'g': factor = 1ULL << 30; rest++; break;
    case 't': factor = 1ULL << 40; rest++; break;
    default: break;
    }
    if (factor > 1 && tolower((unsigned char)*rest) == 'i')
        rest++;
    if (tolower((unsigned char)*rest) == 'b')
        rest++;
    if (*rest != '\0')
        return -1;
    return multiply_checked(value, factor, bytes);
}

int vp_parse_duration(const char *text, double *seconds)
{
    if (!isdigit((unsigned char)*text) && *text != '.')
        return -1;
    errno = 0;
    char *end;
    double value = strtod(text, &end);
    if (end == text || errno == ERANGE || !isfinite(value) || value < 0)
        return -1;
    static const struct { const char *suffix; double scale; } suffixes[] = {
        { "", 1 }, { "s", 1 }, { "ms", 1e-3 }, { "us", 1e-6 }, { "ns", 1e-9 }, { "min", 60 },
    };
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        if (strcasecmp(end, suffixes[i].suffix) == 0) {
            *seconds = value * suffixes[i].scale;
            return 0;
        }
    }
    return -1;
}

int vp_parse_count(const char *text, uint64_t *value)
{
    uint64_t parsed;
    const char *rest = read_unsigned(text, &parsed);
    if (!rest)
        return -1;
    uint64_t factor = 1;
    switch (tolower((unsigned char)*rest)) {
    case 'k': factor = 1000ULL; rest++; break;
    case 'm': factor = 1000000ULL; rest++; break;
    case 'g': factor = 1000000000ULL; rest++; break;
    default: break;
    }
    if (*rest != '\0')
        return -1;
    return multiply_checked(parsed, factor, value);
}

/* Parses "A" or "A..B" / "A-B" (separator given) at text, stopping at ',' or end. */
static const char *read_range(const char *text, const char *separator, uint64_t *low,
                              uint64_t *high)
{
    const char *rest = read_unsigned(text, low);
    if (!rest)
        return NULL;
    *high = *low;
    size_t sep_len = strlen(separator);
    if (strncmp(rest, separator, sep_len) == 0) {
        rest = read_unsigned(rest + sep_len, high);
        if (!rest || *high < *low)
            return NULL;
    }
    if (*rest != ',' && *rest != '\0')
        return NULL;
    return rest;
}

int vp_parse_jobs_spec(const char *text, unsigned max_jobs, unsigned *counts, size_t cap,
                       size_t *n)
{
    size_t count = 0;
    const char *cursor = text;
    for (;;) {
        uint64_t low, high;
        cursor = read_range(cursor, "..", &low, &high);
        if (!cursor || low < 1 || high > max_jobs)
            return -1;
        for (uint64_t value = low; value <= high; value++) {
            if (count == cap || (count > 0 && value <= counts[count - 1]))
                return -1;
            counts[count++] = (unsigned)value;
        }
        if (*cursor == '\0')
            break;
        cursor++;
    }
    *n = count;
    return 0;
}

int vp_parse_cpu_list(const char *text, unsigned max_cpu, int *cpus, size_t cap, size_t *n)
{
    size_t count = 0;
    const char *cursor = text;
    for (;;) {
        uint64_t low, high;
        cursor = read_range(cursor, "-", &low, &high);
        if (!cursor || high > max_cpu)
            return -1;
        for (uint64_t value = low; value <= high; value++) {
            if (count == cap)
                return -1;
            for (size_t i = 0; i < count; i++)
                if (cpus[i] == (int)value)
                    return -1;
            cpus[count++] = (int)value;
        }
        if (*cursor == '\0')
            break;
        cursor++;
    }
    *n = count;
    return 0;
}

/* Scales value by 'step' until below it, picking the matching prefix. */
static void format_scaled(double value, double step, const char *const *prefixes,
                          size_t prefix_count, const char *unit, char *buf, size_t len)
{
    size_t index = 0;
    double magnitude = fabs(value);
    while (magnitude >= step && index + 1 < prefix_count) {
        value /= step;
        magnitude /= step;
        index++;
    }
    snprintf(buf, len, "%.4g %s%s", value, prefixes[index], unit);
}

void vp_format_bytes(double bytes, char *buf, size_t len)
{
    static const char *const prefixes[] = { "", "Ki", "Mi", "Gi", "Ti", "Pi" };
    format_scaled(bytes, 1024, prefixes, 6, "B", buf, len);
}

void vp_format_seconds(double seconds, char *buf, size_t len)
{
    double magnitude = fabs(seconds);
    if (magnitude == 0 || magnitude >= 1)
        snprintf(buf, len, "%.4g s", seconds);
    else if (magnitude >= 1e-3)
        snprintf(buf, len, "%.4g ms", seconds * 1e3);
    else if (magnitude >= 1e-6)
        snprintf(buf, len, "%.4g us", seconds * 1e6);
    else
        snprintf(buf, len, "%.4g ns", seconds * 1e9);
}

static const char *const unit_style_names[] = { "field", "iec", "si", "bits" };

const char *vp_units_name(enum vp_unit_style style)
{
    return unit_style_names[style];
}

int vp_units_parse(const char *text, enum vp_unit_style *style)
{
    for (size_t i = 0; i < sizeof unit_style_names / sizeof unit_style_names[0]; i++) {
        if (strcmp(text, unit_style_names[i]) == 0) {
            *style = (enum vp_unit_style)i;
            return 0;
        }
    }
    return -1;
}

enum vp_unit_style vp_units_pick(enum vp_unit_style chosen, enum vp_unit_style field)
{
    enum vp_unit_style style = chosen != VP_UNITS_FIELD ? chosen : field;
    return style == VP_UNITS_FIELD ? VP_UNITS_IEC : style;
}

void vp_format_value(double value, const char *unit, enum vp_unit_style style, char *buf,
                     size_t len)
{
    static const char *const decimal[] = { "", "k", "M", "G", "T", "P" };
    static const char *const bytes_si[] = { "", "k", "M", "G", "T", "P" };
    style = vp_units_pick(style, VP_UNITS_IEC);
    if (!isfinite(value)) {
        snprintf(buf, len, "%s", "-");
    } else if (strcmp(unit, "B/s") == 0 && style == VP_UNITS_BITS) {
        format_scaled(value * 8, 1000, decimal, 6, "b/s", buf, len);
    } else if (strcmp(unit, "B/s") == 0 && style == VP_UNITS_SI) {
        format_scaled(value, 1000, bytes_si, 6, "B/s", buf, len);
    } else if (strcmp(unit, "B/s") == 0) {
        vp_format_bytes(value, buf, len);
        strncat(buf, "/s", len - strlen(buf) - 1);
    } else if (strcmp(unit, "bit/s") == 0) {
        format_scaled(value, 1000, decimal, 6, "bit/s", buf, len);
    } else if (strcmp(unit, "B") == 0 && style != VP_UNITS_IEC) {
        format_scaled(value, 1000, bytes_si, 6, "B", buf, len);
    } else if (strcmp(unit, "B") == 0) {
        vp_format_bytes(value, buf, len);
    } else if (strcmp(unit, "s") == 0) {
        vp_format_seconds(value, buf, len);
    } else if (strcmp(unit, "ops/s") == 0 || strcmp(unit, "/s") == 0) {
        format_scaled(value, 1000, decimal, 6, "/s", buf, len);
    } else {
        snprintf(buf, len, "%.4g %s", value, unit);
    }
}
