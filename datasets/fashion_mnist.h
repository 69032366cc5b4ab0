/* PLACEHOLDER header: data.task = fashion_mnist */
#ifndef RF_DATASETS_FASHION_MNIST_H
#define RF_DATASETS_FASHION_MNIST_H
#include "../core/config.h"
#include "../core/data.h"
rf_dataset *rf_fashion_mnist_open(const rf_config *cfg, rf_status *st);
#endif
