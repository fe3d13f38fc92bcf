/* `virtperf matrix RUN...`: network results from several hosts as source x destination
 * tables (import the other hosts' runs first with `virtperf results import`). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/common.h"
#include "analysis/matrix.h"
#include "render/matrix_table.h"

static const char matrix_usage[] =
    "usage: virtperf matrix RUN [RUN...] [--metric NAME] [--json FILE|-] [--db PATH|URL]\n"
    "\n"
    "Net results of the runs as source x destination tables: the source is the host a run\n"
    "came from, the destination the peer it measured (the CNAF 2007 study's netperf tables). Gather\n"
    "the other hosts' runs with 'virtperf results import'. --metric keeps one metric\n"
    "(throughput, latency ...); all by default.\n";

int cmd_matrix(int argc, char **argv)
{
    static const struct option options[] = {
        { "metric", required_argument, NULL, 'm' },
        { "json", required_argument, NULL, 'j' },
        { "db", required_argument, NULL, 'd' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *db = NULL, *json_path = NULL, *metric = NULL;
    opterr = 0;
    int option;
    while ((option = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (option) {
        case 'm': metric = optarg; break;
        case 'j': json_path = optarg; break;
        case 'd': db = optarg; break;
        case 'h': fputs(matrix_usage, stdout); return 0;
        default:
            vp_usage_error("matrix: unknown or incomplete option '%s'; see 'virtperf matrix "
                           "--help'", argv[optind - 1]);
        }
    }
    int count = argc - optind;
    if (count < 1 || count > 256)
        vp_usage_error("matrix: accepted: 1 to 256 runs (see 'virtperf matrix --help')");
    struct vp_json_output output;
    char err[VP_PATH_ERROR_LEN];
    if (json_path && vp_json_output_open(&output, "--json", json_path, err, sizeof err) != 0)
        vp_usage_error("%s", err);
    json_t *documents[256];
    for (int i = 0; i < count; i++)
        documents[i] = vp_cli_load_run(db, argv[optind + i]);
    json_t *result = vp_matrices(documents, (size_t)count);
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
    for (int i = 0; i < count; i++)
        json_decref(documents[i]);
    return rc;
}
