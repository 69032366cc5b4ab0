/* LRA ListOps TSV files (see lra_tsv.h). */
#include "lra_tsv.h"

#include <glib.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "featurise.h"
#include "listops.h"
#include "text_input.h"

#define CLASSES 10
#define HEADER "Source\tTarget"

static const char *const class_names[CLASSES] = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"};
static const char *const split_files[RF_SPLIT_COUNT] = {"train.tsv", "val.tsv", "test.tsv"};

typedef struct lra {
    rf_dataset ds;
    uint8_t *tokens;                 /* every row's ids back to back: train, val, test */
    int64_t *offset;                 /* [rows + 1]: row i is tokens[offset[i], offset[i+1]) */
    uint8_t *labels;                 /* [rows] */
    int64_t first[RF_SPLIT_COUNT];
    int64_t truncated;
    int concat;                      /* data.concat */
} lra;

/* Rows while reading. */
typedef struct reader {
    GByteArray *tokens, *labels;
    GArray *offset;     /* int64_t, starts with 0 */
    uint8_t *ids;       /* the tokeniser's buffer */
    size_t ids_cap;
    int max_len;
    int64_t truncated;
} reader;

static bool parse_row(reader *r, const char *path, int64_t line, char *text, rf_status *st)
{
    char *tab = strchr(text, '\t');
    if (tab == NULL)
        return rf_fail(st, "%s:%lld: expected 'source<TAB>target', found no tab", path, (long long)line);
    *tab = '\0';
    const char *target = tab + 1;
    if (strchr(target, '\t') != NULL)
        return rf_fail(st, "%s:%lld: more than two tab-separated columns", path, (long long)line);
    gint64 label = 0;
    GError *err = NULL;
    if (!g_ascii_string_to_signed(target, 10, 0, CLASSES - 1, &label, &err)) {
        rf_fail(st, "%s:%lld: target: %s", path, (long long)line, err->message);
        g_error_free(err);
        return false;
    }
    /* a token is at least one character and a separator: at most len / 2 + 1 of them */
    size_t cap = strlen(text) / 2 + 1;
    if (cap > INT_MAX)
        return rf_fail(st, "%s:%lld: source too long", path, (long long)line);
    if (cap > r->ids_cap) {
        uint8_t *ids = realloc(r->ids, cap);
        if (ids == NULL)
            return rf_fail(st, "%s:%lld: out of memory", path, (long long)line);
        r->ids = ids;
        r->ids_cap = cap;
    }
    rf_status why = {0};
    int n = rf_listops_tokenize(text, r->ids, (int)cap, &why);
    if (n < 0)
        return rf_fail(st, "%s:%lld: %s", path, (long long)line, why.msg);
    if (n == 0)
        return rf_fail(st, "%s:%lld: the source has no tokens", path, (long long)line);
    if (n > r->max_len) {
        n = r->max_len;
        r->truncated++;
    }
    g_byte_array_append(r->tokens, r->ids, (guint)n);
    int64_t end = (int64_t)r->tokens->len;
    g_array_append_val(r->offset, end);
    uint8_t y = (uint8_t)label;
    g_byte_array_append(r->labels, &y, 1);
    return true;
}

/* One file's reading: the header on its first line, then rows up to the limit. */
typedef struct file_reader {
    reader *r;
    const char *path;
    int64_t limit, rows;
    bool header, failed;
    char found[41];     /* the start of line 1, for the error when it is not the header */
    rf_status *st;
} file_reader;

static gboolean read_line(void *ctx, int64_t line, char *text)
{
    file_reader *f = ctx;
    if (line == 1) {
        f->header = strcmp(text, HEADER) == 0;
        g_strlcpy(f->found, text, sizeof f->found);
    }
    else if (parse_row(f->r, f->path, line, text, f->st))
        f->rows++;
    else
        f->failed = true;
    return f->header && !f->failed && f->rows < f->limit;
}

/* The header, then up to `limit` rows; *rows gets how many were read. */
static bool read_file(reader *r, const char *path, int64_t limit, int64_t *rows, rf_status *st)
{
    file_reader f = {.r = r, .path = path, .limit = limit, .st = st};
    int64_t lines = 0;
    char *problem = rf_text_table_each(path, read_line, &f, &lines);
    bool ok = problem == NULL || rf_fail(st, "%s", problem);
    g_free(problem);
    *rows = f.rows;
    if (!ok || f.failed)
        return false;
    if (lines == 0)
        return rf_fail(st, "%s: empty file (expected the header 'Source<TAB>Target')", path);
    if (!f.header)
        return rf_fail(st, "%s:1: expected the header 'Source<TAB>Target', found '%s'", path, f.found);
    if (f.rows == 0)
        return rf_fail(st, "%s: no rows after the header", path);
    return true;
}

static bool locate(const lra *l, rf_split split, int64_t index, int64_t *row)
{
    if ((unsigned)split >= RF_SPLIT_COUNT || index < 0 || index >= l->ds.size[split])
        return false;
    *row = l->first[split] + index;
    return true;
}

static bool lra_get(const rf_dataset *ds, rf_split split, int64_t index, float *x, int *len, int *label,
                    rf_status *st)
{
    const lra *l = ds->impl;
    int64_t r;
    if (!locate(l, split, index, &r))
        return rf_fail(st, "lra_tsv has no %s sample %lld", rf_split_name(split), (long long)index);
    const uint8_t *ids = l->tokens + l->offset[r];
    int n = (int)(l->offset[r + 1] - l->offset[r]);
    *len = rf_listops_concat_fill(ids, n, l->concat, x);
    *label = l->labels[r];
    return true;
}

/* "[MAX 2 9 [MIN 4 7 ] 0 ]", with data.concat's outer MAX. */
static bool lra_describe(const rf_dataset *ds, rf_split split, int64_t index, char *buf, size_t size)
{
    const lra *l = ds->impl;
    int64_t r;
    if (size == 0 || !locate(l, split, index, &r))
        return false;
    rf_listops_concat_text(l->tokens + l->offset[r], (int)(l->offset[r + 1] - l->offset[r]), l->concat, buf,
                           size);
    return true;
}

/* One row in the files' format ("source<TAB>target", the target not used)
 * or the source alone, tokenised as the loader does (with data.concat's
 * outer MAX). A source longer than the model takes is refused: the loader
 * cuts rows, but the user should know. */
static bool lra_featurise(const rf_dataset *ds, const char *path, const char *text, float *x, int *len,
                          rf_status *st)
{
    const lra *l = ds->impl;
    char *line = rf_input_line(ds, path, text, "a row 'source<TAB>target' or a ListOps source", st);
    if (line == NULL)
        return false;
    char name[128];
    rf_input_name(path, text, name, sizeof name);
    char *tab = strchr(line, '\t');
    if (tab != NULL)
        *tab = '\0';
    bool ok = rf_listops_featurise(line, name, "lra_tsv", false, l->concat, ds->seq_len, x, len, st);
    g_free(line);
    return ok;
}

static void lra_destroy(rf_dataset *ds)
{
    lra *l = ds->impl;
    g_free(l->tokens);
    g_free(l->offset);
    g_free(l->labels);
    g_free(l);
}

/* basic_train.tsv ... when there, else train.tsv ... */
static const char *file_prefix(const char *dir, rf_status *st)
{
    static const char *const prefixes[] = {"basic_", ""};
    for (int i = 0; i < 2; i++) {
        char *name = g_strconcat(prefixes[i], split_files[RF_SPLIT_TRAIN], NULL);
        char *path = g_build_filename(dir, name, NULL);
        bool found = g_file_test(path, G_FILE_TEST_EXISTS);
        g_free(name);
        g_free(path);
        if (found)
            return prefixes[i];
    }
    rf_fail(st, "%s: neither basic_train.tsv nor train.tsv is there (LRA ListOps: basic_{train,val,test}.tsv)",
            dir);
    return NULL;
}

static bool load(lra *l, const rf_config *cfg, reader *r, rf_status *st)
{
    const char *prefix = file_prefix(cfg->data.path, st);
    if (prefix == NULL)
        return false;
    const int limits[RF_SPLIT_COUNT] = {cfg->data.train_size, cfg->data.val_size, cfg->data.test_size};
    bool ok = true;
    for (int s = 0; ok && s < RF_SPLIT_COUNT; s++) {
        char *name = g_strconcat(prefix, split_files[s], NULL);
        char *path = g_build_filename(cfg->data.path, name, NULL);
        l->first[s] = (int64_t)r->labels->len;
        ok = read_file(r, path, limits[s], &l->ds.size[s], st);
        g_free(name);
        g_free(path);
    }
    return ok;
}

rf_dataset *rf_lra_tsv_open(const rf_config *cfg, rf_status *st)
{
    if (cfg->data.path[0] == '\0') {
        rf_fail(st, "lra_tsv needs data.path: the folder with basic_train.tsv, basic_val.tsv, basic_test.tsv");
        return NULL;
    }
    lra *l = g_new0(lra, 1);
    l->concat = cfg->data.concat;
    l->ds.name = "lra_tsv";
    l->ds.feat_dim = 0;
    l->ds.vocab = RF_LISTOPS_VOCAB;
    l->ds.classes = CLASSES;
    l->ds.class_names = class_names;
    l->ds.get = lra_get;
    l->ds.describe = lra_describe;
    l->ds.featurise = lra_featurise;
    l->ds.destroy = lra_destroy;
    l->ds.impl = l;
    reader r = {g_byte_array_new(), g_byte_array_new(), g_array_new(FALSE, FALSE, sizeof(int64_t)), NULL, 0,
                cfg->data.max_len, 0};
    int64_t zero = 0;
    g_array_append_val(r.offset, zero);
    bool ok = load(l, cfg, &r, st);
    l->truncated = r.truncated;
    l->tokens = g_byte_array_free(r.tokens, FALSE);
    l->labels = g_byte_array_free(r.labels, FALSE);
    l->offset = (int64_t *)(void *)g_array_free(r.offset, FALSE);
    free(r.ids);
    if (!ok) {
        lra_destroy(&l->ds);
        return NULL;
    }
    int64_t rows = l->ds.size[0] + l->ds.size[1] + l->ds.size[2];
    int longest = 0;
    for (int64_t i = 0; i < rows; i++)
        if (l->offset[i + 1] - l->offset[i] > longest)
            longest = (int)(l->offset[i + 1] - l->offset[i]);
    l->ds.seq_len = rf_listops_concat_length(longest, l->concat);
    return &l->ds;
}

int64_t rf_lra_tsv_truncated(const rf_dataset *ds)
{
    return ds != NULL && ds->destroy == lra_destroy ? ((const lra *)ds->impl)->truncated : 0;
}
