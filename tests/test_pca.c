/* rf_pca (core/pca.h) against reference decompositions: a data set built
 * on known principal axes (orthonormal axes times orthogonal ±1 columns, so
 * its sample covariance is known exactly), and random correlated data
 * against a cyclic Jacobi eigensolver written here (no LAPACK); the sign
 * rule, the projected coordinates, explained ratios, and the refusals. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/pca.h"
#include "tap.h"

/* Eigenvalues (into w, unordered) and eigenvectors (columns of v) of the
 * symmetric d x d matrix a (destroyed), by cyclic Jacobi rotations. */
static void jacobi(double *a, int d, double *w, double *v)
{
    for (int i = 0; i < d * d; i++)
        v[i] = i % (d + 1) == 0;
    for (int sweep = 0; sweep < 100; sweep++) {
        double off = 0;
        for (int p = 0; p < d; p++)
            for (int q = p + 1; q < d; q++)
                off += a[p * d + q] * a[p * d + q];
        if (off < 1e-26)
            break;
        for (int p = 0; p < d; p++)
            for (int q = p + 1; q < d; q++) {
                if (fabs(a[p * d + q]) < 1e-300)
                    continue;
                double theta = (a[q * d + q] - a[p * d + p]) / (2 * a[p * d + q]);
                double t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
                double c = 1 / sqrt(t * t + 1), s = t * c;
                for (int k = 0; k < d; k++) {   /* A <- A J (columns p, q) */
                    double akp = a[k * d + p], akq = a[k * d + q];
                    a[k * d + p] = c * akp - s * akq;
                    a[k * d + q] = s * akp + c * akq;
                }
                for (int k = 0; k < d; k++) {   /* A <- Jᵀ A (rows p, q) */
                    double apk = a[p * d + k], aqk = a[q * d + k];
                    a[p * d + k] = c * apk - s * aqk;
                    a[q * d + k] = s * apk + c * aqk;
                }
                for (int k = 0; k < d; k++) {
                    double vkp = v[k * d + p], vkq = v[k * d + q];
                    v[k * d + p] = c * vkp - s * vkq;
                    v[k * d + q] = s * vkp + c * vkq;
                }
            }
    }
    for (int i = 0; i < d; i++)
        w[i] = a[i * d + i];
}

static double dot(const double *a, const double *b, int d)
{
    double s = 0;
    for (int i = 0; i < d; i++)
        s += a[i] * b[i];
    return s;
}

/* The sign rule: each component's largest |entry| is positive. */
static bool signs_fixed(const rf_pca *p)
{
    for (int k = 0; k < p->dims; k++) {
        const double *c = p->components + (size_t)k * p->width;
        double big = 0;
        for (int j = 0; j < p->width; j++)
            big = fabs(c[j]) > fabs(big) ? c[j] : big;
        if (big <= 0)
            return false;
    }
    return true;
}

/* 3-D points on the axes u_k (a rotation) with spreads 3, 2, 1 along them
 * and a mean of (5, -2, 1): rows a Hadamard design, so the axes' scores are
 * orthogonal, zero-mean columns and the covariance is sum s_k² n/(n-1) u_k u_kᵀ. */
static void known_axes(void)
{
    enum { N = 8, D = 3 };
    const double u[D][D] = {{0.36, 0.48, -0.8}, {0.48, 0.64, 0.6}, {0.8, -0.6, 0}};
    const double spread[D] = {3, 2, 1}, mean[D] = {5, -2, 1};
    const int h[N][D] = {{1, 1, 1}, {-1, 1, -1}, {1, -1, -1}, {-1, -1, 1},
                         {1, 1, -1}, {-1, 1, 1}, {1, -1, 1}, {-1, -1, -1}};
    float x[N * D];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < D; j++) {
            double v = mean[j];
            for (int k = 0; k < D; k++)
                v += h[i][k] * spread[k] * u[k][j];
            x[i * D + j] = (float)v;
        }
    rf_pca p;
    rf_status st = {0};
    if (!tap_ok(rf_pca_fit(x, N, D, 3, &p, &st), "known axes: the fit succeeds (%s)", st.msg))
        return;
    double worst_axis = 0, worst_var = 0, worst_mean = 0, total = 0;
    for (int k = 0; k < D; k++) {
        worst_axis = fmax(worst_axis, 1 - fabs(dot(p.components + k * D, u[k], D)));
        double want = spread[k] * spread[k] * N / (N - 1.0);
        worst_var = fmax(worst_var, fabs(p.variance[k] - want) / want);
        worst_mean = fmax(worst_mean, fabs(p.mean[k] - mean[k]));
        total += want;
    }
    tap_ok(worst_axis < 1e-6, "known axes: each component is its axis, in order of variance (1-|cos| %.2g)",
           worst_axis);
    tap_ok(worst_var < 1e-5, "known axes: variances 9, 4, 1 times n/(n-1) (worst relative error %.2g)", worst_var);
    tap_ok(worst_mean < 1e-5, "known axes: the mean (worst error %.2g)", worst_mean);
    tap_ok(fabs(p.explained[0] - 9 * N / (N - 1.0) / total) < 1e-6 &&
               fabs(p.explained[0] + p.explained[1] + p.explained[2] - 1) < 1e-6,
           "known axes: explained ratios 9/14, 4/14, 1/14 (first %.6f)", p.explained[0]);
    tap_ok(signs_fixed(&p), "known axes: each component's largest loading is positive");
    float coords[N * D];
    rf_pca_project(&p, x, N, coords);
    double worst_coord = 0;
    for (int i = 0; i < N; i++)
        for (int k = 0; k < D; k++) {
            /* the sign rule flips u_0 (its largest entry is -0.8) and keeps u_1, u_2 */
            double sign = k == 0 ? -1 : 1;
            worst_coord = fmax(worst_coord, fabs(coords[i * D + k] - sign * h[i][k] * spread[k]));
        }
    tap_ok(worst_coord < 1e-5, "known axes: each point's coordinates are its ±spread scores (worst error %.2g)",
           worst_coord);
    rf_pca_clear(&p);
}

/* Random correlated data against the Jacobi reference. */
static void against_jacobi(void)
{
    enum { N = 400, D = 12, K = 3 };
    float *x = malloc(sizeof(float) * N * D);
    double mix[D][D];
    unsigned s = 12345;
    for (int i = 0; i < D; i++)
        for (int j = 0; j < D; j++) {
            s = s * 1103515245u + 12345u;
            mix[i][j] = ((int)((s >> 8) % 2001) - 1000) / 1000.0 / (1 + i);
        }
    for (int n = 0; n < N; n++) {
        double z[D];
        for (int i = 0; i < D; i++) {
            s = s * 1103515245u + 12345u;
            z[i] = ((int)((s >> 8) % 2001) - 1000) / 500.0;
        }
        for (int j = 0; j < D; j++) {
            double sum = j;
            for (int i = 0; i < D; i++)
                sum += z[i] * mix[i][j];
            x[n * D + j] = (float)sum;
        }
    }
    /* the reference: covariance in double, Jacobi, sorted by eigenvalue */
    double mean[D] = {0}, cov[D * D] = {0}, w[D], v[D * D];
    for (int n = 0; n < N; n++)
        for (int j = 0; j < D; j++)
            mean[j] += x[n * D + j] / (double)N;
    for (int n = 0; n < N; n++)
        for (int i = 0; i < D; i++)
            for (int j = 0; j < D; j++)
                cov[i * D + j] += (x[n * D + i] - mean[i]) * (x[n * D + j] - mean[j]) / (N - 1.0);
    double trace = 0;
    for (int i = 0; i < D; i++)
        trace += cov[i * D + i];
    jacobi(cov, D, w, v);
    int order[D];
    for (int i = 0; i < D; i++)
        order[i] = i;
    for (int i = 0; i < D; i++)   /* selection sort, largest first */
        for (int j = i + 1; j < D; j++)
            if (w[order[j]] > w[order[i]]) {
                int t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
    rf_pca p;
    rf_status st = {0};
    if (!tap_ok(rf_pca_fit(x, N, D, K, &p, &st), "random data: the fit succeeds (%s)", st.msg)) {
        free(x);
        return;
    }
    double worst_var = 0, worst_axis = 0;
    for (int k = 0; k < K; k++) {
        double ref[D];
        for (int j = 0; j < D; j++)
            ref[j] = v[j * D + order[k]];
        worst_var = fmax(worst_var, fabs(p.variance[k] - w[order[k]]) / w[order[k]]);
        worst_axis = fmax(worst_axis, 1 - fabs(dot(p.components + k * D, ref, D)));
        if (fabs(p.explained[k] - w[order[k]] / trace) > 1e-6)
            worst_var = INFINITY;
    }
    tap_ok(worst_var < 1e-5, "random data: the 3 largest variances and their shares equal Jacobi's (worst %.2g)",
           worst_var);
    tap_ok(worst_axis < 1e-5, "random data: the components equal Jacobi's eigenvectors up to sign (1-|cos| %.2g)",
           worst_axis);
    tap_ok(signs_fixed(&p), "random data: each component's largest loading is positive");
    float *coords = malloc(sizeof(float) * N * K);
    rf_pca_project(&p, x, N, coords);
    double var0 = 0, cross = 0;
    for (int n = 0; n < N; n++) {
        var0 += coords[n * K] * (double)coords[n * K] / (N - 1.0);
        cross += coords[n * K] * (double)coords[n * K + 1] / (N - 1.0);
    }
    tap_ok(fabs(var0 - p.variance[0]) / p.variance[0] < 1e-4 && fabs(cross) < 1e-4 * p.variance[0],
           "random data: the coordinates along pc1 have its variance (%.6g vs %.6g) and none shared with pc2 (%.2g)",
           var0, p.variance[0], cross);
    free(coords);
    rf_pca_clear(&p);
    free(x);
}

static void refusals(void)
{
    float x[6] = {1, 2, 3, 4, 5, 6};
    rf_pca p;
    rf_status st = {0};
    tap_ok(!rf_pca_fit(x, 1, 6, 2, &p, &st) && strstr(st.msg, "at least 2 vectors") != NULL,
           "one vector is refused: %s", st.msg);
    st = (rf_status){0};
    tap_ok(!rf_pca_fit(x, 3, 2, 3, &p, &st) && strstr(st.msg, "3 components asked of vectors of 2") != NULL,
           "more components than numbers are refused: %s", st.msg);
    st = (rf_status){0};
    tap_ok(!rf_pca_fit(x, 2, RF_PCA_MAX_WIDTH + 1, 2, &p, &st) && strstr(st.msg, "1..4096") != NULL,
           "vectors wider than the covariance limit are refused: %s", st.msg);
}

int main(void)
{
    known_axes();
    against_jacobi();
    refusals();
    return tap_done();
}
