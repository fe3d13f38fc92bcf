/* The device-versus-cache evidence shared by the disk and data benchmarks. */
#define _GNU_SOURCE
#include "bench/cache_evidence.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core/copy_speed.h"
#include "core/json.h"
#include "core/procfs.h"
#include "core/units.h"
#include "core/json_check.h"

void vp_filesystem_of(const char *path, char *fstype, size_t fstype_len, char *mount,
                      size_t mount_len)
{
    char resolved[PATH_MAX];
    struct vp_text mountinfo = { 0 };
    snprintf(fstype, fstype_len, "unknown filesystem");
    snprintf(mount, mount_len, "%s", path);
    if (realpath(path, resolved) && vp_read_whole("/proc/self/mountinfo", &mountinfo) == 0)
        vp_parse_mountinfo(mountinfo.data, resolved, mount, mount_len, fstype, fstype_len);
    vp_text_free(&mountinfo);
}

/* The whole block device under path ("vda" for a filesystem on /dev/vda1), or "" when
 * the filesystem has none (tmpfs, NFS, FUSE). */
static void device_of(const char *path, char *name, size_t len)
{
    struct stat info;
    char link[64], resolved[PATH_MAX];
    name[0] = '\0';
    if (stat(path, &info) != 0 || major(info.st_dev) == 0)
        return;
    snprintf(link, sizeof link, "/sys/dev/block/%u:%u", major(info.st_dev), minor(info.st_dev));
    if (!realpath(link, resolved))
        return;
    char partition[PATH_MAX + 16];
    snprintf(partition, sizeof partition, "%s/partition", resolved);
    if (access(partition, F_OK) == 0)
        *strrchr(resolved, '/') = '\0'; /* a partition: its disk is the parent */
    snprintf(name, len, "%s", strrchr(resolved, '/') + 1);
}

double vp_result_mean(const json_t *result, const char *metric)
{
    return json_number_value(json_object_get(
        json_object_get(json_object_get(result, "metrics"), metric), "mean"));
}

double vp_monitor_integral(const json_t *monitor, const char *column)
{
    const json_t *series = json_object_get(monitor, "series");
    const json_t *times = json_object_get(series, "t"), *rates = json_object_get(series, column);
    double total = 0, previous = 0;
    for (size_t i = 0; i < json_array_size(times) && i < json_array_size(rates); i++) {
        double at = json_number_value(json_array_get(times, i));
        total += json_number_value(json_array_get(rates, i)) * (at - previous);
        previous = at;
    }
    return total;
}

void vp_annotate_device_reads(json_t *result, const char *path, const char *fstype,
                              const char *mount, bool reads, double per_job_rate,
                              double read_by_jobs)
{
    char device[64], column[128];
    device_of(path, device, sizeof device);
    const json_t *monitor = json_object_get(result, "monitor");
    snprintf(column, sizeof column, "disk.%s.read", device);
    if (!device[0] || !json_object_get(json_object_get(monitor, "series"), column)) {
        /* no device to ask: only a rate no device reaches tells a cache */
        double copy = vp_copy_speed();
        if (reads && per_job_rate >= 0.5 * copy) {
            char rate[32], ceiling[32];
            vp_format_value(per_job_rate, "B/s", VP_UNITS_SI, rate, sizeof rate);
            vp_format_value(copy, "B/s", VP_UNITS_SI, ceiling, sizeof ceiling);
            vp_result_warn(result, "served from cache: %s per job is memory speed (this "
                           "machine copies memory at %s)", rate, ceiling);
        }
        vp_result_warn(result, "no block device counters for %s at %s: reads may be served "
                    "from memory and cannot be checked", fstype, mount);
        return;
    }
    double read_bytes = vp_monitor_integral(monitor, column);
    snprintf(column, sizeof column, "disk.%s.write", device);
    double write_bytes = vp_monitor_integral(monitor, column);
    snprintf(column, sizeof column, "disk.%s.util", device);
    double util = json_number_value(json_object_get(
        json_object_get(json_object_get(monitor, "summary"), column), "mean"));
    json_object_set_new(result, "device",
                        json_pack("{s:s,s:s,s:s,s:f,s:f,s:f}", "name", device, "fstype",
                                  fstype, "mount", mount, "read_bytes", read_bytes,
                                  "write_bytes", write_bytes, "util_mean", util));
    if (reads && read_bytes < 0.5 * read_by_jobs) {
        char jobs_read[32], device_read[32];
        vp_format_bytes(read_by_jobs, jobs_read, sizeof jobs_read);
        vp_format_bytes(read_bytes, device_read, sizeof device_read);
        vp_result_warn(result, "served from cache: the jobs read %s but device %s read %s",
                    jobs_read, device, device_read);
    }
}

/* The block device's own counters beside a disk result's figures. */
static int check_device(struct vp_check *checker, const json_t *device, const char *path)
{
    char at[256];
    snprintf(at, sizeof at, "%s.device", path);
    if (!json_is_object(device))
        return vp_check_fail(checker, "%s: accepted: an object", at);
    if (vp_check_string(checker, device, at, "name", VP_CHECK_NAME_LEN, 1) != 0 ||
        vp_check_string(checker, device, at, "fstype", VP_CHECK_NAME_LEN, 1) != 0 ||
        vp_check_string(checker, device, at, "mount", VP_CHECK_TEXT_LEN, 1) != 0 ||
        vp_check_number(checker, device, at, "read_bytes", 0, 1e300, 1) != 0 ||
        vp_check_number(checker, device, at, "write_bytes", 0, 1e300, 1) != 0 ||
        vp_check_number(checker, device, at, "util_mean", 0, 100, 1) != 0)
        return -1;
    return 0;
}

static void print_device(FILE *out, const json_t *device, enum vp_unit_style style)
{
    (void)style;
    char read[32], written[32];
    vp_format_bytes(vp_json_number(device, "read_bytes"), read, sizeof read);
    vp_format_bytes(vp_json_number(device, "write_bytes"), written, sizeof written);
    fprintf(out, "  device %s (%s at %s): read %s, written %s, util %.1f%%\n",
            vp_json_text(device, "name"), vp_json_text(device, "fstype"),
            vp_json_text(device, "mount"), read, written, vp_json_number(device, "util_mean"));
}

const struct vp_result_part vp_part_device = { "device", check_device, print_device };
