/* The Latent view's probe at a million tokens, by computation: BLRP as
 * data/configs/listops-blrp.ini has it, at batch 1 and 1,048,576 tokens
 * (10,486 segments of 100; `rangefinder memory --set data.batch=1 --seq
 * 1048576` plans the same run), is built without allocating anything, and
 * on its graph
 *   - the probe set the Latent view asks for (ui/views/latent_view.c: the
 *     series blrp.latent.<pass>.norms and .grad_norms of both passes pooled
 *     to 4,096 cells, the most the view asks, the chosen segment's latent
 *     block of each pass whole, and that segment's rows of Θ_SELF 1's token
 *     states) holds at most 1 % of the planned run's bytes;
 *   - the same set with Θ_SELF 1's token states whole (a million rows)
 *     would hold over 1 %;
 *   - the way the view asked before, every segment's latent and its
 *     gradient whole, would hold over 1 %, so the bound tells them apart.
 * No forward pass runs: the sizes are those of the view's set itself
 * (rf_probe_set_bytes), of the old taps' views and of the plan
 * (rf_memory_plan_of). */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../config/config_file.h"
#include "../core/train.h"
#include "tap.h"

#define TOKENS 1048576
#define LISTOPS_VOCAB 16    /* SPEC §6's token table */
#define LISTOPS_CLASSES 10
#define MOST_CELLS 4096     /* latent_view.c: strip_window's rf_pooled_request_cells(..., 4096) */

int main(void)
{
    g_autofree char *path = g_build_filename(RF_CONFIGS_DIR, "listops-blrp.ini", NULL);
    const char *const sets[] = {"data.batch=1", NULL};
    g_autoptr(GError) error = NULL;
    rf_config cfg;
    if (!tap_ok(rf_config_load_ini(path, sets, &cfg, &error), "listops-blrp.ini loads (%s)",
                error != NULL ? error->message : "batch 1"))
        return tap_done();
    rf_status st = {0};
    rf_params *p = rf_params_new(cfg.train.seed);
    rf_model *m = rf_model_new(&cfg, 1, TOKENS, 0, LISTOPS_VOCAB, LISTOPS_CLASSES, p, false, &st);
    if (!tap_ok(m != NULL, "BLRP at %d tokens is planned (%s)", TOKENS, st.msg)) {
        rf_params_free(p);
        return tap_done();
    }
    rf_memory_plan plan;
    rf_memory_plan_of(m, p, false, &plan);
    int segments = (TOKENS + cfg.model.segment - 1) / cfg.model.segment;

    /* what the view watches with Θ_SELF 1 chosen: the strip's four series
     * pooled, the segment's two latent blocks, and the segment's rows of
     * Θ_SELF 1's token states a row a token (latent_view.c: segment_window) */
    const rf_probe_window strip = {0, RF_POOL_END, 0, 1, MOST_CELLS, 1, RF_POOL_MAX};
    const int64_t t = cfg.model.segment, shown = 5000;
    const rf_probe_window rows = {(shown - 1) * t, shown * t, 0, RF_POOL_END, t, INT32_MAX, RF_POOL_MAX};
    const char *names[7] = {"blrp.latent.fwd.norms", "blrp.latent.bwd.norms", "blrp.latent.fwd.grad_norms",
                            "blrp.latent.bwd.grad_norms", "blrp.latent.fwd.5000", "blrp.latent.bwd.5000",
                            "blrp.self.0.out"};
    const rf_probe_window *windows[7] = {&strip, &strip, &strip, &strip, NULL, NULL, &rows};
    rf_probe_set *view = rf_probe_set_new_pooled(m->graph, names, windows, 7, 0, &st);
    size_t bytes = view != NULL ? rf_probe_set_bytes(view) : SIZE_MAX;
    tap_ok(view != NULL && bytes * 100 <= plan.total,
           "the Latent view's probe over %d segments holds %zu bytes, %.4f %% of the planned %zu (at most 1 %%) (%s)",
           segments, bytes, 100.0 * (double)bytes / (double)plan.total, plan.total, view != NULL ? "" : st.msg);
    const rf_probe_value *block = view != NULL ? &view->values[6] : NULL;
    tap_ok(block != NULL && block->shape.ndim == 2 && block->shape.dim[0] == t && block->shape.dim[1] == cfg.model.dim,
           "Θ_SELF 1's window is segment %" PRId64 "'s %" PRId64 " tokens x %d dimensions", shown, t, cfg.model.dim);
    rf_probe_set_free(view);

    /* Θ_SELF 1's token states whole, as the view watched them before */
    windows[6] = NULL;
    view = rf_probe_set_new_pooled(m->graph, names, windows, 7, 0, &st);
    size_t with_whole = view != NULL ? rf_probe_set_bytes(view) : 0;
    tap_ok(with_whole * 100 > plan.total,
           "with Θ_SELF 1's token states whole the probe would hold %zu bytes, %.2f %% of the plan: over the bound",
           with_whole, 100.0 * (double)with_whole / (double)plan.total);
    rf_probe_set_free(view);

    /* every segment's latent and gradient whole, as the view watched them
     * before: the bytes a set of those taps holds, a sample's view each */
    size_t whole = 0;
    int taps = 0;
    for (int i = 0; i < rf_tap_count(m->graph); i++) {
        const rf_tap *t = rf_tap_get(m->graph, i);
        char pass[4];
        int seg, end = 0;
        if (sscanf(t->name, "blrp.latent.%3[a-z].%d%n", pass, &seg, &end) == 2 &&
            (t->name[end] == '\0' || strcmp(t->name + end, ".grad") == 0)) {
            whole += (size_t)(rf_shape_numel(t->shape) / t->shape.dim[0]) * sizeof(float);
            taps++;
        }
    }
    tap_ok(taps == 4 * segments && whole * 100 > plan.total,
           "%d taps of every segment's latent and gradient whole would hold %zu bytes, %.2f %% of the plan: over the "
           "bound", taps, whole, 100.0 * (double)whole / (double)plan.total);
    rf_model_free(m);
    rf_params_free(p);
    return tap_done();
}
