/* The start-together protocol's transport (engine/together.h) between this host and the
 * members it started, over their channels (env/channel.h frames): this host leads (rank
 * 0, without jobs of its own: its own jobs, when it has some, are a member over a socket
 * pair), member i is rank i + 1. The agreements are a star: each member's words to the
 * host, the host's combination back to each. The integers are this machine's (the members
 * run this same binary on the same architecture). The instant is sent 5 ms + 2 ms per
 * member ahead of the jobs' own lead. A member whose channel closes (destroyed, crashed)
 * or stays silent past the timeout is the one lost. */
#ifndef VP_GUEST_TRANSPORT_H
#define VP_GUEST_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/together.h"

struct vp_channel_transport {
    struct vp_together_transport transport;
    const int *fds;      /* the leader's: member i's channel at fds[i]; a member's: fds[0] */
    size_t count;
    unsigned timeout_s;  /* the longest wait for one word */
    int lost;            /* the leader's: the rank whose channel failed, 0: none */
    char lost_why[1024]; /* what failed then: every later word fails with it at once */
    /* The leader's, NULL: none. Called before each word with member i, and again with the
     * channel that ended under a word received (ended; else -1): the channel to use once
     * it may be used (a member migrating: once it arrived; to receive, its oldest channel
     * not ended, which holds what it sent before it moved on), -1 with why when it cannot
     * be. */
    int (*gate)(void *context, size_t i, bool receive, int ended, char *reason,
                size_t reason_len);
    void *gate_context;
    /* The leader's, NULL: none: the point above it (engine/together.h) whose agreements
     * and instants its members' are (virtperf-mpi: this host one rank of many). A leader
     * led from above that loses a member keeps lost and goes on in step with the other
     * leaders, saying it is not ok, so each word ends where theirs do: only above's
     * failure fails its words. */
    const struct vp_together_above *above;
    char above_why[256]; /* why above failed */
};

/* This host's side over count members' channels. */
void vp_channel_transport_lead(struct vp_channel_transport *channel, const int *fds,
                               size_t count, unsigned timeout_s);
/* A member's side over its channel to the host (the host closes it when it gives up). */
void vp_channel_transport_follow(struct vp_channel_transport *channel, const int *fd);

#endif
