/* bf16 matrix products on oneDNN's matmul (see gemm_bf16.h). */
#include "gemm_bf16.h"

#include <immintrin.h>
#include <oneapi/dnnl/dnnl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

bool rf_bf16_supported(void)
{
    const char *env = getenv("RF_BF16");
    if (env != NULL && strcmp(env, "off") == 0)
        return false;
    /* every CPU with AMX-BF16 (Sapphire Rapids on) also has AVX512-BF16,
     * the one feature GCC 12 and Clang 14 can both ask about */
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512bf16");
}

/* VCVTNEPS2BF16 rounds to nearest even and keeps NaNs NaN (quiet). Every
 * CPU with AMX-BF16 also has AVX512-BF16. */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16"))) void rf_bf16_round(const float *x, uint16_t *y, size_t n)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256bh h = _mm512_cvtneps_pbh(_mm512_loadu_ps(x + i));
        _mm256_storeu_si256((__m256i *)(y + i), (__m256i)h);
    }
    if (i < n) {
        __mmask16 tail = (__mmask16)((1u << (n - i)) - 1);
        __m256bh h = _mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(tail, x + i));
        _mm256_mask_storeu_epi16(y + i, tail, (__m256i)h);
    }
}

void rf_bf16_widen(const uint16_t *x, float *y, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t bits = (uint32_t)x[i] << 16;
        memcpy(&y[i], &bits, sizeof bits);
    }
}

/* rows x cols elements, `ld` apart, as a packed rows x cols bf16 block:
 * f32 ones rounded into y; bf16 ones read in place when already packed,
 * else copied into y. */
static const uint16_t *pack_block(const void *x, bool half, int rows, int cols, int ld, uint16_t *y)
{
    if (half && ld == cols)
        return x;
    if (!half && ld == cols) {
        rf_bf16_round(x, y, (size_t)rows * cols);
        return y;
    }
    for (int r = 0; r < rows; r++) {
        if (half)
            memcpy(y + (size_t)r * cols, (const uint16_t *)x + (size_t)r * ld, (size_t)cols * sizeof *y);
        else
            rf_bf16_round((const float *)x + (size_t)r * ld, y + (size_t)r * cols, (size_t)cols);
    }
    return y;
}

/* ---- one calling thread's oneDNN state ---- */

/* A product's primitive, kept for its next call (the same shapes come back
 * every step). */
typedef struct prepared {
    bool ta, tb;
    int m, n, k, ldc;
    float alpha, beta;
    dnnl_primitive_t prim;
    dnnl_memory_t a, b, c;
    uint64_t used;   /* for least-recently-used replacement */
} prepared;

#define PREPARED_MAX 32

typedef struct thread_state {
    dnnl_stream_t stream;
    prepared slot[PREPARED_MAX];
    int count;
    uint64_t clock;
    uint16_t *scratch;   /* op(A) then op(B), rounded */
    size_t scratch_len;
} thread_state;

static dnnl_engine_t engine;
static pthread_once_t engine_once = PTHREAD_ONCE_INIT;
static pthread_key_t state_key;

static void forget(prepared *p)
{
    dnnl_primitive_destroy(p->prim);
    dnnl_memory_destroy(p->a);
    dnnl_memory_destroy(p->b);
    dnnl_memory_destroy(p->c);
    *p = (prepared){0};
}

static void state_free(void *arg)
{
    thread_state *s = arg;
    for (int i = 0; i < s->count; i++)
        forget(&s->slot[i]);
    if (s->stream != NULL)
        dnnl_stream_destroy(s->stream);
    free(s->scratch);
    free(s);
}

static void engine_init(void)
{
    if (dnnl_engine_create(&engine, dnnl_cpu, 0) != dnnl_success)
        engine = NULL;
    pthread_key_create(&state_key, state_free);
}

static thread_state *this_thread(void)
{
    pthread_once(&engine_once, engine_init);
    if (engine == NULL)
        return NULL;
    thread_state *s = pthread_getspecific(state_key);
    if (s != NULL)
        return s;
    s = calloc(1, sizeof *s);
    if (s == NULL || dnnl_stream_create(&s->stream, engine, dnnl_stream_default_flags) != dnnl_success) {
        free(s);
        return NULL;
    }
    pthread_setspecific(state_key, s);
    return s;
}

/* The memory descriptor of a rows x cols operand (as the product reads it)
 * packed row-major, or packed as its transpose when `transposed`. */
static dnnl_status_t operand_desc(dnnl_memory_desc_t *d, int rows, int cols, bool transposed, dnnl_data_type_t dt)
{
    dnnl_dims_t dims = {rows, cols};
    dnnl_dims_t strides = {transposed ? 1 : cols, transposed ? rows : 1};
    return dnnl_memory_desc_init_by_strides(d, 2, dims, dt, strides);
}

static bool prepare(prepared *p)
{
    dnnl_memory_desc_t a, b, c;
    dnnl_dims_t cdims = {p->m, p->n}, cstrides = {p->ldc, 1};
    if (operand_desc(&a, p->m, p->k, p->ta, dnnl_bf16) != dnnl_success ||
        operand_desc(&b, p->k, p->n, p->tb, dnnl_bf16) != dnnl_success ||
        dnnl_memory_desc_init_by_strides(&c, 2, cdims, dnnl_f32, cstrides) != dnnl_success)
        return false;
    dnnl_matmul_desc_t md;
    dnnl_primitive_attr_t attr = NULL;
    dnnl_post_ops_t ops = NULL;
    dnnl_primitive_desc_t pd = NULL;
    bool ok = dnnl_matmul_desc_init(&md, &a, &b, NULL, &c) == dnnl_success &&
              dnnl_primitive_attr_create(&attr) == dnnl_success;
    if (ok && p->alpha != 1.0f)
        ok = dnnl_primitive_attr_set_output_scales(attr, 1, 0, &p->alpha) == dnnl_success;
    if (ok && p->beta != 0.0f)
        ok = dnnl_post_ops_create(&ops) == dnnl_success && dnnl_post_ops_append_sum(ops, p->beta) == dnnl_success &&
             dnnl_primitive_attr_set_post_ops(attr, ops) == dnnl_success;
    ok = ok && dnnl_primitive_desc_create(&pd, &md, attr, engine, NULL) == dnnl_success &&
         dnnl_primitive_create(&p->prim, pd) == dnnl_success;
    if (pd != NULL)
        dnnl_primitive_desc_destroy(pd);
    if (ops != NULL)
        dnnl_post_ops_destroy(ops);
    if (attr != NULL)
        dnnl_primitive_attr_destroy(attr);
    ok = ok && dnnl_memory_create(&p->a, &a, engine, DNNL_MEMORY_NONE) == dnnl_success &&
         dnnl_memory_create(&p->b, &b, engine, DNNL_MEMORY_NONE) == dnnl_success &&
         dnnl_memory_create(&p->c, &c, engine, DNNL_MEMORY_NONE) == dnnl_success;
    return ok;
}

/* The prepared primitive for this product, made (replacing the least
 * recently used) when it is new. */
static prepared *lookup(thread_state *s, bool ta, bool tb, int m, int n, int k, float alpha, float beta, int ldc)
{
    prepared key = {.ta = ta, .tb = tb, .m = m, .n = n, .k = k, .ldc = ldc, .alpha = alpha, .beta = beta};
    s->clock++;
    for (int i = 0; i < s->count; i++) {
        prepared *p = &s->slot[i];
        if (p->ta == ta && p->tb == tb && p->m == m && p->n == n && p->k == k && p->ldc == ldc &&
            p->alpha == alpha && p->beta == beta) {
            p->used = s->clock;
            return p;
        }
    }
    prepared *p;
    if (s->count < PREPARED_MAX) {
        p = &s->slot[s->count++];
    } else {
        p = &s->slot[0];
        for (int i = 1; i < s->count; i++)
            if (s->slot[i].used < p->used)
                p = &s->slot[i];
        forget(p);
    }
    *p = key;
    if (!prepare(p)) {
        forget(p);   /* an empty slot, found by no product */
        return NULL;
    }
    p->used = s->clock;
    return p;
}

bool rf_gemm_bf16(bool ta, bool tb, int m, int n, int k, float alpha, const void *A, bool a16, int lda,
                  const void *B, bool b16, int ldb, float beta, float *C, int ldc)
{
    thread_state *s = this_thread();
    if (s == NULL)
        return false;
    size_t need = (size_t)m * k + (size_t)k * n;
    if (need > s->scratch_len) {   /* grows during the first step, then stays */
        uint16_t *grown = realloc(s->scratch, need * sizeof *grown);
        if (grown == NULL)
            return false;
        s->scratch = grown;
        s->scratch_len = need;
    }
    prepared *p = lookup(s, ta, tb, m, n, k, alpha, beta, ldc);
    if (p == NULL)
        return false;
    uint16_t *a = s->scratch, *b = s->scratch + (size_t)m * k;
    /* each operand is packed as it is stored; the descriptors say which way it is read */
    const uint16_t *pa = ta ? pack_block(A, a16, k, m, lda, a) : pack_block(A, a16, m, k, lda, a);
    const uint16_t *pb = tb ? pack_block(B, b16, n, k, ldb, b) : pack_block(B, b16, k, n, ldb, b);
    /* oneDNN only reads its sources */
    dnnl_memory_set_data_handle(p->a, (void *)(uintptr_t)pa);
    dnnl_memory_set_data_handle(p->b, (void *)(uintptr_t)pb);
    dnnl_memory_set_data_handle(p->c, C);
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, p->a}, {DNNL_ARG_WEIGHTS, p->b}, {DNNL_ARG_DST, p->c}};
    return dnnl_primitive_execute(p->prim, s->stream, 3, args) == dnnl_success &&
           dnnl_stream_wait(s->stream) == dnnl_success;
}
