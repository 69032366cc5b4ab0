/* PLACEHOLDER: replaced by the real conv kernels */
#include "../op.h"
#include <stdlib.h>
void rf_cpu_conv1d_forward(rf_exec *x, rf_node *n) { (void)x; (void)n; abort(); }
void rf_cpu_conv1d_backward(rf_exec *x, rf_node *n) { (void)x; (void)n; abort(); }
void rf_cpu_conv2d_forward(rf_exec *x, rf_node *n) { (void)x; (void)n; abort(); }
void rf_cpu_conv2d_backward(rf_exec *x, rf_node *n) { (void)x; (void)n; abort(); }
