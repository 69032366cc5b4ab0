#include "model_input.h"

#include <stdio.h>
#include <string.h>

#include "safetensors.h"

/* A 2-D tensor's first or second dimension, or -1 when it is absent or not 2-D. */
static int dim_of(const rf_safetensors *f, const char *name, int axis)
{
    const rf_st_tensor *t = rf_safetensors_find(f, name);
    return t != NULL && t->ndim == 2 ? (int)t->shape[axis] : -1;
}

bool rf_model_input_read(const char *checkpoint, rf_model_input *in, rf_status *st)
{
    rf_safetensors *f = rf_safetensors_open(checkpoint, st);   /* the shapes only: no tensor data is read */
    if (f == NULL)
        return false;
    int vocab = dim_of(f, "embed.tokens", 0), features = dim_of(f, "embed.features.weight", 0);
    int classes = dim_of(f, "head.fc.weight", 1), positions = dim_of(f, "embed.positions", 0);
    rf_safetensors_free(f);
    if ((vocab < 0) == (features < 0) || classes < 0)
        return rf_fail(st, "%s: no model input and head in its tensors (expected embed.tokens or "
                           "embed.features.weight, and head.fc.weight)", checkpoint);
    *in = (rf_model_input){
        .feat_dim = features > 0 ? features : 0,
        .vocab = vocab > 0 ? vocab : 0,
        .classes = classes,
        .positions = positions > 0 ? positions : 0,
    };
    return true;
}

static const char *plural(int n)
{
    return n == 1 ? "" : "s";
}

/* The data's side: "up to 4002 tokens (vocabulary 16)", "784 positions of 1 feature". */
static void data_text(const rf_dataset *ds, char *buf, size_t size)
{
    if (ds->feat_dim == 0)
        snprintf(buf, size, "up to %d tokens (vocabulary %d)", ds->seq_len, ds->vocab);
    else
        snprintf(buf, size, "%d positions of %d feature%s", ds->seq_len, ds->feat_dim, plural(ds->feat_dim));
}

/* The model's side: "tokens (vocabulary 16)", "exactly 60 tokens
 * (vocabulary 16; model.pos = learned)", "positions of 784 features". */
static void model_text(const rf_model_input *in, char *buf, size_t size)
{
    int n = in->positions, f = in->feat_dim;
    if (f == 0 && n > 0)
        snprintf(buf, size, "exactly %d tokens (vocabulary %d; model.pos = learned)", n, in->vocab);
    else if (f == 0)
        snprintf(buf, size, "tokens (vocabulary %d)", in->vocab);
    else if (n > 0)
        snprintf(buf, size, "exactly %d positions of %d feature%s (model.pos = learned)", n, f, plural(f));
    else
        snprintf(buf, size, "positions of %d feature%s", f, plural(f));
}

bool rf_model_input_fits(const rf_model_input *in, const rf_dataset *ds, const char *what, rf_status *st)
{
    bool input = in->feat_dim == ds->feat_dim && (ds->feat_dim > 0 || in->vocab == ds->vocab);
    bool length = in->positions == 0 || in->positions == ds->seq_len;
    if (input && length && in->classes == ds->classes)
        return true;
    char data[128], model[160];
    data_text(ds, data, sizeof data);
    model_text(in, model, sizeof model);
    return rf_fail(st, "%s gives %s and %d class%s; the checkpoint's model takes %s and %d class%s", what, data,
                   ds->classes, ds->classes == 1 ? "" : "es", model, in->classes, in->classes == 1 ? "" : "es");
}

/* ", what B against A" onto buf (its used length n). */
static void differs(char *buf, size_t size, const char *what, const char *b, const char *a)
{
    size_t n = strlen(buf);
    if (n < size)
        snprintf(buf + n, size - n, "%s%s %s against %s", n > 0 ? ", " : "", what, b, a);
}

static void differs_int(char *buf, size_t size, const char *what, int b, int a)
{
    char tb[16], ta[16];
    if (a == b)
        return;
    snprintf(tb, sizeof tb, "%d", b);
    snprintf(ta, sizeof ta, "%d", a);
    differs(buf, size, what, tb, ta);
}

bool rf_model_inputs_comparable(const char *task_a, const rf_dataset *a, const char *file_a, const char *task_b,
                                const rf_dataset *b, const char *file_b, rf_status *st)
{
    char why[512] = "";
    if (strcmp(task_a, task_b) != 0)
        differs(why, sizeof why, "data.task", task_b, task_a);
    if (a->feat_dim != b->feat_dim)
        differs_int(why, sizeof why, "features per position", b->feat_dim, a->feat_dim);
    else if (a->feat_dim == 0)
        differs_int(why, sizeof why, "vocabulary", b->vocab, a->vocab);
    differs_int(why, sizeof why, "input length", b->seq_len, a->seq_len);
    differs_int(why, sizeof why, "classes", b->classes, a->classes);
    if (why[0] == '\0')
        return true;
    return rf_fail(st, "%s cannot be compared with %s: their models differ in %s", file_b, file_a, why);
}
