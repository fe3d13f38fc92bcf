/* Unit tests for procfs.c: parsers on captured /proc texts, and reading a file whole
 * however large it is. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/procfs.h"

static void proc_stat_reads_cpu_steal_ctxt_runq(void **state)
{
    (void)state;
    const char *text = "cpu  100 5 50 1000 20 3 2 7 0 0\ncpu0 50 2 25 500 10 1 1 3 0 0\n"
                       "intr 1 2 3\nctxt 123456\nbtime 1\nprocs_running 3\nprocs_blocked 0\n";
    struct vp_proc_stat stat;
    assert_int_equal(vp_parse_proc_stat(text, &stat), 0);
    assert_int_equal(stat.cpu.user, 100);
    assert_int_equal(stat.cpu.nice, 5);
    assert_int_equal(stat.cpu.idle, 1000);
    assert_int_equal(stat.cpu.steal, 7);
    assert_int_equal(stat.context_switches, 123456);
    assert_int_equal(stat.procs_running, 3);
    assert_int_equal(vp_parse_proc_stat("cpu0 1 2 3 4\n", &stat), -1);
    assert_int_equal(vp_parse_proc_stat("cpu  1 2 3 4\n", &stat), -1); /* no ctxt */
}

/* A /proc/stat as a host with 256 CPUs and thousands of interrupts writes it: the
 * "ctxt" and "procs_running" lines come after an intr line of ~400 KB, far past any
 * fixed buffer one would guess (16 KiB lost them: the figures read 0). */
static void a_large_proc_stat_is_read_whole(void **state)
{
    (void)state;
    char path[] = "/tmp/vp-test-procstat.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *file = fdopen(fd, "w");
    fprintf(file, "cpu  9000 10 800 50000 30 4 5 77 0 0\n");
    for (int cpu = 0; cpu < 256; cpu++)
        fprintf(file, "cpu%d 35 0 3 195 0 0 0 0 0 0\n", cpu);
    fprintf(file, "intr 123456789");
    for (int irq = 0; irq < 80000; irq++)
        fprintf(file, " %d", irq % 7);
    fprintf(file, "\nctxt 987654\nbtime 1\nprocesses 5\nprocs_running 4\nprocs_blocked 0\n");
    fclose(file);

    struct vp_text text = { 0 };
    assert_int_equal(vp_read_whole(path, &text), 0);
    assert_true(text.len > 150000);
    assert_int_equal(strlen(text.data), text.len);
    struct vp_proc_stat stat;
    assert_int_equal(vp_parse_proc_stat(text.data, &stat), 0);
    assert_int_equal(stat.cpu.user, 9000);
    assert_int_equal(stat.cpu.steal, 77);
    assert_int_equal(stat.context_switches, 987654);
    assert_int_equal(stat.procs_running, 4);
    assert_int_equal(vp_read_whole(path, &text), 0); /* the buffer is reused */
    assert_int_equal(vp_parse_proc_stat(text.data, &stat), 0);

    char small[16384]; /* what a fixed buffer would have seen */
    assert_true(vp_read_text_file(path, small, sizeof small) > 0);
    assert_int_equal(vp_parse_proc_stat(small, &stat), -1);
    unlink(path);
    assert_int_equal(vp_read_whole(path, &text), -1);
    vp_text_free(&text);
    assert_null(text.data);
}

static void vmstat_reads_faults(void **state)
{
    (void)state;
    uint64_t faults, major;
    assert_int_equal(vp_parse_vmstat("nr_free_pages 5\npgfault 999\npgmajfault 12\n", &faults,
                                     &major), 0);
    assert_int_equal(faults, 999);
    assert_int_equal(major, 12);
    assert_int_equal(vp_parse_vmstat("pgfaultx 1\n", &faults, &major), -1);
}

static void net_dev_reads_rx_and_tx_bytes(void **state)
{
    (void)state;
    const char *text =
        "Inter-|   Receive                                                |  Transmit\n"
        " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets\n"
        "    lo: 1000 10 0 0 0 0 0 0 2000 20 0 0 0 0 0 0\n"
        "  eth0: 5 1 0 0 0 0 0 0 7 1 0 0 0 0 0 0\n";
    struct vp_device_counters devices[VP_PROC_MAX_DEVICES];
    size_t count;
    assert_int_equal(vp_parse_net_dev(text, devices, &count), 0);
    assert_int_equal(count, 2);
    assert_string_equal(devices[0].name, "lo");
    assert_int_equal(devices[0].a, 1000);
    assert_int_equal(devices[0].b, 2000);
    assert_string_equal(devices[1].name, "eth0");
    assert_int_equal(devices[1].b, 7);
}

static void diskstats_keeps_allowed_devices(void **state)
{
    (void)state;
    const char *text = " 254 0 vda 100 0 800 50 200 0 1600 70 0 90 120 0 0 0 0\n"
                       " 254 1 vda1 99 0 790 50 199 0 1590 70 0 89 119 0 0 0 0\n"
                       "   7 0 loop0 1 0 2 0 0 0 0 0 0 0 0\n";
    const char *allowed[] = { "vda" };
    struct vp_device_counters devices[VP_PROC_MAX_DEVICES];
    size_t count;
    assert_int_equal(vp_parse_diskstats(text, allowed, 1, devices, &count), 0);
    assert_int_equal(count, 1);
    assert_string_equal(devices[0].name, "vda");
    assert_int_equal(devices[0].a, 800);
    assert_int_equal(devices[0].b, 1600);
    assert_int_equal(devices[0].busy_ms, 90);
}

static void pid_stat_survives_odd_command_names(void **state)
{
    (void)state;
    const char *text = "42 (my (odd) proc) S 1 42 42 0 -1 4194560 10 0 0 0 17 5 0 0 20 0 3 0";
    char comm[16];
    uint64_t ticks;
    unsigned threads;
    assert_int_equal(vp_parse_pid_stat(text, comm, sizeof comm, &ticks, &threads), 0);
    assert_string_equal(comm, "my (odd) proc");
    assert_int_equal(ticks, 22);
    assert_int_equal(threads, 3);
    assert_int_equal(vp_parse_pid_stat("42 (x S 1", comm, sizeof comm, &ticks, &threads), -1);
    assert_int_equal(vp_parse_pid_stat("42 (x) S 1 2", comm, sizeof comm, &ticks, &threads), -1);
}

static void mountinfo_finds_the_longest_mount(void **state)
{
    (void)state;
    const char *text = "22 1 0:21 / / rw - ext4 /dev/vda1 rw\n"
                       "30 22 0:40 / /srv rw,relatime - nfs server:/export rw\n"
                       "31 30 7:0 / /srv/data rw shared:5 - xfs /dev/loop0 rw\n"
                       "32 22 0:41 / /srv/database rw - tmpfs tmpfs rw\n"
                       "garbage line without separator\n";
    char mount_point[64], fstype[16];
    assert_int_equal(vp_parse_mountinfo(text, "/srv/data/run1", mount_point, sizeof mount_point,
                                        fstype, sizeof fstype), 0);
    assert_string_equal(mount_point, "/srv/data");
    assert_string_equal(fstype, "xfs");
    assert_int_equal(vp_parse_mountinfo(text, "/srv/dat", mount_point, sizeof mount_point,
                                        fstype, sizeof fstype), 0);
    assert_string_equal(fstype, "nfs"); /* /srv/data is not a prefix of /srv/dat */
    assert_int_equal(vp_parse_mountinfo(text, "/home", mount_point, sizeof mount_point, fstype,
                                        sizeof fstype), 0);
    assert_string_equal(mount_point, "/");
    assert_int_equal(vp_parse_mountinfo("nothing\n", "/x", mount_point, sizeof mount_point,
                                        fstype, sizeof fstype), -1);
}

/* A mount point with a space, a tab and a backslash, as the kernel escapes them. */
static void mountinfo_undoes_octal_escapes(void **state)
{
    (void)state;
    const char *text = "22 1 0:21 / / rw - ext4 /dev/vda1 rw\n"
                       "40 22 8:17 / /mnt/my\\040disk rw - xfs /dev/sdb1 rw\n"
                       "41 22 8:18 / /mnt/a\\011b\\134c rw - btrfs /dev/sdb2 rw\n";
    char mount_point[64], fstype[16];
    assert_int_equal(vp_parse_mountinfo(text, "/mnt/my disk/run", mount_point,
                                        sizeof mount_point, fstype, sizeof fstype), 0);
    assert_string_equal(mount_point, "/mnt/my disk");
    assert_string_equal(fstype, "xfs");
    assert_int_equal(vp_parse_mountinfo(text, "/mnt/a\tb\\c", mount_point, sizeof mount_point,
                                        fstype, sizeof fstype), 0);
    assert_string_equal(mount_point, "/mnt/a\tb\\c");
    assert_string_equal(fstype, "btrfs");
    /* a backslash not followed by three octal digits stays */
    assert_int_equal(vp_parse_mountinfo("1 1 0:1 / /x\\9 rw - tmpfs t rw\n", "/x\\9/f",
                                        mount_point, sizeof mount_point, fstype, sizeof fstype),
                     0);
    assert_string_equal(mount_point, "/x\\9");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(proc_stat_reads_cpu_steal_ctxt_runq),
        cmocka_unit_test(a_large_proc_stat_is_read_whole),
        cmocka_unit_test(vmstat_reads_faults),
        cmocka_unit_test(net_dev_reads_rx_and_tx_bytes),
        cmocka_unit_test(diskstats_keeps_allowed_devices),
        cmocka_unit_test(pid_stat_survives_odd_command_names),
        cmocka_unit_test(mountinfo_finds_the_longest_mount),
        cmocka_unit_test(mountinfo_undoes_octal_escapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
