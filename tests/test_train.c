/* Training: the optimizer against a reference, schedules, clipping, and
 * whole runs on the random and ListOps tasks: loss falls, runs are
 * deterministic, resume equals an uninterrupted run, no allocation after the
 * first step, and a diverging run stops with a clear message. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/alloc.h"
#include "../core/optim.h"
#include "../core/train.h"
#include "../datasets/datasets.h"
#include "tap.h"

static rf_config tiny_config(const char *task)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    strcpy(cfg.data.task, task);
    cfg.data.batch = 8;
    cfg.data.max_len = 24;
    cfg.data.min_len = 4;
    cfg.data.vocab = 8;
    cfg.data.classes = 4;
    cfg.data.train_size = 256;
    cfg.data.val_size = 32;
    cfg.data.test_size = 32;
    cfg.model.dim = 16;
    cfg.model.heads = 2;
    cfg.model.ff = 32;
    cfg.train.steps = 30;
    cfg.train.lr = 3e-3f;
    cfg.train.warmup = 3;
    cfg.train.threads = 2;
    cfg.train.eval_every = 0;
    cfg.train.checkpoint_every = 0;
    cfg.train.seed = 11;
    return cfg;
}

static void test_schedules(void)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    cfg.train.lr = 1.0f;
    cfg.train.steps = 110;
    cfg.train.warmup = 10;
    tap_ok(fabs(rf_schedule_lr(&cfg, 0) - 0.1) < 1e-12, "warm-up starts at lr/warmup");
    tap_ok(fabs(rf_schedule_lr(&cfg, 9) - 1.0) < 1e-12, "warm-up reaches lr");
    tap_ok(fabs(rf_schedule_lr(&cfg, 60) - 0.5) < 1e-12, "linear decay is halfway at the middle");
    strcpy(cfg.train.schedule, "cosine");
    tap_ok(fabs(rf_schedule_lr(&cfg, 60) - 0.5) < 1e-12 && rf_schedule_lr(&cfg, 110) < 1e-12,
           "cosine decay: half at the middle, zero at the end");
    strcpy(cfg.train.schedule, "constant");
    tap_ok(rf_schedule_lr(&cfg, 100) == 1.0, "constant schedule holds lr");
    strcpy(cfg.train.schedule, "step");
    tap_ok(cfg.train.gamma == 0.8f && cfg.train.decay_every == 3000,
           "the step schedule's defaults: gamma 0.8 every 3000 steps (one ListOps epoch)");
    cfg.train.gamma = 0.5f;
    cfg.train.decay_every = 20;
    tap_ok(fabs(rf_schedule_lr(&cfg, 5) - 0.6) < 1e-12 && rf_schedule_lr(&cfg, 10) == 1.0 &&
               rf_schedule_lr(&cfg, 29) == 1.0 && rf_schedule_lr(&cfg, 30) == 0.5 &&
               rf_schedule_lr(&cfg, 69) == 0.25 && rf_schedule_lr(&cfg, 70) == 0.125,
           "step schedule: warm-up, then lr times gamma every decay_every steps after it");
    cfg.train.steps = 50;
    tap_ok(rf_schedule_lr(&cfg, 1000) == pow(0.5, 49),
           "step schedule: keeps decaying past train.steps, unlike linear and cosine (which stop at 0)");
}

/* Parameters the decay rule (docs/configuration.md) sorts, each with the
 * rule's answer: decay applies to tensors of two or more dimensions, except
 * normalisation parameters (a name with a "norm" or ".ln" part). */
static const struct {
    const char *name;
    rf_shape shape;
    bool decayed;
} decay_cases[] = {
    {"layer0.attn.q.weight", {2, {3, 5}}, true},      /* a weight matrix */
    {"layer0.attn.q.bias", {1, {5}}, false},          /* a bias */
    {"layer0.norm1.weight", {1, {5}}, false},         /* a LayerNorm gain */
    {"layer0.ls.ln_local.bias", {1, {3}}, false},     /* a DualLN offset */
    {"embed.tokens", {2, {4, 3}}, true},              /* an embedding table */
    {"embed.cls", {3, {1, 1, 3}}, true},              /* a learned token */
    {"layer0.merge.conv.weight", {3, {2, 1, 3}}, true},
    {"head.norm.weight", {2, {2, 3}}, false},         /* a normalisation parameter of any shape */
};
#define DECAY_CASES (int)(sizeof decay_cases / sizeof decay_cases[0])

/* AdamW against a double-precision reference of PyTorch's update rule,
 * decaying exactly the parameters the rule names. */
static void test_adamw_and_clip(void)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    cfg.train.weight_decay = 0.1f;
    rf_params *p = rf_params_new(1);
    for (int c = 0; c < DECAY_CASES; c++)
        rf_params_register(p, decay_cases[c].name, decay_cases[c].shape, RF_INIT_NORMAL, 1.0f, NULL);
    rf_params_allocate(p, NULL);
    double w[128], m[128] = {0}, v[128] = {0};
    int n = 0;
    for (int e = 0; e < p->count; e++)
        for (int64_t i = 0; i < p->entries[e].numel; i++)
            w[n++] = p->value[p->entries[e].offset + i];
    for (int t = 1; t <= 3; t++) {
        int k = 0;
        for (int e = 0; e < p->count; e++) {
            const rf_param_entry *pe = &p->entries[e];
            for (int64_t i = 0; i < pe->numel; i++, k++) {
                double g = sin(k + 3.0 * t);
                p->grad[pe->offset + i] = (float)g;
                double lr = 1e-2, b1 = cfg.train.beta1, b2 = cfg.train.beta2;
                if (decay_cases[e].decayed)
                    w[k] *= 1 - lr * cfg.train.weight_decay;
                m[k] = b1 * m[k] + (1 - b1) * g;
                v[k] = b2 * v[k] + (1 - b2) * g * g;
                double mh = m[k] / (1 - pow(b1, t)), vh = v[k] / (1 - pow(b2, t));
                w[k] -= lr * mh / (sqrt(vh) + cfg.train.eps);
            }
        }
        rf_adamw_step(p, &cfg, 1e-2, t, NULL);
    }
    for (int e = 0, k = 0; e < p->count; e++) {
        double worst = 0;
        for (int64_t i = 0; i < p->entries[e].numel; i++, k++)
            worst = fmax(worst, fabs(p->value[p->entries[e].offset + i] - w[k]));
        tap_ok(worst < 1e-5, "AdamW matches the reference over 3 steps for %s, %s (max err %g)",
               decay_cases[e].name, decay_cases[e].decayed ? "decayed" : "not decayed", worst);
    }

    for (size_t i = 0; i < p->total; i++)
        p->grad[i] = 0;
    p->grad[0] = 3;
    p->grad[p->entries[1].offset] = 4;
    double norm = rf_grad_norm(p);
    rf_clip_grads(p, norm, 1.0);
    tap_ok(fabs(norm - 5) < 1e-9 && fabs(rf_grad_norm(p) - 1) < 1e-6, "global-norm clipping to 1");
    /* below the limit nothing changes, and a zero gradient stays zero (not 0 * 1/0) */
    p->grad[0] = 0.3f;
    p->grad[p->entries[1].offset] = 0.4f;
    rf_clip_grads(p, rf_grad_norm(p), 1.0);
    tap_ok(p->grad[0] == 0.3f && p->grad[p->entries[1].offset] == 0.4f, "a gradient of norm 0.5 is not clipped to 1");
    for (size_t i = 0; i < p->total; i++)
        p->grad[i] = 0;
    rf_clip_grads(p, 0.0, 1.0);
    tap_ok(rf_grad_norm(p) == 0, "a zero gradient stays zero under clipping");
    rf_params_free(p);
}

typedef struct {
    double loss[1024];
    int n;
    int64_t stop_at;
    rf_trainer *t;
} recorder;

static void record(void *ctx, const rf_metrics *m)
{
    recorder *r = ctx;
    if (m->split == RF_SPLIT_TRAIN && r->n < 1024)
        r->loss[r->n++] = m->loss;
}

static bool stop_early(void *ctx)
{
    recorder *r = ctx;
    return r->stop_at > 0 && rf_trainer_step_count(r->t) >= r->stop_at;
}

/* Train cfg from scratch (or from `resume`) and record every step's loss. */
static bool run(const rf_config *cfg, const char *resume, const char *save, int64_t stop_at, recorder *r,
                rf_status *st)
{
    memset(r, 0, sizeof *r);
    rf_dataset *ds = rf_dataset_open(cfg, st);
    if (ds == NULL)
        return false;
    rf_trainer *t = rf_trainer_new(cfg, ds, st);
    bool ok = t != NULL && (resume == NULL || rf_trainer_load(t, resume, st));
    if (ok) {
        r->t = t;
        r->stop_at = stop_at;
        rf_train_callbacks cb = {.on_metrics = record, .should_stop = stop_early, .ctx = r};
        ok = rf_train_run(t, NULL, &cb, st) && (save == NULL || rf_trainer_save(t, save, st));
    }
    rf_trainer_free(t);
    rf_dataset_free(ds);
    return ok;
}

static double mean(const double *x, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += x[i];
    return s / n;
}

static void test_learning(const char *task, int steps)
{
    rf_config cfg = tiny_config(task);
    cfg.train.steps = steps;
    cfg.train.log_every = 1;
    if (strcmp(task, "listops") == 0) {
        cfg.data.max_len = 60;
        cfg.data.min_len = 10;
        cfg.data.max_depth = 4;
        cfg.data.train_size = 512;
        cfg.data.classes = 10;
    } else {
        cfg.data.train_size = 16;   /* memorise 16 random sequences */
    }
    recorder r;
    rf_status st = {0};
    bool ok = run(&cfg, NULL, NULL, 0, &r, &st);
    if (!tap_ok(ok && r.n == steps, "%s: %d steps run", task, steps)) {
        tap_diag("%s", st.msg);
        return;
    }
    /* random: memorising 16 samples drives the loss well down; listops:
     * within a short run the model must at least beat a uniform guess */
    double first = mean(r.loss, 10), last = mean(r.loss + r.n - 10, 10);
    double target = strcmp(task, "random") == 0 ? 0.6 * first : fmin(0.95 * first, log(cfg.data.classes));
    tap_ok(last < target, "%s: the loss falls (%.3f -> %.3f, needed below %.3f)", task, first, last, target);
}

static void test_determinism_and_resume(void)
{
    rf_config cfg = tiny_config("random");
    cfg.train.log_every = 1;
    cfg.model.dropout = 0.1f;    /* dropout masks must be reproducible too */
    recorder a, b, c;
    rf_status st = {0};
    bool ok = run(&cfg, NULL, NULL, 0, &a, &st) && run(&cfg, NULL, NULL, 0, &b, &st);
    tap_ok(ok && a.n == b.n && memcmp(a.loss, b.loss, sizeof a.loss) == 0,
           "two runs with the same seed and threads give identical losses");

    char path[] = "/tmp/rf-test-resume-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    ok = run(&cfg, NULL, path, 12, &b, &st) && run(&cfg, path, NULL, 0, &c, &st);
    bool same = ok && b.n == 12 && b.n + c.n == a.n && memcmp(b.loss, a.loss, 12 * sizeof(double)) == 0 &&
                memcmp(c.loss, a.loss + 12, (size_t)c.n * sizeof(double)) == 0;
    if (!tap_ok(same, "stop at step 12, save, resume: the losses equal the uninterrupted run"))
        tap_diag("%s (runs %d + %d of %d)", st.msg, b.n, c.n, a.n);
    unlink(path);
}

/* train --init: a new trainer from a checkpoint's weights has them bit for
 * bit, zero AdamW moments and step 0 (rf_trainer_load keeps all three). */
static void test_init_weights(void)
{
    rf_config cfg = tiny_config("random");
    recorder r;
    rf_status st = {0};
    char path[] = "/tmp/rf-test-init-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    bool ok = run(&cfg, NULL, path, 12, &r, &st);
    rf_dataset *ds = ok ? rf_dataset_open(&cfg, &st) : NULL;
    rf_trainer *init = ds != NULL ? rf_trainer_new(&cfg, ds, &st) : NULL;
    rf_trainer *loaded = init != NULL ? rf_trainer_new(&cfg, ds, &st) : NULL;
    rf_trainer *fresh = loaded != NULL ? rf_trainer_new(&cfg, ds, &st) : NULL;
    ok = fresh != NULL && rf_trainer_init_weights(init, path, &st) && rf_trainer_load(loaded, path, &st);
    if (!tap_ok(ok, "a 12-step checkpoint loads into new trainers")) {
        tap_diag("%s", st.msg);
    } else {
        const rf_params *a = rf_trainer_params(init), *b = rf_trainer_params(loaded), *c = rf_trainer_params(fresh);
        size_t bytes = a->total * sizeof(float), zero_m = 0, zero_v = 0, loaded_m = 0;
        for (size_t i = 0; i < a->total; i++) {
            zero_m += a->m[i] == 0.0f;
            zero_v += a->v[i] == 0.0f;
            loaded_m += b->m[i] != 0.0f;
        }
        tap_ok(memcmp(a->value, b->value, bytes) == 0 && memcmp(a->value, c->value, bytes) != 0,
               "--init: the checkpoint's weights bit for bit (not the new trainer's own initialisation)");
        tap_ok(zero_m == a->total && zero_v == a->total && loaded_m > 0,
               "--init: AdamW moments zero (%zu and %zu of %zu), where --resume keeps them (%zu non-zero)", zero_m,
               zero_v, a->total, loaded_m);
        tap_ok(rf_trainer_step_count(init) == 0 && rf_trainer_step_count(loaded) == 12,
               "--init starts at step 0 (%lld), --resume at the checkpoint's (%lld)",
               (long long)rf_trainer_step_count(init), (long long)rf_trainer_step_count(loaded));
    }
    rf_trainer_free(fresh);
    rf_trainer_free(loaded);
    rf_trainer_free(init);
    rf_dataset_free(ds);
    unlink(path);
}

static void test_no_allocation_in_step(void)
{
    rf_config cfg = tiny_config("random");
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    rf_trainer *t = rf_trainer_new(&cfg, ds, &st);
    rf_metrics m;
    rf_trainer_step(t, &m, &st);
    size_t live = rf_alloc_live_bytes();
    rf_alloc_reset_peak();
    for (int i = 0; i < 5; i++)
        rf_trainer_step(t, &m, &st);
    tap_ok(rf_alloc_live_bytes() == live && rf_alloc_peak_bytes() == live,
           "steps after the first allocate nothing in the engine");
    rf_trainer_free(t);
    rf_dataset_free(ds);
}

/* A weight gone bad (as after a diverging update) must stop the step with
 * a message, before the optimizer touches anything. */
static void test_non_finite_stops(void)
{
    rf_config cfg = tiny_config("random");
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    rf_trainer *t = rf_trainer_new(&cfg, ds, &st);
    rf_metrics m;
    rf_trainer_step(t, &m, &st);
    rf_params *p = rf_trainer_model(t)->params;
    p->value[p->entries[rf_params_find(p, "head.fc.weight")].offset] = NAN;
    float m0 = p->m[0];
    bool ok = rf_trainer_step(t, &m, &st);
    tap_ok(!ok && strstr(st.msg, "step 2") != NULL && strstr(st.msg, "NaN") != NULL,
           "a NaN loss stops the step with a message naming it (%s)", st.msg);
    tap_ok(rf_trainer_step_count(t) == 1 && p->m[0] == m0, "the failed step changed nothing");
    rf_trainer_free(t);
    rf_dataset_free(ds);
}

/* Inspecting between steps fills the probes for the chosen sample and
 * leaves training exactly as it was. */
static void test_inspect_leaves_training_unchanged(void)
{
    rf_config cfg = tiny_config("random");
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    rf_trainer *a = rf_trainer_new(&cfg, ds, &st), *b = rf_trainer_new(&cfg, ds, &st);
    rf_metrics ma, mb;
    bool same = true;
    rf_graph *g = rf_trainer_model(b)->graph;
    const char *names[] = {"layer0.attn.probs", "blrp.none"};
    rf_probe_set *bad = rf_probe_set_new(g, names, 2, 0, &st);
    tap_ok(bad == NULL && strstr(st.msg, "blrp.none") != NULL, "an unknown tap is refused by name (%s)", st.msg);
    rf_probe_set *ps = rf_probe_set_new(g, names, 1, 0, &st);
    rf_inspection r = {0};
    bool inspected = true;
    for (int i = 0; i < 4; i++) {
        same &= rf_trainer_step(a, &ma, &st) && rf_trainer_step(b, &mb, &st) && ma.loss == mb.loss;
        inspected &= rf_trainer_inspect(b, RF_SPLIT_VAL, 11, ps, &r, &st);
    }
    tap_ok(same && inspected, "steps interleaved with inspections give the same losses");
    rf_status_clear(&st);
    /* Sample 11 is row 11 % 8 = 3 of evaluation batch 1; its attention rows
     * over the valid keys sum to one. */
    const rf_probe_value *v = &ps->values[0];
    int64_t n = v->shape.dim[2];
    double worst = 0;
    for (int64_t row = 0; row < v->shape.dim[0] * n; row++) {
        double sum = 0;
        for (int64_t j = 0; j < n; j++)
            sum += v->data[row * n + j];
        worst = fmax(worst, fabs(sum - 1));
    }
    tap_ok(v->filled && r.batch_index == 1 && r.row == 3 && ps->sample == 3 && worst < 1e-5 && r.loss > 0,
           "the probe holds sample 11's attention (batch 1 row 3; rows sum to 1 within %.1g)", worst);
    tap_ok(!rf_trainer_inspect(b, RF_SPLIT_VAL, ds->size[RF_SPLIT_VAL], ps, &r, &st) && strstr(st.msg, "out of range"),
           "a sample past the split is refused (%s)", st.msg);
    rf_probe_set_free(ps);
    rf_trainer_free(a);
    rf_trainer_free(b);
    rf_dataset_free(ds);
}

/* An outside input (here a data set sample taken out with get()) inspected
 * alone in a batch of padding gives the probes and prediction it has
 * inside its evaluation batch; predict batches several and agrees. */
static void test_inspect_outside_input(void)
{
    rf_config cfg = tiny_config("random");
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    rf_trainer *t = rf_trainer_new(&cfg, ds, &st);
    rf_metrics m;
    for (int i = 0; i < 3; i++)
        rf_trainer_step(t, &m, &st);
    rf_graph *g = rf_trainer_model(t)->graph;
    const char *names[] = {"layer0.attn.probs"};
    rf_probe_set *inside = rf_probe_set_new(g, names, 1, 0, &st), *outside = rf_probe_set_new(g, names, 1, 0, &st);
    int classes = ds->classes, batch = rf_trainer_model(t)->batch;
    float *x = calloc((size_t)3 * ds->seq_len, sizeof *x), *probs = calloc((size_t)4 * classes, sizeof *probs);
    rf_outside_input in[3];
    for (int k = 0; k < 3; k++) {
        int label;
        ds->get(ds, RF_SPLIT_VAL, 9 + k, x + (size_t)k * ds->seq_len, &in[k].len, &label, &st);
        in[k].x = x + (size_t)k * ds->seq_len;
    }
    rf_inspection ri, ro;
    bool ok = rf_trainer_inspect(t, RF_SPLIT_VAL, 11, inside, &ri, &st) &&
              rf_trainer_inspect_input(t, &in[2], outside, &ro, probs + 3 * classes, &st);
    double diff = 0, sum = 0;
    int best = 0;
    for (int64_t i = 0; ok && i < rf_shape_numel(inside->values[0].shape); i++)
        diff = fmax(diff, fabs(inside->values[0].data[i] - outside->values[0].data[i]));
    for (int k = 0; k < classes; k++) {
        sum += probs[3 * classes + k];
        best = probs[3 * classes + k] > probs[3 * classes + best] ? k : best;
    }
    tap_ok(ok && diff < 1e-5 && ro.predicted == ri.predicted && best == ro.predicted && fabs(sum - 1) < 1e-5 &&
               ro.label == -1 && outside->sample == 0,
           "an outside input gives its sample's attention (within %.1g) and prediction %d, probabilities summing "
           "to 1 (%s)", diff, ro.predicted, st.msg);
    ok = rf_trainer_predict(t, in, 3, probs, &st);
    diff = 0;
    for (int k = 0; k < classes; k++)
        diff = fmax(diff, fabs(probs[2 * classes + k] - probs[3 * classes + k]));
    tap_ok(ok && diff < 1e-5, "predict on 3 inputs at once agrees with inspection of the third (within %.1g)", diff);
    rf_outside_input many[64];
    for (int k = 0; k < 64; k++)
        many[k] = in[0];
    tap_ok(!rf_trainer_predict(t, many, batch + 1, probs, &st) && strstr(st.msg, "takes 1 to") != NULL,
           "more inputs than the batch are refused (%s)", st.msg);
    rf_status_clear(&st);
    rf_outside_input longer = {x, ds->seq_len + 1};
    tap_ok(!rf_trainer_predict(t, &longer, 1, probs, &st) && strstr(st.msg, "positions") != NULL,
           "an input longer than seq_len is refused (%s)", st.msg);
    rf_status_clear(&st);
    /* BLRP has gradient taps (the latent states' gradients) */
    rf_config blrp_cfg = cfg;
    strcpy(blrp_cfg.model.encoder, "blrp");
    rf_trainer *tb = rf_trainer_new(&blrp_cfg, ds, &st);
    rf_graph *gb = tb != NULL ? rf_trainer_model(tb)->graph : NULL;
    const char *grad_name = NULL;
    for (int i = 0; gb != NULL && i < rf_tap_count(gb) && grad_name == NULL; i++)
        if (rf_tap_get(gb, i)->what == RF_TAP_GRAD)
            grad_name = rf_tap_get(gb, i)->name;
    rf_probe_set *grads = grad_name != NULL ? rf_probe_set_new(gb, &grad_name, 1, 0, &st) : NULL;
    tap_ok(grads != NULL && !rf_trainer_inspect_input(tb, &in[0], grads, &ro, NULL, &st) &&
               strstr(st.msg, "no label") != NULL,
           "a gradient probe (%s) of an outside input is refused (%s)", grad_name, st.msg);
    rf_trainer_free(tb);
    rf_probe_set_free(grads);

    /* the same weights in a forward-only build: the same answers from a smaller arena */
    char *path = g_build_filename(g_get_tmp_dir(), "rf-forward-XXXXXX.safetensors", NULL);
    int fd = g_mkstemp(path);
    close(fd);
    rf_status_clear(&st);
    rf_trainer *f = rf_trainer_new_forward(&cfg, ds, &st);
    bool loaded = f != NULL && rf_trainer_save(t, path, &st) && rf_trainer_load(f, path, &st);
    float *fprobs = calloc((size_t)4 * classes, sizeof *fprobs);
    rf_probe_set *fps = loaded ? rf_probe_set_new(rf_trainer_model(f)->graph, names, 1, 0, &st) : NULL;
    bool same = loaded && rf_trainer_predict(f, in, 3, fprobs, &st) && rf_trainer_predict(t, in, 3, probs, &st) &&
                memcmp(fprobs, probs, (size_t)3 * classes * sizeof *probs) == 0 &&
                rf_trainer_inspect_input(f, &in[2], fps, &ro, NULL, &st) &&
                rf_trainer_inspect_input(t, &in[2], outside, &ri, NULL, &st) &&
                memcmp(fps->values[0].data, outside->values[0].data,
                       (size_t)rf_shape_numel(outside->values[0].shape) * sizeof(float)) == 0;
    size_t fa = loaded ? rf_trainer_plan(f)->activations : 0, ta = rf_trainer_plan(t)->activations;
    tap_ok(same && fa < ta, "a forward-only build gives the same probabilities and probes bit for bit from %zu of "
           "the training arena's %zu bytes (%s)", fa, ta, st.msg);
    rf_status_clear(&st);
    tap_ok(loaded && !rf_trainer_step(f, &m, &st) && strstr(st.msg, "inference only") != NULL,
           "a forward-only build refuses to train (%s)", st.msg);
    rf_probe_set_free(fps);
    free(fprobs);
    rf_trainer_free(f);
    g_remove(path);
    g_free(path);
    free(x);
    free(probs);
    rf_probe_set_free(inside);
    rf_probe_set_free(outside);
    rf_trainer_free(t);
    rf_dataset_free(ds);
}

/* Every encoder built forward-only predicts what its training build does,
 * bit for bit (the same seed gives the same initial weights), from a
 * smaller activation arena. */
static void test_forward_only_encoders(void)
{
    static const char *const encoders[] = {"full", "ls", "linear", "talk", "blrp", "maelre"};
    rf_config cfg = tiny_config("random");
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    float *x = calloc((size_t)ds->seq_len, sizeof *x);
    int len = 0, label = 0;
    ds->get(ds, RF_SPLIT_TEST, 5, x, &len, &label, &st);
    rf_outside_input in = {x, len};
    for (size_t e = 0; e < sizeof encoders / sizeof encoders[0]; e++) {
        rf_config c = cfg;
        strcpy(c.model.encoder, encoders[e]);
        rf_status_clear(&st);
        rf_trainer *t = rf_trainer_new(&c, ds, &st), *f = t != NULL ? rf_trainer_new_forward(&c, ds, &st) : NULL;
        float a[8], b[8];
        bool same = f != NULL && rf_trainer_predict(t, &in, 1, a, &st) && rf_trainer_predict(f, &in, 1, b, &st) &&
                    memcmp(a, b, (size_t)ds->classes * sizeof *a) == 0;
        size_t fa = f != NULL ? rf_trainer_plan(f)->activations : 0;
        size_t ta = t != NULL ? rf_trainer_plan(t)->activations : 0;
        tap_ok(same && fa < ta, "%s built forward-only: the same probabilities, %zu of %zu activation bytes%s%s",
               encoders[e], fa, ta, st.failed ? ": " : "", st.msg);
        rf_trainer_free(t);
        rf_trainer_free(f);
    }
    free(x);
    rf_dataset_free(ds);
}

/* The inference plan (`memory --inference`) of every encoder: strictly
 * smaller than the training plan, no gradient or optimizer bytes, and
 * exactly what rf_trainer_new_forward allocates, evaluation included. */
static void test_inference_plan(void)
{
    static const char *const encoders[] = {"full", "ls", "linear", "talk", "blrp", "maelre"};
    rf_config cfg = tiny_config("random");
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    for (size_t e = 0; e < sizeof encoders / sizeof encoders[0]; e++) {
        rf_config c = cfg;
        strcpy(c.model.encoder, encoders[e]);
        rf_status_clear(&st);
        rf_memory_plan train = {0}, infer = {0};
        bool planned = rf_memory_plan_compute(&c, ds->seq_len, ds->feat_dim, ds->vocab, ds->classes, &train, &st) &&
                       rf_memory_plan_inference(&c, ds->seq_len, ds->feat_dim, ds->vocab, ds->classes, 0, 0, &infer,
                                                &st);
        tap_ok(planned && infer.grads == 0 && infer.optimizer == 0 && infer.params == train.params &&
                   infer.activations < train.activations && infer.total < train.total,
               "%s: the inference plan holds no grads or moments and is smaller (%zu of %zu bytes)%s%s", encoders[e],
               infer.total, train.total, st.failed ? ": " : "", st.msg);
        size_t before = rf_alloc_live_bytes();
        rf_alloc_reset_peak();
        rf_trainer *f = planned ? rf_trainer_new_forward(&c, ds, &st) : NULL;
        rf_metrics m;
        bool ran = f != NULL && rf_trainer_evaluate(f, RF_SPLIT_TEST, 0, &m, &st);
        size_t peak = rf_alloc_peak_bytes() - before;
        tap_ok(ran && peak == infer.total && rf_trainer_plan(f)->total == infer.total,
               "%s: rf_trainer_new_forward allocates exactly the inference plan, %zu bytes (peak %zu)%s%s",
               encoders[e], infer.total, peak, st.failed ? ": " : "", st.msg);
        rf_trainer_free(f);
    }
    rf_dataset_free(ds);
}

int main(void)
{
    test_schedules();
    test_adamw_and_clip();
    test_learning("random", 60);
    test_learning("listops", 1000);
    test_determinism_and_resume();
    test_init_weights();
    test_no_allocation_in_step();
    test_non_finite_stops();
    test_inspect_outside_input();
    test_forward_only_encoders();
    test_inference_plan();
    test_inspect_leaves_training_unchanged();
    return tap_done();
}
