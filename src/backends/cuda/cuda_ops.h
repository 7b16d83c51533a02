/* SPDX-License-Identifier: Apache-2.0 */
/*
** cuda_ops.h -- what the host side of the operators shares: the ops_*.c
** files (one per topic, as the cpu's k_*.c), fusion.c and the table in
** ops_table.c.
**
** Each operator has a prep, called once per node at compile time, that
** checks the node's types, fills a plan (malloc'd, kept by the node) and
** sets the node's run; the run queues the kernels of cuda_kernels.h on the
** stream at every dispatch. A prep returns NOT_SUPPORTED for what has no
** kernel, never a wrong result.
*/
#ifndef WNN_BACKENDS_CUDA_CUDA_OPS_H
#define WNN_BACKENDS_CUDA_CUDA_OPS_H

#include <stdlib.h>

#include "backends/cuda/cuda_internal.h"
#include "backends/cuda/cuda_kernels.h"

/* ---- node helpers --------------------------------------------------------- */

static inline const wnn_operand_desc *in_desc(const wnn__ir *ir, const wnn__node *node, uint32_t j)
{
    return &ir->values[node->in[j]].desc;
}

static inline const wnn_operand_desc *out_desc(const wnn__ir *ir, const wnn__node *node, uint32_t j)
{
    return &ir->values[node->out[j]].desc;
}

static inline bool has_in(const wnn__node *node, uint32_t j) { return j < node->n_in && node->in[j] != WNN__NONE; }

static inline const void *in_ptr(const wnn__cu_exec *x, const wnn__cu_node *n, uint32_t j)
{
    return has_in(n->node, j) ? x->ptr[n->node->in[j]] : NULL;
}

static inline void *out_ptr(const wnn__cu_exec *x, const wnn__cu_node *n, uint32_t j)
{
    return x->ptr[n->node->out[j]];
}

static inline uint32_t elem_size(wnn_data_type t) { return (uint32_t)wnn_data_type_size(t); }

/* core/shape.h's row-major strides of d as signed steps, the form the
** strided copies take (reverse negates them, slice scales them). */
static inline void signed_strides(const wnn_operand_desc *d, int64_t *stride)
{
    size_t s[WNN_MAX_RANK];
    wnn__shape_strides(d, s);
    for (uint32_t i = 0; i < d->rank; i++)
        stride[i] = (int64_t)s[i];
}

static inline bool is_float(wnn_data_type t) { return t == WNN_DATA_TYPE_FLOAT32 || t == WNN_DATA_TYPE_FLOAT16; }

static inline bool is_element_type(wnn_data_type t)
{
    return t >= WNN_DATA_TYPE_FLOAT32 && t <= WNN_DATA_TYPE_UINT8;
}

static inline bool is_index_type(wnn_data_type t)
{
    return t == WNN_DATA_TYPE_INT32 || t == WNN_DATA_TYPE_UINT32 || t == WNN_DATA_TYPE_INT64;
}

/* Whether out, a part of in of the same rank and type (a slice with unit
** steps, a gather of one index), is one contiguous run of in's elements:
** the axes before the first one it cuts are 1 in out, those after it whole
** (then the planner may make it a view, wnn__cu_node.alias_offset). */
bool wnn__cu_contiguous_part(const wnn_operand_desc *in, const wnn_operand_desc *out);

/* A zeroed plan of size bytes kept by n. */
static inline void *new_plan(wnn__cu_node *n, size_t size)
{
    n->plan = calloc(1, size);
    return n->plan;
}

/* A cuBLAS status as a wnn status. */
static inline wnn_status blas_status(cublasStatus_t s)
{
    if (s == CUBLAS_STATUS_SUCCESS)
        return WNN_OK;
    return s == CUBLAS_STATUS_ALLOC_FAILED ? WNN_STATUS_OUT_OF_MEMORY : WNN_STATUS_OPERATION_ERROR;
}

/* ---- shared by several topics ----------------------------------------------- */

/* (ops_elementwise.c) The output shape with every input's strides (0 where
** broadcast), size-1 dimensions dropped and neighbours merged where every
** input walks them contiguously. */
void wnn__cu_make_bcast(wnn__cu_bcast *p, const wnn_operand_desc *out, const wnn_operand_desc *const *in,
                        uint32_t n_in);

/* (ops_movement.c) Output 0 is a bit-exact copy of input 0 (reshape,
** identity, same-type cast); the planner may let it share the input's
** memory instead. */
wnn_status wnn__cu_prep_copy(const wnn__ir *ir, wnn__cu_node *n);

/* (ops_elementwise.c) The plans and runs of binary and unary nodes, which
** fusion.c reads to decide what joins a fused run. */
typedef struct wnn__cu_binary_plan {
    wnn__op op;
    wnn_data_type t;
    wnn__cu_bcast b;
} wnn__cu_binary_plan;

typedef struct wnn__cu_unary_plan {
    wnn__op op;
    wnn_data_type t;
    uint64_t count;
    double alpha, beta;
} wnn__cu_unary_plan;

wnn_status wnn__cu_run_binary(const wnn__cu_exec *x, const wnn__cu_node *n);
wnn_status wnn__cu_run_unary(const wnn__cu_exec *x, const wnn__cu_node *n);

/* ---- the preps of the table (ops_table.c), by topic ------------------------- */

/* ops_elementwise.c: binary, logical and comparison operators, prelu,
** where, unary math and activations, clamp, cast */
wnn_status wnn__cu_prep_binary(const wnn__ir *ir, wnn__cu_node *n);
wnn_status wnn__cu_prep_where(const wnn__ir *ir, wnn__cu_node *n);
wnn_status wnn__cu_prep_unary(const wnn__ir *ir, wnn__cu_node *n);
wnn_status wnn__cu_prep_clamp(const wnn__ir *ir, wnn__cu_node *n);
wnn_status wnn__cu_prep_cast(const wnn__ir *ir, wnn__cu_node *n);

/* ops_movement.c: reshape, identity, transpose, slice, expand, reverse,
** concat, split, tile, pad, triangular */
wnn_status wnn__cu_prep_identity(const wnn__ir *ir, wnn__cu_node *n);
wnn_status wnn__cu_prep_transpose(const wnn__ir *ir, wnn__cu_node *n);
wnn_status wnn__cu_prep_slice(const wnn__ir *ir, wnn__cu_node *n);
wnn_status wnn__cu_prep_expand(const wnn__ir *ir, wnn__cu_node *n);
wnn_status wnn__cu_prep_reverse(const wnn__ir *ir, wnn__cu_node *n);
wnn_status wnn__cu_prep_concat(const wnn__ir *ir, wnn__cu_node *n);
wnn_status wnn__cu_prep_split(const wnn__ir *ir, wnn__cu_node *n);
wnn_status wnn__cu_prep_index_map(const wnn__ir *ir, wnn__cu_node *n);
wnn_status wnn__cu_prep_triangular(const wnn__ir *ir, wnn__cu_node *n);

/* ops_gather.c */
wnn_status wnn__cu_prep_gather(const wnn__ir *ir, wnn__cu_node *n);
wnn_status wnn__cu_prep_gather_elements(const wnn__ir *ir, wnn__cu_node *n);
wnn_status wnn__cu_prep_scatter_elements(const wnn__ir *ir, wnn__cu_node *n);
wnn_status wnn__cu_prep_gather_nd(const wnn__ir *ir, wnn__cu_node *n);
wnn_status wnn__cu_prep_scatter_nd(const wnn__ir *ir, wnn__cu_node *n);

/* ops_reduce.c: softmax, argMin/argMax, cumulativeSum, reduce* */
wnn_status wnn__cu_prep_softmax(const wnn__ir *ir, wnn__cu_node *n);
wnn_status wnn__cu_prep_arg(const wnn__ir *ir, wnn__cu_node *n);
wnn_status wnn__cu_prep_cumsum(const wnn__ir *ir, wnn__cu_node *n);
wnn_status wnn__cu_prep_reduce(const wnn__ir *ir, wnn__cu_node *n);

/* ops_norm.c */
wnn_status wnn__cu_prep_batch_norm(const wnn__ir *ir, wnn__cu_node *n);
wnn_status wnn__cu_prep_instance_norm(const wnn__ir *ir, wnn__cu_node *n);
wnn_status wnn__cu_prep_layer_norm(const wnn__ir *ir, wnn__cu_node *n);

/* ops_matmul.c */
wnn_status wnn__cu_prep_matmul(const wnn__ir *ir, wnn__cu_node *n);
wnn_status wnn__cu_prep_gemm(const wnn__ir *ir, wnn__cu_node *n);

/* ops_conv.c: conv2d, convTranspose2d */
wnn_status wnn__cu_prep_conv(const wnn__ir *ir, wnn__cu_node *n);
/* The geometry of a conv2d or convTranspose2d node, its filter strides
** included; NOT_SUPPORTED for what no kernel takes. */
wnn_status wnn__cu_conv_describe(const wnn__ir *ir, const wnn__node *node, wnn__cu_conv *c);

/* ops_pool.c: averagePool2d, l2Pool2d, maxPool2d */
wnn_status wnn__cu_prep_pool(const wnn__ir *ir, wnn__cu_node *n);

/* ops_resample.c */
wnn_status wnn__cu_prep_resample(const wnn__ir *ir, wnn__cu_node *n);

/* ops_quantize.c: quantizeLinear, dequantizeLinear */
wnn_status wnn__cu_prep_quant(const wnn__ir *ir, wnn__cu_node *n);

/* ops_recurrent.c: gru, gruCell, lstm, lstmCell */
wnn_status wnn__cu_prep_rnn(const wnn__ir *ir, wnn__cu_node *n);

#endif
