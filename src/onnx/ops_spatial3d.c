/*
** ops_spatial3d.c -- 3-D Conv, ConvTranspose, MaxPool and AveragePool on
** WebNN's 2-D operators. The depth axis moves next to the batch ([N, C, D,
** H, W] -> [N, D, C, H, W]) so that depth slices are 2-D images; then
**   conv:      sum over the kernel depth kd of conv2d(the input's depths
**              o * stride + kd * dilation, the filter's slice kd);
**   transpose: each input depth's convTranspose2d with filter slice kd lands
**              on output depth i * stride + kd * dilation: zeros inserted
**              between depths (pad, reshape), shifted by padding, summed;
**   pooling:   the 2-D pool over height and width of every depth, then the
**              max or the sum over the depth window (an average divides by
**              the window's count of real depths: excluded padding makes the
**              count a product of a depth count and a height-width count).
** Then back to [N, C, D, H, W]. Exact up to float summation order.
*/
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "onnx_internal.h"

static const uint32_t TO_DEPTH_FIRST[5] = {0, 2, 1, 3, 4}; /* its own inverse */

typedef struct geom3 {
    uint32_t kernel[3], strides[3], dilations[3];
    uint32_t begin[3], end[3]; /* padding per axis (depth, height, width) */
    uint32_t out_pad[3];       /* ConvTranspose's output_padding */
    char auto_pad[16];
} geom3;

/* Strides, dilations and pads of a 3-D operator with input sizes in[3]. */
static wnn_status read_geom(onx_importer *im, const Onnx__NodeProto *n, const uint32_t *in, const uint32_t *kernel,
                            bool transpose, geom3 *g)
{
    static const char *const names[3] = {"strides", "dilations", "output_padding"};
    memset(g, 0, sizeof *g);
    for (int i = 0; i < 3; i++) {
        g->kernel[i] = kernel[i];
        g->strides[i] = g->dilations[i] = 1;
    }
    for (int a = 0; a < 3; a++) {
        uint32_t *to = a == 0 ? g->strides : a == 1 ? g->dilations : g->out_pad;
        int64_t v[8];
        int c = onx_attr_ints(n, names[a], v, 8);
        for (int i = 0; i < 3 && i < c; i++) {
            if (v[i] < (a < 2 ? 1 : 0) || v[i] > 65535)
                return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "%s[%d] is %lld", names[a], i, (long long)v[i]);
            to[i] = (uint32_t)v[i];
        }
    }
    if (kernel[0] == 0 || kernel[1] == 0 || kernel[2] == 0)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "the kernel has an empty axis");
    int64_t v[8];
    int c;
    onx_attr_string(n, "auto_pad", "NOTSET", g->auto_pad, sizeof g->auto_pad);
    bool same = strncmp(g->auto_pad, "SAME_", 5) == 0, upper = strcmp(g->auto_pad, "SAME_UPPER") == 0;
    if (!same && strcmp(g->auto_pad, "NOTSET") != 0 && strcmp(g->auto_pad, "VALID") != 0)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "auto_pad '%s' is unknown", g->auto_pad);
    if (strcmp(g->auto_pad, "NOTSET") == 0 && (c = onx_attr_ints(n, "pads", v, 8)) > 0) {
        if (c != 6)
            return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "pads has %d values for 3 axes", c);
        for (int i = 0; i < 3; i++) {
            if (v[i] < 0 || v[3 + i] < 0 || v[i] > INT32_MAX || v[3 + i] > INT32_MAX)
                return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "pads must be 0 to 2^31-1");
            g->begin[i] = (uint32_t)v[i];
            g->end[i] = (uint32_t)v[3 + i];
        }
    }
    int64_t os[8];
    int nos = transpose ? onx_attr_ints(n, "output_shape", os, 8) : -1;
    if (!same && nos <= 0)
        return WNN_OK;
    for (int i = 0; i < 3; i++) {
        int64_t eff = (int64_t)(g->kernel[i] - 1) * g->dilations[i] + 1, total;
        if (transpose) {
            int64_t want = nos > 0 ? os[i + (nos == 5 ? 2 : 0)] : (int64_t)in[i] * g->strides[i];
            total = (int64_t)g->strides[i] * (in[i] - 1) + g->out_pad[i] + eff - want;
            if (total < 0) { /* a longer output than the kernel reaches: zeros at the end */
                g->out_pad[i] += (uint32_t)-total;
                total = 0;
            }
        } else {
            int64_t out = ((int64_t)in[i] + g->strides[i] - 1) / g->strides[i];
            total = (out - 1) * g->strides[i] + eff - in[i];
            if (total < 0)
                total = 0;
        }
        g->begin[i] = (uint32_t)(upper ? total / 2 : total - total / 2);
        g->end[i] = (uint32_t)(total - g->begin[i]);
    }
    return WNN_OK;
}

/* Depths start, start + step, ... (count of them) of a depth-first operand. */
static wnn_operand *depths(onx_importer *im, wnn_operand *x, uint32_t start, uint32_t count, uint32_t step)
{
    wnn_operand_desc d = onx_desc_of(x);
    uint32_t starts[5] = {0, start, 0, 0, 0}, sizes[5], strides[5] = {1, step, 1, 1, 1};
    memcpy(sizes, d.shape, sizeof sizes);
    sizes[1] = (count - 1) * step + 1;
    return wnn_slice(im->b, x, starts, sizes, strides);
}

/* [N, D, C, H, W] -> [N * D, C, H, W], and back with the 2-D result. */
static wnn_operand *fold_depth(onx_importer *im, wnn_operand *x)
{
    wnn_operand_desc d = onx_desc_of(x);
    uint32_t s[4] = {d.shape[0] * d.shape[1], d.shape[2], d.shape[3], d.shape[4]};
    return x ? wnn_reshape(im->b, x, 4, s) : NULL;
}

static wnn_operand *unfold_depth(onx_importer *im, wnn_operand *y, uint32_t batch)
{
    wnn_operand_desc d = onx_desc_of(y);
    uint32_t s[5] = {batch, d.shape[0] / batch, d.shape[1], d.shape[2], d.shape[3]};
    return y ? wnn_reshape(im->b, y, 5, s) : NULL;
}

/* The filter's depth slice kd as a 2-D filter. */
static wnn_operand *filter_slice(onx_importer *im, wnn_operand *w, uint32_t kd)
{
    wnn_operand_desc d = onx_desc_of(w);
    uint32_t starts[5] = {0, 0, kd, 0, 0}, sizes[5], s[4] = {d.shape[0], d.shape[1], d.shape[3], d.shape[4]};
    memcpy(sizes, d.shape, sizeof sizes);
    sizes[2] = 1;
    return wnn_reshape(im->b, wnn_slice(im->b, w, starts, sizes, NULL), 4, s);
}

static wnn_operand *add_bias(onx_importer *im, wnn_operand *y, wnn_operand *bias)
{
    if (bias == NULL || y == NULL)
        return y;
    uint32_t s[5] = {1, onx_desc_of(bias).shape[0], 1, 1, 1};
    return wnn_add(im->b, y, wnn_reshape(im->b, bias, 5, s));
}

static wnn_status conv3d(onx_importer *im, const Onnx__NodeProto *n, wnn_operand *x, wnn_operand *w,
                         wnn_operand *bias, const geom3 *g)
{
    wnn_graph_builder *b = im->b;
    wnn_operand_desc xd = onx_desc_of(x);
    int64_t padded = (int64_t)xd.shape[2] + g->begin[0] + g->end[0];
    int64_t reach = (int64_t)(g->kernel[0] - 1) * g->dilations[0] + 1;
    if (padded < reach)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "the kernel's depth %lld exceeds the padded input's %lld",
                        (long long)reach, (long long)padded);
    uint32_t out = (uint32_t)((padded - reach) / g->strides[0] + 1);
    if (g->begin[0] || g->end[0]) {
        uint32_t begin[5] = {0, 0, g->begin[0], 0, 0}, end[5] = {0, 0, g->end[0], 0, 0};
        x = wnn_pad(b, x, begin, end, NULL);
    }
    wnn_operand *xt = wnn_transpose(b, x, TO_DEPTH_FIRST), *sum = NULL;
    wnn_conv2d_options o = WNN_CONV2D_OPTIONS_INIT;
    uint32_t padding[4] = {g->begin[1], g->end[1], g->begin[2], g->end[2]};
    memcpy(o.padding, padding, sizeof padding);
    memcpy(o.strides, g->strides + 1, sizeof o.strides);
    memcpy(o.dilations, g->dilations + 1, sizeof o.dilations);
    o.groups = (uint32_t)onx_attr_int(n, "group", 1);
    for (uint32_t kd = 0; kd < g->kernel[0] && xt != NULL; kd++) {
        o.bias = kd == 0 ? bias : NULL;
        wnn_operand *xs = fold_depth(im, depths(im, xt, kd * g->dilations[0], out, g->strides[0]));
        wnn_operand *y = wnn_conv2d(b, xs, filter_slice(im, w, kd), &o);
        sum = sum == NULL ? y : wnn_add(b, sum, y);
    }
    wnn_operand *y = unfold_depth(im, sum, xd.shape[0]);
    return onx_out(im, n, 0, y ? wnn_transpose(b, y, TO_DEPTH_FIRST) : NULL);
}

static wnn_status conv_transpose3d(onx_importer *im, const Onnx__NodeProto *n, wnn_operand *x, wnn_operand *w,
                                   wnn_operand *bias, const geom3 *g)
{
    wnn_graph_builder *b = im->b;
    wnn_operand_desc xd = onx_desc_of(x);
    uint32_t batch = xd.shape[0], depth = xd.shape[2];
    uint32_t spread = (depth - 1) * g->strides[0] + 1; /* input depths with zeros between */
    int64_t full = (int64_t)spread + (int64_t)(g->kernel[0] - 1) * g->dilations[0] + g->out_pad[0];
    int64_t out = full - g->begin[0] - g->end[0];
    if (out < 1 || full > INT32_MAX)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "the output depth would be %lld", (long long)out);
    wnn_operand *xs = fold_depth(im, wnn_transpose(b, x, TO_DEPTH_FIRST)), *sum = NULL;
    wnn_conv_transpose2d_options o = WNN_CONV_TRANSPOSE2D_OPTIONS_INIT;
    uint32_t padding[4] = {g->begin[1], g->end[1], g->begin[2], g->end[2]};
    memcpy(o.padding, padding, sizeof padding);
    memcpy(o.strides, g->strides + 1, sizeof o.strides);
    memcpy(o.dilations, g->dilations + 1, sizeof o.dilations);
    memcpy(o.output_padding, g->out_pad + 1, sizeof o.output_padding);
    o.groups = (uint32_t)onx_attr_int(n, "group", 1);
    uint32_t plane = 0, shape2[3] = {0};
    for (uint32_t kd = 0; kd < g->kernel[0] && xs != NULL; kd++) {
        wnn_operand *y = wnn_conv_transpose2d(b, xs, filter_slice(im, w, kd), &o);
        if (y == NULL)
            break;
        wnn_operand_desc yd = onx_desc_of(y); /* [N * D, M, Ho, Wo] */
        memcpy(shape2, yd.shape + 1, sizeof shape2);
        plane = yd.shape[1] * yd.shape[2] * yd.shape[3];
        uint32_t s4[4] = {batch, depth, 1, plane}, s3[3] = {batch, depth * g->strides[0], plane};
        y = wnn_reshape(b, y, 4, s4);
        if (g->strides[0] > 1) { /* stride - 1 zero depths after each */
            uint32_t begin[4] = {0}, end[4] = {0, 0, g->strides[0] - 1, 0};
            y = wnn_pad(b, y, begin, end, NULL);
        }
        y = wnn_reshape(b, y, 3, s3);
        uint32_t starts[3] = {0}, sizes[3] = {batch, spread, plane};
        y = wnn_slice(b, y, starts, sizes, NULL);
        uint32_t shift = kd * g->dilations[0];
        uint32_t begin[3] = {0, shift, 0}, end[3] = {0, (uint32_t)full - spread - shift, 0};
        y = wnn_pad(b, y, begin, end, NULL);
        sum = sum == NULL ? y : wnn_add(b, sum, y);
    }
    if (sum == NULL)
        return onx_out(im, n, 0, NULL);
    uint32_t starts[3] = {0, g->begin[0], 0}, sizes[3] = {batch, (uint32_t)out, plane};
    uint32_t s5[5] = {batch, (uint32_t)out, shape2[0], shape2[1], shape2[2]};
    wnn_operand *y = wnn_reshape(b, wnn_slice(b, sum, starts, sizes, NULL), 5, s5);
    return onx_out(im, n, 0, add_bias(im, y ? wnn_transpose(b, y, TO_DEPTH_FIRST) : NULL, bias));
}

wnn_status onx_lower_conv3d(onx_importer *im, const Onnx__NodeProto *n)
{
    bool transpose = strcmp(n->op_type, "ConvTranspose") == 0;
    wnn_operand *x = onx_in_op(im, n, 0), *w = onx_in_op(im, n, 1);
    if (x == NULL || w == NULL)
        return im->status;
    wnn_operand *bias = onx_in(im, n, 2) ? onx_in_op(im, n, 2) : NULL;
    wnn_operand_desc xd = onx_desc_of(x), wd = onx_desc_of(w);
    if (wd.rank != 5)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "the filter has rank %u, must be 5", wd.rank);
    geom3 g;
    if (read_geom(im, n, xd.shape + 2, wd.shape + 2, transpose, &g) != WNN_OK)
        return im->status;
    return transpose ? conv_transpose3d(im, n, x, w, bias, &g) : conv3d(im, n, x, w, bias, &g);
}

/* The number of real (not padded) depths in each output depth's window, as
** a [1, D, 1, 1, 1] constant of type t. */
static wnn_operand *depth_counts(onx_importer *im, const geom3 *g, uint32_t in, uint32_t out, wnn_data_type t)
{
    int64_t dims[5] = {1, out, 1, 1, 1};
    onx_value v;
    memset(&v, 0, sizeof v);
    v.name = (char *)"depth counts";
    if ((v.c = onx_const_new(t, 5, dims)) == NULL) {
        onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    for (uint32_t o = 0; o < out; o++) {
        uint32_t real = 0;
        for (uint32_t k = 0; k < g->kernel[0]; k++) {
            int64_t at = (int64_t)o * g->strides[0] + (int64_t)k * g->dilations[0] - g->begin[0];
            real += at >= 0 && at < in;
        }
        onx_set_f64(v.c, o, real ? real : 1);
    }
    wnn_operand *op = onx_operand(im, &v);
    onx_const_free(v.c);
    return op;
}

/* The least value of t: padding that never wins a max. */
static double lowest(wnn_data_type t)
{
    switch (t) {
    case WNN_DATA_TYPE_INT8: return INT8_MIN;
    case WNN_DATA_TYPE_INT32: return INT32_MIN;
    case WNN_DATA_TYPE_INT64: return (double)INT64_MIN;
    case WNN_DATA_TYPE_UINT8:
    case WNN_DATA_TYPE_UINT32:
    case WNN_DATA_TYPE_UINT64: return 0;
    default: return -INFINITY;
    }
}

wnn_status onx_lower_pool3d(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_graph_builder *b = im->b;
    bool max = strcmp(n->op_type, "MaxPool") == 0;
    if (!max && strcmp(n->op_type, "AveragePool") != 0)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "3-D %s: only MaxPool and AveragePool are decomposed",
                        n->op_type);
    wnn_operand *x = onx_in_op(im, n, 0);
    if (x == NULL)
        return im->status;
    wnn_operand_desc xd = onx_desc_of(x);
    int64_t ks[8];
    if (onx_attr_ints(n, "kernel_shape", ks, 8) != 3)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "kernel_shape must have 3 values");
    uint32_t kernel[3] = {(uint32_t)ks[0], (uint32_t)ks[1], (uint32_t)ks[2]};
    geom3 g;
    if (read_geom(im, n, xd.shape + 2, kernel, false, &g) != WNN_OK)
        return im->status;
    int64_t padded = (int64_t)xd.shape[2] + g.begin[0] + g.end[0];
    int64_t reach = (int64_t)(g.kernel[0] - 1) * g.dilations[0] + 1;
    if (padded < reach)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "the window's depth %lld exceeds the padded input's %lld",
                        (long long)reach, (long long)padded);
    uint32_t out = (uint32_t)((padded - reach) / g.strides[0] + 1);
    if (onx_attr_int(n, "ceil_mode", 0) != 0 && (padded - reach) % g.strides[0] != 0)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "ceil_mode that adds a partial window in 3-D");
    bool include_pad = !max && onx_attr_int(n, "count_include_pad", 0) != 0;
    wnn_pool2d_options o = WNN_POOL2D_OPTIONS_INIT;
    memcpy(o.window_dimensions, g.kernel + 1, sizeof o.window_dimensions);
    uint32_t padding[4] = {g.begin[1], g.end[1], g.begin[2], g.end[2]};
    memcpy(o.padding, padding, sizeof padding);
    memcpy(o.strides, g.strides + 1, sizeof o.strides);
    memcpy(o.dilations, g.dilations + 1, sizeof o.dilations);
    o.rounding_type = onx_attr_int(n, "ceil_mode", 0) ? WNN_ROUNDING_TYPE_CEIL : WNN_ROUNDING_TYPE_FLOOR;
    /* depth padding never wins a max and adds nothing to a sum */
    uint32_t begin[5] = {0, 0, g.begin[0], 0, 0}, end[5] = {0, 0, g.end[0], 0, 0};
    if (include_pad) { /* every padded element counts: pad all three axes with zeros */
        begin[3] = g.begin[1], end[3] = g.end[1], begin[4] = g.begin[2], end[4] = g.end[2];
        memset(o.padding, 0, sizeof o.padding);
    }
    wnn_pad_options po = WNN_PAD_OPTIONS_INIT;
    po.value = max ? lowest(xd.data_type) : 0.0;
    if (begin[2] || end[2] || begin[3] || end[3] || begin[4] || end[4])
        x = wnn_pad(b, x, begin, end, &po);
    wnn_operand *xt = wnn_transpose(b, x, TO_DEPTH_FIRST);
    wnn_operand *planes = fold_depth(im, xt);
    wnn_operand *p = max ? wnn_max_pool2d(b, planes, &o) : wnn_average_pool2d(b, planes, &o);
    wnn_operand *pooled = unfold_depth(im, p, xd.shape[0]), *acc = NULL;
    for (uint32_t kd = 0; kd < g.kernel[0] && pooled != NULL; kd++) {
        wnn_operand *s = depths(im, pooled, kd * g.dilations[0], out, g.strides[0]);
        acc = acc == NULL ? s : max ? wnn_max(b, acc, s) : wnn_add(b, acc, s);
    }
    if (acc != NULL && !max) {
        wnn_operand *count = include_pad ? onx_scalar(im, xd.data_type, g.kernel[0])
                                         : depth_counts(im, &g, xd.shape[2], out, xd.data_type);
        acc = count ? wnn_div(b, acc, count) : NULL;
    }
    return onx_out(im, n, 0, acc ? wnn_transpose(b, acc, TO_DEPTH_FIRST) : NULL);
}
