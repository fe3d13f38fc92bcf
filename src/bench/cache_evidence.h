/* Whether reads came from a device or from memory: the filesystem and block device under
 * a path, and the check that puts the device's own counters (from the monitor) beside
 * what the jobs read, as the disk and data benchmarks both need it. */
#ifndef VP_CACHE_EVIDENCE_H
#define VP_CACHE_EVIDENCE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "bench/bench.h"

/* The filesystem type and mount point holding path, from /proc/self/mountinfo
 * ("unknown filesystem" and path itself when it cannot be told). */
void vp_filesystem_of(const char *path, char *fstype, size_t fstype_len, char *mount,
                      size_t mount_len);

/* The mean of a metric of a result. */
double vp_result_mean(const json_t *result, const char *metric);

/* Bytes a rate column of the monitor moved: the sum of rate x sample interval. */
double vp_monitor_integral(const json_t *monitor, const char *column);

/* Sets result's "device" (the block device under path: bytes read and written, mean
 * utilisation) from its monitor, and warns "served from cache" when the device read
 * under half of read_by_jobs bytes. Where path has no block device to check against it
 * says so, and warns "served from cache" when reads ran at memory speed (per_job_rate
 * against this machine's memory copy rate): the guess is for that case alone.
 * reads: the jobs read (a write test only gets the device figures). */
void vp_annotate_device_reads(json_t *result, const char *path, const char *fstype,
                              const char *mount, bool reads, double per_job_rate,
                              double read_by_jobs);

/* The result part vp_annotate_device_reads sets: "device". */
extern const struct vp_result_part vp_part_device;

#endif
