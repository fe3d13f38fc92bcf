/* data.*: many jobs reading files from a shared store, as a grid or HPC site's jobs do
 * (the GridKa study: 10 to 70 jobs at once copying file collections from a NAS box over
 * NFS and over xrootd, then with a larger read size). The store is a fileset that a
 * manifest describes (core/fileset.h); each job takes --per-job of its files, chosen at
 * random from a seed, and reads them through a POSIX path or a URL (data_source.h)
 * with --read-size per request. data.copy reads whole files (to nowhere, or with --to to
 * local scratch or a server's directory, copy_target.h); data.read reads --ranges
 * scattered ranges of each, as an analysis job reads a ROOT file. Every request's latency
 * goes into the histogram and its completion into the op log; every file's length is
 * checked against the manifest, and with --verify every byte (copy: the file's SHA-256;
 * read: each range against the seeded content). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/bench.h"
#include "bench/cache_evidence.h"
#include "bench/copy_target.h"
#include "bench/data_part.h"
#include "bench/data_source.h"
#include "core/clock.h"
#include "core/fileset.h"
#include "core/guest_mount.h"
#include "core/json.h"
#include "core/limits.h"
#include "core/random.h"
#include "core/sha256.h"
#include "core/units.h"

#define NONE "none"

#define DATA_COMMON_OPTIONS                                                                   \
    { "source", VP_OPT_TEXT, NONE, 0, 0, NULL,                                               \
      "where the fileset is: a directory (any mount: NFS, GPFS, CephFS, local) or a "       \
      "root://, http(s)://, dav(s)://, nfs:// URL" },                                        \
    { "manifest", VP_OPT_TEXT, "auto", 0, 0, NULL,                                           \
      "the fileset's manifest (path or URL); auto: " VP_FILESET_MANIFEST " in --source" },    \
    { "files", VP_OPT_COUNT, "0", 0, VP_FILESET_MAX_FILES, NULL,                              \
      "use the manifest's first N files (0: all of them)" },                                 \
    { "per-job", VP_OPT_COUNT, "1", 1, VP_FILESET_MAX_FILES, NULL,                            \
      "files each job reads, chosen at random (--seed) among --files, none twice" },         \
    { "read-size", VP_OPT_SIZE_LIST, "512k", 1, 67108864.0, NULL,                            \
      "bytes per request (4k: small reads, a round trip each; 512k: a TFile cache's "        \
      "blocks); a list is a sweep" },                                                        \
    { "seed", VP_OPT_COUNT, "1", 0, 1e18, NULL, "seed for the files chosen and the ranges" }, \
    { "verify", VP_OPT_CHOICE, "off", 0, 0, "off|on",                                        \
      "check every byte read against the manifest (costs CPU inside the timed span)" },     \
    { "drop-caches", VP_OPT_CHOICE, "off", 0, 0, "off|on",                                   \
      "directory sources: also write 1 to /proc/sys/vm/drop_caches before each "           \
      "repetition (root)" },                                                                 \
    { "timeout", VP_OPT_DURATION, "30s", 1, 3600, NULL,                                     \
      "longest wait for one request (an open, a read, a close; to connect, for a URL): a "  \
      "request past it fails the job, even one blocked in the kernel on a hung mount" }

static const struct vp_option copy_options[] = {
    DATA_COMMON_OPTIONS,
    { "to", VP_OPT_TEXT, NONE, 0, 0, NULL,
      "write each copy under this local directory, or to a directory's nfs://, root://, "
      "dav:// URL (each copy removed after its repetition); none: read and discard" },
};

static const struct vp_option read_options[] = {
    DATA_COMMON_OPTIONS,
    { "ranges", VP_OPT_COUNT, "128", 1, 1e7, NULL,
      "requests per file, each --read-size bytes at a random aligned offset" },
};

enum data_metric {
    DATA_JOB_TIME,
    DATA_JOB_TIME_MAX,
    DATA_THROUGHPUT,
    DATA_IOPS,
    DATA_LATENCY,
    DATA_CPU_USER,
    DATA_CPU_SYSTEM,
    DATA_OPEN_TIME,
    DATA_BYTES,
    DATA_METRIC_COUNT
};

static const struct vp_metric data_metrics[] = {
    [DATA_JOB_TIME] = { "job_time", "s", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
        "seconds a job took for all its files, open to close (the GridKa study's figure)" },
    [DATA_JOB_TIME_MAX] = { "job_time_max", "s", VP_LOWER_IS_BETTER, VP_AGG_MAX,
                            "the slowest job's time" },
    [DATA_THROUGHPUT] = { "throughput", "B/s", VP_HIGHER_IS_BETTER, VP_AGG_SUM,
                          "bytes / job time, summed over the jobs" },
    [DATA_IOPS] = { "iops", "ops/s", VP_HIGHER_IS_BETTER, VP_AGG_SUM,
                    "read requests / job time, summed over the jobs" },
    [DATA_LATENCY] = { "latency", "s", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
                       "seconds per read request (percentiles in its distribution)" },
    [DATA_CPU_USER] = { "cpu_user", "s", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
                        "user CPU seconds per job (the client library's threads included)" },
    [DATA_CPU_SYSTEM] = { "cpu_system", "s", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
                          "system CPU seconds per job" },
    [DATA_OPEN_TIME] = { "open_time", "s", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
                         "seconds per file open (a round trip to the store or more)" },
    [DATA_BYTES] = { "bytes", "B", VP_HIGHER_IS_BETTER, VP_AGG_SUM, "bytes the jobs read" },
};
_Static_assert(sizeof data_metrics / sizeof data_metrics[0] == DATA_METRIC_COUNT,
               "one metric per slot");

/* Loaded in the parent (validate, setup) and inherited by the forked jobs. */
static struct {
    char manifest_url[VP_TEXT_LEN + 64];
    struct vp_fileset set;
    char fstype[64], mount[1024];
} fileset;

struct data_state {
    bool copy;
    struct data_client client;
    struct copy_target target; /* --to */
    size_t *chosen;     /* per-job indices into fileset.set.files */
    size_t chosen_count;
    uint64_t read_size;
    unsigned char *buffer;
    uint64_t **offsets; /* data.read: per chosen file, its ranges' offsets */
    uint64_t range_count;
    bool verify;
    struct vp_sha256 *digest;
};

static bool is_copy(const struct vp_job *job);

static double timeout_of(const struct vp_params *params)
{
    return vp_param_seconds(params, "timeout");
}

static void manifest_url_of(const struct vp_params *params, char *out, size_t len)
{
    const char *manifest = vp_param_text(params, "manifest");
    if (strcmp(manifest, "auto") == 0)
        data_join(vp_param_text(params, "source"), VP_FILESET_MANIFEST, out, len);
    else
        snprintf(out, len, "%s", manifest);
}

/* The manifest at url, read once and kept while the run lasts. */
static int load_manifest_at(const char *url, const struct vp_params *params, char *err,
                            size_t err_len)
{
    if (fileset.set.count && strcmp(url, fileset.manifest_url) == 0)
        return 0;
    vp_fileset_free(&fileset.set);
    fileset.manifest_url[0] = '\0';
    char *text = NULL, why[VP_ERROR_LEN];
    size_t len = 0;
    if (data_fetch(url, timeout_of(params), VP_FILESET_MAX_MANIFEST, &text, &len, why,
                   sizeof why) != 0) {
        snprintf(err, err_len, "no fileset manifest: %s (lay a fileset out with `virtperf "
                 "data prepare --source DIR --files N --file-size SIZE`, or name one with "
                 "--manifest)", why);
        return -1;
    }
    int status = vp_fileset_parse(text, len, &fileset.set, why, sizeof why);
    free(text);
    if (status != 0) {
        snprintf(err, err_len, "manifest %.120s: %s", url, why);
        return -1;
    }
    snprintf(fileset.manifest_url, sizeof fileset.manifest_url, "%s", url);
    return 0;
}

static int load_manifest(const struct vp_params *params, char *err, size_t err_len)
{
    char url[sizeof fileset.manifest_url];
    manifest_url_of(params, url, sizeof url);
    return load_manifest_at(url, params, err, err_len);
}

/* This host's read of a member step's manifest: where the guests see it in a directory
 * they mount (--guest-mount) and this host has none, through the same export. */
static int data_sizing(const struct vp_params *params, char *err, size_t err_len)
{
    char url[sizeof fileset.manifest_url], there[sizeof fileset.manifest_url];
    manifest_url_of(params, url, sizeof url);
    if (!data_is_url(url) && access(url, F_OK) != 0 &&
        vp_guest_mount_url_of(url, there, sizeof there) == 0)
        return load_manifest_at(there, params, err, err_len);
    return load_manifest_at(url, params, err, err_len);
}

static size_t files_in_use(const struct vp_params *params)
{
    uint64_t files = vp_param_number(params, "files");
    return files ? (size_t)files : fileset.set.count;
}

static int check_target(const struct vp_params *params, unsigned max_jobs, char *err,
                        size_t err_len)
{
    uint64_t largest = 0;
    for (size_t i = 0; i < files_in_use(params); i++)
        if (fileset.set.files[i].size > largest)
            largest = fileset.set.files[i].size;
    double needed = (double)largest * (double)vp_param_number(params, "per-job") * max_jobs;
    return vp_copy_target_check(vp_param_text(params, "to"), needed, err, err_len);
}

static int data_validate(const struct vp_params *params, unsigned max_jobs, char *err,
                         size_t err_len)
{
    const char *source = vp_param_text(params, "source");
    if (strcmp(source, NONE) == 0) {
        snprintf(err, err_len, "--source is required: a directory or a root://, http(s)://, "
                 "dav(s)://, nfs:// URL holding a fileset (virtperf data prepare lays one out)");
        return -1;
    }
    if (data_scheme_check(source, err, err_len) != 0)
        return -1;
    struct stat info;
    if (!data_is_url(source) && (stat(source, &info) != 0 || !S_ISDIR(info.st_mode))) {
        snprintf(err, err_len, "--source %s: no such directory; accepted: a directory or a "
                 "root://, http(s)://, dav(s)://, nfs:// URL", source);
        return -1;
    }
    if (load_manifest(params, err, err_len) != 0)
        return -1;
    size_t files = files_in_use(params);
    if (files > fileset.set.count) {
        snprintf(err, err_len, "--files %zu: the manifest lists %zu files", files,
                 fileset.set.count);
        return -1;
    }
    if (vp_param_number(params, "per-job") > files) {
        snprintf(err, err_len, "--per-job %llu: a job reads distinct files, and %zu are in use "
                 "(--files)", (unsigned long long)vp_param_number(params, "per-job"), files);
        return -1;
    }
    bool copy = vp_params_find(params, "to") >= 0;
    if (!copy && vp_param_on(params, "verify") && !fileset.set.generated) {
        snprintf(err, err_len, "--verify: data.read checks ranges against the seeded content "
                 "of a fileset virtperf laid out, and %.120s has none (data.copy --verify "
                 "checks any fileset's SHA-256)", fileset.manifest_url);
        return -1;
    }
    if (copy && strcmp(vp_param_text(params, "to"), NONE) != 0)
        return check_target(params, max_jobs, err, err_len);
    return 0;
}

static int data_setup(const struct vp_params *params, char *err, size_t err_len)
{
    /* this step's own fileset: a plan validated every step first, the last one's loaded */
    if (load_manifest(params, err, err_len) != 0)
        return -1;
    const char *source = vp_param_text(params, "source");
    if (!data_is_url(source))
        vp_filesystem_of(source, fileset.fstype, sizeof fileset.fstype, fileset.mount,
                         sizeof fileset.mount);
    vp_copy_target_remove();
    if (vp_params_find(params, "to") < 0 || strcmp(vp_param_text(params, "to"), NONE) == 0)
        return 0;
    return vp_copy_target_make(vp_param_text(params, "to"), err, err_len);
}

/* Requests one job makes per repetition (bounds the op log). */
static uint64_t data_ops_per_rep(const struct vp_params *params, double duration)
{
    (void)duration;
    uint64_t read_size = vp_param_number(params, "read-size");
    uint64_t per_file = 0;
    if (vp_params_find(params, "ranges") >= 0) {
        per_file = vp_param_number(params, "ranges");
    } else {
        for (size_t i = 0; i < files_in_use(params); i++) {
            uint64_t requests = fileset.set.files[i].size / read_size + 2;
            per_file = requests > per_file ? requests : per_file;
        }
    }
    uint64_t total = per_file * vp_param_number(params, "per-job");
    return total < (1u << 22) ? total : (1u << 22);
}

/* Drops a directory source's files from this machine's page cache, so a repetition
 * reads from the store and not from memory (a server's own cache is its own). */
static int drop_source_cache(struct vp_job *job, struct data_state *state)
{
    const char *source = vp_param_text(job->params, "source");
    if (data_is_url(source))
        return 0;
    for (size_t i = 0; i < state->chosen_count; i++) {
        char path[PATH_MAX + VP_FILESET_NAME_LEN];
        data_join(source, fileset.set.files[state->chosen[i]].name, path, sizeof path);
        char ignored[VP_ERROR_LEN];
        struct data_handle handle = { .fd = -1 };
        /* a file that is not regular fails the job when it opens it; a hung mount ends
         * it here, through the requests' deadline */
        if (data_open(&state->client, path, &handle, ignored, sizeof ignored) == 0) {
            posix_fadvise(handle.fd, 0, 0, POSIX_FADV_DONTNEED);
            data_close(&state->client, &handle, ignored, sizeof ignored);
        }
    }
    if (vp_param_on(job->params, "drop-caches")) {
        int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
        bool dropped = fd >= 0 && write(fd, "1", 1) == 1;
        int error = errno;
        if (fd >= 0)
            close(fd);
        if (!dropped) {
            snprintf(job->error, sizeof job->error, "--drop-caches: cannot write "
                     "/proc/sys/vm/drop_caches: %s (needs root)", strerror(error));
            return -1;
        }
    }
    return 0;
}

/* --per-job distinct files among the first --files, from the job's own seed. */
static void choose_files(struct vp_job *job, struct data_state *state, uint64_t *random)
{
    size_t in_use = files_in_use(job->params);
    size_t *pool = malloc(in_use * sizeof *pool);
    if (!pool)
        abort();
    for (size_t i = 0; i < in_use; i++)
        pool[i] = i;
    state->chosen_count = (size_t)vp_param_number(job->params, "per-job");
    for (size_t i = 0; i < state->chosen_count; i++) {
        size_t pick = i + (size_t)(vp_xorshift64(random) % (in_use - i));
        size_t swap = pool[i];
        pool[i] = pool[pick];
        pool[pick] = swap;
    }
    state->chosen = pool;
}

/* Whether slot is among the first count of picked (an open-addressing set of capacity
 * slots, 0 meaning empty, so values are stored + 1); adds it when not. */
static bool seen_before(uint64_t *set, uint64_t capacity, uint64_t slot)
{
    uint64_t at = (slot * 0x9e3779b97f4a7c15ULL) % capacity;
    while (set[at] && set[at] != slot + 1)
        at = (at + 1) % capacity;
    bool seen = set[at] == slot + 1;
    set[at] = slot + 1;
    return seen;
}

/* count distinct slots of 0..slots-1 in random order (Floyd's sampling, then a shuffle),
 * or count drawn with repetition when there are fewer slots than that. */
static void draw_slots(uint64_t *out, uint64_t count, uint64_t slots, uint64_t *random)
{
    if (count > slots) {
        for (uint64_t r = 0; r < count; r++)
            out[r] = vp_xorshift64(random) % slots;
        return;
    }
    uint64_t capacity = 2 * count + 1;
    uint64_t *set = calloc(capacity, sizeof *set);
    if (!set)
        abort();
    for (uint64_t r = 0, j = slots - count; j < slots; j++, r++) {
        uint64_t pick = vp_xorshift64(random) % (j + 1);
        out[r] = seen_before(set, capacity, pick) ? (seen_before(set, capacity, j), j) : pick;
    }
    free(set);
    for (uint64_t r = count - 1; r > 0; r--) {
        uint64_t other = vp_xorshift64(random) % (r + 1), swap = out[r];
        out[r] = out[other];
        out[other] = swap;
    }
}

/* data.read: --ranges offsets per file, aligned to the read size, none twice while the
 * file has room for them (a file smaller than a request is read whole). */
static void choose_ranges(struct vp_job *job, struct data_state *state, uint64_t *random)
{
    state->range_count = vp_param_number(job->params, "ranges");
    state->offsets = calloc(state->chosen_count, sizeof *state->offsets);
    if (!state->offsets)
        abort();
    for (size_t i = 0; i < state->chosen_count; i++) {
        uint64_t size = fileset.set.files[state->chosen[i]].size;
        uint64_t slots = size >= state->read_size ? size / state->read_size : 1;
        state->offsets[i] = malloc(state->range_count * sizeof **state->offsets);
        if (!state->offsets[i])
            abort();
        draw_slots(state->offsets[i], state->range_count, slots, random);
        for (uint64_t r = 0; r < state->range_count; r++)
            state->offsets[i][r] *= state->read_size;
    }
}

static int data_prepare(struct vp_job *job)
{
    struct data_state *state = calloc(1, sizeof *state);
    if (!state)
        abort();
    job->state = state;
    state->copy = is_copy(job);
    state->read_size = vp_param_number(job->params, "read-size");
    state->verify = vp_param_on(job->params, "verify");
    uint64_t random = (vp_param_number(job->params, "seed") * 1000003 + job->index) | 1;
    choose_files(job, state, &random);
    if (!state->copy)
        choose_ranges(job, state, &random);
    if (posix_memalign((void **)&state->buffer, 4096, state->read_size) != 0)
        abort();
    if (state->copy && state->verify)
        state->digest = vp_sha256_new();
    job->op_bytes = state->read_size;
    if (data_client_init(&state->client, vp_param_text(job->params, "source"),
                         timeout_of(job->params), job->error, sizeof job->error) != 0 ||
        data_client_attach(&state->client, vp_param_text(job->params, "source"), job->error,
                           sizeof job->error) != 0 ||
        (state->copy && vp_copy_target_start(&state->target, vp_param_text(job->params, "to"),
                                             job->index, timeout_of(job->params), job->error,
                                             sizeof job->error) != 0))
        return -1;
    if (job->fail_now &&
        data_client_watch(&state->client, timeout_of(job->params), job->fail_now) != 0) {
        snprintf(job->error, sizeof job->error, "cannot start the requests' watchdog");
        return -1;
    }
    return drop_source_cache(job, state);
}

/* One request's bookkeeping: its latency and completion. */
static void note_request(struct vp_job *job, int64_t start, int64_t end, double *latency_sum)
{
    vp_histogram_record(job->histogram, (uint64_t)(end - start));
    vp_job_log_op(job, end);
    *latency_sum += (double)(end - start) / 1e9;
}

struct file_tally {
    uint64_t bytes, requests;
    double latency_sum;
};

/* Copies one file: sequential reads of --read-size until the end, the length checked
 * against the manifest, the SHA-256 too with --verify, written out with --to. */
static int copy_file(struct vp_job *job, struct data_state *state, struct data_handle *handle,
                     const struct vp_fileset_file *file, struct copy_out *out,
                     struct file_tally *tally)
{
    if (state->digest)
        vp_sha256_restart(state->digest);
    uint64_t got_total = 0;
    for (;;) {
        int64_t start = vp_now_ns();
        ssize_t got = data_read(&state->client, handle, state->buffer, state->read_size,
                                job->error, sizeof job->error);
        if (got < 0)
            return -1;
        if (got == 0)
            break;
        note_request(job, start, vp_now_ns(), &tally->latency_sum);
        tally->requests++;
        got_total += (uint64_t)got;
        if (state->digest)
            vp_sha256_add(state->digest, state->buffer, (size_t)got);
        if (vp_copy_out_write(&state->target, out, state->buffer, (size_t)got, job->error,
                              sizeof job->error) != 0)
            return -1;
    }
    tally->bytes += got_total;
    if (got_total != file->size) {
        snprintf(job->error, sizeof job->error, "%.120s: %llu bytes read, the manifest says "
                 "%llu (truncated or changed)", handle->url, (unsigned long long)got_total,
                 (unsigned long long)file->size);
        return -1;
    }
    if (state->digest) {
        char hex[65];
        vp_sha256_hex(state->digest, hex);
        if (strcmp(hex, file->sha256) != 0) {
            snprintf(job->error, sizeof job->error, "--verify: %.120s: SHA-256 %.16s... is "
                     "not the manifest's %.16s...", handle->url, hex, file->sha256);
            return -1;
        }
    }
    return 0;
}

/* Reads one file's ranges, each checked for length and, with --verify, content. */
static int read_ranges(struct vp_job *job, struct data_state *state, struct data_handle *handle,
                       size_t chosen, struct file_tally *tally)
{
    size_t index = state->chosen[chosen];
    uint64_t size = fileset.set.files[index].size;
    for (uint64_t r = 0; r < state->range_count; r++) {
        uint64_t offset = state->offsets[chosen][r];
        uint64_t want = size - offset < state->read_size ? size - offset : state->read_size;
        int64_t start = vp_now_ns();
        ssize_t got = data_pread(&state->client, handle, state->buffer, want, offset,
                                 job->error, sizeof job->error);
        if (got < 0)
            return -1;
        note_request(job, start, vp_now_ns(), &tally->latency_sum);
        if ((uint64_t)got != want) {
            snprintf(job->error, sizeof job->error, "%.120s: %zd bytes at offset %llu where "
                     "the manifest promises %llu (truncated or changed)", handle->url, got,
                     (unsigned long long)offset, (unsigned long long)want);
            return -1;
        }
        tally->requests++;
        tally->bytes += want;
        int64_t bad = state->verify ? vp_fileset_mismatch(fileset.set.seed, index, offset,
                                                          state->buffer, want) : -1;
        if (bad >= 0) {
            snprintf(job->error, sizeof job->error, "--verify: %.120s: byte %llu is not what "
                     "was laid out", handle->url, (unsigned long long)(offset + (uint64_t)bad));
            return -1;
        }
    }
    return 0;
}

/* Opens, reads and closes the job's n-th file; on failure its copy (--to) is gone. */
static int read_one_file(struct vp_job *job, struct data_state *state, size_t n,
                         struct file_tally *tally, double *open_sum)
{
    const struct vp_fileset_file *file = &fileset.set.files[state->chosen[n]];
    char url[VP_TEXT_LEN + VP_FILESET_NAME_LEN + 2];
    data_join(vp_param_text(job->params, "source"), file->name, url, sizeof url);
    struct data_handle handle = { .fd = -1 };
    int64_t start = vp_now_ns();
    if (data_open(&state->client, url, &handle, job->error, sizeof job->error) != 0)
        return -1;
    *open_sum += (double)(vp_now_ns() - start) / 1e9;
    struct copy_out out;
    int status = state->copy ? vp_copy_out_create(&state->target, n, &out, job->error,
                                                  sizeof job->error) : 0;
    if (status == 0)
        status = state->copy ? copy_file(job, state, &handle, file, &out, tally)
                             : read_ranges(job, state, &handle, n, tally);
    char ignored[VP_ERROR_LEN];
    if (data_close(&state->client, &handle, status == 0 ? job->error : ignored,
                   status == 0 ? sizeof job->error : sizeof ignored) != 0)
        status = -1;
    if (state->copy && vp_copy_out_close(&state->target, &out, n, status != 0, job->error,
                                         sizeof job->error) != 0)
        status = -1;
    return status;
}

static double cpu_seconds(const struct timeval *time)
{
    return (double)time->tv_sec + (double)time->tv_usec / 1e6;
}

static int data_measure(struct vp_job *job, double *values)
{
    struct data_state *state = job->state;
    struct file_tally tally = { 0 };
    double open_sum = 0;
    struct rusage before, after;
    getrusage(RUSAGE_SELF, &before);
    int64_t start = vp_now_ns();
    for (size_t n = 0; n < state->chosen_count; n++)
        if (read_one_file(job, state, n, &tally, &open_sum) != 0)
            return -1;
    double job_time = (double)(vp_now_ns() - start) / 1e9;
    getrusage(RUSAGE_SELF, &after);
    values[DATA_JOB_TIME] = job_time;
    values[DATA_JOB_TIME_MAX] = job_time;
    values[DATA_THROUGHPUT] = (double)tally.bytes / job_time;
    values[DATA_IOPS] = (double)tally.requests / job_time;
    values[DATA_LATENCY] = tally.requests ? tally.latency_sum / (double)tally.requests : NAN;
    values[DATA_CPU_USER] = cpu_seconds(&after.ru_utime) - cpu_seconds(&before.ru_utime);
    values[DATA_CPU_SYSTEM] = cpu_seconds(&after.ru_stime) - cpu_seconds(&before.ru_stime);
    values[DATA_OPEN_TIME] = open_sum / (double)state->chosen_count;
    values[DATA_BYTES] = (double)tally.bytes;
    return 0;
}

/* Untimed: the copies go, and the source's files leave this machine's cache again. */
static int data_after_rep(struct vp_job *job)
{
    struct data_state *state = job->state;
    for (size_t n = 0; state->copy && n < state->chosen_count; n++)
        vp_copy_out_discard(&state->target, n);
    return drop_source_cache(job, state);
}

static void data_release(struct vp_job *job)
{
    struct data_state *state = job->state;
    data_client_free(&state->client);
    vp_copy_target_stop(&state->target);
    for (size_t i = 0; state->offsets && i < state->chosen_count; i++)
        free(state->offsets[i]);
    free(state->offsets);
    free(state->chosen);
    free(state->buffer);
    vp_sha256_free(state->digest);
    free(state);
}

/* Whatever a job left in a local --to (a killed job cannot clean up), then its scratch
 * directory. Nothing in a source is ever removed. */
static void data_teardown(const struct vp_params *params, unsigned jobs)
{
    (void)params, (void)jobs;
    vp_copy_target_remove();
}

static const struct vp_result_part *const data_parts[] = { &vp_part_data, &vp_part_device,
                                                            NULL };

/* The source, the network input and the job times' spread ("data"), and for a directory
 * source the device-versus-cache check. */
static void data_annotate(const struct vp_params *params, unsigned jobs, json_t *result)
{
    const char *source = vp_param_text(params, "source");
    vp_data_part_set(result, source, data_scheme(source), fileset.manifest_url,
                     (int)files_in_use(params));
    if (!data_is_url(source)) {
        double read_by_jobs = vp_result_mean(result, "bytes") *
                              (double)json_integer_value(json_object_get(result, "reps"));
        vp_annotate_device_reads(result, source, fileset.fstype, fileset.mount, true,
                                 vp_result_mean(result, "throughput") / jobs, read_by_jobs);
    }
}

/* What a member needs of this host to read the source and to write --to's URL
 * (data_member_files). */
static int data_member_files_of(const struct vp_params *params, struct vp_path_set *files,
                                char *err, size_t err_len)
{
    bool to_url = vp_params_find(params, "to") >= 0 && data_is_url(vp_param_text(params, "to"));
    return data_member_files(vp_param_text(params, "source"), files, err, err_len) == 0 &&
                   (!to_url ||
                    data_member_files(vp_param_text(params, "to"), files, err, err_len) == 0)
               ? 0
               : -1;
}

#define DATA_BENCH(symbol, bench_name, bench_summary, table, what)                          \
    const struct vp_bench symbol = {                                                        \
        .name = bench_name,                                                                 \
        .summary = bench_summary,                                                           \
        .description = what " Each job reads --per-job files of a fileset (virtperf data "  \
            "prepare lays one out, with a manifest), chosen at random from --seed, through " \
            "a directory, a root://, http(s)://, dav(s):// URL (gfal2) or an nfs:// URL "    \
            "(libnfs), --read-size bytes per request. job_time is open to close of all its files; cpu_user and "        \
            "cpu_system are the job's own (the client library's threads included). "        \
            "Directory sources are dropped from this machine's page cache before every "    \
            "repetition; a read faster than the device or memory could deliver is flagged " \
            "'served from cache'. The monitor's network input is kept beside the figures.", \
        .options = table,                                                                   \
        .option_count = sizeof table / sizeof table[0],                                     \
        .metrics = data_metrics,                                                            \
        .metric_count = DATA_METRIC_COUNT,                                                  \
        .sweep_option = "read-size",                                                        \
        .sweep_param = "read_size",                                                         \
        .distribution_metric = "latency",                                                   \
        .ops_per_rep = data_ops_per_rep,                                                    \
        .validate = data_validate,                                                          \
        .setup = data_setup,                                                                \
        .sizing = data_sizing,                                                              \
        .member_files = data_member_files_of,                                               \
        .prepare = data_prepare,                                                            \
        .measure = data_measure,                                                            \
        .after_rep = data_after_rep,                                                        \
        .release = data_release,                                                            \
        .annotate = data_annotate,                                                          \
        .teardown = data_teardown,                                                          \
        .parts = data_parts,                                                                \
    }

DATA_BENCH(vp_bench_data_copy, "data.copy", "jobs copying whole files from a shared store",
           copy_options,
           "Whole files, sequentially, as xrdcp or cp copy them (to nowhere, or to --to). "
           "Over HTTP one GET streams each file: --read-size sets the client's reads, not "
           "the requests on the wire; over XRootD every read is a request.");
DATA_BENCH(vp_bench_data_read, "data.read", "jobs reading scattered ranges of shared files",
           read_options,
           "--ranges requests per file at random offsets aligned to --read-size, as an "
           "analysis job reads a ROOT file's baskets; every request is one on the wire "
           "(over HTTP a ranged GET).");

static bool is_copy(const struct vp_job *job)
{
    return job->bench == &vp_bench_data_copy;
}
