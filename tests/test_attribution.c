/* Attribution (core/attribution.h) on tiny models of every encoder, for
 * token inputs and for features on a grid:
 *   - gradient and gradient x input against central finite differences
 *     of the target logit along each input coordinate;
 *   - occlusion against explicit forward passes of the occluded inputs
 *     through the ordinary inference path (a batch-1 model on token ids or
 *     features, its "logits" tap), windows recomputed here;
 *   - integrated gradients' completeness within 1% of F(x) - F(baseline)
 *     at 64 steps, and a smaller error at 64 steps than at 8, with the
 *     parameters and a paused training's pending gradients untouched;
 *   - bad requests refused with a sentence;
 *   - with the argument "planted" instead: a planted cause. Trained on
 *     tokens whose label is the token at one fixed position, every encoder
 *     puts at least 80% of its integrated gradients' mass (sum of |values|)
 *     on that position. Six trainings of 2,000 steps: tests/meson.build runs
 *     it in unsanitised builds only (it took minutes under ASan). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/attribution.h"
#include "../core/params.h"
#include "../core/probe.h"
#include "tap.h"

#define LEN 12
#define VOCAB 8
#define CLASSES 3
#define GRID 4          /* features: a 4 x 4 grid of 2 features */
#define FEATURES 2

static const char *const encoders[] = {"full", "ls", "talk", "linear", "maelre", "blrp"};

static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Tokens in [1, VOCAB); sample i has LEN - i % 3 of them (padding masked). */
static bool tokens_get(const rf_dataset *ds, rf_split split, int64_t i, float *x, int *len, int *label, rf_status *st)
{
    (void)ds, (void)st;
    *len = LEN - (int)(i % 3);
    for (int p = 0; p < *len; p++)
        x[p] = (float)(1 + mix((uint64_t)split * 7919 + (uint64_t)i * 131 + (uint64_t)p) % (VOCAB - 1));
    *label = (int)(mix((uint64_t)i) % CLASSES);
    return true;
}

/* Features in [-1, 1] on the whole grid. */
static bool features_get(const rf_dataset *ds, rf_split split, int64_t i, float *x, int *len, int *label,
                         rf_status *st)
{
    (void)ds, (void)st;
    *len = GRID * GRID;
    for (int k = 0; k < GRID * GRID * FEATURES; k++)
        x[k] = (float)(mix((uint64_t)split * 7919 + (uint64_t)i * 131 + (uint64_t)k) % 2001) / 1000.0f - 1.0f;
    *label = (int)(mix((uint64_t)i) % CLASSES);
    return true;
}

static rf_dataset dataset(bool features)
{
    rf_dataset ds = {.name = "attribution_test", .size = {16, 8, 8}, .classes = CLASSES};
    if (features) {
        ds.seq_len = GRID * GRID;
        ds.feat_dim = FEATURES;
        ds.grid_h = ds.grid_w = GRID;
        ds.get = features_get;
    } else {
        ds.seq_len = LEN;
        ds.vocab = VOCAB;
        ds.get = tokens_get;
    }
    return ds;
}

static rf_config config(const char *encoder)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    cfg.data.batch = 4;          /* smaller than the steps and windows: several batches */
    cfg.model.dim = 8;
    cfg.model.heads = 2;
    cfg.model.ff = 16;
    cfg.model.layers = 1;
    cfg.model.segment = 4;       /* blrp: three segments */
    cfg.train.threads = 2;
    cfg.train.seed = 11;
    strcpy(cfg.model.encoder, encoder);
    return cfg;
}

typedef struct fixture {
    rf_dataset ds;
    rf_trainer *t;
    float x[GRID * GRID * FEATURES > LEN ? GRID * GRID * FEATURES : LEN];
    rf_outside_input in;
    const char *what;
} fixture;

/* A trainer on the data set and sample 1 of its test split (a token
 * sample one position short of full). */
static bool open_fixture(fixture *f, const char *encoder, bool features)
{
    f->ds = dataset(features);
    f->what = features ? "features" : "tokens";
    rf_config cfg = config(encoder);
    rf_status st = {0};
    f->t = rf_trainer_new(&cfg, &f->ds, &st);
    int label;
    memset(f->x, 0, sizeof f->x);
    f->in.x = f->x;
    if (f->t == NULL || !f->ds.get(&f->ds, RF_SPLIT_TEST, 1, f->x, &f->in.len, &label, &st))
        return tap_ok(false, "%s %s: a trainer: %s", encoder, f->what, st.msg);
    return true;
}

static double max_abs(const double *v, int n)
{
    double m = 0;
    for (int i = 0; i < n; i++)
        m = fabs(v[i]) > m ? fabs(v[i]) : m;
    return m;
}

/* grad and grad-input against central differences of the target logit,
 * (F(x + h e_i) - F(x - h e_i)) / 2h along each input coordinate i:
 * grad's value at p is the length of those at p, grad-input's their dot
 * product with (x - baseline) at p. Both take one row through their own
 * one-row model; the differences go through the batched model. */
static void test_gradients(const char *encoder, bool features)
{
    fixture f;
    if (!open_fixture(&f, encoder, features))
        return;
    rf_status st = {0};
    rf_attribution g, gi;
    rf_attr_request r = {.method = RF_ATTR_GRAD, .target = -1};
    bool got_g = rf_trainer_attribute(f.t, &f.in, &r, &g, &st);
    r.method = RF_ATTR_GRAD_INPUT;
    bool got_gi = got_g && rf_trainer_attribute(f.t, &f.in, &r, &gi, &st);
    bool ok = got_gi && g.target == gi.target && isnan(gi.fbase);
    int n = f.ds.seq_len, w = rf_trainer_attribution_width(f.t), len = f.in.len, dirs = len * w;
    size_t row = (size_t)n * w;
    float *x = malloc(row * sizeof *x), *base = malloc(row * sizeof *base);
    float *rows = malloc(2 * dirs * row * sizeof *rows), *logits = malloc(2 * dirs * CLASSES * sizeof *logits);
    ok = ok && rf_trainer_attribution_input(f.t, &f.in, NULL, x, base, &st);
    const double h = 1e-2;
    for (int i = 0; ok && i < dirs; i++)
        for (int s = 0; s < 2; s++) {
            float *dst = rows + (2 * i + s) * row;
            memcpy(dst, x, row * sizeof *dst);
            dst[i] += (float)(s == 0 ? h : -h);
        }
    ok = ok && rf_trainer_attribution_logits(f.t, rows, 2 * dirs, len, logits, &st);
    double fd_g[GRID * GRID] = {0}, fd_gi[GRID * GRID] = {0}, err_g = 0, err_gi = 0;
    for (int i = 0; ok && i < dirs; i++) {
        double d = ((double)logits[2 * i * CLASSES + gi.target] - logits[(2 * i + 1) * CLASSES + gi.target]) / (2 * h);
        fd_g[i / w] += d * d;
        fd_gi[i / w] += d * (x[i] - base[i]);
    }
    for (int p = 0; ok && p < len; p++) {
        fd_g[p] = sqrt(fd_g[p]);
        err_g = fmax(err_g, fabs(g.values[p] - fd_g[p]));
        err_gi = fmax(err_gi, fabs(gi.values[p] - fd_gi[p]));
    }
    double scale_g = ok ? max_abs(fd_g, len) : 0, scale_gi = ok ? max_abs(fd_gi, len) : 0;
    tap_ok(ok && err_g <= 2e-3 * scale_g + 1e-4 && scale_g > 1e-3,
           "%s %s: gradient matches central differences (max error %.2g of %.3g over %d positions)%s%s", encoder,
           f.what, err_g, scale_g, len, ok ? "" : ": ", ok ? "" : st.msg);
    tap_ok(ok && err_gi <= 2e-3 * scale_gi + 1e-4 && scale_gi > 1e-3,
           "%s %s: gradient x input matches central differences (max error %.2g of %.3g over %d positions), "
           "no baseline scored%s%s", encoder, f.what, err_gi, scale_gi, len, ok ? "" : ": ", ok ? "" : st.msg);
    if (got_g)
        rf_attribution_clear(&g);
    if (got_gi)
        rf_attribution_clear(&gi);
    free(x);
    free(base);
    free(rows);
    free(logits);
    rf_trainer_free(f.t);
}

/* The target logit of an input through the inference path. */
static bool plain_logit(rf_trainer *t, const float *x, int len, int target, double *out, rf_status *st)
{
    const char *names[] = {"logits"};
    rf_probe_set *ps = rf_probe_set_new(rf_trainer_model(t)->graph, names, 1, 0, st);
    rf_outside_input in = {x, len};
    rf_inspection r;
    bool ok = ps != NULL && rf_trainer_inspect_input(t, &in, ps, &r, NULL, st);
    if (ok)
        *out = ps->values[0].data[target];
    rf_probe_set_free(ps);
    return ok;
}

/* Occlusion with overlapping windows (window 2, stride 1; on the grid 2 x 2
 * patches every 1) against the average drop over explicit passes. */
static void test_occlusion(const char *encoder, bool features)
{
    fixture f;
    if (!open_fixture(&f, encoder, features))
        return;
    rf_status st = {0};
    rf_attribution a;
    rf_attr_request r = {.method = RF_ATTR_OCCLUSION, .target = 0, .window = 2, .stride = 1};
    bool ok = rf_trainer_attribute(f.t, &f.in, &r, &a, &st);
    int len = f.in.len, w = features ? FEATURES : 1;
    double fx = 0, drop[GRID * GRID] = {0}, err = 0;
    int hits[GRID * GRID] = {0};
    ok = ok && plain_logit(f.t, f.x, len, 0, &fx, &st);
    int across = features ? GRID : len, down = features ? GRID : 1;
    for (int r0 = 0; ok && r0 < down; r0++)
        for (int c0 = 0; ok && c0 < across; c0++) {
            float y[sizeof f.x / sizeof f.x[0]];
            memcpy(y, f.x, sizeof y);
            bool in_window[GRID * GRID] = {false};
            for (int p = 0; p < len; p++) {
                int pr = features ? p / GRID : 0, pc = features ? p % GRID : p;
                in_window[p] = pc >= c0 && pc < c0 + 2 && (!features || (pr >= r0 && pr < r0 + 2));
                if (in_window[p])
                    for (int i = 0; i < w; i++)
                        y[p * w + i] = 0.0f;   /* the padding id, or the zero baseline */
            }
            double fo = 0;
            ok = plain_logit(f.t, y, len, 0, &fo, &st);
            for (int p = 0; p < len; p++)
                if (in_window[p]) {
                    drop[p] += fx - fo;
                    hits[p]++;
                }
        }
    for (int p = 0; ok && p < len; p++)
        err = fmax(err, fabs(a.values[p] - drop[p] / hits[p]));
    tap_ok(ok && err < 1e-4 && fabs(a.fx - fx) < 1e-4,
           "%s %s: occlusion equals explicit forward passes (max error %.2g over %d positions)%s%s", encoder, f.what,
           err, len, ok ? "" : ": ", ok ? "" : st.msg);
    if (ok)
        rf_attribution_clear(&a);
    rf_trainer_free(f.t);
}

static void test_completeness(const char *encoder, bool features)
{
    fixture f;
    if (!open_fixture(&f, encoder, features))
        return;
    rf_status st = {0};
    rf_attribution a8, a64;
    /* gradients a paused training would have pending (the store is the
     * trainer's; planted here as a step's backward would leave them) */
    rf_params *p = (rf_params *)rf_trainer_params(f.t);
    size_t floats = p->total;
    float *before = malloc(2 * floats * sizeof *before);
    for (size_t i = 0; i < floats; i++)
        p->grad[i] = (float)(mix(i) % 1000) / 1000.0f - 0.5f;
    memcpy(before, p->value, floats * sizeof *before);
    memcpy(before + floats, p->grad, floats * sizeof *before);
    rf_attr_request r = {.method = RF_ATTR_IG, .target = -1, .steps = 8};
    bool ok = rf_trainer_attribute(f.t, &f.in, &r, &a8, &st);
    r.steps = 64;
    ok = ok && rf_trainer_attribute(f.t, &f.in, &r, &a64, &st);
    tap_ok(ok && memcmp(before, p->value, floats * sizeof *before) == 0 &&
               memcmp(before + floats, p->grad, floats * sizeof *before) == 0,
           "%s %s: integrated gradients leave the %zu parameters and their pending gradients as they were", encoder,
           f.what, floats);
    free(before);
    double gap = ok ? fabs(a64.fx - a64.fbase) : 0;
    tap_ok(ok && a64.completeness <= 0.01 * gap && a64.completeness < a8.completeness && gap > 1e-3,
           "%s %s: integrated gradients complete within 1%% at 64 steps (error %.3g at 8, %.3g at 64, "
           "F(x) - F(baseline) = %.4g)%s%s", encoder, f.what, ok ? a8.completeness : NAN,
           ok ? a64.completeness : NAN, gap, ok ? "" : ": ", ok ? "" : st.msg);
    if (ok) {
        rf_attribution_clear(&a8);
        rf_attribution_clear(&a64);
    }
    rf_trainer_free(f.t);
}

/* The planted task: the label is the token at PLANTED_AT (in [1,
 * PLANTED_VOCAB)) less one; nothing else decides it. The other positions
 * are noise over every id, the padding id 0 included, so that the
 * baseline (id 0's embedding everywhere) lies within what the model has
 * learnt to ignore there; otherwise a position's attribution would also
 * measure how an embedding never seen in training moves the network. */
#define PLANTED_AT 5
#define PLANTED_LEN 8
#define PLANTED_VOCAB 5
static bool planted_get(const rf_dataset *ds, rf_split split, int64_t i, float *x, int *len, int *label,
                        rf_status *st)
{
    (void)ds, (void)st;
    *len = PLANTED_LEN;
    for (int p = 0; p < PLANTED_LEN; p++)
        x[p] = (float)(mix((uint64_t)split * 7919 + (uint64_t)i * 131 + (uint64_t)p) % PLANTED_VOCAB);
    x[PLANTED_AT] = (float)(1 + mix((uint64_t)split * 7919 + (uint64_t)i * 131) % (PLANTED_VOCAB - 1));
    *label = (int)x[PLANTED_AT] - 1;
    return true;
}

static void test_planted_cause(const char *encoder)
{
    rf_dataset ds = {.name = "planted", .size = {4096, 64, 16}, .seq_len = PLANTED_LEN, .vocab = PLANTED_VOCAB,
                     .classes = PLANTED_VOCAB - 1, .get = planted_get};
    rf_config cfg = config(encoder);
    /* Trained well past 100% accuracy, with weight decay: a model that has
     * only just learnt the task still moves its logits with the noise
     * positions (TaLK and linear attention kept about 30% of the mass
     * there after 800 steps of batch 32 without weight decay; 11-14% now) */
    cfg.data.batch = 16;
    cfg.model.dim = 16;
    cfg.model.ff = 32;
    cfg.train.steps = 2000;
    cfg.train.lr = 5e-3f;
    cfg.train.weight_decay = 0.1f;
    cfg.train.warmup = 20;
    rf_status st = {0};
    rf_trainer *t = rf_trainer_new(&cfg, &ds, &st);
    rf_metrics m = {0};
    bool ok = t != NULL;
    for (int s = 0; ok && s < cfg.train.steps; s++)
        ok = rf_trainer_step(t, &m, &st);
    ok = ok && rf_trainer_evaluate(t, RF_SPLIT_VAL, 0, &m, &st);
    double mass = 0, least = 1;
    for (int64_t i = 0; ok && i < ds.size[RF_SPLIT_TEST]; i++) {
        float x[LEN];
        rf_outside_input in = {x, 0};
        int label;
        rf_attribution a;
        rf_attr_request r = {.method = RF_ATTR_IG, .target = -1, .steps = 32};
        ok = ds.get(&ds, RF_SPLIT_TEST, i, x, &in.len, &label, &st) && rf_trainer_attribute(t, &in, &r, &a, &st);
        double total = 0;
        for (int p = 0; ok && p < a.len; p++)
            total += fabs(a.values[p]);
        double share = ok && total > 0 ? fabs(a.values[PLANTED_AT]) / total : 0;
        mass += share / (double)ds.size[RF_SPLIT_TEST];
        least = share < least ? share : least;
        if (ok)
            rf_attribution_clear(&a);
    }
    bool passed = ok && m.accuracy >= 0.95 && mass >= 0.8;
    char what[1024];
    snprintf(what, sizeof what,
             "%s: trained on a planted cause (val accuracy %.2f), %.0f%% of the attribution mass is on its position "
             "(the least of 16 samples %.0f%%)%s%s", encoder, m.accuracy, 100 * mass, 100 * least, ok ? "" : ": ",
             ok ? "" : st.msg);
    tap_ok(passed, "%s", what);
    rf_trainer_free(t);
}

static void test_refusals(void)
{
    fixture f;
    if (!open_fixture(&f, "full", false))
        return;
    rf_status st = {0};
    rf_attribution a;
    rf_attr_request r = {.method = RF_ATTR_IG, .target = CLASSES, .steps = 8};
    bool ok = rf_trainer_attribute(f.t, &f.in, &r, &a, &st);
    tap_ok(!ok && strstr(st.msg, "class 3 is out of range") != NULL, "a class out of range is refused: %s", st.msg);
    r = (rf_attr_request){.method = RF_ATTR_OCCLUSION, .target = -1, .window = 0, .stride = 1};
    st = (rf_status){0};
    ok = rf_trainer_attribute(f.t, &f.in, &r, &a, &st);
    tap_ok(!ok && strstr(st.msg, "window and a stride of at least 1") != NULL, "window 0 is refused: %s", st.msg);
    rf_attr_method m;
    tap_ok(rf_attr_method_parse("grad-input", &m) && m == RF_ATTR_GRAD_INPUT && !rf_attr_method_parse("saliency", &m),
           "method names parse");
    rf_trainer_free(f.t);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "planted") == 0) {
        for (size_t e = 0; e < sizeof encoders / sizeof encoders[0]; e++)
            test_planted_cause(encoders[e]);
        return tap_done();
    }
    for (size_t e = 0; e < sizeof encoders / sizeof encoders[0]; e++)
        for (int features = 0; features < 2; features++) {
            test_gradients(encoders[e], features);
            test_occlusion(encoders[e], features);
            test_completeness(encoders[e], features);
        }
    test_refusals();
    return tap_done();
}
