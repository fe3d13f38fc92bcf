/* The start-together protocol's words over the members' channels (see transport.h). */
#include "env/transport.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "engine/engine.h"
#include "env/channel.h"

#define MEMBER_WAIT_S (24 * 3600) /* a member waits for the host, which closes when it gives up */

static const uint32_t frame_of[] = {
    [VP_WORD_CLOCK] = VP_CHANNEL_CLOCK, [VP_WORD_OFFSET] = VP_CHANNEL_OFFSET,
    [VP_WORD_RESULT] = VP_CHANNEL_RESULT, [VP_WORD_REGION] = VP_CHANNEL_REGION,
};

static int64_t deadline(const struct vp_channel_transport *channel)
{
    return vp_now_ns() + (int64_t)channel->timeout_s * 1000000000LL;
}

/* The channel to rank peer (a member's: the host's) to send or receive on, once the
 * leader's gate lets it by (a member migrating has another channel once it arrived; what
 * it sent before is read first); ended: the channel that just ended under a word received
 * (-1: none); -1 with why. */
static int fd_of(const struct vp_channel_transport *channel, int peer, bool receive, int ended,
                 char *reason, size_t reason_len)
{
    if (channel->transport.rank != 0)
        return channel->fds[0];
    if (channel->gate)
        return channel->gate(channel->gate_context, (size_t)(peer - 1), receive, ended, reason,
                             reason_len);
    return channel->fds[peer - 1];
}

static int lose(struct vp_channel_transport *channel, int peer, const char *why)
{
    if (channel->transport.rank == 0 && channel->lost == 0) {
        channel->lost = peer;
        snprintf(channel->lost_why, sizeof channel->lost_why, "%s", why);
    }
    return -1;
}

/* On the leader once a rank is lost: no word waits for the others. */
static bool already_lost(const struct vp_channel_transport *channel, char *reason,
                         size_t reason_len)
{
    if (channel->lost == 0)
        return false;
    snprintf(reason, reason_len, "%s", channel->lost_why);
    return true;
}

static int send_frame(struct vp_channel_transport *channel, int peer, uint32_t kind,
                      const void *data, size_t len, char *reason, size_t reason_len)
{
    if (already_lost(channel, reason, reason_len))
        return -1;
    int fd = fd_of(channel, peer, false, -1, reason, reason_len);
    if (fd < 0 || vp_channel_send(fd, kind, data, len, reason, reason_len) != 0)
        return lose(channel, peer, reason);
    return 0;
}

/* A member's values checked before the leader uses them (engine/together.h): one that
 * lies is the one lost, named, and no other is blamed. */
static int check_values(struct vp_channel_transport *channel, int peer, uint32_t kind,
                        const void *data, size_t len, char *reason, size_t reason_len)
{
    int checked = 0;
    if (kind == VP_CHANNEL_CLOCK)
        checked = vp_together_check_clock(*(const int64_t *)data, reason, reason_len);
    else if (kind == VP_CHANNEL_READY)
        checked = vp_together_check_agreement(data, len / sizeof(int64_t), reason, reason_len);
    else if (kind == VP_CHANNEL_BYTES)
        checked = vp_together_check_bytes(data, len / sizeof(double), reason, reason_len);
    return checked == 0 ? 0 : lose(channel, peer, reason);
}

/* A frame of kind from peer, exactly len long (0: at most most). On the leader, when the
 * channel closed under it as the member moved to another hypervisor, again over the
 * channel that followed it, which the gate gives once the member arrived (there and back:
 * twice). */
static int expect_from(struct vp_channel_transport *channel, int peer, uint32_t kind,
                       size_t len, size_t most, void **data, size_t *got, char *reason,
                       size_t reason_len)
{
    int fd = fd_of(channel, peer, true, -1, reason, reason_len);
    for (int moves = 0; fd >= 0; moves++) {
        int status = len ? vp_channel_expect(fd, kind, data, got, len, deadline(channel),
                                             reason, reason_len)
                         : vp_channel_expect_within(fd, kind, most, data, got,
                                                    deadline(channel), reason, reason_len);
        if (status == 0)
            return 0;
        char why[256];
        bool moved = moves < 4 && channel->gate && !vp_engine_interrupted();
        int now = moved ? fd_of(channel, peer, true, fd, why, sizeof why) : fd;
        if (now < 0)
            snprintf(reason, reason_len, "%s", why);
        if (now == fd || now < 0)
            return -1;
        fd = now;
    }
    return -1;
}

/* A frame of kind exactly len long into data. */
static int receive_frame(struct vp_channel_transport *channel, int peer, uint32_t kind,
                         void *data, size_t len, char *reason, size_t reason_len)
{
    void *payload;
    size_t got;
    if (already_lost(channel, reason, reason_len))
        return -1;
    if (expect_from(channel, peer, kind, len, 0, &payload, &got, reason, reason_len) != 0)
        return lose(channel, peer, reason);
    memcpy(data, payload, len);
    free(payload);
    return channel->transport.rank == 0 ? check_values(channel, peer, kind, data, len, reason,
                                                       reason_len)
                                        : 0;
}

static int send_word(void *context, int peer, enum vp_together_word what, const void *data,
                     size_t len, char *reason, size_t reason_len)
{
    return send_frame(context, peer, frame_of[what], data, len, reason, reason_len);
}

static int receive_word(void *context, int peer, enum vp_together_word what, void *data,
                        size_t len, char *reason, size_t reason_len)
{
    return receive_frame(context, peer, frame_of[what], data, len, reason, reason_len);
}

static int receive_any(void *context, int peer, enum vp_together_word what, size_t most,
                       void **data, size_t *len, char *reason, size_t reason_len)
{
    struct vp_channel_transport *channel = context;
    if (already_lost(channel, reason, reason_len))
        return -1;
    if (expect_from(channel, peer, frame_of[what], 0, most, data, len, reason, reason_len) != 0)
        return lose(channel, peer, reason);
    return 0;
}

/* values combined again with the other leaders' above (engine/together.h), failed: a
 * member was lost, so this leader says so there and every rank stops at the same word. */
static int lift(struct vp_channel_transport *channel, uint32_t kind, void *values, size_t len,
                bool failed)
{
    char *why = channel->above_why;
    size_t why_len = sizeof channel->above_why;
    return kind == VP_CHANNEL_BYTES
               ? vp_together_above_sum(channel->above, values, len / sizeof(double), failed,
                                       why, why_len)
               : vp_together_above_agree(channel->above, values, len / sizeof(int64_t), failed,
                                         why, why_len);
}

/* The star of an agreement: each member's values to the host, combined there with its
 * own by combine, the outcome back to each. */
static int combine_all(struct vp_channel_transport *channel, uint32_t kind, void *values,
                       size_t len, void (*combine)(void *into, const void *other, size_t len),
                       char *reason, size_t reason_len)
{
    if (channel->transport.rank != 0)
        return send_frame(channel, 0, kind, values, len, reason, reason_len) != 0 ? -1
               : receive_frame(channel, 0, kind, values, len, reason, reason_len);
    unsigned char other[64];
    if (len > sizeof other)
        abort();
    int status = 0;
    for (int peer = 1; peer < channel->transport.size && status == 0; peer++) {
        status = receive_frame(channel, peer, kind, other, len, reason, reason_len);
        if (status == 0)
            combine(values, other, len);
    }
    if (channel->above) {
        if (lift(channel, kind, values, len, channel->lost != 0) != 0) {
            snprintf(reason, reason_len, "%s", channel->above_why);
            return -1; /* not a member's failure */
        }
        /* once a member is lost (kept in lost), this leader goes on in step with the
         * others above, saying it is not ok, until they all stop at the same word */
        for (int peer = 1; peer < channel->transport.size && !channel->lost; peer++)
            send_frame(channel, peer, kind, values, len, reason, reason_len);
        return 0;
    }
    if (status != 0)
        return -1;
    for (int peer = 1; peer < channel->transport.size; peer++)
        if (send_frame(channel, peer, kind, values, len, reason, reason_len) != 0)
            return -1;
    return 0;
}

static void take_max(void *into, const void *other, size_t len)
{
    int64_t *words = into;
    const int64_t *theirs = other;
    for (size_t w = 0; w < len / sizeof *words; w++)
        words[w] = theirs[w] > words[w] ? theirs[w] : words[w];
}

static void take_sum(void *into, const void *other, size_t len)
{
    double *values = into;
    const double *theirs = other;
    for (size_t v = 0; v < len / sizeof *values; v++)
        values[v] += theirs[v];
}

static int max_words(void *context, int64_t *words, size_t count, char *reason,
                     size_t reason_len)
{
    return combine_all(context, VP_CHANNEL_READY, words, count * sizeof *words, take_max,
                       reason, reason_len);
}

static int sum_values(void *context, double *values, size_t count, char *reason,
                      size_t reason_len)
{
    return combine_all(context, VP_CHANNEL_BYTES, values, count * sizeof *values, take_sum,
                       reason, reason_len);
}

static int broadcast(void *context, int64_t *value, char *reason, size_t reason_len)
{
    struct vp_channel_transport *channel = context;
    if (channel->transport.rank != 0)
        return receive_frame(channel, 0, VP_CHANNEL_START, value, sizeof *value, reason,
                             reason_len);
    if (channel->above && /* first: the top's instant comes whatever became of a member */
        vp_together_above_instant(channel->above, value, reason, reason_len) != 0)
        return -1;
    for (int peer = 1; peer < channel->transport.size; peer++)
        if (send_frame(channel, peer, VP_CHANNEL_START, value, sizeof *value, reason,
                       reason_len) != 0 && !channel->above)
            return -1; /* (led from above: in step with the others, as combine_all) */
    return 0;
}

static void init(struct vp_channel_transport *channel, const int *fds, size_t count, int rank,
                 unsigned timeout_s)
{
    *channel = (struct vp_channel_transport){
        .fds = fds, .count = count, .timeout_s = timeout_s,
        .transport = { .context = channel, .rank = rank, .size = (int)count + 1,
                       .margin_ns = 5000000 + 2000000 * (int64_t)count, .send = send_word,
                       .receive = receive_word, .receive_any = receive_any, .max = max_words,
                       .sum = sum_values, .broadcast = broadcast },
    };
}

void vp_channel_transport_lead(struct vp_channel_transport *channel, const int *fds,
                               size_t count, unsigned timeout_s)
{
    init(channel, fds, count, 0, timeout_s);
}

void vp_channel_transport_follow(struct vp_channel_transport *channel, const int *fd)
{
    init(channel, fd, 1, 1, MEMBER_WAIT_S);
}
