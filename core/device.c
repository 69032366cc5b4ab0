#include "device.h"

#include "backend_layout.h"
#include "op.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const rf_device_backend *registered[2];   /* by rf_device_kind; [RF_DEVICE_CPU] unused */

/* The CUDA module: its file, and why loading it failed (empty: it loaded,
 * or was never tried). Loaded once, by whichever thread asks first. */
static char cuda_module[4096];
static char cuda_module_error[512];
static pthread_once_t cuda_module_once = PTHREAD_ONCE_INIT;

void rf_device_set_cuda_module(const char *path)
{
    snprintf(cuda_module, sizeof cuda_module, "%s", path != NULL ? path : "");
}

static void load_cuda_module(void)
{
    if (cuda_module[0] == '\0' || registered[RF_DEVICE_CUDA] != NULL)
        return;
    /* RTLD_LOCAL: its CUDA libraries stay out of the program's namespace;
     * it finds core's functions in the program (linked with -rdynamic) */
    void *m = dlopen(cuda_module, RTLD_NOW | RTLD_LOCAL);
    void (*entry)(void) = NULL;
    uint64_t (*layout)(void) = NULL;
    if (m != NULL) {
        *(void **)&entry = dlsym(m, "rf_cuda_register");
        *(void **)&layout = dlsym(m, "rf_cuda_layout");
    }
    if (entry == NULL || layout == NULL) {
        const char *why = dlerror();
        snprintf(cuda_module_error, sizeof cuda_module_error, "%s",
                 why != NULL ? why : "no rf_cuda_register or rf_cuda_layout in it");
    } else if (layout() != rf_backend_layout()) {
        /* built against other headers: its kernels would misread rf_exec,
         * rf_backend and the rest (backend_layout.h) */
        snprintf(cuda_module_error, sizeof cuda_module_error,
                 "it was compiled against other versions of core/op.h and the structs it shares with this program "
                 "(a stale build: rebuild it, e.g. `touch kernels/*.cu && ninja`)");
    } else {
        entry();   /* the module stays loaded: its kernels are the backend */
        return;
    }
    if (m != NULL)
        dlclose(m);
}

bool rf_device_parse(const char *text, rf_device *out, rf_status *st)
{
    if (strcmp(text, "cpu") == 0) {
        *out = (rf_device){RF_DEVICE_CPU, 0};
        return true;
    }
    if (strcmp(text, "cuda") == 0) {
        *out = (rf_device){RF_DEVICE_CUDA, 0};
        return true;
    }
    if (strncmp(text, "cuda:", 5) == 0 && text[5] >= '0' && text[5] <= '9') {
        char *end;
        long n = strtol(text + 5, &end, 10);
        if (*end == '\0' && n <= RF_DEVICE_MAX_INDEX) {
            *out = (rf_device){RF_DEVICE_CUDA, (int)n};
            return true;
        }
    }
    return rf_fail(st, "train.device = '%s' is not a device (cpu, cuda or cuda:N with N from 0 to %d)", text,
                   RF_DEVICE_MAX_INDEX);
}

/* Read by the backend's kernels' adapters, possibly on another thread
 * than the trainer that set it. */
static atomic_bool tf32;

void rf_device_set_tf32(bool on) { atomic_store(&tf32, on); }

bool rf_device_tf32(void) { return atomic_load(&tf32); }

void rf_device_register(const rf_device_backend *b)
{
    registered[b->kind] = b;
}

const rf_device_backend *rf_device_backend_of(rf_device_kind kind)
{
    if (kind == RF_DEVICE_CUDA)
        pthread_once(&cuda_module_once, load_cuda_module);
    return kind == RF_DEVICE_CPU ? NULL : registered[kind];
}

/* Parse `text` into *d and find its registered backend: *b is NULL for the
 * CPU. False, with the reason, when the text or this build cannot have it. */
static bool backend_for(const char *text, rf_device *d, const rf_device_backend **b, rf_status *st)
{
    *b = NULL;
    if (!rf_device_parse(text, d, st))
        return false;
    if (d->kind == RF_DEVICE_CPU)
        return true;
    *b = rf_device_backend_of(d->kind);
    if (*b == NULL && cuda_module[0] != '\0' && cuda_module_error[0] != '\0')
        return rf_fail(st, "train.device = %s: the CUDA backend (%s) could not be loaded: %s", text, cuda_module,
                       cuda_module_error);
    if (*b == NULL)
        return rf_fail(st, "train.device = %s: this build has no CUDA backend (meson setup -Dcuda=enabled on a "
                           "machine with nvcc)", text);
    return true;
}

const rf_backend *rf_device_plan_backend(const char *text, rf_status *st)
{
    rf_device d;
    const rf_device_backend *b;
    if (!backend_for(text, &d, &b, st))
        return NULL;
    if (b == NULL)
        return &rf_cpu_backend;
    if (b->exec == NULL)
        rf_fail(st, "train.device = %s: this build's %s backend cannot run models", text, b->name);
    return b->exec;
}

const rf_backend *rf_device_open(const char *text, rf_status *st)
{
    rf_device d;
    const rf_device_backend *b;
    if (!backend_for(text, &d, &b, st))
        return NULL;
    if (b == NULL)
        return &rf_cpu_backend;
    int n = 0;
    rf_status why = {0};
    if (!b->count(&n, &why)) {
        rf_fail(st, "train.device = %s: no usable GPU (%s)", text, why.msg);
        return NULL;
    }
    if (d.index >= n) {
        rf_fail(st, "train.device = %s: this machine has %d GPU%s (cuda:0%s)", text, n, n == 1 ? "" : "s",
                n > 1 ? " to cuda:N-1" : "");
        return NULL;
    }
    if (b->exec == NULL) {
        rf_fail(st, "train.device = %s: the GPU is there, but this build's %s backend cannot run models", text,
                b->name);
        return NULL;
    }
    if (b->use != NULL && !b->use(d.index, &why)) {
        rf_fail(st, "train.device = %s: %s", text, why.msg);
        return NULL;
    }
    return b->exec;
}
