/* Data parallelism on GPUs (issue 15 item 4), on the CPU emulator: run
 * under mpirun, each rank trains on its own emulated GPU, and the CUDA
 * backend averages the gradients with NCCL (the emulator's NCCL, which
 * moves device memory through this job's MPI collective: emulated device
 * memory is host memory). The trainer, the backend's join_ranks and
 * average_ranks and the MPI bootstrap are the product's own code.
 *
 *   mpirun -np 2 tests/test_cuda_ranks     (TAP from rank 0)
 *
 * 1. Two ranks with global batch 4 give one CPU process's losses with
 *    batch 4 (the GPU tolerance of test_cuda_backend.cc: step 1 within one
 *    forward pass's rounding, later steps within 1e-3), with dropout on.
 * 2. Every rank ends with the same weights, and a second run repeats the
 *    losses (to rounding: atomics in three kernels fix no order, on a GPU
 *    as in the emulator).
 * 3. A diverging run stops every rank at the step where one CPU process
 *    stops, with words every rank agreed on.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <vector>

extern "C" {
#include "../core/config.h"
#include "../core/device.h"
#include "../core/train.h"
#include "../datasets/datasets.h"
#include "../parallel/mpi_collective.h"
}
#include "../kernels/backend.h"
#include "tap.h"
#include "tolerance.h"

enum { STEPS = 12 };

static bool emu_count(int *n, rf_status *st)
{
    (void)st;
    *n = 2;   /* one per rank on this machine: cuda:0 and cuda:1 */
    return true;
}

static rf_config tiny(void)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    strcpy(cfg.data.task, "random");
    cfg.data.batch = 4;
    cfg.data.max_len = 11;
    cfg.data.min_len = 4;
    cfg.data.vocab = 9;
    cfg.data.classes = 3;
    cfg.data.train_size = 64;
    cfg.data.val_size = 8;
    cfg.data.test_size = 8;
    strcpy(cfg.model.encoder, "full");
    cfg.model.layers = 1;
    cfg.model.dim = 12;
    cfg.model.heads = 3;
    cfg.model.ff = 20;
    cfg.model.dropout = 0.1f;   /* each rank must draw its own rows' masks */
    cfg.train.steps = STEPS;
    cfg.train.lr = 3e-3f;
    cfg.train.warmup = 2;
    cfg.train.threads = 1;
    cfg.train.eval_every = 0;
    cfg.train.checkpoint_every = 0;
    cfg.train.log_every = 1;
    cfg.train.seed = 5;
    return cfg;
}

typedef struct run {
    bool ok;
    double loss[STEPS];
    int64_t reached;
    double weights;     /* a sum over every parameter, to compare across ranks */
    rf_status st;
} run;

/* STEPS steps of `cfg` on `device`, on the ranks of `c` (NULL: alone). */
static run train(rf_config cfg, const char *device, rf_collective *c)
{
    run r = {};
    strcpy(cfg.train.device, device);
    rf_dataset *ds = rf_dataset_open(&cfg, &r.st);
    rf_trainer *t = ds != NULL ? rf_trainer_new_parallel(&cfg, ds, c, &r.st) : NULL;
    r.ok = t != NULL;
    for (int s = 0; r.ok && s < STEPS; s++) {
        rf_metrics m;
        r.ok = rf_trainer_step(t, &m, &r.st);
        r.loss[s] = r.ok ? m.loss : NAN;
    }
    if (t != NULL) {
        r.reached = rf_trainer_step_count(t);
        rf_status settled = {};
        rf_metrics m;
        rf_trainer_evaluate(t, RF_SPLIT_VAL, 1, &m, &settled);   /* every rank waits for its device */
        const rf_params *p = rf_trainer_model(t)->params;
        for (size_t i = 0; i < p->total; i++)
            r.weights += p->value[i];
    }
    rf_trainer_free(t);
    rf_dataset_free(ds);
    return r;
}

int main(int argc, char **argv)
{
    rf_status st = {};
    rf_collective *c = rf_mpi_start(&argc, &argv, &st);
    if (c == NULL) {
        fprintf(stderr, "%s\n", st.msg);
        return 1;
    }
    if (c->rank != 0 && freopen("/dev/null", "w", stdout) == NULL)   /* rank 0 reports */
        return 1;
    static rf_device_backend emulated = {RF_DEVICE_CUDA, "cuda", emu_count, NULL, NULL, NULL};
    emulated.exec = rf_cuda_backend();
    rf_device_register(&emulated);

    rf_config cfg = tiny();
    run cpu = c->rank == 0 ? train(cfg, "cpu", NULL) : run{};
    run gpu = train(cfg, "cuda", c);
    tap_ok(gpu.ok && c->ranks == 2, "%d ranks train %d steps on emulated GPUs, gradients averaged by NCCL (%s)",
           c->ranks, STEPS, gpu.ok ? "ok" : gpu.st.msg);
    if (c->rank == 0 && cpu.ok && gpu.ok) {
        double first = tol_stages(12.0 * cfg.model.layers + 4, fmax(cfg.model.ff, cfg.data.max_len),
                                  fmax(1, cpu.loss[0]));
        double worst = 0;
        for (int s = 1; s < STEPS; s++)
            worst = fmax(worst, fabs(cpu.loss[s] - gpu.loss[s]) / fmax(1, cpu.loss[s]));
        tap_ok(fabs(cpu.loss[0] - gpu.loss[0]) <= first,
               "2 ranks x 2 samples = one CPU process x 4: first loss within one pass's rounding (%.9g vs %.9g)",
               cpu.loss[0], gpu.loss[0]);
        tap_ok(worst <= 1e-3, "and the losses of steps 2-%d track it (worst relative difference %.2g)", STEPS, worst);
    }
    /* the same weights on every rank: rank 0's sum against each rank's */
    double mine = gpu.weights, first_rank = gpu.weights;
    c->broadcast(c, &first_rank, sizeof first_rank);
    bool same_weights = rf_collective_first(c, mine != first_rank) < 0;
    tap_ok(same_weights, "every rank holds the same weights after training (sum %.9g)", first_rank);
    run again = train(cfg, "cuda", c);
    /* Not bit for bit: three of the CUDA kernels add with atomicAdd (as on a
     * GPU), whose order the emulator's host threads do not fix. */
    double apart = 0;
    for (int s = 0; again.ok && s < STEPS; s++)
        apart = fmax(apart, fabs(again.loss[s] - gpu.loss[s]) / fmax(1, gpu.loss[s]));
    tap_ok(again.ok && apart <= 1e-5, "a second run on 2 ranks repeats the first (worst relative difference %.2g)",
           apart);

    cfg.train.lr = 3e4f;   /* diverges within a few steps */
    cfg.train.warmup = 0;
    cfg.train.log_every = 4;   /* the GPUs are read every fourth step */
    run cpu_bad = c->rank == 0 ? train(cfg, "cpu", NULL) : run{};
    run gpu_bad = train(cfg, "cuda", c);
    bool agreed = !gpu_bad.ok && gpu_bad.st.agreed;
    if (c->rank == 0)
        tap_ok(agreed && !cpu_bad.ok && gpu_bad.reached == cpu_bad.reached,
               "a diverging run stops every rank where one CPU process stops (steps %lld / %lld), in agreed words "
               "(\"%s\" / \"%s\")", (long long)gpu_bad.reached, (long long)cpu_bad.reached, gpu_bad.st.msg,
               cpu_bad.st.msg);
    int all_agreed = rf_collective_first(c, !agreed) < 0;
    tap_ok(all_agreed, "and every rank stopped with the agreed failure");
    int rc = tap_done(), rank = c->rank;
    rf_mpi_stop(c);
    return rank == 0 ? rc : 0;
}
