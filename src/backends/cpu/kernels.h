/* SPDX-License-Identifier: Apache-2.0 */
/*
** kernels.h -- the portable C kernels of the cpu backend.
**
** A kernel computes one node from views of its inputs into views of its
** outputs. Shapes and types were validated and inferred by the builder, so a
** kernel trusts its node; it only fails for conditions found at run time
** (out of memory). The null backend runs the same kernels on its own copies.
*/
#ifndef WNN_BACKENDS_CPU_KERNELS_H
#define WNN_BACKENDS_CPU_KERNELS_H

#include "backends/attention.h"
#include "core/ir.h"
#include "core/shape.h"
#include "platform/pool.h"

typedef struct wnn__view {
    wnn_operand_desc desc;
    void *data; /* NULL for an absent optional input */
} wnn__view;

typedef wnn_status (*wnn__cpu_kernel)(const wnn__node *node, const wnn__view *in, const wnn__view *out);

/* The kernel of op, or NULL if the cpu backend has none. */
wnn__cpu_kernel wnn__cpu_kernel_for(wnn__op op);

/* Whether op's kernel reads and writes int4/uint4 as packed nibbles. Every
** other kernel sizes elements with wnn_data_type_size(), one byte or more,
** so a node with a 4-bit operand is refused at compile unless this holds:
** a builder rule that let one through can never become an overflow. */
bool wnn__cpu_kernel_packs_4bit(wnn__op op);

/* The kernels (each a wnn__cpu_kernel), by the file that holds them;
** cpu_ops.c maps operators to them. */
/* k_elementwise.c */
wnn_status wnn__k_binary(const wnn__node *node, const wnn__view *in, const wnn__view *out);
wnn_status wnn__k_unary(const wnn__node *node, const wnn__view *in, const wnn__view *out);
wnn_status wnn__k_clamp(const wnn__node *node, const wnn__view *in, const wnn__view *out);
wnn_status wnn__k_cast(const wnn__node *node, const wnn__view *in, const wnn__view *out);
/* k_math.c */
wnn_status wnn__k_math(const wnn__node *node, const wnn__view *in, const wnn__view *out);
/* k_compare.c */
wnn_status wnn__k_compare(const wnn__node *node, const wnn__view *in, const wnn__view *out);
wnn_status wnn__k_where(const wnn__node *node, const wnn__view *in, const wnn__view *out);
/* k_reduce.c, k_scan.c */
wnn_status wnn__k_reduce(const wnn__node *node, const wnn__view *in, const wnn__view *out);
wnn_status wnn__k_arg_min_max(const wnn__node *node, const wnn__view *in, const wnn__view *out);
wnn_status wnn__k_cumulative_sum(const wnn__node *node, const wnn__view *in, const wnn__view *out);
/* k_movement.c */
wnn_status wnn__k_reshape(const wnn__node *node, const wnn__view *in, const wnn__view *out);
wnn_status wnn__k_transpose(const wnn__node *node, const wnn__view *in, const wnn__view *out);
wnn_status wnn__k_slice(const wnn__node *node, const wnn__view *in, const wnn__view *out);
wnn_status wnn__k_concat(const wnn__node *node, const wnn__view *in, const wnn__view *out);
/* k_rearrange.c */
wnn_status wnn__k_expand(const wnn__node *node, const wnn__view *in, const wnn__view *out);
wnn_status wnn__k_tile(const wnn__node *node, const wnn__view *in, const wnn__view *out);
wnn_status wnn__k_reverse(const wnn__node *node, const wnn__view *in, const wnn__view *out);
wnn_status wnn__k_pad(const wnn__node *node, const wnn__view *in, const wnn__view *out);
wnn_status wnn__k_triangular(const wnn__node *node, const wnn__view *in, const wnn__view *out);
wnn_status wnn__k_split(const wnn__node *node, const wnn__view *in, const wnn__view *out);
/* k_gather.c */
wnn_status wnn__k_gather(const wnn__node *node, const wnn__view *in, const wnn__view *out);
wnn_status wnn__k_gather_elements(const wnn__node *node, const wnn__view *in, const wnn__view *out);
wnn_status wnn__k_gather_nd(const wnn__node *node, const wnn__view *in, const wnn__view *out);
wnn_status wnn__k_scatter_elements(const wnn__node *node, const wnn__view *in, const wnn__view *out);
wnn_status wnn__k_scatter_nd(const wnn__node *node, const wnn__view *in, const wnn__view *out);
/* k_matmul.c */
wnn_status wnn__k_matmul(const wnn__node *node, const wnn__view *in, const wnn__view *out);
wnn_status wnn__k_gemm(const wnn__node *node, const wnn__view *in, const wnn__view *out);
/* A copy of a constant float32 B operand of matmul (rank 2) or gemm (not
** transposed), [K, N] with its rows ld floats apart (ld > N), which the
** planner makes once (cpu_graph.c): oneDNN's sgemm packs B at every call,
** and rows a multiple of 2 KiB apart fall in the same few sets of the
** level-1 cache as it reads down a column (with 64-byte aligned operands,
** M=128 K=256 N=1024 took 890 us on 2 threads with ld 1024 and 475 with
** 1040; M=128 K=768 N=3072: 8.0 ms and 3.9). */
typedef struct wnn__padded_b {
    const float *data; /* NULL: none made (yet) */
    size_t ld;         /* 0: the node takes none */
} wnn__padded_b;
/* matmul and gemm reading B from b instead of in[1] where b->data is set.
** matmul's bias (float32, N values broadcast along the rows, or NULL) is
** added in the same pass: out (the add's result) starts as the bias, sgemm
** adds into it. */
wnn_status wnn__k_matmul_padded(const wnn__node *node, const wnn__view *in, const wnn__view *bias,
                                const wnn__padded_b *b, const wnn__view *out);
wnn_status wnn__k_gemm_padded(const wnn__node *node, const wnn__view *in, const wnn__padded_b *b,
                              const wnn__view *out);
/* k_softmax.c */
/* An attention chain (backends/attention.h) over views indexed by value
** id, all float32 (k_attention.c). */
wnn_status wnn__k_attention(const wnn__attention *a, const wnn__view *views);
wnn_status wnn__k_softmax(const wnn__node *node, const wnn__view *in, const wnn__view *out);
/* k_conv.c, k_pool.c, k_resample.c */
wnn_status wnn__k_conv2d(const wnn__node *node, const wnn__view *in, const wnn__view *out);
wnn_status wnn__k_conv_transpose2d(const wnn__node *node, const wnn__view *in, const wnn__view *out);
wnn_status wnn__k_pool2d(const wnn__node *node, const wnn__view *in, const wnn__view *out);
wnn_status wnn__k_resample2d(const wnn__node *node, const wnn__view *in, const wnn__view *out);
/* k_norm.c */
wnn_status wnn__k_batch_normalization(const wnn__node *node, const wnn__view *in, const wnn__view *out);
wnn_status wnn__k_instance_normalization(const wnn__node *node, const wnn__view *in, const wnn__view *out);
wnn_status wnn__k_layer_normalization(const wnn__node *node, const wnn__view *in, const wnn__view *out);
/* k_quantize.c */
wnn_status wnn__k_quantize(const wnn__node *node, const wnn__view *in, const wnn__view *out);
/* k_recurrent.c */
wnn_status wnn__k_gru(const wnn__node *node, const wnn__view *in, const wnn__view *out);
wnn_status wnn__k_gru_cell(const wnn__node *node, const wnn__view *in, const wnn__view *out);
wnn_status wnn__k_lstm(const wnn__node *node, const wnn__view *in, const wnn__view *out);
wnn_status wnn__k_lstm_cell(const wnn__node *node, const wnn__view *in, const wnn__view *out);

/* Element count of a view (1 for a scalar). */
size_t wnn__view_count(const wnn__view *v);

/* Runs fn over tasks [0, tasks), each about work_per_task elements of work,
** on the worker pool in ranges of at least 16K elements of work, or on the
** calling thread when that is a single range. */
void wnn__cpu_run_tasks(size_t tasks, size_t work_per_task, wnn__range_fn fn, void *arg);

/* C = alpha * op(A) op(B) + beta * C, row-major, every dimension under 2^31:
** oneDNN's sgemm on the OpenMP team (platform/pool.c), else OpenBLAS (gemv
** for a single row or column). Every cpu kernel's matrix product comes here. */
void wnn__cpu_sgemm(bool ta, bool tb, size_t m, size_t n, size_t k, float alpha, const float *a, size_t lda,
                    const float *b, size_t ldb, float beta, float *c, size_t ldc);

#endif
