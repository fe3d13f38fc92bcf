/* A result's "hypervisors" part (virtperf-mpi with --guests or --containers: every rank a
 * hypervisor, mpi/members.h): each rank that started members, with its aggregate of them,
 * [{"rank", "host", "members", "first_member", "status", "error"?, "clock_offset_s" and
 * "clock_bound_s" (its clock to rank 0's, which each member's composes), "metrics": {NAME:
 * {"unit", "mean", "min", "max"}}, "monitor": {COLUMN: {"mean", "max"}} (the host's own,
 * over the point), "guests"?: what its members cost it (the "guests" part)}]; checked on
 * import, a line each under the result's table. */
#include <stdio.h>

#include "core/limits.h"
#include "core/printable.h"
#include "core/units.h"
#include "engine/parts.h"

/* An object of at most most names, each an object whose keys (NULL-ended) are finite
 * numbers where present. */
static int check_figures(struct vp_check *checker, const json_t *figures, const char *at,
                         size_t most, const char *const *keys)
{
    if (!figures)
        return 0;
    if (!json_is_object(figures) || json_object_size(figures) > most)
        return vp_check_fail(checker, "%s: accepted: an object of at most %zu figures", at, most);
    const char *name;
    const json_t *figure;
    json_object_foreach((json_t *)figures, name, figure) {
        char figure_at[400];
        snprintf(figure_at, sizeof figure_at, "%.300s.%.64s", at, name);
        if (!vp_check_is_name(name) || !json_is_object(figure))
            return vp_check_fail(checker, "%s: accepted: a name of 1-64 of A-Z a-z 0-9 . _ - "
                                 "and an object", figure_at);
        for (size_t k = 0; keys[k]; k++)
            if (vp_check_number(checker, figure, figure_at, keys[k], -1e300, 1e300, 0) != 0)
                return -1;
        if (vp_check_string(checker, figure, figure_at, "unit", 16, 0) != 0)
            return -1;
    }
    return 0;
}

static int check_hypervisors(struct vp_check *checker, const json_t *list, const char *path)
{
    static const char *const statuses[] = { "ok", "failed", "interrupted", NULL };
    static const char *const metric_keys[] = { "mean", "min", "max", NULL };
    static const char *const column_keys[] = { "mean", "max", NULL };
    char at[300];
    snprintf(at, sizeof at, "%.200s.hypervisors", path);
    if (!json_is_array(list) || json_array_size(list) > VP_MAX_RANKS)
        return vp_check_fail(checker, "%s: accepted: an array of at most %d hosts", at,
                             VP_MAX_RANKS);
    size_t i;
    const json_t *host;
    json_array_foreach(list, i, host) {
        char host_at[340], part_at[380];
        snprintf(host_at, sizeof host_at, "%s[%zu]", at, i);
        if (!json_is_object(host))
            return vp_check_fail(checker, "%s: accepted: an object", host_at);
        if (vp_check_integer(checker, host, host_at, "rank", 0, VP_MAX_RANKS - 1, 1) != 0 ||
            vp_check_string(checker, host, host_at, "host", 255, 1) != 0 ||
            vp_check_integer(checker, host, host_at, "members", 1, VP_MAX_GUESTS, 1) != 0 ||
            vp_check_integer(checker, host, host_at, "first_member", 1,
                             (json_int_t)VP_MAX_RANKS * VP_MAX_GUESTS, 1) != 0 ||
            vp_check_choice(checker, host, host_at, "status", statuses, 1) != 0 ||
            vp_check_string(checker, host, host_at, "error", VP_CHECK_TEXT_LEN, 0) != 0 ||
            vp_check_number(checker, host, host_at, "clock_offset_s", -1e12, 1e12, 0) != 0 ||
            vp_check_number(checker, host, host_at, "clock_bound_s", 0, 1e9, 0) != 0)
            return -1;
        snprintf(part_at, sizeof part_at, "%s.metrics", host_at);
        if (check_figures(checker, json_object_get(host, "metrics"), part_at, 64,
                          metric_keys) != 0)
            return -1;
        snprintf(part_at, sizeof part_at, "%s.monitor", host_at);
        if (check_figures(checker, json_object_get(host, "monitor"), part_at, 512,
                          column_keys) != 0)
            return -1;
        const json_t *guests = json_object_get(host, "guests");
        if (guests && vp_result_part_find("guests")->check(checker, guests, host_at) != 0)
            return -1;
    }
    return 0;
}

/* "  hypervisor rank 1 (HOST): members 3-4 ok, score 1.2 G/s, cpu busy 98% steal 0.0%" */
static void print_hypervisors(FILE *out, const json_t *list, enum vp_unit_style style)
{
    size_t i;
    const json_t *host;
    json_array_foreach(list, i, host) { /* checked */
        char name[300];
        json_int_t members = json_integer_value(json_object_get(host, "members"));
        json_int_t first = json_integer_value(json_object_get(host, "first_member"));
        fprintf(out, "  hypervisor rank %lld (%s): member%s %lld",
                (long long)json_integer_value(json_object_get(host, "rank")),
                vp_printable(json_string_value(json_object_get(host, "host")), name, sizeof name),
                members > 1 ? "s" : "", (long long)first);
        if (members > 1)
            fprintf(out, "-%lld", (long long)(first + members - 1));
        fprintf(out, " %s", json_string_value(json_object_get(host, "status")));
        const char *metric;
        const json_t *figures;
        json_object_foreach(json_object_get(host, "metrics"), metric, figures) {
            char value[32];
            vp_format_value(json_number_value(json_object_get(figures, "mean")),
                            json_string_value(json_object_get(figures, "unit")), style, value,
                            sizeof value);
            fprintf(out, ", %s %s", metric, value);
            break; /* the headline */
        }
        const json_t *monitor = json_object_get(host, "monitor");
        const json_t *busy = json_object_get(json_object_get(monitor, "cpu.busy"), "mean");
        if (json_is_number(busy))
            fprintf(out, ", cpu busy %.0f%% steal %.1f%%", json_number_value(busy),
                    json_number_value(json_object_get(json_object_get(monitor, "cpu.steal"),
                                                      "mean")));
        const char *error = json_string_value(json_object_get(host, "error"));
        if (error) {
            char shown[VP_CHECK_TEXT_LEN];
            fprintf(out, ": %s", vp_printable(error, shown, sizeof shown));
        }
        fputc('\n', out);
    }
}

const struct vp_result_part vp_part_hypervisors = { "hypervisors", check_hypervisors,
                                                    print_hypervisors };
