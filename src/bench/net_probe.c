/* net.probe: how long an interruption (a live migration, a failover, a link flap) stops
 * the service, measured from outside: a steady stream of small numbered probes to a
 * `virtperf serve` at --rate, each answered at once, for --duration or until Ctrl-C (a
 * normal result then). The longest time without an answer is the downtime. Over UDP (the
 * default) the server also probes back at the same rate, so an outage of one direction
 * shows as that direction's gap only: to_peer from the server's record of the client's
 * probes, from_peer from the client's record of the server's. --tcp probes with
 * requests and responses on the TCP connection instead (TCP retransmits, so a gap shows
 * as delay and the directions cannot be told apart). Each gap's start (wall clock) and
 * length, and the largest round trip of each step, go into the result's timeline. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench/bench.h"
#include "bench/net_peer.h"
#include "core/clock.h"
#include "core/json.h"
#include "net/probe.h"
#include "net/wire.h"

static const struct vp_option probe_options[] = {
    VP_NET_PEER_OPTIONS,
    { "rate", VP_OPT_COUNT, "1000", 1, 10000, NULL,
      "probes per second, each way (the probe period is 1 / rate)" },
    { "size", VP_OPT_SIZE, "64", VP_PROBE_MIN_BYTES, VP_PROBE_MAX_BYTES, NULL, "bytes per probe" },
    { "gap-threshold", VP_OPT_DURATION, "0", 0, 60, NULL,
      "a time without an answer longer than this is a gap (0: three probe periods)" },
    { "tcp", VP_OPT_CHOICE, "off", 0, 0, "off|on",
      "probe with requests and responses on the TCP connection (retransmitted: a gap shows "
      "as delay; one direction cannot be told from the other)" },
};

enum probe_metric {
    PROBE_LONGEST, PROBE_OUTAGE, PROBE_GAPS, PROBE_TOTAL, PROBE_LOSS, PROBE_RTT, PROBE_TO_PEER,
    PROBE_FROM_PEER, PROBE_OUT_OF_ORDER, PROBE_DUPLICATES, PROBE_SENT, PROBE_METRIC_COUNT
};

static const struct vp_metric probe_metrics[] = {
    [PROBE_LONGEST] = { "longest_gap", "s", VP_LOWER_IS_BETTER, VP_AGG_MAX,
                        "the longest time without an answer: the downtime" },
    [PROBE_OUTAGE] = { "longest_outage", "s", VP_LOWER_IS_BETTER, VP_AGG_MAX,
        "the longest run of gaps with answers between them for no longer than "
        "--gap-threshold: a guest answering a moment as it resumes does not end it" },
    [PROBE_GAPS] = { "gaps", "gaps", VP_LOWER_IS_BETTER, VP_AGG_MAX,
                     "times without an answer longer than --gap-threshold" },
    [PROBE_TOTAL] = { "total_gap", "s", VP_LOWER_IS_BETTER, VP_AGG_MAX, "the gaps' time together" },
    [PROBE_LOSS] = { "loss", "%", VP_LOWER_IS_BETTER, VP_AGG_MEAN, "probes never answered" },
    [PROBE_RTT] = { "rtt", "s", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
                    "round trip of the answered probes; percentiles in its distribution" },
    [PROBE_TO_PEER] = { "longest_gap_to_peer", "s", VP_LOWER_IS_BETTER, VP_AGG_MAX,
                        "UDP: the longest time the peer received none of our probes" },
    [PROBE_FROM_PEER] = { "longest_gap_from_peer", "s", VP_LOWER_IS_BETTER, VP_AGG_MAX,
                          "UDP: the longest time we received none of the peer's probes" },
    [PROBE_OUT_OF_ORDER] = { "out_of_order", "probes", VP_LOWER_IS_BETTER, VP_AGG_MAX,
                             "answers that came after a later probe's" },
    [PROBE_DUPLICATES] = { "duplicates", "probes", VP_LOWER_IS_BETTER, VP_AGG_MAX,
                           "answers that came twice" },
    [PROBE_SENT] = { "probes", "probes", VP_HIGHER_IS_BETTER, VP_AGG_SUM, "probes sent" },
};
_Static_assert(sizeof probe_metrics / sizeof probe_metrics[0] == PROBE_METRIC_COUNT,
               "one metric per slot");

#define GRACE_MIN_NS 50000000   /* answers awaited after the last probe: at least this, */
#define GRACE_MAX_NS 1000000000 /* four of the longest round trips, at most this */
#define SERIES_STEPS 2000       /* the timeline's round-trip series: at most this many steps */
#define ODD_LISTED 64           /* out-of-order and duplicate answers listed (all counted) */

/* An answer out of order or twice: which probe, and when it came (since the start). */
struct odd_answer {
    uint64_t sequence;
    int64_t at_ns;
};

/* One job's probing: the sockets, what came back, and the timeline's parts. */
struct probe_state {
    int fd, udp_fd;
    bool udp;
    int64_t period_ns, threshold_ns, start_ns, real_offset_ns, step_ns;
    uint64_t sent, answered, out_of_order, duplicates, highest, from_peer;
    int64_t *sent_at;     /* --tcp: each probe's send instant, by sequence */
    uint8_t *seen;        /* a bit per probe sequence: answered */
    uint64_t capacity;    /* probes the arrays can hold */
    double rtt_sum;
    int64_t rtt_longest_ns;
    double *rtt_max;      /* per step of the series */
    size_t steps;
    struct vp_gaps round_trip, from_peer_gaps;
    bool ended;           /* the gaps are closed: later answers count for loss only */
    struct odd_answer late[ODD_LISTED], twice[ODD_LISTED]; /* the first ones */
};

static int probe_validate(const struct vp_params *params, unsigned max_jobs, char *err,
                          size_t err_len)
{
    if (vp_net_validate(params, max_jobs, err, err_len) != 0)
        return -1;
    double period = 1.0 / (double)vp_param_number(params, "rate");
    double threshold = vp_param_seconds(params, "gap-threshold");
    if (threshold > 0 && threshold < period) {
        snprintf(err, err_len, "--gap-threshold %g s is shorter than the probe period (%g s at "
                 "--rate %llu); accepted: 0 or at least the period", threshold, period,
                 (unsigned long long)vp_param_number(params, "rate"));
        return -1;
    }
    return 0;
}

static int probe_prepare(struct vp_job *job)
{
    struct probe_state *state = calloc(1, sizeof *state);
    if (!state)
        abort();
    job->state = state;
    uint64_t rate = vp_param_number(job->params, "rate");
    /* the whole --duration at --rate, with room for a late start */
    state->capacity = (uint64_t)(job->duration * (double)rate) + rate + 16;
    state->seen = calloc(state->capacity / 8 + 1, 1);
    state->sent_at = calloc(state->capacity, sizeof *state->sent_at);
    if (!state->seen || !state->sent_at) {
        snprintf(job->error, sizeof job->error, "net.probe: no memory for %llu probes (--rate "
                 "x --duration too large)", (unsigned long long)state->capacity);
        return -1;
    }
    state->steps = SERIES_STEPS;
    state->rtt_max = calloc(state->steps, sizeof *state->rtt_max);
    if (!state->rtt_max)
        abort();
    return 0;
}

/* An answer to probe sequence, sent at sent_ns, arrived at now. */
static void answered(struct probe_state *state, struct vp_job *job, uint64_t sequence,
                     int64_t sent_ns, int64_t now)
{
    if (sequence >= state->sent || sequence >= state->capacity)
        return; /* not one we sent */
    struct odd_answer odd = { sequence, now - state->start_ns };
    if (state->seen[sequence / 8] & (1u << (sequence % 8))) {
        if (state->duplicates < ODD_LISTED)
            state->twice[state->duplicates] = odd;
        state->duplicates++;
        return;
    }
    state->seen[sequence / 8] |= (uint8_t)(1u << (sequence % 8));
    state->answered++;
    if (state->answered > 1 && sequence < state->highest) {
        if (state->out_of_order < ODD_LISTED)
            state->late[state->out_of_order] = odd;
        state->out_of_order++;
    } else {
        state->highest = sequence;
    }
    int64_t rtt = now - sent_ns;
    vp_histogram_record(job->histogram, (uint64_t)(rtt > 0 ? rtt : 0));
    state->rtt_sum += (double)rtt / 1e9;
    if (rtt > state->rtt_longest_ns)
        state->rtt_longest_ns = rtt;
    size_t step = (size_t)((sent_ns - state->start_ns) / state->step_ns);
    if (step < state->steps && (double)rtt / 1e9 > state->rtt_max[step])
        state->rtt_max[step] = (double)rtt / 1e9;
    if (!state->ended)
        vp_gaps_arrival(&state->round_trip, now);
}

static int send_probe(struct probe_state *state, struct vp_job *job, int64_t now, uint8_t *buffer,
                      uint32_t size)
{
    if (state->sent >= state->capacity)
        return 0;
    if (state->udp) {
        vp_probe_encode(&(struct vp_probe){ state->sent, now, VP_PROBE_FROM_CLIENT }, buffer);
        /* a link that is down refuses or drops: the probe is sent all the same (lost) */
        if (send(state->udp_fd, buffer, size, 0) < 0 && errno != ENOBUFS && errno != ECONNREFUSED &&
            errno != EHOSTUNREACH && errno != ENETUNREACH && errno != ENETDOWN && errno != EAGAIN) {
            snprintf(job->error, sizeof job->error, "net.probe: UDP send: %s", strerror(errno));
            return -1;
        }
    } else if (vp_wire_send(state->fd, VP_FRAME_REQUEST, buffer, size, job->error,
                            sizeof job->error) != 0) {
        return -1;
    }
    state->sent_at[state->sent++] = now;
    return 0;
}

/* Takes whatever arrived: answers, and over UDP the peer's own probes. */
static int take_arrivals(struct probe_state *state, struct vp_job *job, uint32_t size)
{
    if (!state->udp) {
        struct vp_frame_header header;
        if (vp_wire_recv_header(state->fd, &header, job->error, sizeof job->error) != 0)
            return -1;
        if (header.type != VP_FRAME_RESPONSE || header.length != size) {
            snprintf(job->error, sizeof job->error, "net.probe: expected a RESPONSE of %u bytes, "
                     "received %s of %u", size, vp_frame_type_name(header.type), header.length);
            return -1;
        }
        if (vp_wire_discard(state->fd, &header, job->error, sizeof job->error) != 0)
            return -1;
        uint64_t sequence = state->answered; /* TCP keeps the order */
        answered(state, job, sequence, sequence < state->sent ? state->sent_at[sequence] : 0,
                 vp_now_ns());
        return 0;
    }
    uint8_t datagram[VP_PROBE_MAX_BYTES + 1];
    ssize_t got;
    while ((got = recv(state->udp_fd, datagram, sizeof datagram, MSG_DONTWAIT)) >= 0 ||
           errno == ECONNREFUSED || errno == EINTR) {
        struct vp_probe probe;
        if (got != (ssize_t)size || vp_probe_decode(datagram, (size_t)got, &probe) != 0)
            continue;
        int64_t now = vp_now_ns();
        if (probe.kind == VP_PROBE_ECHO) {
            answered(state, job, probe.sequence, probe.sent_ns, now);
        } else if (probe.kind == VP_PROBE_FROM_SERVER) {
            state->from_peer++;
            if (!state->ended)
                vp_gaps_arrival(&state->from_peer_gaps, now);
        }
    }
    return 0;
}

/* Waits for arrivals until deadline_ns, taking them. */
static int wait_arrivals(struct probe_state *state, struct vp_job *job, uint32_t size,
                         int64_t deadline_ns)
{
    int64_t wait_ns = deadline_ns - vp_now_ns();
    if (wait_ns < 0)
        wait_ns = 0;
    struct timespec timeout = { wait_ns / 1000000000, wait_ns % 1000000000 };
    struct pollfd waiting = { .fd = state->udp ? state->udp_fd : state->fd, .events = POLLIN };
    int ready = ppoll(&waiting, 1, &timeout, NULL);
    if (ready < 0 && errno != EINTR) {
        snprintf(job->error, sizeof job->error, "net.probe: poll: %s", strerror(errno));
        return -1;
    }
    return ready > 0 ? take_arrivals(state, job, size) : 0;
}

static int probe_open(struct vp_job *job, struct probe_state *state, uint32_t size)
{
    state->udp = !vp_param_on(job->params, "tcp");
    struct vp_test_request request = {
        .kind = state->udp ? VP_TEST_PROBE : VP_TEST_RR,
        .transport = state->udp ? VP_TRANSPORT_UDP : VP_TRANSPORT_TCP,
        .duration_ms = (uint32_t)(job->duration * 1000),
        .message_size = size,
        .response_size = state->udp ? (uint32_t)(state->period_ns / 1000) : size,
        .window = state->udp ? (uint32_t)(state->threshold_ns / 1000) : 0,
    };
    struct vp_test_ready ready;
    state->udp_fd = -1;
    state->fd = vp_client_open_test(&vp_net_peer, &request, &ready, job->error, sizeof job->error);
    if (state->fd < 0)
        return -1;
    if (state->udp && (state->udp_fd = vp_net_connect_udp(state->fd, ready.udp_port, job->error,
                                                          sizeof job->error)) < 0) {
        close(state->fd);
        return -1;
    }
    return 0;
}

/* END, then over UDP the peer's report of our probes' arrivals, then its RESULT. */
static int probe_close(struct probe_state *state, struct vp_job *job, struct vp_probe_report *report)
{
    uint8_t payload[VP_PROBE_REPORT_MAX_BYTES];
    uint32_t len;
    struct vp_test_result result;
    memset(report, 0, sizeof *report);
    int status = vp_wire_send(state->fd, VP_FRAME_END, NULL, 0, job->error, sizeof job->error);
    if (status == 0 && state->udp &&
        (vp_wire_expect(state->fd, VP_FRAME_PROBE_REPORT, payload, sizeof payload, &len,
                        job->error, sizeof job->error) != 0 ||
         vp_probe_report_decode(payload, len, report) != 0)) {
        if (!job->error[0])
            snprintf(job->error, sizeof job->error, "net.probe: the peer's PROBE_REPORT is malformed");
        status = -1;
    }
    if (status == 0)
        status = vp_client_result(state->fd, &result, job->error, sizeof job->error);
    close(state->fd);
    if (state->udp_fd >= 0)
        close(state->udp_fd);
    return status;
}

static void add_gap(json_t *gaps, const char *direction, const struct vp_gap *gap,
                    int64_t start_real_ns)
{
    char instant[48];
    vp_utc_instant(gap->start_real_ns, instant, sizeof instant);
    json_array_append_new(gaps, json_pack("{s:s,s:f,s:s,s:f}", "direction", direction, "start_s",
                                          (double)(gap->start_real_ns - start_real_ns) / 1e9,
                                          "start_utc", instant, "length_s",
                                          (double)gap->length_ns / 1e9));
}

static json_t *odd_list(const struct odd_answer *odd, uint64_t count)
{
    json_t *list = json_array();
    for (uint64_t i = 0; i < count && i < ODD_LISTED; i++)
        json_array_append_new(list, json_pack("{s:I,s:f}", "sequence", (json_int_t)odd[i].sequence,
                                              "at_s", (double)odd[i].at_ns / 1e9));
    return list;
}

/* The timeline of this repetition, as JSON in job->detail. */
static void write_timeline(struct vp_job *job, const struct probe_state *state,
                           const struct vp_probe_report *report, int64_t end_ns)
{
    int64_t start_real = state->start_ns + state->real_offset_ns;
    char instant[48];
    vp_utc_instant(start_real, instant, sizeof instant);
    json_t *gaps = json_array();
    for (size_t i = 0; i < state->round_trip.listed_count; i++)
        add_gap(gaps, "round_trip", &state->round_trip.listed[i], start_real);
    for (size_t i = 0; state->udp && i < report->listed_count; i++)
        add_gap(gaps, "to_peer", &report->listed[i], start_real);
    for (size_t i = 0; state->udp && i < state->from_peer_gaps.listed_count; i++)
        add_gap(gaps, "from_peer", &state->from_peer_gaps.listed[i], start_real);
    json_t *series = json_array();
    size_t used = (size_t)((end_ns - state->start_ns) / state->step_ns) + 1;
    for (size_t i = 0; i < used && i < state->steps; i++)
        json_array_append_new(series, json_real(state->rtt_max[i]));
    json_t *timeline = json_pack("{s:s,s:f,s:f,s:o,s:o,s:I,s:I}", "start_utc", instant, "period_s",
                                 (double)state->period_ns / 1e9, "step_s",
                                 (double)state->step_ns / 1e9, "rtt_max_s", series, "gaps", gaps,
                                 "out_of_order", (json_int_t)state->out_of_order, "duplicates",
                                 (json_int_t)state->duplicates);
    json_object_set_new(timeline, "out_of_order_answers", odd_list(state->late, state->out_of_order));
    json_object_set_new(timeline, "duplicate_answers", odd_list(state->twice, state->duplicates));
    char *text = json_dumps(timeline, JSON_COMPACT | JSON_REAL_PRECISION(6));
    if (text && strlen(text) < job->detail_cap)
        strcpy(job->detail, text);
    free(text);
    json_decref(timeline);
}

static int probe_measure(struct vp_job *job, double *values)
{
    struct probe_state *state = job->state;
    uint32_t size = (uint32_t)vp_param_number(job->params, "size");
    state->period_ns = (int64_t)(1e9 / (double)vp_param_number(job->params, "rate"));
    double threshold = vp_param_seconds(job->params, "gap-threshold");
    state->threshold_ns = threshold > 0 ? (int64_t)(threshold * 1e9) : 3 * state->period_ns;
    state->sent = state->answered = state->out_of_order = state->duplicates = 0;
    state->highest = state->from_peer = 0;
    state->rtt_sum = 0;
    state->rtt_longest_ns = 0;
    state->ended = false;
    memset(state->seen, 0, state->capacity / 8 + 1);
    memset(state->rtt_max, 0, state->steps * sizeof *state->rtt_max);
    job->detail[0] = '\0';
    if (probe_open(job, state, size) != 0)
        return -1;
    uint8_t *buffer = calloc(1, size);
    if (!buffer)
        abort();
    state->start_ns = vp_now_ns();
    state->real_offset_ns = vp_clock_ns(CLOCK_REALTIME) - state->start_ns;
    int64_t length_ns = (int64_t)(job->duration * 1e9);
    state->step_ns = length_ns / SERIES_STEPS > 100000000 ? length_ns / SERIES_STEPS : 100000000;
    int64_t deadline = state->start_ns + length_ns, next_send = state->start_ns;
    vp_gaps_start(&state->round_trip, state->threshold_ns, state->start_ns, state->real_offset_ns);
    vp_gaps_start(&state->from_peer_gaps, state->threshold_ns, state->start_ns, state->real_offset_ns);
    int status = 0;
    int64_t now = state->start_ns;
    while (status == 0 && now < deadline && !(job->stop && atomic_load(job->stop))) {
        if (now >= next_send) { /* on schedule; after a stall, no burst */
            status = send_probe(state, job, now, buffer, size);
            next_send = next_send + state->period_ns > now ? next_send + state->period_ns
                                                           : now + state->period_ns;
        }
        if (status == 0)
            status = wait_arrivals(state, job, size, next_send < deadline ? next_send : deadline);
        now = vp_now_ns();
    }
    int64_t end = now;
    vp_gaps_end(&state->round_trip, end);
    vp_gaps_end(&state->from_peer_gaps, end);
    state->ended = true;
    int64_t grace = 4 * state->rtt_longest_ns;
    grace = grace < GRACE_MIN_NS ? GRACE_MIN_NS : grace > GRACE_MAX_NS ? GRACE_MAX_NS : grace;
    for (int64_t until = end + grace; status == 0 && vp_now_ns() < until &&
                                      state->answered + state->duplicates < state->sent;)
        status = wait_arrivals(state, job, size, until);
    free(buffer);
    struct vp_probe_report report;
    if (status != 0) {
        close(state->fd);
        if (state->udp_fd >= 0)
            close(state->udp_fd);
        return -1;
    }
    if (probe_close(state, job, &report) != 0)
        return -1;
    values[PROBE_LONGEST] = (double)state->round_trip.longest_ns / 1e9;
    values[PROBE_OUTAGE] = (double)state->round_trip.longest_outage_ns / 1e9;
    values[PROBE_GAPS] = (double)state->round_trip.count;
    values[PROBE_TOTAL] = (double)state->round_trip.total_ns / 1e9;
    values[PROBE_LOSS] = state->sent ? 100.0 * (double)(state->sent - state->answered) / (double)state->sent : 0;
    values[PROBE_RTT] = state->answered ? state->rtt_sum / (double)state->answered : NAN;
    values[PROBE_TO_PEER] = state->udp ? (double)report.longest_ns / 1e9 : NAN;
    values[PROBE_FROM_PEER] = state->udp ? (double)state->from_peer_gaps.longest_ns / 1e9 : NAN;
    values[PROBE_OUT_OF_ORDER] = (double)state->out_of_order;
    values[PROBE_DUPLICATES] = (double)state->duplicates;
    values[PROBE_SENT] = (double)state->sent;
    write_timeline(job, state, &report, end);
    return 0;
}

static void probe_release(struct vp_job *job)
{
    struct probe_state *state = job->state;
    free(state->seen);
    free(state->sent_at);
    free(state->rtt_max);
    free(state);
}

const struct vp_bench vp_bench_net_probe = {
    .name = "net.probe",
    .summary = "interruptions: the longest time without an answer to steady probes (downtime)",
    .description =
        "Each job sends --rate small numbered probes a second to the peer, each answered at "
        "once, for --duration or until Ctrl-C (then a normal result). longest_gap is the "
        "longest time without an answer: a migration's or failover's downtime. Over UDP the "
        "peer probes back at the same rate, so a one-way outage shows in one direction only "
        "(longest_gap_to_peer, longest_gap_from_peer). The result's timeline lists each gap "
        "with its start (wall clock), length and direction, and the largest round trip of "
        "each step.",
    .options = probe_options,
    .option_count = sizeof probe_options / sizeof probe_options[0],
    .metrics = probe_metrics,
    .metric_count = PROBE_METRIC_COUNT,
    .distribution_metric = "rtt",
    .uses_duration = true,
    .default_duration = 10.0,
    .one_observation = true,
    .from_outside = true,
    .ends_on_interrupt = true,
    .setup = vp_net_setup,
    .annotate = vp_net_annotate,
    .parts = vp_net_parts,
    .units = VP_UNITS_BITS,
    .teardown = vp_net_teardown,
    .validate = probe_validate,
    .prepare = probe_prepare,
    .measure = probe_measure,
    .release = probe_release,
};
