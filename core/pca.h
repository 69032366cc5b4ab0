/* Principal component analysis of a few thousand vectors (the projector's
 * pooled representations and latent states): centre, the covariance
 * (width x width, in double), its eigen-decomposition by LAPACK's dsyev
 * (OpenBLAS carries LAPACK), components by decreasing variance. */
#ifndef RF_PCA_H
#define RF_PCA_H

#include <stdbool.h>
#include <stdint.h>

#include "status.h"

/* The largest width rf_pca_fit takes (its covariance is width^2 doubles). */
#define RF_PCA_MAX_WIDTH 4096

typedef struct rf_pca {
    int width, dims;
    double *mean;          /* width */
    double *components;    /* dims x width, unit rows; each one's largest |entry| is positive */
    double *variance;      /* dims: the variance along each component (sample, n - 1) */
    double *explained;     /* dims: its share of the total variance */
} rf_pca;

/* Fit `dims` components to x (n rows of `width` floats). Fails for n < 2,
 * dims outside 1..width or width > RF_PCA_MAX_WIDTH, or when LAPACK does. */
bool rf_pca_fit(const float *x, int64_t n, int width, int dims, rf_pca *p, rf_status *st);
/* Coordinates of x (n rows) along the components: coords gets n x dims. */
void rf_pca_project(const rf_pca *p, const float *x, int64_t n, float *coords);
void rf_pca_clear(rf_pca *p);

#endif
