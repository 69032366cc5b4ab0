/* Image augmentation (data.augment_shift, data.augment_flip): every
 * augmented draw equals exactly one allowed shift/flip of the stored image,
 * computed here pixel by pixel; every allowed transform occurs; the batcher
 * augments training batches only, reproducibly by seed; patches carry the
 * same transform as pixels. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/batcher.h"
#include "../datasets/image_table.h"
#include "tap.h"

#define H 8
#define W 12
#define TRAIN 5
#define DRAWS 4000

/* A table of TRAIN + 1 + 1 images of distinct pixel values (1..255, so a
 * shifted-in black border, value 0, is never confused with image content). */
static rf_image_table *make_table(int channels, int patch, int shift, bool flip)
{
    rf_status st = {0};
    rf_image_table *t = rf_image_table_new("augment-test", H, W, channels, patch, 0.5f, 0.5f, &st);
    if (t == NULL)
        return NULL;
    t->count = TRAIN + 2;
    size_t bytes = (size_t)H * W * channels;
    t->pixels = malloc((size_t)t->count * bytes);
    t->labels = calloc((size_t)t->count, sizeof *t->labels);
    t->order = malloc((size_t)t->count * sizeof *t->order);
    for (int64_t i = 0; i < t->count; i++) {
        for (size_t k = 0; k < bytes; k++)
            t->pixels[(size_t)i * bytes + k] = (uint8_t)(1 + (i * 37 + (int64_t)k * 11) % 255);
        t->labels[i] = (int32_t)(i % 2);
        t->order[i] = i;
    }
    t->ds.classes = 2;
    rf_image_table_finish(t, (int64_t[RF_SPLIT_COUNT]){TRAIN, 1, 1});
    rf_image_table_set_augment(t, shift, flip);
    return t;
}

/* Pixel (y, x, c) of stored image i after shifting by (dy, dx), then
 * mirroring; black outside. Written straight from the definition. */
static float expected_pixel(const rf_image_table *t, int64_t i, int dy, int dx, bool flip, int y, int x, int c)
{
    int xs = flip ? W - 1 - x : x;
    int sy = y - dy, sx = xs - dx;
    uint8_t v = 0;
    if (sy >= 0 && sy < H && sx >= 0 && sx < W)
        v = t->pixels[(((size_t)i * H + sy) * W + sx) * t->channels + c];
    return t->value[v];
}

/* Token layout: p x p patches in raster order, row-major inside, channels innermost. */
static bool matches(const rf_image_table *t, int64_t i, int dy, int dx, bool flip, const float *x)
{
    int p = t->patch, c = t->channels;
    size_t at = 0;
    for (int gy = 0; gy < H / p; gy++)
        for (int gx = 0; gx < W / p; gx++)
            for (int y = gy * p; y < gy * p + p; y++)
                for (int xx = gx * p; xx < gx * p + p; xx++)
                    for (int k = 0; k < c; k++)
                        if (x[at++] != expected_pixel(t, i, dy, dx, flip, y, xx, k))
                            return false;
    return true;
}

/* The transform (index into [-s, s]^2 x {plain, flipped}) that explains x, or -1. */
static int explain(const rf_image_table *t, int64_t i, int s, const float *x)
{
    int side = 2 * s + 1, found = -1;
    for (int f = 0; f < 2; f++)
        for (int dy = -s; dy <= s; dy++)
            for (int dx = -s; dx <= s; dx++)
                if (matches(t, i, dy, dx, f == 1, x)) {
                    if (found >= 0)
                        return -1;    /* ambiguous: the fixture would be too weak */
                    found = (f * side + dy + s) * side + dx + s;
                }
    return found;
}

static void test_draws(int channels, int patch, int shift, bool flip)
{
    rf_image_table *t = make_table(channels, patch, shift, flip);
    if (!tap_ok(t != NULL && t->ds.get_augmented != NULL, "table %dch patch %d shift %d flip %d: augmenting",
                channels, patch, shift, flip))
        return;
    rf_dataset *ds = &t->ds;
    int side = 2 * shift + 1, kinds = side * side * (flip ? 2 : 1);
    int *seen = calloc((size_t)side * side * 2, sizeof *seen);
    float *x = malloc((size_t)ds->seq_len * ds->feat_dim * sizeof *x);
    rf_status st = {0};
    bool all_explained = true, labels_kept = true, same_key_same = true;
    int flipped = 0;
    for (int d = 0; d < DRAWS; d++) {
        int64_t index = d % TRAIN;
        int len = 0, label = -1;
        ds->get_augmented(ds, index, (uint64_t)d * 7919u + 1, x, &len, &label, &st);
        labels_kept &= label == t->labels[index] && len == ds->seq_len;
        int k = explain(t, index, shift, x);
        if (k < 0) {
            all_explained = false;
            continue;
        }
        seen[k]++;
        flipped += k >= side * side;
        if (d < 20) {
            float *again = malloc((size_t)ds->seq_len * ds->feat_dim * sizeof *again);
            ds->get_augmented(ds, index, (uint64_t)d * 7919u + 1, again, &len, &label, &st);
            same_key_same &= memcmp(x, again, (size_t)ds->seq_len * ds->feat_dim * sizeof *x) == 0;
            free(again);
        }
    }
    int covered = 0;
    for (int k = 0; k < side * side * 2; k++)
        covered += seen[k] > 0;
    tap_ok(all_explained, "every draw is exactly one shift in [-%d, %d]^2%s of its image", shift, shift,
           flip ? " with or without a flip" : "");
    tap_ok(covered == kinds, "all %d allowed transforms occur in %d draws (saw %d)", kinds, DRAWS, covered);
    tap_ok(labels_kept, "labels and lengths are the stored ones");
    tap_ok(same_key_same, "the same key gives the same draw");
    if (flip)
        tap_ok(fabs((double)flipped / DRAWS - 0.5) < 0.05, "flipped in %.1f%% of draws (about half)",
               100.0 * flipped / DRAWS);
    else
        tap_ok(flipped == 0, "never flipped without data.augment_flip");
    int len, label;
    ds->get(ds, RF_SPLIT_TRAIN, 2, x, &len, &label, &st);
    tap_ok(matches(t, 2, 0, 0, false, x), "get() still returns the stored image");
    free(x);
    free(seen);
    ds->destroy(ds);
}

/* The batcher: training batches augmented (and the same for the same seed),
 * evaluation batches stored; no augmentation leaves get_augmented NULL. */
static void test_batcher(void)
{
    rf_image_table *t = make_table(1, 2, 2, true);
    rf_dataset *ds = &t->ds;
    rf_status st = {0};
    rf_batcher *a = rf_batcher_new(ds, TRAIN, 42, &st), *b = rf_batcher_new(ds, TRAIN, 42, &st);
    size_t row = (size_t)ds->seq_len * ds->feat_dim, n = TRAIN * row;
    float *first = malloc(n * sizeof *first);
    bool reproducible = true, any_augmented = false, all_allowed = true;
    for (int64_t step = 0; step < 6; step++) {
        const rf_batch *ba = rf_batcher_train(a, step, NULL, &st);
        memcpy(first, ba->x, n * sizeof *first);
        const rf_batch *bb = rf_batcher_train(b, step, NULL, &st);
        reproducible &= memcmp(first, bb->x, n * sizeof *first) == 0;
        for (int i = 0; i < TRAIN; i++) {
            /* one epoch per step: find which image this row is by its label-free match */
            int64_t found = -1;
            for (int64_t j = 0; j < TRAIN && found < 0; j++)
                if (explain(t, j, 2, first + i * row) >= 0)
                    found = j;
            all_allowed &= found >= 0;
            any_augmented |= found >= 0 && !matches(t, found, 0, 0, false, first + i * row);
        }
    }
    tap_ok(reproducible, "two batchers with one seed draw the same augmented batches");
    tap_ok(all_allowed, "every training row is an allowed transform of a training image");
    tap_ok(any_augmented, "training rows are augmented");
    const rf_batch *ev = rf_batcher_eval(a, RF_SPLIT_VAL, 0, &st);
    tap_ok(ev != NULL && matches(t, TRAIN, 0, 0, false, ev->x), "validation batch holds the stored image");
    free(first);
    rf_batcher_free(a);
    rf_batcher_free(b);
    ds->destroy(ds);

    rf_image_table *plain = make_table(1, 1, 0, false);
    tap_ok(plain->ds.get_augmented == NULL, "shift 0 without flip: no augmentation");
    plain->ds.destroy(&plain->ds);
}

int main(void)
{
    test_draws(1, 1, 2, false);
    test_draws(1, 1, 1, true);
    test_draws(3, 4, 2, true);
    test_draws(1, 2, 3, true);
    test_batcher();
    return tap_done();
}
