/* .npy arrays as outside inputs (see npy_input.h), read with the one .npy
 * reader (npy_read.c); here only what an input must be for this model. */
#include "npy_input.h"

#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "npy_read.h"

bool rf_npy_input_is(const char *path)
{
    char head[6];
    FILE *f = fopen(path, "rb");
    bool is = f != NULL && fread(head, 1, sizeof head, f) == sizeof head && memcmp(head, "\x93NUMPY", 6) == 0;
    if (f != NULL)
        fclose(f);
    return is;
}

/* The shape against the model: (L,) token ids, or (L, C) / (L,) when C is
 * 1, with 1 <= L <= seq_len. */
static bool shape_fits(const rf_dataset *ds, const char *path, const rf_npy_array *a, rf_status *st)
{
    int feat = ds->feat_dim > 0 ? ds->feat_dim : 1;
    char shape[160];
    rf_npy_shape_text(a, shape, sizeof shape);
    if (a->ndim < 1 || a->ndim > 2)
        return rf_fail(st, "%s: shape %s: an outside input is a 1-D or 2-D array", path, shape);
    if (ds->feat_dim == 0 && a->ndim != 1)
        return rf_fail(st, "%s: shape %s; this %s model takes a 1-D array of token ids", path, shape, ds->name);
    int64_t per = a->ndim == 2 ? a->shape[1] : 1;
    if (per != feat)
        return rf_fail(st, "%s: shape %s, %lld values per position; this %s model takes %d", path, shape,
                       (long long)per, ds->name, feat);
    if (a->shape[0] < 1 || a->shape[0] > ds->seq_len)
        return rf_fail(st, "%s: shape %s, %lld positions; this %s model takes 1 to %d", path, shape,
                       (long long)a->shape[0], ds->name, ds->seq_len);
    return true;
}

bool rf_npy_input_read(const rf_dataset *ds, const char *path, float *x, int *len, rf_status *st)
{
    int feat = ds->feat_dim > 0 ? ds->feat_dim : 1;
    GStatBuf sb;
    if (g_stat(path, &sb) != 0)
        return rf_fail(st, "%s: cannot read the file", path);
    /* the largest array any model here takes, as 8-byte values, plus the header */
    if ((uint64_t)sb.st_size > (uint64_t)RF_NPY_READ_MAX_HEADER + 12 + (uint64_t)ds->seq_len * (uint64_t)feat * 8)
        return rf_fail(st, "%s: %lld bytes, more than an array of at most %d x %d values can hold", path,
                       (long long)sb.st_size, ds->seq_len, feat);
    rf_npy_array a;
    if (!rf_npy_open(path, &a, st))
        return false;
    bool ok = shape_fits(ds, path, &a, st);
    for (int64_t i = 0; ok && i < a.count; i++) {   /* C order: position-major, as x */
        double v = rf_npy_value(&a, i);
        if (!isfinite(v) || fabs(v) > 1e30)
            ok = rf_fail(st, "%s: element %lld is %g; inputs are finite", path, (long long)i, v);
        else if (ds->feat_dim == 0 && (v != floor(v) || v < 1 || v >= ds->vocab))
            ok = rf_fail(st, "%s: element %lld is %g, not a token id of this %s model (1..%d)", path, (long long)i,
                         v, ds->name, ds->vocab - 1);
        else
            x[i] = (float)v;
    }
    if (ok)
        *len = (int)a.shape[0];
    rf_npy_close(&a);
    return ok;
}
