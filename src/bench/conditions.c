/* Load and idle policy around a timing result (see conditions.h). */
#include "bench/conditions.h"

#include "core/idle.h"
#include "core/load.h"
#include "core/json_check.h"

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

/* The background load a result ran under: {"kind": cpu|mem|io, "processes": N}. */
static int check_load(struct vp_check *checker, const json_t *load, const char *path)
{
    static const char *const kinds[] = { "cpu", "mem", "io", NULL };
    char at[256];
    snprintf(at, sizeof at, "%s.load", path);
    if (!json_is_object(load))
        return vp_check_fail(checker, "%s: accepted: an object", at);
    if (vp_check_choice(checker, load, at, "kind", kinds, 1) != 0 ||
        vp_check_integer(checker, load, at, "processes", 1, 1024, 1) != 0)
        return -1;
    return 0;
}

/* The CPU idle policy a timing result ran under (core/idle.h). */
static int check_idle(struct vp_check *checker, const json_t *idle, const char *path)
{
    char at[256];
    snprintf(at, sizeof at, "%s.idle", path);
    if (!json_is_object(idle) || !json_is_boolean(json_object_get(idle, "held")))
        return vp_check_fail(checker, "%s: accepted: an object with \"held\": true or false", at);
    if (vp_check_string(checker, idle, at, "driver", VP_CHECK_NAME_LEN, 0) != 0 ||
        vp_check_integer(checker, idle, at, "latency_request_us", 0, INT32_MAX, 0) != 0)
        return -1;
    const json_t *states = json_object_get(idle, "states");
    if (!states)
        return 0;
    if (!json_is_array(states) || json_array_size(states) > 64)
        return vp_check_fail(checker, "%s.states: accepted: an array of at most 64 states", at);
    size_t i;
    const json_t *state;
    json_array_foreach(states, i, state) {
        char entry[300];
        snprintf(entry, sizeof entry, "%s.states[%zu]", at, i);
        if (!json_is_object(state) || !json_is_boolean(json_object_get(state, "disabled")))
            return vp_check_fail(checker, "%s: accepted: {\"name\", \"latency_us\", \"disabled\"}", entry);
        if (vp_check_string(checker, state, entry, "name", VP_CHECK_NAME_LEN, 1) != 0 ||
            vp_check_integer(checker, state, entry, "latency_us", 0, INT32_MAX, 1) != 0)
            return -1;
    }
    return 0;
}

static void print_idle(FILE *out, const json_t *idle, enum vp_unit_style style)
{
    (void)style;
    char policy[160];
    vp_idle_describe(idle, policy, sizeof policy);
    fprintf(out, "  idle policy: %s\n", policy);
}

static const struct vp_result_part load_part = { "load", check_load, NULL };
static const struct vp_result_part idle_part = { "idle", check_idle, print_idle };
const struct vp_result_part *const vp_condition_parts[] = { &load_part, &idle_part, NULL };
