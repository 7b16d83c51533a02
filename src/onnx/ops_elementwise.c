/*
** ops_elementwise.c -- lowering of ONNX's element-wise operators,
** activations, comparisons and logic, Cast, Clip, Where, reductions,
** ArgMax/ArgMin, CumSum, Softmax/LogSoftmax and quantization to WebNN.
** Operators WebNN lacks are decompositions, written next to each.
*/
#include <math.h>
#include <string.h>

#include "onnx_internal.h"

typedef wnn_operand *(*unary_fn)(wnn_graph_builder *, wnn_operand *);
typedef wnn_operand *(*binary_fn)(wnn_graph_builder *, wnn_operand *, wnn_operand *);

static const struct {
    const char *name;
    unary_fn fn;
} unary_ops[] = {
    {"Abs", wnn_abs},       {"Neg", wnn_neg},         {"Exp", wnn_exp},        {"Log", wnn_log},
    {"Sqrt", wnn_sqrt},     {"Relu", wnn_relu},       {"Sigmoid", wnn_sigmoid}, {"Tanh", wnn_tanh},
    {"Ceil", wnn_ceil},     {"Floor", wnn_floor},     {"Cos", wnn_cos},        {"Sin", wnn_sin},
    {"Tan", wnn_tan},       {"Erf", wnn_erf},         {"Reciprocal", wnn_reciprocal},
    {"Round", wnn_round_even}, {"Sign", wnn_sign},    {"Softplus", wnn_softplus},
    {"Softsign", wnn_softsign}, {"IsNaN", wnn_is_nan}, {"Not", wnn_logical_not}, {"HardSwish", wnn_hard_swish},
};

static const struct {
    const char *name;
    binary_fn fn;
} binary_ops[] = {
    {"Add", wnn_add},       {"Sub", wnn_sub},         {"Mul", wnn_mul},          {"Div", wnn_div},
    {"Equal", wnn_equal},   {"Greater", wnn_greater}, {"Less", wnn_lesser},      {"GreaterOrEqual", wnn_greater_or_equal},
    {"LessOrEqual", wnn_lesser_or_equal}, {"And", wnn_logical_and}, {"Or", wnn_logical_or},
    {"Xor", wnn_logical_xor}, {"Max", wnn_max},       {"Min", wnn_min},          {"Sum", wnn_add},
    {"Mean", wnn_add},      {"PRelu", wnn_prelu},
};

static wnn_status lower_unary(onx_importer *im, const Onnx__NodeProto *n)
{
    for (size_t i = 0; i < sizeof unary_ops / sizeof unary_ops[0]; i++)
        if (strcmp(unary_ops[i].name, n->op_type) == 0)
            return onx_out(im, n, 0, unary_ops[i].fn(im->b, onx_in_op(im, n, 0)));
    return onx_fail(im, WNN_STATUS_UNKNOWN, "no unary table entry");
}

/* Before opset 7, broadcast=1 with axis aligns b's dimensions with a's
** from axis on (numpy aligns them at the end): b gets trailing 1s. */
static wnn_operand *legacy_broadcast(onx_importer *im, const Onnx__NodeProto *n, wnn_operand *a, wnn_operand *b)
{
    if (im->opset >= 7 || b == NULL || a == NULL || onx_attr_int(n, "broadcast", 0) == 0 ||
        onx_attr(n, "axis") == NULL)
        return b;
    wnn_operand_desc ad, bd;
    wnn_operand_get_desc(a, &ad);
    wnn_operand_get_desc(b, &bd);
    int axis = onx_axis(im, onx_attr_int(n, "axis", 0), ad.rank);
    if (axis < 0)
        return NULL;
    if ((uint32_t)axis + bd.rank > ad.rank)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "input 1 of rank %u does not fit at axis %d of rank %u",
                        bd.rank, axis, ad.rank), NULL;
    uint32_t s[WNN_MAX_RANK], r = ad.rank - (uint32_t)axis;
    for (uint32_t i = 0; i < r; i++)
        s[i] = i < bd.rank ? bd.shape[i] : 1;
    return r == bd.rank ? b : wnn_reshape(im->b, b, r, s);
}

/* PRelu before opset 7 (and exporters since) give one slope per channel
** as a vector: [C] against [N, C, ...] means [C, 1, ..., 1]. */
static wnn_operand *channel_slope(onx_importer *im, wnn_operand *x, wnn_operand *slope)
{
    if (slope == NULL)
        return NULL;
    wnn_operand_desc xd, sd;
    wnn_operand_get_desc(x, &xd);
    wnn_operand_get_desc(slope, &sd);
    if (sd.rank != 1 || xd.rank < 3 || sd.shape[0] == xd.shape[xd.rank - 1] || sd.shape[0] != xd.shape[1])
        return slope;
    uint32_t s[WNN_MAX_RANK] = {sd.shape[0]};
    for (uint32_t i = 1; i < xd.rank - 1; i++)
        s[i] = 1;
    return wnn_reshape(im->b, slope, xd.rank - 1, s);
}

/* Binary and variadic (Max, Min, Sum, Mean fold left to right). */
static wnn_status lower_binary(onx_importer *im, const Onnx__NodeProto *n)
{
    binary_fn fn = NULL;
    for (size_t i = 0; i < sizeof binary_ops / sizeof binary_ops[0]; i++)
        if (strcmp(binary_ops[i].name, n->op_type) == 0)
            fn = binary_ops[i].fn;
    wnn_operand *acc = onx_in_op(im, n, 0);
    if (fn == wnn_prelu && acc != NULL && n->n_input == 2)
        return onx_out(im, n, 0, wnn_prelu(im->b, acc, channel_slope(im, acc, onx_in_op(im, n, 1))));
    for (size_t i = 1; i < n->n_input && acc != NULL; i++)
        acc = fn(im->b, acc, legacy_broadcast(im, n, acc, onx_in_op(im, n, i)));
    if (acc != NULL && strcmp(n->op_type, "Mean") == 0 && n->n_input > 1) {
        wnn_operand_desc d;
        wnn_operand_get_desc(acc, &d);
        acc = wnn_div(im->b, acc, onx_scalar(im, d.data_type, (double)n->n_input));
    }
    if (acc != NULL && n->n_input == 1 && (fn == wnn_max || fn == wnn_min || fn == wnn_add))
        acc = wnn_identity(im->b, acc);
    return onx_out(im, n, 0, acc);
}

static wnn_data_type type_of(wnn_operand *x)
{
    wnn_operand_desc d;
    wnn_operand_get_desc(x, &d);
    return d.data_type;
}

/* Pow: ONNX lets the exponent have its own type; WebNN wants the base's. */
static wnn_status lower_pow(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_operand *x = onx_in_op(im, n, 0), *y = legacy_broadcast(im, n, x, onx_in_op(im, n, 1));
    if (x == NULL || y == NULL)
        return im->status ? im->status : onx_builder_failed(im);
    if (type_of(y) != type_of(x))
        y = wnn_cast(im->b, y, type_of(x));
    return onx_out(im, n, 0, wnn_pow(im->b, x, y));
}

/* ---- inverse trigonometry (WebNN has none) ---- */

/* atan(x) as Cephes' atanf: |x| reduced below tan(pi/8) by atan(t) = pi/2 +
** atan(-1/t) past tan(3pi/8) and pi/4 + atan((t-1)/(t+1)) past tan(pi/8),
** then an odd polynomial; relative error about 2e-7 in float32. */
static wnn_operand *atan_of(onx_importer *im, wnn_operand *x, wnn_data_type t)
{
    wnn_graph_builder *b = im->b;
    wnn_operand *a = wnn_abs(b, x), *one = onx_scalar(im, t, 1.0);
    wnn_operand *big = wnn_greater(b, a, onx_scalar(im, t, 2.414213562373095)),
                *mid = wnn_greater(b, a, onx_scalar(im, t, 0.4142135623730950));
    wnn_operand *r = wnn_where(b, big, wnn_neg(b, wnn_div(b, one, a)),
                               wnn_where(b, mid, wnn_div(b, wnn_sub(b, a, one), wnn_add(b, a, one)), a));
    wnn_operand *base = wnn_where(b, big, onx_scalar(im, t, M_PI / 2),
                                  wnn_where(b, mid, onx_scalar(im, t, M_PI / 4), onx_scalar(im, t, 0.0)));
    static const double c[4] = {8.05374449538e-2, -1.38776856032e-1, 1.99777106478e-1, -3.33329491539e-1};
    wnn_operand *z = wnn_mul(b, r, r), *p = onx_scalar(im, t, c[0]);
    for (int i = 1; i < 4; i++)
        p = wnn_add(b, wnn_mul(b, p, z), onx_scalar(im, t, c[i]));
    wnn_operand *y = wnn_add(b, base, wnn_add(b, wnn_mul(b, wnn_mul(b, p, z), r), r));
    return wnn_where(b, wnn_lesser(b, x, onx_scalar(im, t, 0.0)), wnn_neg(b, y), y);
}

/* Atan as above; Asin(x) = atan(x / sqrt((1 - x)(1 + x))), the product
** exact near |x| = 1 where 1 - x^2 would cancel; Acos(x) = 2 atan(sqrt((1 -
** x) / (1 + x))), accurate near 1 where pi/2 - asin(x) would cancel. */
static wnn_status lower_inverse_trig(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_graph_builder *b = im->b;
    wnn_operand *x = onx_in_op(im, n, 0);
    if (x == NULL)
        return im->status;
    wnn_data_type t = type_of(x);
    if (t != WNN_DATA_TYPE_FLOAT32 && t != WNN_DATA_TYPE_FLOAT16)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "%s of %s: float32 and float16 only", n->op_type,
                        wnn_data_type_name(t));
    wnn_operand *one = onx_scalar(im, t, 1.0), *below = wnn_sub(b, one, x), *above = wnn_add(b, one, x);
    wnn_operand *y;
    if (strcmp(n->op_type, "Atan") == 0)
        y = atan_of(im, x, t);
    else if (strcmp(n->op_type, "Asin") == 0)
        y = atan_of(im, wnn_div(b, x, wnn_sqrt(b, wnn_mul(b, below, above))), t);
    else
        y = wnn_mul(b, atan_of(im, wnn_sqrt(b, wnn_div(b, below, above)), t), onx_scalar(im, t, 2.0));
    return onx_out(im, n, 0, y);
}

/* BitShift (unsigned integers): x * 2^y or x / 2^y. wnn's integer pow
** wraps and its div truncates, so both are the shifts exactly, and 2^y
** wraps to 0 past the width, which shifts everything out (y / 0 is 0). */
static wnn_status lower_bitshift(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_operand *x = onx_in_op(im, n, 0), *y = onx_in_op(im, n, 1);
    if (x == NULL || y == NULL)
        return im->status;
    wnn_data_type t = type_of(x);
    if (t != WNN_DATA_TYPE_UINT8 && t != WNN_DATA_TYPE_UINT32 && t != WNN_DATA_TYPE_UINT64)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "BitShift of %s: ONNX shifts unsigned integers",
                        wnn_data_type_name(t));
    char dir[16];
    onx_attr_string(n, "direction", "", dir, sizeof dir);
    bool left = strcmp(dir, "LEFT") == 0;
    if (!left && strcmp(dir, "RIGHT") != 0)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "direction '%s' is not LEFT or RIGHT", dir);
    wnn_operand *scale = wnn_pow(im->b, onx_scalar(im, t, 2.0), y);
    return onx_out(im, n, 0, left ? wnn_mul(im->b, x, scale) : wnn_div(im->b, x, scale));
}

/* ---- activations with attributes ---- */

static wnn_status lower_activation(onx_importer *im, const Onnx__NodeProto *n)
{
    const char *op = n->op_type;
    wnn_graph_builder *b = im->b;
    wnn_operand *x = onx_in_op(im, n, 0), *y = NULL;
    if (x == NULL)
        return im->status;
    wnn_data_type t = type_of(x);
    if (strcmp(op, "LeakyRelu") == 0) {
        double alpha = onx_attr_float(n, "alpha", 0.01f);
        wnn_leaky_relu_options o = {.alpha = &alpha};
        y = wnn_leaky_relu(b, x, &o);
    } else if (strcmp(op, "Elu") == 0) {
        double alpha = onx_attr_float(n, "alpha", 1.0f);
        wnn_elu_options o = {.alpha = &alpha};
        y = wnn_elu(b, x, &o);
    } else if (strcmp(op, "Selu") == 0) {
        /* gamma * elu(x, alpha) */
        double alpha = onx_attr_float(n, "alpha", 1.67326319217681884765625f);
        wnn_elu_options o = {.alpha = &alpha};
        y = wnn_mul(b, wnn_elu(b, x, &o), onx_scalar(im, t, onx_attr_float(n, "gamma", 1.05070102214813232421875f)));
    } else if (strcmp(op, "HardSigmoid") == 0) {
        double alpha = onx_attr_float(n, "alpha", 0.2f), beta = onx_attr_float(n, "beta", 0.5f);
        wnn_hard_sigmoid_options o = {.alpha = &alpha, .beta = &beta};
        y = wnn_hard_sigmoid(b, x, &o);
    } else if (strcmp(op, "Gelu") == 0) {
        char mode[16];
        onx_attr_string(n, "approximate", "none", mode, sizeof mode);
        if (strcmp(mode, "tanh") == 0) {
            /* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
            wnn_operand *x3 = wnn_mul(b, wnn_mul(b, x, x), x);
            wnn_operand *in = wnn_mul(b, wnn_add(b, x, wnn_mul(b, x3, onx_scalar(im, t, 0.044715))),
                                      onx_scalar(im, t, sqrt(2.0 / M_PI)));
            y = wnn_mul(b, wnn_mul(b, x, onx_scalar(im, t, 0.5)),
                        wnn_add(b, wnn_tanh(b, in), onx_scalar(im, t, 1.0)));
        } else {
            y = wnn_gelu(b, x);
        }
    } else if (strcmp(op, "Mish") == 0) {
        y = wnn_mul(b, x, wnn_tanh(b, wnn_softplus(b, x))); /* x tanh(softplus(x)) */
    } else if (strcmp(op, "ThresholdedRelu") == 0) {
        wnn_operand *zero = onx_scalar(im, t, 0.0);
        y = wnn_where(b, wnn_greater(b, x, onx_scalar(im, t, onx_attr_float(n, "alpha", 1.0f))), x, zero);
    } else if (strcmp(op, "Celu") == 0) {
        /* max(0, x) + min(0, alpha (exp(x / alpha) - 1)) */
        double alpha = onx_attr_float(n, "alpha", 1.0f);
        wnn_operand *zero = onx_scalar(im, t, 0.0), *a = onx_scalar(im, t, alpha);
        wnn_operand *neg = wnn_mul(b, a, wnn_sub(b, wnn_exp(b, wnn_div(b, x, a)), onx_scalar(im, t, 1.0)));
        y = wnn_add(b, wnn_max(b, x, zero), wnn_min(b, neg, zero));
    } else if (strcmp(op, "Shrink") == 0) {
        double lambd = onx_attr_float(n, "lambd", 0.5f), bias = onx_attr_float(n, "bias", 0.0f);
        wnn_operand *l = onx_scalar(im, t, lambd), *nl = onx_scalar(im, t, -lambd), *bb = onx_scalar(im, t, bias);
        y = wnn_where(b, wnn_lesser(b, x, nl), wnn_add(b, x, bb),
                      wnn_where(b, wnn_greater(b, x, l), wnn_sub(b, x, bb), onx_scalar(im, t, 0.0)));
    } else if (strcmp(op, "Sinh") == 0 || strcmp(op, "Cosh") == 0) {
        wnn_operand *e = wnn_exp(b, x), *ne = wnn_exp(b, wnn_neg(b, x));
        y = wnn_mul(b, op[0] == 'S' ? wnn_sub(b, e, ne) : wnn_add(b, e, ne), onx_scalar(im, t, 0.5));
    } else if (strcmp(op, "Asinh") == 0 || strcmp(op, "Acosh") == 0) {
        /* log(x + sqrt(x^2 +- 1)) */
        wnn_operand *one = onx_scalar(im, t, 1.0), *xx = wnn_mul(b, x, x);
        y = wnn_log(b, wnn_add(b, x, wnn_sqrt(b, op[1] == 's' ? wnn_add(b, xx, one) : wnn_sub(b, xx, one))));
    } else if (strcmp(op, "Atanh") == 0) {
        wnn_operand *one = onx_scalar(im, t, 1.0);
        y = wnn_mul(b, wnn_log(b, wnn_div(b, wnn_add(b, one, x), wnn_sub(b, one, x))), onx_scalar(im, t, 0.5));
    } else if (strcmp(op, "IsInf") == 0) {
        bool pos = onx_attr_int(n, "detect_positive", 1) != 0, neg = onx_attr_int(n, "detect_negative", 1) != 0;
        y = wnn_is_infinite(b, x);
        if (!(pos && neg)) {
            wnn_operand *side = pos ? wnn_greater(b, x, onx_scalar(im, t, 0.0)) : wnn_lesser(b, x, onx_scalar(im, t, 0.0));
            y = pos || neg ? wnn_logical_and(b, y, side) : wnn_mul(b, y, onx_scalar(im, WNN_DATA_TYPE_UINT8, 0));
        }
    }
    return onx_out(im, n, 0, y);
}

/* ---- Cast, Clip, Where ---- */

static wnn_status cast_to(onx_importer *im, const Onnx__NodeProto *n, wnn_operand *x, int32_t onnx_to)
{
    wnn_data_type to;
    if (!onx_type_from_onnx(onnx_to, &to))
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "cast to %s: WebNN has no such data type",
                        onx_onnx_type_name(onnx_to));
    if (x == NULL)
        return im->status;
    if (onnx_to == ONNX__TENSOR_PROTO__DATA_TYPE__BOOL) /* any non-zero is true */
        return onx_out(im, n, 0, wnn_not_equal(im->b, x, onx_scalar(im, type_of(x), 0.0)));
    return onx_out(im, n, 0, type_of(x) == to ? wnn_identity(im->b, x) : wnn_cast(im->b, x, to));
}

int32_t onx_cast_target(const Onnx__NodeProto *n)
{
    const Onnx__AttributeProto *a = onx_attr(n, "to");
    if (a == NULL || !a->has_s)
        return (int32_t)onx_attr_int(n, "to", 0);
    /* before opset 6 "to" is a name: "FLOAT", "INT64" ... */
    for (int32_t t = 1; t <= 16; t++) {
        const char *name = onx_onnx_type_name(t);
        size_t len = strlen(name);
        bool same = a->s.len == len;
        for (size_t i = 0; same && i < len; i++)
            same = (a->s.data[i] | 0x20) == name[i];
        if (same)
            return t;
    }
    return 0;
}

static wnn_status lower_cast(onx_importer *im, const Onnx__NodeProto *n)
{
    return cast_to(im, n, onx_in_op(im, n, 0), onx_cast_target(n));
}

static wnn_status lower_cast_like(onx_importer *im, const Onnx__NodeProto *n)
{
    onx_value *like = onx_in(im, n, 1);
    if (like == NULL)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "input 1 is missing");
    wnn_operand *x = onx_in_op(im, n, 0);
    if (x == NULL)
        return im->status;
    wnn_data_type t = like->type;
    return onx_out(im, n, 0, type_of(x) == t ? wnn_identity(im->b, x) : wnn_cast(im->b, x, t));
}

static wnn_status lower_clip(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_operand *x = onx_in_op(im, n, 0);
    if (x == NULL)
        return im->status;
    wnn_clamp_options o = WNN_CLAMP_OPTIONS_INIT;
    wnn_number bounds[2] = {{.value = onx_attr_float(n, "min", 0)}, {.value = onx_attr_float(n, "max", 0)}};
    if (im->opset < 11) {
        o.min_value = onx_attr(n, "min") != NULL ? &bounds[0] : NULL;
        o.max_value = onx_attr(n, "max") != NULL ? &bounds[1] : NULL;
        return onx_out(im, n, 0, wnn_clamp(im->b, x, &o));
    }
    wnn_operand *y = x;
    for (size_t i = 1; i <= 2; i++) {
        onx_value *v = onx_in(im, n, i);
        if (v == NULL)
            continue;
        if (v->c != NULL && v->c->count == 1) {
            bounds[i - 1] = (wnn_number){.value = onx_get_f64(v->c, 0)};
            *(i == 1 ? &o.min_value : &o.max_value) = &bounds[i - 1];
        } else { /* a computed bound: max(x, lo), min(x, hi) */
            wnn_operand *bound = onx_operand(im, v);
            y = i == 1 ? wnn_max(im->b, y, bound) : wnn_min(im->b, y, bound);
        }
    }
    return onx_out(im, n, 0, wnn_clamp(im->b, y, &o));
}

static wnn_status lower_where(onx_importer *im, const Onnx__NodeProto *n)
{
    return onx_out(im, n, 0, wnn_where(im->b, onx_in_op(im, n, 0), onx_in_op(im, n, 1), onx_in_op(im, n, 2)));
}

/* ---- reductions ---- */

typedef wnn_operand *(*reduce_fn)(wnn_graph_builder *, wnn_operand *, const wnn_reduce_options *);

static const struct {
    const char *name;
    reduce_fn fn;
    int axes_input_opset; /* from this opset axes is input 1 */
} reduce_ops[] = {
    {"ReduceSum", wnn_reduce_sum, 13},           {"ReduceMean", wnn_reduce_mean, 18},
    {"ReduceMax", wnn_reduce_max, 18},           {"ReduceMin", wnn_reduce_min, 18},
    {"ReduceProd", wnn_reduce_product, 18},      {"ReduceL1", wnn_reduce_l1, 18},
    {"ReduceL2", wnn_reduce_l2, 18},             {"ReduceLogSum", wnn_reduce_log_sum, 18},
    {"ReduceLogSumExp", wnn_reduce_log_sum_exp, 18}, {"ReduceSumSquare", wnn_reduce_sum_square, 18},
};

/* The axes of a reduction-like node (attribute or input 1 by opset) into o,
** stored in axes_room (WNN_MAX_RANK entries); returns 0, 1 when the node is
** a no-op (empty axes, noop_with_empty_axes), -1 on failure. */
static int reduce_axes(onx_importer *im, const Onnx__NodeProto *n, bool from_input, uint32_t rank,
                       wnn_reduce_options *o, uint32_t *axes_room)
{
    int64_t axes[WNN_MAX_RANK];
    int count = -1;
    if (from_input) {
        if (onx_in(im, n, 1) != NULL && (count = onx_in_ints(im, n, 1, "axes", axes, WNN_MAX_RANK)) < 0)
            return -1;
    } else {
        count = onx_attr_ints(n, "axes", axes, WNN_MAX_RANK);
    }
    if (count > (int)WNN_MAX_RANK)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "too many axes"), -1;
    o->keep_dimensions = onx_attr_int(n, "keepdims", 1) != 0;
    if (count <= 0) {
        if (onx_attr_int(n, "noop_with_empty_axes", 0) != 0)
            return 1;
        o->axes = NULL;
        return 0;
    }
    o->axes = axes_room;
    o->axes_count = (uint32_t)count;
    for (int i = 0; i < count; i++) {
        int a = onx_axis(im, axes[i], rank);
        if (a < 0)
            return -1;
        axes_room[i] = (uint32_t)a;
    }
    return 0;
}

static wnn_status lower_reduce(onx_importer *im, const Onnx__NodeProto *n)
{
    size_t k = 0;
    while (strcmp(reduce_ops[k].name, n->op_type) != 0)
        k++;
    wnn_operand *x = onx_in_op(im, n, 0);
    if (x == NULL)
        return im->status;
    wnn_operand_desc d;
    wnn_operand_get_desc(x, &d);
    wnn_reduce_options o = WNN_REDUCE_OPTIONS_INIT;
    uint32_t axes[WNN_MAX_RANK];
    int r = reduce_axes(im, n, im->opset >= reduce_ops[k].axes_input_opset, d.rank, &o, axes);
    if (r < 0)
        return im->status;
    if (r == 1)
        return onx_out(im, n, 0, wnn_identity(im->b, x));
    return onx_out(im, n, 0, reduce_ops[k].fn(im->b, x, &o));
}

static wnn_status lower_arg(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_operand *x = onx_in_op(im, n, 0);
    if (x == NULL)
        return im->status;
    wnn_operand_desc d;
    wnn_operand_get_desc(x, &d);
    int axis = onx_axis(im, onx_attr_int(n, "axis", 0), d.rank);
    if (axis < 0)
        return im->status;
    wnn_arg_min_max_options o = {.keep_dimensions = onx_attr_int(n, "keepdims", 1) != 0,
                                 .output_data_type = WNN_DATA_TYPE_INT64};
    bool last = onx_attr_int(n, "select_last_index", 0) != 0;
    if (last) { /* the first index of the reversed axis, counted from the end */
        uint32_t reversed = (uint32_t)axis;
        wnn_reverse_options ro = {.axes = &reversed, .axes_count = 1};
        x = wnn_reverse(im->b, x, &ro);
    }
    wnn_operand *y = n->op_type[3] == 'M' && n->op_type[4] == 'a' ? wnn_arg_max(im->b, x, (uint32_t)axis, &o)
                                                                  : wnn_arg_min(im->b, x, (uint32_t)axis, &o);
    if (last && y != NULL)
        y = wnn_sub(im->b, onx_scalar(im, WNN_DATA_TYPE_INT64, d.shape[axis] - 1.0), y);
    return onx_out(im, n, 0, y);
}

static wnn_status lower_cumsum(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_operand *x = onx_in_op(im, n, 0);
    int64_t axis;
    if (x == NULL || onx_in_ints(im, n, 1, "axis", &axis, 1) != 1)
        return im->status ? im->status : onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "axis must be one value");
    wnn_operand_desc d;
    wnn_operand_get_desc(x, &d);
    int a = onx_axis(im, axis, d.rank);
    if (a < 0)
        return im->status;
    wnn_cumulative_sum_options o = {.exclusive = onx_attr_int(n, "exclusive", 0) != 0,
                                    .reversed = onx_attr_int(n, "reverse", 0) != 0};
    return onx_out(im, n, 0, wnn_cumulative_sum(im->b, x, (uint32_t)a, &o));
}

/* ---- Softmax, LogSoftmax, Hardmax ---- */

/* Before opset 13 softmax works on the input coerced to 2-D at axis
** (default 1); from 13 along one axis (default -1). */
static wnn_status lower_softmax(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_graph_builder *b = im->b;
    wnn_operand *x = onx_in_op(im, n, 0);
    if (x == NULL)
        return im->status;
    wnn_operand_desc d;
    wnn_operand_get_desc(x, &d);
    bool legacy = im->opset < 13;
    int axis = onx_axis(im, onx_attr_int(n, "axis", legacy ? 1 : -1), d.rank);
    if (axis < 0)
        return im->status;
    wnn_operand *in = x;
    uint32_t ax = (uint32_t)axis;
    if (legacy && (uint32_t)axis != d.rank - 1) {
        uint32_t s[2] = {1, 1};
        for (uint32_t i = 0; i < d.rank; i++)
            s[i < (uint32_t)axis ? 0 : 1] *= d.shape[i];
        in = wnn_reshape(b, x, 2, s);
        ax = 1;
    }
    wnn_operand *y;
    if (strcmp(n->op_type, "LogSoftmax") == 0) {
        /* x - max - log(sum(exp(x - max))) */
        wnn_reduce_options o = {.axes = &ax, .axes_count = 1, .keep_dimensions = true};
        wnn_operand *shifted = wnn_sub(b, in, wnn_reduce_max(b, in, &o));
        y = wnn_sub(b, shifted, wnn_log(b, wnn_reduce_sum(b, wnn_exp(b, shifted), &o)));
    } else {
        y = wnn_softmax(b, in, ax);
    }
    if (y != NULL && in != x)
        y = wnn_reshape(b, y, d.rank, d.shape);
    return onx_out(im, n, 0, y);
}

/* ---- quantization ---- */

/* Scale and zero point shaped for WebNN: per-axis 1-D vectors become
** [C, 1, ..., 1] (trailing broadcast from axis). */
static wnn_operand *per_axis(onx_importer *im, wnn_operand *v, uint32_t rank, int axis)
{
    wnn_operand_desc d;
    wnn_operand_get_desc(v, &d);
    if (d.rank != 1 || rank <= 1)
        return v;
    uint32_t s[WNN_MAX_RANK];
    uint32_t r = rank - (uint32_t)axis;
    s[0] = d.shape[0];
    for (uint32_t i = 1; i < r; i++)
        s[i] = 1;
    return wnn_reshape(im->b, v, r, s);
}

static wnn_status lower_quantize(onx_importer *im, const Onnx__NodeProto *n)
{
    bool quantize = n->op_type[0] == 'Q';
    wnn_operand *x = onx_in_op(im, n, 0), *scale = onx_in_op(im, n, 1);
    if (x == NULL || scale == NULL)
        return im->status;
    wnn_operand_desc d;
    wnn_operand_get_desc(x, &d);
    wnn_operand_desc sd0;
    wnn_operand_get_desc(scale, &sd0);
    int axis = d.rank > 1 && sd0.rank == 1 ? onx_axis(im, onx_attr_int(n, "axis", 1), d.rank) : 0;
    if (axis < 0)
        return im->status;
    if (onx_attr_int(n, "block_size", 0) != 0)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "blocked quantization is not supported");
    wnn_operand *zp = onx_in(im, n, 2) ? onx_in_op(im, n, 2) : NULL;
    wnn_operand_desc sd;
    wnn_operand_get_desc(scale, &sd);
    if (zp == NULL) {
        /* ONNX defaults to a uint8 zero point of 0 */
        wnn_operand_desc zd = sd;
        zd.data_type = quantize ? WNN_DATA_TYPE_UINT8 : d.data_type;
        uint64_t count = wnn_operand_desc_element_count(&zd);
        static const uint8_t zeros[4096];
        if (count > sizeof zeros)
            return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "a missing zero point with %llu scales",
                            (unsigned long long)count);
        zp = wnn_graph_builder_constant(im->b, &zd, zeros, (size_t)count);
    }
    scale = per_axis(im, scale, d.rank, axis);
    zp = per_axis(im, zp, d.rank, axis);
    return onx_out(im, n, 0, quantize ? wnn_quantize_linear(im->b, x, scale, zp)
                                      : wnn_dequantize_linear(im->b, x, scale, zp));
}

const onx_op_entry onx_ops_elementwise[] = {
    {"Abs", lower_unary}, {"Neg", lower_unary}, {"Exp", lower_unary}, {"Log", lower_unary},
    {"Sqrt", lower_unary}, {"Relu", lower_unary}, {"Sigmoid", lower_unary}, {"Tanh", lower_unary},
    {"Ceil", lower_unary}, {"Floor", lower_unary}, {"Cos", lower_unary}, {"Sin", lower_unary},
    {"Tan", lower_unary}, {"Erf", lower_unary}, {"Reciprocal", lower_unary}, {"Round", lower_unary},
    {"Sign", lower_unary}, {"Softplus", lower_unary}, {"Softsign", lower_unary}, {"IsNaN", lower_unary},
    {"Not", lower_unary}, {"HardSwish", lower_unary},
    {"Add", lower_binary}, {"Sub", lower_binary}, {"Mul", lower_binary}, {"Div", lower_binary},
    {"Equal", lower_binary}, {"Greater", lower_binary}, {"Less", lower_binary},
    {"GreaterOrEqual", lower_binary}, {"LessOrEqual", lower_binary}, {"And", lower_binary},
    {"Or", lower_binary}, {"Xor", lower_binary}, {"Max", lower_binary}, {"Min", lower_binary},
    {"Sum", lower_binary}, {"Mean", lower_binary}, {"PRelu", lower_binary}, {"Pow", lower_pow},
    {"LeakyRelu", lower_activation}, {"Elu", lower_activation}, {"Selu", lower_activation},
    {"HardSigmoid", lower_activation}, {"Gelu", lower_activation}, {"Mish", lower_activation},
    {"ThresholdedRelu", lower_activation}, {"Celu", lower_activation}, {"Shrink", lower_activation},
    {"Sinh", lower_activation}, {"Cosh", lower_activation}, {"Asinh", lower_activation},
    {"Acosh", lower_activation}, {"Atanh", lower_activation}, {"Acos", lower_inverse_trig},
    {"Asin", lower_inverse_trig}, {"Atan", lower_inverse_trig}, {"BitShift", lower_bitshift}, {"IsInf", lower_activation},
    {"Cast", lower_cast}, {"CastLike", lower_cast_like}, {"Clip", lower_clip}, {"Where", lower_where},
    {"ReduceSum", lower_reduce}, {"ReduceMean", lower_reduce}, {"ReduceMax", lower_reduce},
    {"ReduceMin", lower_reduce}, {"ReduceProd", lower_reduce}, {"ReduceL1", lower_reduce},
    {"ReduceL2", lower_reduce}, {"ReduceLogSum", lower_reduce}, {"ReduceLogSumExp", lower_reduce},
    {"ReduceSumSquare", lower_reduce}, {"ArgMax", lower_arg}, {"ArgMin", lower_arg},
    {"CumSum", lower_cumsum}, {"Softmax", lower_softmax}, {"LogSoftmax", lower_softmax},
    {"QuantizeLinear", lower_quantize}, {"DequantizeLinear", lower_quantize},
    {NULL, NULL},
};
