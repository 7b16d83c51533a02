/* SPDX-License-Identifier: Apache-2.0 */
/*
** ops_table.c -- which operator has a CUDA kernel: one prep per operator.
**
** An operator (or a data type of one) missing here makes the whole graph
** NOT_SUPPORTED at compile time, which core reports as a clean build
** error; nothing falls back to a wrong result.
*/
#include "backends/cuda/cuda_ops.h"

typedef wnn_status (*prep_fn)(const wnn__ir *ir, wnn__cu_node *n);

static const prep_fn preps[WNN__OP_COUNT] = {
    /* element-wise: binary, comparison, logical (ops_elementwise.c) */
    [WNN__OP_ADD] = wnn__cu_prep_binary,
    [WNN__OP_SUB] = wnn__cu_prep_binary,
    [WNN__OP_MUL] = wnn__cu_prep_binary,
    [WNN__OP_DIV] = wnn__cu_prep_binary,
    [WNN__OP_MAX] = wnn__cu_prep_binary,
    [WNN__OP_MIN] = wnn__cu_prep_binary,
    [WNN__OP_POW] = wnn__cu_prep_binary,
    [WNN__OP_EQUAL] = wnn__cu_prep_binary,
    [WNN__OP_NOT_EQUAL] = wnn__cu_prep_binary,
    [WNN__OP_GREATER] = wnn__cu_prep_binary,
    [WNN__OP_GREATER_OR_EQUAL] = wnn__cu_prep_binary,
    [WNN__OP_LESSER] = wnn__cu_prep_binary,
    [WNN__OP_LESSER_OR_EQUAL] = wnn__cu_prep_binary,
    [WNN__OP_LOGICAL_AND] = wnn__cu_prep_binary,
    [WNN__OP_LOGICAL_OR] = wnn__cu_prep_binary,
    [WNN__OP_LOGICAL_XOR] = wnn__cu_prep_binary,
    [WNN__OP_PRELU] = wnn__cu_prep_binary,
    [WNN__OP_WHERE] = wnn__cu_prep_where,
    /* element-wise: one input (ops_elementwise.c) */
    [WNN__OP_ABS] = wnn__cu_prep_unary,
    [WNN__OP_NEG] = wnn__cu_prep_unary,
    [WNN__OP_EXP] = wnn__cu_prep_unary,
    [WNN__OP_LOG] = wnn__cu_prep_unary,
    [WNN__OP_SQRT] = wnn__cu_prep_unary,
    [WNN__OP_CEIL] = wnn__cu_prep_unary,
    [WNN__OP_FLOOR] = wnn__cu_prep_unary,
    [WNN__OP_COS] = wnn__cu_prep_unary,
    [WNN__OP_SIN] = wnn__cu_prep_unary,
    [WNN__OP_TAN] = wnn__cu_prep_unary,
    [WNN__OP_ERF] = wnn__cu_prep_unary,
    [WNN__OP_RECIPROCAL] = wnn__cu_prep_unary,
    [WNN__OP_ROUND_EVEN] = wnn__cu_prep_unary,
    [WNN__OP_SIGN] = wnn__cu_prep_unary,
    [WNN__OP_IS_NAN] = wnn__cu_prep_unary,
    [WNN__OP_IS_INFINITE] = wnn__cu_prep_unary,
    [WNN__OP_LOGICAL_NOT] = wnn__cu_prep_unary,
    [WNN__OP_RELU] = wnn__cu_prep_unary,
    [WNN__OP_SIGMOID] = wnn__cu_prep_unary,
    [WNN__OP_TANH] = wnn__cu_prep_unary,
    [WNN__OP_ELU] = wnn__cu_prep_unary,
    [WNN__OP_GELU] = wnn__cu_prep_unary,
    [WNN__OP_HARD_SIGMOID] = wnn__cu_prep_unary,
    [WNN__OP_HARD_SWISH] = wnn__cu_prep_unary,
    [WNN__OP_LEAKY_RELU] = wnn__cu_prep_unary,
    [WNN__OP_LINEAR] = wnn__cu_prep_unary,
    [WNN__OP_SOFTPLUS] = wnn__cu_prep_unary,
    [WNN__OP_SOFTSIGN] = wnn__cu_prep_unary,
    [WNN__OP_CLAMP] = wnn__cu_prep_clamp,
    [WNN__OP_CAST] = wnn__cu_prep_cast,
    /* movement (ops_movement.c) */
    [WNN__OP_RESHAPE] = wnn__cu_prep_identity,
    [WNN__OP_IDENTITY] = wnn__cu_prep_identity,
    [WNN__OP_TRANSPOSE] = wnn__cu_prep_transpose,
    [WNN__OP_SLICE] = wnn__cu_prep_slice,
    [WNN__OP_EXPAND] = wnn__cu_prep_expand,
    [WNN__OP_REVERSE] = wnn__cu_prep_reverse,
    [WNN__OP_CONCAT] = wnn__cu_prep_concat,
    [WNN__OP_SPLIT] = wnn__cu_prep_split,
    [WNN__OP_PAD] = wnn__cu_prep_index_map,
    [WNN__OP_TILE] = wnn__cu_prep_index_map,
    [WNN__OP_TRIANGULAR] = wnn__cu_prep_triangular,
    /* gather and scatter (ops_gather.c) */
    [WNN__OP_GATHER] = wnn__cu_prep_gather,
    [WNN__OP_GATHER_ELEMENTS] = wnn__cu_prep_gather_elements,
    [WNN__OP_GATHER_ND] = wnn__cu_prep_gather_nd,
    [WNN__OP_SCATTER_ELEMENTS] = wnn__cu_prep_scatter_elements,
    [WNN__OP_SCATTER_ND] = wnn__cu_prep_scatter_nd,
    /* reduction, along one axis (ops_reduce.c) */
    [WNN__OP_REDUCE_L1] = wnn__cu_prep_reduce,
    [WNN__OP_REDUCE_L2] = wnn__cu_prep_reduce,
    [WNN__OP_REDUCE_LOG_SUM] = wnn__cu_prep_reduce,
    [WNN__OP_REDUCE_LOG_SUM_EXP] = wnn__cu_prep_reduce,
    [WNN__OP_REDUCE_MAX] = wnn__cu_prep_reduce,
    [WNN__OP_REDUCE_MEAN] = wnn__cu_prep_reduce,
    [WNN__OP_REDUCE_MIN] = wnn__cu_prep_reduce,
    [WNN__OP_REDUCE_PRODUCT] = wnn__cu_prep_reduce,
    [WNN__OP_REDUCE_SUM] = wnn__cu_prep_reduce,
    [WNN__OP_REDUCE_SUM_SQUARE] = wnn__cu_prep_reduce,
    [WNN__OP_ARG_MIN] = wnn__cu_prep_arg,
    [WNN__OP_ARG_MAX] = wnn__cu_prep_arg,
    [WNN__OP_CUMULATIVE_SUM] = wnn__cu_prep_cumsum,
    [WNN__OP_SOFTMAX] = wnn__cu_prep_softmax,
    /* linear algebra (ops_matmul.c) */
    [WNN__OP_MATMUL] = wnn__cu_prep_matmul,
    [WNN__OP_GEMM] = wnn__cu_prep_gemm,
    /* convolution, pooling, resample (ops_conv.c, ops_pool.c, ops_resample.c) */
    [WNN__OP_CONV2D] = wnn__cu_prep_conv,
    [WNN__OP_CONV_TRANSPOSE2D] = wnn__cu_prep_conv,
    [WNN__OP_AVERAGE_POOL2D] = wnn__cu_prep_pool,
    [WNN__OP_L2_POOL2D] = wnn__cu_prep_pool,
    [WNN__OP_MAX_POOL2D] = wnn__cu_prep_pool,
    [WNN__OP_RESAMPLE2D] = wnn__cu_prep_resample,
    /* normalization (ops_norm.c) */
    [WNN__OP_BATCH_NORMALIZATION] = wnn__cu_prep_batch_norm,
    [WNN__OP_INSTANCE_NORMALIZATION] = wnn__cu_prep_instance_norm,
    [WNN__OP_LAYER_NORMALIZATION] = wnn__cu_prep_layer_norm,
    /* quantization (ops_quantize.c) */
    [WNN__OP_QUANTIZE_LINEAR] = wnn__cu_prep_quant,
    [WNN__OP_DEQUANTIZE_LINEAR] = wnn__cu_prep_quant,
    /* recurrent (ops_recurrent.c) */
    [WNN__OP_GRU] = wnn__cu_prep_rnn,
    [WNN__OP_GRU_CELL] = wnn__cu_prep_rnn,
    [WNN__OP_LSTM] = wnn__cu_prep_rnn,
    [WNN__OP_LSTM_CELL] = wnn__cu_prep_rnn,
    /* int4/uint4 operands only in quantizeLinear, dequantizeLinear, reshape
    ** and identity (see wnn__cu_prepare) */
};

wnn_status wnn__cu_prepare(const wnn__ir *ir, wnn__cu_node *n)
{
    wnn__op op = n->node->op;
    if ((unsigned)op >= (unsigned)WNN__OP_COUNT || !preps[op])
        return WNN_STATUS_NOT_SUPPORTED;
    /* every operand must be a type the kernels know; packed int4/uint4 only
    ** where the operator handles them */
    bool packed_ok = op == WNN__OP_QUANTIZE_LINEAR || op == WNN__OP_DEQUANTIZE_LINEAR || op == WNN__OP_RESHAPE ||
                     op == WNN__OP_IDENTITY;
    for (uint32_t j = 0; j < n->node->n_in + n->node->n_out; j++) {
        if (j < n->node->n_in && !has_in(n->node, j))
            continue;
        wnn_data_type t = j < n->node->n_in ? in_desc(ir, n->node, j)->data_type
                                            : out_desc(ir, n->node, j - n->node->n_in)->data_type;
        bool packed = t == WNN_DATA_TYPE_INT4 || t == WNN_DATA_TYPE_UINT4;
        if (!is_element_type(t) && !(packed && packed_ok))
            return WNN_STATUS_NOT_SUPPORTED;
    }
    return preps[op](ir, n);
}
