/* Attribution through the trainer's parameters (core/attribution.h): the
 * input, its baseline, interpolated or occluded copies as rows of one
 * batch of the attribution model, forward and backward from the target
 * logit. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attribution.h"
#include "train_private.h"

/* The rows the first batch reserves for the input and the baseline. */
#define SCORED_ROWS 2

static const char *const method_names[RF_ATTR_METHODS] = {"grad", "grad-input", "ig", "occlusion"};

const char *rf_attr_method_name(rf_attr_method m)
{
    return m >= 0 && m < RF_ATTR_METHODS ? method_names[m] : "?";
}

bool rf_attr_method_parse(const char *name, rf_attr_method *out)
{
    for (int m = 0; m < RF_ATTR_METHODS; m++)
        if (strcmp(name, method_names[m]) == 0) {
            *out = (rf_attr_method)m;
            return true;
        }
    return false;
}

void rf_attribution_clear(rf_attribution *a)
{
    free(a->values);
    a->values = NULL;
}

int rf_trainer_attribution_width(const rf_trainer *t)
{
    return t->ds->feat_dim > 0 ? t->ds->feat_dim : t->cfg.model.dim;
}

/* The attribution model: with `one_row`, of a single row (gradient and
 * gradient x input need the input's pass only); otherwise two rows more
 * than a batch, for the input and its baseline (see job). Each is planned
 * at its first use and kept. */
static rf_model *attr_model(rf_trainer *t, bool one_row, rf_status *st)
{
    rf_model **kept = one_row ? &t->attr_one : &t->attr;
    if (*kept != NULL)
        return *kept;
    if (rf_graph_backend(t->model->graph)->upload != NULL) {
        rf_fail(st, "attribution runs on the CPU only: this model is on train.device = %s (--set train.device=cpu)",
                t->cfg.train.device);
        return NULL;
    }
    const rf_dataset *ds = t->ds;
    int batch = one_row ? 1 : t->model->batch + SCORED_ROWS;
    *kept = rf_model_new_attribution(&t->cfg, batch, ds->seq_len, ds->feat_dim, ds->vocab, ds->classes, ds->grid_h,
                                     ds->grid_w, t->params, st);
    return *kept;
}

bool rf_trainer_attribution_input(rf_trainer *t, const rf_outside_input *in, const float *baseline, float *x,
                                  float *base, rf_status *st)
{
    const rf_dataset *ds = t->ds;
    int n = ds->seq_len, w = rf_trainer_attribution_width(t);
    if (in->len < 1 || in->len > n)
        return rf_fail(st, "the input has %d positions; the model takes 1 to %d", in->len, n);
    if (!rf_trainer_settle(t, st))
        return false;
    if (ds->feat_dim > 0) {
        memset(x, 0, (size_t)n * w * sizeof *x);
        memcpy(x, in->x, (size_t)in->len * w * sizeof *x);
        memcpy(base, x, (size_t)n * w * sizeof *x);   /* padding as the input's */
        for (size_t i = 0; i < (size_t)in->len * w; i++)
            base[i] = baseline != NULL ? baseline[i] : 0.0f;
        return true;
    }
    int table = rf_params_find(t->params, "embed.tokens");
    if (table < 0)
        return rf_fail(st, "the model has no token embedding table (embed.tokens)");
    const float *rows = t->params->value + t->params->entries[table].offset;
    int64_t vocab = t->params->entries[table].numel / w;
    for (int p = 0; p < n; p++) {
        int id = p < in->len ? (int)in->x[p] : 0;   /* a batch pads with id 0 */
        if (id < 0 || id >= vocab)
            return rf_fail(st, "token %d at position %d is outside the vocabulary (0..%lld)", id, p + 1,
                           (long long)vocab - 1);
        memcpy(x + (size_t)p * w, rows + (size_t)id * w, (size_t)w * sizeof *x);
        memcpy(base + (size_t)p * w, rows, (size_t)w * sizeof *base);   /* the padding token, id 0 */
    }
    return true;
}

/* Rows 0..count-1 of the attribution model from `rows` (count x seq_len x
 * width, each with `len` valid positions) forward, their logits into
 * `logits` (count x classes). Unused rows repeat the last row. */
static void forward_rows(rf_trainer *t, rf_model *m, rf_exec *ex, const float *rows, int count, int len,
                         float *logits)
{
    rf_graph *g = m->graph;
    size_t row = (size_t)m->seq_len * rf_trainer_attribution_width(t);
    int c = (int)rf_node_shape(g, m->logits).dim[1];
    float *x = rf_value(g, m->x), *mask = rf_value(g, m->mask);
    for (int b = 0; b < m->batch; b++) {
        int from = b < count ? b : count - 1;
        memcpy(x + (size_t)b * row, rows + (size_t)from * row, row * sizeof *x);
        for (int p = 0; p < m->seq_len; p++)
            mask[(size_t)b * m->seq_len + p] = p < len ? 1.0f : 0.0f;
    }
    memset(rf_value(g, m->labels), 0, (size_t)m->batch * sizeof(float));
    rf_exec_init(ex, g, t->pool, t->cfg.train.seed, (uint64_t)t->step, false);
    rf_graph_forward(g, ex);
    memcpy(logits, rf_value(g, m->logits), (size_t)count * c * sizeof *logits);
}

bool rf_trainer_attribution_logits(rf_trainer *t, const float *x, int count, int len, float *logits, rf_status *st)
{
    rf_model *m = rf_trainer_settle(t, st) ? attr_model(t, false, st) : NULL;
    if (m == NULL)
        return false;
    size_t row = (size_t)m->seq_len * rf_trainer_attribution_width(t);
    int c = t->ds->classes;
    rf_exec ex;
    for (int done = 0; done < count; done += m->batch) {
        int k = count - done < m->batch ? count - done : m->batch;
        forward_rows(t, m, &ex, x + done * row, k, len, logits + (size_t)done * c);
    }
    return true;
}

/* The work of one attribution: the model, its input and baseline, and
 * the batch's rows. The first batch also carries the input (row 0), which
 * scores the target (the predicted class when none is asked for), and,
 * except for gradient and gradient x input's one-row model, the baseline
 * (row 1): that model has two rows more than the trainer's batch for
 * them, so that integrated gradients' steps fill whole batches. */
typedef struct job {
    rf_trainer *t;
    rf_model *m;
    int n, w, len, classes, target;
    bool scored;
    size_t row;
    const float *x, *base;
    float *rows, *grads, *logits, *seed;
    rf_attribution *out;
} job;

/* One batch of `count` rows already in j->rows: forward; the target and
 * its logits at the input and the baseline from the first batch; with
 * seed_to > seed_from, backward from the target logit of rows [seed_from,
 * seed_to), their input gradients into j->grads (layout of j->rows). */
static void pass(job *j, int count, int seed_from, int seed_to)
{
    rf_model *m = j->m;
    rf_exec ex;
    forward_rows(j->t, m, &ex, j->rows, count, j->len, j->logits);
    if (!j->scored) {
        const float *z = j->logits;
        int best = 0;
        for (int k = 1; k < j->classes; k++)
            best = z[k] > z[best] ? k : best;
        j->out->predicted = best;
        j->target = j->out->target = j->target >= 0 ? j->target : best;
        j->out->fx = z[j->target];
        j->out->fbase = j->m->batch >= SCORED_ROWS ? z[j->classes + j->target] : NAN;
        j->scored = true;
    }
    if (seed_to <= seed_from)
        return;
    memset(j->seed, 0, (size_t)m->batch * j->classes * sizeof *j->seed);
    for (int b = seed_from; b < seed_to; b++)
        j->seed[(size_t)b * j->classes + j->target] = 1.0f;
    rf_graph_backward(m->graph, &ex, j->seed);
    memcpy(j->grads, rf_grad(m->graph, m->x), (size_t)count * j->row * sizeof *j->grads);
}

/* The first batch's reserved rows: the input and the baseline. Returns
 * the first free row. */
static int reserve(job *j)
{
    memcpy(j->rows, j->x, j->row * sizeof(float));
    memcpy(j->rows + j->row, j->base, j->row * sizeof(float));
    return SCORED_ROWS;
}

/* grad and grad-input: the input's gradient, the one row's. */
static void gradient(job *j, bool times_input, float *values)
{
    memcpy(j->rows, j->x, j->row * sizeof(float));
    pass(j, 1, 0, 1);
    for (int p = 0; p < j->len; p++) {
        double s = 0;
        for (int i = p * j->w; i < (p + 1) * j->w; i++)
            s += times_input ? (double)j->grads[i] * (j->x[i] - j->base[i]) : (double)j->grads[i] * j->grads[i];
        values[p] = (float)(times_input ? s : sqrt(s));
    }
}

/* ig: `steps` points on the path from base to x, batch after batch; the
 * average gradient dotted with x - base. */
static void integrated_gradients(job *j, int steps, float *values)
{
    double *total = calloc(j->row, sizeof *total);
    for (int done = 0; done < steps;) {
        int first = done == 0 ? reserve(j) : 0;
        int k = steps - done < j->m->batch - first ? steps - done : j->m->batch - first;
        for (int r = 0; r < k; r++) {
            float alpha = (float)((done + r + 0.5) / steps);
            float *dst = j->rows + (first + r) * j->row;
            for (size_t i = 0; i < j->row; i++)
                dst[i] = j->base[i] + alpha * (j->x[i] - j->base[i]);
        }
        pass(j, first + k, first, first + k);
        for (int r = first; r < first + k; r++)
            for (size_t i = 0; i < j->row; i++)
                total[i] += j->grads[r * j->row + i];
        done += k;
    }
    for (int p = 0; p < j->len; p++) {
        double s = 0;
        for (int i = p * j->w; i < (p + 1) * j->w; i++)
            s += total[i] / steps * (j->x[i] - j->base[i]);
        values[p] = (float)s;
    }
    free(total);
}

/* The occlusion windows: `size` positions every `stride`, or size x size
 * squares every `stride` rows and columns on a grid (grid_w > 0), `across`
 * to a row of the grid; `count` of them. */
typedef struct windows {
    int grid_h, grid_w, size, stride, across, count;
} windows;

static windows windows_of(const rf_dataset *ds, int len, int size, int stride)
{
    windows v = {0, 0, size, stride, 0, 0};
    if (ds->grid_h > 0 && ds->grid_w > 1 && ds->grid_h * ds->grid_w == len) {
        v.grid_h = ds->grid_h;
        v.grid_w = ds->grid_w;
        int down = (v.grid_h - 1) / stride + 1;
        v.across = (v.grid_w - 1) / stride + 1;
        v.count = down * v.across;
    } else {
        v.count = (len - 1) / stride + 1;
    }
    return v;
}

/* Whether position p lies in window `k` of v. */
static bool covers(const windows *v, int k, int p)
{
    if (v->grid_w == 0) {
        int first = k * v->stride;
        return p >= first && p < first + v->size;
    }
    int r0 = k / v->across * v->stride, c0 = k % v->across * v->stride;
    int r = p / v->grid_w, c = p % v->grid_w;
    return r >= r0 && r < r0 + v->size && c >= c0 && c < c0 + v->size;
}

static void occlusion(job *j, const rf_attr_request *r, float *values)
{
    windows v = windows_of(j->t->ds, j->len, r->window, r->stride);
    double *drop = calloc((size_t)j->len, sizeof *drop);
    int *hits = calloc((size_t)j->len, sizeof *hits);
    for (int done = 0; done < v.count;) {
        int first = done == 0 ? reserve(j) : 0;
        int k = v.count - done < j->m->batch - first ? v.count - done : j->m->batch - first;
        for (int b = 0; b < k; b++) {
            float *dst = j->rows + (first + b) * j->row;
            memcpy(dst, j->x, j->row * sizeof *dst);
            for (int p = 0; p < j->len; p++)
                if (covers(&v, done + b, p))
                    memcpy(dst + (size_t)p * j->w, j->base + (size_t)p * j->w, (size_t)j->w * sizeof *dst);
        }
        pass(j, first + k, 0, 0);
        for (int b = 0; b < k; b++)
            for (int p = 0; p < j->len; p++)
                if (covers(&v, done + b, p)) {
                    drop[p] += j->out->fx - j->logits[(size_t)(first + b) * j->classes + j->target];
                    hits[p]++;
                }
        done += k;
    }
    for (int p = 0; p < j->len; p++)
        values[p] = hits[p] > 0 ? (float)(drop[p] / hits[p]) : 0.0f;
    free(drop);
    free(hits);
}

static bool check_request(const rf_attr_request *r, int classes, rf_status *st)
{
    if (r->method < 0 || r->method >= RF_ATTR_METHODS)
        return rf_fail(st, "unknown attribution method %d", (int)r->method);
    if (r->target < -1 || r->target >= classes)
        return rf_fail(st, "class %d is out of range: the model has classes 0..%d", r->target, classes - 1);
    if (r->method == RF_ATTR_IG && r->steps < 1)
        return rf_fail(st, "integrated gradients need at least 1 step (got %d)", r->steps);
    if (r->method == RF_ATTR_OCCLUSION && (r->window < 1 || r->stride < 1))
        return rf_fail(st, "occlusion needs a window and a stride of at least 1 (got %d and %d)", r->window,
                       r->stride);
    return true;
}

bool rf_trainer_attribute(rf_trainer *t, const rf_outside_input *in, const rf_attr_request *r, rf_attribution *out,
                          rf_status *st)
{
    *out = (rf_attribution){.completeness = NAN};
    const rf_dataset *ds = t->ds;
    if (!check_request(r, ds->classes, st))
        return false;
    bool one_row = r->method == RF_ATTR_GRAD || r->method == RF_ATTR_GRAD_INPUT;
    rf_model *m = rf_trainer_settle(t, st) ? attr_model(t, one_row, st) : NULL;
    if (m == NULL)
        return false;
    job j = {.t = t, .m = m, .n = ds->seq_len, .w = rf_trainer_attribution_width(t), .len = in->len,
             .classes = ds->classes, .target = r->target, .out = out};
    j.row = (size_t)j.n * j.w;
    float *x = malloc(j.row * sizeof *x), *base = malloc(j.row * sizeof *base);
    j.rows = malloc((size_t)m->batch * j.row * sizeof *j.rows);
    j.grads = malloc((size_t)m->batch * j.row * sizeof *j.grads);
    j.logits = malloc((size_t)m->batch * j.classes * sizeof *j.logits);
    j.seed = malloc((size_t)m->batch * j.classes * sizeof *j.seed);
    out->values = calloc((size_t)in->len, sizeof *out->values);
    bool ok = x != NULL && base != NULL && j.rows != NULL && j.grads != NULL && j.logits != NULL &&
              j.seed != NULL && out->values != NULL;
    if (!ok)
        rf_fail(st, "out of memory for an attribution of %d positions", in->len);
    ok = ok && rf_trainer_attribution_input(t, in, r->baseline, x, base, st);
    if (ok) {
        j.x = x;
        j.base = base;
        out->len = in->len;
        if (r->method == RF_ATTR_IG)
            integrated_gradients(&j, r->steps, out->values);
        else if (r->method == RF_ATTR_OCCLUSION)
            occlusion(&j, r, out->values);
        else
            gradient(&j, r->method == RF_ATTR_GRAD_INPUT, out->values);
        for (int p = 0; p < in->len; p++)
            out->sum += out->values[p];
        if (r->method == RF_ATTR_IG)
            out->completeness = fabs(out->sum - (out->fx - out->fbase));
    }
    free(x);
    free(base);
    free(j.rows);
    free(j.grads);
    free(j.logits);
    free(j.seed);
    if (!ok)
        rf_attribution_clear(out);
    return ok;
}
