/*
** cpu_ops.c -- the table that maps each operator to its portable C kernel.
**
** The kernels live in k_*.c, one file per family; this is the one place that
** says which kernel computes which operator. An operator missing here has no
** cpu kernel and wnn__cpu_kernel_for() returns NULL for it.
*/
#include "backends/cpu/kernels.h"

/* Kernel entry points of the k_*.c files (private to the cpu backend). */
wnn_status wnn__k_binary(const wnn__node *node, const wnn__view *in, const wnn__view *out);
wnn_status wnn__k_unary(const wnn__node *node, const wnn__view *in, const wnn__view *out);
wnn_status wnn__k_clamp(const wnn__node *node, const wnn__view *in, const wnn__view *out);
wnn_status wnn__k_cast(const wnn__node *node, const wnn__view *in, const wnn__view *out);
wnn_status wnn__k_reshape(const wnn__node *node, const wnn__view *in, const wnn__view *out);
wnn_status wnn__k_transpose(const wnn__node *node, const wnn__view *in, const wnn__view *out);
wnn_status wnn__k_concat(const wnn__node *node, const wnn__view *in, const wnn__view *out);
wnn_status wnn__k_slice(const wnn__node *node, const wnn__view *in, const wnn__view *out);
wnn_status wnn__k_softmax(const wnn__node *node, const wnn__view *in, const wnn__view *out);
wnn_status wnn__k_matmul(const wnn__node *node, const wnn__view *in, const wnn__view *out);
wnn_status wnn__k_gemm(const wnn__node *node, const wnn__view *in, const wnn__view *out);
/* family A */
/* end of family A */
/* family B */
/* end of family B */
/* family C */
/* end of family C */

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
    /* family A */
    /* end of family A */
    /* family B */
    /* end of family B */
    /* family C */
    /* end of family C */
};

wnn__cpu_kernel wnn__cpu_kernel_for(wnn__op op)
{
    if ((unsigned)op >= (unsigned)WNN__OP_COUNT)
        return NULL;
    return kernels[op];
}

size_t wnn__view_count(const wnn__view *v)
{
    size_t n = 1;
    for (uint32_t i = 0; i < v->desc.rank; i++)
        n *= v->desc.shape[i];
    return n;
}
