/* The protocol of starting many hosts' jobs together, over any transport (see
 * together.h); the arithmetic is engine/window.c's. */
#include "engine/together.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/limits.h"
#include "engine/window.h"

#define AGREE_WORDS (2 + VP_WINDOW_WORDS)
#define STOP_INSTANT (-1) /* the leader's instant that stops a side instead */

int vp_together_check_clock(int64_t reading, char *why, size_t why_len)
{
    if (reading >= -VP_INSTANT_LIMIT && reading <= VP_INSTANT_LIMIT)
        return 0;
    snprintf(why, why_len, "sent a clock reading of %lld ns; accepted: within %lld",
             (long long)reading, (long long)VP_INSTANT_LIMIT);
    return -1;
}

int vp_together_check_agreement(const int64_t *words, size_t count, char *why, size_t why_len)
{
    if (count != AGREE_WORDS || (words[0] != 0 && words[0] != 1)) {
        snprintf(why, why_len, "sent a readiness word of %lld; accepted: 0 or 1",
                 count ? (long long)words[0] : 0LL);
        return -1;
    }
    if (words[1] < 0 || words[1] > VP_TOGETHER_MOST_LEAD_NS) {
        snprintf(why, why_len, "asked for a lead of %lld ns; accepted: 0 to %lld",
                 (long long)words[1], (long long)VP_TOGETHER_MOST_LEAD_NS);
        return -1;
    }
    for (size_t w = 2; w < count; w++)
        if (words[w] != INT64_MIN && vp_together_check_clock(words[w], why, why_len) != 0)
            return -1;
    return 0;
}

int vp_together_check_bytes(const double *values, size_t count, char *why, size_t why_len)
{
    for (size_t v = 0; v < count; v++)
        if (!isfinite(values[v]) || values[v] < 0) {
            snprintf(why, why_len, "sent a byte count of %g; accepted: finite, not negative",
                     values[v]);
            return -1;
        }
    return 0;
}

/* The leader's side of the clock rounds with peer: the offset of the round with the
 * smallest round trip, and half that round trip. */
static int time_peer(struct vp_together *together, int peer, char *reason, size_t reason_len)
{
    const struct vp_together_transport *t = together->transport;
    int twin = t->clock_twin ? t->clock_twin(t->context, peer) : peer;
    if (twin != peer) { /* the same clock as one timed before it (or as the leader's) */
        together->offsets[peer] = together->offsets[twin];
        together->bounds[peer] = together->bounds[twin];
        return t->send(t->context, peer, VP_WORD_OFFSET, &together->offsets[peer],
                       sizeof together->offsets[peer], reason, reason_len);
    }
    struct vp_clock_estimate estimate;
    vp_clock_estimate_init(&estimate);
    for (int round = 0; round < VP_CLOCK_ROUNDS; round++) {
        int64_t sent = vp_now_ns(), peer_time;
        if (t->send(t->context, peer, VP_WORD_CLOCK, &sent, sizeof sent, reason, reason_len) != 0 ||
            t->receive(t->context, peer, VP_WORD_CLOCK, &peer_time, sizeof peer_time, reason,
                       reason_len) != 0)
            return -1;
        if (vp_together_check_clock(peer_time, reason, reason_len) != 0)
            return -1;
        vp_clock_estimate_add(&estimate, sent, peer_time, vp_now_ns());
    }
    together->offsets[peer] = estimate.offset_ns;
    together->bounds[peer] = estimate.bound_ns;
    return t->send(t->context, peer, VP_WORD_OFFSET, &together->offsets[peer],
                   sizeof together->offsets[peer], reason, reason_len);
}

/* Another rank's side: answers each of the leader's times with its own (unless it shares
 * a clock timed already), then learns its offset. */
static int answer_clock(struct vp_together *together, char *reason, size_t reason_len)
{
    const struct vp_together_transport *t = together->transport;
    bool timed = !t->clock_twin || t->clock_twin(t->context, t->rank) == t->rank;
    for (int round = 0; timed && round < VP_CLOCK_ROUNDS; round++) {
        int64_t their_time, own_time;
        if (t->receive(t->context, 0, VP_WORD_CLOCK, &their_time, sizeof their_time, reason,
                       reason_len) != 0)
            return -1;
        own_time = vp_now_ns();
        if (t->send(t->context, 0, VP_WORD_CLOCK, &own_time, sizeof own_time, reason,
                    reason_len) != 0)
            return -1;
    }
    return t->receive(t->context, 0, VP_WORD_OFFSET, &together->offset_ns,
                      sizeof together->offset_ns, reason, reason_len);
}

/* The rates of one repetition across ranks from the agreed window: this rank's bytes
 * inside it and in all, summed over ranks. */
static int agree_rates(struct vp_together *together, const struct vp_shared *shared,
                       unsigned rep, const int64_t *window, char *reason, size_t reason_len)
{
    if (!together->op_log)
        return 0;
    const struct vp_together_transport *t = together->transport;
    double bytes[VP_WINDOW_BYTES];
    vp_window_bytes(shared, window, together->offset_ns, bytes);
    if (t->sum(t->context, bytes, VP_WINDOW_BYTES, reason, reason_len) != 0)
        return -1;
    if (rep < together->warmup)
        return 0;
    unsigned measured = rep - together->warmup;
    vp_window_rates(window, bytes, &together->stonewall[measured], &together->span[measured]);
    return 0;
}

/* Every rank's word on the repetition just done (or on the start): whether all are ok,
 * the longest lead, and the window of rep (when rep_done). Returns 1 when all are ok,
 * 0 when one is not, -1 when the transport failed. */
static int agree(struct vp_together *together, const struct vp_shared *shared, bool ok,
                 int64_t lead_ns, bool rep_done, unsigned rep, int64_t *lead, char *reason,
                 size_t reason_len)
{
    const struct vp_together_transport *t = together->transport;
    int64_t words[AGREE_WORDS] = { ok ? 0 : 1, lead_ns };
    vp_window_empty(words + 2);
    if (ok && rep_done && shared)
        vp_window_add_jobs(words + 2, shared, rep, together->offset_ns);
    if (t->max(t->context, words, AGREE_WORDS, reason, reason_len) != 0)
        return -1;
    if (words[0]) {
        snprintf(reason, reason_len, "stopped: another host's jobs failed (its error is in "
                 "the result)");
        return 0;
    }
    char why[200]; /* the combined words too: no instant overflows, whatever the transport */
    if (vp_together_check_agreement(words, AGREE_WORDS, why, sizeof why) != 0) {
        snprintf(reason, reason_len, "a rank %s", why);
        return -1;
    }
    *lead = words[1];
    if (rep_done && agree_rates(together, shared, rep, words + 2, reason, reason_len) != 0)
        return -1;
    return 1;
}

/* The leader picks the instant of rep (or stops: STOP_INSTANT) and sends it; every rank
 * gets it on its own clock in *start_ns. 0, 1 when the leader stopped the point, -1. */
static int release(struct vp_together *together, unsigned rep, int64_t lead, bool stop,
                   int64_t *start_ns, char *reason, size_t reason_len)
{
    const struct vp_together_transport *t = together->transport;
    int64_t instant = 0;
    if (t->rank == 0)
        instant = stop ? STOP_INSTANT : vp_now_ns() + lead + t->margin_ns;
    if (t->broadcast(t->context, &instant, reason, reason_len) != 0)
        return -1;
    if (t->rank == 0 && instant != STOP_INSTANT && together->releasing)
        together->releasing(together->releasing_context, rep, instant); /* a leader led from
                                                                          * above: the top's */
    if (instant == STOP_INSTANT) {
        snprintf(reason, reason_len, "stopped: the other side's jobs failed (its error is in "
                 "its result)");
        return 1;
    }
    *start_ns = instant + together->offset_ns;
    return 0;
}

static int start(void *context, const struct vp_shared *shared, unsigned rep, bool ok,
                 int64_t lead_ns, int64_t *start_ns, char *reason, size_t reason_len)
{
    struct vp_together *together = context;
    int64_t lead = 0;
    if (agree(together, shared, ok, lead_ns, rep > 0, rep - 1, &lead, reason, reason_len) != 1)
        return -1;
    if (together->barrier && together->transport->barrier) {
        /* blocking, as a benchmark would: no rank's death is seen here */
        together->transport->barrier(together->transport->context);
        *start_ns = vp_now_ns();
        return 0;
    }
    return release(together, rep, lead, false, start_ns, reason, reason_len) == 0 ? 0 : -1;
}

static void measured(void *context, const struct vp_shared *shared, const double *stonewall,
                     const double *span)
{
    (void)stonewall; /* this rank's own: the agreed ones are in together */
    (void)span;
    struct vp_together *together = context;
    char reason[VP_ERROR_LEN];
    int64_t lead;
    if (agree(together, shared, shared != NULL, 0, true, together->total_reps - 1, &lead,
              reason, sizeof reason) != 1 || !shared)
        return;
    together->region = malloc(shared->size);
    if (!together->region)
        abort();
    memcpy(together->region, shared->base, shared->size);
    together->region_len = shared->size;
    together->region_jobs = shared->jobs;
}

int vp_together_wait(struct vp_together *together, char *reason, size_t reason_len)
{
    for (unsigned rep = 0; rep < together->total_reps; rep++) {
        int64_t instant;
        if (start(together, NULL, rep, true, 0, &instant, reason, reason_len) != 0)
            break; /* a rank failed: the last word below is still everyone's */
    }
    int64_t lead;
    return agree(together, NULL, true, 0, true, together->total_reps - 1, &lead, reason,
                 reason_len) < 0 ? -1 : 0;
}

/* What an alternating side has yet to hear or be told. */
struct side_state {
    int said;       /* agree's last answer: 1 all ok, 0 one failed */
    int64_t lead;
    bool finished;  /* its last word heard */
};

int vp_together_alternate(struct vp_together *const *sides, size_t count, size_t *lost_side,
                          char *reason, size_t reason_len)
{
    struct side_state states[VP_TOGETHER_MAX_SIDES] = { { 0 } };
    if (count == 0 || count > VP_TOGETHER_MAX_SIDES) {
        snprintf(reason, reason_len, "%zu sides: 1 or 2 are accepted", count);
        return -1;
    }
    for (*lost_side = 0; *lost_side < count; (*lost_side)++) {
        struct side_state *state = &states[*lost_side];
        state->said = agree(sides[*lost_side], NULL, true, 0, false, 0, &state->lead, reason,
                            reason_len);
        if (state->said < 0)
            return -1;
        state->finished = sides[*lost_side]->total_reps == 0;
    }
    bool all_ok = true;
    for (unsigned rep = 0; rep < sides[0]->total_reps && all_ok; rep++)
        for (*lost_side = 0; *lost_side < count; (*lost_side)++) {
            for (size_t other = 0; other < count; other++)
                all_ok = all_ok && states[other].said > 0;
            if (!all_ok)
                break;
            struct vp_together *side = sides[*lost_side];
            struct side_state *state = &states[*lost_side];
            int64_t instant;
            if (release(side, rep, state->lead, false, &instant, reason, reason_len) != 0)
                return -1;
            state->said = agree(side, NULL, true, 0, true, rep, &state->lead, reason,
                                reason_len);
            if (state->said < 0)
                return -1;
            state->finished = rep + 1 == side->total_reps;
        }
    /* a side stopped early: told so when it waits for an instant, then its last word */
    for (*lost_side = 0; *lost_side < count; (*lost_side)++) {
        struct vp_together *side = sides[*lost_side];
        struct side_state *state = &states[*lost_side];
        int64_t instant;
        if (state->finished)
            continue;
        if (state->said > 0 && release(side, 0, 0, true, &instant, reason, reason_len) < 0)
            return -1;
        if (agree(side, NULL, true, 0, true, side->total_reps - 1, &state->lead, reason,
                  reason_len) < 0)
            return -1;
    }
    return 0;
}

int vp_together_begin(struct vp_together *together, const struct vp_together_transport *transport,
                      bool op_log, bool barrier, unsigned warmup, unsigned total_reps,
                      char *reason, size_t reason_len)
{
    *together = (struct vp_together){ .transport = transport, .op_log = op_log,
                                      .barrier = barrier, .warmup = warmup,
                                      .total_reps = total_reps };
    unsigned measured_reps = total_reps > warmup ? total_reps - warmup : 1;
    together->stonewall = calloc(measured_reps, sizeof *together->stonewall);
    together->span = calloc(measured_reps, sizeof *together->span);
    together->offsets = calloc((size_t)transport->size, sizeof *together->offsets);
    together->bounds = calloc((size_t)transport->size, sizeof *together->bounds);
    if (!together->stonewall || !together->span || !together->offsets || !together->bounds)
        abort();
    together->sync = (struct vp_run_sync){ .context = together, .start = start,
                                           .measured = measured };
    if (transport->rank != 0)
        return answer_clock(together, reason, reason_len);
    for (int peer = 1; peer < transport->size; peer++)
        if (time_peer(together, peer, reason, reason_len) != 0)
            return -1;
    return 0;
}

void vp_together_end(struct vp_together *together)
{
    free(together->stonewall);
    free(together->span);
    free(together->offsets);
    free(together->bounds);
    free(together->region);
    together->region = NULL;
}

int vp_together_send_part(const struct vp_together *together, const char *result_text,
                          char *reason, size_t reason_len)
{
    const struct vp_together_transport *t = together->transport;
    if (t->send(t->context, 0, VP_WORD_RESULT, result_text, strlen(result_text), reason,
                reason_len) != 0)
        return -1;
    return t->send(t->context, 0, VP_WORD_REGION, together->region, together->region_len,
                   reason, reason_len);
}

int vp_together_receive_part(const struct vp_together *together, int peer, size_t region_most,
                             char **result_text, void **region, size_t *region_len,
                             char *reason, size_t reason_len)
{
    const struct vp_together_transport *t = together->transport;
    void *text = NULL;
    size_t text_len;
    *region = NULL;
    *region_len = 0;
    if (t->receive_any(t->context, peer, VP_WORD_RESULT, VP_RESULT_MOST, &text, &text_len,
                       reason, reason_len) != 0)
        return -1;
    if (t->receive_any(t->context, peer, VP_WORD_REGION, region_most, region, region_len,
                       reason, reason_len) != 0) {
        free(text);
        return -1;
    }
    *result_text = text;
    return 0;
}

int vp_together_above_agree(const struct vp_together_above *above, int64_t *words,
                            size_t count, bool failed, char *reason, size_t reason_len)
{
    const struct vp_together_transport *t = above->together->transport;
    if (count != AGREE_WORDS)
        abort(); /* only agree's words are agreed above */
    if (failed) {
        words[0] = 1;
        words[1] = 0;
        vp_window_empty(words + 2);
    }
    int64_t offset = above->together->offset_ns; /* this clock minus the top's */
    words[1] += above->below_margin_ns + t->margin_ns; /* the instant's way down, both legs */
    vp_window_shift(words + 2, -offset);
    if (t->max(t->context, words, count, reason, reason_len) != 0)
        return -1;
    vp_window_shift(words + 2, offset);
    return 0;
}

int vp_together_above_sum(const struct vp_together_above *above, double *values, size_t count,
                          bool failed, char *reason, size_t reason_len)
{
    const struct vp_together_transport *t = above->together->transport;
    for (size_t v = 0; failed && v < count; v++)
        values[v] = 0;
    return t->sum(t->context, values, count, reason, reason_len);
}

int vp_together_above_instant(const struct vp_together_above *above, int64_t *instant,
                              char *reason, size_t reason_len)
{
    const struct vp_together_transport *t = above->together->transport;
    if (t->broadcast(t->context, instant, reason, reason_len) != 0)
        return -1;
    if (*instant != STOP_INSTANT)
        *instant += above->together->offset_ns;
    return 0;
}
