/* Unit tests for cache_evidence.c: where the block device's own counters are there, they
 * decide whether reads were served from cache; the memory-speed guess is only for a path
 * with no device to ask (a TCG guest copies memory slower than its disk reads, and the
 * guess called a read the device served "from cache"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "bench/cache_evidence.h"

/* The whole disk under the working directory, as /sys/dev/block names it ("" if none). */
static void disk_here(char *name, size_t len)
{
    struct stat info;
    char link[64], resolved[PATH_MAX], partition[PATH_MAX + 16];
    name[0] = '\0';
    if (stat(".", &info) != 0 || major(info.st_dev) == 0)
        return;
    snprintf(link, sizeof link, "/sys/dev/block/%u:%u", major(info.st_dev), minor(info.st_dev));
    if (!realpath(link, resolved))
        return;
    snprintf(partition, sizeof partition, "%s/partition", resolved);
    if (access(partition, F_OK) == 0)
        *strrchr(resolved, '/') = '\0';
    snprintf(name, len, "%s", strrchr(resolved, '/') + 1);
}

/* A result whose monitor saw the device read device_bytes in one second. */
static json_t *read_result(const char *disk, double device_bytes)
{
    char column[128];
    snprintf(column, sizeof column, "disk.%s.read", disk);
    json_t *series = json_pack("{s:[f],s:[f],s:[f]}", "t", 1.0, column, device_bytes,
                               "cpu.busy", 50.0);
    snprintf(column, sizeof column, "disk.%s.write", disk);
    json_object_set_new(series, column, json_pack("[f]", 0.0));
    return json_pack("{s:{s:o,s:{}}}", "monitor", "series", series, "summary");
}

static bool warned(const json_t *result, const char *text)
{
    size_t i;
    const json_t *warning;
    json_array_foreach(json_object_get(result, "warnings"), i, warning)
        if (strstr(json_string_value(warning), text))
            return true;
    return false;
}

static void the_device_decides_where_it_counted(void **state)
{
    (void)state;
    char disk[64];
    disk_here(disk, sizeof disk);
    /* the device read every byte, at a rate far over any memory copy: not a cache */
    json_t *served = read_result(disk, 64e6);
    vp_annotate_device_reads(served, ".", "ext4", "/", true, 1e15, 64e6);
    assert_false(warned(served, "served from cache"));
    assert_non_null(json_object_get(served, "device"));
    /* the device read a tenth: a cache, by the device's own figure */
    json_t *cached = read_result(disk, 6.4e6);
    vp_annotate_device_reads(cached, ".", "ext4", "/", true, 1e6, 64e6);
    assert_true(warned(cached, "served from cache: the jobs read"));
    json_decref(served);
    json_decref(cached);
}

static void without_a_device_the_rate_is_all_there_is(void **state)
{
    (void)state;
    json_t *result = json_pack("{s:{s:{s:[f]},s:{}}}", "monitor", "series", "t", 1.0, "summary");
    vp_annotate_device_reads(result, "/proc", "proc", "/proc", true, 1e15, 64e6);
    assert_true(warned(result, "per job is memory speed"));
    assert_true(warned(result, "no block device counters for proc"));
    json_decref(result);
}

int main(void)
{
    char disk[64];
    disk_here(disk, sizeof disk);
    if (!disk[0]) { /* tmpfs, overlay: nothing to read the device's counters of */
        fprintf(stderr, "skip: no block device under the working directory\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_device_decides_where_it_counted),
        cmocka_unit_test(without_a_device_the_rate_is_all_there_is),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
