/* scaling's table (scaling_table.h). */
#include "render/scaling_table.h"

#include <stdbool.h>
#include <string.h>

#include "render/words.h"
#include "core/json.h"
#include "core/units.h"

static const char *plural(long long count)
{
    return count == 1 ? "" : "s";
}

static void print_group(FILE *out, const json_t *group,
                        enum vp_unit_style units)
{
    const char *unit = json_string_value(json_object_get(group, "unit"));
    enum vp_unit_style style = vp_json_unit_style(group, units);
    bool by_p99 = strcmp(json_string_value(json_object_get(group, "judged")), "p99") == 0;
    const char *params = vp_json_text(group, "params_shown");
    const char *side = json_string_value(json_object_get(group, "side"));
    const char *members = json_string_value(json_object_get(group, "members"));
    if (!members)
        members = "hosts"; /* a document scaled before it said */
    fprintf(out, "%s%s%s %s (%s is better)%s%s%s\n",
            json_string_value(json_object_get(group, "bench")), params[0] ? " " : "", params,
            json_string_value(json_object_get(group, "metric")),
            json_string_value(json_object_get(group, "better")), side ? ", side: " : "",
            !side ? "" : strcmp(side, "host") == 0 ? "this host's jobs" : "the jobs in the ",
            side && strcmp(side, "host") != 0 ? members : "");
    bool counted = json_object_get(group, "knee_hosts") != NULL; /* a --ranks or members sweep */
    char count_head[16] = "";
    if (counted)
        snprintf(count_head, sizeof count_head, "%10s ", members);
    /* a members sweep: what each member held of the host's memory */
    bool held = counted && json_object_get(json_array_get(json_object_get(group, "points"), 0),
                                           "member_memory_bytes");
    fprintf(out, "  %s%5s %14s %14s %10s %9s %9s %12s %14s%s\n", count_head, "jobs", "aggregate",
            "per job", "efficiency", "fairness", "cpu idle", "host net",
            by_p99 ? "p99 (judged)" : "judged", held ? "  mem/member" : "");
    size_t i;
    const json_t *point;
    json_array_foreach(json_object_get(group, "points"), i, point) {
        char aggregate[32], per_job[32], judged[32] = "-";
        vp_format_value(json_number_value(json_object_get(point, "aggregate")), unit, style, aggregate,
                        sizeof aggregate);
        vp_format_value(json_number_value(json_object_get(point, "per_job")), unit, style, per_job,
                        sizeof per_job);
        const json_t *judged_value = json_object_get(point, "judged");
        if (json_is_number(judged_value))
            vp_format_value(json_number_value(judged_value), unit, style, judged, sizeof judged);
        const json_t *idle = json_object_get(point, "cpu_idle");
        char idle_text[16] = "-", count_text[32] = ""; /* idle unknown: no monitor */
        if (idle)
            snprintf(idle_text, sizeof idle_text, "%.1f%%", json_number_value(idle));
        char network[32] = "-"; /* the monitor's NIC load: every counted interface, in + out */
        if (json_is_number(json_object_get(point, "nic_rate")))
            vp_format_value(vp_json_number(point, "nic_rate"), "B/s", units, network, sizeof network);
        const json_t *per_host = json_object_get(point, "per_host"); /* virtperf-mpi's hosts */
        if (counted && per_host) {
            char both[24];
            snprintf(both, sizeof both, "%.0f (%lld/host)", vp_json_number(point, "hosts"),
                     (long long)json_integer_value(per_host));
            snprintf(count_text, sizeof count_text, "%10s ", both);
        } else if (counted) {
            snprintf(count_text, sizeof count_text, "%10.0f ", vp_json_number(point, "hosts"));
        }
        char memory[32] = "";
        if (held && json_is_number(json_object_get(point, "member_memory_bytes"))) {
            char value[24];
            vp_format_value(vp_json_number(point, "member_memory_bytes"), "B", VP_UNITS_IEC,
                            value, sizeof value);
            snprintf(memory, sizeof memory, "  %10s", value);
        }
        fprintf(out, "  %s%5.0f %14s %14s %9.0f%% %9.3f %9s %12s %14s%s\n", count_text,
               json_number_value(json_object_get(point, "jobs")), aggregate, per_job,
               100 * json_number_value(json_object_get(point, "efficiency")),
               json_number_value(json_object_get(point, "fairness")), idle_text, network, judged,
               memory);
    }
    long long knee = (long long)json_integer_value(json_object_get(group, "knee_jobs"));
    const json_t *knee_hosts = json_object_get(group, "knee_hosts");
    char optimum[48];
    if (knee_hosts) { /* a --ranks or members sweep */
        vp_members_counted(members, (long long)json_integer_value(knee_hosts), false, optimum,
                           sizeof optimum);
        fprintf(out, "  optimum %s, %lld job%s in all (QoS: %s)", optimum, knee, plural(knee),
                json_string_value(json_object_get(group, "rule")));
    } else
        fprintf(out, "  optimum %lld job%s per host (QoS: %s)", knee, plural(knee),
               json_string_value(json_object_get(group, "rule")));
    const json_t *saturated = json_object_get(group, "saturated_from");
    if (saturated)
        fprintf(out, "; no idle CPU left from %lld job%s", (long long)json_integer_value(saturated),
               plural(json_integer_value(saturated)));
    fprintf(out, "\n\n");
}

void vp_print_scaling(FILE *out, const json_t *scaling, enum vp_unit_style units)
{
    size_t i;
    const json_t *group;
    json_array_foreach(json_object_get(scaling, "groups"), i, group)
        print_group(out, group, units);
}
