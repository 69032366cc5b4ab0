/* train.device: parsing, and the one-sentence refusals of rf_device_open
 * (core/device.h). The GPU-less paths run everywhere; a stand-in backend
 * drives the table's logic (no GPU here to give those answers), and in a
 * CUDA build the real backend is asked too. */
#include <stdio.h>
#include <string.h>

#include "../core/config.h"
#include "../core/device.h"
#include "../core/exec.h"
#include "../core/model.h"
#include "../core/op.h"
#include "tap.h"
#if RF_HAVE_CUDA
#include "../kernels/cuda_device.h"
#endif

/* A model's inputs: tokens i % 7, every position valid, labels 1 and 2. */
static void fill_inputs(rf_model *m)
{
    for (int i = 0; i < 10; i++) {
        rf_value(m->graph, m->x)[i] = (float)(i % 7);
        rf_value(m->graph, m->mask)[i] = 1;
    }
    rf_value(m->graph, m->labels)[0] = 1;
    rf_value(m->graph, m->labels)[1] = 2;
}

static int syncs;

static void count_sync(void)
{
    syncs++;
}

static void test_parse(void)
{
    static const struct {
        const char *text;
        bool ok;
        rf_device_kind kind;
        int index;
    } cases[] = {
        {"cpu", true, RF_DEVICE_CPU, 0},    {"cuda", true, RF_DEVICE_CUDA, 0}, {"cuda:0", true, RF_DEVICE_CUDA, 0},
        {"cuda:63", true, RF_DEVICE_CUDA, 63}, {"gpu", false, 0, 0},         {"cuda:", false, 0, 0},
        {"cuda:64", false, 0, 0},          {"cuda:-1", false, 0, 0},         {"cuda:1x", false, 0, 0},
        {"", false, 0, 0},                 {"CPU", false, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rf_device d = {RF_DEVICE_CPU, -1};
        rf_status st = {0};
        bool ok = rf_device_parse(cases[i].text, &d, &st);
        bool right = ok == cases[i].ok &&
                     (ok ? d.kind == cases[i].kind && d.index == cases[i].index
                         : strstr(st.msg, "is not a device") != NULL && strstr(st.msg, cases[i].text) != NULL);
        tap_ok(right, "'%s' %s", cases[i].text, cases[i].ok ? "parses" : "is refused, naming the value");
    }
    rf_config cfg;
    rf_config_defaults(&cfg);
    rf_status st = {0};
    tap_ok(strcmp(cfg.train.device, "cpu") == 0 && rf_config_validate(&cfg, &st), "the default device is cpu");
    strcpy(cfg.train.device, "tpu");
    tap_ok(!rf_config_validate(&cfg, &st) && strstr(st.msg, "train.device = 'tpu'") != NULL,
           "a config asking for an unknown device does not validate");
}

/* A stand-in for a GPU backend: its answers are set by the test. */
static int gpu_count;
static bool gpu_count_ok;

static bool stand_in_count(int *n, rf_status *st)
{
    *n = gpu_count;
    return gpu_count_ok || rf_fail(st, "CUDA: no driver (stand-in)");
}

/* A CUDA module that cannot be loaded is named with the loader's reason;
 * forgetting it gives the plain answer again. Must run before anything
 * asks for a CUDA device: the module is tried once per process. */
static void test_module_missing(void)
{
    rf_status st = {0};
    rf_device_set_cuda_module("/nonexistent/librfcuda.so");
    tap_ok(!rf_device_open("cuda", &st) && strstr(st.msg, "the CUDA backend (/nonexistent/librfcuda.so) could not "
                                                          "be loaded: ") != NULL &&
               strstr(st.msg, "No such file") != NULL,
           "a CUDA module that is not there is named, with the loader's reason (%s)", st.msg);
    rf_device_set_cuda_module(NULL);
    st = (rf_status){0};
    tap_ok(!rf_device_open("cuda", &st) && strstr(st.msg, "could not be loaded") == NULL,
           "without a module, the build's own answer (%s)", st.msg);
}

static void test_open(void)
{
    rf_status st = {0};
    tap_ok(rf_device_open("cpu", &st) == &rf_cpu_backend, "cpu always opens, on the CPU backend");
#if !RF_HAVE_CUDA
    st = (rf_status){0};
    tap_ok(!rf_device_open("cuda", &st) && strstr(st.msg, "this build has no CUDA backend") != NULL &&
               strstr(st.msg, "-Dcuda=enabled") != NULL,
           "cuda in a build without the backend: says so and how to build it (%s)", st.msg);
#else
    rf_cuda_register();
    int n = -1;
    st = (rf_status){0};
    bool counted = rf_device_backend_of(RF_DEVICE_CUDA)->count(&n, &st);
    tap_ok(counted ? n >= 1 : strncmp(st.msg, "CUDA: ", 6) == 0,
           "the CUDA backend counts the GPUs or gives the runtime's reason (%s)", counted ? "counted" : st.msg);
    st = (rf_status){0};
    const rf_backend *gpu = rf_device_open("cuda", &st);
    tap_ok(gpu != NULL ? gpu == rf_device_backend_of(RF_DEVICE_CUDA)->exec
                       : strncmp(st.msg, "train.device = cuda: ", 21) == 0 && strchr(st.msg, '\n') == NULL,
           "cuda opens on the CUDA backend, or is refused in one sentence (%s)", gpu != NULL ? "opened" : st.msg);
#endif
    rf_device_backend stand_in = {RF_DEVICE_CUDA, "cuda", stand_in_count, NULL, NULL, NULL};
    rf_device_register(&stand_in);
    gpu_count_ok = false;
    st = (rf_status){0};
    tap_ok(!rf_device_open("cuda", &st) && strstr(st.msg, "no usable GPU (CUDA: no driver (stand-in))") != NULL,
           "no driver: the runtime's reason is passed on");
    gpu_count_ok = true;
    gpu_count = 1;
    st = (rf_status){0};
    tap_ok(!rf_device_open("cuda:1", &st) && strstr(st.msg, "this machine has 1 GPU (cuda:0)") != NULL,
           "cuda:1 on a one-GPU machine names what there is");
    st = (rf_status){0};
    tap_ok(!rf_device_open("cuda:0", &st) && strstr(st.msg, "cannot run models") != NULL,
           "a backend that cannot run graphs is refused");
    static const rf_backend executor = {.name = "stand-in"};
    stand_in.exec = &executor;
    st = (rf_status){0};
    tap_ok(rf_device_open("cuda:0", &st) == &executor, "a usable GPU with an executor opens on it");

    /* a model the executor lacks kernels for is refused, naming the op */
    rf_config cfg;
    rf_config_defaults(&cfg);
    cfg.model.dim = 8;
    cfg.model.heads = 2;
    cfg.model.ff = 8;
    strcpy(cfg.train.device, "cuda:0");
    rf_params *p = rf_params_new(1);
    st = (rf_status){0};
    rf_model *m = rf_model_new(&cfg, 2, 5, 0, 7, 3, p, true, &st);
    tap_ok(m == NULL && strstr(st.msg, "the stand-in backend has no kernel for ") != NULL &&
               strstr(st.msg, "train.device = cpu runs it") != NULL,
           "a model whose ops the device lacks kernels for is refused, naming one (%s)", st.msg);
    rf_params_free(p);

    /* the executor runs on the device's table: the CPU's kernels behind a
     * stand-in GPU entry train a model exactly as on the CPU */
    static rf_backend cpu_copy;
    cpu_copy = rf_cpu_backend;
    cpu_copy.name = "stand-in";
    stand_in.exec = &cpu_copy;
    float loss[2] = {0, 0};
    for (int run = 0; run < 2; run++) {
        strcpy(cfg.train.device, run == 0 ? "cpu" : "cuda:0");
        p = rf_params_new(1);
        m = rf_model_new(&cfg, 2, 5, 0, 7, 3, p, true, &st);
        if (m == NULL)
            break;
        fill_inputs(m);
        rf_exec x;
        rf_exec_init(&x, m->graph, NULL, 1, 0, false);
        rf_graph_forward(m->graph, &x);
        loss[run] = rf_value(m->graph, m->loss)[0];
        rf_model_free(m);
        rf_params_free(p);
    }
    tap_ok(loss[0] > 0 && loss[0] == loss[1], "a model on the device's table computes the CPU's loss (%g, %g)",
           loss[0], loss[1]);

    /* a device that queues its kernels (it has a sync): under a profile the
     * executor waits for it before and after each kernel, so a kernel's time
     * is its own run there (forward's own waits come on top) */
    static rf_backend queued;
    queued = rf_cpu_backend;
    queued.name = "stand-in";
    queued.sync = count_sync;
    stand_in.exec = &queued;
    int waits[2] = {-1, -1};
    int64_t kernels = 0;
    for (int profiled = 0; profiled < 2; profiled++) {
        p = rf_params_new(1);
        m = rf_model_new(&cfg, 2, 5, 0, 7, 3, p, true, &st);
        if (m == NULL)
            break;
        fill_inputs(m);
        rf_op_profile prof = {0};
        if (profiled)
            rf_graph_set_profile(m->graph, &prof);
        rf_exec x;
        rf_exec_init(&x, m->graph, NULL, 1, 0, false);
        syncs = 0;
        rf_graph_forward(m->graph, &x);
        waits[profiled] = syncs;
        for (int op = 0; op < RF_OP_COUNT; op++)
            kernels += prof.calls[op][0];
        rf_model_free(m);
        rf_params_free(p);
    }
    tap_ok(kernels > 0 && waits[0] >= 0 && waits[1] - waits[0] == 2 * kernels,
           "a profile waits for a queueing device before and after each of its %lld kernels (%d waits, %d unprofiled)",
           (long long)kernels, waits[1], waits[0]);
}

int main(void)
{
    test_parse();
    test_module_missing();
    test_open();
    return tap_done();
}
