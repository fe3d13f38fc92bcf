/* Load and idle policy around a timing result (see conditions.h). */
#include "bench/conditions.h"

#include "core/idle.h"
#include "core/load.h"

static bool offers(const struct vp_params *params, const char *option)
{
    return vp_params_find(params, option) >= 0;
}

int vp_conditions_setup(const struct vp_params *params, char *err, size_t err_len)
{
    if (offers(params, "hold-latency") && vp_param_on(params, "hold-latency") &&
        vp_idle_hold_zero(err, err_len) != 0)
        return -1;
    if (offers(params, "load") &&
        vp_load_start(vp_param_text(params, "load"),
                      (unsigned)vp_param_number(params, "load-jobs"), err, err_len) != 0) {
        vp_idle_release();
        return -1;
    }
    return 0;
}

void vp_conditions_annotate(const struct vp_params *params, unsigned jobs, json_t *result)
{
    (void)jobs;
    if (vp_load_running() > 0)
        json_object_set_new(result, "load", json_pack("{s:s,s:I}", "kind",
                                                      vp_param_text(params, "load"), "processes",
                                                      (json_int_t)vp_load_running()));
    json_t *idle = vp_idle_policy();
    json_object_set_new(idle, "held", json_boolean(vp_idle_holding()));
    json_object_set_new(result, "idle", idle);
}

void vp_conditions_teardown(const struct vp_params *params, unsigned jobs)
{
    (void)params;
    (void)jobs;
    vp_load_stop();
    vp_idle_release();
}
