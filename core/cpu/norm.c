/* PLACEHOLDER: replaced by the real norm kernels */
#include "../op.h"
#include <stdlib.h>
void rf_cpu_layernorm_forward(rf_exec *x, rf_node *n) { (void)x; (void)n; abort(); }
void rf_cpu_layernorm_backward(rf_exec *x, rf_node *n) { (void)x; (void)n; abort(); }
