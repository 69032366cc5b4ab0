/* PLACEHOLDER: data.task = fashion_mnist */
#include "fashion_mnist.h"
rf_dataset *rf_fashion_mnist_open(const rf_config *cfg, rf_status *st)
{
    (void)cfg;
    rf_fail(st, "data.task = fashion_mnist is not built yet");
    return NULL;
}
