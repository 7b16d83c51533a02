/*
** fold.c -- a small host evaluator for nodes whose inputs are all known at
** import: Constant, the shape computations exporters emit (Shape, Size,
** ConstantOfShape, Range, Gather/Slice/Concat/Unsqueeze on shapes, integer
** arithmetic, Cast, Where ...). WebNN needs those values as attributes; what
** cannot be folded here is lowered to WebNN like any other node.
** Integers are computed in int64, floats in double.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_internal.h"

#define DECLINE ((wnn_status)-1)
/* Larger tensors are left to the device. */
#define FOLD_MAX_ELEMENTS ((size_t)1 << 20)

static const onx_const *cin(onx_importer *im, const Onnx__NodeProto *n, size_t i)
{
    onx_value *v = onx_in(im, n, i);
    return v ? v->c : NULL;
}

static wnn_status fold_constant(onx_importer *im, const Onnx__NodeProto *n)
{
    const Onnx__AttributeProto *a = n->n_attribute == 1 ? n->attribute[0] : NULL;
    if (a == NULL || a->name == NULL)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "a Constant needs exactly one value attribute");
    onx_const *c = NULL;
    const char *name = a->name;
    if (strcmp(name, "value") == 0 && a->t != NULL) {
        wnn_status st = onx_tensor_decode(a->t, im->base_dir, &c);
        if (st != WNN_OK)
            return onx_fail(im, st, "%s", wnn_onnx_last_error_message());
    } else if (strcmp(name, "value_float") == 0 || strcmp(name, "value_int") == 0) {
        bool f = name[6] == 'f';
        c = onx_const_new(f ? WNN_DATA_TYPE_FLOAT32 : WNN_DATA_TYPE_INT64, 0, NULL);
        if (c != NULL)
            f ? onx_set_f64(c, 0, a->f) : onx_set_i64(c, 0, a->i);
    } else if (strcmp(name, "value_floats") == 0 || strcmp(name, "value_ints") == 0) {
        bool f = name[6] == 'f';
        int64_t dim = (int64_t)(f ? a->n_floats : a->n_ints);
        c = onx_const_new(f ? WNN_DATA_TYPE_FLOAT32 : WNN_DATA_TYPE_INT64, 1, &dim);
        for (int64_t i = 0; c != NULL && i < dim; i++)
            f ? onx_set_f64(c, (size_t)i, a->floats[i]) : onx_set_i64(c, (size_t)i, a->ints[i]);
    } else {
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "a Constant's '%s' (sparse or string) has no WebNN "
                        "equivalent", name);
    }
    return onx_out_const(im, n, 0, c);
}

static wnn_status fold_shape(onx_importer *im, const Onnx__NodeProto *n)
{
    onx_value *v = onx_in(im, n, 0);
    if (v == NULL)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "input 0 is missing");
    wnn_data_type t;
    uint32_t rank;
    int64_t dims[WNN_MAX_RANK];
    onx_value_desc(v, &t, &rank, dims);
    if (strcmp(n->op_type, "Size") == 0) {
        onx_const *c = onx_const_new(WNN_DATA_TYPE_INT64, 0, NULL);
        int64_t count = 1;
        for (uint32_t i = 0; i < rank; i++)
            count *= dims[i];
        if (c != NULL)
            onx_set_i64(c, 0, count);
        return onx_out_const(im, n, 0, c);
    }
    int64_t start = onx_attr_int(n, "start", 0), end = onx_attr_int(n, "end", rank);
    if (start < 0)
        start += rank;
    if (end < 0)
        end += rank;
    start = start < 0 ? 0 : start > rank ? rank : start;
    end = end < start ? start : end > rank ? rank : end;
    int64_t len = end - start;
    onx_const *c = onx_const_new(WNN_DATA_TYPE_INT64, 1, &len);
    for (int64_t i = 0; c != NULL && i < len; i++)
        onx_set_i64(c, (size_t)i, dims[start + i]);
    return onx_out_const(im, n, 0, c);
}

static wnn_status fold_constant_of_shape(onx_importer *im, const Onnx__NodeProto *n)
{
    const onx_const *s = cin(im, n, 0);
    int64_t dims[WNN_MAX_RANK];
    if (s == NULL || s->count > WNN_MAX_RANK)
        return DECLINE;
    size_t count = 1;
    for (size_t i = 0; i < s->count; i++) {
        dims[i] = onx_get_i64(s, i);
        if (dims[i] < 0)
            return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "a negative dimension");
        count *= (size_t)dims[i];
    }
    if (count > FOLD_MAX_ELEMENTS * 64)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "a constant of %zu elements is too large", count);
    const Onnx__AttributeProto *a = onx_attr(n, "value");
    onx_const *value = NULL;
    if (a != NULL && a->t != NULL) {
        wnn_status st = onx_tensor_decode(a->t, im->base_dir, &value);
        if (st != WNN_OK)
            return onx_fail(im, st, "%s", wnn_onnx_last_error_message());
    }
    onx_const *c = onx_const_new(value ? value->type : WNN_DATA_TYPE_FLOAT32, (uint32_t)s->count, dims);
    size_t es = c ? onx_type_size(c->type) : 0;
    for (size_t i = 0; c != NULL && value != NULL && value->count > 0 && i < c->count; i++)
        memcpy((char *)c->data + i * es, value->data, es);
    onx_const_free(value);
    return onx_out_const(im, n, 0, c);
}

static wnn_status fold_range(onx_importer *im, const Onnx__NodeProto *n)
{
    const onx_const *s = cin(im, n, 0), *l = cin(im, n, 1), *d = cin(im, n, 2);
    if (!s || !l || !d || !s->count || !l->count || !d->count)
        return DECLINE;
    bool f = onx_type_is_float(s->type);
    double start = onx_get_f64(s, 0), limit = onx_get_f64(l, 0), delta = onx_get_f64(d, 0);
    if (delta == 0)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "delta is 0");
    /* the count in unsigned arithmetic: extreme bounds must not overflow */
    double steps = ceil((limit - start) / delta);
    uint64_t m = steps > 0 ? (steps < 0x1p63 ? (uint64_t)steps : UINT64_MAX) : 0; /* NaN: 0 */
    if (!f) {
        int64_t is = onx_get_i64(s, 0), il = onx_get_i64(l, 0), id = onx_get_i64(d, 0);
        bool ahead = id > 0 ? il > is : is > il;
        uint64_t span = id > 0 ? (uint64_t)il - (uint64_t)is : (uint64_t)is - (uint64_t)il;
        uint64_t step = id > 0 ? (uint64_t)id : 0 - (uint64_t)id;
        if (step == 0)
            return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "delta is 0");
        m = ahead ? (span - 1) / step + 1 : 0;
    }
    if (m > FOLD_MAX_ELEMENTS) /* positions and frame indices are thousands long */
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "a range of %llu elements is too large (at most %zu)",
                        (unsigned long long)m, FOLD_MAX_ELEMENTS);
    int64_t count = (int64_t)m;
    onx_const *c = onx_const_new(s->type, 1, &count);
    uint64_t first = (uint64_t)onx_get_i64(s, 0), step = (uint64_t)onx_get_i64(d, 0);
    for (int64_t i = 0; c != NULL && i < count; i++) {
        if (f)
            onx_set_f64(c, (size_t)i, start + (double)i * delta);
        else
            onx_set_i64(c, (size_t)i, (int64_t)(first + (uint64_t)i * step));
    }
    return onx_out_const(im, n, 0, c);
}

static wnn_status fold_identity(onx_importer *im, const Onnx__NodeProto *n)
{
    const onx_const *x = cin(im, n, 0);
    if (x == NULL || n->n_input > 2)
        return DECLINE;
    wnn_status st = onx_out_const(im, n, 0, onx_const_copy(x));
    if (st == WNN_OK && n->n_output > 1) { /* Dropout's mask: all kept */
        onx_const *mask = onx_const_new(WNN_DATA_TYPE_UINT8, x->rank, x->dims);
        for (size_t i = 0; mask != NULL && i < mask->count; i++)
            ((uint8_t *)mask->data)[i] = 1;
        st = onx_out_const(im, n, 1, mask);
    }
    return st;
}

static wnn_status fold_cast(onx_importer *im, const Onnx__NodeProto *n)
{
    const onx_const *x = cin(im, n, 0);
    int32_t to = onx_cast_target(n);
    wnn_data_type t;
    if (strcmp(n->op_type, "CastLike") == 0) {
        onx_value *like = onx_in(im, n, 1);
        if (like == NULL)
            return DECLINE;
        t = like->type;
        to = 0;
    } else if (!onx_type_from_onnx(to, &t)) {
        return DECLINE;
    }
    if (x == NULL || x->count > FOLD_MAX_ELEMENTS)
        return DECLINE;
    onx_const *c = onx_const_new(t, x->rank, x->dims);
    bool to_bool = to == ONNX__TENSOR_PROTO__DATA_TYPE__BOOL;
    for (size_t i = 0; c != NULL && i < x->count; i++) {
        if (to_bool)
            onx_set_i64(c, i, onx_get_f64(x, i) != 0);
        else if (onx_type_is_float(x->type) || onx_type_is_float(t))
            onx_set_f64(c, i, onx_get_f64(x, i));
        else
            onx_set_i64(c, i, onx_get_i64(x, i));
    }
    return onx_out_const(im, n, 0, c);
}

static wnn_status fold_shape_rule(onx_importer *im, const Onnx__NodeProto *n)
{
    const onx_const *x = cin(im, n, 0);
    if (x == NULL)
        return DECLINE;
    int64_t out[WNN_MAX_RANK];
    int r = onx_shape_rule(im, n, x->rank, x->dims, out);
    if (r < 0)
        return im->status;
    onx_const *c = onx_const_copy(x);
    if (c != NULL) {
        c->rank = (uint32_t)r;
        memcpy(c->dims, out, sizeof out[0] * (size_t)r);
    }
    return onx_out_const(im, n, 0, c);
}

/* Row-major strides of dims. */
static void strides_of(uint32_t rank, const int64_t *dims, int64_t *st)
{
    int64_t s = 1;
    for (uint32_t i = rank; i-- > 0;) {
        st[i] = s;
        s *= dims[i];
    }
}

static wnn_status fold_concat(onx_importer *im, const Onnx__NodeProto *n)
{
    const onx_const *first = NULL;
    for (size_t i = 0; i < n->n_input && first == NULL; i++)
        if (cin(im, n, i) && cin(im, n, i)->count)
            first = cin(im, n, i);
    if (first == NULL)
        first = cin(im, n, 0);
    if (first == NULL)
        return DECLINE;
    int axis = onx_axis(im, onx_attr_int(n, "axis", im->opset < 4 ? 1 : 0), first->rank);
    if (axis < 0)
        return im->status;
    int64_t dims[WNN_MAX_RANK];
    memcpy(dims, first->dims, sizeof dims);
    dims[axis] = 0;
    for (size_t i = 0; i < n->n_input; i++) {
        const onx_const *x = cin(im, n, i);
        if (x == NULL || x->count == 0)
            continue;
        if (x->rank != first->rank || x->type != first->type)
            return DECLINE;
        for (uint32_t d = 0; d < x->rank; d++)
            if ((int)d != axis && x->dims[d] != first->dims[d])
                return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "input %zu's dimension %u is %lld, input 0's %lld",
                                i, d, (long long)x->dims[d], (long long)first->dims[d]);
        dims[axis] += x->dims[axis];
    }
    onx_const *c = onx_const_new(first->type, first->rank, dims);
    if (c == NULL)
        return onx_out_const(im, n, 0, NULL);
    size_t es = onx_type_size(c->type), outer = 1, at = 0;
    for (int i = 0; i < axis; i++)
        outer *= (size_t)dims[i];
    for (size_t o = 0; o < outer; o++) {
        for (size_t i = 0; i < n->n_input; i++) {
            const onx_const *x = cin(im, n, i);
            if (x == NULL || x->count == 0)
                continue;
            size_t chunk = x->count / outer * es;
            memcpy((char *)c->data + at, (const char *)x->data + o * chunk, chunk);
            at += chunk;
        }
    }
    return onx_out_const(im, n, 0, c);
}

static wnn_status fold_gather(onx_importer *im, const Onnx__NodeProto *n)
{
    const onx_const *x = cin(im, n, 0), *idx = cin(im, n, 1);
    if (x == NULL || idx == NULL || x->rank + idx->rank > WNN_MAX_RANK + 1 || x->count > FOLD_MAX_ELEMENTS)
        return DECLINE;
    int axis = onx_axis(im, onx_attr_int(n, "axis", 0), x->rank);
    if (axis < 0)
        return im->status;
    int64_t dims[WNN_MAX_RANK];
    uint32_t r = 0;
    for (int i = 0; i < axis; i++)
        dims[r++] = x->dims[i];
    for (uint32_t i = 0; i < idx->rank; i++)
        dims[r++] = idx->dims[i];
    for (uint32_t i = (uint32_t)axis + 1; i < x->rank; i++)
        dims[r++] = x->dims[i];
    if (x->dims[axis] == 0 && idx->count > 0)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "an index into an empty axis");
    if (x->dims[axis] != 0 && idx->count > FOLD_MAX_ELEMENTS / (x->count / (size_t)x->dims[axis] + 1))
        return DECLINE; /* a large result: the device gathers it */
    onx_const *c = onx_const_new(x->type, r, dims);
    if (c == NULL)
        return onx_out_const(im, n, 0, NULL);
    size_t es = onx_type_size(x->type), outer = 1, inner = 1, at = 0;
    for (int i = 0; i < axis; i++)
        outer *= (size_t)x->dims[i];
    for (uint32_t i = (uint32_t)axis + 1; i < x->rank; i++)
        inner *= (size_t)x->dims[i];
    int64_t dim = x->dims[axis];
    for (size_t o = 0; o < outer; o++) {
        for (size_t k = 0; k < idx->count; k++) {
            int64_t j = onx_get_i64(idx, k);
            if (j < 0)
                j += dim;
            if (j < 0 || j >= dim) {
                onx_const_free(c);
                return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "index %lld is out of range",
                                (long long)onx_get_i64(idx, k));
            }
            memcpy((char *)c->data + at, (const char *)x->data + ((o * (size_t)dim + (size_t)j) * inner) * es,
                   inner * es);
            at += inner * es;
        }
    }
    return onx_out_const(im, n, 0, c);
}

static wnn_status fold_slice(onx_importer *im, const Onnx__NodeProto *n)
{
    const onx_const *x = cin(im, n, 0);
    if (x == NULL || x->count > FOLD_MAX_ELEMENTS)
        return DECLINE;
    onx_slice s;
    if (onx_slice_rule(im, n, x->rank, x->dims, &s) < 0)
        return im->status;
    onx_const *c = onx_const_new(x->type, x->rank, s.count);
    if (c == NULL)
        return onx_out_const(im, n, 0, NULL);
    int64_t st[WNN_MAX_RANK], idx[WNN_MAX_RANK] = {0};
    strides_of(x->rank, x->dims, st);
    size_t es = onx_type_size(x->type);
    for (size_t o = 0; o < c->count; o++) {
        int64_t off = 0;
        for (uint32_t i = 0; i < x->rank; i++)
            off += (s.start[i] + idx[i] * s.step[i]) * st[i];
        memcpy((char *)c->data + o * es, (const char *)x->data + (size_t)off * es, es);
        for (uint32_t i = x->rank; i-- > 0;) {
            if (++idx[i] < s.count[i])
                break;
            idx[i] = 0;
        }
    }
    return onx_out_const(im, n, 0, c);
}

static void next_index(int64_t *oi, uint32_t rank, const int64_t *dims);

/* Transpose of a constant: the exporters' pad and shape arithmetic
** (PyTorch's reflect padding transposes its pads). */
static wnn_status fold_transpose(onx_importer *im, const Onnx__NodeProto *n)
{
    const onx_const *x = cin(im, n, 0);
    if (x == NULL || x->count > FOLD_MAX_ELEMENTS)
        return DECLINE;
    int64_t perm[WNN_MAX_RANK], dims[WNN_MAX_RANK], st[WNN_MAX_RANK], oi[WNN_MAX_RANK] = {0};
    int np = onx_attr_ints(n, "perm", perm, WNN_MAX_RANK);
    bool seen[WNN_MAX_RANK] = {false};
    if (np >= 0 && (uint32_t)np != x->rank)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "perm has %d entries for rank %u", np, x->rank);
    for (uint32_t i = 0; i < x->rank; i++) {
        if (np < 0)
            perm[i] = x->rank - 1 - i;
        if (perm[i] < 0 || perm[i] >= (int64_t)x->rank || seen[perm[i]])
            return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "perm is not a permutation of 0..%u", x->rank - 1);
        seen[perm[i]] = true;
        dims[i] = x->dims[perm[i]];
    }
    onx_const *c = onx_const_new(x->type, x->rank, dims);
    if (c == NULL)
        return onx_out_const(im, n, 0, NULL);
    strides_of(x->rank, x->dims, st);
    size_t es = onx_type_size(x->type);
    for (size_t o = 0; o < c->count; o++, next_index(oi, x->rank, dims)) {
        size_t from = 0;
        for (uint32_t i = 0; i < x->rank; i++)
            from += (size_t)(oi[i] * st[perm[i]]);
        memcpy((char *)c->data + o * es, (const char *)x->data + from * es, es);
    }
    return onx_out_const(im, n, 0, c);
}

/* ---- element-wise, broadcasting ---- */

typedef enum { K_ADD, K_SUB, K_MUL, K_DIV, K_MAX, K_MIN, K_EQ, K_LT, K_GT, K_LE, K_GE, K_AND, K_OR, K_MOD } bin_kind;

static const struct {
    const char *name;
    bin_kind kind;
} bin_ops[] = {
    {"Add", K_ADD}, {"Sub", K_SUB}, {"Mul", K_MUL}, {"Div", K_DIV}, {"Max", K_MAX}, {"Min", K_MIN},
    {"Equal", K_EQ}, {"Less", K_LT}, {"Greater", K_GT}, {"LessOrEqual", K_LE}, {"GreaterOrEqual", K_GE},
    {"And", K_AND}, {"Or", K_OR}, {"Mod", K_MOD},
};

/* The offset into an input of rank r, dims d for output index oi. */
static size_t bcast_offset(const int64_t *oi, uint32_t orank, const onx_const *x)
{
    size_t off = 0, stride = 1;
    for (uint32_t i = x->rank; i-- > 0;) {
        int64_t o = oi[orank - x->rank + i];
        off += (size_t)(x->dims[i] == 1 ? 0 : o) * stride;
        stride *= (size_t)x->dims[i];
    }
    return off;
}

static bool bcast_dims(const onx_const *const *xs, size_t k, uint32_t *rank, int64_t *dims)
{
    *rank = 0;
    for (size_t j = 0; j < k; j++)
        *rank = xs[j]->rank > *rank ? xs[j]->rank : *rank;
    for (uint32_t i = 0; i < *rank; i++) {
        dims[i] = 1;
        for (size_t j = 0; j < k; j++) {
            int64_t d = i + xs[j]->rank >= *rank ? xs[j]->dims[i + xs[j]->rank - *rank] : 1;
            if (d != 1 && dims[i] != 1 && d != dims[i])
                return false;
            if (d != 1)
                dims[i] = d;
        }
    }
    return true;
}

static void next_index(int64_t *oi, uint32_t rank, const int64_t *dims)
{
    for (uint32_t i = rank; i-- > 0;) {
        if (++oi[i] < dims[i])
            return;
        oi[i] = 0;
    }
}

static wnn_status fold_binary(onx_importer *im, const Onnx__NodeProto *n)
{
    const onx_const *x[2] = {cin(im, n, 0), cin(im, n, 1)};
    if (x[0] == NULL || x[1] == NULL || n->n_input != 2 || x[0]->type != x[1]->type ||
        (im->opset < 7 && onx_attr(n, "axis") != NULL))
        return DECLINE;
    bin_kind kind = K_ADD;
    for (size_t i = 0; i < sizeof bin_ops / sizeof bin_ops[0]; i++)
        if (strcmp(bin_ops[i].name, n->op_type) == 0)
            kind = bin_ops[i].kind;
    uint32_t rank;
    int64_t dims[WNN_MAX_RANK], oi[WNN_MAX_RANK] = {0};
    if (!bcast_dims(x, 2, &rank, dims))
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "the shapes do not broadcast");
    bool logical = kind >= K_EQ && kind <= K_OR;
    onx_const *c = onx_const_new(logical ? WNN_DATA_TYPE_UINT8 : x[0]->type, rank, dims);
    if (c == NULL || c->count > FOLD_MAX_ELEMENTS) {
        onx_const_free(c);
        return DECLINE;
    }
    bool f = onx_type_is_float(x[0]->type);
    if (kind == K_MOD && (f || onx_attr_int(n, "fmod", 0)))
        f = true;
    for (size_t o = 0; o < c->count; o++, next_index(oi, rank, dims)) {
        size_t ia = bcast_offset(oi, rank, x[0]), ib = bcast_offset(oi, rank, x[1]);
        if (f) {
            double a = onx_get_f64(x[0], ia), b = onx_get_f64(x[1], ib), r = 0;
            switch (kind) {
            case K_ADD: r = a + b; break;
            case K_SUB: r = a - b; break;
            case K_MUL: r = a * b; break;
            case K_DIV: r = a / b; break;
            case K_MAX: r = a > b ? a : b; break;
            case K_MIN: r = a < b ? a : b; break;
            case K_EQ: r = a == b; break;
            case K_LT: r = a < b; break;
            case K_GT: r = a > b; break;
            case K_LE: r = a <= b; break;
            case K_GE: r = a >= b; break;
            case K_AND: r = a != 0 && b != 0; break;
            case K_OR: r = a != 0 || b != 0; break;
            case K_MOD: r = fmod(a, b); break;
            }
            logical ? onx_set_i64(c, o, (int64_t)r) : onx_set_f64(c, o, r);
        } else {
            int64_t a = onx_get_i64(x[0], ia), b = onx_get_i64(x[1], ib), r = 0;
            switch (kind) {
            case K_ADD: r = (int64_t)((uint64_t)a + (uint64_t)b); break;
            case K_SUB: r = (int64_t)((uint64_t)a - (uint64_t)b); break;
            case K_MUL: r = (int64_t)((uint64_t)a * (uint64_t)b); break;
            case K_DIV: r = b == 0 || (b == -1 && a == INT64_MIN) ? 0 : a / b; break;
            case K_MAX: r = a > b ? a : b; break;
            case K_MIN: r = a < b ? a : b; break;
            case K_EQ: r = a == b; break;
            case K_LT: r = a < b; break;
            case K_GT: r = a > b; break;
            case K_LE: r = a <= b; break;
            case K_GE: r = a >= b; break;
            case K_AND: r = a && b; break;
            case K_OR: r = a || b; break;
            case K_MOD: /* the sign of the divisor, like Python */
                r = b == 0 ? 0 : a % b;
                if (r != 0 && (r < 0) != (b < 0))
                    r += b;
                break;
            }
            onx_set_i64(c, o, r);
        }
    }
    return onx_out_const(im, n, 0, c);
}

static wnn_status fold_unary(onx_importer *im, const Onnx__NodeProto *n)
{
    const onx_const *x = cin(im, n, 0);
    if (x == NULL || x->count > FOLD_MAX_ELEMENTS)
        return DECLINE;
    const char *op = n->op_type;
    bool f = onx_type_is_float(x->type);
    if (!f && (strcmp(op, "Sqrt") == 0))
        return DECLINE;
    onx_const *c = onx_const_new(x->type, x->rank, x->dims);
    for (size_t i = 0; c != NULL && i < x->count; i++) {
        if (f) {
            double v = onx_get_f64(x, i);
            double r = op[0] == 'N' && op[1] == 'e' ? -v : op[0] == 'A' ? fabs(v) : op[0] == 'F' ? floor(v)
                     : op[0] == 'C' ? ceil(v) : op[0] == 'S' ? sqrt(v) : op[0] == 'R' ? (v > 0 ? v : 0) : (v == 0);
            onx_set_f64(c, i, r);
        } else {
            int64_t v = onx_get_i64(x, i), neg = (int64_t)(0 - (uint64_t)v); /* wraps at INT64_MIN */
            int64_t r = op[0] == 'N' && op[1] == 'e' ? neg : op[0] == 'A' ? (v < 0 ? neg : v)
                      : op[0] == 'R' ? (v > 0 ? v : 0) : op[0] == 'N' ? !v : v;
            onx_set_i64(c, i, r);
        }
    }
    return onx_out_const(im, n, 0, c);
}

static wnn_status fold_where(onx_importer *im, const Onnx__NodeProto *n)
{
    const onx_const *x[3] = {cin(im, n, 0), cin(im, n, 1), cin(im, n, 2)};
    if (!x[0] || !x[1] || !x[2] || x[1]->type != x[2]->type)
        return DECLINE;
    uint32_t rank;
    int64_t dims[WNN_MAX_RANK], oi[WNN_MAX_RANK] = {0};
    if (!bcast_dims(x, 3, &rank, dims))
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "the shapes do not broadcast");
    onx_const *c = onx_const_new(x[1]->type, rank, dims);
    if (c == NULL || c->count > FOLD_MAX_ELEMENTS) {
        onx_const_free(c);
        return DECLINE;
    }
    size_t es = onx_type_size(c->type);
    for (size_t o = 0; o < c->count; o++, next_index(oi, rank, dims)) {
        const onx_const *src = onx_get_i64(x[0], bcast_offset(oi, rank, x[0])) ? x[1] : x[2];
        memcpy((char *)c->data + o * es, (const char *)src->data + bcast_offset(oi, rank, src) * es, es);
    }
    return onx_out_const(im, n, 0, c);
}

/* HannWindow, HammingWindow, BlackmanWindow of a constant size: sums of
** cosines of 2 pi k n / N, N the size (periodic) or the size - 1. */
static wnn_status fold_window(onx_importer *im, const Onnx__NodeProto *n)
{
    const onx_const *size = cin(im, n, 0);
    if (size == NULL || size->count != 1)
        return DECLINE;
    int64_t len = onx_get_i64(size, 0);
    wnn_data_type t = WNN_DATA_TYPE_FLOAT32;
    if (len <= 0 || !onx_type_from_onnx((int32_t)onx_attr_int(n, "output_datatype", 1), &t))
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "size %lld or output_datatype", (long long)len);
    if ((uint64_t)len > FOLD_MAX_ELEMENTS) /* audio windows are thousands long */
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "a window of %lld elements is too large (at most %zu)",
                        (long long)len, FOLD_MAX_ELEMENTS);
    double N = onx_attr_int(n, "periodic", 1) ? (double)len : (double)len - 1, a[3] = {0.5, -0.5, 0};
    if (n->op_type[1] == 'a' && n->op_type[2] == 'm')
        a[0] = 25.0 / 46.0, a[1] = -(1 - 25.0 / 46.0);
    else if (n->op_type[0] == 'B')
        a[0] = 0.42, a[1] = -0.5, a[2] = 0.08;
    onx_const *c = onx_const_new(t, 1, &len);
    for (int64_t i = 0; c != NULL && i < len; i++) {
        double x = 2 * M_PI * (double)i / N;
        onx_set_f64(c, (size_t)i, a[0] + a[1] * cos(x) + a[2] * cos(2 * x));
    }
    return onx_out_const(im, n, 0, c);
}

/* EyeLike needs only its input's shape. */
static wnn_status fold_eye_like(onx_importer *im, const Onnx__NodeProto *n)
{
    onx_value *v = onx_in(im, n, 0);
    if (v == NULL || v->rank != 2)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "input 0 must be rank 2");
    wnn_data_type t = v->type;
    const Onnx__AttributeProto *dt = onx_attr(n, "dtype");
    if (dt != NULL && !onx_type_from_onnx((int32_t)dt->i, &t))
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "dtype %s has no WebNN equivalent",
                        onx_onnx_type_name((int32_t)dt->i));
    int64_t dims[2], k = onx_attr_int(n, "k", 0);
    uint32_t rank;
    wnn_data_type ignored;
    onx_value_desc(v, &ignored, &rank, dims);
    onx_const *c = onx_const_new(t, 2, dims);
    for (int64_t i = 0; c != NULL && i < dims[0]; i++)
        if (i + k >= 0 && i + k < dims[1])
            onx_set_i64(c, (size_t)(i * dims[1] + i + k), 1);
    return onx_out_const(im, n, 0, c);
}

/* ReduceProd/ReduceSum of a whole small integer vector (shape arithmetic). */
static wnn_status fold_reduce(onx_importer *im, const Onnx__NodeProto *n)
{
    const onx_const *x = cin(im, n, 0);
    if (x == NULL || x->rank != 1 || onx_type_is_float(x->type) || n->n_input > 1 || onx_attr(n, "axes"))
        return DECLINE;
    bool prod = strcmp(n->op_type, "ReduceProd") == 0;
    int64_t one = 1;
    uint64_t r = prod ? 1 : 0; /* wraps, as fold_binary's integers do */
    for (size_t i = 0; i < x->count; i++)
        r = prod ? r * (uint64_t)onx_get_i64(x, i) : r + (uint64_t)onx_get_i64(x, i);
    onx_const *c = onx_const_new(x->type, onx_attr_int(n, "keepdims", 1) ? 1 : 0, &one);
    if (c != NULL)
        onx_set_i64(c, 0, (int64_t)r);
    return onx_out_const(im, n, 0, c);
}

const onx_op_entry onx_fold_ops[] = {
    {"Constant", fold_constant},   {"Shape", fold_shape},       {"Size", fold_shape},
    {"ConstantOfShape", fold_constant_of_shape}, {"Range", fold_range}, {"Identity", fold_identity},
    {"Dropout", fold_identity},    {"Cast", fold_cast},         {"CastLike", fold_cast},
    {"Reshape", fold_shape_rule},  {"Flatten", fold_shape_rule}, {"Squeeze", fold_shape_rule},
    {"Unsqueeze", fold_shape_rule}, {"Concat", fold_concat},    {"Gather", fold_gather},
    {"Slice", fold_slice},         {"Transpose", fold_transpose}, {"Add", fold_binary},        {"Sub", fold_binary},
    {"Mul", fold_binary},          {"Div", fold_binary},        {"Max", fold_binary},
    {"Min", fold_binary},          {"Equal", fold_binary},      {"Less", fold_binary},
    {"Greater", fold_binary},      {"LessOrEqual", fold_binary}, {"GreaterOrEqual", fold_binary},
    {"And", fold_binary},          {"Or", fold_binary},         {"Mod", fold_binary},
    {"Neg", fold_unary},           {"Abs", fold_unary},         {"Floor", fold_unary},
    {"Ceil", fold_unary},          {"Sqrt", fold_unary},        {"Relu", fold_unary},
    {"Not", fold_unary},           {"Where", fold_where},       {"ReduceProd", fold_reduce},
    {"ReduceSum", fold_reduce},    {"EyeLike", fold_eye_like},
    {"HannWindow", fold_window},   {"HammingWindow", fold_window}, {"BlackmanWindow", fold_window},
    {NULL, NULL},
};

static onx_lower_fn find(const onx_op_entry *t, const char *op)
{
    for (; t->name != NULL; t++)
        if (strcmp(t->name, op) == 0)
            return t->fn;
    return NULL;
}

onx_lower_fn onx_find_folding(const char *op) { return find(onx_fold_ops, op); }

onx_lower_fn onx_find_lowering(const char *op)
{
    static const onx_op_entry *const tables[] = {
        onx_ops_elementwise, onx_ops_nn,      onx_ops_shape,   onx_ops_extra,      onx_ops_recurrent,
        onx_ops_einsum,      onx_ops_control, onx_ops_signal,  onx_ops_integer,    onx_ops_gridsample,
        onx_ops_text,
    };
    onx_lower_fn fn = NULL;
    for (size_t i = 0; fn == NULL && i < sizeof tables / sizeof tables[0]; i++)
        fn = find(tables[i], op);
    return fn;
}
