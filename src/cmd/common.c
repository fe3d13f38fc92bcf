/* Loading a run, and compare's and report's flags, for the subcommands (common.h). */
#include "cmd/common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_t *vp_cli_load_run(const char *db, const char *ref)
{
    char err[VP_ERROR_LEN + 256];
    struct vp_store *store = vp_cli_open_store(db);
    int64_t run_id;
    json_t *document;
    if (vp_store_resolve_run(store, ref, &run_id, err, sizeof err) != 0 ||
        vp_store_export_run(store, run_id, &document, err, sizeof err) != 0)
        vp_cli_store_refusal(store, "", err);
    vp_store_close(store);
    return document;
}

bool vp_compare_flag(int option, const char *value, struct vp_compare_flags *flags)
{
    switch (option) {
    case VP_FLAG_MARGIN:
        flags->options.margin = vp_parse_margin(value);
        return true;
    case VP_FLAG_VARY:
        if (!*value || strlen(value) > 64)
            vp_usage_error("--vary: accepted: a benchmark option's name such as bs or path");
        flags->options.vary = value;
        return true;
    case VP_FLAG_NORMALIZE:
        if (strcmp(value, "clock") != 0)
            vp_usage_error("--normalize: '%s' is not valid; accepted: clock (times scaled by "
                           "the ratio of effective clocks, app's ghz)", value);
        flags->options.normalize_clock = true;
        return true;
    case VP_FLAG_CLOCK_GHZ: {
        size_t count = 0;
        const char *at = value;
        for (;;) {
            char *end;
            double ghz = strtod(at, &end);
            if (end == at || (*end && *end != ',') || !(ghz > 0 && ghz < 100) || count == 64)
                vp_usage_error("--clock-ghz: '%s' is not valid; accepted: each run's nominal "
                               "clock in GHz, the base's first, comma-separated (2.93,2.00)",
                               value);
            flags->clock_ghz[count++] = ghz;
            if (!*end)
                break;
            at = end + 1;
        }
        flags->options.clock_ghz = flags->clock_ghz;
        flags->options.clock_ghz_count = count;
        flags->options.normalize_clock = true;
        return true;
    }
    case VP_FLAG_METRIC:
        if (flags->options.metric_count == VP_MAX_METRIC_FLAGS || !*value)
            vp_usage_error("--metric: accepted: up to %d metric names such as throughput",
                           VP_MAX_METRIC_FLAGS);
        flags->metrics[flags->options.metric_count++] = value;
        flags->options.metrics = flags->metrics;
        return true;
    default:
        return false;
    }
}

double vp_parse_margin(const char *text)
{
    char *end;
    double margin = strtod(text, &end) / 100;
    if (end == text || (*end && strcmp(end, "%") != 0) || !(margin >= 0 && margin < 1))
        vp_usage_error("--margin: '%s' is not valid; accepted: a percentage from 0 to 99, such "
                       "as 2 or 2%%", text);
    return margin;
}
