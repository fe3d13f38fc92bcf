/* Grouping peer results into source x destination matrices. A source is the host a run
 * came from, known by its fingerprint's identity (host id, hostname, addresses); a
 * destination is the peer's address, named after the run host that has that address
 * when one of the runs came from it, so a host is one row and one column. A link of a
 * topology's run (this host, its guests or containers, an external server) names its ends:
 * this host's end is the run's host, an external end the run host with its address, so
 * that runs with and without members share rows. Two hosts with one hostname stay two
 * (their address tells them apart), and a cell measured twice keeps the last figure with
 * a note saying so: nothing is dropped silently. */
#include "analysis/matrix.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "analysis/shown.h"
#include "core/json.h"
#include "engine/layout.h"

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

/* A run host's identity: host id, hostname and first address (clones of one image may
 * share a host id, not an address). */
static void identity(const json_t *host, char *buf, size_t len)
{
    snprintf(buf, len, "%s|%s|%s", vp_json_text(host, "host_id"), vp_json_text(host, "hostname"),
             json_string_value(json_array_get(json_object_get(host, "addresses"), 0))
                 ? json_string_value(json_array_get(json_object_get(host, "addresses"), 0))
                 : "");
}

/* Labels for the runs' hosts: {identity: label}; the hostname, with its first address
 * when another host has the same hostname. */
static json_t *host_labels(json_t *const *documents, size_t count)
{
    json_t *hostnames = json_object(); /* hostname -> {identity: true} */
    for (size_t d = 0; d < count; d++) {
        const json_t *host = json_object_get(json_object_get(documents[d], "run"), "host");
        char id[600];
        identity(host, id, sizeof id);
        const char *name = vp_json_text(host, "hostname");
        json_t *ids = json_object_get(hostnames, name);
        if (!ids) {
            ids = json_object();
            json_object_set_new(hostnames, name, ids);
        }
        json_object_set_new(ids, id, json_true());
    }
    json_t *labels = json_object();
    for (size_t d = 0; d < count; d++) {
        const json_t *host = json_object_get(json_object_get(documents[d], "run"), "host");
        char id[600], label[400];
        identity(host, id, sizeof id);
        const char *name = vp_json_text(host, "hostname");
        const char *address = json_string_value(json_array_get(json_object_get(host, "addresses"), 0));
        if (json_object_size(json_object_get(hostnames, name)) > 1)
            snprintf(label, sizeof label, "%s %s", name, address ? address : vp_json_text(host, "host_id"));
        else
            snprintf(label, sizeof label, "%s", name);
        json_object_set_new(labels, id, json_string(label));
    }
    json_decref(hostnames);
    return labels;
}

/* The label of the run host that has address; false when none has. */
static bool host_with_address(json_t *const *documents, size_t count, const json_t *labels,
                              const char *address, char *buf, size_t len)
{
    for (size_t d = 0; d < count; d++) {
        const json_t *host = json_object_get(json_object_get(documents[d], "run"), "host");
        size_t i;
        const json_t *own;
        json_array_foreach(json_object_get(host, "addresses"), i, own) {
            if (strcmp(json_string_value(own), address) == 0) {
                char id[600];
                identity(host, id, sizeof id);
                snprintf(buf, len, "%s", vp_json_text(labels, id));
                return true;
            }
        }
    }
    return false;
}

/* The label of the run host that has peer's address, or "ADDRESS:PORT" when none has. */
static void destination_label(json_t *const *documents, size_t count, const json_t *labels,
                              const json_t *peer, char *buf, size_t len)
{
    const char *address = vp_json_text(peer, "address");
    if (!host_with_address(documents, count, labels, address, buf, len))
        snprintf(buf, len, "%s:%lld", address,
                 (long long)json_integer_value(json_object_get(peer, "port")));
}

/* The label of a link's end named text ("this-host ADDRESS", "guest-1 ADDRESS", "external
 * HOST[:PORT]"): this host's is source (the run's host), an external one the run host
 * with that address when there is one, else HOST[:PORT]; a member's its own. */
static void end_label(json_t *const *documents, size_t count, const json_t *labels,
                      const char *source, const char *text, char *buf, size_t len)
{
    static const char this_host[] = VP_LINK_THIS_HOST, external[] = VP_LINK_EXTERNAL " ";
    if (strncmp(text, this_host, strlen(this_host)) == 0 &&
        (text[strlen(this_host)] == ' ' || text[strlen(this_host)] == '\0')) {
        snprintf(buf, len, "%s", source);
        return;
    }
    if (strncmp(text, external, strlen(external)) != 0) {
        snprintf(buf, len, "%s", text);
        return;
    }
    const char *where = text + strlen(external);
    char address[256];
    const char *colon = strrchr(where, ':');
    bool one_colon = colon && strchr(where, ':') == colon; /* HOST:PORT, not an IPv6 address */
    snprintf(address, sizeof address, "%.*s", one_colon ? (int)(colon - where) : (int)strlen(where),
             where);
    if (!host_with_address(documents, count, labels, address, buf, len))
        snprintf(buf, len, "%s", where);
}

/* The matrix for bench, params (the peer left out; a link's direction is its ends':
 * from the source, as a run without --reverse), metric and jobs, created empty when new. */
static json_t *matrix_for(json_t *matrices, const json_t *result, bool pair, const char *metric,
                          const json_t *definition)
{
    json_t *params = json_deep_copy(json_object_get(result, "params"));
    json_object_del(params, "peer");
    if (pair && json_object_get(params, "reverse")) /* as a run from the source's would be */
        json_object_set_new(params, "reverse", json_string("off"));
    const char *bench = vp_json_text(result, "bench");
    json_int_t jobs = json_integer_value(json_object_get(result, "jobs"));
    size_t i;
    json_t *matrix;
    json_array_foreach(matrices, i, matrix) {
        if (strcmp(json_string_value(json_object_get(matrix, "bench")), bench) == 0 &&
            strcmp(json_string_value(json_object_get(matrix, "metric")), metric) == 0 &&
            json_integer_value(json_object_get(matrix, "jobs")) == jobs &&
            json_equal(json_object_get(matrix, "params"), params)) {
            json_decref(params);
            return matrix;
        }
    }
    matrix = json_pack("{s:s,s:o,s:s,s:O,s:O,s:I,s:[],s:[],s:[]}", "bench", bench, "params",
                       params, "metric", metric, "unit", json_object_get(definition, "unit"),
                       "better", json_object_get(definition, "better"), "jobs", jobs, "sources",
                       "destinations", "values");
    vp_shown_units(matrix);
    json_array_append_new(matrices, matrix);
    return matrix;
}

/* Sets values[row][column], growing rows and columns with nulls as needed; false when the
 * cell already held a figure (the new one replaces it). */
static bool set_cell(json_t *matrix, size_t row, size_t column, double value)
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
    bool fresh = json_is_null(json_array_get(json_array_get(values, row), column));
    json_array_set_new(json_array_get(values, row), column, json_real(value));
    return fresh;
}

json_t *vp_matrices(json_t *const *documents, size_t count)
{
    json_t *matrices = json_array(), *notes = json_array();
    json_t *labels = host_labels(documents, count);
    for (size_t d = 0; d < count; d++) {
        const json_t *run = json_object_get(documents[d], "run");
        char id[600];
        identity(json_object_get(run, "host"), id, sizeof id);
        const char *source = vp_json_text(labels, id);
        size_t i;
        const json_t *result;
        json_array_foreach(json_object_get(documents[d], "results"), i, result) {
            const json_t *peer = json_object_get(result, "peer");
            const json_t *ranks = json_object_get(result, "ranks");
            const char *topology = json_string_value(json_object_get(ranks, "topology"));
            const json_t *link = json_array_get(json_object_get(ranks, "links"), 0);
            bool pair = topology && strcmp(topology, "matrix") == 0 && link;
            const char *peer_param = vp_json_text(json_object_get(result, "params"), "peer");
            if ((!peer && !pair) || strcmp(peer_param, "embedded") == 0 ||
                strcmp(json_string_value(json_object_get(result, "status")), "ok") != 0)
                continue; /* the embedded server is this host's own loopback: no link */
            char destination[420], row[420];
            if (pair) { /* --topology matrix: one ordered pair of ranks or members */
                end_label(documents, count, labels, source, vp_json_text(link, "from_label"), row,
                          sizeof row);
                end_label(documents, count, labels, source, vp_json_text(link, "to_label"),
                          destination, sizeof destination);
            } else {
                snprintf(row, sizeof row, "%s", source);
                destination_label(documents, count, labels, peer, destination, sizeof destination);
            }
            bool noted = false; /* one note for the cell, not one per metric */
            const char *name;
            const json_t *metric;
            json_object_foreach(json_object_get(result, "metrics"), name, metric) {
                json_t *matrix = matrix_for(matrices, result, pair, name, metric);
                size_t row_index = index_of(json_object_get(matrix, "sources"), row);
                size_t column = index_of(json_object_get(matrix, "destinations"), destination);
                if (!set_cell(matrix, row_index, column,
                              json_number_value(json_object_get(metric, "mean"))) && !noted) {
                    noted = true;
                    char note[1200];
                    snprintf(note, sizeof note, "%s %s jobs=%lld: %s -> %s measured more than "
                             "once; the cell shows the last, from run %s", vp_json_text(result, "bench"),
                             "(every metric)", (long long)json_integer_value(json_object_get(result, "jobs")),
                             row, destination, vp_json_text(run, "id"));
                    json_array_append_new(notes, json_string(note));
                }
            }
        }
    }
    json_decref(labels);
    return json_pack("{s:o,s:o}", "matrices", matrices, "notes", notes);
}
