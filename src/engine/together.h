/* Starting the jobs of many hosts together and bringing their figures back: one protocol,
 * whatever carries its words (a transport: MPI in virtperf-mpi, the guests' and
 * containers' channels in `run --guests|--containers`). One rank leads (rank 0, whose
 * clock is the reference). Before a point it measures each other rank's clock offset to
 * its own (VP_CLOCK_ROUNDS timed exchanges, the shortest round trip's half the bound).
 * Before each repetition every rank says whether it is ok, its jobs' lead and its last
 * repetition's window (the largest of each word across ranks is everyone's answer); with
 * an op log each rank then counts its bytes inside that window and the sums give the
 * stonewalled rate across hosts; the leader then sends the instant, on its clock, at which
 * every rank's jobs start (each rank moves it onto its own clock). One rank not ok stops
 * them all at that repetition; every rank makes the same calls also after a failure, so
 * none waits forever. A rank that ran jobs then sends the leader its result and its jobs'
 * region (engine/combine.c joins them). No barrier: a barrier's exit skew grows to tens
 * of ms once ranks outnumber cores (--start-with barrier, virtperf-mpi's, keeps one for
 * comparison). */
#ifndef VP_ENGINE_TOGETHER_H
#define VP_ENGINE_TOGETHER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/settings.h"

/* What a point-to-point word between the leader and another rank is. */
enum vp_together_word {
    VP_WORD_CLOCK,  /* a clock reading, each way */
    VP_WORD_OFFSET, /* leader: the other's offset, the rounds done */
    VP_WORD_RESULT, /* a rank that ran jobs: its result (JSON text) */
    VP_WORD_REGION, /* then its jobs' shared region */
};

/* What carries the words. Every op returns 0, or -1 with why (a rank lost, a wait given
 * up, a signal that stops the run). */
struct vp_together_transport {
    void *context;
    int rank, size;   /* this side's rank (0: the leader), and how many ranks */
    int64_t margin_ns; /* for the leader's instant to reach every rank before it comes */
    /* One word between the leader and rank peer (the others' peer is always 0); len is
     * known to both ends, except for RESULT and REGION (receive_any: at most most bytes,
     * a longer one refused before it is read). */
    int (*send)(void *context, int peer, enum vp_together_word what, const void *data,
                size_t len, char *reason, size_t reason_len);
    int (*receive)(void *context, int peer, enum vp_together_word what, void *data,
                   size_t len, char *reason, size_t reason_len);
    int (*receive_any)(void *context, int peer, enum vp_together_word what, size_t most,
                       void **data, size_t *len, char *reason, size_t reason_len);
    /* Every rank's values combined in place (the largest / the sum), the outcome at every
     * rank; the leader's value to every rank. */
    int (*max)(void *context, int64_t *words, size_t count, char *reason, size_t reason_len);
    int (*sum)(void *context, double *values, size_t count, char *reason, size_t reason_len);
    int (*broadcast)(void *context, int64_t *value, char *reason, size_t reason_len);
    /* A blocking barrier (--start-with barrier), NULL where the transport has none. */
    void (*barrier)(void *context);
    /* The first rank reading the same clock as rank (the same kernel's, in one time
     * namespace), rank itself when none before it does: a rank whose clock twin is
     * another takes its offset and bound, without clock rounds. NULL: every rank is
     * timed. Both sides ask it, so they agree. */
    int (*clock_twin)(void *context, int rank);
};

struct vp_together {
    const struct vp_together_transport *transport;
    bool op_log;                /* the benchmark logs operations (stonewalled rates) */
    bool barrier;               /* start when the transport's barrier returns instead */
    unsigned warmup, total_reps;
    int64_t offset_ns;          /* this rank's clock minus the leader's */
    int64_t *offsets, *bounds;  /* on the leader: each rank's offset and its bound */
    double *stonewall, *span;   /* per measured repetition, across ranks */
    void *region;               /* a copy of this rank's shared region, when it ran ok */
    size_t region_len;
    unsigned region_jobs;
    /* The leader's: told each instant (its clock) as it is sent; NULL: not told. */
    void (*releasing)(void *context, unsigned rep, int64_t instant_ns);
    void *releasing_context;
    struct vp_run_sync sync;    /* what the engine calls on a rank with jobs */
};

/* The longest lead a rank may ask for before its jobs start. */
#define VP_TOGETHER_MOST_LEAD_NS (60 * 1000000000LL)

/* Whether what another rank sent the leader is what an honest rank sends (a transport
 * whose ranks are untrusted checks each before it is combined, so the one that lied is
 * named): a clock reading within VP_INSTANT_LIMIT; an agreement's words (ok 0 or 1, a lead
 * of 0 to VP_TOGETHER_MOST_LEAD_NS, its window's instants none or within the limit); a
 * window's byte counts (finite, not negative). 0, or -1 with why. */
int vp_together_check_clock(int64_t reading, char *why, size_t why_len);
int vp_together_check_agreement(const int64_t *words, size_t count, char *why, size_t why_len);
int vp_together_check_bytes(const double *values, size_t count, char *why, size_t why_len);

/* Sets up together for one point over transport (every rank calls it) and measures the
 * clocks. 0, or -1 with reason. */
int vp_together_begin(struct vp_together *together, const struct vp_together_transport *transport,
                      bool op_log, bool barrier, unsigned warmup, unsigned total_reps,
                      char *reason, size_t reason_len);
/* A rank without jobs in the point (a server, or a leader that only leads): takes part
 * in every agreement the jobs' ranks make, until they end or one fails. -1 with reason
 * when the transport failed. */
int vp_together_wait(struct vp_together *together, char *reason, size_t reason_len);
/* A leader without jobs over sides (each its own transport and together, begun) whose
 * repetitions alternate: side 0's first, once done side 1's first, then side 0's second...
 * (ABAB), so that a drift of the machine does not become one side's penalty. Every side
 * has the same total_reps; a rank failing on any side stops every side at its next
 * repetition. 0, or -1 with reason and *lost_side when a transport failed. */
#define VP_TOGETHER_MAX_SIDES 2
int vp_together_alternate(struct vp_together *const *sides, size_t count, size_t *lost_side,
                          char *reason, size_t reason_len);
void vp_together_end(struct vp_together *together);

/* A leader that is itself a rank of a point above (virtperf-mpi's rank leading the guests
 * it started, led in turn by rank 0): each agreement its ranks reach is agreed again with
 * the other leaders' through above before its ranks hear it, and the instant it sends
 * them is the top leader's, moved onto this clock; so every rank under every leader starts
 * at one instant, its offset to the top its own to its leader plus its leader's to the
 * top (each bound too). A transport's leader calls these between combining its ranks'
 * values and sending the outcome back, and makes each call whatever became of its ranks. */
struct vp_together_above {
    struct vp_together *together; /* begun over the leaders, this one a rank of it */
    int64_t below_margin_ns;      /* what this leader's instant takes to reach its ranks */
};
/* failed: this leader lost one of its ranks: it says it is not ok (its bytes none), so
 * every rank above and below stops at the same word, none left waiting for it. */
int vp_together_above_agree(const struct vp_together_above *above, int64_t *words,
                            size_t count, bool failed, char *reason, size_t reason_len);
int vp_together_above_sum(const struct vp_together_above *above, double *values, size_t count,
                          bool failed, char *reason, size_t reason_len);
/* *instant: the top leader's own (it sends it); elsewhere it becomes the top's. */
int vp_together_above_instant(const struct vp_together_above *above, int64_t *instant,
                              char *reason, size_t reason_len);

/* A rank that ran jobs: result_text and its region (when every repetition ran) to the
 * leader. */
int vp_together_send_part(const struct vp_together *together, const char *result_text,
                          char *reason, size_t reason_len);
/* The leader: rank peer's result text (at most VP_RESULT_MOST bytes) and region (at most
 * region_most: vp_shared_most), malloc'd. */
int vp_together_receive_part(const struct vp_together *together, int peer, size_t region_most,
                             char **result_text, void **region, size_t *region_len,
                             char *reason, size_t reason_len);

#endif
