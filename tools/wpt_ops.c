/* SPDX-License-Identifier: Apache-2.0 */
/*
** wpt_ops.c -- the operator table: WebNN builder method name -> adapter that
** reads the WPT argument list and calls the wnn_* builder function.
**
** Owns: the argument/option helpers declared in wpt_ops.h and the table,
** ordered by topic as the adapter files are (wpt_ops_<topic>.c). Adapters do
** only argument plumbing: the WebNN rules are the library's to enforce, so an
** adapter passes what the case wrote and lets the builder accept or refuse
** it. The exceptions are what the C API cannot see, checked as WebNN's IDL
** layer would: the length of arrays the library reads rank entries of
** (transpose permutation, slice starts/sizes/strides ...), the length of
** fixed-size sequences, and enum strings.
*/
#ifdef WNN_HAVE_JANSSON

#include "wpt_ops.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wpt_case.h"

/* ------------------------------------------------------------------------ */
/* Errors and argument helpers                                              */
/* ------------------------------------------------------------------------ */

bool wpt_call_fail(wpt_call *call, const char *fmt, ...)
{
    char message[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    snprintf(call->error, sizeof call->error, "%s: %s", call->op, message);
    return false;
}

void wpt_call_free(wpt_call *call)
{
    free(call->results);
    call->results = NULL;
    call->result_count = 0;
}

wnn_operand **wpt_call_many(wpt_call *call, size_t count)
{
    if (count > call->max_results) {
        wpt_call_fail(call, "returns %zu results, the case names %zu", count, call->max_results);
        return NULL;
    }
    wpt_call_free(call);
    call->results = calloc(count ? count : 1, sizeof *call->results);
    if (call->results == NULL) {
        wpt_call_fail(call, "out of memory for %zu results", count);
        return NULL;
    }
    call->result_count = count;
    return call->results;
}

bool wpt_call_one(wpt_call *call, wnn_operand *result)
{
    wnn_operand **out = wpt_call_many(call, 1);
    if (out == NULL)
        return false;
    out[0] = result;
    return true;
}

bool wpt_args_between(wpt_call *call, size_t min, size_t max)
{
    if (call->arg_count >= min && call->arg_count <= max)
        return true;
    if (min == max)
        return wpt_call_fail(call, "takes %zu positional argument%s, the case gives %zu", min,
                             min == 1 ? "" : "s", call->arg_count);
    return wpt_call_fail(call, "takes %zu to %zu positional arguments, the case gives %zu", min, max,
                         call->arg_count);
}

/* The label of argument index for messages ("argument 2" past the end). */
static const char *arg_label(const wpt_call *call, size_t index, char *buf, size_t size)
{
    if (index < call->arg_count && call->args[index].key != NULL) {
        snprintf(buf, size, "argument '%s'", call->args[index].key);
    } else {
        snprintf(buf, size, "argument %zu", index + 1);
    }
    return buf;
}

static const json_t *arg_value(wpt_call *call, size_t index)
{
    char label[80];
    if (index >= call->arg_count) {
        wpt_call_fail(call, "%s is missing", arg_label(call, index, label, sizeof label));
        return NULL;
    }
    return call->args[index].value;
}

/* A JSON value as a uint32 ([EnforceRange] unsigned long): integral, 0..2^32-1. */
static bool json_u32(const json_t *v, uint32_t *out)
{
    double d;
    if (json_is_integer(v)) {
        json_int_t i = json_integer_value(v);
        if (i < 0 || i > (json_int_t)UINT32_MAX)
            return false;
        *out = (uint32_t)i;
        return true;
    }
    if (!json_is_real(v))
        return false;
    d = json_real_value(v);
    if (!(d >= 0 && d <= (double)UINT32_MAX) || trunc(d) != d)
        return false;
    *out = (uint32_t)d;
    return true;
}

static bool json_u32_list(const json_t *v, uint32_t *out, size_t cap, size_t *count, size_t *bad)
{
    if (!json_is_array(v))
        return false;
    size_t n = json_array_size(v);
    *bad = SIZE_MAX;
    if (n > cap) {
        *count = n;
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if (!json_u32(json_array_get(v, i), &out[i])) {
            *bad = i;
            return false;
        }
    }
    *count = n;
    return true;
}

bool wpt_arg_operand(wpt_call *call, size_t index, wnn_operand **out)
{
    char label[80];
    const json_t *v = arg_value(call, index);
    if (v == NULL)
        return false;
    if (call->args[index].operand == NULL)
        return wpt_call_fail(call, "%s must name a graph input or an earlier output",
                             arg_label(call, index, label, sizeof label));
    *out = call->args[index].operand;
    return true;
}

bool wpt_arg_u32(wpt_call *call, size_t index, uint32_t *out)
{
    char label[80];
    const json_t *v = arg_value(call, index);
    if (v == NULL)
        return false;
    if (!json_u32(v, out))
        return wpt_call_fail(call, "%s must be an integer in 0..4294967295",
                             arg_label(call, index, label, sizeof label));
    return true;
}

bool wpt_arg_double(wpt_call *call, size_t index, double *out)
{
    char label[80];
    wpt_number n;
    const json_t *v = arg_value(call, index);
    if (v == NULL)
        return false;
    if (!wpt_json_number(v, &n))
        return wpt_call_fail(call, "%s must be a number", arg_label(call, index, label, sizeof label));
    *out = n.d;
    return true;
}

bool wpt_arg_data_type(wpt_call *call, size_t index, wnn_data_type *out)
{
    char label[80];
    const json_t *v = arg_value(call, index);
    if (v == NULL)
        return false;
    wnn_data_type t = json_is_string(v) ? wnn_data_type_from_name(json_string_value(v))
                                        : WNN_DATA_TYPE_INVALID;
    if (t == WNN_DATA_TYPE_INVALID)
        return wpt_call_fail(call, "%s must be a data type name such as \"float32\"",
                             arg_label(call, index, label, sizeof label));
    *out = t;
    return true;
}

bool wpt_arg_u32_list(wpt_call *call, size_t index, uint32_t *out, size_t cap, size_t *count)
{
    char label[80];
    size_t bad;
    const json_t *v = arg_value(call, index);
    if (v == NULL)
        return false;
    if (json_u32_list(v, out, cap, count, &bad))
        return true;
    arg_label(call, index, label, sizeof label);
    if (!json_is_array(v))
        return wpt_call_fail(call, "%s must be an array of integers", label);
    if (bad == SIZE_MAX)
        return wpt_call_fail(call, "%s has %zu entries, at most %zu are supported", label, *count, cap);
    return wpt_call_fail(call, "%s[%zu] must be an integer in 0..4294967295", label, bad);
}

bool wpt_arg_u32_array(wpt_call *call, size_t index, uint32_t **out, size_t *count)
{
    char label[80];
    const json_t *v = arg_value(call, index);
    if (v == NULL)
        return false;
    if (!json_is_array(v))
        return wpt_call_fail(call, "%s must be an array of integers", arg_label(call, index, label, sizeof label));
    size_t n = json_array_size(v);
    uint32_t *list = malloc((n ? n : 1) * sizeof *list);
    if (list == NULL)
        return wpt_call_fail(call, "out of memory for %zu integers", n);
    if (!wpt_arg_u32_list(call, index, list, n, count)) {
        free(list);
        return false;
    }
    *out = list;
    return true;
}

/* Resolves a JSON string naming an operand; NULL if it names none. */
static wnn_operand *lookup_json(wpt_call *call, const json_t *v)
{
    if (!json_is_string(v))
        return NULL;
    return call->lookup(call->lookup_user, json_string_value(v), json_string_length(v));
}

bool wpt_arg_operand_list(wpt_call *call, size_t index, wnn_operand ***out, size_t *count)
{
    char label[80];
    const json_t *v = arg_value(call, index);
    if (v == NULL)
        return false;
    arg_label(call, index, label, sizeof label);
    if (!json_is_array(v))
        return wpt_call_fail(call, "%s must be an array of operand names", label);
    size_t n = json_array_size(v);
    wnn_operand **ops = calloc(n ? n : 1, sizeof *ops);
    if (ops == NULL)
        return wpt_call_fail(call, "out of memory for %zu operands", n);
    for (size_t i = 0; i < n; i++) {
        ops[i] = lookup_json(call, json_array_get(v, i));
        if (ops[i] == NULL) {
            free(ops);
            return wpt_call_fail(call, "%s[%zu] must name a graph input or an earlier output", label, i);
        }
    }
    *out = ops;
    *count = n;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Options helpers                                                          */
/* ------------------------------------------------------------------------ */

const json_t *wpt_opt_value(wpt_call *call, const char *key)
{
    if (call->options == NULL)
        return NULL;
    const json_t *v = json_object_get(call->options, key);
    if (v != NULL && call->options_read_count < sizeof call->options_read / sizeof call->options_read[0])
        call->options_read[call->options_read_count++] = key;
    return v;
}

bool wpt_opt_operand(wpt_call *call, const char *key, wnn_operand **out)
{
    const json_t *v = wpt_opt_value(call, key);
    if (v == NULL)
        return true;
    wnn_operand *op = lookup_json(call, v);
    if (op == NULL)
        return wpt_call_fail(call, "options.%s must name a graph input or an earlier output", key);
    *out = op;
    return true;
}

bool wpt_opt_double(wpt_call *call, const char *key, bool *present, double *out)
{
    wpt_number n;
    const json_t *v = wpt_opt_value(call, key);
    if (present != NULL)
        *present = v != NULL;
    if (v == NULL)
        return true;
    if (!wpt_json_number(v, &n))
        return wpt_call_fail(call, "options.%s must be a number", key);
    *out = n.d;
    return true;
}

bool wpt_opt_bool(wpt_call *call, const char *key, bool *out)
{
    const json_t *v = wpt_opt_value(call, key);
    if (v == NULL)
        return true;
    if (!json_is_boolean(v))
        return wpt_call_fail(call, "options.%s must be true or false", key);
    *out = json_is_true(v);
    return true;
}

bool wpt_opt_u32(wpt_call *call, const char *key, bool *present, uint32_t *out)
{
    const json_t *v = wpt_opt_value(call, key);
    if (present != NULL)
        *present = v != NULL;
    if (v == NULL)
        return true;
    if (!json_u32(v, out))
        return wpt_call_fail(call, "options.%s must be an integer in 0..4294967295", key);
    return true;
}

bool wpt_opt_double_ptr(wpt_call *call, const char *key, double *value, const double **out)
{
    bool present = false;
    if (!wpt_opt_double(call, key, &present, value))
        return false;
    *out = present ? value : NULL;
    return true;
}

bool wpt_opt_u32_ptr(wpt_call *call, const char *key, uint32_t *value, const uint32_t **out)
{
    bool present = false;
    if (!wpt_opt_u32(call, key, &present, value))
        return false;
    *out = present ? value : NULL;
    return true;
}

bool wpt_opt_u32_list(wpt_call *call, const char *key, bool *present, uint32_t *out, size_t cap,
                      size_t *count)
{
    size_t bad;
    const json_t *v = wpt_opt_value(call, key);
    if (present != NULL)
        *present = v != NULL;
    if (v == NULL)
        return true;
    if (json_u32_list(v, out, cap, count, &bad))
        return true;
    if (!json_is_array(v))
        return wpt_call_fail(call, "options.%s must be an array of integers", key);
    if (bad == SIZE_MAX)
        return wpt_call_fail(call, "options.%s has %zu entries, at most %zu are supported", key, *count,
                             cap);
    return wpt_call_fail(call, "options.%s[%zu] must be an integer in 0..4294967295", key, bad);
}

bool wpt_opt_string(wpt_call *call, const char *key, const char **out)
{
    const json_t *v = wpt_opt_value(call, key);
    if (v == NULL)
        return true;
    if (!json_is_string(v))
        return wpt_call_fail(call, "options.%s must be a string", key);
    *out = json_string_value(v);
    return true;
}

bool wpt_opt_enum(wpt_call *call, const char *key, const char *const *names, size_t n, int *out)
{
    const char *text = NULL;
    if (!wpt_opt_string(call, key, &text))
        return false;
    if (text == NULL)
        return true;
    for (size_t i = 0; i < n; i++)
        if (strcmp(text, names[i]) == 0) {
            *out = (int)i;
            return true;
        }
    return wpt_call_fail(call, "options.%s \"%s\" is not a value of its enum", key, text);
}

bool wpt_call_check_options(wpt_call *call)
{
    const char *key;
    const json_t *value;
    if (call->options == NULL)
        return true;
    json_object_foreach((json_t *)call->options, key, value) {
        bool read = strcmp(key, "label") == 0;
        for (size_t i = 0; i < call->options_read_count && !read; i++)
            read = strcmp(call->options_read[i], key) == 0;
        if (!read)
            return wpt_call_fail(call, "options.%s is not handled by the runner's adapter", key);
    }
    return true;
}

bool wpt_opt_fixed(wpt_call *call, const char *key, uint32_t *out, size_t n, bool *present)
{
    uint32_t v[WNN_MAX_RANK];
    size_t count = 0;
    bool given = false;
    if (!wpt_opt_u32_list(call, key, &given, v, WNN_MAX_RANK, &count))
        return false;
    if (present)
        *present = given;
    if (!given)
        return true;
    if (count != n)
        return wpt_call_fail(call, "options.%s has %zu entries, must have %zu", key, count, n);
    memcpy(out, v, n * sizeof *v);
    return true;
}

bool wpt_opt_layout(wpt_call *call, const char *key, wnn_input_layout *out)
{
    static const char *const layout_names[2] = {"nchw", "nhwc"};
    int v = (int)*out;
    if (!wpt_opt_enum(call, key, layout_names, 2, &v))
        return false;
    *out = (wnn_input_layout)v;
    return true;
}

bool wpt_rank_length(wpt_call *call, const char *what, size_t length, wnn_operand *x)
{
    wnn_operand_desc d;
    wnn_operand_get_desc(x, &d);
    if (length != d.rank)
        return wpt_call_fail(call, "%s has %zu entries, the input's rank is %u (must be equal)", what,
                             length, d.rank);
    return true;
}

/* ------------------------------------------------------------------------ */
/* The table                                                                */
/* ------------------------------------------------------------------------ */

#define WPT_UNARY(name, fn) {name, wpt_adapt_unary, fn, NULL}
#define WPT_BINARY(name, fn) {name, wpt_adapt_binary, NULL, fn}
#define WPT_OP(name, adapter) {name, adapter, NULL, NULL}

static const wpt_op_entry op_table[] = {
    /* element-wise */
    WPT_BINARY("add", wnn_add),
    WPT_BINARY("sub", wnn_sub),
    WPT_BINARY("mul", wnn_mul),
    WPT_BINARY("div", wnn_div),
    WPT_BINARY("max", wnn_max),
    WPT_BINARY("min", wnn_min),
    WPT_BINARY("pow", wnn_pow),
    WPT_BINARY("equal", wnn_equal),
    WPT_BINARY("notEqual", wnn_not_equal),
    WPT_BINARY("greater", wnn_greater),
    WPT_BINARY("greaterOrEqual", wnn_greater_or_equal),
    WPT_BINARY("lesser", wnn_lesser),
    WPT_BINARY("lesserOrEqual", wnn_lesser_or_equal),
    WPT_BINARY("logicalAnd", wnn_logical_and),
    WPT_BINARY("logicalOr", wnn_logical_or),
    WPT_BINARY("logicalXor", wnn_logical_xor),
    WPT_BINARY("prelu", wnn_prelu),
    WPT_UNARY("abs", wnn_abs),
    WPT_UNARY("neg", wnn_neg),
    WPT_UNARY("exp", wnn_exp),
    WPT_UNARY("log", wnn_log),
    WPT_UNARY("sqrt", wnn_sqrt),
    WPT_UNARY("ceil", wnn_ceil),
    WPT_UNARY("floor", wnn_floor),
    WPT_UNARY("cos", wnn_cos),
    WPT_UNARY("sin", wnn_sin),
    WPT_UNARY("tan", wnn_tan),
    WPT_UNARY("erf", wnn_erf),
    WPT_UNARY("reciprocal", wnn_reciprocal),
    WPT_UNARY("roundEven", wnn_round_even),
    WPT_UNARY("sign", wnn_sign),
    WPT_UNARY("identity", wnn_identity),
    WPT_UNARY("isNaN", wnn_is_nan),
    WPT_UNARY("isInfinite", wnn_is_infinite),
    WPT_UNARY("logicalNot", wnn_logical_not),
    WPT_UNARY("relu", wnn_relu),
    WPT_UNARY("sigmoid", wnn_sigmoid),
    WPT_UNARY("tanh", wnn_tanh),
    WPT_UNARY("gelu", wnn_gelu),
    WPT_UNARY("hardSwish", wnn_hard_swish),
    WPT_UNARY("softplus", wnn_softplus),
    WPT_UNARY("softsign", wnn_softsign),
    WPT_OP("clamp", wpt_adapt_clamp),
    WPT_OP("cast", wpt_adapt_cast),
    WPT_OP("where", wpt_adapt_where),
    WPT_OP("elu", wpt_adapt_elu),
    WPT_OP("hardSigmoid", wpt_adapt_hard_sigmoid),
    WPT_OP("leakyRelu", wpt_adapt_leaky_relu),
    WPT_OP("linear", wpt_adapt_linear),

    /* reduction */
    WPT_OP("reduceL1", wpt_adapt_reduce),
    WPT_OP("reduceL2", wpt_adapt_reduce),
    WPT_OP("reduceLogSum", wpt_adapt_reduce),
    WPT_OP("reduceLogSumExp", wpt_adapt_reduce),
    WPT_OP("reduceMax", wpt_adapt_reduce),
    WPT_OP("reduceMean", wpt_adapt_reduce),
    WPT_OP("reduceMin", wpt_adapt_reduce),
    WPT_OP("reduceProduct", wpt_adapt_reduce),
    WPT_OP("reduceSum", wpt_adapt_reduce),
    WPT_OP("reduceSumSquare", wpt_adapt_reduce),
    WPT_OP("argMin", wpt_adapt_arg_min),
    WPT_OP("argMax", wpt_adapt_arg_max),
    WPT_OP("cumulativeSum", wpt_adapt_cumulative_sum),
    WPT_OP("softmax", wpt_adapt_softmax),

    /* data movement */
    WPT_OP("reshape", wpt_adapt_reshape),
    WPT_OP("transpose", wpt_adapt_transpose),
    WPT_OP("concat", wpt_adapt_concat),
    WPT_OP("slice", wpt_adapt_slice),
    WPT_OP("expand", wpt_adapt_expand),
    WPT_OP("pad", wpt_adapt_pad),
    WPT_OP("split", wpt_adapt_split),
    WPT_OP("tile", wpt_adapt_tile),
    WPT_OP("reverse", wpt_adapt_reverse),
    WPT_OP("triangular", wpt_adapt_triangular),

    /* gather and scatter */
    WPT_OP("gather", wpt_adapt_gather),
    WPT_OP("gatherElements", wpt_adapt_gather_elements),
    WPT_OP("gatherND", wpt_adapt_gather_nd),
    WPT_OP("scatterElements", wpt_adapt_scatter_elements),
    WPT_OP("scatterND", wpt_adapt_scatter_nd),

    /* linear algebra */
    WPT_BINARY("matmul", wnn_matmul),
    WPT_OP("gemm", wpt_adapt_gemm),

    /* convolution, pooling and resampling */
    WPT_OP("conv2d", wpt_adapt_conv2d),
    WPT_OP("convTranspose2d", wpt_adapt_conv_transpose2d),
    WPT_OP("averagePool2d", wpt_adapt_average_pool2d),
    WPT_OP("l2Pool2d", wpt_adapt_l2_pool2d),
    WPT_OP("maxPool2d", wpt_adapt_max_pool2d),
    WPT_OP("resample2d", wpt_adapt_resample2d),

    /* normalization */
    WPT_OP("batchNormalization", wpt_adapt_batch_normalization),
    WPT_OP("instanceNormalization", wpt_adapt_instance_normalization),
    WPT_OP("layerNormalization", wpt_adapt_layer_normalization),

    /* quantization */
    WPT_OP("quantizeLinear", wpt_adapt_quantize_linear),
    WPT_OP("dequantizeLinear", wpt_adapt_dequantize_linear),

    /* recurrent networks */
    WPT_OP("gru", wpt_adapt_gru),
    WPT_OP("gruCell", wpt_adapt_gru_cell),
    WPT_OP("lstm", wpt_adapt_lstm),
    WPT_OP("lstmCell", wpt_adapt_lstm_cell),
};

const wpt_op_entry *wpt_op_find(const char *name)
{
    if (name == NULL)
        return NULL;
    for (size_t i = 0; i < sizeof op_table / sizeof op_table[0]; i++)
        if (strcmp(op_table[i].name, name) == 0)
            return &op_table[i];
    return NULL;
}

bool wpt_op_call(const wpt_op_entry *entry, wpt_call *call)
{
    call->entry = entry;
    if (!entry->adapter(call))
        return false;
    return wpt_call_check_options(call);
}

#else
/* Without jansson there are no cases to adapt; keep the unit non-empty. */
typedef int wpt_ops_needs_jansson;
#endif /* WNN_HAVE_JANSSON */
