/* train.device: parsing, and the one-sentence refusals of rf_device_open
 * (core/device.h). The GPU-less paths run everywhere; a stand-in backend
 * drives the table's logic (no GPU here to give those answers), and in a
 * CUDA build the real backend is asked too. */
#include <stdio.h>
#include <string.h>

#include "../core/config.h"
#include "../core/device.h"
#include "../core/op.h"
#include "tap.h"
#if RF_HAVE_CUDA
#include "../kernels/cuda_device.h"
#endif

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
static int fake_n;
static bool fake_count_ok;

static bool fake_count(int *n, rf_status *st)
{
    *n = fake_n;
    return fake_count_ok || rf_fail(st, "CUDA: no driver (stand-in)");
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
    tap_ok(!rf_device_open("cuda", &st) && strncmp(st.msg, "train.device = cuda: ", 21) == 0,
           "cuda is refused in one sentence while the executor cannot drive it (%s)", st.msg);
#endif
    rf_device_backend fake = {RF_DEVICE_CUDA, "cuda", fake_count, NULL, NULL};
    rf_device_register(&fake);
    fake_count_ok = false;
    st = (rf_status){0};
    tap_ok(!rf_device_open("cuda", &st) && strstr(st.msg, "no usable GPU (CUDA: no driver (stand-in))") != NULL,
           "no driver: the runtime's reason is passed on");
    fake_count_ok = true;
    fake_n = 1;
    st = (rf_status){0};
    tap_ok(!rf_device_open("cuda:1", &st) && strstr(st.msg, "this machine has 1 GPU (cuda:0)") != NULL,
           "cuda:1 on a one-GPU machine names what there is");
    st = (rf_status){0};
    tap_ok(!rf_device_open("cuda:0", &st) && strstr(st.msg, "cannot run a whole model yet") != NULL,
           "a backend that cannot run graphs is refused");
    static const rf_backend executor = {.name = "stand-in"};
    fake.exec = &executor;
    st = (rf_status){0};
    tap_ok(rf_device_open("cuda:0", &st) == &executor, "a usable GPU with an executor opens on it");
}

int main(void)
{
    test_parse();
    test_open();
    return tap_done();
}
