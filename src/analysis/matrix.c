/* Grouping peer results into source x destination matrices. */
#include "analysis/matrix.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Position of text in an array of strings, appending it when absent. */
static size_t index_of(json_t *names, const char *text)
{
    size_t i;
    json_t *name;
    json_array_foreach(names, i, name)
        if (strcmp(json_string_value(name), text) == 0)
            return i;
    json_array_append_new(names, json_string(text));
    return json_array_size(names) - 1;
}

/* The matrix for bench, metric and jobs, created empty when new. */
static json_t *matrix_for(json_t *matrices, const char *bench, const char *metric, json_int_t jobs,
                          const json_t *definition)
{
    size_t i;
    json_t *matrix;
    json_array_foreach(matrices, i, matrix) {
        if (strcmp(json_string_value(json_object_get(matrix, "bench")), bench) == 0 &&
            strcmp(json_string_value(json_object_get(matrix, "metric")), metric) == 0 &&
            json_integer_value(json_object_get(matrix, "jobs")) == jobs)
            return matrix;
    }
    matrix = json_pack("{s:s,s:s,s:O,s:O,s:I,s:[],s:[],s:[]}", "bench", bench, "metric", metric,
                       "unit", json_object_get(definition, "unit"), "better",
                       json_object_get(definition, "better"), "jobs", jobs, "sources",
                       "destinations", "values");
    json_array_append_new(matrices, matrix);
    return matrix;
}

/* Sets values[row][column], growing rows and columns with nulls as needed. */
static void set_cell(json_t *matrix, size_t row, size_t column, double value)
{
    json_t *values = json_object_get(matrix, "values");
    size_t columns = json_array_size(json_object_get(matrix, "destinations"));
    while (json_array_size(values) <= row)
        json_array_append_new(values, json_array());
    size_t r;
    json_t *cells;
    json_array_foreach(values, r, cells)
        while (json_array_size(cells) < columns)
            json_array_append_new(cells, json_null());
    json_array_set_new(json_array_get(values, row), column, json_real(value));
}

json_t *vp_matrices(json_t *const *documents, size_t count)
{
    json_t *matrices = json_array();
    for (size_t d = 0; d < count; d++) {
        const json_t *host = json_object_get(json_object_get(documents[d], "run"), "host");
        const char *source = json_string_value(json_object_get(host, "hostname"));
        size_t i;
        const json_t *result;
        json_array_foreach(json_object_get(documents[d], "results"), i, result) {
            const json_t *peer = json_object_get(result, "peer");
            const json_t *ranks = json_object_get(result, "ranks");
            const char *topology = json_string_value(json_object_get(ranks, "topology"));
            const json_t *link = json_array_get(json_object_get(ranks, "links"), 0);
            bool pair = topology && strcmp(topology, "matrix") == 0 && link;
            if ((!peer && !pair) ||
                strcmp(json_string_value(json_object_get(result, "status")), "ok") != 0)
                continue;
            char destination[420];
            if (pair) /* virtperf-mpi --topology matrix: one ordered pair of ranks */
                snprintf(destination, sizeof destination, "%s",
                         json_string_value(json_object_get(link, "to_label")));
            else
                snprintf(destination, sizeof destination, "%s:%lld",
                         json_string_value(json_object_get(peer, "address")),
                         (long long)json_integer_value(json_object_get(peer, "port")));
            const char *row = pair ? json_string_value(json_object_get(link, "from_label")) : source;
            const char *name;
            const json_t *metric;
            json_object_foreach(json_object_get(result, "metrics"), name, metric) {
                json_t *matrix = matrix_for(matrices, json_string_value(json_object_get(result, "bench")),
                                            name, json_integer_value(json_object_get(result, "jobs")),
                                            metric);
                size_t row_index = index_of(json_object_get(matrix, "sources"), row ? row : "?");
                size_t column = index_of(json_object_get(matrix, "destinations"), destination);
                set_cell(matrix, row_index, column, json_number_value(json_object_get(metric, "mean")));
            }
        }
    }
    return json_pack("{s:o}", "matrices", matrices);
}
