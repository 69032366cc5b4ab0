/* Curricula (core/curriculum.h): the stage list of train.curriculum parsed
 * into stage configs, the steps they count on with, the refusals, and the
 * weights carried from one stage's trainer to the next
 * (rf_trainer_copy_weights, rf_trainer_init_weights_from). The command
 * line's runs of stages, their resume and their equality with `train
 * --init` chains are in test_cli.sh and test_crash.sh. */
#include <string.h>

#include "../core/curriculum.h"
#include "../core/train.h"
#include "../datasets/datasets.h"
#include "tap.h"

static rf_config with_curriculum(const char *list)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    cfg.train.steps = 500;
    snprintf(cfg.train.curriculum, sizeof cfg.train.curriculum, "%s", list);
    return cfg;
}

static void test_stages(void)
{
    rf_config run = with_curriculum("  data.min_len=20 data.max_len=100\ttrain.steps=30 train.lr=1e-3 ;"
                                    "data.min_len=100 data.max_len=500 data.batch=16 train.steps=70  ");
    rf_status st = {0};
    tap_ok(rf_curriculum_check(&run, &st) && rf_config_validate(&run, &st), "a two-stage curriculum is valid (%s)",
           st.msg);
    tap_ok(rf_curriculum_count(&run) == 3, "two stages listed and the run's own: 3 (%d)", rf_curriculum_count(&run));
    rf_config s0, s1, s2;
    bool ok = rf_curriculum_stage(&run, 0, &s0, &st) && rf_curriculum_stage(&run, 1, &s1, &st) &&
              rf_curriculum_stage(&run, 2, &s2, &st);
    tap_ok(ok && s0.data.min_len == 20 && s0.data.max_len == 100 && s0.train.steps == 30 && s0.train.lr == 1e-3f &&
               s0.data.batch == run.data.batch,
           "stage 1 has its four assignments, and the run's batch");
    tap_ok(ok && s1.data.min_len == 100 && s1.data.max_len == 500 && s1.data.batch == 16 && s1.train.steps == 70 &&
               s1.train.lr == run.train.lr,
           "stage 2 has its own, and the run's learning rate, not stage 1's");
    tap_ok(ok && s2.data.min_len == run.data.min_len && s2.data.max_len == run.data.max_len && s2.train.steps == 500,
           "the last stage is the run's own config");
    tap_ok(ok && s0.train.curriculum[0] == '\0' && s2.train.curriculum[0] == '\0' && s1.train.stage == 0,
           "a stage's config is a plain run: no curriculum, stage 0");
    tap_ok(rf_curriculum_first_step(&run, 0) == 0 && rf_curriculum_first_step(&run, 1) == 30 &&
               rf_curriculum_first_step(&run, 2) == 100 && rf_curriculum_first_step(&run, 3) == 600,
           "stages begin at steps 0, 30 and 100 of 600");
    run.train.stage = 2;
    tap_ok(rf_curriculum_run_step(&run, 7) == 107, "a checkpoint at step 7 of the last stage is the run's step 107");

    rf_config plain;
    rf_config_defaults(&plain);
    tap_ok(rf_curriculum_count(&plain) == 1 && rf_curriculum_first_step(&plain, 1) == plain.train.steps &&
               rf_curriculum_stage(&plain, 0, &s0, &st) && memcmp(&s0, &plain, sizeof s0) == 0,
           "without a curriculum: one stage, the config itself");
}

/* Each refusal names what is wrong. */
static void test_refusals(void)
{
    const struct {
        const char *list, *pos, *want, *what;
        int stage;
    } cases[] = {
        {"data.min_len=20 data.max_len=100 train.steps=10; model.dim=32 train.steps=5", "none",
         "stage 2: model.dim cannot change", "a stage changing the model", 0},
        {"data.max_len=100", "none", "stage 1: name its length with train.steps", "a stage without its steps", 0},
        {"data.min_len=20 data.max_len=100 train.steps=10;", "none", "stage 2 is empty", "an empty stage", 0},
        {"data.max_len=100 train.steps", "none", "'train.steps' is not section.key=value", "an assignment without =",
         0},
        {"data.min_len=200 data.max_len=100 train.steps=10", "none", "stage 1: data.min_len = 200",
         "a stage that is not a valid config", 0},
        {"data.max_len=100 train.steps=ten", "none", "stage 1: train.steps", "a bad value", 0},
        {"data.max_len=100 train.steps=10", "learned", "model.pos = learned", "a length change with learned positions",
         0},
        {"data.max_len=100 train.steps=10", "none", "train.stage = 2", "train.stage past the last stage", 2},
        {"train.seed=3 train.steps=10", "none", "train.seed cannot change", "a stage changing the seed", 0},
        {"train.steps=1;train.steps=1;train.steps=1;train.steps=1;train.steps=1;train.steps=1;train.steps=1;"
         "train.steps=1", "none", "at most 7", "more stages than RF_CURRICULUM_MAX", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        rf_config run = with_curriculum(cases[i].list);
        strcpy(run.model.pos, cases[i].pos);
        run.train.stage = cases[i].stage;
        rf_status st = {0};
        bool refused = !rf_config_validate(&run, &st);
        if (!tap_ok(refused && strstr(st.msg, cases[i].want) != NULL, "refused: %s", cases[i].what))
            tap_diag("wanted '%s' in: %s", cases[i].want, refused ? st.msg : "(accepted)");
    }
}

static rf_trainer *trainer_for(const rf_config *cfg, rf_dataset **ds, rf_status *st)
{
    *ds = rf_dataset_open(cfg, st);
    return *ds != NULL ? rf_trainer_new(cfg, *ds, st) : NULL;
}

/* A stage's last weights into the next stage's trainer: bit for bit, the
 * AdamW moments zero and the step 0; a model of another shape is refused. */
static void test_weights_carry(void)
{
    rf_config a;
    rf_config_defaults(&a);
    a.data.batch = 4;
    a.data.max_len = 30;
    a.data.min_len = 5;
    a.data.train_size = 64;
    a.data.val_size = 8;
    a.data.test_size = 8;
    a.model.dim = 16;
    a.model.heads = 2;
    a.model.ff = 32;
    a.train.threads = 1;
    a.train.steps = 5;
    rf_config b = a, wide = a;
    b.data.max_len = 60;   /* the next stage: longer inputs, the same weights */
    b.data.min_len = 30;
    b.train.seed = 9;      /* its own initialisation differs */
    wide.model.ff = 48;

    rf_status st = {0};
    rf_dataset *da = NULL, *db = NULL, *dw = NULL;
    rf_trainer *ta = trainer_for(&a, &da, &st), *tb = ta != NULL ? trainer_for(&b, &db, &st) : NULL;
    rf_trainer *tw = tb != NULL ? trainer_for(&wide, &dw, &st) : NULL;
    rf_metrics m;
    bool ok = tw != NULL;
    for (int i = 0; ok && i < 5; i++)
        ok = rf_trainer_step(ta, &m, &st);
    rf_params *w = ok ? rf_trainer_copy_weights(ta, &st) : NULL;
    ok = w != NULL && rf_trainer_step(tb, &m, &st) && rf_trainer_init_weights_from(tb, w, &st);
    if (!tap_ok(ok, "5 steps, the weights copied and taken by a trainer of longer inputs")) {
        tap_diag("%s", st.msg);
    } else {
        const rf_params *pa = rf_trainer_params(ta), *pb = rf_trainer_params(tb);
        size_t zero = 0, moving = 0;
        for (size_t i = 0; i < pb->total; i++) {
            zero += pb->m[i] == 0.0f && pb->v[i] == 0.0f;
            moving += pa->m[i] != 0.0f;
        }
        tap_ok(pa->total == pb->total && memcmp(pa->value, pb->value, pa->total * sizeof(float)) == 0,
               "the next stage starts from the last one's weights bit for bit");
        tap_ok(zero == pb->total && moving > 0 && rf_trainer_step_count(tb) == 0,
               "its AdamW moments are zero (%zu of %zu) and its step 0, after a step of its own", zero, pb->total);
        rf_status why = {0};
        tap_ok(!rf_trainer_init_weights_from(tw, w, &why) && strstr(why.msg, "parameter ") != NULL &&
                   strstr(why.msg, "numbers in the weights carried over") != NULL,
               "a model with another MLP width is refused, naming the parameter: %s", why.msg);
    }
    rf_params_free(w);
    rf_trainer_free(tw);
    rf_trainer_free(tb);
    rf_trainer_free(ta);
    rf_dataset_free(dw);
    rf_dataset_free(db);
    rf_dataset_free(da);
}

int main(void)
{
    test_stages();
    test_refusals();
    test_weights_carry();
    return tap_done();
}
