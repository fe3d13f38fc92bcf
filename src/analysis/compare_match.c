/* Matching results across runs (compare_match.h). */
#include "analysis/compare_match.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/combined.h"
#include "core/json.h"
#include "core/json_arena.h"

/* " ranks=N 0>1,2>0" of a result of many hosts (virtperf-mpi): how many hosts ran jobs
 * and, with a topology, which rank talked to which; "" for one host. */
void vp_match_hosts_text(const json_t *result, char *buf, size_t len)
{
    const json_t *ranks = json_object_get(result, "ranks");
    buf[0] = '\0';
    if (!ranks)
        return;
    snprintf(buf, len, " ranks=%lld", (long long)json_integer_value(json_object_get(ranks, "count")));
    size_t i;
    const json_t *link;
    json_array_foreach(json_object_get(ranks, "links"), i, link) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%lld>%lld", i ? "," : " ",
                 (long long)json_integer_value(json_object_get(link, "from")),
                 (long long)json_integer_value(json_object_get(link, "to")));
    }
}

/* How many jobs a result ran in all: its jobs on one host, the sum of its hosts' across
 * many (virtperf-mpi). */
static long long total_jobs(const json_t *result)
{
    const json_t *hosts = json_object_get(json_object_get(result, "ranks"), "hosts");
    if (!hosts)
        return (long long)json_integer_value(json_object_get(result, "jobs"));
    long long total = 0;
    size_t i;
    const json_t *host;
    json_array_foreach(hosts, i, host)
        total += (long long)json_integer_value(json_object_get(host, "jobs"));
    return total;
}

/* Where a result's jobs ran: "8 jobs on 1 host", "1 job on each of 8 hosts", "12 jobs
 * on 3 hosts" (uneven), with a network round's topology. */
void vp_match_layout_text(const json_t *result, char *buf, size_t len)
{
    const json_t *ranks = json_object_get(result, "ranks");
    long long total = total_jobs(result);
    size_t hosts = ranks ? json_array_size(json_object_get(ranks, "hosts")) : 1;
    const char *topology = ranks ? vp_json_text(ranks, "topology") : "";
    char round[48] = "";
    if (*topology)
        snprintf(round, sizeof round, " (%s)", topology);
    if (hosts > 1 && total % (long long)hosts == 0)
        snprintf(buf, len, "%lld job%s on each of %zu hosts%s", total / (long long)hosts,
                 total / (long long)hosts == 1 ? "" : "s", hosts, round);
    else
        snprintf(buf, len, "%lld job%s on %zu host%s%s", total, total == 1 ? "" : "s", hosts,
                 hosts == 1 ? "" : "s", round);
}

/* A peer "HOST:PORT" ("[V6]:PORT") kept as its host: the port of the server a run of
 * guests or containers starts on this host is a free one, another at each run, and two
 * runs against the same host are the same comparison. */
static void peer_as_host(json_t *params)
{
    const char *peer = json_string_value(json_object_get(params, "peer"));
    const char *colon = peer ? strrchr(peer, ':') : NULL;
    if (!colon || (peer[0] != '[' && strchr(peer, ':') != colon) ||
        (peer[0] == '[' && colon[-1] != ']'))
        return; /* no port, or a bare IPv6 address */
    json_object_set_new(params, "peer", json_stringn(peer, (size_t)(colon - peer)));
}

/* bench|params|jobs|hosts: what must agree for two results to be compared (a peer by
 * its host); vary names the param left out (NULL: none), the one the comparison sets
 * values of against each other. by_total: bench|params|total jobs, whatever hosts they
 * ran on, to pair J jobs on one host with J jobs spread over J hosts (the IHEP study's 8
 * processes against 8 VMs). */
char *vp_match_key(const json_t *result, const char *vary, bool by_total)
{
    json_t *params_json = json_object_get(result, "params");
    bool changed = json_object_get(params_json, "peer") ||
                   (vary && json_object_get(params_json, vary));
    json_t *kept = changed ? json_deep_copy(params_json) : json_incref(params_json);
    if (changed) { /* a copy, at 20,000 results, only where there is something to leave out */
        peer_as_host(kept);
        if (vary)
            json_object_del(kept, vary);
    }
    char *params = vp_json_arena_dumps(kept, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(kept);
    char hosts[256] = "";
    if (!by_total)
        vp_match_hosts_text(result, hosts, sizeof hosts);
    size_t len = strlen(params) + strlen(hosts) + 128;
    char *key = malloc(len);
    if (!key)
        abort();
    snprintf(key, len, "%s|%s|%lld|%s%s", vp_json_text(result, "bench"), params,
             by_total ? total_jobs(result) : (long long)json_integer_value(json_object_get(result, "jobs")),
             by_total ? "total" : "", hosts);
    free(params);
    return key;
}


/* Marks in varying every param of a whose value b does not share. */
void vp_match_mark_differences(json_t *varying, const json_t *a, const json_t *b)
{
    const char *name;
    const json_t *value;
    json_object_foreach((json_t *)a, name, value)
        if (!json_equal(json_object_get(b, name), value))
            json_object_set_new(varying, name, json_true());
}

void vp_match_index_run(struct vp_run_index *index, const json_t *run, const char *vary)
{
    *index = (struct vp_run_index){ .run = run, .by_key = json_object(), .by_total = json_object(),
                                 .varying = json_object() };
    json_t *first_params = json_object(); /* bench -> params of its first result */
    size_t i;
    const json_t *result;
    json_array_foreach(json_object_get(run, "results"), i, result) {
        const char *bench = vp_json_text(result, "bench");
        const json_t *params = json_object_get(result, "params");
        const json_t *first = json_object_get(first_params, bench);
        if (!first) {
            json_object_set(first_params, bench, (json_t *)params);
            json_object_set_new(index->varying, bench, json_object());
        } else {
            json_t *varying = json_object_get(index->varying, bench);
            vp_match_mark_differences(varying, params, first);
            vp_match_mark_differences(varying, first, params);
        }
        if (strcmp(vp_json_text(result, "status"), "ok") == 0) {
            char *key = vp_match_key(result, vary, false);
            json_object_set(index->by_key, key, (json_t *)result);
            free(key);
            key = vp_match_key(result, vary, true);
            json_object_set_new(index->by_total, key, json_object_get(index->by_total, key)
                                                          ? json_null()
                                                          : json_incref((json_t *)result));
            free(key);
        }
    }
    json_decref(first_params);
}

void vp_match_free_index(struct vp_run_index *index)
{
    json_decref(index->by_key);
    json_decref(index->by_total);
    json_decref(index->varying);
}

const json_t *vp_match_find(const struct vp_run_index *index, const char *key)
{
    return json_object_get(index->by_key, key);
}

/* result's match in index by its total job count when its own layout has none, where
 * the match ran on other hosts than result (one host against many, or many against
 * another many) and no other result of index has that total. */
const json_t *vp_match_find_by_total(const struct vp_run_index *index, const json_t *result,
                                   const char *vary)
{
    char *key = vp_match_key(result, vary, true);
    const json_t *match = json_object_get(index->by_total, key);
    free(key);
    if (!json_is_object(match))
        return NULL;
    char *mine = vp_match_key(result, vary, false), *theirs = vp_match_key(match, vary, false);
    bool other_layout = strcmp(mine, theirs) != 0;
    free(mine);
    free(theirs);
    return other_layout ? match : NULL;
}

/* The params that tell result apart from the other results of its benchmark in the run,
 * as "name=value name=value" into buf ("" when nothing does): time.read's
 * clock=monotonic, a disk sweep's bs=4096. */
void vp_match_variant_text(const struct vp_run_index *index, const json_t *result, char *buf,
                         size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    const json_t *varying = json_object_get(index->varying, vp_json_text(result, "bench"));
    const char *name;
    const json_t *value;
    json_object_foreach(json_object_get(result, "params"), name, value) {
        if (!json_object_get(varying, name))
            continue;
        char *text = json_is_string(value)
                         ? strdup(json_string_value(value))
                         : vp_json_arena_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY);
        int written = snprintf(buf + used, len - used, "%s%s=%s", used ? " " : "", name,
                               text ? text : "?");
        free(text);
        if (written < 0 || (size_t)written >= len - used)
            return;
        used += (size_t)written;
    }
}

/* "bench variant jobs=N" of a result of the indexed run, for lists of what did not match. */
void vp_match_result_label(const struct vp_run_index *index, const json_t *result, char *buf,
                         size_t len)
{
    char variant[200], hosts[256];
    vp_match_variant_text(index, result, variant, sizeof variant);
    vp_match_hosts_text(result, hosts, sizeof hosts);
    snprintf(buf, len, "%s%s%.200s jobs=%lld%.255s", vp_json_text(result, "bench"),
             variant[0] ? " " : "", variant,
             (long long)json_integer_value(json_object_get(result, "jobs")), hosts);
}

