/* The emulated GPU gives the same bits run after run, however its threads
 * interleave: the same training steps, run twice in one process with the
 * emulator's thread timing perturbed differently each time (emu.h,
 * rf_emu::perturb_timing), give bit-identical losses and weights. This is
 * what lets test_cuda_backend.cc compare two GPU runs bit for bit. */
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

enum { STEPS = 4 };

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

/* test_cuda_backend.cc's small model: every row shares token ids with
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
    cfg.train.warmup = 2;
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

/* STEPS steps of `cfg` on the emulated GPU with the threads' timing
 * perturbed by `seed`: each step's loss, then the weights. */
static bool run_perturbed(const rf_config &cfg, unsigned seed, run_result *r, rf_status *st)
{
    rf_emu::perturb_timing(seed);
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
    rf_emu::perturb_timing(0);
    return ok;
}

/* Three runs, each with its own timing: the second and third against the first. */
static void check_encoder(const char *encoder)
{
    rf_config cfg = tiny(encoder);
    run_result first;
    rf_status st = {};
    if (!tap_ok(run_perturbed(cfg, 1, &first, &st), "%s: %d steps on the emulated GPU, thread timing perturbed",
                encoder, STEPS)) {
        tap_diag("%s", st.msg);
        return;
    }
    for (unsigned seed = 2; seed <= 3; seed++) {
        run_result again;
        if (!run_perturbed(cfg, seed, &again, &st)) {
            tap_ok(false, "%s: run %u: %s", encoder, seed, st.msg);
            continue;
        }
        int step = -1;
        for (int s = 0; step < 0 && s < STEPS; s++)
            if (memcmp(&first.loss[s], &again.loss[s], sizeof(float)) != 0)
                step = s;
        size_t differ = 0;
        for (size_t i = 0; i < first.weights.size(); i++)
            differ += memcmp(&first.weights[i], &again.weights[i], sizeof(float)) != 0;
        tap_ok(step < 0 && differ == 0 && !first.weights.empty(),
               "%s: run %u, timed otherwise, gives the first run's losses and weights bit for bit (losses differ "
               "from step %d on, 0: none; %zu of %zu weights differ)", encoder, seed, step + 1, differ,
               first.weights.size());
    }
}

int main(void)
{
    static rf_device_backend emulated = {RF_DEVICE_CUDA, "cuda", emu_count, emu_describe, NULL, NULL};
    emulated.exec = rf_cuda_backend();
    rf_device_register(&emulated);
    for (const char *e : {"full", "talk"})
        check_encoder(e);
    return tap_done();
}
