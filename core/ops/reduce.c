/* PLACEHOLDER: replaced by the real reduce ops */
#include "../op.h"
#include <stdlib.h>
const rf_op_info rf_info_sum = {"sum", 0, NULL, NULL};
const rf_op_info rf_info_mean = {"mean", 0, NULL, NULL};
const rf_op_info rf_info_masked_mean = {"masked_mean", 0, NULL, NULL};
