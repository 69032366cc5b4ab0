#include "checkpoint.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "safetensors.h"

#define RF_CKPT_FORMAT "rangefinder-checkpoint"
#define RF_CKPT_VERSION "1"
#define RF_CKPT_M "optimizer.m."
#define RF_CKPT_V "optimizer.v."
#define RF_CKPT_CRC "crc32"
#define RF_CKPT_OPTIMIZER "optimizer"
#define RF_CKPT_NO_OPTIMIZER "none"   /* a weights file: values only */

/* The three tensors of one parameter: value, first and second moment. */
enum { KIND_VALUE, KIND_M, KIND_V, KINDS };
static const char *const kind_prefix[KINDS] = {"", RF_CKPT_M, RF_CKPT_V};

static float *kind_block(const rf_params *p, int kind)
{
    return kind == KIND_VALUE ? p->value : kind == KIND_M ? p->m : p->v;
}

/* "<prefix><name>" into buf; false if it does not fit a tensor name. */
static bool tensor_name(char *buf, int kind, const char *param)
{
    return snprintf(buf, RF_NAME_LEN, "%s%s", kind_prefix[kind], param) < RF_NAME_LEN;
}

/* The values and, with kinds == KINDS, the moments: a checkpoint; with
 * kinds == 1 the weights alone. */
static bool save(const char *path, const rf_config *cfg, const rf_params *p, int64_t step, int kinds,
                 rf_status *st)
{
    if (!rf_params_allocated(p))
        return rf_fail(st, "%s: cannot save a checkpoint of an unallocated parameter store", path);
    if (kinds == KINDS && p->m == NULL)
        return rf_fail(st, "%s: cannot save a checkpoint of a forward-only model (it holds no AdamW moments)",
                       path);
    if (step < 0)
        return rf_fail(st, "%s: cannot save a checkpoint at negative step %" PRId64, path, step);
    rf_st_tensor *tensors = calloc((size_t)p->count * (size_t)kinds + 1, sizeof *tensors);
    char *config = rf_config_to_json(cfg);
    if (tensors == NULL || config == NULL) {
        free(tensors);
        free(config);
        return rf_fail(st, "%s: out of memory preparing the checkpoint", path);
    }
    /* all values first, in registration order, then the moments; the data
     * section is these tensors back to back, so its crc32 builds up here */
    bool ok = true;
    uLong crc = crc32_z(0, Z_NULL, 0);
    for (int kind = 0; ok && kind < kinds; kind++) {
        for (int i = 0; ok && i < p->count; i++) {
            const rf_param_entry *e = &p->entries[i];
            rf_st_tensor *t = &tensors[kind * p->count + i];
            if (!tensor_name(t->name, kind, e->name)) {
                ok = rf_fail(st, "%s: parameter name '%s' is too long for a checkpoint tensor name", path,
                             e->name);
                break;
            }
            t->ndim = e->shape.ndim;
            memcpy(t->shape, e->shape.dim, sizeof t->shape);
            t->data = kind_block(p, kind) + e->offset;
            crc = crc32_z(crc, (const Bytef *)t->data, (size_t)e->numel * sizeof(float));
        }
    }
    char step_text[32], crc_text[16];
    snprintf(step_text, sizeof step_text, "%" PRId64, step);
    snprintf(crc_text, sizeof crc_text, "%08lx", crc);
    const rf_st_meta meta[] = {
        {"format", RF_CKPT_FORMAT}, {"version", RF_CKPT_VERSION}, {"config", config},
        {"step", step_text}, {RF_CKPT_OPTIMIZER, kinds == KINDS ? "adamw" : RF_CKPT_NO_OPTIMIZER},
        {RF_CKPT_CRC, crc_text},
    };
    ok = ok && rf_safetensors_write(path, tensors, p->count * kinds, meta, (int)(sizeof meta / sizeof *meta), st);
    free(config);
    free(tensors);
    return ok;
}

bool rf_checkpoint_save(const char *path, const rf_config *cfg, const rf_params *p, int64_t step,
                        rf_status *st)
{
    return save(path, cfg, p, step, KINDS, st);
}

bool rf_checkpoint_save_weights(const char *path, const rf_config *cfg, const rf_params *p, int64_t step,
                                rf_status *st)
{
    return save(path, cfg, p, step, 1, st);
}

/* A non-negative decimal integer, digits only. */
static bool parse_step(const char *text, int64_t *step)
{
    if (text == NULL || *text == '\0' || strspn(text, "0123456789") != strlen(text))
        return false;
    errno = 0;
    long long v = strtoll(text, NULL, 10);
    if (errno != 0)
        return false;
    *step = v;
    return true;
}

/* Open the file (its header: the tensors are read one at a time later) and
 * check that it is a checkpoint this build understands. */
static rf_safetensors *open_checkpoint(const char *path, int64_t *step, rf_status *st)
{
    rf_safetensors *f = rf_safetensors_open(path, st);
    if (f == NULL)
        return NULL;
    const char *format = rf_safetensors_meta(f, "format");
    const char *version = rf_safetensors_meta(f, "version");
    const char *step_text = rf_safetensors_meta(f, "step");
    if (format == NULL || strcmp(format, RF_CKPT_FORMAT) != 0) {
        if (format == NULL)
            rf_fail(st, "%s: not a Rangefinder checkpoint (no \"format\" in its metadata)", path);
        else
            rf_fail(st, "%s: not a Rangefinder checkpoint (metadata format is '%s', expected '%s')", path,
                    format, RF_CKPT_FORMAT);
    } else if (version == NULL || strcmp(version, RF_CKPT_VERSION) != 0) {
        rf_fail(st, "%s: checkpoint version '%s' is not supported (this build reads version %s)", path,
                version ? version : "(missing)", RF_CKPT_VERSION);
    } else if (!parse_step(step_text, step)) {
        rf_fail(st, "%s: metadata step '%s' is not a non-negative integer", path,
                step_text ? step_text : "(missing)");
    } else {
        return f;
    }
    rf_safetensors_free(f);
    return NULL;
}

bool rf_checkpoint_read_config(const char *path, rf_config *cfg, int64_t *step, rf_status *st)
{
    int64_t file_step = 0;
    rf_safetensors *f = open_checkpoint(path, &file_step, st);
    if (f == NULL)
        return false;
    const char *json = rf_safetensors_meta(f, "config");
    rf_config parsed;
    rf_config_defaults(&parsed);
    rf_status sub = {0};
    bool ok = json != NULL && rf_config_from_json(&parsed, json, &sub);
    if (json == NULL)
        rf_fail(st, "%s: checkpoint metadata has no \"config\"", path);
    else if (!ok)
        rf_fail(st, "%s: %s", path, sub.msg);
    rf_safetensors_free(f);
    if (!ok)
        return false;
    *cfg = parsed;
    *step = file_step;
    return true;
}

static const char *shape_text(int ndim, const int64_t *dim, char *buf, size_t size)
{
    size_t used = (size_t)snprintf(buf, size, "[");
    for (int i = 0; i < ndim && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%" PRId64, i ? ", " : "", dim[i]);
    if (used < size)
        snprintf(buf + used, size - used, "]");
    return buf;
}

/* The file's tensor for one parameter's value or moment, with the model's shape. */
static const rf_st_tensor *match_tensor(const char *path, const rf_safetensors *f, const rf_param_entry *e,
                                        int kind, rf_status *st)
{
    char name[RF_NAME_LEN];
    if (!tensor_name(name, kind, e->name)) {
        rf_fail(st, "%s: parameter name '%s' is too long for a checkpoint tensor name", path, e->name);
        return NULL;
    }
    const rf_st_tensor *t = rf_safetensors_find(f, name);
    if (t == NULL) {
        rf_fail(st, "%s: tensor '%s' is missing (the model has this parameter)", path, name);
        return NULL;
    }
    bool same = t->ndim == e->shape.ndim;
    for (int d = 0; same && d < t->ndim; d++)
        same = t->shape[d] == e->shape.dim[d];
    if (!same) {
        char have[96], want[96];
        rf_fail(st, "%s: tensor '%s' has shape %s, the model expects %s", path, name,
                shape_text(t->ndim, t->shape, have, sizeof have),
                shape_text(e->shape.ndim, e->shape.dim, want, sizeof want));
        return NULL;
    }
    return t;
}

/* The data section against the metadata's crc32. A file without one (as a
 * PyTorch user may write) loads with a warning. */
static bool verify_checksum(const char *path, const rf_safetensors *f, rf_status *st)
{
    const char *want = rf_safetensors_meta(f, RF_CKPT_CRC);
    if (want == NULL) {
        rf_warn("%s: no \"" RF_CKPT_CRC "\" in the metadata, so its tensor data cannot be verified", path);
        return true;
    }
    unsigned long crc;
    if (!rf_safetensors_data_crc32(f, &crc, st))
        return false;
    char have[16];
    snprintf(have, sizeof have, "%08lx", crc);
    if (strcmp(have, want) != 0)
        return rf_fail(st, "%s: checksum mismatch: the tensor data's crc32 is %s, the metadata says '%s' "
                           "(the file is damaged)", path, have, want);
    return true;
}

/* Weights or moments that are NaN or infinite are refused, naming the
 * tensor: each is read into `scratch` (room for the largest) and checked,
 * before anything is copied into the model. */
static bool check_finite(const char *path, const rf_safetensors *f, const rf_st_tensor *t, int64_t numel,
                         float *scratch, rf_status *st)
{
    if (!rf_safetensors_read_tensor(f, t, scratch, st))
        return false;
    for (int64_t i = 0; i < numel; i++)
        if (!isfinite(scratch[i]))
            return rf_fail(st, "%s: tensor '%s' holds a non-finite value (%g at element %" PRId64 ")", path,
                           t->name, scratch[i], i);
    return true;
}

/* The first tensor of the file that no parameter matched (linear: marks by
 * index, so a file of many tensors costs no more than reading it). */
static bool report_unknown(const char *path, const rf_safetensors *f, const rf_st_tensor **found, int n_found,
                           rf_status *st)
{
    int count = rf_safetensors_count(f);
    bool *known = calloc((size_t)count + 1, sizeof *known);
    if (known == NULL)
        return rf_fail(st, "%s: out of memory", path);
    const rf_st_tensor *first = rf_safetensors_tensor(f, 0);
    for (int k = 0; k < n_found; k++)
        known[found[k] - first] = true;
    bool ok = true;
    for (int j = 0; ok && j < count; j++)
        if (!known[j])
            ok = rf_fail(st, "%s: tensor '%s' is not a parameter (or moment) of this model", path,
                         rf_safetensors_tensor(f, j)->name);
    free(known);
    return ok;
}

bool rf_checkpoint_load(const char *path, rf_params *p, int64_t *step, rf_status *st)
{
    if (!rf_params_allocated(p))
        return rf_fail(st, "%s: cannot load into an unallocated parameter store", path);
    int64_t file_step = 0;
    rf_safetensors *f = open_checkpoint(path, &file_step, st);
    if (f == NULL)
        return false;
    /* a weights file holds the values alone */
    const char *optimizer = rf_safetensors_meta(f, RF_CKPT_OPTIMIZER);
    int kinds = optimizer != NULL && strcmp(optimizer, RF_CKPT_NO_OPTIMIZER) == 0 ? 1 : KINDS;
    const rf_st_tensor **found = calloc((size_t)p->count * KINDS + 1, sizeof *found);
    if (found == NULL) {
        rf_safetensors_free(f);
        return rf_fail(st, "%s: out of memory", path);
    }
    bool ok = verify_checksum(path, f, st);
    for (int i = 0; ok && i < p->count; i++)
        for (int kind = 0; ok && kind < kinds; kind++)
            ok = (found[i * kinds + kind] = match_tensor(path, f, &p->entries[i], kind, st)) != NULL;
    /* every parameter matched `kinds` distinct names, so the file has
     * unknown tensors exactly when it holds more than that */
    if (ok && rf_safetensors_count(f) > p->count * kinds)
        ok = report_unknown(path, f, found, p->count * kinds, st);
    /* Two passes, so a refused file leaves the model as it was while only
     * the largest tensor is held (malloc'd: a file buffer, not the
     * engine's): check every tensor, then read each into its place (the
     * open file cannot change under us: checkpoints are replaced by a
     * rename, never rewritten in place). */
    int64_t largest = 1;
    for (int i = 0; i < p->count; i++)
        largest = p->entries[i].numel > largest ? p->entries[i].numel : largest;
    float *scratch = ok ? malloc((size_t)largest * sizeof *scratch) : NULL;
    if (ok && scratch == NULL)
        ok = rf_fail(st, "%s: out of memory", path);
    for (int i = 0; ok && i < p->count * kinds; i++)
        ok = check_finite(path, f, found[i], p->entries[i / kinds].numel, scratch, st);
    free(scratch);
    for (int i = 0; ok && i < p->count; i++) {
        const rf_param_entry *e = &p->entries[i];
        for (int kind = 0; ok && kind < kinds; kind++)   /* a values-only store takes the values */
            if (kind_block(p, kind) != NULL)
                ok = rf_safetensors_read_tensor(f, found[i * kinds + kind], kind_block(p, kind) + e->offset, st);
    }
    /* a weights file's model starts its AdamW moments afresh */
    for (int kind = kinds; ok && kind < KINDS; kind++)
        if (kind_block(p, kind) != NULL)
            memset(kind_block(p, kind), 0, p->total * sizeof(float));
    if (ok)
        *step = file_step;
    free(found);
    rf_safetensors_free(f);
    return ok;
}
