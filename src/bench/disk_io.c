/* Disk benchmark I/O: data pattern, psync and io_uring engines, layout, verification. */
#define _GNU_SOURCE
#include "bench/disk_io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vp_features.h" /* VP_HAVE_LIBURING */
#ifdef VP_HAVE_LIBURING
#include <liburing.h>
#endif

#include "core/clock.h"
#include "core/random.h"

#define STAMP_EVERY 4096 /* bytes: every 4 KiB of a block carries its own stamp */
#define STAMP_MAGIC 0x7669727470657266ULL /* "virtperf" */

int disk_file_init(struct disk_file *file, const char *name, const struct disk_options *options,
                   char *err, size_t err_len)
{
    memset(file, 0, sizeof *file);
    snprintf(file->name, sizeof file->name, "%s", name);
    file->options = *options;
    size_t bs = options->bs;
    void *pattern = NULL, *buffers = NULL, *expected = NULL;
    if (posix_memalign(&pattern, 4096, bs) || posix_memalign(&buffers, 4096, bs * options->iodepth) ||
        posix_memalign(&expected, 4096, bs)) {
        free(pattern);
        free(buffers);
        snprintf(err, err_len, "disk: cannot allocate %u buffers of %zu bytes", options->iodepth, bs);
        return -1;
    }
    file->pattern = pattern;
    file->buffers = buffers;
    file->expected = expected;
    if (options->verify && !(file->written = calloc(options->size / bs, sizeof *file->written))) {
        disk_file_free(file);
        snprintf(err, err_len, "disk: cannot allocate the verify map of %llu blocks",
                 (unsigned long long)(options->size / bs));
        return -1;
    }
    uint64_t state = options->seed * 0x9E3779B97F4A7C15ULL + 1;
    for (size_t i = 0; i + 8 <= bs; i += 8) {
        uint64_t word = vp_xorshift64(&state);
        memcpy(file->pattern + i, &word, 8);
    }
    return 0;
}

void disk_file_free(struct disk_file *file)
{
    free(file->pattern);
    free(file->buffers);
    free(file->expected);
    free(file->written);
}

void disk_file_forget(struct disk_file *file)
{
    if (file->written)
        memset(file->written, 0, file->options.size / file->options.bs * sizeof *file->written);
}

/* After a block was written with generation: what a verify expects there. */
static void remember_write(struct disk_file *file, uint64_t offset, unsigned generation)
{
    if (file->written)
        file->written[offset / file->options.bs] = generation + 1;
}

/* One more operation: with a deadline, until it has passed; without, one pass. */
static bool more_ops(uint64_t done, uint64_t ops, int64_t deadline_ns)
{
    return deadline_ns ? vp_now_ns() < deadline_ns : done < ops;
}

/* The block at offset as generation writes it: the random body with a 16-byte stamp
 * (file offset and seed, generation) at every 4 KiB, so no two blocks, files or
 * generations hold the same 4 KiB and neither compression nor dedup can shrink them. */
static void fill_block(const struct disk_file *file, unsigned char *block, uint64_t offset,
                       unsigned generation)
{
    memcpy(block, file->pattern, file->options.bs);
    for (uint64_t at = 0; at + 16 <= file->options.bs; at += STAMP_EVERY) {
        uint64_t where = (offset + at) ^ (file->options.seed << 40);
        uint64_t which = STAMP_MAGIC ^ generation;
        memcpy(block + at, &where, 8);
        memcpy(block + at + 8, &which, 8);
    }
}

/* A block read back against what was last written to it (layout: generation 0). */
static int check_block(struct disk_file *file, const unsigned char *block, uint64_t offset,
                       char *err, size_t err_len)
{
    unsigned written = file->written ? file->written[offset / file->options.bs] : 1;
    unsigned generation = written ? written - 1 : 0;
    fill_block(file, file->expected, offset, generation);
    if (memcmp(block, file->expected, file->options.bs) == 0)
        return 0;
    size_t first = 0;
    while (block[first] == file->expected[first])
        first++;
    snprintf(err, err_len, "verify: %s byte %llu does not hold what was written (generation %u)",
             file->name, (unsigned long long)(offset + first), generation);
    return -1;
}

static int open_file(struct disk_file *file, enum disk_direction direction, int create,
                     int direct, char *err, size_t err_len)
{
    int flags = O_CLOEXEC | O_NOFOLLOW | (direction == DISK_WRITE ? O_WRONLY : O_RDONLY);
    if (create)
        flags |= O_CREAT;
    if (direct)
        flags |= O_DIRECT;
    if (file->options.sync)
        flags |= O_SYNC;
    int fd = open(file->name, flags, 0600);
    if (fd < 0)
        snprintf(err, err_len, "open %s: %s", file->name, strerror(errno));
    return fd;
}

/* Counts an operation into the histogram, the op log and the timing. */
static void note_op(struct vp_histogram *histogram, struct vp_job *job, int64_t start,
                    int64_t end, struct disk_timing *timing)
{
    if (histogram)
        vp_histogram_record(histogram, (uint64_t)(end - start));
    if (job)
        vp_job_log_op(job, end);
    timing->op_sum_s += (double)(end - start) / 1e9;
    timing->ops++;
}

/* A failed or short transfer of the block at offset (done: what went, -1 for none). A
 * short write is followed by one for the rest, which says why (a full disk writes what
 * fits, then refuses); a short read met the file's end. */
static int transfer_error(const struct disk_file *file, int fd, const unsigned char *block,
                          enum disk_direction direction, uint64_t offset, ssize_t done,
                          int error, char *err, size_t err_len)
{
    const char *verb = direction == DISK_WRITE ? "write" : "read";
    uint64_t bs = file->options.bs;
    if (done >= 0 && direction == DISK_WRITE &&
        pwrite(fd, block + done, bs - (size_t)done, (off_t)(offset + (uint64_t)done)) < 0)
        snprintf(err, err_len, "write %s at byte %llu: %s (after %zd of %llu bytes)", file->name,
                 (unsigned long long)offset, strerror(errno), done, (unsigned long long)bs);
    else if (done < 0)
        snprintf(err, err_len, "%s %s at byte %llu: %s", verb, file->name,
                 (unsigned long long)offset, strerror(error));
    else if (direction == DISK_READ)
        snprintf(err, err_len, "read %s at byte %llu: the file ends after %zd of %llu bytes "
                 "(truncated by someone else?)", file->name, (unsigned long long)offset, done,
                 (unsigned long long)bs);
    else
        snprintf(err, err_len, "write %s at byte %llu: short transfer of %zd of %llu bytes",
                 file->name, (unsigned long long)offset, done, (unsigned long long)bs);
    return -1;
}

static int run_psync(struct disk_file *file, int fd, enum disk_direction direction,
                     const uint64_t *order, int64_t deadline_ns, unsigned generation,
                     struct vp_histogram *histogram, struct vp_job *job,
                     struct disk_timing *timing, char *err, size_t err_len)
{
    uint64_t bs = file->options.bs, ops = file->options.size / bs;
    unsigned char *buffer = file->buffers;
    for (uint64_t i = 0; more_ops(i, ops, deadline_ns); i++) {
        uint64_t offset = order[i % ops] * bs;
        if (direction == DISK_WRITE)
            fill_block(file, buffer, offset, generation);
        int64_t start = vp_now_ns();
        ssize_t done = direction == DISK_WRITE ? pwrite(fd, buffer, bs, (off_t)offset)
                                               : pread(fd, buffer, bs, (off_t)offset);
        int64_t end = vp_now_ns();
        if (done != (ssize_t)bs)
            return transfer_error(file, fd, buffer, direction, offset, done, errno, err, err_len);
        note_op(histogram, job, start, end, timing);
        if (direction == DISK_WRITE)
            remember_write(file, offset, generation);
        else if (file->options.verify && check_block(file, buffer, offset, err, err_len) != 0)
            return -1;
    }
    return 0;
}

#ifdef VP_HAVE_LIBURING
/* Keeps up to iodepth operations in flight; each one's latency runs from just before
 * its submission to the moment its completion is reaped. */
static int run_io_uring(struct disk_file *file, int fd, enum disk_direction direction,
                        const uint64_t *order, int64_t deadline_ns, unsigned generation,
                        struct vp_histogram *histogram, struct vp_job *job,
                        struct disk_timing *timing, char *err, size_t err_len)
{
    uint64_t bs = file->options.bs, ops = file->options.size / bs;
    unsigned depth = file->options.iodepth;
    struct io_uring ring;
    int rc = io_uring_queue_init(depth, &ring, 0);
    if (rc < 0) {
        snprintf(err, err_len, "io_uring_queue_init: %s", strerror(-rc));
        return -1;
    }
    int64_t *submitted_at = calloc(depth, sizeof *submitted_at);
    uint64_t *offsets = calloc(depth, sizeof *offsets);
    unsigned *free_slots = calloc(depth, sizeof *free_slots);
    if (!submitted_at || !offsets || !free_slots)
        abort();
    unsigned free_count = depth;
    for (unsigned slot = 0; slot < depth; slot++)
        free_slots[slot] = depth - 1 - slot;
    uint64_t next = 0, completed = 0;
    int status = 0;
    while ((completed < next || more_ops(next, ops, deadline_ns)) && status == 0) {
        while (free_count > 0 && more_ops(next, ops, deadline_ns)) {
            unsigned slot = free_slots[--free_count];
            unsigned char *buffer = file->buffers + (size_t)slot * bs;
            offsets[slot] = order[next++ % ops] * bs;
            struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
            if (direction == DISK_WRITE) {
                fill_block(file, buffer, offsets[slot], generation);
                io_uring_prep_write(sqe, fd, buffer, (unsigned)bs, offsets[slot]);
            } else {
                io_uring_prep_read(sqe, fd, buffer, (unsigned)bs, offsets[slot]);
            }
            io_uring_sqe_set_data64(sqe, slot);
            submitted_at[slot] = vp_now_ns();
        }
        io_uring_submit(&ring);
        struct io_uring_cqe *cqe;
        rc = io_uring_wait_cqe(&ring, &cqe);
        int64_t end = vp_now_ns();
        if (rc < 0) {
            snprintf(err, err_len, "io_uring_wait_cqe: %s", strerror(-rc));
            status = -1;
            break;
        }
        unsigned slot = (unsigned)io_uring_cqe_get_data64(cqe);
        int result = cqe->res;
        io_uring_cqe_seen(&ring, cqe);
        if (result != (int)bs) {
            status = transfer_error(file, fd, file->buffers + (size_t)slot * bs, direction,
                                    offsets[slot], result < 0 ? -1 : result, -result, err,
                                    err_len);
            break;
        }
        note_op(histogram, job, submitted_at[slot], end, timing);
        if (direction == DISK_WRITE)
            remember_write(file, offsets[slot], generation);
        else if (file->options.verify)
            status = check_block(file, file->buffers + (size_t)slot * bs, offsets[slot], err,
                                 err_len);
        free_slots[free_count++] = slot;
        completed++;
    }
    io_uring_queue_exit(&ring);
    free(submitted_at);
    free(offsets);
    free(free_slots);
    return status;
}
#endif

int disk_file_run(struct disk_file *file, enum disk_direction direction, const uint64_t *order,
                  int64_t deadline_ns, unsigned generation, struct vp_histogram *histogram,
                  struct vp_job *job, struct disk_timing *timing, char *err, size_t err_len)
{
    memset(timing, 0, sizeof *timing);
    int64_t opened_at = vp_now_ns();
    int fd = open_file(file, direction, direction == DISK_WRITE, file->options.direct, err,
                       err_len);
    if (fd < 0)
        return -1;
    int64_t io_start = vp_now_ns();
    int status;
#ifdef VP_HAVE_LIBURING
    if (file->options.io_uring)
        status = run_io_uring(file, fd, direction, order, deadline_ns, generation, histogram,
                              job, timing, err, err_len);
    else
#endif
        status = run_psync(file, fd, direction, order, deadline_ns, generation, histogram, job,
                           timing, err, err_len);
    int64_t io_end = vp_now_ns();
    int64_t synced = io_end;
    if (status == 0 && direction == DISK_WRITE && file->options.fsync) {
        if (fsync(fd) != 0) {
            snprintf(err, err_len, "fsync %s: %s", file->name, strerror(errno));
            status = -1;
        }
        synced = vp_now_ns();
    }
    if (close(fd) != 0 && status == 0) {
        snprintf(err, err_len, "close %s: %s", file->name, strerror(errno));
        status = -1;
    }
    int64_t closed = vp_now_ns();
    timing->open_s = (double)(io_start - opened_at) / 1e9;
    timing->io_s = (double)(io_end - io_start) / 1e9;
    timing->fsync_s = (double)(synced - io_end) / 1e9;
    timing->close_s = (double)(closed - synced) / 1e9;
    return status;
}

int disk_file_reserve(struct disk_file *file, bool required, char *err, size_t err_len)
{
    unlink(file->name);
    int fd = open(file->name, O_CREAT | O_EXCL | O_NOFOLLOW | O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(err, err_len, "open %s: %s", file->name, strerror(errno));
        return -1;
    }
    /* fallocate, not posix_fallocate: where the filesystem cannot, glibc's fallback
     * writes every block, which is a layout, not a reservation */
    int status = fallocate(fd, 0, 0, (off_t)file->options.size);
    if (status != 0 && required)
        snprintf(err, err_len, "--preallocate: fallocate %s: %s", file->name, strerror(errno));
    close(fd);
    return required ? status : 0;
}

int disk_file_layout(struct disk_file *file, char *err, size_t err_len)
{
    uint64_t blocks = file->options.size / file->options.bs;
    uint64_t *order = malloc(blocks * sizeof *order);
    if (!order)
        abort();
    for (uint64_t i = 0; i < blocks; i++)
        order[i] = i;
    struct disk_options wanted = file->options;
    file->options.io_uring = 0;
    file->options.sync = 0;
    file->options.fsync = 1;
    file->options.verify = 0;
    /* A fresh file, its space reserved where the filesystem can, then fully written:
     * never sparse, never read from unwritten extents. */
    if (disk_file_reserve(file, false, err, err_len) != 0) {
        free(order);
        file->options = wanted;
        return -1;
    }
    struct disk_timing ignored;
    int status = disk_file_run(file, DISK_WRITE, order, 0, 0, NULL, NULL, &ignored, err, err_len);
    file->options = wanted;
    free(order);
    return status;
}

int disk_file_drop_cache(struct disk_file *file, char *err, size_t err_len)
{
    int fd = open(file->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, err_len, "open %s: %s", file->name, strerror(errno));
        return -1;
    }
    fdatasync(fd);
    int rc = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
    if (rc != 0) {
        snprintf(err, err_len, "posix_fadvise(DONTNEED) %s: %s", file->name, strerror(rc));
        return -1;
    }
    return 0;
}

int disk_file_verify(struct disk_file *file, char *err, size_t err_len)
{
    int fd = open(file->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, err_len, "verify: open %s: %s", file->name, strerror(errno));
        return -1;
    }
    uint64_t bs = file->options.bs, checked = 0;
    int status = 0;
    for (uint64_t offset = 0; offset < file->options.size && status == 0; offset += bs) {
        if (file->written && !file->written[offset / bs])
            continue; /* not written since the file was made: nothing to expect */
        ssize_t done = pread(fd, file->buffers, bs, (off_t)offset);
        if (done != (ssize_t)bs)
            status = transfer_error(file, fd, file->buffers, DISK_READ, offset, done, errno, err,
                                    err_len);
        else
            status = check_block(file, file->buffers, offset, err, err_len);
        checked++;
    }
    /* Every byte the file holds must have been checked: blocks written but never
     * recorded would otherwise pass unread. */
    struct stat info;
    if (status == 0 && fstat(fd, &info) == 0 && checked * bs < (uint64_t)info.st_size) {
        snprintf(err, err_len, "verify: %s holds %lld bytes but only %llu were recorded as "
                 "written", file->name, (long long)info.st_size,
                 (unsigned long long)(checked * bs));
        status = -1;
    }
    close(fd);
    return status;
}

int disk_io_uring_check(char *err, size_t err_len)
{
#ifdef VP_HAVE_LIBURING
    struct io_uring ring;
    int rc = io_uring_queue_init(1, &ring, 0);
    if (rc < 0) {
        snprintf(err, err_len, "--engine=io_uring: the kernel refused io_uring here: %s; "
                 "accepted here: --engine=psync", strerror(-rc));
        return -1;
    }
    io_uring_queue_exit(&ring);
    return 0;
#else
    snprintf(err, err_len, "--engine=io_uring: this virtperf was built without liburing "
             "(install liburing-dev and rebuild); accepted here: --engine=psync");
    return -1;
#endif
}
