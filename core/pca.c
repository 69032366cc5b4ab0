#include "pca.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* LAPACK's symmetric eigensolver, from OpenBLAS (Debian ships no lapacke.h
 * for it); gfortran passes each character argument's length last. */
void dsyev_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda, double *w,
            double *work, const int *lwork, int *info, size_t jobz_len, size_t uplo_len);

void rf_pca_clear(rf_pca *p)
{
    free(p->mean);
    free(p->components);
    free(p->variance);
    free(p->explained);
    memset(p, 0, sizeof *p);
}

/* dsyev on the covariance (column-major = row-major, it is symmetric):
 * eigenvalues ascending into w, eigenvectors over cov's columns. */
static bool eigen(double *cov, int d, double *w, rf_status *st)
{
    int lwork = -1, info = 0;
    double size = 0;
    dsyev_("V", "U", &d, cov, &d, w, &size, &lwork, &info, 1, 1);
    lwork = info == 0 ? (int)size : 3 * d;
    double *work = malloc((size_t)lwork * sizeof *work);
    if (work == NULL)
        return rf_fail(st, "PCA: out of memory for LAPACK's workspace (%d doubles)", lwork);
    dsyev_("V", "U", &d, cov, &d, w, work, &lwork, &info, 1, 1);
    free(work);
    if (info != 0)
        return rf_fail(st, "PCA: LAPACK's dsyev failed (info %d)", info);
    return true;
}

bool rf_pca_fit(const float *x, int64_t n, int width, int dims, rf_pca *p, rf_status *st)
{
    memset(p, 0, sizeof *p);
    if (n < 2)
        return rf_fail(st, "PCA needs at least 2 vectors, got %lld", (long long)n);
    if (width < 1 || width > RF_PCA_MAX_WIDTH)
        return rf_fail(st, "PCA takes vectors of 1..%d numbers, these have %d", RF_PCA_MAX_WIDTH, width);
    if (dims < 1 || dims > width)
        return rf_fail(st, "PCA: %d components asked of vectors of %d numbers", dims, width);
    size_t d = (size_t)width;
    double *centred = malloc((size_t)n * d * sizeof *centred);
    double *cov = calloc(d * d, sizeof *cov), *w = malloc(d * sizeof *w);
    p->mean = calloc(d, sizeof *p->mean);
    p->components = malloc((size_t)dims * d * sizeof *p->components);
    p->variance = malloc((size_t)dims * sizeof *p->variance);
    p->explained = malloc((size_t)dims * sizeof *p->explained);
    bool ok = centred != NULL && cov != NULL && w != NULL && p->mean != NULL && p->components != NULL &&
              p->variance != NULL && p->explained != NULL;
    if (!ok)
        rf_fail(st, "PCA: out of memory for %lld vectors of %d numbers", (long long)n, width);
    if (ok) {
        for (int64_t i = 0; i < n; i++)
            for (size_t j = 0; j < d; j++)
                p->mean[j] += x[(size_t)i * d + j];
        for (size_t j = 0; j < d; j++)
            p->mean[j] /= (double)n;
        for (int64_t i = 0; i < n; i++)
            for (size_t j = 0; j < d; j++)
                centred[(size_t)i * d + j] = x[(size_t)i * d + j] - p->mean[j];
        /* upper triangle of C = Xcᵀ Xc / (n - 1), row-major */
        cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, width, (int)n, 1.0 / (double)(n - 1), centred, width,
                    0.0, cov, width);
        double total = 0;
        for (size_t j = 0; j < d; j++)
            total += cov[j * d + j];
        /* mirror it: a full symmetric matrix reads the same column- or row-major */
        for (size_t r = 0; r < d; r++)
            for (size_t c = r + 1; c < d; c++)
                cov[c * d + r] = cov[r * d + c];
        ok = eigen(cov, width, w, st);
        for (int k = 0; ok && k < dims; k++) {
            size_t src = d - 1 - (size_t)k;   /* ascending: the largest last */
            double *row = p->components + (size_t)k * d, big = 0;
            for (size_t j = 0; j < d; j++) {
                row[j] = cov[src * d + j];    /* column src of the column-major result */
                if (fabs(row[j]) > fabs(big))
                    big = row[j];
            }
            if (big < 0)   /* a deterministic sign: the largest loading positive */
                for (size_t j = 0; j < d; j++)
                    row[j] = -row[j];
            p->variance[k] = w[src] > 0 ? w[src] : 0;
            p->explained[k] = total > 0 ? p->variance[k] / total : 0;
        }
    }
    free(centred);
    free(cov);
    free(w);
    if (!ok)
        rf_pca_clear(p);
    else {
        p->width = width;
        p->dims = dims;
    }
    return ok;
}

void rf_pca_project(const rf_pca *p, const float *x, int64_t n, float *coords)
{
    size_t d = (size_t)p->width;
    for (int64_t i = 0; i < n; i++)
        for (int k = 0; k < p->dims; k++) {
            double s = 0;
            for (size_t j = 0; j < d; j++)
                s += (x[(size_t)i * d + j] - p->mean[j]) * p->components[(size_t)k * d + j];
            coords[(size_t)i * (size_t)p->dims + (size_t)k] = (float)s;
        }
}
