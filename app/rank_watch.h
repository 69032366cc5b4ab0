/* A rank of an MPI job that dies names itself, with the step it was in.
 *
 * The launcher (mpirun, srun) sees a killed rank only as an exit status,
 * and the ranks it then ends cannot know which one died. So the process the
 * launcher starts forks before MPI starts: the child is the rank and does
 * all the work; the parent only waits for it, passes on the signals the
 * launcher sends, and leaves with the child's exit status. When the child
 * is killed (kill -9, the OOM killer, a crash) while the launcher had not
 * asked it to end, the parent, still the rank to the launcher, prints the
 * job's one message: the rank, the signal and the step, read from a page
 * the two share. Then it exits non-zero and the launcher ends the other
 * ranks, which print nothing.
 */
#ifndef RF_RANK_WATCH_H
#define RF_RANK_WATCH_H

#include <stdint.h>

/* Under an MPI launcher: fork, return in the child (the rank); the parent
 * never returns. If the fork cannot be made the rank runs unwatched. */
void rf_rank_watch_start(void);

/* The training steps this rank has completed (no-op when unwatched). */
void rf_rank_watch_step(int64_t done);

#endif
