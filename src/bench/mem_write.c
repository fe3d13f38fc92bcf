/* mem.write: the CNAF 2007 study's memory test. Each job maps --size of fresh memory,
 * faults it in (timed alone: first_touch), then writes it --passes times (timed: time,
 * bandwidth) and reads it back to prove the last pass landed. Its wide and non-temporal
 * stores are the CPU's widest (vector_kernels.h), named in the result's "kernels" part;
 * byte mode is the study's one-byte stores on every CPU. */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench/bench.h"
#include "bench/vector_kernels.h"
#include "core/clock.h"

static const struct vp_option write_options[] = {
    { "size", VP_OPT_SIZE, "256m", 4096, 68719476736.0, NULL,
      "bytes per job, a multiple of 4k (the CNAF 2007 study used 256m and 1g)" },
    { "passes", VP_OPT_COUNT, "2", 1, 1e6, NULL,
      "write passes over the buffer (CNAF 2007: 200 for 256m, 50 for 1g)" },
    { "mode", VP_OPT_CHOICE, "byte", 0, 0, "byte|wide|nt",
      "byte: one-byte stores as the CNAF 2007 study's C program; wide: the CPU's widest "
      "vector stores (64-byte AVX-512, 32-byte AVX2 or 16-byte SSE2); nt: non-temporal "
      "stores as wide" },
};

enum write_metric { WRITE_TIME, WRITE_BANDWIDTH, WRITE_FIRST_TOUCH, WRITE_METRIC_COUNT };

static const struct vp_metric write_metrics[] = {
    [WRITE_TIME] = { "time", "s", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
                     "seconds for all passes, per job" },
    [WRITE_BANDWIDTH] = { "bandwidth", "B/s", VP_HIGHER_IS_BETTER, VP_AGG_SUM,
                          "size x passes / time" },
    [WRITE_FIRST_TOUCH] = { "first_touch", "B/s", VP_HIGHER_IS_BETTER, VP_AGG_SUM,
        "bytes of fresh memory faulted in per second (one store per page)" },
};
_Static_assert(sizeof write_metrics / sizeof write_metrics[0] == WRITE_METRIC_COUNT,
               "one metric per slot");

/* Byte by byte through a volatile pointer: the compiler must emit one 1-byte store
 * per byte and can neither vectorise the loop nor turn it into memset. */
static void write_bytes(unsigned char *buffer, size_t size, unsigned char value)
{
    volatile unsigned char *cursor = buffer;
    for (size_t i = 0; i < size; i++)
        cursor[i] = value;
}

/* Wide: 8-byte words, which each clone's loop stores in its widest registers (zmm, ymm,
 * xmm: tests/system/test_stream_codegen.sh checks), never as a call to memset. */
VP_KERNEL void write_wide(uint64_t *restrict words, size_t count, uint64_t pattern)
{
    for (size_t i = 0; i < count; i++)
        words[i] = pattern;
}

/* Non-temporal: past the caches, one writer per width, each storing TYPE's bytes at a
 * time (the buffer is page-aligned and a multiple of 4k). */
#define STREAMING_WRITER(name, target, type, set1, stream)                                  \
    target static void name(unsigned char *buffer, size_t size, unsigned char value)        \
    {                                                                                       \
        type pattern = set1((char)value);                                                   \
        for (size_t i = 0; i < size; i += sizeof(type))                                     \
            stream((type *)(buffer + i), pattern);                                          \
        _mm_sfence();                                                                       \
    }
STREAMING_WRITER(write_streaming_avx512, __attribute__((target("avx512f"))), __m512i,
                 _mm512_set1_epi8, _mm512_stream_si512)
STREAMING_WRITER(write_streaming_avx2, __attribute__((target("avx2"))), __m256i,
                 _mm256_set1_epi8, _mm256_stream_si256)
STREAMING_WRITER(write_streaming_sse2, , __m128i, _mm_set1_epi8, _mm_stream_si128)

static void write_wide_pass(unsigned char *buffer, size_t size, unsigned char value)
{
    uint64_t pattern;
    memset(&pattern, value, sizeof pattern);
    write_wide((uint64_t *)buffer, size / sizeof pattern, pattern);
}

typedef void write_pass_fn(unsigned char *buffer, size_t size, unsigned char value);

/* The pass --mode asks for on this CPU, chosen once, before the passes are timed. */
static write_pass_fn *writer_for(const char *mode)
{
    if (strcmp(mode, "byte") == 0)
        return write_bytes;
    if (strcmp(mode, "nt") != 0)
        return write_wide_pass;
    const char *target = vp_kernel_target();
    return strcmp(target, "avx512f") == 0 ? write_streaming_avx512
           : strcmp(target, "avx2") == 0  ? write_streaming_avx2
                                          : write_streaming_sse2;
}

static unsigned char pass_value(uint64_t pass)
{
    return (unsigned char)(0xA5 ^ (pass * 37));
}

/* Offset of the first byte that is not value, or size when all are. */
static size_t first_mismatch(const unsigned char *buffer, size_t size, unsigned char value)
{
    uint64_t word;
    memset(&word, value, sizeof word);
    const uint64_t *words = (const uint64_t *)buffer;
    for (size_t i = 0; i < size / 8; i++) {
        if (words[i] != word) {
            for (size_t b = i * 8; b < i * 8 + 8; b++)
                if (buffer[b] != value)
                    return b;
        }
    }
    return size;
}

static int write_setup(const struct vp_params *params, char *err, size_t err_len)
{
    if (vp_param_number(params, "size") % 4096 != 0) {
        snprintf(err, err_len, "mem.write: --size must be a multiple of 4k");
        return -1;
    }
    return 0;
}

/* Wide and nt stores name the vector unit they ran on; byte stores are one byte anywhere. */
static void write_annotate(const struct vp_params *params, unsigned jobs, json_t *result)
{
    (void)jobs;
    if (strcmp(vp_param_text(params, "mode"), "byte") != 0)
        vp_kernels_annotate(result);
}

static const struct vp_result_part *const write_parts[] = { &vp_kernels_part, NULL };

static int write_measure(struct vp_job *job, double *values)
{
    size_t size = vp_param_number(job->params, "size");
    uint64_t passes = vp_param_number(job->params, "passes");
    write_pass_fn *write_pass = writer_for(vp_param_text(job->params, "mode"));
    size_t page = (size_t)sysconf(_SC_PAGESIZE);

    unsigned char *buffer = mmap(NULL, size, PROT_READ | PROT_WRITE,
                                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buffer == MAP_FAILED) {
        snprintf(job->error, sizeof job->error, "mem.write: cannot map %zu bytes", size);
        return -1;
    }
    int64_t touch_start = vp_now_ns();
    volatile unsigned char *touch = buffer;
    for (size_t offset = 0; offset < size; offset += page)
        touch[offset] = 1;
    int64_t write_start = vp_now_ns();
    for (uint64_t pass = 0; pass < passes; pass++)
        write_pass(buffer, size, pass_value(pass));
    int64_t write_end = vp_now_ns();

    size_t bad = first_mismatch(buffer, size, pass_value(passes - 1));
    munmap(buffer, size);
    if (bad != size) {
        snprintf(job->error, sizeof job->error,
                 "mem.write: read-back mismatch at offset %zu after %llu passes", bad,
                 (unsigned long long)passes);
        return -1;
    }
    double write_seconds = (double)(write_end - write_start) / 1e9;
    values[WRITE_TIME] = write_seconds;
    values[WRITE_BANDWIDTH] = (double)size * (double)passes / write_seconds;
    values[WRITE_FIRST_TOUCH] = (double)size / ((double)(write_start - touch_start) / 1e9);
    return 0;
}

const struct vp_bench vp_bench_mem_write = {
    .name = "mem.write",
    .in_quick_suite = true,
    .summary = "write a buffer N times, byte by byte or wide (the CNAF 2007 memory test)",
    .description =
        "Each job maps --size of fresh memory. first_touch times one store per page (the "
        "page faults, a real virtualization cost). Then --passes full write passes are "
        "timed (time, bandwidth); the buffer is read back untimed and any byte that is "
        "not the last pass's value fails the run. Per-job seconds are in per_job.",
    .options = write_options,
    .option_count = sizeof write_options / sizeof write_options[0],
    .metrics = write_metrics,
    .metric_count = WRITE_METRIC_COUNT,
    .setup = write_setup,
    .measure = write_measure,
    .annotate = write_annotate,
    .parts = write_parts,
};
