/* What data-parallel training needs from the processes it runs in: a rank,
 * the number of ranks and four collectives. Core names no MPI symbol;
 * parallel/mpi_collective.c fills this table with MPI. Gradients in device
 * memory are averaged by the device backend itself (NCCL, core/op.h's
 * join_ranks), which starts up through this table. A trainer without one
 * is a single process.
 *
 * Every rank makes the same calls in the same order, so a collective that
 * one rank skips is a bug, not a case to handle.
 */
#ifndef RF_COLLECTIVE_H
#define RF_COLLECTIVE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct rf_collective rf_collective;

struct rf_collective {
    int rank, ranks;
    int local_rank;            /* among the ranks on this machine (a GPU each) */
    /* Start summing `count` floats at `buf` over every rank, in place, and
     * return at once; `buf` must stay untouched until sum_wait. */
    void (*sum_start)(rf_collective *c, float *buf, size_t count);
    /* Let the started sums move on (called between backward kernels). */
    void (*progress)(rf_collective *c);
    /* Wait until every started sum is done. */
    void (*sum_wait)(rf_collective *c);
    /* Sum `count` doubles over every rank, in place; blocks. */
    void (*sum_doubles)(rf_collective *c, double *v, int count);
    /* The smallest `v` over every rank; blocks. */
    int (*min_int)(rf_collective *c, int v);
    /* Rank 0's `bytes` at `buf` to every rank; blocks. */
    void (*broadcast)(rf_collective *c, void *buf, size_t bytes);
};

/* The lowest rank for which `flag` holds, or -1: every rank learns it. */
static inline int rf_collective_first(rf_collective *c, bool flag)
{
    int r = c->min_int(c, flag ? c->rank : c->ranks);
    return r < c->ranks ? r : -1;
}

#endif
