/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-op-graphs.h -- one small graph per operator and varied operand, for
** the tests that walk every operator: test-backend-ops (every device
** against the cpu) and test-limits (the builder accepts exactly the types
** the limits list). A row names the operator, the operand whose data type
** the case varies, and a builder that makes the graph for one type: graph
** inputs (recorded in the case with the range of values they want) and the
** operator call. Options are NULL (the defaults) wherever a default is a
** valid call, so the rows hold for any device. Include it once, in a test.
*/
#ifndef WNN_TESTS_TEST_OP_GRAPHS_H
#define WNN_TESTS_TEST_OP_GRAPHS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/half.h"
#include "wnn/wnn.h"

#define MAX_IN 8
#define MAX_OUT 10

/* Value ranges of random inputs; IDX(n) is an index in [0, n). */
enum { R_ANY, R_POS, R_SMALL, R_BOOL, R_SCALE, R_CAST, R_EXP };
#define IDX(n) (100 + (n))

/* How test-backend-ops compares a row's outputs (its header says how). */
enum { EXACT, ELEM, ACC };

static bool is_float(wnn_data_type t)
{
    return t == WNN_DATA_TYPE_FLOAT32 || t == WNN_DATA_TYPE_FLOAT16;
}

static void store(wnn_data_type t, void *p, size_t i, double v)
{
    switch (t) {
    case WNN_DATA_TYPE_FLOAT32: ((float *)p)[i] = (float)v; break;
    case WNN_DATA_TYPE_FLOAT16: ((uint16_t *)p)[i] = wnn__float_to_half((float)v); break;
    case WNN_DATA_TYPE_INT32: ((int32_t *)p)[i] = (int32_t)v; break;
    case WNN_DATA_TYPE_UINT32: ((uint32_t *)p)[i] = (uint32_t)v; break;
    case WNN_DATA_TYPE_INT64: ((int64_t *)p)[i] = (int64_t)v; break;
    case WNN_DATA_TYPE_UINT64: ((uint64_t *)p)[i] = (uint64_t)v; break;
    case WNN_DATA_TYPE_INT8: ((int8_t *)p)[i] = (int8_t)v; break;
    case WNN_DATA_TYPE_UINT8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    default: break;
    }
}

/* ---- one case: a graph built by a row's builder ------------------------------------------------- */

typedef struct bcase {
    wnn_graph_builder *b;
    const char *operand; /* the operand whose type varies */
    wnn_data_type t;     /* its type in this case */
    const void *fn;      /* the row's wnn_* function, for the shared builders */
    uint32_t n_in;
    wnn_operand_desc in[MAX_IN];
    int range[MAX_IN];
} bcase;

static const char *const in_names[MAX_IN] = {"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7"};

/* A graph input of type t, shape dims[0..rank), filled from range r. */
static wnn_operand *input(bcase *c, wnn_data_type t, int r, uint32_t rank, const uint32_t *dims)
{
    if (c->n_in == MAX_IN)
        return NULL;
    wnn_operand_desc d = WNN_OPERAND_DESC_INIT;
    d.data_type = t;
    d.rank = rank;
    for (uint32_t i = 0; i < rank; i++)
        d.shape[i] = dims[i];
    c->in[c->n_in] = d;
    c->range[c->n_in] = r;
    return wnn_graph_builder_input(c->b, in_names[c->n_in++], &d);
}

#define IN(c, t, r, ...)                                                                              \
    input(c, t, r, (uint32_t)(sizeof((uint32_t[]){__VA_ARGS__}) / sizeof(uint32_t)),                 \
          (const uint32_t[]){__VA_ARGS__})

/* Whether the case varies the operand called name. */
static bool varies(const bcase *c, const char *name)
{
    return strcmp(c->operand, name) == 0;
}

/* A constant of type t holding the integers v[0..n), shape dims[0..rank). */
static wnn_operand *int_constant(bcase *c, wnn_data_type t, const int64_t *v, uint32_t rank, const uint32_t *dims)
{
    wnn_operand_desc d = WNN_OPERAND_DESC_INIT;
    uint8_t data[64];
    d.data_type = t;
    d.rank = rank;
    for (uint32_t i = 0; i < rank; i++)
        d.shape[i] = dims[i];
    for (size_t i = 0; i < (size_t)wnn_operand_desc_element_count(&d); i++)
        store(t, data, i, (double)v[i]);
    return wnn_graph_builder_constant(c->b, &d, data, (size_t)wnn_operand_desc_byte_length(&d));
}

/* A builder puts its outputs in y and returns how many; 0 or a NULL output
** when the builder refused. */
typedef uint32_t (*build_fn)(bcase *c, wnn_operand **y);

#define F32 WNN_DATA_TYPE_FLOAT32
#define I32 WNN_DATA_TYPE_INT32
#define U8 WNN_DATA_TYPE_UINT8

/* A builder of one output, y[0] = expr. */
#define BUILD1(name, expr)                                                                            \
    static uint32_t name(bcase *c, wnn_operand **y)                                                   \
    {                                                                                                 \
        y[0] = (expr);                                                                                \
        return 1;                                                                                     \
    }

typedef wnn_operand *(*unary_fn)(wnn_graph_builder *, wnn_operand *);
typedef wnn_operand *(*binary_fn)(wnn_graph_builder *, wnn_operand *, wnn_operand *);
typedef wnn_operand *(*reduce_fn)(wnn_graph_builder *, wnn_operand *, const wnn_reduce_options *);
typedef wnn_operand *(*pool_fn)(wnn_graph_builder *, wnn_operand *, const wnn_pool2d_options *);

/* ---- builders: element-wise ---------------------------------------------------------------------- */

BUILD1(b_unary, ((unary_fn)c->fn)(c->b, IN(c, c->t, R_ANY, 2, 3, 5)))

/* Inputs where the operator wants them positive (log, sqrt, reciprocal). */
BUILD1(b_unary_pos, ((unary_fn)c->fn)(c->b, IN(c, c->t, R_POS, 2, 3, 5)))

/* b broadcast against a. */
static uint32_t b_binary(bcase *c, wnn_operand **y)
{
    wnn_operand *a = IN(c, c->t, R_ANY, 2, 3, 5);
    y[0] = ((binary_fn)c->fn)(c->b, a, IN(c, c->t, R_ANY, 3, 5));
    return 1;
}

static uint32_t b_div(bcase *c, wnn_operand **y)
{
    wnn_operand *a = IN(c, c->t, R_ANY, 2, 3, 5);
    y[0] = wnn_div(c->b, a, IN(c, c->t, R_POS, 3, 5));
    return 1;
}

static uint32_t b_pow(bcase *c, wnn_operand **y)
{
    wnn_operand *a = IN(c, c->t, is_float(c->t) ? R_POS : R_SMALL, 2, 3, 5);
    y[0] = wnn_pow(c->b, a, IN(c, c->t, R_EXP, 3, 5));
    return 1;
}

static uint32_t b_logical_binary(bcase *c, wnn_operand **y)
{
    wnn_operand *a = IN(c, c->t, R_BOOL, 2, 3, 5);
    y[0] = ((binary_fn)c->fn)(c->b, a, IN(c, c->t, R_BOOL, 3, 5));
    return 1;
}

BUILD1(b_logical_not, wnn_logical_not(c->b, IN(c, c->t, R_BOOL, 2, 3, 5)))

static uint32_t b_where(bcase *c, wnn_operand **y)
{
    wnn_operand *cond = IN(c, U8, R_BOOL, 2, 3, 5);
    wnn_operand *t = IN(c, c->t, R_ANY, 3, 5);
    y[0] = wnn_where(c->b, cond, t, IN(c, c->t, R_ANY, 2, 1, 5));
    return 1;
}

static uint32_t b_prelu(bcase *c, wnn_operand **y)
{
    wnn_operand *x = IN(c, c->t, R_ANY, 2, 3, 5);
    y[0] = wnn_prelu(c->b, x, IN(c, c->t, R_ANY, 5));
    return 1;
}

BUILD1(b_clamp, wnn_clamp(c->b, IN(c, c->t, R_ANY, 2, 3, 5), NULL))

/* The cpu context, set by the test: cast's builder makes one output per type
** the cpu's cast produces. */
static wnn_context *cpu_ctx;

/* x cast to every type the cpu's cast produces, one output each. */
static uint32_t b_cast(bcase *c, wnn_operand **y)
{
    wnn_tensor_limits l;
    uint32_t n = 0;
    wnn_operand *x = IN(c, c->t, R_CAST, 2, 4);
    if (wnn_context_get_operand_limits(cpu_ctx, "cast", "output", &l) != WNN_OK)
        return 0;
    for (int t = WNN_DATA_TYPE_FLOAT32; t <= WNN_DATA_TYPE_UINT4 && n < MAX_OUT; t++)
        if (l.data_types & WNN_DATA_TYPE_BIT(t))
            y[n++] = wnn_cast(c->b, x, (wnn_data_type)t);
    return n;
}

BUILD1(b_elu, wnn_elu(c->b, IN(c, c->t, R_ANY, 2, 3, 5), NULL))
BUILD1(b_hard_sigmoid, wnn_hard_sigmoid(c->b, IN(c, c->t, R_ANY, 2, 3, 5), NULL))
BUILD1(b_leaky_relu, wnn_leaky_relu(c->b, IN(c, c->t, R_ANY, 2, 3, 5), NULL))
BUILD1(b_linear, wnn_linear(c->b, IN(c, c->t, R_ANY, 2, 3, 5), NULL))

/* ---- builders: reduction -------------------------------------------------------------------------- */

/* Over every axis (the default): products of small values stay in range. */
BUILD1(b_reduce, ((reduce_fn)c->fn)(c->b, IN(c, c->t, R_SMALL, 2, 3, 4), NULL))

/* Inputs where the reduction wants them positive (reduceLogSum). */
BUILD1(b_reduce_pos, ((reduce_fn)c->fn)(c->b, IN(c, c->t, R_POS, 2, 3, 4), NULL))
BUILD1(b_arg_min, wnn_arg_min(c->b, IN(c, c->t, R_ANY, 3, 5), 1, NULL))
BUILD1(b_arg_max, wnn_arg_max(c->b, IN(c, c->t, R_ANY, 3, 5), 0, NULL))
BUILD1(b_cumulative_sum, wnn_cumulative_sum(c->b, IN(c, c->t, R_ANY, 3, 5), 1, NULL))
BUILD1(b_softmax, wnn_softmax(c->b, IN(c, c->t, R_ANY, 3, 5), 1))

/* ---- builders: data movement ------------------------------------------------------------------------ */

BUILD1(b_reshape, wnn_reshape(c->b, IN(c, c->t, R_ANY, 2, 3, 4), 2, (const uint32_t[]){4, 6}))
BUILD1(b_transpose, wnn_transpose(c->b, IN(c, c->t, R_ANY, 2, 3, 4), (const uint32_t[]){1, 2, 0}))

static uint32_t b_concat(bcase *c, wnn_operand **y)
{
    wnn_operand *x[3];
    x[0] = IN(c, c->t, R_ANY, 2, 3);
    x[1] = IN(c, c->t, R_ANY, 2, 1);
    x[2] = IN(c, c->t, R_ANY, 2, 2);
    y[0] = wnn_concat(c->b, x, 3, 1);
    return 1;
}

BUILD1(b_slice, wnn_slice(c->b, IN(c, c->t, R_ANY, 3, 4), (const uint32_t[]){1, 0}, (const uint32_t[]){2, 2},
                          (const uint32_t[]){1, 2}))
BUILD1(b_expand, wnn_expand(c->b, IN(c, c->t, R_ANY, 3, 1), 3, (const uint32_t[]){2, 3, 4}))
BUILD1(b_pad, wnn_pad(c->b, IN(c, c->t, R_ANY, 2, 3), (const uint32_t[]){1, 0}, (const uint32_t[]){0, 2}, NULL))

static uint32_t b_split(bcase *c, wnn_operand **y)
{
    return (uint32_t)wnn_split(c->b, IN(c, c->t, R_ANY, 4, 6), 2, NULL, y);
}

BUILD1(b_tile, wnn_tile(c->b, IN(c, c->t, R_ANY, 2, 3), (const uint32_t[]){2, 1}))
BUILD1(b_reverse, wnn_reverse(c->b, IN(c, c->t, R_ANY, 3, 4), NULL))
BUILD1(b_triangular, wnn_triangular(c->b, IN(c, c->t, R_ANY, 3, 4), NULL))

/* ---- builders: gather and scatter ---------------------------------------------------------------- */

/* The data and index types of a gather/scatter case: the varied one takes
** the case's type, the other float32 or int32. */
static wnn_data_type data_type_of(const bcase *c)
{
    return varies(c, "indices") ? F32 : c->t;
}

static wnn_data_type index_type_of(const bcase *c)
{
    return varies(c, "indices") ? c->t : I32;
}

static uint32_t b_gather(bcase *c, wnn_operand **y)
{
    wnn_operand *x = IN(c, data_type_of(c), R_ANY, 4, 3);
    y[0] = wnn_gather(c->b, x, IN(c, index_type_of(c), IDX(4), 2, 2), NULL);
    return 1;
}

static uint32_t b_gather_elements(bcase *c, wnn_operand **y)
{
    wnn_operand *x = IN(c, data_type_of(c), R_ANY, 4, 3);
    y[0] = wnn_gather_elements(c->b, x, IN(c, index_type_of(c), IDX(4), 2, 3), NULL);
    return 1;
}

static uint32_t b_gather_nd(bcase *c, wnn_operand **y)
{
    wnn_operand *x = IN(c, data_type_of(c), R_ANY, 4, 3);
    y[0] = wnn_gather_nd(c->b, x, IN(c, index_type_of(c), IDX(4), 2, 1));
    return 1;
}

/* Scatter indices are constants without repeats: the order of two writes
** to one element is not specified. */
static uint32_t b_scatter_elements(bcase *c, wnn_operand **y)
{
    static const int64_t idx[6] = {3, 0, 2, 1, 2, 0};
    wnn_operand *x = IN(c, data_type_of(c), R_ANY, 4, 3);
    wnn_operand *i = int_constant(c, index_type_of(c), idx, 2, (const uint32_t[]){2, 3});
    y[0] = wnn_scatter_elements(c->b, x, i, IN(c, data_type_of(c), R_ANY, 2, 3), NULL);
    return 1;
}

static uint32_t b_scatter_nd(bcase *c, wnn_operand **y)
{
    static const int64_t idx[2] = {3, 1};
    wnn_operand *x = IN(c, data_type_of(c), R_ANY, 4, 3);
    wnn_operand *i = int_constant(c, index_type_of(c), idx, 2, (const uint32_t[]){2, 1});
    y[0] = wnn_scatter_nd(c->b, x, i, IN(c, data_type_of(c), R_ANY, 2, 3));
    return 1;
}

/* ---- builders: linear algebra, convolution, pooling, normalization -------------------------------- */

static uint32_t b_matmul(bcase *c, wnn_operand **y)
{
    wnn_operand *a = IN(c, c->t, R_ANY, 2, 3, 4);
    y[0] = wnn_matmul(c->b, a, IN(c, c->t, R_ANY, 4, 5));
    return 1;
}

static uint32_t b_gemm(bcase *c, wnn_operand **y)
{
    wnn_operand *a = IN(c, c->t, R_ANY, 3, 4);
    y[0] = wnn_gemm(c->b, a, IN(c, c->t, R_ANY, 4, 5), NULL);
    return 1;
}

static uint32_t b_conv2d(bcase *c, wnn_operand **y)
{
    wnn_operand *x = IN(c, c->t, R_ANY, 1, 2, 5, 5);
    y[0] = wnn_conv2d(c->b, x, IN(c, c->t, R_SMALL, 3, 2, 3, 3), NULL);
    return 1;
}

static uint32_t b_conv_transpose2d(bcase *c, wnn_operand **y)
{
    wnn_operand *x = IN(c, c->t, R_ANY, 1, 2, 3, 3);
    y[0] = wnn_conv_transpose2d(c->b, x, IN(c, c->t, R_SMALL, 2, 3, 3, 3), NULL);
    return 1;
}

/* The default window is the whole plane. */
BUILD1(b_pool, ((pool_fn)c->fn)(c->b, IN(c, c->t, R_ANY, 1, 2, 4, 4), NULL))
BUILD1(b_resample2d, wnn_resample2d(c->b, IN(c, c->t, R_ANY, 1, 2, 3, 4), NULL))

static uint32_t b_batch_normalization(bcase *c, wnn_operand **y)
{
    wnn_operand *x = IN(c, c->t, R_ANY, 2, 3, 4);
    wnn_operand *mean = IN(c, c->t, R_SMALL, 3);
    y[0] = wnn_batch_normalization(c->b, x, mean, IN(c, c->t, R_POS, 3), NULL);
    return 1;
}

BUILD1(b_instance_normalization, wnn_instance_normalization(c->b, IN(c, c->t, R_ANY, 1, 2, 3, 3), NULL))
BUILD1(b_layer_normalization, wnn_layer_normalization(c->b, IN(c, c->t, R_ANY, 2, 3, 4), NULL))

/* ---- builders: quantization and recurrent networks ------------------------------------------------ */

/* Blockwise with blocks of one element; scales are powers of two, so x /
** scale is exact and roundEven's ties fall the same on every device. */
static uint32_t b_quantize(bcase *c, wnn_operand **y)
{
    wnn_data_type xt = varies(c, "input") ? c->t : F32, qt = varies(c, "zeroPoint") ? c->t : U8;
    wnn_operand *x = IN(c, xt, R_ANY, 2, 4);
    wnn_operand *scale = IN(c, xt, R_SCALE, 2, 4);
    y[0] = wnn_quantize_linear(c->b, x, scale, IN(c, qt, R_ANY, 2, 4));
    return 1;
}

static uint32_t b_dequantize(bcase *c, wnn_operand **y)
{
    wnn_data_type qt = varies(c, "input") ? c->t : U8, st = varies(c, "scale") ? c->t : F32;
    wnn_operand *x = IN(c, qt, R_ANY, 2, 4);
    wnn_operand *scale = IN(c, st, R_SCALE, 2, 4);
    y[0] = wnn_dequantize_linear(c->b, x, scale, IN(c, qt, R_ANY, 2, 4));
    return 1;
}

/* Two steps, batch 1, three input features, two hidden units. */
static uint32_t b_gru(bcase *c, wnn_operand **y)
{
    wnn_operand *x = IN(c, c->t, R_SMALL, 2, 1, 3);
    wnn_operand *w = IN(c, c->t, R_SMALL, 1, 6, 3);
    return (uint32_t)wnn_gru(c->b, x, w, IN(c, c->t, R_SMALL, 1, 6, 2), 2, 2, NULL, y);
}

static uint32_t b_gru_cell(bcase *c, wnn_operand **y)
{
    wnn_operand *x = IN(c, c->t, R_SMALL, 1, 3);
    wnn_operand *w = IN(c, c->t, R_SMALL, 6, 3);
    wnn_operand *r = IN(c, c->t, R_SMALL, 6, 2);
    y[0] = wnn_gru_cell(c->b, x, w, r, IN(c, c->t, R_SMALL, 1, 2), 2, NULL);
    return 1;
}

static uint32_t b_lstm(bcase *c, wnn_operand **y)
{
    wnn_operand *x = IN(c, c->t, R_SMALL, 2, 1, 3);
    wnn_operand *w = IN(c, c->t, R_SMALL, 1, 8, 3);
    return (uint32_t)wnn_lstm(c->b, x, w, IN(c, c->t, R_SMALL, 1, 8, 2), 2, 2, NULL, y);
}

static uint32_t b_lstm_cell(bcase *c, wnn_operand **y)
{
    wnn_operand *x = IN(c, c->t, R_SMALL, 1, 3);
    wnn_operand *w = IN(c, c->t, R_SMALL, 8, 3);
    wnn_operand *r = IN(c, c->t, R_SMALL, 8, 2);
    wnn_operand *h = IN(c, c->t, R_SMALL, 1, 2);
    return (uint32_t)wnn_lstm_cell(c->b, x, w, r, h, IN(c, c->t, R_SMALL, 1, 2), 2, NULL, y);
}

/* ---- the table ------------------------------------------------------------------------------------------ */

typedef struct row {
    const char *op;      /* WebNN name */
    const char *operand; /* the operand whose claimed types are walked */
    build_fn build;
    const void *fn;
    int cmp; /* EXACT, ELEM or ACC; integer outputs are always exact */
} row;

static const row rows[] = {
    /* element-wise */
    {"add", "a", b_binary, wnn_add, ELEM},
    {"sub", "a", b_binary, wnn_sub, ELEM},
    {"mul", "a", b_binary, wnn_mul, ELEM},
    {"div", "a", b_div, NULL, ELEM},
    {"max", "a", b_binary, wnn_max, EXACT},
    {"min", "a", b_binary, wnn_min, EXACT},
    {"pow", "a", b_pow, NULL, ELEM},
    {"equal", "a", b_binary, wnn_equal, EXACT},
    {"notEqual", "a", b_binary, wnn_not_equal, EXACT},
    {"greater", "a", b_binary, wnn_greater, EXACT},
    {"greaterOrEqual", "a", b_binary, wnn_greater_or_equal, EXACT},
    {"lesser", "a", b_binary, wnn_lesser, EXACT},
    {"lesserOrEqual", "a", b_binary, wnn_lesser_or_equal, EXACT},
    {"logicalAnd", "a", b_logical_binary, wnn_logical_and, EXACT},
    {"logicalOr", "a", b_logical_binary, wnn_logical_or, EXACT},
    {"logicalXor", "a", b_logical_binary, wnn_logical_xor, EXACT},
    {"logicalNot", "a", b_logical_not, NULL, EXACT},
    {"where", "trueValue", b_where, NULL, EXACT},
    {"prelu", "input", b_prelu, NULL, ELEM},
    {"abs", "input", b_unary, wnn_abs, EXACT},
    {"neg", "input", b_unary, wnn_neg, EXACT},
    {"exp", "input", b_unary, wnn_exp, ELEM},
    {"log", "input", b_unary_pos, wnn_log, ELEM},
    {"sqrt", "input", b_unary_pos, wnn_sqrt, ELEM},
    {"ceil", "input", b_unary, wnn_ceil, EXACT},
    {"floor", "input", b_unary, wnn_floor, EXACT},
    {"cos", "input", b_unary, wnn_cos, ELEM},
    {"sin", "input", b_unary, wnn_sin, ELEM},
    {"tan", "input", b_unary, wnn_tan, ELEM},
    {"erf", "input", b_unary, wnn_erf, ELEM},
    {"reciprocal", "input", b_unary_pos, wnn_reciprocal, ELEM},
    {"roundEven", "input", b_unary, wnn_round_even, EXACT},
    {"sign", "input", b_unary, wnn_sign, EXACT},
    {"identity", "input", b_unary, wnn_identity, EXACT},
    {"isNaN", "a", b_unary, wnn_is_nan, EXACT},
    {"isInfinite", "a", b_unary, wnn_is_infinite, EXACT},
    {"relu", "input", b_unary, wnn_relu, EXACT},
    {"sigmoid", "input", b_unary, wnn_sigmoid, ELEM},
    {"tanh", "input", b_unary, wnn_tanh, ELEM},
    {"gelu", "input", b_unary, wnn_gelu, ELEM},
    {"hardSwish", "input", b_unary, wnn_hard_swish, ELEM},
    {"softplus", "input", b_unary, wnn_softplus, ELEM},
    {"softsign", "input", b_unary, wnn_softsign, ELEM},
    {"clamp", "input", b_clamp, NULL, EXACT},
    {"cast", "input", b_cast, NULL, EXACT},
    {"elu", "input", b_elu, NULL, ELEM},
    {"hardSigmoid", "input", b_hard_sigmoid, NULL, ELEM},
    {"leakyRelu", "input", b_leaky_relu, NULL, ELEM},
    {"linear", "input", b_linear, NULL, ELEM},
    /* reduction */
    {"reduceL1", "input", b_reduce, wnn_reduce_l1, ACC},
    {"reduceL2", "input", b_reduce, wnn_reduce_l2, ACC},
    {"reduceLogSum", "input", b_reduce_pos, wnn_reduce_log_sum, ACC},
    {"reduceLogSumExp", "input", b_reduce, wnn_reduce_log_sum_exp, ACC},
    {"reduceMax", "input", b_reduce, wnn_reduce_max, EXACT},
    {"reduceMean", "input", b_reduce, wnn_reduce_mean, ACC},
    {"reduceMin", "input", b_reduce, wnn_reduce_min, EXACT},
    {"reduceProduct", "input", b_reduce, wnn_reduce_product, ACC},
    {"reduceSum", "input", b_reduce, wnn_reduce_sum, ACC},
    {"reduceSumSquare", "input", b_reduce, wnn_reduce_sum_square, ACC},
    {"argMin", "input", b_arg_min, NULL, EXACT},
    {"argMax", "input", b_arg_max, NULL, EXACT},
    {"cumulativeSum", "input", b_cumulative_sum, NULL, ACC},
    {"softmax", "input", b_softmax, NULL, ACC},
    /* data movement */
    {"reshape", "input", b_reshape, NULL, EXACT},
    {"transpose", "input", b_transpose, NULL, EXACT},
    {"concat", "inputs", b_concat, NULL, EXACT},
    {"slice", "input", b_slice, NULL, EXACT},
    {"expand", "input", b_expand, NULL, EXACT},
    {"pad", "input", b_pad, NULL, EXACT},
    {"split", "input", b_split, NULL, EXACT},
    {"tile", "input", b_tile, NULL, EXACT},
    {"reverse", "input", b_reverse, NULL, EXACT},
    {"triangular", "input", b_triangular, NULL, EXACT},
    /* gather and scatter */
    {"gather", "input", b_gather, NULL, EXACT},
    {"gather", "indices", b_gather, NULL, EXACT},
    {"gatherElements", "input", b_gather_elements, NULL, EXACT},
    {"gatherElements", "indices", b_gather_elements, NULL, EXACT},
    {"gatherND", "input", b_gather_nd, NULL, EXACT},
    {"gatherND", "indices", b_gather_nd, NULL, EXACT},
    {"scatterElements", "input", b_scatter_elements, NULL, EXACT},
    {"scatterElements", "indices", b_scatter_elements, NULL, EXACT},
    {"scatterND", "input", b_scatter_nd, NULL, EXACT},
    {"scatterND", "indices", b_scatter_nd, NULL, EXACT},
    /* linear algebra, convolution, pooling, normalization */
    {"matmul", "a", b_matmul, NULL, ACC},
    {"gemm", "a", b_gemm, NULL, ACC},
    {"conv2d", "input", b_conv2d, NULL, ACC},
    {"convTranspose2d", "input", b_conv_transpose2d, NULL, ACC},
    {"averagePool2d", "input", b_pool, wnn_average_pool2d, ACC},
    {"l2Pool2d", "input", b_pool, wnn_l2_pool2d, ACC},
    {"maxPool2d", "input", b_pool, wnn_max_pool2d, EXACT},
    {"resample2d", "input", b_resample2d, NULL, EXACT},
    {"batchNormalization", "input", b_batch_normalization, NULL, ACC},
    {"instanceNormalization", "input", b_instance_normalization, NULL, ACC},
    {"layerNormalization", "input", b_layer_normalization, NULL, ACC},
    /* quantization and recurrent networks */
    {"quantizeLinear", "input", b_quantize, NULL, EXACT},
    {"quantizeLinear", "zeroPoint", b_quantize, NULL, EXACT},
    {"dequantizeLinear", "input", b_dequantize, NULL, ACC},
    {"dequantizeLinear", "scale", b_dequantize, NULL, ACC},
    {"gru", "input", b_gru, NULL, ACC},
    {"gruCell", "input", b_gru_cell, NULL, ACC},
    {"lstm", "input", b_lstm, NULL, ACC},
    {"lstmCell", "input", b_lstm_cell, NULL, ACC},
};

#endif
