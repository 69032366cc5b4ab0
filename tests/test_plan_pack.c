/* The memory planner's placement (core/plan_pack.c) against the scan it
 * replaced, kept here as the reference: the same offset for every buffer
 * and the same arena, on the graph of every shipped config at its own
 * length, on BLRP at 8,192 tokens (with and without recomputation, with
 * separate and shared cross-attention) and on random interval sets; and no
 * two buffers alive together overlap. */
#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "../config/config_file.h"
#include "../core/exec.h"
#include "../core/model.h"
#include "../core/plan_pack.h"
#include "../core/rng.h"
#include "tap.h"

/* ListOps' token table (SPEC §6); audio configs get a feature width (the
 * planner only needs a shape). */
#define LISTOPS_VOCAB 16
#define AUDIO_FEATURES 40
#define RANDOM_SETS 300

/* The quadratic first-fit the planner used to run: placed buffers sorted by
 * offset, one walk over them per placement. */
static size_t reference_pack(rf_plan_buffer *buf, size_t nb)
{
    qsort(buf, nb, sizeof *buf, rf_plan_buffer_order);
    rf_plan_buffer **placed = malloc((nb + 1) * sizeof *placed);
    size_t total = 0, np = 0;
    for (size_t b = 0; b < nb; b++) {
        size_t offset = 0, need = rf_plan_round_up(buf[b].floats);
        for (size_t p = 0; p < np; p++) {
            const rf_plan_buffer *q = placed[p];
            if (q->offset >= offset + need)
                break;
            if (q->birth > buf[b].death || buf[b].birth > q->death)
                continue;
            size_t after = q->offset + rf_plan_round_up(q->floats);
            if (after > offset)
                offset = after;
        }
        buf[b].offset = offset;
        if (offset + need > total)
            total = offset + need;
        size_t at = np;
        while (at > 0 && placed[at - 1]->offset > offset)
            at--;
        memmove(placed + at + 1, placed + at, (np - at) * sizeof *placed);
        placed[at] = &buf[b];
        np++;
    }
    free(placed);
    return total;
}

/* The first pair of buffers alive together whose ranges overlap, as text; NULL if none. */
static char *overlapping_pair(const rf_plan_buffer *buf, size_t nb)
{
    for (size_t a = 0; a < nb; a++)
        for (size_t b = a + 1; b < nb; b++) {
            const rf_plan_buffer *x = &buf[a], *y = &buf[b];
            size_t xr = rf_plan_round_up(x->floats), yr = rf_plan_round_up(y->floats);
            if (xr == 0 || yr == 0 || x->birth > y->death || y->birth > x->death)
                continue;
            if (x->offset < y->offset + yr && y->offset < x->offset + xr)
                return g_strdup_printf("node %d kind %d [%zu, +%zu) and node %d kind %d [%zu, +%zu)", x->node,
                                       x->kind, x->offset, xr, y->node, y->kind, y->offset, yr);
        }
    return NULL;
}

/* Pack buf both ways; true if every offset and the arena agree and nothing overlaps. */
static bool same_as_reference(const char *what, rf_plan_buffer *buf, size_t nb)
{
    rf_plan_buffer *ref = g_memdup2(buf, nb * sizeof *buf);
    size_t ref_total = reference_pack(ref, nb);
    size_t total = rf_plan_pack(buf, nb);
    size_t differ = 0, first = nb;
    for (size_t b = 0; b < nb; b++)
        if (buf[b].offset != ref[b].offset || buf[b].node != ref[b].node || buf[b].kind != ref[b].kind) {
            differ++;
            first = first < b ? first : b;
        }
    g_autofree char *overlap = overlapping_pair(buf, nb);
    bool ok = tap_ok(total == ref_total && differ == 0 && overlap == NULL,
                     "%s: %zu buffers, arena %zu floats (reference %zu), %zu offsets differ, overlap: %s", what, nb,
                     total, ref_total, differ, overlap != NULL ? overlap : "none");
    if (differ > 0)
        tap_diag("first difference: buffer %zu at %zu, reference %zu", first, buf[first].offset, ref[first].offset);
    g_free(ref);
    return ok;
}

/* The training graph of cfg at its data.max_len, packed both ways. */
static void check_config(const char *name, const rf_config *cfg)
{
    int feat_dim = 0, vocab = cfg->data.vocab, grid = 0;
    if (strcmp(cfg->data.task, "listops") == 0)
        vocab = LISTOPS_VOCAB;
    else if (strcmp(cfg->data.task, "fashion_mnist") == 0)
        feat_dim = 1, grid = 28;
    else if (strcmp(cfg->data.task, "random") != 0)
        feat_dim = AUDIO_FEATURES;
    int seq = grid > 0 ? grid * grid : cfg->data.max_len;
    rf_status st = {0};
    rf_params *p = rf_params_new(cfg->train.seed);
    rf_model *m = rf_model_new_grid(cfg, cfg->data.batch, seq, feat_dim, vocab, cfg->data.classes, grid, grid, p,
                                    false, &st);
    rf_plan_buffer *buf = NULL;
    int nb = 0;
    if (m == NULL || !rf_graph_plan_buffers(m->graph, m->loss, 1, &buf, &nb, &st))
        tap_ok(false, "%s: %s", name, st.msg);
    else
        same_as_reference(name, buf, (size_t)nb);
    free(buf);
    rf_model_free(m);
    rf_params_free(p);
}

static gint by_name(gconstpointer a, gconstpointer b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void check_shipped_configs(void)
{
    g_autoptr(GDir) dir = g_dir_open(RF_CONFIGS_DIR, 0, NULL);
    tap_ok(dir != NULL, "the shipped configs are in %s", RF_CONFIGS_DIR);
    if (dir == NULL)
        return;
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
    for (const char *n; (n = g_dir_read_name(dir)) != NULL;)
        if (g_str_has_suffix(n, ".ini"))
            g_ptr_array_add(names, g_strdup(n));
    g_ptr_array_sort(names, by_name);
    tap_ok(names->len >= 10, "%u shipped configs", names->len);
    for (guint i = 0; i < names->len; i++) {
        g_autofree char *path = g_build_filename(RF_CONFIGS_DIR, names->pdata[i], NULL);
        g_autoptr(GError) error = NULL;
        rf_config cfg;
        if (!rf_config_load_ini(path, NULL, &cfg, &error))
            tap_ok(false, "%s: %s", path, error->message);
        else
            check_config(names->pdata[i], &cfg);
    }
}

/* BLRP's graph grows with the number of segments: 82 of them here; with
 * train.recompute = segments its clones add live intervals nested inside
 * the backward pass. */
/* BLRP at 8,192 tokens, stored and recomputed: its separate cross-attention
 * pairs (listops-blrp.ini) and the shared pair (the default, with
 * long-match-curriculum.ini), whose per-segment tensors kept from the
 * forward pass to the backward are the stacks the planner skips over. */
static void check_long_blrp(void)
{
    static const char *const configs[][2] = {
        {"listops-blrp.ini", "model.encoder=blrp"},
        {"long-match-curriculum.ini", "model.encoder=blrp"},
    };
    static const char *const modes[] = {"off", "segments"};
    for (size_t c = 0; c < G_N_ELEMENTS(configs); c++)
        for (size_t m = 0; m < G_N_ELEMENTS(modes); m++) {
            g_autofree char *path = g_build_filename(RF_CONFIGS_DIR, configs[c][0], NULL);
            g_autofree char *recompute = g_strdup_printf("train.recompute=%s", modes[m]);
            const char *const sets[] = {configs[c][1], "train.curriculum=", "data.batch=1", "data.max_len=8192",
                                        "data.min_len=0",  recompute,           NULL};
            g_autoptr(GError) error = NULL;
            rf_config cfg;
            g_autofree char *what = g_strdup_printf("%s with BLRP at 8192 tokens, batch 1, %s", configs[c][0], recompute);
            if (!rf_config_load_ini(path, sets, &cfg, &error))
                tap_ok(false, "%s: %s", path, error->message);
            else
                check_config(what, &cfg);
        }
}

/* Random live intervals: mostly short, some spanning most of the time,
 * some nested like a recurrence's saved states; sizes from a few shared
 * values (ties in the order) and arbitrary ones, zero and unaligned
 * included. `sets` sets of up to max_buffers buffers over up to max_slots
 * slots: the large ones give trees deep enough for the planner to search
 * its upper nodes through their union. */
static void check_random_sets(int sets, uint32_t max_buffers, uint32_t max_slots, uint64_t seed)
{
    static const size_t shared_sizes[] = {0, 1, 16, 17, 100, 1024, 6400, 6401};
    rf_rng rng = {seed};
    int passed = 0;
    for (int s = 0; s < sets; s++) {
        size_t nb = 1 + (uint32_t)rf_rng_next(&rng) % max_buffers;
        int slots = 2 + (int)((uint32_t)rf_rng_next(&rng) % max_slots);
        rf_plan_buffer *buf = malloc(nb * sizeof *buf);
        for (size_t b = 0; b < nb; b++) {
            int birth = (int)((uint32_t)rf_rng_next(&rng) % (uint32_t)slots), span;
            switch ((uint32_t)rf_rng_next(&rng) % 4) {
            case 0: span = slots; break;                                    /* long */
            case 1: span = slots - 2 * birth; break;                        /* nested */
            default: span = (int)((uint32_t)rf_rng_next(&rng) % 8); break;             /* short */
            }
            int death = birth + (span > 0 ? span : 0);
            size_t floats = (uint32_t)rf_rng_next(&rng) % 2 ? shared_sizes[(uint32_t)rf_rng_next(&rng) % G_N_ELEMENTS(shared_sizes)]
                                                 : (uint32_t)rf_rng_next(&rng) % 20000;
            buf[b] = (rf_plan_buffer){(int32_t)b, 0, birth, death < slots ? death : slots - 1, floats, 0};
        }
        g_autofree char *what = g_strdup_printf("random set %d of up to %u buffers", s, max_buffers);
        if (same_as_reference(what, buf, nb))
            passed++;
        free(buf);
    }
    tap_diag("%d of %d random sets of up to %u buffers placed as the reference places them", passed, sets,
             max_buffers);
}

int main(void)
{
    check_random_sets(RANDOM_SETS, 400, 600, 41);
    check_random_sets(12, 4000, 40000, 43);
    check_shipped_configs();
    check_long_blrp();
    return tap_done();
}
