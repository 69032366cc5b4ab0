/* The seeded split of text_folder and npy (see holdout.h). */
#include "holdout.h"

#include <stdlib.h>
#include <string.h>

#include "../core/rng.h"

static bool take(int64_t *order[RF_SPLIT_COUNT], int64_t size[RF_SPLIT_COUNT], rf_split s, const int64_t *from,
                 int64_t count)
{
    order[s] = malloc((size_t)(count > 0 ? count : 1) * sizeof *order[s]);
    if (order[s] == NULL)
        return false;
    memcpy(order[s], from, (size_t)count * sizeof *from);
    size[s] = count;
    return true;
}

bool rf_holdout_split(const char *root, const char *what, int64_t pool, int64_t fixed_test, const rf_config *cfg,
                      uint64_t stream, int64_t *order[RF_SPLIT_COUNT], int64_t size[RF_SPLIT_COUNT], rf_status *st)
{
    int64_t *items = malloc((size_t)(pool + fixed_test + 1) * sizeof *items);
    if (items == NULL)
        return rf_fail(st, "%s: out of memory", root);
    for (int64_t i = 0; i < pool + fixed_test; i++)
        items[i] = i;
    rf_rng rng = {rf_hash3(cfg->train.seed, stream, 0)};
    for (int64_t i = pool - 1; i > 0; i--) {
        int64_t j = rf_rng_int(&rng, 0, i), swap = items[i];
        items[i] = items[j];
        items[j] = swap;
    }
    int64_t val = cfg->data.val_size, test = fixed_test > 0 ? 0 : cfg->data.test_size;
    if (val + test > pool - 1) {
        int64_t quarter = pool / 4;
        val = val < quarter ? val : quarter;
        test = test < quarter ? test : quarter;
        if (fixed_test > 0)
            rf_status_warn(st, "%s: %lld training %s; data.val_size capped to %lld to leave a training split", root,
                           (long long)pool, what, (long long)val);
        else
            rf_status_warn(st, "%s: %lld %s; data.val_size and data.test_size capped to %lld and %lld to leave a "
                           "training split", root, (long long)pool, what, (long long)val, (long long)test);
    }
    int64_t rest = pool - val - test, train = rest < cfg->data.train_size ? rest : cfg->data.train_size;
    bool ok = take(order, size, RF_SPLIT_TRAIN, items + test + val, train) &&
              take(order, size, RF_SPLIT_VAL, items + test, val) &&
              (fixed_test > 0 ? take(order, size, RF_SPLIT_TEST, items + pool, fixed_test)
                              : take(order, size, RF_SPLIT_TEST, items, test));
    free(items);
    return ok || rf_fail(st, "%s: out of memory", root);
}
