/* The two matrix-product libraries and the choice between them
 * (core/gemm.h, core/gemm_cache.h): each library against a double
 * reference, results independent of the thread count, the choice taken
 * from the timings, the cache file's round trip and its refusal of corrupt
 * or foreign lines, and every product of a training step declared at plan
 * time. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/blas.h"
#include "../core/cpu/cpu_features.h"
#include "../core/gemm_cache.h"
#include "../core/train.h"
#include "../datasets/datasets.h"
#include "cache_refusals.h"
#include "tap.h"
#include "tolerance.h"

static float *filled(size_t n, float step)
{
    float *p = malloc((n + 1) * sizeof *p);
    for (size_t i = 0; i < n; i++)
        p[i] = sinf(step * (float)i + 0.3f);
    return p;
}

/* ---- each library against a double reference ---- */

typedef struct {
    bool ta, tb;
    int m, n, k;
} case_shape;

static double worst_error(const case_shape *c, const float *A, const float *B, const float *C0, const float *C,
                          float alpha, float beta)
{
    int lda = c->ta ? c->m : c->k, ldb = c->tb ? c->k : c->n;
    double worst = 0;
    for (int i = 0; i < c->m; i++)
        for (int j = 0; j < c->n; j++) {
            double want = beta * (double)C0[(size_t)i * c->n + j], mag = fabs(want);
            for (int l = 0; l < c->k; l++) {
                double a = c->ta ? A[(size_t)l * lda + i] : A[(size_t)i * lda + l];
                double b = c->tb ? B[(size_t)j * ldb + l] : B[(size_t)l * ldb + j];
                want += alpha * a * b;
                mag += fabs(alpha * a * b);
            }
            double e = fabs(C[(size_t)i * c->n + j] - want) / tol_sum(c->k + 1, mag);
            worst = e > worst ? e : worst;
        }
    return worst;
}

/* rf_sgemm_on cuts by rows, by columns, along k or not at all; every
 * transpose case, alpha and beta, on 3 threads. */
static void test_against_reference(void)
{
    static const case_shape cases[] = {
        {false, false, 7, 5, 3},      {true, false, 1100, 70, 9},   {false, true, 60, 900, 33},
        {true, true, 530, 300, 17},   {false, false, 40, 33, 5000}, {true, true, 35, 41, 3001},
    };
    rf_pool *pool = rf_pool_new(3);
    for (int lib = 0; lib < RF_GEMM_LIBS; lib++)
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
            const case_shape *c = &cases[i];
            size_t mn = (size_t)c->m * c->n;
            float *A = filled((size_t)c->m * c->k, 0.37f), *B = filled((size_t)c->k * c->n, 0.11f);
            float *C0 = filled(mn, 0.05f), *C = malloc(mn * sizeof *C);
            memcpy(C, C0, mn * sizeof *C);
            rf_sgemm_on(pool, lib, c->ta, c->tb, c->m, c->n, c->k, 0.75f, A, c->ta ? c->m : c->k, B,
                        c->tb ? c->k : c->n, -0.5f, C, c->n);
            double worst = worst_error(c, A, B, C0, C, 0.75f, -0.5f);
            if (!tap_ok(worst <= 1.0, "%s: %d x %d x %d (%c%c) matches the double reference",
                        rf_gemm_lib_name(lib), c->m, c->n, c->k, c->ta ? 'T' : 'N', c->tb ? 'T' : 'N'))
                tap_diag("worst error %.3g of its bound", worst);
            free(A);
            free(B);
            free(C0);
            free(C);
        }
    rf_pool_free(pool);
}

/* BLAS's edge cases: k = 0 still scales C by beta; empty matrices with a
 * leading dimension of 0 are accepted. */
static void test_edges(void)
{
    for (int lib = 0; lib < RF_GEMM_LIBS; lib++) {
        float A[4] = {1, 2, 3, 4}, B[4] = {1, 1, 1, 1}, C[4] = {4, 6, 8, 10};
        rf_gemm1(lib, false, false, 2, 2, 0, 1.0f, A, 1, B, 2, 0.5f, C, 2);
        rf_gemm1(lib, true, false, 0, 2, 2, 1.0f, A, 0, B, 2, 0.5f, C, 2);
        tap_ok(C[0] == 2 && C[1] == 3 && C[2] == 4 && C[3] == 5,
               "%s: k = 0 scales C by beta, an empty product changes nothing", rf_gemm_lib_name(lib));
    }
}

/* ---- the thread count changes nothing, with either library ---- */

/* The shapes of issue 14's table (a dense layer of the ListOps models, a
 * square product, a projection, one head's scores) and a batched one. */
static void test_thread_independence(void)
{
    static const case_shape cases[] = {
        {false, false, 64000, 128, 64}, {false, false, 1024, 1024, 1024},
        {false, false, 8000, 64, 128},  {false, true, 2000, 2000, 8},
        {true, false, 64, 128, 64000},
    };
    for (int lib = 0; lib < RF_GEMM_LIBS; lib++) {
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
            const case_shape *c = &cases[i];
            size_t mn = (size_t)c->m * c->n;
            float *A = filled((size_t)c->m * c->k, 0.37f), *B = filled((size_t)c->k * c->n, 0.11f);
            float *C[3];
            for (int t = 0; t < 3; t++) {
                C[t] = calloc(mn, sizeof *C[t]);
                rf_pool *pool = rf_pool_new(t + 1);
                rf_sgemm_on(pool, lib, c->ta, c->tb, c->m, c->n, c->k, 1.0f, A, c->ta ? c->m : c->k, B,
                            c->tb ? c->k : c->n, 0.0f, C[t], c->n);
                rf_pool_free(pool);
            }
            tap_ok(memcmp(C[0], C[1], mn * sizeof(float)) == 0 && memcmp(C[0], C[2], mn * sizeof(float)) == 0,
                   "%s: %d x %d x %d (%c%c) on 1, 2 and 3 threads: bit-identical", rf_gemm_lib_name(lib), c->m,
                   c->n, c->k, c->ta ? 'T' : 'N', c->tb ? 'T' : 'N');
            for (int t = 0; t < 3; t++)
                free(C[t]);
            free(A);
            free(B);
        }
        /* 256 heads' [32, 2000] x [2000, 8], one task each */
        int batch = 256, m = 32, n = 8, k = 2000;
        float *A = filled((size_t)batch * m * k, 0.01f), *B = filled((size_t)batch * k * n, 0.02f);
        float *C1 = calloc((size_t)batch * m * n, sizeof *C1), *C3 = calloc((size_t)batch * m * n, sizeof *C3);
        rf_pool *one = rf_pool_new(1), *three = rf_pool_new(3);
        rf_sgemm_batched_on(one, lib, false, false, m, n, k, batch, A, (int64_t)m * k, B, (int64_t)k * n, 0.0f, C1,
                            (int64_t)m * n);
        rf_sgemm_batched_on(three, lib, false, false, m, n, k, batch, A, (int64_t)m * k, B, (int64_t)k * n, 0.0f,
                            C3, (int64_t)m * n);
        tap_ok(memcmp(C1, C3, (size_t)batch * m * n * sizeof *C1) == 0,
               "%s: 256 batched 32 x 8 x 2000 products on 1 and 3 threads: bit-identical", rf_gemm_lib_name(lib));
        rf_pool_free(one);
        rf_pool_free(three);
        free(A);
        free(B);
        free(C1);
        free(C3);
    }
}

/* ---- modes ---- */

static void test_modes(void)
{
    rf_status st = {0};
    tap_ok(!rf_gemm_set_mode("mkl", &st) && strstr(st.msg, "train.gemm") && strstr(st.msg, "mkl"),
           "an unknown train.gemm is refused, naming it (%s)", st.msg);
    rf_gemm_shape s = {false, false, 3, 5, 7, 1};
    bool ok = rf_gemm_set_mode("onednn", NULL) && rf_gemm_choice(&s) == RF_GEMM_ONEDNN;
    ok = ok && rf_gemm_set_mode("openblas", NULL) && rf_gemm_choice(&s) == RF_GEMM_OPENBLAS;
    tap_ok(ok, "train.gemm = onednn and = openblas force their library");
    setenv("RF_GEMM", "onednn", 1);
    ok = rf_gemm_set_mode("openblas", NULL) && rf_gemm_choice(&s) == RF_GEMM_ONEDNN &&
         strcmp(rf_gemm_mode(), "onednn") == 0;
    unsetenv("RF_GEMM");
    tap_ok(ok, "RF_GEMM in the environment wins over train.gemm");
    rf_gemm_set_mode("auto", NULL);
    rf_gemm_shape never = {true, true, 3, 5, 11, 1};
    rf_gemm_forget();
    ok = rf_gemm_choice(&never) == RF_GEMM_OPENBLAS;
    rf_gemm_entry e[4];
    int n = rf_gemm_entries(e, 4);
    tap_ok(ok && n == 1 && e[0].origin == RF_GEMM_UNPLANNED,
           "auto: a shape no graph declared runs on OpenBLAS, marked as such");
}

/* ---- the cache file ---- */

static const rf_gemm_shape planned[] = {
    {false, false, 3000, 64, 64, 1}, {false, true, 2000, 200, 8, 1}, {true, false, 64, 64, 3000, 1},
    {false, false, 32, 8, 500, 24},
};
#define PLANNED (int)(sizeof planned / sizeof *planned)

static bool all_from(rf_gemm_origin origin)
{
    rf_gemm_entry e[16];
    int n = rf_gemm_entries(e, 16);
    int hits = 0;
    for (int i = 0; i < n && i < 16; i++)
        hits += e[i].origin == origin;
    return hits == PLANNED && n == PLANNED;
}

/* Every auto choice is the faster of its recorded timings. */
static bool choices_follow_timings(void)
{
    rf_gemm_entry e[16];
    int n = rf_gemm_entries(e, 16);
    for (int i = 0; i < n && i < 16; i++) {
        const double *s = e[i].seconds;
        rf_gemm_lib faster = s[RF_GEMM_ONEDNN] < s[RF_GEMM_OPENBLAS] ? RF_GEMM_ONEDNN : RF_GEMM_OPENBLAS;
        if (!(s[0] > 0 && s[1] > 0) || e[i].lib != faster)
            return false;
    }
    return n > 0;
}

static void write_text(const char *path, const char *text)
{
    g_file_set_contents(path, text, -1, NULL);
}

/* The file read as a plan reads it; false (and nothing kept) when untrusted. */
static bool read_gemm_cache(const char *path, rf_status *st)
{
    rf_gemm_cached *lines;
    int count;
    bool ok = rf_gemm_cache_read(path, &lines, &count, st);
    bool kept = lines != NULL || count != 0;
    free(lines);
    return ok || kept;
}

static void test_cache(void)
{
    char *dir = g_dir_make_tmp("rf-gemm-XXXXXX", NULL);
    setenv("XDG_CACHE_HOME", dir, 1);
    rf_gemm_set_mode("auto", NULL);
    rf_gemm_forget();
    char *path = rf_gemm_cache_path();
    tap_ok(path != NULL && g_str_has_prefix(path, dir) && g_str_has_suffix(path, "/rangefinder/gemm-choices.tsv"),
           "the cache lives under $XDG_CACHE_HOME/rangefinder/ (%s)", path);

    rf_gemm_plan(planned, PLANNED);
    tap_ok(all_from(RF_GEMM_TIMED), "a first plan times every shape");
    tap_ok(choices_follow_timings(), "each choice is the faster library of its own timings");
    rf_gemm_cached *lines = NULL;
    int count = 0;
    rf_status st = {0};
    bool read = rf_gemm_cache_read(path, &lines, &count, &st);
    rf_gemm_entry e[16];
    int n = rf_gemm_entries(e, 16);
    bool same = read && count == PLANNED && n == PLANNED;
    for (int i = 0; same && i < count; i++)
        same = strcmp(lines[i].cpu, rf_cpu_key()) == 0 && lines[i].lib == e[i].lib &&
               fabs(lines[i].seconds[0] / e[i].seconds[0] - 1) < 1e-6 &&
               fabs(lines[i].seconds[1] / e[i].seconds[1] - 1) < 1e-6;
    tap_ok(same, "the file holds the choices and their timings, for this CPU (%s)", rf_cpu_key());
    free(lines);

    rf_gemm_forget();
    rf_gemm_plan(planned, PLANNED);
    rf_gemm_entry again[16];
    n = rf_gemm_entries(again, 16);
    same = all_from(RF_GEMM_CACHED) && n == PLANNED;
    for (int i = 0; same && i < n; i++)
        same = again[i].lib == e[i].lib;
    tap_ok(same, "a second run takes every choice from the file and times nothing");

    /* fewer rows than planned (a row scope): the nearest chosen shape's library */
    rf_gemm_shape fewer_rows = planned[0], fewer_batch = planned[3], other_k = planned[0];
    fewer_rows.m = 1700;
    fewer_batch.batch = 10;
    other_k.k = 32;
    rf_gemm_lib by_rows = rf_gemm_choice(&fewer_rows), by_batch = rf_gemm_choice(&fewer_batch);
    rf_gemm_lib by_k = rf_gemm_choice(&other_k);
    rf_gemm_entry near[16];
    n = rf_gemm_entries(near, 16);
    int nearest = 0, unplanned = 0;
    for (int i = 0; i < n; i++) {
        nearest += near[i].origin == RF_GEMM_NEAREST;
        unplanned += near[i].origin == RF_GEMM_UNPLANNED;
    }
    tap_ok(by_rows == e[0].lib && by_batch == e[3].lib && by_k == RF_GEMM_OPENBLAS && nearest == 2 && unplanned == 1,
           "a product of fewer rows, or fewer in the batch, takes the planned shape's library (%s, %s); one of "
           "another inner size is undeclared (OpenBLAS)", rf_gemm_lib_name(by_rows), rf_gemm_lib_name(by_batch));

    /* a file that cannot be trusted is refused whole, naming the line */
    static const cache_refusal bad[] = {
        {"a foreign header", "some other file 1\n", "line 1: the first line is not the header"},
        {"a library that lost its own timings", "rangefinder gemm choices 1\nX\tNN\t3\t4\t5\t1\tonednn\t0.1\t0.2\n",
         "line 2: the library is not the faster"},
        {"a missing field", "rangefinder gemm choices 1\nX\tNN\t3\t4\t5\tonednn\t0.1\t0.2\n",
         "line 2: not 9 tab-separated fields"},
        {"a dimension out of range", "rangefinder gemm choices 1\nX\tNN\t3\t0\t5\t1\topenblas\t0.1\t0.2\n",
         "line 2: a dimension"},
        {"a timing that is not a number", "rangefinder gemm choices 1\nX\tTN\t3\t4\t5\t1\topenblas\tnan\t0.2\n",
         "line 2: a timing"},
        {"a line cut short", "rangefinder gemm choices 1\nX\tNN\t3\t4\t5\t1\topenblas\t0.1\t0.", "line 2: a line cut"},
        {"unknown transposes", "rangefinder gemm choices 1\nX\tNX\t3\t4\t5\t1\topenblas\t0.1\t0.2\n",
         "line 2: transposes"},
    };
    check_cache_refusals(path, bad, sizeof bad / sizeof *bad, read_gemm_cache);
    /* a corrupt file costs a warning and a new timing, and is rewritten */
    char *corrupt = g_strdup_printf("rangefinder gemm choices 1\n%s\tNN\t3000\t64\t64\t1\tonednn\t9\t1\ngarbage\n",
                                    rf_cpu_key());
    write_text(path, corrupt);
    rf_gemm_forget();
    rf_gemm_plan(planned, PLANNED);
    rf_status_clear(&st);
    read = rf_gemm_cache_read(path, &lines, &count, &st);
    tap_ok(all_from(RF_GEMM_TIMED) && read && count == PLANNED,
           "a corrupt file is not trusted (every shape timed again) and is rewritten whole (%d lines)", count);
    free(lines);
    g_free(corrupt);

    /* another CPU's lines are kept, never used */
    GString *foreign = g_string_new("rangefinder gemm choices 1\n");
    for (int i = 0; i < PLANNED; i++)
        g_string_append_printf(foreign, "Imaginary CPU 9000\t%c%c\t%d\t%d\t%d\t%d\tonednn\t2\t1\n",
                               planned[i].ta ? 'T' : 'N', planned[i].tb ? 'T' : 'N', planned[i].m, planned[i].n,
                               planned[i].k, planned[i].batch);
    write_text(path, foreign->str);
    g_string_free(foreign, TRUE);
    rf_gemm_forget();
    rf_gemm_plan(planned, PLANNED);
    read = rf_gemm_cache_read(path, &lines, &count, &st);
    int kept = 0;
    for (int i = 0; read && i < count; i++)
        kept += strcmp(lines[i].cpu, "Imaginary CPU 9000") == 0;
    tap_ok(all_from(RF_GEMM_TIMED) && kept == PLANNED && count == 2 * PLANNED,
           "another CPU model's lines are not used, and are kept in the file");
    free(lines);

    /* a cache folder that cannot be made costs a warning, not the plan */
    char *blocker = g_build_filename(dir, "file", NULL);
    write_text(blocker, "x");
    setenv("XDG_CACHE_HOME", blocker, 1);
    rf_gemm_forget();
    rf_gemm_plan(planned, PLANNED);
    tap_ok(all_from(RF_GEMM_TIMED), "without a writable cache folder every shape is still timed and chosen");
    setenv("XDG_CACHE_HOME", dir, 1);
    g_remove(blocker);
    g_free(blocker);
    remove_cache_dir(dir, path);
}

/* ---- a training step runs only the products its graph declared ---- */

static void test_declared(void)
{
    static const char *const encoders[] = {"full", "ls", "linear", "talk", "blrp", "maelre"};
    char *dir = g_dir_make_tmp("rf-gemm-XXXXXX", NULL);
    setenv("XDG_CACHE_HOME", dir, 1);
    rf_config cfg;
    rf_config_defaults(&cfg);
    strcpy(cfg.data.task, "random");
    cfg.data.batch = 4;
    cfg.data.max_len = 64;
    cfg.data.min_len = 8;
    cfg.data.train_size = 32;
    cfg.data.val_size = cfg.data.test_size = 8;
    cfg.model.dim = 16;
    cfg.model.heads = 2;
    cfg.model.ff = 32;
    cfg.model.segment = 16;
    cfg.model.latent = 8;
    cfg.train.threads = 2;
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    for (size_t i = 0; i < sizeof encoders / sizeof *encoders; i++) {
        rf_config c = cfg;
        strcpy(c.model.encoder, encoders[i]);
        rf_gemm_forget();
        rf_status_clear(&st);
        rf_trainer *t = rf_trainer_new(&c, ds, &st);
        rf_metrics m;
        bool stepped = t != NULL && rf_trainer_step(t, &m, &st);
        rf_gemm_entry e[256];
        int n = rf_gemm_entries(e, 256), unplanned = 0, used = 0;
        for (int j = 0; j < n && j < 256; j++) {
            used += e[j].calls > 0;
            if (e[j].origin == RF_GEMM_UNPLANNED) {
                if (unplanned++ == 0)
                    tap_diag("undeclared: %d x %d x %d (%c%c), batch %d", e[j].shape.m, e[j].shape.n, e[j].shape.k,
                             e[j].shape.ta ? 'T' : 'N', e[j].shape.tb ? 'T' : 'N', e[j].shape.batch);
            }
        }
        tap_ok(stepped && unplanned == 0 && used > 0,
               "%s: a training step's %d product shapes were all declared and chosen when it was planned%s%s",
               encoders[i], used, st.failed ? ": " : "", st.msg);
        rf_trainer_free(t);
    }
    rf_dataset_free(ds);
    char *cache = g_build_filename(dir, "rangefinder", "gemm-choices.tsv", NULL), *sub = g_path_get_dirname(cache);
    g_remove(cache);
    g_rmdir(sub);
    g_rmdir(dir);
    g_free(cache);
    g_free(sub);
    g_free(dir);
}

/* train.gemm defaults to auto; a checkpoint's config written before the
 * key existed (every product on OpenBLAS) loads as openblas, so resuming
 * such a run keeps its rounding; one that names the key keeps it. */
static void test_old_checkpoints(void)
{
    rf_config cfg;
    rf_status st = {0};
    rf_config_defaults(&cfg);
    tap_ok(strcmp(cfg.train.gemm, "auto") == 0, "train.gemm defaults to auto: %s", cfg.train.gemm);
    bool ok = rf_config_from_json(&cfg, "{\"model.encoder\": \"talk\"}", &st);
    tap_ok(ok && strcmp(cfg.train.gemm, "openblas") == 0,
           "a checkpoint config without train.gemm (older) loads as openblas: %s", cfg.train.gemm);
    rf_config_defaults(&cfg);
    char *json = rf_config_to_json(&cfg);
    rf_config back;
    rf_config_defaults(&back);
    ok = json != NULL && rf_config_from_json(&back, json, &st) && strcmp(back.train.gemm, "auto") == 0;
    free(json);
    tap_ok(ok, "a checkpoint config that names train.gemm = auto keeps it");
}

int main(void)
{
    unsetenv("RF_GEMM");
    test_against_reference();
    test_edges();
    test_thread_independence();
    test_modes();
    test_cache();
    test_declared();
    test_old_checkpoints();
    return tap_done();
}
