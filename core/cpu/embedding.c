/* Embedding kernels. */
#include <string.h>

#include "../op.h"

#define TASK_FLOATS 16384   /* about this many floats per pool task */

typedef struct {
    const float *ids;       /* [R] integer ids */
    const float *table;     /* [V, D] */
    float *out;             /* [R, D] */
    int64_t rows, D;
} embed_ctx;

static void gather_rows(void *p, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const embed_ctx *c = p;
    for (int64_t r = begin; r < end; r++) {
        int64_t id = (int64_t)c->ids[r];
        memcpy(c->out + r * c->D, c->table + id * c->D, (size_t)c->D * sizeof(float));
    }
}

/* ids [...] , table [V, D] -> out [..., D] */
void rf_cpu_embedding_forward(rf_exec *x, rf_node *n)
{
    const rf_node *ids = rf_in(x, n, 0), *table = rf_in(x, n, 1);
    embed_ctx c = {ids->value, table->value, n->value, rf_shape_numel(ids->shape), table->shape.dim[1]};
    int64_t grain = TASK_FLOATS / c.D > 0 ? TASK_FLOATS / c.D : 1;
    rf_pool_run(x->pool, c.rows, grain, gather_rows, &c);
}

typedef struct {
    const float *ids;       /* [R] integer ids */
    const float *dout;      /* [R, D] */
    float *dtable;          /* [V, D] */
    int64_t rows, D;
} scatter_ctx;

/* Each task owns the table rows [begin, end) and scans every id in order, so
 * a row's contributions are summed in id order whatever the thread count. */
static void scatter_rows(void *p, int64_t begin, int64_t end, int thread)
{
    (void)thread;
    const scatter_ctx *c = p;
    for (int64_t r = 0; r < c->rows; r++) {
        int64_t id = (int64_t)c->ids[r];
        if (id < begin || id >= end)
            continue;
        float *dst = c->dtable + id * c->D;
        const float *src = c->dout + r * c->D;
        for (int64_t d = 0; d < c->D; d++)
            dst[d] += src[d];
    }
}

/* dtable [V, D] += scatter of dout [..., D] by ids; ids get no gradient */
void rf_cpu_embedding_backward(rf_exec *x, rf_node *n)
{
    const rf_node *ids = rf_in(x, n, 0);
    rf_node *table = rf_in(x, n, 1);
    if (table->grad == NULL)
        return;
    scatter_ctx c = {ids->value, n->grad, table->grad, rf_shape_numel(ids->shape), table->shape.dim[1]};
    int64_t V = table->shape.dim[0];
    /* split the table only when the scattered volume is worth a thread */
    int64_t grain = c.rows * c.D < 2 * TASK_FLOATS ? V : 1;
    rf_pool_run(x->pool, V, grain, scatter_rows, &c);
}
