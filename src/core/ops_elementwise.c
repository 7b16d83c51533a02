/* SPDX-License-Identifier: Apache-2.0 */
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
    if (!wnn__broadcast_shapes(da, db, &out))
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

/* A clamp bound as the caller gave it: a double, or an exact integer
** (negative ? -magnitude : magnitude). */
typedef struct clamp_bound {
    bool exact;
    bool negative;
    uint64_t magnitude;
    double value;
} clamp_bound;

static clamp_bound bound_from_number(const wnn_number *n)
{
    clamp_bound r = {n->is_integer, n->negative && n->magnitude != 0, n->magnitude, n->value};
    if (n->is_integer)
        r.value = n->negative ? -(double)n->magnitude : (double)n->magnitude;
    return r;
}

/* Compares an exact integer with a finite or infinite double (not NaN):
** -1, 0 or 1 as e is below, equal to or above d. */
static int compare_exact_double(const clamp_bound *e, double d)
{
    if (d >= 0x1p64)
        return -1;
    if (d <= -0x1p64)
        return 1;
    double t = trunc(d);
    bool t_neg = t < 0;
    uint64_t t_mag = (uint64_t)(t_neg ? -t : t);
    if (t_mag == 0)
        t_neg = false;
    int c;
    if (e->negative != t_neg)
        c = e->negative ? -1 : 1;
    else if (e->magnitude == t_mag)
        c = 0;
    else
        c = (e->magnitude < t_mag) != e->negative ? -1 : 1;
    if (c == 0 && d != t) /* same integer part: the fraction decides */
        c = d > t ? -1 : 1;
    return c;
}

/* Whether lo > hi exactly; false when either is NaN. */
static bool bound_greater(const clamp_bound *lo, const clamp_bound *hi)
{
    if (!lo->exact && !hi->exact)
        return lo->value > hi->value;
    if (lo->exact && hi->exact) {
        if (lo->negative != hi->negative)
            return hi->negative;
        return lo->negative ? lo->magnitude < hi->magnitude : lo->magnitude > hi->magnitude;
    }
    if (lo->exact)
        return hi->value == hi->value && compare_exact_double(lo, hi->value) > 0;
    return lo->value == lo->value && compare_exact_double(hi, lo->value) < 0;
}

/* A bound cast to int64 or uint64 (saturating) as a bit pattern; a NaN
** bound becomes fallback (no bound). */
static uint64_t bound_bits(const clamp_bound *v, wnn_data_type t, uint64_t fallback)
{
    if (t == WNN_DATA_TYPE_INT64) {
        if (v->exact) {
            if (v->negative)
                return v->magnitude >= (uint64_t)1 << 63 ? (uint64_t)INT64_MIN : 0u - v->magnitude;
            return v->magnitude > (uint64_t)INT64_MAX ? (uint64_t)INT64_MAX : v->magnitude;
        }
        if (v->value != v->value)
            return fallback;
        if (v->value <= -0x1p63)
            return (uint64_t)INT64_MIN;
        if (v->value >= 0x1p63)
            return (uint64_t)INT64_MAX;
        return (uint64_t)(int64_t)v->value;
    }
    if (v->exact)
        return v->negative ? 0 : v->magnitude;
    if (v->value != v->value)
        return fallback;
    if (v->value <= 0)
        return 0;
    if (v->value >= 0x1p64)
        return UINT64_MAX;
    return (uint64_t)v->value;
}

wnn_operand *wnn_clamp(wnn_graph_builder *b, wnn_operand *x, const wnn_clamp_options *o)
{
    static const wnn_clamp_options defaults = WNN_CLAMP_OPTIONS_INIT;
    if (!o)
        o = &defaults;
    clamp_bound lo = {false, false, 0, -INFINITY}, hi = {false, false, 0, INFINITY};
    if (o->min_value)
        lo = bound_from_number(o->min_value);
    if (o->max_value)
        hi = bound_from_number(o->max_value);
    static const char *const names[1] = {"input"};
    if (!wnn__op_begin(b, "clamp", &x, names, 1) || !wnn__op_check_chain(b, "clamp", o->next_in_chain))
        return NULL;
    if (bound_greater(&lo, &hi))
        return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "clamp: minValue %.17g is greater than maxValue %.17g",
                             lo.value, hi.value);
    wnn__attrs attrs = {.clamp = {lo.value, hi.value, 0, 0}};
    wnn_data_type t = wnn__desc(x)->data_type;
    if (t == WNN_DATA_TYPE_INT64) {
        attrs.clamp.lo = bound_bits(&lo, t, (uint64_t)INT64_MIN);
        attrs.clamp.hi = bound_bits(&hi, t, (uint64_t)INT64_MAX);
    } else if (t == WNN_DATA_TYPE_UINT64) {
        attrs.clamp.lo = bound_bits(&lo, t, 0);
        attrs.clamp.hi = bound_bits(&hi, t, UINT64_MAX);
    }
    return wnn__unary(b, WNN__OP_CLAMP, x, WNN__TYPES_ALL, &attrs);
}

wnn_operand *wnn_cast(wnn_graph_builder *b, wnn_operand *x, wnn_data_type type)
{
    static const char *const names[1] = {"input"};
    if (!wnn__op_begin(b, "cast", &x, names, 1) || !wnn__op_check_type(b, "cast", "input", x, WNN__TYPES_ALL))
        return NULL;
    if ((unsigned)type >= 32 || !((1u << type) & WNN__TYPES_ALL))
        return wnn__op_error(b, WNN_STATUS_UNSUPPORTED_DATA_TYPE, "cast: type %d is not a castable data type", (int)type);
    wnn_operand_desc out = *wnn__desc(x);
    out.data_type = type;
    wnn__attrs attrs = {.cast = {type}};
    return wnn__op_add_node(b, WNN__OP_CAST, &x, 1, &out, 1, &attrs, NULL);
}
