/* A step of the fleet that fills the host (--guests A..auto; fill.h decides the counts):
 * each count's points measured in that many members, started as the counts grow; each
 * count judged as virtperf scaling judges a sweep (the QoS rule against the first
 * count), on this host's CPUs (no idle time left) and on its free memory (--keep-free,
 * now, and for the members another count would add, at what each running one holds).
 * Every result carries its count's verdict; the last, the optimum and what stopped it. */
#include "run/fleet_run.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/scaling.h"
#include "core/json.h"
#include "core/procfs.h"
#include "core/units.h"
#include "run/fill.h"

/* The share of this host's memory a fill keeps free when --keep-free is not given. */
#define DEFAULT_KEEP_FREE_SHARE 0.10

/* A figure of /proc/meminfo ("MemAvailable"), bytes; 0 when it cannot be read. */
static uint64_t meminfo_bytes(const char *key)
{
    struct vp_text meminfo = { 0 };
    unsigned long long kb = 0;
    if (vp_read_whole("/proc/meminfo", &meminfo) == 0) {
        const char *line = strstr(meminfo.data, key);
        if (line && line[strlen(key)] == ':')
            sscanf(line + strlen(key) + 1, "%llu", &kb);
    }
    vp_text_free(&meminfo);
    return (uint64_t)kb * 1024;
}

struct fill_state {
    struct vp_fill fill;
    const struct vp_qos *qos;
    uint64_t keep_free;
    const char *noun; /* "guest" */
    json_t *measured; /* every ok result of the fill so far */
    char stop_reason[512];
};

static const char *plural(const struct fill_state *state, unsigned count)
{
    static char noun[64];
    snprintf(noun, sizeof noun, "%s%s", state->noun, count == 1 ? "" : "s");
    return noun;
}

/* Whether count broke the QoS rule on a headline metric of the fill's results (why
 * said): as `virtperf scaling` judges a sweep by default, the first metric of each
 * benchmark and those with a latency distribution (net.rr's latency, not the CPU its
 * client used: a cost, which the fill's CPU and memory stops judge, not a service). */
static bool breaks_rule(const struct fill_state *state, unsigned count, char *why, size_t len)
{
    json_t *run = json_pack("{s:O}", "results", state->measured);
    char ignored[256]; /* one count alone is no sweep: nothing to judge against yet */
    const struct vp_scaling_metrics headlines = { .count = 0 };
    json_t *scaling = vp_scaling(run, state->qos, &headlines, ignored, sizeof ignored);
    json_decref(run);
    bool broke = false;
    size_t g, p;
    const json_t *group, *point;
    json_array_foreach(json_object_get(scaling, "groups"), g, group) {
        if (json_integer_value(json_object_get(group, "knee_hosts")) >= count)
            continue;
        json_array_foreach(json_object_get(group, "points"), p, point) {
            if (json_integer_value(json_object_get(point, "hosts")) != count || broke)
                continue;
            const char *unit = json_string_value(json_object_get(group, "unit"));
            char value[48], first[48]; /* this count's, the first count's (points in order) */
            vp_format_value(vp_json_number(point, "judged"), unit, VP_UNITS_FIELD, value,
                            sizeof value);
            vp_format_value(vp_json_number(json_array_get(json_object_get(group, "points"), 0),
                                           "judged"),
                            unit, VP_UNITS_FIELD, first, sizeof first);
            snprintf(why, len, "%s %s%s %s at %u %s, against %s (%s)",
                     json_string_value(json_object_get(group, "bench")),
                     json_string_value(json_object_get(group, "metric")),
                     strcmp(json_string_value(json_object_get(group, "judged")), "p99") == 0
                         ? " p99" : " per job",
                     value, count, plural(state, count),
                     json_string_value(json_object_get(group, "rule")), first);
            broke = true;
        }
    }
    json_decref(scaling);
    return broke;
}

/* The verdict on count from its results (this count's, every point's), why said; the
 * most a member held of this host's memory over them into *member_bytes (0: not known). */
static enum vp_fill_stop judge(struct fill_state *state, unsigned count, const json_t *results,
                               double *member_bytes, char *why, size_t len)
{
    double idle = INFINITY;
    *member_bytes = 0;
    size_t i;
    const json_t *result;
    json_array_foreach(results, i, result) {
        json_t *costs = vp_scaling_point_costs(result);
        double its_idle = vp_json_number(costs, "cpu_idle");
        double held = vp_json_number(costs, "member_memory_bytes");
        idle = isfinite(its_idle) && its_idle < idle ? its_idle : idle;
        *member_bytes = isfinite(held) && held > *member_bytes ? held : *member_bytes;
        json_decref(costs);
    }
    if (breaks_rule(state, count, why, len))
        return VP_FILL_RULE;
    if (idle < 5) {
        snprintf(why, len, "this host's CPUs %.1f%% idle at %u %s (under 5%%)", idle, count,
                 plural(state, count));
        return VP_FILL_CPU;
    }
    uint64_t available = meminfo_bytes("MemAvailable");
    if (available < state->keep_free) {
        char free_text[32], keep[32];
        vp_format_value((double)available, "B", VP_UNITS_IEC, free_text, sizeof free_text);
        vp_format_value((double)state->keep_free, "B", VP_UNITS_IEC, keep, sizeof keep);
        snprintf(why, len, "%s available at %u %s, under --keep-free %s", free_text, count,
                 plural(state, count), keep);
        return VP_FILL_MEMORY;
    }
    snprintf(why, len, "held at %u %s", count, plural(state, count));
    return VP_FILL_GOING;
}

/* How many more members this host's memory has room for, each holding member_bytes;
 * -1u when what one holds is not known. */
static unsigned room_for(const struct fill_state *state, double member_bytes, char *why,
                         size_t len)
{
    if (member_bytes <= 0)
        return -1u;
    uint64_t available = meminfo_bytes("MemAvailable");
    double spare = available > state->keep_free ? (double)(available - state->keep_free) : 0;
    double room = floor(spare / member_bytes);
    char each[32], keep[32];
    vp_format_value(member_bytes, "B", VP_UNITS_IEC, each, sizeof each);
    vp_format_value((double)state->keep_free, "B", VP_UNITS_IEC, keep, sizeof keep);
    snprintf(why, len, "another %s (%s each, as the running ones hold) would leave less than "
             "--keep-free %s", state->noun, each, keep);
    return room > VP_MAX_GUESTS ? (unsigned)VP_MAX_GUESTS : (unsigned)room;
}

/* Marks each of count's results with its verdict, and with the fill's end when done. */
static void mark(struct fill_state *state, json_t *results, unsigned count,
                 enum vp_fill_stop verdict, const char *why, bool done)
{
    size_t i;
    json_t *result;
    json_array_foreach(results, i, result) {
        json_t *fill = json_pack("{s:I,s:s,s:s,s:I}", "count", (json_int_t)count, "verdict",
                                 verdict == VP_FILL_GOING ? "held" : vp_fill_stop_key(verdict),
                                 "why", why, "keep_free_bytes", (json_int_t)state->keep_free);
        if (done) {
            json_object_set_new(fill, "optimum", json_integer(state->fill.good));
            json_object_set_new(fill, "stopped", json_string(vp_fill_stop_key(state->fill.why)));
            json_object_set_new(fill, "reason", json_string(state->stop_reason));
        }
        json_object_set_new(result, "fill", fill);
    }
}

/* The count's every point in that many members: their results (the members' side), in
 * *results; whether the run stopped. */
static bool measure(struct fleet_run *run, const struct vp_run_steps *steps, size_t index,
                    unsigned count, struct vp_run_settings *settings, json_t *results)
{
    const struct vp_run_step *step = &steps->step[index];
    bool stopped = false;
    for (size_t p = 0; p < step->plan.count && !stopped; p++) {
        const struct vp_plan_point *point = &step->plan.points[p];
        settings->pin_spec = point->pin;
        settings->reps = point->reps;
        settings->warmup = point->warmup;
        json_t *sides[VP_MAX_GROUPS + 1] = { NULL }; /* no host side: refused with a fill */
        vp_fleet_run_point(run, steps, index, p, count, NULL, settings, false, sides, &stopped);
        if (sides[1])
            json_array_append_new(results, sides[1]);
    }
    return stopped;
}

bool vp_fleet_fill_step(struct fleet_run *run, const struct vp_run_steps *steps, size_t index,
                        struct vp_run_session *session, struct vp_progress *progress,
                        unsigned first, unsigned most)
{
    const struct vp_run_step *step = &steps->step[index];
    const struct vp_guests_request *asked = run->groups[0].asked;
    struct fill_state state = {
        .qos = &asked->qos, .noun = run->kind->env->noun, .measured = json_array(),
        .keep_free = asked->keep_free
                         ? asked->keep_free
                         : (uint64_t)(DEFAULT_KEEP_FREE_SHARE * (double)meminfo_bytes("MemTotal")),
    };
    vp_fill_begin(&state.fill, first, most);
    struct vp_run_settings settings = vp_run_settings_of(step, steps->topology, progress);
    bool stopped = false;
    char room_why[512] = "";
    unsigned count = vp_fill_next(&state.fill, -1u);
    while (count && !stopped) {
        char err[VP_PATH_ERROR_LEN];
        if (count > run->started && vp_fleet_start_more(run, steps, count, err, sizeof err) != 0) {
            fprintf(stderr, "virtperf: %s\n", err);
            session->any_failed = true;
            break;
        }
        json_t *results = json_array();
        stopped = measure(run, steps, index, count, &settings, results);
        enum vp_fill_stop verdict = VP_FILL_GOING;
        char why[512] = "";
        bool all_ok = json_array_size(results) > 0;
        size_t i;
        json_t *result;
        json_array_foreach(results, i, result) {
            const char *status = json_string_value(json_object_get(result, "status"));
            all_ok = all_ok && status && strcmp(status, "ok") == 0;
        }
        unsigned next = 0;
        if (!stopped && all_ok) {
            json_array_extend(state.measured, results);
            double member_bytes;
            verdict = judge(&state, count, results, &member_bytes, why, sizeof why);
            vp_fill_judged(&state.fill, verdict);
            if (verdict != VP_FILL_GOING && !state.stop_reason[0])
                snprintf(state.stop_reason, sizeof state.stop_reason, "%s", why);
            unsigned room = verdict == VP_FILL_GOING
                                ? room_for(&state, member_bytes, room_why, sizeof room_why)
                                : -1u;
            next = vp_fill_next(&state.fill, room);
            if (!next && !state.stop_reason[0])
                snprintf(state.stop_reason, sizeof state.stop_reason, "%s",
                         state.fill.why == VP_FILL_MOST ? "the most SPEC allows held" : room_why);
            mark(&state, results, count, verdict, why, next == 0);
        }
        json_array_foreach(results, i, result) {
            json_incref(result); /* vp_fleet_keep_results takes one reference */
            vp_fleet_keep_results(session, step, &result, 1);
        }
        json_decref(results);
        if (!next && !stopped && all_ok)
            fprintf(session->table, "fill%s%s: optimum %u %s; stopped by %s: %s\n",
                    step->name ? " " : "", step->name ? step->name : "", state.fill.good,
                    plural(&state, state.fill.good), vp_fill_stop_name(state.fill.why),
                    state.stop_reason);
        count = next;
    }
    json_decref(state.measured);
    return stopped;
}
