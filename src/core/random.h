/* A small, fast, seeded pseudo-random generator (xorshift64) for test data and orders:
 * reproducible from its seed, not for anything secret. */
#ifndef VP_RANDOM_H
#define VP_RANDOM_H

#include <stdint.h>

/* Advances *state (never 0) and returns the new value. */
static inline uint64_t vp_xorshift64(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

#endif
