/* PLACEHOLDER: replaced by the real shape kernels */
#include "../op.h"
#include <stdlib.h>
void rf_cpu_reshape_forward(rf_exec *x, rf_node *n) { (void)x; (void)n; abort(); }
void rf_cpu_reshape_backward(rf_exec *x, rf_node *n) { (void)x; (void)n; abort(); }
void rf_cpu_permute_forward(rf_exec *x, rf_node *n) { (void)x; (void)n; abort(); }
void rf_cpu_permute_backward(rf_exec *x, rf_node *n) { (void)x; (void)n; abort(); }
void rf_cpu_concat_forward(rf_exec *x, rf_node *n) { (void)x; (void)n; abort(); }
void rf_cpu_concat_backward(rf_exec *x, rf_node *n) { (void)x; (void)n; abort(); }
void rf_cpu_slice_forward(rf_exec *x, rf_node *n) { (void)x; (void)n; abort(); }
void rf_cpu_slice_backward(rf_exec *x, rf_node *n) { (void)x; (void)n; abort(); }
void rf_cpu_pad_forward(rf_exec *x, rf_node *n) { (void)x; (void)n; abort(); }
void rf_cpu_pad_backward(rf_exec *x, rf_node *n) { (void)x; (void)n; abort(); }
