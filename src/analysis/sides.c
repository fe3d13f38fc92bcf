/* A run's two sides as two documents (see sides.h). */
#include "analysis/sides.h"

#include <stdio.h>
#include <string.h>

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
    snprintf(named, sizeof named, "%s (%s)", label ? label : "-", side);
    json_object_set_new(run, "label", json_string(named));
    json_object_set_new(copy, "run", run);
    json_object_set_new(copy, "results", results);
    return copy;
}

const char *vp_members_word(const json_t *result)
{
    const char *engine = json_string_value(json_object_get(json_object_get(result, "guests"),
                                                           "engine"));
    if (!engine)
        return "hosts";
    return strcmp(engine, "libvirt") == 0 ? "guests" : "containers";
}
