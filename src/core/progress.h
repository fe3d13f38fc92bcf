/* One-line progress with ETA on a terminal; silent when not a TTY or with --quiet. */
#ifndef VP_PROGRESS_H
#define VP_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

struct vp_progress {
    bool enabled;
    unsigned total, done;
    int64_t started_ns;
};

/* Enabled only when wanted and stderr is a terminal. total counts repetitions. */
void vp_progress_init(struct vp_progress *progress, unsigned total, bool wanted);
/* One repetition finished of the point described by what. */
void vp_progress_step(struct vp_progress *progress, const char *what);
/* Clears the line so the tables print cleanly. */
void vp_progress_clear(struct vp_progress *progress);

#endif
