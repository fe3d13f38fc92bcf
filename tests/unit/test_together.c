/* Unit tests for the start-together protocol (engine/together.c) over the channel
 * transport (env/transport.c): a leader without jobs and followers in threads, each
 * follower doing what the engine does with its sync (a start per repetition, then its
 * last word). Every follower starts each repetition at the leader's instant within the
 * bound of its clock offset; one follower failing stops all at that repetition and every
 * side still ends; two sides alternate ABAB and a failure on one stops the other; a
 * follower whose channel closes is the rank named lost; leaders led from above (each its
 * own followers) start every follower of every one at the top's instant, offsets composed,
 * and a failure under one stops those under the other; a follower sharing another's clock
 * takes its offset and bound without clock rounds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "engine/together.h"
#include "engine/window.h"
#include "env/transport.h"

#define REPS 4
#define MAX_FOLLOWERS 3

/* One follower: its end of a socket pair and what its "engine" saw. */
struct follower {
    int fd;
    int rank;             /* its rank at the leader (1, 2...) */
    int fail_at;          /* the repetition it says it is not ok at, -1: none */
    int quit_at;          /* the repetition it closes its channel at, -1: none */
    int64_t starts[REPS]; /* the instants its starts returned, on its clock */
    int64_t offset_ns;
    unsigned started;     /* how many starts returned an instant */
    bool kept_region;     /* its region copied after the last word */
    char stopped_why[256];
};

/* Set by a test: both sides' clock twins (NULL: every follower timed). */
static int (*clock_twin)(void *context, int rank);

static void *follow(void *context)
{
    struct follower *f = context;
    struct vp_channel_transport channel;
    vp_channel_transport_follow(&channel, &f->fd);
    if (clock_twin) { /* a follower that knows its rank, as MPI's do, asks for its twin */
        channel.transport.clock_twin = clock_twin;
        channel.transport.rank = f->rank;
    }
    struct vp_together together;
    char reason[256];
    if (vp_together_begin(&together, &channel.transport, false, false, 1, REPS, reason,
                          sizeof reason) != 0) {
        vp_together_end(&together);
        return NULL;
    }
    f->offset_ns = together.offset_ns;
    /* a region of no jobs, as the engine's is once every repetition ran */
    char region[16] = "the jobs' region";
    struct vp_shared shared = { .base = region, .size = sizeof region, .reps = REPS };
    bool ok = true;
    for (unsigned rep = 0; rep < REPS; rep++) {
        if ((int)rep == f->quit_at) {
            close(f->fd);
            vp_together_end(&together);
            return NULL;
        }
        ok = (int)rep != f->fail_at;
        int64_t start_ns;
        if (together.sync.start(together.sync.context, &shared, rep, ok, 1000, &start_ns,
                                f->stopped_why, sizeof f->stopped_why) != 0)
            break;
        f->starts[f->started++] = start_ns;
    }
    bool all_ran = f->started == REPS;
    together.sync.measured(together.sync.context, all_ran ? &shared : NULL, NULL, NULL);
    f->kept_region = together.region && memcmp(together.region, region, sizeof region) == 0;
    vp_together_end(&together);
    return NULL;
}

/* What the leader saw it release, in order. */
struct releases {
    int side[2 * REPS];
    unsigned rep[2 * REPS];
    int64_t instant[2 * REPS];
    unsigned count;
};

struct side_hook {
    struct releases *releases;
    int side;
};

static void released(void *context, unsigned rep, int64_t instant_ns)
{
    struct side_hook *hook = context;
    struct releases *r = hook->releases;
    assert_true(r->count < 2 * REPS);
    r->side[r->count] = hook->side;
    r->rep[r->count] = rep;
    r->instant[r->count++] = instant_ns;
}

/* count followers on socket pairs, threads started; fds: the leader's ends. */
static void start_followers(struct follower *followers, size_t count, pthread_t *threads,
                            int *fds)
{
    for (size_t i = 0; i < count; i++) {
        int pair[2];
        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
        fds[i] = pair[0];
        followers[i].fd = pair[1];
        followers[i].rank = (int)i + 1;
        assert_int_equal(pthread_create(&threads[i], NULL, follow, &followers[i]), 0);
    }
}

/* MAX_FOLLOWERS followers that neither fail nor quit, started. */
static void start_every_follower(struct follower *followers, pthread_t *threads, int *fds)
{
    for (size_t i = 0; i < MAX_FOLLOWERS; i++)
        followers[i] = (struct follower){ .fail_at = -1, .quit_at = -1 };
    start_followers(followers, MAX_FOLLOWERS, threads, fds);
}

static void join_followers(size_t count, pthread_t *threads, int *fds)
{
    for (size_t i = 0; i < count; i++) {
        assert_int_equal(pthread_join(threads[i], NULL), 0);
        close(fds[i]);
    }
}

/* The leader over count channels, its clock rounds done. */
static void lead(struct vp_channel_transport *channel, struct vp_together *together,
                 const int *fds, size_t count, unsigned warmup)
{
    char reason[256] = "";
    vp_channel_transport_lead(channel, fds, count, 10);
    assert_int_equal(vp_together_begin(together, &channel->transport, false, false, warmup,
                                       REPS, reason, sizeof reason), 0);
}

static void every_follower_starts_at_the_leaders_instant(void **state)
{
    (void)state;
    struct follower followers[MAX_FOLLOWERS];
    pthread_t threads[MAX_FOLLOWERS];
    int fds[MAX_FOLLOWERS];
    start_every_follower(followers, threads, fds);
    struct vp_channel_transport channel;
    struct vp_together together;
    char reason[256] = "";
    lead(&channel, &together, fds, MAX_FOLLOWERS, 1);
    struct releases releases = { .count = 0 };
    struct side_hook hook = { &releases, 0 };
    together.releasing = released;
    together.releasing_context = &hook;
    assert_int_equal(vp_together_wait(&together, reason, sizeof reason), 0);
    join_followers(MAX_FOLLOWERS, threads, fds);
    assert_int_equal(releases.count, REPS);
    for (unsigned rep = 0; rep < REPS; rep++)
        assert_int_equal(releases.rep[rep], rep);
    for (size_t i = 0; i < MAX_FOLLOWERS; i++) {
        assert_int_equal(followers[i].started, REPS);
        /* one clock here: the offset found is within its bound of 0, and each start is
         * the leader's instant moved by that offset */
        assert_true(llabs(together.offsets[i + 1]) <= together.bounds[i + 1]);
        assert_int_equal(followers[i].offset_ns, together.offsets[i + 1]);
        for (unsigned rep = 0; rep < REPS; rep++)
            assert_int_equal(followers[i].starts[rep],
                             releases.instant[rep] + together.offsets[i + 1]);
        assert_true(followers[i].kept_region);
    }
    for (unsigned rep = 1; rep < REPS; rep++) /* the lead of 1 us, and later each time */
        assert_true(releases.instant[rep] > releases.instant[rep - 1]);
    assert_int_equal(channel.lost, 0);
    vp_together_end(&together);
}

/* Rank 3 reads rank 2's clock; the others their own. */
static int third_twins_second(void *context, int rank)
{
    (void)context;
    return rank == 3 ? 2 : rank;
}

/* The leader's clock words to each rank, counted on their way to the channel's send. */
static int (*channel_send)(void *, int, enum vp_together_word, const void *, size_t, char *,
                           size_t);
static unsigned clock_words_to[MAX_FOLLOWERS + 1];

static int counting_send(void *context, int peer, enum vp_together_word what, const void *data,
                         size_t len, char *reason, size_t reason_len)
{
    if (what == VP_WORD_CLOCK)
        clock_words_to[peer]++;
    return channel_send(context, peer, what, data, len, reason, reason_len);
}

static void a_follower_sharing_a_clock_takes_its_offset_without_rounds(void **state)
{
    (void)state;
    struct follower followers[MAX_FOLLOWERS];
    pthread_t threads[MAX_FOLLOWERS];
    int fds[MAX_FOLLOWERS];
    clock_twin = third_twins_second;
    memset(clock_words_to, 0, sizeof clock_words_to);
    start_every_follower(followers, threads, fds);
    struct vp_channel_transport channel;
    struct vp_together together;
    char reason[256] = "";
    vp_channel_transport_lead(&channel, fds, MAX_FOLLOWERS, 10);
    channel.transport.clock_twin = clock_twin;
    channel_send = channel.transport.send;
    channel.transport.send = counting_send;
    assert_int_equal(vp_together_begin(&together, &channel.transport, false, false, 0, REPS,
                                       reason, sizeof reason), 0);
    assert_int_equal(vp_together_wait(&together, reason, sizeof reason), 0);
    join_followers(MAX_FOLLOWERS, threads, fds);
    clock_twin = NULL;
    assert_int_equal(clock_words_to[1], VP_CLOCK_ROUNDS);
    assert_int_equal(clock_words_to[2], VP_CLOCK_ROUNDS);
    assert_int_equal(clock_words_to[3], 0); /* no rounds: rank 2's offset and bound */
    assert_int_equal(together.offsets[3], together.offsets[2]);
    assert_int_equal(together.bounds[3], together.bounds[2]);
    assert_int_equal(followers[2].offset_ns, together.offsets[3]);
    for (size_t i = 0; i < MAX_FOLLOWERS; i++) /* every follower started every repetition */
        assert_int_equal(followers[i].started, REPS);
    assert_int_equal(channel.lost, 0);
    vp_together_end(&together);
}

/* A leader over two followers in threads. */
struct two {
    pthread_t threads[2];
    int fds[2];
    struct vp_channel_transport channel;
    struct vp_together together;
};

static void lead_two(struct two *two, struct follower *followers)
{
    start_followers(followers, 2, two->threads, two->fds);
    lead(&two->channel, &two->together, two->fds, 2, 0);
}

static void one_failing_stops_all_and_every_side_ends(void **state)
{
    (void)state;
    struct follower followers[2] = { { .fail_at = -1, .quit_at = -1 },
                                     { .fail_at = 2, .quit_at = -1 } };
    struct two two;
    char reason[256] = "";
    lead_two(&two, followers);
    assert_int_equal(vp_together_wait(&two.together, reason, sizeof reason), 0);
    join_followers(2, two.threads, two.fds);
    /* repetitions 0 and 1 ran on both; at 2 the failing one said so and both stopped */
    assert_int_equal(followers[0].started, 2);
    assert_int_equal(followers[1].started, 2);
    assert_non_null(strstr(followers[0].stopped_why, "another host's jobs failed"));
    assert_false(followers[0].kept_region || followers[1].kept_region);
    assert_int_equal(two.channel.lost, 0);
    vp_together_end(&two.together);
}

/* Two sides of one follower each, alternating; fail_b: side B's follower fails there. */
static void alternate(int fail_b, struct follower *followers, struct releases *releases)
{
    followers[0] = (struct follower){ .fail_at = -1, .quit_at = -1 };
    followers[1] = (struct follower){ .fail_at = fail_b, .quit_at = -1 };
    pthread_t threads[2];
    int fds[2];
    start_followers(followers, 2, threads, fds);
    struct vp_channel_transport channels[2];
    struct vp_together sides[2];
    struct side_hook hooks[2] = { { releases, 0 }, { releases, 1 } };
    char reason[256] = "";
    for (int s = 0; s < 2; s++) {
        lead(&channels[s], &sides[s], &fds[s], 1, 0);
        sides[s].releasing = released;
        sides[s].releasing_context = &hooks[s];
    }
    struct vp_together *const both[] = { &sides[0], &sides[1] };
    size_t lost_side = 99;
    assert_int_equal(vp_together_alternate(both, 2, &lost_side, reason, sizeof reason), 0);
    join_followers(2, threads, fds);
    for (int s = 0; s < 2; s++)
        vp_together_end(&sides[s]);
}

static void two_sides_alternate_and_a_failure_stops_both(void **state)
{
    (void)state;
    struct follower followers[2];
    struct releases releases = { .count = 0 };
    alternate(-1, followers, &releases);
    assert_int_equal(releases.count, 2 * REPS);
    for (unsigned r = 0; r < 2 * REPS; r++) { /* A0 B0 A1 B1 ... */
        assert_int_equal(releases.side[r], (int)(r % 2));
        assert_int_equal(releases.rep[r], r / 2);
    }
    assert_int_equal(followers[0].started, REPS);
    assert_int_equal(followers[1].started, REPS);
    assert_true(followers[0].kept_region && followers[1].kept_region);

    releases.count = 0;
    alternate(1, followers, &releases);
    /* A0 B0, then B says it is not ok for its repetition 1: A, waiting for its 1, is told
     * to stop */
    assert_int_equal(releases.count, 2);
    assert_int_equal(followers[0].started, 1);
    assert_int_equal(followers[1].started, 1);
    assert_non_null(strstr(followers[0].stopped_why, "the other side's jobs failed"));
    assert_non_null(strstr(followers[1].stopped_why, "another host's jobs failed"));
}

static void a_closed_channel_names_its_rank(void **state)
{
    (void)state;
    struct follower followers[2] = { { .fail_at = -1, .quit_at = -1 },
                                     { .fail_at = -1, .quit_at = 1 } };
    struct two two;
    char reason[256] = "";
    lead_two(&two, followers);
    assert_int_equal(vp_together_wait(&two.together, reason, sizeof reason), -1);
    assert_int_equal(two.channel.lost, 2);
    assert_string_equal(reason, "the channel: closed");
    close(two.fds[0]); /* the leader gives up: the other follower's wait ends */
    for (size_t i = 0; i < 2; i++)
        assert_int_equal(pthread_join(two.threads[i], NULL), 0);
    close(two.fds[1]);
    vp_together_end(&two.together);
}

/* A leader in the middle: a rank of the top's point over top_fd, leading its own
 * followers with its agreements and instants the top's. */
struct middle {
    int top_fd;
    struct follower followers[2];
    int64_t offset_ns;  /* its clock minus the top's */
    int waited;         /* vp_together_wait's answer */
    int lost;           /* the rank its channel transport lost, 0: none */
};

static void *lead_from_middle(void *context)
{
    struct middle *m = context;
    struct vp_channel_transport up;
    vp_channel_transport_follow(&up, &m->top_fd);
    struct vp_together top;
    char reason[256] = "";
    assert_int_equal(vp_together_begin(&top, &up.transport, false, false, 1, REPS, reason,
                                       sizeof reason), 0);
    m->offset_ns = top.offset_ns;
    pthread_t threads[2];
    int fds[2];
    start_followers(m->followers, 2, threads, fds);
    struct vp_channel_transport channel;
    struct vp_together together;
    lead(&channel, &together, fds, 2, 1);
    struct vp_together_above above = { .together = &top, .below_margin_ns = 1000000 };
    channel.above = &above;
    m->waited = vp_together_wait(&together, reason, sizeof reason);
    m->lost = channel.lost;
    for (size_t i = 0; (m->waited != 0 || m->lost) && i < 2; i++)
        shutdown(fds[i], SHUT_RDWR); /* it gives up: its followers' waits end */
    join_followers(2, threads, fds);
    for (size_t i = 0; i < 2; i++) /* each follower's offset to the top, composed */
        m->followers[i].offset_ns = together.offsets[i + 1] + top.offset_ns;
    vp_together_end(&together);
    vp_together_end(&top);
    return NULL;
}

/* Two middles under a top leader without jobs; fail_at: the second middle's second
 * follower says it is not ok there, quit_at: closes its channel there (-1: neither). */
static void lead_middles(struct middle *middles, int fail_at, int quit_at,
                         struct releases *releases)
{
    pthread_t threads[2];
    int fds[2];
    for (size_t m = 0; m < 2; m++) {
        int pair[2];
        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
        fds[m] = pair[0];
        middles[m] = (struct middle){ .top_fd = pair[1] };
        for (size_t i = 0; i < 2; i++)
            middles[m].followers[i] = (struct follower){ .fail_at = -1, .quit_at = -1 };
    }
    middles[1].followers[1].fail_at = fail_at;
    middles[1].followers[1].quit_at = quit_at;
    for (size_t m = 0; m < 2; m++)
        assert_int_equal(pthread_create(&threads[m], NULL, lead_from_middle, &middles[m]), 0);
    struct vp_channel_transport channel;
    struct vp_together top;
    char reason[256] = "";
    lead(&channel, &top, fds, 2, 1);
    struct side_hook hook = { releases, 0 };
    top.releasing = released;
    top.releasing_context = &hook;
    assert_int_equal(vp_together_wait(&top, reason, sizeof reason), 0);
    for (size_t m = 0; m < 2; m++) {
        assert_int_equal(pthread_join(threads[m], NULL), 0);
        close(fds[m]);
        /* every one ends as it should, in step; the one that lost a follower names it */
        assert_int_equal(middles[m].waited, 0);
        assert_int_equal(middles[m].lost, m == 1 && quit_at >= 0 ? 2 : 0);
    }
    vp_together_end(&top);
}

static void leaders_led_from_above_start_every_follower_at_the_tops_instant(void **state)
{
    (void)state;
    struct middle middles[2];
    struct releases releases = { .count = 0 };
    lead_middles(middles, -1, -1, &releases);
    assert_int_equal(releases.count, REPS);
    for (size_t m = 0; m < 2; m++)
        for (size_t i = 0; i < 2; i++) {
            const struct follower *f = &middles[m].followers[i];
            assert_int_equal(f->started, REPS);
            assert_true(f->kept_region);
            for (unsigned rep = 0; rep < REPS; rep++) /* the top's instant, moved twice */
                assert_int_equal(f->starts[rep], releases.instant[rep] + f->offset_ns);
        }
    /* a failure under the second middle stops the first's followers at that repetition */
    releases.count = 0;
    lead_middles(middles, 2, -1, &releases);
    assert_int_equal(releases.count, 2);
    for (size_t m = 0; m < 2; m++)
        for (size_t i = 0; i < 2; i++)
            assert_int_equal(middles[m].followers[i].started, 2);
    assert_non_null(strstr(middles[0].followers[0].stopped_why, "another host's jobs failed"));
    /* a follower lost under the second middle (its channel closed): the first's followers
     * are told to stop at that repetition and nobody waits for good */
    releases.count = 0;
    lead_middles(middles, -1, 1, &releases);
    assert_int_equal(releases.count, 1);
    assert_int_equal(middles[0].followers[0].started, 1);
    assert_int_equal(middles[0].followers[1].started, 1);
    assert_non_null(strstr(middles[0].followers[0].stopped_why, "another host's jobs failed"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_follower_starts_at_the_leaders_instant),
        cmocka_unit_test(a_follower_sharing_a_clock_takes_its_offset_without_rounds),
        cmocka_unit_test(one_failing_stops_all_and_every_side_ends),
        cmocka_unit_test(two_sides_alternate_and_a_failure_stops_both),
        cmocka_unit_test(a_closed_channel_names_its_rank),
        cmocka_unit_test(leaders_led_from_above_start_every_follower_at_the_tops_instant),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
