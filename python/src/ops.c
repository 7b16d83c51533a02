/* SPDX-License-Identifier: Apache-2.0 */
/*
** ops.c -- the builder operators as GraphBuilder methods, from one table.
**
** Each row of WNNPY_OPS names an operator (snake_case and WebNN names), the
** shape of its C signature, the C function, its positional parameters and
** its keyword options (options.c). One generic parser turns a call's
** arguments into C values, and one caller per signature shape makes the C
** call. The C functions are called through a pointer type that differs from
** their declared one only in the pointer type of the options argument, which
** every ABI wnn targets passes identically.
*/
#include "ops.h"

#include <ctype.h>
#include <string.h>

/* Parameter kinds. */
enum {
    PK_OPERAND,   /* wnn.Operand */
    PK_OPERANDS,  /* sequence of wnn.Operand */
    PK_U32,       /* int */
    PK_U32S,      /* sequence of ints (any length) */
    PK_RANK_U32S, /* sequence of ints, one per dimension of the first parameter */
    PK_DTYPE,     /* data type */
    PK_SPLITS     /* int (equal parts) or sequence of ints (sizes) */
};

typedef struct {
    const char *name;
    int kind;
    bool optional; /* may be omitted or None */
} param;

#define MAX_PARAMS 6

/* Signature shapes: how the C function takes the parsed parameters. */
enum {
    S_X,          /* (b, x) */
    S_XY,         /* (b, x, y) */
    S_XYZ,        /* (b, x, y, z) */
    S_X_O,        /* (b, x, options) */
    S_XY_O,       /* (b, x, y, options) */
    S_XYZ_O,      /* (b, x, y, z, options) */
    S_X_U,        /* (b, x, uint32) */
    S_X_U_O,      /* (b, x, uint32, options) */
    S_X_DTYPE,    /* (b, x, type) */
    S_X_N_LIST,   /* (b, x, count, list) */
    S_X_LIST,     /* (b, x, list or NULL) */
    S_LIST_N_U,   /* (b, operands, count, uint32) */
    S_X_3LIST,    /* (b, x, list, list, list or NULL) */
    S_X_2LIST_O,  /* (b, x, list, list, options) */
    S_SPLIT,      /* wnn_split or wnn_split_sizes */
    S_RNN,        /* (b, x, w, r, steps, hidden, options, outputs) -> count */
    S_GRU_CELL,   /* (b, x, w, r, h, hidden, options) */
    S_LSTM_CELL   /* (b, x, w, r, h, c, hidden, options, outputs) -> count */
};

typedef wnn_graph_builder B;
typedef wnn_operand O;
typedef void (*any_fn)(void);

typedef struct {
    const char *name;  /* snake_case */
    const char *webnn; /* WebNN's name */
    int sig;
    any_fn fn;
    const param *params;
    const wnnpy_options *opts;
} op_entry;

static const param P_X[] = {{"input", PK_OPERAND, false}, {NULL, 0, false}};
static const param P_AB[] = {{"a", PK_OPERAND, false}, {"b", PK_OPERAND, false}, {NULL, 0, false}};
static const param P_PRELU[] = {{"input", PK_OPERAND, false}, {"slope", PK_OPERAND, false}, {NULL, 0, false}};
static const param P_INDICES[] = {{"input", PK_OPERAND, false}, {"indices", PK_OPERAND, false}, {NULL, 0, false}};
static const param P_FILTER[] = {{"input", PK_OPERAND, false}, {"filter", PK_OPERAND, false}, {NULL, 0, false}};
static const param P_WHERE[] = {{"condition", PK_OPERAND, false},
                                {"true_value", PK_OPERAND, false},
                                {"false_value", PK_OPERAND, false},
                                {NULL, 0, false}};
static const param P_QUANTIZE[] = {{"input", PK_OPERAND, false},
                                   {"scale", PK_OPERAND, false},
                                   {"zero_point", PK_OPERAND, false},
                                   {NULL, 0, false}};
static const param P_SCATTER[] = {{"input", PK_OPERAND, false},
                                  {"indices", PK_OPERAND, false},
                                  {"updates", PK_OPERAND, false},
                                  {NULL, 0, false}};
static const param P_BATCH_NORM[] = {{"input", PK_OPERAND, false},
                                     {"mean", PK_OPERAND, false},
                                     {"variance", PK_OPERAND, false},
                                     {NULL, 0, false}};
static const param P_AXIS[] = {{"input", PK_OPERAND, false}, {"axis", PK_U32, false}, {NULL, 0, false}};
static const param P_CAST[] = {{"input", PK_OPERAND, false}, {"type", PK_DTYPE, false}, {NULL, 0, false}};
static const param P_NEW_SHAPE[] = {{"input", PK_OPERAND, false}, {"new_shape", PK_U32S, false}, {NULL, 0, false}};
static const param P_TRANSPOSE[] = {{"input", PK_OPERAND, false},
                                    {"permutation", PK_RANK_U32S, true},
                                    {NULL, 0, false}};
static const param P_TILE[] = {{"input", PK_OPERAND, false}, {"repetitions", PK_RANK_U32S, false}, {NULL, 0, false}};
static const param P_CONCAT[] = {{"inputs", PK_OPERANDS, false}, {"axis", PK_U32, false}, {NULL, 0, false}};
static const param P_SLICE[] = {{"input", PK_OPERAND, false},
                                {"starts", PK_RANK_U32S, false},
                                {"sizes", PK_RANK_U32S, false},
                                {"strides", PK_RANK_U32S, true},
                                {NULL, 0, false}};
static const param P_PAD[] = {{"input", PK_OPERAND, false},
                              {"beginning_padding", PK_RANK_U32S, false},
                              {"ending_padding", PK_RANK_U32S, false},
                              {NULL, 0, false}};
static const param P_SPLIT[] = {{"input", PK_OPERAND, false}, {"splits", PK_SPLITS, false}, {NULL, 0, false}};
static const param P_RNN[] = {{"input", PK_OPERAND, false},         {"weight", PK_OPERAND, false},
                              {"recurrent_weight", PK_OPERAND, false}, {"steps", PK_U32, false},
                              {"hidden_size", PK_U32, false},       {NULL, 0, false}};
static const param P_GRU_CELL[] = {{"input", PK_OPERAND, false},         {"weight", PK_OPERAND, false},
                                   {"recurrent_weight", PK_OPERAND, false}, {"hidden_state", PK_OPERAND, false},
                                   {"hidden_size", PK_U32, false},       {NULL, 0, false}};
static const param P_LSTM_CELL[] = {{"input", PK_OPERAND, false},         {"weight", PK_OPERAND, false},
                                    {"recurrent_weight", PK_OPERAND, false}, {"hidden_state", PK_OPERAND, false},
                                    {"cell_state", PK_OPERAND, false},    {"hidden_size", PK_U32, false},
                                    {NULL, 0, false}};

/* X(snake name, WebNN name, signature, C function, parameters, options) */
#define WNNPY_OPS(X) \
    X(add, "add", S_XY, wnn_add, P_AB, NULL) \
    X(sub, "sub", S_XY, wnn_sub, P_AB, NULL) \
    X(mul, "mul", S_XY, wnn_mul, P_AB, NULL) \
    X(div, "div", S_XY, wnn_div, P_AB, NULL) \
    X(max, "max", S_XY, wnn_max, P_AB, NULL) \
    X(min, "min", S_XY, wnn_min, P_AB, NULL) \
    X(pow, "pow", S_XY, wnn_pow, P_AB, NULL) \
    X(abs, "abs", S_X, wnn_abs, P_X, NULL) \
    X(neg, "neg", S_X, wnn_neg, P_X, NULL) \
    X(exp, "exp", S_X, wnn_exp, P_X, NULL) \
    X(log, "log", S_X, wnn_log, P_X, NULL) \
    X(sqrt, "sqrt", S_X, wnn_sqrt, P_X, NULL) \
    X(relu, "relu", S_X, wnn_relu, P_X, NULL) \
    X(sigmoid, "sigmoid", S_X, wnn_sigmoid, P_X, NULL) \
    X(tanh, "tanh", S_X, wnn_tanh, P_X, NULL) \
    X(clamp, "clamp", S_X_O, wnn_clamp, P_X, &wnnpy_clamp_opts) \
    X(cast, "cast", S_X_DTYPE, wnn_cast, P_CAST, NULL) \
    X(reshape, "reshape", S_X_N_LIST, wnn_reshape, P_NEW_SHAPE, NULL) \
    X(transpose, "transpose", S_X_LIST, wnn_transpose, P_TRANSPOSE, NULL) \
    X(concat, "concat", S_LIST_N_U, wnn_concat, P_CONCAT, NULL) \
    X(slice, "slice", S_X_3LIST, wnn_slice, P_SLICE, NULL) \
    X(softmax, "softmax", S_X_U, wnn_softmax, P_AXIS, NULL) \
    X(matmul, "matmul", S_XY, wnn_matmul, P_AB, NULL) \
    X(gemm, "gemm", S_XY_O, wnn_gemm, P_AB, &wnnpy_gemm_opts) \
    X(ceil, "ceil", S_X, wnn_ceil, P_X, NULL) \
    X(floor, "floor", S_X, wnn_floor, P_X, NULL) \
    X(cos, "cos", S_X, wnn_cos, P_X, NULL) \
    X(sin, "sin", S_X, wnn_sin, P_X, NULL) \
    X(tan, "tan", S_X, wnn_tan, P_X, NULL) \
    X(erf, "erf", S_X, wnn_erf, P_X, NULL) \
    X(reciprocal, "reciprocal", S_X, wnn_reciprocal, P_X, NULL) \
    X(round_even, "roundEven", S_X, wnn_round_even, P_X, NULL) \
    X(sign, "sign", S_X, wnn_sign, P_X, NULL) \
    X(identity, "identity", S_X, wnn_identity, P_X, NULL) \
    X(is_nan, "isNaN", S_X, wnn_is_nan, P_X, NULL) \
    X(is_infinite, "isInfinite", S_X, wnn_is_infinite, P_X, NULL) \
    X(logical_not, "logicalNot", S_X, wnn_logical_not, P_X, NULL) \
    X(logical_and, "logicalAnd", S_XY, wnn_logical_and, P_AB, NULL) \
    X(logical_or, "logicalOr", S_XY, wnn_logical_or, P_AB, NULL) \
    X(logical_xor, "logicalXor", S_XY, wnn_logical_xor, P_AB, NULL) \
    X(equal, "equal", S_XY, wnn_equal, P_AB, NULL) \
    X(not_equal, "notEqual", S_XY, wnn_not_equal, P_AB, NULL) \
    X(greater, "greater", S_XY, wnn_greater, P_AB, NULL) \
    X(greater_or_equal, "greaterOrEqual", S_XY, wnn_greater_or_equal, P_AB, NULL) \
    X(lesser, "lesser", S_XY, wnn_lesser, P_AB, NULL) \
    X(lesser_or_equal, "lesserOrEqual", S_XY, wnn_lesser_or_equal, P_AB, NULL) \
    X(where, "where", S_XYZ, wnn_where, P_WHERE, NULL) \
    X(elu, "elu", S_X_O, wnn_elu, P_X, &wnnpy_elu_opts) \
    X(gelu, "gelu", S_X, wnn_gelu, P_X, NULL) \
    X(hard_sigmoid, "hardSigmoid", S_X_O, wnn_hard_sigmoid, P_X, &wnnpy_hard_sigmoid_opts) \
    X(hard_swish, "hardSwish", S_X, wnn_hard_swish, P_X, NULL) \
    X(leaky_relu, "leakyRelu", S_X_O, wnn_leaky_relu, P_X, &wnnpy_leaky_relu_opts) \
    X(linear, "linear", S_X_O, wnn_linear, P_X, &wnnpy_linear_opts) \
    X(prelu, "prelu", S_XY, wnn_prelu, P_PRELU, NULL) \
    X(softplus, "softplus", S_X, wnn_softplus, P_X, NULL) \
    X(softsign, "softsign", S_X, wnn_softsign, P_X, NULL) \
    X(reduce_l1, "reduceL1", S_X_O, wnn_reduce_l1, P_X, &wnnpy_reduce_opts) \
    X(reduce_l2, "reduceL2", S_X_O, wnn_reduce_l2, P_X, &wnnpy_reduce_opts) \
    X(reduce_log_sum, "reduceLogSum", S_X_O, wnn_reduce_log_sum, P_X, &wnnpy_reduce_opts) \
    X(reduce_log_sum_exp, "reduceLogSumExp", S_X_O, wnn_reduce_log_sum_exp, P_X, &wnnpy_reduce_opts) \
    X(reduce_max, "reduceMax", S_X_O, wnn_reduce_max, P_X, &wnnpy_reduce_opts) \
    X(reduce_mean, "reduceMean", S_X_O, wnn_reduce_mean, P_X, &wnnpy_reduce_opts) \
    X(reduce_min, "reduceMin", S_X_O, wnn_reduce_min, P_X, &wnnpy_reduce_opts) \
    X(reduce_product, "reduceProduct", S_X_O, wnn_reduce_product, P_X, &wnnpy_reduce_opts) \
    X(reduce_sum, "reduceSum", S_X_O, wnn_reduce_sum, P_X, &wnnpy_reduce_opts) \
    X(reduce_sum_square, "reduceSumSquare", S_X_O, wnn_reduce_sum_square, P_X, &wnnpy_reduce_opts) \
    X(arg_min, "argMin", S_X_U_O, wnn_arg_min, P_AXIS, &wnnpy_arg_min_max_opts) \
    X(arg_max, "argMax", S_X_U_O, wnn_arg_max, P_AXIS, &wnnpy_arg_min_max_opts) \
    X(cumulative_sum, "cumulativeSum", S_X_U_O, wnn_cumulative_sum, P_AXIS, &wnnpy_cumulative_sum_opts) \
    X(quantize_linear, "quantizeLinear", S_XYZ, wnn_quantize_linear, P_QUANTIZE, NULL) \
    X(dequantize_linear, "dequantizeLinear", S_XYZ, wnn_dequantize_linear, P_QUANTIZE, NULL) \
    X(conv2d, "conv2d", S_XY_O, wnn_conv2d, P_FILTER, &wnnpy_conv2d_opts) \
    X(conv_transpose2d, "convTranspose2d", S_XY_O, wnn_conv_transpose2d, P_FILTER, &wnnpy_conv_transpose2d_opts) \
    X(average_pool2d, "averagePool2d", S_X_O, wnn_average_pool2d, P_X, &wnnpy_pool2d_opts) \
    X(l2_pool2d, "l2Pool2d", S_X_O, wnn_l2_pool2d, P_X, &wnnpy_pool2d_opts) \
    X(max_pool2d, "maxPool2d", S_X_O, wnn_max_pool2d, P_X, &wnnpy_pool2d_opts) \
    X(resample2d, "resample2d", S_X_O, wnn_resample2d, P_X, &wnnpy_resample2d_opts) \
    X(batch_normalization, "batchNormalization", S_XYZ_O, wnn_batch_normalization, P_BATCH_NORM, \
      &wnnpy_batch_normalization_opts) \
    X(instance_normalization, "instanceNormalization", S_X_O, wnn_instance_normalization, P_X, \
      &wnnpy_instance_normalization_opts) \
    X(layer_normalization, "layerNormalization", S_X_O, wnn_layer_normalization, P_X, \
      &wnnpy_layer_normalization_opts) \
    X(expand, "expand", S_X_N_LIST, wnn_expand, P_NEW_SHAPE, NULL) \
    X(pad, "pad", S_X_2LIST_O, wnn_pad, P_PAD, &wnnpy_pad_opts) \
    X(split, "split", S_SPLIT, NULL, P_SPLIT, &wnnpy_split_opts) \
    X(tile, "tile", S_X_LIST, wnn_tile, P_TILE, NULL) \
    X(reverse, "reverse", S_X_O, wnn_reverse, P_X, &wnnpy_reverse_opts) \
    X(triangular, "triangular", S_X_O, wnn_triangular, P_X, &wnnpy_triangular_opts) \
    X(gather, "gather", S_XY_O, wnn_gather, P_INDICES, &wnnpy_gather_opts) \
    X(gather_elements, "gatherElements", S_XY_O, wnn_gather_elements, P_INDICES, &wnnpy_gather_opts) \
    X(gather_nd, "gatherND", S_XY, wnn_gather_nd, P_INDICES, NULL) \
    X(scatter_elements, "scatterElements", S_XYZ_O, wnn_scatter_elements, P_SCATTER, &wnnpy_scatter_opts) \
    X(scatter_nd, "scatterND", S_XYZ, wnn_scatter_nd, P_SCATTER, NULL) \
    X(gru, "gru", S_RNN, wnn_gru, P_RNN, &wnnpy_gru_opts) \
    X(gru_cell, "gruCell", S_GRU_CELL, wnn_gru_cell, P_GRU_CELL, &wnnpy_gru_cell_opts) \
    X(lstm, "lstm", S_RNN, wnn_lstm, P_RNN, &wnnpy_lstm_opts) \
    X(lstm_cell, "lstmCell", S_LSTM_CELL, wnn_lstm_cell, P_LSTM_CELL, &wnnpy_lstm_cell_opts)

#define AS_INDEX(py, webnn, sig, fn, params, opts) OPI_##py,
enum { WNNPY_OPS(AS_INDEX) OP_COUNT };

#define AS_ENTRY(py, webnn, sig, fn, params, opts) {#py, webnn, sig, (any_fn)(fn), params, opts},
static const op_entry ops[OP_COUNT] = {WNNPY_OPS(AS_ENTRY)};

/* ------------------------------------------------------------------------ */
/* Parsing                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct {
    wnn_operand *op;
    uint32_t u;
    wnn_data_type dt;
    bool present;
    uint32_t *list;   /* PyMem; also PK_SPLITS' sizes */
    size_t n;
    wnn_operand **ops; /* PyMem */
} arg;

/* WebNN's camelCase keyword to snake_case ("keepDimensions" ->
** "keep_dimensions"); snake_case passes through. */
static void snake_case(const char *in, char *out, size_t size)
{
    size_t j = 0;
    for (; *in && j + 2 < size; in++) {
        if (isupper((unsigned char)*in)) {
            out[j++] = '_';
            out[j++] = (char)tolower((unsigned char)*in);
        } else {
            out[j++] = *in;
        }
    }
    out[j] = '\0';
}

static int u32_list(PyObject *v, const op_entry *e, const param *p, arg *a)
{
    PyObject *seq = PySequence_Fast(v, "");
    if (!seq) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: %s must be a sequence of ints", e->webnn, p->name);
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    a->list = PyMem_Malloc((size_t)(n ? n : 1) * sizeof *a->list);
    if (!a->list) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    char what[96];
    PyOS_snprintf(what, sizeof what, "%s: %s", e->webnn, p->name);
    int rc = 0;
    for (Py_ssize_t i = 0; i < n && rc == 0; i++)
        rc = wnnpy_uint32(PySequence_Fast_GET_ITEM(seq, i), what, &a->list[i]);
    Py_DECREF(seq);
    a->n = (size_t)n;
    return rc;
}

static int operand_list(PyObject *v, const op_entry *e, const param *p, arg *a)
{
    PyObject *seq = PySequence_Fast(v, "");
    if (!seq) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: %s must be a sequence of operands", e->webnn, p->name);
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    a->ops = PyMem_Malloc((size_t)(n ? n : 1) * sizeof *a->ops);
    int rc = a->ops ? 0 : (PyErr_NoMemory(), -1);
    char what[96];
    PyOS_snprintf(what, sizeof what, "%s: %s", e->webnn, p->name);
    for (Py_ssize_t i = 0; i < n && rc == 0; i++)
        rc = wnnpy_operand_check(PySequence_Fast_GET_ITEM(seq, i), what, &a->ops[i]);
    Py_DECREF(seq);
    a->n = (size_t)n;
    return rc;
}

static int convert(PyObject *v, const op_entry *e, int i, arg *args)
{
    const param *p = &e->params[i];
    arg *a = &args[i];
    char what[96];
    PyOS_snprintf(what, sizeof what, "%s: %s", e->webnn, p->name);
    if (!v || v == Py_None) {
        if (p->optional) return 0;
        PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", e->name, p->name);
        return -1;
    }
    a->present = true;
    switch (p->kind) {
    case PK_OPERAND: return wnnpy_operand_check(v, what, &a->op);
    case PK_OPERANDS: return operand_list(v, e, p, a);
    case PK_U32: return wnnpy_uint32(v, what, &a->u);
    case PK_DTYPE: return (a->dt = wnnpy_data_type(v)) == WNN_DATA_TYPE_INVALID ? -1 : 0;
    case PK_SPLITS:
        if (PyLong_Check(v)) return wnnpy_uint32(v, what, &a->u);
        return u32_list(v, e, p, a);
    case PK_U32S: return u32_list(v, e, p, a);
    case PK_RANK_U32S: {
        if (u32_list(v, e, p, a) < 0) return -1;
        wnn_operand_desc d;
        wnn_operand_get_desc(args[0].op, &d);
        if (a->n != d.rank) {
            wnnpy_argument_error("%s has %zu entries, the input's rank is %u", what, a->n, d.rank);
            return -1;
        }
        return 0;
    }
    }
    return 0;
}

/* Calls e's C function with the parsed arguments; the operands it returns go
** to outs (room for 3, or a->u for split), their count to *count. */
static void call(const op_entry *e, B *b, const arg *a, const void *o, wnn_operand **outs, size_t *count)
{
    O *r = NULL;
    *count = 0;
    switch (e->sig) {
    case S_X: r = ((O * (*)(B *, O *)) e->fn)(b, a[0].op); break;
    case S_XY: r = ((O * (*)(B *, O *, O *)) e->fn)(b, a[0].op, a[1].op); break;
    case S_XYZ: r = ((O * (*)(B *, O *, O *, O *)) e->fn)(b, a[0].op, a[1].op, a[2].op); break;
    case S_X_O: r = ((O * (*)(B *, O *, const void *)) e->fn)(b, a[0].op, o); break;
    case S_XY_O: r = ((O * (*)(B *, O *, O *, const void *)) e->fn)(b, a[0].op, a[1].op, o); break;
    case S_XYZ_O:
        r = ((O * (*)(B *, O *, O *, O *, const void *)) e->fn)(b, a[0].op, a[1].op, a[2].op, o);
        break;
    case S_X_U: r = ((O * (*)(B *, O *, uint32_t)) e->fn)(b, a[0].op, a[1].u); break;
    case S_X_U_O: r = ((O * (*)(B *, O *, uint32_t, const void *)) e->fn)(b, a[0].op, a[1].u, o); break;
    case S_X_DTYPE: r = ((O * (*)(B *, O *, wnn_data_type)) e->fn)(b, a[0].op, a[1].dt); break;
    case S_X_N_LIST:
        r = ((O * (*)(B *, O *, uint32_t, const uint32_t *)) e->fn)(b, a[0].op, (uint32_t)a[1].n, a[1].list);
        break;
    case S_X_LIST: r = ((O * (*)(B *, O *, const uint32_t *)) e->fn)(b, a[0].op, a[1].list); break;
    case S_LIST_N_U:
        r = ((O * (*)(B *, O *const *, size_t, uint32_t)) e->fn)(b, a[0].ops, a[0].n, a[1].u);
        break;
    case S_X_3LIST:
        r = ((O * (*)(B *, O *, const uint32_t *, const uint32_t *, const uint32_t *)) e->fn)(
            b, a[0].op, a[1].list, a[2].list, a[3].list);
        break;
    case S_X_2LIST_O:
        r = ((O * (*)(B *, O *, const uint32_t *, const uint32_t *, const void *)) e->fn)(b, a[0].op, a[1].list,
                                                                                           a[2].list, o);
        break;
    case S_SPLIT:
        *count = a[1].list ? wnn_split_sizes(b, a[0].op, a[1].list, a[1].n, o, outs)
                           : wnn_split(b, a[0].op, a[1].u, o, outs);
        return;
    case S_RNN:
        *count = ((size_t(*)(B *, O *, O *, O *, uint32_t, uint32_t, const void *, O **))e->fn)(
            b, a[0].op, a[1].op, a[2].op, a[3].u, a[4].u, o, outs);
        return;
    case S_GRU_CELL:
        r = ((O * (*)(B *, O *, O *, O *, O *, uint32_t, const void *)) e->fn)(b, a[0].op, a[1].op, a[2].op,
                                                                               a[3].op, a[4].u, o);
        break;
    case S_LSTM_CELL:
        *count = ((size_t(*)(B *, O *, O *, O *, O *, O *, uint32_t, const void *, O **))e->fn)(
            b, a[0].op, a[1].op, a[2].op, a[3].op, a[4].op, a[5].u, o, outs);
        return;
    }
    outs[0] = r;
    *count = r ? 1 : 0;
}

/* Room for split's outputs: one per part, or one when the count exceeds
** every dimension (wnn refuses it without writing any). */
static size_t split_room(const arg *a)
{
    if (a[1].list) return a[1].n;
    wnn_operand_desc d;
    wnn_operand_get_desc(a[0].op, &d);
    uint32_t largest = 0;
    for (uint32_t i = 0; i < d.rank; i++)
        if (d.shape[i] > largest) largest = d.shape[i];
    return a[1].u <= largest ? a[1].u : 1;
}

static bool returns_list(const op_entry *e)
{
    return e->sig == S_SPLIT || e->sig == S_RNN || e->sig == S_LSTM_CELL;
}

static PyObject *op_call(PyObject *selfobj, const op_entry *e, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames)
{
    WnnBuilderObject *self = (WnnBuilderObject *)selfobj;
    PyObject *pv[MAX_PARAMS] = {NULL}, *ov[WNNPY_MAX_FIELDS] = {NULL};
    arg a[MAX_PARAMS];
    memset(a, 0, sizeof a);
    int np = 0;
    while (e->params[np].name) np++;
    if (nargs > np)
        return PyErr_Format(PyExc_TypeError, "%s() takes %d positional arguments but %zd were given", e->name, np,
                            nargs);
    for (Py_ssize_t i = 0; i < nargs; i++) pv[i] = args[i];
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        const char *key = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
        if (!key) return NULL;
        char name[64];
        snake_case(key, name, sizeof name);
        int i = 0;
        while (i < np && strcmp(e->params[i].name, name) != 0) i++;
        PyObject **slot = i < np ? &pv[i] : NULL;
        if (!slot && (i = wnnpy_option_index(e->opts, name)) >= 0) slot = &ov[i];
        if (!slot) return PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%s'", e->name, key);
        if (*slot) return PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", e->name, key);
        *slot = args[nargs + k];
    }

    PyObject *result = NULL;
    wnn_operand **outs = NULL;
    wnnpy_options_buffer o;
    int rc = 0;
    for (int i = 0; i < np && rc == 0; i++) rc = convert(pv[i], e, i, a);
    if (rc == 0 && e->opts) rc = wnnpy_options_fill(e->opts, ov, e->webnn, &o);
    if (rc < 0) goto done;
    size_t room = e->sig == S_SPLIT ? split_room(a) : 3;
    outs = PyMem_Calloc(room ? room : 1, sizeof *outs);
    if (!outs) {
        PyErr_NoMemory();
        goto done;
    }
    size_t count;
    call(e, self->builder, a, &o, outs, &count);
    if (count == 0) {
        wnnpy_builder_raise(self);
        goto done;
    }
    if (!returns_list(e)) {
        result = wnnpy_operand_new(self, outs[0]);
        goto done;
    }
    result = PyList_New((Py_ssize_t)count);
    for (size_t i = 0; result && i < count; i++) {
        PyObject *op = wnnpy_operand_new(self, outs[i]);
        if (!op) Py_CLEAR(result);
        else PyList_SET_ITEM(result, (Py_ssize_t)i, op);
    }
done:
    for (int i = 0; i < MAX_PARAMS; i++) {
        PyMem_Free(a[i].list);
        PyMem_Free(a[i].ops);
    }
    PyMem_Free(outs);
    return result;
}

/* ------------------------------------------------------------------------ */
/* Methods                                                                   */
/* ------------------------------------------------------------------------ */

#define AS_TRAMPOLINE(py, webnn, sig, fn, params, opts) \
    static PyObject *op_##py(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) \
    { \
        return op_call(self, &ops[OPI_##py], args, nargs, kwnames); \
    }
WNNPY_OPS(AS_TRAMPOLINE)

#define AS_FUNCTION(py, webnn, sig, fn, params, opts) op_##py,
static PyObject *(*const trampolines[OP_COUNT])(PyObject *, PyObject *const *, Py_ssize_t,
                                                 PyObject *) = {WNNPY_OPS(AS_FUNCTION)};

/* WebNN's conventions where they differ from PyTorch's or NumPy's, per
** operator (by its WebNN name), for the docstrings. */
static const char CONV_NOTE[] =
    " input_layout \"nchw\" (the default) or \"nhwc\". padding is [beginH, endH, beginW, endW] (PyTorch's "
    "padding=(p, q) is [p, p, q, q]); strides and dilations are [h, w] (default [1, 1]); bias is a 1-D Operand.";
static const char POOL_NOTE[] =
    " layout \"nchw\" (the default) or \"nhwc\". Without window_dimensions the window is the whole spatial "
    "extent: a global pool to 1x1. padding is [beginH, endH, beginW, endW]; strides and dilations are [h, w]; "
    "rounding_type \"floor\" (default) or \"ceil\"; output_sizes [h, w] overrides it.";
static const char REDUCE_NOTE[] =
    " Without axes every axis is reduced (to a scalar unless keep_dimensions=True); axes=[] reduces none.";

static const struct {
    const char *webnn;
    const char *note;
} op_notes[] = {
    {"conv2d", " filter_layout \"oihw\" (the default), \"hwio\", \"ohwi\" or \"ihwo\"; groups splits the channels."},
    {"convTranspose2d", " filter_layout \"iohw\" (the default), \"hwoi\" or \"ohwi\"; output_padding is [h, w];"
                        " output_sizes [h, w] overrides it."},
    {"averagePool2d", POOL_NOTE},
    {"l2Pool2d", POOL_NOTE},
    {"maxPool2d", POOL_NOTE},
    {"pad", " beginning_padding and ending_padding give one count per dimension; mode \"constant\" (the default,"
            " with value), \"edge\" or \"reflection\"."},
    {"resample2d", " axes are the two spatial axes (default [2, 3], NCHW); give scales [h, w] or sizes [h, w];"
                   " mode \"nearest-neighbor\" (default) or \"linear\"."},
    {"gemm", " c is broadcast and added: alpha * A' B' + beta * c, with A' and B' transposed by a_transpose and"
             " b_transpose."},
    {"matmul", " NumPy's matmul: batch dimensions broadcast; 1-D operands are not accepted (rank >= 2)."},
    {"transpose", " permutation defaults to the reversed axes."},
    {"slice", " starts and sizes (not ends) per dimension; strides default to 1."},
    {"split", " splits is a count of equal parts or a list of sizes; axis is an option (default 0)."},
    {"reshape", " new_shape lists every dimension (no -1)."},
    {"batchNormalization", " axis is the channel axis (default 1, NCHW)."},
    {"instanceNormalization", " layout \"nchw\" (the default) or \"nhwc\"."},
    {"layerNormalization", " axes default to every axis after the first."},
    {"gru", " weights of shape [directions, 3 * hidden_size, input_size]; layout \"zrn\" (default) or \"rzn\"."},
    {"lstm", " weights of shape [directions, 4 * hidden_size, input_size]; layout \"iofg\" (default) or"
             " \"ifgo\"."},
    {"cast", " type is a data type: \"float32\", numpy.int32, torch.float16, ..."},
};

static const char *op_note(const op_entry *e)
{
    static const char *const reduce_ops = "reduceL1 reduceL2 reduceLogSum reduceLogSumExp reduceMax reduceMean "
                                          "reduceMin reduceProduct reduceSum reduceSumSquare";
    for (size_t i = 0; i < sizeof op_notes / sizeof op_notes[0]; i++)
        if (strcmp(op_notes[i].webnn, e->webnn) == 0) return op_notes[i].note;
    if (strncmp(e->webnn, "reduce", 6) == 0 && strstr(reduce_ops, e->webnn)) return REDUCE_NOTE;
    return "";
}

/* "conv2d($self, /, input, filter, *, padding=None, ...)\n--\n\nWebNN's
** ...": a text signature (inspect.signature reads it; it must begin with the
** method's name, so each spelling has its own) and WebNN's conventions. None
** leaves an option at its WebNN default. */
static char *make_doc(const op_entry *e, const char *name)
{
    char buf[2048];
    size_t n = 0;
    n += (size_t)PyOS_snprintf(buf + n, sizeof buf - n, "%s($self, /", name);
    for (int i = 0; e->params[i].name; i++)
        n += (size_t)PyOS_snprintf(buf + n, sizeof buf - n, ", %s%s", e->params[i].name,
                                   e->params[i].optional ? "=None" : "");
    for (int i = 0; e->opts && e->opts->fields[i].name && n < sizeof buf; i++)
        n += (size_t)PyOS_snprintf(buf + n, sizeof buf - n, "%s%s=None", i ? ", " : ", *, ",
                                   e->opts->fields[i].name);
    if (n < sizeof buf)
        n += (size_t)PyOS_snprintf(buf + n, sizeof buf - n,
                                   ")\n--\n\nWebNN's MLGraphBuilder.%s(); returns %s. Options are keywords, in "
                                   "snake_case or WebNN's camelCase; None keeps WebNN's default.",
                                   e->webnn, returns_list(e) ? "a list of Operand" : "an Operand");
    if (n < sizeof buf) {
        const char *note = op_note(e);
        if (e->params[0].kind == PK_OPERAND && (strstr(e->webnn, "conv") == e->webnn))
            n += (size_t)PyOS_snprintf(buf + n, sizeof buf - n, "%s", CONV_NOTE);
        if (n < sizeof buf) PyOS_snprintf(buf + n, sizeof buf - n, "%s", note);
    }
    size_t len = strlen(buf) + 1;
    char *doc = PyMem_RawMalloc(len);
    if (doc) memcpy(doc, buf, len);
    return doc;
}

PyMethodDef *wnnpy_op_methods(const PyMethodDef *base)
{
    size_t nbase = 0, j;
    while (base[nbase].ml_name) nbase++;
    PyMethodDef *m = PyMem_RawCalloc(nbase + 2 * OP_COUNT + 1, sizeof *m);
    if (!m) return (PyMethodDef *)PyErr_NoMemory();
    memcpy(m, base, nbase * sizeof *m);
    j = nbase;
    for (int i = 0; i < OP_COUNT; i++) {
        PyCFunction f = (PyCFunction)(void (*)(void))trampolines[i];
        m[j++] = (PyMethodDef){ops[i].name, f, METH_FASTCALL | METH_KEYWORDS, make_doc(&ops[i], ops[i].name)};
        if (strcmp(ops[i].name, ops[i].webnn) != 0)
            m[j++] = (PyMethodDef){ops[i].webnn, f, METH_FASTCALL | METH_KEYWORDS, make_doc(&ops[i], ops[i].webnn)};
    }
    return m;
}
