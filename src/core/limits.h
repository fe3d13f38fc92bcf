/* The limits every layer agrees on: how many jobs one result may start and how many
 * repetitions it may have (the engine enforces them, the store's validation of an
 * imported document checks them). */
#ifndef VP_LIMITS_H
#define VP_LIMITS_H

#define VP_MAX_JOBS 1024
#define VP_MAX_GUESTS 32 /* guests run --guests starts at once */
#define VP_MAX_GROUPS 8  /* --group sets of them in one run */
#define VP_MAX_RANKS 4096 /* a --ranks count virtperf-mpi takes */
#define VP_MAX_REPS 1000
#define VP_MAX_WARMUP 100
/* --reps auto: at least this many (a verdict needs 5), at most this many unless told */
#define VP_AUTO_REPS_MIN 5
#define VP_AUTO_REPS_MAX 30
/* What another rank or member may send this host: a point's result document, its
 * fingerprint (a region's bound is what the point lays out: engine/shared_check.h) */
#define VP_RESULT_MOST (8u << 20)
#define VP_FINGERPRINT_MOST (1u << 20)

#endif
