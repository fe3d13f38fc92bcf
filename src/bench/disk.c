/* disk.*: iozone's six tests (-i0 -i1 -i2) as dd/iozone users know them, measured
 * honestly. Each job has its own file under --path. Timed separately: open, the I/O
 * loop, fsync and close; throughput is end to end (what dd reports), io_throughput the
 * I/O loop alone. Every operation's latency goes into the mergeable histogram and its
 * completion instant into the engine's op log (stonewalled aggregates). Files are laid
 * out with incompressible data before any read, dropped from the page cache before
 * buffered reads, and removed on every exit path unless --keep. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <math.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "bench/bench.h"
#include "bench/cache_evidence.h"
#include "bench/disk_io.h"
#include "core/clock.h"
#include "core/procfs.h"
#include "core/random.h"
#include "core/scratch.h"
#include "core/json.h"
#include "core/sysinfo.h"
#include "core/units.h"

enum disk_test { TEST_WRITE, TEST_REWRITE, TEST_READ, TEST_REREAD, TEST_RANDREAD, TEST_RANDWRITE };

static const struct vp_option disk_options[] = {
    { "path", VP_OPT_TEXT, ".", 0, 0, NULL,
      "directory for the jobs' files: any mounted filesystem (local disk, NFS, GPFS...)" },
    { "size", VP_OPT_SIZE, "64m", 4096, 17592186044416.0, NULL,
      "bytes per job, a multiple of --bs (the CNAF and IHEP studies used 10g and 8g)" },
    { "bs", VP_OPT_SIZE, "64k", 512, 67108864.0, NULL, "bytes per operation (record size)" },
    { "direct", VP_OPT_CHOICE, "auto", 0, 0, "auto|on|off",
      "O_DIRECT: auto uses it where the filesystem allows and says so where not" },
    { "sync", VP_OPT_CHOICE, "off", 0, 0, "off|on", "open with O_SYNC (iozone -+r)" },
    { "fsync", VP_OPT_CHOICE, "on", 0, 0, "off|on",
      "writes: fsync before close, inside the timed span (iozone -e)" },
    { "iodepth", VP_OPT_COUNT, "1", 1, 1024, NULL, "operations in flight (io_uring only)" },
    { "engine", VP_OPT_CHOICE, "psync", 0, 0, "psync|io_uring",
      "psync: pread/pwrite; io_uring: liburing with --iodepth" },
    { "seed", VP_OPT_COUNT, "1", 0, 1e18, NULL, "seed for random offsets and data" },
    { "verify", VP_OPT_CHOICE, "off", 0, 0, "off|on",
      "check every block read, and read back every write untimed; a mismatch fails" },
    { "drop-caches", VP_OPT_CHOICE, "off", 0, 0, "off|on",
      "also write 1 to /proc/sys/vm/drop_caches before reads (root)" },
    { "preallocate", VP_OPT_CHOICE, "off", 0, 0, "off|on",
      "disk.write: on reserves each file's blocks with fallocate, untimed, before every "
      "write (as fio lays out a file for a write job); off lets the write allocate (dd, "
      "iozone -i0)" },
    { "keep", VP_OPT_CHOICE, "off", 0, 0, "off|on",
      "keep the files, named virtperf-jobN.dat, for --reuse" },
    { "reuse", VP_OPT_CHOICE, "off", 0, 0, "off|on",
      "reads: read kept virtperf-jobN.dat files instead of laying out new ones" },
};

enum disk_metric {
    DISK_THROUGHPUT,
    DISK_IO_THROUGHPUT,
    DISK_IOPS,
    DISK_LATENCY,
    DISK_OPEN_TIME,
    DISK_IO_TIME,
    DISK_FSYNC_TIME,
    DISK_CLOSE_TIME,
    DISK_OPS,
    DISK_METRIC_COUNT
};

static const struct vp_metric disk_metrics[] = {
    [DISK_THROUGHPUT] = { "throughput", "B/s", VP_HIGHER_IS_BETTER, VP_AGG_SUM,
        "bytes / (open + I/O + fsync + close): the end-to-end rate dd reports" },
    [DISK_IO_THROUGHPUT] = { "io_throughput", "B/s", VP_HIGHER_IS_BETTER, VP_AGG_SUM,
                             "bytes / the I/O loop alone" },
    [DISK_IOPS] = { "iops", "ops/s", VP_HIGHER_IS_BETTER, VP_AGG_SUM,
                    "operations / the I/O loop" },
    [DISK_LATENCY] = { "latency", "s", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
        "seconds per operation (mean; percentiles in its distribution)" },
    [DISK_OPEN_TIME] = { "open_time", "s", VP_LOWER_IS_BETTER, VP_AGG_MEAN, "open(2)" },
    [DISK_IO_TIME] = { "io_time", "s", VP_LOWER_IS_BETTER, VP_AGG_MEAN, "the I/O loop" },
    [DISK_FSYNC_TIME] = { "fsync_time", "s", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
                          "fsync(2) (0 when not done)" },
    [DISK_CLOSE_TIME] = { "close_time", "s", VP_LOWER_IS_BETTER, VP_AGG_MEAN, "close(2)" },
    [DISK_OPS] = { "ops", "ops", VP_HIGHER_IS_BETTER, VP_AGG_SUM,
                   "operations done: every block once, or as many as --duration allowed" },
};
_Static_assert(sizeof disk_metrics / sizeof disk_metrics[0] == DISK_METRIC_COUNT,
               "one metric per slot");

/* Decided in the parent (validate/setup) and inherited by the forked jobs. */
static struct {
    int direct_usable;
    char fstype[64];
    char mount_point[1024];
    /* The jobs' working directory: made by mkdtemp under --path (mode 0700, a name nobody
     * can guess), so no other user can plant a link where a job creates its file. */
    char private_dir[PATH_MAX];
} probe;

struct disk_state {
    enum disk_test test;
    struct disk_file file;
    uint64_t *order; /* block order for random tests */
};

static enum disk_test test_of(const struct vp_job *job);

static int is_write_test(enum disk_test test)
{
    return test == TEST_WRITE || test == TEST_REWRITE || test == TEST_RANDWRITE;
}

/* Where a job's file is kept between runs (--keep writes it, --reuse reads it). */
static void kept_file_name(const struct vp_params *params, unsigned job, char *buf, size_t len)
{
    snprintf(buf, len, "%s/virtperf-job%u.dat", vp_param_text(params, "path"), job);
}

/* A job's file: the kept one when a read test reuses it, else one in the private
 * directory (moved to its kept name at the end with --keep). */
static void job_file_name(const struct vp_params *params, enum disk_test test, unsigned job,
                          char *buf, size_t len)
{
    if (vp_param_on(params, "reuse") && !is_write_test(test))
        kept_file_name(params, job, buf, len);
    else
        snprintf(buf, len, "%.4000s/job%u.dat", probe.private_dir, job);
}

/* A kept file is read only when it is a regular file of the caller's, and as large as
 * --size: never through a link, never a device or another user's file. */
static int check_reusable(const char *name, uint64_t size, char *err, size_t err_len)
{
    int fd = open(name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat info;
    bool usable = fd >= 0 && fstat(fd, &info) == 0 && S_ISREG(info.st_mode) &&
                  info.st_uid == geteuid() && (uint64_t)info.st_size >= size;
    if (fd < 0)
        snprintf(err, err_len, "--reuse: %.160s: %s (a link is never followed; --keep makes "
                 "the file)", name, strerror(errno));
    else if (!usable)
        snprintf(err, err_len, "--reuse: %.120s is not a regular file of uid %d holding "
                 "--size bytes (make it with --keep)", name, (int)geteuid());
    if (fd >= 0)
        close(fd);
    return usable ? 0 : -1;
}

/* The filesystem holding path. */
static void find_filesystem(const char *path)
{
    vp_filesystem_of(path, probe.fstype, sizeof probe.fstype, probe.mount_point,
                     sizeof probe.mount_point);
}

/* Whether the filesystem accepts O_DIRECT I/O of bs bytes (some refuse the open, some
 * the I/O). */
static int direct_works(const char *path, uint64_t bs)
{
    char name[PATH_MAX];
    snprintf(name, sizeof name, "%s/virtperf-probe-XXXXXX", path);
    int made = mkostemp(name, O_CLOEXEC); /* a new file, a name nobody could guess */
    if (made < 0)
        return 0;
    int fd = open(name, O_RDWR | O_DIRECT | O_NOFOLLOW | O_CLOEXEC);
    unlink(name);
    close(made);
    if (fd < 0)
        return 0;
    void *buffer = NULL;
    int works = posix_memalign(&buffer, 4096, bs) == 0;
    if (works) {
        memset(buffer, 0, bs);
        works = pwrite(fd, buffer, bs, 0) == (ssize_t)bs;
    }
    free(buffer);
    close(fd);
    return works;
}

/* Whether the filesystem reserves blocks with fallocate (ramfs and some network
 * filesystems do not). */
static bool fallocate_works(const char *path)
{
    char name[PATH_MAX];
    snprintf(name, sizeof name, "%s/virtperf-probe-XXXXXX", path);
    int fd = mkostemp(name, O_CLOEXEC);
    if (fd < 0)
        return false;
    unlink(name);
    bool works = fallocate(fd, 0, 0, 65536) == 0;
    close(fd);
    return works;
}

static int disk_validate(const struct vp_params *params, unsigned max_jobs, char *err,
                         size_t err_len)
{
    const char *path = vp_param_text(params, "path");
    uint64_t size = vp_param_number(params, "size"), bs = vp_param_number(params, "bs");
    struct stat info;
    bool found = stat(path, &info) == 0;
    if (!found || !S_ISDIR(info.st_mode)) {
        /* errno speaks only of a failed stat: a file that exists is "not a directory" */
        bool missing = !found && (errno == ENOENT || errno == ENOTDIR);
        snprintf(err, err_len, "--path %s: %s; accepted: an existing directory", path,
                 missing ? "no such directory" : "not a directory");
        return -1;
    }
    find_filesystem(path);
    if (access(path, W_OK) != 0) {
        snprintf(err, err_len, "--path %s (%s): not writable: %s", path, probe.fstype,
                 strerror(errno));
        return -1;
    }
    if (size % bs != 0) {
        snprintf(err, err_len, "--size %llu is not a multiple of --bs %llu",
                 (unsigned long long)size, (unsigned long long)bs);
        return -1;
    }
    if (vp_param_number(params, "iodepth") > 1 &&
        strcmp(vp_param_text(params, "engine"), "io_uring") != 0) {
        snprintf(err, err_len, "--iodepth above 1 needs --engine=io_uring (psync does one "
                 "operation at a time)");
        return -1;
    }
    if (strcmp(vp_param_text(params, "engine"), "io_uring") == 0 &&
        disk_io_uring_check(err, err_len) != 0)
        return -1;
    struct statvfs space;
    /* Filesystems that report no size (ramfs, some FUSE) cannot be checked. */
    if (statvfs(path, &space) == 0 && space.f_blocks > 0 && !vp_param_on(params, "reuse")) {
        double free_bytes = (double)space.f_bavail * (double)space.f_frsize;
        double needed = (double)size * max_jobs * 1.02 + 16.0 * 1048576;
        if (free_bytes < needed) {
            char want[32], have[32], each[32];
            vp_format_bytes(needed, want, sizeof want);
            vp_format_bytes(free_bytes, have, sizeof have);
            vp_format_bytes((double)size, each, sizeof each);
            snprintf(err, err_len, "--path %s (%s): needs %s for %u jobs x %s, %s free",
                     path, probe.fstype, want, max_jobs, each, have);
            return -1;
        }
    }
    if (vp_param_on(params, "preallocate") && !fallocate_works(path)) {
        snprintf(err, err_len, "--preallocate=on: %s at %s cannot reserve blocks "
                 "(fallocate); accepted there: --preallocate=off", probe.fstype,
                 probe.mount_point);
        return -1;
    }
    probe.direct_usable = strcmp(vp_param_text(params, "direct"), "off") != 0 &&
                          direct_works(path, bs);
    if (strcmp(vp_param_text(params, "direct"), "on") == 0 && !probe.direct_usable) {
        snprintf(err, err_len, "--direct=on: %s at %s refuses O_DIRECT for %llu-byte "
                 "operations; accepted there: --direct=auto or --direct=off", probe.fstype,
                 probe.mount_point, (unsigned long long)bs);
        return -1;
    }
    return 0;
}

/* One pass: every block once. Time-bound: room for TIMED_OP_LOG completions per job
 * (shared memory that is only touched as it fills); past that the engine leaves the
 * aggregate rates out and says so. */
#define TIMED_OP_LOG (1u << 22)

static uint64_t disk_ops_per_rep(const struct vp_params *params, double duration)
{
    if (duration > 0)
        return TIMED_OP_LOG;
    return vp_param_number(params, "size") / vp_param_number(params, "bs");
}

static struct disk_options options_of(const struct vp_job *job)
{
    const struct vp_params *params = job->params;
    return (struct disk_options){
        .size = vp_param_number(params, "size"),
        .bs = vp_param_number(params, "bs"),
        .direct = probe.direct_usable,
        .sync = vp_param_on(params, "sync"),
        .fsync = vp_param_on(params, "fsync"),
        .iodepth = (unsigned)vp_param_number(params, "iodepth"),
        .io_uring = strcmp(vp_param_text(params, "engine"), "io_uring") == 0,
        .verify = vp_param_on(params, "verify"),
        .seed = vp_param_number(params, "seed") * 1000003 + job->index,
    };
}

/* Block order: sequential, or a seeded random permutation (every block once). */
static uint64_t *block_order(uint64_t blocks, uint64_t seed, int random)
{
    uint64_t *order = malloc(blocks * sizeof *order);
    if (!order)
        abort();
    for (uint64_t i = 0; i < blocks; i++)
        order[i] = i;
    uint64_t state = seed | 1;
    for (uint64_t i = blocks - 1; random && i > 0; i--) {
        uint64_t j = vp_xorshift64(&state) % (i + 1);
        uint64_t swap = order[i];
        order[i] = order[j];
        order[j] = swap;
    }
    return order;
}

static int drop_caches_if_asked(struct vp_job *job, struct disk_state *state)
{
    if (disk_file_drop_cache(&state->file, job->error, sizeof job->error) != 0)
        return -1;
    if (vp_param_on(job->params, "drop-caches")) {
        int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
        if (fd < 0 || write(fd, "1", 1) != 1) {
            snprintf(job->error, sizeof job->error,
                     "--drop-caches: cannot write /proc/sys/vm/drop_caches: %s (needs root)",
                     strerror(errno));
            if (fd >= 0)
                close(fd);
            return -1;
        }
        close(fd);
    }
    return 0;
}

/* disk.write's file before a repetition: none (the write allocates), or with
 * --preallocate its blocks reserved, as fio does. */
static int fresh_file(struct vp_job *job, struct disk_state *state)
{
    if (vp_param_on(job->params, "preallocate"))
        return disk_file_reserve(&state->file, true, job->error, sizeof job->error);
    unlink(state->file.name);
    return 0;
}

static int disk_prepare(struct vp_job *job)
{
    struct disk_state *state = calloc(1, sizeof *state);
    if (!state)
        abort();
    job->state = state;
    state->test = test_of(job);
    char name[PATH_MAX];
    job_file_name(job->params, state->test, job->index, name, sizeof name);
    struct disk_options options = options_of(job);
    if (vp_param_on(job->params, "reuse") && !is_write_test(state->test) &&
        check_reusable(name, options.size, job->error, sizeof job->error) != 0)
        return -1;
    job->op_bytes = options.bs;
    if (disk_file_init(&state->file, name, &options, job->error, sizeof job->error) != 0)
        return -1;
    int random = state->test == TEST_RANDREAD || state->test == TEST_RANDWRITE;
    state->order = block_order(options.size / options.bs, options.seed, random);
    if (state->test == TEST_WRITE)
        return fresh_file(job, state);
    if (!(vp_param_on(job->params, "reuse") && !is_write_test(state->test)) &&
        disk_file_layout(&state->file, job->error, sizeof job->error) != 0)
        return -1;
    if (is_write_test(state->test))
        return 0;
    if (drop_caches_if_asked(job, state) != 0)
        return -1;
    if (state->test == TEST_REREAD) { /* reread: the second read of a file just read */
        struct disk_timing ignored;
        return disk_file_run(&state->file, DISK_READ, state->order, 0, 0, NULL, NULL, &ignored,
                             job->error, sizeof job->error);
    }
    return 0;
}

/* Rewrites carry a new generation each repetition, so a verify proves that pass landed;
 * laid-out files and first writes are generation 0. */
static unsigned generation_of(const struct vp_job *job)
{
    const struct disk_state *state = job->state;
    return state->test == TEST_REWRITE || state->test == TEST_RANDWRITE ? job->rep + 1 : 0;
}

static int disk_measure(struct vp_job *job, double *values)
{
    struct disk_state *state = job->state;
    unsigned generation = generation_of(job);
    enum disk_direction direction = is_write_test(state->test) ? DISK_WRITE : DISK_READ;
    struct disk_timing timing;
    int64_t deadline = job->duration > 0 ? vp_now_ns() + (int64_t)(job->duration * 1e9) : 0;
    if (disk_file_run(&state->file, direction, state->order, deadline, generation,
                      job->histogram, job, &timing, job->error, sizeof job->error) != 0)
        return -1;
    double ops = (double)timing.ops;
    double bytes = ops * (double)state->file.options.bs;
    double total = timing.open_s + timing.io_s + timing.fsync_s + timing.close_s;
    values[DISK_THROUGHPUT] = bytes / total;
    values[DISK_IO_THROUGHPUT] = bytes / timing.io_s;
    values[DISK_IOPS] = ops / timing.io_s;
    values[DISK_LATENCY] = ops > 0 ? timing.op_sum_s / ops : NAN;
    values[DISK_OPS] = ops;
    values[DISK_OPEN_TIME] = timing.open_s;
    values[DISK_IO_TIME] = timing.io_s;
    values[DISK_FSYNC_TIME] = timing.fsync_s;
    values[DISK_CLOSE_TIME] = timing.close_s;
    return 0;
}

static int disk_after_rep(struct vp_job *job)
{
    struct disk_state *state = job->state;
    if (is_write_test(state->test) && state->file.options.verify &&
        disk_file_verify(&state->file, job->error, sizeof job->error) != 0)
        return -1;
    bool last = job->rep + 1 == job->rep_count;
    if (state->test == TEST_WRITE && !(last && vp_param_on(job->params, "keep"))) {
        unlink(state->file.name); /* the next repetition is a first write again */
        disk_file_forget(&state->file);
        if (!last && fresh_file(job, state) != 0)
            return -1;
    }
    if (state->test == TEST_READ || state->test == TEST_RANDREAD)
        return drop_caches_if_asked(job, state);
    return 0;
}

static void disk_release(struct vp_job *job)
{
    struct disk_state *state = job->state;
    free(state->order);
    disk_file_free(&state->file);
    free(state);
}

static int disk_setup(const struct vp_params *params, char *err, size_t err_len)
{
    char why[VP_ERROR_LEN];
    if (vp_scratch_make(vp_param_text(params, "path"), "virtperf", probe.private_dir,
                        sizeof probe.private_dir, why, sizeof why) != 0) {
        snprintf(err, err_len, "--path %s: %s", vp_param_text(params, "path"), why);
        return -1;
    }
    return 0;
}

/* Keeps the jobs' files under their kept names when asked (rename replaces whatever
 * was at the name, a planted link included, and never writes through it), removes the
 * rest and the private directory. */
static void disk_teardown(const struct vp_params *params, unsigned jobs)
{
    if (!probe.private_dir[0])
        return;
    for (unsigned job = 0; job < jobs; job++) {
        char name[PATH_MAX + 16], kept[PATH_MAX];
        snprintf(name, sizeof name, "%.4000s/job%u.dat", probe.private_dir, job);
        kept_file_name(params, job, kept, sizeof kept);
        if (vp_param_on(params, "keep"))
            rename(name, kept);
    }
    vp_scratch_remove(probe.private_dir);
    probe.private_dir[0] = '\0';
}

/* Warns where O_DIRECT was refused, and puts the device's own counters beside the
 * benchmark's figures (cache_evidence.h). */
static const struct vp_result_part *const disk_parts[] = { &vp_part_device, NULL };

static void disk_annotate(const struct vp_params *params, unsigned jobs, json_t *result)
{
    if (strcmp(vp_param_text(params, "direct"), "off") != 0 && !probe.direct_usable)
        vp_result_warn(result, "O_DIRECT refused by %s at %s: buffered I/O, page cache dropped "
                    "before reads", probe.fstype, probe.mount_point);
    const char *bench = json_string_value(json_object_get(result, "bench"));
    double read_by_jobs = vp_result_mean(result, "ops") * (double)vp_param_number(params, "bs") *
                          (double)json_integer_value(json_object_get(result, "reps"));
    vp_annotate_device_reads(result, vp_param_text(params, "path"), probe.fstype,
                             probe.mount_point, strstr(bench, "read") != NULL,
                             vp_result_mean(result, "io_throughput") / jobs, read_by_jobs);
}

#define DISK_DESCRIPTION(what)                                                              \
    what " Each job has its own file under --path. Timed separately: open, the I/O loop, "  \
    "fsync (writes, --fsync=on) and close; throughput is end to end (dd's figure), "        \
    "io_throughput the I/O loop alone. Per-operation latencies form a mergeable histogram " \
    "(p50..p99.99, max). stonewall_throughput counts bytes done while every job ran; "      \
    "span_throughput all bytes over first start..last done. With --duration (fio's "        \
    "time_based) a job goes over its blocks again and again, in the same order and seeded " \
    "random order, until the time is up; ops counts what it did. Files are removed "       \
    "afterwards unless --keep."

#define DISK_BENCH(symbol, bench_name, bench_summary, what)                                 \
    const struct vp_bench symbol = {                                                        \
        .name = bench_name,                                                                 \
        .summary = bench_summary,                                                           \
        .description = DISK_DESCRIPTION(what),                                              \
        .options = disk_options,                                                            \
        .option_count = sizeof disk_options / sizeof disk_options[0],                       \
        .metrics = disk_metrics,                                                            \
        .metric_count = DISK_METRIC_COUNT,                                                  \
        .uses_duration = true,                                                              \
        .distribution_metric = "latency",                                                   \
        .ops_per_rep = disk_ops_per_rep,                                                    \
        .validate = disk_validate,                                                          \
        .setup = disk_setup,                                                                \
        .prepare = disk_prepare,                                                            \
        .measure = disk_measure,                                                            \
        .after_rep = disk_after_rep,                                                        \
        .release = disk_release,                                                            \
        .annotate = disk_annotate,                                                          \
        .teardown = disk_teardown,                                                          \
        .parts = disk_parts,                                                                \
        .units = VP_UNITS_SI,                                                               \
    }

DISK_BENCH(vp_bench_disk_write, "disk.write", "first (allocating) sequential write per job",
           "Creates each file and writes it sequentially (iozone -i0 write, dd); the file "
           "is deleted after each repetition so every repetition allocates, or with "
           "--preallocate=on is made anew with its blocks reserved (fio's layout).");
DISK_BENCH(vp_bench_disk_rewrite, "disk.rewrite", "sequential overwrite of an existing file",
           "Overwrites a fully laid-out file sequentially (iozone -i0 rewrite).");
DISK_BENCH(vp_bench_disk_read, "disk.read", "sequential read, page cache dropped first",
           "Reads a file laid out with incompressible data, dropped from the page cache "
           "before every repetition (iozone -i1 read).");
DISK_BENCH(vp_bench_disk_reread, "disk.reread", "sequential read of a file just read",
           "Reads a file that was just read (iozone -i1 reread): what caches give.");
DISK_BENCH(vp_bench_disk_randread, "disk.randread", "random-order reads of every block",
           "Reads every --bs block once in a seeded random order (iozone -i2 random read).");
DISK_BENCH(vp_bench_disk_randwrite, "disk.randwrite", "random-order overwrite of every block",
           "Overwrites every --bs block once in a seeded random order (iozone -i2 random "
           "write).");

static enum disk_test test_of(const struct vp_job *job)
{
    static const struct { const struct vp_bench *bench; enum disk_test test; } tests[] = {
        { &vp_bench_disk_write, TEST_WRITE }, { &vp_bench_disk_rewrite, TEST_REWRITE },
        { &vp_bench_disk_read, TEST_READ }, { &vp_bench_disk_reread, TEST_REREAD },
        { &vp_bench_disk_randread, TEST_RANDREAD }, { &vp_bench_disk_randwrite, TEST_RANDWRITE },
    };
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++)
        if (tests[i].bench == job->bench)
            return tests[i].test;
    abort();
}
