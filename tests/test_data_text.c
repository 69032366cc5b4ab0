/* Text folders (datasets/text_folder.c): bytes round-trip as ids byte + 1
 * (NUL, 0xff and invalid UTF-8 included), data.max_len cuts, nested class
 * folders, junk ignored (hidden files, .DS_Store, Thumbs.db, __MACOSX/),
 * symbolic-link loops read once, bad files (empty, FIFO, outside a class
 * folder) skipped with a warning or refused under data.strict, seeded and
 * fixed splits, the describe text, and the featurise hook on files and
 * strings. */
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../datasets/datasets.h"
#include "../datasets/text_folder.h"
#include "tap.h"

static char *tmp_root;

static char *make_dir(const char *a, const char *b)
{
    char *dir = g_build_filename(tmp_root, a, b, NULL);
    g_mkdir_with_parents(dir, 0700);
    return dir;
}

static void write_file(const char *root, const char *rel, const void *data, size_t n)
{
    char *path = g_build_filename(root, rel, NULL);
    char *dir = g_path_get_dirname(path);
    g_mkdir_with_parents(dir, 0700);
    g_file_set_contents(path, data, (gssize)n, NULL);
    g_free(dir);
    g_free(path);
}

static void write_text(const char *root, const char *rel, const char *text)
{
    write_file(root, rel, text, strlen(text));
}

static rf_config config_for(const char *path)
{
    rf_config cfg;
    rf_config_defaults(&cfg);
    strcpy(cfg.data.task, "text_folder");
    snprintf(cfg.data.path, sizeof cfg.data.path, "%s", path);
    cfg.data.val_size = 1;
    cfg.data.test_size = 1;
    return cfg;
}

/* The sample whose describe text starts with "rel: ", in any split. */
static bool find_sample(const rf_dataset *ds, const char *rel, rf_split *split, int64_t *index)
{
    char text[512], head[300];
    snprintf(head, sizeof head, "%s: ", rel);
    for (int s = 0; s < RF_SPLIT_COUNT; s++)
        for (int64_t i = 0; i < ds->size[s]; i++)
            if (ds->describe(ds, (rf_split)s, i, text, sizeof text) && g_str_has_prefix(text, head)) {
                *split = (rf_split)s;
                *index = i;
                return true;
            }
    return false;
}

/* The sample of `rel` holds ids bytes + 1, cut to `expect_len`, and label `label`. */
static bool holds_bytes(const rf_dataset *ds, const char *rel, const uint8_t *bytes, int expect_len, int label)
{
    rf_split s;
    int64_t i;
    if (!find_sample(ds, rel, &s, &i))
        return false;
    float *x = calloc((size_t)ds->seq_len, sizeof *x);
    int len = 0, got = -1;
    bool ok = ds->get(ds, s, i, x, &len, &got, NULL) && len == expect_len && got == label;
    for (int t = 0; ok && t < len; t++)
        ok = x[t] == (float)bytes[t] + 1.0f;
    free(x);
    return ok;
}

static int64_t total(const rf_dataset *ds)
{
    return ds->size[0] + ds->size[1] + ds->size[2];
}

static const uint8_t binary[] = {0x00, 0xff, 0xc3, 0x28, 'a', '\n', 0x80, 0x01, 0xfe};

/* neg/ and pos/ (nested two deep), with junk everywhere. */
static char *write_folder(const char *name)
{
    char *root = make_dir(name, NULL);
    write_text(root, "neg/a.txt", "This was awful.");
    write_text(root, "neg/b.txt", "Terrible, I left early.");
    write_file(root, "neg/binary.bin", binary, sizeof binary);
    write_text(root, "pos/c.txt", "A delight from start to end.");
    write_text(root, "pos/deeper/d.txt", "Great fun.");
    write_text(root, "pos/deeper/still/e.txt", "Loved every minute, wonderful cast.");
    write_text(root, ".DS_Store", "junk");
    write_text(root, "neg/.DS_Store", "junk");
    write_text(root, "pos/Thumbs.db", "junk");
    write_text(root, "pos/.hidden/f.txt", "hidden folder");
    write_text(root, "__MACOSX/pos/._c.txt", "resource fork");
    write_text(root, "neg/__MACOSX/._a.txt", "resource fork");
    return root;
}

static void test_values(void)
{
    char *root = write_folder("tf");
    rf_config cfg = config_for(root);
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    if (!tap_ok(ds != NULL, "a text folder opens (%s)", st.msg)) {
        g_free(root);
        return;
    }
    tap_ok(ds->classes == 2 && strcmp(ds->class_names[0], "neg") == 0 && strcmp(ds->class_names[1], "pos") == 0 &&
               ds->vocab == 257 && ds->feat_dim == 0,
           "2 classes neg, pos (sorted), vocab 257 (ids 1..256), token ids");
    tap_ok(total(ds) == 6 && st.warnings == 0 && ds->seq_len == 35,
           "6 files (nested ones included; .DS_Store, Thumbs.db, hidden and __MACOSX/ ignored silently), seq_len = "
           "the longest file, 35 (%lld files, %lld warnings, seq_len %d)",
           (long long)total(ds), st.warnings, ds->seq_len);
    tap_ok(holds_bytes(ds, "neg/a.txt", (const uint8_t *)"This was awful.", 15, 0),
           "neg/a.txt: ids = bytes + 1, label 0");
    tap_ok(holds_bytes(ds, "pos/deeper/still/e.txt", (const uint8_t *)"Loved every minute, wonderful cast.", 35, 1),
           "pos/deeper/still/e.txt, two folders below its class: label 1");
    tap_ok(holds_bytes(ds, "neg/binary.bin", binary, (int)sizeof binary, 0),
           "bytes that are not UTF-8 (NUL, 0xff, a broken sequence) are tokens like any other: 1, 256, ...");
    rf_split s;
    int64_t i;
    char text[64] = "";
    bool found = find_sample(ds, "neg/binary.bin", &s, &i) && ds->describe(ds, s, i, text, sizeof text);
    tap_ok(found && g_utf8_validate(text, -1, NULL) && strstr(text, "a") != NULL,
           "describe shows non-UTF-8 text as valid UTF-8 (%s)", text);
    char small[40] = "";
    found = find_sample(ds, "pos/deeper/still/e.txt", &s, &i) && ds->describe(ds, s, i, small, sizeof small);
    tap_ok(found && strlen(small) < sizeof small && g_str_has_suffix(small, "…") && g_utf8_validate(small, -1, NULL),
           "describe cuts a long text with '…' in a short buffer (%s)", small);

    /* featurise: a file and a string */
    float x[64] = {0};
    int len = 0;
    char *outside = g_build_filename(tmp_root, "outside.txt", NULL);
    g_file_set_contents(outside, "\xff" "hi", 3, NULL);
    bool ok = ds->featurise(ds, outside, NULL, x, &len, &st);
    tap_ok(ok && len == 3 && x[0] == 256 && x[1] == 'h' + 1 && x[2] == 'i' + 1,
           "featurise a file: ids bytes + 1 (%s)", st.msg);
    ok = ds->featurise(ds, NULL, "ok", x, &len, &st);
    tap_ok(ok && len == 2 && x[0] == 'o' + 1 && x[1] == 'k' + 1, "featurise a string (%s)", st.msg);
    char long_text[100];
    memset(long_text, 'z', 99);
    long_text[99] = '\0';
    rf_status_clear(&st);
    ok = ds->featurise(ds, NULL, long_text, x, &len, &st);
    tap_ok(ok && len == ds->seq_len && st.warnings == 1, "featurise cuts a 99-byte string to seq_len %d (%d)",
           ds->seq_len, len);
    rf_status_clear(&st);
    tap_ok(!ds->featurise(ds, NULL, "", x, &len, &st) && strstr(st.msg, "empty") != NULL,
           "featurise an empty string -> %s", st.msg);
    g_file_set_contents(outside, "", 0, NULL);
    rf_status_clear(&st);
    tap_ok(!ds->featurise(ds, outside, NULL, x, &len, &st) && strstr(st.msg, "outside.txt: empty") != NULL,
           "featurise an empty file -> %s", st.msg);
    g_remove(outside);
    rf_status_clear(&st);
    tap_ok(!ds->featurise(ds, outside, NULL, x, &len, &st) && strstr(st.msg, "outside.txt: no such file") != NULL,
           "featurise a missing file -> %s", st.msg);
    g_free(outside);
    rf_dataset_free(ds);

    /* data.max_len cuts files */
    cfg.data.max_len = 10;
    cfg.data.min_len = 0;
    ds = rf_dataset_open(&cfg, &st);
    tap_ok(ds != NULL && ds->seq_len == 10 && rf_text_folder_truncated(ds) == 4 &&
               holds_bytes(ds, "neg/a.txt", (const uint8_t *)"This was awful.", 10, 0),
           "data.max_len = 10: files cut to their first 10 bytes, 4 counted (%lld)",
           (long long)rf_text_folder_truncated(ds));
    rf_dataset_free(ds);

    /* "dir/" is "dir": the files' names below it are the same */
    cfg = config_for(root);
    strcat(cfg.data.path, "//");
    ds = rf_dataset_open(&cfg, &st);
    tap_ok(ds != NULL && holds_bytes(ds, "neg/a.txt", (const uint8_t *)"This was awful.", 15, 0),
           "data.path with trailing separators names the files below it the same (neg/a.txt)");
    rf_dataset_free(ds);

    /* seeded splits */
    cfg = config_for(root);
    rf_dataset *a = rf_dataset_open(&cfg, &st), *b = rf_dataset_open(&cfg, &st);
    bool same = a != NULL && b != NULL;
    for (int sp = 0; same && sp < RF_SPLIT_COUNT; sp++)
        for (int64_t k = 0; same && k < a->size[sp]; k++) {
            char ta[256], tb[256];
            a->describe(a, (rf_split)sp, k, ta, sizeof ta);
            b->describe(b, (rf_split)sp, k, tb, sizeof tb);
            same = strcmp(ta, tb) == 0;
        }
    tap_ok(same && a->size[0] == 4 && a->size[1] == 1 && a->size[2] == 1,
           "the same seed gives the same 4/1/1 split");
    rf_dataset_free(a);
    rf_dataset_free(b);
    cfg.data.val_size = 5;
    rf_status_clear(&st);
    a = rf_dataset_open(&cfg, &st);
    tap_ok(a != NULL && a->size[1] == 1 && a->size[2] == 1 && a->size[0] == 4 && st.warnings == 1 &&
               strstr(st.warning_lines, "capped") != NULL,
           "val_size 5 of 6 files: val and test capped to a quarter, with a warning (%lld)", st.warnings);
    rf_dataset_free(a);
    g_free(root);
}

static void expect_error(const rf_config *cfg, const char *what, const char *piece1, const char *piece2)
{
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(cfg, &st);
    tap_ok(ds == NULL && strstr(st.msg, piece1) != NULL && strstr(st.msg, piece2) != NULL, "%s -> error: %s", what,
           st.msg);
    rf_dataset_free(ds);
}

static void test_bad_files(void)
{
    char *root = write_folder("tf_bad");
    write_text(root, "neg/empty.txt", "");
    write_text(root, "README", "stray");
    char *fifo = g_build_filename(root, "pos", "pipe", NULL);
    bool have_fifo = mkfifo(fifo, 0600) == 0;
    char *loop = g_build_filename(root, "pos", "deeper", "loop", NULL);
    char *target = g_build_filename(root, "pos", NULL);
    bool have_link = symlink(target, loop) == 0;
    rf_config cfg = config_for(root);
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    tap_ok(ds != NULL && total(ds) == 6 && st.warnings == 2 + have_fifo &&
               strstr(st.warning_lines, "empty.txt: empty file") != NULL &&
               strstr(st.warning_lines, "README: not in a class folder") != NULL &&
               (!have_fifo || strstr(st.warning_lines, "pipe: not a regular file") != NULL),
           "an empty file, a stray top-level file and a FIFO are skipped with a warning each; a link back to its "
           "class folder%s is read once (%lld files, %lld warnings)", have_link ? "" : " (no link made here)",
           ds != NULL ? (long long)total(ds) : -1LL, st.warnings);
    rf_dataset_free(ds);
    strcpy(cfg.data.strict, "true");
    expect_error(&cfg, "strict: a stray top-level file", "README", "not in a class folder");
    char *readme = g_build_filename(root, "README", NULL);
    g_remove(readme);
    g_free(readme);
    expect_error(&cfg, "strict: an empty file", "empty.txt", "data.strict");
    g_free(fifo);
    g_free(loop);
    g_free(target);
    g_free(root);

    root = make_dir("tf_one", NULL);
    write_text(root, "only/a.txt", "a");
    cfg = config_for(root);
    expect_error(&cfg, "one class folder", root, "at least two");
    write_text(root, "junk/.DS_Store", "x");
    write_text(root, "junk/Thumbs.db", "x");
    expect_error(&cfg, "a class folder of junk only", "junk", "without a usable text file");
    g_free(root);
    cfg = config_for("");
    expect_error(&cfg, "empty data.path", "text_folder needs data.path", "class");
    char *missing = g_build_filename(tmp_root, "missing", NULL);
    cfg = config_for(missing);
    expect_error(&cfg, "a missing folder", missing, "not a folder");
    g_free(missing);
}

static void test_fixed_split(void)
{
    char *root = make_dir("tf_fixed", NULL);
    write_text(root, "train/neg/1.txt", "bad");
    write_text(root, "train/neg/2.txt", "worse");
    write_text(root, "train/pos/3.txt", "good");
    write_text(root, "train/pos/4.txt", "better");
    write_text(root, "test/neg/5.txt", "awful");
    write_text(root, "test/pos/6.txt", "great");
    write_text(root, "test/pos/7/8.txt", "superb");
    rf_config cfg = config_for(root);
    cfg.data.test_size = 1;
    rf_status st = {0};
    rf_dataset *ds = rf_dataset_open(&cfg, &st);
    rf_split s;
    int64_t i;
    bool in_test = ds != NULL && find_sample(ds, "test/pos/7/8.txt", &s, &i) && s == RF_SPLIT_TEST;
    tap_ok(ds != NULL && ds->classes == 2 && ds->size[RF_SPLIT_TEST] == 3 && ds->size[RF_SPLIT_VAL] == 1 &&
               ds->size[RF_SPLIT_TRAIN] == 3 && in_test,
           "train/ + test/: test is test/ whole (3 files), val drawn from train/ (%s)", st.msg);
    rf_dataset_free(ds);
    g_free(root);
}

int main(void)
{
    tmp_root = g_dir_make_tmp("rf-text-XXXXXX", NULL);
    if (!tap_ok(tmp_root != NULL, "temporary folder for the fixtures"))
        return tap_done();
    test_values();
    test_bad_files();
    test_fixed_split();
    char *cmd = g_strdup_printf("rm -rf '%s'", tmp_root);
    if (system(cmd) != 0)
        tap_diag("could not remove %s", tmp_root);
    g_free(cmd);
    g_free(tmp_root);
    return tap_done();
}
