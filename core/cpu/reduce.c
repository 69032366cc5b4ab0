/* PLACEHOLDER: replaced by the real reduce kernels */
#include "../op.h"
#include <stdlib.h>
void rf_cpu_sum_forward(rf_exec *x, rf_node *n) { (void)x; (void)n; abort(); }
void rf_cpu_sum_backward(rf_exec *x, rf_node *n) { (void)x; (void)n; abort(); }
void rf_cpu_mean_forward(rf_exec *x, rf_node *n) { (void)x; (void)n; abort(); }
void rf_cpu_mean_backward(rf_exec *x, rf_node *n) { (void)x; (void)n; abort(); }
void rf_cpu_masked_mean_forward(rf_exec *x, rf_node *n) { (void)x; (void)n; abort(); }
void rf_cpu_masked_mean_backward(rf_exec *x, rf_node *n) { (void)x; (void)n; abort(); }
