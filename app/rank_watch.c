#include "rank_watch.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

/* The page the rank shares with its watcher: steps done, -1 before training. */
static int64_t *shared_steps;

static pid_t rank_pid;
static volatile sig_atomic_t launcher_ended;

/* The launcher's signals go on to the rank; the ones that end a process
 * mean the launcher (or the user through it) ended this rank on purpose. */
static void pass_on(int sig)
{
    if (sig != SIGUSR1 && sig != SIGUSR2)
        launcher_ended = 1;
    kill(rank_pid, sig);
}

/* This process's rank as the launcher numbered it (MPI has not started). */
static const char *launcher_rank(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i]) != NULL)
            return getenv(vars[i]);
    return "?";
}

static _Noreturn void watch(void)
{
    static const int passed[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
    struct sigaction sa = {.sa_handler = pass_on};
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof passed / sizeof passed[0]; i++)
        sigaction(passed[i], &sa, NULL);
    int status;
    while (waitpid(rank_pid, &status, 0) < 0)
        if (errno != EINTR)
            _exit(RF_EXIT_FAILED);
    if (WIFEXITED(status))
        _exit(WEXITSTATUS(status));
    int sig = WTERMSIG(status);
    if (!launcher_ended) {
        int64_t done = __atomic_load_n(shared_steps, __ATOMIC_RELAXED);
        if (done >= 0)
            fprintf(stderr, "rangefinder: rank %s was killed by signal %d (%s) during step %lld; the job ends, "
                            "and the last checkpoint stays valid (continue with train --resume)\n",
                    launcher_rank(), sig, strsignal(sig), (long long)done + 1);
        else
            fprintf(stderr, "rangefinder: rank %s was killed by signal %d (%s) before training; the job ends\n",
                    launcher_rank(), sig, strsignal(sig));
    }
    _exit(RF_EXIT_FAILED);
}

void rf_rank_watch_start(void)
{
    int64_t *page = mmap(NULL, sizeof *page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED)
        return;
    *page = -1;
    fflush(NULL);   /* nothing buffered is written twice */
    pid_t watcher = getpid();
    rank_pid = fork();
    if (rank_pid < 0) {
        munmap(page, sizeof *page);
        return;
    }
    shared_steps = page;
    if (rank_pid > 0)
        watch();
    /* The rank dies with its watcher (a launcher's SIGKILL reaches only the watcher). */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != watcher)
        _exit(RF_EXIT_FAILED);
}

void rf_rank_watch_step(int64_t done)
{
    if (shared_steps != NULL)
        __atomic_store_n(shared_steps, done, __ATOMIC_RELAXED);
}
