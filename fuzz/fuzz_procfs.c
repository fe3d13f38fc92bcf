/* libFuzzer target: the /proc parsers (stat, vmstat, net/dev, diskstats, PID stat,
 * mountinfo) on arbitrary text (a container or an odd kernel
 * can show anything there). */
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"

#include "core/procfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    struct vp_proc_stat stat;
    uint64_t a, b;
    struct vp_device_counters devices[VP_PROC_MAX_DEVICES];
    size_t count;
    char comm[16];
    unsigned threads;
    const char *allowed[] = { "vda", "sda" };
    vp_parse_proc_stat(text, &stat);
    vp_parse_vmstat(text, &a, &b);
    vp_parse_net_dev(text, devices, &count);
    if (count > VP_PROC_MAX_DEVICES)
        __builtin_trap();
    vp_parse_diskstats(text, allowed, 2, devices, &count);
    vp_parse_diskstats(text, NULL, 0, devices, &count);
    if (vp_parse_pid_stat(text, comm, sizeof comm, &a, &threads) == 0 &&
        (strlen(comm) >= sizeof comm || threads == 0))
        __builtin_trap();
    char mount_point[64], fstype[16];
    if (vp_parse_mountinfo(text, "/srv/data/x", mount_point, sizeof mount_point, fstype,
                           sizeof fstype) == 0 &&
        (strlen(mount_point) >= sizeof mount_point || strlen(fstype) >= sizeof fstype))
        __builtin_trap();
    free(text);
    return 0;
}
