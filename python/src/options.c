/* SPDX-License-Identifier: Apache-2.0 */
/*
** options.c -- the keyword options of the builder operators: for each wnn
** options struct, which WebNN option sits where and how a Python value is
** turned into it. One generic filler serves every operator.
*/
#include "ops.h"

#include <string.h>

_Static_assert(sizeof(wnn_input_layout) == sizeof(int), "enums are int-sized");
_Static_assert(sizeof(wnn_recurrent_activation) == sizeof(int), "enums are int-sized");

/* Field initialisers: S is the options struct, m its member. Every
** struct's defaults are its zero bytes (wnn.h, "Operator options"). */
#define F(S, key, kind, m) {key, kind, 0, offsetof(S, m), -1, NULL}
#define F_ARRAY(S, key, kind, n, m) {key, kind, n, offsetof(S, m), -1, NULL}
#define F_ENUM(S, key, m, names) {key, FK_ENUM, 0, offsetof(S, m), -1, names}
#define F_AXES(S, key, m, count) {key, FK_AXES, WNN_MAX_RANK, offsetof(S, m), offsetof(S, count), NULL}
#define F_ACTIVATIONS(S, n) \
    {"activations", FK_ACTIVATIONS, n, offsetof(S, activations), offsetof(S, activations_count), activation_names}
#define F_END {NULL, 0, 0, 0, -1, NULL}
#define SPEC(name, S) const wnnpy_options wnnpy_##name##_opts = {sizeof(S), name##_fields}

static const char *const input_layouts[] = {"nchw", "nhwc", NULL};
static const char *const conv2d_filter_layouts[] = {"oihw", "hwio", "ohwi", "ihwo", NULL};
static const char *const conv_transpose2d_filter_layouts[] = {"iohw", "hwoi", "ohwi", NULL};
static const char *const rounding_types[] = {"floor", "ceil", NULL};
static const char *const interpolation_modes[] = {"nearest-neighbor", "linear", NULL};
static const char *const pad_modes[] = {"constant", "edge", "reflection", NULL};
static const char *const activation_names[] = {"relu", "sigmoid", "tanh", NULL};
static const char *const directions[] = {"forward", "backward", "both", NULL};
static const char *const gru_layouts[] = {"zrn", "rzn", NULL};
static const char *const lstm_layouts[] = {"iofg", "ifgo", NULL};

static const wnnpy_field clamp_fields[] = {F(wnn_clamp_options, "min_value", FK_NUMBER, min_value),
                                          F(wnn_clamp_options, "max_value", FK_NUMBER, max_value), F_END};
SPEC(clamp, wnn_clamp_options);

static const wnnpy_field gemm_fields[] = {
    F(wnn_gemm_options, "c", FK_OPERAND, c),
    F(wnn_gemm_options, "alpha", FK_OPT_DOUBLE, alpha),
    F(wnn_gemm_options, "beta", FK_OPT_DOUBLE, beta),
    F(wnn_gemm_options, "a_transpose", FK_BOOL, a_transpose),
    F(wnn_gemm_options, "b_transpose", FK_BOOL, b_transpose),
    F_END};
SPEC(gemm, wnn_gemm_options);

static const wnnpy_field elu_fields[] = {F(wnn_elu_options, "alpha", FK_OPT_DOUBLE, alpha), F_END};
SPEC(elu, wnn_elu_options);

static const wnnpy_field hard_sigmoid_fields[] = {F(wnn_hard_sigmoid_options, "alpha", FK_OPT_DOUBLE, alpha),
                                                  F(wnn_hard_sigmoid_options, "beta", FK_OPT_DOUBLE, beta), F_END};
SPEC(hard_sigmoid, wnn_hard_sigmoid_options);

static const wnnpy_field leaky_relu_fields[] = {F(wnn_leaky_relu_options, "alpha", FK_OPT_DOUBLE, alpha), F_END};
SPEC(leaky_relu, wnn_leaky_relu_options);

static const wnnpy_field linear_fields[] = {F(wnn_linear_options, "alpha", FK_OPT_DOUBLE, alpha),
                                            F(wnn_linear_options, "beta", FK_DOUBLE, beta), F_END};
SPEC(linear, wnn_linear_options);

static const wnnpy_field reduce_fields[] = {
    F_AXES(wnn_reduce_options, "axes", axes, axes_count),
    F(wnn_reduce_options, "keep_dimensions", FK_BOOL, keep_dimensions), F_END};
SPEC(reduce, wnn_reduce_options);

static const wnnpy_field arg_min_max_fields[] = {
    F(wnn_arg_min_max_options, "keep_dimensions", FK_BOOL, keep_dimensions),
    F(wnn_arg_min_max_options, "output_data_type", FK_DTYPE, output_data_type), F_END};
SPEC(arg_min_max, wnn_arg_min_max_options);

static const wnnpy_field cumulative_sum_fields[] = {
    F(wnn_cumulative_sum_options, "exclusive", FK_BOOL, exclusive),
    F(wnn_cumulative_sum_options, "reversed", FK_BOOL, reversed), F_END};
SPEC(cumulative_sum, wnn_cumulative_sum_options);

static const wnnpy_field conv2d_fields[] = {
    F_ARRAY(wnn_conv2d_options, "padding", FK_U32_ARRAY, 4, padding),
    F_ARRAY(wnn_conv2d_options, "strides", FK_U32_ARRAY, 2, strides),
    F_ARRAY(wnn_conv2d_options, "dilations", FK_U32_ARRAY, 2, dilations),
    F(wnn_conv2d_options, "groups", FK_U32, groups),
    F_ENUM(wnn_conv2d_options, "input_layout", input_layout, input_layouts),
    F_ENUM(wnn_conv2d_options, "filter_layout", filter_layout, conv2d_filter_layouts),
    F(wnn_conv2d_options, "bias", FK_OPERAND, bias),
    F_END};
SPEC(conv2d, wnn_conv2d_options);

static const wnnpy_field conv_transpose2d_fields[] = {
    F_ARRAY(wnn_conv_transpose2d_options, "padding", FK_U32_ARRAY, 4, padding),
    F_ARRAY(wnn_conv_transpose2d_options, "strides", FK_U32_ARRAY, 2, strides),
    F_ARRAY(wnn_conv_transpose2d_options, "dilations", FK_U32_ARRAY, 2, dilations),
    F_ARRAY(wnn_conv_transpose2d_options, "output_padding", FK_U32_ARRAY, 2, output_padding),
    F_ARRAY(wnn_conv_transpose2d_options, "output_sizes", FK_U32_ARRAY, 2, output_sizes),
    F(wnn_conv_transpose2d_options, "groups", FK_U32, groups),
    F_ENUM(wnn_conv_transpose2d_options, "input_layout", input_layout, input_layouts),
    F_ENUM(wnn_conv_transpose2d_options, "filter_layout", filter_layout, conv_transpose2d_filter_layouts),
    F(wnn_conv_transpose2d_options, "bias", FK_OPERAND, bias),
    F_END};
SPEC(conv_transpose2d, wnn_conv_transpose2d_options);

static const wnnpy_field pool2d_fields[] = {
    F_ARRAY(wnn_pool2d_options, "window_dimensions", FK_U32_ARRAY, 2, window_dimensions),
    F_ARRAY(wnn_pool2d_options, "padding", FK_U32_ARRAY, 4, padding),
    F_ARRAY(wnn_pool2d_options, "strides", FK_U32_ARRAY, 2, strides),
    F_ARRAY(wnn_pool2d_options, "dilations", FK_U32_ARRAY, 2, dilations),
    F_ENUM(wnn_pool2d_options, "layout", layout, input_layouts),
    F_ENUM(wnn_pool2d_options, "rounding_type", rounding_type, rounding_types),
    F_ARRAY(wnn_pool2d_options, "output_sizes", FK_U32_ARRAY, 2, output_sizes),
    F_END};
SPEC(pool2d, wnn_pool2d_options);

static const wnnpy_field resample2d_fields[] = {
    F_ENUM(wnn_resample2d_options, "mode", mode, interpolation_modes),
    F_ARRAY(wnn_resample2d_options, "scales", FK_FLOAT_ARRAY, 2, scales),
    F_ARRAY(wnn_resample2d_options, "sizes", FK_U32_ARRAY, 2, sizes),
    F_ARRAY(wnn_resample2d_options, "axes", FK_U32_ARRAY, 2, axes),
    F_END};
SPEC(resample2d, wnn_resample2d_options);

static const wnnpy_field batch_normalization_fields[] = {
    F(wnn_batch_normalization_options, "scale", FK_OPERAND, scale),
    F(wnn_batch_normalization_options, "bias", FK_OPERAND, bias),
    F(wnn_batch_normalization_options, "axis", FK_OPT_U32, axis),
    F(wnn_batch_normalization_options, "epsilon", FK_OPT_DOUBLE, epsilon),
    F_END};
SPEC(batch_normalization, wnn_batch_normalization_options);

static const wnnpy_field instance_normalization_fields[] = {
    F(wnn_instance_normalization_options, "scale", FK_OPERAND, scale),
    F(wnn_instance_normalization_options, "bias", FK_OPERAND, bias),
    F(wnn_instance_normalization_options, "epsilon", FK_OPT_DOUBLE, epsilon),
    F_ENUM(wnn_instance_normalization_options, "layout", layout, input_layouts),
    F_END};
SPEC(instance_normalization, wnn_instance_normalization_options);

static const wnnpy_field layer_normalization_fields[] = {
    F(wnn_layer_normalization_options, "scale", FK_OPERAND, scale),
    F(wnn_layer_normalization_options, "bias", FK_OPERAND, bias),
    F_AXES(wnn_layer_normalization_options, "axes", axes, axes_count),
    F(wnn_layer_normalization_options, "epsilon", FK_OPT_DOUBLE, epsilon),
    F_END};
SPEC(layer_normalization, wnn_layer_normalization_options);

static const wnnpy_field pad_fields[] = {F_ENUM(wnn_pad_options, "mode", mode, pad_modes),
                                        F(wnn_pad_options, "value", FK_DOUBLE, value), F_END};
SPEC(pad, wnn_pad_options);

static const wnnpy_field split_fields[] = {F(wnn_split_options, "axis", FK_U32, axis), F_END};
SPEC(split, wnn_split_options);

static const wnnpy_field reverse_fields[] = {F_AXES(wnn_reverse_options, "axes", axes, axes_count), F_END};
SPEC(reverse, wnn_reverse_options);

static const wnnpy_field triangular_fields[] = {F(wnn_triangular_options, "upper", FK_NOT_BOOL, lower),
                                               F(wnn_triangular_options, "diagonal", FK_I32, diagonal), F_END};
SPEC(triangular, wnn_triangular_options);

static const wnnpy_field gather_fields[] = {F(wnn_gather_options, "axis", FK_U32, axis), F_END};
SPEC(gather, wnn_gather_options);

static const wnnpy_field scatter_fields[] = {F(wnn_scatter_options, "axis", FK_U32, axis), F_END};
SPEC(scatter, wnn_scatter_options);

static const wnnpy_field gru_fields[] = {
    F(wnn_gru_options, "bias", FK_OPERAND, bias),
    F(wnn_gru_options, "recurrent_bias", FK_OPERAND, recurrent_bias),
    F(wnn_gru_options, "initial_hidden_state", FK_OPERAND, initial_hidden_state),
    F(wnn_gru_options, "reset_after", FK_NOT_BOOL, reset_before),
    F(wnn_gru_options, "return_sequence", FK_BOOL, return_sequence),
    F_ENUM(wnn_gru_options, "direction", direction, directions),
    F_ENUM(wnn_gru_options, "layout", layout, gru_layouts),
    F_ACTIVATIONS(wnn_gru_options, 2),
    F_END};
SPEC(gru, wnn_gru_options);

static const wnnpy_field gru_cell_fields[] = {
    F(wnn_gru_cell_options, "bias", FK_OPERAND, bias),
    F(wnn_gru_cell_options, "recurrent_bias", FK_OPERAND, recurrent_bias),
    F(wnn_gru_cell_options, "reset_after", FK_NOT_BOOL, reset_before),
    F_ENUM(wnn_gru_cell_options, "layout", layout, gru_layouts),
    F_ACTIVATIONS(wnn_gru_cell_options, 2),
    F_END};
SPEC(gru_cell, wnn_gru_cell_options);

static const wnnpy_field lstm_fields[] = {
    F(wnn_lstm_options, "bias", FK_OPERAND, bias),
    F(wnn_lstm_options, "recurrent_bias", FK_OPERAND, recurrent_bias),
    F(wnn_lstm_options, "peephole_weight", FK_OPERAND, peephole_weight),
    F(wnn_lstm_options, "initial_hidden_state", FK_OPERAND, initial_hidden_state),
    F(wnn_lstm_options, "initial_cell_state", FK_OPERAND, initial_cell_state),
    F(wnn_lstm_options, "return_sequence", FK_BOOL, return_sequence),
    F_ENUM(wnn_lstm_options, "direction", direction, directions),
    F_ENUM(wnn_lstm_options, "layout", layout, lstm_layouts),
    F_ACTIVATIONS(wnn_lstm_options, 3),
    F_END};
SPEC(lstm, wnn_lstm_options);

static const wnnpy_field lstm_cell_fields[] = {
    F(wnn_lstm_cell_options, "bias", FK_OPERAND, bias),
    F(wnn_lstm_cell_options, "recurrent_bias", FK_OPERAND, recurrent_bias),
    F(wnn_lstm_cell_options, "peephole_weight", FK_OPERAND, peephole_weight),
    F_ENUM(wnn_lstm_cell_options, "layout", layout, lstm_layouts),
    F_ACTIVATIONS(wnn_lstm_cell_options, 3),
    F_END};
SPEC(lstm_cell, wnn_lstm_cell_options);

/* ------------------------------------------------------------------------ */
/* Filling                                                                   */
/* ------------------------------------------------------------------------ */

int wnnpy_option_index(const wnnpy_options *spec, const char *key)
{
    for (int i = 0; spec && spec->fields[i].name; i++)
        if (strcmp(spec->fields[i].name, key) == 0) return i;
    return -1;
}

static int enum_value(const char *const *names, PyObject *v, const char *op, const char *key, int *out)
{
    const char *s = PyUnicode_Check(v) ? PyUnicode_AsUTF8(v) : NULL;
    if (!s) {
        if (!PyErr_Occurred()) PyErr_Format(PyExc_TypeError, "%s: %s must be a str", op, key);
        return -1;
    }
    for (int i = 0; names[i]; i++)
        if (strcmp(names[i], s) == 0) return *out = i, 0;
    wnnpy_argument_error("%s: unknown %s '%s'", op, key, s);
    return -1;
}

/* A sequence of exactly n items (n 0: at most WNN_MAX_RANK) as a fast
** sequence; NULL with an exception otherwise. */
static PyObject *sequence(PyObject *v, unsigned n, const char *op, const char *key)
{
    PyObject *seq = PySequence_Fast(v, "");
    if (!seq) {
        PyErr_Clear();
        return PyErr_Format(PyExc_TypeError, "%s: %s must be a sequence", op, key);
    }
    Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
    if (n ? len != (Py_ssize_t)n : len > WNN_MAX_RANK) {
        Py_DECREF(seq);
        if (n) return wnnpy_argument_error("%s: %s must have %u entries, not %zd", op, key, n, len);
        return wnnpy_argument_error("%s: %s has %zd entries, at most %d are allowed", op, key, len, WNN_MAX_RANK);
    }
    return seq;
}

/* The MLNumber of v: a double, and for a Python int also the exact integer
** (WebNN's bigint). */
static int number(PyObject *v, wnn_number *out)
{
    *out = (wnn_number){PyFloat_AsDouble(v), false, false, 0};
    if (out->value == -1.0 && PyErr_Occurred()) return -1;
    if (PyLong_Check(v) && !PyBool_Check(v)) {
        PyObject *abs = PyNumber_Absolute(v);
        if (!abs) return -1;
        unsigned long long m = PyLong_AsUnsignedLongLong(abs);
        Py_DECREF(abs);
        if (m == (unsigned long long)-1 && PyErr_Occurred()) {
            PyErr_Clear(); /* beyond 64 bits: the double saturates */
            return 0;
        }
        out->is_integer = true;
        out->negative = out->value < 0;
        out->magnitude = m;
    }
    return 0;
}

/* Sets the option of field f from v; slot holds what a pointer member
** points at. */
static int fill_one(const wnnpy_field *f, PyObject *v, const char *op, char *base, wnnpy_option_slot *slot)
{
    char what[96];
    PyOS_snprintf(what, sizeof what, "%s: %s", op, f->name);
    void *p = base + f->off;
    switch (f->kind) {
    case FK_DOUBLE:
    case FK_OPT_DOUBLE: {
        double d = PyFloat_AsDouble(v);
        if (d == -1.0 && PyErr_Occurred()) return -1;
        if (f->kind == FK_DOUBLE) {
            *(double *)p = d;
        } else {
            slot->d = d;
            *(const double **)p = &slot->d;
        }
        break;
    }
    case FK_BOOL:
    case FK_NOT_BOOL: {
        int b = PyObject_IsTrue(v);
        if (b < 0) return -1;
        *(bool *)p = f->kind == FK_BOOL ? b : !b;
        break;
    }
    case FK_U32:
        if (wnnpy_uint32(v, what, (uint32_t *)p) < 0) return -1;
        break;
    case FK_OPT_U32:
        if (wnnpy_uint32(v, what, &slot->u) < 0) return -1;
        *(const uint32_t **)p = &slot->u;
        break;
    case FK_I32: {
        long l = PyLong_AsLong(v);
        if (l == -1 && PyErr_Occurred()) return -1;
        if (l < INT32_MIN || l > INT32_MAX) return wnnpy_argument_error("%s is out of range", what), -1;
        *(int32_t *)p = (int32_t)l;
        break;
    }
    case FK_OPERAND:
        if (wnnpy_operand_check(v, what, (wnn_operand **)p) < 0) return -1;
        break;
    case FK_DTYPE:
        if ((*(wnn_data_type *)p = wnnpy_data_type(v)) == WNN_DATA_TYPE_INVALID) return -1;
        break;
    case FK_ENUM:
        if (enum_value(f->names, v, op, f->name, (int *)p) < 0) return -1;
        break;
    case FK_NUMBER:
        if (number(v, &slot->number) < 0) return -1;
        *(const wnn_number **)p = &slot->number;
        break;
    case FK_U32_ARRAY:
    case FK_FLOAT_ARRAY:
    case FK_AXES:
    case FK_ACTIVATIONS: {
        PyObject *seq = sequence(v, f->kind == FK_AXES ? 0 : f->n, op, f->name);
        if (!seq) return -1;
        Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
        int rc = 0;
        for (Py_ssize_t i = 0; i < n && rc == 0; i++) {
            PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
            if (f->kind == FK_FLOAT_ARRAY) {
                double d = PyFloat_AsDouble(item);
                rc = d == -1.0 && PyErr_Occurred() ? -1 : 0;
                ((float *)p)[i] = (float)d;
            } else if (f->kind == FK_ACTIVATIONS) {
                rc = enum_value(f->names, item, op, f->name, (int *)&slot->activations[i]);
            } else {
                rc = wnnpy_uint32(item, what, f->kind == FK_AXES ? &slot->list[i] : &((uint32_t *)p)[i]);
            }
        }
        Py_DECREF(seq);
        if (rc < 0) return -1;
        if (f->kind == FK_AXES)
            *(const uint32_t **)p = slot->list;
        else if (f->kind == FK_ACTIVATIONS)
            *(const wnn_recurrent_activation **)p = slot->activations;
        if (f->count_off >= 0) *(uint32_t *)(base + f->count_off) = (uint32_t)n;
        break;
    }
    }
    return 0;
}

int wnnpy_options_fill(const wnnpy_options *spec, PyObject *const *values, const char *op, wnnpy_options_buffer *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; spec->fields[i].name; i++)
        if (values[i] && values[i] != Py_None &&
            fill_one(&spec->fields[i], values[i], op, (char *)out->opts.bytes, &out->slots[i]) < 0)
            return -1;
    return 0;
}
