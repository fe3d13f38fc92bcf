/* The steps of a run over many ranks (see layout.h). */
#include "engine/layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* by kind, NONE's NULL first; NULL-terminated from MATRIX on, for vp_topology_choices */
static const char *const topology_names[] = { NULL, "matrix", "pairs", "fan-in", "fan-out",
                                              "outside", NULL };

const char *const *vp_topology_choices(void)
{
    return &topology_names[VP_TOPOLOGY_MATRIX];
}

int vp_topology_parse(const char *text, enum vp_topology_kind *kind, char *err, size_t err_len)
{
    *kind = VP_TOPOLOGY_NONE;
    if (!text)
        return 0;
    for (int k = VP_TOPOLOGY_MATRIX; k <= VP_TOPOLOGY_OUTSIDE; k++) {
        if (strcmp(text, topology_names[k]) == 0) {
            *kind = (enum vp_topology_kind)k;
            return 0;
        }
    }
    snprintf(err, err_len, "--topology: '%s' is not valid; accepted: matrix, pairs, fan-in, "
             "fan-out or outside", text);
    return -1;
}

const char *vp_topology_name(enum vp_topology_kind kind)
{
    return topology_names[kind];
}

/* Whether bench has an option called name. */
static bool has_option(const struct vp_bench *bench, const char *name)
{
    for (size_t o = 0; o < bench->option_count; o++)
        if (strcmp(bench->options[o].name, name) == 0)
            return true;
    return false;
}

bool vp_layout_is_network(const struct vp_bench *bench)
{
    return has_option(bench, "peer");
}

/* A new step of point with every rank OFF; rank 0 always WAITs at least (it gathers). */
static struct vp_step *add_step(struct vp_layout *layout, size_t point, int ranks)
{
    struct vp_step *grown = realloc(layout->steps, (layout->count + 1) * sizeof *grown);
    if (!grown)
        abort();
    layout->steps = grown;
    struct vp_step *step = &layout->steps[layout->count++];
    *step = (struct vp_step){ .point = point, .roles = calloc((size_t)ranks, sizeof *step->roles),
                              .peers = malloc((size_t)ranks * sizeof *step->peers) };
    if (!step->roles || !step->peers)
        abort();
    for (int r = 0; r < ranks; r++)
        step->peers[r] = -1;
    step->roles[0] = VP_ROLE_WAIT;
    return step;
}

/* client runs jobs against server's server (the external end has no process to wait). */
static void link_ranks(const struct vp_layout *layout, struct vp_step *step, int client,
                       int server)
{
    step->roles[client] = VP_ROLE_RUN;
    step->peers[client] = server;
    if (step->roles[server] == VP_ROLE_OFF && server != layout->external)
        step->roles[server] = VP_ROLE_WAIT;
}

/* The steps of a network point of bench at k ranks; returns how many it added. */
static size_t network_steps(struct vp_layout *layout, size_t point, const struct vp_bench *bench,
                            int ranks, int k)
{
    size_t before = layout->count;
    struct vp_step *step;
    switch (layout->topology) {
    case VP_TOPOLOGY_MATRIX:
        for (int from = 0; from < ranks; from++)
            for (int to = 0; to < ranks; to++) {
                if (from == to || (from == layout->external && !has_option(bench, "reverse")))
                    continue;
                step = add_step(layout, point, ranks);
                if (from == layout->external) { /* its server sends to to's client */
                    link_ranks(layout, step, to, from);
                    step->reverse = true;
                } else {
                    link_ranks(layout, step, from, to);
                }
            }
        break;
    case VP_TOPOLOGY_PAIRS:
        if (k < 2 || k % 2 != 0)
            break;
        step = add_step(layout, point, ranks);
        for (int client = 0; client < k / 2; client++)
            link_ranks(layout, step, client, client + k / 2);
        break;
    case VP_TOPOLOGY_FAN_IN:
    case VP_TOPOLOGY_FAN_OUT:
        if (k < 2)
            break;
        step = add_step(layout, point, ranks);
        step->reverse = layout->topology == VP_TOPOLOGY_FAN_OUT;
        for (int client = 1; client < k; client++)
            link_ranks(layout, step, client, 0);
        break;
    case VP_TOPOLOGY_OUTSIDE:
        for (int server = 1; server < k; server++)
            link_ranks(layout, add_step(layout, point, ranks), 0, server);
        break;
    case VP_TOPOLOGY_NONE:
        break;
    }
    return layout->count - before;
}

int vp_layout_build(const struct vp_plan *plan, int ranks, const unsigned *rank_counts,
                    size_t rank_count_n, enum vp_topology_kind topology, int external,
                    struct vp_layout *layout, char *err, size_t err_len)
{
    *layout = (struct vp_layout){ .topology = topology, .external = external };
    if (external >= 0 && (topology != VP_TOPOLOGY_MATRIX || external >= ranks)) {
        snprintf(err, err_len, "--peer: an external end is one more end of --topology matrix; "
                 "accepted: --topology matrix");
        return -1;
    }
    for (size_t p = 0; p < plan->count; p++) {
        bool network = topology != VP_TOPOLOGY_NONE && vp_layout_is_network(plan->points[p].bench);
        size_t added = 0;
        if (network && topology == VP_TOPOLOGY_MATRIX) /* every pair once, whatever --ranks */
            added = network_steps(layout, p, plan->points[p].bench, ranks, ranks);
        for (size_t i = 0; i < rank_count_n && !(network && topology == VP_TOPOLOGY_MATRIX); i++) {
            int k = (int)rank_counts[i];
            if (network) {
                added += network_steps(layout, p, plan->points[p].bench, ranks, k);
                continue;
            }
            struct vp_step *step = add_step(layout, p, ranks);
            for (int r = 0; r < k; r++)
                step->roles[r] = VP_ROLE_RUN;
            added++;
        }
        if (added == 0) {
            snprintf(err, err_len, "--topology %s: %s has nothing to run at these rank counts "
                     "(accepted: %s)", vp_topology_name(topology), plan->points[p].bench->name,
                     topology == VP_TOPOLOGY_PAIRS ? "an even count of 2 or more"
                                                   : "a count of 2 or more");
            vp_layout_free(layout);
            return -1;
        }
    }
    return 0;
}

json_t *vp_layout_links(const struct vp_step *step, int ranks, char *const *labels)
{
    json_t *links = json_array();
    for (int rank = 0; rank < ranks; rank++) {
        int peer = step->peers[rank];
        if (step->roles[rank] != VP_ROLE_RUN || peer < 0)
            continue;
        int from = step->reverse ? peer : rank, to = step->reverse ? rank : peer;
        json_array_append_new(links, json_pack("{s:i,s:i,s:s,s:s}", "from", from, "to", to,
                                               "from_label", labels[from], "to_label",
                                               labels[to]));
    }
    return links;
}

void vp_layout_mark(json_t *result, enum vp_topology_kind topology, const struct vp_step *step,
                    int ranks, char *const *labels)
{
    json_t *of_ranks = json_object_get(result, "ranks");
    json_object_set_new(of_ranks, "topology", json_string(vp_topology_name(topology)));
    json_object_set_new(of_ranks, "links", vp_layout_links(step, ranks, labels));
}

void vp_layout_free(struct vp_layout *layout)
{
    for (size_t s = 0; s < layout->count; s++) {
        free(layout->steps[s].roles);
        free(layout->steps[s].peers);
    }
    free(layout->steps);
    layout->steps = NULL;
    layout->count = 0;
}
