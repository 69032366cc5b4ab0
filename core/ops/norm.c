/* PLACEHOLDER: replaced by the real norm ops */
#include "../op.h"
#include <stdlib.h>
const rf_op_info rf_info_layernorm = {"layernorm", 0, NULL, NULL};
