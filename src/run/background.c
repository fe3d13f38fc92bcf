/* run --background (background.h): the watch runs in a forked process that writes its
 * result document to a pipe; the run's own process stops it with SIGUSR1. */
#include "run/background.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/bench.h"
#include "run/cli.h"
#include "core/json.h"
#include "engine/result.h"

void vp_background_take(struct vp_background *background, const char *name, struct vp_plan *plan)
{
    const struct vp_bench *bench = vp_bench_find(name);
    if (!bench || !bench->ends_on_interrupt)
        vp_usage_error("--background: '%s' is not valid; accepted: a benchmark that watches "
                       "until stopped (net.probe)", name);
    size_t kept = 0;
    bool found = false;
    for (size_t p = 0; p < plan->count; p++) {
        const struct vp_plan_point *point = &plan->points[p];
        if (point->bench == bench) {
            if (!found)
                background->point = *point;
            found = true;
            plan->total_reps -= point->reps + point->warmup;
            continue;
        }
        plan->points[kept++] = *point;
    }
    plan->count = kept;
    if (!found)
        vp_usage_error("--background %s: accepted: a benchmark of the run", name);
    if (kept == 0)
        vp_usage_error("--background %s: nothing to run beside it; accepted: with at least "
                       "one other benchmark, such as net.stream", name);
    background->point.jobs = 1;
    background->point.reps = 1;
    background->point.warmup = 0;
}

void vp_background_start(struct vp_background *background, const struct vp_run_settings *settings)
{
    const struct vp_bench *bench = background->point.bench;
    background->settings = *settings;
    background->settings.duration = VP_BACKGROUND_MAX_S;
    background->settings.progress = NULL;
    background->settings.pin_spec = background->point.pin;
    background->settings.reps = 1;
    background->settings.warmup = 0;
    int ends[2];
    if (pipe(ends) != 0) {
        fprintf(stderr, "virtperf: --background: cannot make a pipe: %s\n", strerror(errno));
        exit(1);
    }
    fflush(NULL);
    background->pid = fork();
    if (background->pid == 0) {
        close(ends[0]);
        vp_engine_catch_stop_request();
        json_t *result = vp_engine_run(bench, &background->point.params, 1, &background->settings);
        char *text = json_dumps(result, JSON_COMPACT);
        size_t len = text ? strlen(text) : 0, done = 0;
        while (done < len) {
            ssize_t wrote = write(ends[1], text + done, len - done);
            if (wrote <= 0)
                break;
            done += (size_t)wrote;
        }
        _exit(done == len ? 0 : 1);
    }
    close(ends[1]);
    if (background->pid < 0) {
        fprintf(stderr, "virtperf: --background: cannot fork: %s\n", strerror(errno));
        exit(1);
    }
    background->fd = ends[0];
}

json_t *vp_background_finish(struct vp_background *background)
{
    kill(background->pid, SIGUSR1);
    size_t len = 0, cap = 65536;
    char *text = malloc(cap);
    if (!text)
        abort();
    for (;;) {
        if (len + 1 == cap && !(text = realloc(text, cap *= 2)))
            abort();
        ssize_t got = read(background->fd, text + len, cap - len - 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        len += (size_t)got;
    }
    text[len] = '\0';
    close(background->fd);
    int status;
    while (waitpid(background->pid, &status, 0) < 0 && errno == EINTR)
        ;
    json_t *result = json_loads(text, 0, NULL);
    free(text);
    if (json_is_object(result))
        return result;
    json_decref(result);
    return vp_result_finish(vp_result_start(background->point.bench, &background->point.params, 1,
                                            &background->settings),
                            "failed", "--background: the watch's process ended without a result");
}
