/* Vectorisable math for the hot row loops (softmax, GELU, layernorm).
 *
 * libm's expf and erff are a call per element, which keeps the compiler from
 * vectorising a row; rf_expf and rf_erff are branch-free (GCC's
 * if-conversion will not move a float operation out of a branch under the
 * default -ftrapping-math, so every selection here is an integer MIN / MAX
 * or a mask on the bits of values already computed), so a loop over a row
 * becomes SIMD code at any -march.
 *
 * rf_expf: Cephes' single-precision algorithm: e^x = 2^n * e^r with n the
 * nearest integer to x*log2(e) and |r| <= ln(2)/2, e^r by a degree-6
 * polynomial; relative error below 2e-7 over [-87, 88].
 * rf_erff: x + x P(x^2) for |x| <= 0.921875, 1 - e^(Q(|x|) - x^2) above
 * (with the sign of x), P and Q Chebyshev fits (mpmath) of erf(x)/x - 1 and
 * log(erfc(x)) + x^2; absolute error about 1e-7.
 * tests/test_ops_basic.c checks both against libm over a grid.
 *
 * RF_VEC_CLONES marks a hot row or task function to be compiled for
 * AVX-512, AVX2 and the portable baseline, picked at load time (GCC
 * function multiversioning through an ifunc). The build has no -march, and
 * -std=c11 means no FMA contraction, so the clones compute bit-identical
 * results: every ISA rounds the same operations in the same order, and the
 * reductions keep 16 fixed lanes whatever the vector width. The one
 * exception is GELU (elementwise.c), whose polynomials fuse into FMAs where
 * the clone's ISA has them (AVX-512): there the AVX2 and baseline clones
 * differ from it in the last bits. Under
 * ThreadSanitizer (which GCC announces with __SANITIZE_THREAD__) there are
 * no clones: the ifunc resolvers run in the dynamic loader before TSan is
 * initialised and crash the program before main.
 */
#ifndef RF_CPU_VECMATH_H
#define RF_CPU_VECMATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__) && \
    defined(__has_attribute)
#if __has_attribute(target_clones)
#define RF_VEC_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#endif
#endif
#ifndef RF_VEC_CLONES
#define RF_VEC_CLONES
#endif

/* RF_VEC_FUSED lets a function's multiplies and adds fuse into FMAs where
 * its ISA has them (GCC; clang already fuses within an expression). Only
 * for loops whose every element takes the same instructions wherever a
 * task's range starts or ends (elementwise.c's GELU blocks): a vectorised
 * body and its scalar remainder may fuse differently. */
#if defined(__GNUC__) && !defined(__clang__)
#define RF_VEC_FUSED __attribute__((optimize("fp-contract=fast")))
#else
#define RF_VEC_FUSED
#endif

/* 16 floats (or int32 masks) as one GCC generic vector. */
typedef float rf_v16f __attribute__((vector_size(64)));
typedef int32_t rf_v16i __attribute__((vector_size(64)));

/* Forced inline: a call per element is what these functions exist to avoid,
 * and GCC's heuristics leave rf_erff out of line otherwise. */
#define RF_VEC_INLINE static inline __attribute__((always_inline))

/* c ? a : b as a mask on the bits: no branch for jump threading to
 * specialise, so a loop over it vectorises whatever a and b cost. */
RF_VEC_INLINE float rf_select(int c, float a, float b)
{
    int32_t ab, bb, m = -(int32_t)(c != 0);
    memcpy(&ab, &a, sizeof ab);
    memcpy(&bb, &b, sizeof bb);
    ab = (ab & m) | (bb & ~m);
    float r;
    memcpy(&r, &ab, sizeof r);
    return r;
}

/* e^x; exactly 0 for x < -87 (so -inf, a masked score, gives 0), +inf
 * above about 88.7. The loop over it must stay free of branches: n is read
 * from the bits of the rounded sum (no float-to-int conversion, so no range
 * trouble) and clamped as an integer, which GCC turns into MIN / MAX rather
 * than a branch; a clamp of x to a constant would let jump threading fold
 * the polynomial on one path and put the rest behind a branch. The final
 * zeroing is a mask on the bits, 0 even where e is NaN (x = -inf). */
RF_VEC_INLINE float rf_expf(float x)
{
    const float magic = 12582912.0f;   /* 1.5 * 2^23: rounds to an integer */
    float v = x * 1.44269504088896341f + magic;
    uint32_t vb, mb;
    memcpy(&vb, &v, sizeof vb);
    memcpy(&mb, &magic, sizeof mb);
    /* round(x log2 e) for |x| < 2^21. The difference is unsigned: for a
     * huge, infinite or NaN x it wraps (as a signed one would overflow,
     * which is undefined), and the clamp and the final mask give the
     * result there. */
    uint32_t d = vb - mb;
    int32_t ni;
    memcpy(&ni, &d, sizeof ni);
    ni = ni < -126 ? -126 : ni;
    ni = ni > 127 ? 127 : ni;
    float n = (float)ni;
    float r = x - n * 0.693359375f - n * -2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    int32_t sb = (ni + 127) << 23;
    float scale, e;
    memcpy(&scale, &sb, sizeof scale);
    e = p * scale;
    int32_t eb, keep = -(int32_t)!(x < -87.0f);   /* NaN keeps its bits */
    memcpy(&eb, &e, sizeof eb);
    eb &= keep;
    memcpy(&e, &eb, sizeof e);
    return e;
}

/* erf(x), absolute error about 1e-7 (libm's erff: 5e-8). Both pieces are
 * computed and one is picked by a mask on the bits, so a loop over it
 * vectorises; the clamp of |x| to 4 is an integer MIN on the bits. */
RF_VEC_INLINE float rf_erff(float x)
{
    float t = fabsf(x), s = x * x;
    /* |x| <= 0.921875: erf(x) = x + x P(x^2) */
    float p = -6.00408115592e-4f;
    p = p * s + 4.99602012225e-3f;
    p = p * s - 2.67687566998e-2f;
    p = p * s + 1.12818823194e-1f;
    p = p * s - 3.76125008962e-1f;
    p = p * s + 1.28379150830e-1f;
    float small = x + x * p;
    /* above: erfc(u) = exp(Q(u) - u^2), u = min(|x|, 4), Q on [0.921875, 4];
     * from 4 on erf rounds to +-1 */
    int32_t ub;
    memcpy(&ub, &t, sizeof ub);
    ub = ub < 0x40800000 ? ub : 0x40800000;   /* the bits of 4.0f; t >= 0 orders as an integer */
    float u;
    memcpy(&u, &ub, sizeof u);
    float q = 1.6435709185e-6f;
    q = q * u - 4.61782760818e-5f;
    q = q * u + 5.97749842656e-4f;
    q = q * u - 4.76362303219e-3f;
    q = q * u + 2.64312121154e-2f;
    q = q * u - 1.10094941744e-1f;
    q = q * u + 3.68186116222e-1f;
    q = q * u - 1.13023808086e+0f;
    q = q * u + 3.20581638696e-4f;
    float big = copysignf(1.0f - rf_expf(q - u * u), x);
    /* NaN: t > 0.921875 is false, so the small piece, which is NaN */
    return rf_select(t > 0.921875f, big, small);
}

/* In-place softmax of a row of scores whose masked entries are already -inf.
 * A row with no finite entry becomes zeros. The max and the sum are taken in
 * 16 lanes so the compiler can vectorise them; the last m % 16 entries go
 * through a 16-wide buffer padded with -inf (which exponentiates to 0), so
 * rows of a hundred or so keys (BLRP's segments) pay no scalar exp. */
static inline RF_VEC_CLONES void rf_softmax_row_inplace(float *p, int64_t m)
{
    int64_t body = m - m % 16;
    int rest = (int)(m - body);
    float tail[16];
    for (int l = 0; l < 16; l++)
        tail[l] = l < rest ? p[body + l] : -INFINITY;
    /* GCC 12 leaves a lane-wise max loop scalar; a generic vector (one
     * AVX-512 register, two AVX2 or four SSE ones) with a mask select is
     * vectorised at every ISA. */
    rf_v16f mlanes;
    memcpy(&mlanes, tail, sizeof mlanes);
    for (int64_t j = 0; j < body; j += 16) {
        rf_v16f v;
        memcpy(&v, p + j, sizeof v);
        rf_v16i gt = v > mlanes;
        mlanes = (rf_v16f)((gt & (rf_v16i)v) | (~gt & (rf_v16i)mlanes));
    }
    float mx = -INFINITY;
    for (int l = 0; l < 16; l++)
        mx = mlanes[l] > mx ? mlanes[l] : mx;
    if (mx == -INFINITY) {
        memset(p, 0, (size_t)m * sizeof *p);
        return;
    }
    float lanes[16];
    for (int l = 0; l < 16; l++) {
        tail[l] = rf_expf(tail[l] - mx);
        lanes[l] = tail[l];
    }
    for (int64_t j = 0; j < body; j += 16)
        for (int l = 0; l < 16; l++) {
            float e = rf_expf(p[j + l] - mx);
            p[j + l] = e;
            lanes[l] += e;
        }
    float sum = 0.0f;
    for (int l = 0; l < 16; l++)
        sum += lanes[l];
    float inv = 1.0f / sum;
    for (int64_t j = 0; j < body; j++)
        p[j] *= inv;
    for (int l = 0; l < rest; l++)
        p[body + l] = tail[l] * inv;
}

/* The largest of p[0..n) (-inf for none), in 16 lanes: GCC 12 leaves a
 * lane-wise `a > b ? a : b` scalar, a generic-vector select it vectorises.
 * NaNs are passed over. */
static inline RF_VEC_CLONES float rf_row_max(const float *p, int64_t n)
{
    rf_v16f m;
    for (int l = 0; l < 16; l++)
        m[l] = -INFINITY;
    int64_t j = 0;
    for (; j + 16 <= n; j += 16) {
        rf_v16f v;
        memcpy(&v, p + j, sizeof v);
        rf_v16i gt = v > m;
        m = (rf_v16f)((gt & (rf_v16i)v) | (~gt & (rf_v16i)m));
    }
    float mx = -INFINITY;
    for (; j < n; j++)
        mx = p[j] > mx ? p[j] : mx;
    for (int l = 0; l < 16; l++)
        mx = m[l] > mx ? m[l] : mx;
    return mx;
}

/* p[j] = e^(p[j] - shift) for a finite shift (-inf entries become 0);
 * returns their sum, added in 16 lanes. */
static inline RF_VEC_CLONES float rf_exp_row(float *p, int64_t n, float shift)
{
    float lanes[16] = {0};
    int64_t j = 0;
    for (; j + 16 <= n; j += 16)
        for (int l = 0; l < 16; l++) {
            float e = rf_expf(p[j + l] - shift);
            p[j + l] = e;
            lanes[l] += e;
        }
    float sum = 0.0f;
    for (; j < n; j++) {
        p[j] = rf_expf(p[j] - shift);
        sum += p[j];
    }
    for (int l = 0; l < 16; l++)
        sum += lanes[l];
    return sum;
}

/* sum_j a[j] * b[j] in 16 lanes (vectorisable, fixed order). */
static inline float rf_dot(const float *a, const float *b, int64_t m)
{
    float lanes[16] = {0};
    int64_t j = 0;
    for (; j + 16 <= m; j += 16)
        for (int l = 0; l < 16; l++)
            lanes[l] += a[j + l] * b[j + l];
    float sum = 0.0f;
    for (; j < m; j++)
        sum += a[j] * b[j];
    for (int l = 0; l < 16; l++)
        sum += lanes[l];
    return sum;
}

/* sum_j a[j] in 16 lanes (vectorisable, fixed order). */
static inline float rf_vsum(const float *a, int64_t m)
{
    float lanes[16] = {0};
    int64_t j = 0;
    for (; j + 16 <= m; j += 16)
        for (int l = 0; l < 16; l++)
            lanes[l] += a[j + l];
    float sum = 0.0f;
    for (; j < m; j++)
        sum += a[j];
    for (int l = 0; l < 16; l++)
        sum += lanes[l];
    return sum;
}

#endif
