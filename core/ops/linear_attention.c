/* PLACEHOLDER: replaced by the real linear_attention op */
#include "../op.h"
const rf_op_info rf_info_linear_attention = {"linear_attention", 0, NULL, NULL};
