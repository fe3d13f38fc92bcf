/* A run's two sides as two documents (see sides.h). */
#include "analysis/sides.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/member_engines.h"

json_t *vp_run_side(const json_t *document, const char *side)
{
    json_t *results = json_array();
    size_t i;
    const json_t *result;
    json_array_foreach(json_object_get(document, "results"), i, result) {
        const char *its = json_string_value(json_object_get(json_object_get(result, "side"), "name"));
        if (its && strcmp(its, side) == 0)
            json_array_append(results, (json_t *)result);
    }
    if (json_array_size(results) == 0) {
        json_decref(results);
        return NULL;
    }
    json_t *copy = json_copy((json_t *)document);
    json_t *run = json_copy(json_object_get(copy, "run"));
    const char *label = json_string_value(json_object_get(run, "label"));
    char named[300];
    /* the guests' side named for what its members are: "(guests)" or "(containers)"; a
     * group's by its name */
    snprintf(named, sizeof named, "%s (%s)", label ? label : "-",
             strcmp(side, "guests") == 0 ? vp_members_word(json_array_get(results, 0)) : side);
    json_object_set_new(run, "label", json_string(named));
    json_object_set_new(copy, "run", run);
    json_object_set_new(copy, "results", results);
    return copy;
}

/* The names of document's sides into names (room for most): the host's first, then the
 * others in the order its results first give each; how many. */
static size_t side_names(const json_t *document, const char **names, size_t most)
{
    size_t count = 0, i;
    const json_t *result;
    json_array_foreach(json_object_get(document, "results"), i, result) {
        const char *its = json_string_value(json_object_get(json_object_get(result, "side"), "name"));
        bool known = false;
        for (size_t n = 0; n < count && its; n++)
            known = known || strcmp(names[n], its) == 0;
        if (its && !known && count < most)
            names[count++] = its;
    }
    for (size_t n = 1; n < count; n++) /* the host's first */
        if (strcmp(names[n], "host") == 0) {
            memmove(names + 1, names, n * sizeof *names);
            names[0] = "host";
        }
    return count;
}

size_t vp_runs_by_side(json_t **documents, size_t count, size_t most)
{
    json_t **sides = calloc(most ? most : 1, sizeof *sides);
    if (!sides)
        abort();
    size_t total = 0;
    for (size_t d = 0; d < count; d++) {
        const char *names[VP_RUN_MOST_SIDES];
        size_t named = side_names(documents[d], names, VP_RUN_MOST_SIDES);
        size_t adds = named >= 2 ? named : 1;
        if (total + adds > most) {
            while (total > 0)
                json_decref(sides[--total]);
            free(sides);
            return 0;
        }
        if (named < 2)
            sides[total++] = json_incref(documents[d]);
        for (size_t n = 0; n < named && named >= 2; n++)
            sides[total++] = vp_run_side(documents[d], names[n]);
    }
    for (size_t d = 0; d < count; d++)
        json_decref(documents[d]);
    memcpy(documents, sides, total * sizeof *sides);
    free(sides);
    return total;
}

const char *vp_members_word(const json_t *result)
{
    const json_t *guests = json_object_get(result, "guests");
    if (!guests) /* virtperf-mpi's hypervisors: the first one's members say */
        guests = json_object_get(json_array_get(json_object_get(result, "hypervisors"), 0),
                                 "guests");
    const char *engine = json_string_value(json_object_get(guests, "engine"));
    const char *members = json_string_value(json_object_get(guests, "members"));
    if (!engine)
        return "hosts";
    if (members) /* what the kind calls its members */
        return members;
    const struct vp_member_engine *known = vp_member_engine_find(engine);
    return known ? known->members : "members";
}
