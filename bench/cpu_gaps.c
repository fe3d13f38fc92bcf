/* How long this machine takes each CPU away from a program that never sleeps: one thread
 * pinned to each CPU reads CLOCK_MONOTONIC back to back for SECONDS and keeps every step
 * between two reads longer than THRESHOLD_US (an interrupt, a kernel thread, or the
 * hypervisor running something else on the vCPU). bench/start_tail.sh runs it beside the
 * start skew of 16 jobs: a gap that falls in a repetition's start window is that
 * repetition's tail. Not virtperf's code: a reference built by the script.
 * Usage: cpu_gaps SECONDS THRESHOLD_US */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define MOST_GAPS 200000

struct watcher {
    int cpu;
    int64_t seconds_ns, threshold_ns;
    int64_t *gaps;
    size_t count;
};

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void *watch(void *context)
{
    struct watcher *w = context;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(w->cpu, &set);
    if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0)
        return NULL;
    int64_t begin = now_ns(), last = begin;
    while (last - begin < w->seconds_ns) {
        int64_t t = now_ns();
        if (t - last > w->threshold_ns && w->count < MOST_GAPS)
            w->gaps[w->count++] = t - last;
        last = t;
    }
    return NULL;
}

static int by_length(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc != 3 || atof(argv[1]) <= 0 || atof(argv[2]) <= 0) {
        fprintf(stderr, "usage: cpu_gaps SECONDS THRESHOLD_US\n");
        return 2;
    }
    int cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    struct watcher *watchers = calloc((size_t)cpus, sizeof *watchers);
    pthread_t *threads = calloc((size_t)cpus, sizeof *threads);
    if (!watchers || !threads)
        return 1;
    for (int c = 0; c < cpus; c++) {
        watchers[c] = (struct watcher){ .cpu = c, .seconds_ns = (int64_t)(atof(argv[1]) * 1e9),
                                        .threshold_ns = (int64_t)(atof(argv[2]) * 1e3),
                                        .gaps = malloc(MOST_GAPS * sizeof(int64_t)) };
        if (!watchers[c].gaps || pthread_create(&threads[c], NULL, watch, &watchers[c]) != 0)
            return 1;
    }
    const double bounds_us[] = { 50, 100, 200, 500, 1000, 1e300 };
    for (int c = 0; c < cpus; c++) {
        pthread_join(threads[c], NULL);
        struct watcher *w = &watchers[c];
        qsort(w->gaps, w->count, sizeof w->gaps[0], by_length);
        double lost = 0;
        size_t within[6] = { 0 };
        for (size_t i = 0; i < w->count; i++) {
            double us = (double)w->gaps[i] / 1e3;
            lost += us;
            size_t b = 0;
            while (us > bounds_us[b])
                b++;
            within[b]++;
        }
        printf("cpu %d: %zu gaps over %s us in %s s (%.1f a second), %.3f%% of the time; "
               "up to 50 us %zu, 100 us %zu, 200 us %zu, 500 us %zu, 1 ms %zu, longer %zu; "
               "longest %.1f us\n",
               c, w->count, argv[2], argv[1], (double)w->count / atof(argv[1]),
               lost / (atof(argv[1]) * 1e4), within[0], within[1], within[2], within[3],
               within[4], within[5], w->count ? (double)w->gaps[w->count - 1] / 1e3 : 0.0);
        free(w->gaps);
    }
    free(watchers);
    free(threads);
    return 0;
}
