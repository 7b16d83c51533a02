/*
** ops_elementwise.c -- builder methods of the element-wise operators:
** binary arithmetic with broadcasting, unary math and activations, clamp and
** cast. Each checks WebNN's rules and infers the output descriptor.
*/
#include <math.h>

#include "core/builder.h"

static wnn_operand *binary(wnn_graph_builder *b, wnn__op op, wnn_operand *a, wnn_operand *x, uint32_t types)
{
    const char *name = wnn__op_name(op);
    wnn_operand *in[2] = {a, x};
    static const char *const names[2] = {"a", "b"};
    if (!wnn__op_begin(b, name, in, names, 2) || !wnn__op_check_type(b, name, "a", a, types))
        return NULL;
    const wnn_operand_desc *da = wnn__desc(a), *db = wnn__desc(x);
    if (da->data_type != db->data_type)
        return wnn__op_error(b, WNN_STATUS_UNSUPPORTED_DATA_TYPE, "%s: a is %s but b is %s, they must match", name,
                             wnn_data_type_name(da->data_type), wnn_data_type_name(db->data_type));
    wnn_operand_desc out;
    if (!wnn__broadcast_bidirectional(da, db, &out))
        return wnn__op_error(b, WNN_STATUS_SHAPE_MISMATCH, "%s: shapes of a and b cannot be broadcast", name);
    return wnn__op_add_node(b, op, in, 2, &out, 1, NULL, NULL);
}

wnn_operand *wnn_add(wnn_graph_builder *b, wnn_operand *a, wnn_operand *x) { return binary(b, WNN__OP_ADD, a, x, WNN__TYPES_ALL); }
wnn_operand *wnn_sub(wnn_graph_builder *b, wnn_operand *a, wnn_operand *x) { return binary(b, WNN__OP_SUB, a, x, WNN__TYPES_ALL); }
wnn_operand *wnn_mul(wnn_graph_builder *b, wnn_operand *a, wnn_operand *x) { return binary(b, WNN__OP_MUL, a, x, WNN__TYPES_ALL); }
wnn_operand *wnn_div(wnn_graph_builder *b, wnn_operand *a, wnn_operand *x) { return binary(b, WNN__OP_DIV, a, x, WNN__TYPES_ALL); }
wnn_operand *wnn_max(wnn_graph_builder *b, wnn_operand *a, wnn_operand *x) { return binary(b, WNN__OP_MAX, a, x, WNN__TYPES_ALL); }
wnn_operand *wnn_min(wnn_graph_builder *b, wnn_operand *a, wnn_operand *x) { return binary(b, WNN__OP_MIN, a, x, WNN__TYPES_ALL); }
wnn_operand *wnn_pow(wnn_graph_builder *b, wnn_operand *a, wnn_operand *x) { return binary(b, WNN__OP_POW, a, x, WNN__TYPES_ALL); }

/* A one-input operator whose output has the input's descriptor. */
wnn_operand *wnn__unary(wnn_graph_builder *b, wnn__op op, wnn_operand *x, uint32_t types, const wnn__attrs *attrs)
{
    const char *name = wnn__op_name(op);
    static const char *const names[1] = {"input"};
    if (!wnn__op_begin(b, name, &x, names, 1) || !wnn__op_check_type(b, name, "input", x, types))
        return NULL;
    return wnn__op_add_node(b, op, &x, 1, wnn__desc(x), 1, attrs, NULL);
}

wnn_operand *wnn_abs(wnn_graph_builder *b, wnn_operand *x) { return wnn__unary(b, WNN__OP_ABS, x, WNN__TYPES_SIGNED, NULL); }
wnn_operand *wnn_neg(wnn_graph_builder *b, wnn_operand *x) { return wnn__unary(b, WNN__OP_NEG, x, WNN__TYPES_SIGNED, NULL); }
wnn_operand *wnn_exp(wnn_graph_builder *b, wnn_operand *x) { return wnn__unary(b, WNN__OP_EXP, x, WNN__TYPES_FLOAT, NULL); }
wnn_operand *wnn_log(wnn_graph_builder *b, wnn_operand *x) { return wnn__unary(b, WNN__OP_LOG, x, WNN__TYPES_FLOAT, NULL); }
wnn_operand *wnn_sqrt(wnn_graph_builder *b, wnn_operand *x) { return wnn__unary(b, WNN__OP_SQRT, x, WNN__TYPES_FLOAT, NULL); }
wnn_operand *wnn_relu(wnn_graph_builder *b, wnn_operand *x) { return wnn__unary(b, WNN__OP_RELU, x, WNN__TYPES_SIGNED, NULL); }
wnn_operand *wnn_sigmoid(wnn_graph_builder *b, wnn_operand *x) { return wnn__unary(b, WNN__OP_SIGMOID, x, WNN__TYPES_FLOAT, NULL); }
wnn_operand *wnn_tanh(wnn_graph_builder *b, wnn_operand *x) { return wnn__unary(b, WNN__OP_TANH, x, WNN__TYPES_FLOAT, NULL); }

wnn_operand *wnn_clamp(wnn_graph_builder *b, wnn_operand *x, const wnn_clamp_options *o)
{
    wnn__attrs attrs = {.clamp = {-INFINITY, INFINITY}};
    if (o && o->has_min_value)
        attrs.clamp.min_value = o->min_value;
    if (o && o->has_max_value)
        attrs.clamp.max_value = o->max_value;
    static const char *const names[1] = {"input"};
    if (!wnn__op_begin(b, "clamp", &x, names, 1))
        return NULL;
    if (attrs.clamp.min_value > attrs.clamp.max_value)
        return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "clamp: minValue %g is greater than maxValue %g",
                             attrs.clamp.min_value, attrs.clamp.max_value);
    return wnn__unary(b, WNN__OP_CLAMP, x, WNN__TYPES_ALL, &attrs);
}

wnn_operand *wnn_cast(wnn_graph_builder *b, wnn_operand *x, wnn_data_type type)
{
    static const char *const names[1] = {"input"};
    if (!wnn__op_begin(b, "cast", &x, names, 1) || !wnn__op_check_type(b, "cast", "input", x, WNN__TYPES_ALL))
        return NULL;
    if (type == WNN_DATA_TYPE_INVALID || !((1u << type) & WNN__TYPES_ALL))
        return wnn__op_error(b, WNN_STATUS_UNSUPPORTED_DATA_TYPE, "cast: type %d is not a castable data type", (int)type);
    wnn_operand_desc out = *wnn__desc(x);
    out.data_type = type;
    wnn__attrs attrs = {.cast = {type}};
    return wnn__op_add_node(b, WNN__OP_CAST, &x, 1, &out, 1, &attrs, NULL);
}
