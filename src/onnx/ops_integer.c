/*
** ops_integer.c -- integer convolution and matrix product (ConvInteger,
** MatMulInteger) and their quantized forms (QLinearConv, QLinearMatMul).
** WebNN's conv2d and matmul take floats: the zero points are subtracted in
** float32, where the products of int8 or uint8 values and their sums are
** exact while every partial sum stays below 2^24. The reduction is cut into
** chunks whose worst case (length x max |a| x max |b|) stays below 2^24;
** each chunk's result is rounded (a kernel that reorders its arithmetic
** still lands within 1/2) and cast to int32, and the chunks are added in
** int32: the accumulator is ONNX's, bit for bit. The quantized forms then
** requantize as ONNX Runtime does: float(acc) * (a_scale * b_scale /
** y_scale), rounded half to even, plus y's zero point, saturated
** (quantizeLinear with a scale of 1).
*/
#include <math.h>
#include <string.h>

#include "onnx_internal.h"

#define EXACT_SUM 16777216.0 /* 2^24: float32 holds every integer up to it */

/* A 1-D operand of len laid along axis of rank r (1 elsewhere). */
static wnn_operand *along(onx_importer *im, wnn_operand *v, uint32_t r, uint32_t axis)
{
    wnn_operand_desc d = onx_desc_of(v);
    if (v == NULL || d.rank != 1 || d.shape[0] == 1)
        return v;
    uint32_t s[WNN_MAX_RANK];
    for (uint32_t i = 0; i < r; i++)
        s[i] = i == axis ? d.shape[0] : 1;
    return wnn_reshape(im->b, v, r, s);
}

/* Input xi less zero point zi (absent: 0) in float32; a 1-D zero point runs
** along axis. *max gets a bound on |x - zp|: exact for constants, else the
** 8-bit range. */
static wnn_operand *centered(onx_importer *im, const Onnx__NodeProto *n, size_t xi, size_t zi, uint32_t axis,
                             double *max)
{
    wnn_graph_builder *b = im->b;
    wnn_operand *x = onx_in_op(im, n, xi);
    if (x == NULL)
        return NULL;
    wnn_operand_desc d = onx_desc_of(x);
    if (d.data_type != WNN_DATA_TYPE_INT8 && d.data_type != WNN_DATA_TYPE_UINT8) {
        onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "input %zu is %s: int8 and uint8 only", xi,
                 wnn_data_type_name(d.data_type));
        return NULL;
    }
    onx_value *xv = onx_in(im, n, xi), *zv = onx_in(im, n, zi);
    *max = 255;
    if (xv->c != NULL && (zv == NULL || (zv->c != NULL && zv->c->count == 1))) {
        double z = zv ? onx_get_f64(zv->c, 0) : 0, m = 0;
        for (size_t i = 0; i < xv->c->count; i++)
            m = fmax(m, fabs(onx_get_f64(xv->c, i) - z));
        *max = m > 0 ? m : 1;
    }
    wnn_operand *f = wnn_cast(b, x, WNN_DATA_TYPE_FLOAT32);
    if (zv == NULL)
        return f;
    wnn_operand *z = onx_operand(im, zv);
    if (z == NULL)
        return NULL;
    if (onx_desc_of(z).data_type != d.data_type || onx_desc_of(z).rank > 1) {
        onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "zero point %zu must be a scalar or a vector of input %zu's type",
                 zi, xi);
        return NULL;
    }
    return wnn_sub(b, f, along(im, wnn_cast(b, z, WNN_DATA_TYPE_FLOAT32), d.rank, axis));
}

static wnn_operand *slice_axis(onx_importer *im, wnn_operand *x, uint32_t axis, uint32_t start, uint32_t len)
{
    wnn_operand_desc d = onx_desc_of(x);
    uint32_t starts[WNN_MAX_RANK] = {0}, sizes[WNN_MAX_RANK];
    memcpy(sizes, d.shape, sizeof sizes);
    if (start == 0 && len == d.shape[axis])
        return x;
    starts[axis] = start;
    sizes[axis] = len;
    return wnn_slice(im->b, x, starts, sizes, NULL);
}

static wnn_operand *add_exact(onx_importer *im, wnn_operand *acc, wnn_operand *part)
{
    part = wnn_cast(im->b, wnn_round_even(im->b, part), WNN_DATA_TYPE_INT32);
    return acc == NULL ? part : wnn_add(im->b, acc, part);
}

/* The int32 product of inputs a and b (indices ia, ib; zero points za, zb). */
static wnn_operand *int_matmul(onx_importer *im, const Onnx__NodeProto *n, size_t ia, size_t za, size_t ib, size_t zb)
{
    wnn_operand *a0 = onx_in_op(im, n, ia), *b0 = onx_in_op(im, n, ib);
    if (a0 == NULL || b0 == NULL)
        return NULL;
    uint32_t ra = onx_desc_of(a0).rank, rb = onx_desc_of(b0).rank;
    if (ra < 2 || rb < 2) {
        onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "operands of rank %u and %u: rank 2 and over only", ra, rb);
        return NULL;
    }
    double ma, mb;
    wnn_operand *a = centered(im, n, ia, za, ra - 2, &ma), *b = a ? centered(im, n, ib, zb, rb - 1, &mb) : NULL;
    if (b == NULL)
        return NULL;
    uint32_t k = onx_desc_of(a).shape[ra - 1], chunk = (uint32_t)fmax(1, floor(EXACT_SUM / (ma * mb)));
    wnn_operand *acc = NULL;
    for (uint32_t k0 = 0; k0 < k; k0 += chunk) {
        uint32_t len = k - k0 < chunk ? k - k0 : chunk;
        acc = add_exact(im, acc, wnn_matmul(im->b, slice_axis(im, a, ra - 1, k0, len),
                                            slice_axis(im, b, rb - 2, k0, len)));
    }
    return acc;
}

/* The int32 convolution of inputs x and w (zero points zx, zw). */
static wnn_operand *int_conv(onx_importer *im, const Onnx__NodeProto *n, size_t ix, size_t zx, size_t iw, size_t zw)
{
    onx_value *zxv = onx_in(im, n, zx);
    if (zxv != NULL && zxv->c != NULL && zxv->c->count != 1)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "a per-channel input zero point"), NULL;
    double mx, mw;
    wnn_operand *x = centered(im, n, ix, zx, 1, &mx), *w = x ? centered(im, n, iw, zw, 0, &mw) : NULL;
    if (w == NULL)
        return NULL;
    wnn_operand_desc wd = onx_desc_of(w);
    uint32_t window = 1, channels = wd.shape[1];
    for (uint32_t i = 2; i < wd.rank; i++)
        window *= wd.shape[i];
    double per = floor(EXACT_SUM / (mx * mw * window));
    if (per >= channels)
        return add_exact(im, NULL, onx_conv_of(im, n, x, w));
    if (per < 1 || onx_attr_int(n, "group", 1) != 1)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "a window of %u x %u channels can pass 2^24 in float32, "
                        "and only ungrouped convolutions are split by channel", window, channels), NULL;
    wnn_operand *acc = NULL;
    for (uint32_t c0 = 0; c0 < channels; c0 += (uint32_t)per) {
        uint32_t len = channels - c0 < (uint32_t)per ? channels - c0 : (uint32_t)per;
        acc = add_exact(im, acc, onx_conv_of(im, n, slice_axis(im, x, 1, c0, len), slice_axis(im, w, 1, c0, len)));
    }
    return acc;
}

static wnn_status out_or_fail(onx_importer *im, const Onnx__NodeProto *n, wnn_operand *y)
{
    if (y == NULL && im->status != WNN_OK)
        return im->status;
    return onx_out(im, n, 0, y);
}

static wnn_status lower_matmul_integer(onx_importer *im, const Onnx__NodeProto *n)
{
    return out_or_fail(im, n, int_matmul(im, n, 0, 2, 1, 3));
}

static wnn_status lower_conv_integer(onx_importer *im, const Onnx__NodeProto *n)
{
    return out_or_fail(im, n, int_conv(im, n, 0, 2, 1, 3));
}

/* y = saturate(roundEven(float(acc) * (sa * sb / sy)) + zy); sb may run
** along axis (per output channel or column). */
static wnn_operand *requantize(onx_importer *im, const Onnx__NodeProto *n, wnn_operand *acc, size_t sa, size_t sb,
                               uint32_t axis, size_t sy, size_t zy)
{
    wnn_graph_builder *b = im->b;
    if (acc == NULL)
        return NULL;
    uint32_t r = onx_desc_of(acc).rank;
    wnn_operand *as = onx_in_op(im, n, sa), *bs = onx_in_op(im, n, sb), *ys = onx_in_op(im, n, sy);
    wnn_operand *yz = onx_in_op(im, n, zy);
    if (as == NULL || bs == NULL || ys == NULL || yz == NULL)
        return NULL;
    wnn_operand *m = wnn_div(b, wnn_mul(b, as, along(im, bs, r, axis)), ys);
    wnn_operand_desc zd = onx_desc_of(yz);
    wnn_operand *one = onx_scalar(im, WNN_DATA_TYPE_FLOAT32, 1.0);
    if (zd.rank > 0 && one != NULL) /* quantizeLinear takes scale and zero point of one shape */
        one = wnn_expand(b, one, zd.rank, zd.shape);
    return wnn_quantize_linear(b, wnn_mul(b, wnn_cast(b, acc, WNN_DATA_TYPE_FLOAT32), m), one, yz);
}

/* QLinearMatMul: a, a_scale, a_zero_point, b, b_scale, b_zero_point,
** y_scale, y_zero_point. */
static wnn_status lower_qlinear_matmul(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_operand *acc = int_matmul(im, n, 0, 2, 3, 5);
    uint32_t r = acc ? onx_desc_of(acc).rank : 0;
    return out_or_fail(im, n, requantize(im, n, acc, 1, 4, r ? r - 1 : 0, 6, 7));
}

/* QLinearConv: x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale,
** y_zero_point, B (int32, optional). */
static wnn_status lower_qlinear_conv(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_operand *acc = int_conv(im, n, 0, 2, 3, 5);
    if (acc != NULL && onx_in(im, n, 8) != NULL) {
        wnn_operand *bias = onx_in_op(im, n, 8);
        acc = bias ? wnn_add(im->b, acc, along(im, bias, onx_desc_of(acc).rank, 1)) : NULL;
    }
    return out_or_fail(im, n, requantize(im, n, acc, 1, 4, 1, 6, 7));
}

const onx_op_entry onx_ops_integer[] = {
    {"MatMulInteger", lower_matmul_integer},
    {"ConvInteger", lower_conv_integer},
    {"QLinearMatMul", lower_qlinear_matmul},
    {"QLinearConv", lower_qlinear_conv},
    {NULL, NULL},
};
