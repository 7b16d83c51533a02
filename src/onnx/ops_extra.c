/*
** ops_extra.c -- ONNX operators WebNN has no single operator for, by
** decomposition: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss
** (gatherElements and reductions), Mod, Hardmax and OneHot (argMax
** or indices compared with an iota), TopK (ranks from pairwise
** comparisons), MaxUnpool (a scatter into zeros), ReverseSequence (a
** gather with computed indices), scatters with a reduction (selection
** masks reduced), Det (pivoted elimination unrolled), LRN (a channel window as an average
** pool), DynamicQuantizeLinear (min/max reductions and quantizeLinear).
** The recurrent operators are in ops_recurrent.c, Einsum in ops_einsum.c.
*/
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_internal.h"

static wnn_reduce_options reduce_all(void)
{
    wnn_reduce_options o = WNN_REDUCE_OPTIONS_INIT;
    return o; /* no axes: every axis, no dimensions kept */
}

/* [d] int64 0..d-1 shaped [1, .., d (at axis), .., 1] of rank r. */
/* The longest iota built (128 MiB of int64): vocabularies and class counts
** are far below, and a fuzzed 2^31-element axis must not allocate 16 GiB. */
#define ONX_IOTA_MAX (1u << 24)

static wnn_operand *iota(onx_importer *im, uint32_t d, uint32_t axis, uint32_t r)
{
    if (d > ONX_IOTA_MAX)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "an index constant of %u elements (int64) is over the %u "
                        "this decomposition builds", d, ONX_IOTA_MAX), NULL;
    int64_t *v = malloc(d * sizeof *v);
    if (v == NULL)
        return onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory"), NULL;
    for (uint32_t i = 0; i < d; i++)
        v[i] = i;
    wnn_operand_desc od = {WNN_DATA_TYPE_INT64, r, {0}};
    for (uint32_t i = 0; i < r; i++)
        od.shape[i] = i == axis ? d : 1;
    wnn_operand *c = wnn_graph_builder_constant(im->b, &od, v, d * sizeof *v);
    free(v);
    return c;
}

/* The loss of NLL from log-probabilities x [N, C, ...] and targets [N, ...]:
** -x[n, t, ...] * weight[t], 0 where t is ignore_index, then reduced. */
static wnn_operand *nll(onx_importer *im, const Onnx__NodeProto *n, wnn_operand *x, wnn_operand *t,
                        wnn_operand *weight)
{
    wnn_graph_builder *b = im->b;
    wnn_operand_desc xd = onx_desc_of(x), td = onx_desc_of(t);
    if (x == NULL || t == NULL)
        return NULL;
    if (td.data_type != WNN_DATA_TYPE_INT64)
        t = wnn_cast(b, t, WNN_DATA_TYPE_INT64);
    const Onnx__AttributeProto *ii = onx_attr(n, "ignore_index");
    wnn_operand *mask = NULL;
    if (ii != NULL) {
        mask = wnn_not_equal(b, t, wnn_graph_builder_constant_scalar_int64(b, WNN_DATA_TYPE_INT64, ii->i));
        t = wnn_where(b, mask, t, wnn_graph_builder_constant_scalar_int64(b, WNN_DATA_TYPE_INT64, 0));
    }
    uint32_t s[WNN_MAX_RANK] = {td.shape[0], 1};
    for (uint32_t i = 1; i < td.rank; i++)
        s[i + 1] = td.shape[i];
    wnn_gather_options go = {.axis = 1};
    wnn_operand *picked = wnn_gather_elements(b, x, wnn_reshape(b, t, td.rank + 1, s), &go);
    picked = wnn_reshape(b, picked, td.rank, td.shape);
    wnn_operand *w = NULL;
    if (weight != NULL) {
        wnn_gather_options g0 = {0};
        w = wnn_gather(b, weight, t, &g0);
    }
    if (mask != NULL) {
        wnn_operand *m = wnn_cast(b, mask, xd.data_type);
        w = w ? wnn_mul(b, w, m) : m;
    }
    wnn_operand *loss = wnn_neg(b, w ? wnn_mul(b, picked, w) : picked);
    char red[16];
    onx_attr_string(n, "reduction", "mean", red, sizeof red);
    wnn_reduce_options all = reduce_all();
    if (strcmp(red, "none") == 0)
        return loss;
    if (strcmp(red, "sum") == 0)
        return wnn_reduce_sum(b, loss, &all);
    if (w == NULL)
        return wnn_reduce_mean(b, loss, &all);
    return wnn_div(b, wnn_reduce_sum(b, loss, &all), wnn_reduce_sum(b, w, &all));
}

static wnn_status lower_nll(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_operand *w = onx_in(im, n, 2) ? onx_in_op(im, n, 2) : NULL;
    return onx_out(im, n, 0, nll(im, n, onx_in_op(im, n, 0), onx_in_op(im, n, 1), w));
}

static wnn_status lower_softmax_ce(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_graph_builder *b = im->b;
    wnn_operand *x = onx_in_op(im, n, 0);
    if (x == NULL)
        return im->status;
    /* log-softmax along the class axis: x - max - log(sum(exp(x - max))) */
    static const uint32_t class_axis = 1;
    wnn_reduce_options o = {.axes = &class_axis, .axes_count = 1, .keep_dimensions = true};
    wnn_operand *shifted = wnn_sub(b, x, wnn_reduce_max(b, x, &o));
    wnn_operand *logp = wnn_sub(b, shifted, wnn_log(b, wnn_reduce_sum(b, wnn_exp(b, shifted), &o)));
    wnn_operand *w = onx_in(im, n, 2) ? onx_in_op(im, n, 2) : NULL;
    wnn_status st = onx_out(im, n, 0, nll(im, n, logp, onx_in_op(im, n, 1), w));
    if (st == WNN_OK && n->n_output > 1)
        st = onx_out(im, n, 1, logp);
    return st;
}

/* Floats (ONNX requires fmod): x - trunc(x / y) * y. Integers: wnn's
** integer div truncates toward zero, so x - (x / y) * y is C's remainder
** (fmod=1) exactly, wrapping arithmetic included; fmod=0 takes the divisor's
** sign, adding y where a non-zero remainder's sign differs from it. */
static wnn_status lower_mod(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_graph_builder *b = im->b;
    wnn_operand *x = onx_in_op(im, n, 0), *y = onx_in_op(im, n, 1);
    if (x == NULL || y == NULL)
        return im->status;
    wnn_data_type t = onx_desc_of(x).data_type;
    wnn_operand *q = wnn_div(b, x, y), *zero = onx_scalar(im, t, 0.0);
    if (t == WNN_DATA_TYPE_FLOAT32 || t == WNN_DATA_TYPE_FLOAT16) {
        wnn_operand *trunc = wnn_where(b, wnn_lesser(b, q, zero), wnn_ceil(b, q), wnn_floor(b, q));
        return onx_out(im, n, 0, wnn_sub(b, x, wnn_mul(b, trunc, y)));
    }
    wnn_operand *r = wnn_sub(b, x, wnn_mul(b, q, y));
    bool is_unsigned = t == WNN_DATA_TYPE_UINT8 || t == WNN_DATA_TYPE_UINT32 || t == WNN_DATA_TYPE_UINT64 ||
                       t == WNN_DATA_TYPE_UINT4;
    if (onx_attr_int(n, "fmod", 0) != 0 || is_unsigned)
        return onx_out(im, n, 0, r);
    wnn_operand *differ = wnn_not_equal(b, wnn_lesser(b, r, zero), wnn_lesser(b, y, zero));
    wnn_operand *fix = wnn_logical_and(b, differ, wnn_not_equal(b, r, zero));
    return onx_out(im, n, 0, wnn_where(b, fix, wnn_add(b, r, y), r));
}

/* TopK by ranks, WebNN having no sort: element i's rank along the axis is
** the number of elements ahead of it (greater, or less for smallest; or
** equal at a lower index, ONNX's tie rule), so the elements of ranks 0 to
** k-1 are the answer in order. Every pair of a row is compared: rows are
** transposed to the end and at most TOPK_MAX_PAIRS pairs are made in all. */
#define TOPK_MAX_PAIRS ((uint64_t)1 << 24)

static wnn_status lower_topk(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_graph_builder *b = im->b;
    wnn_operand *x = onx_in_op(im, n, 0);
    if (x == NULL)
        return im->status;
    wnn_operand_desc d = onx_desc_of(x);
    int64_t k = onx_attr_int(n, "k", -1);
    if (im->opset >= 10 && onx_in_ints(im, n, 1, "K", &k, 1) != 1)
        return im->status != WNN_OK ? im->status : onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "K must be one value");
    int axis = onx_axis(im, onx_attr_int(n, "axis", -1), d.rank);
    if (axis < 0)
        return im->status;
    uint32_t len = d.shape[axis], r = d.rank;
    if (k < 1 || k > len)
        return onx_fail(im, k == 0 ? WNN_STATUS_NOT_SUPPORTED : WNN_STATUS_INVALID_ARGUMENT,
                        "k is %lld for an axis of %u%s", (long long)k, len, k == 0 ? ": WebNN has no empty tensors" : "");
    uint64_t rows = 1;
    for (uint32_t i = 0; i < r; i++)
        rows *= i == (uint32_t)axis ? 1 : d.shape[i];
    if (rows * len * len > TOPK_MAX_PAIRS)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "%llu rows of %u: TopK compares every pair of a row "
                        "(WebNN has no sort), at most %llu pairs", (unsigned long long)rows, len,
                        (unsigned long long)TOPK_MAX_PAIRS);
    uint32_t perm[WNN_MAX_RANK], inv[WNN_MAX_RANK], moved[WNN_MAX_RANK];
    for (uint32_t i = 0, j = 0; i < r; i++)
        if (i != (uint32_t)axis)
            perm[j++] = i;
    perm[r - 1] = (uint32_t)axis;
    for (uint32_t i = 0; i < r; i++) {
        inv[perm[i]] = i;
        moved[i] = d.shape[perm[i]];
    }
    bool last = (uint32_t)axis == r - 1;
    wnn_operand *xt = last ? x : wnn_transpose(b, x, perm);
    uint32_t s2[2] = {(uint32_t)rows, len}, si[3] = {(uint32_t)rows, len, 1}, sj[3] = {(uint32_t)rows, 1, len};
    wnn_operand *xm = wnn_reshape(b, xt, 2, s2), *xi = wnn_reshape(b, xm, 3, si), *xj = wnn_reshape(b, xm, 3, sj);
    uint8_t *lower = malloc((size_t)len * len);
    if (lower == NULL)
        return onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory");
    for (uint32_t i = 0; i < len; i++)
        for (uint32_t j = 0; j < len; j++)
            lower[(size_t)i * len + j] = j < i;
    wnn_operand_desc ld = {WNN_DATA_TYPE_UINT8, 3, {1, len, len}};
    wnn_operand *earlier = wnn_graph_builder_constant(b, &ld, lower, (size_t)len * len);
    free(lower);
    bool largest = onx_attr_int(n, "largest", 1) != 0;
    wnn_operand *ahead = wnn_logical_or(b, largest ? wnn_greater(b, xj, xi) : wnn_lesser(b, xj, xi),
                                        wnn_logical_and(b, wnn_equal(b, xj, xi), earlier));
    uint32_t axis2 = 2, axis1 = 1;
    wnn_reduce_options ro = {.axes = &axis2, .axes_count = 1, .keep_dimensions = true};
    wnn_operand *rank = wnn_reduce_sum(b, wnn_cast(b, ahead, WNN_DATA_TYPE_INT64), &ro); /* [rows, len, 1] */
    wnn_operand *hit = wnn_equal(b, rank, iota(im, (uint32_t)k, 2, 3));                  /* [rows, len, k] */
    ro.axes = &axis1;
    ro.keep_dimensions = false;
    wnn_operand *idx = wnn_reduce_sum(b, wnn_where(b, hit, iota(im, len, 1, 3), onx_scalar(im, WNN_DATA_TYPE_INT64, 0)),
                                      &ro);                                               /* [rows, k] */
    wnn_gather_options go = {.axis = 1};
    wnn_operand *vals = wnn_gather_elements(b, xm, idx, &go);
    moved[r - 1] = (uint32_t)k;
    wnn_operand *outs[2] = {wnn_reshape(b, vals, r, moved), wnn_reshape(b, idx, r, moved)};
    for (int i = 0; i < 2; i++) {
        if (!last && outs[i] != NULL)
            outs[i] = wnn_transpose(b, outs[i], inv);
        wnn_status st = onx_out(im, n, (size_t)i, outs[i]);
        if (st != WNN_OK)
            return st;
    }
    return WNN_OK;
}

/* MaxUnpool: zeros of the pooling's input shape (the inverse of its size
** rule) with X scattered at I, ONNX's flat indices into that whole tensor;
** a larger output_shape pads the end of each axis with zeros (as ONNX's
** test data and ONNX Runtime place it). */
static wnn_status lower_max_unpool(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_graph_builder *b = im->b;
    wnn_operand *x = onx_in_op(im, n, 0), *idx = onx_in_op(im, n, 1);
    if (x == NULL || idx == NULL)
        return im->status;
    wnn_operand_desc d = onx_desc_of(x), id = onx_desc_of(idx);
    if (d.rank < 3 || id.rank != d.rank || memcmp(id.shape, d.shape, d.rank * sizeof *d.shape) != 0)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "X (rank %u) and I must share a shape of rank 3 or more",
                        d.rank);
    int64_t out[WNN_MAX_RANK], want[WNN_MAX_RANK], ks[WNN_MAX_RANK], st[WNN_MAX_RANK], pads[2 * WNN_MAX_RANK] = {0};
    uint32_t k = d.rank - 2;
    if (onx_attr_ints(n, "kernel_shape", ks, WNN_MAX_RANK) != (int)k)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "kernel_shape must have %u values", k);
    int ns = onx_attr_ints(n, "strides", st, WNN_MAX_RANK), np = onx_attr_ints(n, "pads", pads, 2 * WNN_MAX_RANK);
    if (np > 0 && np != (int)(2 * k))
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "pads has %d values for %u axes", np, k);
    out[0] = d.shape[0];
    out[1] = d.shape[1];
    for (uint32_t i = 0; i < k; i++)
        out[2 + i] = ((int64_t)d.shape[2 + i] - 1) * (ns > (int)i ? st[i] : 1) - pads[i] - pads[k + i] + ks[i];
    memcpy(want, out, sizeof want);
    if (onx_in(im, n, 2) != NULL && onx_in_ints(im, n, 2, "output_shape", want, WNN_MAX_RANK) != (int)d.rank)
        return im->status != WNN_OK ? im->status
                                    : onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "output_shape must have %u values",
                                               d.rank);
    uint32_t grow[WNN_MAX_RANK], none[WNN_MAX_RANK] = {0};
    bool padded = false;
    for (uint32_t i = 0; i < d.rank; i++) {
        if (want[i] < out[i] || want[i] - out[i] > (int64_t)WNN_MAX_DIMENSION)
            return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "output_shape[%u] %lld is below the pooled input's %lld",
                            i, (long long)want[i], (long long)out[i]);
        grow[i] = (uint32_t)(want[i] - out[i]);
        padded = padded || grow[i] > 0;
    }
    uint64_t total = 1;
    uint32_t shape[WNN_MAX_RANK];
    for (uint32_t i = 0; i < d.rank; i++) {
        if (out[i] < 1 || out[i] > (int64_t)WNN_MAX_DIMENSION)
            return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "output dimension %u would be %lld", i,
                            (long long)out[i]);
        shape[i] = (uint32_t)out[i];
        total *= shape[i];
        if (total > WNN_MAX_DIMENSION)
            return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "an output of over 2^31-1 elements");
    }
    uint32_t count = 1, flat = (uint32_t)total;
    for (uint32_t i = 0; i < d.rank; i++)
        count *= d.shape[i];
    wnn_operand *zeros = wnn_expand(b, onx_scalar(im, d.data_type, 0.0), 1, &flat);
    wnn_scatter_options so = {.axis = 0};
    wnn_operand *y = wnn_scatter_elements(b, zeros, wnn_reshape(b, idx, 1, &count), wnn_reshape(b, x, 1, &count),
                                          &so);
    y = y ? wnn_reshape(b, y, d.rank, shape) : NULL;
    return onx_out(im, n, 0, y && padded ? wnn_pad(b, y, none, grow, NULL) : y);
}

/* Scatter with a reduction (WebNN's scatters replace): the data as [P, R],
** the updates as [M, R], each update's flat position pos[m] in P; then
** E = (pos == iota P) [M, P] selects, and reduceSum, reduceProduct,
** reduceMax or reduceMin over M of where(E, update, neutral) combines every
** update of a position, duplicates included, before it meets the data.
** ScatterElements has R = 1 and positions from its indices along the axis
** and iotas along the other axes; ScatterND's index tuples are linearized. */
#define SCATTER_MAX_ELEMENTS ((uint64_t)1 << 26)

static double type_limit(wnn_data_type t, bool high)
{
    switch (t) {
    case WNN_DATA_TYPE_INT8: return high ? INT8_MAX : INT8_MIN;
    case WNN_DATA_TYPE_UINT8: return high ? UINT8_MAX : 0;
    case WNN_DATA_TYPE_INT32: return high ? INT32_MAX : INT32_MIN;
    case WNN_DATA_TYPE_UINT32: return high ? UINT32_MAX : 0;
    case WNN_DATA_TYPE_INT64: return high ? (double)INT64_MAX : (double)INT64_MIN;
    case WNN_DATA_TYPE_UINT64: return high ? (double)UINT64_MAX : 0;
    default: return high ? INFINITY : -INFINITY;
    }
}

/* Indices below 0 count from the end of a dimension of size dim. */
static wnn_operand *wrapped(onx_importer *im, wnn_operand *idx, uint32_t dim)
{
    wnn_graph_builder *b = im->b;
    wnn_operand *i = wnn_cast(b, idx, WNN_DATA_TYPE_INT64), *zero = onx_scalar(im, WNN_DATA_TYPE_INT64, 0);
    return wnn_where(b, wnn_lesser(b, i, zero), wnn_add(b, i, onx_scalar(im, WNN_DATA_TYPE_INT64, dim)), i);
}

wnn_status onx_lower_scatter_reduced(onx_importer *im, const Onnx__NodeProto *n, const char *red)
{
    wnn_graph_builder *b = im->b;
    wnn_operand *x = onx_in_op(im, n, 0), *idx = onx_in_op(im, n, 1), *upd = onx_in_op(im, n, 2);
    if (x == NULL || idx == NULL || upd == NULL)
        return im->status;
    wnn_operand_desc d = onx_desc_of(x), id = onx_desc_of(idx);
    bool add = strcmp(red, "add") == 0, mul = strcmp(red, "mul") == 0, max = strcmp(red, "max") == 0;
    if (!add && !mul && !max && strcmp(red, "min") != 0)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "reduction '%s' is unknown", red);
    uint64_t p = 1, r = 1, m = 1;
    wnn_operand *pos = NULL;
    if (strcmp(n->op_type, "ScatterND") == 0) {
        uint32_t k = id.rank ? id.shape[id.rank - 1] : 0;
        if (id.rank < 1 || k < 1 || k > d.rank)
            return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "index tuples of %u for data of rank %u", k, d.rank);
        for (uint32_t i = 0; i < d.rank; i++)
            *(i < k ? &p : &r) *= d.shape[i];
        for (uint32_t i = 0; i + 1 < id.rank; i++)
            m *= id.shape[i];
        for (uint32_t j = 0, stride = (uint32_t)p; j < k; j++) {
            stride /= d.shape[j];
            uint32_t starts[WNN_MAX_RANK] = {0}, sizes[WNN_MAX_RANK];
            memcpy(sizes, id.shape, sizeof sizes);
            starts[id.rank - 1] = j;
            sizes[id.rank - 1] = 1;
            wnn_operand *c = wrapped(im, wnn_slice(b, idx, starts, sizes, NULL), d.shape[j]);
            c = wnn_mul(b, c, onx_scalar(im, WNN_DATA_TYPE_INT64, stride));
            pos = pos == NULL ? c : wnn_add(b, pos, c);
        }
    } else {
        int axis = onx_axis(im, onx_attr_int(n, "axis", 0), d.rank);
        if (axis < 0)
            return im->status;
        if (id.rank != d.rank)
            return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "indices of rank %u for data of rank %u", id.rank, d.rank);
        for (uint32_t i = 0, stride = 1; i < d.rank; i++) {
            uint32_t a = d.rank - 1 - i;
            wnn_operand *c = a == (uint32_t)axis ? wrapped(im, idx, d.shape[a]) : iota(im, id.shape[a], a, d.rank);
            c = wnn_mul(b, c, onx_scalar(im, WNN_DATA_TYPE_INT64, stride));
            pos = pos == NULL ? c : wnn_add(b, pos, c);
            stride *= d.shape[a];
            p *= d.shape[a];
            m *= id.shape[a];
        }
    }
    if (m * p * r > SCATTER_MAX_ELEMENTS)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "%llu updates of %llu positions: the reduction compares every "
                        "pair (WebNN scatters replace only), at most %llu elements", (unsigned long long)m,
                        (unsigned long long)p, (unsigned long long)SCATTER_MAX_ELEMENTS);
    uint32_t sm[2] = {(uint32_t)m, 1}, sp[3] = {(uint32_t)m, (uint32_t)p, 1}, su[3] = {(uint32_t)m, 1, (uint32_t)r};
    uint32_t sx[2] = {(uint32_t)p, (uint32_t)r}, zero = 0;
    wnn_operand *hits = wnn_equal(b, wnn_reshape(b, pos, 2, sm), iota(im, (uint32_t)p, 1, 2)); /* [M, P] */
    wnn_operand *sel = wnn_reshape(b, hits, 3, sp), *vals = wnn_reshape(b, upd, 3, su);
    double neutral = add ? 0 : mul ? 1 : type_limit(d.data_type, !max);
    wnn_operand *masked = wnn_where(b, sel, vals, onx_scalar(im, d.data_type, neutral));
    wnn_reduce_options ro = {.axes = &zero, .axes_count = 1};
    wnn_operand *xs = wnn_reshape(b, x, 2, sx), *y;
    if (add) {
        y = wnn_add(b, xs, wnn_reduce_sum(b, masked, &ro));
    } else if (mul) {
        y = wnn_mul(b, xs, wnn_reduce_product(b, masked, &ro));
    } else {
        wnn_operand *c = max ? wnn_reduce_max(b, masked, &ro) : wnn_reduce_min(b, masked, &ro);
        uint32_t sh[2] = {(uint32_t)p, 1};
        wnn_operand *any = wnn_reshape(b, wnn_reduce_max(b, hits, &ro), 2, sh);
        y = wnn_where(b, any, max ? wnn_max(b, xs, c) : wnn_min(b, xs, c), xs);
    }
    return onx_out(im, n, 0, y ? wnn_reshape(b, y, d.rank, d.shape) : NULL);
}

/* Det of [..., n, n]: Gaussian elimination with partial pivoting unrolled
** over the n columns (at most DET_MAX_N): at step k the row of the largest
** |A[i, k]|, i >= k, is swapped into row k (gatherElements with a computed
** permutation, the sign flipped when it moves), the rows below lose their
** multiple of row k, and the pivots' product times the sign is the
** determinant. A zero pivot (a singular matrix) divides by 1 instead and
** leaves a factor of 0. */
#define DET_MAX_N 64

static wnn_status lower_det(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_graph_builder *b = im->b;
    wnn_operand *x = onx_in_op(im, n, 0);
    if (x == NULL)
        return im->status;
    wnn_operand_desc d = onx_desc_of(x);
    if (d.rank < 2 || d.shape[d.rank - 1] != d.shape[d.rank - 2] || !onx_type_is_float(d.data_type))
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "Det takes float [..., n, n]");
    uint32_t dim = d.shape[d.rank - 1], batch = 1;
    if (dim > DET_MAX_N)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "a %u x %u matrix: the elimination is unrolled up to %d", dim,
                        dim, DET_MAX_N);
    for (uint32_t i = 0; i + 2 < d.rank; i++)
        batch *= d.shape[i];
    wnn_data_type t = d.data_type;
    uint32_t s3[3] = {batch, dim, dim}, s2[2] = {batch, dim}, s1[2] = {batch, 1};
    wnn_operand *a = wnn_reshape(b, x, 3, s3), *det = NULL;
    wnn_operand *rows = iota(im, dim, 1, 2); /* [1, n] */
    wnn_operand *zero = onx_scalar(im, t, 0.0), *one = onx_scalar(im, t, 1.0);
    for (uint32_t k = 0; k < dim && a != NULL; k++) {
        uint32_t cs[3] = {0, k, k}, cz[3] = {batch, dim - k, 1};
        wnn_operand *col = wnn_reshape(b, wnn_slice(b, a, cs, cz, NULL), 2, (uint32_t[]){batch, dim - k});
        wnn_arg_min_max_options ao = {.keep_dimensions = true, .output_data_type = WNN_DATA_TYPE_INT64};
        wnn_operand *p = wnn_add(b, wnn_arg_max(b, wnn_abs(b, col), 1, &ao), onx_scalar(im, WNN_DATA_TYPE_INT64, k));
        wnn_operand *kk = onx_scalar(im, WNN_DATA_TYPE_INT64, k);
        /* the row permutation swapping k and p, [B, n] */
        wnn_operand *perm = wnn_where(b, wnn_equal(b, rows, kk), p,
                                      wnn_where(b, wnn_equal(b, rows, p), kk, rows));
        perm = wnn_expand(b, wnn_reshape(b, wnn_expand(b, perm, 2, s2), 3, (uint32_t[]){batch, dim, 1}), 3, s3);
        wnn_gather_options go = {.axis = 1};
        a = wnn_gather_elements(b, a, perm, &go);
        wnn_operand *flip = wnn_where(b, wnn_equal(b, p, kk), one, onx_scalar(im, t, -1.0)); /* [B, 1] */
        uint32_t ps[3] = {0, k, k}, pz[3] = {batch, 1, 1};
        wnn_operand *pivot = wnn_reshape(b, wnn_slice(b, a, ps, pz, NULL), 2, s1);
        wnn_operand *factor = wnn_mul(b, flip, pivot);
        det = det == NULL ? factor : wnn_mul(b, det, factor);
        if (k + 1 == dim)
            break;
        wnn_operand *safe = wnn_where(b, wnn_equal(b, pivot, zero), one, pivot);
        uint32_t ks[3] = {0, 0, k}, kz[3] = {batch, dim, 1}, rs[3] = {0, k, 0}, rz[3] = {batch, 1, dim};
        wnn_operand *below = wnn_cast(b, wnn_greater(b, rows, kk), t); /* [1, n]: rows after k */
        wnn_operand *f = wnn_mul(b, wnn_div(b, wnn_reshape(b, wnn_slice(b, a, ks, kz, NULL), 2, s2), safe), below);
        a = wnn_sub(b, a, wnn_mul(b, wnn_reshape(b, f, 3, (uint32_t[]){batch, dim, 1}), wnn_slice(b, a, rs, rz, NULL)));
    }
    uint32_t out[WNN_MAX_RANK];
    for (uint32_t i = 0; i + 2 < d.rank; i++)
        out[i] = d.shape[i];
    return onx_out(im, n, 0, det ? wnn_reshape(b, det, d.rank - 2, out) : NULL);
}

/* ReverseSequence: gatherElements along the time axis with indices
** t < len[b] ? len[b] - 1 - t : t, computed in the graph from the lengths. */
static wnn_status lower_reverse_sequence(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_graph_builder *b = im->b;
    wnn_operand *x = onx_in_op(im, n, 0), *lens = onx_in_op(im, n, 1);
    if (x == NULL || lens == NULL)
        return im->status;
    wnn_operand_desc d = onx_desc_of(x), ld = onx_desc_of(lens);
    int64_t ta = onx_attr_int(n, "time_axis", 0), ba = onx_attr_int(n, "batch_axis", 1);
    if (d.rank < 2 || (ta != 0 && ta != 1) || ba != 1 - ta || ld.rank != 1 || ld.shape[0] != d.shape[ba])
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "time_axis %lld and batch_axis %lld (0 and 1) over rank %u, "
                        "sequence_lens of the batch's size", (long long)ta, (long long)ba, d.rank);
    uint32_t s[WNN_MAX_RANK];
    for (uint32_t i = 0; i < d.rank; i++)
        s[i] = i == (uint32_t)ba ? d.shape[ba] : 1;
    wnn_operand *len = wnn_reshape(b, wnn_cast(b, lens, WNN_DATA_TYPE_INT64), d.rank, s);
    wnn_operand *t = iota(im, d.shape[ta], (uint32_t)ta, d.rank), *one = onx_scalar(im, WNN_DATA_TYPE_INT64, 1);
    wnn_operand *idx = wnn_where(b, wnn_lesser(b, t, len), wnn_sub(b, wnn_sub(b, len, one), t), t);
    wnn_gather_options go = {.axis = (uint32_t)ta};
    return onx_out(im, n, 0, wnn_gather_elements(b, x, wnn_expand(b, idx, d.rank, d.shape), &go));
}

static wnn_status lower_hardmax(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_graph_builder *b = im->b;
    wnn_operand *x = onx_in_op(im, n, 0);
    if (x == NULL)
        return im->status;
    wnn_operand_desc d = onx_desc_of(x);
    bool legacy = im->opset < 13;
    int axis = onx_axis(im, onx_attr_int(n, "axis", legacy ? 1 : -1), d.rank);
    if (axis < 0)
        return im->status;
    wnn_operand *in = x;
    uint32_t ax = (uint32_t)axis, r = d.rank, dim = d.shape[axis];
    if (legacy && (uint32_t)axis != d.rank - 1) {
        uint32_t s[2] = {1, 1};
        for (uint32_t i = 0; i < d.rank; i++)
            s[i < (uint32_t)axis ? 0 : 1] *= d.shape[i];
        in = wnn_reshape(b, x, 2, s);
        ax = 1, r = 2, dim = s[1];
    }
    wnn_arg_min_max_options o = {.keep_dimensions = true, .output_data_type = WNN_DATA_TYPE_INT64};
    wnn_operand *y = wnn_cast(b, wnn_equal(b, iota(im, dim, ax, r), wnn_arg_max(b, in, ax, &o)), d.data_type);
    if (y != NULL && in != x)
        y = wnn_reshape(b, y, d.rank, d.shape);
    return onx_out(im, n, 0, y);
}

static wnn_status lower_one_hot(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_graph_builder *b = im->b;
    wnn_operand *idx = onx_in_op(im, n, 0);
    const onx_const *depth_c = onx_in_const(im, n, 1, "depth"), *values = onx_in_const(im, n, 2, "values");
    if (idx == NULL || depth_c == NULL || values == NULL)
        return im->status;
    if (depth_c->count != 1 || values->count != 2)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "depth must be one value and values two");
    int64_t depth = onx_get_i64(depth_c, 0);
    wnn_operand_desc d = onx_desc_of(idx);
    uint64_t elements = depth <= 0 ? 0 : depth > INT32_MAX ? (uint64_t)INT32_MAX + 1 : (uint64_t)depth;
    for (uint32_t i = 0; i < d.rank && elements <= INT32_MAX; i++)
        elements *= d.shape[i] ? d.shape[i] : 1;
    if (depth <= 0 || d.rank + 1 > WNN_MAX_RANK || depth > INT32_MAX || elements > INT32_MAX)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "depth %lld for rank %u: the output is over WebNN's limits "
                        "(rank 8, 2^31-1 elements)", (long long)depth, d.rank + 1);
    int axis = onx_axis(im, onx_attr_int(n, "axis", -1), d.rank + 1);
    if (axis < 0)
        return im->status;
    if (d.data_type != WNN_DATA_TYPE_INT64)
        idx = wnn_cast(b, idx, WNN_DATA_TYPE_INT64);
    /* negative indices count from the end */
    wnn_operand *dep = wnn_graph_builder_constant_scalar_int64(b, WNN_DATA_TYPE_INT64, depth);
    idx = wnn_where(b, wnn_lesser(b, idx, wnn_graph_builder_constant_scalar_int64(b, WNN_DATA_TYPE_INT64, 0)),
                    wnn_add(b, idx, dep), idx);
    uint32_t s[WNN_MAX_RANK];
    for (uint32_t i = 0, j = 0; i <= d.rank; i++)
        s[i] = i == (uint32_t)axis ? 1 : d.shape[j++];
    wnn_operand *hit = wnn_equal(b, wnn_reshape(b, idx, d.rank + 1, s), iota(im, (uint32_t)depth, (uint32_t)axis,
                                                                            d.rank + 1));
    wnn_operand *off = wnn_graph_builder_constant_scalar(b, values->type, onx_get_f64(values, 0));
    wnn_operand *on = wnn_graph_builder_constant_scalar(b, values->type, onx_get_f64(values, 1));
    return onx_out(im, n, 0, wnn_where(b, hit, on, off));
}

/* x / (bias + alpha / size * sum of squares over a channel window)^beta */
static wnn_status lower_lrn(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_graph_builder *b = im->b;
    wnn_operand *x = onx_in_op(im, n, 0);
    if (x == NULL)
        return im->status;
    wnn_operand_desc d = onx_desc_of(x);
    if (d.rank < 3)
        return onx_fail(im, WNN_STATUS_INVALID_RANK, "input rank %u, needs 3 or more", d.rank);
    uint32_t size = (uint32_t)onx_attr_int(n, "size", 1), spatial = 1;
    for (uint32_t i = 2; i < d.rank; i++)
        spatial *= d.shape[i];
    double alpha = onx_attr_float(n, "alpha", 1e-4f), beta = onx_attr_float(n, "beta", 0.75f),
           bias = onx_attr_float(n, "bias", 1.0f);
    uint32_t s4[4] = {d.shape[0], 1, d.shape[1], spatial};
    wnn_operand *sq = wnn_reshape(b, wnn_mul(b, x, x), 4, s4);
    uint32_t begin[4] = {0, 0, (size - 1) / 2, 0}, end[4] = {0, 0, size - 1 - (size - 1) / 2, 0};
    sq = wnn_pad(b, sq, begin, end, NULL);
    wnn_pool2d_options po = WNN_POOL2D_OPTIONS_INIT;
    po.window_dimensions[0] = size;
    po.window_dimensions[1] = 1;
    wnn_operand *avg = wnn_reshape(b, wnn_average_pool2d(b, sq, &po), d.rank, d.shape);
    /* avg * size * alpha / size = avg * alpha */
    wnn_operand *den = wnn_add(b, wnn_mul(b, avg, onx_scalar(im, d.data_type, alpha)),
                               onx_scalar(im, d.data_type, bias));
    return onx_out(im, n, 0, wnn_div(b, x, wnn_pow(b, den, onx_scalar(im, d.data_type, beta))));
}

/* y_scale = (max(x, 0) - min(x, 0)) / 255, y_zero_point = round(-min /
** scale) clamped to [0, 255], y = quantizeLinear(x, scale, zero point). */
static wnn_status lower_dynamic_quantize(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_graph_builder *b = im->b;
    wnn_operand *x = onx_in_op(im, n, 0);
    if (x == NULL)
        return im->status;
    wnn_data_type t = onx_desc_of(x).data_type;
    wnn_reduce_options all = reduce_all();
    wnn_operand *zero = onx_scalar(im, t, 0.0);
    wnn_operand *lo = wnn_min(b, wnn_reduce_min(b, x, &all), zero), *hi = wnn_max(b, wnn_reduce_max(b, x, &all), zero);
    wnn_operand *scale = wnn_div(b, wnn_sub(b, hi, lo), onx_scalar(im, t, 255.0));
    static const wnn_number zp_lo = {.value = 0.0}, zp_hi = {.value = 255.0};
    wnn_clamp_options co = {.min_value = &zp_lo, .max_value = &zp_hi};
    wnn_operand *zp = wnn_cast(b, wnn_clamp(b, wnn_round_even(b, wnn_div(b, wnn_neg(b, lo), scale)), &co),
                               WNN_DATA_TYPE_UINT8);
    wnn_status st = onx_out(im, n, 0, wnn_quantize_linear(b, x, scale, zp));
    if (st == WNN_OK)
        st = onx_out(im, n, 1, scale);
    if (st == WNN_OK)
        st = onx_out(im, n, 2, zp);
    return st;
}

const onx_op_entry onx_ops_extra[] = {
    {"DynamicQuantizeLinear", lower_dynamic_quantize},
    {"NegativeLogLikelihoodLoss", lower_nll},
    {"SoftmaxCrossEntropyLoss", lower_softmax_ce},
    {"Mod", lower_mod},
    {"Hardmax", lower_hardmax},
    {"TopK", lower_topk},
    {"MaxUnpool", lower_max_unpool},
    {"ReverseSequence", lower_reverse_sequence},
    {"Det", lower_det},
    {"OneHot", lower_one_hot},
    {"LRN", lower_lrn},
    {NULL, NULL},
};
