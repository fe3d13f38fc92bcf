/* Calibrated loops for micro-operations. */
#include "core/calibrate.h"

#include "core/clock.h"

#define MIN_SPAN_NS 1000000

__attribute__((noinline)) static void empty_operation(void *context)
{
    __asm__ volatile("" : : "r"(context) : "memory");
}

static int64_t time_loop(vp_operation op, void *context, uint64_t iterations)
{
    int64_t start = vp_now_ns();
    for (uint64_t i = 0; i < iterations; i++)
        op(context);
    return vp_now_ns() - start;
}

double vp_cost_per_op(vp_operation op, void *context, uint64_t *iterations)
{
    int64_t clock_cost = time_loop(empty_operation, NULL, 0); /* two clock reads */
    for (int i = 0; i < 16; i++) {
        int64_t again = time_loop(empty_operation, NULL, 0);
        if (again < clock_cost)
            clock_cost = again;
    }
    int64_t floor_ns = 1000 * (clock_cost > 0 ? clock_cost : 1);
    if (floor_ns < MIN_SPAN_NS)
        floor_ns = MIN_SPAN_NS;
    uint64_t n = 16;
    int64_t span = time_loop(op, context, n);
    while (span < floor_ns && n < (1ULL << 40)) {
        n *= 2;
        span = time_loop(op, context, n);
    }
    int64_t overhead = time_loop(empty_operation, context, n);
    *iterations = n;
    double cost = (double)(span - overhead) / 1e9 / (double)n;
    return cost > 0 ? cost : 0;
}
