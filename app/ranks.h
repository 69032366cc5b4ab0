/* This process's place in a data-parallel job. `rangefinder` started by
 * mpirun (or srun) joins the job before any verb runs; train and bench
 * then run as one rank of it (rank 0 writes files and prints), and the
 * other verbs refuse to run on more than one rank.
 */
#ifndef RF_RANKS_H
#define RF_RANKS_H

#include <glib.h>

#include "../core/collective.h"

/* Join the job when launched by MPI (else nothing). FALSE, with the
 * message printed, when it cannot (MPI failed, or a build without MPI). */
gboolean rf_ranks_start(int *argc, char ***argv);
/* Leave the job with the verb's exit code: every rank together after
 * rf_ranks_agree, or at once for all (MPI_Abort) when this rank failed
 * alone. Returns the code. */
int rf_ranks_finish(int code);

/* The job's collective; NULL in a single process. */
rf_collective *rf_ranks_collective(void);
int rf_ranks_rank(void);     /* 0 alone */
int rf_ranks_count(void);    /* 1 alone */
/* Whether this rank prints and writes files (rank 0). */
gboolean rf_ranks_writer(void);

/* Every rank reports whether it got ready; the job goes on only when all
 * did. FALSE when any failed: the lowest failing rank has printed its
 * error (with `error`), the others print nothing, and all finish with
 * the failure together. Alone: prints `error` if !ok. */
gboolean rf_ranks_agree(gboolean ok, const GError *error);

/* A rank's failure the others did not share (they may be waiting in a
 * collective): print it naming the rank, and end the whole job. */
_Noreturn void rf_ranks_fail_alone(const char *msg, int code);

/* Refuse a verb that runs in one process when there are several ranks
 * (rank 0 says so). */
gboolean rf_ranks_single_only(const char *verb);

#endif
