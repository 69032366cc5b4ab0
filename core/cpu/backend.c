/* The CPU backend: the reference implementation of every op. Kernels live in
 * core/cpu/<family>.c; this table is the one place that lists them. */
#include "../op.h"

void rf_cpu_matmul_forward(rf_exec *x, rf_node *n);
void rf_cpu_matmul_backward(rf_exec *x, rf_node *n);
void rf_cpu_linear_forward(rf_exec *x, rf_node *n);
void rf_cpu_linear_backward(rf_exec *x, rf_node *n);
void rf_cpu_add_forward(rf_exec *x, rf_node *n);
void rf_cpu_add_backward(rf_exec *x, rf_node *n);
void rf_cpu_sub_forward(rf_exec *x, rf_node *n);
void rf_cpu_sub_backward(rf_exec *x, rf_node *n);
void rf_cpu_mul_forward(rf_exec *x, rf_node *n);
void rf_cpu_mul_backward(rf_exec *x, rf_node *n);
void rf_cpu_scale_forward(rf_exec *x, rf_node *n);
void rf_cpu_scale_backward(rf_exec *x, rf_node *n);
void rf_cpu_unary_forward(rf_exec *x, rf_node *n);
void rf_cpu_unary_backward(rf_exec *x, rf_node *n);
void rf_cpu_reshape_forward(rf_exec *x, rf_node *n);
void rf_cpu_reshape_backward(rf_exec *x, rf_node *n);
void rf_cpu_permute_forward(rf_exec *x, rf_node *n);
void rf_cpu_permute_backward(rf_exec *x, rf_node *n);
void rf_cpu_concat_forward(rf_exec *x, rf_node *n);
void rf_cpu_concat_backward(rf_exec *x, rf_node *n);
void rf_cpu_slice_forward(rf_exec *x, rf_node *n);
void rf_cpu_sort_rows_forward(rf_exec *x, rf_node *n);
void rf_cpu_glu_forward(rf_exec *x, rf_node *n);
void rf_cpu_glu_backward(rf_exec *x, rf_node *n);
void rf_cpu_sort_rows_backward(rf_exec *x, rf_node *n);
void rf_cpu_slice_backward(rf_exec *x, rf_node *n);
void rf_cpu_pad_forward(rf_exec *x, rf_node *n);
void rf_cpu_pad_backward(rf_exec *x, rf_node *n);
void rf_cpu_softmax_forward(rf_exec *x, rf_node *n);
void rf_cpu_softmax_backward(rf_exec *x, rf_node *n);
void rf_cpu_log_softmax_forward(rf_exec *x, rf_node *n);
void rf_cpu_log_softmax_backward(rf_exec *x, rf_node *n);
void rf_cpu_layernorm_forward(rf_exec *x, rf_node *n);
void rf_cpu_layernorm_backward(rf_exec *x, rf_node *n);
void rf_cpu_embedding_forward(rf_exec *x, rf_node *n);
void rf_cpu_embedding_backward(rf_exec *x, rf_node *n);
void rf_cpu_conv1d_forward(rf_exec *x, rf_node *n);
void rf_cpu_conv1d_backward(rf_exec *x, rf_node *n);
void rf_cpu_conv2d_forward(rf_exec *x, rf_node *n);
void rf_cpu_conv2d_backward(rf_exec *x, rf_node *n);
void rf_cpu_sum_forward(rf_exec *x, rf_node *n);
void rf_cpu_sum_backward(rf_exec *x, rf_node *n);
void rf_cpu_mean_forward(rf_exec *x, rf_node *n);
void rf_cpu_mean_backward(rf_exec *x, rf_node *n);
void rf_cpu_masked_mean_forward(rf_exec *x, rf_node *n);
void rf_cpu_masked_mean_backward(rf_exec *x, rf_node *n);
void rf_cpu_dropout_forward(rf_exec *x, rf_node *n);
void rf_cpu_dropout_backward(rf_exec *x, rf_node *n);
void rf_cpu_cross_entropy_forward(rf_exec *x, rf_node *n);
void rf_cpu_cross_entropy_backward(rf_exec *x, rf_node *n);
void rf_cpu_bce_logits_forward(rf_exec *x, rf_node *n);
void rf_cpu_bce_logits_backward(rf_exec *x, rf_node *n);
void rf_cpu_attention_forward(rf_exec *x, rf_node *n);
void rf_cpu_attention_backward(rf_exec *x, rf_node *n);
void rf_cpu_ls_attention_forward(rf_exec *x, rf_node *n);
void rf_cpu_ls_attention_backward(rf_exec *x, rf_node *n);
void rf_cpu_linear_attention_forward(rf_exec *x, rf_node *n);
void rf_cpu_linear_attention_backward(rf_exec *x, rf_node *n);
void rf_cpu_talk_forward(rf_exec *x, rf_node *n);
void rf_cpu_talk_backward(rf_exec *x, rf_node *n);
void rf_cpu_linalg_products(rf_graph *g, const rf_node *n, bool backward, struct rf_gemm_list *out);
void rf_cpu_conv_products(rf_graph *g, const rf_node *n, bool backward, struct rf_gemm_list *out);

/* The matrix products of every kernel that runs them through core/blas.h. */
static void products(rf_graph *g, const rf_node *n, bool backward, struct rf_gemm_list *out)
{
    rf_cpu_linalg_products(g, n, backward, out);
    rf_cpu_conv_products(g, n, backward, out);
}

const rf_backend rf_cpu_backend = {
    .name = "cpu",
    .products = products,
    .fresh_grads = {[RF_OP_LINEAR] = 1, [RF_OP_ADD] = 3, [RF_OP_SUB] = 3, [RF_OP_UNARY] = 1, [RF_OP_RESHAPE] = 1,
                    [RF_OP_PERMUTE] = 1, [RF_OP_CONCAT] = 15, [RF_OP_MATMUL] = 1, [RF_OP_SOFTMAX] = 1,
                    [RF_OP_LAYERNORM] = 1, [RF_OP_TALK] = 1, [RF_OP_GLU] = 1, [RF_OP_MASKED_MEAN] = 1,
                    [RF_OP_LINEAR_ATTENTION] = 7},
    /* the first slice of bf16 storage: the products read their operands
     * (linear's x, matmul's a and b) in bf16, and what feeds them writes it */
    .bf16_writes = {[RF_OP_LAYERNORM] = true, [RF_OP_UNARY] = true, [RF_OP_GLU] = true, [RF_OP_DROPOUT] = true,
                    [RF_OP_RESHAPE] = true, [RF_OP_PERMUTE] = true},
    .bf16_reads = {[RF_OP_LINEAR] = 1, [RF_OP_MATMUL] = 3, [RF_OP_RESHAPE] = 1, [RF_OP_PERMUTE] = 1},
    .bf16_moves = {[RF_OP_RESHAPE] = true, [RF_OP_PERMUTE] = true},
    .forward = {
        [RF_OP_MATMUL] = rf_cpu_matmul_forward,
        [RF_OP_LINEAR] = rf_cpu_linear_forward,
        [RF_OP_ADD] = rf_cpu_add_forward,
        [RF_OP_SUB] = rf_cpu_sub_forward,
        [RF_OP_MUL] = rf_cpu_mul_forward,
        [RF_OP_SCALE] = rf_cpu_scale_forward,
        [RF_OP_UNARY] = rf_cpu_unary_forward,
        [RF_OP_RESHAPE] = rf_cpu_reshape_forward,
        [RF_OP_PERMUTE] = rf_cpu_permute_forward,
        [RF_OP_CONCAT] = rf_cpu_concat_forward,
        [RF_OP_SLICE] = rf_cpu_slice_forward,
        [RF_OP_PAD] = rf_cpu_pad_forward,
        [RF_OP_SOFTMAX] = rf_cpu_softmax_forward,
        [RF_OP_LOG_SOFTMAX] = rf_cpu_log_softmax_forward,
        [RF_OP_LAYERNORM] = rf_cpu_layernorm_forward,
        [RF_OP_EMBEDDING] = rf_cpu_embedding_forward,
        [RF_OP_CONV1D] = rf_cpu_conv1d_forward,
        [RF_OP_CONV2D] = rf_cpu_conv2d_forward,
        [RF_OP_SUM] = rf_cpu_sum_forward,
        [RF_OP_MEAN] = rf_cpu_mean_forward,
        [RF_OP_MASKED_MEAN] = rf_cpu_masked_mean_forward,
        [RF_OP_DROPOUT] = rf_cpu_dropout_forward,
        [RF_OP_CROSS_ENTROPY] = rf_cpu_cross_entropy_forward,
        [RF_OP_BCE_LOGITS] = rf_cpu_bce_logits_forward,
        [RF_OP_ATTENTION] = rf_cpu_attention_forward,
        [RF_OP_LS_ATTENTION] = rf_cpu_ls_attention_forward,
        [RF_OP_LINEAR_ATTENTION] = rf_cpu_linear_attention_forward,
        [RF_OP_TALK] = rf_cpu_talk_forward,
        [RF_OP_SORT_ROWS] = rf_cpu_sort_rows_forward,
        [RF_OP_GLU] = rf_cpu_glu_forward,
    },
    .backward = {
        [RF_OP_MATMUL] = rf_cpu_matmul_backward,
        [RF_OP_LINEAR] = rf_cpu_linear_backward,
        [RF_OP_ADD] = rf_cpu_add_backward,
        [RF_OP_SUB] = rf_cpu_sub_backward,
        [RF_OP_MUL] = rf_cpu_mul_backward,
        [RF_OP_SCALE] = rf_cpu_scale_backward,
        [RF_OP_UNARY] = rf_cpu_unary_backward,
        [RF_OP_RESHAPE] = rf_cpu_reshape_backward,
        [RF_OP_PERMUTE] = rf_cpu_permute_backward,
        [RF_OP_CONCAT] = rf_cpu_concat_backward,
        [RF_OP_SLICE] = rf_cpu_slice_backward,
        [RF_OP_PAD] = rf_cpu_pad_backward,
        [RF_OP_SOFTMAX] = rf_cpu_softmax_backward,
        [RF_OP_LOG_SOFTMAX] = rf_cpu_log_softmax_backward,
        [RF_OP_LAYERNORM] = rf_cpu_layernorm_backward,
        [RF_OP_EMBEDDING] = rf_cpu_embedding_backward,
        [RF_OP_CONV1D] = rf_cpu_conv1d_backward,
        [RF_OP_CONV2D] = rf_cpu_conv2d_backward,
        [RF_OP_SUM] = rf_cpu_sum_backward,
        [RF_OP_MEAN] = rf_cpu_mean_backward,
        [RF_OP_MASKED_MEAN] = rf_cpu_masked_mean_backward,
        [RF_OP_DROPOUT] = rf_cpu_dropout_backward,
        [RF_OP_CROSS_ENTROPY] = rf_cpu_cross_entropy_backward,
        [RF_OP_BCE_LOGITS] = rf_cpu_bce_logits_backward,
        [RF_OP_ATTENTION] = rf_cpu_attention_backward,
        [RF_OP_LS_ATTENTION] = rf_cpu_ls_attention_backward,
        [RF_OP_LINEAR_ATTENTION] = rf_cpu_linear_attention_backward,
        [RF_OP_TALK] = rf_cpu_talk_backward,
        [RF_OP_SORT_ROWS] = rf_cpu_sort_rows_backward,
        [RF_OP_GLU] = rf_cpu_glu_backward,
    },
};
