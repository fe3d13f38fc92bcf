/* Terminal progress line: "[12/30] mem.stream jobs=2  ETA 8 s". */
#include "core/progress.h"

#include <stdio.h>
#include <unistd.h>

#include "core/clock.h"

void vp_progress_init(struct vp_progress *progress, unsigned total, bool wanted)
{
    progress->enabled = wanted && isatty(STDERR_FILENO);
    progress->total = total;
    progress->done = 0;
    progress->started_ns = vp_now_ns();
}

void vp_progress_step(struct vp_progress *progress, const char *what)
{
    progress->done++;
    if (!progress->enabled)
        return;
    double elapsed = (double)(vp_now_ns() - progress->started_ns) / 1e9;
    double remaining = progress->done < progress->total
        ? elapsed / progress->done * (progress->total - progress->done)
        : 0;
    fprintf(stderr, "\r\033[K[%u/%u] %s  ETA %.0f s", progress->done, progress->total, what,
            remaining);
    fflush(stderr);
}

void vp_progress_clear(struct vp_progress *progress)
{
    if (progress->enabled)
        fprintf(stderr, "\r\033[K");
}
