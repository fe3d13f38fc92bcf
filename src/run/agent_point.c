/* One point of an agent of the run (see agent_point.h). */
#include "run/agent_point.h"

#include "core/options.h"
#include "engine/gather.h"
#include "env/transport.h"

int vp_agent_run_point(int fd, const struct vp_run_steps *steps, size_t index,
                       size_t point_index, unsigned jobs, const struct vp_agent_link *link,
                       char *err, size_t err_len)
{
    const struct vp_run_step *step = &steps->step[index];
    const struct vp_plan_point *point = &step->plan.points[point_index];
    struct vp_params params = point->params;
    if (link && (vp_params_set(&params, "peer", link->peer, err, err_len) != 0 ||
                 vp_params_set(&params, "key-file", link->key_file, err, err_len) != 0 ||
                 vp_params_set(&params, "reverse", link->reverse ? "on" : NULL, err,
                               err_len) != 0))
        return -1;
    struct vp_channel_transport channel;
    vp_channel_transport_follow(&channel, &fd);
    struct vp_run_settings settings = vp_run_settings_of(step, steps->topology, NULL);
    return vp_gather_follow(&channel.transport, point, &params, jobs ? jobs : point->jobs,
                            &settings, false, err, err_len);
}
