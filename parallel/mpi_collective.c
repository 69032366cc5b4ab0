#include "mpi_collective.h"

#include <mpi.h>
#include <stdlib.h>

typedef struct mpi_collective {
    rf_collective base;
    MPI_Request *pending;      /* started sums; grows once, at the first step */
    int count, capacity;
} mpi_collective;

static void sum_start(rf_collective *c, float *buf, size_t count)
{
    mpi_collective *m = (mpi_collective *)c;
    if (m->count == m->capacity) {
        m->capacity = m->capacity ? 2 * m->capacity : 16;
        m->pending = realloc(m->pending, (size_t)m->capacity * sizeof *m->pending);
    }
    /* MPI counts are ints: a larger bucket goes in int-sized pieces */
    while (count > 0) {
        int n = count > (size_t)(1 << 30) ? 1 << 30 : (int)count;
        MPI_Iallreduce(MPI_IN_PLACE, buf, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &m->pending[m->count++]);
        buf += n;
        count -= (size_t)n;
        if (count > 0 && m->count == m->capacity) {
            m->capacity *= 2;
            m->pending = realloc(m->pending, (size_t)m->capacity * sizeof *m->pending);
        }
    }
}

static void progress(rf_collective *c)
{
    mpi_collective *m = (mpi_collective *)c;
    int done;
    if (m->count > 0)
        MPI_Testall(m->count, m->pending, &done, MPI_STATUSES_IGNORE);
}

static void sum_wait(rf_collective *c)
{
    mpi_collective *m = (mpi_collective *)c;
    MPI_Waitall(m->count, m->pending, MPI_STATUSES_IGNORE);
    m->count = 0;
}

static void sum_doubles(rf_collective *c, double *v, int count)
{
    (void)c;
    MPI_Allreduce(MPI_IN_PLACE, v, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

static void broadcast(rf_collective *c, void *buf, size_t bytes)
{
    (void)c;
    MPI_Bcast(buf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
}

static int min_int(rf_collective *c, int v)
{
    (void)c;
    MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return v;
}

rf_collective *rf_mpi_start(int *argc, char ***argv, rf_status *st)
{
    int provided = 0;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        rf_fail(st, "MPI could not start (MPI_Init_thread failed)");
        return NULL;
    }
    mpi_collective *m = calloc(1, sizeof *m);
    MPI_Comm_rank(MPI_COMM_WORLD, &m->base.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &m->base.ranks);
    m->base.sum_start = sum_start;
    m->base.progress = progress;
    m->base.sum_wait = sum_wait;
    m->base.sum_doubles = sum_doubles;
    m->base.min_int = min_int;
    m->base.broadcast = broadcast;
    MPI_Comm node;   /* the ranks sharing this machine: each takes its own GPU */
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, m->base.rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &m->base.local_rank);
    MPI_Comm_free(&node);
    return &m->base;
}

void rf_mpi_stop(rf_collective *c)
{
    mpi_collective *m = (mpi_collective *)c;
    if (m == NULL)
        return;
    MPI_Finalize();
    free(m->pending);
    free(m);
}

void rf_mpi_abort(rf_collective *c, int code)
{
    (void)c;
    MPI_Abort(MPI_COMM_WORLD, code);
    exit(code);
}
