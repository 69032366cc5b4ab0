/* Counter-based random numbers: a value depends only on (seed, stream,
 * counter), never on call order or thread count, so initialisation, dropout
 * and data shuffling are reproducible and resumable. */
#ifndef RF_RNG_H
#define RF_RNG_H

#include <stdint.h>

/* splitmix64 finaliser: a good 64-bit mix of x. */
static inline uint64_t rf_mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static inline uint64_t rf_hash3(uint64_t seed, uint64_t stream, uint64_t counter)
{
    return rf_mix64(rf_mix64(rf_mix64(seed) ^ stream) ^ counter);
}

/* Uniform in [0, 1). */
static inline double rf_uniform(uint64_t seed, uint64_t stream, uint64_t counter)
{
    return (double)(rf_hash3(seed, stream, counter) >> 11) * 0x1.0p-53;
}

/* A sequential generator for places where order is fixed (data generation). */
typedef struct {
    uint64_t state;
} rf_rng;

static inline uint64_t rf_rng_next(rf_rng *r)
{
    r->state += 0x9e3779b97f4a7c15ull;
    return rf_mix64(r->state);
}

/* Uniform integer in [lo, hi] inclusive. */
static inline int64_t rf_rng_int(rf_rng *r, int64_t lo, int64_t hi)
{
    uint64_t span = (uint64_t)(hi - lo) + 1;
    return lo + (int64_t)(rf_rng_next(r) % span);
}

static inline double rf_rng_uniform(rf_rng *r)
{
    return (double)(rf_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Standard normal (Box-Muller). */
double rf_rng_normal(rf_rng *r);

#endif
