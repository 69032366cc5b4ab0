/* train.recompute on the CUDA backend, through the emulator
 * (tests/cuda_emu): the device runs the same transformed graph as the CPU
 * (core/recompute.h), so a few training steps with recomputation give the
 * losses and weights of the steps without it, bit for bit. */
#include <stdio.h>
#include <string.h>

#include <vector>

extern "C" {
#include "../core/config.h"
#include "../core/device.h"
#include "../core/params.h"
#include "../core/train.h"
#include "../datasets/datasets.h"
}
#include "../kernels/backend.h"
#include "../kernels/cuda_compat.h"
#include "tap.h"

enum { STEPS = 1 };

static bool emu_count(int *n, rf_status *st)
{
    (void)st;
    *n = 1;
    return true;
}

static bool emu_describe(int i, char *name, size_t size, size_t *memory_bytes, rf_status *st)
{
    (void)i;
    (void)st;
    snprintf(name, size, "CUDA emulator (tests/cuda_emu)");
    *memory_bytes = 0;
    return true;
}

/* test_cuda_determinism.cc's small model: every row shares token ids with
 * others (vocabulary 9), so the embedding's gradient adds many rows into
 * one table row. */
static rf_config tiny(const char *encoder)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    strcpy(cfg.data.task, "random");
    cfg.data.batch = 2;
    cfg.data.max_len = 13;
    cfg.data.min_len = 4;
    cfg.data.vocab = 9;
    cfg.data.classes = 3;
    cfg.data.train_size = 64;
    cfg.data.val_size = 8;
    cfg.data.test_size = 8;
    strcpy(cfg.model.encoder, encoder);
    cfg.model.layers = 1;
    cfg.model.dim = 12;
    cfg.model.heads = 3;
    cfg.model.ff = 20;
    cfg.model.dropout = 0.1f;
    cfg.model.window = 4;
    cfg.model.rank = 3;
    cfg.model.segment = 5;
    cfg.model.latent = 3;
    strcpy(cfg.model.lmax, "3");
    strcpy(cfg.model.rmax, "2");
    cfg.train.steps = STEPS;
    cfg.train.lr = 3e-3f;
    cfg.train.warmup = 0;
    cfg.train.eval_every = 0;
    cfg.train.checkpoint_every = 0;
    cfg.train.log_every = 1;
    cfg.train.seed = 5;
    strcpy(cfg.train.device, "cuda");
    return cfg;
}

struct run_result {
    std::vector<float> loss, weights;
};

/* STEPS steps of `cfg` on the emulated GPU: each step's loss, then the weights. */
static bool run(const rf_config &cfg, run_result *r, rf_status *st)
{
    rf_dataset *ds = rf_dataset_open(&cfg, st);
    rf_trainer *t = ds != NULL ? rf_trainer_new(&cfg, ds, st) : NULL;
    bool ok = t != NULL;
    for (int s = 0; ok && s < STEPS; s++) {
        rf_metrics m;
        ok = rf_trainer_step(t, &m, st);
        r->loss.push_back(ok ? m.loss : 0.0f);
    }
    if (ok) {
        const rf_params *p = rf_trainer_params(t);
        cudaDeviceSynchronize();
        r->weights.assign(p->value, p->value + p->total);
    }
    rf_trainer_free(t);
    rf_dataset_free(ds);
    return ok;
}

static void check_encoder(const char *encoder, const char *mode)
{
    rf_config cfg = tiny(encoder);
    run_result off, on;
    rf_status st = {};
    if (!tap_ok(run(cfg, &off, &st), "%s: %d step with recompute = off on the emulated GPU", encoder, STEPS)) {
        tap_diag("%s", st.msg);
        return;
    }
    strcpy(cfg.train.recompute, mode);
    if (!tap_ok(run(cfg, &on, &st), "%s: %d step with recompute = %s on the emulated GPU", encoder, STEPS, mode)) {
        tap_diag("%s", st.msg);
        return;
    }
    size_t differ = 0;
    for (size_t i = 0; i < off.weights.size() && i < on.weights.size(); i++)
        differ += memcmp(&off.weights[i], &on.weights[i], sizeof(float)) != 0;
    tap_ok(on.weights.size() == off.weights.size() && differ == 0 &&
               memcmp(off.loss.data(), on.loss.data(), STEPS * sizeof(float)) == 0,
           "%s: recompute = %s gives the losses and weights of recompute = off bit for bit (%zu of %zu weights "
           "differ)", encoder, mode, differ, off.weights.size());
}

int main(void)
{
    static rf_device_backend emulated = {RF_DEVICE_CUDA, "cuda", emu_count, emu_describe, NULL, NULL};
    emulated.exec = rf_cuda_backend();
    rf_device_register(&emulated);
    for (const char *e : {"full", "blrp"})
        check_encoder(e, "layers");
    check_encoder("blrp", "segments");
    return tap_done();
}
