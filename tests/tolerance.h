/* Error bounds for comparing the engine's f32 results with double
 * references, from rounding-error analysis instead of constants tuned on one
 * CPU. OpenBLAS picks a different kernel (and so a different summation order
 * and blocking) on every CPU, and the engine cuts long sums into chunks for
 * its threads, so a test may assume nothing about the order of a sum, only
 * what the analysis guarantees for any order.
 *
 * u = 2^-24 is f32's unit roundoff. A sum of k terms xᵢ computed in f32 in
 * any order (a dot product: k products, each rounded once, then summed)
 * satisfies (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed.,
 * §3.1)
 *     |fl(Σ xᵢ) − Σ xᵢ| ≤ γ(k) Σ|xᵢ|,    γ(k) = k·u / (1 − k·u).
 * That worst case needs every rounding to go the same way. With rounding
 * errors that are independent and of mean zero (round-to-nearest on data
 * that is not adversarial), the bound holds with λ√k·u in place of γ(k),
 * with probability at least 1 − 2·exp(−λ²/2) for each sum (Higham and Mary,
 * "A New Approach to Probabilistic Rounding Error Analysis", SIAM J. Sci.
 * Comput. 41(5), 2019, Theorem 2.4). λ = 8 makes that 2.5e-14: no test run
 * will see a false failure, and the bound stays about √k/8 times tighter
 * than the worst case, tight enough that a dropped term or chunk shows.
 * tol_sum takes the smaller of the two.
 *
 * The elementary functions (rf_expf, rf_erff: within 4u, see test_vecmath)
 * and the few roundings of an element-wise chain add a relative error of a
 * few u to each result: TOL_CHAIN·u·|result| allows chains of up to eight
 * such steps of 4u each. */
#ifndef RF_TOLERANCE_H
#define RF_TOLERANCE_H

#include <math.h>

#define TOL_U 0x1p-24          /* f32 unit roundoff */
#define TOL_LAMBDA 8.0         /* confidence of the probabilistic bound (above) */
#define TOL_CHAIN 32.0         /* element-wise chains: 8 steps of 4u */

/* Worst-case relative factor for a sum of k terms in f32. */
static inline double tol_gamma(double k)
{
    double ku = k * TOL_U;
    return ku < 1.0 ? ku / (1.0 - ku) : INFINITY;
}

/* Bound on the f32 error of a sum of k terms whose absolute values add up
 * to abs_sum: min(λ√k·u, γ(k)) · abs_sum. */
static inline double tol_sum(double k, double abs_sum)
{
    double p = TOL_LAMBDA * sqrt(k < 1 ? 1 : k) * TOL_U, w = tol_gamma(k);
    return (p < w ? p : w) * abs_sum;
}

/* A whole mechanism against its reference: `stages` stages in sequence
 * (products, norms, softmaxes, recurrences), each a sum of at most k terms
 * of size at most `scale` followed by an element-wise chain. LayerNorm
 * outputs and softmax weights are O(1), so a stage carries the error it
 * receives on with a gain of about 1, and the stages' errors, of random
 * sign, add like a random walk: √stages times one stage's bound. Use as
 * |got − want| ≤ tol_stages(...) + tol_stages_rel(stages)·|want|. */
static inline double tol_stages(double stages, double k, double scale)
{
    return sqrt(stages) * (tol_sum(k, k * scale) + TOL_CHAIN * TOL_U * scale);
}

static inline double tol_stages_rel(double stages)
{
    return sqrt(stages) * TOL_CHAIN * TOL_U;
}

#endif
