/* File I/O for the disk benchmarks: incompressible, per-block-unique data; sequential or
 * ordered block I/O through pread/pwrite or io_uring; per-operation timing into the
 * histogram and the engine's op log; layout, cache dropping and read-back checks. */
#ifndef VP_DISK_IO_H
#define VP_DISK_IO_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/bench.h"

enum disk_direction { DISK_READ, DISK_WRITE };

struct disk_options {
    uint64_t size, bs, seed;
    unsigned iodepth;
    int direct, sync, fsync, io_uring, verify;
};

struct disk_file {
    char name[PATH_MAX];
    struct disk_options options;
    unsigned char *pattern;  /* bs random bytes: the body of every block */
    unsigned char *buffers;  /* iodepth aligned buffers of bs bytes */
    unsigned char *expected; /* one block as it should read back */
    /* With verify: per block, 1 + the generation last written to it, 0 when it has not
     * been written since the file was made (a time-bound pass may stop anywhere). */
    unsigned *written;
};

/* Seconds spent in each timed part of one run over the file, and what it did. */
struct disk_timing {
    double open_s, io_s, fsync_s, close_s;
    double op_sum_s; /* sum of the operations' latencies */
    uint64_t ops;    /* operations done */
};

int disk_file_init(struct disk_file *file, const char *name, const struct disk_options *options,
                   char *err, size_t err_len);
void disk_file_free(struct disk_file *file);

/* Makes the file anew, untimed, with its --size bytes reserved in one go (fallocate:
 * contiguous unwritten extents, as fio lays out a file). -1 when the file cannot be
 * made, or when the reservation is required and the filesystem refused it. */
int disk_file_reserve(struct disk_file *file, bool required, char *err, size_t err_len);
/* Writes the whole file (generation 0) untimed, syncs and closes it. */
int disk_file_layout(struct disk_file *file, char *err, size_t err_len);
/* The file was removed: no block holds anything to verify. */
void disk_file_forget(struct disk_file *file);
/* Flushes the file and drops its pages from the page cache. */
int disk_file_drop_cache(struct disk_file *file, char *err, size_t err_len);

/* One timed run: opens (creating on write), does operations on the blocks in order[]
 * (size/bs of them) — one pass, or with a deadline (CLOCK_MONOTONIC ns, 0: none) passes
 * over order[] again and again until the deadline, as fio's time_based — then fsyncs
 * writes when asked and closes. Records each operation's latency into histogram and its
 * completion into job's op log when they are not NULL. Writes stamp generation into
 * their blocks; with verify, every block read is checked against what was last written
 * to it. */
int disk_file_run(struct disk_file *file, enum disk_direction direction, const uint64_t *order,
                  int64_t deadline_ns, unsigned generation, struct vp_histogram *histogram,
                  struct vp_job *job, struct disk_timing *timing, char *err, size_t err_len);

/* Reads back, untimed, every block written since the file was made; -1 with the first
 * bad offset when a block does not hold what was last written to it. */
int disk_file_verify(struct disk_file *file, char *err, size_t err_len);

/* 0 when --engine=io_uring can work here, else -1 and why. */
int disk_io_uring_check(char *err, size_t err_len);

#endif
