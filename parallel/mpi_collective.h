/* Data parallelism over MPI: the rf_collective (core/collective.h) of a
 * process started by mpirun or srun. Only the main thread calls MPI
 * (MPI_THREAD_FUNNELED); gradient buckets are summed with non-blocking
 * MPI_Iallreduce, which the training step moves on between backward
 * kernels. Built only when meson finds MPI (option `mpi`).
 */
#ifndef RF_MPI_COLLECTIVE_H
#define RF_MPI_COLLECTIVE_H

#include <stdbool.h>

#include "../core/collective.h"
#include "../core/status.h"

/* Initialise MPI and return this process's collective (rank, ranks of
 * MPI_COMM_WORLD); NULL with `st` filled when MPI cannot start. */
rf_collective *rf_mpi_start(int *argc, char ***argv, rf_status *st);

/* Finalise MPI (after the last collective). */
void rf_mpi_stop(rf_collective *c);

/* End every rank of the job at once, with `code` (a rank that fails alone,
 * before the others can hear of it). */
__attribute__((noreturn)) void rf_mpi_abort(rf_collective *c, int code);

#endif
