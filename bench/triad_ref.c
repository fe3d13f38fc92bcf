/* Reference for bench/peers.sh: a plain STREAM-style triad (a = b + s*c) compiled at
 * -O3, to compare with virtperf's mem.stream triad on the same machine. Usage:
 * triad_ref BYTES_PER_ARRAY REPS THREADS -> prints "best_Bps mean_Bps" (first rep
 * excluded). Each thread is pinned to CPU 0, 1, ... and has its own malloc'd arrays; a
 * barrier starts every repetition in all threads together and a repetition's rate is
 * all threads' bytes over the slowest thread's time, as STREAM under OpenMP counts it
 * (separate processes started by a shell overlap only partly, and the best of each
 * then adds up to more than the machine ever moved at once). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct worker {
    int cpu;
    size_t n;
    int reps;
    double *seconds; /* per repetition */
    int wrong;
};

static pthread_barrier_t barrier;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *run(void *arg)
{
    struct worker *worker = arg;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(worker->cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
    size_t n = worker->n;
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    if (!a || !b || !c)
        abort();
    for (size_t j = 0; j < n; j++) {
        a[j] = 1.0;
        b[j] = 2.0;
        c[j] = 0.5;
    }
    for (int rep = 0; rep < worker->reps; rep++) {
        pthread_barrier_wait(&barrier);
        double start = now();
        for (size_t j = 0; j < n; j++)
            a[j] = b[j] + 3.0 * c[j];
        worker->seconds[rep] = now() - start;
    }
    for (size_t j = 0; j < n; j++)
        worker->wrong |= a[j] != 3.5;
    free(a);
    free(b);
    free(c);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: triad_ref BYTES_PER_ARRAY REPS THREADS\n");
        return 2;
    }
    size_t n = strtoull(argv[1], NULL, 10) / sizeof(double);
    int reps = atoi(argv[2]), threads = atoi(argv[3]);
    if (n == 0 || reps < 2 || threads < 1)
        return 2;
    struct worker *workers = calloc((size_t)threads, sizeof *workers);
    pthread_t *ids = calloc((size_t)threads, sizeof *ids);
    pthread_barrier_init(&barrier, NULL, (unsigned)threads);
    for (int t = 0; t < threads; t++) {
        workers[t] = (struct worker){ .cpu = t, .n = n, .reps = reps,
                                      .seconds = calloc((size_t)reps, sizeof(double)) };
        pthread_create(&ids[t], NULL, run, &workers[t]);
    }
    int wrong = 0;
    for (int t = 0; t < threads; t++) {
        pthread_join(ids[t], NULL);
        wrong |= workers[t].wrong;
    }
    if (wrong)
        return 1;
    double best = 0, sum = 0;
    for (int rep = 1; rep < reps; rep++) { /* rep 0 is the warm-up */
        double slowest = 0;
        for (int t = 0; t < threads; t++)
            slowest = workers[t].seconds[rep] > slowest ? workers[t].seconds[rep] : slowest;
        double rate = 3.0 * (double)n * sizeof(double) * threads / slowest;
        sum += rate;
        best = rate > best ? rate : best;
    }
    printf("%.0f %.0f\n", best, sum / (reps - 1));
    return 0;
}
