/* The run configuration: one struct, one table of keys.
 *
 * Every key has a type, a default, a range or a list of allowed values, and
 * a one-line help text. The same table drives INI parsing (app/ reads the
 * file with GKeyFile and hands each key here), `--set section.key=value`,
 * validation messages, the config saved inside checkpoints (as JSON), and
 * the key reference of docs/configuration.md (`rangefinder config --list`).
 */
#ifndef RF_CONFIG_H
#define RF_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"

#define RF_STR_LEN 1024

typedef struct rf_config {
    struct {
        char task[64];          /* listops | random */
        char path[RF_STR_LEN];  /* data location for file-backed tasks */
        int batch;
        int max_len;
        int min_len;
        int vocab;              /* random task: token ids in [1, vocab) (0 is padding) */
        int classes;
        int max_depth;          /* listops generator */
        int max_args;
        int train_size;
        int val_size;
        int test_size;
        int concat;             /* listops, lra_tsv: each expression k times under an outer MAX */
        int patch;              /* images: 0 = one token per pixel, p = p x p patches */
        int image_size;         /* image_folder: resize to this square size */
        char channels[8];       /* image_folder: gray | rgb */
        char resize[8];         /* image_folder: crop | squash | pad */
        char background[16];    /* image_folder: white | black | grey level 0..1 */
        char strict[8];         /* false: skip bad files with a warning; true: fail */
        int augment_shift;      /* images, training split: random shift up to this many pixels */
        char augment_flip[8];   /* images, training split: random left-right flip (false | true) */
        int sample_rate;        /* audio: resample to this rate */
        int mel_bins;           /* audio: log-mel bins */
        int max_frames;         /* audio: frames kept (10 ms hop), padded/cropped */
        char cache[8];          /* audio: cache features next to the data (on | off) */
    } data;
    struct {
        char encoder[32];       /* full */
        int layers;
        int dim;
        int heads;
        int ff;
        float dropout;
        float attn_dropout;     /* full: on the attention probabilities */
        char pool[16];          /* mean | cls */
        char head[8];           /* linear | mlp: the classifier after pooling and LayerNorm */
        char pos[16];           /* learned | sinusoidal | none */
        /* ls: Transformer-LS (SPEC 2) */
        int window;             /* w */
        int rank;               /* r, global landmarks */
        char dual_ln[8];        /* on | off */
        char proj_from[16];     /* input | keys */
        char cls[16];           /* off | last_layer */
        /* blrp: Bidirectional Long-Range Parser (SPEC 3) */
        int segment;            /* t */
        int latent;             /* l */
        char direction[16];     /* forward | backward | bidirectional */
        char latent_init[16];   /* posemb | phi_init | phi_residual */
        char phi[16];           /* separate | siamese | shared */
        char share_directions[8]; /* on | off */
        char blrp_scale[8];     /* head: 1/sqrt(dim/heads) per head (SPEC); model: 1/sqrt(dim) */
        char latent_norm[4];    /* off (SPEC) | on: LayerNorm on each Θ_L update before the gate */
        char latent_pos[12];    /* off (SPEC) | sinusoidal: TLB's latent positions re-added at every segment */
        /* maelre and linear attention (SPEC 4) */
        char blocks[64];        /* layers per block, e.g. "1,2,11,2"; empty: `layers` blocks of 1 */
        int reduce;             /* nu: merge stride */
        char kernel_map[16];    /* elu | relu | softplus */
        float linear_scale;     /* multiplier on the sqrt(D) scaling of Q and K */
        /* talk: time-aware large-kernel convolution (SPEC 5) */
        char lmax[64];          /* one value, or one per layer "1,3,7,15" */
        char rmax[64];
        int offset_heads;       /* 0: model.heads */
        char glu[8];            /* on | off */
    } model;
    struct {
        int steps;
        float lr;
        int warmup;
        char schedule[16];      /* linear | cosine | constant | step */
        float gamma;            /* step: the lr's factor every decay_every steps */
        int decay_every;
        float weight_decay;
        float beta1;
        float beta2;
        float eps;
        float clip;             /* global-norm clip; 0 disables */
        uint64_t seed;
        int threads;            /* 0: all cores */
        char gemm[16];          /* auto | openblas | onednn (core/gemm.h) */
        char precision[8];      /* f32 | bf16: the matrix products' operands (core/gemm_bf16.h) */
        char tf32[4];           /* off | on: CUDA attention on tensor cores, TF32 operands (core/device.h) */
        char device[16];        /* cpu | cuda | cuda:N (core/device.h) */
        char cuda_graph[8];     /* off | auto: a device step captured once, replayed (core/train_graph.h) */
        char recompute[16];     /* off | layers | segments (core/recompute.h) */
        int eval_every;         /* 0: only at the end */
        int eval_batches;       /* 0: the whole split */
        int checkpoint_every;   /* 0: only at the end */
        int keep_weights;       /* weights kept from evaluations (core/kept_weights.h); 0: none */
        int log_every;
        char curriculum[RF_STR_LEN]; /* stages before this config (core/curriculum.h) */
        int stage;              /* the curriculum stage a checkpoint is in (0: the first) */
    } train;
} rf_config;

typedef enum rf_key_type { RF_KEY_INT, RF_KEY_FLOAT, RF_KEY_STRING, RF_KEY_CHOICE, RF_KEY_U64 } rf_key_type;

typedef struct rf_config_key {
    const char *section;
    const char *key;
    rf_key_type type;
    size_t offset;              /* into rf_config */
    size_t size;                /* string buffer size */
    const char *def;            /* default, as text */
    double min, max;            /* numbers: inclusive range */
    const char *choices;        /* RF_KEY_CHOICE: "a|b|c" */
    const char *help;
} rf_config_key;

/* The key table, terminated by an entry with section == NULL. */
extern const rf_config_key rf_config_keys[];

/* All defaults. */
void rf_config_defaults(rf_config *cfg);

/* Set "section.key" (or section + key) from text. Unknown keys and invalid
 * values fail with a message naming the key, the value and what is allowed.
 * A key's former name (data.repeat, now data.concat) sets the key, so that
 * configs and checkpoints written under it still load. */
bool rf_config_set(rf_config *cfg, const char *dotted_key, const char *value, rf_status *st);
bool rf_config_set2(rf_config *cfg, const char *section, const char *key, const char *value,
                    rf_status *st);
/* "section.key=value" as given to --set. */
bool rf_config_apply_override(rf_config *cfg, const char *assignment, rf_status *st);

/* The value of a key as text (buf), or NULL for an unknown key. */
const char *rf_config_get(const rf_config *cfg, const char *dotted_key, char *buf, size_t size);

/* Checks across keys (heads divide dim, min_len <= max_len, ...). */
bool rf_config_validate(const rf_config *cfg, rf_status *st);

/* data.background to a grey level 0..255: "white" 255, "black" 0, or a
 * number v in [0, 1] as round(255 v). False when it is none of these. */
bool rf_config_background(const char *value, int *level);

/* The whole config as a JSON object text {"data.task": "listops", ...}
 * (malloc'd; free with free()), and back. from_json applies every key found
 * (so a checkpoint written by an older version with fewer keys still loads,
 * the rest keep their defaults) and fails on unknown keys. One exception:
 * without model.blrp_scale (older than the key) it is set to model, the
 * 1/sqrt(dim) those checkpoints were trained with. */
char *rf_config_to_json(const rf_config *cfg);
bool rf_config_from_json(rf_config *cfg, const char *json, rf_status *st);

/* True if the two configs describe the same architecture (the model section
 * and the data fields that shape the model: vocab, classes, max_len). */
bool rf_config_same_model(const rf_config *a, const rf_config *b);

#endif
