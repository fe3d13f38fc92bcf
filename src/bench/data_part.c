/* The "data" part of a data benchmark's result (data_part.h). */
#include "bench/data_part.h"

#include <stdio.h>
#include <string.h>

#include "bench/cache_evidence.h" /* vp_monitor_integral */
#include "core/limits.h"

#include "core/json.h"
#include "core/json_check.h"
#include "core/monitor.h"
#include "core/route.h"
#include "core/units.h"

/* What a data benchmark read: {"source", "scheme", "manifest", "files",
 * "network_rx_bytes", "network_rx_rate", "network_interface"?, "job_time_across_jobs":
 * {min, max, mean...}}. */
static int check_data(struct vp_check *checker, const json_t *data, const char *path)
{
    static const char *const schemes[] = { "posix", "root", "http", "https", "dav", "davs",
                                           "nfs", NULL };
    char at[256], spread_at[300];
    snprintf(at, sizeof at, "%s.data", path);
    snprintf(spread_at, sizeof spread_at, "%s.job_time_across_jobs", at);
    if (!json_is_object(data))
        return vp_check_fail(checker, "%s: accepted: an object", at);
    const json_t *spread = json_object_get(data, "job_time_across_jobs");
    if (vp_check_string(checker, data, at, "source", VP_CHECK_TEXT_LEN, 1) != 0 ||
        vp_check_choice(checker, data, at, "scheme", schemes, 1) != 0 ||
        vp_check_string(checker, data, at, "manifest", VP_CHECK_TEXT_LEN + 64, 1) != 0 ||
        vp_check_integer(checker, data, at, "files", 1, 100000, 1) != 0 ||
        vp_check_number(checker, data, at, "network_rx_bytes", 0, 1e300, 1) != 0 ||
        vp_check_number(checker, data, at, "network_rx_rate", 0, 1e300, 1) != 0 ||
        vp_check_string(checker, data, at, "network_interface", 64, 0) != 0)
        return -1;
    if (!json_is_object(spread))
        return vp_check_fail(checker, "%s: accepted: an object {\"min\", \"max\", \"mean\", ...}",
                    spread_at);
    static const char *const stats[] = { "min", "max", "mean", "stddev", NULL };
    for (size_t i = 0; stats[i]; i++)
        if (vp_check_number(checker, spread, spread_at, stats[i], 0, 1e300, 1) != 0)
            return -1;
    return 0;
}

/* The source, the network input while it ran, and the jobs' spread. */
static void print_data(FILE *out, const json_t *data, enum vp_unit_style style)
{
    char source[400], received[32], rate[32], low[32], mean[32], high[32], spread[32];
    const json_t *jobs = json_object_get(data, "job_time_across_jobs");
    vp_format_bytes(vp_json_number(data, "network_rx_bytes"), received, sizeof received);
    vp_format_value(vp_json_number(data, "network_rx_rate"), "B/s", style, rate, sizeof rate);
    vp_format_seconds(vp_json_number(jobs, "min"), low, sizeof low);
    vp_format_seconds(vp_json_number(jobs, "mean"), mean, sizeof mean);
    vp_format_seconds(vp_json_number(jobs, "max"), high, sizeof high);
    vp_format_seconds(vp_json_number(jobs, "stddev"), spread, sizeof spread);
    char interface[80] = "";
    if (json_object_get(data, "network_interface"))
        vp_printable(vp_json_text(data, "network_interface"), interface, sizeof interface);
    fprintf(out, "  source %s (%s, %lld files): network in %s (%s)%s%s\n",
            vp_printable(vp_json_text(data, "source"), source, sizeof source),
            vp_json_text(data, "scheme"),
            (long long)json_integer_value(json_object_get(data, "files")), received, rate,
            *interface ? " on " : "", interface);
    fprintf(out, "  job time across jobs: min %s, mean %s, max %s, SD %s\n", low, mean, high,
            spread);
}

/* The host of a URL source (scheme://[user@]host[:port]/path, [IPv6]), or -1 for a
 * directory. */
static int url_host(const char *source, char *host, size_t len)
{
    const char *start = strstr(source, "://");
    if (!start)
        return -1;
    start += 3;
    const char *at = strchr(start, '@'), *slash = strchr(start, '/');
    if (at && (!slash || at < slash))
        start = at + 1;
    const char *end;
    if (*start == '[') {
        end = strchr(++start, ']');
    } else {
        end = start + strcspn(start, ":/");
    }
    if (!end || end == start || (size_t)(end - start) >= len)
        return -1;
    snprintf(host, len, "%.*s", (int)(end - start), start);
    return 0;
}

void vp_data_part_set(json_t *result, const char *source, const char *scheme,
                      const char *manifest, int files)
{
    const json_t *monitor = json_object_get(result, "monitor");
    double received = 0;
    const char *column;
    const json_t *series;
    const json_t *all_series = json_object_get(monitor, "series");
    char host[256], interface[64], route_column[96] = "";
    if (url_host(source, host, sizeof host) == 0 &&
        vp_route_interface(host, interface, sizeof interface) == 0)
        snprintf(route_column, sizeof route_column, "net.%s.rx", interface);
    if (*route_column && json_object_get(all_series, route_column)) {
        received = vp_monitor_integral(monitor, route_column); /* the store's bytes alone */
    } else {
        route_column[0] = '\0';
        json_object_foreach((json_t *)all_series, column, series) {
            if (vp_monitor_network_column(all_series, column, "rx", NULL))
                received += vp_monitor_integral(monitor, column);
        }
    }
    const json_t *times = json_object_get(json_object_get(monitor, "series"), "t");
    double watched = json_number_value(json_array_get(times, json_array_size(times) - 1));
    double job_times[VP_MAX_JOBS];
    size_t count = 0;
    size_t i;
    const json_t *job;
    json_array_foreach(json_object_get(result, "per_job"), i, job) {
        if (count < VP_MAX_JOBS)
            job_times[count++] = json_number_value(json_object_get(json_object_get(
                json_object_get(job, "metrics"), "job_time"), "mean"));
    }
    json_t *spread = json_object();
    vp_metric_set_stats(spread, job_times, count); /* the 2005 slides' min/max/mean/SD */
    json_object_del(spread, "values");
    json_object_set_new(result, "data",
                        json_pack("{s:s,s:s,s:s,s:i,s:f,s:f,s:o}", "source", source, "scheme",
                                  scheme, "manifest", manifest, "files", files,
                                  "network_rx_bytes", received, "network_rx_rate",
                                  watched > 0 ? received / watched : 0.0,
                                  "job_time_across_jobs", spread));
    if (*route_column)
        json_object_set_new(json_object_get(result, "data"), "network_interface",
                            json_string(interface));
}

const struct vp_result_part vp_part_data = { "data", check_data, print_data };
