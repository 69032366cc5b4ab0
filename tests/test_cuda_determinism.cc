/* The emulated GPU gives the same bits run after run, however its threads
 * interleave: the same training steps, run twice in one process with the
 * emulator's thread timing perturbed differently each time (emu.h,
 * rf_emu::perturb_timing), give bit-identical losses and weights. This is
 * what lets test_cuda_backend.cc compare two GPU runs bit for bit. */
#include "cuda_emu_trainer.h"
#include "tap.h"

enum { STEPS = 4 };

/* STEPS steps of `cfg` on the emulated GPU with the threads' timing
 * perturbed by `seed`: each step's loss, then the weights. */
static bool run_perturbed(const rf_config &cfg, unsigned seed, run_result *r, rf_status *st)
{
    rf_emu::perturb_timing(seed);
    bool ok = train_steps(cfg, r, st);
    rf_emu::perturb_timing(0);
    return ok;
}

/* Three runs, each with its own timing: the second and third against the first. */
static void check_encoder(const char *encoder)
{
    rf_config cfg = tiny_gpu_config(encoder, STEPS, 2);
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
    register_emulated_gpu();
    for (const char *e : {"full", "talk"})
        check_encoder(e);
    return tap_done();
}
