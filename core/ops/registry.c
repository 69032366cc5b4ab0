/* The op table: one rf_op_info per op code, defined next to each op's
 * constructor in core/ops/. */
#include "../op.h"

static const rf_op_info info_input = {"input", 0, NULL, NULL, NULL};
static const rf_op_info info_param = {"param", 0, NULL, NULL, NULL};

extern const rf_op_info rf_info_matmul;
extern const rf_op_info rf_info_linear;
extern const rf_op_info rf_info_add;
extern const rf_op_info rf_info_sub;
extern const rf_op_info rf_info_mul;
extern const rf_op_info rf_info_scale;
extern const rf_op_info rf_info_unary;
extern const rf_op_info rf_info_glu;
extern const rf_op_info rf_info_reshape;
extern const rf_op_info rf_info_permute;
extern const rf_op_info rf_info_concat;
extern const rf_op_info rf_info_slice;
extern const rf_op_info rf_info_pad;
extern const rf_op_info rf_info_softmax;
extern const rf_op_info rf_info_log_softmax;
extern const rf_op_info rf_info_layernorm;
extern const rf_op_info rf_info_embedding;
extern const rf_op_info rf_info_conv1d;
extern const rf_op_info rf_info_conv2d;
extern const rf_op_info rf_info_sum;
extern const rf_op_info rf_info_mean;
extern const rf_op_info rf_info_masked_mean;
extern const rf_op_info rf_info_dropout;
extern const rf_op_info rf_info_cross_entropy;
extern const rf_op_info rf_info_bce_logits;
extern const rf_op_info rf_info_attention;
extern const rf_op_info rf_info_ls_attention;
extern const rf_op_info rf_info_linear_attention;
extern const rf_op_info rf_info_talk;
extern const rf_op_info rf_info_sort_rows;

const rf_op_info *const rf_op_infos[RF_OP_COUNT] = {
    [RF_OP_INPUT] = &info_input,
    [RF_OP_PARAM] = &info_param,
    [RF_OP_MATMUL] = &rf_info_matmul,
    [RF_OP_LINEAR] = &rf_info_linear,
    [RF_OP_ADD] = &rf_info_add,
    [RF_OP_SUB] = &rf_info_sub,
    [RF_OP_MUL] = &rf_info_mul,
    [RF_OP_SCALE] = &rf_info_scale,
    [RF_OP_UNARY] = &rf_info_unary,
    [RF_OP_GLU] = &rf_info_glu,
    [RF_OP_RESHAPE] = &rf_info_reshape,
    [RF_OP_PERMUTE] = &rf_info_permute,
    [RF_OP_CONCAT] = &rf_info_concat,
    [RF_OP_SLICE] = &rf_info_slice,
    [RF_OP_PAD] = &rf_info_pad,
    [RF_OP_SOFTMAX] = &rf_info_softmax,
    [RF_OP_LOG_SOFTMAX] = &rf_info_log_softmax,
    [RF_OP_LAYERNORM] = &rf_info_layernorm,
    [RF_OP_EMBEDDING] = &rf_info_embedding,
    [RF_OP_CONV1D] = &rf_info_conv1d,
    [RF_OP_CONV2D] = &rf_info_conv2d,
    [RF_OP_SUM] = &rf_info_sum,
    [RF_OP_MEAN] = &rf_info_mean,
    [RF_OP_MASKED_MEAN] = &rf_info_masked_mean,
    [RF_OP_DROPOUT] = &rf_info_dropout,
    [RF_OP_CROSS_ENTROPY] = &rf_info_cross_entropy,
    [RF_OP_BCE_LOGITS] = &rf_info_bce_logits,
    [RF_OP_ATTENTION] = &rf_info_attention,
    [RF_OP_LS_ATTENTION] = &rf_info_ls_attention,
    [RF_OP_LINEAR_ATTENTION] = &rf_info_linear_attention,
    [RF_OP_TALK] = &rf_info_talk,
    [RF_OP_SORT_ROWS] = &rf_info_sort_rows,
};
