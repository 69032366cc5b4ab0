/* What the CUDA tests that train on the emulated GPU share: the emulator
 * registered as the device table's CUDA entry (the real backend table
 * behind it), a small model, and a few steps' losses and weights. */
#ifndef RF_TESTS_CUDA_EMU_TRAINER_H
#define RF_TESTS_CUDA_EMU_TRAINER_H

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

/* train.device = cuda runs the CUDA backend on the emulator; returns the
 * device table's entry */
static inline rf_device_backend *register_emulated_gpu(void)
{
    static rf_device_backend emulated = {RF_DEVICE_CUDA, "cuda", emu_count, emu_describe, NULL, NULL};
    emulated.exec = rf_cuda_backend();
    rf_device_register(&emulated);
    return &emulated;
}

/* A small model on the emulated GPU: every row shares token ids with others
 * (vocabulary 9), so the embedding's gradient adds many rows into one table
 * row; dropout on. */
static inline rf_config tiny_gpu_config(const char *encoder, int steps, int warmup)
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
    cfg.train.steps = steps;
    cfg.train.lr = 3e-3f;
    cfg.train.warmup = warmup;
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

/* cfg.train.steps steps of `cfg`: each step's loss, then the weights. */
static inline bool train_steps(const rf_config &cfg, run_result *r, rf_status *st)
{
    rf_dataset *ds = rf_dataset_open(&cfg, st);
    rf_trainer *t = ds != NULL ? rf_trainer_new(&cfg, ds, st) : NULL;
    bool ok = t != NULL;
    for (int s = 0; ok && s < cfg.train.steps; s++) {
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

#endif
