/* train.recompute on the CUDA backend, through the emulator
 * (tests/cuda_emu): the device runs the same transformed graph as the CPU
 * (core/recompute.h), so a few training steps with recomputation give the
 * losses and weights of the steps without it, bit for bit. */
#include "cuda_emu_trainer.h"
#include "tap.h"

enum { STEPS = 1 };

static void check_encoder(const char *encoder, const char *mode)
{
    rf_config cfg = tiny_gpu_config(encoder, STEPS, 0);
    run_result off, on;
    rf_status st = {};
    if (!tap_ok(train_steps(cfg, &off, &st), "%s: %d step with recompute = off on the emulated GPU", encoder, STEPS)) {
        tap_diag("%s", st.msg);
        return;
    }
    strcpy(cfg.train.recompute, mode);
    if (!tap_ok(train_steps(cfg, &on, &st), "%s: %d step with recompute = %s on the emulated GPU", encoder, STEPS, mode)) {
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
    register_emulated_gpu();
    for (const char *e : {"full", "blrp"})
        check_encoder(e, "layers");
    check_encoder("blrp", "segments");
    return tap_done();
}
