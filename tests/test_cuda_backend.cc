/* The CUDA backend as the executor drives it (kernels/backend.cu), on the
 * CPU emulator: whole models train on train.device = cuda and give the CPU
 * backend's losses, and checkpoints move between the two devices.
 *
 * The emulator stands in for a GPU here (this machine has none), so the
 * test registers it as the device table's CUDA entry, with the real
 * backend table behind it: every op's kernels, managed memory, AdamW,
 * clipping and the NaN check run through the same code as on a GPU.
 *
 * Bounds. Two implementations of a step differ only in the order of their
 * sums (warp trees and atomics against the CPU's lanes). After s steps of
 * AdamW those differences have gone through s updates, each of which moves
 * a weight by at most lr (Adam's normalised step), so the losses of step s
 * may differ by far more than one forward pass's rounding; what must hold
 * is that they track each other: |loss_cpu − loss_gpu| ≤ tol_stages(...)
 * of one forward pass on the first step (no update yet), and within 1e-3 of
 * the loss (a rounding-scale weight difference amplified by s·lr) after. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <string>
#include <vector>

extern "C" {
#include "../core/config.h"
#include "../core/device.h"
#include "../core/model.h"
#include "../core/op.h"
#include "../core/params.h"
#include "../core/probe.h"
#include "../core/train.h"
#include "../datasets/datasets.h"
}
#include "../kernels/backend.h"
#include "../kernels/cuda_compat.h"
#include "tap.h"
#include "tolerance.h"

enum { STEPS = 10 };

#if defined(RF_CUDA_EMULATE)
#include "cuda_emu_trainer.h"   /* register_emulated_gpu */
#else
#include "../kernels/cuda_device.h"
#endif

static rf_config tiny(const char *encoder)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    strcpy(cfg.data.task, "random");
    cfg.data.batch = 2;
    cfg.data.max_len = 13;   /* odd lengths: no tile or warp divides them */
    cfg.data.min_len = 4;
    cfg.data.vocab = 9;
    cfg.data.classes = 3;
    cfg.data.train_size = 64;
    cfg.data.val_size = 8;
    cfg.data.test_size = 8;
    strcpy(cfg.model.encoder, encoder);
    cfg.model.layers = 1;   /* the emulator runs every GPU thread as a host thread: keep it small */
    cfg.model.dim = 12;
    cfg.model.heads = 3;
    cfg.model.ff = 20;
    cfg.model.dropout = 0.1f;   /* the counter-based hash: both devices drop the same units */
    cfg.model.window = 4;
    cfg.model.rank = 3;
    cfg.model.segment = 5;
    cfg.model.latent = 3;
    strcpy(cfg.model.pos, strcmp(encoder, "blrp") == 0 ? "none" : "sinusoidal");
    strcpy(cfg.model.lmax, "3");
    strcpy(cfg.model.rmax, "2");
    cfg.model.reduce = 2;
    strcpy(cfg.model.blocks, "1");
    cfg.train.steps = STEPS;
    cfg.train.lr = 3e-3f;
    cfg.train.warmup = 2;
    cfg.train.threads = 2;
    cfg.train.eval_every = 0;
    cfg.train.checkpoint_every = 0;
    cfg.train.log_every = 1;   /* the GPU's losses read after every step */
    cfg.train.seed = 5;
    strcpy(cfg.train.cuda_graph, "auto");
    return cfg;
}

/* `count` steps of `cfg` on `device`: each step's loss (NaN when it was
 * not read) into loss[], the steps made into *reached, the error that
 * stopped it into st; then the checkpoint into `save` (NULL: none), and
 * what train.cuda_graph did into *graphs (NULL: not asked). */
static bool run_steps(const rf_config &cfg, const char *device, double *loss, int count, int64_t *reached,
                      const char *save, rf_status *st, rf_graph_stats *graphs = nullptr)
{
    rf_config c = cfg;
    strcpy(c.train.device, device);
    rf_dataset *ds = rf_dataset_open(&c, st);
    rf_trainer *t = ds != NULL ? rf_trainer_new(&c, ds, st) : NULL;
    bool ok = t != NULL;
    for (int s = 0; ok && s < count; s++) {
        rf_metrics m;
        ok = rf_trainer_step(t, &m, st);
        loss[s] = ok && !m.unread ? m.loss : NAN;
    }
    *reached = t != NULL ? rf_trainer_step_count(t) : -1;
    if (ok && save != NULL)
        ok = rf_trainer_save(t, save, st);
    if (t != NULL && graphs != nullptr)
        rf_trainer_graph_stats(t, graphs);
    rf_trainer_free(t);
    rf_dataset_free(ds);
    return ok;
}

/* After the first GPU run: the device memory the backend measured is the
 * plan's (parameters, their gradients and moments, the arena and the
 * kernels' scratch; the plan's batch staging is host memory). */
static void check_device_peak(rf_config cfg)
{
    strcpy(cfg.train.device, "cuda");
    rf_memory_plan p;
    rf_status st = {};
    size_t peak = rf_cuda_backend()->peak_bytes();
    bool planned = rf_memory_plan_compute(&cfg, cfg.data.max_len, 0, cfg.data.vocab, cfg.data.classes, &p, &st);
    size_t held = p.params + p.grads + p.optimizer + p.activations;
    tap_ok(planned && peak >= held && peak <= p.total, "the measured device peak (%zu bytes) is the plan's: "
           "at least its tensors (%zu), at most its total (%zu)", peak, held, p.total);
}

/* A trainer on `device` with the checkpoint's weights, inspecting `names`
 * of validation sample 1 into a new probe set (NULL on failure). */
static rf_probe_set *inspect_on(rf_config cfg, const char *device, const char *path, const rf_dataset *ds,
                                const char *const *names, int count, rf_status *st)
{
    strcpy(cfg.train.device, device);
    rf_trainer *t = rf_trainer_new(&cfg, ds, st);
    rf_probe_set *ps = t != NULL && rf_trainer_load(t, path, st)
                           ? rf_probe_set_new(rf_trainer_model(t)->graph, names, count, 0, st)
                           : NULL;
    rf_inspection r;
    if (ps != NULL && !rf_trainer_inspect(t, RF_SPLIT_VAL, 1, ps, &r, st)) {
        rf_probe_set_free(ps);
        ps = NULL;
    }
    rf_trainer_free(t);
    return ps;
}

/* The views' probes (attention maps, latent states, window bounds, their
 * gradients) read on the emulated GPU equal the CPU's for the same weights:
 * the GPU's attention keeps only its log-sum-exp, and writes the maps for
 * probes alone. One forward (and backward) pass apart, as the first loss. */
static void check_probes(const rf_config &cfg, const char *path)
{
    const char *encoder = cfg.model.encoder;
    rf_status st = {};
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    rf_trainer *t = ds != NULL ? rf_trainer_new(&cfg, ds, &st) : NULL;
    std::vector<const char *> names;
    const rf_graph *g = t != NULL ? rf_trainer_model(t)->graph : NULL;
    for (int i = 0; g != NULL && i < rf_tap_count(g); i++)
        names.push_back(rf_tap_get(g, i)->name);
    rf_probe_set *cpu = t != NULL ? inspect_on(cfg, "cpu", path, ds, names.data(), (int)names.size(), &st) : NULL;
    rf_probe_set *gpu = cpu != NULL ? inspect_on(cfg, "cuda", path, ds, names.data(), (int)names.size(), &st) : NULL;
    if (!tap_ok(gpu != NULL, "%s: %zu probes inspected on the CPU and on the emulated GPU", encoder, names.size())) {
        tap_diag("%s", st.msg);
    } else {
        double stages = 12.0 * cfg.model.layers + 4, terms = fmax(cfg.model.ff, cfg.data.max_len), worst = 0;
        const char *where = "none";
        for (int i = 0; i < cpu->count; i++) {
            const rf_probe_value &c = cpu->values[i], &d = gpu->values[i];
            int64_t count = rf_shape_numel(c.shape);
            double scale = 0;
            for (int64_t e = 0; e < count; e++)
                scale = fmax(scale, fabs(c.data[e]));
            for (int64_t e = 0; e < count; e++) {
                double bound = tol_stages(stages, terms, fmax(scale, 1e-30)) + tol_stages_rel(stages) * fabs(c.data[e]);
                double r = fabs((double)d.data[e] - c.data[e]) / bound;
                if (!(r <= worst) || !d.filled) {
                    worst = d.filled ? r : INFINITY;
                    where = c.name;
                }
            }
        }
        tap_ok(worst <= 1, "%s: every probe equal within one pass's rounding (worst %.2g of its bound, in %s)",
               encoder, worst, where);
    }
    rf_probe_set_free(cpu);
    rf_probe_set_free(gpu);
    rf_trainer_free(t);
    rf_dataset_free(ds);
}

static void check_encoder(const char *encoder)
{
    rf_config cfg = tiny(encoder);
    double cpu[STEPS], gpu[STEPS];
    rf_status st = {};
    char path[128];
    snprintf(path, sizeof path, "/tmp/rf-cuda-backend-%d-%s.safetensors", (int)getpid(), encoder);
    int64_t reached;
    rf_graph_stats graphs = {};
    bool ran = run_steps(cfg, "cpu", cpu, STEPS, &reached, NULL, &st) &&
               run_steps(cfg, "cuda", gpu, STEPS, &reached, path, &st, &graphs);
    if (!ran && strstr(st.msg, "has no kernel for") != NULL) {
        /* a gap the backend states itself (rf_model_new); listed in the summary */
        tap_skip(encoder, "%s", st.msg);
        return;
    }
    if (!tap_ok(ran, "%s: %d steps on the CPU and on the emulated GPU", encoder, STEPS)) {
        tap_diag("%s", st.msg);
        return;
    }
    if (strcmp(encoder, "full") == 0)
        check_device_peak(cfg);
    /* step 1: one forward pass apart, about 12 stages per layer over sums of
     * at most max(ff, length) terms of the loss's size */
    double first = tol_stages(12.0 * cfg.model.layers + 4, fmax(cfg.model.ff, cfg.data.max_len), fmax(1, cpu[0]));
    double worst = 0;
    for (int s = 1; s < STEPS; s++)
        worst = fmax(worst, fabs(cpu[s] - gpu[s]) / fmax(1, cpu[s]));
    tap_ok(fabs(cpu[0] - gpu[0]) <= first, "%s: first loss equal within one pass's rounding (%.9g vs %.9g, bound %.2g)",
           encoder, cpu[0], gpu[0], first);
    tap_ok(worst <= 1e-3, "%s: losses of steps 2-%d track the CPU's (worst relative difference %.2g)", encoder,
           STEPS, worst);
    /* train.cuda_graph = auto: step 1 eager, step 2 captured
     * and replayed, the rest replayed (tests/test_cuda_graph.cc checks
     * them bit for bit against eager steps on the emulator) */
    tap_ok(graphs.captures == 1 && graphs.replays == STEPS - 1 && graphs.given_up[0] == '\0',
           "%s: the GPU's step was captured as a CUDA graph once and replayed %lld times (%s)", encoder,
           (long long)graphs.replays, graphs.given_up[0] != '\0' ? graphs.given_up : "none given up");

    /* the GPU's checkpoint resumes on the CPU */
    rf_config c2 = cfg;
    rf_dataset *ds = rf_dataset_open(&c2, &st);
    rf_trainer *t = ds != NULL ? rf_trainer_new(&c2, ds, &st) : NULL;
    bool loaded = t != NULL && rf_trainer_load(t, path, &st) && rf_trainer_step_count(t) == STEPS;
    rf_metrics m = {};
    bool stepped = loaded && rf_trainer_step(t, &m, &st) && isfinite(m.loss);
    tap_ok(stepped, "%s: the emulated GPU's checkpoint loads and trains on the CPU (%s)", encoder,
           stepped ? "ok" : st.msg);
    rf_trainer_free(t);
    rf_dataset_free(ds);
    check_probes(cfg, path);
    remove(path);
}

/* The planner plans what the device's kernels keep: full attention's
 * memory is linear in the length on the GPU as on the CPU (both
 * flash-style kernels keep each row's log-sum-exp, not the n x n
 * probabilities). No GPU is needed to plan. */
static void check_device_plan(void)
{
    rf_config cfg = tiny("full");
    cfg.model.dim = 32;
    cfg.model.heads = 4;
    cfg.model.ff = 64;
    size_t act[2][2];
    const char *devices[2] = {"cpu", "cuda"};
    const int lengths[2] = {512, 2048};
    rf_status st = {};
    bool ok = true;
    for (int d = 0; d < 2; d++)
        for (int l = 0; l < 2; l++) {
            strcpy(cfg.train.device, devices[d]);
            rf_memory_plan p;
            ok = ok && rf_memory_plan_compute(&cfg, lengths[l], 0, cfg.data.vocab, cfg.data.classes, &p, &st);
            act[d][l] = ok ? p.activations + p.workspace : 0;
        }
    if (!tap_ok(ok, "full attention planned at N = 512 and 2048 for the CPU and the GPU")) {
        tap_diag("%s", st.msg);
        return;
    }
    double cpu = (double)act[0][1] / (double)act[0][0], gpu = (double)act[1][1] / (double)act[1][0];
    /* 4x the length: 4x everything (the CPU's per-thread blocks stay) */
    tap_ok(cpu <= 4.2 && gpu <= 4.2,
           "the GPU and CPU plans of full attention grow linearly (%.2fx and %.2fx for 4x the length): %.1f MiB "
           "and %.1f MiB at N = 2048", gpu, cpu, act[1][1] / 1048576.0, act[0][1] / 1048576.0);
}

/* The host waits for the GPU only every train.log_every steps: the steps
 * between report nothing, the read ones the same bits as reading every
 * step; and a diverging run, read only at its end, stops at the step of
 * its first NaN, with the CPU's words. */
static void check_queued_steps(void)
{
    rf_config cfg = tiny("full");
    double every[STEPS], some[STEPS];
    int64_t reached = 0;
    rf_status st = {};
    bool ran = run_steps(cfg, "cuda", every, STEPS, &reached, NULL, &st);
    cfg.train.log_every = 4;
    ran = ran && run_steps(cfg, "cuda", some, STEPS, &reached, NULL, &st);
    bool same = ran;
    for (int s = 0; same && s < STEPS; s++) {
        bool read = (s + 1) % 4 == 0 || s + 1 == STEPS;
        same = read ? some[s] == every[s] : isnan(some[s]);
    }
    tap_ok(same, "with train.log_every = 4 the GPU's losses are read at steps 4, 8 and 10 only, bit for bit those "
                 "of reading every step (%s)", ran ? "ran" : st.msg);

    /* A run at lr 3e4 diverges within a few steps; which step first gives
     * NaN depends on rounding, and a real GPU rounds otherwise than the CPU
     * (nvcc contracts to FMA, cuBLAS picks its own kernels): on an H200 the
     * first NaN came one step later than on the CPU. So the guard is judged
     * against the GPU's own step found by reading every step: read only at
     * the end, the queued guard must still name that step, not the read one,
     * in the CPU's words. Under the emulator (same rounding as the CPU) the
     * step is the CPU's too. */
    cfg.train.lr = 3e4f;
    cfg.train.warmup = 0;
    double loss[STEPS];
    int64_t cpu_step = 0, gpu_step = 0, read_step = 0;
    rf_status cpu = {}, gpu = {}, read = {};
    cfg.train.log_every = 1;
    bool cpu_ran = run_steps(cfg, "cpu", loss, STEPS, &cpu_step, NULL, &cpu);
    bool read_ran = run_steps(cfg, "cuda", loss, STEPS, &read_step, NULL, &read);
    cfg.train.log_every = STEPS;   /* the only read is after the last step */
    bool gpu_ran = run_steps(cfg, "cuda", loss, STEPS, &gpu_step, NULL, &gpu);
    const char *cpu_words = strchr(cpu.msg, ':'), *gpu_words = strchr(gpu.msg, ':');
    bool same_words = cpu_words != NULL && gpu_words != NULL && strcmp(cpu_words, gpu_words) == 0;
#if defined(RF_CUDA_EMULATE)
    bool same_step = cpu_step == gpu_step;
#else
    bool same_step = true;
#endif
    tap_ok(!cpu_ran && !read_ran && !gpu_ran && read_step < STEPS - 1 && gpu_step == read_step &&
               strcmp(gpu.msg, read.msg) == 0 && same_words && same_step,
           "a diverging run stops on the GPU at the step where reading every step stops it, with the CPU's words, "
           "though read only after step %d (\"%s\" / every step \"%s\" / CPU \"%s\"; steps %lld / %lld / %lld)",
           STEPS, gpu.msg, read.msg, cpu.msg, (long long)gpu_step, (long long)read_step, (long long)cpu_step);
}

/* AdamW of the values 1..total (gradient 0.5, moments 0) over `store`
 * laid out as `layout` (offset, numel, decay per entry), on the backend. */
static std::vector<float> adamw_once(rf_params *store, const rf_param_entry *layout, int count)
{
    const rf_backend *b = rf_cuda_backend();
    store->count = count;
    store->entries = const_cast<rf_param_entry *>(layout);
    store->total = 8;
    for (int i = 0; i < 8; i++) {
        store->value[i] = (float)(i + 1);
        store->grad[i] = 0.5f;
        store->m[i] = store->v[i] = 0.0f;
    }
    rf_adamw_args a = {1e-2f, 0.9f, 0.999f, 1e-8f, 0.5f, 0.1f, 0.001f};
    b->adamw(store, &a);
    b->sync();
    return std::vector<float>(store->value, store->value + 8);
}

/* The device keeps the table of parameters AdamW walks between steps. A
 * store freed and a new one allocated at its address, with as many
 * entries laid out otherwise (the next run's model), must get its own
 * table: the same struct relaid stands in for that reuse, against a store
 * elsewhere with the second layout from the start. */
static void check_adamw_store_reused(void)
{
    const rf_backend *b = rf_cuda_backend();
    rf_param_entry first[2] = {}, second[2] = {};
    first[0].offset = 0, first[0].numel = 3, first[0].decay = true;
    first[1].offset = 3, first[1].numel = 5, first[1].decay = false;
    second[0].offset = 0, second[0].numel = 5, second[0].decay = false;
    second[1].offset = 5, second[1].numel = 3, second[1].decay = true;
    rf_params reused = {}, fresh = {};
    for (rf_params *p : {&reused, &fresh}) {
        p->value = (float *)b->alloc(8 * sizeof(float));
        p->grad = (float *)b->alloc(8 * sizeof(float));
        p->m = (float *)b->alloc(8 * sizeof(float));
        p->v = (float *)b->alloc(8 * sizeof(float));
    }
    adamw_once(&reused, first, 2);
    std::vector<float> relaid = adamw_once(&reused, second, 2);
    std::vector<float> want = adamw_once(&fresh, second, 2);
    int at = 0;
    while (at < 7 && relaid[at] == want[at])
        at++;
    tap_ok(relaid == want, "AdamW on the device walks a store's own entries when a store of as many entries laid "
           "out otherwise was at its address before (value %d: %.9g, want %.9g)", at + 1, relaid[at], want[at]);
    for (rf_params *p : {&reused, &fresh})
        for (float *f : {p->value, p->grad, p->m, p->v})
            b->free(f);
}

/* A head wider than the attention kernels' tiles is refused when the model
 * is built (planned too), in one sentence, not at a launch. */
static void check_wide_heads(void)
{
    rf_config cfg = tiny("full");
    cfg.model.dim = 160;
    cfg.model.heads = 1;
    cfg.model.ff = 32;
    strcpy(cfg.train.device, "cuda");
    rf_memory_plan p;
    rf_status st = {};
    bool refused = !rf_memory_plan_compute(&cfg, 16, 0, cfg.data.vocab, cfg.data.classes, &p, &st);
    tap_ok(refused && strstr(st.msg, "160 wide") != NULL && strstr(st.msg, "model.heads") != NULL,
           "a 160-wide attention head is refused on the GPU, naming what to change (%s)", st.msg);
    cfg.model.heads = 2;
    rf_status_clear(&st);
    tap_ok(rf_memory_plan_compute(&cfg, 16, 0, cfg.data.vocab, cfg.data.classes, &p, &st),
           "two 80-wide heads are taken (%s)", st.failed ? st.msg : "ok");
}

/* train.tf32 = on reaches the attention kernels: full attention trains on
 * the tensor-core pair, whose losses are not the f32 kernels' bits (the
 * emulator is deterministic, so any difference is the other kernels'),
 * and track the CPU's within what TF32's operand rounding (2^-11 of each
 * product's size, on the scores and the weighted sums, then through the
 * layer's other stages) allows: far below 1% of the loss for these
 * 4-wide heads, where a kernel that left a term out would be off by O(1).
 * The setting is the trainer's; off again, the f32 kernels run. */
static void check_tf32(void)
{
    rf_config cfg = tiny("full");
    double cpu[STEPS], f32[STEPS], tf32[STEPS];
    rf_status st = {};
    int64_t reached;
    bool ran = run_steps(cfg, "cpu", cpu, STEPS, &reached, NULL, &st) &&
               run_steps(cfg, "cuda", f32, STEPS, &reached, NULL, &st);
    strcpy(cfg.train.tf32, "on");
    ran = ran && run_steps(cfg, "cuda", tf32, STEPS, &reached, NULL, &st);
    if (!tap_ok(ran, "full attention trains %d steps with train.tf32 = on", STEPS)) {
        tap_diag("%s", st.msg);
        return;
    }
    double worst = 0;
    bool differs = false;
    for (int s = 0; s < STEPS; s++) {
        worst = fmax(worst, fabs(cpu[s] - tf32[s]) / fmax(1, cpu[s]));
        differs |= tf32[s] != f32[s];
    }
    tap_ok(differs, "train.tf32 = on runs the tensor-core kernels (the losses are not the f32 kernels' bits)");
    tap_ok(worst <= 1e-2, "with train.tf32 = on the losses track the CPU's (worst relative difference %.2g)", worst);
    strcpy(cfg.train.tf32, "off");
    double again[STEPS];
    ran = run_steps(cfg, "cuda", again, STEPS, &reached, NULL, &st);
    tap_ok(ran && memcmp(again, f32, sizeof again) == 0,
           "train.tf32 = off again: the f32 kernels' losses, bit for bit");
}

/* Every op of the op table has a forward and a backward kernel. */
static void check_op_table(void)
{
    const rf_backend *b = rf_cuda_backend();
    std::string missing;
    for (int op = 0; op < RF_OP_COUNT; op++)
        if (op != RF_OP_INPUT && op != RF_OP_PARAM && (b->forward[op] == NULL || b->backward[op] == NULL))
            missing += std::string(" ") + rf_op_name((rf_op)op);
    tap_ok(missing.empty(), "the CUDA backend has forward and backward kernels for every op%s%s",
           missing.empty() ? "" : "; missing:", missing.c_str());
}

#if defined(RF_CUDA_EMULATE)
/* A GPU backend without NCCL (a build that did not find it) refuses
 * several ranks in one sentence naming NCCL, before any collective: the
 * two-rank table stands in for an MPI job and none of its functions is
 * called. (Ranks on GPUs with NCCL: test_cuda_ranks.cc, under mpirun.) */
static void check_ranks_refused(rf_device_backend *entry)
{
    static rf_backend without = *rf_cuda_backend();
    without.join_ranks = NULL;
    without.average_ranks = NULL;
    const rf_backend *with = entry->exec;
    entry->exec = &without;
    rf_config cfg = tiny("full");
    strcpy(cfg.train.device, "cuda");
    rf_collective two = {};
    two.ranks = 2;
    rf_status st = {};
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    rf_trainer *t = ds != NULL ? rf_trainer_new_parallel(&cfg, ds, &two, &st) : NULL;
    tap_ok(t == NULL && strstr(st.msg, "on 2 ranks") != NULL && strstr(st.msg, "NCCL") != NULL,
           "a GPU backend without NCCL refuses 2 ranks, naming NCCL: %s", st.msg);
    rf_trainer_free(t);
    rf_dataset_free(ds);
    entry->exec = with;
}
#endif

int main(void)
{
    static const char *const encoders[] = {"full", "ls", "linear", "talk", "blrp", "maelre"};
#if defined(RF_CUDA_EMULATE)
    rf_device_backend *emulated = register_emulated_gpu();
#else
    rf_cuda_register();   /* the real GPU, where there is one */
#endif
    check_op_table();
    check_device_plan();   /* plans need the backend's table only, no device */
    check_wide_heads();
#if !defined(RF_CUDA_EMULATE)
    rf_status st = {};
    if (rf_device_open("cuda", &st) == NULL) {
        for (const char *e : encoders)
            tap_skip(e, "%s", st.msg);
        return tap_done();
    }
#endif
    check_adamw_store_reused();
    for (const char *e : encoders)
        check_encoder(e);
    check_queued_steps();
    check_tf32();
#if defined(RF_CUDA_EMULATE)
    check_ranks_refused(emulated);
#endif
    return tap_done();
}
