/* Signals during oneDNN's products. Debian's oneDNN 2.6 points the stack
 * pointer into a heap workspace inside its JIT sgemm kernels (oneDNN issue
 * 4845, fixed in 3.12), so a signal handler that runs on a thread inside
 * one writes its frame over the heap: a Ctrl-C or SIGUSR1 during training
 * ended in "corrupted size vs. prev_size" and no checkpoint. rf_gemm1 keeps
 * every signal off the thread for the length of a oneDNN call. Here a
 * second thread signals the computing one as fast as it can while it runs
 * the product shape that crashed (a linear layer's weight gradient); each
 * result is compared with OpenBLAS's and the heap is exercised between
 * calls. It runs in a child, so a corrupted heap fails one check. */
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../core/gemm.h"
#include "tap.h"

/* At least CALLS products, and on until HANDLED handlers have run: on a
 * loaded machine the signalling thread may barely be scheduled during the
 * first CALLS, so a fixed count made the test flaky. */
enum { M = 64, N = 128, K = 2048, CALLS = 300, HANDLED = 30, MAX_SECONDS = 30 };

static atomic_long handled;
static atomic_bool done;
static pthread_t computing;

static void on_signal(int sig)
{
    (void)sig;
    atomic_fetch_add(&handled, 1);
}

static void *signaller(void *arg)
{
    (void)arg;
    while (!atomic_load(&done)) {
        pthread_kill(computing, SIGUSR1);
        usleep(20);
    }
    return NULL;
}

/* The child: 0 when every product matched, 1 when one did not, 2 when too
 * few signals came to make the run a test. */
static int products_under_signals(void)
{
    struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESTART};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    float *a = malloc(sizeof(float) * K * M), *b = malloc(sizeof(float) * K * N);
    float *c = malloc(sizeof(float) * M * N), *ref = malloc(sizeof(float) * M * N);
    srand(7);
    for (int i = 0; i < K * M; i++)
        a[i] = (float)((double)rand() / RAND_MAX) - 0.5f;
    for (int i = 0; i < K * N; i++)
        b[i] = (float)((double)rand() / RAND_MAX) - 0.5f;
    /* C = Aᵀ B, A stored K × M: dW = Xᵀ G of a linear layer */
    rf_gemm1(RF_GEMM_OPENBLAS, true, false, M, N, K, 1.0f, a, M, b, N, 0.0f, ref, N);
    computing = pthread_self();
    pthread_t t;
    pthread_create(&t, NULL, signaller, NULL);
    int bad = 0;
    time_t start = time(NULL);
    for (int call = 0; !bad && (call < CALLS || (atomic_load(&handled) < HANDLED &&
                                                 time(NULL) - start < MAX_SECONDS));
         call++) {
        rf_gemm1(RF_GEMM_ONEDNN, true, false, M, N, K, 1.0f, a, M, b, N, 0.0f, c, N);
        for (int i = 0; i < M * N; i++)
            if (!(fabsf(c[i] - ref[i]) <= 1e-3f * (1.0f + fabsf(ref[i]))))
                bad = 1;
        free(malloc(4096 + (size_t)(call % CALLS)));   /* a corrupted free list shows here */
    }
    atomic_store(&done, true);
    pthread_join(t, NULL);
    free(a), free(b), free(c), free(ref);
    return bad ? 1 : atomic_load(&handled) < HANDLED ? 2 : 0;
}

int main(void)
{
    pid_t pid = fork();
    if (pid == 0)
        _exit(products_under_signals());
    int status = 0;
    waitpid(pid, &status, 0);
    bool exited = WIFEXITED(status);
    tap_ok(exited, "oneDNN products signalled thousands of times leave the heap intact (%s %d)",
           exited ? "exit code" : "killed by signal", exited ? WEXITSTATUS(status) : WTERMSIG(status));
    tap_ok(exited && WEXITSTATUS(status) != 1, "every product signalled in flight equals OpenBLAS's");
    tap_ok(exited && WEXITSTATUS(status) != 2, "the signals reached the computing thread (a handler ran)");
    return tap_done();
}
