/* Reference for bench/peers.sh: a plain STREAM-style triad (a = b + s*c) compiled at
 * -O3, to compare with virtperf's mem.stream triad on the same machine. Usage:
 * triad_ref BYTES_PER_ARRAY REPS -> prints "best_Bps mean_Bps" (first rep excluded). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: triad_ref BYTES_PER_ARRAY REPS\n");
        return 2;
    }
    size_t n = strtoull(argv[1], NULL, 10) / sizeof(double);
    int reps = atoi(argv[2]);
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    if (!a || !b || !c || reps < 2)
        return 1;
    for (size_t j = 0; j < n; j++) {
        a[j] = 1.0;
        b[j] = 2.0;
        c[j] = 0.5;
    }
    double best = 0, sum = 0;
    for (int rep = 0; rep < reps; rep++) {
        double start = now();
        for (size_t j = 0; j < n; j++)
            a[j] = b[j] + 3.0 * c[j];
        double rate = 3.0 * (double)n * sizeof(double) / (now() - start);
        if (rep == 0)
            continue; /* warm-up */
        sum += rate;
        if (rate > best)
            best = rate;
    }
    for (size_t j = 0; j < n; j++)
        if (a[j] != 3.5)
            return 1;
    printf("%.0f %.0f\n", best, sum / (reps - 1));
    return 0;
}
