/*
** ops_shape.c -- lowering of ONNX's data-movement operators: Reshape,
** Flatten, Squeeze, Unsqueeze, Transpose, Concat, Split, Slice (negative
** steps through reverse), Gather*, Scatter*, Expand, Tile, Pad, Trilu,
** DepthToSpace, SpaceToDepth, and the vanishing Identity and Dropout.
** The shape rules here are shared with the host folder (fold.c).
*/
#include <stdlib.h>
#include <string.h>

#include "onnx_internal.h"

/* axes from the attribute (before axes_opset) or input 1, normalized
** against rank into out; the count, or -1 with the node failed. */
static int node_axes(onx_importer *im, const Onnx__NodeProto *n, int64_t axes_opset, uint32_t rank, int64_t *out)
{
    int64_t a[WNN_MAX_RANK];
    int c;
    if (im->opset >= axes_opset)
        c = onx_in(im, n, 1) ? onx_in_ints(im, n, 1, "axes", a, WNN_MAX_RANK) : -2;
    else
        c = onx_attr_ints(n, "axes", a, WNN_MAX_RANK);
    if (c == -1 && im->status != WNN_OK)
        return -1;
    if (c < 0)
        return -2; /* absent */
    for (int i = 0; i < c; i++) {
        int x = onx_axis(im, a[i], rank);
        if (x < 0)
            return -1;
        out[i] = x;
    }
    return c;
}

int onx_shape_rule(onx_importer *im, const Onnx__NodeProto *n, uint32_t rank, const int64_t *dims, int64_t *out)
{
    const char *op = n->op_type;
    int64_t count = 1;
    for (uint32_t i = 0; i < rank; i++)
        count *= dims[i];
    if (strcmp(op, "Reshape") == 0) {
        int64_t s[WNN_MAX_RANK + 1];
        int c = im->opset < 5 ? onx_attr_ints(n, "shape", s, WNN_MAX_RANK + 1)
                              : onx_in_ints(im, n, 1, "shape", s, WNN_MAX_RANK + 1);
        if (c < 0)
            return -1;
        if (c > (int)WNN_MAX_RANK)
            return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "a rank-%d shape is over WebNN's %d", c, WNN_MAX_RANK), -1;
        bool allowzero = onx_attr_int(n, "allowzero", 0) != 0;
        int infer = -1;
        int64_t known = 1;
        for (int i = 0; i < c; i++) {
            out[i] = s[i] == 0 && !allowzero ? (i < (int)rank ? dims[i] : 0) : s[i];
            if (out[i] == -1) {
                if (infer >= 0)
                    return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "shape has two -1"), -1;
                infer = i;
            } else if (out[i] < 0) {
                return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "shape[%d] is %lld", i, (long long)out[i]), -1;
            } else if (__builtin_mul_overflow(known, out[i], &known)) {
                return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "shape has over 2^63 elements"), -1;
            }
        }
        if (infer >= 0)
            out[infer] = known ? count / known : 0;
        int64_t total = 1;
        for (int i = 0; i < c && total >= 0; i++)
            if (__builtin_mul_overflow(total, out[i], &total))
                total = -1;
        if (total != count)
            return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "shape has %lld elements, the input %lld",
                            (long long)total, (long long)count), -1;
        return c;
    }
    if (strcmp(op, "Flatten") == 0) {
        int64_t axis = onx_attr_int(n, "axis", 1);
        if (axis < 0)
            axis += rank;
        if (axis < 0 || axis > (int64_t)rank)
            return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "axis %lld for rank %u", (long long)axis, rank), -1;
        out[0] = out[1] = 1;
        for (uint32_t i = 0; i < rank; i++)
            out[i < axis ? 0 : 1] *= dims[i];
        return 2;
    }
    int64_t axes[WNN_MAX_RANK];
    if (strcmp(op, "Squeeze") == 0) {
        int c = node_axes(im, n, 13, rank, axes);
        if (c == -1)
            return -1;
        int r = 0;
        for (uint32_t i = 0; i < rank; i++) {
            bool drop = false;
            for (int k = 0; k < c; k++)
                drop = drop || axes[k] == i;
            if (c < 0)
                drop = dims[i] == 1;
            else if (drop && dims[i] != 1)
                return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "axis %u has size %lld, not 1", i,
                                (long long)dims[i]), -1;
            if (!drop)
                out[r++] = dims[i];
        }
        return r;
    }
    /* Unsqueeze: axes index the output */
    int64_t a[WNN_MAX_RANK];
    int c = im->opset >= 13 ? onx_in_ints(im, n, 1, "axes", a, WNN_MAX_RANK)
                            : onx_attr_ints(n, "axes", a, WNN_MAX_RANK);
    if (c < 0)
        return c == -1 && im->status ? -1 : (onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "axes missing"), -1);
    uint32_t r = rank + (uint32_t)c;
    if (r > WNN_MAX_RANK)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "rank %u is over WebNN's %d", r, WNN_MAX_RANK), -1;
    bool ones[WNN_MAX_RANK] = {false};
    for (int k = 0; k < c; k++) {
        int x = onx_axis(im, a[k], r);
        if (x < 0)
            return -1;
        if (ones[x])
            return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "axis %lld is named twice", (long long)a[k]), -1;
        ones[x] = true;
    }
    for (uint32_t i = 0, j = 0; i < r; i++)
        out[i] = ones[i] ? 1 : dims[j++];
    return (int)r;
}

static wnn_status lower_shape_rule(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_operand *x = onx_in_op(im, n, 0);
    if (x == NULL)
        return im->status;
    wnn_operand_desc d = onx_desc_of(x);
    int64_t in[WNN_MAX_RANK], out[WNN_MAX_RANK];
    for (uint32_t i = 0; i < d.rank; i++)
        in[i] = d.shape[i];
    int r = onx_shape_rule(im, n, d.rank, in, out);
    if (r < 0)
        return im->status;
    uint32_t s[WNN_MAX_RANK];
    for (int i = 0; i < r; i++)
        s[i] = (uint32_t)out[i];
    return onx_out(im, n, 0, wnn_reshape(im->b, x, (uint32_t)r, s));
}

static wnn_status lower_identity(onx_importer *im, const Onnx__NodeProto *n)
{
    onx_value *v = onx_in(im, n, 0);
    if (v == NULL)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "input 0 is missing");
    if (strcmp(n->op_type, "Dropout") == 0) {
        onx_value *mode = onx_in(im, n, 2), *ratio = onx_in(im, n, 1);
        bool training = mode != NULL && (mode->c == NULL || (mode->c->count && onx_get_i64(mode->c, 0) != 0));
        bool keeps_all = ratio != NULL && ratio->c != NULL && ratio->c->count == 1 && onx_get_f64(ratio->c, 0) == 0;
        if (training && !keeps_all) /* a ratio of 0 drops nothing: the identity even in training */
            return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "training-mode Dropout is random: not inference");
        if (n->n_output > 1 && n->output[1] && n->output[1][0]) { /* the mask: every element kept */
            int64_t dims[WNN_MAX_RANK];
            uint32_t rank;
            wnn_data_type t;
            onx_value_desc(v, &t, &rank, dims);
            onx_const *mask = onx_const_new(WNN_DATA_TYPE_UINT8, rank, dims);
            for (size_t i = 0; mask != NULL && i < mask->count; i++)
                ((uint8_t *)mask->data)[i] = 1;
            wnn_status st = onx_out_const(im, n, 1, mask);
            if (st != WNN_OK)
                return st;
        }
    }
    if (v->c != NULL && v->op == NULL) /* stays a host constant */
        return onx_out_const(im, n, 0, onx_const_copy(v->c));
    /* no operator: the output names the same operand */
    return onx_out(im, n, 0, onx_operand(im, v));
}

static wnn_status lower_transpose(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_operand *x = onx_in_op(im, n, 0);
    if (x == NULL)
        return im->status;
    int64_t p[WNN_MAX_RANK];
    int c = onx_attr_ints(n, "perm", p, WNN_MAX_RANK);
    if (c < 0)
        return onx_out(im, n, 0, wnn_transpose(im->b, x, NULL));
    uint32_t perm[WNN_MAX_RANK];
    for (int i = 0; i < c && i < (int)WNN_MAX_RANK; i++)
        perm[i] = (uint32_t)p[i];
    return onx_out(im, n, 0, wnn_transpose(im->b, x, perm));
}

static wnn_status lower_concat(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_operand **xs = calloc(n->n_input ? n->n_input : 1, sizeof *xs);
    if (xs == NULL)
        return onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory");
    size_t k = 0;
    uint32_t rank = 0;
    for (size_t i = 0; i < n->n_input; i++) {
        onx_value *v = onx_in(im, n, i);
        if (v == NULL)
            continue;
        if (v->c != NULL && v->c->count == 0 && v->op == NULL)
            continue; /* an empty piece adds nothing */
        if ((xs[k] = onx_operand(im, v)) == NULL) {
            free(xs);
            return im->status;
        }
        rank = onx_desc_of(xs[k++]).rank;
    }
    int axis = onx_axis(im, onx_attr_int(n, "axis", im->opset < 4 ? 1 : 0), rank);
    wnn_status st = axis < 0 ? im->status
                   : k == 1  ? onx_out(im, n, 0, wnn_identity(im->b, xs[0]))
                             : onx_out(im, n, 0, wnn_concat(im->b, xs, k, (uint32_t)axis));
    free(xs);
    return st;
}

static wnn_status lower_split(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_operand *x = onx_in_op(im, n, 0);
    if (x == NULL)
        return im->status;
    wnn_operand_desc d = onx_desc_of(x);
    int axis = onx_axis(im, onx_attr_int(n, "axis", 0), d.rank);
    if (axis < 0)
        return im->status;
    size_t outs = n->n_output;
    int64_t split[64];
    int c;
    if (im->opset >= 13)
        c = onx_in(im, n, 1) ? onx_in_ints(im, n, 1, "split", split, 64) : -2;
    else
        c = onx_attr_ints(n, "split", split, 64);
    if (c == -1 && im->status != WNN_OK)
        return im->status;
    uint32_t sizes[64];
    if (outs > 64)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "more than 64 outputs");
    if (outs == 0)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "no outputs to split into");
    uint32_t dim = d.shape[axis];
    if (c >= 0) {
        if ((size_t)c != outs)
            return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "split has %d sizes for %zu outputs", c, outs);
        for (int i = 0; i < c; i++) {
            if (split[i] <= 0)
                return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "an empty piece (split[%d] is %lld): WebNN has no "
                                "empty tensors", i, (long long)split[i]);
            sizes[i] = (uint32_t)split[i];
        }
    } else {
        /* equal pieces; with num_outputs (opset 18) the last may be smaller */
        uint32_t piece = (uint32_t)((dim + outs - 1) / outs);
        for (size_t i = 0; i < outs; i++) {
            uint32_t left = dim - (uint32_t)(i * piece);
            sizes[i] = left < piece ? left : piece;
        }
    }
    wnn_operand *ys[64];
    wnn_split_options o = {.axis = (uint32_t)axis};
    if (wnn_split_sizes(im->b, x, sizes, outs, &o, ys) != outs)
        return onx_builder_failed(im);
    for (size_t i = 0; i < outs; i++) {
        wnn_status st = onx_out(im, n, i, ys[i]);
        if (st != WNN_OK)
            return st;
    }
    return WNN_OK;
}

int onx_slice_rule(onx_importer *im, const Onnx__NodeProto *n, uint32_t rank, const int64_t *dims, onx_slice *s)
{
    int64_t starts[WNN_MAX_RANK], ends[WNN_MAX_RANK], axes[WNN_MAX_RANK], steps[WNN_MAX_RANK];
    int c, ce, ca = -1, cs = -1;
    if (im->opset < 10) {
        c = onx_attr_ints(n, "starts", starts, WNN_MAX_RANK);
        ce = onx_attr_ints(n, "ends", ends, WNN_MAX_RANK);
        ca = onx_attr_ints(n, "axes", axes, WNN_MAX_RANK);
    } else {
        if ((c = onx_in_ints(im, n, 1, "starts", starts, WNN_MAX_RANK)) < 0 ||
            (ce = onx_in_ints(im, n, 2, "ends", ends, WNN_MAX_RANK)) < 0)
            return -1;
        if (onx_in(im, n, 3) && (ca = onx_in_ints(im, n, 3, "axes", axes, WNN_MAX_RANK)) < 0)
            return -1;
        if (onx_in(im, n, 4) && (cs = onx_in_ints(im, n, 4, "steps", steps, WNN_MAX_RANK)) < 0)
            return -1;
    }
    if (c < 0 || c != ce || (ca >= 0 && ca != c) || (cs >= 0 && cs != c))
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "starts, ends, axes and steps differ in length"), -1;
    for (uint32_t i = 0; i < rank; i++) {
        s->start[i] = 0;
        s->step[i] = 1;
        s->count[i] = dims[i];
    }
    for (int k = 0; k < c; k++) {
        int a = ca >= 0 ? onx_axis(im, axes[k], rank) : k;
        if (a < 0)
            return -1;
        int64_t dim = dims[a], step = cs >= 0 ? steps[k] : 1, b = starts[k], e = ends[k];
        if (step == 0)
            return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "step 0"), -1;
        /* a step longer than the axis takes one element, as the axis's length does */
        int64_t longest = dim > 0 ? dim : 1;
        step = step > longest ? longest : step < -longest ? -longest : step;
        if (b < 0)
            b += dim;
        if (e < 0 && e > INT64_MIN / 2)
            e += dim;
        int64_t count;
        if (step > 0) {
            b = b < 0 ? 0 : b > dim ? dim : b;
            e = e < 0 ? 0 : e > dim ? dim : e;
            count = e > b ? (e - b - 1) / step + 1 : 0;
        } else {
            b = b < 0 ? -1 : b > dim - 1 ? dim - 1 : b;
            e = e < -1 ? -1 : e > dim - 1 ? dim - 1 : e;
            count = b > e ? (b - e - 1) / -step + 1 : 0;
        }
        s->start[a] = b;
        s->step[a] = step;
        s->count[a] = count;
    }
    return 0;
}

static wnn_status lower_slice(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_operand *x = onx_in_op(im, n, 0);
    if (x == NULL)
        return im->status;
    wnn_operand_desc d = onx_desc_of(x);
    int64_t dims[WNN_MAX_RANK] = {0};
    for (uint32_t i = 0; i < d.rank; i++)
        dims[i] = d.shape[i];
    onx_slice s;
    if (onx_slice_rule(im, n, d.rank, dims, &s) < 0)
        return im->status;
    uint32_t starts[WNN_MAX_RANK], sizes[WNN_MAX_RANK], strides[WNN_MAX_RANK];
    uint32_t reversed[WNN_MAX_RANK];
    wnn_reverse_options ro = {.axes = reversed};
    for (uint32_t i = 0; i < d.rank; i++) {
        if (s.count[i] == 0)
            return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "the slice of axis %u is empty: WebNN has no empty "
                            "tensors", i);
        int64_t start = s.start[i], step = s.step[i];
        if (step < 0) { /* walk the reversed axis forwards */
            reversed[ro.axes_count++] = i;
            start = dims[i] - 1 - start;
            step = -step;
        }
        starts[i] = (uint32_t)start;
        strides[i] = (uint32_t)step;
        sizes[i] = (uint32_t)((s.count[i] - 1) * step + 1);
    }
    if (ro.axes_count > 0)
        x = wnn_reverse(im->b, x, &ro);
    return onx_out(im, n, 0, wnn_slice(im->b, x, starts, sizes, strides));
}

/* GatherND with batch_dims b: the batch dimensions flattened to one of B,
** each index tuple prefixed with its batch number (an iota), then gatherND
** over [B, ...] and the batch dimensions restored. */
static wnn_operand *gather_nd(onx_importer *im, const Onnx__NodeProto *n, wnn_operand *x, wnn_operand *idx)
{
    wnn_graph_builder *b = im->b;
    int64_t bd = onx_attr_int(n, "batch_dims", 0);
    wnn_operand_desc d = onx_desc_of(x), id = onx_desc_of(idx);
    if (bd == 0)
        return wnn_gather_nd(b, x, idx);
    if (bd < 0 || bd >= (int64_t)d.rank || bd >= (int64_t)id.rank ||
        id.shape[id.rank - 1] + (uint64_t)bd > d.rank) {
        onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "batch_dims %lld for data of rank %u and indices of rank %u",
                 (long long)bd, d.rank, id.rank);
        return NULL;
    }
    uint32_t batch = 1, points = 1, tuple = id.shape[id.rank - 1];
    for (uint32_t i = 0; i < (uint32_t)bd; i++) {
        if (d.shape[i] != id.shape[i]) {
            onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "batch dimension %u is %u in the data, %u in the indices", i,
                     d.shape[i], id.shape[i]);
            return NULL;
        }
        batch *= d.shape[i];
    }
    for (uint32_t i = (uint32_t)bd; i + 1 < id.rank; i++)
        points *= id.shape[i];
    uint32_t ds[WNN_MAX_RANK], is[3] = {batch, points, tuple}, ones[3] = {batch, points, 1}, r = 0;
    ds[r++] = batch;
    for (uint32_t i = (uint32_t)bd; i < d.rank; i++)
        ds[r++] = d.shape[i];
    int64_t *iota = malloc(batch * sizeof *iota);
    if (iota == NULL) {
        onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    for (uint32_t i = 0; i < batch; i++)
        iota[i] = i;
    wnn_operand_desc od = {WNN_DATA_TYPE_INT64, 3, {batch, 1, 1}};
    wnn_operand *numbers = wnn_graph_builder_constant(b, &od, iota, batch * sizeof *iota);
    free(iota);
    wnn_operand *parts[2] = {wnn_expand(b, numbers, 3, ones),
                             wnn_reshape(b, wnn_cast(b, idx, WNN_DATA_TYPE_INT64), 3, is)};
    wnn_operand *y = wnn_gather_nd(b, wnn_reshape(b, x, r, ds), wnn_concat(b, parts, 2, 2));
    uint32_t ys[WNN_MAX_RANK], yr = 0;
    for (uint32_t i = 0; i + 1 < id.rank; i++)
        ys[yr++] = id.shape[i];
    for (uint32_t i = (uint32_t)bd + tuple; i < d.rank && yr < WNN_MAX_RANK; i++)
        ys[yr++] = d.shape[i];
    return y ? wnn_reshape(b, y, yr, ys) : NULL;
}

static wnn_status lower_gather(onx_importer *im, const Onnx__NodeProto *n)
{
    const char *op = n->op_type;
    wnn_operand *x = onx_in_op(im, n, 0), *idx = onx_in_op(im, n, 1);
    if (x == NULL || idx == NULL)
        return im->status;
    wnn_operand_desc d = onx_desc_of(x);
    if (strcmp(op, "GatherND") == 0)
        return onx_out(im, n, 0, gather_nd(im, n, x, idx));
    int axis = onx_axis(im, onx_attr_int(n, "axis", 0), d.rank);
    if (axis < 0)
        return im->status;
    wnn_gather_options o = {.axis = (uint32_t)axis};
    return onx_out(im, n, 0, strcmp(op, "Gather") == 0 ? wnn_gather(im->b, x, idx, &o)
                                                       : wnn_gather_elements(im->b, x, idx, &o));
}

static wnn_status lower_scatter(onx_importer *im, const Onnx__NodeProto *n)
{
    char red[16];
    onx_attr_string(n, "reduction", "none", red, sizeof red);
    if (strcmp(red, "none") != 0)
        return onx_lower_scatter_reduced(im, n, red);
    wnn_operand *x = onx_in_op(im, n, 0), *idx = onx_in_op(im, n, 1), *upd = onx_in_op(im, n, 2);
    if (x == NULL || idx == NULL || upd == NULL)
        return im->status;
    if (strcmp(n->op_type, "ScatterND") == 0)
        return onx_out(im, n, 0, wnn_scatter_nd(im->b, x, idx, upd));
    int axis = onx_axis(im, onx_attr_int(n, "axis", 0), onx_desc_of(x).rank);
    if (axis < 0)
        return im->status;
    wnn_scatter_options o = {.axis = (uint32_t)axis};
    return onx_out(im, n, 0, wnn_scatter_elements(im->b, x, idx, upd, &o));
}

static wnn_status lower_expand(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_operand *x = onx_in_op(im, n, 0);
    int64_t s[WNN_MAX_RANK];
    int c = x ? onx_in_ints(im, n, 1, "shape", s, WNN_MAX_RANK) : -1;
    if (c < 0)
        return im->status;
    wnn_operand_desc d = onx_desc_of(x);
    /* ONNX broadcasts both ways: the output is the broadcast of both shapes */
    uint32_t r = (uint32_t)c > d.rank ? (uint32_t)c : d.rank, out[WNN_MAX_RANK];
    for (uint32_t i = 0; i < r; i++) {
        int64_t a = i + d.rank >= r ? d.shape[i + d.rank - r] : 1;
        int64_t b = i + (uint32_t)c >= r ? s[i + (uint32_t)c - r] : 1;
        if (a != b && a != 1 && b != 1)
            return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "shape does not broadcast with the input");
        if (b <= 0 && a != 1)
            b = a;
        out[i] = (uint32_t)(a == 1 ? b : a);
        if (out[i] == 0)
            return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "an empty result: WebNN has no empty tensors");
    }
    return onx_out(im, n, 0, wnn_expand(im->b, x, r, out));
}

static wnn_status lower_tile(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_operand *x = onx_in_op(im, n, 0);
    int64_t rep[WNN_MAX_RANK];
    int c = x ? onx_in_ints(im, n, 1, "repeats", rep, WNN_MAX_RANK) : -1;
    if (c < 0)
        return im->status;
    uint32_t r[WNN_MAX_RANK];
    for (int i = 0; i < c; i++) {
        if (rep[i] <= 0)
            return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "repeats[%d] is %lld: WebNN has no empty tensors", i,
                            (long long)rep[i]);
        r[i] = (uint32_t)rep[i];
    }
    return onx_out(im, n, 0, wnn_tile(im->b, x, r));
}

static wnn_status lower_pad(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_operand *x = onx_in_op(im, n, 0);
    if (x == NULL)
        return im->status;
    wnn_operand_desc d = onx_desc_of(x);
    int64_t pads[2 * WNN_MAX_RANK];
    int c;
    double value = 0;
    if (im->opset < 11) {
        c = onx_attr_ints(n, im->opset < 2 ? "paddings" : "pads", pads, 2 * WNN_MAX_RANK);
        value = onx_attr_float(n, "value", 0.0f);
    } else {
        c = onx_in_ints(im, n, 1, "pads", pads, 2 * WNN_MAX_RANK);
        if (c < 0)
            return im->status;
        onx_value *cv = onx_in(im, n, 2);
        if (cv != NULL) {
            if (cv->c == NULL)
                return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "constant_value must be a constant");
            value = cv->c->count ? onx_get_f64(cv->c, 0) : 0;
        }
    }
    /* opset 18 axes: pads name only those axes */
    int64_t axes[WNN_MAX_RANK];
    int ca = im->opset >= 18 && onx_in(im, n, 3) ? onx_in_ints(im, n, 3, "axes", axes, WNN_MAX_RANK) : -2;
    if (ca == -1)
        return im->status;
    uint32_t k = ca >= 0 ? (uint32_t)ca : d.rank;
    if (c != (int)(2 * k))
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "pads has %d values for %u axes", c, k);
    uint32_t begin[WNN_MAX_RANK] = {0}, end[WNN_MAX_RANK] = {0};
    for (uint32_t i = 0; i < k; i++) {
        int a = ca >= 0 ? onx_axis(im, axes[i], d.rank) : (int)i;
        if (a < 0)
            return im->status;
        if (pads[i] < 0 || pads[k + i] < 0)
            return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "negative pads (cropping) are not supported");
        begin[a] = (uint32_t)pads[i];
        end[a] = (uint32_t)pads[k + i];
    }
    char mode[16];
    onx_attr_string(n, "mode", "constant", mode, sizeof mode);
    wnn_pad_options o = {.mode = WNN_PAD_MODE_CONSTANT, .value = value};
    if (strcmp(mode, "edge") == 0)
        o.mode = WNN_PAD_MODE_EDGE;
    else if (strcmp(mode, "reflect") == 0)
        o.mode = WNN_PAD_MODE_REFLECTION;
    else if (strcmp(mode, "constant") != 0)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "mode '%s' has no WebNN pad equivalent", mode);
    return onx_out(im, n, 0, wnn_pad(im->b, x, begin, end, &o));
}

static wnn_status lower_trilu(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_operand *x = onx_in_op(im, n, 0);
    if (x == NULL)
        return im->status;
    int64_t k = 0;
    if (onx_in(im, n, 1) != NULL && onx_in_ints(im, n, 1, "k", &k, 1) != 1)
        return im->status ? im->status : onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "k must be one value");
    if (k > INT32_MAX || k < INT32_MIN)
        k = k > 0 ? INT32_MAX : INT32_MIN;
    wnn_triangular_options o = {.lower = onx_attr_int(n, "upper", 1) == 0, .diagonal = (int32_t)k};
    return onx_out(im, n, 0, wnn_triangular(im->b, x, &o));
}

/* DepthToSpace and SpaceToDepth: reshape to rank 6, transpose, reshape. */
static wnn_status lower_depth_space(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_operand *x = onx_in_op(im, n, 0);
    if (x == NULL)
        return im->status;
    wnn_operand_desc d = onx_desc_of(x);
    if (d.rank != 4)
        return onx_fail(im, WNN_STATUS_INVALID_RANK, "input rank %u, must be 4", d.rank);
    int64_t block = onx_attr_int(n, "blocksize", 1);
    bool to_space = strcmp(n->op_type, "DepthToSpace") == 0;
    /* checked before any product: a fuzzed 2^31 block squared to 0 as uint32 */
    if (block < 1 || block > 65535)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "blocksize %lld is not in [1, 65535]", (long long)block);
    uint32_t bs = (uint32_t)block, N = d.shape[0], C = d.shape[1], H = d.shape[2], W = d.shape[3];
    if (to_space ? C % (bs * bs) != 0 || (uint64_t)H * bs > INT32_MAX || (uint64_t)W * bs > INT32_MAX
                 : H % bs != 0 || W % bs != 0 || (uint64_t)C * bs * bs > INT32_MAX)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "blocksize %u does not fit the input [%u, %u, %u, %u]", bs, N,
                        C, H, W);
    char mode[8];
    onx_attr_string(n, "mode", "DCR", mode, sizeof mode);
    uint32_t s6[6], perm[6], s4[4];
    if (to_space) {
        uint32_t c = C / (bs * bs);
        if (strcmp(mode, "CRD") == 0) {
            uint32_t a[6] = {N, c, bs, bs, H, W}, p[6] = {0, 1, 4, 2, 5, 3};
            memcpy(s6, a, sizeof a), memcpy(perm, p, sizeof p);
        } else {
            uint32_t a[6] = {N, bs, bs, c, H, W}, p[6] = {0, 3, 4, 1, 5, 2};
            memcpy(s6, a, sizeof a), memcpy(perm, p, sizeof p);
        }
        uint32_t o[4] = {N, c, H * bs, W * bs};
        memcpy(s4, o, sizeof o);
    } else {
        uint32_t a[6] = {N, C, H / bs, bs, W / bs, bs}, p[6] = {0, 3, 5, 1, 2, 4};
        memcpy(s6, a, sizeof a), memcpy(perm, p, sizeof p);
        uint32_t o[4] = {N, C * bs * bs, H / bs, W / bs};
        memcpy(s4, o, sizeof o);
    }
    wnn_operand *y = wnn_reshape(im->b, wnn_transpose(im->b, wnn_reshape(im->b, x, 6, s6), perm), 4, s4);
    return onx_out(im, n, 0, y);
}

/* Operators evaluated only on constants reach here when an input is not. */
static wnn_status lower_needs_constants(onx_importer *im, const Onnx__NodeProto *n)
{
    /* values bound through constant_inputs count here */
    bool known = true;
    for (size_t i = 0; i < n->n_input; i++) {
        onx_value *v = onx_in(im, n, i);
        known = known && (v == NULL || v->c != NULL);
    }
    onx_lower_fn fold = onx_find_folding(n->op_type);
    if (known && fold != NULL) {
        wnn_status st = fold(im, n);
        if (st != (wnn_status)-1)
            return st;
    }
    return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "its inputs must be constants (it is evaluated at import: "
                    "WebNN graphs have static shapes)");
}

const onx_op_entry onx_ops_shape[] = {
    {"Reshape", lower_shape_rule},   {"Flatten", lower_shape_rule},   {"Squeeze", lower_shape_rule},
    {"Unsqueeze", lower_shape_rule}, {"Identity", lower_identity},    {"Dropout", lower_identity},
    {"Transpose", lower_transpose},  {"Concat", lower_concat},        {"Split", lower_split},
    {"Slice", lower_slice},          {"Gather", lower_gather},        {"GatherElements", lower_gather},
    {"GatherND", lower_gather},      {"ScatterElements", lower_scatter}, {"Scatter", lower_scatter},
    {"ScatterND", lower_scatter},    {"Expand", lower_expand},        {"Tile", lower_tile},
    {"Pad", lower_pad},              {"Trilu", lower_trilu},          {"DepthToSpace", lower_depth_space},
    {"SpaceToDepth", lower_depth_space}, {"ConstantOfShape", lower_needs_constants},
    {"Range", lower_needs_constants}, {"Constant", lower_needs_constants},
    {"HannWindow", lower_needs_constants}, {"HammingWindow", lower_needs_constants},
    {"BlackmanWindow", lower_needs_constants},
    {NULL, NULL},
};
