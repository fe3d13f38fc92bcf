/* `virtperf results push [RUN...] --to URL`: each run of the local store copied into a
 * site store (a PostgreSQL server, or another SQLite file) as its virtperf/1 document, in
 * one transaction per run, so that a failed push leaves no half run there. A run is the
 * same run wherever it is pushed from: its uuid decides, so a second push, or the same
 * run pushed from another host, adds nothing. A run still running is left for later. */
#include "cmd/results_push.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/common.h"

struct run_list {
    int64_t *ids;
    size_t count, capacity;
};

static void add_run(const struct vp_run_row *row, void *context)
{
    struct run_list *list = context;
    if (list->count == list->capacity) {
        list->capacity = list->capacity ? list->capacity * 2 : 64;
        list->ids = realloc(list->ids, list->capacity * sizeof *list->ids);
        if (!list->ids)
            abort();
    }
    list->ids[list->count++] = row->id;
}

/* The local runs to push: those refs name, else every run, oldest first; exits on a
 * reference that names none. */
static struct run_list runs_to_push(struct vp_store *local, char **refs, int count)
{
    struct run_list list = { 0 };
    char err[VP_ERROR_LEN + 256];
    if (count == 0) {
        if (vp_store_list_runs(local, add_run, &list, err, sizeof err) != 0)
            vp_cli_store_refusal(local, "push: ", err);
        return list;
    }
    for (int i = 0; i < count; i++) {
        struct vp_run_row row = { 0 };
        if (vp_store_resolve_run(local, refs[i], &row.id, err, sizeof err) != 0)
            vp_cli_store_refusal(local, "push: ", err);
        add_run(&row, &list);
    }
    return list;
}

/* Pushes one run; 0 when the site store has it afterwards, VP_STORE_UNAVAILABLE when the
 * site store went away meanwhile, else -1. */
static int push_run(struct vp_store *local, struct vp_store *site, int64_t run_id, const char *to)
{
    json_t *document;
    char err[VP_ERROR_LEN + 256];
    if (vp_store_export_run(local, run_id, &document, err, sizeof err) != 0) {
        fprintf(stderr, "virtperf: push: run %lld: %s\n", (long long)run_id, err);
        return -1;
    }
    const json_t *run = json_object_get(document, "run");
    const char *uuid = json_string_value(json_object_get(run, "id"));
    const char *status = json_string_value(json_object_get(run, "status"));
    int rc = 0;
    int64_t site_id;
    if (strcmp(status, "running") == 0) {
        fprintf(stderr, "virtperf: push: run %lld (%s) is still running: push it when it ends\n",
                (long long)run_id, uuid);
        rc = -1;
    } else {
        int imported = vp_store_import(site, document, &site_id, err, sizeof err);
        if (imported == 0)
            printf("pushed run %lld (%s, %zu results) to %s as run %lld\n", (long long)run_id,
                   uuid, json_array_size(json_object_get(document, "results")), to,
                   (long long)site_id);
        else if (imported == VP_STORE_ALREADY_THERE)
            printf("run %lld (%s) is in %s already: nothing added\n", (long long)run_id, uuid, to);
        else {
            fprintf(stderr, "virtperf: push: run %lld (%s) not pushed, nothing of it kept there: "
                    "%s\n", (long long)run_id, uuid, err);
            rc = imported == VP_STORE_UNAVAILABLE ? VP_STORE_UNAVAILABLE : -1;
        }
    }
    json_decref(document);
    fflush(stdout); /* each run's line as it is pushed, through a pipe or into a file too */
    return rc;
}

int vp_results_push(struct vp_store *local, char **refs, int count, const char *to)
{
    struct run_list list = runs_to_push(local, refs, count);
    struct vp_store *site = vp_cli_open_store(to);
    size_t failed = 0;
    for (size_t i = 0; i < list.count; i++) {
        int rc = push_run(local, site, list.ids[i], to);
        failed += rc != 0;
        if (rc == VP_STORE_UNAVAILABLE && i + 1 < list.count) { /* the rest would fail alike */
            fprintf(stderr, "virtperf: push: %s can no longer be reached: stopped, the %zu "
                    "run(s) after that one not tried\n", to, list.count - i - 1);
            failed += list.count - i - 1;
            break;
        }
    }
    if (list.count == 0)
        printf("no runs to push: the local store holds none\n");
    else if (failed)
        fprintf(stderr, "virtperf: push: %zu of %zu run(s) not pushed (above); pushing again "
                "adds only what is missing\n", failed, list.count);
    vp_store_close(site);
    free(list.ids);
    return failed ? 1 : 0;
}
