/* ListOps generation, storage, tokeniser and evaluator (see listops.h). */
#include "listops.h"

#include <ctype.h>
#include <glib.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "featurise.h"

#define OPERATOR_P 0.25           /* LRA's VALUE_P: a node is a digit when r > 0.25 */
#define OPERATORS 4
#define DIGITS 10
#define LISTOPS_STREAM 0x4c6973744f7073ull   /* "ListOps": keeps this stream apart from others of the seed */
/* Draws in a row without a new example after which the settings are judged
 * to admit too few distinct expressions (max_depth = 1 has only ten). */
#define STALL_LIMIT 1000000

static const char *const token_texts[RF_LISTOPS_VOCAB] = {
    "<pad>", "[MIN", "[MAX", "[MED", "[SM", "]", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9",
};

static const char *const class_names[DIGITS] = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"};

const char *rf_listops_token_text(int id)
{
    return id >= 0 && id < RF_LISTOPS_VOCAB ? token_texts[id] : "?";
}

/* ---- operator values over a multiset of digits (counts per digit) ---- */

static int nth_smallest(const int counts[DIGITS], int k)
{
    for (int d = 0; d < DIGITS; d++) {
        if (k < counts[d])
            return d;
        k -= counts[d];
    }
    return DIGITS - 1;
}

/* op is a token id RF_LISTOPS_MIN..RF_LISTOPS_SM; n > 0 arguments. */
static int apply(int op, const int counts[DIGITS], int n)
{
    switch (op) {
    case RF_LISTOPS_MIN:
        return nth_smallest(counts, 0);
    case RF_LISTOPS_MAX:
        return nth_smallest(counts, n - 1);
    case RF_LISTOPS_MED:
        /* int(np.median(args)): the two middle values' mean on an even count,
         * truncated; the values are non-negative, so integer division agrees. */
        if (n % 2 == 1)
            return nth_smallest(counts, n / 2);
        return (nth_smallest(counts, n / 2 - 1) + nth_smallest(counts, n / 2)) / 2;
    default: {
        int sum = 0;
        for (int d = 0; d < DIGITS; d++)
            sum += d * counts[d];
        return sum % DIGITS;
    }
    }
}

/* ---- the generator ---- */

typedef struct tree_writer {
    rf_rng *rng;
    int max_depth, max_args;
    uint8_t *buf;
    int cap, len;
} tree_writer;

static bool put(tree_writer *w, int token)
{
    if (w->len == w->cap)
        return false;
    w->buf[w->len++] = (uint8_t)token;
    return true;
}

/* One node at `depth`: its value, or -1 once the tree outgrows the buffer.
 * The draws come in LRA's order: r, then a digit or the child count, the
 * children, and the operator last (its token slot is filled afterwards). */
static int generate_node(tree_writer *w, int depth)
{
    double r = depth < w->max_depth ? rf_rng_uniform(w->rng) : 1.0;
    if (r > OPERATOR_P) {
        int digit = (int)rf_rng_int(w->rng, 0, DIGITS - 1);
        return put(w, RF_LISTOPS_DIGIT0 + digit) ? digit : -1;
    }
    int n = (int)rf_rng_int(w->rng, 2, w->max_args);
    int op_slot = w->len;
    if (!put(w, RF_LISTOPS_PAD))
        return -1;
    int counts[DIGITS] = {0};
    for (int i = 0; i < n; i++) {
        int v = generate_node(w, depth + 1);
        if (v < 0)
            return -1;
        counts[v]++;
    }
    int op = RF_LISTOPS_MIN + (int)rf_rng_int(w->rng, 0, OPERATORS - 1);
    w->buf[op_slot] = (uint8_t)op;
    return put(w, RF_LISTOPS_CLOSE) ? apply(op, counts, n) : -1;
}

int rf_listops_generate(rf_rng *rng, int max_depth, int max_args, uint8_t *buf, int cap, int *value)
{
    tree_writer w = {rng, max_depth, max_args, buf, cap, 0};
    int v = generate_node(&w, 1);
    if (v < 0)
        return -1;
    *value = v;
    return w.len;
}

/* ---- tokeniser and evaluator ---- */

static bool is_separator(char c)
{
    return isspace((unsigned char)c) || c == '(' || c == ')';
}

static int token_id(const char *s, size_t n)
{
    if (n == 1 && s[0] == 'X')
        return RF_LISTOPS_CLOSE;
    for (int id = RF_LISTOPS_MIN; id < RF_LISTOPS_VOCAB; id++)
        if (strlen(token_texts[id]) == n && memcmp(token_texts[id], s, n) == 0)
            return id;
    return -1;
}

int rf_listops_tokenize(const char *text, uint8_t *ids, int cap, rf_status *st)
{
    int n = 0;
    const char *p = text;
    for (;;) {
        while (*p != '\0' && is_separator(*p))
            p++;
        if (*p == '\0')
            return n;
        const char *start = p;
        while (*p != '\0' && !is_separator(*p))
            p++;
        size_t len = (size_t)(p - start);
        int id = token_id(start, len);
        if (id < 0) {
            rf_fail(st, "unknown ListOps token '%.*s' at character %td (known: ( ) [MIN [MAX [MED [SM ] X 0-9)",
                    len > 40 ? 40 : (int)len, start, start - text);
            return -1;
        }
        if (n == cap) {
            rf_fail(st, "ListOps text has more than %d tokens", cap);
            return -1;
        }
        ids[n++] = (uint8_t)id;
    }
}

/* A stack holds digit values (0-9) and open operators (DIGITS + token id);
 * a close token folds everything above the innermost open operator. */
int rf_listops_eval(const uint8_t *ids, int n)
{
    if (n <= 0)
        return -1;
    uint8_t *stack = malloc((size_t)n);
    if (stack == NULL)
        return -1;
    int top = 0, result = -1;
    for (int i = 0; i < n; i++) {
        int id = ids[i];
        if (id >= RF_LISTOPS_DIGIT0 && id < RF_LISTOPS_VOCAB) {
            stack[top++] = (uint8_t)(id - RF_LISTOPS_DIGIT0);
        } else if (id >= RF_LISTOPS_MIN && id <= RF_LISTOPS_SM) {
            stack[top++] = (uint8_t)(DIGITS + id);
        } else if (id == RF_LISTOPS_CLOSE) {
            int counts[DIGITS] = {0}, args = 0;
            while (top > 0 && stack[top - 1] < DIGITS) {
                counts[stack[--top]]++;
                args++;
            }
            if (top == 0 || args == 0)
                goto done;
            stack[top - 1] = (uint8_t)apply(stack[top - 1] - DIGITS, counts, args);
        } else {
            goto done;
        }
    }
    if (top == 1 && stack[0] < DIGITS)
        result = stack[0];
done:
    free(stack);
    return result;
}

/* ---- data.concat ---- */

int rf_listops_concat_length(int n, int k)
{
    return k > 1 ? k * n + 2 : n;
}

int rf_listops_concat_token(const uint8_t *expr, int n, int k, int pos)
{
    if (k == 1)
        return expr[pos];
    if (pos == 0)
        return RF_LISTOPS_MAX;
    if (pos == k * n + 1)
        return RF_LISTOPS_CLOSE;
    return expr[(pos - 1) % n];
}

int rf_listops_concat_fill(const uint8_t *expr, int n, int k, float *x)
{
    int len = rf_listops_concat_length(n, k);
    for (int pos = 0; pos < len; pos++)
        x[pos] = (float)rf_listops_concat_token(expr, n, k, pos);
    return len;
}

int rf_listops_concat_room(int seq_len, int k)
{
    return k > 1 ? (seq_len - 2) / k : seq_len;
}

void rf_listops_concat_text(const uint8_t *expr, int n, int k, char *buf, size_t size)
{
    if (size == 0)
        return;
    buf[0] = '\0';
    size_t used = 0;
    int len = rf_listops_concat_length(n, k);
    for (int pos = 0; pos < len; pos++) {
        const char *text = token_texts[rf_listops_concat_token(expr, n, k, pos)];
        size_t need = strlen(text) + (pos > 0);
        size_t reserve = pos + 1 < len ? 4 : 0;   /* keeps room for " ..." while more tokens follow */
        if (used + need + reserve >= size) {
            if (used + 5 <= size)
                memcpy(buf + used, " ...", 5);
            break;
        }
        used += (size_t)snprintf(buf + used, size - used, "%s%s", pos > 0 ? " " : "", text);
    }
}

/* ---- de-duplication: a set of 64-bit hashes of token sequences ---- */

typedef struct hash_set {
    uint64_t *slot;   /* 0 marks an empty slot */
    size_t mask;
} hash_set;

static bool set_init(hash_set *s, int64_t count)
{
    size_t cap = 16;
    while (cap < 2 * (size_t)count)
        cap *= 2;
    s->slot = calloc(cap, sizeof *s->slot);
    s->mask = cap - 1;
    return s->slot != NULL;
}

/* True if h was not in the set (and is now). */
static bool set_insert(hash_set *s, uint64_t h)
{
    h = h != 0 ? h : 1;
    for (size_t i = h & s->mask;; i = (i + 1) & s->mask) {
        if (s->slot[i] == h)
            return false;
        if (s->slot[i] == 0) {
            s->slot[i] = h;
            return true;
        }
    }
}

static uint64_t hash_tokens(const uint8_t *t, int n)
{
    uint64_t h = rf_mix64((uint64_t)n);
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t word;
        memcpy(&word, t + i, 8);
        h = rf_mix64(h ^ word);
    }
    uint64_t tail = 0;
    memcpy(&tail, t + i, (size_t)(n - i));
    return rf_mix64(h ^ tail);
}

/* ---- the data set ---- */

typedef struct listops {
    rf_dataset ds;
    uint8_t *tokens;                   /* every expression back to back */
    size_t tokens_cap;
    int64_t *offset;                   /* [total + 1]: expression i is tokens[offset[i], offset[i+1]) */
    uint8_t *label;                    /* [total] */
    int64_t first[RF_SPLIT_COUNT];     /* index of each split's first expression */
    int concat;
} listops;

static bool append_tokens(listops *lo, int64_t used, const uint8_t *t, int n)
{
    size_t need = (size_t)used + (size_t)n;
    if (need > lo->tokens_cap) {
        size_t cap = lo->tokens_cap * 2 > need ? lo->tokens_cap * 2 : need;
        uint8_t *p = realloc(lo->tokens, cap);
        if (p == NULL)
            return false;
        lo->tokens = p;
        lo->tokens_cap = cap;
    }
    memcpy(lo->tokens + used, t, (size_t)n);
    return true;
}

/* Draw `total` distinct expressions with min_len < length < max_len. */
static bool generate_all(listops *lo, const rf_config *cfg, int64_t total, rf_status *st)
{
    int cap = cfg->data.max_len - 1;
    uint8_t *tree = malloc((size_t)cap);
    hash_set seen = {0};
    lo->offset = calloc((size_t)total + 1, sizeof *lo->offset);
    lo->label = malloc((size_t)total + 1);
    /* every kept expression is longer than min_len: a lower bound, grown by doubling */
    lo->tokens_cap = (size_t)total * (size_t)(cfg->data.min_len + 1) + 1;
    lo->tokens = malloc(lo->tokens_cap);
    bool ok = tree != NULL && set_init(&seen, total) && lo->offset != NULL && lo->label != NULL &&
              lo->tokens != NULL;
    if (!ok)
        rf_fail(st, "out of memory for %lld ListOps expressions", (long long)total);

    rf_rng rng = {rf_hash3(cfg->train.seed, LISTOPS_STREAM, 0)};
    int64_t n = 0, stall = 0;
    while (ok && n < total) {
        int value = 0;
        int len = rf_listops_generate(&rng, cfg->data.max_depth, cfg->data.max_args, tree, cap, &value);
        if (len > cfg->data.min_len && set_insert(&seen, hash_tokens(tree, len))) {
            if (!append_tokens(lo, lo->offset[n], tree, len)) {
                ok = rf_fail(st, "out of memory for %lld ListOps expressions", (long long)total);
                break;
            }
            lo->offset[n + 1] = lo->offset[n] + len;
            lo->label[n++] = (uint8_t)value;
            stall = 0;
        } else if (++stall == STALL_LIMIT) {
            ok = rf_fail(st, "ListOps: no new expression in %d draws after %lld of %lld; data.min_len = %d, "
                             "max_len = %d, max_depth = %d, max_args = %d admit too few distinct expressions",
                         STALL_LIMIT, (long long)n, (long long)total, cfg->data.min_len, cfg->data.max_len,
                         cfg->data.max_depth, cfg->data.max_args);
        }
    }
    if (ok && lo->offset[total] > 0) {
        uint8_t *p = realloc(lo->tokens, (size_t)lo->offset[total]);   /* give back the slack */
        lo->tokens = p != NULL ? p : lo->tokens;
    }
    free(seen.slot);
    free(tree);
    return ok;
}

/* Where sample `index` of `split` lives; false if there is no such sample. */
static bool locate(const listops *lo, rf_split split, int64_t index, const uint8_t **expr, int *n, int *label)
{
    if ((unsigned)split >= RF_SPLIT_COUNT || index < 0 || index >= lo->ds.size[split])
        return false;
    int64_t i = lo->first[split] + index;
    *expr = lo->tokens + lo->offset[i];
    *n = (int)(lo->offset[i + 1] - lo->offset[i]);
    *label = lo->label[i];
    return true;
}

static bool listops_get(const rf_dataset *ds, rf_split split, int64_t index, float *x, int *len, int *label,
                        rf_status *st)
{
    const listops *lo = ds->impl;
    const uint8_t *expr;
    int n;
    if (!locate(lo, split, index, &expr, &n, label))
        return rf_fail(st, "listops has no %s sample %lld", rf_split_name(split), (long long)index);
    *len = rf_listops_concat_fill(expr, n, lo->concat, x);
    return true;
}

/* "[MAX 2 9 [MIN 4 7 ] 0 ]", with data.concat's outer MAX. */
static bool listops_describe(const rf_dataset *ds, rf_split split, int64_t index, char *buf, size_t size)
{
    const listops *lo = ds->impl;
    const uint8_t *expr;
    int n, label;
    if (size == 0 || !locate(lo, split, index, &expr, &n, &label))
        return false;
    rf_listops_concat_text(expr, n, lo->concat, buf, size);
    return true;
}

bool rf_listops_featurise(const char *source, const char *name, const char *task, bool whole, int concat,
                          int seq_len, float *x, int *len, rf_status *st)
{
    size_t cap = strlen(source) / 2 + 1;   /* a token and a separator take at least two characters */
    uint8_t *ids = malloc(cap);
    rf_status why = {0};
    int n = ids != NULL ? rf_listops_tokenize(source, ids, cap > INT_MAX ? INT_MAX : (int)cap, &why) : -1;
    bool ok;
    if (ids == NULL)
        ok = rf_fail(st, "%s: out of memory", name);
    else if (n < 0)
        ok = rf_fail(st, "%s: %s", name, why.msg);
    else if (n == 0)
        ok = rf_fail(st, "%s: no ListOps tokens (this %s model takes an expression such as [MAX 2 9 ])", name, task);
    else if (rf_listops_concat_length(n, concat) > seq_len)
        ok = rf_fail(st, "%s: %d tokens; this %s model takes expressions of at most %d", name, n, task,
                     rf_listops_concat_room(seq_len, concat));
    else if (whole && rf_listops_eval(ids, n) < 0)
        ok = rf_fail(st, "%s: not one well-formed ListOps expression (every [MIN, [MAX, [MED, [SM needs digits "
                         "or expressions and its closing ])", name);
    else
        ok = true;
    if (ok)
        *len = rf_listops_concat_fill(ids, n, concat, x);
    free(ids);
    return ok;
}

/* An outside expression as a sample: refused unless it is one well-formed
 * expression that fits seq_len (with data.concat, the whole [MAX e e ... e ]). */
static bool listops_featurise(const rf_dataset *ds, const char *path, const char *text, float *x, int *len,
                              rf_status *st)
{
    const listops *lo = ds->impl;
    char *source = rf_input_text(ds, path, text, "a ListOps expression", st);
    if (source == NULL)
        return false;
    char name[128];
    rf_input_name(path, text, name, sizeof name);
    bool ok = rf_listops_featurise(source, name, "listops", true, lo->concat, ds->seq_len, x, len, st);
    g_free(source);
    return ok;
}

static void listops_destroy(rf_dataset *ds)
{
    listops *lo = ds->impl;
    free(lo->tokens);
    free(lo->offset);
    free(lo->label);
    free(lo);
}

static bool check_config(const rf_config *cfg, rf_status *st)
{
    int min_len = cfg->data.min_len, max_len = cfg->data.max_len, concat = cfg->data.concat;
    if (min_len < 0 || min_len + 1 >= max_len)
        return rf_fail(st, "listops needs 0 <= data.min_len < data.max_len - 1 (lengths strictly between); "
                           "got min_len = %d, max_len = %d", min_len, max_len);
    if (cfg->data.max_depth < 1 || cfg->data.max_args < 2)
        return rf_fail(st, "listops needs data.max_depth >= 1 and data.max_args >= 2; got %d and %d",
                       cfg->data.max_depth, cfg->data.max_args);
    if (concat < 1 || (int64_t)max_len * concat + 2 > INT_MAX)
        return rf_fail(st, "listops: data.concat = %d must be >= 1 with concat * max_len within an int", concat);
    if (cfg->data.train_size < 0 || cfg->data.val_size < 0 || cfg->data.test_size < 0)
        return rf_fail(st, "listops: split sizes must be >= 0 (train %d, val %d, test %d)", cfg->data.train_size,
                       cfg->data.val_size, cfg->data.test_size);
    return true;
}

rf_dataset *rf_listops_open(const rf_config *cfg, rf_status *st)
{
    if (!check_config(cfg, st))
        return NULL;
    listops *lo = calloc(1, sizeof *lo);
    if (lo == NULL) {
        rf_fail(st, "out of memory for the ListOps data set");
        return NULL;
    }
    const int sizes[RF_SPLIT_COUNT] = {cfg->data.train_size, cfg->data.val_size, cfg->data.test_size};
    int64_t total = 0;
    for (int s = 0; s < RF_SPLIT_COUNT; s++) {
        lo->first[s] = total;
        lo->ds.size[s] = sizes[s];
        total += sizes[s];
    }
    lo->concat = cfg->data.concat;
    lo->ds.name = "listops";
    lo->ds.seq_len = rf_listops_concat_length(cfg->data.max_len, lo->concat);
    lo->ds.feat_dim = 0;
    lo->ds.vocab = RF_LISTOPS_VOCAB;
    lo->ds.classes = DIGITS;
    lo->ds.class_names = class_names;
    lo->ds.get = listops_get;
    lo->ds.describe = listops_describe;
    lo->ds.featurise = listops_featurise;
    lo->ds.destroy = listops_destroy;
    lo->ds.impl = lo;
    if (!generate_all(lo, cfg, total, st)) {
        listops_destroy(&lo->ds);
        return NULL;
    }
    return &lo->ds;
}
