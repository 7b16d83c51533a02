/* SPDX-License-Identifier: Apache-2.0 */
/*
** cpu_ops.c -- the table that maps each operator to its portable C kernel.
**
** The kernels live in k_*.c, one file per topic (declared in kernels.h); this is the one place that
** says which kernel computes which operator. An operator missing here has no
** cpu kernel and wnn__cpu_kernel_for() returns NULL for it.
*/
#include "backends/cpu/kernels.h"

static const wnn__cpu_kernel kernels[WNN__OP_COUNT] = {
    [WNN__OP_ADD] = wnn__k_binary,
    [WNN__OP_SUB] = wnn__k_binary,
    [WNN__OP_MUL] = wnn__k_binary,
    [WNN__OP_DIV] = wnn__k_binary,
    [WNN__OP_MAX] = wnn__k_binary,
    [WNN__OP_MIN] = wnn__k_binary,
    [WNN__OP_POW] = wnn__k_binary,
    [WNN__OP_ABS] = wnn__k_unary,
    [WNN__OP_NEG] = wnn__k_unary,
    [WNN__OP_EXP] = wnn__k_unary,
    [WNN__OP_LOG] = wnn__k_unary,
    [WNN__OP_SQRT] = wnn__k_unary,
    [WNN__OP_RELU] = wnn__k_unary,
    [WNN__OP_SIGMOID] = wnn__k_unary,
    [WNN__OP_TANH] = wnn__k_unary,
    [WNN__OP_CLAMP] = wnn__k_clamp,
    [WNN__OP_CAST] = wnn__k_cast,
    [WNN__OP_RESHAPE] = wnn__k_reshape,
    [WNN__OP_TRANSPOSE] = wnn__k_transpose,
    [WNN__OP_CONCAT] = wnn__k_concat,
    [WNN__OP_SLICE] = wnn__k_slice,
    [WNN__OP_SOFTMAX] = wnn__k_softmax,
    [WNN__OP_MATMUL] = wnn__k_matmul,
    [WNN__OP_GEMM] = wnn__k_gemm,
    /* element-wise math and activations, comparisons, reductions, quantization */
    [WNN__OP_CEIL] = wnn__k_math,
    [WNN__OP_FLOOR] = wnn__k_math,
    [WNN__OP_COS] = wnn__k_math,
    [WNN__OP_SIN] = wnn__k_math,
    [WNN__OP_TAN] = wnn__k_math,
    [WNN__OP_ERF] = wnn__k_math,
    [WNN__OP_RECIPROCAL] = wnn__k_math,
    [WNN__OP_ROUND_EVEN] = wnn__k_math,
    [WNN__OP_SIGN] = wnn__k_math,
    [WNN__OP_IDENTITY] = wnn__k_math,
    [WNN__OP_IS_NAN] = wnn__k_math,
    [WNN__OP_IS_INFINITE] = wnn__k_math,
    [WNN__OP_LOGICAL_NOT] = wnn__k_math,
    [WNN__OP_ELU] = wnn__k_math,
    [WNN__OP_GELU] = wnn__k_math,
    [WNN__OP_HARD_SIGMOID] = wnn__k_math,
    [WNN__OP_HARD_SWISH] = wnn__k_math,
    [WNN__OP_LEAKY_RELU] = wnn__k_math,
    [WNN__OP_LINEAR] = wnn__k_math,
    [WNN__OP_SOFTPLUS] = wnn__k_math,
    [WNN__OP_SOFTSIGN] = wnn__k_math,
    [WNN__OP_LOGICAL_AND] = wnn__k_compare,
    [WNN__OP_LOGICAL_OR] = wnn__k_compare,
    [WNN__OP_LOGICAL_XOR] = wnn__k_compare,
    [WNN__OP_EQUAL] = wnn__k_compare,
    [WNN__OP_NOT_EQUAL] = wnn__k_compare,
    [WNN__OP_GREATER] = wnn__k_compare,
    [WNN__OP_GREATER_OR_EQUAL] = wnn__k_compare,
    [WNN__OP_LESSER] = wnn__k_compare,
    [WNN__OP_LESSER_OR_EQUAL] = wnn__k_compare,
    [WNN__OP_PRELU] = wnn__k_compare,
    [WNN__OP_WHERE] = wnn__k_where,
    [WNN__OP_REDUCE_L1] = wnn__k_reduce,
    [WNN__OP_REDUCE_L2] = wnn__k_reduce,
    [WNN__OP_REDUCE_LOG_SUM] = wnn__k_reduce,
    [WNN__OP_REDUCE_LOG_SUM_EXP] = wnn__k_reduce,
    [WNN__OP_REDUCE_MAX] = wnn__k_reduce,
    [WNN__OP_REDUCE_MEAN] = wnn__k_reduce,
    [WNN__OP_REDUCE_MIN] = wnn__k_reduce,
    [WNN__OP_REDUCE_PRODUCT] = wnn__k_reduce,
    [WNN__OP_REDUCE_SUM] = wnn__k_reduce,
    [WNN__OP_REDUCE_SUM_SQUARE] = wnn__k_reduce,
    [WNN__OP_ARG_MIN] = wnn__k_arg_min_max,
    [WNN__OP_ARG_MAX] = wnn__k_arg_min_max,
    [WNN__OP_CUMULATIVE_SUM] = wnn__k_cumulative_sum,
    [WNN__OP_QUANTIZE_LINEAR] = wnn__k_quantize,
    [WNN__OP_DEQUANTIZE_LINEAR] = wnn__k_quantize,
    /* convolution, pooling, resampling, normalization */
    [WNN__OP_CONV2D] = wnn__k_conv2d,
    [WNN__OP_CONV_TRANSPOSE2D] = wnn__k_conv_transpose2d,
    [WNN__OP_AVERAGE_POOL2D] = wnn__k_pool2d,
    [WNN__OP_L2_POOL2D] = wnn__k_pool2d,
    [WNN__OP_MAX_POOL2D] = wnn__k_pool2d,
    [WNN__OP_RESAMPLE2D] = wnn__k_resample2d,
    [WNN__OP_BATCH_NORMALIZATION] = wnn__k_batch_normalization,
    [WNN__OP_INSTANCE_NORMALIZATION] = wnn__k_instance_normalization,
    [WNN__OP_LAYER_NORMALIZATION] = wnn__k_layer_normalization,
    /* movement, gather and scatter, recurrent */
    [WNN__OP_EXPAND] = wnn__k_expand,
    [WNN__OP_PAD] = wnn__k_pad,
    [WNN__OP_SPLIT] = wnn__k_split,
    [WNN__OP_TILE] = wnn__k_tile,
    [WNN__OP_REVERSE] = wnn__k_reverse,
    [WNN__OP_TRIANGULAR] = wnn__k_triangular,
    [WNN__OP_GATHER] = wnn__k_gather,
    [WNN__OP_GATHER_ELEMENTS] = wnn__k_gather_elements,
    [WNN__OP_GATHER_ND] = wnn__k_gather_nd,
    [WNN__OP_SCATTER_ELEMENTS] = wnn__k_scatter_elements,
    [WNN__OP_SCATTER_ND] = wnn__k_scatter_nd,
    [WNN__OP_GRU] = wnn__k_gru,
    [WNN__OP_GRU_CELL] = wnn__k_gru_cell,
    [WNN__OP_LSTM] = wnn__k_lstm,
    [WNN__OP_LSTM_CELL] = wnn__k_lstm_cell,
};

wnn__cpu_kernel wnn__cpu_kernel_for(wnn__op op)
{
    if ((unsigned)op >= (unsigned)WNN__OP_COUNT)
        return NULL;
    return kernels[op];
}

bool wnn__cpu_kernel_packs_4bit(wnn__op op) { return wnn__cpu_kernel_for(op) == wnn__k_quantize; }

size_t wnn__view_count(const wnn__view *v)
{
    return wnn__shape_count(&v->desc);
}

#define WORK_GRAIN ((size_t)1 << 14) /* elements of work per parallel range */

void wnn__cpu_run_tasks(size_t tasks, size_t work_per_task, wnn__range_fn fn, void *arg)
{
    size_t grain = work_per_task >= WORK_GRAIN ? 1 : WORK_GRAIN / (work_per_task ? work_per_task : 1);
    if (tasks > grain)
        wnn__parallel_for(tasks, grain, fn, arg);
    else
        fn(arg, 0, tasks);
}
