/* SPDX-License-Identifier: Apache-2.0 */
/*
** ops_conv.c -- conv2d and convTranspose2d (float32, float16): im2col plus
** cuBLAS where it pays, the direct kernel of kernels_spatial.cu otherwise.
** cuda_dnn.c may later replace a conv2d's plan with a cuDNN one.
*/
#include <string.h>

#include "backends/cuda/cuda_ops.h"
#include "platform/config.h"

/* conv2d with one group and enough work runs as im2col plus one matrix
** product per chunk of images (cuBLAS, float32 accumulation): the columns
** [images * P, K] times the filter as [C_out, K] give NHWC rows [P, C_out]
** directly, or NCHW planes [C_out, P] per image. The filter is repacked to
** OIHW order in scratch unless it is already; the bias (or zero) is
** broadcast into the output first and the products add to it. Other
** convolutions run the direct kernel. */
#define CONV_GEMM_MIN_WORK ((uint64_t)1 << 22) /* multiply-adds */
#define CONV_COLS_BUDGET ((uint64_t)64 << 20)  /* bytes of columns per chunk */

typedef struct conv_plan {
    wnn_data_type t;
    wnn__cu_conv c;
    bool gemm;
    uint32_t images;        /* per chunk */
    size_t cols_at, filter_at; /* scratch byte offsets; filter_at SIZE_MAX: use the filter as is */
    wnn__cu_strided repack; /* filter -> [C_out, C_in, kh, kw] */
    wnn__cu_bcast bias;     /* bias [C_out] broadcast to the output */
} conv_plan;

static wnn_status run_conv_gemm(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const conv_plan *p = n->plan;
    const wnn__cu_conv *c = &p->c;
    cudaStream_t st = x->stream;
    size_t es = wnn_data_type_size(p->t);
    char *out = out_ptr(x, n, 0), *cols = (char *)x->scratch + p->cols_at;
    const void *filter = in_ptr(x, n, 1);
    cudaError_t e = cudaSuccess;
    if (p->filter_at != SIZE_MAX) {
        e = wnn__cu_copy_strided(st, (uint32_t)es, &p->repack, filter, (char *)x->scratch + p->filter_at);
        filter = (char *)x->scratch + p->filter_at;
    }
    const void *bias = in_ptr(x, n, 2);
    size_t out_bytes = (size_t)c->n * c->c_out * c->h_out * c->w_out * es;
    if (e == cudaSuccess)
        e = bias ? wnn__cu_scaled_broadcast(st, p->t, &p->bias, 1.0, bias, out) : cudaMemsetAsync(out, 0, out_bytes, st);
    if (e != cudaSuccess)
        return wnn__cu_status(e);
    const int P = (int)(c->h_out * c->w_out), K = (int)(c->c_in * c->kh * c->kw), O = (int)c->c_out;
    const float one = 1.0f;
    for (uint32_t n0 = 0; n0 < c->n; n0 += p->images) {
        uint32_t images = c->n - n0 < p->images ? c->n - n0 : p->images;
        if ((e = wnn__cu_im2col(st, p->t, c, n0, images, in_ptr(x, n, 0), cols)) != cudaSuccess)
            return wnn__cu_status(e);
        char *o = out + (size_t)n0 * O * P * es;
        cublasStatus_t bs;
        if (c->nhwc) /* out rows [images * P, O] = cols [images * P, K] * filter [O, K]^T */
            bs = p->t == WNN_DATA_TYPE_FLOAT32
                     ? cublasSgemm(x->blas, CUBLAS_OP_T, CUBLAS_OP_N, O, (int)images * P, K, &one, filter, K,
                                   (const float *)cols, K, &one, (float *)o, O)
                     : cublasGemmEx(x->blas, CUBLAS_OP_T, CUBLAS_OP_N, O, (int)images * P, K, &one, filter,
                                    CUDA_R_16F, K, cols, CUDA_R_16F, K, &one, o, CUDA_R_16F, O, CUBLAS_COMPUTE_32F,
                                    CUBLAS_GEMM_DEFAULT);
        else /* per image: out [O, P] = filter [O, K] * cols [P, K]^T */
            bs = p->t == WNN_DATA_TYPE_FLOAT32
                     ? cublasSgemmStridedBatched(x->blas, CUBLAS_OP_T, CUBLAS_OP_N, P, O, K, &one,
                                                 (const float *)cols, K, (long long)P * K, filter, K, 0, &one,
                                                 (float *)o, P, (long long)O * P, (int)images)
                     : cublasGemmStridedBatchedEx(x->blas, CUBLAS_OP_T, CUBLAS_OP_N, P, O, K, &one, cols, CUDA_R_16F,
                                                  K, (long long)P * K, filter, CUDA_R_16F, K, 0, &one, o, CUDA_R_16F,
                                                  P, (long long)O * P, (int)images, CUBLAS_COMPUTE_32F,
                                                  CUBLAS_GEMM_DEFAULT);
        if (bs != CUBLAS_STATUS_SUCCESS)
            return blas_status(bs);
    }
    return WNN_OK;
}

static wnn_status run_conv(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const conv_plan *p = n->plan;
    return wnn__cu_status(
        wnn__cu_conv2d(x->stream, p->t, &p->c, in_ptr(x, n, 0), in_ptr(x, n, 1), in_ptr(x, n, 2), out_ptr(x, n, 0)));
}

/* Chooses the im2col path when it pays, and plans its scratch. */
static void plan_conv_gemm(const wnn__ir *ir, wnn__cu_node *n, conv_plan *p, uint32_t filter_layout)
{
    const wnn__cu_conv *c = &p->c;
    uint64_t P = (uint64_t)c->h_out * c->w_out, K = (uint64_t)c->c_in * c->kh * c->kw;
    uint64_t work = (uint64_t)c->n * P * K * c->c_out;
    size_t es = wnn_data_type_size(p->t);
    if (c->transpose || c->groups != 1 || work < CONV_GEMM_MIN_WORK || K > INT32_MAX / 2 || c->c_out < 4)
        return;
    uint64_t per_image = P * K * es;
    uint64_t images = per_image >= CONV_COLS_BUDGET ? 1 : CONV_COLS_BUDGET / per_image;
    if (images > c->n)
        images = c->n;
    if (images * P > INT32_MAX)
        return;
    p->gemm = true;
    p->images = (uint32_t)images;
    p->cols_at = 0;
    size_t top = (size_t)((images * per_image + 255) / 256 * 256);
    p->filter_at = SIZE_MAX;
    if (filter_layout != WNN_CONV2D_FILTER_LAYOUT_OIHW) {
        /* a strided copy into [C_out, C_in, kh, kw] */
        const wnn_operand_desc *f = in_desc(ir, n->node, 1);
        wnn_operand_desc packed = {f->data_type, 4, {c->c_out, c->c_in, c->kh, c->kw}};
        int64_t src[4] = {(int64_t)c->f_stride[0], (int64_t)c->f_stride[1], (int64_t)c->f_stride[2],
                          (int64_t)c->f_stride[3]};
        int64_t dst[4];
        signed_strides(&packed, dst);
        wnn__cu_strided *r = &p->repack;
        memset(r, 0, sizeof *r);
        r->rank = 4;
        r->count = wnn__shape_count(&packed);
        for (int i = 0; i < 4; i++) {
            r->shape[i] = packed.shape[i];
            r->src_stride[i] = src[i];
            r->dst_stride[i] = dst[i];
        }
        p->filter_at = top;
        top += (size_t)((r->count * es + 255) / 256 * 256);
    }
    if (has_in(n->node, 2)) {
        const wnn_operand_desc *bd = in_desc(ir, n->node, 2), *od = out_desc(ir, n->node, 0);
        /* bias [C_out] against the output: a rank-4 view with the channels
        ** where the layout puts them */
        wnn_operand_desc b4 = {bd->data_type, 4, {1, 1, 1, 1}};
        b4.shape[c->nhwc ? 3 : 1] = c->c_out;
        const wnn_operand_desc *in1[1] = {&b4};
        wnn__cu_make_bcast(&p->bias, od, in1, 1);
    }
    n->scratch_bytes = top;
    n->run = run_conv_gemm;
}

wnn_status wnn__cu_conv_describe(const wnn__ir *ir, const wnn__node *node, wnn__cu_conv *c)
{
    const wnn_operand_desc *in = in_desc(ir, node, 0), *f = in_desc(ir, node, 1), *out = out_desc(ir, node, 0);
    if (!is_float(in->data_type) || f->data_type != in->data_type || in->rank != 4 || f->rank != 4 ||
        (has_in(node, 2) && in_desc(ir, node, 2)->data_type != in->data_type))
        return WNN_STATUS_NOT_SUPPORTED;
    memset(c, 0, sizeof *c);
    bool nhwc = node->attrs.conv.input_layout == WNN_INPUT_LAYOUT_NHWC;
    c->nhwc = nhwc;
    c->n = in->shape[0];
    c->c_in = nhwc ? in->shape[3] : in->shape[1];
    c->h_in = nhwc ? in->shape[1] : in->shape[2];
    c->w_in = nhwc ? in->shape[2] : in->shape[3];
    c->c_out = nhwc ? out->shape[3] : out->shape[1];
    c->h_out = nhwc ? out->shape[1] : out->shape[2];
    c->w_out = nhwc ? out->shape[2] : out->shape[3];
    c->groups = node->attrs.conv.groups ? node->attrs.conv.groups : 1;
    c->stride[0] = node->attrs.conv.strides[0];
    c->stride[1] = node->attrs.conv.strides[1];
    c->dilation[0] = node->attrs.conv.dilations[0];
    c->dilation[1] = node->attrs.conv.dilations[1];
    c->pad_top = node->attrs.conv.padding[0];
    c->pad_left = node->attrs.conv.padding[2];
    c->transpose = node->op == WNN__OP_CONV_TRANSPOSE2D;
    /* where (o, i, h, w) sit in the filter's shape, per layout */
    int ao = 0, ai = 1, ah = 2, aw = 3;
    uint32_t layout = node->attrs.conv.filter_layout;
    if (!c->transpose) {
        if (layout == WNN_CONV2D_FILTER_LAYOUT_HWIO) {
            ao = 3, ai = 2, ah = 0, aw = 1;
        } else if (layout == WNN_CONV2D_FILTER_LAYOUT_OHWI) {
            ao = 0, ai = 3, ah = 1, aw = 2;
        } else if (layout == WNN_CONV2D_FILTER_LAYOUT_IHWO) {
            ao = 3, ai = 0, ah = 1, aw = 2;
        }
    } else {
        if (layout == WNN_CONV_TRANSPOSE2D_FILTER_LAYOUT_HWOI) {
            ao = 2, ai = 3, ah = 0, aw = 1;
        } else if (layout == WNN_CONV_TRANSPOSE2D_FILTER_LAYOUT_OHWI) {
            ao = 0, ai = 3, ah = 1, aw = 2;
        } else {
            ao = 1, ai = 0, ah = 2, aw = 3;
        }
    }
    int64_t st[WNN_MAX_RANK];
    signed_strides(f, st);
    c->f_stride[0] = (uint64_t)st[ao];
    c->f_stride[1] = (uint64_t)st[ai];
    c->f_stride[2] = (uint64_t)st[ah];
    c->f_stride[3] = (uint64_t)st[aw];
    c->kh = f->shape[ah];
    c->kw = f->shape[aw];
    if (!c->stride[0] || !c->stride[1] || !c->dilation[0] || !c->dilation[1] || c->c_in % c->groups ||
        c->c_out % c->groups)
        return WNN_STATUS_NOT_SUPPORTED;
    return WNN_OK;
}

wnn_status wnn__cu_prep_conv(const wnn__ir *ir, wnn__cu_node *n)
{
    wnn__cu_conv c;
    wnn_status s = wnn__cu_conv_describe(ir, n->node, &c);
    if (s != WNN_OK)
        return s;
    conv_plan *p = new_plan(n, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    p->t = in_desc(ir, n->node, 0)->data_type;
    p->c = c;
    n->run = run_conv;
    if (!wnn__config_get()->cuda_direct_conv)
        plan_conv_gemm(ir, n, p, n->node->attrs.conv.filter_layout);
    return WNN_OK;
}
