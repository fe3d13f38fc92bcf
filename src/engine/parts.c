/* The result parts the engine itself makes (intervals, timeline) and the one list of
 * every part, the engine's and each benchmark's (parts.h). */
#include "engine/parts.h"

#include <string.h>

#include "bench/bench.h"
#include "core/guest_devices.h"
#include "core/member_engines.h"
#include "core/json.h"
#include "core/limits.h"
#include "core/printable.h"
#include "core/side_name.h"
#include "core/units.h"

/* Per-second byte counts of each repetition. */
static int check_intervals(struct vp_check *checker, const json_t *intervals,
                           const char *path)
{
    char at[256];
    snprintf(at, sizeof at, "%s.intervals", path);
    if (!json_is_object(intervals))
        return vp_check_fail(checker, "%s: accepted: an object", at);
    if (vp_check_number(checker, intervals, at, "interval_s", 0.001, 3600, 1) != 0 ||
        vp_check_string(checker, intervals, at, "unit", 16, 1) != 0 ||
        vp_check_string(checker, intervals, at, "what", VP_CHECK_TEXT_LEN, 1) != 0)
        return -1;
    const json_t *reps = json_object_get(intervals, "reps");
    if (!json_is_array(reps) || json_array_size(reps) > VP_MAX_REPS)
        return vp_check_fail(checker, "%s.reps: accepted: an array of at most %d series", at, VP_MAX_REPS);
    size_t i;
    const json_t *series;
    json_array_foreach(reps, i, series) {
        char series_at[300];
        size_t count;
        snprintf(series_at, sizeof series_at, "%s.reps[%zu]", at, i);
        if (vp_check_number_array(checker, series, series_at, 100000, &count) != 0)
            return -1;
    }
    return 0;
}

/* The last repetition's per-second figures, on one line. */
static void print_intervals(FILE *out, const json_t *intervals, enum vp_unit_style style)
{
    const json_t *reps = json_object_get(intervals, "reps");
    if (json_array_size(reps) == 0)
        return;
    const json_t *last = json_array_get(reps, json_array_size(reps) - 1);
    fprintf(out, "  per second (last repetition):");
    size_t i;
    const json_t *value;
    json_array_foreach(last, i, value) {
        char rate[32];
        vp_format_value(json_number_value(value),
                        json_string_value(json_object_get(intervals, "unit")), style, rate,
                        sizeof rate);
        fprintf(out, " %s", rate);
    }
    fputc('\n', out);
}

/* A watch's events over time, one object per job (net.probe): the gaps it saw with their
 * direction and instants, and the largest round trip of each step. */
static int check_timeline(struct vp_check *checker, const json_t *timeline, const char *path)
{
    static const char *const directions[] = { "round_trip", "to_peer", "from_peer", NULL };
    if (!json_is_array(timeline) || json_array_size(timeline) > VP_MAX_JOBS)
        return vp_check_fail(checker, "%s.timeline: accepted: an array of at most %d objects", path,
                    VP_MAX_JOBS);
    size_t j, g;
    const json_t *entry, *gap;
    json_array_foreach(timeline, j, entry) {
        char at[300], gap_at[340];
        size_t count;
        snprintf(at, sizeof at, "%.200s.timeline[%zu]", path, j);
        if (!json_is_object(entry))
            return vp_check_fail(checker, "%s: accepted: an object", at);
        if (vp_check_integer(checker, entry, at, "job", 0, VP_MAX_JOBS - 1, 1) != 0 ||
            vp_check_string(checker, entry, at, "start_utc", 64, 1) != 0 ||
            vp_check_number(checker, entry, at, "period_s", 0, 3600, 1) != 0 ||
            vp_check_number(checker, entry, at, "step_s", 0.001, 3600, 1) != 0 ||
            vp_check_integer(checker, entry, at, "out_of_order", 0, INT64_MAX, 1) != 0 ||
            vp_check_integer(checker, entry, at, "duplicates", 0, INT64_MAX, 1) != 0)
            return -1;
        snprintf(gap_at, sizeof gap_at, "%s.rtt_max_s", at);
        if (vp_check_number_array(checker, json_object_get(entry, "rtt_max_s"), gap_at, 100000,
                               &count) != 0)
            return -1;
        static const char *const odd_kinds[] = { "out_of_order_answers", "duplicate_answers" };
        for (size_t k = 0; k < 2; k++) {
            const json_t *odd = json_object_get(entry, odd_kinds[k]), *item;
            size_t o;
            if (!odd)
                continue;
            if (!json_is_array(odd) || json_array_size(odd) > 64)
                return vp_check_fail(checker, "%s.%s: accepted: an array of at most 64 answers", at,
                            odd_kinds[k]);
            json_array_foreach(odd, o, item) {
                snprintf(gap_at, sizeof gap_at, "%s.%s[%zu]", at, odd_kinds[k], o);
                if (!json_is_object(item) ||
                    vp_check_integer(checker, item, gap_at, "sequence", 0, INT64_MAX, 1) != 0 ||
                    vp_check_number(checker, item, gap_at, "at_s", 0, 1e9, 1) != 0)
                    return json_is_object(item) ? -1 : vp_check_fail(checker, "%s: accepted: an object", gap_at);
            }
        }
        const json_t *gaps = json_object_get(entry, "gaps");
        if (!json_is_array(gaps) || json_array_size(gaps) > 3 * 64)
            return vp_check_fail(checker, "%s.gaps: accepted: an array of at most %d gaps", at, 3 * 64);
        json_array_foreach(gaps, g, gap) {
            snprintf(gap_at, sizeof gap_at, "%s.gaps[%zu]", at, g);
            if (!json_is_object(gap))
                return vp_check_fail(checker, "%s: accepted: an object", gap_at);
            if (vp_check_choice(checker, gap, gap_at, "direction", directions, 1) != 0 ||
                vp_check_number(checker, gap, gap_at, "start_s", -1e9, 1e9, 1) != 0 ||
                vp_check_string(checker, gap, gap_at, "start_utc", 64, 1) != 0 ||
                vp_check_number(checker, gap, gap_at, "length_s", 0, 1e9, 1) != 0)
                return -1;
        }
    }
    return 0;
}

/* The settings libvirt guests ran with (run/guests.c), where there are any. */
static int check_guest_settings(struct vp_check *checker, const json_t *settings,
                                const char *path)
{
    const char *buses[8], *nics[8];
    vp_guest_device_choices(VP_GUEST_DISK_BUS, buses, 8);
    vp_guest_device_choices(VP_GUEST_NIC, nics, 8);
    char at[300];
    snprintf(at, sizeof at, "%s.settings", path);
    if (!settings)
        return 0;
    if (!json_is_object(settings))
        return vp_check_fail(checker, "%s: accepted: an object", at);
    if (vp_check_integer(checker, settings, at, "cpus", 1, 1024, 1) != 0 ||
        vp_check_integer(checker, settings, at, "memory_mib", 1, (json_int_t)1 << 32, 1) != 0 ||
        vp_check_string(checker, settings, at, "pin", VP_CHECK_TEXT_LEN, 0) != 0 ||
        vp_check_integer(checker, settings, at, "cpu_cap_pct", 1, 100, 0) != 0 ||
        vp_check_integer(checker, settings, at, "cpu_cap_guest", 0, VP_MAX_GUESTS, 0) != 0 ||
        vp_check_choice(checker, settings, at, "disk_bus", buses, 0) != 0 ||
        vp_check_choice(checker, settings, at, "nic", nics, 0) != 0 ||
        vp_check_string(checker, settings, at, "kernel", VP_CHECK_TEXT_LEN, 0) != 0 ||
        vp_check_integer(checker, settings, at, "disk_mib", 1, (json_int_t)1 << 40, 0) != 0 ||
        vp_check_string(checker, settings, at, "net", VP_CHECK_NAME_LEN, 0) != 0 ||
        vp_check_string(checker, settings, at, "mount", VP_CHECK_TEXT_LEN, 0) != 0 ||
        vp_check_string(checker, settings, at, "mount_command", VP_CHECK_TEXT_LEN, 0) != 0)
        return -1;
    return 0;
}

/* The host's files their image carried beside virtperf (run/fleet_point.c), where there
 * were any: absolute paths. */
static int check_programs(struct vp_check *checker, const json_t *programs, const char *path)
{
    if (!programs)
        return 0;
    if (!json_is_array(programs) || json_array_size(programs) > 4096)
        return vp_check_fail(checker, "%s.programs: accepted: an array of at most 4096 paths",
                             path);
    size_t i;
    const json_t *program;
    json_array_foreach(programs, i, program) {
        const char *text = json_string_value(program);
        if (!text || text[0] != '/' || strlen(text) >= VP_CHECK_TEXT_LEN)
            return vp_check_fail(checker, "%s.programs[%zu]: accepted: an absolute path "
                                 "shorter than %d bytes", path, i, VP_CHECK_TEXT_LEN);
    }
    return 0;
}

/* The guests run --guests (or containers --containers) started for a result, seen from
 * the host: how many, the engine, kvm or tcg (and why not kvm), each one's time from its
 * start to its first word (ready_s) and its CPU here: a guest's QEMU in its vCPU threads
 * and in the rest, a container's cgroup. */
static int check_guests(struct vp_check *checker, const json_t *guests, const char *path)
{
    static const char *const accels[] = { "kvm", "tcg", NULL };
    const char *engines[8];
    vp_member_engine_choices(false, engines, 8);
    char at[256];
    snprintf(at, sizeof at, "%s.guests", path);
    if (!json_is_object(guests))
        return vp_check_fail(checker, "%s: accepted: an object", at);
    if (vp_check_integer(checker, guests, at, "count", 1, VP_MAX_GUESTS, 1) != 0 ||
        vp_check_choice(checker, guests, at, "engine", engines, 1) != 0 ||
        vp_check_string(checker, guests, at, "members", VP_CHECK_NAME_LEN, 0) != 0 ||
        vp_check_choice(checker, guests, at, "accel", accels, 0) != 0 ||
        vp_check_string(checker, guests, at, "accel_note", VP_CHECK_TEXT_LEN, 0) != 0 ||
        vp_check_number(checker, guests, at, "ready_p50_s", 0, 86400, 0) != 0 ||
        vp_check_number(checker, guests, at, "ready_p95_s", 0, 86400, 0) != 0 ||
        check_guest_settings(checker, json_object_get(guests, "settings"), at) != 0 ||
        check_programs(checker, json_object_get(guests, "programs"), at) != 0)
        return -1;
    const json_t *hosts = json_object_get(guests, "hosts");
    if (!json_is_array(hosts) || json_array_size(hosts) > VP_MAX_GUESTS)
        return vp_check_fail(checker, "%s.hosts: accepted: an array of at most %d guests", at,
                             VP_MAX_GUESTS);
    size_t i;
    const json_t *host;
    json_array_foreach(hosts, i, host) {
        char host_at[300];
        snprintf(host_at, sizeof host_at, "%s.hosts[%zu]", at, i);
        if (!json_is_object(host))
            return vp_check_fail(checker, "%s: accepted: an object", host_at);
        if (vp_check_string(checker, host, host_at, "name", VP_CHECK_NAME_LEN, 1) != 0 ||
            vp_check_integer(checker, host, host_at, "qemu_pid", 0, 1 << 30, 0) != 0 ||
            vp_check_number(checker, host, host_at, "cpu_pct", 0, 1e5, 0) != 0 ||
            vp_check_number(checker, host, host_at, "ready_s", 0, 86400, 0) != 0 ||
            vp_check_number(checker, host, host_at, "qemu_vcpu_cpu_pct", 0, 1e5, 0) != 0 ||
            vp_check_number(checker, host, host_at, "qemu_other_cpu_pct", 0, 1e5, 0) != 0 ||
            vp_check_number(checker, host, host_at, "qemu_rss_bytes", 0, 1e15, 0) != 0 ||
            vp_check_number(checker, host, host_at, "qemu_pss_bytes", 0, 1e15, 0) != 0 ||
            vp_check_number(checker, host, host_at, "guest_ram_pss_bytes", 0, 1e15, 0) != 0 ||
            vp_check_number(checker, host, host_at, "qemu_overhead_pss_bytes", 0, 1e15, 0) != 0 ||
            vp_check_number(checker, host, host_at, "cgroup_memory_bytes", 0, 1e15, 0) != 0 ||
            vp_check_number(checker, host, host_at, "shim_pss_bytes", 0, 1e15, 0) != 0)
            return -1;
        const json_t *clamped = json_object_get(host, "qemu_cpu_clamped");
        if (clamped && !json_is_boolean(clamped))
            return vp_check_fail(checker, "%s.qemu_cpu_clamped: accepted: true or false", host_at);
    }
    return 0;
}

/* "guests' settings: 1 vCPU, 512 MiB, pin compact, ...", where the part has them. */
static void print_guest_settings(FILE *out, const json_t *settings)
{
    if (!settings)
        return;
    char pin[128], net[80];
    long long cpus = (long long)json_integer_value(json_object_get(settings, "cpus"));
    fprintf(out, "  guests' settings: %lld vCPU%s, %lld MiB", cpus, cpus == 1 ? "" : "s",
            (long long)json_integer_value(json_object_get(settings, "memory_mib")));
    if (json_object_get(settings, "pin"))
        fprintf(out, ", pinned %s", vp_printable(vp_json_text(settings, "pin"), pin, sizeof pin));
    if (json_object_get(settings, "cpu_cap_pct")) {
        long long guest = (long long)json_integer_value(json_object_get(settings, "cpu_cap_guest"));
        fprintf(out, ", vCPUs capped at %lld%%",
                (long long)json_integer_value(json_object_get(settings, "cpu_cap_pct")));
        if (guest)
            fprintf(out, " (guest %lld alone)", guest);
    }
    if (json_object_get(settings, "disk_bus"))
        fprintf(out, ", a %lld MiB disk on %s",
                (long long)json_integer_value(json_object_get(settings, "disk_mib")),
                vp_json_text(settings, "disk_bus"));
    if (json_object_get(settings, "net"))
        fprintf(out, ", on bridge %s", vp_printable(vp_json_text(settings, "net"), net, sizeof net));
    fputc('\n', out);
    if (json_object_get(settings, "mount")) {
        char mount[VP_CHECK_TEXT_LEN + 1], command[VP_CHECK_TEXT_LEN + 1];
        fprintf(out, "  guests' mount: %s (mount %s)\n",
                vp_printable(vp_json_text(settings, "mount"), mount, sizeof mount),
                vp_printable(vp_json_text(settings, "mount_command"), command, sizeof command));
    }
}

/* One line: the accelerator and each guest's QEMU CPU. */
static void print_guests(FILE *out, const json_t *guests, enum vp_unit_style style)
{
    (void)style;
    const char *accel = json_string_value(json_object_get(guests, "accel"));
    fprintf(out, "  guests: %s%s%s%s", json_string_value(json_object_get(guests, "engine")),
            accel ? " " : "", accel ? accel : "",
            json_object_get(guests, "accel_note") ? " (fell back)" : "");
    size_t i;
    const json_t *host;
    json_array_foreach(json_object_get(guests, "hosts"), i, host) {
        const json_t *vcpu = json_object_get(host, "qemu_vcpu_cpu_pct");
        const json_t *other = json_object_get(host, "qemu_other_cpu_pct");
        const json_t *cpu = json_object_get(host, "cpu_pct");
        const char *name = json_string_value(json_object_get(host, "name"));
        const json_t *overhead = json_object_get(host, "qemu_overhead_pss_bytes");
        if (vcpu && other)
            fprintf(out, "%s %s QEMU vCPU %.0f%% other %.0f%%", i ? "," : ";", name,
                    json_number_value(vcpu), json_number_value(other));
        else if (cpu)
            fprintf(out, "%s %s CPU %.0f%%", i ? "," : ";", name, json_number_value(cpu));
        const json_t *held = json_object_get(host, "cgroup_memory_bytes");
        const json_t *shim = json_object_get(host, "shim_pss_bytes");
        if (overhead) /* checked: numbers */
            fprintf(out, " +%.0f MiB over its RAM", json_number_value(overhead) / (1 << 20));
        if (held)
            fprintf(out, " memory %.1f MiB", json_number_value(held) / (1 << 20));
        if (shim)
            fprintf(out, " shim %.1f MiB", json_number_value(shim) / (1 << 20));
    }
    const json_t *p50 = json_object_get(guests, "ready_p50_s");
    const json_t *p95 = json_object_get(guests, "ready_p95_s");
    if (p50 && p95)
        fprintf(out, "; ready after %.2f s (p50), %.2f s (p95)", json_number_value(p50),
                json_number_value(p95));
    fputc('\n', out);
    print_guest_settings(out, json_object_get(guests, "settings"));
    const json_t *programs = json_object_get(guests, "programs");
    if (json_array_size(programs) > 0) {
        const json_t *program;
        fprintf(out, "  this host's files in their image:");
        json_array_foreach(programs, i, program) {
            char shown[VP_CHECK_TEXT_LEN];
            if (i == 8) {
                fprintf(out, " and %zu more", json_array_size(programs) - 8);
                break;
            }
            fprintf(out, " %s", vp_printable(json_string_value(program), shown, sizeof shown));
        }
        fputc('\n', out);
    }
}

/* --and-host: which side of the point this result is, the host's jobs or the guests',
 * and when each of its repetitions started (s after the point's first, on this host's
 * clock), which shows them alternating with the other side's; --group: the group's
 * name. */
static int check_side(struct vp_check *checker, const json_t *side, const char *path)
{
    char at[256];
    snprintf(at, sizeof at, "%s.side", path);
    if (!json_is_object(side))
        return vp_check_fail(checker, "%s: accepted: an object", at);
    size_t count;
    const char *members[8];
    vp_member_engine_choices(true, members, 8);
    const char *name = json_string_value(json_object_get(side, "name"));
    if (!name || !vp_side_name_valid(name))
        return vp_check_fail(checker, "%s.name: accepted: host, guests or a group's name (1 to "
                             "%d letters, digits, _ . -)", at, VP_SIDE_NAME_MOST);
    if (vp_check_choice(checker, side, at, "members", members, 0) != 0)
        return -1;
    const json_t *starts = json_object_get(side, "starts_s");
    char starts_at[300];
    snprintf(starts_at, sizeof starts_at, "%s.starts_s", at);
    return starts ? vp_check_number_array(checker, starts, starts_at,
                                          VP_MAX_REPS + VP_MAX_WARMUP, &count)
                  : 0;
}

static void print_side(FILE *out, const json_t *side, enum vp_unit_style style)
{
    (void)style;
    /* members: what the run started (results stored before it was kept: guests) */
    const char *members = json_string_value(json_object_get(side, "members")) ?: "guests";
    const char *name = json_string_value(json_object_get(side, "name"));
    if (strcmp(name, "host") == 0)
        fprintf(out, "  side: this host's own jobs, repetitions alternating with the %s'\n",
                members);
    else if (strcmp(name, "guests") == 0)
        fprintf(out, "  side: the %s', repetitions alternating with this host's own jobs\n",
                members);
    else /* checked: a group's name, printable */
        fprintf(out, "  side: group %s, its %s started with the run's other groups'\n", name,
                members);
}

/* A fill's count (run/fleet_fill.c): its verdict and why; the fill's last, its optimum
 * and what stopped it. */
static int check_fill(struct vp_check *checker, const json_t *fill, const char *path)
{
    char at[256];
    snprintf(at, sizeof at, "%s.fill", path);
    if (!json_is_object(fill))
        return vp_check_fail(checker, "%s: accepted: an object", at);
    static const char *const verdicts[] = { "held", "rule", "cpu", "memory", NULL };
    static const char *const stops[] = { "rule", "cpu", "memory", "most", NULL };
    return vp_check_integer(checker, fill, at, "count", 1, VP_MAX_GUESTS, 1) != 0 ||
                   vp_check_choice(checker, fill, at, "verdict", verdicts, 1) != 0 ||
                   vp_check_string(checker, fill, at, "why", VP_CHECK_TEXT_LEN, 1) != 0 ||
                   vp_check_number(checker, fill, at, "keep_free_bytes", 0, 1e18, 1) != 0 ||
                   vp_check_integer(checker, fill, at, "optimum", 0, VP_MAX_GUESTS, 0) != 0 ||
                   vp_check_choice(checker, fill, at, "stopped", stops, 0) != 0 ||
                   vp_check_string(checker, fill, at, "reason", VP_CHECK_TEXT_LEN, 0) != 0
               ? -1
               : 0;
}

static void print_fill(FILE *out, const json_t *fill, enum vp_unit_style style)
{
    (void)style;
    char why[VP_CHECK_TEXT_LEN + 1], reason[VP_CHECK_TEXT_LEN + 1]; /* checked: printable */
    const char *verdict = json_string_value(json_object_get(fill, "verdict"));
    vp_printable(json_string_value(json_object_get(fill, "why")), why, sizeof why);
    if (strcmp(verdict, "held") == 0)
        fprintf(out, "  fill: %s\n", why);
    else
        fprintf(out, "  fill: %lld broke (%s): %s\n",
                (long long)json_integer_value(json_object_get(fill, "count")), verdict, why);
    if (json_object_get(fill, "optimum"))
        fprintf(out, "  fill: optimum %lld; stopped by %s: %s\n",
                (long long)json_integer_value(json_object_get(fill, "optimum")),
                json_string_value(json_object_get(fill, "stopped")),
                vp_printable(json_string_value(json_object_get(fill, "reason")), reason,
                             sizeof reason));
}

/* "migrations" (run/fleet_migrate.c): [{guest, from, to, began_s, began_utc, ended_utc,
 * seconds, status, error?, after_point?, total_ms?, downtime_ms?, data_bytes?,
 * memory_iterations?, probe_gap_s?, probe_gap_utc?, gap_beyond_downtime_s?}]; empty: none
 * begun. */
static int check_migrations(struct vp_check *checker, const json_t *moves, const char *path)
{
    static const char *const statuses[] = { "ok", "failed", NULL };
    char at[256];
    snprintf(at, sizeof at, "%s.migrations", path);
    if (!json_is_array(moves) || json_array_size(moves) > 16)
        return vp_check_fail(checker, "%s: accepted: an array of at most 16 moves", at);
    size_t i;
    const json_t *moved;
    json_array_foreach(moves, i, moved) {
        char one[300];
        snprintf(one, sizeof one, "%s[%zu]", at, i);
        if (!json_is_object(moved))
            return vp_check_fail(checker, "%s: accepted: an object", one);
        if (vp_check_string(checker, moved, one, "guest", VP_CHECK_NAME_LEN, 1) != 0 ||
            vp_check_string(checker, moved, one, "from", 400, 1) != 0 ||
            vp_check_string(checker, moved, one, "to", 400, 1) != 0 ||
            vp_check_string(checker, moved, one, "began_utc", 40, 1) != 0 ||
            vp_check_string(checker, moved, one, "ended_utc", 40, 1) != 0 ||
            vp_check_string(checker, moved, one, "probe_gap_utc", 40, 0) != 0 ||
            vp_check_choice(checker, moved, one, "status", statuses, 1) != 0 ||
            vp_check_string(checker, moved, one, "error", VP_CHECK_TEXT_LEN, 0) != 0 ||
            vp_check_number(checker, moved, one, "began_s", 0, 1e9, 1) != 0 ||
            vp_check_number(checker, moved, one, "seconds", 0, 1e9, 1) != 0 ||
            vp_check_number(checker, moved, one, "total_ms", 0, 1e12, 0) != 0 ||
            vp_check_number(checker, moved, one, "downtime_ms", 0, 1e12, 0) != 0 ||
            vp_check_number(checker, moved, one, "data_bytes", 0, 1e18, 0) != 0 ||
            vp_check_number(checker, moved, one, "memory_iterations", 0, 1e9, 0) != 0 ||
            vp_check_number(checker, moved, one, "probe_gap_s", 0, 1e9, 0) != 0 ||
            vp_check_number(checker, moved, one, "gap_beyond_downtime_s", -1e9, 1e9, 0) != 0)
            return -1;
        const json_t *covered = json_object_get(moved, "probe_covered");
        if (covered && !json_is_boolean(covered))
            return vp_check_fail(checker, "%s.probe_covered: accepted: true or false", one);
        const json_t *after_point = json_object_get(moved, "after_point");
        if (after_point && !json_is_true(after_point))
            return vp_check_fail(checker, "%s.after_point: accepted: true (or left out)", one);
    }
    return 0;
}

/* Each move: what libvirt says of it beside the gap net.probe saw from this host. */
static void print_migrations(FILE *out, const json_t *moves, enum vp_unit_style style)
{
    (void)style;
    if (json_array_size(moves) == 0)
        fprintf(out, "  migration: none: the point ended before --migrate-at\n");
    size_t i;
    const json_t *moved;
    json_array_foreach(moves, i, moved) { /* checked: its texts printable */
        fprintf(out, "  migration of %s at %.2f s, %s -> %s: ",
                json_string_value(json_object_get(moved, "guest")),
                json_number_value(json_object_get(moved, "began_s")),
                json_string_value(json_object_get(moved, "from")),
                json_string_value(json_object_get(moved, "to")));
        const json_t *downtime = json_object_get(moved, "downtime_ms");
        if (strcmp(json_string_value(json_object_get(moved, "status")), "ok") != 0) {
            const char *error = json_string_value(json_object_get(moved, "error"));
            fprintf(out, "failed: %s\n", error ? error : "no reason kept");
            continue;
        }
        if (json_is_number(downtime))
            fprintf(out, "libvirt: downtime %.0f ms, total %.0f ms, %.1f MiB in %.0f passes",
                    json_number_value(downtime),
                    json_number_value(json_object_get(moved, "total_ms")),
                    json_number_value(json_object_get(moved, "data_bytes")) / (1 << 20),
                    json_number_value(json_object_get(moved, "memory_iterations")));
        else
            fprintf(out, "libvirt gave no figures, %.2f s",
                    json_number_value(json_object_get(moved, "seconds")));
        const json_t *gap = json_object_get(moved, "probe_gap_s");
        const json_t *beyond = json_object_get(moved, "gap_beyond_downtime_s");
        if (json_is_number(gap))
            fprintf(out, "; net.probe from this host: %.0f ms without answers",
                    json_number_value(gap) * 1e3);
        if (json_is_number(beyond))
            fprintf(out, ", %+.0f ms beside the downtime (the hand-off between the two QEMUs, "
                    "the bridge learning the guest's new port)", json_number_value(beyond) * 1e3);
        if (json_is_true(json_object_get(moved, "after_point")))
            fprintf(out, "; after the point's end (its measurements were over), bringing the "
                    "guest home for the next point");
        else if (json_is_false(json_object_get(moved, "probe_covered")))
            fprintf(out, "; no net.probe watched it whole (it ran past the point's end: an "
                    "earlier --migrate-at or a longer --duration)");
        fprintf(out, "\n");
    }
}

static const struct vp_result_part intervals_part = { "intervals", check_intervals,
                                                      print_intervals };
static const struct vp_result_part timeline_part = { "timeline", check_timeline, NULL };
static const struct vp_result_part guests_part = { "guests", check_guests, print_guests };
static const struct vp_result_part side_part = { "side", check_side, print_side };
static const struct vp_result_part fill_part = { "fill", check_fill, print_fill };
static const struct vp_result_part migrations_part = { "migrations", check_migrations,
                                                       print_migrations };
static const struct vp_result_part *const engine_parts[] = {
    &intervals_part, &timeline_part, &guests_part, &side_part, &fill_part, &migrations_part,
    &vp_part_hypervisors,
};

size_t vp_result_parts(const struct vp_result_part **parts, size_t cap)
{
    size_t count = 0;
    for (size_t b = 0; b <= vp_bench_count; b++) {
        const struct vp_result_part *const *own = NULL;
        size_t own_count = 0;
        if (b < vp_bench_count) {
            own = vp_benches[b]->parts;
            while (own && own[own_count])
                own_count++;
        } else {
            own = engine_parts;
            own_count = sizeof engine_parts / sizeof engine_parts[0];
        }
        for (size_t p = 0; p < own_count; p++) {
            bool seen = false;
            for (size_t i = 0; i < count && !seen; i++)
                seen = parts[i] == own[p];
            if (!seen && count < cap)
                parts[count++] = own[p];
        }
    }
    return count;
}

const struct vp_result_part *vp_result_part_find(const char *key)
{
    const struct vp_result_part *parts[VP_MAX_RESULT_PARTS];
    size_t count = vp_result_parts(parts, VP_MAX_RESULT_PARTS);
    for (size_t i = 0; i < count; i++)
        if (strcmp(parts[i]->key, key) == 0)
            return parts[i];
    return NULL;
}
