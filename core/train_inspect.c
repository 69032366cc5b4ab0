/* Inspecting one sample through the trainer's model (its probes' taps,
 * its prediction) and classifying a researcher's own inputs: a split's
 * sample on the model (or a length bucket), an outside input on a
 * forward-only model of batch 1 built at the first inspection. */
#include <math.h>
#include <string.h>

#include "train_private.h"

static void score_row(const rf_model *m, int row, rf_inspection *r)
{
    rf_graph *g = m->graph;
    int c = (int)rf_node_shape(g, m->logits).dim[1];
    const float *z = rf_value(g, m->logits) + (size_t)row * c;
    int best = 0;
    for (int k = 1; k < c; k++)
        if (z[k] > z[best])
            best = k;
    double se = 0;
    for (int k = 0; k < c; k++)
        se += exp((double)z[k] - z[best]);
    r->label = (int)rf_value(g, m->labels)[row];
    r->predicted = best;
    r->loss = z[best] + log(se) - z[r->label];
}

static bool wants_gradient(const rf_graph *g, const rf_probe_set *ps)
{
    for (int i = 0; i < ps->count; i++)
        if (rf_tap_find(g, ps->values[i].name)->what == RF_TAP_GRAD)
            return true;
    return false;
}

/* Forward (and backward for gradient taps) of the loaded batch with `ps`
 * attached to `row`; parameters untouched. */
static bool run_inspection(rf_trainer *t, rf_model *m, int row, rf_probe_set *ps, rf_inspection *out, rf_status *st)
{
    ps->sample = row;
    for (int i = 0; i < ps->count; i++)
        ps->values[i].filled = false;
    rf_exec x;
    rf_exec_init(&x, m->graph, t->pool, t->cfg.train.seed, (uint64_t)t->step, false);
    rf_probe_attach(m->graph, ps);
    rf_graph_forward(m->graph, &x);
    score_row(m, row, out);
    if (wants_gradient(m->graph, ps)) {
        rf_params_zero_grads(t->params);
        rf_graph_backward(m->graph, &x, NULL);
        rf_params_zero_grads(t->params);
    }
    rf_probe_attach(m->graph, NULL);
    for (int i = 0; i < ps->count; i++)
        if (!ps->values[i].filled)
            return rf_fail(st, "probe '%s' was not filled: its tensor is not computed for this model and batch",
                           ps->values[i].name);
    return true;
}

bool rf_trainer_inspect(rf_trainer *t, rf_split split, int64_t sample, rf_probe_set *ps, rf_inspection *out,
                        rf_status *st)
{
    rf_model *m = rf_trainer_model_for(t, t->model->seq_len);   /* probes read the model's own graph */
    if (!rf_trainer_settle(t, st))
        return false;
    if (sample < 0 || sample >= t->ds->size[split])
        return rf_fail(st, "sample %lld is out of range: the %s split has %lld samples", (long long)sample,
                       rf_split_name(split), (long long)t->ds->size[split]);
    if (t->forward_only && wants_gradient(m->graph, ps))
        return rf_fail(st, "this model was built for inference only: it has no gradients to probe");
    *out = (rf_inspection){.batch_index = sample / m->batch, .row = (int)(sample % m->batch)};
    const rf_batch *b = rf_batcher_eval(t->batcher, split, out->batch_index, st);
    if (b == NULL || !rf_model_load_batch(m, b, st))
        return false;
    return run_inspection(t, m, out->row, ps, out, st);
}

/* Outside inputs into the first `count` rows of the graph's inputs, the
 * other rows padding; labels 0 (the loss is not read). The host writes
 * them itself: the caller has settled a device, so nothing is queued. */
static bool load_inputs(rf_model *m, const rf_outside_input *in, int count, rf_status *st)
{
    if (count < 1 || count > m->batch)
        return rf_fail(st, "%d inputs at once; the model takes 1 to %d", count, m->batch);
    rf_graph *g = m->graph;
    size_t fd = m->feat_dim > 0 ? (size_t)m->feat_dim : 1, row = (size_t)m->seq_len * fd;
    float *x = rf_value(g, m->x), *mask = rf_value(g, m->mask);
    for (int b = 0; b < count; b++)
        if (in[b].len < 1 || in[b].len > m->seq_len)
            return rf_fail(st, "input %d has %d positions; the model takes 1 to %d", b + 1, in[b].len, m->seq_len);
    memset(x, 0, (size_t)m->batch * row * sizeof *x);
    memset(mask, 0, (size_t)m->batch * m->seq_len * sizeof *mask);
    memset(rf_value(g, m->labels), 0, (size_t)m->batch * sizeof(float));
    for (int b = 0; b < count; b++) {
        memcpy(x + (size_t)b * row, in[b].x, (size_t)in[b].len * fd * sizeof *x);
        for (int p = 0; p < in[b].len; p++)
            mask[(size_t)b * m->seq_len + p] = 1.0f;
    }
    return true;
}

/* Softmax of row `row`'s logits into probs[classes]. */
static void row_probabilities(rf_model *m, int row, float *probs)
{
    rf_graph *g = m->graph;
    int c = (int)rf_node_shape(g, m->logits).dim[1];
    const float *z = rf_value(g, m->logits) + (size_t)row * c;
    float mx = z[0];
    for (int k = 1; k < c; k++)
        mx = z[k] > mx ? z[k] : mx;
    double se = 0;
    for (int k = 0; k < c; k++)
        se += exp((double)z[k] - mx);
    for (int k = 0; k < c; k++)
        probs[k] = (float)(exp((double)z[k] - mx) / se);
}

static rf_model *single_model(rf_trainer *t, rf_status *st)
{
    const rf_dataset *ds = t->ds;
    if (t->single == NULL)
        t->single = rf_model_new_forward(&t->cfg, 1, ds->seq_len, ds->feat_dim, ds->vocab, ds->classes, ds->grid_h,
                                         ds->grid_w, t->params, st);
    return t->single;
}

bool rf_trainer_inspect_input(rf_trainer *t, const rf_outside_input *in, rf_probe_set *ps, rf_inspection *out,
                              float *probs, rf_status *st)
{
    if (wants_gradient(t->model->graph, ps))
        return rf_fail(st, "an outside input has no label, so it has no gradient; ask for value probes only");
    rf_model *m = rf_trainer_settle(t, st) ? single_model(t, st) : NULL;
    if (m == NULL || !load_inputs(m, in, 1, st))
        return false;
    *out = (rf_inspection){0};
    bool ok = run_inspection(t, m, 0, ps, out, st);
    out->label = -1;
    out->loss = 0;
    if (ok && probs != NULL)
        row_probabilities(m, 0, probs);
    return ok;
}

bool rf_trainer_predict(rf_trainer *t, const rf_outside_input *in, int count, float *probs, rf_status *st)
{
    int longest = 0;
    for (int b = 0; b < count && b < t->model->batch; b++)
        longest = in[b].len > longest ? in[b].len : longest;
    rf_model *m = rf_trainer_model_for(t, longest);
    if (!rf_trainer_settle(t, st) || !load_inputs(m, in, count, st))
        return false;
    rf_exec x;
    rf_exec_init(&x, m->graph, t->pool, t->cfg.train.seed, (uint64_t)t->step, false);
    rf_graph_forward(m->graph, &x);
    int c = (int)rf_node_shape(m->graph, m->logits).dim[1];
    for (int b = 0; b < count; b++)
        row_probabilities(m, b, probs + (size_t)b * c);
    return true;
}
