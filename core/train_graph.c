#include "train_graph.h"

#include <string.h>

#include "exec.h"

void rf_step_graph_init(rf_step_graph *sg, const rf_backend *device, const char *cuda_graph)
{
    *sg = (rf_step_graph){0};
    if (device != NULL && device->capture_begin != NULL && strcmp(cuda_graph, "auto") == 0)
        sg->device = device;
}

static void drop(rf_step_graph *sg)
{
    if (sg->recording != NULL)
        sg->device->release(sg->recording);
    sg->recording = NULL;
    sg->ran_eagerly = false;
}

void rf_step_graph_free(rf_step_graph *sg)
{
    if (sg->device != NULL)
        drop(sg);
}

/* Capture the step and replay it; false (nothing ran) when it failed. */
static bool capture(rf_step_graph *sg, void (*body)(void *ctx), void *ctx)
{
    const rf_backend *d = sg->device;
    if (!d->capture_begin()) {
        strcpy(sg->given_up, "the device could not begin a capture");
        return false;
    }
    body(ctx);
    sg->recording = d->capture_end(sg->given_up, sizeof sg->given_up);
    if (sg->recording == NULL)
        return false;
    sg->captures++;
    return true;
}

void rf_step_graph_run(rf_step_graph *sg, const rf_graph *g, void (*body)(void *ctx), void *ctx)
{
    if (sg->device == NULL || rf_graph_host_hooks(g)) {
        body(ctx);
        return;
    }
    if (g != sg->graph) {
        drop(sg);
        sg->graph = g;
    }
    if (sg->recording == NULL && !sg->ran_eagerly) {
        /* the first step of a graph sets up what a capture may not:
         * allocations, the optimiser's table, cuBLAS */
        sg->ran_eagerly = true;
        body(ctx);
        return;
    }
    if (sg->recording == NULL && !capture(sg, body, ctx)) {
        sg->device = NULL;   /* it would fail the same way at every step */
        body(ctx);
        return;
    }
    if (sg->device->replay(sg->recording)) {
        sg->replays++;
        return;
    }
    drop(sg);   /* stale: this step eagerly, the next one captured again */
    sg->ran_eagerly = true;
    body(ctx);
}
