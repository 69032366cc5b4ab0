/* Comparing checkpoints tensor by tensor (tests/test_session.c,
 * tests/test_gui.c): a model loaded from a checkpoint, saved again, must
 * give back every tensor of the file it came from, bit for bit. */
#ifndef RF_TESTS_SAME_TENSORS_H
#define RF_TESTS_SAME_TENSORS_H

#include <stdio.h>
#include <string.h>

#include "../core/safetensors.h"

/* Whether the safetensors files a and b hold the same tensors: the same
 * names and shapes, and data equal under memcmp. Counts the parameters and
 * the optimizer moments ("optimizer.*") compared; `why` names the first
 * difference. */
static inline bool same_tensors(const char *a, const char *b, int *params, int *moments, char *why, size_t size)
{
    rf_status st = {0};
    rf_safetensors *fa = rf_safetensors_read(a, &st), *fb = fa != NULL ? rf_safetensors_read(b, &st) : NULL;
    bool same = fb != NULL && rf_safetensors_count(fa) == rf_safetensors_count(fb);
    snprintf(why, size, "%.200s", fb == NULL ? st.msg : same ? "" : "the files hold different numbers of tensors");
    *params = *moments = 0;
    for (int i = 0; same && i < rf_safetensors_count(fa); i++) {
        const rf_st_tensor *x = rf_safetensors_tensor(fa, i), *y = rf_safetensors_find(fb, x->name);
        int64_t numel = 1;
        for (int d = 0; d < x->ndim; d++)
            numel *= x->shape[d];
        same = y != NULL && y->ndim == x->ndim && memcmp(y->shape, x->shape, (size_t)x->ndim * sizeof *x->shape) == 0 &&
               memcmp(y->data, x->data, (size_t)numel * sizeof *x->data) == 0;
        if (!same)
            snprintf(why, size, "%.200s differs", x->name);
        else if (strncmp(x->name, "optimizer.", 10) == 0)
            ++*moments;
        else
            ++*params;
    }
    rf_safetensors_free(fa);
    rf_safetensors_free(fb);
    return same;
}

#endif
