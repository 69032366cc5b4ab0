/* Length buckets: a forward-only build runs each batch on a graph only as
 * long as its longest input (core/train.c). Every encoder must give what
 * the padded full-length graph gives, within rounding: evaluation of a
 * whole split, predictions for inputs of several lengths, and inspection
 * of the full-length graph after the buckets have overwritten its arena
 * (its constants must come back). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/batcher.h"
#include "../core/model.h"
#include "../core/probe.h"
#include "../core/train.h"
#include "../datasets/datasets.h"
#include "tap.h"

#define TOL 1e-5

static rf_config config(const char *encoder)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    strcpy(cfg.data.task, "listops");   /* lengths from min_len to max_len */
    cfg.data.batch = 8;
    cfg.data.max_len = 200;
    cfg.data.min_len = 4;
    cfg.data.train_size = 64;
    cfg.data.val_size = 16;
    cfg.data.test_size = 61;   /* a short last batch */
    cfg.model.dim = 16;
    cfg.model.heads = 2;
    cfg.model.ff = 32;
    cfg.model.segment = 40;    /* blrp: five segments at full length */
    cfg.train.threads = 2;
    cfg.train.seed = 5;
    strcpy(cfg.model.encoder, encoder);
    return cfg;
}

/* A sample's tokens, hashed (FNV-1a over the ids), to recognise it. */
static uint64_t fingerprint(const float *x, int len)
{
    uint64_t h = 1469598103934665603ull;
    for (int p = 0; p < len; p++)
        h = (h ^ (uint64_t)x[p]) * 1099511628211ull;
    return h ^ (uint64_t)len << 48;
}

/* Batches by length hold every sample once, each batch no shorter than
 * the one before. */
static void test_order_by_length(void)
{
    rf_config cfg = config("full");
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    rf_batcher *b = ds != NULL ? rf_batcher_new(ds, cfg.data.batch, 1, &st) : NULL;
    int64_t n = b != NULL ? rf_batcher_eval_batches(b, RF_SPLIT_TEST) : 0, size = ds->size[RF_SPLIT_TEST];
    uint64_t *print = calloc((size_t)size, sizeof *print);
    bool *taken = calloc((size_t)size, sizeof *taken);
    float *x = calloc((size_t)ds->seq_len, sizeof *x);
    bool ok = b != NULL;
    for (int64_t i = 0; ok && i < size; i++) {
        int len = 0, label = 0;
        memset(x, 0, (size_t)ds->seq_len * sizeof *x);
        ok = ds->get(ds, RF_SPLIT_TEST, i, x, &len, &label, &st);
        print[i] = fingerprint(x, len);
    }
    int64_t seen = 0, found = 0;
    int previous = 0, lengths = 0;
    bool sorted = ok;
    for (int64_t i = 0; sorted && i < n; i++) {
        const rf_batch *batch = rf_batcher_eval_by_length(b, RF_SPLIT_TEST, i, &st);
        if (batch == NULL) {
            sorted = false;
            break;
        }
        int shortest = batch->seq_len;
        for (int r = 0; r < batch->count; r++) {
            int len = 0;
            for (int p = 0; p < batch->seq_len; p++)
                len += batch->mask[(size_t)r * batch->seq_len + p] != 0.0f;
            shortest = len < shortest ? len : shortest;
            sorted = sorted && len <= batch->longest;
            uint64_t h = fingerprint(batch->x + (size_t)r * batch->seq_len, len);
            for (int64_t k = 0; k < size; k++)
                if (!taken[k] && print[k] == h) {
                    taken[k] = true;
                    found++;
                    break;
                }
        }
        sorted = sorted && shortest >= previous;
        lengths += batch->longest != previous;
        previous = batch->longest;
        seen += batch->count;
    }
    tap_ok(sorted && seen == size && found == size && lengths > 4,
           "batches by length hold each of the %lld test samples once (%lld found), none shorter than the batch "
           "before (%d distinct longest lengths)%s%s", (long long)size, (long long)found, lengths,
           st.failed ? ": " : "", st.msg);
    free(x);
    free(taken);
    free(print);
    rf_batcher_free(b);
    rf_dataset_free(ds);
}

static double max_diff(const float *a, const float *b, size_t n)
{
    double worst = 0;
    for (size_t i = 0; i < n; i++)
        worst = fmax(worst, fabs((double)a[i] - b[i]));
    return worst;
}

/* Weights at three times their initial scale in both builds: attention at
 * initialisation is nearly uniform whatever computes it, and a check on
 * it could not tell linear from dot-product attention. */
static void sharpen(rf_trainer *t)
{
    rf_params *p = rf_trainer_model(t)->params;
    for (size_t i = 0; i < p->total; i++)
        p->value[i] *= 3.0f;
}

/* The forward-only build with buckets against the training build with
 * its buckets off, which runs every batch padded to the full length in the
 * split's order. The same seed gives both the same weights. */
static void test_encoder(const char *encoder, const char *pool, const char *pos)
{
    rf_config cfg = config(encoder);
    strcpy(cfg.model.pool, pool);
    strcpy(cfg.model.pos, pos);
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    rf_trainer *t = ds != NULL ? rf_trainer_new(&cfg, ds, &st) : NULL;
    rf_trainer *f = t != NULL ? rf_trainer_new_forward(&cfg, ds, &st) : NULL;
    if (!tap_ok(f != NULL, "%s (pool %s, positions %s): both builds%s%s", encoder, pool, pos,
                st.failed ? ": " : "", st.msg)) {
        rf_trainer_free(t);
        rf_dataset_free(ds);
        return;
    }
    rf_trainer_use_length_buckets(t, false);
    sharpen(t);
    sharpen(f);
    int len[RF_LENGTH_BUCKETS], built = 0;
    int buckets = rf_trainer_length_buckets(f, len, &built);
    rf_metrics padded, bucketed;
    bool ok = rf_trainer_evaluate(t, RF_SPLIT_TEST, 0, &padded, &st) &&
              rf_trainer_evaluate(f, RF_SPLIT_TEST, 0, &bucketed, &st);
    rf_trainer_length_buckets(f, NULL, &built);
    tap_ok(ok && fabs(padded.loss - bucketed.loss) <= TOL * fmax(1, fabs(padded.loss)) &&
               padded.accuracy == bucketed.accuracy && bucketed.samples == ds->size[RF_SPLIT_TEST] && built >= 2,
           "%s (pool %s, positions %s): a test pass on %d of %d length buckets gives the padded pass's loss "
           "(%.7f, %.7f) and accuracy (%.4f, %.4f)%s%s", encoder, pool, pos, built, buckets, padded.loss,
           bucketed.loss, padded.accuracy, bucketed.accuracy, st.failed ? ": " : "", st.msg);

    /* inputs of three lengths, alone (each on its own bucket) and together:
     * a little and one past the shortest bucket, and the longest bucket's */
    const int lengths[3] = {buckets > 0 && len[0] > 4 ? len[0] - 3 : 1, buckets > 0 ? len[0] + 1 : 2, buckets > 0 ? len[buckets - 1] : 3};
    float *x = calloc((size_t)3 * ds->seq_len, sizeof *x);
    rf_outside_input in[3];
    for (int i = 0; i < 3; i++) {
        for (int p = 0; p < lengths[i]; p++)
            x[(size_t)i * ds->seq_len + p] = (float)(1 + (p * 7 + i) % (ds->vocab - 1));
        in[i] = (rf_outside_input){x + (size_t)i * ds->seq_len, lengths[i]};
    }
    float want[3 * 16], got[3 * 16];
    double worst = 0;
    ok = true;
    for (int i = 0; ok && i < 3; i++) {
        ok = rf_trainer_predict(t, &in[i], 1, want, &st) && rf_trainer_predict(f, &in[i], 1, got, &st);
        worst = fmax(worst, max_diff(want, got, (size_t)ds->classes));
    }
    ok = ok && rf_trainer_predict(t, in, 3, want, &st) && rf_trainer_predict(f, in, 3, got, &st);
    worst = fmax(worst, max_diff(want, got, (size_t)3 * ds->classes));
    tap_ok(ok && worst <= TOL, "%s (pool %s, positions %s): predictions for inputs of %d, %d and %d positions "
           "equal the padded graph's (max diff %.2g)%s%s", encoder, pool, pos, lengths[0], lengths[1], lengths[2], worst, st.failed ? ": " : "", st.msg);

    /* the full-length graph again, after the buckets wrote over its arena */
    const char *logits[1] = {"logits"};
    rf_probe_set *pa = rf_probe_set_new(rf_trainer_model(t)->graph, logits, 1, 0, &st);
    rf_probe_set *pb = rf_probe_set_new(rf_trainer_model(f)->graph, logits, 1, 0, &st);
    rf_inspection a, b;
    ok = pa != NULL && pb != NULL && rf_trainer_inspect(t, RF_SPLIT_TEST, 60, pa, &a, &st) &&
         rf_trainer_inspect(f, RF_SPLIT_TEST, 60, pb, &b, &st);
    worst = ok ? max_diff(pa->values[0].data, pb->values[0].data, (size_t)ds->classes) : INFINITY;
    tap_ok(ok && worst <= TOL && a.predicted == b.predicted,
           "%s (pool %s, positions %s): inspecting after bucketed passes gives the training build's logits "
           "(max diff %.2g)%s%s", encoder, pool, pos, worst, st.failed ? ": " : "", st.msg);
    rf_probe_set_free(pa);
    rf_probe_set_free(pb);
    free(x);
    rf_trainer_free(f);
    rf_trainer_free(t);
    rf_dataset_free(ds);
}

/* A training build evaluates on buckets too (in its own arena): the same
 * loss as with them off, and the training steps after it are those of a
 * twin that never used them (the buckets overwrite the training graph's
 * constants, the sinusoidal positions here; the step puts them back). */
static void test_training_build(const char *encoder, const char *pool)
{
    rf_config cfg = config(encoder);
    strcpy(cfg.model.pool, pool);
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    rf_trainer *a = ds != NULL ? rf_trainer_new(&cfg, ds, &st) : NULL;
    rf_trainer *b = a != NULL ? rf_trainer_new(&cfg, ds, &st) : NULL;
    if (!tap_ok(b != NULL, "%s (pool %s): two training builds%s%s", encoder, pool, st.failed ? ": " : "", st.msg)) {
        rf_trainer_free(a);
        rf_dataset_free(ds);
        return;
    }
    rf_trainer_use_length_buckets(b, false);
    rf_metrics ea, eb, sa, sb;
    bool ok = rf_trainer_step(a, &sa, &st) && rf_trainer_step(b, &sb, &st) &&
              rf_trainer_evaluate(a, RF_SPLIT_TEST, 0, &ea, &st) && rf_trainer_evaluate(b, RF_SPLIT_TEST, 0, &eb, &st);
    int built = 0;
    rf_trainer_length_buckets(a, NULL, &built);
    tap_ok(ok && fabs(ea.loss - eb.loss) <= TOL * fmax(1, fabs(eb.loss)) && ea.accuracy == eb.accuracy && built >= 2,
           "%s (pool %s): a training build's test pass on %d buckets gives the padded pass's loss (%.7f, %.7f)%s%s",
           encoder, pool, built, ea.loss, eb.loss, st.failed ? ": " : "", st.msg);
    bool same = ok;
    for (int i = 0; same && i < 3; i++)
        same = rf_trainer_step(a, &sa, &st) && rf_trainer_step(b, &sb, &st) && sa.loss == sb.loss;
    tap_ok(same, "%s (pool %s): and the steps after it equal the unbucketed twin's, bit for bit (%.7f, %.7f)%s%s",
           encoder, pool, sa.loss, sb.loss, st.failed ? ": " : "", st.msg);
    rf_trainer_free(b);
    rf_trainer_free(a);
    rf_dataset_free(ds);
}

/* MAELRE picks linear or dot-product attention per block from the padded
 * token count: a bucket that would flip a block is not one. With width 16
 * and stride 4, block 1 (width 32) is linear at 200 positions (50 merged
 * tokens) and at 160 (40), dot-product at 128 (32). */
static void test_maelre_lengths(void)
{
    rf_config cfg = config("maelre");
    rf_config full = config("full");
    tap_ok(rf_model_length_invariant(&cfg, 160, 200) && !rf_model_length_invariant(&cfg, 128, 200) &&
               !rf_model_length_invariant(&cfg, 32, 200) && rf_model_length_invariant(&full, 32, 200),
           "MAELRE keeps only lengths that leave every block's attention as at full length");
}

/* A bucket cannot be longer than the graph whose arena it borrows. */
static void test_bucket_longer_refused(void)
{
    rf_config cfg = config("full");
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    rf_trainer *f = ds != NULL ? rf_trainer_new_forward(&cfg, ds, &st) : NULL;
    rf_model *host = f != NULL ? rf_trainer_model(f) : NULL;
    rf_model *longer = host != NULL ? rf_model_new_forward_inside(host, host->seq_len + 16, ds->vocab, ds->classes,
                                                                  &st)
                                    : NULL;
    tap_ok(host != NULL && longer == NULL && strstr(st.msg, "cannot share") != NULL,
           "a model longer than its host is refused (%s)", st.msg);
    rf_model_free(longer);
    rf_trainer_free(f);
    rf_dataset_free(ds);
}

int main(void)
{
    test_order_by_length();
    test_encoder("full", "mean", "sinusoidal");
    test_encoder("full", "cls", "learned");
    test_encoder("ls", "cls", "none");
    test_encoder("linear", "mean", "sinusoidal");
    test_encoder("talk", "mean", "none");
    test_encoder("blrp", "mean", "none");
    test_encoder("maelre", "mean", "sinusoidal");
    test_training_build("full", "mean");
    test_training_build("full", "cls");
    test_training_build("ls", "cls");
    test_training_build("linear", "mean");
    test_maelre_lengths();
    test_bucket_longer_refused();
    return tap_done();
}
