#include "ranks.h"

#include <stdio.h>
#include <stdlib.h>

#include "../parallel/launch.h"
#if RF_HAVE_MPI
#include "../parallel/mpi_collective.h"
#endif
#include "cli.h"

static rf_collective *job;   /* NULL: a single process */

gboolean rf_ranks_start(int *argc, char ***argv)
{
    if (!rf_launched_by_mpi())
        return TRUE;
#if RF_HAVE_MPI
    rf_status st = {0};
    job = rf_mpi_start(argc, argv, &st);
    if (job == NULL)
        fprintf(stderr, "rangefinder: %s\n", st.msg);
    return job != NULL;
#else
    (void)argc;
    (void)argv;
    fprintf(stderr, "rangefinder: started by an MPI launcher, but this build has no MPI (install libopenmpi-dev "
                    "and rebuild; meson -Dmpi=enabled makes it required)\n");
    return FALSE;
#endif
}

int rf_ranks_finish(int code)
{
#if RF_HAVE_MPI
    if (job != NULL)
        rf_mpi_stop(job);
#endif
    job = NULL;
    return code;
}

rf_collective *rf_ranks_collective(void) { return job; }
int rf_ranks_rank(void) { return job != NULL ? job->rank : 0; }
int rf_ranks_count(void) { return job != NULL ? job->ranks : 1; }
gboolean rf_ranks_writer(void) { return rf_ranks_rank() == 0; }

gboolean rf_ranks_agree(gboolean ok, const GError *error)
{
    int first = job != NULL ? rf_collective_first(job, !ok) : (ok ? -1 : 0);
    if (first >= 0 && first == rf_ranks_rank() && error != NULL) {
        if (job != NULL && job->ranks > 1) {
            fprintf(stderr, "rangefinder: rank %d: %s\n", first, error->message);
            fflush(stderr);
        } else {
            fprintf(stderr, "rangefinder: %s\n", error->message);
            fflush(stderr);
        }
    }
    return first < 0;
}

_Noreturn void rf_ranks_fail_alone(const char *msg, int code)
{
    fprintf(stderr, "rangefinder: rank %d: %s\n", rf_ranks_rank(), msg);
    fflush(stderr);
#if RF_HAVE_MPI
    if (job != NULL)
        rf_mpi_abort(job, code);
#endif
    exit(code);
}

gboolean rf_ranks_single_only(const char *verb)
{
    if (rf_ranks_count() == 1)
        return TRUE;
    if (rf_ranks_writer())
        fprintf(stderr, "rangefinder: %s runs in one process; under mpirun only train and bench run across "
                        "ranks (%d were started)\n", verb, rf_ranks_count());
    return FALSE;
}
