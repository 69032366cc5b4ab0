/* The probe history (ui/probe_history.h), headless, on probe sets built
 * here: one snapshot per evaluation (the first at or after it), maps pooled
 * to 128 x 128 with their strongest weight kept, small tensors kept whole,
 * the byte bound held by dropping every other step, oldest first, and a
 * clear for a new run. (tests/test_session.c checks the same with a real
 * run.) */
#include <glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../ui/probe_history.h"
#include "tap.h"

/* A set of one filled value of `shape` named `name`, every float `fill`. */
static rf_probe_set *one_value(const char *name, rf_shape shape, float fill)
{
    rf_probe_set *ps = calloc(1, sizeof *ps);
    ps->values = calloc(1, sizeof *ps->values);
    ps->count = 1;
    rf_probe_value *v = &ps->values[0];
    g_strlcpy(v->name, name, sizeof v->name);
    v->shape = shape;
    size_t n = (size_t)rf_shape_numel(shape);
    v->data = malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++)
        v->data[i] = fill;
    v->filled = true;
    return ps;
}

static char *steps_text(const rf_probe_history *h)
{
    GString *t = g_string_new("");
    for (int i = 0; i < rf_probe_history_count(h); i++)
        g_string_append_printf(t, "%s%" G_GINT64_FORMAT, i ? " " : "", rf_probe_history_get(h, i)->eval_step);
    return g_string_free(t, FALSE);
}

static void test_one_per_evaluation(void)
{
    rf_probe_history *h = rf_probe_history_new(RF_PROBE_HISTORY_BYTES);
    rf_probe_set *ps = one_value("layer0.attn.probs", rf_shape3(2, 8, 8), 0.125f);
    tap_ok(!rf_probe_history_offer(h, -1, 3, RF_SPLIT_VAL, 0, ps), "nothing is kept before the first evaluation");
    tap_ok(rf_probe_history_offer(h, 10, 10, RF_SPLIT_VAL, 4, ps), "the first snapshot at evaluation 10 is kept");
    tap_ok(!rf_probe_history_offer(h, 10, 12, RF_SPLIT_VAL, 4, ps), "a second one before the next evaluation is not");
    tap_ok(rf_probe_history_offer(h, 20, 27, RF_SPLIT_TRAIN, 5, ps), "the first after evaluation 20 (at step 27) is");
    tap_ok(!rf_probe_history_offer(h, 15, 30, RF_SPLIT_VAL, 4, ps), "an older evaluation is not");
    const rf_probe_history_entry *e = rf_probe_history_get(h, 1);
    tap_ok(rf_probe_history_count(h) == 2 && e->eval_step == 20 && e->step == 27 && e->split == RF_SPLIT_TRAIN &&
               e->sample == 5,
           "each stored step says its evaluation, when it was taken and which sample it is of");
    tap_ok(rf_probe_history_nearest(h, 14) == 0 && rf_probe_history_nearest(h, 16) == 1 &&
               rf_probe_history_nearest(h, 99) == 1,
           "the stored step nearest to another is found");
    rf_probe_history_clear(h);
    tap_ok(rf_probe_history_count(h) == 0 && rf_probe_history_bytes(h) == 0, "a new run clears it");
    tap_ok(rf_probe_history_offer(h, 10, 10, RF_SPLIT_VAL, 4, ps), "and it fills again from the new run's first evaluation");
    rf_probe_set_free(ps);
    rf_probe_history_free(h);
}

static void test_reduction(void)
{
    rf_probe_history *h = rf_probe_history_new(RF_PROBE_HISTORY_BYTES);
    rf_probe_set *ps = calloc(1, sizeof *ps);
    ps->values = calloc(4, sizeof *ps->values);
    rf_probe_set *map = one_value("layer0.attn.probs", rf_shape3(2, 300, 300), 0.001f);
    map->values[0].data[(size_t)300 * 300 + 250 * 300 + 10] = 0.9f;   /* head 1, query 250, key 10 */
    rf_probe_set *band = one_value("layer0.ls.local", rf_shape3(2, 1000, 64), 0.5f);
    rf_probe_set *bounds = one_value("layer0.talk.bounds", rf_shape2(700, 4), 3.0f);
    rf_probe_set *huge = one_value("layer9.ls.local", rf_shape3(1, 45000, 100), 0.0f);
    ps->values[0] = map->values[0];
    ps->values[1] = band->values[0];
    ps->values[2] = bounds->values[0];
    ps->values[3] = huge->values[0];
    ps->count = 4;
    tap_ok(rf_probe_history_offer(h, 5, 5, RF_SPLIT_VAL, 0, ps), "a snapshot of four tensors is kept");
    const rf_probe_history_entry *e = rf_probe_history_get(h, 0);
    const rf_probe_set *kept = rf_probe_hold_get(e->hold);
    const rf_probe_value *m = rf_probe_set_find(kept, "layer0.attn.probs");
    tap_ok(m != NULL && m->shape.ndim == 3 && m->shape.dim[0] == 2 && m->shape.dim[1] == 128 && m->shape.dim[2] == 128 &&
               rf_probe_history_entry_pooled(e, (int)(m - kept->values)),
           "a 300 x 300 map is pooled to 128 x 128 per head");
    /* query 250 of 300 lands in pooled row 106, key 10 in column 4 */
    int hot = -1;
    float top = 0;
    for (int i = 0; m != NULL && i < 128 * 128; i++)
        if (m->data[128 * 128 + i] > top) {
            top = m->data[128 * 128 + i];
            hot = i;
        }
    tap_ok(top == 0.9f && hot == 106 * 128 + 4 && m->data[106 * 128 + 4] == 0.001f,
           "the strongest weight survives pooling where it was, in its own head (cell %d, %g)", hot, top);
    const rf_probe_value *b = rf_probe_set_find(kept, "layer0.ls.local");
    const rf_probe_value *t = rf_probe_set_find(kept, "layer0.talk.bounds");
    tap_ok(b != NULL && b->shape.dim[1] == 1000 && b->shape.dim[2] == 64 && b->data[64 * 1000 + 5] == 0.5f &&
               t != NULL && t->shape.ndim == 2 && t->shape.dim[0] == 700 && t->data[2799] == 3.0f &&
               !rf_probe_history_entry_pooled(e, (int)(b - kept->values)),
           "a band with a narrow side and a 2-dim tensor are kept whole");
    tap_ok(rf_probe_set_find(kept, "layer9.ls.local") == NULL && kept->count == 3,
           "a tensor above %zu floats even when reduced is left out", RF_PROBE_HISTORY_TENSOR);
    size_t want = (2 * 128 * 128 + 2 * 1000 * 64 + 700 * 4) * sizeof(float);
    tap_ok(e->bytes == want && rf_probe_history_bytes(h) == want, "the history counts the bytes it holds (%zu)",
           rf_probe_history_bytes(h));
    free(ps->values);
    free(ps);
    rf_probe_set_free(map);
    rf_probe_set_free(band);
    rf_probe_set_free(bounds);
    rf_probe_set_free(huge);
    rf_probe_history_free(h);
}

static void test_bound(void)
{
    rf_probe_set *ps = one_value("layer0.attn.probs", rf_shape3(1, 16, 16), 0.5f);
    size_t one = 16 * 16 * sizeof(float);
    rf_probe_history *h = rf_probe_history_new(8 * one);
    for (int step = 1; step <= 8; step++)
        rf_probe_history_offer(h, step, step, RF_SPLIT_VAL, 0, ps);
    g_autofree char *full = steps_text(h);
    tap_ok(strcmp(full, "1 2 3 4 5 6 7 8") == 0, "eight steps fit a bound of eight (%s)", full);
    rf_probe_history_offer(h, 9, 9, RF_SPLIT_VAL, 0, ps);
    g_autofree char *thinned = steps_text(h);
    tap_ok(strcmp(thinned, "1 3 5 7 9") == 0 && rf_probe_history_bytes(h) == 5 * one,
           "the ninth drops every other step, oldest first, keeping the newest (%s)", thinned);
    for (int step = 10; step <= 13; step++)
        rf_probe_history_offer(h, step, step, RF_SPLIT_VAL, 0, ps);
    g_autofree char *again = steps_text(h);
    tap_ok(strcmp(again, "1 5 9 11 13") == 0, "the next overflow thins the whole run again (%s)", again);
    size_t worst = 0;
    for (int step = 14; step <= 200; step++) {
        rf_probe_history_offer(h, step, step, RF_SPLIT_VAL, 0, ps);
        worst = MAX(worst, rf_probe_history_bytes(h));
    }
    const rf_probe_history_entry *last = rf_probe_history_get(h, rf_probe_history_count(h) - 1);
    tap_ok(worst <= 8 * one && last->eval_step == 200 && rf_probe_history_get(h, 0)->eval_step == 1,
           "over 200 evaluations it never holds more than the bound (%zu of %zu bytes), newest and oldest kept", worst,
           8 * one);
    rf_probe_history *tiny = rf_probe_history_new(one / 2);
    tap_ok(!rf_probe_history_offer(tiny, 1, 1, RF_SPLIT_VAL, 0, ps) && rf_probe_history_bytes(tiny) == 0,
           "a snapshot larger than the whole bound is not kept");
    rf_probe_history_free(tiny);
    rf_probe_history_free(h);
    rf_probe_set_free(ps);
}

/* A view holds a stored step: thinning it away leaves the view's copy. */
static void test_hold_outlives_thinning(void)
{
    rf_probe_set *ps = one_value("x", rf_shape3(1, 4, 4), 0.25f);
    rf_probe_history *h = rf_probe_history_new(2 * 16 * sizeof(float));
    rf_probe_history_offer(h, 1, 1, RF_SPLIT_VAL, 0, ps);
    rf_probe_history_offer(h, 2, 2, RF_SPLIT_VAL, 0, ps);
    RfProbeHold *held = rf_probe_hold_acquire(rf_probe_history_get(h, 1)->hold);
    rf_probe_history_offer(h, 3, 3, RF_SPLIT_VAL, 0, ps);
    const rf_probe_value *v = rf_probe_set_find(rf_probe_hold_get(held), "x");
    tap_ok(rf_probe_history_count(h) == 2 && rf_probe_history_get(h, 1)->eval_step == 3 && v != NULL &&
               v->data[15] == 0.25f,
           "a held step stays readable after the history dropped it");
    rf_probe_hold_release(held);
    rf_probe_history_free(h);
    rf_probe_set_free(ps);
}

int main(void)
{
    test_one_per_evaluation();
    test_reduction();
    test_bound();
    test_hold_outlives_thinning();
    return tap_done();
}
