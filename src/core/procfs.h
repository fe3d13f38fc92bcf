/* Parsers for the /proc texts the monitor and fingerprint read. Each takes the file's
 * text (so tests and the fuzzer can feed any bytes) and never trusts its layout. */
#ifndef VP_PROCFS_H
#define VP_PROCFS_H

#include <stddef.h>
#include <stdint.h>

#define VP_PROC_MAX_DEVICES 32
#define VP_PROC_NAME_LEN 32

/* /proc/stat aggregate "cpu" line, in clock ticks. */
struct vp_cpu_ticks {
    uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
};

struct vp_device_counters {
    char name[VP_PROC_NAME_LEN];
    uint64_t a, b;   /* net: rx, tx bytes; disk: sectors read, sectors written */
    uint64_t busy_ms; /* disk: milliseconds spent doing I/O; net: 0 */
};

struct vp_proc_stat {
    struct vp_cpu_ticks cpu;
    uint64_t context_switches;
    uint64_t procs_running;
};

/* Each returns 0 when the fields it needs were found, -1 otherwise. */
int vp_parse_proc_stat(const char *text, struct vp_proc_stat *out);
/* pgfault (all faults) and pgmajfault from /proc/vmstat. */
int vp_parse_vmstat(const char *text, uint64_t *faults, uint64_t *major_faults);
/* /proc/net/dev: up to VP_PROC_MAX_DEVICES interfaces. */
int vp_parse_net_dev(const char *text, struct vp_device_counters *devices, size_t *count);
/* /proc/diskstats rows whose name is in the allowed list (NULL: all rows). */
int vp_parse_diskstats(const char *text, const char *const *allowed, size_t allowed_count,
                       struct vp_device_counters *devices, size_t *count);
/* /proc/PID/stat: command name, utime + stime in ticks and the number of threads. */
int vp_parse_pid_stat(const char *text, char *comm, size_t comm_len, uint64_t *cpu_ticks,
                      unsigned *threads);

/* The mount holding path (an absolute, resolved path) in /proc/self/mountinfo text:
 * the longest mount point that is a prefix of path (its octal escapes such as \040
 * undone). Returns 0 and fills the mount point and the filesystem type, or -1. */
int vp_parse_mountinfo(const char *text, const char *path, char *mount_point,
                       size_t mount_len, char *fstype, size_t fstype_len);

/* Reads a whole small file (at most cap - 1 bytes) as a NUL-terminated string: for
 * sysfs values of a known size. Returns the length, or -1 when it cannot be read. */
long vp_read_text_file(const char *path, char *buf, size_t cap);

/* A text read whole, in a buffer that grows as needed and can be reused between reads
 * (zero-initialise it; vp_text_free releases it). */
struct vp_text {
    char *data; /* NUL-terminated */
    size_t len, cap;
};

/* Reads the whole file, however long (a /proc file reports no size: /proc/stat on a
 * host with many CPUs and interrupts is far larger than any fixed buffer one would
 * guess). Returns 0, or -1 when it cannot be opened or read. */
int vp_read_whole(const char *path, struct vp_text *text);
void vp_text_free(struct vp_text *text);

#endif
