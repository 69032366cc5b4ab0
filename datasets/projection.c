#include "projection.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/model.h"

bool rf_projection_what_parse(const char *name, rf_projection_what *what)
{
    if (strcmp(name, "pool") == 0)
        *what = RF_PROJECTION_POOL;
    else if (strcmp(name, "latent") == 0)
        *what = RF_PROJECTION_LATENT;
    else
        return false;
    return true;
}

void rf_projection_clear(rf_projection *p)
{
    free(p->vectors);
    free(p->label);
    free(p->predicted);
    free(p->length);
    memset(p, 0, sizeof *p);
}

/* The last latent BLRP computes (projection.h), or false. */
static bool final_latent(const rf_graph *g, char *name, size_t size)
{
    if (rf_tap_find(g, "blrp.latent.bwd.1") != NULL) {
        snprintf(name, size, "blrp.latent.bwd.1");
        return true;
    }
    int last = 0;
    for (int i = 0; i < rf_tap_count(g); i++) {
        int seg = 0, end = 0;
        const char *tn = rf_tap_get(g, i)->name;
        if (sscanf(tn, "blrp.latent.fwd.%d%n", &seg, &end) == 1 && tn[end] == '\0' && seg > last)
            last = seg;
    }
    if (last > 0)
        snprintf(name, size, "blrp.latent.fwd.%d", last);
    return last > 0;
}

static bool collect(rf_trainer *t, const rf_dataset *ds, rf_split split, rf_probe_set *ps, rf_projection *p,
                    rf_status *st)
{
    rf_model *m = rf_trainer_model(t);
    int batch = m->batch, classes = ds->classes;
    size_t row = (size_t)ds->seq_len * (size_t)(ds->feat_dim > 0 ? ds->feat_dim : 1), width = (size_t)p->width;
    float *x = calloc((size_t)batch * row, sizeof *x), *probs = malloc((size_t)batch * classes * sizeof *probs);
    rf_outside_input *in = calloc((size_t)batch, sizeof *in);
    bool ok = x != NULL && probs != NULL && in != NULL;
    if (!ok)
        rf_fail(st, "out of memory for a batch of %d samples", batch);
    for (int64_t first = 0; ok && first < p->count; first += batch) {
        int rows = (int)(p->count - first < batch ? p->count - first : batch);
        for (int r = 0; ok && r < rows; r++) {
            float *xr = x + (size_t)r * row;
            memset(xr, 0, row * sizeof *xr);
            int64_t i = first + r;
            ok = ds->get(ds, split, i, xr, &p->length[i], &p->label[i], st);
            in[r] = (rf_outside_input){xr, p->length[i]};
        }
        ok = ok && rf_trainer_predict_probed(t, in, rows, probs, ps, st);
        if (ok && !ps->values[0].filled)
            ok = rf_fail(st, "the model did not fill probe '%s'", ps->values[0].name);
        for (int r = 0; ok && r < rows; r++) {
            const float *pr = probs + (size_t)r * classes;
            int best = 0;
            for (int k = 1; k < classes; k++)
                best = pr[k] > pr[best] ? k : best;
            p->predicted[first + r] = best;
            memcpy(p->vectors + (size_t)(first + r) * width, ps->values[0].data + (size_t)r * width,
                   width * sizeof(float));
        }
        ps->values[0].filled = false;
    }
    free(x);
    free(probs);
    free(in);
    return ok;
}

bool rf_projection_collect(rf_trainer *t, const rf_dataset *ds, rf_split split, int64_t samples,
                           rf_projection_what what, rf_projection *p, rf_status *st)
{
    memset(p, 0, sizeof *p);
    if (samples < 1 || samples > RF_PROJECTION_MAX_SAMPLES)
        return rf_fail(st, "the projector takes 1..%d samples, not %lld", RF_PROJECTION_MAX_SAMPLES,
                       (long long)samples);
    if (ds->size[split] < 1)
        return rf_fail(st, "%s has no %s samples to project", ds->name, rf_split_name(split));
    rf_trainer_use_length_buckets(t, false);
    const rf_graph *g = rf_trainer_model(t)->graph;
    if (what == RF_PROJECTION_POOL)
        snprintf(p->tap, sizeof p->tap, "pool");
    else if (!final_latent(g, p->tap, sizeof p->tap)) {
        rf_trainer_use_length_buckets(t, true);
        return rf_fail(st, "this %s model has no latent state to project (--what latent is BLRP's; "
                           "`rangefinder inspect --list` names its probes)", rf_trainer_model(t)->cfg.model.encoder);
    }
    const char *names[1] = {p->tap};
    rf_probe_set *ps = rf_probe_set_new(g, names, 1, RF_PROBE_ALL_ROWS, st);
    bool ok = ps != NULL;
    if (ok) {
        p->count = samples < ds->size[split] ? samples : ds->size[split];
        p->width = (int)rf_shape_numel(ps->values[0].shape);
        p->vectors = malloc((size_t)p->count * (size_t)p->width * sizeof *p->vectors);
        p->label = malloc((size_t)p->count * sizeof *p->label);
        p->predicted = malloc((size_t)p->count * sizeof *p->predicted);
        p->length = malloc((size_t)p->count * sizeof *p->length);
        ok = p->vectors != NULL && p->label != NULL && p->predicted != NULL && p->length != NULL;
        if (!ok)
            rf_fail(st, "out of memory for %lld vectors of %d numbers", (long long)p->count, p->width);
    }
    ok = ok && collect(t, ds, split, ps, p, st);
    rf_probe_set_free(ps);
    rf_trainer_use_length_buckets(t, true);
    if (!ok)
        rf_projection_clear(p);
    return ok;
}
