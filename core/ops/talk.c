/* PLACEHOLDER: replaced by the real talk op */
#include "../op.h"
const rf_op_info rf_info_talk = {"talk", 0, NULL, NULL};
