/* PLACEHOLDER: replaced by the real elementwise kernels */
#include "../op.h"
#include <stdlib.h>
void rf_cpu_add_forward(rf_exec *x, rf_node *n) { (void)x; (void)n; abort(); }
void rf_cpu_add_backward(rf_exec *x, rf_node *n) { (void)x; (void)n; abort(); }
void rf_cpu_sub_forward(rf_exec *x, rf_node *n) { (void)x; (void)n; abort(); }
void rf_cpu_sub_backward(rf_exec *x, rf_node *n) { (void)x; (void)n; abort(); }
void rf_cpu_mul_forward(rf_exec *x, rf_node *n) { (void)x; (void)n; abort(); }
void rf_cpu_mul_backward(rf_exec *x, rf_node *n) { (void)x; (void)n; abort(); }
void rf_cpu_scale_forward(rf_exec *x, rf_node *n) { (void)x; (void)n; abort(); }
void rf_cpu_scale_backward(rf_exec *x, rf_node *n) { (void)x; (void)n; abort(); }
void rf_cpu_unary_forward(rf_exec *x, rf_node *n) { (void)x; (void)n; abort(); }
void rf_cpu_unary_backward(rf_exec *x, rf_node *n) { (void)x; (void)n; abort(); }
