/* A training step captured once as a CUDA graph and replayed
 * (train.cuda_graph = auto, core/train_graph.h), on the CPU emulator:
 * every encoder's replayed steps give bit for bit the weights and losses
 * of steps launched one kernel at a time (the emulator is deterministic,
 * so the two must agree exactly: a replay that reused the captured step's
 * dropout masks, learning rate or bias corrections would not); a replayed
 * step issues no launch from the host (the emulator's counters); a step
 * with a probe attached runs eagerly and keeps the recording; a recording
 * gone stale is captured again, as is a step of another graph; and a
 * step that does what a capture forbids is caught, and the run goes on
 * eagerly with the same results. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <string>
#include <vector>

extern "C" {
#include "../core/exec.h"
#include "../core/model.h"
#include "../core/probe.h"
#include "../core/train_graph.h"
}
#include "cuda_emu_trainer.h"
#include "tap.h"

enum { STEPS = 6 };

static const char *const encoders[] = {"full", "ls", "linear", "talk", "blrp", "maelre"};

/* What a run gives: each step's loss, the weights, the trainer's graph
 * counts and, per step, the emulator's work issued from the host. */
struct graph_run {
    std::vector<float> loss, weights;
    std::vector<unsigned long long> host_launches, graph_launches;
    int64_t captures = 0, replays = 0;
    std::string given_up, error;
};

/* Called before step s (0-based) with the trainer: a test's extra action. */
typedef void (*before_step)(rf_trainer *t, int s);

static graph_run run(rf_config cfg, const char *cuda_graph, before_step before = nullptr)
{
    graph_run r;
    strcpy(cfg.train.cuda_graph, cuda_graph);
    rf_status st = {};
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    rf_trainer *t = ds != NULL ? rf_trainer_new(&cfg, ds, &st) : NULL;
    bool ok = t != NULL;
    for (int s = 0; ok && s < cfg.train.steps; s++) {
        if (before != nullptr)
            before(t, s);
        rf_emu::counters c0 = rf_emu::counts();
        rf_metrics m;
        ok = rf_trainer_step(t, &m, &st);
        rf_emu::counters c1 = rf_emu::counts();
        r.loss.push_back(ok ? (float)m.loss : NAN);
        r.host_launches.push_back(c1.host_launches - c0.host_launches);
        r.graph_launches.push_back(c1.graph_launches - c0.graph_launches);
    }
    if (ok) {
        cudaDeviceSynchronize();
        const rf_params *p = rf_trainer_params(t);
        r.weights.assign(p->value, p->value + p->total);
        rf_graph_stats gs;
        rf_trainer_graph_stats(t, &gs);
        r.captures = gs.captures;
        r.replays = gs.replays;
        r.given_up = gs.given_up;
    } else {
        r.error = st.msg;
    }
    rf_trainer_free(t);
    rf_dataset_free(ds);
    return r;
}

static bool same_bits(const std::vector<float> &a, const std::vector<float> &b)
{
    return a.size() == b.size() && (a.empty() || memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

static bool all_zero_from(const std::vector<unsigned long long> &v, size_t first)
{
    for (size_t i = first; i < v.size(); i++)
        if (v[i] != 0)
            return false;
    return v.size() > first;
}

static rf_config tiny(const char *encoder)
{
    rf_config cfg = tiny_gpu_config(encoder, STEPS, 2);   /* dropout on; warm-up: lr changes every step */
    strcpy(cfg.model.pos, strcmp(encoder, "blrp") == 0 ? "none" : "sinusoidal");
    cfg.train.clip = 0.05f;   /* small enough to clip: the scale the guard computes is used */
    return cfg;
}

/* Replayed steps equal eager ones bit for bit; the first step is eager,
 * the second captured (and run by its first replay), the rest replayed,
 * and from the second on the host launches nothing. */
static void check_encoder(const char *encoder)
{
    rf_config cfg = tiny(encoder);
    graph_run eager = run(cfg, "off"), graph = run(cfg, "auto");
    if (!tap_ok(eager.error.empty() && graph.error.empty(), "%s: %d steps with train.cuda_graph off and auto",
                encoder, STEPS)) {
        tap_diag("%s%s", eager.error.c_str(), graph.error.c_str());
        return;
    }
    tap_ok(same_bits(eager.loss, graph.loss) && same_bits(eager.weights, graph.weights),
           "%s: %d steps as a replayed graph give the eager steps' losses and %zu weights bit for bit (last loss "
           "%.9g / %.9g)", encoder, STEPS, graph.weights.size(), graph.loss.back(), eager.loss.back());
    tap_ok(graph.captures == 1 && graph.replays == STEPS - 1 && graph.given_up.empty(),
           "%s: captured once, replayed %lld times (%s)", encoder, (long long)graph.replays,
           graph.given_up.empty() ? "none given up" : graph.given_up.c_str());
    tap_ok(graph.host_launches[0] > 0 && all_zero_from(graph.host_launches, 1) && graph.graph_launches[0] == 0 &&
               graph.graph_launches[1] == 1 && graph.graph_launches.back() == 1 &&
               all_zero_from(eager.graph_launches, 0) && eager.host_launches.back() == eager.host_launches[1],
           "%s: the first step launches %llu kernels from the host, each later step none and one graph (eager: "
           "%llu a step)", encoder, graph.host_launches[0], eager.host_launches.back());
}

/* A probe attached for step 3 (the workbench's views): that step runs
 * eagerly (the host reads between kernels), the recording is kept and
 * replayed after, and the weights are the eager run's. */
static rf_probe_set *probe;

static void probe_step_3(rf_trainer *t, int s)
{
    rf_graph *g = rf_trainer_model(t)->graph;
    if (s == 3) {
        const char *name = rf_tap_get(g, 0)->name;
        rf_status st = {};
        probe = rf_probe_set_new(g, &name, 1, 0, &st);
        rf_probe_attach(g, probe);
    } else if (s == 4) {
        rf_probe_attach(g, NULL);
        rf_probe_set_free(probe);
        probe = NULL;
    }
}

/* AdamW on another parameter store before step 3 (another model trained
 * in the same process): the device rebuilds the table AdamW walks, so
 * the recording, which holds the old table, is stale and refused. Step 3
 * runs eagerly, step 4 is captured again. */
static void other_store_step_3(rf_trainer *t, int s)
{
    (void)t;
    if (s != 3)
        return;
    const rf_backend *b = rf_cuda_backend();
    rf_param_entry e = {};
    e.numel = 4;
    rf_params other = {};
    other.count = 1;
    other.entries = &e;
    other.total = 4;
    for (float **f : {&other.value, &other.grad, &other.m, &other.v})
        *f = (float *)b->alloc(4 * sizeof(float));
    rf_adamw_args a = {1e-2f, 0.9f, 0.999f, 1e-8f, 0.0f, 0.1f, 0.001f};
    b->adamw(&other, &a);
    b->sync();
    for (float *f : {other.value, other.grad, other.m, other.v})
        b->free(f);
}

static void check_recapture(void)
{
    rf_config cfg = tiny("full");
    cfg.train.steps = STEPS + 1;
    graph_run eager = run(cfg, "off");
    graph_run probed = run(cfg, "auto", probe_step_3);
    tap_ok(probed.error.empty() && same_bits(eager.weights, probed.weights) && probed.captures == 1 &&
               probed.replays == STEPS - 1 && probed.graph_launches[3] == 0 && probed.host_launches[3] > 0 &&
               probed.graph_launches[4] == 1,
           "a step with a probe attached runs eagerly; the recording is kept and replayed after it, the weights "
           "the eager run's (%lld captures, %lld replays) %s", (long long)probed.captures,
           (long long)probed.replays, probed.error.c_str());
    graph_run stale = run(cfg, "auto", other_store_step_3);
    tap_ok(stale.error.empty() && same_bits(eager.weights, stale.weights) && stale.captures == 2 &&
               stale.graph_launches[3] == 0 && stale.host_launches[3] > 0 && stale.graph_launches[4] == 1 &&
               stale.host_launches[5] == 0,
           "a recording made stale by another store's AdamW table is refused: that step runs eagerly, the next "
           "is captured again (%lld captures), the weights the eager run's %s", (long long)stale.captures,
           stale.error.c_str());
}

/* A backend whose optimiser step waits for the device (a host
 * synchronisation inside the step, the mistake a capture must catch). */
static const rf_backend *real;

static void queue_step_and_wait(rf_params *p, const float *loss, rf_step_report *report)
{
    real->queue_step(p, loss, report);
    real->sync();
}

static void check_forbidden_caught(rf_device_backend *entry)
{
    rf_config cfg = tiny("linear");
    graph_run eager = run(cfg, "off");
    static rf_backend waiting;
    real = entry->exec;
    waiting = *real;
    waiting.queue_step = queue_step_and_wait;
    entry->exec = &waiting;
    graph_run caught = run(cfg, "auto");
    entry->exec = real;
    tap_ok(caught.error.empty() && caught.captures == 0 && caught.replays == 0 &&
               caught.given_up.find("could not be captured as a CUDA graph") != std::string::npos &&
               same_bits(eager.loss, caught.loss) && same_bits(eager.weights, caught.weights),
           "a step that synchronises inside the capture is caught (\"%s\"); the run goes on eagerly with the same "
           "losses and weights", caught.given_up.c_str());
}

/* The policy itself (core/train_graph.h) over two graphs, each step's work
 * one kernel that doubles a device value (so the value counts the steps
 * that ran, whether eagerly, under capture or replayed): a step of the
 * other graph drops the recording, runs eagerly and captures anew. */
struct doubling {
    float *value;
};

static void double_it(void *ctx)
{
    float *v = static_cast<doubling *>(ctx)->value;
    rf_cuda_backend()->scale(v, 1, 2.0f);
}

static void check_graph_change(void)
{
    const rf_backend *b = rf_cuda_backend();
    rf_graph *ga = rf_graph_new(NULL), *gb = rf_graph_new(NULL);
    doubling d = {(float *)b->alloc(sizeof(float))};
    b->fill(d.value, 1, 1.0f);
    rf_step_graph sg;
    rf_step_graph_init(&sg, b, "auto");
    const rf_graph *order[] = {ga, ga, ga, gb, gb, gb, gb, ga, ga};   /* 9 steps */
    std::vector<int64_t> captures;
    for (const rf_graph *g : order) {
        rf_step_graph_run(&sg, g, double_it, &d);
        captures.push_back(sg.captures);
    }
    b->sync();
    std::vector<int64_t> want = {0, 1, 1, 1, 2, 2, 2, 2, 3};
    tap_ok(*d.value == 512.0f && captures == want && sg.replays == 6,
           "a step of another graph captures again (captures after each of 9 steps over two graphs as want, %lld "
           "replays) and every step's work ran once (2^9 = %g)", (long long)sg.replays, *d.value);
    rf_step_graph_free(&sg);
    b->free(d.value);
    rf_graph_free(ga);
    rf_graph_free(gb);

    rf_step_graph off;
    rf_step_graph_init(&off, b, "off");
    tap_ok(off.device == NULL, "train.cuda_graph = off: no capture");
}

int main(void)
{
    rf_device_backend *emulated = register_emulated_gpu();
    for (const char *e : encoders)
        check_encoder(e);
    check_recapture();
    check_graph_change();
    check_forbidden_caught(emulated);
    return tap_done();
}
