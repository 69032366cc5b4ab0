/* Loading the CUDA module (core/device.c): a module compiled against other
 * versions of the shared structs is refused with a sentence before its entry
 * runs; one compiled against these headers has its entry called. The module
 * is tried once per process, so each case is its own run:
 *   test_device_module MODULE stale|current */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "../core/device.h"
#include "tap.h"

static int registered(const char *module)
{
    void *m = dlopen(module, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);   /* the copy device.c loaded, if any */
    const int *flag = m != NULL ? (const int *)dlsym(m, "fake_cuda_registered") : NULL;
    int value = flag != NULL ? *flag : 0;
    if (m != NULL)
        dlclose(m);
    return value;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return fprintf(stderr, "usage: %s MODULE stale|current\n", argv[0]), 2;
    const char *module = argv[1];
    bool stale = strcmp(argv[2], "stale") == 0;
    rf_device_set_cuda_module(module);
    rf_status st = {0};
    bool opened = rf_device_open("cuda", &st) != NULL;
    bool refused_as_stale = strstr(st.msg, "compiled against other versions of core/op.h") != NULL &&
                            strstr(st.msg, module) != NULL;
    if (stale)
        tap_ok(!opened && refused_as_stale && !registered(module),
               "a module built against other headers is refused, naming it, before its entry runs (%s)", st.msg);
    else
        tap_ok(!refused_as_stale && registered(module),
               "a module built against these headers has its entry called (it registers nothing here: %s)", st.msg);
    return tap_done();
}
