/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-builder.c -- MLGraphBuilder through the public API: type and shape
** inference of each operator, each operator's validation errors with their
** exact statuses, the builder's first-error rule, inputs and constants
** (scalar casts checked by running a graph), constant tensors, build() rules
** and graph input/output enumeration.
*/
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "test.h"
#include "wnn/wnn.h"

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

#define F32 WNN_DATA_TYPE_FLOAT32
#define F16 WNN_DATA_TYPE_FLOAT16
#define I32 WNN_DATA_TYPE_INT32
#define U32 WNN_DATA_TYPE_UINT32
#define I64 WNN_DATA_TYPE_INT64
#define U64 WNN_DATA_TYPE_UINT64
#define I8 WNN_DATA_TYPE_INT8
#define U8 WNN_DATA_TYPE_UINT8

static const wnn_data_type all_types[] = {F32, F16, I32, U32, I64, U64, I8, U8};

static wnn_operand_desc make_desc(int t, uint32_t rank, const uint32_t *shape)
{
    wnn_operand_desc d = WNN_OPERAND_DESC_INIT;
    d.data_type = (wnn_data_type)t;
    d.rank = rank;
    for (uint32_t i = 0; i < rank && i < WNN_MAX_RANK; i++)
        d.shape[i] = shape[i];
    return d;
}

#define SHAPE_N(...) (uint32_t)(sizeof((uint32_t[]){__VA_ARGS__}) / sizeof(uint32_t))
#define DESC(t, ...) make_desc(t, SHAPE_N(__VA_ARGS__), (const uint32_t[]){__VA_ARGS__})
#define DESC0(t) make_desc(t, 0, NULL)

static int input_counter;

/* A graph input with a generated unique name. */
static wnn_operand *in_desc(wnn_graph_builder *b, wnn_operand_desc d)
{
    char name[32];
    snprintf(name, sizeof name, "in%d", input_counter++);
    return wnn_graph_builder_input(b, name, &d);
}
#define IN(b, t, ...) in_desc(b, DESC(t, __VA_ARGS__))
#define IN0(b, t) in_desc(b, DESC0(t))

/* The builder the checks below run on: the last one new_builder made (a
** skipped check clears its error, as a refusal check does). */
static wnn_graph_builder *g_builder;

static void check_desc_at(int line, const char *what, const wnn_operand *x, int t, uint32_t rank,
                          const uint32_t *shape)
{
    if (!x && g_builder && test_skip_unsupported(wnn_graph_builder_status(g_builder), what, __FILE__, line)) {
        wnn_graph_builder_clear_error(g_builder);
        return;
    }
    if (!x) {
        test_failed++;
        fprintf(stderr, "%s:%d: %s is NULL (%s)\n", __FILE__, line, what, wnn_last_error_message());
        return;
    }
    wnn_operand_desc d;
    memset(&d, 0x77, sizeof d);
    wnn_operand_get_desc(x, &d);
    bool ok = d.data_type == (wnn_data_type)t && d.rank == rank;
    for (uint32_t i = 0; ok && i < rank; i++)
        ok = d.shape[i] == shape[i];
    if (ok) {
        test_passed++;
        return;
    }
    test_failed++;
    fprintf(stderr, "%s:%d: %s is %s [", __FILE__, line, what,
            wnn_data_type_name(d.data_type) ? wnn_data_type_name(d.data_type) : "?");
    for (uint32_t i = 0; i < d.rank && i < WNN_MAX_RANK; i++)
        fprintf(stderr, "%s%u", i ? "," : "", d.shape[i]);
    fprintf(stderr, "], want %s [", wnn_data_type_name((wnn_data_type)t));
    for (uint32_t i = 0; i < rank; i++)
        fprintf(stderr, "%s%u", i ? "," : "", shape[i]);
    fprintf(stderr, "]\n");
}
#define CHECK_DESC(x, t, ...) \
    check_desc_at(__LINE__, #x, x, t, SHAPE_N(__VA_ARGS__), (const uint32_t[]){__VA_ARGS__})
#define CHECK_DESC0(x, t) check_desc_at(__LINE__, #x, x, t, 0, NULL)

/* An operator call that must fail: NULL result, the builder's status, and a
** message naming the operator; then the error is cleared. */
static void check_op_err_at(int line, const char *what, wnn_graph_builder *b, const wnn_operand *x,
                            wnn_status want, const char *op)
{
    wnn_status got = wnn_graph_builder_status(b);
    const char *m = wnn_graph_builder_error_message(b);
    if (x == NULL && got == WNN_STATUS_UNSUPPORTED_DATA_TYPE && want != got &&
        test_skip_unsupported(got, what, __FILE__, line)) {
        /* the device refuses the operands' type before the rule under test */
    } else if (x != NULL || got != want || !m || (op && !strstr(m, op))) {
        test_failed++;
        fprintf(stderr, "%s:%d: %s gave %s with %s (\"%s\"), want NULL with %s naming \"%s\"\n", __FILE__,
                line, what, x ? "an operand" : "NULL", wnn_status_string(got), m ? m : "(null)",
                wnn_status_string(want), op ? op : "");
    } else {
        test_passed++;
    }
    wnn_graph_builder_clear_error(b);
}
#define CHECK_OP_ERR(b, expr, want, op) check_op_err_at(__LINE__, #expr, b, (expr), want, op)

static wnn_context *new_context(wnn_policy policy)
{
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.device = test_device();
    o.policy = policy;
    wnn_context *ctx = NULL;
    if (wnn_context_create(&o, &ctx) != WNN_OK) {
        fprintf(stderr, "cannot create a cpu context: %s\n", wnn_last_error_message());
        exit(1);
    }
    return ctx;
}

static wnn_graph_builder *new_builder(wnn_context *ctx)
{
    wnn_graph_builder *b = NULL;
    if (wnn_graph_builder_create(ctx, &b) != WNN_OK) {
        fprintf(stderr, "cannot create a builder: %s\n", wnn_last_error_message());
        exit(1);
    }
    g_builder = b;
    return b;
}

/* ---- binary ------------------------------------------------------------------ */

typedef wnn_operand *(*binary_fn)(wnn_graph_builder *, wnn_operand *, wnn_operand *);

static void test_binary(wnn_context *ctx)
{
    static const struct {
        binary_fn fn;
        const char *name;
    } ops[] = {{wnn_add, "add"}, {wnn_sub, "sub"}, {wnn_mul, "mul"}, {wnn_div, "div"},
               {wnn_max, "max"}, {wnn_min, "min"}, {wnn_pow, "pow"}};
    wnn_graph_builder *b = new_builder(ctx);
    for (size_t k = 0; k < COUNT_OF(ops); k++) {
        binary_fn fn = ops[k].fn;
        /* every data type */
        for (size_t t = 0; t < COUNT_OF(all_types); t++) {
            wnn_operand *x = fn(b, IN(b, all_types[t], 2, 3), IN(b, all_types[t], 2, 3));
            CHECK_DESC(x, all_types[t], 2, 3);
        }
        /* broadcasting */
        CHECK_DESC(fn(b, IN(b, F32, 2, 1, 3), IN(b, F32, 4, 1)), F32, 2, 4, 3);
        CHECK_DESC(fn(b, IN(b, F32, 4, 1), IN(b, F32, 2, 1, 3)), F32, 2, 4, 3);
        CHECK_DESC(fn(b, IN0(b, F32), IN(b, F32, 2, 3)), F32, 2, 3);
        CHECK_DESC(fn(b, IN(b, I32, 5), IN0(b, I32)), I32, 5);
        CHECK_DESC0(fn(b, IN0(b, U8), IN0(b, U8)), U8);
        CHECK_DESC(fn(b, IN(b, F16, 1, 1, 1), IN(b, F16, 7)), F16, 1, 1, 7);
        CHECK_DESC(fn(b, IN(b, I64, 3, 1, 5, 1), IN(b, I64, 2, 1, 6)), I64, 3, 2, 5, 6);
        /* the same operand on both sides */
        wnn_operand *same = IN(b, F32, 3);
        CHECK_DESC(fn(b, same, same), F32, 3);
        /* mismatched types */
        CHECK_OP_ERR(b, fn(b, IN(b, F32, 2), IN(b, I32, 2)), WNN_STATUS_UNSUPPORTED_DATA_TYPE, ops[k].name);
        CHECK_OP_ERR(b, fn(b, IN(b, F16, 2), IN(b, F32, 2)), WNN_STATUS_UNSUPPORTED_DATA_TYPE, ops[k].name);
        CHECK_OP_ERR(b, fn(b, IN(b, U8, 2), IN(b, I8, 2)), WNN_STATUS_UNSUPPORTED_DATA_TYPE, ops[k].name);
        /* incompatible shapes */
        CHECK_OP_ERR(b, fn(b, IN(b, F32, 2, 3), IN(b, F32, 4, 3)), WNN_STATUS_SHAPE_MISMATCH, ops[k].name);
        CHECK_OP_ERR(b, fn(b, IN(b, F32, 3), IN(b, F32, 2, 4)), WNN_STATUS_SHAPE_MISMATCH, ops[k].name);
        CHECK_OP_ERR(b, fn(b, IN(b, I32, 2, 2, 2), IN(b, I32, 3, 1, 1)), WNN_STATUS_SHAPE_MISMATCH, ops[k].name);
        /* NULL operands */
        CHECK_OP_ERR(b, fn(b, NULL, IN(b, F32, 2)), WNN_STATUS_INVALID_ARGUMENT, ops[k].name);
        CHECK_OP_ERR(b, fn(b, IN(b, F32, 2), NULL), WNN_STATUS_INVALID_ARGUMENT, ops[k].name);
    }
    CHECK_OK(wnn_graph_builder_status(b));
    wnn_graph_builder_release(b);
}

/* ---- unary --------------------------------------------------------------------- */

typedef wnn_operand *(*unary_fn)(wnn_graph_builder *, wnn_operand *);

static void test_unary(wnn_context *ctx)
{
    /* allowed masks index all_types: F32 F16 I32 U32 I64 U64 I8 U8 */
    static const struct {
        unary_fn fn;
        const char *name;
        bool allowed[8];
    } ops[] = {
        {wnn_abs, "abs", {1, 1, 1, 0, 1, 0, 1, 0}},
        {wnn_neg, "neg", {1, 1, 1, 0, 1, 0, 1, 0}},
        {wnn_relu, "relu", {1, 1, 1, 0, 1, 0, 1, 0}},
        {wnn_exp, "exp", {1, 1, 0, 0, 0, 0, 0, 0}},
        {wnn_log, "log", {1, 1, 0, 0, 0, 0, 0, 0}},
        {wnn_sqrt, "sqrt", {1, 1, 0, 0, 0, 0, 0, 0}},
        {wnn_sigmoid, "sigmoid", {1, 1, 0, 0, 0, 0, 0, 0}},
        {wnn_tanh, "tanh", {1, 1, 0, 0, 0, 0, 0, 0}},
    };
    wnn_graph_builder *b = new_builder(ctx);
    for (size_t k = 0; k < COUNT_OF(ops); k++) {
        for (size_t t = 0; t < COUNT_OF(all_types); t++) {
            wnn_operand *x = IN(b, all_types[t], 4, 1, 3);
            if (ops[k].allowed[t])
                CHECK_DESC(ops[k].fn(b, x), all_types[t], 4, 1, 3);
            else
                CHECK_OP_ERR(b, ops[k].fn(b, x), WNN_STATUS_UNSUPPORTED_DATA_TYPE, ops[k].name);
        }
        CHECK_DESC0(ops[k].fn(b, IN0(b, F32)), F32);
        CHECK_OP_ERR(b, ops[k].fn(b, NULL), WNN_STATUS_INVALID_ARGUMENT, ops[k].name);
    }
    /* the examples named in the rules */
    CHECK_OP_ERR(b, wnn_exp(b, IN(b, I32, 2)), WNN_STATUS_UNSUPPORTED_DATA_TYPE, "exp");
    CHECK_OP_ERR(b, wnn_abs(b, IN(b, U8, 2)), WNN_STATUS_UNSUPPORTED_DATA_TYPE, "abs");
    CHECK_OK(wnn_graph_builder_status(b));
    wnn_graph_builder_release(b);
}

/* ---- clamp and cast --------------------------------------------------------- */

static void test_clamp_cast(wnn_context *ctx)
{
    wnn_graph_builder *b = new_builder(ctx);
    wnn_clamp_options o = WNN_CLAMP_OPTIONS_INIT;
    wnn_number lo = {.value = -1.0}, hi = {.value = 1.0};
    CHECK_DESC(wnn_clamp(b, IN(b, F32, 2, 3), NULL), F32, 2, 3);
    CHECK_DESC(wnn_clamp(b, IN(b, F16, 5), &o), F16, 5);
    o.min_value = &lo;
    CHECK_DESC(wnn_clamp(b, IN(b, I32, 5), &o), I32, 5);
    o.max_value = &hi;
    for (size_t t = 0; t < COUNT_OF(all_types); t++)
        CHECK_DESC(wnn_clamp(b, IN(b, all_types[t], 3, 1), &o), all_types[t], 3, 1);
    lo.value = hi.value = 2.0; /* equal bounds are fine */
    CHECK_DESC(wnn_clamp(b, IN(b, F32, 1), &o), F32, 1);
    lo.value = 3.0;
    hi.value = 2.0;
    CHECK_OP_ERR(b, wnn_clamp(b, IN(b, F32, 1), &o), WNN_STATUS_INVALID_ARGUMENT, "clamp");
    lo.value = 0.0;
    hi.value = -INFINITY;
    CHECK_OP_ERR(b, wnn_clamp(b, IN(b, F32, 1), &o), WNN_STATUS_INVALID_ARGUMENT, "clamp");
    /* only max given, below the default min of -infinity: fine */
    o.min_value = NULL;
    hi.value = -1e30;
    CHECK_DESC(wnn_clamp(b, IN(b, F32, 1), &o), F32, 1);
    CHECK_OP_ERR(b, wnn_clamp(b, NULL, NULL), WNN_STATUS_INVALID_ARGUMENT, "clamp");

    for (size_t s = 0; s < COUNT_OF(all_types); s++)
        for (size_t t = 0; t < COUNT_OF(all_types); t++)
            CHECK_DESC(wnn_cast(b, IN(b, all_types[s], 2, 2), all_types[t]), all_types[t], 2, 2);
    CHECK_DESC0(wnn_cast(b, IN0(b, F32), I64), I64);
    CHECK_OP_ERR(b, wnn_cast(b, IN(b, F32, 2), WNN_DATA_TYPE_INVALID), WNN_STATUS_UNSUPPORTED_DATA_TYPE, "cast");
    CHECK_OP_ERR(b, wnn_cast(b, IN(b, F32, 2), (wnn_data_type)99), WNN_STATUS_UNSUPPORTED_DATA_TYPE, "cast");
    CHECK_OP_ERR(b, wnn_cast(b, NULL, F32), WNN_STATUS_INVALID_ARGUMENT, "cast");
    CHECK_OK(wnn_graph_builder_status(b));
    wnn_graph_builder_release(b);
}

/* ---- shape operators ---------------------------------------------------------------- */

static void test_reshape_transpose(wnn_context *ctx)
{
    wnn_graph_builder *b = new_builder(ctx);
    static const uint32_t s64[] = {6, 4}, s24[] = {24}, s1234[] = {1, 2, 3, 4}, s57[] = {5, 7}, s0[] = {6, 0, 4},
                          sbig[] = {2147483648u, 1};
    CHECK_DESC(wnn_reshape(b, IN(b, F32, 2, 3, 4), 2, s64), F32, 6, 4);
    CHECK_DESC(wnn_reshape(b, IN(b, I64, 2, 3, 4), 1, s24), I64, 24);
    CHECK_DESC(wnn_reshape(b, IN(b, U8, 24), 4, s1234), U8, 1, 2, 3, 4);
    CHECK_DESC0(wnn_reshape(b, IN(b, F16, 1, 1), 0, NULL), F16);
    CHECK_DESC(wnn_reshape(b, IN0(b, F16), 1, (const uint32_t[]){1}), F16, 1);
    CHECK_OP_ERR(b, wnn_reshape(b, IN(b, F32, 2, 3, 4), 2, s57), WNN_STATUS_SHAPE_MISMATCH, "reshape");
    CHECK_OP_ERR(b, wnn_reshape(b, IN(b, F32, 2, 3), 0, NULL), WNN_STATUS_SHAPE_MISMATCH, "reshape");
    CHECK_OP_ERR(b, wnn_reshape(b, IN(b, F32, 2, 3, 4), 3, s0), WNN_STATUS_INVALID_DIMENSION, "reshape");
    CHECK_OP_ERR(b, wnn_reshape(b, IN(b, F32, 2), 2, sbig), WNN_STATUS_INVALID_DIMENSION, "reshape");
    static const uint32_t r9[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    CHECK_OP_ERR(b, wnn_reshape(b, IN(b, F32, 1), 9, r9), WNN_STATUS_INVALID_RANK, "reshape");
    CHECK_OP_ERR(b, wnn_reshape(b, NULL, 1, s24), WNN_STATUS_INVALID_ARGUMENT, "reshape");

    static const uint32_t p021[] = {0, 2, 1}, p201[] = {2, 0, 1}, p001[] = {0, 0, 1}, p013[] = {0, 1, 3},
                          p10[] = {1, 0};
    CHECK_DESC(wnn_transpose(b, IN(b, F32, 2, 3, 4), NULL), F32, 4, 3, 2);
    CHECK_DESC(wnn_transpose(b, IN(b, I8, 2, 3, 4), p021), I8, 2, 4, 3);
    CHECK_DESC(wnn_transpose(b, IN(b, U64, 2, 3, 4), p201), U64, 4, 2, 3);
    CHECK_DESC(wnn_transpose(b, IN(b, F32, 5, 6), p10), F32, 6, 5);
    CHECK_DESC0(wnn_transpose(b, IN0(b, F32), NULL), F32);
    CHECK_DESC(wnn_transpose(b, IN(b, F32, 9), NULL), F32, 9);
    CHECK_OP_ERR(b, wnn_transpose(b, IN(b, F32, 2, 3, 4), p001), WNN_STATUS_INVALID_ARGUMENT, "transpose");
    CHECK_OP_ERR(b, wnn_transpose(b, IN(b, F32, 2, 3, 4), p013), WNN_STATUS_INVALID_ARGUMENT, "transpose");
    CHECK_OP_ERR(b, wnn_transpose(b, NULL, NULL), WNN_STATUS_INVALID_ARGUMENT, "transpose");
    CHECK_OK(wnn_graph_builder_status(b));
    wnn_graph_builder_release(b);
}

static void test_concat(wnn_context *ctx)
{
    wnn_graph_builder *b = new_builder(ctx);
    wnn_operand *a = IN(b, F32, 2, 3), *c = IN(b, F32, 2, 5), *d = IN(b, F32, 4, 3);
    wnn_operand *ac[] = {a, c}, *ad[] = {a, d}, *aad[] = {a, a, d}, *one[] = {a};
    CHECK_DESC(wnn_concat(b, ac, 2, 1), F32, 2, 8);
    CHECK_DESC(wnn_concat(b, ad, 2, 0), F32, 6, 3);
    CHECK_DESC(wnn_concat(b, aad, 3, 0), F32, 8, 3);
    CHECK_DESC(wnn_concat(b, one, 1, 1), F32, 2, 3);
    wnn_operand *i64[] = {IN(b, I64, 1, 2, 3), IN(b, I64, 1, 2, 1), IN(b, I64, 1, 2, 4)};
    CHECK_DESC(wnn_concat(b, i64, 3, 2), I64, 1, 2, 8);

    /* axis out of range */
    CHECK_OP_ERR(b, wnn_concat(b, ac, 2, 2), WNN_STATUS_INVALID_ARGUMENT, "concat");
    CHECK_OP_ERR(b, wnn_concat(b, one, 1, 5), WNN_STATUS_INVALID_ARGUMENT, "concat");
    /* rank mismatch */
    wnn_operand *r3[] = {a, IN(b, F32, 2, 3, 1)};
    CHECK_OP_ERR(b, wnn_concat(b, r3, 2, 0), WNN_STATUS_INVALID_RANK, "concat");
    /* a dimension other than axis differs */
    CHECK_OP_ERR(b, wnn_concat(b, ac, 2, 0), WNN_STATUS_SHAPE_MISMATCH, "concat");
    CHECK_OP_ERR(b, wnn_concat(b, ad, 2, 1), WNN_STATUS_SHAPE_MISMATCH, "concat");
    /* type mismatch */
    wnn_operand *ty[] = {a, IN(b, I32, 2, 3)};
    CHECK_OP_ERR(b, wnn_concat(b, ty, 2, 0), WNN_STATUS_UNSUPPORTED_DATA_TYPE, "concat");
    /* no inputs, NULL inputs */
    CHECK_OP_ERR(b, wnn_concat(b, ac, 0, 0), WNN_STATUS_INVALID_ARGUMENT, "concat");
    CHECK_OP_ERR(b, wnn_concat(b, NULL, 2, 0), WNN_STATUS_INVALID_ARGUMENT, "concat");
    wnn_operand *withnull[] = {a, NULL};
    CHECK_OP_ERR(b, wnn_concat(b, withnull, 2, 0), WNN_STATUS_INVALID_ARGUMENT, "concat");
    /* scalars cannot be concatenated */
    wnn_operand *scal[] = {IN0(b, F32), IN0(b, F32)};
    CHECK_OP_ERR(b, wnn_concat(b, scal, 2, 0), WNN_STATUS_INVALID_RANK, "concat");
    CHECK_OK(wnn_graph_builder_status(b));
    wnn_graph_builder_release(b);
}

static void test_slice(wnn_context *ctx)
{
    wnn_graph_builder *b = new_builder(ctx);
    static const uint32_t st[] = {0, 2}, sz[] = {2, 10}, sd[] = {1, 4};
    CHECK_DESC(wnn_slice(b, IN(b, F32, 2, 12), st, sz, sd), F32, 2, 3);
    CHECK_DESC(wnn_slice(b, IN(b, I32, 2, 12), st, sz, NULL), I32, 2, 10);
    static const uint32_t st3[] = {1, 0, 2}, sz3[] = {1, 4, 3}, sd3[] = {1, 3, 2};
    CHECK_DESC(wnn_slice(b, IN(b, U8, 2, 4, 5), st3, sz3, sd3), U8, 1, 2, 2);
    static const uint32_t full_st[] = {0, 0}, full_sz[] = {2, 12};
    CHECK_DESC(wnn_slice(b, IN(b, F16, 2, 12), full_st, full_sz, NULL), F16, 2, 12);
    static const uint32_t big_stride[] = {5, 100};
    CHECK_DESC(wnn_slice(b, IN(b, F32, 2, 12), st, sz, big_stride), F32, 1, 1);
    CHECK_DESC0(wnn_slice(b, IN0(b, F32), NULL, NULL, NULL), F32);

    /* out of range */
    static const uint32_t st_over[] = {0, 3}, sz_over[] = {3, 1}, sz_zero[] = {2, 0}, sd_zero[] = {0, 1};
    CHECK_OP_ERR(b, wnn_slice(b, IN(b, F32, 2, 12), st_over, sz, NULL), WNN_STATUS_INVALID_ARGUMENT, "slice");
    CHECK_OP_ERR(b, wnn_slice(b, IN(b, F32, 2, 12), full_st, sz_over, NULL), WNN_STATUS_INVALID_ARGUMENT, "slice");
    static const uint32_t st_far[] = {0, 12}, sz_one[] = {1, 1};
    CHECK_OP_ERR(b, wnn_slice(b, IN(b, F32, 2, 12), st_far, sz_one, NULL), WNN_STATUS_INVALID_ARGUMENT, "slice");
    static const uint32_t st_huge[] = {0, 4294967295u};
    CHECK_OP_ERR(b, wnn_slice(b, IN(b, F32, 2, 12), st_huge, sz_one, NULL), WNN_STATUS_INVALID_ARGUMENT,
                 "slice");
    CHECK_OP_ERR(b, wnn_slice(b, IN(b, F32, 2, 12), full_st, sz_zero, NULL), WNN_STATUS_INVALID_ARGUMENT,
                 "slice");
    CHECK_OP_ERR(b, wnn_slice(b, IN(b, F32, 2, 12), full_st, full_sz, sd_zero), WNN_STATUS_INVALID_ARGUMENT,
                 "slice");
    CHECK_OP_ERR(b, wnn_slice(b, NULL, st, sz, NULL), WNN_STATUS_INVALID_ARGUMENT, "slice");
    CHECK_OK(wnn_graph_builder_status(b));
    wnn_graph_builder_release(b);
}

static void test_softmax(wnn_context *ctx)
{
    wnn_graph_builder *b = new_builder(ctx);
    CHECK_DESC(wnn_softmax(b, IN(b, F32, 2, 3), 1), F32, 2, 3);
    CHECK_DESC(wnn_softmax(b, IN(b, F32, 2, 3), 0), F32, 2, 3);
    CHECK_DESC(wnn_softmax(b, IN(b, F16, 4, 2, 3), 2), F16, 4, 2, 3);
    CHECK_DESC(wnn_softmax(b, IN(b, F32, 7), 0), F32, 7);
    CHECK_OP_ERR(b, wnn_softmax(b, IN(b, F32, 2, 3), 2), WNN_STATUS_INVALID_ARGUMENT, "softmax");
    CHECK_OP_ERR(b, wnn_softmax(b, IN(b, F32, 2, 3), 100), WNN_STATUS_INVALID_ARGUMENT, "softmax");
    CHECK_OP_ERR(b, wnn_softmax(b, IN(b, I32, 2, 3), 1), WNN_STATUS_UNSUPPORTED_DATA_TYPE, "softmax");
    CHECK_OP_ERR(b, wnn_softmax(b, IN(b, U8, 2, 3), 1), WNN_STATUS_UNSUPPORTED_DATA_TYPE, "softmax");
    CHECK_OP_ERR(b, wnn_softmax(b, IN0(b, F32), 0), WNN_STATUS_INVALID_RANK, "softmax");
    CHECK_OP_ERR(b, wnn_softmax(b, NULL, 0), WNN_STATUS_INVALID_ARGUMENT, "softmax");
    CHECK_OK(wnn_graph_builder_status(b));
    wnn_graph_builder_release(b);
}

static void test_matmul_gemm(wnn_context *ctx)
{
    wnn_graph_builder *b = new_builder(ctx);
    CHECK_DESC(wnn_matmul(b, IN(b, F32, 3, 4), IN(b, F32, 4, 5)), F32, 3, 5);
    CHECK_DESC(wnn_matmul(b, IN(b, F32, 2, 1, 3, 4), IN(b, F32, 5, 4, 6)), F32, 2, 5, 3, 6);
    CHECK_DESC(wnn_matmul(b, IN(b, F16, 7, 3, 4), IN(b, F16, 4, 2)), F16, 7, 3, 2);
    CHECK_DESC(wnn_matmul(b, IN(b, F32, 3, 4), IN(b, F32, 2, 4, 1)), F32, 2, 3, 1);
    CHECK_OP_ERR(b, wnn_matmul(b, IN(b, F32, 3, 4), IN(b, F32, 5, 6)), WNN_STATUS_SHAPE_MISMATCH, "matmul");
    CHECK_OP_ERR(b, wnn_matmul(b, IN(b, F32, 2, 3, 4), IN(b, F32, 3, 4, 5)), WNN_STATUS_SHAPE_MISMATCH,
                 "matmul");
    CHECK_OP_ERR(b, wnn_matmul(b, IN(b, F32, 4), IN(b, F32, 4, 5)), WNN_STATUS_INVALID_RANK, "matmul");
    CHECK_OP_ERR(b, wnn_matmul(b, IN(b, F32, 3, 4), IN(b, F32, 4)), WNN_STATUS_INVALID_RANK, "matmul");
    CHECK_OP_ERR(b, wnn_matmul(b, IN0(b, F32), IN0(b, F32)), WNN_STATUS_INVALID_RANK, "matmul");
    CHECK_OP_ERR(b, wnn_matmul(b, IN(b, I32, 3, 4), IN(b, I32, 4, 5)), WNN_STATUS_UNSUPPORTED_DATA_TYPE,
                 "matmul");
    CHECK_OP_ERR(b, wnn_matmul(b, IN(b, F32, 3, 4), IN(b, F16, 4, 5)), WNN_STATUS_UNSUPPORTED_DATA_TYPE,
                 "matmul");
    CHECK_OP_ERR(b, wnn_matmul(b, NULL, IN(b, F32, 4, 5)), WNN_STATUS_INVALID_ARGUMENT, "matmul");

    wnn_gemm_options o = WNN_GEMM_OPTIONS_INIT;
    CHECK_DESC(wnn_gemm(b, IN(b, F32, 3, 4), IN(b, F32, 4, 5), NULL), F32, 3, 5);
    CHECK_DESC(wnn_gemm(b, IN(b, F32, 3, 4), IN(b, F32, 4, 5), &o), F32, 3, 5);
    o.a_transpose = true;
    CHECK_DESC(wnn_gemm(b, IN(b, F32, 4, 3), IN(b, F32, 4, 5), &o), F32, 3, 5);
    o.b_transpose = true;
    CHECK_DESC(wnn_gemm(b, IN(b, F32, 4, 3), IN(b, F32, 5, 4), &o), F32, 3, 5);
    o.a_transpose = false;
    CHECK_DESC(wnn_gemm(b, IN(b, F16, 3, 4), IN(b, F16, 5, 4), &o), F16, 3, 5);
    CHECK_OP_ERR(b, wnn_gemm(b, IN(b, F32, 3, 4), IN(b, F32, 4, 5), &o), WNN_STATUS_SHAPE_MISMATCH, "gemm");
    o.b_transpose = false;
    /* c broadcast: [N], [M,1], [1,N], [M,N], scalar */
    o.c = IN(b, F32, 5);
    CHECK_DESC(wnn_gemm(b, IN(b, F32, 3, 4), IN(b, F32, 4, 5), &o), F32, 3, 5);
    o.c = IN(b, F32, 3, 1);
    CHECK_DESC(wnn_gemm(b, IN(b, F32, 3, 4), IN(b, F32, 4, 5), &o), F32, 3, 5);
    o.c = IN(b, F32, 1, 5);
    CHECK_DESC(wnn_gemm(b, IN(b, F32, 3, 4), IN(b, F32, 4, 5), &o), F32, 3, 5);
    o.c = IN(b, F32, 3, 5);
    CHECK_DESC(wnn_gemm(b, IN(b, F32, 3, 4), IN(b, F32, 4, 5), &o), F32, 3, 5);
    o.c = IN0(b, F32);
    CHECK_DESC(wnn_gemm(b, IN(b, F32, 3, 4), IN(b, F32, 4, 5), &o), F32, 3, 5);
    /* bad c */
    o.c = IN(b, F32, 4);
    CHECK_OP_ERR(b, wnn_gemm(b, IN(b, F32, 3, 4), IN(b, F32, 4, 5), &o), WNN_STATUS_SHAPE_MISMATCH, "gemm");
    o.c = IN(b, F32, 3);
    CHECK_OP_ERR(b, wnn_gemm(b, IN(b, F32, 3, 4), IN(b, F32, 4, 5), &o), WNN_STATUS_SHAPE_MISMATCH, "gemm");
    o.c = IN(b, F32, 5, 5);
    CHECK_OP_ERR(b, wnn_gemm(b, IN(b, F32, 3, 4), IN(b, F32, 4, 5), &o), WNN_STATUS_SHAPE_MISMATCH, "gemm");
    o.c = IN(b, F32, 1, 3, 5);
    CHECK_OP_ERR(b, wnn_gemm(b, IN(b, F32, 3, 4), IN(b, F32, 4, 5), &o), WNN_STATUS_INVALID_RANK, "gemm");
    o.c = IN(b, F16, 5);
    CHECK_OP_ERR(b, wnn_gemm(b, IN(b, F32, 3, 4), IN(b, F32, 4, 5), &o), WNN_STATUS_UNSUPPORTED_DATA_TYPE,
                 "gemm");
    o.c = NULL;
    CHECK_OP_ERR(b, wnn_gemm(b, IN(b, F32, 3, 4), IN(b, F32, 5, 4), &o), WNN_STATUS_SHAPE_MISMATCH, "gemm");
    CHECK_OP_ERR(b, wnn_gemm(b, IN(b, F32, 2, 3, 4), IN(b, F32, 4, 5), &o), WNN_STATUS_INVALID_RANK, "gemm");
    CHECK_OP_ERR(b, wnn_gemm(b, IN(b, F32, 3, 4), IN(b, F32, 4), &o), WNN_STATUS_INVALID_RANK, "gemm");
    CHECK_OP_ERR(b, wnn_gemm(b, IN(b, I32, 3, 4), IN(b, I32, 4, 5), &o), WNN_STATUS_UNSUPPORTED_DATA_TYPE,
                 "gemm");
    CHECK_OP_ERR(b, wnn_gemm(b, IN(b, F32, 3, 4), NULL, &o), WNN_STATUS_INVALID_ARGUMENT, "gemm");
    CHECK_OK(wnn_graph_builder_status(b));
    wnn_graph_builder_release(b);
}

/* ---- the builder's error state, inputs, constants ---------------------------------- */

static void test_errors_and_inputs(wnn_context *ctx)
{
    wnn_graph_builder *b = new_builder(ctx);
    CHECK_OK(wnn_graph_builder_status(b));
    CHECK(strcmp(wnn_graph_builder_error_message(b), "") == 0);

    /* the first error is kept */
    wnn_operand *v = IN(b, F32, 4);
    CHECK(wnn_matmul(b, v, v) == NULL);
    CHECK_STATUS(wnn_graph_builder_status(b), WNN_STATUS_INVALID_RANK);
    CHECK(wnn_add(b, IN(b, F32, 2), IN(b, I32, 2)) == NULL);
    CHECK(wnn_softmax(b, IN(b, F32, 2), 3) == NULL);
    CHECK_STATUS(wnn_graph_builder_status(b), WNN_STATUS_INVALID_RANK);
    CHECK(strstr(wnn_graph_builder_error_message(b), "matmul") != NULL);
    /* the failing call also sets the thread's last error */
    CHECK(strstr(wnn_last_error_message(), "softmax") != NULL);
    /* successful calls do not clear it */
    CHECK(wnn_add(b, IN(b, F32, 2), IN(b, F32, 2)) != NULL);
    CHECK_STATUS(wnn_graph_builder_status(b), WNN_STATUS_INVALID_RANK);
    wnn_graph_builder_clear_error(b);
    CHECK_OK(wnn_graph_builder_status(b));
    CHECK(strcmp(wnn_graph_builder_error_message(b), "") == 0);
    CHECK(wnn_add(b, IN(b, F32, 2), IN(b, I32, 2)) == NULL);
    CHECK_STATUS(wnn_graph_builder_status(b), WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    CHECK(strstr(wnn_graph_builder_error_message(b), "add") != NULL);
    wnn_graph_builder_clear_error(b);

    /* operands of another builder, of this context and of another */
    wnn_graph_builder *b2 = new_builder(ctx);
    wnn_context *ctx2 = new_context(WNN_POLICY_CHROMIUM);
    wnn_graph_builder *b3 = new_builder(ctx2);
    wnn_operand *mine = IN(b, F32, 2), *theirs = IN(b2, F32, 2), *far = IN(b3, F32, 2);
    CHECK_OP_ERR(b, wnn_add(b, mine, theirs), WNN_STATUS_WRONG_CONTEXT, "add");
    CHECK_OP_ERR(b, wnn_add(b, theirs, mine), WNN_STATUS_WRONG_CONTEXT, "add");
    CHECK_OP_ERR(b, wnn_add(b, mine, far), WNN_STATUS_WRONG_CONTEXT, "add");
    CHECK_OP_ERR(b, wnn_relu(b, theirs), WNN_STATUS_WRONG_CONTEXT, "relu");
    wnn_operand *mixed[] = {mine, theirs};
    CHECK_OP_ERR(b, wnn_concat(b, mixed, 2, 0), WNN_STATUS_WRONG_CONTEXT, "concat");
    wnn_gemm_options go = WNN_GEMM_OPTIONS_INIT;
    go.c = IN(b2, F32, 2);
    CHECK_OP_ERR(b, wnn_gemm(b, IN(b, F32, 2, 2), IN(b, F32, 2, 2), &go), WNN_STATUS_WRONG_CONTEXT, "gemm");
    CHECK_OK(wnn_graph_builder_status(b2)); /* the other builder is not affected */
    wnn_graph_builder_release(b3);
    wnn_context_release(ctx2);

    /* input names */
    wnn_operand_desc d = DESC(F32, 2);
    CHECK(wnn_graph_builder_input(b, "x", &d) != NULL);
    CHECK_OP_ERR(b, wnn_graph_builder_input(b, "x", &d), WNN_STATUS_NAME_MISMATCH, "input");
    CHECK_OP_ERR(b, wnn_graph_builder_input(b, "", &d), WNN_STATUS_NAME_MISMATCH, "input");
    CHECK(wnn_graph_builder_input(b2, "x", &d) != NULL); /* names are per builder */
    CHECK(wnn_graph_builder_input(b, "X", &d) != NULL);
    CHECK(wnn_graph_builder_input(b, "x ", &d) != NULL);
    /* input descriptors follow the descriptor rules */
    wnn_operand_desc bad = DESC(F32, 2, 0);
    CHECK_OP_ERR(b, wnn_graph_builder_input(b, "bad0", &bad), WNN_STATUS_INVALID_DIMENSION, "input");
    bad = DESC(F32, 2147483648u);
    CHECK_OP_ERR(b, wnn_graph_builder_input(b, "bad1", &bad), WNN_STATUS_INVALID_DIMENSION, "input");
    bad = DESC(F32, 65536, 65536);
    CHECK_OP_ERR(b, wnn_graph_builder_input(b, "bad2", &bad), WNN_STATUS_TOO_MANY_ELEMENTS, "input");
    bad = DESC(F32, 1, 1, 1, 1, 1, 1, 1, 1);
    bad.rank = 9;
    CHECK_OP_ERR(b, wnn_graph_builder_input(b, "bad3", &bad), WNN_STATUS_INVALID_RANK, "input");
    bad = DESC(99, 2);
    CHECK_OP_ERR(b, wnn_graph_builder_input(b, "bad4", &bad), WNN_STATUS_UNSUPPORTED_DATA_TYPE, "input");
    CHECK_OP_ERR(b, wnn_graph_builder_input(b, "bad5", NULL), WNN_STATUS_INVALID_ARGUMENT, "input");
    /* a large shape the rules allow is fine for an input (no storage) */
    wnn_operand_desc large = DESC(U8, 2147483647u);
    CHECK(wnn_graph_builder_input(b, "large", &large) != NULL);

    /* constants */
    float four[4] = {1, 2, 3, 4};
    wnn_operand_desc cd = DESC(F32, 2, 2);
    CHECK_DESC(wnn_graph_builder_constant(b, &cd, four, sizeof four), F32, 2, 2);
    CHECK_OP_ERR(b, wnn_graph_builder_constant(b, &cd, four, 15), WNN_STATUS_BYTE_LENGTH_MISMATCH, "constant");
    CHECK_OP_ERR(b, wnn_graph_builder_constant(b, &cd, four, 17), WNN_STATUS_BYTE_LENGTH_MISMATCH, "constant");
    CHECK_OP_ERR(b, wnn_graph_builder_constant(b, &cd, NULL, 16), WNN_STATUS_INVALID_ARGUMENT, "constant");
    bad = DESC(F32, 0);
    CHECK_OP_ERR(b, wnn_graph_builder_constant(b, &bad, four, 0), WNN_STATUS_INVALID_DIMENSION, "constant");
    for (size_t t = 0; t < COUNT_OF(all_types); t++) {
        CHECK_DESC0(wnn_graph_builder_constant_scalar(b, all_types[t], 1.0), all_types[t]);
        CHECK_DESC0(wnn_graph_builder_constant_scalar_int64(b, all_types[t], 1), all_types[t]);
    }
    CHECK_OP_ERR(b, wnn_graph_builder_constant_scalar(b, (wnn_data_type)99, 1.0), WNN_STATUS_UNSUPPORTED_DATA_TYPE,
                 "constant");
    CHECK_OP_ERR(b, wnn_graph_builder_constant_scalar(b, WNN_DATA_TYPE_INVALID, 1.0),
                 WNN_STATUS_UNSUPPORTED_DATA_TYPE, "constant");
    CHECK_OK(wnn_graph_builder_status(b));
    wnn_graph_builder_release(b2);
    wnn_graph_builder_release(b);
}

/* ---- running small graphs ------------------------------------------------------------ */

static wnn_tensor *new_tensor(wnn_context *ctx, const wnn_operand_desc *d, bool readable, bool writable)
{
    wnn_tensor_desc td = WNN_TENSOR_DESC_INIT;
    td.data_type = d->data_type;
    td.rank = d->rank;
    memcpy(td.shape, d->shape, sizeof td.shape);
    td.readable = readable;
    td.writable = writable;
    wnn_tensor *t = NULL;
    wnn_status s = wnn_context_create_tensor(ctx, &td, &t);
    if (s != WNN_OK) {
        fprintf(stderr, "create_tensor: %s\n", wnn_last_error_message());
        exit(1);
    }
    return t;
}

/* Builds out = add(c, x) where c is the constant made by the builder and x an
** all-zero input of c's descriptor, runs it, and reads the result into out. */
typedef enum { SCALAR_DOUBLE, SCALAR_INT64 } scalar_kind;

static wnn_status run_scalar(wnn_context *ctx, wnn_data_type t, scalar_kind kind, double v, int64_t iv, void *out)
{
    wnn_graph_builder *b = new_builder(ctx);
    wnn_operand *c = kind == SCALAR_DOUBLE ? wnn_graph_builder_constant_scalar(b, t, v)
                                           : wnn_graph_builder_constant_scalar_int64(b, t, iv);
    wnn_operand_desc d = DESC0(t);
    wnn_operand *x = wnn_graph_builder_input(b, "x", &d);
    wnn_operand *y = wnn_sub(b, c, x); /* c - 0: sub takes every type on every device */
    wnn_graph *g = NULL;
    wnn_named_operand outs[] = {{"y", y}};
    wnn_status s = wnn_graph_builder_build(b, outs, 1, &g);
    wnn_graph_builder_release(b);
    if (s != WNN_OK)
        return s;
    wnn_tensor *tx = new_tensor(ctx, &d, false, true), *ty = new_tensor(ctx, &d, true, false);
    unsigned char zero[8] = {0};
    s = wnn_context_write_tensor(ctx, tx, zero, wnn_data_type_size(t));
    wnn_named_tensor ins[] = {{"x", tx}}, os[] = {{"y", ty}};
    if (s == WNN_OK)
        s = wnn_context_dispatch(ctx, g, ins, 1, os, 1);
    if (s == WNN_OK)
        s = wnn_context_read_tensor_sync(ctx, ty, out, wnn_data_type_size(t));
    wnn_tensor_release(tx);
    wnn_tensor_release(ty);
    wnn_graph_release(g);
    return s;
}

static void print_hex(const void *p, size_t n)
{
    const unsigned char *c = p;
    fprintf(stderr, "0x");
    for (size_t i = n; i-- > 0;) /* little-endian: most significant byte last */
        fprintf(stderr, "%02x", c[i]);
}

#define CHECK_SCALAR(ctx, type, ctype, kind, v, iv, want)                                              \
    do {                                                                                               \
        ctype got_;                                                                                    \
        memset(&got_, 0x5c, sizeof got_);                                                              \
        CHECK_OK(run_scalar(ctx, type, kind, v, iv, &got_));                                           \
        ctype want_ = (want);                                                                          \
        if (memcmp(&got_, &want_, sizeof got_) == 0) {                                                 \
            test_passed++;                                                                             \
        } else {                                                                                       \
            test_failed++;                                                                             \
            fprintf(stderr, "%s:%d: constant %s(%s, %s) gave ", __FILE__, __LINE__,                    \
                    kind == SCALAR_DOUBLE ? "scalar" : "scalar_int64", #type, kind == SCALAR_DOUBLE ? #v : #iv); \
            print_hex(&got_, sizeof got_);                                                             \
            fprintf(stderr, ", want %s = ", #want);                                                    \
            print_hex(&want_, sizeof want_);                                                           \
            fprintf(stderr, "\n");                                                                     \
        }                                                                                              \
    } while (0)

static void test_constant_scalars(wnn_context *ctx)
{
    /* double values: truncate toward zero, saturate */
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_FLOAT32, float, SCALAR_DOUBLE, 0.1, 0, 0.1f);
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_FLOAT32, float, SCALAR_DOUBLE, -2.5, 0, -2.5f);
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_FLOAT16, uint16_t, SCALAR_DOUBLE, 1.0, 0, 0x3C00);
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_FLOAT16, uint16_t, SCALAR_DOUBLE, -2.0, 0, 0xC000);
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_FLOAT16, uint16_t, SCALAR_DOUBLE, 65504.0, 0, 0x7BFF);
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_FLOAT16, uint16_t, SCALAR_DOUBLE, 0.5, 0, 0x3800);
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_INT8, int8_t, SCALAR_DOUBLE, 3.9, 0, 3);
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_INT8, int8_t, SCALAR_DOUBLE, -3.9, 0, -3);
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_INT8, int8_t, SCALAR_DOUBLE, 300.0, 0, 127);
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_INT8, int8_t, SCALAR_DOUBLE, -300.0, 0, -128);
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_UINT8, uint8_t, SCALAR_DOUBLE, -5.0, 0, 0);
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_UINT8, uint8_t, SCALAR_DOUBLE, 256.0, 0, 255);
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_UINT8, uint8_t, SCALAR_DOUBLE, 254.99, 0, 254);
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_INT32, int32_t, SCALAR_DOUBLE, 3e10, 0, INT32_MAX);
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_INT32, int32_t, SCALAR_DOUBLE, -3e10, 0, INT32_MIN);
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_INT32, int32_t, SCALAR_DOUBLE, -7.99, 0, -7);
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_UINT32, uint32_t, SCALAR_DOUBLE, -1.0, 0, 0);
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_UINT32, uint32_t, SCALAR_DOUBLE, 4294967295.0, 0, 4294967295u);
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_UINT32, uint32_t, SCALAR_DOUBLE, 1e20, 0, 4294967295u);
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_INT64, int64_t, SCALAR_DOUBLE, 1e300, 0, INT64_MAX);
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_INT64, int64_t, SCALAR_DOUBLE, -1e300, 0, INT64_MIN);
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_INT64, int64_t, SCALAR_DOUBLE, -123.75, 0, -123);
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_UINT64, uint64_t, SCALAR_DOUBLE, 1.8e19, 0, 18000000000000000000ull);
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_UINT64, uint64_t, SCALAR_DOUBLE, -0.5, 0, 0);

    /* int64 values keep 64-bit precision, and saturate to narrower types */
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_INT64, int64_t, SCALAR_INT64, 0, INT64_MAX, INT64_MAX);
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_INT64, int64_t, SCALAR_INT64, 0, INT64_MIN, INT64_MIN);
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_INT64, int64_t, SCALAR_INT64, 0, (INT64_C(1) << 53) + 1, (INT64_C(1) << 53) + 1);
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_UINT64, uint64_t, SCALAR_INT64, 0, INT64_MAX - 2, (uint64_t)INT64_MAX - 2);
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_UINT64, uint64_t, SCALAR_INT64, 0, -1, 0);
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_INT32, int32_t, SCALAR_INT64, 0, INT64_C(1) << 40, INT32_MAX);
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_INT32, int32_t, SCALAR_INT64, 0, -(INT64_C(1) << 40), INT32_MIN);
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_INT32, int32_t, SCALAR_INT64, 0, -42, -42);
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_UINT32, uint32_t, SCALAR_INT64, 0, INT64_C(5000000000), 4294967295u);
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_INT8, int8_t, SCALAR_INT64, 0, 1000, 127);
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_INT8, int8_t, SCALAR_INT64, 0, -1000, -128);
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_UINT8, uint8_t, SCALAR_INT64, 0, 255, 255);
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_UINT8, uint8_t, SCALAR_INT64, 0, -1, 0);
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_FLOAT32, float, SCALAR_INT64, 0, 16777217, 16777216.0f);
    CHECK_SCALAR(ctx, WNN_DATA_TYPE_FLOAT16, uint16_t, SCALAR_INT64, 0, 2, 0x4000);
}

static void test_constant_copied(wnn_context *ctx)
{
    /* constant() copies its bytes at call time */
    wnn_graph_builder *b = new_builder(ctx);
    int32_t data[3] = {10, 20, 30};
    wnn_operand_desc d = DESC(I32, 3);
    wnn_operand *c = wnn_graph_builder_constant(b, &d, data, sizeof data);
    data[0] = data[1] = data[2] = -1;
    wnn_operand *x = wnn_graph_builder_input(b, "x", &d);
    wnn_named_operand outs[] = {{"y", wnn_add(b, c, x)}};
    wnn_graph *g = NULL;
    CHECK_OK(wnn_graph_builder_build(b, outs, 1, &g));
    wnn_graph_builder_release(b);
    if (!g)
        return;
    wnn_tensor *tx = new_tensor(ctx, &d, false, true), *ty = new_tensor(ctx, &d, true, false);
    int32_t ones[3] = {1, 2, 3}, got[3] = {0};
    CHECK_OK(wnn_context_write_tensor(ctx, tx, ones, sizeof ones));
    wnn_named_tensor ins[] = {{"x", tx}}, os[] = {{"y", ty}};
    CHECK_OK(wnn_context_dispatch(ctx, g, ins, 1, os, 1));
    CHECK_OK(wnn_context_read_tensor_sync(ctx, ty, got, sizeof got));
    CHECK_EQ_INT(got[0], 11);
    CHECK_EQ_INT(got[1], 22);
    CHECK_EQ_INT(got[2], 33);
    wnn_tensor_release(tx);
    wnn_tensor_release(ty);
    wnn_graph_release(g);
}

static void test_constant_tensor(wnn_context *ctx)
{
    float cdata[2] = {1.5f, -4.0f};
    wnn_operand_desc d = DESC(F32, 2);
    wnn_tensor *ct = NULL;
    CHECK_OK(wnn_context_create_constant_tensor(ctx, &d, cdata, sizeof cdata, &ct));
    if (!ct)
        return;

    /* used in a graph; the tensor is destroyed after build */
    wnn_graph_builder *b = new_builder(ctx);
    wnn_operand *c = wnn_graph_builder_constant_tensor(b, ct);
    CHECK_DESC(c, F32, 2);
    wnn_operand *x = wnn_graph_builder_input(b, "x", &d);
    wnn_named_operand outs[] = {{"y", wnn_mul(b, c, x)}};
    wnn_graph *g = NULL;
    CHECK_OK(wnn_graph_builder_build(b, outs, 1, &g));
    wnn_graph_builder_release(b);

    /* the same constant tensor feeds a second graph */
    wnn_graph_builder *b2 = new_builder(ctx);
    wnn_operand *c2 = wnn_graph_builder_constant_tensor(b2, ct);
    wnn_operand *x2 = wnn_graph_builder_input(b2, "x", &d);
    wnn_named_operand outs2[] = {{"y", wnn_add(b2, c2, x2)}};
    wnn_graph *g2 = NULL;
    CHECK_OK(wnn_graph_builder_build(b2, outs2, 1, &g2));
    wnn_graph_builder_release(b2);
    wnn_tensor_destroy(ct);
    wnn_tensor_release(ct);

    if (g && g2) {
        wnn_tensor *tx = new_tensor(ctx, &d, false, true), *ty = new_tensor(ctx, &d, true, false);
        float xs[2] = {2.0f, 0.5f}, got[2] = {0};
        CHECK_OK(wnn_context_write_tensor(ctx, tx, xs, sizeof xs));
        wnn_named_tensor ins[] = {{"x", tx}}, os[] = {{"y", ty}};
        CHECK_OK(wnn_context_dispatch(ctx, g, ins, 1, os, 1));
        CHECK_OK(wnn_context_read_tensor_sync(ctx, ty, got, sizeof got));
        CHECK(got[0] == 3.0f && got[1] == -2.0f);
        CHECK_OK(wnn_context_dispatch(ctx, g2, ins, 1, os, 1));
        CHECK_OK(wnn_context_read_tensor_sync(ctx, ty, got, sizeof got));
        CHECK(got[0] == 3.5f && got[1] == -3.5f);
        wnn_tensor_release(tx);
        wnn_tensor_release(ty);
    }
    wnn_graph_release(g);
    wnn_graph_release(g2);

    /* a tensor that is not constant */
    wnn_graph_builder *b3 = new_builder(ctx);
    wnn_tensor *plain = new_tensor(ctx, &d, true, true);
    CHECK_OP_ERR(b3, wnn_graph_builder_constant_tensor(b3, plain), WNN_STATUS_CONSTANT_TENSOR, "constant");
    CHECK_OP_ERR(b3, wnn_graph_builder_constant_tensor(b3, NULL), WNN_STATUS_INVALID_ARGUMENT, "constant");
    /* a constant tensor of another context */
    wnn_context *ctx2 = new_context(WNN_POLICY_CHROMIUM);
    wnn_tensor *foreign = NULL;
    CHECK_OK(wnn_context_create_constant_tensor(ctx2, &d, cdata, sizeof cdata, &foreign));
    CHECK_OP_ERR(b3, wnn_graph_builder_constant_tensor(b3, foreign), WNN_STATUS_WRONG_CONTEXT, "constant");
    wnn_tensor_release(foreign);
    wnn_context_release(ctx2);
    wnn_tensor_release(plain);
    wnn_graph_builder_release(b3);

    /* destroyed before build: build fails */
    wnn_tensor *ct2 = NULL;
    CHECK_OK(wnn_context_create_constant_tensor(ctx, &d, cdata, sizeof cdata, &ct2));
    wnn_graph_builder *b4 = new_builder(ctx);
    wnn_operand *c4 = wnn_graph_builder_constant_tensor(b4, ct2);
    CHECK(c4 != NULL);
    wnn_operand *x4 = wnn_graph_builder_input(b4, "x", &d);
    wnn_named_operand outs4[] = {{"y", wnn_add(b4, c4, x4)}};
    wnn_tensor_destroy(ct2);
    wnn_graph *g4 = NULL;
    CHECK_STATUS(wnn_graph_builder_build(b4, outs4, 1, &g4), WNN_STATUS_DESTROYED);
    CHECK(g4 == NULL);
    wnn_graph_release(g4);
    wnn_graph_builder_release(b4);
    wnn_tensor_release(ct2);

    /* released (not only destroyed) before build: the builder keeps what it needs */
    wnn_tensor *ct3 = NULL;
    CHECK_OK(wnn_context_create_constant_tensor(ctx, &d, cdata, sizeof cdata, &ct3));
    wnn_graph_builder *b5 = new_builder(ctx);
    wnn_operand *c5 = wnn_graph_builder_constant_tensor(b5, ct3);
    wnn_operand *x5 = wnn_graph_builder_input(b5, "x", &d);
    wnn_named_operand outs5[] = {{"y", wnn_add(b5, c5, x5)}};
    wnn_tensor_release(ct3);
    wnn_graph *g5 = NULL;
    CHECK_STATUS(wnn_graph_builder_build(b5, outs5, 1, &g5), WNN_STATUS_DESTROYED);
    wnn_graph_release(g5);
    wnn_graph_builder_release(b5);
}

/* ---- build rules ------------------------------------------------------------------------ */

static void test_build_rules(wnn_context *ctx)
{
    wnn_operand_desc d = DESC(F32, 2);
    float two[2] = {1, 2};
    wnn_graph *g = NULL;

    /* no outputs */
    wnn_graph_builder *b = new_builder(ctx);
    wnn_operand *x = wnn_graph_builder_input(b, "x", &d);
    wnn_operand *y = wnn_relu(b, x);
    wnn_named_operand one[] = {{"y", y}};
    CHECK_STATUS(wnn_graph_builder_build(b, NULL, 0, &g), WNN_STATUS_NAME_MISMATCH);
    CHECK(strstr(wnn_last_error_message(), "wnn_graph_builder_build") != NULL);
    CHECK(g == NULL);
    /* refused outputs leave the builder usable, as WebNN validates them before
    ** setting hasBuilt: the corrected call builds */
    wnn_named_operand as_input[] = {{"y", x}};
    CHECK_STATUS(wnn_graph_builder_build(b, as_input, 1, &g), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_OK(wnn_graph_builder_build(b, one, 1, &g));
    CHECK(g != NULL);
    wnn_graph_release(g);
    g = NULL;
    /* a built builder is used up */
    CHECK_STATUS(wnn_graph_builder_build(b, one, 1, &g), WNN_STATUS_ALREADY_BUILT);
    CHECK(g == NULL);
    wnn_graph_builder_release(b);

    b = new_builder(ctx);
    x = wnn_graph_builder_input(b, "x", &d);
    wnn_named_operand zero_count[] = {{"y", wnn_relu(b, x)}};
    CHECK_STATUS(wnn_graph_builder_build(b, zero_count, 0, &g), WNN_STATUS_NAME_MISMATCH);
    wnn_graph_builder_release(b);

    /* empty name */
    b = new_builder(ctx);
    x = wnn_graph_builder_input(b, "x", &d);
    wnn_named_operand empty[] = {{"", wnn_relu(b, x)}};
    CHECK_STATUS(wnn_graph_builder_build(b, empty, 1, &g), WNN_STATUS_NAME_MISMATCH);
    wnn_graph_builder_release(b);

    /* repeated name */
    b = new_builder(ctx);
    x = wnn_graph_builder_input(b, "x", &d);
    wnn_named_operand rep[] = {{"y", wnn_relu(b, x)}, {"y", wnn_neg(b, x)}};
    CHECK_STATUS(wnn_graph_builder_build(b, rep, 2, &g), WNN_STATUS_NAME_MISMATCH);
    wnn_graph_builder_release(b);

    /* an input as output */
    b = new_builder(ctx);
    x = wnn_graph_builder_input(b, "x", &d);
    wnn_named_operand as_in[] = {{"y", wnn_relu(b, x)}, {"x", x}};
    CHECK_STATUS(wnn_graph_builder_build(b, as_in, 2, &g), WNN_STATUS_INVALID_ARGUMENT);
    wnn_graph_builder_release(b);

    /* a constant as output */
    b = new_builder(ctx);
    wnn_operand *c = wnn_graph_builder_constant(b, &d, two, sizeof two);
    wnn_named_operand as_const[] = {{"c", c}};
    CHECK_STATUS(wnn_graph_builder_build(b, as_const, 1, &g), WNN_STATUS_INVALID_ARGUMENT);
    wnn_graph_builder_release(b);
    b = new_builder(ctx);
    wnn_named_operand as_scalar[] = {{"c", wnn_graph_builder_constant_scalar(b, F32, 1.0)}};
    CHECK_STATUS(wnn_graph_builder_build(b, as_scalar, 1, &g), WNN_STATUS_INVALID_ARGUMENT);
    wnn_graph_builder_release(b);

    /* an operand of another builder */
    b = new_builder(ctx);
    wnn_graph_builder *other = new_builder(ctx);
    wnn_operand *ox = wnn_graph_builder_input(other, "x", &d);
    wnn_named_operand foreign[] = {{"y", wnn_relu(other, ox)}};
    CHECK_STATUS(wnn_graph_builder_build(b, foreign, 1, &g), WNN_STATUS_WRONG_CONTEXT);
    wnn_graph_builder_release(other);
    wnn_graph_builder_release(b);

    /* NULL operand or out */
    b = new_builder(ctx);
    wnn_named_operand null_op[] = {{"y", NULL}};
    CHECK_STATUS(wnn_graph_builder_build(b, null_op, 1, &g), WNN_STATUS_INVALID_ARGUMENT);
    wnn_graph_builder_release(b);
    b = new_builder(ctx);
    x = wnn_graph_builder_input(b, "x", &d);
    wnn_named_operand ok1[] = {{"y", wnn_relu(b, x)}};
    CHECK_STATUS(wnn_graph_builder_build(b, ok1, 1, NULL), WNN_STATUS_INVALID_ARGUMENT);
    wnn_graph_builder_release(b);

    /* a recorded error fails build with that error */
    b = new_builder(ctx);
    x = wnn_graph_builder_input(b, "x", &d);
    wnn_operand *good = wnn_relu(b, x);
    wnn_operand_desc d3 = DESC(F32, 3);
    CHECK(wnn_add(b, x, wnn_graph_builder_input(b, "z", &d3)) == NULL);
    wnn_named_operand rec[] = {{"y", good}};
    CHECK_STATUS(wnn_graph_builder_build(b, rec, 1, &g), WNN_STATUS_SHAPE_MISMATCH);
    CHECK(g == NULL);
    /* the builder stays usable once the error is cleared */
    wnn_graph_builder_clear_error(b);
    CHECK_OK(wnn_graph_builder_build(b, rec, 1, &g));
    wnn_graph_release(g);
    g = NULL;
    wnn_graph_builder_release(b);

    /* build twice; operators after build */
    b = new_builder(ctx);
    x = wnn_graph_builder_input(b, "x", &d);
    wnn_named_operand fine[] = {{"y", wnn_relu(b, x)}};
    CHECK_OK(wnn_graph_builder_build(b, fine, 1, &g));
    CHECK(g != NULL);
    wnn_graph *g2 = NULL;
    CHECK_STATUS(wnn_graph_builder_build(b, fine, 1, &g2), WNN_STATUS_ALREADY_BUILT);
    CHECK(g2 == NULL);
    CHECK_OP_ERR(b, wnn_relu(b, x), WNN_STATUS_ALREADY_BUILT, "relu");
    CHECK_OP_ERR(b, wnn_add(b, x, x), WNN_STATUS_ALREADY_BUILT, "add");
    CHECK_OP_ERR(b, wnn_graph_builder_input(b, "w", &d), WNN_STATUS_ALREADY_BUILT, "input");
    CHECK_OP_ERR(b, wnn_graph_builder_constant(b, &d, two, sizeof two), WNN_STATUS_ALREADY_BUILT, "constant");
    CHECK_OP_ERR(b, wnn_graph_builder_constant_scalar(b, F32, 1.0), WNN_STATUS_ALREADY_BUILT, "constant");
    wnn_graph_builder_release(b);
    /* the graph outlives its builder */
    CHECK_EQ_INT(wnn_graph_input_count(g), 1);
    wnn_graph_release(g);
    g = NULL;

    /* the context is lost: builder calls and build report it */
    wnn_context *lost = new_context(WNN_POLICY_CHROMIUM);
    b = new_builder(lost);
    x = wnn_graph_builder_input(b, "x", &d);
    wnn_operand *r = wnn_relu(b, x);
    wnn_context_destroy(lost);
    CHECK_OP_ERR(b, wnn_neg(b, x), WNN_STATUS_CONTEXT_LOST, "neg");
    wnn_named_operand lo[] = {{"y", r}};
    CHECK_STATUS(wnn_graph_builder_build(b, lo, 1, &g), WNN_STATUS_CONTEXT_LOST);
    wnn_graph_builder_release(b);
    wnn_context_release(lost);
}

static void test_graph_enumeration(wnn_context *ctx)
{
    wnn_graph_builder *b = new_builder(ctx);
    wnn_operand_desc da = DESC(F32, 2, 3), db = DESC(F32, 3), dc = DESC(F32, 1, 3), dd = DESC(I32, 4);
    wnn_operand *a = wnn_graph_builder_input(b, "a", &da);
    wnn_operand *bb = wnn_graph_builder_input(b, "b", &db); /* not reachable */
    wnn_operand *c = wnn_graph_builder_input(b, "c", &dc);
    wnn_operand *d = wnn_graph_builder_input(b, "d", &dd);
    (void)wnn_add(b, bb, bb); /* a dead node */
    wnn_operand *sum = wnn_add(b, a, c);
    wnn_operand *dn = wnn_neg(b, d);
    wnn_named_operand outs[] = {{"second", dn}, {"first", sum}};
    wnn_graph *g = NULL;
    CHECK_OK(wnn_graph_builder_build(b, outs, 2, &g));
    wnn_graph_builder_release(b);
    if (!g)
        return;
    CHECK_EQ_INT(wnn_graph_input_count(g), 3);
    CHECK_EQ_INT(wnn_graph_output_count(g), 2);
    static const char *const want_in[] = {"a", "c", "d"};
    const wnn_operand_desc *want_in_desc[] = {&da, &dc, &dd};
    for (uint32_t i = 0; i < 3; i++) {
        const char *name = NULL;
        wnn_operand_desc got;
        memset(&got, 0, sizeof got);
        CHECK_OK(wnn_graph_get_input(g, i, &name, &got));
        CHECK(name && strcmp(name, want_in[i]) == 0);
        CHECK_EQ_INT(got.data_type, want_in_desc[i]->data_type);
        CHECK_EQ_INT(got.rank, want_in_desc[i]->rank);
        CHECK(memcmp(got.shape, want_in_desc[i]->shape, sizeof(uint32_t) * got.rank) == 0);
    }
    const char *name = NULL;
    wnn_operand_desc got;
    CHECK_OK(wnn_graph_get_output(g, 0, &name, &got));
    CHECK(name && strcmp(name, "second") == 0);
    CHECK_EQ_INT(got.data_type, WNN_DATA_TYPE_INT32);
    CHECK_EQ_INT(got.rank, 1);
    CHECK_EQ_INT(got.shape[0], 4);
    CHECK_OK(wnn_graph_get_output(g, 1, &name, &got));
    CHECK(name && strcmp(name, "first") == 0);
    CHECK_EQ_INT(got.data_type, WNN_DATA_TYPE_FLOAT32);
    CHECK_EQ_INT(got.rank, 2);
    CHECK_EQ_INT(got.shape[0], 2);
    CHECK_EQ_INT(got.shape[1], 3);
    /* name or desc may be NULL */
    CHECK_OK(wnn_graph_get_input(g, 0, NULL, NULL));
    CHECK_STATUS(wnn_graph_get_input(g, 3, &name, &got), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(wnn_graph_get_output(g, 2, &name, &got), WNN_STATUS_INVALID_ARGUMENT);
    /* enumeration stays available after destroy */
    wnn_graph_destroy(g);
    CHECK_EQ_INT(wnn_graph_input_count(g), 3);
    wnn_graph_release(g);

    /* a graph of constants only has no inputs */
    b = new_builder(ctx);
    float k[2] = {1, 2};
    wnn_operand_desc d2 = DESC(F32, 2);
    wnn_operand *k1 = wnn_graph_builder_constant(b, &d2, k, sizeof k);
    wnn_named_operand co[] = {{"y", wnn_add(b, k1, k1)}};
    CHECK_OK(wnn_graph_builder_build(b, co, 1, &g));
    wnn_graph_builder_release(b);
    CHECK_EQ_INT(wnn_graph_input_count(g), 0);
    CHECK_EQ_INT(wnn_graph_output_count(g), 1);
    wnn_graph_release(g);
}

int main(void)
{
    wnn_context *ctx = new_context(WNN_POLICY_CHROMIUM);
    wnn_graph_builder *nb = NULL;
    CHECK_STATUS(wnn_graph_builder_create(ctx, NULL), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(wnn_graph_builder_create(NULL, &nb), WNN_STATUS_INVALID_ARGUMENT);
    test_binary(ctx);
    test_unary(ctx);
    test_clamp_cast(ctx);
    test_reshape_transpose(ctx);
    test_concat(ctx);
    test_slice(ctx);
    test_softmax(ctx);
    test_matmul_gemm(ctx);
    test_errors_and_inputs(ctx);
    test_constant_scalars(ctx);
    test_constant_copied(ctx);
    test_constant_tensor(ctx);
    test_build_rules(ctx);
    test_graph_enumeration(ctx);
    wnn_context_release(ctx);
    TEST_DONE();
}
