#include "config.h"
#include "curriculum.h"
#include "device.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OFF(field) offsetof(rf_config, field)
#define SZ(field) sizeof(((rf_config *)0)->field)
#define INT(sec, key, field, def, lo, hi, help) \
    {sec, key, RF_KEY_INT, OFF(field), 0, def, lo, hi, NULL, help}
#define FLT(sec, key, field, def, lo, hi, help) \
    {sec, key, RF_KEY_FLOAT, OFF(field), 0, def, lo, hi, NULL, help}
#define STR(sec, key, field, def, help) \
    {sec, key, RF_KEY_STRING, OFF(field), SZ(field), def, 0, 0, NULL, help}
#define CHO(sec, key, field, def, choices, help) \
    {sec, key, RF_KEY_CHOICE, OFF(field), SZ(field), def, 0, 0, choices, help}

const rf_config_key rf_config_keys[] = {
    CHO("data", "task", data.task, "listops", "listops|random|long_match|fashion_mnist|image_folder|audio_folder|ucr|lra_tsv|text_folder|npy", "which data set"),
    STR("data", "path", data.path, "", "data location for file-backed tasks"),
    INT("data", "batch", data.batch, "32", 1, 65536, "samples per step"),
    INT("data", "max_len", data.max_len, "2000", 1, 1 << 22, "longest sequence (listops: exclusive upper length; text_folder: bytes read per file)"),
    INT("data", "min_len", data.min_len, "500", 0, 1 << 22, "listops: exclusive lower length"),
    INT("data", "vocab", data.vocab, "16", 2, 1 << 24, "random task: token ids in [1, vocab)"),
    INT("data", "classes", data.classes, "10", 2, 100000, "random task: number of classes"),
    INT("data", "max_depth", data.max_depth, "10", 1, 100, "listops: deepest tree level"),
    INT("data", "max_args", data.max_args, "10", 2, 100, "listops: most children of an operator"),
    INT("data", "train_size", data.train_size, "96000", 1, 100000000, "training samples"),
    INT("data", "val_size", data.val_size, "2000", 1, 100000000, "validation samples"),
    INT("data", "test_size", data.test_size, "2000", 1, 100000000, "test samples"),
    INT("data", "concat", data.concat, "1", 1, 512, "listops, lra_tsv: each expression k times under an outer MAX (BLRP length test)"),
    INT("data", "patch", data.patch, "0", 0, 64, "images: 0 = pixels as tokens, p = p x p patches"),
    INT("data", "image_size", data.image_size, "28", 4, 1024, "image_folder: images resized to this square size"),
    CHO("data", "channels", data.channels, "gray", "gray|rgb", "image_folder: colour handling"),
    CHO("data", "resize", data.resize, "crop", "crop|squash|pad", "image_folder: to the square by centre crop, squashing or padding"),
    STR("data", "background", data.background, "white", "image_folder: under transparency and padding: white, black or a grey 0..1"),
    CHO("data", "strict", data.strict, "false", "false|true", "true: a bad file in a folder is an error, not a warning"),
    INT("data", "augment_shift", data.augment_shift, "0", 0, 64, "images: shift training images by up to this many pixels"),
    CHO("data", "augment_flip", data.augment_flip, "false", "false|true", "images: flip training images left-right at random"),
    INT("data", "sample_rate", data.sample_rate, "16000", 1000, 192000, "audio: resample to this rate (Hz)"),
    INT("data", "mel_bins", data.mel_bins, "128", 8, 512, "audio: log-mel filterbank bins"),
    INT("data", "max_frames", data.max_frames, "1024", 8, 100000, "audio: frames (10 ms hop) kept per clip"),
    CHO("data", "cache", data.cache, "on", "on|off", "audio: cache features next to the data"),
    CHO("model", "encoder", model.encoder, "full", "full|ls|linear|talk|blrp|maelre", "the long-range mechanism"),
    INT("model", "layers", model.layers, "2", 1, 256, "encoder layers"),
    INT("model", "dim", model.dim, "64", 1, 65536, "model width"),
    INT("model", "heads", model.heads, "8", 1, 1024, "attention heads (divide dim)"),
    INT("model", "ff", model.ff, "128", 1, 1 << 20, "MLP hidden width"),
    FLT("model", "dropout", model.dropout, "0", 0, 0.99, "dropout probability"),
    FLT("model", "attn_dropout", model.attn_dropout, "0", 0, 0.99, "full: dropout on the attention probabilities"),
    CHO("model", "pool", model.pool, "mean", "mean|cls", "mean over valid tokens, or a learned CLS token"),
    CHO("model", "head", model.head, "linear", "linear|mlp",
        "classifier after pooling and LayerNorm: Linear, or Linear(dim -> ff), GELU, Linear (SPEC 3's MLP head)"),
    CHO("model", "pos", model.pos, "sinusoidal", "sinusoidal|learned|none", "1-D position embedding"),
    INT("model", "window", model.window, "8", 1, 1 << 20, "ls: segment/window size w"),
    INT("model", "rank", model.rank, "32", 1, 1 << 16, "ls: global landmarks r (dynamic projection)"),
    CHO("model", "dual_ln", model.dual_ln, "on", "on|off", "ls: DualLN on the local and global keys/values"),
    CHO("model", "proj_from", model.proj_from, "input", "input|keys", "ls: dynamic projection from the layer input or from the keys"),
    CHO("model", "cls", model.cls, "off", "off|last_layer", "ls: CLS token joining the global keys in the last layer"),
    INT("model", "segment", model.segment, "100", 1, 1 << 20, "blrp: segment size t"),
    INT("model", "latent", model.latent, "100", 1, 1 << 16, "blrp: latent block size l"),
    CHO("model", "direction", model.direction, "bidirectional", "forward|backward|bidirectional", "blrp: passes"),
    CHO("model", "latent_init", model.latent_init, "phi_residual", "posemb|phi_init|phi_residual", "blrp: latent initialisation and use"),
    CHO("model", "phi", model.phi, "separate", "separate|siamese|shared", "blrp: dynamic projections of the two passes"),
    CHO("model", "share_directions", model.share_directions, "on", "on|off", "blrp: one cross-attention pair for both passes"),
    CHO("model", "blrp_scale", model.blrp_scale, "head", "head|model", "blrp: attention scale, head 1/sqrt(dim/heads) or model 1/sqrt(dim)"),
    CHO("model", "latent_norm", model.latent_norm, "off", "off|on", "blrp: LayerNorm on each latent update, so the latent stays bounded over any number of segments (not in the paper)"),
    CHO("model", "latent_pos", model.latent_pos, "off", "off|sinusoidal", "blrp: add the latent's own positions (a table initialised sinusoidal) to it before every segment's cross-attentions, as the TLB code base does with its state (not in SPEC's BLRP)"),
    STR("model", "blocks", model.blocks, "", "maelre: layers per block, e.g. 1,2,11,2 (empty: `layers` blocks of one layer)"),
    INT("model", "reduce", model.reduce, "4", 1, 64, "maelre: token-merge stride nu (kernel 2nu+1)"),
    CHO("model", "kernel_map", model.kernel_map, "elu", "elu|relu|softplus", "maelre/linear: feature map phi"),
    FLT("model", "linear_scale", model.linear_scale, "1", 0, 1000, "maelre/linear: multiplier on the sqrt(D) scaling of Q and K"),
    STR("model", "lmax", model.lmax, "15", "talk: left window bound, one value or one per layer"),
    STR("model", "rmax", model.rmax, "15", "talk: right window bound, one value or one per layer (0: causal)"),
    INT("model", "offset_heads", model.offset_heads, "0", 0, 1024, "talk: heads sharing offsets (0: model.heads)"),
    CHO("model", "glu", model.glu, "on", "on|off", "talk: Linear(d, 2d) + GLU input projection"),
    INT("train", "steps", train.steps, "5000", 1, 100000000, "optimizer steps"),
    FLT("train", "lr", train.lr, "4e-4", 0, 10, "peak learning rate"),
    INT("train", "warmup", train.warmup, "0", 0, 100000000, "linear warm-up steps"),
    CHO("train", "schedule", train.schedule, "linear", "linear|cosine|constant|step", "decay after warm-up (step: times gamma every decay_every steps)"),
    FLT("train", "gamma", train.gamma, "0.8", 0, 1, "step schedule: the lr's factor every decay_every steps (the BLRP paper's gamma)"),
    INT("train", "decay_every", train.decay_every, "3000", 1, 100000000, "step schedule: steps between decays (3000: one epoch of ListOps' 96,000 samples at batch 32)"),
    FLT("train", "weight_decay", train.weight_decay, "0.01", 0, 10, "AdamW decoupled weight decay"),
    FLT("train", "beta1", train.beta1, "0.9", 0, 0.999999, "AdamW beta1"),
    FLT("train", "beta2", train.beta2, "0.98", 0, 0.999999999, "AdamW beta2"),
    FLT("train", "eps", train.eps, "1e-9", 0, 1, "AdamW epsilon"),
    FLT("train", "clip", train.clip, "1.0", 0, 1e9, "global gradient-norm clip (0: off)"),
    {"train", "seed", RF_KEY_U64, OFF(train.seed), 0, "1", 0, 0, NULL, "seed for data, initialisation, dropout"},
    INT("train", "threads", train.threads, "0", 0, 1024, "worker threads (0: all cores)"),
    CHO("train", "gemm", train.gemm, "auto", "auto|openblas|onednn", "matrix-product library: auto (the faster per shape, timed once and cached), openblas or onednn (RF_GEMM overrides)"),
    CHO("train", "precision", train.precision, "f32", "f32|bf16", "matrix products' operands, full attention's for heads of 8 included on AMD CPUs: f32, or bf16 with f32 accumulation and f32 weights, the activations only products read stored in bf16 (CPUs with AVX512-BF16 or AMX)"),
    CHO("train", "tf32", train.tf32, "off", "off|on", "cuda: full attention's products on tensor cores with TF32 operands (10-bit mantissa, f32 accumulation; heads up to 128 wide); off keeps them exact f32"),
    STR("train", "device", train.device, "cpu", "where the model runs: cpu, cuda or cuda:N"),
    CHO("train", "cuda_graph", train.cuda_graph, "off", "off|auto", "on train.device = cuda: auto captures the second training step as a CUDA graph and replays it for every later step (one launch from the host a step); off launches every kernel from the host. Ignored on the CPU"),
    CHO("train", "recompute", train.recompute, "off", "off|layers|segments", "activation recomputation: off keeps every activation for the backward pass; layers keeps only each encoder block's input and recomputes the block in the backward pass; segments also each step of BLRP's recurrence (other encoders: as layers). Same gradients, bit for bit; less memory, more time"),
    INT("train", "eval_every", train.eval_every, "500", 0, 100000000, "validate every K steps (0: at the end)"),
    INT("train", "eval_batches", train.eval_batches, "0", 0, 100000000, "batches per validation (0: whole split)"),
    INT("train", "checkpoint_every", train.checkpoint_every, "1000", 0, 100000000, "checkpoint every K steps (0: at the end)"),
    INT("train", "keep_weights", train.keep_weights, "20", 0, 10000, "weights kept from evaluations in the run folder's weights/ (thinned to stay spread over the run; 0: none)"),
    INT("train", "log_every", train.log_every, "10", 1, 100000000, "training metrics every K steps"),
    STR("train", "curriculum", train.curriculum, "",
        "stages trained before this config, each from the last one's weights: ';' between stages, each a list of "
        "section.key=value with its train.steps (core/curriculum.h; empty: none)"),
    INT("train", "stage", train.stage, "0", 0, RF_CURRICULUM_MAX - 1,
        "the curriculum stage to begin at (checkpoints record the stage they were saved in; 0: the first)"),
    {NULL, NULL, 0, 0, 0, NULL, 0, 0, NULL, NULL},
};

static const rf_config_key *find_key(const char *section, const char *key)
{
    for (const rf_config_key *k = rf_config_keys; k->section != NULL; k++)
        if (strcmp(k->section, section) == 0 && strcmp(k->key, key) == 0)
            return k;
    return NULL;
}

/* Keys under a former name: {section, old key, new key}. */
static const char *const renamed[][3] = {
    {"data", "repeat", "concat"},   /* until 2026-11-27 */
};

static const rf_config_key *find_current_key(const char *section, const char *key)
{
    for (size_t i = 0; i < sizeof renamed / sizeof *renamed; i++)
        if (strcmp(renamed[i][0], section) == 0 && strcmp(renamed[i][1], key) == 0)
            return find_key(section, renamed[i][2]);
    return find_key(section, key);
}

static bool choice_allowed(const char *choices, const char *value)
{
    size_t n = strlen(value);
    for (const char *p = choices; *p;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && strncmp(p, value, n) == 0)
            return true;
        if (bar == NULL)
            break;
        p = bar + 1;
    }
    return false;
}

/* Checkpoints carry the config as JSON, which must be UTF-8. */
static bool utf8_valid(const char *text)
{
    json_t *probe = json_string(text);
    json_decref(probe);
    return probe != NULL;
}

static bool set_key(rf_config *cfg, const rf_config_key *k, const char *value, rf_status *st)
{
    char *base = (char *)cfg + k->offset;
    char *end = NULL;
    errno = 0;
    switch (k->type) {
    case RF_KEY_INT: {
        long long v = strtoll(value, &end, 10);
        if (end == value || *end != '\0' || errno != 0)
            return rf_fail(st, "%s.%s = '%s': expected an integer", k->section, k->key, value);
        if (v < k->min || v > k->max)
            return rf_fail(st, "%s.%s = %lld: allowed range is %.0f..%.0f", k->section, k->key, v, k->min,
                           k->max);
        *(int *)base = (int)v;
        return true;
    }
    case RF_KEY_U64: {
        if (value[0] == '-')
            return rf_fail(st, "%s.%s = '%s': expected a non-negative integer", k->section, k->key, value);
        unsigned long long v = strtoull(value, &end, 10);
        if (end == value || *end != '\0' || errno != 0)
            return rf_fail(st, "%s.%s = '%s': expected a non-negative integer", k->section, k->key, value);
        *(uint64_t *)base = v;
        return true;
    }
    case RF_KEY_FLOAT: {
        double v = strtod(value, &end);
        if (end == value || *end != '\0' || errno != 0 || !isfinite(v))
            return rf_fail(st, "%s.%s = '%s': expected a number", k->section, k->key, value);
        if (v < k->min || v > k->max)
            return rf_fail(st, "%s.%s = %g: allowed range is %g..%g", k->section, k->key, v, k->min, k->max);
        *(float *)base = (float)v;
        return true;
    }
    case RF_KEY_CHOICE:
        if (!choice_allowed(k->choices, value))
            return rf_fail(st, "%s.%s = '%s': allowed values are %s", k->section, k->key, value, k->choices);
        /* fall through */
    case RF_KEY_STRING:
        if (!utf8_valid(value))
            return rf_fail(st, "%s.%s: value is not valid UTF-8", k->section, k->key);
        if (strlen(value) >= k->size)
            return rf_fail(st, "%s.%s: value longer than %zu characters", k->section, k->key, k->size - 1);
        strcpy(base, value);
        return true;
    }
    return false;
}

void rf_config_defaults(rf_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    for (const rf_config_key *k = rf_config_keys; k->section != NULL; k++) {
        bool ok = set_key(cfg, k, k->def, NULL);
        (void)ok;
    }
}

bool rf_config_set2(rf_config *cfg, const char *section, const char *key, const char *value, rf_status *st)
{
    const rf_config_key *k = find_current_key(section, key);
    if (k == NULL)
        return rf_fail(st, "unknown key %s.%s (see `rangefinder config --list`)", section, key);
    return set_key(cfg, k, value, st);
}

static bool split_key(const char *dotted, char *section, size_t ss, char *key, size_t ks)
{
    const char *dot = strchr(dotted, '.');
    if (dot == NULL || (size_t)(dot - dotted) >= ss || strlen(dot + 1) >= ks)
        return false;
    memcpy(section, dotted, (size_t)(dot - dotted));
    section[dot - dotted] = '\0';
    strcpy(key, dot + 1);
    return true;
}

bool rf_config_set(rf_config *cfg, const char *dotted_key, const char *value, rf_status *st)
{
    char section[64], key[64];
    if (!split_key(dotted_key, section, sizeof section, key, sizeof key))
        return rf_fail(st, "'%s' is not a key of the form section.key", dotted_key);
    return rf_config_set2(cfg, section, key, value, st);
}

bool rf_config_apply_override(rf_config *cfg, const char *assignment, rf_status *st)
{
    const char *eq = strchr(assignment, '=');
    if (eq == NULL)
        return rf_fail(st, "--set '%s': expected section.key=value", assignment);
    char dotted[128];
    size_t n = (size_t)(eq - assignment);
    if (n >= sizeof dotted)
        return rf_fail(st, "--set '%s': key too long", assignment);
    memcpy(dotted, assignment, n);
    dotted[n] = '\0';
    return rf_config_set(cfg, dotted, eq + 1, st);
}

static const char *format_key(const rf_config *cfg, const rf_config_key *k, char *buf, size_t size)
{
    const char *base = (const char *)cfg + k->offset;
    switch (k->type) {
    case RF_KEY_INT: snprintf(buf, size, "%d", *(const int *)base); break;
    case RF_KEY_U64: snprintf(buf, size, "%llu", (unsigned long long)*(const uint64_t *)base); break;
    case RF_KEY_FLOAT: snprintf(buf, size, "%.9g", (double)*(const float *)base); break;
    case RF_KEY_CHOICE:
    case RF_KEY_STRING: snprintf(buf, size, "%s", base); break;
    }
    return buf;
}

const char *rf_config_get(const rf_config *cfg, const char *dotted_key, char *buf, size_t size)
{
    char section[64], key[64];
    if (!split_key(dotted_key, section, sizeof section, key, sizeof key))
        return NULL;
    const rf_config_key *k = find_key(section, key);
    return k ? format_key(cfg, k, buf, size) : NULL;
}

bool rf_config_background(const char *value, int *level)
{
    if (strcmp(value, "white") == 0 || strcmp(value, "black") == 0) {
        *level = value[0] == 'w' ? 255 : 0;
        return true;
    }
    char *end = NULL;
    double v = strtod(value, &end);
    if (end == value || *end != '\0' || !(v >= 0.0 && v <= 1.0))
        return false;
    *level = (int)lround(v * 255.0);
    return true;
}

bool rf_config_validate(const rf_config *cfg, rf_status *st)
{
    int level;
    if (!rf_config_background(cfg->data.background, &level))
        return rf_fail(st, "data.background = '%s': expected white, black or a grey level from 0 (black) to 1 "
                           "(white)", cfg->data.background);
    if (cfg->model.dim % cfg->model.heads != 0)
        return rf_fail(st, "model.heads = %d does not divide model.dim = %d", cfg->model.heads, cfg->model.dim);
    /* only ListOps reads min_len: another task with a short max_len must
     * not trip over ListOps' default */
    if (strcmp(cfg->data.task, "listops") == 0 && cfg->data.min_len + 1 >= cfg->data.max_len)
        return rf_fail(st, "data.min_len = %d must be below data.max_len - 1 = %d (listops keeps "
                           "min_len < length < max_len)", cfg->data.min_len, cfg->data.max_len - 1);
    bool expressions = strcmp(cfg->data.task, "listops") == 0 || strcmp(cfg->data.task, "lra_tsv") == 0;
    if (cfg->data.concat != 1 && !expressions)
        return rf_fail(st, "data.concat = %d: only listops and lra_tsv concatenate their expressions, and "
                           "data.task = %s (keep data.concat = 1)", cfg->data.concat, cfg->data.task);
    if (cfg->train.warmup > cfg->train.steps)
        return rf_fail(st, "train.warmup = %d exceeds train.steps = %d", cfg->train.warmup, cfg->train.steps);
    rf_device device;
    return rf_device_parse(cfg->train.device, &device, st) && rf_curriculum_check(cfg, st);
}

char *rf_config_to_json(const rf_config *cfg)
{
    json_t *obj = json_object();
    char buf[RF_STR_LEN + 32], name[160];
    for (const rf_config_key *k = rf_config_keys; k->section != NULL; k++) {
        snprintf(name, sizeof name, "%s.%s", k->section, k->key);
        json_object_set_new(obj, name, json_string(format_key(cfg, k, buf, sizeof buf)));
    }
    char *text = json_dumps(obj, JSON_PRESERVE_ORDER | JSON_COMPACT);
    json_decref(obj);
    return text;
}

bool rf_config_from_json(rf_config *cfg, const char *json, rf_status *st)
{
    json_error_t err;
    json_t *obj = json_loads(json, 0, &err);
    if (obj == NULL)
        return rf_fail(st, "config JSON, line %d column %d: %s", err.line, err.column, err.text);
    if (!json_is_object(obj)) {
        json_decref(obj);
        return rf_fail(st, "config JSON is not an object");
    }
    /* Written before model.blrp_scale existed (2026-11-25), when BLRP scaled
     * every head by 1/sqrt(dim): such a checkpoint keeps computing that. */
    if (json_object_get(obj, "model.blrp_scale") == NULL)
        strcpy(cfg->model.blrp_scale, "model");
    /* Written before data.resize existed (2026-11-25), when image_folder
     * squashed every picture to its square: such a checkpoint keeps that. */
    if (json_object_get(obj, "data.resize") == NULL)
        strcpy(cfg->data.resize, "squash");
    /* Written before train.gemm existed (2026-11-27), when every product
     * ran on OpenBLAS: a resumed run keeps its rounding (resume is exact). */
    if (json_object_get(obj, "train.gemm") == NULL)
        strcpy(cfg->train.gemm, "openblas");
    const char *name;
    json_t *value;
    bool ok = true;
    json_object_foreach(obj, name, value) {
        if (!json_is_string(value)) {
            ok = rf_fail(st, "config JSON: value of %s is not a string", name);
            break;
        }
        if (!rf_config_set(cfg, name, json_string_value(value), st)) {
            ok = false;
            break;
        }
    }
    json_decref(obj);
    return ok;
}

/* Keys that shape the model's parameters. */
static bool shapes_model(const rf_config_key *k)
{
    static const char *const data_keys[] = {"task", "vocab", "classes", "max_len", "concat", NULL};
    if (strcmp(k->section, "model") == 0)
        return true;
    if (strcmp(k->section, "data") != 0)
        return false;
    for (int i = 0; data_keys[i] != NULL; i++)
        if (strcmp(k->key, data_keys[i]) == 0)
            return true;
    return false;
}

bool rf_config_same_model(const rf_config *a, const rf_config *b)
{
    char va[RF_STR_LEN + 32], vb[RF_STR_LEN + 32];
    for (const rf_config_key *k = rf_config_keys; k->section != NULL; k++)
        if (shapes_model(k) && strcmp(format_key(a, k, va, sizeof va), format_key(b, k, vb, sizeof vb)) != 0)
            return false;
    return true;
}
