/* Clock offsets, start instants and windows between the host and its guests (see
 * together.h). Each side's messages are frames of channel.h; the integers are this
 * machine's (the guests run this same binary on the same architecture). */
#include "guest/together.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "engine/window.h"
#include "guest/channel.h"

#define READY_WORDS (2 + VP_WINDOW_WORDS)

static int64_t deadline_after(int64_t seconds)
{
    return vp_now_ns() + seconds * 1000000000LL;
}

/* ---- the guest's side ---- */

static int guest_start(void *context, const struct vp_shared *shared, unsigned rep, bool ok,
                       int64_t lead_ns, int64_t *start_ns, char *reason, size_t reason_len);
static void guest_measured(void *context, const struct vp_shared *shared,
                           const double *stonewall, const double *span);

int vp_guest_sync_begin(struct vp_guest_sync *sync, int fd, bool op_log, unsigned total_reps,
                        char *err, size_t err_len)
{
    sync->fd = fd;
    sync->op_log = op_log;
    sync->total_reps = total_reps;
    sync->deadline_s = 24 * 3600; /* the host closes the channel when it gives up */
    sync->region = NULL;
    sync->region_len = 0;
    sync->sync = (struct vp_run_sync){ .context = sync, .start = guest_start,
                                       .measured = guest_measured };
    for (;;) {
        void *data;
        size_t len;
        uint32_t kind;
        if (vp_channel_receive(fd, &kind, &data, &len, deadline_after(sync->deadline_s), err,
                             err_len) != 0)
            return -1;
        if (kind == VP_CHANNEL_CLOCK) {
            free(data);
            int64_t now = vp_now_ns();
            if (vp_channel_send(fd, VP_CHANNEL_CLOCK, &now, sizeof now, err, err_len) != 0)
                return -1;
            continue;
        }
        bool offset = kind == VP_CHANNEL_OFFSET && len == sizeof sync->offset_ns;
        if (offset)
            memcpy(&sync->offset_ns, data, sizeof sync->offset_ns);
        free(data);
        if (!offset)
            snprintf(err, err_len, "the host sent a frame of kind %u where its clock was due",
                     kind);
        return offset ? 0 : -1;
    }
}

/* Says ok, lead and the window of rep (when rep_done), answers the window the host sends
 * back with this guest's bytes in it; *instant is the host's START (-1: stop), or 0 when
 * the host had nothing more to say after a window. */
static int say_ready(struct vp_guest_sync *sync, const struct vp_shared *shared, bool ok,
                     int64_t lead_ns, bool rep_done, unsigned rep, int64_t *instant, char *err,
                     size_t err_len)
{
    int64_t words[READY_WORDS] = { ok ? 0 : 1, lead_ns };
    vp_window_empty(words + 2);
    if (ok && rep_done)
        vp_window_add_jobs(words + 2, shared, rep, sync->offset_ns);
    if (vp_channel_send(sync->fd, VP_CHANNEL_READY, words, sizeof words, err, err_len) != 0)
        return -1;
    void *data;
    size_t len;
    uint32_t kind;
    if (vp_channel_receive(sync->fd, &kind, &data, &len, deadline_after(sync->deadline_s), err,
                         err_len) != 0)
        return -1;
    *instant = 0;
    if (kind == VP_CHANNEL_WINDOW && len == VP_WINDOW_WORDS * sizeof(int64_t)) {
        double bytes[VP_WINDOW_BYTES];
        vp_window_bytes(shared, data, sync->offset_ns, bytes);
        free(data);
        return vp_channel_send(sync->fd, VP_CHANNEL_BYTES, bytes, sizeof bytes, err, err_len);
    }
    bool start = kind == VP_CHANNEL_START && len == sizeof *instant;
    if (start)
        memcpy(instant, data, sizeof *instant);
    free(data);
    if (!start)
        snprintf(err, err_len, "the host sent a frame of kind %u where a start was due", kind);
    return start ? 0 : -1;
}

static int guest_start(void *context, const struct vp_shared *shared, unsigned rep, bool ok,
                       int64_t lead_ns, int64_t *start_ns, char *reason, size_t reason_len)
{
    struct vp_guest_sync *sync = context;
    int64_t instant = 0;
    if (say_ready(sync, shared, ok, lead_ns, rep > 0, rep - 1, &instant, reason, reason_len) != 0)
        return -1;
    if (instant == 0) { /* a window came first: the start follows */
        void *data;
        size_t len;
        if (vp_channel_expect(sync->fd, VP_CHANNEL_START, &data, &len, sizeof instant,
                            deadline_after(sync->deadline_s), reason, reason_len) != 0)
            return -1;
        memcpy(&instant, data, sizeof instant);
        free(data);
    }
    if (instant < 0) {
        snprintf(reason, reason_len, "stopped: another guest failed (its error is in the result)");
        return -1;
    }
    *start_ns = instant;
    return 0;
}

static void guest_measured(void *context, const struct vp_shared *shared,
                           const double *stonewall, const double *span)
{
    (void)stonewall, (void)span; /* this guest's own: the host finds them across guests */
    struct vp_guest_sync *sync = context;
    char reason[256];
    int64_t instant;
    if (say_ready(sync, shared, shared != NULL, 0, true, sync->total_reps - 1, &instant, reason,
                  sizeof reason) != 0 || !shared)
        return;
    sync->region = malloc(shared->size);
    if (!sync->region)
        abort();
    memcpy(sync->region, shared->base, shared->size);
    sync->region_len = shared->size;
}

void vp_guest_sync_end(struct vp_guest_sync *sync)
{
    free(sync->region);
    sync->region = NULL;
}

/* ---- the host's side ---- */

static int lose(struct vp_guests_point *point, size_t member, const char *why)
{
    point->lost = (int)member;
    snprintf(point->reason, sizeof point->reason, "%s", why);
    return -1;
}

int vp_guests_time(struct vp_guests_point *point)
{
    point->lost = -1;
    char err[256];
    for (size_t m = 0; m < point->count; m++) {
        struct vp_guest_member *member = &point->members[m];
        struct vp_clock_estimate estimate;
        vp_clock_estimate_init(&estimate);
        for (int round = 0; round < VP_CLOCK_ROUNDS; round++) {
            int64_t sent = vp_now_ns(), guest_time;
            void *data;
            size_t len;
            if (vp_channel_send(member->fd, VP_CHANNEL_CLOCK, &sent, sizeof sent, err, sizeof err) != 0 ||
                vp_channel_expect(member->fd, VP_CHANNEL_CLOCK, &data, &len, sizeof guest_time,
                                deadline_after(point->timeout_s), err, sizeof err) != 0)
                return lose(point, m, err);
            memcpy(&guest_time, data, sizeof guest_time);
            free(data);
            vp_clock_estimate_add(&estimate, sent, guest_time, vp_now_ns());
        }
        member->offset_ns = estimate.offset_ns;
        member->bound_ns = estimate.bound_ns;
        if (vp_channel_send(member->fd, VP_CHANNEL_OFFSET, &member->offset_ns,
                          sizeof member->offset_ns, err, sizeof err) != 0)
            return lose(point, m, err);
    }
    return 0;
}

/* Time for the instant to reach every guest before it comes, beyond the jobs' own lead. */
static int64_t send_margin_ns(size_t guests)
{
    return 5000000 + 2000000 * (int64_t)guests;
}

/* Every member's word on the repetition before (or the start); the window back when all
 * are ok and rep_done, and their bytes in it. Returns 1 all ok, 0 one not, -1 lost. */
static int agree(struct vp_guests_point *point, bool rep_done, unsigned rep, int64_t *lead)
{
    char err[256];
    int64_t window[VP_WINDOW_WORDS];
    vp_window_empty(window);
    bool all_ok = true;
    *lead = 0;
    for (size_t m = 0; m < point->count; m++) {
        void *data;
        size_t len;
        if (vp_channel_expect(point->members[m].fd, VP_CHANNEL_READY, &data, &len,
                            READY_WORDS * sizeof(int64_t), deadline_after(point->timeout_s), err,
                            sizeof err) != 0)
            return lose(point, m, err);
        const int64_t *words = data;
        all_ok = all_ok && words[0] == 0;
        *lead = words[1] > *lead ? words[1] : *lead;
        vp_window_merge(window, words + 2);
        free(data);
    }
    if (!all_ok || !rep_done || !point->op_log)
        return all_ok;
    double bytes[VP_WINDOW_BYTES] = { 0, 0, 0 };
    for (size_t m = 0; m < point->count; m++)
        if (vp_channel_send(point->members[m].fd, VP_CHANNEL_WINDOW, window, sizeof window, err,
                          sizeof err) != 0)
            return lose(point, m, err);
    for (size_t m = 0; m < point->count; m++) {
        void *data;
        size_t len;
        if (vp_channel_expect(point->members[m].fd, VP_CHANNEL_BYTES, &data, &len, sizeof bytes,
                            deadline_after(point->timeout_s), err, sizeof err) != 0)
            return lose(point, m, err);
        for (int b = 0; b < VP_WINDOW_BYTES; b++)
            bytes[b] += ((const double *)data)[b];
        free(data);
    }
    if (rep >= point->warmup) {
        unsigned measured = rep - point->warmup;
        vp_window_rates(window, bytes, &point->stonewall[measured], &point->span[measured]);
    }
    return 2; /* ok, and the window was the answer */
}

/* START to every member: the instant on its clock, or -1 (stop) / 0 (nothing more). */
static int send_starts(struct vp_guests_point *point, int64_t host_instant)
{
    char err[256];
    for (size_t m = 0; m < point->count; m++) {
        int64_t instant = host_instant > 0 ? host_instant + point->members[m].offset_ns
                                           : host_instant;
        if (vp_channel_send(point->members[m].fd, VP_CHANNEL_START, &instant, sizeof instant, err,
                          sizeof err) != 0)
            return lose(point, m, err);
    }
    return 0;
}

/* What a side of an alternating point has yet to hear or be told. */
struct side_state {
    int said;        /* agree's last answer: 2 or 1 ok, 0 one failed */
    int64_t lead;
    bool finished;   /* its last word heard */
};

/* Starts side's repetition rep and waits until every member has done it (their word on
 * it, or their last word after the last repetition). */
static int run_repetition(struct vp_guests_point *side, struct side_state *state, unsigned rep)
{
    if (rep == side->warmup && side->measuring)
        side->measuring(side->context);
    int64_t instant = vp_now_ns() + state->lead + send_margin_ns(side->count);
    if (side->starts)
        side->starts[rep] = instant;
    if (send_starts(side, instant) != 0)
        return -1;
    state->said = agree(side, true, rep, &state->lead);
    state->finished = rep + 1 == side->total_reps;
    return state->said < 0 ? -1 : 0;
}

/* Ends a side: the ones still waiting for a start are stopped (-1) and their last word
 * heard; a last word answered by no window is answered with "nothing more" (0). */
static int end_side(struct vp_guests_point *side, struct side_state *state)
{
    if (!state->finished) {
        if (send_starts(side, -1) != 0)
            return -1;
        state->said = agree(side, true, side->total_reps - 1, &state->lead);
        if (state->said < 0)
            return -1;
    }
    return state->said == 2 ? 0 : send_starts(side, 0);
}

int vp_guests_alternate(struct vp_guests_point *const *sides, size_t count)
{
    struct side_state states[VP_GUESTS_MAX_SIDES] = { { 0 } };
    if (count == 0 || count > VP_GUESTS_MAX_SIDES)
        return -1;
    for (size_t s = 0; s < count; s++) {
        struct vp_guests_point *side = sides[s];
        side->lost = -1;
        unsigned measured = side->total_reps > side->warmup ? side->total_reps - side->warmup : 0;
        for (unsigned r = 0; r < measured; r++)
            side->stonewall[r] = side->span[r] = NAN;
        states[s].said = agree(side, false, 0, &states[s].lead);
        if (states[s].said < 0)
            return -1;
        states[s].finished = side->total_reps == 0;
    }
    bool all_ok = true;
    for (unsigned rep = 0; rep < sides[0]->total_reps && all_ok; rep++)
        for (size_t s = 0; s < count && all_ok; s++) {
            for (size_t o = 0; o < count; o++)
                all_ok = all_ok && states[o].said > 0;
            if (all_ok && run_repetition(sides[s], &states[s], rep) != 0)
                return -1;
        }
    for (size_t s = 0; s < count; s++)
        if (end_side(sides[s], &states[s]) != 0)
            return -1;
    return 0;
}

int vp_guests_together(struct vp_guests_point *point)
{
    return vp_guests_alternate(&point, 1);
}
