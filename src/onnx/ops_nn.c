/*
** ops_nn.c -- lowering of ONNX's network operators: Conv and ConvTranspose
** (1-D through a height of 1, and 2-D; 3-D in ops_spatial3d.c), Gemm, MatMul (N-D and the 1-D
** cases), pooling (global ones as reductions), the normalizations, and
** Resize/Upsample onto resample2d.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_internal.h"

/* A rank-3 (N, C, W) operand as rank 4 (N, C, 1, W). */
static wnn_operand *to_4d(onx_importer *im, wnn_operand *x)
{
    wnn_operand_desc d = onx_desc_of(x);
    uint32_t s[4] = {d.shape[0], d.shape[1], 1, d.shape[2]};
    return wnn_reshape(im->b, x, 4, s);
}

static wnn_operand *from_4d(onx_importer *im, wnn_operand *y)
{
    if (y == NULL)
        return NULL;
    wnn_operand_desc d = onx_desc_of(y);
    uint32_t s[3] = {d.shape[0], d.shape[1], d.shape[3]};
    return wnn_reshape(im->b, y, 3, s);
}

/* Spatial attributes of Conv/ConvTranspose/pooling for k spatial dims (1
** or 2), mapped to WebNN's 2-D order: padding [top, bottom, left, right]. */
typedef struct spatial {
    uint32_t kernel[2], strides[2], dilations[2], pads[4];
    char auto_pad[16];
} spatial;

static int read_spatial(onx_importer *im, const Onnx__NodeProto *n, uint32_t k, const uint32_t *in,
                        const uint32_t *kernel, spatial *s, bool transpose)
{
    int64_t v[8];
    int c;
    for (uint32_t i = 0; i < 2; i++) {
        s->kernel[i] = 1;
        s->strides[i] = s->dilations[i] = 1;
        s->pads[i] = s->pads[i + 2] = 0;
    }
    uint32_t off = 2 - k; /* 1-D uses the second (width) slot */
    for (uint32_t i = 0; i < k; i++)
        s->kernel[off + i] = kernel[i];
    if ((c = onx_attr_ints(n, "strides", v, 8)) > 0)
        for (uint32_t i = 0; i < k && i < (uint32_t)c; i++)
            s->strides[off + i] = (uint32_t)v[i];
    if ((c = onx_attr_ints(n, "dilations", v, 8)) > 0)
        for (uint32_t i = 0; i < k && i < (uint32_t)c; i++)
            s->dilations[off + i] = (uint32_t)v[i];
    onx_attr_string(n, "auto_pad", "NOTSET", s->auto_pad, sizeof s->auto_pad);
    if (strcmp(s->auto_pad, "NOTSET") == 0 || strcmp(s->auto_pad, "VALID") == 0) {
        if (strcmp(s->auto_pad, "NOTSET") == 0 && (c = onx_attr_ints(n, "pads", v, 8)) > 0) {
            if ((uint32_t)c != 2 * k)
                return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "pads has %d values for %u axes", c, k), -1;
            for (uint32_t i = 0; i < k; i++) {
                if (v[i] < 0 || v[k + i] < 0)
                    return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "negative pads"), -1;
                s->pads[2 * (off + i)] = (uint32_t)v[i];
                s->pads[2 * (off + i) + 1] = (uint32_t)v[k + i];
            }
        }
        return 0;
    }
    bool upper = strcmp(s->auto_pad, "SAME_UPPER") == 0;
    if (!upper && strcmp(s->auto_pad, "SAME_LOWER") != 0)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "auto_pad '%s' is unknown", s->auto_pad), -1;
    for (uint32_t i = 0; i < k; i++) {
        uint32_t j = off + i;
        int64_t eff = (int64_t)(s->kernel[j] - 1) * s->dilations[j] + 1, total;
        if (transpose) {
            int64_t out = (int64_t)in[i] * s->strides[j];
            total = (int64_t)s->strides[j] * (in[i] - 1) + eff - out;
        } else {
            int64_t out = ((int64_t)in[i] + s->strides[j] - 1) / s->strides[j];
            total = (out - 1) * s->strides[j] + eff - in[i];
        }
        if (total < 0)
            total = 0;
        s->pads[2 * j] = (uint32_t)(upper ? total / 2 : total - total / 2);
        s->pads[2 * j + 1] = (uint32_t)(total - s->pads[2 * j]);
    }
    return 0;
}

/* ---- Conv, ConvTranspose ---- */

static wnn_status lower_conv(onx_importer *im, const Onnx__NodeProto *n)
{
    bool transpose = strcmp(n->op_type, "ConvTranspose") == 0;
    wnn_operand *x = onx_in_op(im, n, 0), *w = onx_in_op(im, n, 1);
    if (x == NULL || w == NULL)
        return im->status;
    wnn_operand *bias = onx_in(im, n, 2) ? onx_in_op(im, n, 2) : NULL;
    wnn_operand_desc xd = onx_desc_of(x), wd = onx_desc_of(w);
    if (xd.rank == 5)
        return onx_lower_conv3d(im, n);
    if (xd.rank != 3 && xd.rank != 4)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "a rank-%u input: WebNN convolves in 1-D (as 2-D) and 2-D "
                        "only (3-D as sums of 2-D)", xd.rank);
    uint32_t k = xd.rank - 2;
    spatial s;
    if (read_spatial(im, n, k, xd.shape + 2, wd.shape + 2, &s, transpose) < 0)
        return im->status;
    uint32_t group = (uint32_t)onx_attr_int(n, "group", 1);
    if (k == 1) {
        x = to_4d(im, x);
        w = to_4d(im, w);
    }
    wnn_operand *y;
    if (!transpose) {
        wnn_conv2d_options o = WNN_CONV2D_OPTIONS_INIT;
        memcpy(o.padding, s.pads, sizeof o.padding);
        memcpy(o.strides, s.strides, sizeof o.strides);
        memcpy(o.dilations, s.dilations, sizeof o.dilations);
        o.groups = group;
        o.bias = bias;
        y = wnn_conv2d(im->b, x, w, &o);
    } else {
        wnn_conv_transpose2d_options o = WNN_CONV_TRANSPOSE2D_OPTIONS_INIT;
        memcpy(o.padding, s.pads, sizeof o.padding);
        memcpy(o.strides, s.strides, sizeof o.strides);
        memcpy(o.dilations, s.dilations, sizeof o.dilations);
        o.groups = group;
        o.bias = bias;
        int64_t v[8];
        int c = onx_attr_ints(n, "output_padding", v, 8);
        for (int i = 0; i < c && i < (int)k; i++)
            o.output_padding[2 - k + (uint32_t)i] = (uint32_t)v[i];
        c = onx_attr_ints(n, "output_shape", v, 8);
        if (c > 0) {
            /* pads that make the output exactly output_shape */
            const int64_t *os = v + (c == (int)k + 2 ? 2 : 0);
            bool upper = strcmp(s.auto_pad, "SAME_UPPER") == 0;
            for (uint32_t i = 0; i < k; i++) {
                uint32_t j = 2 - k + i;
                int64_t eff = (int64_t)(s.kernel[j] - 1) * s.dilations[j] + 1;
                int64_t total = (int64_t)s.strides[j] * (xd.shape[2 + i] - 1) + o.output_padding[j] + eff - os[i];
                if (total < 0) {
                    o.output_padding[j] += (uint32_t)-total;
                    total = 0;
                }
                o.padding[2 * j] = (uint32_t)(upper ? total / 2 : total - total / 2);
                o.padding[2 * j + 1] = (uint32_t)(total - o.padding[2 * j]);
            }
        }
        y = wnn_conv_transpose2d(im->b, x, w, &o);
    }
    return onx_out(im, n, 0, k == 1 ? from_4d(im, y) : y);
}

wnn_operand *onx_conv_of(onx_importer *im, const Onnx__NodeProto *n, wnn_operand *x, wnn_operand *w)
{
    wnn_operand_desc xd = onx_desc_of(x), wd = onx_desc_of(w);
    if (x == NULL || w == NULL)
        return NULL;
    if ((xd.rank != 3 && xd.rank != 4) || wd.rank != xd.rank) {
        onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "a rank-%u input and a rank-%u filter: 1-D and 2-D only", xd.rank,
                 wd.rank);
        return NULL;
    }
    uint32_t k = xd.rank - 2;
    spatial s;
    if (read_spatial(im, n, k, xd.shape + 2, wd.shape + 2, &s, false) < 0)
        return NULL;
    wnn_conv2d_options o = WNN_CONV2D_OPTIONS_INIT;
    memcpy(o.padding, s.pads, sizeof o.padding);
    memcpy(o.strides, s.strides, sizeof o.strides);
    memcpy(o.dilations, s.dilations, sizeof o.dilations);
    o.groups = (uint32_t)onx_attr_int(n, "group", 1);
    wnn_operand *y = wnn_conv2d(im->b, k == 1 ? to_4d(im, x) : x, k == 1 ? to_4d(im, w) : w, &o);
    return k == 1 ? from_4d(im, y) : y;
}

/* ---- Gemm, MatMul ---- */

static wnn_status lower_gemm(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_gemm_options o = WNN_GEMM_OPTIONS_INIT;
    double alpha = onx_attr_float(n, "alpha", 1.0f), beta = onx_attr_float(n, "beta", 1.0f);
    o.alpha = &alpha;
    o.beta = &beta;
    o.a_transpose = onx_attr_int(n, "transA", 0) != 0;
    o.b_transpose = onx_attr_int(n, "transB", 0) != 0;
    if (onx_in(im, n, 2) != NULL)
        o.c = onx_in_op(im, n, 2);
    return onx_out(im, n, 0, wnn_gemm(im->b, onx_in_op(im, n, 0), onx_in_op(im, n, 1), &o));
}

static wnn_status lower_matmul(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_operand *a = onx_in_op(im, n, 0), *b = onx_in_op(im, n, 1);
    if (a == NULL || b == NULL)
        return im->status;
    wnn_operand_desc ad = onx_desc_of(a), bd = onx_desc_of(b);
    if (ad.rank == 1) { /* [K] -> [1, K], the 1 dropped after */
        uint32_t s[2] = {1, ad.shape[0]};
        a = wnn_reshape(im->b, a, 2, s);
    }
    if (bd.rank == 1) { /* [K] -> [K, 1] */
        uint32_t s[2] = {bd.shape[0], 1};
        b = wnn_reshape(im->b, b, 2, s);
    }
    wnn_operand *y = wnn_matmul(im->b, a, b);
    if (y != NULL && (ad.rank == 1 || bd.rank == 1)) {
        wnn_operand_desc yd = onx_desc_of(y);
        uint32_t s[WNN_MAX_RANK], r = 0;
        for (uint32_t i = 0; i < yd.rank; i++) {
            if ((ad.rank == 1 && i == yd.rank - 2) || (bd.rank == 1 && i == yd.rank - 1))
                continue;
            s[r++] = yd.shape[i];
        }
        y = wnn_reshape(im->b, y, r, s);
    }
    return onx_out(im, n, 0, y);
}

/* ---- pooling ---- */

/* MaxPool's Indices: for each window tap in row-major order, the strided
** slice of the input (padded with its least value) that the tap reads; the
** first tap equal to the pooled maximum gives the index, ONNX's flat index
** into the whole input (storage_order 1: each plane column-major). Rank 4
** (1-D pools arrive as height 1); the result in the output's rank. */
static wnn_operand *max_pool_indices(onx_importer *im, wnn_operand *x, wnn_operand *y, const spatial *s,
                                     int64_t storage_order)
{
    wnn_graph_builder *b = im->b;
    wnn_operand_desc xd = onx_desc_of(x), yd = onx_desc_of(y);
    if (x == NULL || y == NULL)
        return NULL;
    uint32_t nb = xd.shape[0], ch = xd.shape[1], h = xd.shape[2], w = xd.shape[3], ho = yd.shape[2], wo = yd.shape[3];
    uint32_t span[2] = {(ho - 1) * s->strides[0] + 1, (wo - 1) * s->strides[1] + 1}, extra[2];
    for (int a = 0; a < 2; a++) { /* ceil_mode's last window may pass the padding */
        int64_t need = (int64_t)span[a] + (int64_t)(s->kernel[a] - 1) * s->dilations[a];
        int64_t have = (int64_t)(a ? w : h) + s->pads[2 * a] + s->pads[2 * a + 1];
        extra[a] = need > have ? (uint32_t)(need - have) : 0;
    }
    uint32_t begin[4] = {0, 0, s->pads[0], s->pads[2]}, end[4] = {0, 0, s->pads[1] + extra[0], s->pads[3] + extra[1]};
    wnn_pad_options po = WNN_PAD_OPTIONS_INIT;
    po.value = onx_type_is_float(xd.data_type) ? -INFINITY : 0.0;
    wnn_operand *xp = wnn_pad(b, x, begin, end, &po), *idx = NULL, *found = NULL;
    int64_t *cand = malloc((size_t)ho * wo * sizeof *cand);
    if (cand == NULL) {
        onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    wnn_operand_desc cd = {WNN_DATA_TYPE_INT64, 4, {1, 1, ho, wo}};
    for (uint32_t i = 0; i < s->kernel[0]; i++) {
        for (uint32_t j = 0; j < s->kernel[1]; j++) {
            uint32_t starts[4] = {0, 0, i * s->dilations[0], j * s->dilations[1]}, sizes[4] = {nb, ch, span[0], span[1]};
            uint32_t strides[4] = {1, 1, s->strides[0], s->strides[1]};
            wnn_operand *v = wnn_slice(b, xp, starts, sizes, strides);
            for (uint32_t oh = 0; oh < ho; oh++)
                for (uint32_t ow = 0; ow < wo; ow++) {
                    int64_t r = (int64_t)oh * s->strides[0] - s->pads[0] + (int64_t)i * s->dilations[0];
                    int64_t c = (int64_t)ow * s->strides[1] - s->pads[2] + (int64_t)j * s->dilations[1];
                    cand[(size_t)oh * wo + ow] = storage_order ? c * h + r : r * w + c;
                }
            wnn_operand *at = wnn_graph_builder_constant(b, &cd, cand, (size_t)ho * wo * sizeof *cand);
            wnn_operand *hit = wnn_equal(b, v, y);
            if (idx == NULL) {
                idx = wnn_expand(b, at, 4, yd.shape);
                found = hit;
            } else {
                hit = wnn_logical_and(b, hit, wnn_logical_not(b, found));
                idx = wnn_where(b, hit, at, idx);
                found = wnn_logical_or(b, found, hit);
            }
        }
    }
    free(cand);
    /* the plane's offset: (n C + c) H W */
    int64_t *plane = malloc((size_t)nb * ch * sizeof *plane);
    if (plane == NULL) {
        onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    for (uint32_t p = 0; p < nb * ch; p++)
        plane[p] = (int64_t)p * h * w;
    wnn_operand_desc pd = {WNN_DATA_TYPE_INT64, 4, {nb, ch, 1, 1}};
    wnn_operand *offset = wnn_graph_builder_constant(b, &pd, plane, (size_t)nb * ch * sizeof *plane);
    free(plane);
    return idx ? wnn_add(b, idx, offset) : NULL;
}

static wnn_status lower_pool(onx_importer *im, const Onnx__NodeProto *n)
{
    const char *op = n->op_type;
    wnn_operand *x = onx_in_op(im, n, 0);
    if (x == NULL)
        return im->status;
    wnn_operand_desc xd = onx_desc_of(x);
    if (xd.rank != 3 && xd.rank != 4 && xd.rank != 5)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "a rank-%u input: WebNN pools in 2-D only (1-D and 3-D "
                        "through it)", xd.rank);
    bool indices = n->n_output > 1 && n->output[1] && n->output[1][0];
    if (indices && (strcmp(op, "MaxPool") != 0 || xd.rank == 5))
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "the Indices output of a 1-D or 2-D MaxPool only");
    if (xd.rank == 5)
        return onx_lower_pool3d(im, n);
    uint32_t k = xd.rank - 2;
    int64_t ks[8];
    if (onx_attr_ints(n, "kernel_shape", ks, 8) != (int)k)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "kernel_shape must have %u values", k);
    uint32_t kernel[2] = {(uint32_t)ks[0], k == 2 ? (uint32_t)ks[1] : 1};
    spatial s;
    if (read_spatial(im, n, k, xd.shape + 2, kernel, &s, false) < 0)
        return im->status;
    if (k == 1)
        x = to_4d(im, x);
    wnn_pool2d_options o = WNN_POOL2D_OPTIONS_INIT;
    memcpy(o.window_dimensions, s.kernel, sizeof o.window_dimensions);
    memcpy(o.padding, s.pads, sizeof o.padding);
    memcpy(o.strides, s.strides, sizeof o.strides);
    memcpy(o.dilations, s.dilations, sizeof o.dilations);
    o.rounding_type = onx_attr_int(n, "ceil_mode", 0) ? WNN_ROUNDING_TYPE_CEIL : WNN_ROUNDING_TYPE_FLOOR;
    wnn_operand *y;
    if (strcmp(op, "MaxPool") == 0) {
        y = wnn_max_pool2d(im->b, x, &o);
        if (indices) {
            wnn_operand *at = max_pool_indices(im, x, y, &s, onx_attr_int(n, "storage_order", 0));
            wnn_status st = onx_out(im, n, 1, k == 1 ? from_4d(im, at) : at);
            if (st != WNN_OK)
                return st;
        }
    } else if (strcmp(op, "LpPool") == 0) {
        if (onx_attr_int(n, "p", 2) != 2)
            return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "p other than 2: WebNN has l2Pool2d only");
        y = wnn_l2_pool2d(im->b, x, &o);
    } else {
        bool pads = s.pads[0] | s.pads[1] | s.pads[2] | s.pads[3];
        if (pads && onx_attr_int(n, "count_include_pad", 0) != 0) {
            /* WebNN averages real elements only: pad with zeros first */
            uint32_t begin[4] = {0, 0, s.pads[0], s.pads[2]}, end[4] = {0, 0, s.pads[1], s.pads[3]};
            x = wnn_pad(im->b, x, begin, end, NULL);
            memset(o.padding, 0, sizeof o.padding);
            if (o.rounding_type == WNN_ROUNDING_TYPE_CEIL)
                return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "ceil_mode with count_include_pad");
        }
        y = wnn_average_pool2d(im->b, x, &o);
    }
    return onx_out(im, n, 0, k == 1 ? from_4d(im, y) : y);
}

/* Global pooling as a reduction over every spatial axis, any rank. */
static wnn_status lower_global_pool(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_operand *x = onx_in_op(im, n, 0);
    if (x == NULL)
        return im->status;
    wnn_operand_desc d = onx_desc_of(x);
    if (d.rank < 3)
        return onx_fail(im, WNN_STATUS_INVALID_RANK, "input rank %u, needs 3 or more", d.rank);
    wnn_reduce_options o = WNN_REDUCE_OPTIONS_INIT;
    uint32_t axes[WNN_MAX_RANK];
    o.axes = axes;
    o.keep_dimensions = true;
    for (uint32_t i = 2; i < d.rank; i++)
        axes[o.axes_count++] = i;
    const char *op = n->op_type;
    wnn_operand *y;
    if (strcmp(op, "GlobalMaxPool") == 0)
        y = wnn_reduce_max(im->b, x, &o);
    else if (strcmp(op, "GlobalAveragePool") == 0)
        y = wnn_reduce_mean(im->b, x, &o);
    else if (onx_attr_int(n, "p", 2) == 2)
        y = wnn_reduce_l2(im->b, x, &o);
    else if (onx_attr_int(n, "p", 2) == 1)
        y = wnn_reduce_l1(im->b, x, &o);
    else
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "p other than 1 or 2");
    return onx_out(im, n, 0, y);
}

/* ---- normalization ---- */

static bool extra_outputs(const Onnx__NodeProto *n)
{
    for (size_t i = 1; i < n->n_output; i++)
        if (n->output[i] && n->output[i][0])
            return true;
    return false;
}

/* BatchNormalization in training mode: the batch's own mean and (biased)
** variance over every axis but 1 normalize X, and the running statistics
** come out as input * momentum + batch * (1 - momentum). */
static wnn_status batch_norm_training(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_graph_builder *b = im->b;
    wnn_operand *x = onx_in_op(im, n, 0), *scale = onx_in_op(im, n, 1), *bias = onx_in_op(im, n, 2);
    wnn_operand *mean_in = onx_in_op(im, n, 3), *var_in = onx_in_op(im, n, 4);
    if (x == NULL || scale == NULL || bias == NULL || mean_in == NULL || var_in == NULL)
        return im->status;
    wnn_operand_desc d = onx_desc_of(x);
    if (d.rank < 2)
        return onx_fail(im, WNN_STATUS_INVALID_RANK, "X has rank %u, needs a channel axis", d.rank);
    uint32_t axes[WNN_MAX_RANK], na = 0, cs[WNN_MAX_RANK];
    for (uint32_t i = 0; i < d.rank; i++) {
        if (i != 1)
            axes[na++] = i;
        cs[i] = i == 1 ? d.shape[1] : 1;
    }
    wnn_reduce_options ro = {.axes = axes, .axes_count = na, .keep_dimensions = true};
    wnn_data_type t = d.data_type;
    wnn_operand *mean = wnn_reduce_mean(b, x, &ro), *centred = wnn_sub(b, x, mean);
    wnn_operand *var = wnn_reduce_mean(b, wnn_mul(b, centred, centred), &ro);
    double eps = onx_attr_float(n, "epsilon", 1e-5f), momentum = onx_attr_float(n, "momentum", 0.9f);
    wnn_operand *y = wnn_div(b, centred, wnn_sqrt(b, wnn_add(b, var, onx_scalar(im, t, eps))));
    y = wnn_add(b, wnn_mul(b, y, wnn_reshape(b, scale, d.rank, cs)), wnn_reshape(b, bias, d.rank, cs));
    wnn_status st = onx_out(im, n, 0, y);
    uint32_t c = d.shape[1];
    wnn_operand *stats[2] = {wnn_reshape(b, mean, 1, &c), wnn_reshape(b, var, 1, &c)}, *ins[2] = {mean_in, var_in};
    for (size_t i = 0; st == WNN_OK && i < 2; i++) {
        wnn_operand *run = wnn_add(b, wnn_mul(b, ins[i], onx_scalar(im, t, momentum)),
                                   wnn_mul(b, stats[i], onx_scalar(im, t, 1.0 - momentum)));
        st = onx_out(im, n, 1 + i, run);
    }
    return st;
}

static wnn_status lower_batch_norm(onx_importer *im, const Onnx__NodeProto *n)
{
    if (onx_attr_int(n, "training_mode", 0) != 0 || extra_outputs(n)) {
        if (im->opset >= 14)
            return batch_norm_training(im, n);
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "running statistics outputs before opset 14 (saved mean "
                        "and variance) are not supported");
    }
    if (onx_attr_int(n, "spatial", 1) == 0)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "spatial 0 (per-element statistics) is not supported");
    wnn_batch_normalization_options o = WNN_BATCH_NORMALIZATION_OPTIONS_INIT;
    o.scale = onx_in_op(im, n, 1);
    o.bias = onx_in_op(im, n, 2);
    double epsilon = onx_attr_float(n, "epsilon", 1e-5f);
    static const uint32_t axis0 = 0;
    o.epsilon = &epsilon;
    wnn_operand *x = onx_in_op(im, n, 0);
    if (x != NULL && onx_desc_of(x).rank < 2)
        o.axis = &axis0;
    return onx_out(im, n, 0, wnn_batch_normalization(im->b, x, onx_in_op(im, n, 3), onx_in_op(im, n, 4), &o));
}

/* (x - mean) / sqrt(var + eps) over axes, by reductions. */
static wnn_operand *normalize(onx_importer *im, wnn_operand *x, const wnn_reduce_options *o, double eps)
{
    wnn_graph_builder *b = im->b;
    wnn_data_type t = onx_desc_of(x).data_type;
    wnn_operand *centered = wnn_sub(b, x, wnn_reduce_mean(b, x, o));
    wnn_operand *var = wnn_reduce_mean(b, wnn_mul(b, centered, centered), o);
    return wnn_div(b, centered, wnn_sqrt(b, wnn_add(b, var, onx_scalar(im, t, eps))));
}

static wnn_status lower_instance_norm(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_operand *x = onx_in_op(im, n, 0), *scale = onx_in_op(im, n, 1), *bias = onx_in_op(im, n, 2);
    if (x == NULL || scale == NULL || bias == NULL)
        return im->status;
    double eps = onx_attr_float(n, "epsilon", 1e-5f);
    wnn_operand_desc d = onx_desc_of(x);
    if (d.rank == 4) {
        wnn_instance_normalization_options o = {.scale = scale, .bias = bias, .epsilon = &eps};
        return onx_out(im, n, 0, wnn_instance_normalization(im->b, x, &o));
    }
    if (d.rank < 3)
        return onx_fail(im, WNN_STATUS_INVALID_RANK, "input rank %u, needs 3 or more", d.rank);
    wnn_reduce_options o = WNN_REDUCE_OPTIONS_INIT;
    uint32_t axes[WNN_MAX_RANK];
    o.axes = axes;
    o.keep_dimensions = true;
    uint32_t s[WNN_MAX_RANK] = {d.shape[1]};
    for (uint32_t i = 2; i < d.rank; i++) {
        axes[o.axes_count++] = i;
        s[i - 1] = 1;
    }
    wnn_operand *y = normalize(im, x, &o, eps);
    y = wnn_add(im->b, wnn_mul(im->b, y, wnn_reshape(im->b, scale, d.rank - 1, s)),
                wnn_reshape(im->b, bias, d.rank - 1, s));
    return onx_out(im, n, 0, y);
}

/* GroupNormalization: x [N, C, ...] as [N, G, C/G * spatial], normalized
** over the last axis, then per-channel scale and bias ([G] per group before
** opset 21, [C] from 21). */
static wnn_status lower_group_norm(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_graph_builder *b = im->b;
    wnn_operand *x = onx_in_op(im, n, 0), *scale = onx_in_op(im, n, 1), *bias = onx_in_op(im, n, 2);
    if (x == NULL || scale == NULL || bias == NULL)
        return im->status;
    wnn_operand_desc d = onx_desc_of(x);
    uint32_t groups = (uint32_t)onx_attr_int(n, "num_groups", 1), c = d.rank >= 2 ? d.shape[1] : 0, spatial_size = 1;
    if (d.rank < 3 || groups == 0 || c % groups != 0)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "rank %u with %u channels in %u groups", d.rank, c, groups);
    for (uint32_t i = 2; i < d.rank; i++)
        spatial_size *= d.shape[i];
    uint32_t g3[3] = {d.shape[0], groups, c / groups * spatial_size};
    static const uint32_t group_axis = 2;
    wnn_reduce_options o = {.axes = &group_axis, .axes_count = 1, .keep_dimensions = true};
    wnn_operand *y = wnn_reshape(b, normalize(im, wnn_reshape(b, x, 3, g3), &o, onx_attr_float(n, "epsilon", 1e-5f)),
                                 d.rank, d.shape);
    uint32_t cs[WNN_MAX_RANK] = {c};
    for (uint32_t i = 1; i < d.rank - 1; i++)
        cs[i] = 1;
    wnn_operand *params[2] = {scale, bias};
    for (int i = 0; i < 2; i++) {
        if (onx_desc_of(params[i]).shape[0] == groups && groups != c) { /* one value per group: repeat per channel */
            uint32_t gc[2] = {groups, 1}, full[2] = {groups, c / groups};
            params[i] = wnn_expand(b, wnn_reshape(b, params[i], 2, gc), 2, full);
        }
        params[i] = wnn_reshape(b, params[i], d.rank - 1, cs);
    }
    return onx_out(im, n, 0, wnn_add(b, wnn_mul(b, y, params[0]), params[1]));
}

/* scale or bias shaped like x's normalized dimensions (ONNX lets them be
** broadcastable to it). */
static wnn_operand *fit_norm_param(onx_importer *im, wnn_operand *p, const wnn_operand_desc *x, uint32_t axis)
{
    if (p == NULL)
        return NULL;
    wnn_operand_desc pd = onx_desc_of(p);
    uint32_t r = x->rank - axis;
    if (pd.rank == r && memcmp(pd.shape, x->shape + axis, r * sizeof pd.shape[0]) == 0)
        return p;
    if (pd.rank > r)
        return p; /* let the builder report it */
    uint32_t s[WNN_MAX_RANK];
    for (uint32_t i = 0; i < r; i++)
        s[i] = i < r - pd.rank ? 1 : pd.shape[i - (r - pd.rank)];
    return wnn_expand(im->b, wnn_reshape(im->b, p, r, s), r, x->shape + axis);
}

/* LayerNormalization with its Mean and InvStdDev outputs, by reductions:
** mean, 1 / sqrt(var + eps), (x - mean) * inv * scale + bias. */
static wnn_status layer_norm_parts(onx_importer *im, const Onnx__NodeProto *n, wnn_operand *x,
                                   const wnn_layer_normalization_options *ln)
{
    wnn_graph_builder *b = im->b;
    wnn_data_type t = onx_desc_of(x).data_type;
    wnn_reduce_options o = {.axes = ln->axes, .axes_count = ln->axes_count, .keep_dimensions = true};
    wnn_operand *mean = wnn_reduce_mean(b, x, &o), *centered = wnn_sub(b, x, mean);
    wnn_operand *var = wnn_reduce_mean(b, wnn_mul(b, centered, centered), &o);
    wnn_operand *inv = wnn_reciprocal(b, wnn_sqrt(b, wnn_add(b, var, onx_scalar(im, t, *ln->epsilon))));
    wnn_operand *y = wnn_mul(b, wnn_mul(b, centered, inv), ln->scale);
    if (ln->bias != NULL)
        y = wnn_add(b, y, ln->bias);
    wnn_status st = onx_out(im, n, 0, y);
    if (st == WNN_OK)
        st = onx_out(im, n, 1, mean);
    if (st == WNN_OK)
        st = onx_out(im, n, 2, inv);
    return st;
}

static wnn_status lower_layer_norm(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_operand *x = onx_in_op(im, n, 0);
    if (x == NULL)
        return im->status;
    wnn_operand_desc d = onx_desc_of(x);
    int axis = onx_axis(im, onx_attr_int(n, "axis", -1), d.rank);
    if (axis < 0)
        return im->status;
    wnn_layer_normalization_options o = WNN_LAYER_NORMALIZATION_OPTIONS_INIT;
    double epsilon = onx_attr_float(n, "epsilon", 1e-5f);
    uint32_t axes[WNN_MAX_RANK];
    o.epsilon = &epsilon;
    o.axes = axes;
    for (uint32_t i = (uint32_t)axis; i < d.rank; i++)
        axes[o.axes_count++] = i;
    o.scale = fit_norm_param(im, onx_in_op(im, n, 1), &d, (uint32_t)axis);
    o.bias = onx_in(im, n, 2) ? fit_norm_param(im, onx_in_op(im, n, 2), &d, (uint32_t)axis) : NULL;
    if (extra_outputs(n))
        return layer_norm_parts(im, n, x, &o);
    return onx_out(im, n, 0, wnn_layer_normalization(im->b, x, &o));
}

static wnn_status lower_lp_norm(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_operand *x = onx_in_op(im, n, 0);
    if (x == NULL)
        return im->status;
    wnn_operand_desc d = onx_desc_of(x);
    int axis = onx_axis(im, onx_attr_int(n, "axis", -1), d.rank);
    int64_t p = onx_attr_int(n, "p", 2);
    if (axis < 0)
        return im->status;
    if (p != 1 && p != 2)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "p %lld", (long long)p);
    uint32_t norm_axis = (uint32_t)axis;
    wnn_reduce_options o = {.axes = &norm_axis, .axes_count = 1, .keep_dimensions = true};
    wnn_operand *norm = p == 2 ? wnn_reduce_l2(im->b, x, &o) : wnn_reduce_l1(im->b, x, &o);
    return onx_out(im, n, 0, wnn_div(im->b, x, norm));
}

static wnn_status lower_mvn(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_operand *x = onx_in_op(im, n, 0);
    if (x == NULL)
        return im->status;
    wnn_operand_desc d = onx_desc_of(x);
    int64_t axes[WNN_MAX_RANK] = {0, 2, 3};
    int c = onx_attr_ints(n, "axes", axes, WNN_MAX_RANK);
    if (c < 0)
        c = 3;
    wnn_reduce_options o = WNN_REDUCE_OPTIONS_INIT;
    uint32_t reduced[WNN_MAX_RANK];
    o.axes = reduced;
    o.keep_dimensions = true;
    for (int i = 0; i < c; i++) {
        int a = onx_axis(im, axes[i], d.rank);
        if (a < 0)
            return im->status;
        reduced[o.axes_count++] = (uint32_t)a;
    }
    return onx_out(im, n, 0, normalize(im, x, &o, 1e-9));
}

/* ---- Resize, Upsample ---- */

static wnn_status lower_resize(onx_importer *im, const Onnx__NodeProto *n)
{
    bool upsample = strcmp(n->op_type, "Upsample") == 0;
    wnn_operand *x = onx_in_op(im, n, 0);
    if (x == NULL)
        return im->status;
    wnn_operand_desc d = onx_desc_of(x);
    char mode[32], coord[32], nearest[32];
    onx_attr_string(n, "mode", "nearest", mode, sizeof mode);
    onx_attr_string(n, "coordinate_transformation_mode", upsample || im->opset < 11 ? "asymmetric" : "half_pixel",
                    coord, sizeof coord);
    /* Upsample repeats elements: nearest rounds down */
    onx_attr_string(n, "nearest_mode", upsample ? "floor" : "round_prefer_floor", nearest, sizeof nearest);
    if (onx_attr_int(n, "antialias", 0) != 0)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "antialias has no WebNN resample2d equivalent");
    if (onx_attr(n, "axes") != NULL)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "the axes attribute is not supported");
    if (onx_attr(n, "keep_aspect_ratio_policy") != NULL)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "keep_aspect_ratio_policy is not supported");
    /* output sizes from sizes or scales */
    double scales[WNN_MAX_RANK];
    uint32_t out[WNN_MAX_RANK];
    bool whole = true; /* out = in * scale: resample2d samples at in / out */
    int scale_input = upsample ? 1 : im->opset < 11 ? 1 : 2, sizes_input = upsample || im->opset < 11 ? -1 : 3;
    onx_value *sv = sizes_input > 0 ? onx_in(im, n, (size_t)sizes_input) : NULL;
    if (sv != NULL && sv->c != NULL && sv->c->count > 0) {
        if (sv->c->count != d.rank)
            return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "sizes has %zu values for rank %u", sv->c->count, d.rank);
        for (uint32_t i = 0; i < d.rank; i++) {
            int64_t size = onx_get_i64(sv->c, i);
            if (size <= 0 || size > (int64_t)WNN_MAX_DIMENSION)
                return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "sizes[%u] is %lld, must be 1 to 2^31-1", i,
                                (long long)size);
            out[i] = (uint32_t)size;
            scales[i] = (double)out[i] / d.shape[i];
        }
    } else {
        float f[WNN_MAX_RANK];
        int c = -1;
        if (upsample && im->opset < 9) {
            c = onx_attr_floats(n, "scales", f, WNN_MAX_RANK);
        } else {
            const onx_const *sc = onx_in_const(im, n, (size_t)scale_input, "scales");
            if (sc == NULL)
                return im->status;
            c = (int)sc->count;
            for (int i = 0; i < c && i < (int)WNN_MAX_RANK; i++)
                f[i] = (float)onx_get_f64(sc, (size_t)i);
        }
        if (c != (int)d.rank)
            return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "scales has %d values for rank %u", c, d.rank);
        for (uint32_t i = 0; i < d.rank; i++) {
            scales[i] = f[i];
            double size = d.shape[i] * (double)f[i];
            if (!(size >= 1 && size <= WNN_MAX_DIMENSION)) /* NaN too */
                return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "scale %g of axis %u gives a size of %g, must be "
                                "1 to 2^31-1", (double)f[i], i, size);
            out[i] = (uint32_t)floor(size);
            whole = whole && out[i] == d.shape[i] * (double)f[i];
        }
    }
    uint32_t axes[2], na = 0, resized = 0;
    for (uint32_t i = 0; i < d.rank; i++) {
        if (out[i] == d.shape[i])
            continue;
        if (na < 2)
            axes[na++] = i;
        resized++;
    }
    bool crop = strcmp(coord, "tf_crop_and_resize") == 0;
    if (na == 0 && !crop)
        return onx_out(im, n, 0, wnn_identity(im->b, x));
    /* the rest is resample2d's where it samples as ONNX does, else taps */
    if (!whole || resized > 2 || d.rank != 4 || crop)
        return onx_resize_by_taps(im, n, x, scales, out, mode, coord, nearest);
    if (na == 1)
        axes[1] = axes[0] == 3 ? 2 : axes[0] + 1, na = 2;
    if (axes[0] > axes[1]) {
        uint32_t t = axes[0];
        axes[0] = axes[1];
        axes[1] = t;
    }
    bool integer_up = true;
    for (uint32_t i = 0; i < 2; i++)
        integer_up = integer_up && out[axes[i]] % d.shape[axes[i]] == 0 && out[axes[i]] >= d.shape[axes[i]];
    wnn_resample2d_options o = WNN_RESAMPLE2D_OPTIONS_INIT;
    /* pytorch_half_pixel samples a size-1 output at 0, not at the centre */
    bool half_pixel = strcmp(coord, "half_pixel") == 0 ||
                      (strcmp(coord, "pytorch_half_pixel") == 0 && out[axes[0]] > 1 && out[axes[1]] > 1);
    if (strcmp(mode, "nearest") == 0) {
        /* upsampling by whole factors never meets a tie, so both round
        ** modes agree; asymmetric/floor is then the same sampling too */
        bool ok = (half_pixel && strcmp(nearest, "round_prefer_floor") == 0) ||
                  (integer_up && half_pixel && strcmp(nearest, "round_prefer_ceil") == 0) ||
                  (integer_up && strcmp(coord, "asymmetric") == 0 && strcmp(nearest, "floor") == 0);
        if (!ok)
            return onx_resize_by_taps(im, n, x, scales, out, mode, coord, nearest);
        o.mode = WNN_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
    } else if (strcmp(mode, "linear") == 0 || strcmp(mode, "bilinear") == 0) {
        if (!half_pixel)
            return onx_resize_by_taps(im, n, x, scales, out, mode, coord, nearest);
        o.mode = WNN_INTERPOLATION_MODE_LINEAR;
    } else {
        return onx_resize_by_taps(im, n, x, scales, out, mode, coord, nearest);
    }
    for (uint32_t i = 0; i < 2; i++) {
        o.axes[i] = axes[i];
        o.sizes[i] = out[axes[i]];
        o.scales[i] = (float)scales[axes[i]];
    }
    return onx_out(im, n, 0, wnn_resample2d(im->b, x, &o));
}

const onx_op_entry onx_ops_nn[] = {
    {"Conv", lower_conv},
    {"ConvTranspose", lower_conv},
    {"Gemm", lower_gemm},
    {"MatMul", lower_matmul},
    {"MaxPool", lower_pool},
    {"AveragePool", lower_pool},
    {"LpPool", lower_pool},
    {"GlobalAveragePool", lower_global_pool},
    {"GlobalMaxPool", lower_global_pool},
    {"GlobalLpPool", lower_global_pool},
    {"BatchNormalization", lower_batch_norm},
    {"InstanceNormalization", lower_instance_norm},
    {"LayerNormalization", lower_layer_norm},
    {"GroupNormalization", lower_group_norm},
    {"LpNormalization", lower_lp_norm},
    {"MeanVarianceNormalization", lower_mvn},
    {"Resize", lower_resize},
    {"Upsample", lower_resize},
    {NULL, NULL},
};
