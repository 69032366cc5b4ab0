/* The naive BLRP reference (blrp_reference.h). */
#include "blrp_reference.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parameters come from the store; one element may be perturbed (finite
 * differences of the reference with respect to a parameter). */
const rf_params *ref_store;
int ref_perturb_entry = -1;
int64_t ref_perturb_index;
double ref_perturb_delta;

static double *param(const char *prefix, const char *part, int64_t numel)
{
    char name[2 * RF_NAME_LEN];
    if (part != NULL)
        snprintf(name, sizeof name, "%s.%s", prefix, part);
    else
        snprintf(name, sizeof name, "%s", prefix);
    int e = rf_params_find(ref_store, name);
    if (e < 0 || ref_store->entries[e].numel != numel) {
        fprintf(stderr, "reference: parameter %s missing or of the wrong size\n", name);
        exit(2);
    }
    double *v = malloc((size_t)numel * sizeof *v);
    const float *src = ref_store->value + ref_store->entries[e].offset;
    for (int64_t i = 0; i < numel; i++)
        v[i] = src[i];
    if (e == ref_perturb_entry)
        v[ref_perturb_index] += ref_perturb_delta;
    return v;
}

typedef struct ref_dims {
    int d, heads, ff, t, l, layers;
    double scale;   /* the attention scores' scale, every head */
} ref_dims;

/* y [rows, d] = LayerNorm(x) with prefix.part.weight / .bias, eps 1e-5 */
static void ref_ln(const ref_dims *m, const double *x, int rows, const char *prefix, const char *part, double *y)
{
    char name[RF_NAME_LEN];
    snprintf(name, sizeof name, "%s.%s.weight", prefix, part);
    double *gam = param(name, NULL, m->d);
    snprintf(name, sizeof name, "%s.%s.bias", prefix, part);
    double *bet = param(name, NULL, m->d);
    for (int r = 0; r < rows; r++) {
        const double *xr = x + (size_t)r * m->d;
        double mean = 0, var = 0;
        for (int c = 0; c < m->d; c++)
            mean += xr[c];
        mean /= m->d;
        for (int c = 0; c < m->d; c++)
            var += (xr[c] - mean) * (xr[c] - mean);
        var /= m->d;
        for (int c = 0; c < m->d; c++)
            y[(size_t)r * m->d + c] = (xr[c] - mean) / sqrt(var + 1e-5) * gam[c] + bet[c];
    }
    free(gam);
    free(bet);
}

/* y [rows, out] = x [rows, in] W [in, out] (+ b) */
static void ref_linear(const double *x, int rows, int in, int out, const char *prefix, const char *part, bool bias,
                       double *y)
{
    char name[RF_NAME_LEN];
    snprintf(name, sizeof name, "%s.%s.weight", prefix, part);
    double *w = param(name, NULL, (int64_t)in * out);
    double *b = NULL;
    if (bias) {
        snprintf(name, sizeof name, "%s.%s.bias", prefix, part);
        b = param(name, NULL, out);
    }
    for (int r = 0; r < rows; r++)
        for (int o = 0; o < out; o++) {
            double s = b != NULL ? b[o] : 0;
            for (int i = 0; i < in; i++)
                s += x[(size_t)r * in + i] * w[(size_t)i * out + o];
            y[(size_t)r * out + o] = s;
        }
    free(w);
    free(b);
}

/* Multi-head attention, scores scaled by m->scale, invalid keys excluded; a
 * query with no valid key gives zeros. */
static void ref_mha(const ref_dims *m, const double *q, int nq, const double *k, const double *v, int nk,
                    const bool *valid, double *out)
{
    int dk = m->d / m->heads;
    double scale = m->scale;
    double *p = malloc((size_t)nk * sizeof *p);
    for (int h = 0; h < m->heads; h++)
        for (int i = 0; i < nq; i++) {
            double mx = -INFINITY, sum = 0;
            for (int j = 0; j < nk; j++) {
                double s = 0;
                for (int c = h * dk; c < (h + 1) * dk; c++)
                    s += q[(size_t)i * m->d + c] * k[(size_t)j * m->d + c];
                p[j] = s * scale;
                if (valid[j] && p[j] > mx)
                    mx = p[j];
            }
            for (int j = 0; j < nk; j++) {
                p[j] = valid[j] ? exp(p[j] - mx) : 0;
                sum += p[j];
            }
            for (int c = h * dk; c < (h + 1) * dk; c++) {
                double o = 0;
                for (int j = 0; j < nk; j++)
                    o += sum > 0 ? p[j] / sum * v[(size_t)j * m->d + c] : 0;
                out[(size_t)i * m->d + c] = o;
            }
        }
    free(p);
}

/* A pre-LN block: h = src + Wo·MHA(q(LN_q src), k, v(LN_kv y)); out = h + MLP(LN h).
 * self = true: Θ_SELF (one LN "norm_attn" feeds q, k and v; y = src). */
static void ref_block(const ref_dims *m, const char *prefix, bool self, const double *src, int nq, const double *y,
                      int ny, const bool *valid, double *out)
{
    int d = m->d;
    double *qn = malloc((size_t)nq * d * sizeof(double)), *yn = malloc((size_t)ny * d * sizeof(double));
    double *q = malloc((size_t)nq * d * sizeof(double)), *a = malloc((size_t)nq * d * sizeof(double));
    double *k = malloc((size_t)ny * d * sizeof(double)), *v = malloc((size_t)ny * d * sizeof(double));
    double *h = malloc((size_t)nq * d * sizeof(double)), *f = malloc((size_t)nq * m->ff * sizeof(double));
    ref_ln(m, src, nq, prefix, self ? "norm_attn" : "norm_q", qn);
    if (self)
        memcpy(yn, qn, (size_t)nq * d * sizeof(double));
    else
        ref_ln(m, y, ny, prefix, "norm_kv", yn);
    ref_linear(qn, nq, d, d, prefix, "attn.q", true, q);
    ref_linear(yn, ny, d, d, prefix, "attn.k", true, k);
    ref_linear(yn, ny, d, d, prefix, "attn.v", true, v);
    ref_mha(m, q, nq, k, v, ny, valid, a);
    ref_linear(a, nq, d, d, prefix, "attn.out", true, h);
    for (int i = 0; i < nq * d; i++)
        h[i] += src[i];
    ref_ln(m, h, nq, prefix, "norm_mlp", qn);
    ref_linear(qn, nq, d, m->ff, prefix, "mlp.fc1", true, f);
    for (int i = 0; i < nq * m->ff; i++)
        f[i] = 0.5 * f[i] * (1 + erf(f[i] / sqrt(2.0)));
    ref_linear(f, nq, m->ff, d, prefix, "mlp.fc2", true, out);
    for (int i = 0; i < nq * d; i++)
        out[i] += h[i];
    free(qn), free(yn), free(q), free(a), free(k), free(v), free(h), free(f);
}

/* Φ(X) = softmax over the n valid tokens of (X W)ᵀ, times X: [l, d]. */
static void ref_phi(const ref_dims *m, const double *x, int n, const char *name, double *out)
{
    double *w = param(name, "weight", (int64_t)m->d * m->l);
    double *z = malloc((size_t)n * sizeof *z);
    for (int j = 0; j < m->l; j++) {
        double mx = -INFINITY, sum = 0;
        for (int r = 0; r < n; r++) {
            z[r] = 0;
            for (int c = 0; c < m->d; c++)
                z[r] += x[(size_t)r * m->d + c] * w[(size_t)c * m->l + j];
            mx = fmax(mx, z[r]);
        }
        for (int r = 0; r < n; r++)
            sum += (z[r] = exp(z[r] - mx));
        for (int c = 0; c < m->d; c++) {
            double s = 0;
            for (int r = 0; r < n; r++)
                s += z[r] / sum * x[(size_t)r * m->d + c];
            out[(size_t)j * m->d + c] = s;
        }
    }
    free(w);
    free(z);
}

/* Rows of up to three blocks stacked into one key set, with validity. */
typedef struct keyset {
    double *y;
    bool *valid;
    int n;
} keyset;

static void keys_add(keyset *k, const double *rows, int n, int d)
{
    k->y = realloc(k->y, (size_t)(k->n + n) * d * sizeof(double));
    k->valid = realloc(k->valid, (size_t)(k->n + n) * sizeof(bool));
    memcpy(k->y + (size_t)k->n * d, rows, (size_t)n * d * sizeof(double));
    for (int i = 0; i < n; i++)
        k->valid[k->n + i] = true;
    k->n += n;
}

static void keys_free(keyset *k)
{
    free(k->y);
    free(k->valid);
    *k = (keyset){0};
}

ref_trace *ref_record;

static void record_rows(double *dst, int segment, const double *rows, int n, const ref_dims *m)
{
    if (dst != NULL)
        memcpy(dst + (size_t)segment * m->t * m->d, rows, (size_t)n * m->d * sizeof(double));
}

void ref_sample(const rf_config *cfg, const double *x, int len, double *out)
{
    ref_dims m = {cfg->model.dim, cfg->model.heads, cfg->model.ff, cfg->model.segment, cfg->model.latent,
                  cfg->model.layers, 0};
    /* SPEC §3 (2026-11-25): with h heads each head scales by 1/sqrt(d/h), the
     * head width, as standard MHA; blrp_scale = model is the paper's literal
     * single-head 1/sqrt(d) applied to every head. */
    int head_width = m.d / m.heads;
    bool literal = strcmp(cfg->model.blrp_scale, "model") == 0;
    m.scale = 1.0 / sqrt(literal ? (double)m.d : (double)head_width);
    int d = m.d, l = m.l, t = m.t, T = (len + t - 1) / t;
    bool fwd = strcmp(cfg->model.direction, "backward") != 0, bwd = strcmp(cfg->model.direction, "forward") != 0;
    bool share = strcmp(cfg->model.share_directions, "on") == 0;
    bool residual = strcmp(cfg->model.latent_init, "phi_residual") == 0;
    bool latent_norm = strcmp(cfg->model.latent_norm, "on") == 0;
    /* model.latent_pos: P added to the latent wherever a segment reads it */
    double *P = strcmp(cfg->model.latent_pos, "sinusoidal") == 0 ? param("blrp.latent_pos", NULL, (int64_t)l * d)
                                                                  : calloc((size_t)l * d, sizeof(double));
    double *Lp = malloc((size_t)l * d * sizeof(double));
    const char *set_f = share ? "blrp.cross" : "blrp.fwd", *set_b = share ? "blrp.cross" : "blrp.bwd";
    char px[64], pl[64];
    size_t ld = (size_t)l * d * sizeof(double), td = (size_t)t * d * sizeof(double);

    /* L_INIT of each pass */
    double *init_f = calloc((size_t)l * d, sizeof(double)), *init_b = calloc((size_t)l * d, sizeof(double));
    if (strcmp(cfg->model.latent_init, "posemb") == 0) {
        for (int pass = 0; pass < 2; pass++) {
            if (!(pass == 0 ? fwd : bwd))
                continue;
            double *p = param(pass == 0 ? "blrp.init_fwd" : "blrp.init_bwd", NULL, (int64_t)l * d);
            memcpy(pass == 0 ? init_f : init_b, p, ld);
            free(p);
        }
    } else if (strcmp(cfg->model.phi, "separate") == 0) {
        if (fwd)
            ref_phi(&m, x, len, "blrp.phi_fwd", init_f);
        if (bwd)
            ref_phi(&m, x, len, "blrp.phi_bwd", init_b);
    } else {
        ref_phi(&m, x, len, "blrp.phi", init_f);
        memcpy(init_b, init_f, ld);
    }

    /* S_i = Θ_SELF(X_i + positions), segment i holding rows[i] valid tokens */
    double *pos = param("blrp.segment_pos", NULL, (int64_t)t * d);
    double **S = calloc((size_t)T, sizeof *S), *tmp = malloc(td);
    int *rows = calloc((size_t)T, sizeof *rows);
    bool all_valid[64];
    for (int i = 0; i < 64; i++)
        all_valid[i] = true;
    for (int i = 0; i < T; i++) {
        rows[i] = len - i * t < t ? len - i * t : t;
        S[i] = malloc(td);
        for (int r = 0; r < rows[i]; r++)
            for (int c = 0; c < d; c++)
                S[i][r * d + c] = x[(size_t)(i * t + r) * d + c] + pos[r * d + c];
        for (int layer = 0; layer < m.layers; layer++) {
            char pre[64];
            snprintf(pre, sizeof pre, "layer%d.blrp.self", layer);
            ref_block(&m, pre, true, S[i], rows[i], S[i], rows[i], all_valid, tmp);
            memcpy(S[i], tmp, td);
            if (ref_record != NULL)
                record_rows(ref_record->self[layer], i, S[i], rows[i], &m);
        }
    }
    free(pos);

    double **xf = calloc((size_t)T, sizeof *xf), *L = malloc(ld), *Lf = malloc(ld), *next = malloc(ld);
    double *xb = malloc(td);
    if (fwd) {
        snprintf(px, sizeof px, "%s.theta_x", set_f);
        snprintf(pl, sizeof pl, "%s.theta_l", set_f);
        memcpy(L, init_f, ld);
        for (int i = 0; i < T; i++) {   /* i = 0 is the paper's i = 1 */
            xf[i] = malloc(td);
            for (int e = 0; e < l * d; e++)
                Lp[e] = L[e] + P[e];
            ref_block(&m, px, false, S[i], rows[i], Lp, l, all_valid, xf[i]);
            if (ref_record != NULL)
                record_rows(ref_record->seg[0], i, xf[i], rows[i], &m);
            keyset k = {0};
            keys_add(&k, xf[i], rows[i], d);
            if (residual && i > 0)
                keys_add(&k, init_f, l, d);
            ref_block(&m, pl, false, Lp, l, k.y, k.n, k.valid, next);
            if (latent_norm)
                ref_ln(&m, next, l, pl, "latent_norm", next);
            memcpy(L, next, ld);
            keys_free(&k);
        }
        memcpy(Lf, L, ld);
    }
    if (bwd) {
        snprintf(px, sizeof px, "%s.theta_x", set_b);
        snprintf(pl, sizeof pl, "%s.theta_l", set_b);
        for (int i = T - 1; i >= 0; i--) {
            bool first = i == T - 1;
            /* X̃_i^B reads L_{i+1}^B, L_INIT_B at i = T */
            const double *read = first ? init_b : L;
            for (int e = 0; e < l * d; e++)
                Lp[e] = read[e] + P[e];
            ref_block(&m, px, false, S[i], rows[i], Lp, l, all_valid, xb);
            if (ref_record != NULL)
                record_rows(ref_record->seg[1], i, xb, rows[i], &m);
            keyset k = {0};
            if (fwd)
                keys_add(&k, xf[i], rows[i], d);
            keys_add(&k, xb, rows[i], d);
            if (residual && !first)
                keys_add(&k, init_b, l, d);
            /* query: L_{i+1}^B; at i = T, L_T^F (bidirectional) or L_INIT_B */
            const double *query = !first ? L : fwd ? Lf : init_b;
            for (int e = 0; e < l * d; e++)
                Lp[e] = query[e] + P[e];
            ref_block(&m, pl, false, Lp, l, k.y, k.n, k.valid, next);
            if (latent_norm)
                ref_ln(&m, next, l, pl, "latent_norm", next);
            memcpy(L, next, ld);
            keys_free(&k);
        }
    }
    memcpy(out, L, ld);
    for (int i = 0; i < T; i++)
        free(S[i]), free(xf[i]);
    free(S), free(xf), free(rows), free(tmp), free(L), free(Lf), free(next), free(xb), free(init_f), free(init_b);
    free(P), free(Lp);
}

