/* The flags several subcommands take, and loading a run (shared_flags.h). */
#include "run/shared_flags.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json_arena.h"
#include "run/cli.h"

json_t *vp_cli_read_run(struct vp_store *store, const char *ref, enum vp_export_detail detail,
                        const char *refusal_prefix)
{
    char err[VP_ERROR_LEN + 256];
    int64_t run_id;
    json_t *document;
    vp_json_arena_begin(); /* a document read and not changed: the caller releases it */
    int read = vp_store_resolve_run(store, ref, &run_id, err, sizeof err) == 0 &&
               vp_store_export_run(store, run_id, detail, &document, err, sizeof err) == 0;
    vp_json_arena_end();
    if (!read)
        vp_cli_store_refusal(store, refusal_prefix, err);
    return document;
}

json_t *vp_cli_load_run(const char *db, const char *ref, enum vp_export_detail detail)
{
    struct vp_store *store = vp_cli_open_store(db);
    json_t *document = vp_cli_read_run(store, ref, detail, "");
    vp_store_close(store);
    return document;
}

int vp_take_db(void *settings, const char *value, char *err, size_t err_len)
{
    (void)err, (void)err_len;
    ((struct vp_shared_settings *)settings)->db = value; /* vp_cli_store_open checks it */
    return 0;
}

int vp_take_json(void *settings, const char *value, char *err, size_t err_len)
{
    if (!*value) {
        snprintf(err, err_len, "--json: empty; accepted: a file path, or - for standard "
                 "output");
        return -1;
    }
    ((struct vp_shared_settings *)settings)->json = value;
    return 0;
}

static struct vp_compare_flags *compare_flags(void *settings)
{
    return &((struct vp_shared_settings *)settings)->compare;
}

int vp_take_margin(void *settings, const char *value, char *err, size_t err_len)
{
    char *end;
    double margin = strtod(value, &end) / 100;
    if (end == value || (*end && strcmp(end, "%") != 0) || !(margin >= 0 && margin < 1)) {
        snprintf(err, err_len, "--margin: '%s' is not valid; accepted: a percentage from 0 "
                 "to 99, such as 2 or 2%%", value);
        return -1;
    }
    compare_flags(settings)->options.margin = margin;
    return 0;
}

int vp_take_vary(void *settings, const char *value, char *err, size_t err_len)
{
    if (!*value || strlen(value) > 64) {
        snprintf(err, err_len, "--vary: accepted: a benchmark option's name such as bs or "
                 "path");
        return -1;
    }
    compare_flags(settings)->options.vary = value;
    return 0;
}

int vp_take_normalize(void *settings, const char *value, char *err, size_t err_len)
{
    if (strcmp(value, "clock") != 0) {
        snprintf(err, err_len, "--normalize: '%s' is not valid; accepted: clock (times "
                 "scaled by the ratio of effective clocks, app's ghz)", value);
        return -1;
    }
    compare_flags(settings)->options.normalize_clock = true;
    return 0;
}

int vp_take_clock_ghz(void *settings, const char *value, char *err, size_t err_len)
{
    struct vp_compare_flags *flags = compare_flags(settings);
    size_t count = 0;
    for (const char *at = value;;) {
        char *end;
        double ghz = strtod(at, &end);
        if (end == at || (*end && *end != ',') || !(ghz > 0 && ghz < 100) || count == 64) {
            snprintf(err, err_len, "--clock-ghz: '%s' is not valid; accepted: each run's "
                     "nominal clock in GHz, the base's first, comma-separated (2.93,2.00)",
                     value);
            return -1;
        }
        flags->clock_ghz[count++] = ghz;
        if (!*end)
            break;
        at = end + 1;
    }
    flags->options.clock_ghz = flags->clock_ghz;
    flags->options.clock_ghz_count = count;
    flags->options.normalize_clock = true;
    return 0;
}

int vp_take_metrics(void *settings, const char *value, char *err, size_t err_len)
{
    struct vp_compare_flags *flags = compare_flags(settings);
    if (flags->options.metric_count == VP_MAX_METRIC_FLAGS || !*value) {
        snprintf(err, err_len, "--metric: accepted: up to %d metric names such as throughput",
                 VP_MAX_METRIC_FLAGS);
        return -1;
    }
    flags->metrics[flags->options.metric_count++] = value;
    flags->options.metrics = flags->metrics;
    return 0;
}

char **vp_cmd_parse(const struct vp_command_table *table, const char *usage, void *settings,
                    int argc, char **argv, size_t *operand_count)
{
    char **operands = calloc((size_t)argc + 1, sizeof *operands);
    if (!operands)
        abort();
    char err[2048];
    bool help;
    if (vp_command_parse(table, settings, argc, argv, operands, operand_count, &help, err,
                         sizeof err) != 0)
        vp_usage_error("%s", err);
    if (help) {
        fputs(usage, stdout);
        fputs("\n", stdout);
        vp_command_print_flags(stdout, table);
        exit(0);
    }
    return operands;
}

void vp_cmd_flags_only(const struct vp_command_table *table, char **operands, size_t count)
{
    if (count > 0)
        vp_usage_error("%s: unexpected argument '%s'; accepted: flags only (see 'virtperf %s "
                       "--help')", table->command, operands[0], table->command);
    free(operands);
}
