#include "rank_select.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

enum {
    SMALL = 48,          /* at most this many values: insertion sort */
    MAX_RANKS = 32,
    MAX_DIGIT = 16,      /* bits of a histogram's digit: 65,536 buckets */
};

/* A float's bits as an unsigned key in the floats' order: a negative's
 * bits flipped whole, a positive's sign bit set. */
static inline uint32_t key_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u ^ ((uint32_t)((int32_t)u >> 31) | 0x80000000u);
}

static int by_key(const void *x, const void *y)
{
    uint32_t a = key_of(*(const float *)x), b = key_of(*(const float *)y);
    return (a > b) - (a < b);
}

static void insertion_sort(float *a, int64_t n)
{
    for (int64_t i = 1; i < n; i++) {
        float v = a[i];
        uint32_t k = key_of(v);
        int64_t j = i;
        for (; j > 0 && key_of(a[j - 1]) > k; j--)
            a[j] = a[j - 1];
        a[j] = v;
    }
}

/* Moves the values whose digit has want[digit] set to the front, keeping
 * every value; returns how many. Branch-free: the swap always happens,
 * and the front grows only past a wanted value. */
static int64_t to_front(float *a, int64_t n, int shift, uint32_t mask, const uint8_t *want)
{
    int64_t w = 0;
    for (int64_t i = 0; i < n; i++) {
        uint32_t d = (key_of(a[i]) >> shift) & mask;
        float t = a[w];
        a[w] = a[i];
        a[i] = t;
        w += want[d];
    }
    return w;
}

typedef struct bucket {
    uint32_t digit;
    int64_t below;       /* values in lower buckets */
    int64_t count;
    int first, ranks;    /* its ranks: ranks[first .. first + ranks) */
} bucket;

/* Every key of a[0..n) has the same top `known` bits. hist holds
 * 2^MAX_DIGIT counts, want as many flags; both are reused by the levels. */
static void select_in(float *a, int64_t n, const int64_t *ranks, int m, float *out, int known, uint32_t *hist,
                      uint8_t *want)
{
    if (n <= SMALL || known >= 32) {   /* known == 32: the keys are all one */
        if (known < 32)
            insertion_sort(a, n);
        for (int i = 0; i < m; i++)
            out[i] = a[known < 32 ? ranks[i] : 0];
        return;
    }
    int width = n >= (int64_t)1 << 16 ? MAX_DIGIT : n >= 1 << 12 ? 12 : 8;
    int bits = 32 - known < width ? 32 - known : width, shift = 32 - known - bits;
    uint32_t mask = (1u << bits) - 1;
    memset(hist, 0, ((size_t)1 << bits) * sizeof *hist);
    for (int64_t i = 0; i < n; i++)
        hist[(key_of(a[i]) >> shift) & mask]++;

    bucket b[MAX_RANKS];
    int nb = 0;
    int64_t below = 0;
    uint32_t digit = 0;
    for (int i = 0; i < m;) {
        while (below + hist[digit] <= ranks[i])
            below += hist[digit++];
        b[nb] = (bucket){digit, below, hist[digit], i, 0};
        while (i < m && ranks[i] < below + hist[digit])
            i++, b[nb].ranks++;
        nb++;
    }

    /* the wanted buckets to the front, then each in turn to its place
     * there (digits ascend, so the buckets lie in key order) */
    memset(want, 0, (size_t)1 << bits);
    for (int j = 0; j < nb; j++)
        want[b[j].digit] = 1;
    int64_t front = to_front(a, n, shift, mask, want), at = 0;
    memset(want, 0, (size_t)1 << bits);
    for (int j = 0; j + 1 < nb; j++) {
        want[b[j].digit] = 1;
        at += to_front(a + at, front - at, shift, mask, want);
        want[b[j].digit] = 0;
    }
    at = 0;
    for (int j = 0; j < nb; j++) {
        int64_t sub[MAX_RANKS];
        for (int r = 0; r < b[j].ranks; r++)
            sub[r] = ranks[b[j].first + r] - b[j].below;
        select_in(a + at, b[j].count, sub, b[j].ranks, out + b[j].first, known + bits, hist, want);
        at += b[j].count;
    }
}

void rf_select_ranks(float *a, int64_t n, const int64_t *ranks, int m, float *out)
{
    assert(m <= MAX_RANKS && n < ((int64_t)1 << 32));
    if (n <= SMALL) {
        select_in(a, n, ranks, m, out, 0, NULL, NULL);
        return;
    }
    uint32_t *hist = malloc(((size_t)1 << MAX_DIGIT) * (sizeof *hist + 1));
    if (hist == NULL) {   /* out of memory for the histogram: a sort needs none */
        qsort(a, (size_t)n, sizeof *a, by_key);
        for (int i = 0; i < m; i++)
            out[i] = a[ranks[i]];
        return;
    }
    select_in(a, n, ranks, m, out, 0, hist, (uint8_t *)(hist + ((size_t)1 << MAX_DIGIT)));
    free(hist);
}
