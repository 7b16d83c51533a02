/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-options.c -- wnn.h's options rule: an options struct of zero bytes
** means WebNN's defaults. Every operator that takes options is built three
** ways on the cpu device -- with NULL options, with a zeroed struct, and
** with every default written out -- and the three results must agree bit
** for bit. Also: a set next_in_chain is refused, a zero beside a non-zero
** value is refused, and the first-use report's traps (a window or axes set
** with no "has" flag) now do what they say.
*/
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "test.h"
#include "wnn/wnn.h"

#define F32 WNN_DATA_TYPE_FLOAT32
#define I32 WNN_DATA_TYPE_INT32

static wnn_context *ctx;

/* How a case builds its options: NULL, zeroed, every default spelled out,
** or zeroed with an extension chained (which must be refused). */
enum { V_NULL, V_ZERO, V_EXPLICIT, V_CHAINED, V_COUNT };

static const wnn_chained_struct extension = {NULL, 1};

/* The options pointer for variant v: NULL for V_NULL, else o with the
** chain set for V_CHAINED. */
#define OPTS(o, v) ((v) == V_NULL ? NULL : ((o).next_in_chain = (v) == V_CHAINED ? &extension : NULL, &(o)))

/* ---- operands ---------------------------------------------------------------------------- */

/* A float32 constant of the given shape holding values in [-1, 2) from a
** fixed sequence, so that every variant reads the same input. */
static wnn_operand *data(wnn_graph_builder *b, uint32_t rank, const uint32_t *shape)
{
    wnn_operand_desc d = {F32, rank, {0}};
    size_t n = 1;
    for (uint32_t i = 0; i < rank; i++)
        n *= d.shape[i] = shape[i];
    static float v[4096];
    if (n > 4096)
        return NULL;
    uint32_t seed = 12345u + rank * 7u + (uint32_t)n;
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        v[i] = (float)(seed >> 8) / (float)(1u << 24) * 3.0f - 1.0f;
    }
    return wnn_graph_builder_constant(b, &d, v, n * sizeof(float));
}

#define SHAPE(...) (uint32_t)(sizeof((uint32_t[]){__VA_ARGS__}) / sizeof(uint32_t)), ((const uint32_t[]){__VA_ARGS__})
#define DATA(b, ...) data(b, SHAPE(__VA_ARGS__))

static wnn_operand *indices(wnn_graph_builder *b, uint32_t n, const int32_t *values)
{
    wnn_operand_desc d = {I32, 1, {n}};
    return wnn_graph_builder_constant(b, &d, values, n * sizeof(int32_t));
}

/* ---- the cases ------------------------------------------------------------------------------ */

/* WebNN's defaults, spelled out. They live as long as the program: a
** compound literal such as &(double){1.0} in an if's body dies with it. */
static const double one = 1.0, hard_sigmoid_alpha = 0.2, hard_sigmoid_beta = 0.5, leaky_relu_alpha = 0.01,
                    epsilon = 1e-5;
static const uint32_t axis1 = 1;

static wnn_operand *case_clamp(wnn_graph_builder *b, int v)
{
    const wnn_number lo = {.value = -INFINITY}, hi = {.value = INFINITY};
    wnn_clamp_options o = WNN_CLAMP_OPTIONS_INIT;
    if (v == V_EXPLICIT)
        o = (wnn_clamp_options){.min_value = &lo, .max_value = &hi};
    return wnn_clamp(b, DATA(b, 2, 5), OPTS(o, v));
}

static wnn_operand *case_elu(wnn_graph_builder *b, int v)
{
    wnn_elu_options o = WNN_ELU_OPTIONS_INIT;
    if (v == V_EXPLICIT)
        o.alpha = &one;
    return wnn_elu(b, DATA(b, 2, 5), OPTS(o, v));
}

static wnn_operand *case_hard_sigmoid(wnn_graph_builder *b, int v)
{
    wnn_hard_sigmoid_options o = WNN_HARD_SIGMOID_OPTIONS_INIT;
    if (v == V_EXPLICIT)
        o = (wnn_hard_sigmoid_options){.alpha = &hard_sigmoid_alpha, .beta = &hard_sigmoid_beta};
    return wnn_hard_sigmoid(b, DATA(b, 2, 5), OPTS(o, v));
}

static wnn_operand *case_leaky_relu(wnn_graph_builder *b, int v)
{
    wnn_leaky_relu_options o = WNN_LEAKY_RELU_OPTIONS_INIT;
    if (v == V_EXPLICIT)
        o.alpha = &leaky_relu_alpha;
    return wnn_leaky_relu(b, DATA(b, 2, 5), OPTS(o, v));
}

static wnn_operand *case_linear(wnn_graph_builder *b, int v)
{
    wnn_linear_options o = WNN_LINEAR_OPTIONS_INIT;
    if (v == V_EXPLICIT)
        o = (wnn_linear_options){.alpha = &one, .beta = 0.0};
    return wnn_linear(b, DATA(b, 2, 5), OPTS(o, v));
}

static wnn_operand *case_gemm(wnn_graph_builder *b, int v)
{
    wnn_gemm_options o = WNN_GEMM_OPTIONS_INIT;
    if (v == V_EXPLICIT)
        o = (wnn_gemm_options){.alpha = &one, .beta = &one};
    return wnn_gemm(b, DATA(b, 3, 4), DATA(b, 4, 2), OPTS(o, v));
}

/* beta only shows with c, so this one has no NULL variant */
static wnn_operand *case_gemm_c(wnn_graph_builder *b, int v)
{
    wnn_gemm_options o = {.c = DATA(b, 3, 2)};
    if (v == V_EXPLICIT) {
        o.alpha = &one;
        o.beta = &one;
    }
    return wnn_gemm(b, DATA(b, 3, 4), DATA(b, 4, 2), OPTS(o, v));
}

typedef wnn_operand *(*reduce_fn)(wnn_graph_builder *, wnn_operand *, const wnn_reduce_options *);
static const reduce_fn reductions[10] = {wnn_reduce_l1,      wnn_reduce_l2,         wnn_reduce_log_sum,
                                         wnn_reduce_log_sum_exp, wnn_reduce_max,  wnn_reduce_mean,
                                         wnn_reduce_min,     wnn_reduce_product,    wnn_reduce_sum,
                                         wnn_reduce_sum_square};

static wnn_operand *reduce_case(wnn_graph_builder *b, int v, reduce_fn fn)
{
    static const uint32_t all[3] = {0, 1, 2};
    wnn_reduce_options o = WNN_REDUCE_OPTIONS_INIT;
    if (v == V_EXPLICIT)
        o = (wnn_reduce_options){.axes = all, .axes_count = 3, .keep_dimensions = false};
    return fn(b, DATA(b, 2, 3, 2), OPTS(o, v));
}

#define REDUCE_CASE(k) \
    static wnn_operand *case_reduce_##k(wnn_graph_builder *b, int v) { return reduce_case(b, v, reductions[k]); }
REDUCE_CASE(0)
REDUCE_CASE(1)
REDUCE_CASE(2)
REDUCE_CASE(3)
REDUCE_CASE(4)
REDUCE_CASE(5)
REDUCE_CASE(6)
REDUCE_CASE(7)
REDUCE_CASE(8)
REDUCE_CASE(9)

static wnn_operand *case_arg_max(wnn_graph_builder *b, int v)
{
    wnn_arg_min_max_options o = WNN_ARG_MIN_MAX_OPTIONS_INIT;
    if (v == V_EXPLICIT)
        o = (wnn_arg_min_max_options){.keep_dimensions = false, .output_data_type = WNN_DATA_TYPE_INT32};
    return wnn_arg_max(b, DATA(b, 3, 4), 1, OPTS(o, v));
}

static wnn_operand *case_arg_min(wnn_graph_builder *b, int v)
{
    wnn_arg_min_max_options o = WNN_ARG_MIN_MAX_OPTIONS_INIT;
    if (v == V_EXPLICIT)
        o = (wnn_arg_min_max_options){.keep_dimensions = false, .output_data_type = WNN_DATA_TYPE_INT32};
    return wnn_arg_min(b, DATA(b, 3, 4), 0, OPTS(o, v));
}

static wnn_operand *case_cumulative_sum(wnn_graph_builder *b, int v)
{
    wnn_cumulative_sum_options o = WNN_CUMULATIVE_SUM_OPTIONS_INIT;
    if (v == V_EXPLICIT)
        o = (wnn_cumulative_sum_options){.exclusive = false, .reversed = false};
    return wnn_cumulative_sum(b, DATA(b, 3, 4), 1, OPTS(o, v));
}

static wnn_operand *case_conv2d(wnn_graph_builder *b, int v)
{
    wnn_conv2d_options o = WNN_CONV2D_OPTIONS_INIT;
    if (v == V_EXPLICIT)
        o = (wnn_conv2d_options){.padding = {0, 0, 0, 0},
                                 .strides = {1, 1},
                                 .dilations = {1, 1},
                                 .groups = 1,
                                 .input_layout = WNN_INPUT_LAYOUT_NCHW,
                                 .filter_layout = WNN_CONV2D_FILTER_LAYOUT_OIHW};
    return wnn_conv2d(b, DATA(b, 1, 2, 5, 5), DATA(b, 3, 2, 3, 3), OPTS(o, v));
}

static wnn_operand *case_conv_transpose2d(wnn_graph_builder *b, int v)
{
    wnn_conv_transpose2d_options o = WNN_CONV_TRANSPOSE2D_OPTIONS_INIT;
    if (v == V_EXPLICIT)
        o = (wnn_conv_transpose2d_options){.strides = {1, 1},
                                           .dilations = {1, 1},
                                           .output_padding = {0, 0},
                                           .groups = 1,
                                           .input_layout = WNN_INPUT_LAYOUT_NCHW,
                                           .filter_layout = WNN_CONV_TRANSPOSE2D_FILTER_LAYOUT_IOHW};
    return wnn_conv_transpose2d(b, DATA(b, 1, 2, 3, 3), DATA(b, 2, 3, 2, 2), OPTS(o, v));
}

typedef wnn_operand *(*pool_fn)(wnn_graph_builder *, wnn_operand *, const wnn_pool2d_options *);

static wnn_operand *pool_case(wnn_graph_builder *b, int v, pool_fn fn)
{
    wnn_pool2d_options o = WNN_POOL2D_OPTIONS_INIT;
    if (v == V_EXPLICIT) /* the window is the whole 5 x 4 input */
        o = (wnn_pool2d_options){.window_dimensions = {5, 4},
                                 .strides = {1, 1},
                                 .dilations = {1, 1},
                                 .layout = WNN_INPUT_LAYOUT_NCHW,
                                 .rounding_type = WNN_ROUNDING_TYPE_FLOOR};
    return fn(b, DATA(b, 1, 2, 5, 4), OPTS(o, v));
}

static wnn_operand *case_average_pool2d(wnn_graph_builder *b, int v) { return pool_case(b, v, wnn_average_pool2d); }
static wnn_operand *case_l2_pool2d(wnn_graph_builder *b, int v) { return pool_case(b, v, wnn_l2_pool2d); }
static wnn_operand *case_max_pool2d(wnn_graph_builder *b, int v) { return pool_case(b, v, wnn_max_pool2d); }

static wnn_operand *case_resample2d(wnn_graph_builder *b, int v)
{
    wnn_resample2d_options o = WNN_RESAMPLE2D_OPTIONS_INIT;
    if (v == V_EXPLICIT)
        o = (wnn_resample2d_options){.mode = WNN_INTERPOLATION_MODE_NEAREST_NEIGHBOR,
                                     .scales = {1.0f, 1.0f},
                                     .axes = {2, 3}};
    return wnn_resample2d(b, DATA(b, 1, 2, 3, 2), OPTS(o, v));
}

/* scales given, axes left at zero: still the default axes 2 and 3 */
static wnn_operand *case_resample2d_axes(wnn_graph_builder *b, int v)
{
    wnn_resample2d_options o = {.mode = WNN_INTERPOLATION_MODE_LINEAR, .scales = {2.0f, 1.5f}};
    if (v == V_EXPLICIT)
        o.axes[0] = 2, o.axes[1] = 3;
    return wnn_resample2d(b, DATA(b, 1, 2, 3, 2), OPTS(o, v));
}

static wnn_operand *case_batch_normalization(wnn_graph_builder *b, int v)
{
    wnn_batch_normalization_options o = WNN_BATCH_NORMALIZATION_OPTIONS_INIT;
    if (v == V_EXPLICIT)
        o = (wnn_batch_normalization_options){.axis = &axis1, .epsilon = &epsilon};
    wnn_operand *mean = DATA(b, 3);
    return wnn_batch_normalization(b, DATA(b, 2, 3, 4), mean, wnn_abs(b, mean), OPTS(o, v));
}

static wnn_operand *case_instance_normalization(wnn_graph_builder *b, int v)
{
    wnn_instance_normalization_options o = WNN_INSTANCE_NORMALIZATION_OPTIONS_INIT;
    if (v == V_EXPLICIT)
        o = (wnn_instance_normalization_options){.epsilon = &epsilon, .layout = WNN_INPUT_LAYOUT_NCHW};
    return wnn_instance_normalization(b, DATA(b, 1, 2, 3, 3), OPTS(o, v));
}

static wnn_operand *case_layer_normalization(wnn_graph_builder *b, int v)
{
    static const uint32_t all_but_first[2] = {1, 2};
    wnn_layer_normalization_options o = WNN_LAYER_NORMALIZATION_OPTIONS_INIT;
    if (v == V_EXPLICIT)
        o = (wnn_layer_normalization_options){.axes = all_but_first, .axes_count = 2, .epsilon = &epsilon};
    return wnn_layer_normalization(b, DATA(b, 2, 3, 4), OPTS(o, v));
}

static wnn_operand *case_pad(wnn_graph_builder *b, int v)
{
    static const uint32_t begin[2] = {1, 0}, end[2] = {0, 2};
    wnn_pad_options o = WNN_PAD_OPTIONS_INIT;
    if (v == V_EXPLICIT)
        o = (wnn_pad_options){.mode = WNN_PAD_MODE_CONSTANT, .value = 0.0};
    return wnn_pad(b, DATA(b, 2, 3), begin, end, OPTS(o, v));
}

static wnn_operand *case_split(wnn_graph_builder *b, int v)
{
    wnn_split_options o = WNN_SPLIT_OPTIONS_INIT;
    if (v == V_EXPLICIT)
        o.axis = 0;
    wnn_operand *parts[2] = {NULL, NULL};
    return wnn_split(b, DATA(b, 4, 3), 2, OPTS(o, v), parts) == 2 ? parts[1] : NULL;
}

static wnn_operand *case_split_sizes(wnn_graph_builder *b, int v)
{
    static const uint32_t sizes[2] = {1, 3};
    wnn_split_options o = WNN_SPLIT_OPTIONS_INIT;
    if (v == V_EXPLICIT)
        o.axis = 0;
    wnn_operand *parts[2] = {NULL, NULL};
    return wnn_split_sizes(b, DATA(b, 4, 3), sizes, 2, OPTS(o, v), parts) == 2 ? parts[1] : NULL;
}

static wnn_operand *case_reverse(wnn_graph_builder *b, int v)
{
    static const uint32_t all[3] = {0, 1, 2};
    wnn_reverse_options o = WNN_REVERSE_OPTIONS_INIT;
    if (v == V_EXPLICIT)
        o = (wnn_reverse_options){.axes = all, .axes_count = 3};
    return wnn_reverse(b, DATA(b, 2, 3, 2), OPTS(o, v));
}

static wnn_operand *case_triangular(wnn_graph_builder *b, int v)
{
    wnn_triangular_options o = WNN_TRIANGULAR_OPTIONS_INIT;
    if (v == V_EXPLICIT)
        o = (wnn_triangular_options){.lower = false, .diagonal = 0}; /* WebNN's upper = true */
    return wnn_triangular(b, DATA(b, 3, 3), OPTS(o, v));
}

static wnn_operand *case_gather(wnn_graph_builder *b, int v)
{
    static const int32_t idx[3] = {2, 0, 1};
    wnn_gather_options o = WNN_GATHER_OPTIONS_INIT;
    if (v == V_EXPLICIT)
        o.axis = 0;
    return wnn_gather(b, DATA(b, 3, 2), indices(b, 3, idx), OPTS(o, v));
}

static wnn_operand *case_gather_elements(wnn_graph_builder *b, int v)
{
    static const int32_t idx[3] = {2, 0, 1};
    wnn_gather_options o = WNN_GATHER_OPTIONS_INIT;
    if (v == V_EXPLICIT)
        o.axis = 0;
    return wnn_gather_elements(b, DATA(b, 3), indices(b, 3, idx), OPTS(o, v));
}

static wnn_operand *case_scatter_elements(wnn_graph_builder *b, int v)
{
    static const int32_t idx[2] = {2, 0};
    wnn_scatter_options o = WNN_SCATTER_OPTIONS_INIT;
    if (v == V_EXPLICIT)
        o.axis = 0;
    return wnn_scatter_elements(b, DATA(b, 3), indices(b, 2, idx), DATA(b, 2), OPTS(o, v));
}

/* Recurrent: two steps, so that the reset gate's place and the activations
** show in the second step's hidden state. */
static const wnn_recurrent_activation gru_acts[2] = {WNN_RECURRENT_ACTIVATION_SIGMOID, WNN_RECURRENT_ACTIVATION_TANH};
static const wnn_recurrent_activation lstm_acts[3] = {WNN_RECURRENT_ACTIVATION_SIGMOID, WNN_RECURRENT_ACTIVATION_TANH,
                                                      WNN_RECURRENT_ACTIVATION_TANH};

static wnn_operand *case_gru(wnn_graph_builder *b, int v)
{
    wnn_gru_options o = WNN_GRU_OPTIONS_INIT;
    if (v == V_EXPLICIT)
        o = (wnn_gru_options){.reset_before = false, /* WebNN's resetAfter = true */
                              .return_sequence = false,
                              .direction = WNN_RECURRENT_DIRECTION_FORWARD,
                              .layout = WNN_GRU_WEIGHT_LAYOUT_ZRN,
                              .activations = gru_acts,
                              .activations_count = 2};
    wnn_operand *outs[2] = {NULL, NULL};
    size_t n = wnn_gru(b, DATA(b, 2, 1, 3), DATA(b, 1, 6, 3), DATA(b, 1, 6, 2), 2, 2, OPTS(o, v), outs);
    return n ? outs[0] : NULL;
}

static wnn_operand *case_gru_cell(wnn_graph_builder *b, int v)
{
    wnn_gru_cell_options o = WNN_GRU_CELL_OPTIONS_INIT;
    if (v == V_EXPLICIT)
        o = (wnn_gru_cell_options){.reset_before = false,
                                   .layout = WNN_GRU_WEIGHT_LAYOUT_ZRN,
                                   .activations = gru_acts,
                                   .activations_count = 2};
    return wnn_gru_cell(b, DATA(b, 1, 3), DATA(b, 6, 3), DATA(b, 6, 2), DATA(b, 1, 2), 2, OPTS(o, v));
}

static wnn_operand *case_lstm(wnn_graph_builder *b, int v)
{
    wnn_lstm_options o = WNN_LSTM_OPTIONS_INIT;
    if (v == V_EXPLICIT)
        o = (wnn_lstm_options){.return_sequence = false,
                               .direction = WNN_RECURRENT_DIRECTION_FORWARD,
                               .layout = WNN_LSTM_WEIGHT_LAYOUT_IOFG,
                               .activations = lstm_acts,
                               .activations_count = 3};
    wnn_operand *outs[3] = {NULL, NULL, NULL};
    size_t n = wnn_lstm(b, DATA(b, 2, 1, 3), DATA(b, 1, 8, 3), DATA(b, 1, 8, 2), 2, 2, OPTS(o, v), outs);
    return n ? outs[1] : NULL;
}

static wnn_operand *case_lstm_cell(wnn_graph_builder *b, int v)
{
    wnn_lstm_cell_options o = WNN_LSTM_CELL_OPTIONS_INIT;
    if (v == V_EXPLICIT)
        o = (wnn_lstm_cell_options){.layout = WNN_LSTM_WEIGHT_LAYOUT_IOFG, .activations = lstm_acts, .activations_count = 3};
    wnn_operand *outs[2] = {NULL, NULL};
    size_t n = wnn_lstm_cell(b, DATA(b, 1, 3), DATA(b, 8, 3), DATA(b, 8, 2), DATA(b, 1, 2), DATA(b, 1, 2), 2,
                             OPTS(o, v), outs);
    return n ? outs[0] : NULL;
}

typedef struct option_case {
    const char *name;
    wnn_operand *(*build)(wnn_graph_builder *b, int v);
    bool null_ok; /* false: the case sets an operand member, so NULL options differ */
} option_case;

static const option_case cases[] = {
    {"clamp", case_clamp, true},
    {"elu", case_elu, true},
    {"hardSigmoid", case_hard_sigmoid, true},
    {"leakyRelu", case_leaky_relu, true},
    {"linear", case_linear, true},
    {"gemm", case_gemm, true},
    {"gemm with c", case_gemm_c, false},
    {"reduceL1", case_reduce_0, true},
    {"reduceL2", case_reduce_1, true},
    {"reduceLogSum", case_reduce_2, true},
    {"reduceLogSumExp", case_reduce_3, true},
    {"reduceMax", case_reduce_4, true},
    {"reduceMean", case_reduce_5, true},
    {"reduceMin", case_reduce_6, true},
    {"reduceProduct", case_reduce_7, true},
    {"reduceSum", case_reduce_8, true},
    {"reduceSumSquare", case_reduce_9, true},
    {"argMax", case_arg_max, true},
    {"argMin", case_arg_min, true},
    {"cumulativeSum", case_cumulative_sum, true},
    {"conv2d", case_conv2d, true},
    {"convTranspose2d", case_conv_transpose2d, true},
    {"averagePool2d", case_average_pool2d, true},
    {"l2Pool2d", case_l2_pool2d, true},
    {"maxPool2d", case_max_pool2d, true},
    {"resample2d", case_resample2d, true},
    {"resample2d axes", case_resample2d_axes, false},
    {"batchNormalization", case_batch_normalization, true},
    {"instanceNormalization", case_instance_normalization, true},
    {"layerNormalization", case_layer_normalization, true},
    {"pad", case_pad, true},
    {"split", case_split, true},
    {"split sizes", case_split_sizes, true},
    {"reverse", case_reverse, true},
    {"triangular", case_triangular, true},
    {"gather", case_gather, true},
    {"gatherElements", case_gather_elements, true},
    {"scatterElements", case_scatter_elements, true},
    {"gru", case_gru, true},
    {"gruCell", case_gru_cell, true},
    {"lstm", case_lstm, true},
    {"lstmCell", case_lstm_cell, true},
};

/* ---- harness -------------------------------------------------------------------------------- */

typedef struct result {
    wnn_operand_desc desc;
    unsigned char bytes[1024];
    size_t size;
} result;

/* Builds case c's variant v on a new builder, runs it and stores its
** output in r. False, after a failed check, if any step fails. */
static bool run_variant(const option_case *c, int v, result *r)
{
    wnn_graph_builder *b = NULL;
    wnn_graph *g = NULL;
    wnn_tensor *t = NULL;
    bool ok = false;
    CHECK_OK(wnn_graph_builder_create(ctx, &b));
    wnn_operand *y = c->build(b, v);
    if (!y) {
        fprintf(stderr, "  %s (variant %d): %s\n", c->name, v, wnn_graph_builder_error_message(b));
        CHECK(y != NULL);
        goto done;
    }
    wnn_operand_get_desc(y, &r->desc);
    r->size = (size_t)wnn_operand_desc_byte_length(&r->desc);
    CHECK(r->size <= sizeof r->bytes);
    wnn_named_operand out = {"y", y};
    wnn_tensor_desc td = {r->desc.data_type, r->desc.rank, {0}, true, false, false};
    memcpy(td.shape, r->desc.shape, sizeof td.shape);
    wnn_named_tensor bound = {"y", NULL};
    wnn_status s = wnn_graph_builder_build(b, &out, 1, &g);
    if (s == WNN_OK)
        s = wnn_context_create_tensor(ctx, &td, &t);
    bound.tensor = t;
    if (s == WNN_OK)
        s = wnn_context_dispatch(ctx, g, NULL, 0, &bound, 1);
    if (s == WNN_OK)
        s = wnn_context_read_tensor_sync(ctx, t, r->bytes, r->size);
    CHECK_OK(s);
    ok = s == WNN_OK;
done:
    wnn_tensor_release(t);
    wnn_graph_release(g);
    wnn_graph_builder_release(b);
    return ok;
}

static bool same_desc(const wnn_operand_desc *a, const wnn_operand_desc *b)
{
    if (a->data_type != b->data_type || a->rank != b->rank)
        return false;
    for (uint32_t i = 0; i < a->rank; i++)
        if (a->shape[i] != b->shape[i])
            return false;
    return true;
}

/* NULL options, a zeroed struct and the spelled-out defaults agree bit for
** bit; a chained extension is refused with INVALID_ARGUMENT. */
static void test_zero_means_default(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const option_case *c = &cases[i];
        static result want, got;
        if (!run_variant(c, V_EXPLICIT, &want))
            continue;
        for (int v = V_NULL; v <= V_ZERO; v++) {
            if (v == V_NULL && !c->null_ok)
                continue;
            if (!run_variant(c, v, &got))
                continue;
            bool same = same_desc(&got.desc, &want.desc) && memcmp(got.bytes, want.bytes, want.size) == 0;
            if (!same)
                fprintf(stderr, "  %s: %s options differ from the explicit defaults\n", c->name,
                        v == V_NULL ? "NULL" : "zeroed");
            CHECK(same);
        }
        wnn_graph_builder *b = NULL;
        CHECK_OK(wnn_graph_builder_create(ctx, &b));
        CHECK(c->build(b, V_CHAINED) == NULL);
        CHECK_STATUS(wnn_graph_builder_status(b), WNN_STATUS_INVALID_ARGUMENT);
        CHECK(strstr(wnn_graph_builder_error_message(b), "next_in_chain") != NULL);
        wnn_graph_builder_release(b);
    }
}

/* The defaults recorded are WebNN's, checked on values worked out by hand
** where a wrong default would still agree with itself. */
static void test_default_values(void)
{
    wnn_graph_builder *b = NULL;
    CHECK_OK(wnn_graph_builder_create(ctx, &b));
    /* triangular keeps the upper triangle; reduce and pool reduce everything */
    wnn_operand_desc d;
    wnn_triangular_options t = WNN_TRIANGULAR_OPTIONS_INIT;
    wnn_operand *y = wnn_triangular(b, DATA(b, 3, 3), &t);
    CHECK(y != NULL);
    wnn_reduce_options r = WNN_REDUCE_OPTIONS_INIT;
    wnn_operand_get_desc(wnn_reduce_sum(b, DATA(b, 2, 3, 4), &r), &d);
    CHECK_EQ_INT(d.rank, 0);
    wnn_pool2d_options p = WNN_POOL2D_OPTIONS_INIT;
    wnn_operand_get_desc(wnn_max_pool2d(b, DATA(b, 1, 8, 16, 16), &p), &d);
    CHECK(d.rank == 4 && d.shape[1] == 8 && d.shape[2] == 1 && d.shape[3] == 1);
    wnn_arg_min_max_options a = WNN_ARG_MIN_MAX_OPTIONS_INIT;
    wnn_operand_get_desc(wnn_arg_max(b, DATA(b, 3, 4), 0, &a), &d);
    CHECK(d.data_type == I32 && d.rank == 1 && d.shape[0] == 4);
    wnn_graph_builder_release(b);

    /* gemm with a zeroed struct is a plain product (alpha 1), plus c (beta 1) */
    float got[4];
    const float m_values[4] = {1, 2, 3, 4};
    wnn_operand_desc d22 = {F32, 2, {2, 2}};
    CHECK_OK(wnn_graph_builder_create(ctx, &b));
    wnn_operand *m = wnn_graph_builder_constant(b, &d22, m_values, sizeof m_values);
    wnn_gemm_options g = {.c = m};
    wnn_named_operand out = {"y", wnn_gemm(b, m, m, &g)};
    wnn_graph *graph = NULL;
    wnn_tensor *tensor = NULL;
    wnn_tensor_desc td = {F32, 2, {2, 2}, true, false, false};
    CHECK_OK(wnn_graph_builder_build(b, &out, 1, &graph));
    CHECK_OK(wnn_context_create_tensor(ctx, &td, &tensor));
    wnn_named_tensor bound = {"y", tensor};
    CHECK_OK(wnn_context_dispatch(ctx, graph, NULL, 0, &bound, 1));
    CHECK_OK(wnn_context_read_tensor_sync(ctx, tensor, got, sizeof got));
    const float want[4] = {1 + 7, 2 + 10, 3 + 15, 4 + 22};
    for (int i = 0; i < 4; i++)
        CHECK_NEAR(got[i], want[i], 0);
    wnn_tensor_release(tensor);
    wnn_graph_release(graph);
    wnn_graph_builder_release(b);
}

/* The first-use report's traps: values set with no "has" flag, which were
** silently ignored, now take effect; a zero beside a non-zero value is
** refused rather than read as a default. */
static void test_no_flags(void)
{
    wnn_graph_builder *b = NULL;
    CHECK_OK(wnn_graph_builder_create(ctx, &b));
    wnn_operand *x = DATA(b, 1, 8, 16, 16);
    wnn_operand_desc d;
    wnn_pool2d_options p = {.window_dimensions = {2, 2}, .strides = {2, 2}};
    wnn_operand_get_desc(wnn_max_pool2d(b, x, &p), &d);
    CHECK(d.rank == 4 && d.shape[1] == 8 && d.shape[2] == 8 && d.shape[3] == 8);
    wnn_reduce_options r = {.axes = &axis1, .axes_count = 1};
    wnn_operand_get_desc(wnn_reduce_mean(b, x, &r), &d);
    CHECK(d.rank == 3 && d.shape[0] == 1 && d.shape[1] == 16 && d.shape[2] == 16);
    r.axes_count = 0; /* an empty list: nothing reduced */
    wnn_operand_get_desc(wnn_reduce_mean(b, x, &r), &d);
    CHECK_EQ_INT(d.rank, 4);

    p = (wnn_pool2d_options){.window_dimensions = {2, 0}};
    CHECK(wnn_max_pool2d(b, x, &p) == NULL);
    CHECK_STATUS(wnn_graph_builder_status(b), WNN_STATUS_INVALID_ARGUMENT);
    wnn_graph_builder_clear_error(b);
    wnn_conv2d_options c = {.strides = {0, 2}};
    CHECK(wnn_conv2d(b, x, DATA(b, 4, 8, 1, 1), &c) == NULL);
    CHECK_STATUS(wnn_graph_builder_status(b), WNN_STATUS_INVALID_ARGUMENT);
    wnn_graph_builder_clear_error(b);
    wnn_resample2d_options s = {.sizes = {4, 0}};
    CHECK(wnn_resample2d(b, x, &s) == NULL);
    CHECK_STATUS(wnn_graph_builder_status(b), WNN_STATUS_INVALID_ARGUMENT);
    wnn_graph_builder_release(b);
}

int main(void)
{
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.device = "cpu";
    if (wnn_context_create(&o, &ctx) != WNN_OK) {
        fprintf(stderr, "context: %s\n", wnn_last_error_message());
        return 1;
    }
    test_zero_means_default();
    test_default_values();
    test_no_flags();
    wnn_context_release(ctx);
    TEST_DONE();
}
