/* `virtperf matrix RUN...`: network results from several hosts as source x destination
 * tables (import the other hosts' runs first with `virtperf results import`). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "core/json_arena.h"
#include "analysis/matrix.h"
#include "render/matrix_table.h"

static const char matrix_usage[] =
    "usage: virtperf matrix RUN [RUN...] [--metric NAME] [--json FILE|-] [--db PATH|URL]\n"
    "\n"
    "Net results of the runs as source x destination tables: the source is the host a run\n"
    "came from, the destination the peer it measured (the CNAF 2007 study's netperf tables). Gather\n"
    "the other hosts' runs with 'virtperf results import'.\n";

struct matrix_settings {
    struct vp_shared_settings shared; /* first: the shared rows take into it */
    const char *metric;
};

static int take_metric(void *settings, const char *value, char *err, size_t err_len)
{
    if (!*value) {
        snprintf(err, err_len, "--metric: empty; accepted: a metric's name such as "
                 "throughput or latency");
        return -1;
    }
    ((struct matrix_settings *)settings)->metric = value;
    return 0;
}

static const struct vp_command_flag matrix_flags[] = {
    { "metric", 0, "NAME", "only this metric's table (throughput, latency...)  [all]",
      take_metric },
    VP_JSON_FLAG("the tables"),
    VP_DB_FLAG,
};
const struct vp_command_table vp_matrix_flags = {
    "matrix", matrix_flags, sizeof matrix_flags / sizeof matrix_flags[0]
};

int cmd_matrix(int argc, char **argv)
{
    struct matrix_settings settings = { .shared = VP_SHARED_SETTINGS_DEFAULT };
    size_t count;
    char **runs = vp_cmd_parse(&vp_matrix_flags, matrix_usage, &settings, argc, argv, &count);
    if (count < 1 || count > 256)
        vp_usage_error("matrix: accepted: 1 to 256 runs (see 'virtperf matrix --help')");
    const char *json_path = settings.shared.json, *metric = settings.metric;
    struct vp_json_output output;
    char err[VP_PATH_ERROR_LEN];
    if (json_path && vp_json_output_open(&output, "--json", json_path, err, sizeof err) != 0)
        vp_usage_error("%s", err);
    json_t *documents[256];
    for (size_t i = 0; i < count; i++)
        documents[i] = vp_cli_load_run(settings.shared.db, runs[i], VP_EXPORT_SUMMARIES);
    free(runs);
    json_t *result = vp_matrices(documents, count);
    json_t *matrices = json_object_get(result, "matrices");
    for (size_t i = json_array_size(matrices); metric && i-- > 0;)
        if (strcmp(json_string_value(json_object_get(json_array_get(matrices, i), "metric")), metric) != 0)
            json_array_remove(matrices, i);
    if (json_array_size(matrices) == 0) {
        vp_usage_error("matrix: no net results with a peer%s%s in these runs (run net.* with "
                       "--peer, gather runs with 'virtperf results import')",
                       metric ? " for metric " : "", metric ? metric : "");
    }
    if (!json_path || !output.to_stdout) {
        size_t i;
        const json_t *item;
        json_array_foreach(matrices, i, item)
            vp_print_matrix(stdout, item, "", vp_cli_units());
        json_array_foreach(json_object_get(result, "notes"), i, item)
            printf("note: %s\n", json_string_value(item));
    }
    int rc = 0;
    if (json_path && vp_json_output_commit(&output, result, err, sizeof err) != 0) {
        fprintf(stderr, "virtperf: %s\n", err);
        rc = 1;
    }
    json_decref(result);
    for (size_t i = 0; i < count; i++)
        json_decref(documents[i]);
    vp_json_arena_release();
    return rc;
}
