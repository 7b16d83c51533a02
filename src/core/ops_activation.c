/* SPDX-License-Identifier: Apache-2.0 */
/*
** ops_activation.c -- builder methods of the element-wise operators:
** unary math (ceil ... roundEven, sign, identity), isNaN/isInfinite, the
** comparisons, the logical operators, where, the activations with and
** without options, and prelu. Each checks WebNN's rules and infers the
** output descriptor.
*/
#include <math.h>

#include "core/builder.h"

#define TYPES_SIGN (WNN__TYPES_FLOAT | WNN__T(INT64) | WNN__T(INT32) | WNN__T(INT8))

static const char *const input_name[1] = {"input"};

/* ---- unary math ---------------------------------------------------------- */

wnn_operand *wnn_ceil(wnn_graph_builder *b, wnn_operand *x) { return wnn__unary(b, WNN__OP_CEIL, x, WNN__TYPES_FLOAT, NULL); }
wnn_operand *wnn_floor(wnn_graph_builder *b, wnn_operand *x) { return wnn__unary(b, WNN__OP_FLOOR, x, WNN__TYPES_FLOAT, NULL); }
wnn_operand *wnn_cos(wnn_graph_builder *b, wnn_operand *x) { return wnn__unary(b, WNN__OP_COS, x, WNN__TYPES_FLOAT, NULL); }
wnn_operand *wnn_sin(wnn_graph_builder *b, wnn_operand *x) { return wnn__unary(b, WNN__OP_SIN, x, WNN__TYPES_FLOAT, NULL); }
wnn_operand *wnn_tan(wnn_graph_builder *b, wnn_operand *x) { return wnn__unary(b, WNN__OP_TAN, x, WNN__TYPES_FLOAT, NULL); }
wnn_operand *wnn_erf(wnn_graph_builder *b, wnn_operand *x) { return wnn__unary(b, WNN__OP_ERF, x, WNN__TYPES_FLOAT, NULL); }
wnn_operand *wnn_reciprocal(wnn_graph_builder *b, wnn_operand *x) { return wnn__unary(b, WNN__OP_RECIPROCAL, x, WNN__TYPES_FLOAT, NULL); }
wnn_operand *wnn_round_even(wnn_graph_builder *b, wnn_operand *x) { return wnn__unary(b, WNN__OP_ROUND_EVEN, x, WNN__TYPES_FLOAT, NULL); }
wnn_operand *wnn_sign(wnn_graph_builder *b, wnn_operand *x) { return wnn__unary(b, WNN__OP_SIGN, x, TYPES_SIGN, NULL); }
wnn_operand *wnn_identity(wnn_graph_builder *b, wnn_operand *x) { return wnn__unary(b, WNN__OP_IDENTITY, x, WNN__TYPES_ALL, NULL); }

/* A one-input operator whose output is uint8 of the input's shape. */
static wnn_operand *unary_to_uint8(wnn_graph_builder *b, wnn__op op, wnn_operand *x, uint32_t types,
                                   const char *name)
{
    const char *op_name = wnn__op_name(op);
    if (!wnn__op_begin(b, op_name, &x, &name, 1) || !wnn__op_check_type(b, op_name, name, x, types))
        return NULL;
    wnn_operand_desc out = *wnn__desc(x);
    out.data_type = WNN_DATA_TYPE_UINT8;
    return wnn__op_add_node(b, op, &x, 1, &out, 1, NULL, NULL);
}

wnn_operand *wnn_is_nan(wnn_graph_builder *b, wnn_operand *x)
{
    return unary_to_uint8(b, WNN__OP_IS_NAN, x, WNN__TYPES_ALL, "a");
}

wnn_operand *wnn_is_infinite(wnn_graph_builder *b, wnn_operand *x)
{
    return unary_to_uint8(b, WNN__OP_IS_INFINITE, x, WNN__TYPES_ALL, "a");
}

wnn_operand *wnn_logical_not(wnn_graph_builder *b, wnn_operand *a)
{
    return unary_to_uint8(b, WNN__OP_LOGICAL_NOT, a, WNN__T(UINT8), "a");
}

/* ---- comparisons and logical operators ------------------------------------ */

/* Two operands of one type in types, broadcast bidirectionally, giving a
** tensor of out_type (WNN_DATA_TYPE_INVALID: a's type). */
static wnn_operand *broadcast_pair(wnn_graph_builder *b, wnn__op op, wnn_operand *a, wnn_operand *x, uint32_t types,
                                   wnn_data_type out_type, const char *const names[2])
{
    const char *name = wnn__op_name(op);
    wnn_operand *in[2] = {a, x};
    if (!wnn__op_begin(b, name, in, names, 2) || !wnn__op_check_type(b, name, names[0], a, types))
        return NULL;
    const wnn_operand_desc *da = wnn__desc(a), *db = wnn__desc(x);
    if (da->data_type != db->data_type)
        return wnn__op_error(b, WNN_STATUS_UNSUPPORTED_DATA_TYPE, "%s: %s is %s but %s is %s, they must match", name,
                             names[0], wnn_data_type_name(da->data_type), names[1],
                             wnn_data_type_name(db->data_type));
    wnn_operand_desc out;
    if (!wnn__broadcast_shapes(da, db, &out))
        return wnn__op_error(b, WNN_STATUS_SHAPE_MISMATCH, "%s: shapes of %s and %s cannot be broadcast", name,
                             names[0], names[1]);
    if (out_type != WNN_DATA_TYPE_INVALID)
        out.data_type = out_type;
    return wnn__op_add_node(b, op, in, 2, &out, 1, NULL, NULL);
}

static const char *const ab_names[2] = {"a", "b"};

static wnn_operand *compare(wnn_graph_builder *b, wnn__op op, wnn_operand *a, wnn_operand *x)
{
    return broadcast_pair(b, op, a, x, WNN__TYPES_ALL, WNN_DATA_TYPE_UINT8, ab_names);
}

static wnn_operand *logical(wnn_graph_builder *b, wnn__op op, wnn_operand *a, wnn_operand *x)
{
    return broadcast_pair(b, op, a, x, WNN__T(UINT8), WNN_DATA_TYPE_UINT8, ab_names);
}

wnn_operand *wnn_equal(wnn_graph_builder *b, wnn_operand *a, wnn_operand *x) { return compare(b, WNN__OP_EQUAL, a, x); }
wnn_operand *wnn_not_equal(wnn_graph_builder *b, wnn_operand *a, wnn_operand *x) { return compare(b, WNN__OP_NOT_EQUAL, a, x); }
wnn_operand *wnn_greater(wnn_graph_builder *b, wnn_operand *a, wnn_operand *x) { return compare(b, WNN__OP_GREATER, a, x); }
wnn_operand *wnn_greater_or_equal(wnn_graph_builder *b, wnn_operand *a, wnn_operand *x) { return compare(b, WNN__OP_GREATER_OR_EQUAL, a, x); }
wnn_operand *wnn_lesser(wnn_graph_builder *b, wnn_operand *a, wnn_operand *x) { return compare(b, WNN__OP_LESSER, a, x); }
wnn_operand *wnn_lesser_or_equal(wnn_graph_builder *b, wnn_operand *a, wnn_operand *x) { return compare(b, WNN__OP_LESSER_OR_EQUAL, a, x); }
wnn_operand *wnn_logical_and(wnn_graph_builder *b, wnn_operand *a, wnn_operand *x) { return logical(b, WNN__OP_LOGICAL_AND, a, x); }
wnn_operand *wnn_logical_or(wnn_graph_builder *b, wnn_operand *a, wnn_operand *x) { return logical(b, WNN__OP_LOGICAL_OR, a, x); }
wnn_operand *wnn_logical_xor(wnn_graph_builder *b, wnn_operand *a, wnn_operand *x) { return logical(b, WNN__OP_LOGICAL_XOR, a, x); }

wnn_operand *wnn_where(wnn_graph_builder *b, wnn_operand *condition, wnn_operand *t, wnn_operand *f)
{
    static const char *const names[3] = {"condition", "trueValue", "falseValue"};
    wnn_operand *in[3] = {condition, t, f};
    if (!wnn__op_begin(b, "where", in, names, 3) ||
        !wnn__op_check_type(b, "where", "condition", condition, WNN__T(UINT8)) ||
        !wnn__op_check_type(b, "where", "trueValue", t, WNN__TYPES_ALL))
        return NULL;
    const wnn_operand_desc *dc = wnn__desc(condition), *dt = wnn__desc(t), *df = wnn__desc(f);
    if (dt->data_type != df->data_type)
        return wnn__op_error(b, WNN_STATUS_UNSUPPORTED_DATA_TYPE,
                             "where: trueValue is %s but falseValue is %s, they must match",
                             wnn_data_type_name(dt->data_type), wnn_data_type_name(df->data_type));
    wnn_operand_desc values, out;
    if (!wnn__broadcast_shapes(dt, df, &values) || !wnn__broadcast_shapes(&values, dc, &out))
        return wnn__op_error(b, WNN_STATUS_SHAPE_MISMATCH,
                             "where: shapes of condition, trueValue and falseValue cannot be broadcast");
    out.data_type = dt->data_type;
    return wnn__op_add_node(b, WNN__OP_WHERE, in, 3, &out, 1, NULL, NULL);
}

/* ---- activations ------------------------------------------------------------ */

/* A float activation with alpha and beta, which must be finite (WebNN's
** restricted double); next is the options' extension chain. */
static wnn_operand *activation(wnn_graph_builder *b, wnn__op op, wnn_operand *x, const wnn_chained_struct *next,
                               double alpha, double beta)
{
    const char *name = wnn__op_name(op);
    if (!wnn__op_begin(b, name, &x, input_name, 1) || !wnn__op_check_chain(b, name, next))
        return NULL;
    if (!isfinite(alpha))
        return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "%s: alpha is %g, must be finite", name, alpha);
    if (!isfinite(beta))
        return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "%s: beta is %g, must be finite", name, beta);
    wnn__attrs attrs = {.activation = {alpha, beta}};
    return wnn__unary(b, op, x, WNN__TYPES_FLOAT, &attrs);
}

/* An optional option: the pointed-to value, or WebNN's default for NULL. */
static double or_default(const double *value, double fallback) { return value ? *value : fallback; }

wnn_operand *wnn_elu(wnn_graph_builder *b, wnn_operand *x, const wnn_elu_options *o)
{
    static const wnn_elu_options defaults = WNN_ELU_OPTIONS_INIT;
    if (!o)
        o = &defaults;
    return activation(b, WNN__OP_ELU, x, o->next_in_chain, or_default(o->alpha, 1.0), 0.0);
}

wnn_operand *wnn_hard_sigmoid(wnn_graph_builder *b, wnn_operand *x, const wnn_hard_sigmoid_options *o)
{
    static const wnn_hard_sigmoid_options defaults = WNN_HARD_SIGMOID_OPTIONS_INIT;
    if (!o)
        o = &defaults;
    return activation(b, WNN__OP_HARD_SIGMOID, x, o->next_in_chain, or_default(o->alpha, 0.2),
                      or_default(o->beta, 0.5));
}

wnn_operand *wnn_leaky_relu(wnn_graph_builder *b, wnn_operand *x, const wnn_leaky_relu_options *o)
{
    static const wnn_leaky_relu_options defaults = WNN_LEAKY_RELU_OPTIONS_INIT;
    if (!o)
        o = &defaults;
    return activation(b, WNN__OP_LEAKY_RELU, x, o->next_in_chain, or_default(o->alpha, 0.01), 0.0);
}

wnn_operand *wnn_linear(wnn_graph_builder *b, wnn_operand *x, const wnn_linear_options *o)
{
    static const wnn_linear_options defaults = WNN_LINEAR_OPTIONS_INIT;
    if (!o)
        o = &defaults;
    return activation(b, WNN__OP_LINEAR, x, o->next_in_chain, or_default(o->alpha, 1.0), o->beta);
}

wnn_operand *wnn_gelu(wnn_graph_builder *b, wnn_operand *x) { return wnn__unary(b, WNN__OP_GELU, x, WNN__TYPES_FLOAT, NULL); }
wnn_operand *wnn_hard_swish(wnn_graph_builder *b, wnn_operand *x) { return wnn__unary(b, WNN__OP_HARD_SWISH, x, WNN__TYPES_FLOAT, NULL); }
wnn_operand *wnn_softplus(wnn_graph_builder *b, wnn_operand *x) { return wnn__unary(b, WNN__OP_SOFTPLUS, x, WNN__TYPES_FLOAT, NULL); }
wnn_operand *wnn_softsign(wnn_graph_builder *b, wnn_operand *x) { return wnn__unary(b, WNN__OP_SOFTSIGN, x, WNN__TYPES_FLOAT, NULL); }

wnn_operand *wnn_prelu(wnn_graph_builder *b, wnn_operand *x, wnn_operand *slope)
{
    static const char *const names[2] = {"input", "slope"};
    return broadcast_pair(b, WNN__OP_PRELU, x, slope, TYPES_SIGN, WNN_DATA_TYPE_INVALID, names);
}
