/* A many-host point's parts received and combined on its leader (gather.h). */
#include "engine/gather.h"

#include <stdio.h>
#include <stdlib.h>

#include "engine/shared_check.h"

/* The leader's own part: its result, and its jobs' region where it kept one. */
static void take_own(struct vp_host_part *part, struct vp_shared *view,
                     const struct vp_together *together, const struct vp_plan_point *point,
                     json_t *own, double duration)
{
    part->result = json_incref(own);
    if (!together->region)
        return;
    vp_shared_layout(view, point->bench, &point->params, together->region_jobs,
                     point->warmup + point->reps, duration);
    vp_shared_attach(view, together->region);
    part->shared = view;
}

void vp_gather_receive(const struct vp_together *together, const struct vp_plan_point *point,
                       double duration, int64_t began_ns, const struct vp_gather_who *who,
                       size_t count, bool receiving, vp_gather_check *check,
                       struct vp_gathered *gathered)
{
    *gathered = (struct vp_gathered){ .count = count, .lost = -1 };
    gathered->part = calloc(count ? count : 1, sizeof *gathered->part);
    gathered->view = calloc(count ? count : 1, sizeof *gathered->view);
    gathered->region = calloc(count ? count : 1, sizeof *gathered->region);
    if (!gathered->part || !gathered->view || !gathered->region)
        abort();
    for (size_t i = 0; i < count; i++) {
        struct vp_host_part *part = &gathered->part[i];
        *part = (struct vp_host_part){
            .rank = who[i].rank, .fingerprint = who[i].fingerprint,
            .clock_offset_ns = together->offsets ? together->offsets[who[i].peer] : 0,
            .offset_bound_ns = together->bounds ? together->bounds[who[i].peer] : 0 };
        if (who[i].own) {
            take_own(part, &gathered->view[i], together, point, who[i].own, duration);
            continue;
        }
        if (!receiving)
            continue;
        char *text = NULL;
        size_t region_len = 0;
        if (vp_together_receive_part(together, who[i].peer, vp_shared_most(point, 0, duration),
                                     &text, &gathered->region[i], &region_len,
                                     gathered->reason, sizeof gathered->reason) != 0) {
            receiving = false;
            gathered->lost = (int)i;
            continue;
        }
        part->result = check(who[i].name, text);
        free(text);
        if (!vp_shared_take(who[i].name, point, duration, began_ns, part, &gathered->view[i],
                            gathered->region[i], region_len)) {
            free(gathered->region[i]);
            gathered->region[i] = NULL;
        }
    }
}

json_t *vp_gather_combine_some(const struct vp_gathered *gathered, size_t first, size_t count,
                               const struct vp_together *together,
                               const struct vp_plan_point *point, const struct vp_params *params,
                               const struct vp_run_settings *settings)
{
    /* without op logs, or for some of the parts only (the rates are the whole point's),
     * no stonewalled rates: zeros, which combine leaves out */
    bool rates = together->stonewall && first == 0 && count == gathered->count;
    unsigned measured = point->reps ? point->reps : 1;
    double *no_rates = rates ? NULL : calloc(2 * (size_t)measured, sizeof *no_rates);
    json_t *result = vp_combine_hosts(point->bench, params, point->jobs, settings,
                                      gathered->part + first, count,
                                      no_rates ? no_rates : together->stonewall,
                                      no_rates ? no_rates + measured : together->span);
    free(no_rates);
    return result;
}

json_t *vp_gather_combine(struct vp_gathered *gathered, const struct vp_together *together,
                          const struct vp_plan_point *point, const struct vp_params *params,
                          const struct vp_run_settings *settings)
{
    json_t *result = vp_gather_combine_some(gathered, 0, gathered->count, together, point,
                                            params, settings);
    vp_gather_free(gathered);
    return result;
}

void vp_gather_free(struct vp_gathered *gathered)
{
    for (size_t i = 0; i < gathered->count; i++) {
        json_decref(gathered->part[i].result);
        free(gathered->region[i]);
    }
    free(gathered->part);
    free(gathered->view);
    free(gathered->region);
    *gathered = (struct vp_gathered){ .lost = -1 };
}

int vp_gather_follow(const struct vp_together_transport *transport,
                     const struct vp_plan_point *point, const struct vp_params *params,
                     unsigned jobs, struct vp_run_settings *settings, bool barrier, char *err,
                     size_t err_len)
{
    struct vp_together together;
    if (vp_together_begin(&together, transport, point->bench->ops_per_rep != NULL, barrier,
                          point->warmup, point->warmup + point->reps, err, err_len) != 0) {
        vp_together_end(&together);
        return -1;
    }
    settings->pin_spec = point->pin;
    settings->reps = point->reps;
    settings->warmup = point->warmup;
    settings->sync = &together.sync;
    json_t *result = vp_engine_run(point->bench, params, jobs, settings);
    settings->sync = NULL;
    char *text = json_dumps(result, JSON_COMPACT);
    json_decref(result);
    int status = vp_together_send_part(&together, text, err, err_len);
    free(text);
    vp_together_end(&together);
    return status;
}
