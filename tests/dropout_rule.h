/* Dropout's keep decision as rf_dropout documents it (core/graph.h), written
 * out here so that the tests' references do not share the engine's code:
 * element i of node `node` is kept when U(seed ^ 0xd40, step * 0x100000001b3
 * + node, i) >= p, where U(s, t, c) is the top 53 bits of
 * mix(mix(mix(s) ^ t) ^ c) as a fraction of 2^53 and mix is the splitmix64
 * finaliser (Steele, Lea and Flood, "Fast splittable pseudorandom number
 * generators", OOPSLA 2014; the constants of Vigna's splitmix64.c). */
#ifndef RF_TEST_DROPOUT_RULE_H
#define RF_TEST_DROPOUT_RULE_H

#include <stdbool.h>
#include <stdint.h>

static inline uint64_t splitmix64_mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline bool dropout_kept(uint64_t seed, uint64_t step, uint64_t node, uint64_t i, float p)
{
    uint64_t stream = step * 0x100000001b3ull + node;
    uint64_t h = splitmix64_mix(splitmix64_mix(splitmix64_mix(seed ^ 0xd40u) ^ stream) ^ i);
    return (double)(h >> 11) * 0x1p-53 >= p;
}

#endif
