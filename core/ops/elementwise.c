/* PLACEHOLDER: replaced by the real elementwise ops */
#include "../op.h"
#include <stdlib.h>
const rf_op_info rf_info_add = {"add", 0, NULL, NULL};
const rf_op_info rf_info_sub = {"sub", 0, NULL, NULL};
const rf_op_info rf_info_mul = {"mul", 0, NULL, NULL};
const rf_op_info rf_info_scale = {"scale", 0, NULL, NULL};
const rf_op_info rf_info_unary = {"unary", 0, NULL, NULL};
