/* SPDX-License-Identifier: Apache-2.0 */
/*
** products.c -- what the cpu graph knows of its products (see products.h):
** their multiply-adds, and the padded copies of constant B operands.
*/
#include "backends/cpu/products.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "platform/config.h"

/* Each output element of a matmul takes the inner dimension's, a gemm's
** (out = A B, A [M,K] and B [K,N] either way round) K = sqrt(|A| |B| /
** |out|), a conv2d's output element filter / C_out of them and a
** convTranspose2d's input element filter / C_in. */
uint64_t wnn__cpu_node_macs(const wnn__ir *ir, const wnn__node *node)
{
    const wnn_operand_desc *a = &ir->values[node->in[0]].desc, *y = &ir->values[node->out[0]].desc;
    double out = (double)wnn__shape_count(y);
    switch (node->op) {
    case WNN__OP_MATMUL:
        return a->rank ? (uint64_t)(out * (double)a->shape[a->rank - 1]) : 0;
    case WNN__OP_GEMM:
        return (uint64_t)(out * sqrt((double)wnn__shape_count(a) *
                                     (double)wnn__shape_count(&ir->values[node->in[1]].desc) / (out > 0 ? out : 1)));
    case WNN__OP_CONV2D:
    case WNN__OP_CONV_TRANSPOSE2D: {
        bool nhwc = node->attrs.conv.input_layout == WNN_INPUT_LAYOUT_NHWC;
        const wnn_operand_desc *per = node->op == WNN__OP_CONV2D ? y : a; /* its channels divide */
        double channels = (double)per->shape[nhwc ? 3 : 1];
        double filter = (double)wnn__shape_count(&ir->values[node->in[1]].desc);
        return channels > 0 ? (uint64_t)((double)wnn__shape_count(per) / channels * filter) : 0;
    }
    default:
        return 0;
    }
}

/* Rows of a constant B this many floats apart or a multiple of it get the
** padded copy (kernels.h, wnn__padded_b): 2 KiB, where the level-1 cache's
** 64 sets of 64 bytes leave a column's reads two sets. At 1 KiB (four sets)
** padding gained 10-20% with oneDNN's sgemm on this project's 2-core
** machine, comparing two builds (where the operands lay differed too: see
** docs/backends.md) (M=128, K=256: N=256 178 -> 155 us, 768 611 -> 518, 1536 1048 ->
** 823; [128,3072]x[3072,768] 5.8 / 6.2 -> 5.5 / 4.7 ms), too little for a
** second copy of most of a transformer's weights; at 2 KiB it halves the
** time (N=1024 891 -> 475 us). */
#define PAD_ROWS_EVERY 512
#define PAD_FLOATS 16

size_t wnn__cpu_pad_ld(const wnn__ir *ir, const wnn__node *node)
{
    if (!wnn__config_get()->cpu_pad_b || node->n_in < 2 ||
        !(node->op == WNN__OP_MATMUL || (node->op == WNN__OP_GEMM && !node->attrs.gemm.b_transpose)))
        return 0;
    const wnn__value *b = &ir->values[node->in[1]];
    const wnn_operand_desc *ad = &ir->values[node->in[0]].desc;
    if (b->kind != WNN__VALUE_CONSTANT || b->desc.data_type != WNN_DATA_TYPE_FLOAT32 || b->desc.rank != 2 ||
        b->desc.shape[1] % PAD_ROWS_EVERY != 0 || ad->data_type != WNN_DATA_TYPE_FLOAT32)
        return 0;
    uint64_t rows = node->op == WNN__OP_GEMM ? ad->shape[node->attrs.gemm.a_transpose ? 1 : 0]
                                             : wnn__shape_count(ad) / b->desc.shape[0];
    return rows < 2 ? 0 : b->desc.shape[1] + PAD_FLOATS;
}

void wnn__cpu_pad_make(wnn__padded_b *p, const wnn__view *b)
{
    size_t k = b->desc.shape[0], cols = b->desc.shape[1];
    float *copy = malloc(k * p->ld * sizeof *copy);
    if (!copy) {
        p->ld = 0;
        return;
    }
    for (size_t r = 0; r < k; r++) {
        memcpy(copy + r * p->ld, (const float *)b->data + r * cols, cols * sizeof *copy);
        memset(copy + r * p->ld + cols, 0, (p->ld - cols) * sizeof *copy);
    }
    p->data = copy;
}
