/* PLACEHOLDER: replaced by the real shape ops */
#include "../op.h"
#include <stdlib.h>
const rf_op_info rf_info_reshape = {"reshape", 0, NULL, NULL};
const rf_op_info rf_info_permute = {"permute", 0, NULL, NULL};
const rf_op_info rf_info_concat = {"concat", 0, NULL, NULL};
const rf_op_info rf_info_slice = {"slice", 0, NULL, NULL};
const rf_op_info rf_info_pad = {"pad", 0, NULL, NULL};
