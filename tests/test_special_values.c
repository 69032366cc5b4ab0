/* Every numeric path is defined on every float (issue 10 item 5): the
 * bit-level helpers of core/cpu/vecmath.h over NaN, infinities, huge values
 * and denormals; every encoder's forward and backward pass and an AdamW step
 * with parameters (and features) holding such values, as a diverging run
 * makes them; and token ids out of range refused before they become table
 * rows. The values are checked in every build; in the sanitizer build UBSan
 * stops the test at the first undefined operation (halt_on_error, with
 * float-to-integer conversions checked too), which is the check that
 * matters for the passes over huge and NaN parameters. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/batcher.h"
#include "../core/config.h"
#include "../core/cpu/vecmath.h"
#include "../core/exec.h"
#include "../core/model.h"
#include "../core/optim.h"
#include "../core/pool.h"
#include "tap.h"

/* -1.7e7 and -8.8e6 lie where rf_expf's integer difference once overflowed. */
static const float specials[] = {
    NAN, -NAN, INFINITY, -INFINITY, FLT_MAX, -FLT_MAX, 1e30f, -1e30f, 3e9f, -3e9f, -1.7e7f, -8.8e6f,
    89.0f, 88.73f, -87.01f, -87.0f, 1e-40f, -1e-40f, FLT_MIN, -FLT_MIN, FLT_TRUE_MIN, 0.0f, -0.0f, 1.0f,
};
#define N_SPECIALS (int)(sizeof specials / sizeof specials[0])

static float from_bits(uint32_t b)
{
    float x;
    memcpy(&x, &b, sizeof x);
    return x;
}

/* rf_expf's contract at x: NaN for NaN, 0 below -87, +inf above 88.73,
 * within 2.5e-7 relative of exp on [-87, 88]. */
static bool expf_ok(float x)
{
    float e = rf_expf(x);
    if (isnan(x))
        return isnan(e);
    if (x < -87.0f)
        return e == 0.0f;
    if (x > 88.73f)
        return isinf(e) && e > 0;
    if (x > 88.0f)
        return e > 0;
    double w = exp((double)x);
    return fabs((double)e - w) <= 2.5e-7 * w;
}

/* rf_erff's: NaN for NaN, within 1.5e-7 of erf elsewhere (+-1 at +-inf). */
static bool erff_ok(float x)
{
    float e = rf_erff(x);
    return isnan(x) ? isnan(e) : fabs((double)e - erf((double)x)) <= 1.5e-7;
}

static void test_scalar_helpers(void)
{
    int bad_exp = 0, bad_erf = 0, n = 0;
    float first_exp = 0, first_erf = 0;
    /* one float in 4093 over all 2^32 bit patterns (every exponent, both
     * signs, NaN payloads), then the listed values */
    for (uint64_t b = 0; b < (1ull << 32); b += 4093, n++) {
        float x = from_bits((uint32_t)b);
        if (!expf_ok(x) && bad_exp++ == 0)
            first_exp = x;
        if (!erff_ok(x) && bad_erf++ == 0)
            first_erf = x;
    }
    for (int i = 0; i < N_SPECIALS; i++, n++) {
        if (!expf_ok(specials[i]) && bad_exp++ == 0)
            first_exp = specials[i];
        if (!erff_ok(specials[i]) && bad_erf++ == 0)
            first_erf = specials[i];
    }
    if (!tap_ok(bad_exp == 0, "rf_expf on %d floats of every exponent, NaN, +-inf, huge, denormal", n))
        tap_diag("%d wrong, the first at %g: %g", bad_exp, (double)first_exp, (double)rf_expf(first_exp));
    if (!tap_ok(bad_erf == 0, "rf_erff on %d floats of every exponent, NaN, +-inf, huge, denormal", n))
        tap_diag("%d wrong, the first at %g: %g", bad_erf, (double)first_erf, (double)rf_erff(first_erf));
}

/* Rows of 37 (two 16-lane blocks and a tail of 5). */
#define ROW 37

static bool is_distribution(const float *p)
{
    double sum = 0;
    for (int j = 0; j < ROW; j++) {
        if (!(p[j] >= 0.0f && p[j] <= 1.0f))
            return false;
        sum += p[j];
    }
    return fabs(sum - 1.0) < 1e-5;
}

static void test_softmax_rows(void)
{
    float p[ROW];
    for (int j = 0; j < ROW; j++)   /* huge and tiny scores, both signs */
        p[j] = j % 4 == 0 ? 1e30f : j % 4 == 1 ? -FLT_MAX : j % 4 == 2 ? -1.7e7f : 1e-40f;
    rf_softmax_row_inplace(p, ROW);
    tap_ok(is_distribution(p) && fabsf(p[0] - 1.0f / 10) < 1e-6f,
           "softmax row of huge and denormal scores: the largest share the mass");
    for (int j = 0; j < ROW; j++)
        p[j] = -INFINITY;
    rf_softmax_row_inplace(p, ROW);
    bool zeros = true;
    for (int j = 0; j < ROW; j++)
        zeros &= p[j] == 0.0f;
    tap_ok(zeros, "softmax row of -inf (every key masked) is zeros");
    /* what a diverged run feeds it: NaN and +inf among finite scores */
    for (int k = 0; k < 2; k++) {
        for (int j = 0; j < ROW; j++)
            p[j] = specials[(j + k) % N_SPECIALS];
        rf_softmax_row_inplace(p, ROW);
        bool nan = true;
        for (int j = 0; j < ROW; j++)
            nan &= isnan(p[j]);
        tap_ok(nan, "softmax row with NaN and +-inf scores (offset %d) is NaN throughout", k);
    }
}

/* ---- whole models on special parameters ---- */

static rf_config tiny_config(const char *encoder)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    rf_status st = {0};
    const char *sets[][2] = {
        {"model.encoder", encoder}, {"model.layers", "2"}, {"model.dim", "8"}, {"model.heads", "2"},
        {"model.ff", "16"}, {"model.window", "4"}, {"model.rank", "2"}, {"model.segment", "4"},
        {"model.latent", "2"}, {"model.lmax", "3"}, {"model.rmax", "3"}, {"model.reduce", "2"},
        {"model.dropout", "0.1"},
    };
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
        if (!rf_config_set(&cfg, sets[i][0], sets[i][1], &st))
            tap_diag("%s", st.msg);
    return cfg;
}

/* The parameter patterns of a diverging run: large weights make finite
 * attention scores millions apart, huge ones overflow to inf and NaN. */
typedef struct pattern {
    const char *name;
    float (*value)(size_t i);
} pattern;

static float all_nan(size_t i) { return (void)i, NAN; }
static float large(size_t i) { return (i % 2 ? 1e3f : -1e3f) * (float)(1 + i % 7); }
static float huge(size_t i) { return i % 2 ? 1e30f : -1e30f; }
static float infinite(size_t i) { return i % 3 ? INFINITY : -INFINITY; }
static float denormal(size_t i) { return i % 2 ? 1e-40f : -FLT_TRUE_MIN; }
static float mixed(size_t i) { return specials[i % N_SPECIALS]; }

static const pattern patterns[] = {
    {"NaN", all_nan}, {"+-1e3 to 7e3", large}, {"+-1e30", huge}, {"+-inf", infinite}, {"denormal", denormal}, {"mixed", mixed},
};

#define BATCH 2
#define LEN 12

/* Forward, backward, the gradient norm and an AdamW step on two threads. */
static void run_pattern(const char *encoder, int feat_dim, const pattern *pat, rf_pool *pool)
{
    rf_config cfg = tiny_config(encoder);
    rf_status st = {0};
    rf_params *p = rf_params_new(1);
    rf_model *m = rf_model_new(&cfg, BATCH, LEN, feat_dim, 11, 5, p, true, &st);
    if (m == NULL) {
        tap_ok(false, "%s model builds", encoder);
        tap_diag("%s", st.msg);
        rf_params_free(p);
        return;
    }
    for (size_t i = 0; i < p->total; i++)
        p->value[i] = pat->value(i);
    float *x = rf_value(m->graph, m->x), *mask = rf_value(m->graph, m->mask);
    int per = feat_dim > 0 ? feat_dim : 1;
    for (int i = 0; i < BATCH * LEN * per; i++)   /* features get the pattern too */
        x[i] = feat_dim > 0 ? pat->value((size_t)i) : (float)(1 + i % 10);
    for (int i = 0; i < BATCH * LEN; i++)
        mask[i] = i % LEN < LEN - 3 * (i / LEN) ? 1.0f : 0.0f;
    for (int b = 0; b < BATCH; b++)
        rf_value(m->graph, m->labels)[b] = (float)(b + 1);
    rf_exec ex;
    rf_exec_init(&ex, m->graph, pool, 1, 0, true);
    rf_graph_forward(m->graph, &ex);
    rf_params_zero_grads(p);
    rf_graph_backward(m->graph, &ex, NULL);
    double norm = rf_grad_norm(p);
    rf_clip_grads(p, norm, 1.0);
    rf_adamw_step(p, &cfg, 1e-3, 1, pool);
    float loss = rf_value(m->graph, m->loss)[0];
    tap_ok(!(loss < 0.0f), "%s%s, %s parameters: forward, backward and an AdamW step (loss %g)", encoder,
           feat_dim > 0 ? " on features" : "", pat->name, (double)loss);
    rf_model_free(m);
    rf_params_free(p);
}

static void test_models(void)
{
    static const char *const encoders[] = {"full", "ls", "linear", "talk", "blrp", "maelre"};
    rf_pool *pool = rf_pool_new(2);
    for (size_t e = 0; e < sizeof encoders / sizeof encoders[0]; e++)
        for (size_t k = 0; k < sizeof patterns / sizeof patterns[0]; k++)
            run_pattern(encoders[e], 0, &patterns[k], pool);
    for (size_t k = 0; k < sizeof patterns / sizeof patterns[0]; k++)
        run_pattern("full", 3, &patterns[k], pool);
    rf_pool_free(pool);
}

/* ---- token ids out of range never reach the embedding ---- */

static float bad_id;

static bool ids_get(const rf_dataset *ds, rf_split split, int64_t index, float *x, int *len, int *label,
                    rf_status *st)
{
    (void)ds, (void)split, (void)st;
    for (int t = 0; t < 4; t++)
        x[t] = (float)(1 + t);
    x[2] = index == 1 ? bad_id : x[2];
    *len = 4;
    *label = 0;
    return true;
}

static void test_token_ids(void)
{
    rf_dataset ds = {.name = "ids", .size = {2, 2, 2}, .seq_len = 4, .vocab = 8, .classes = 2, .get = ids_get};
    const float bad[] = {NAN, INFINITY, -1.0f, 8.0f, 1e30f, -1e30f};
    rf_status st = {0};
    rf_batcher *b = rf_batcher_new(&ds, 1, 1, &st);
    tap_ok(rf_batcher_eval(b, RF_SPLIT_TEST, 0, &st) != NULL, "a sample with ids in [0, vocab) is batched");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        bad_id = bad[i];
        rf_status_clear(&st);
        bool refused = rf_batcher_eval(b, RF_SPLIT_TEST, 1, &st) == NULL && strstr(st.msg, "token id") != NULL;
        if (!tap_ok(refused, "a token id of %g is refused", (double)bad[i]))
            tap_diag("%s", st.msg);
    }
    rf_batcher_free(b);
}

int main(void)
{
    test_scalar_helpers();
    test_softmax_rows();
    test_models();
    test_token_ids();
    return tap_done();
}
