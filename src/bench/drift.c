/* time.drift: this machine's wall clock against a reference `virtperf serve`. Every
 * --interval a burst of NTP-style exchanges (four timestamps each) goes to the peer and
 * the one with the smallest round trip is kept; drift.c turns the kept samples into
 * offset, drift in ppm, jitter and steps. Locally it watches for CLOCK_REALTIME steps
 * (against CLOCK_MONOTONIC) and for either clock going backwards. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench.h"
#include "bench/net_peer.h"
#include "core/clock.h"
#include "core/drift.h"
#include "bench/conditions.h"
#include "core/load.h"
#include "core/json.h"
#include "core/units.h"
#include "net/client.h"
#include "net/wire.h"

#define DRIFT_HIGH_PPM 100.0 /* beyond a typical crystal's error */

static const struct vp_option drift_options[] = {
    { "peer", VP_OPT_TEXT, VP_NET_EMBEDDED, 0, 0, NULL,
      "HOST[:PORT] running `virtperf serve` whose clock is the reference: the hypervisor "
      "host or a well-synchronised machine; embedded: in --guests or --containers, the host "
      "that runs them (its server), on one host refused (its own clock is no reference)" },
    { "key-file", VP_OPT_TEXT, "none", 0, 0, NULL,
      "file holding the shared secret the peer requires (none: no key)" },
    { "interval", VP_OPT_DURATION, "1s", 0.01, 5, NULL,
      "time between bursts of exchanges, one kept sample each (at most 5 s: a server "
      "drops a session idle for its --idle-timeout)" },
    { "exchanges", VP_OPT_COUNT, "8", 1, 64, NULL,
      "exchanges per burst; the one with the smallest round trip is kept" },
    { "step-threshold", VP_OPT_DURATION, "1ms", 0.000001, 3600, NULL,
      "an offset jump beyond this, after the drift and the two samples' error bounds are "
      "allowed for, is a step" },
    { "timeout", VP_OPT_DURATION, "5s", 0.1, 60, NULL,
      "a peer silent this long has stopped answering: the result fails, keeping in its "
      "error what was measured so far" },
    VP_LOAD_OPTIONS,
};

enum drift_metric {
    DRIFT_PPM,
    DRIFT_PPM_ERROR,
    DRIFT_OFFSET,
    DRIFT_STEPS,
    DRIFT_OFFSET_START,
    DRIFT_MAX_OFFSET,
    DRIFT_JITTER,
    DRIFT_ERROR_BOUND,
    DRIFT_LOCAL_STEPS,
    DRIFT_BACKWARD_JUMPS,
    DRIFT_LARGEST_STEP,
    DRIFT_SAMPLES,
    DRIFT_METRIC_COUNT
};

static const struct vp_metric drift_metrics[] = {
    [DRIFT_PPM] = { "drift_ppm", "ppm", VP_ZERO_IS_BETTER, VP_AGG_MEAN,
        "how fast the local clock gains (+) or loses (-) on the reference, least squares "
        "per step-free segment" },
    [DRIFT_PPM_ERROR] = { "drift_error", "ppm", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
        "standard error of drift_ppm from the scatter around the fit: a drift within about "
        "two of these of zero is not told apart from none" },
    [DRIFT_OFFSET] = { "offset", "s", VP_ZERO_IS_BETTER, VP_AGG_MEAN,
        "local minus reference at the end of the repetition (+: local ahead)" },
    [DRIFT_STEPS] = { "steps", "steps", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
        "offset jumps beyond --step-threshold, beyond what the round trips could explain" },
    [DRIFT_OFFSET_START] = { "offset_start", "s", VP_ZERO_IS_BETTER, VP_AGG_MEAN,
                             "the offset of the first sample" },
    [DRIFT_MAX_OFFSET] = { "max_offset", "s", VP_LOWER_IS_BETTER, VP_AGG_MAX,
                           "the largest |offset| seen" },
    [DRIFT_JITTER] = { "jitter", "s", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
        "RMS of the offsets around the fitted drift" },
    [DRIFT_ERROR_BOUND] = { "error_bound", "s", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
        "half the largest kept round trip: the true offset lies within this of the measured "
        "one, however asymmetric the path" },
    [DRIFT_LOCAL_STEPS] = { "local_steps", "steps", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
        "CLOCK_REALTIME jumps against CLOCK_MONOTONIC beyond --step-threshold (settimeofday, "
        "an NTP step)" },
    [DRIFT_BACKWARD_JUMPS] = { "backward_jumps", "jumps", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
        "times CLOCK_REALTIME or CLOCK_MONOTONIC read earlier than the read before it" },
    [DRIFT_LARGEST_STEP] = { "largest_step", "s", VP_ZERO_IS_BETTER, VP_AGG_MEAN,
        "the largest step, signed (0 without one)" },
    [DRIFT_SAMPLES] = { "samples", "samples", VP_HIGHER_IS_BETTER, VP_AGG_MEAN,
                        "kept samples (bursts)" },
};
_Static_assert(sizeof drift_metrics / sizeof drift_metrics[0] == DRIFT_METRIC_COUNT,
               "one metric per slot");

/* Local clock readings across the repetition, to catch steps and backward jumps. */
struct local_watch {
    int64_t last_real, last_mono, last_width;
    unsigned steps, backward;
};

/* One reading of both clocks. */
struct clock_pair {
    int64_t real, mono; /* ns */
    int64_t width;      /* ns between the two monotonic reads around the realtime one */
};

/* CLOCK_REALTIME between two CLOCK_MONOTONIC reads, retried a few times when the
 * reads were far apart (a preempted thread or a stalled vCPU), so that a delay between
 * the reads is not taken for a step. */
static struct clock_pair read_pair(void)
{
    struct clock_pair pair = { 0 };
    for (int attempt = 0; attempt < 5; attempt++) {
        int64_t before = vp_clock_ns(CLOCK_MONOTONIC);
        int64_t real = vp_clock_ns(CLOCK_REALTIME);
        int64_t after = vp_clock_ns(CLOCK_MONOTONIC);
        if (attempt == 0 || after - before < pair.width)
            pair = (struct clock_pair){ .real = real, .mono = before + (after - before) / 2,
                                        .width = after - before };
        if (pair.width < 20000)
            break;
    }
    return pair;
}

/* A step is a change of realtime - monotonic beyond the threshold and beyond what the
 * two readings' own widths allow. */
static void watch_local(struct local_watch *watch, const struct clock_pair *pair, double threshold)
{
    if (watch->last_mono) {
        if (pair->real < watch->last_real || pair->mono < watch->last_mono)
            watch->backward++;
        int64_t moved = (pair->real - watch->last_real) - (pair->mono - watch->last_mono);
        if (fabs((double)moved) - (double)(pair->width + watch->last_width) > threshold * 1e9)
            watch->steps++;
    }
    watch->last_real = pair->real;
    watch->last_mono = pair->mono;
    watch->last_width = pair->width;
}

static int peer_of(const struct vp_params *params, struct vp_peer *peer, char *err, size_t err_len)
{
    const char *where = vp_param_text(params, "peer");
    /* in guests and containers the run names its own server (the host that runs them)
     * in place of embedded: one seen here is this host's own clock */
    if (strcmp(where, VP_NET_EMBEDDED) == 0) {
        snprintf(err, err_len, "time.drift needs --peer HOST[:PORT]: a `virtperf serve` whose "
                 "clock is the reference (the hypervisor host or a well-synchronised "
                 "machine); in --guests or --containers the host that runs them is the default");
        return -1;
    }
    return vp_peer_from_options(where, vp_param_text(params, "key-file"),
                                vp_param_seconds(params, "timeout"), peer, err, err_len);
}

static int drift_validate(const struct vp_params *params, unsigned max_jobs, char *err,
                          size_t err_len)
{
    (void)max_jobs;
    struct vp_peer peer;
    return peer_of(params, &peer, err, err_len);
}

static int drift_prepare(struct vp_job *job)
{
    struct vp_peer *peer = malloc(sizeof *peer);
    if (!peer)
        abort();
    job->state = peer;
    return peer_of(job->params, peer, job->error, sizeof job->error);
}

/* One exchange on an open TIME test. */
static int exchange(int fd, uint64_t sequence, int64_t origin, struct local_watch *watch,
                    double threshold, struct vp_time_exchange *out, char *err, size_t err_len)
{
    uint8_t query[VP_TIME_QUERY_BYTES], payload[VP_TIME_REPLY_BYTES];
    vp_time_query_encode(sequence, query);
    struct clock_pair sent = read_pair(); /* t1, and the local clocks watched */
    watch_local(watch, &sent, threshold);
    out->t1 = sent.real;
    uint32_t len;
    struct vp_time_reply reply;
    if (vp_wire_send(fd, VP_FRAME_TIME_QUERY, query, sizeof query, err, err_len) != 0 ||
        vp_wire_expect(fd, VP_FRAME_TIME_REPLY, payload, sizeof payload, &len, err, err_len) != 0)
        return -1;
    struct clock_pair received = read_pair(); /* t4: any delay only widens the bound */
    watch_local(watch, &received, threshold);
    out->t4 = received.real;
    if (vp_time_reply_decode(payload, len, &reply) != 0 || reply.sequence != sequence) {
        snprintf(err, err_len, "the peer's TIME_REPLY is malformed (sequence %llu, sent before "
                 "received, or of the wrong length)", (unsigned long long)reply.sequence);
        return -1;
    }
    out->t2 = reply.received_ns;
    out->t3 = reply.sent_ns;
    out->at = (double)(sent.mono - origin) / 1e9;
    return 0;
}

static void fill_values(const struct vp_drift_estimate *e, const struct local_watch *watch,
                        double *values)
{
    values[DRIFT_PPM] = e->drift_ppm; /* NaN with one sample: left out */
    values[DRIFT_PPM_ERROR] = e->drift_error_ppm; /* NaN without a spare sample: left out */
    values[DRIFT_OFFSET] = e->offset_end;
    values[DRIFT_STEPS] = e->steps;
    values[DRIFT_OFFSET_START] = e->offset_start;
    values[DRIFT_MAX_OFFSET] = e->max_offset;
    values[DRIFT_JITTER] = e->jitter;
    values[DRIFT_ERROR_BOUND] = e->error_bound;
    values[DRIFT_LOCAL_STEPS] = watch->steps;
    values[DRIFT_BACKWARD_JUMPS] = watch->backward;
    values[DRIFT_LARGEST_STEP] = e->largest_step;
    values[DRIFT_SAMPLES] = (double)e->samples;
}

static int drift_measure(struct vp_job *job, double *values)
{
    const struct vp_peer *peer = job->state;
    double interval = vp_param_seconds(job->params, "interval");
    double threshold = vp_param_seconds(job->params, "step-threshold");
    unsigned per_burst = (unsigned)vp_param_number(job->params, "exchanges");
    size_t windows = (size_t)(job->duration / interval) + 1; /* spanning --duration */
    char err[120];
    struct vp_test_request request = { .kind = VP_TEST_TIME, .message_size = 1,
                                       .duration_ms = (uint32_t)(job->duration * 1000) + 1000 };
    struct vp_test_ready ready;
    int fd = vp_client_open_test(peer, &request, &ready, err, sizeof err);
    if (fd < 0) {
        snprintf(job->error, sizeof job->error, "time.drift: %.120s", err);
        return -1;
    }
    struct vp_time_sample *samples = calloc(windows, sizeof *samples);
    struct vp_time_exchange *burst = calloc(per_burst, sizeof *burst);
    if (!samples || !burst)
        abort();
    struct local_watch watch = { 0 };
    int64_t origin = vp_now_ns();
    size_t kept = 0;
    uint64_t sequence = 0;
    int status = 0;
    for (; kept < windows && status == 0; kept++) {
        vp_sleep_until_ns(origin + (int64_t)((double)kept * interval * 1e9));
        for (unsigned i = 0; i < per_burst && status == 0; i++)
            status = exchange(fd, ++sequence, origin, &watch, threshold, &burst[i], err, sizeof err);
        if (status == 0)
            samples[kept] = vp_time_best_of(burst, per_burst);
    }
    struct vp_test_result result;
    if (status == 0) {
        if (vp_wire_send(fd, VP_FRAME_END, NULL, 0, err, sizeof err) != 0 ||
            vp_client_result(fd, &result, err, sizeof err) != 0)
            status = -1;
    } else {
        kept--; /* the window that failed */
    }
    close(fd);
    struct vp_drift_estimate estimate;
    vp_drift_estimate(samples, kept, threshold, &estimate);
    if (status != 0) {
        snprintf(job->error, sizeof job->error,
                 "time.drift: the peer stopped answering after %.1f s; so far %zu samples: "
                 "offset %.6f s, drift %.3f ppm, %u steps, error bound %.6f s (%.60s)",
                 (double)(vp_now_ns() - origin) / 1e9, kept, estimate.offset_end,
                 estimate.drift_ppm, estimate.steps, estimate.error_bound, err);
    } else {
        fill_values(&estimate, &watch, values);
    }
    free(samples);
    free(burst);
    return status;
}

static void drift_release(struct vp_job *job)
{
    free(job->state);
    job->state = NULL;
}

/* Fewer than three samples leave the drift unknown or untestable: say so, and how to fix it. */
static void drift_annotate(const struct vp_params *params, unsigned jobs, json_t *result)
{
    vp_conditions_annotate(params, jobs, result);
    const json_t *samples = json_object_get(json_object_get(result, "metrics"), "samples");
    if (!samples || vp_json_number(samples, "min") >= 3)
        return;
    char interval[32];
    vp_format_seconds(vp_param_seconds(params, "interval"), interval, sizeof interval);
    vp_result_warn(result, "only %.0f sample(s) in a repetition: a drift needs at least 3 "
                   "(one per --interval, %s); give a --duration of at least 2 intervals",
                   vp_json_number(samples, "min"), interval);
}

static void drift_advise(const json_t *results, json_t *advisories)
{
    size_t i;
    const json_t *result;
    json_array_foreach(results, i, result) {
        double steps = vp_metric_mean(result, "steps"), local = vp_metric_mean(result, "local_steps");
        double backward = vp_metric_mean(result, "backward_jumps");
        double ppm = vp_metric_mean(result, "drift_ppm");
        if (steps > 0 || local > 0 || backward > 0) {
            char size[32];
            vp_format_seconds(fabs(vp_metric_mean(result, "largest_step")), size, sizeof size);
            vp_advise(advisories, "the clock steps: %.3g against the reference (largest %s), "
                      "%.3g local steps, %.3g backward jumps per repetition (time.drift)",
                      steps, size, local, backward);
        }
        if (fabs(ppm) > DRIFT_HIGH_PPM)
            vp_advise(advisories, "the clock drifts %.1f ppm (%.2f s a day) against the "
                      "reference (time.drift, load=%s): keep it synchronised", ppm,
                      ppm * 86400e-6, vp_load_of(result));
    }
}

const struct vp_bench vp_bench_time_drift = {
    .name = "time.drift",
    .summary = "clock offset, drift (ppm) and steps against a reference virtperf serve",
    .description = "Every --interval sends --exchanges NTP-style time queries to --peer and "
                   "keeps the one with the smallest round trip: offset = ((t1-t2)+(t4-t3))/2, "
                   "true within half the round trip. Over --duration: drift in ppm, offsets, "
                   "jitter, steps, and local clock steps or backward jumps. --load runs a "
                   "cpu, mem or io load on every CPU meanwhile (the CNAF 2007 study's heavy "
                   "load). One watch of --duration (60 s): one repetition unless --reps, no "
                   "warm-up unless --warmup; its statistics come from the samples within it.",
    .options = drift_options,
    .option_count = sizeof drift_options / sizeof drift_options[0],
    .metrics = drift_metrics,
    .metric_count = DRIFT_METRIC_COUNT,
    .uses_duration = true,
    .default_duration = 60.0,
    .one_observation = true,
    .validate = drift_validate,
    .setup = vp_conditions_setup,
    .prepare = drift_prepare,
    .measure = drift_measure,
    .release = drift_release,
    .teardown = vp_conditions_teardown,
    .annotate = drift_annotate,
    .parts = vp_condition_parts,
    .advise = drift_advise,
};
