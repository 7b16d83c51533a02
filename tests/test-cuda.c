/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-cuda.c -- the cuda device: tensor round trips of every data type,
** every operator against the cpu device on random inputs (the same graph
** built on both, compared within WPT-like tolerances), copy counts, chained
** dispatches, CUDA-graph replay against plain launches, unsupported
** operators, and running out of memory.
**
** Exits 77 (skipped) when no cuda device is present: no driver, no GPU, or
** a build without the cuda backend.
*/
#include <math.h>
#include <stdint.h>

#include "core/half.h"
#include "platform/config.h"
#include "test.h"

/* ---- contexts and data ------------------------------------------------------------ */

static wnn_context *cpu_ctx, *cuda_ctx;

static wnn_context *open_ctx(const char *device, uint64_t limit)
{
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.device = device;
    o.memory_limit = limit;
    wnn_context *ctx = NULL;
    CHECK_OK(wnn_context_create(&o, &ctx));
    return ctx;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t next_random(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

static double uniform(double lo, double hi) { return lo + (hi - lo) * ((double)(next_random() >> 11) * 0x1p-53); }

static bool is_float_type(wnn_data_type t) { return t == WNN_DATA_TYPE_FLOAT32 || t == WNN_DATA_TYPE_FLOAT16; }

static size_t desc_count(const wnn_operand_desc *d) { return (size_t)wnn_operand_desc_element_count(d); }

static size_t desc_bytes(const wnn_operand_desc *d) { return (size_t)wnn_operand_desc_byte_length(d); }

/* Element i of data (of type t) as a double. */
static double load_value(wnn_data_type t, const void *data, size_t i)
{
    switch (t) {
    case WNN_DATA_TYPE_FLOAT32: return ((const float *)data)[i];
    case WNN_DATA_TYPE_FLOAT16: return wnn__half_to_float(((const uint16_t *)data)[i]);
    case WNN_DATA_TYPE_INT32: return ((const int32_t *)data)[i];
    case WNN_DATA_TYPE_UINT32: return ((const uint32_t *)data)[i];
    case WNN_DATA_TYPE_INT64: return (double)((const int64_t *)data)[i];
    case WNN_DATA_TYPE_UINT64: return (double)((const uint64_t *)data)[i];
    case WNN_DATA_TYPE_INT8: return ((const int8_t *)data)[i];
    case WNN_DATA_TYPE_UINT8: return ((const uint8_t *)data)[i];
    default: return 0.0;
    }
}

static void store_value(wnn_data_type t, void *data, size_t i, double v)
{
    switch (t) {
    case WNN_DATA_TYPE_FLOAT32: ((float *)data)[i] = (float)v; break;
    case WNN_DATA_TYPE_FLOAT16: ((uint16_t *)data)[i] = wnn__float_to_half((float)v); break;
    case WNN_DATA_TYPE_INT32: ((int32_t *)data)[i] = (int32_t)v; break;
    case WNN_DATA_TYPE_UINT32: ((uint32_t *)data)[i] = (uint32_t)v; break;
    case WNN_DATA_TYPE_INT64: ((int64_t *)data)[i] = (int64_t)v; break;
    case WNN_DATA_TYPE_UINT64: ((uint64_t *)data)[i] = (uint64_t)v; break;
    case WNN_DATA_TYPE_INT8: ((int8_t *)data)[i] = (int8_t)v; break;
    case WNN_DATA_TYPE_UINT8: ((uint8_t *)data)[i] = (uint8_t)v; break;
    default: break;
    }
}

/* n random values in [lo, hi] (integers for integer types or when integral). */
static void *random_data(const wnn_operand_desc *d, double lo, double hi, bool integral)
{
    size_t n = desc_count(d);
    void *p = malloc(desc_bytes(d) ? desc_bytes(d) : 1);
    for (size_t i = 0; i < n; i++) {
        double v = uniform(lo, hi);
        if (integral || !is_float_type(d->data_type)) {
            v = floor(v);
            if (v > hi)
                v = hi;
        }
        store_value(d->data_type, p, i, v);
    }
    return p;
}

/* ---- cases: one graph, built on cpu and on cuda ------------------------------------- */

#define MAX_IN 8

typedef struct tcase tcase;
typedef uint32_t (*build_fn)(wnn_graph_builder *b, wnn_operand **x, wnn_operand **y, const tcase *c);

struct tcase {
    char label[96];
    uint32_t n_in;
    wnn_operand_desc in[MAX_IN];
    double lo[MAX_IN], hi[MAX_IN];
    bool integral[MAX_IN];
    build_fn build;
    const void *fn; /* the operator, for the generic builders */
    int iarg[8];
    double darg[4];
    double rtol, atol;
};

#define MAX_OUT 4

typedef struct result {
    uint32_t n_out;
    wnn_operand_desc desc[MAX_OUT];
    void *data[MAX_OUT];
} result;

static void result_free(result *r)
{
    for (uint32_t i = 0; i < r->n_out; i++)
        free(r->data[i]);
    r->n_out = 0;
}

static const char *const in_names[MAX_IN] = {"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7"};
static const char *const out_names[MAX_OUT] = {"y0", "y1", "y2", "y3"};

/* Builds and runs c on ctx with the given input bytes. */
static wnn_status run_case(wnn_context *ctx, const tcase *c, void *const *inputs, result *r)
{
    memset(r, 0, sizeof *r);
    wnn_graph_builder *b = NULL;
    wnn_status s = wnn_graph_builder_create(ctx, &b);
    if (s != WNN_OK)
        return s;
    wnn_operand *x[MAX_IN] = {NULL}, *y[MAX_OUT] = {NULL};
    for (uint32_t i = 0; i < c->n_in; i++)
        x[i] = wnn_graph_builder_input(b, in_names[i], &c->in[i]);
    uint32_t n_out = c->build(b, x, y, c);
    wnn_named_operand outs[MAX_OUT];
    for (uint32_t i = 0; i < n_out; i++)
        outs[i] = (wnn_named_operand){out_names[i], y[i]};
    wnn_graph *g = NULL;
    s = n_out ? wnn_graph_builder_build(b, outs, n_out, &g) : wnn_graph_builder_status(b);
    if (s == WNN_OK && !n_out)
        s = WNN_STATUS_UNKNOWN;
    if (s != WNN_OK) {
        wnn_graph_builder_release(b);
        return s;
    }
    wnn_tensor *ti[MAX_IN] = {NULL}, *to[MAX_OUT] = {NULL};
    wnn_named_tensor bi[MAX_IN], bo[MAX_OUT];
    for (uint32_t i = 0; i < c->n_in && s == WNN_OK; i++) {
        wnn_tensor_desc td = {c->in[i].data_type, c->in[i].rank, {0}, false, true, false};
        memcpy(td.shape, c->in[i].shape, sizeof td.shape);
        if ((s = wnn_context_create_tensor(ctx, &td, &ti[i])) == WNN_OK)
            s = wnn_context_write_tensor(ctx, ti[i], inputs[i], desc_bytes(&c->in[i]));
        bi[i] = (wnn_named_tensor){in_names[i], ti[i]};
    }
    r->n_out = n_out;
    for (uint32_t i = 0; i < n_out && s == WNN_OK; i++) {
        wnn_operand_get_desc(y[i], &r->desc[i]);
        wnn_tensor_desc td = {r->desc[i].data_type, r->desc[i].rank, {0}, true, false, false};
        memcpy(td.shape, r->desc[i].shape, sizeof td.shape);
        s = wnn_context_create_tensor(ctx, &td, &to[i]);
        bo[i] = (wnn_named_tensor){out_names[i], to[i]};
        r->data[i] = calloc(1, desc_bytes(&r->desc[i]) + 1);
    }
    if (s == WNN_OK)
        s = wnn_context_dispatch(ctx, g, bi, c->n_in, bo, n_out);
    for (uint32_t i = 0; i < n_out && s == WNN_OK; i++)
        s = wnn_context_read_tensor_sync(ctx, to[i], r->data[i], desc_bytes(&r->desc[i]));
    for (uint32_t i = 0; i < c->n_in; i++)
        wnn_tensor_release(ti[i]);
    for (uint32_t i = 0; i < n_out; i++)
        wnn_tensor_release(to[i]);
    wnn_graph_release(g);
    wnn_graph_builder_release(b);
    return s;
}

static bool close_enough(double got, double want, double rtol, double atol)
{
    if (isnan(want))
        return isnan(got);
    if (isinf(want))
        return got == want;
    return fabs(got - want) <= atol + rtol * fabs(want);
}

static int cases_run, cases_skipped;

/* Compares want (cpu) and got (cuda) element by element. */
static void compare(const tcase *c, const result *want, const result *got)
{
    CHECK_EQ_INT(got->n_out, want->n_out);
    for (uint32_t o = 0; o < want->n_out && o < got->n_out; o++) {
        const wnn_operand_desc *d = &want->desc[o];
        size_t n = desc_count(d), bad = 0, first = 0;
        bool exact = !is_float_type(d->data_type);
        double rtol = c->rtol, atol = c->atol;
        if (rtol == 0 && atol == 0 && !exact) {
            rtol = d->data_type == WNN_DATA_TYPE_FLOAT16 ? 4e-3 : 1e-5;
            atol = d->data_type == WNN_DATA_TYPE_FLOAT16 ? 1e-3 : 1e-6;
        }
        for (size_t i = 0; i < n; i++) {
            bool ok;
            if (exact) {
                size_t es = wnn_data_type_size(d->data_type);
                ok = memcmp((const char *)want->data[o] + i * es, (const char *)got->data[o] + i * es, es) == 0;
            } else {
                ok = close_enough(load_value(d->data_type, got->data[o], i), load_value(d->data_type, want->data[o], i),
                                  rtol, atol);
            }
            if (!ok && bad++ == 0)
                first = i;
        }
        if (bad) {
            test_failed++;
            fprintf(stderr, "%s: output %u: %zu of %zu elements differ; first at %zu: cuda %.9g, cpu %.9g\n", c->label,
                    o, bad, n, first, load_value(d->data_type, got->data[o], first),
                    load_value(d->data_type, want->data[o], first));
        } else {
            test_passed++;
        }
    }
}

static void check_case(const tcase *c)
{
    void *inputs[MAX_IN] = {NULL};
    for (uint32_t i = 0; i < c->n_in; i++)
        inputs[i] = random_data(&c->in[i], c->lo[i], c->hi[i], c->integral[i]);
    result want, got;
    wnn_status s = run_case(cpu_ctx, c, inputs, &want);
    if (s != WNN_OK && wnn_status_class(s) == WNN_STATUS_TYPE_ERROR) {
        /* the case itself breaks a rule: a bug of this test */
        test_failed++;
        fprintf(stderr, "%s: the builder refuses the case: %s (%s)\n", c->label, wnn_status_string(s),
                wnn_last_error_message());
    } else if (s != WNN_OK) {
        /* the reference cannot run it (yet): nothing to compare against */
        cases_skipped++;
        printf("skip %s: cpu says %s\n", c->label, wnn_status_string(s));
    } else {
        s = run_case(cuda_ctx, c, inputs, &got);
        if (s != WNN_OK) {
            test_failed++;
            fprintf(stderr, "%s: cuda failed with %s (%s)\n", c->label, wnn_status_string(s), wnn_last_error_message());
        } else {
            cases_run++;
            compare(c, &want, &got);
        }
        result_free(&got);
    }
    result_free(&want);
    for (uint32_t i = 0; i < c->n_in; i++)
        free(inputs[i]);
}

/* ---- case builders ---------------------------------------------------------------- */

typedef wnn_operand *(*binary_op)(wnn_graph_builder *, wnn_operand *, wnn_operand *);
typedef wnn_operand *(*unary_op)(wnn_graph_builder *, wnn_operand *);

static uint32_t build_binary(wnn_graph_builder *b, wnn_operand **x, wnn_operand **y, const tcase *c)
{
    y[0] = ((binary_op)c->fn)(b, x[0], x[1]);
    return 1;
}

static uint32_t build_unary(wnn_graph_builder *b, wnn_operand **x, wnn_operand **y, const tcase *c)
{
    y[0] = ((unary_op)c->fn)(b, x[0]);
    return 1;
}

static wnn_operand_desc desc_of(wnn_data_type t, uint32_t rank, const uint32_t *shape)
{
    wnn_operand_desc d = {t, rank, {0}};
    for (uint32_t i = 0; i < rank; i++)
        d.shape[i] = shape[i];
    return d;
}

#define SHAPE(...) ((const uint32_t[]){__VA_ARGS__})
#define DESC(t, rank, ...) desc_of(t, rank, SHAPE(__VA_ARGS__))

static tcase new_case(const char *label, build_fn build, const void *fn)
{
    tcase c;
    memset(&c, 0, sizeof c);
    snprintf(c.label, sizeof c.label, "%s", label);
    c.build = build;
    c.fn = fn;
    return c;
}

static void add_input(tcase *c, wnn_operand_desc d, double lo, double hi)
{
    if (c->n_in >= MAX_IN)
        abort();
    c->in[c->n_in] = d;
    c->lo[c->n_in] = lo;
    c->hi[c->n_in] = hi;
    c->n_in++;
}

static const wnn_data_type all_types[8] = {WNN_DATA_TYPE_FLOAT32, WNN_DATA_TYPE_FLOAT16, WNN_DATA_TYPE_INT32,
                                           WNN_DATA_TYPE_UINT32,  WNN_DATA_TYPE_INT64,   WNN_DATA_TYPE_UINT64,
                                           WNN_DATA_TYPE_INT8,    WNN_DATA_TYPE_UINT8};

static void value_range(wnn_data_type t, bool is_signed_ok, double *lo, double *hi)
{
    bool uns = t == WNN_DATA_TYPE_UINT32 || t == WNN_DATA_TYPE_UINT64 || t == WNN_DATA_TYPE_UINT8;
    *lo = uns || !is_signed_ok ? 0 : -100;
    *hi = 100;
    if (t == WNN_DATA_TYPE_INT8) {
        *lo = is_signed_ok ? -100 : 0;
        *hi = 100;
    }
}

static void binary_cases(void)
{
    static const struct {
        const char *name;
        binary_op fn;
        int kind; /* 0 arithmetic, 1 pow, 2 comparison, 3 logical */
    } ops[] = {
        {"add", wnn_add, 0},       {"sub", wnn_sub, 0},     {"mul", wnn_mul, 0},
        {"div", wnn_div, 0},       {"max", wnn_max, 0},     {"min", wnn_min, 0},
        {"pow", wnn_pow, 1},       {"equal", wnn_equal, 2}, {"notEqual", wnn_not_equal, 2},
        {"greater", wnn_greater, 2}, {"greaterOrEqual", wnn_greater_or_equal, 2},
        {"lesser", wnn_lesser, 2},   {"lesserOrEqual", wnn_lesser_or_equal, 2},
        {"logicalAnd", wnn_logical_and, 3}, {"logicalOr", wnn_logical_or, 3},
        {"logicalXor", wnn_logical_xor, 3},
    };
    /* same shape (vector path and its tail), broadcast, scalar */
    static const uint32_t shapes[3][2][4] = {{{1, 1003}, {1, 1003}}, {{3, 4, 1, 5}, {4, 3, 1}}, {{0}, {2, 7, 9}}};
    static const uint32_t ranks[3][2] = {{2, 2}, {3, 2}, {0, 2}};
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
        for (int ti = 0; ti < 8; ti++) {
            wnn_data_type t = all_types[ti];
            if (ops[k].kind == 3 && t != WNN_DATA_TYPE_UINT8)
                continue;
            for (int s = 0; s < 3; s++) {
                char label[96];
                snprintf(label, sizeof label, "%s %s shape#%d", ops[k].name, wnn_data_type_name(t), s);
                tcase c = new_case(label, build_binary, (const void *)ops[k].fn);
                double lo, hi;
                value_range(t, true, &lo, &hi);
                if (ops[k].kind == 1) { /* pow */
                    if (is_float_type(t)) {
                        lo = 0.1;
                        hi = 3;
                    } else {
                        lo = t == WNN_DATA_TYPE_UINT32 || t == WNN_DATA_TYPE_UINT64 || t == WNN_DATA_TYPE_UINT8 ? 0 : -3;
                        hi = 6;
                    }
                } else if (ops[k].kind == 2 && !is_float_type(t)) {
                    lo = lo < 0 ? -3 : 0;
                    hi = 4; /* equalities happen */
                } else if (ops[k].kind == 3) {
                    lo = 0;
                    hi = 3;
                } else if (ops[k].kind == 2) {
                    lo = -3;
                    hi = 3;
                }
                if (ops[k].kind == 2 && is_float_type(t)) {
                    c.integral[0] = c.integral[1] = true; /* equal values happen */
                }
                add_input(&c, desc_of(t, ranks[s][0], shapes[s][0]), lo, hi);
                add_input(&c, desc_of(t, ranks[s][1], shapes[s][1]), lo, hi);
                check_case(&c);
            }
        }
    /* prelu */
    static const wnn_data_type prelu_types[] = {WNN_DATA_TYPE_FLOAT32, WNN_DATA_TYPE_FLOAT16, WNN_DATA_TYPE_INT32,
                                                WNN_DATA_TYPE_INT64, WNN_DATA_TYPE_INT8};
    for (size_t i = 0; i < 5; i++) {
        char label[96];
        snprintf(label, sizeof label, "prelu %s", wnn_data_type_name(prelu_types[i]));
        tcase c = new_case(label, build_binary, (const void *)wnn_prelu);
        add_input(&c, DESC(prelu_types[i], 3, 2, 3, 50), -10, 10);
        add_input(&c, DESC(prelu_types[i], 1, 50), -3, 3);
        check_case(&c);
    }
}

static uint32_t build_where(wnn_graph_builder *b, wnn_operand **x, wnn_operand **y, const tcase *c)
{
    y[0] = wnn_where(b, x[0], x[1], x[2]);
    return 1;
}

static void where_cases(void)
{
    for (int ti = 0; ti < 8; ti++) {
        char label[96];
        snprintf(label, sizeof label, "where %s", wnn_data_type_name(all_types[ti]));
        tcase c = new_case(label, build_where, NULL);
        add_input(&c, DESC(WNN_DATA_TYPE_UINT8, 2, 4, 1), 0, 3);
        add_input(&c, DESC(all_types[ti], 3, 2, 4, 33), 0, 100);
        add_input(&c, DESC(all_types[ti], 1, 33), 0, 100);
        check_case(&c);
        snprintf(label, sizeof label, "where %s flat", wnn_data_type_name(all_types[ti]));
        tcase f = new_case(label, build_where, NULL);
        add_input(&f, DESC(WNN_DATA_TYPE_UINT8, 1, 999), 0, 2);
        add_input(&f, DESC(all_types[ti], 1, 999), 0, 100);
        add_input(&f, DESC(all_types[ti], 0, 0), 0, 100);
        check_case(&f);
    }
}

static wnn_operand *elu_default(wnn_graph_builder *b, wnn_operand *x)
{
    wnn_elu_options o = {.alpha = &(double){0.7}};
    return wnn_elu(b, x, &o);
}
static wnn_operand *hard_sigmoid_default(wnn_graph_builder *b, wnn_operand *x)
{
    wnn_hard_sigmoid_options o = {.alpha = &(double){0.3}, .beta = &(double){0.4}};
    return wnn_hard_sigmoid(b, x, &o);
}
static wnn_operand *leaky_relu_default(wnn_graph_builder *b, wnn_operand *x)
{
    wnn_leaky_relu_options o = {.alpha = &(double){0.05}};
    return wnn_leaky_relu(b, x, &o);
}
static wnn_operand *linear_default(wnn_graph_builder *b, wnn_operand *x)
{
    wnn_linear_options o = {.alpha = &(double){1.5}, .beta = -0.25};
    return wnn_linear(b, x, &o);
}

static void unary_cases(void)
{
    static const struct {
        const char *name;
        unary_op fn;
        int types; /* 0 float, 1 float + signed ints, 2 all, 3 uint8 */
        double lo, hi;
    } ops[] = {
        {"abs", wnn_abs, 1, -50, 50},
        {"neg", wnn_neg, 1, -50, 50},
        {"relu", wnn_relu, 1, -50, 50},
        {"exp", wnn_exp, 0, -8, 8},
        {"log", wnn_log, 0, 0.01, 50},
        {"sqrt", wnn_sqrt, 0, 0, 50},
        {"sigmoid", wnn_sigmoid, 0, -8, 8},
        {"tanh", wnn_tanh, 0, -4, 4},
        {"ceil", wnn_ceil, 0, -20, 20},
        {"floor", wnn_floor, 0, -20, 20},
        {"cos", wnn_cos, 0, -10, 10},
        {"sin", wnn_sin, 0, -10, 10},
        {"tan", wnn_tan, 0, -1.4, 1.4},
        {"erf", wnn_erf, 0, -3, 3},
        {"reciprocal", wnn_reciprocal, 0, 0.1, 10},
        {"roundEven", wnn_round_even, 0, -20, 20},
        {"sign", wnn_sign, 1, -5, 5},
        {"identity", wnn_identity, 2, 0, 100},
        {"isNaN", wnn_is_nan, 2, -5, 5},
        {"isInfinite", wnn_is_infinite, 2, -5, 5},
        {"logicalNot", wnn_logical_not, 3, 0, 3},
        {"elu", elu_default, 0, -5, 5},
        {"gelu", wnn_gelu, 0, -5, 5},
        {"hardSigmoid", hard_sigmoid_default, 0, -5, 5},
        {"hardSwish", wnn_hard_swish, 0, -5, 5},
        {"leakyRelu", leaky_relu_default, 0, -5, 5},
        {"linear", linear_default, 0, -5, 5},
        {"softplus", wnn_softplus, 0, -20, 20},
        {"softsign", wnn_softsign, 0, -5, 5},
    };
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
        for (int ti = 0; ti < 8; ti++) {
            wnn_data_type t = all_types[ti];
            bool fl = is_float_type(t);
            bool sgn = t == WNN_DATA_TYPE_INT32 || t == WNN_DATA_TYPE_INT64 || t == WNN_DATA_TYPE_INT8;
            if ((ops[k].types == 0 && !fl) || (ops[k].types == 1 && !fl && !sgn) ||
                (ops[k].types == 3 && t != WNN_DATA_TYPE_UINT8))
                continue;
            char label[96];
            snprintf(label, sizeof label, "%s %s", ops[k].name, wnn_data_type_name(t));
            tcase c = new_case(label, build_unary, (const void *)ops[k].fn);
            double lo = ops[k].lo, hi = ops[k].hi;
            if (!fl && lo < 0 && !sgn)
                lo = 0;
            add_input(&c, DESC(t, 2, 7, 301), lo, hi);
            /* the unary math (ceil ... softsign) runs in double on both sides; float16's rounding
            ** of a double differs by at most an ulp */
            check_case(&c);
        }
}

static uint32_t build_clamp(wnn_graph_builder *b, wnn_operand **x, wnn_operand **y, const tcase *c)
{
    wnn_clamp_options o = WNN_CLAMP_OPTIONS_INIT;
    const wnn_number lo = {.value = c->darg[0]}, hi = {.value = c->darg[1]};
    o.min_value = c->iarg[0] ? &lo : NULL;
    o.max_value = c->iarg[1] ? &hi : NULL;
    y[0] = wnn_clamp(b, x[0], &o);
    return 1;
}

static uint32_t build_cast(wnn_graph_builder *b, wnn_operand **x, wnn_operand **y, const tcase *c)
{
    y[0] = wnn_cast(b, x[0], (wnn_data_type)c->iarg[0]);
    return 1;
}

static void clamp_cast_cases(void)
{
    for (int ti = 0; ti < 8; ti++) {
        wnn_data_type t = all_types[ti];
        char label[96];
        snprintf(label, sizeof label, "clamp %s", wnn_data_type_name(t));
        tcase c = new_case(label, build_clamp, NULL);
        double lo, hi;
        value_range(t, true, &lo, &hi);
        add_input(&c, DESC(t, 1, 4099), lo, hi);
        c.iarg[0] = c.iarg[1] = 1;
        c.darg[0] = lo < 0 ? -20.5 : 10.5;
        c.darg[1] = 60.25;
        check_case(&c);
        c.iarg[0] = 0; /* only a maximum */
        snprintf(c.label, sizeof c.label, "clamp %s max only", wnn_data_type_name(t));
        check_case(&c);
    }
    for (int a = 0; a < 8; a++)
        for (int b = 0; b < 8; b++) {
            wnn_data_type from = all_types[a], to = all_types[b];
            char label[96];
            snprintf(label, sizeof label, "cast %s to %s", wnn_data_type_name(from), wnn_data_type_name(to));
            tcase c = new_case(label, build_cast, NULL);
            double lo, hi;
            value_range(from, true, &lo, &hi);
            if (is_float_type(from)) {
                lo = -400;
                hi = 400; /* saturation of the small types */
            }
            add_input(&c, DESC(from, 2, 3, 333), lo, hi);
            c.iarg[0] = (int)to;
            check_case(&c);
        }
}

/* gelu against double over a dense sweep of floats, on the unary kernel
** and inside a fused run (gelu of x + 0): WebNN allows 18 ulp, the same
** bound test-cpu-kernels holds the cpu to. Bit patterns are spaced evenly
** over each sign's (1e-30, 12], so every binade between is sampled, with
** the edges of the fast range (+-10), zeros, infinities and NaN. */
static uint32_t build_gelu_pair(wnn_graph_builder *b, wnn_operand **x, wnn_operand **y, const tcase *c)
{
    (void)c;
    y[0] = wnn_gelu(b, x[0]);
    y[1] = wnn_gelu(b, wnn_add(b, x[0], x[1]));
    return 2;
}

static float float_of_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static double ulps_from(float got, double want)
{
    if (want != want)
        return got != got ? 0.0 : 1e30;
    if (isinf(want))
        return got == (float)want ? 0.0 : 1e30;
    int e;
    frexp(want, &e);
    double ulp = ldexp(1.0, (e - 24 < -149 ? -149 : e - 24));
    return fabs((double)got - want) / ulp;
}

static void gelu_sweep(void)
{
    enum { N = 1 << 21 };
    float *x = malloc(N * sizeof *x), *zero = calloc(N, sizeof *zero);
    CHECK(x && zero);
    if (!x || !zero)
        return;
    const uint32_t lo = 0x0DA24260u /* 1e-30 */, hi = 0x41400000u /* 12 */;
    const float special[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 10.0f, -10.0f, 0x1.3fffffp+3f, -0x1.3fffffp+3f,
                             0x1.400002p+3f, -0x1.400002p+3f};
    const size_t n_special = sizeof special / sizeof special[0];
    for (size_t i = 0; i < N; i++) {
        if (i < n_special) {
            x[i] = special[i];
            continue;
        }
        uint32_t bits = lo + (uint32_t)((uint64_t)(hi - lo) * (i / 2) / (N / 2));
        x[i] = float_of_bits(bits | (i & 1 ? 0x80000000u : 0u));
    }
    tcase c = new_case("gelu sweep", build_gelu_pair, NULL);
    add_input(&c, DESC(WNN_DATA_TYPE_FLOAT32, 1, N), 0, 0);
    add_input(&c, DESC(WNN_DATA_TYPE_FLOAT32, 1, N), 0, 0);
    void *inputs[2] = {x, zero};
    result r;
    wnn_status s = run_case(cuda_ctx, &c, inputs, &r);
    CHECK(s == WNN_OK);
    if (s == WNN_OK) {
        for (uint32_t k = 0; k < 2; k++) {
            const float *y = r.data[k];
            double worst = 0.0;
            size_t at = 0;
            for (size_t i = 0; i < N; i++) {
                double want = 0.5 * (double)x[i] * erfc(-(double)x[i] * 0.70710678118654752440);
                double u = ulps_from(y[i], want);
                if (u > worst) {
                    worst = u;
                    at = i;
                }
            }
            printf("  gelu %s: %.2f ulp at worst over %d floats (x = %.9g)\n", k ? "in a fused run" : "alone", worst,
                   (int)N, (double)x[at]);
            CHECK(worst <= 18.0);
        }
    }
    result_free(&r);
    free(x);
    free(zero);
}

/* A run of element-wise operators the cuda backend fuses into one kernel,
** with intermediates that escape (a second output, a single-element third)
** and a single-element computation inside. */
static uint32_t build_fusion(wnn_graph_builder *b, wnn_operand **x, wnn_operand **y, const tcase *c)
{
    wnn_operand *s = x[2];
    wnn_operand *a = wnn_add(b, x[0], s);
    wnn_operand *m = wnn_mul(b, a, x[1]);
    wnn_operand *d = wnn_sub(b, m, s);
    wnn_operand *e = wnn_sigmoid(b, wnn_relu(b, d));
    wnn_operand *f = wnn_tanh(b, wnn_max(b, e, x[0]));
    wnn_operand *k = wnn_add(b, s, s);
    wnn_operand *h = wnn_div(b, wnn_abs(b, f), k);
    wnn_operand *z = wnn_sqrt(b, wnn_exp(b, wnn_neg(b, wnn_pow(b, h, k))));
    y[0] = wnn_min(b, wnn_log(b, wnn_add(b, z, k)), x[1]);
    y[1] = d;
    y[2] = k;
    return 3;
}

/* A bias row along the last axis, on either side, with gelu and a
** residual: fused when the row's length suits the fused kernel. */
static uint32_t build_fusion_rows(wnn_graph_builder *b, wnn_operand **x, wnn_operand **y, const tcase *c)
{
    wnn_operand *g = wnn_gelu(b, wnn_add(b, x[0], x[1]));
    y[0] = wnn_add(b, wnn_sub(b, x[1], g), x[2]);
    y[1] = g;
    return 2;
}

static void fusion_cases(void)
{
    for (int ti = 0; ti < 2; ti++) {
        wnn_data_type t = all_types[ti];
        char label[96];
        for (uint32_t row = 12; row <= 24; row += 12) {
            snprintf(label, sizeof label, "fused run %s rows of %u", wnn_data_type_name(t), row);
            tcase c = new_case(label, build_fusion_rows, NULL);
            add_input(&c, DESC(t, 3, 3, 7, row), -4, 4);
            add_input(&c, DESC(t, 1, row), -1, 1);
            add_input(&c, DESC(t, 3, 3, 7, row), -1, 1);
            check_case(&c);
        }
        snprintf(label, sizeof label, "fused run %s", wnn_data_type_name(t));
        tcase c = new_case(label, build_fusion, NULL);
        add_input(&c, DESC(t, 2, 33, 31), -2, 2);
        add_input(&c, DESC(t, 2, 33, 31), -2, 2);
        add_input(&c, DESC(t, 0, 0), 0.5, 1.5);
        check_case(&c);
        snprintf(label, sizeof label, "fused run %s broadcast", wnn_data_type_name(t));
        c = new_case(label, build_fusion, NULL);
        add_input(&c, DESC(t, 1, 5000), -2, 2);
        add_input(&c, DESC(t, 0, 0), -2, 2);
        add_input(&c, DESC(t, 0, 0), 0.5, 1.5);
        check_case(&c);
    }
}

/* ---- movement ----------------------------------------------------------------------- */

static uint32_t build_movement(wnn_graph_builder *b, wnn_operand **x, wnn_operand **y, const tcase *c)
{
    const char *op = (const char *)c->fn;
    if (!strcmp(op, "reshape")) {
        /* x * 1 keeps the reshape's input an intermediate, reshaped twice */
        wnn_operand *one = wnn_graph_builder_constant_scalar(b, c->in[0].data_type, 1.0);
        wnn_operand *r = wnn_reshape(b, wnn_mul(b, x[0], one), 2, SHAPE(12, 35));
        y[0] = wnn_add(b, wnn_reshape(b, r, 3, SHAPE(6, 2, 35)), wnn_reshape(b, x[0], 3, SHAPE(6, 2, 35)));
        y[1] = wnn_reshape(b, x[0], 1, SHAPE(420));
        return 2;
    }
    if (!strcmp(op, "transpose")) {
        y[0] = wnn_transpose(b, x[0], (const uint32_t *)c->iarg);
        return 1;
    }
    if (!strcmp(op, "concat")) {
        y[0] = wnn_concat(b, x, c->n_in, (uint32_t)c->iarg[0]);
        return 1;
    }
    if (!strcmp(op, "slice")) {
        y[0] = wnn_slice(b, x[0], SHAPE(1, 0, 2), SHAPE(3, 5, 9), SHAPE(1, 2, 3));
        return 1;
    }
    if (!strcmp(op, "expand")) {
        y[0] = wnn_expand(b, x[0], 4, SHAPE(2, 3, 4, 5));
        return 1;
    }
    if (!strcmp(op, "pad")) {
        wnn_pad_options o = {.mode = (wnn_pad_mode)c->iarg[0], .value = 7.5};
        y[0] = wnn_pad(b, x[0], SHAPE(1, 2, 0), SHAPE(2, 0, 3), &o);
        return 1;
    }
    if (!strcmp(op, "split")) {
        wnn_split_options o = {.axis = 1};
        return (uint32_t)wnn_split_sizes(b, x[0], SHAPE(2, 5, 1), 3, &o, y);
    }
    if (!strcmp(op, "tile")) {
        y[0] = wnn_tile(b, x[0], SHAPE(2, 1, 3));
        return 1;
    }
    if (!strcmp(op, "reverse")) {
        static const uint32_t axes[2] = {0, 2};
        wnn_reverse_options o = {.axes = axes, .axes_count = 2};
        y[0] = wnn_reverse(b, x[0], &o);
        return 1;
    }
    if (!strcmp(op, "triangular")) {
        wnn_triangular_options o = {.lower = c->iarg[0] == 0, .diagonal = c->iarg[1]};
        y[0] = wnn_triangular(b, x[0], &o);
        return 1;
    }
    return 0;
}

static void movement_cases(void)
{
    for (int ti = 0; ti < 8; ti++) {
        wnn_data_type t = all_types[ti];
        const char *tn = wnn_data_type_name(t);
        char label[96];
#define MOVE_CASE(op, ...)                                                                            \
    do {                                                                                              \
        snprintf(label, sizeof label, "%s %s", op, tn);                                               \
        tcase c = new_case(label, build_movement, op);                                                \
        __VA_ARGS__;                                                                                  \
        check_case(&c);                                                                               \
    } while (0)
        MOVE_CASE("reshape", add_input(&c, DESC(t, 3, 4, 3, 35), 0, 100));
        MOVE_CASE("transpose", add_input(&c, DESC(t, 4, 2, 3, 4, 5), 0, 100); c.iarg[0] = 0; c.iarg[1] = 2;
                  c.iarg[2] = 3; c.iarg[3] = 1);
        MOVE_CASE("transpose", add_input(&c, DESC(t, 3, 3, 70, 45), 0, 100); c.iarg[0] = 0; c.iarg[1] = 2;
                  c.iarg[2] = 1);
        MOVE_CASE("transpose", add_input(&c, DESC(t, 2, 129, 67), 0, 100); c.iarg[0] = 1; c.iarg[1] = 0);
        MOVE_CASE("concat", add_input(&c, DESC(t, 3, 2, 3, 5), 0, 100); add_input(&c, DESC(t, 3, 2, 1, 5), 0, 100);
                  add_input(&c, DESC(t, 3, 2, 4, 5), 0, 100); c.iarg[0] = 1);
        MOVE_CASE("concat", add_input(&c, DESC(t, 2, 3, 7), 0, 100); add_input(&c, DESC(t, 2, 3, 2), 0, 100);
                  c.iarg[0] = 1);
        MOVE_CASE("slice", add_input(&c, DESC(t, 3, 4, 6, 11), 0, 100));
        MOVE_CASE("expand", add_input(&c, DESC(t, 2, 4, 1), 0, 100));
        MOVE_CASE("pad", add_input(&c, DESC(t, 3, 2, 3, 4), 0, 100); c.iarg[0] = WNN_PAD_MODE_CONSTANT);
        MOVE_CASE("pad", add_input(&c, DESC(t, 3, 3, 3, 4), 0, 100); c.iarg[0] = WNN_PAD_MODE_EDGE);
        MOVE_CASE("pad", add_input(&c, DESC(t, 3, 3, 3, 4), 0, 100); c.iarg[0] = WNN_PAD_MODE_REFLECTION);
        MOVE_CASE("split", add_input(&c, DESC(t, 3, 3, 8, 5), 0, 100));
        MOVE_CASE("tile", add_input(&c, DESC(t, 3, 2, 3, 4), 0, 100));
        MOVE_CASE("reverse", add_input(&c, DESC(t, 3, 3, 4, 5), 0, 100));
        MOVE_CASE("triangular", add_input(&c, DESC(t, 3, 2, 5, 7), 0, 100); c.iarg[0] = 1; c.iarg[1] = 1);
        MOVE_CASE("triangular", add_input(&c, DESC(t, 2, 6, 4), 0, 100); c.iarg[0] = 0; c.iarg[1] = -1);
#undef MOVE_CASE
    }
}

static uint32_t build_gather(wnn_graph_builder *b, wnn_operand **x, wnn_operand **y, const tcase *c)
{
    const char *op = (const char *)c->fn;
    wnn_gather_options o = {.axis = (uint32_t)c->iarg[0]};
    wnn_scatter_options so = {.axis = (uint32_t)c->iarg[0]};
    if (!strcmp(op, "gather"))
        y[0] = wnn_gather(b, x[0], x[1], &o);
    else if (!strcmp(op, "gatherElements"))
        y[0] = wnn_gather_elements(b, x[0], x[1], &o);
    else if (!strcmp(op, "gatherND"))
        y[0] = wnn_gather_nd(b, x[0], x[1]);
    else if (!strcmp(op, "scatterElements"))
        y[0] = wnn_scatter_elements(b, x[0], x[1], x[2], &so);
    else
        y[0] = wnn_scatter_nd(b, x[0], x[1], x[2]);
    return 1;
}

static void gather_cases(void)
{
    static const wnn_data_type idx_types[3] = {WNN_DATA_TYPE_INT32, WNN_DATA_TYPE_UINT32, WNN_DATA_TYPE_INT64};
    for (int ti = 0; ti < 8; ti += 3)
        for (int ii = 0; ii < 3; ii++) {
            wnn_data_type t = all_types[ti], it = idx_types[ii];
            double ilo = it == WNN_DATA_TYPE_UINT32 ? 0 : -7; /* out of range: clamped */
            char label[96];
#define GATHER_CASE(op, ...)                                                                          \
    do {                                                                                              \
        snprintf(label, sizeof label, "%s %s %s", op, wnn_data_type_name(t), wnn_data_type_name(it));  \
        tcase c = new_case(label, build_gather, op);                                                  \
        __VA_ARGS__;                                                                                  \
        check_case(&c);                                                                               \
    } while (0)
            GATHER_CASE("gather", add_input(&c, DESC(t, 3, 3, 5, 4), 0, 100); add_input(&c, DESC(it, 2, 2, 6), ilo, 7);
                        c.iarg[0] = 1);
            GATHER_CASE("gatherElements", add_input(&c, DESC(t, 3, 3, 5, 4), 0, 100);
                        add_input(&c, DESC(it, 3, 3, 2, 4), ilo, 6); c.iarg[0] = 1);
            GATHER_CASE("gatherND", add_input(&c, DESC(t, 3, 3, 5, 4), 0, 100); add_input(&c, DESC(it, 2, 6, 2), ilo, 6));
            GATHER_CASE("scatterElements", add_input(&c, DESC(t, 3, 3, 5, 4), 0, 100);
                        add_input(&c, DESC(it, 3, 3, 4, 4), ilo, 6); add_input(&c, DESC(t, 3, 3, 4, 4), 0, 100);
                        c.iarg[0] = 1);
            GATHER_CASE("scatterND", add_input(&c, DESC(t, 3, 3, 5, 4), 0, 100); add_input(&c, DESC(it, 2, 7, 2), ilo, 6);
                        add_input(&c, DESC(t, 2, 7, 4), 0, 100));
#undef GATHER_CASE
        }
}

/* ---- along axes ------------------------------------------------------------------------ */

static uint32_t build_softmax(wnn_graph_builder *b, wnn_operand **x, wnn_operand **y, const tcase *c)
{
    y[0] = wnn_softmax(b, x[0], (uint32_t)c->iarg[0]);
    return 1;
}

typedef wnn_operand *(*reduce_op)(wnn_graph_builder *, wnn_operand *, const wnn_reduce_options *);

static uint32_t build_reduce(wnn_graph_builder *b, wnn_operand **x, wnn_operand **y, const tcase *c)
{
    wnn_reduce_options o = WNN_REDUCE_OPTIONS_INIT;
    uint32_t axes[WNN_MAX_RANK];
    o.axes = c->iarg[0] >= 0 ? axes : NULL;
    o.axes_count = c->iarg[0] >= 0 ? (uint32_t)c->iarg[0] : 0;
    for (uint32_t i = 0; i < o.axes_count; i++)
        axes[i] = (uint32_t)c->iarg[1 + i];
    o.keep_dimensions = c->iarg[5];
    y[0] = ((reduce_op)c->fn)(b, x[0], &o);
    return 1;
}

static uint32_t build_axis_op(wnn_graph_builder *b, wnn_operand **x, wnn_operand **y, const tcase *c)
{
    const char *op = (const char *)c->fn;
    if (!strcmp(op, "argMin") || !strcmp(op, "argMax")) {
        wnn_arg_min_max_options o = {.keep_dimensions = c->iarg[1] != 0,
                                     .output_data_type = (wnn_data_type)c->iarg[2]};
        y[0] = (!strcmp(op, "argMin") ? wnn_arg_min : wnn_arg_max)(b, x[0], (uint32_t)c->iarg[0], &o);
    } else {
        wnn_cumulative_sum_options o = {.exclusive = c->iarg[1] != 0, .reversed = c->iarg[2] != 0};
        y[0] = wnn_cumulative_sum(b, x[0], (uint32_t)c->iarg[0], &o);
    }
    return 1;
}

static void axis_cases(void)
{
    static const uint32_t soft_shapes[4][3] = {{4, 7, 33}, {5, 3000, 1}, {64, 100, 1}, {2, 9000, 1}};
    static const int soft_axes[4] = {1, 1, 1, 1};
    for (int ti = 0; ti < 2; ti++)
        for (int k = 0; k < 4; k++) {
            char label[96];
            snprintf(label, sizeof label, "softmax %s shape#%d", wnn_data_type_name(all_types[ti]), k);
            tcase c = new_case(label, build_softmax, NULL);
            add_input(&c, desc_of(all_types[ti], 3, soft_shapes[k]), -6, 6);
            c.iarg[0] = soft_axes[k];
            check_case(&c);
        }

    static const struct {
        const char *name;
        reduce_op fn;
        bool ints;
        double lo, hi;
    } reductions[] = {
        {"reduceL1", wnn_reduce_l1, true, -5, 5},       {"reduceL2", wnn_reduce_l2, false, -5, 5},
        {"reduceLogSum", wnn_reduce_log_sum, false, 0.1, 5}, {"reduceLogSumExp", wnn_reduce_log_sum_exp, false, -5, 5},
        {"reduceMax", wnn_reduce_max, true, -50, 50},   {"reduceMean", wnn_reduce_mean, false, -5, 5},
        {"reduceMin", wnn_reduce_min, true, -50, 50},   {"reduceProduct", wnn_reduce_product, true, 0.5, 1.5},
        {"reduceSum", wnn_reduce_sum, true, -5, 5},     {"reduceSumSquare", wnn_reduce_sum_square, true, -5, 5},
    };
    /* axes: -1 all, else count then axes; shapes exercise the thread, warp
    ** and block paths */
    static const struct {
        uint32_t rank, shape[4];
        int axes[5];
        int keep;
    } layouts[] = {
        {3, {4, 5, 6}, {1, 1}, 0},      {3, {4, 5, 6}, {2, 0, 2}, 1}, {3, {4, 5, 6}, {-1}, 0},
        {2, {3, 5000}, {1, 1}, 0},      {2, {70, 40}, {1, 0}, 0},     {2, {6000, 3}, {1, 0}, 1},
        {3, {2, 3, 4}, {0}, 0},
    };
    for (size_t k = 0; k < sizeof reductions / sizeof reductions[0]; k++)
        for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++)
            for (int ti = 0; ti < 8; ti++) {
                wnn_data_type t = all_types[ti];
                bool fl = is_float_type(t);
                bool minmax = !strcmp(reductions[k].name, "reduceMax") || !strcmp(reductions[k].name, "reduceMin");
                bool wide = t == WNN_DATA_TYPE_INT32 || t == WNN_DATA_TYPE_UINT32 || t == WNN_DATA_TYPE_INT64 ||
                            t == WNN_DATA_TYPE_UINT64;
                if (!fl && !(reductions[k].ints && (wide || minmax)))
                    continue;
                if (ti > 2 && l > 2) /* every type on the small layouts, a few on the big ones */
                    continue;
                char label[96];
                snprintf(label, sizeof label, "%s %s layout#%zu", reductions[k].name, wnn_data_type_name(t), l);
                tcase c = new_case(label, build_reduce, (const void *)reductions[k].fn);
                double lo = reductions[k].lo, hi = reductions[k].hi;
                if (!fl && lo < 0 && (t == WNN_DATA_TYPE_UINT32 || t == WNN_DATA_TYPE_UINT64 || t == WNN_DATA_TYPE_UINT8))
                    lo = 0;
                if (!fl && !strcmp(reductions[k].name, "reduceProduct")) {
                    lo = -3;
                    hi = 3;
                }
                add_input(&c, desc_of(t, layouts[l].rank, layouts[l].shape), lo, hi);
                c.iarg[0] = layouts[l].axes[0];
                for (int a = 0; a < 4; a++)
                    c.iarg[1 + a] = layouts[l].axes[1 + a];
                c.iarg[5] = layouts[l].keep;
                if (t == WNN_DATA_TYPE_FLOAT16) { /* sums of many float16 values */
                    c.rtol = 1e-2;
                    c.atol = 2e-2;
                } else if (fl) {
                    c.rtol = 2e-5;
                    c.atol = 1e-4;
                }
                check_case(&c);
            }

    for (int ti = 0; ti < 8; ti++) {
        wnn_data_type t = all_types[ti];
        for (int op = 0; op < 2; op++)
            for (int shape = 0; shape < 2; shape++) {
                char label[96];
                const char *name = op ? "argMax" : "argMin";
                snprintf(label, sizeof label, "%s %s shape#%d", name, wnn_data_type_name(t), shape);
                tcase c = new_case(label, build_axis_op, name);
                double lo, hi;
                value_range(t, true, &lo, &hi);
                if (shape == 0)
                    add_input(&c, DESC(t, 3, 3, 40, 7), lo, hi);
                else
                    add_input(&c, DESC(t, 2, 9, 300), lo, hi);
                c.integral[0] = true; /* ties happen */
                c.iarg[0] = 1;
                c.iarg[1] = shape;
                c.iarg[2] = shape ? WNN_DATA_TYPE_INT64 : WNN_DATA_TYPE_INT32;
                check_case(&c);
            }
        if (t == WNN_DATA_TYPE_INT8 || t == WNN_DATA_TYPE_UINT8)
            continue;
        for (int v = 0; v < 4; v++) {
            char label[96];
            snprintf(label, sizeof label, "cumulativeSum %s variant#%d", wnn_data_type_name(t), v);
            tcase c = new_case(label, build_axis_op, "cumulativeSum");
            double lo, hi;
            value_range(t, true, &lo, &hi);
            add_input(&c, DESC(t, 3, 3, 50, 4), lo, hi);
            c.iarg[0] = v == 3 ? 2 : 1;
            c.iarg[1] = v & 1;
            c.iarg[2] = (v >> 1) & 1;
            if (t == WNN_DATA_TYPE_FLOAT16) {
                c.rtol = 4e-3;
                c.atol = 0.25; /* running sums of float16 values up to a few hundred */
            }
            check_case(&c);
        }
    }
}

/* ---- matmul and gemm ------------------------------------------------------------------- */

static uint32_t build_matmul(wnn_graph_builder *b, wnn_operand **x, wnn_operand **y, const tcase *c)
{
    y[0] = wnn_matmul(b, x[0], x[1]);
    return 1;
}

static uint32_t build_gemm(wnn_graph_builder *b, wnn_operand **x, wnn_operand **y, const tcase *c)
{
    wnn_gemm_options o = WNN_GEMM_OPTIONS_INIT;
    o.c = c->n_in > 2 ? x[2] : NULL;
    o.alpha = &c->darg[0];
    o.beta = &c->darg[1];
    o.a_transpose = c->iarg[0];
    o.b_transpose = c->iarg[1];
    y[0] = wnn_gemm(b, x[0], x[1], &o);
    return 1;
}

/* Transposes of the last two axes into matmul and scales after it, which
** cuda folds into cuBLAS's operands and alpha: batched with both operands
** transposed and a division; a's batches stacked into rows with b
** transposed and a product (iarg[0] 1: b's transpose is an output too, so
** it stays). */
static uint32_t build_matmul_fold(wnn_graph_builder *b, wnn_operand **x, wnn_operand **y, const tcase *c)
{
    wnn_data_type t = c->in[0].data_type;
    wnn_operand *at = wnn_transpose(b, x[0], SHAPE(0, 1, 3, 2)), *bt = wnn_transpose(b, x[1], SHAPE(0, 1, 3, 2));
    y[0] = wnn_div(b, wnn_matmul(b, at, bt), wnn_graph_builder_constant_scalar(b, t, 4.0));
    wnn_operand *ct = wnn_transpose(b, x[3], SHAPE(1, 0));
    y[1] = wnn_mul(b, wnn_graph_builder_constant_scalar(b, t, 0.5), wnn_matmul(b, x[2], ct));
    if (c->iarg[0])
        y[2] = ct;
    return c->iarg[0] ? 3 : 2;
}

/* Rows added after matmuls, which cuda folds into cuBLASLt's bias
** epilogue: on a's stacked batches, after a scale, and a sum that is not
** one row (a matrix added), which stays an add. */
static uint32_t build_matmul_bias(wnn_graph_builder *b, wnn_operand **x, wnn_operand **y, const tcase *c)
{
    wnn_data_type t = c->in[0].data_type;
    y[0] = wnn_add(b, x[2], wnn_matmul(b, x[0], x[1]));
    wnn_operand *scaled = wnn_mul(b, wnn_matmul(b, x[0], x[1]), wnn_graph_builder_constant_scalar(b, t, 0.5));
    y[1] = wnn_add(b, scaled, x[3]);
    y[2] = wnn_add(b, wnn_matmul(b, x[0], x[1]), x[4]);
    return 3;
}

static void matmul_cases(void)
{
    for (int ti = 0; ti < 2; ti++)
        for (int v = 0; v < 2; v++) {
            wnn_data_type t = all_types[ti];
            uint32_t n = v ? 24 : 19; /* rows of 48 or 38 bytes (float16): aligned and not */
            char label[96];
            snprintf(label, sizeof label, "matmul + row %s n=%u", wnn_data_type_name(t), n);
            tcase c = new_case(label, build_matmul_bias, NULL);
            add_input(&c, DESC(t, 4, 2, 3, 17, 32), -1, 1);
            add_input(&c, DESC(t, 2, 32, n), -1, 1);
            add_input(&c, DESC(t, 1, n), -1, 1);
            add_input(&c, DESC(t, 2, 1, n), -1, 1);
            add_input(&c, DESC(t, 2, 17, n), -1, 1);
            c.rtol = t == WNN_DATA_TYPE_FLOAT16 ? 1e-2 : 1e-4;
            c.atol = t == WNN_DATA_TYPE_FLOAT16 ? 1e-2 : 1e-4;
            check_case(&c);
        }
    for (int ti = 0; ti < 2; ti++)
        for (int v = 0; v < 2; v++) {
            wnn_data_type t = all_types[ti];
            char label[96];
            snprintf(label, sizeof label, "matmul folds %s variant#%d", wnn_data_type_name(t), v);
            tcase c = new_case(label, build_matmul_fold, NULL);
            add_input(&c, DESC(t, 4, 2, 3, 5, 4), -1, 1);
            add_input(&c, DESC(t, 4, 2, 3, 6, 5), -1, 1);
            add_input(&c, DESC(t, 4, 2, 3, 4, 5), -1, 1);
            add_input(&c, DESC(t, 2, 6, 5), -1, 1);
            c.iarg[0] = v;
            c.rtol = t == WNN_DATA_TYPE_FLOAT16 ? 1e-2 : 1e-4;
            c.atol = t == WNN_DATA_TYPE_FLOAT16 ? 1e-2 : 1e-4;
            check_case(&c);
        }
    static const struct {
        uint32_t ra, a[4], rb, b[4];
    } shapes[] = {
        {2, {17, 33}, 2, {33, 19}},          {4, {2, 3, 17, 33}, 2, {33, 19}}, {4, {2, 1, 8, 16}, 3, {3, 16, 5}},
        {3, {4, 5, 6}, 3, {4, 6, 7}},        {3, {1, 5, 6}, 3, {4, 6, 7}},     {2, {128, 256}, 2, {256, 64}},
        {4, {2, 3, 4, 5}, 4, {2, 1, 5, 6}},
    };
    for (int ti = 0; ti < 2; ti++)
        for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
            wnn_data_type t = all_types[ti];
            char label[96];
            snprintf(label, sizeof label, "matmul %s shape#%zu", wnn_data_type_name(t), k);
            tcase c = new_case(label, build_matmul, NULL);
            add_input(&c, desc_of(t, shapes[k].ra, shapes[k].a), -1, 1);
            add_input(&c, desc_of(t, shapes[k].rb, shapes[k].b), -1, 1);
            c.rtol = t == WNN_DATA_TYPE_FLOAT16 ? 1e-2 : 1e-4;
            c.atol = t == WNN_DATA_TYPE_FLOAT16 ? 1e-2 : 1e-4;
            check_case(&c);
        }
    for (int ti = 0; ti < 2; ti++)
        for (int v = 0; v < 6; v++) {
            wnn_data_type t = all_types[ti];
            bool ta = v & 1, tb = (v >> 1) & 1;
            char label[96];
            snprintf(label, sizeof label, "gemm %s variant#%d", wnn_data_type_name(t), v);
            tcase c = new_case(label, build_gemm, NULL);
            uint32_t m = 23, n = 31, k = 45;
            add_input(&c, ta ? DESC(t, 2, k, m) : DESC(t, 2, m, k), -1, 1);
            add_input(&c, tb ? DESC(t, 2, n, k) : DESC(t, 2, k, n), -1, 1);
            if (v == 1 || v == 2)
                add_input(&c, DESC(t, 1, n), -1, 1);
            else if (v >= 3)
                add_input(&c, v == 5 ? DESC(t, 0, 0) : DESC(t, 2, m, n), -1, 1);
            c.iarg[0] = ta;
            c.iarg[1] = tb;
            c.darg[0] = v == 4 ? 0.5 : 1.0;
            c.darg[1] = v == 4 ? -2.0 : 1.0;
            c.rtol = t == WNN_DATA_TYPE_FLOAT16 ? 1e-2 : 1e-4;
            c.atol = t == WNN_DATA_TYPE_FLOAT16 ? 1e-2 : 1e-4;
            check_case(&c);
        }
}

/* ---- spatial and normalization ---------------------------------------------------------- */

/* A constant of desc d with values in [lo, hi] from its own generator
** (seeded by seed), so that the cpu's and cuda's builds get the same. */
static wnn_operand *seeded_constant(wnn_graph_builder *b, wnn_operand_desc d, uint32_t seed, double lo, double hi)
{
    size_t n = desc_count(&d);
    void *p = malloc(desc_bytes(&d));
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        store_value(d.data_type, p, i, lo + (hi - lo) * (double)(seed >> 8) * 0x1p-24);
    }
    wnn_operand *c = wnn_graph_builder_constant(b, &d, p, desc_bytes(&d));
    free(p);
    return c;
}

/* conv2d 3x3 with a constant filter (+ constant bias) -> batchNormalization
** of constants (scale and bias when iarg[5]) (-> residual add) (-> relu):
** cuda folds the batchNormalization into the filter and bias. iarg: residual,
** conv bias, relu, layout, filter layout, scale and bias; input x, then the
** residual where used. */
static uint32_t build_conv_bn(wnn_graph_builder *b, wnn_operand **x, wnn_operand **y, const tcase *c)
{
    wnn_data_type t = c->in[0].data_type;
    bool nhwc = c->iarg[3] != 0;
    uint32_t cin = c->in[0].shape[nhwc ? 3 : 1], cout = 16;
    wnn_conv2d_options o = WNN_CONV2D_OPTIONS_INIT;
    o.padding[0] = o.padding[1] = o.padding[2] = o.padding[3] = 1;
    o.input_layout = nhwc ? WNN_INPUT_LAYOUT_NHWC : WNN_INPUT_LAYOUT_NCHW;
    o.filter_layout = (wnn_conv2d_filter_layout)c->iarg[4];
    wnn_operand_desc fd = o.filter_layout == WNN_CONV2D_FILTER_LAYOUT_OIHW   ? DESC(t, 4, cout, cin, 3, 3)
                          : o.filter_layout == WNN_CONV2D_FILTER_LAYOUT_OHWI ? DESC(t, 4, cout, 3, 3, cin)
                                                                             : DESC(t, 4, 3, 3, cin, cout);
    wnn_operand_desc vd = DESC(t, 1, cout);
    o.bias = c->iarg[1] ? seeded_constant(b, vd, 2, -1, 1) : NULL;
    wnn_operand *v = wnn_conv2d(b, x[0], seeded_constant(b, fd, 1, -0.5, 0.5), &o);
    wnn_batch_normalization_options bo = WNN_BATCH_NORMALIZATION_OPTIONS_INIT;
    const uint32_t axis = nhwc ? 3 : 1;
    bo.axis = &axis;
    const double epsilon = 1e-3;
    bo.epsilon = &epsilon;
    if (c->iarg[5]) {
        bo.scale = seeded_constant(b, vd, 5, -1.5, 1.5);
        bo.bias = seeded_constant(b, vd, 6, -1, 1);
    }
    v = wnn_batch_normalization(b, v, seeded_constant(b, vd, 3, -1, 1), seeded_constant(b, vd, 4, 0.5, 2), &bo);
    if (c->iarg[0])
        v = wnn_add(b, v, x[1]);
    y[0] = c->iarg[2] ? wnn_relu(b, v) : v;
    return 1;
}

static uint32_t build_spatial(wnn_graph_builder *b, wnn_operand **x, wnn_operand **y, const tcase *c)
{
    const char *op = (const char *)c->fn;
    if (!strcmp(op, "conv2d")) {
        wnn_conv2d_options o = WNN_CONV2D_OPTIONS_INIT;
        o.padding[0] = 1, o.padding[1] = 2, o.padding[2] = 0, o.padding[3] = 1;
        o.strides[0] = (uint32_t)c->iarg[0], o.strides[1] = 1;
        o.dilations[0] = 1, o.dilations[1] = (uint32_t)c->iarg[1];
        o.groups = (uint32_t)c->iarg[2];
        o.input_layout = (wnn_input_layout)c->iarg[3];
        o.filter_layout = (wnn_conv2d_filter_layout)c->iarg[4];
        o.bias = c->n_in > 2 ? x[2] : NULL;
        y[0] = wnn_conv2d(b, x[0], x[1], &o);
    } else if (!strcmp(op, "conv2d chain")) {
        /* conv2d (+ bias) (+ residual add) -> relu: the chain cuDNN fuses into
        ** one call; inputs x, filter, then the residual and the bias where used */
        wnn_conv2d_options o = WNN_CONV2D_OPTIONS_INIT;
        o.padding[0] = o.padding[1] = o.padding[2] = o.padding[3] = 1;
        o.input_layout = (wnn_input_layout)c->iarg[3];
        o.filter_layout = (wnn_conv2d_filter_layout)c->iarg[4];
        o.bias = c->iarg[1] ? x[2 + (c->iarg[0] != 0)] : NULL;
        wnn_operand *v = wnn_conv2d(b, x[0], x[1], &o);
        if (c->iarg[0])
            v = wnn_add(b, v, x[2]);
        y[0] = wnn_relu(b, v);
    } else if (!strcmp(op, "convTranspose2d")) {
        wnn_conv_transpose2d_options o = WNN_CONV_TRANSPOSE2D_OPTIONS_INIT;
        o.padding[0] = 1, o.padding[1] = 0, o.padding[2] = 0, o.padding[3] = 1;
        o.strides[0] = 2, o.strides[1] = (uint32_t)c->iarg[0];
        o.dilations[0] = 1, o.dilations[1] = (uint32_t)c->iarg[1]; /* {0,0} alone means {1,1} */
        o.output_padding[0] = 1;
        o.groups = (uint32_t)c->iarg[2];
        o.input_layout = (wnn_input_layout)c->iarg[3];
        o.filter_layout = (wnn_conv_transpose2d_filter_layout)c->iarg[4];
        o.bias = c->n_in > 2 ? x[2] : NULL;
        y[0] = wnn_conv_transpose2d(b, x[0], x[1], &o);
    } else if (!strcmp(op, "pool")) {
        wnn_pool2d_options o = WNN_POOL2D_OPTIONS_INIT;
        o.window_dimensions[0] = 3, o.window_dimensions[1] = 2;
        o.padding[0] = 1, o.padding[1] = 1, o.padding[2] = 0, o.padding[3] = 1;
        o.strides[0] = 2, o.strides[1] = 1;
        o.dilations[0] = 1, o.dilations[1] = 2; /* {0,0} alone means {1,1} */
        o.layout = (wnn_input_layout)c->iarg[1];
        o.rounding_type = WNN_ROUNDING_TYPE_CEIL;
        wnn_operand *(*fn)(wnn_graph_builder *, wnn_operand *, const wnn_pool2d_options *) =
            c->iarg[0] == 0 ? wnn_average_pool2d : c->iarg[0] == 1 ? wnn_l2_pool2d : wnn_max_pool2d;
        y[0] = fn(b, x[0], &o);
    } else if (!strcmp(op, "resample2d")) {
        wnn_resample2d_options o = WNN_RESAMPLE2D_OPTIONS_INIT;
        o.mode = (wnn_interpolation_mode)c->iarg[0];
        o.scales[0] = 1.7f, o.scales[1] = 0.6f;
        o.axes[0] = (uint32_t)c->iarg[1], o.axes[1] = (uint32_t)c->iarg[2];
        y[0] = wnn_resample2d(b, x[0], &o);
    } else if (!strcmp(op, "batchNormalization")) {
        wnn_batch_normalization_options o = WNN_BATCH_NORMALIZATION_OPTIONS_INIT;
        const uint32_t axis = (uint32_t)c->iarg[0];
        o.axis = &axis;
        o.scale = c->n_in > 3 ? x[3] : NULL;
        y[0] = wnn_batch_normalization(b, x[0], x[1], x[2], &o);
    } else if (!strcmp(op, "instanceNormalization")) {
        wnn_instance_normalization_options o = WNN_INSTANCE_NORMALIZATION_OPTIONS_INIT;
        o.layout = (wnn_input_layout)c->iarg[0];
        o.scale = x[1];
        o.bias = x[2];
        y[0] = wnn_instance_normalization(b, x[0], &o);
    } else {
        wnn_layer_normalization_options o = WNN_LAYER_NORMALIZATION_OPTIONS_INIT;
        const uint32_t axes[2] = {(uint32_t)c->iarg[1], (uint32_t)c->iarg[2]};
        o.axes = c->iarg[0] > 0 ? axes : NULL;
        o.axes_count = (uint32_t)c->iarg[0];
        o.scale = c->n_in > 1 ? x[1] : NULL;
        o.bias = c->n_in > 2 ? x[2] : NULL;
        y[0] = wnn_layer_normalization(b, x[0], &o);
    }
    return 1;
}

static void spatial_cases(void)
{
    for (int ti = 0; ti < 2; ti++) {
        wnn_data_type t = all_types[ti];
        const char *tn = wnn_data_type_name(t);
        double rtol = t == WNN_DATA_TYPE_FLOAT16 ? 1e-2 : 1e-4, atol = t == WNN_DATA_TYPE_FLOAT16 ? 1e-2 : 1e-4;
        char label[96];
        /* conv2d: (stride_h, dilation_w, groups, layout, filter layout) */
        static const int conv_variants[4][5] = {{1, 1, 1, 0, WNN_CONV2D_FILTER_LAYOUT_OIHW},
                                                {2, 2, 2, 1, WNN_CONV2D_FILTER_LAYOUT_OHWI},
                                                {1, 1, 4, 0, WNN_CONV2D_FILTER_LAYOUT_HWIO},
                                                {2, 1, 1, 1, WNN_CONV2D_FILTER_LAYOUT_IHWO}};
        for (int v = 0; v < 4; v++) {
            const int *cv = conv_variants[v];
            snprintf(label, sizeof label, "conv2d %s variant#%d", tn, v);
            tcase c = new_case(label, build_spatial, "conv2d");
            uint32_t cin = 4, cout = 8, g = (uint32_t)cv[2], kh = 3, kw = 2;
            add_input(&c, cv[3] ? DESC(t, 4, 2, 9, 10, cin) : DESC(t, 4, 2, cin, 9, 10), -1, 1);
            uint32_t ig = cin / g;
            switch (cv[4]) {
            case WNN_CONV2D_FILTER_LAYOUT_OIHW: add_input(&c, DESC(t, 4, cout, ig, kh, kw), -1, 1); break;
            case WNN_CONV2D_FILTER_LAYOUT_HWIO: add_input(&c, DESC(t, 4, kh, kw, ig, cout), -1, 1); break;
            case WNN_CONV2D_FILTER_LAYOUT_OHWI: add_input(&c, DESC(t, 4, cout, kh, kw, ig), -1, 1); break;
            default: add_input(&c, DESC(t, 4, ig, kh, kw, cout), -1, 1); break;
            }
            if (v != 2)
                add_input(&c, DESC(t, 1, cout), -1, 1);
            memcpy(c.iarg, cv, sizeof(int) * 5);
            c.rtol = rtol, c.atol = atol;
            check_case(&c);
        }
        /* conv -> (bias) -> (residual add) -> relu, in the layouts cuDNN fuses
        ** natively and one it does not (the fallback) */
        static const int chain_variants[5][5] = {{1, 1, 0, 0, WNN_CONV2D_FILTER_LAYOUT_OIHW},
                                                 {1, 0, 0, 0, WNN_CONV2D_FILTER_LAYOUT_OIHW},
                                                 {0, 1, 0, 0, WNN_CONV2D_FILTER_LAYOUT_OIHW},
                                                 {1, 1, 0, 1, WNN_CONV2D_FILTER_LAYOUT_OHWI},
                                                 {1, 1, 0, 1, WNN_CONV2D_FILTER_LAYOUT_HWIO}};
        for (int v = 0; v < 5; v++) {
            const int *cv = chain_variants[v];
            snprintf(label, sizeof label, "conv2d chain %s variant#%d", tn, v);
            tcase c = new_case(label, build_spatial, "conv2d chain");
            uint32_t cin = 8, cout = 16, hw = 12;
            add_input(&c, cv[3] ? DESC(t, 4, 2, hw, hw, cin) : DESC(t, 4, 2, cin, hw, hw), -1, 1);
            add_input(&c, cv[4] == WNN_CONV2D_FILTER_LAYOUT_OIHW   ? DESC(t, 4, cout, cin, 3, 3)
                          : cv[4] == WNN_CONV2D_FILTER_LAYOUT_OHWI ? DESC(t, 4, cout, 3, 3, cin)
                                                                   : DESC(t, 4, 3, 3, cin, cout),
                      -1, 1);
            if (cv[0])
                add_input(&c, cv[3] ? DESC(t, 4, 2, hw, hw, cout) : DESC(t, 4, 2, cout, hw, hw), -1, 1);
            if (cv[1])
                add_input(&c, DESC(t, 1, cout), -1, 1);
            memcpy(c.iarg, cv, sizeof(int) * 5);
            c.rtol = rtol, c.atol = atol;
            check_case(&c);
        }
        /* conv -> batchNormalization of constants (-> residual add) (-> relu):
        ** (residual, conv bias, relu, layout, filter layout, bn scale and bias) */
        static const int bn_variants[5][6] = {{0, 1, 1, 0, WNN_CONV2D_FILTER_LAYOUT_OIHW, 1},
                                              {0, 0, 0, 0, WNN_CONV2D_FILTER_LAYOUT_OIHW, 1},
                                              {1, 0, 1, 0, WNN_CONV2D_FILTER_LAYOUT_OIHW, 0},
                                              {1, 1, 1, 1, WNN_CONV2D_FILTER_LAYOUT_OHWI, 1},
                                              {0, 1, 1, 1, WNN_CONV2D_FILTER_LAYOUT_HWIO, 1}};
        for (int v = 0; v < 5; v++) {
            const int *cv = bn_variants[v];
            snprintf(label, sizeof label, "conv2d batchNormalization %s variant#%d", tn, v);
            tcase c = new_case(label, build_conv_bn, NULL);
            uint32_t cin = 8, cout = 16, hw = 12;
            add_input(&c, cv[3] ? DESC(t, 4, 2, hw, hw, cin) : DESC(t, 4, 2, cin, hw, hw), -1, 1);
            if (cv[0])
                add_input(&c, cv[3] ? DESC(t, 4, 2, hw, hw, cout) : DESC(t, 4, 2, cout, hw, hw), -1, 1);
            memcpy(c.iarg, cv, sizeof(int) * 6);
            c.rtol = rtol, c.atol = atol;
            check_case(&c);
        }
        /* big enough for the im2col + matrix product path */
        for (int v = 0; v < 4; v++) {
            const int *cv = conv_variants[v];
            if (cv[2] != 1)
                continue;
            snprintf(label, sizeof label, "conv2d %s big variant#%d", tn, v);
            tcase c = new_case(label, build_spatial, "conv2d");
            uint32_t cin = 16, cout = 64, kh = 3, kw = 2;
            add_input(&c, cv[3] ? DESC(t, 4, 3, 20, 21, cin) : DESC(t, 4, 3, cin, 20, 21), -1, 1);
            switch (cv[4]) {
            case WNN_CONV2D_FILTER_LAYOUT_OIHW: add_input(&c, DESC(t, 4, cout, cin, kh, kw), -1, 1); break;
            case WNN_CONV2D_FILTER_LAYOUT_HWIO: add_input(&c, DESC(t, 4, kh, kw, cin, cout), -1, 1); break;
            case WNN_CONV2D_FILTER_LAYOUT_OHWI: add_input(&c, DESC(t, 4, cout, kh, kw, cin), -1, 1); break;
            default: add_input(&c, DESC(t, 4, cin, kh, kw, cout), -1, 1); break;
            }
            if (v != 3)
                add_input(&c, DESC(t, 1, cout), -1, 1);
            memcpy(c.iarg, cv, sizeof(int) * 5);
            c.rtol = rtol * 2, c.atol = atol * 4;
            check_case(&c);
        }
        static const int tconv_variants[3][5] = {{1, 1, 1, 0, WNN_CONV_TRANSPOSE2D_FILTER_LAYOUT_IOHW},
                                                 {2, 2, 2, 1, WNN_CONV_TRANSPOSE2D_FILTER_LAYOUT_OHWI},
                                                 {1, 1, 2, 0, WNN_CONV_TRANSPOSE2D_FILTER_LAYOUT_HWOI}};
        for (int v = 0; v < 3; v++) {
            const int *cv = tconv_variants[v];
            snprintf(label, sizeof label, "convTranspose2d %s variant#%d", tn, v);
            tcase c = new_case(label, build_spatial, "convTranspose2d");
            uint32_t cin = 4, g = (uint32_t)cv[2], og = 3, kh = 3, kw = 2;
            add_input(&c, cv[3] ? DESC(t, 4, 2, 5, 6, cin) : DESC(t, 4, 2, cin, 5, 6), -1, 1);
            switch (cv[4]) {
            case WNN_CONV_TRANSPOSE2D_FILTER_LAYOUT_IOHW: add_input(&c, DESC(t, 4, cin, og, kh, kw), -1, 1); break;
            case WNN_CONV_TRANSPOSE2D_FILTER_LAYOUT_HWOI: add_input(&c, DESC(t, 4, kh, kw, og, cin), -1, 1); break;
            default: add_input(&c, DESC(t, 4, og, kh, kw, cin), -1, 1); break;
            }
            add_input(&c, DESC(t, 1, og * g), -1, 1);
            memcpy(c.iarg, cv, sizeof(int) * 5);
            c.rtol = rtol, c.atol = atol;
            check_case(&c);
        }
        for (int kind = 0; kind < 3; kind++)
            for (int layout = 0; layout < 2; layout++) {
                snprintf(label, sizeof label, "pool#%d %s layout %d", kind, tn, layout);
                tcase c = new_case(label, build_spatial, "pool");
                add_input(&c, layout ? DESC(t, 4, 2, 11, 9, 3) : DESC(t, 4, 2, 3, 11, 9), -5, 5);
                c.iarg[0] = kind;
                c.iarg[1] = layout;
                check_case(&c);
            }
        for (int mode = 0; mode < 2; mode++) {
            snprintf(label, sizeof label, "resample2d %s mode %d", tn, mode);
            tcase c = new_case(label, build_spatial, "resample2d");
            add_input(&c, DESC(t, 4, 2, 3, 7, 10), -5, 5);
            c.iarg[0] = mode, c.iarg[1] = 2, c.iarg[2] = 3;
            check_case(&c);
            snprintf(label, sizeof label, "resample2d %s mode %d axes 3,1", tn, mode);
            c = new_case(label, build_spatial, "resample2d");
            add_input(&c, DESC(t, 4, 2, 5, 3, 7), -5, 5);
            c.iarg[0] = mode, c.iarg[1] = 3, c.iarg[2] = 1;
            check_case(&c);
        }
        snprintf(label, sizeof label, "batchNormalization %s", tn);
        tcase bn = new_case(label, build_spatial, "batchNormalization");
        add_input(&bn, DESC(t, 3, 2, 5, 33), -5, 5);
        add_input(&bn, DESC(t, 1, 5), -1, 1);
        add_input(&bn, DESC(t, 1, 5), 0.5, 2);
        add_input(&bn, DESC(t, 1, 5), -2, 2);
        bn.iarg[0] = 1;
        check_case(&bn);
        for (int layout = 0; layout < 2; layout++) {
            snprintf(label, sizeof label, "instanceNormalization %s layout %d", tn, layout);
            tcase c = new_case(label, build_spatial, "instanceNormalization");
            add_input(&c, layout ? DESC(t, 4, 2, 6, 7, 3) : DESC(t, 4, 2, 3, 6, 7), -5, 5);
            add_input(&c, DESC(t, 1, 3), -2, 2);
            add_input(&c, DESC(t, 1, 3), -2, 2);
            c.iarg[0] = layout;
            check_case(&c);
        }
        snprintf(label, sizeof label, "layerNormalization %s default axes", tn);
        tcase ln = new_case(label, build_spatial, "layerNormalization");
        add_input(&ln, DESC(t, 3, 4, 6, 50), -5, 5);
        add_input(&ln, DESC(t, 2, 6, 50), -2, 2);
        add_input(&ln, DESC(t, 2, 6, 50), -2, 2);
        check_case(&ln);
        snprintf(label, sizeof label, "layerNormalization %s axes 2,0", tn);
        ln = new_case(label, build_spatial, "layerNormalization");
        add_input(&ln, DESC(t, 3, 4, 6, 5), -5, 5);
        add_input(&ln, DESC(t, 2, 5, 4), -2, 2);
        ln.iarg[0] = 2, ln.iarg[1] = 2, ln.iarg[2] = 0;
        check_case(&ln);
        snprintf(label, sizeof label, "layerNormalization %s long rows", tn);
        ln = new_case(label, build_spatial, "layerNormalization");
        add_input(&ln, DESC(t, 2, 3, 8192), -5, 5);
        ln.iarg[0] = 1, ln.iarg[1] = 1;
        check_case(&ln);
    }
    /* resample2d and maxPool2d of integers */
    static const wnn_data_type int_types[2] = {WNN_DATA_TYPE_INT8, WNN_DATA_TYPE_UINT8};
    for (int i = 0; i < 2; i++)
        for (int mode = 0; mode < 2; mode++) {
            char label[96];
            snprintf(label, sizeof label, "resample2d %s mode %d", wnn_data_type_name(int_types[i]), mode);
            tcase c = new_case(label, build_spatial, "resample2d");
            add_input(&c, DESC(int_types[i], 4, 1, 2, 9, 6), 0, 100);
            c.iarg[0] = mode, c.iarg[1] = 2, c.iarg[2] = 3;
            check_case(&c);
        }
    for (int ti = 2; ti < 8; ti++) {
        char label[96];
        snprintf(label, sizeof label, "maxPool2d %s", wnn_data_type_name(all_types[ti]));
        tcase c = new_case(label, build_spatial, "pool");
        add_input(&c, DESC(all_types[ti], 4, 2, 3, 11, 9), 0, 100);
        c.iarg[0] = 2;
        check_case(&c);
    }
}

/* ---- quantization and recurrent networks ------------------------------------------------ */

static uint32_t build_quant(wnn_graph_builder *b, wnn_operand **x, wnn_operand **y, const tcase *c)
{
    y[0] = (c->iarg[0] ? wnn_quantize_linear : wnn_dequantize_linear)(b, x[0], x[1], x[2]);
    return 1;
}

static void quant_cases(void)
{
    static const wnn_data_type ints[4] = {WNN_DATA_TYPE_INT8, WNN_DATA_TYPE_UINT8, WNN_DATA_TYPE_INT32,
                                          WNN_DATA_TYPE_UINT32};
    for (int fi = 0; fi < 2; fi++)
        for (int ii = 0; ii < 4; ii++)
            for (int q = 0; q < 2; q++) {
                wnn_data_type ft = all_types[fi], it = ints[ii];
                bool uns = it == WNN_DATA_TYPE_UINT8 || it == WNN_DATA_TYPE_UINT32;
                char label[96];
                snprintf(label, sizeof label, "%s %s %s", q ? "quantizeLinear" : "dequantizeLinear",
                         wnn_data_type_name(ft), wnn_data_type_name(it));
                tcase c = new_case(label, build_quant, NULL);
                if (q) {
                    add_input(&c, DESC(ft, 3, 2, 6, 8), -300, 300);
                    add_input(&c, DESC(ft, 2, 3, 1), 0.5, 4); /* blocks of 2 rows, all columns */
                    add_input(&c, DESC(it, 2, 3, 1), uns ? 0 : -10, 10);
                } else {
                    add_input(&c, DESC(it, 3, 2, 6, 8), uns ? 0 : -100, 100);
                    add_input(&c, DESC(ft, 1, 4), 0.5, 4); /* blocks of 2 columns */
                    add_input(&c, DESC(it, 1, 4), uns ? 0 : -10, 10);
                }
                c.iarg[0] = q;
                check_case(&c);
            }
}

static uint32_t build_rnn(wnn_graph_builder *b, wnn_operand **x, wnn_operand **y, const tcase *c)
{
    const char *op = (const char *)c->fn;
    uint32_t hidden = (uint32_t)c->iarg[0], steps = (uint32_t)c->iarg[1];
    wnn_recurrent_activation act1 = c->iarg[4] ? WNN_RECURRENT_ACTIVATION_RELU : WNN_RECURRENT_ACTIVATION_TANH;
    if (!strcmp(op, "gru")) {
        wnn_gru_options o = WNN_GRU_OPTIONS_INIT;
        o.bias = x[3];
        o.recurrent_bias = x[4];
        o.initial_hidden_state = c->n_in > 5 ? x[5] : NULL;
        o.reset_before = !c->iarg[2];
        o.return_sequence = true;
        o.direction = (wnn_recurrent_direction)c->iarg[3];
        o.layout = (wnn_gru_weight_layout)c->iarg[5];
        const wnn_recurrent_activation acts[2] = {WNN_RECURRENT_ACTIVATION_SIGMOID, act1};
        o.activations = acts;
        o.activations_count = 2;
        return (uint32_t)wnn_gru(b, x[0], x[1], x[2], steps, hidden, &o, y);
    }
    if (!strcmp(op, "lstm")) {
        wnn_lstm_options o = WNN_LSTM_OPTIONS_INIT;
        o.bias = x[3];
        o.recurrent_bias = x[4];
        o.peephole_weight = x[5];
        o.initial_hidden_state = c->n_in > 6 ? x[6] : NULL;
        o.initial_cell_state = c->n_in > 7 ? x[7] : NULL;
        o.return_sequence = true;
        o.direction = (wnn_recurrent_direction)c->iarg[3];
        o.layout = (wnn_lstm_weight_layout)c->iarg[5];
        return (uint32_t)wnn_lstm(b, x[0], x[1], x[2], steps, hidden, &o, y);
    }
    if (!strcmp(op, "gruCell")) {
        wnn_gru_cell_options o = WNN_GRU_CELL_OPTIONS_INIT;
        o.bias = c->n_in > 4 ? x[4] : NULL;
        o.reset_before = !c->iarg[2];
        o.layout = (wnn_gru_weight_layout)c->iarg[5];
        y[0] = wnn_gru_cell(b, x[0], x[1], x[2], x[3], hidden, &o);
        return 1;
    }
    wnn_lstm_cell_options o = WNN_LSTM_CELL_OPTIONS_INIT;
    o.bias = c->n_in > 5 ? x[5] : NULL;
    o.layout = (wnn_lstm_weight_layout)c->iarg[5];
    return (uint32_t)wnn_lstm_cell(b, x[0], x[1], x[2], x[3], x[4], hidden, &o, y);
}

static void rnn_cases(void)
{
    const uint32_t B = 3, I = 5, H = 4, T = 6;
    for (int ti = 0; ti < 2; ti++) {
        wnn_data_type t = all_types[ti];
        double tol = t == WNN_DATA_TYPE_FLOAT16 ? 1e-2 : 1e-4;
        for (int v = 0; v < 4; v++) {
            char label[96];
            uint32_t nd = v == 2 ? 2 : 1;
            snprintf(label, sizeof label, "gru %s variant#%d", wnn_data_type_name(t), v);
            tcase c = new_case(label, build_rnn, "gru");
            add_input(&c, DESC(t, 3, T, B, I), -1, 1);
            add_input(&c, DESC(t, 3, nd, 3 * H, I), -0.5, 0.5);
            add_input(&c, DESC(t, 3, nd, 3 * H, H), -0.5, 0.5);
            add_input(&c, DESC(t, 2, nd, 3 * H), -0.5, 0.5);
            add_input(&c, DESC(t, 2, nd, 3 * H), -0.5, 0.5);
            if (v != 1)
                add_input(&c, DESC(t, 3, nd, B, H), -1, 1);
            c.iarg[0] = (int)H, c.iarg[1] = (int)T;
            c.iarg[2] = v != 1;                                          /* reset_after */
            c.iarg[3] = v == 2 ? WNN_RECURRENT_DIRECTION_BOTH : v == 3 ? WNN_RECURRENT_DIRECTION_BACKWARD : 0;
            c.iarg[4] = v == 3;                                          /* relu for the new gate */
            c.iarg[5] = v & 1;                                           /* layout */
            c.rtol = c.atol = tol;
            check_case(&c);

            snprintf(label, sizeof label, "lstm %s variant#%d", wnn_data_type_name(t), v);
            tcase l = new_case(label, build_rnn, "lstm");
            add_input(&l, DESC(t, 3, T, B, I), -1, 1);
            add_input(&l, DESC(t, 3, nd, 4 * H, I), -0.5, 0.5);
            add_input(&l, DESC(t, 3, nd, 4 * H, H), -0.5, 0.5);
            add_input(&l, DESC(t, 2, nd, 4 * H), -0.5, 0.5);
            add_input(&l, DESC(t, 2, nd, 4 * H), -0.5, 0.5);
            add_input(&l, DESC(t, 2, nd, 3 * H), -0.5, 0.5);
            if (v != 1) {
                add_input(&l, DESC(t, 3, nd, B, H), -1, 1);
                add_input(&l, DESC(t, 3, nd, B, H), -1, 1);
            }
            memcpy(l.iarg, c.iarg, sizeof l.iarg);
            l.rtol = l.atol = tol;
            check_case(&l);
        }
        for (int v = 0; v < 2; v++) {
            char label[96];
            snprintf(label, sizeof label, "gruCell %s variant#%d", wnn_data_type_name(t), v);
            tcase c = new_case(label, build_rnn, "gruCell");
            add_input(&c, DESC(t, 2, B, I), -1, 1);
            add_input(&c, DESC(t, 2, 3 * H, I), -0.5, 0.5);
            add_input(&c, DESC(t, 2, 3 * H, H), -0.5, 0.5);
            add_input(&c, DESC(t, 2, B, H), -1, 1);
            if (v)
                add_input(&c, DESC(t, 1, 3 * H), -0.5, 0.5);
            c.iarg[0] = (int)H, c.iarg[2] = v, c.iarg[5] = v;
            c.rtol = c.atol = tol;
            check_case(&c);
            snprintf(label, sizeof label, "lstmCell %s variant#%d", wnn_data_type_name(t), v);
            tcase l = new_case(label, build_rnn, "lstmCell");
            add_input(&l, DESC(t, 2, B, I), -1, 1);
            add_input(&l, DESC(t, 2, 4 * H, I), -0.5, 0.5);
            add_input(&l, DESC(t, 2, 4 * H, H), -0.5, 0.5);
            add_input(&l, DESC(t, 2, B, H), -1, 1);
            add_input(&l, DESC(t, 2, B, H), -1, 1);
            if (v)
                add_input(&l, DESC(t, 1, 4 * H), -0.5, 0.5);
            l.iarg[0] = (int)H, l.iarg[5] = v;
            l.rtol = l.atol = tol;
            check_case(&l);
        }
    }
}

/* ---- device-level tests ---------------------------------------------------------------- */

static void test_info(void)
{
    wnn_device_info info;
    CHECK_OK(wnn_context_get_device_info(cuda_ctx, &info));
    CHECK(strcmp(info.name, "cuda") == 0);
    CHECK_EQ_INT(info.kind, WNN_DEVICE_KIND_DISCRETE);
    CHECK(info.accelerated);
    CHECK_EQ_INT(info.dlpack_device_type, 2);
    CHECK(info.memory_bytes > 0);
    printf("cuda device: %s, %.1f GiB\n", info.description, (double)info.memory_bytes / (1 << 30));
    /* high performance picks it */
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.power_preference = WNN_POWER_PREFERENCE_HIGH_PERFORMANCE;
    wnn_context *ctx = NULL;
    CHECK_OK(wnn_context_create(&o, &ctx));
    CHECK_OK(wnn_context_get_device_info(ctx, &info));
    CHECK(strncmp(info.name, "cuda", 4) == 0);
    wnn_context_release(ctx);
}

/* Write then read every data type, in sizes from one element to more than
** the whole staging ring; a fresh tensor reads zeros, and a write has taken
** its bytes when it returns. */
static void test_round_trips(void)
{
    static const size_t sizes[] = {1, 3, 1000, (9u << 20) + 13, (21u << 20) + 7}; /* in elements or bytes */
    for (int ti = 0; ti < 8; ti++)
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            wnn_data_type t = all_types[ti];
            size_t es = wnn_data_type_size(t), count = k < 3 ? sizes[k] : sizes[k] / es;
            wnn_tensor_desc d = {t, 1, {(uint32_t)count}, true, true, false};
            size_t bytes = count * es;
            unsigned char *src = malloc(bytes), *orig = malloc(bytes), *dst = malloc(bytes);
            for (size_t i = 0; i < bytes; i++)
                orig[i] = src[i] = (unsigned char)next_random();
            wnn_tensor *tensor = NULL;
            CHECK_OK(wnn_context_create_tensor(cuda_ctx, &d, &tensor));
            memset(dst, 0xAB, bytes);
            CHECK_OK(wnn_context_read_tensor_sync(cuda_ctx, tensor, dst, bytes));
            bool zero = true;
            for (size_t i = 0; i < bytes; i++)
                zero = zero && dst[i] == 0;
            CHECK(zero);
            CHECK_OK(wnn_context_write_tensor(cuda_ctx, tensor, src, bytes));
            memset(src, 0x5A, bytes); /* the caller may reuse its buffer at once */
            memset(dst, 0, bytes);
            CHECK_OK(wnn_context_read_tensor_sync(cuda_ctx, tensor, dst, bytes));
            if (memcmp(orig, dst, bytes) != 0)
                fprintf(stderr, "round trip of %zu %s elements differs\n", count, wnn_data_type_name(t));
            CHECK(memcmp(orig, dst, bytes) == 0);
            wnn_tensor_release(tensor);
            free(src);
            free(orig);
            free(dst);
        }
    CHECK_OK(wnn_context_finish(cuda_ctx));
}

/* y = x * 2 + 0 with an intermediate, as test-memory's doubler */
static wnn_graph *doubler(wnn_context *ctx, uint32_t n)
{
    wnn_graph_builder *b;
    CHECK_OK(wnn_graph_builder_create(ctx, &b));
    wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, 1, {n}};
    wnn_operand *x = wnn_graph_builder_input(b, "x", &d);
    wnn_operand *two = wnn_graph_builder_constant_scalar(b, WNN_DATA_TYPE_FLOAT32, 2.0);
    wnn_operand *zero = wnn_graph_builder_constant_scalar(b, WNN_DATA_TYPE_FLOAT32, 0.0);
    wnn_named_operand out = {"y", wnn_add(b, wnn_mul(b, x, two), zero)};
    wnn_graph *g = NULL;
    CHECK_OK(wnn_graph_builder_build(b, &out, 1, &g));
    wnn_graph_builder_release(b);
    return g;
}

static wnn_tensor *f32_tensor(wnn_context *ctx, uint32_t n)
{
    wnn_tensor_desc d = {WNN_DATA_TYPE_FLOAT32, 1, {n}, true, true, false};
    wnn_tensor *t = NULL;
    CHECK_OK(wnn_context_create_tensor(ctx, &d, &t));
    return t;
}

static void dispatch1(wnn_context *ctx, wnn_graph *g, wnn_tensor *in, wnn_tensor *out)
{
    wnn_named_tensor bi = {"x", in}, bo = {"y", out};
    CHECK_OK(wnn_context_dispatch(ctx, g, &bi, 1, &bo, 1));
}

static wnn_memory_stats stats(wnn_context *ctx)
{
    wnn_memory_stats s;
    CHECK_OK(wnn_context_get_memory_stats(ctx, &s));
    return s;
}

/* write -> dispatch -> dispatch -> read: one copy each way. */
static void test_copy_counts(void)
{
    enum { N = 1000 };
    wnn_context *ctx = open_ctx("cuda", 0);
    wnn_graph *g = doubler(ctx, N);
    wnn_tensor *a = f32_tensor(ctx, N), *b = f32_tensor(ctx, N), *c = f32_tensor(ctx, N);
    CHECK_OK(wnn_context_finish(ctx));
    wnn_memory_stats before = stats(ctx);
    float in[N], out[N];
    for (int i = 0; i < N; i++)
        in[i] = (float)i;
    CHECK_OK(wnn_context_write_tensor(ctx, a, in, sizeof in));
    dispatch1(ctx, g, a, b);
    dispatch1(ctx, g, b, c);
    CHECK_OK(wnn_context_read_tensor_sync(ctx, c, out, sizeof out));
    CHECK(out[0] == 0.0f && out[1] == 4.0f && out[N - 1] == 4.0f * (N - 1));
    wnn_memory_stats after = stats(ctx);
    CHECK_EQ_INT(after.copies_to_device - before.copies_to_device, 1);
    CHECK_EQ_INT(after.bytes_to_device - before.bytes_to_device, sizeof in);
    CHECK_EQ_INT(after.copies_to_host - before.copies_to_host, 1);
    CHECK_EQ_INT(after.bytes_to_host - before.bytes_to_host, sizeof out);
    CHECK_OK(wnn_context_read_tensor_sync(ctx, c, out, sizeof out));
    CHECK_EQ_INT(stats(ctx).copies_to_host - after.copies_to_host, 0);
    dispatch1(ctx, g, c, b);
    CHECK_OK(wnn_context_read_tensor_sync(ctx, b, out, sizeof out));
    CHECK(out[1] == 8.0f);
    CHECK_EQ_INT(stats(ctx).copies_to_host - after.copies_to_host, 1);
    /* the cache: no device allocation after warm-up */
    for (int i = 0; i < 3; i++)
        wnn_tensor_release(f32_tensor(ctx, 1000 + i));
    CHECK_OK(wnn_context_finish(ctx));
    wnn_memory_stats warm = stats(ctx);
    for (int i = 0; i < 500; i++)
        wnn_tensor_release(f32_tensor(ctx, 900 + i % 100));
    CHECK_OK(wnn_context_finish(ctx));
    CHECK_EQ_INT(stats(ctx).device_allocations - warm.device_allocations, 0);
    wnn_tensor_release(a);
    wnn_tensor_release(b);
    wnn_tensor_release(c);
    wnn_graph_release(g);
    wnn_context_trim_memory(ctx);
    wnn_memory_stats s = stats(ctx);
    CHECK_EQ_INT(s.cached_bytes, 0);
    wnn_context_release(ctx);
}

/* A longer graph for chains and replay: y = tanh(x * w + b) - x / 4, with
** constants, several intermediates and a reshape. */
static wnn_graph *chain_graph(wnn_context *ctx, uint32_t n)
{
    wnn_graph_builder *b;
    CHECK_OK(wnn_graph_builder_create(ctx, &b));
    wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, 2, {n / 16, 16}};
    wnn_operand_desc wd = {WNN_DATA_TYPE_FLOAT32, 1, {16}};
    float w[16], bias[16];
    for (int i = 0; i < 16; i++) {
        w[i] = 0.5f + 0.05f * (float)i;
        bias[i] = -0.3f + 0.02f * (float)i;
    }
    wnn_operand *x = wnn_graph_builder_input(b, "x", &d);
    wnn_operand *wo = wnn_graph_builder_constant(b, &wd, w, sizeof w);
    wnn_operand *bo = wnn_graph_builder_constant(b, &wd, bias, sizeof bias);
    wnn_operand *four = wnn_graph_builder_constant_scalar(b, WNN_DATA_TYPE_FLOAT32, 4.0);
    wnn_operand *t = wnn_tanh(b, wnn_add(b, wnn_mul(b, x, wo), bo));
    wnn_operand *r = wnn_reshape(b, wnn_sub(b, t, wnn_div(b, x, four)), 2, (const uint32_t[]){n / 16, 16});
    wnn_named_operand out = {"y", r};
    wnn_graph *g = NULL;
    CHECK_OK(wnn_graph_builder_build(b, &out, 1, &g));
    wnn_graph_builder_release(b);
    return g;
}

static void run_chain(wnn_context *ctx, wnn_graph *g, uint32_t n, int steps, const float *init, float *out)
{
    wnn_tensor_desc d = {WNN_DATA_TYPE_FLOAT32, 2, {n / 16, 16}, true, true, false};
    wnn_tensor *a = NULL, *b = NULL;
    CHECK_OK(wnn_context_create_tensor(ctx, &d, &a));
    CHECK_OK(wnn_context_create_tensor(ctx, &d, &b));
    CHECK_OK(wnn_context_write_tensor(ctx, a, init, n * sizeof(float)));
    for (int i = 0; i < steps; i++)
        dispatch1(ctx, g, i % 2 ? b : a, i % 2 ? a : b);
    CHECK_OK(wnn_context_read_tensor_sync(ctx, steps % 2 ? b : a, out, n * sizeof(float)));
    wnn_tensor_release(a);
    wnn_tensor_release(b);
}

static int compare_floats(const float *got, const float *want, size_t n, double rtol, double atol)
{
    int bad = 0;
    for (size_t i = 0; i < n; i++)
        if (!close_enough(got[i], want[i], rtol, atol))
            bad++;
    return bad;
}

/* Chained dispatches (outputs feed the next dispatch with no wait), and the
** CUDA-graph replay they trigger, against the cpu. */
static void test_chains_and_replay(void)
{
    enum { N = 4096, STEPS = 25 };
    float *init = malloc(N * sizeof(float)), *want = malloc(N * sizeof(float)), *got = malloc(N * sizeof(float));
    for (int i = 0; i < N; i++)
        init[i] = (float)uniform(-2, 2);
    wnn_graph *gc = chain_graph(cpu_ctx, N), *gg = chain_graph(cuda_ctx, N);
    run_chain(cpu_ctx, gc, N, STEPS, init, want);
    run_chain(cuda_ctx, gg, N, STEPS, init, got);
    CHECK_EQ_INT(compare_floats(got, want, N, 1e-4, 1e-5), 0);

    /* the same binding many times, new data each time: launches, then the
    ** capture, then replays, all against the cpu */
    wnn_tensor_desc d = {WNN_DATA_TYPE_FLOAT32, 2, {N / 16, 16}, true, true, false};
    wnn_tensor *in = NULL, *out = NULL, *in_c = NULL, *out_c = NULL;
    CHECK_OK(wnn_context_create_tensor(cuda_ctx, &d, &in));
    CHECK_OK(wnn_context_create_tensor(cuda_ctx, &d, &out));
    CHECK_OK(wnn_context_create_tensor(cpu_ctx, &d, &in_c));
    CHECK_OK(wnn_context_create_tensor(cpu_ctx, &d, &out_c));
    for (int rep = 0; rep < 8; rep++) {
        for (int i = 0; i < N; i++)
            init[i] = (float)uniform(-3, 3);
        CHECK_OK(wnn_context_write_tensor(cuda_ctx, in, init, N * sizeof(float)));
        CHECK_OK(wnn_context_write_tensor(cpu_ctx, in_c, init, N * sizeof(float)));
        dispatch1(cuda_ctx, gg, in, out);
        dispatch1(cpu_ctx, gc, in_c, out_c);
        CHECK_OK(wnn_context_read_tensor_sync(cuda_ctx, out, got, N * sizeof(float)));
        CHECK_OK(wnn_context_read_tensor_sync(cpu_ctx, out_c, want, N * sizeof(float)));
        int bad = compare_floats(got, want, N, 1e-5, 1e-6);
        if (bad)
            fprintf(stderr, "replay %d: %d elements differ\n", rep, bad);
        CHECK_EQ_INT(bad, 0);
    }
    /* more bindings than the cache holds, round robin */
    enum { BINDINGS = 6 };
    wnn_tensor *ins[BINDINGS], *outs[BINDINGS];
    for (int k = 0; k < BINDINGS; k++) {
        CHECK_OK(wnn_context_create_tensor(cuda_ctx, &d, &ins[k]));
        CHECK_OK(wnn_context_create_tensor(cuda_ctx, &d, &outs[k]));
        for (int i = 0; i < N; i++)
            init[i] = (float)k + 0.001f * (float)i;
        CHECK_OK(wnn_context_write_tensor(cuda_ctx, ins[k], init, N * sizeof(float)));
    }
    for (int round = 0; round < 5; round++)
        for (int k = 0; k < BINDINGS; k++)
            dispatch1(cuda_ctx, gg, ins[k], outs[k]);
    for (int k = 0; k < BINDINGS; k++) {
        for (int i = 0; i < N; i++)
            init[i] = (float)k + 0.001f * (float)i;
        CHECK_OK(wnn_context_write_tensor(cpu_ctx, in_c, init, N * sizeof(float)));
        dispatch1(cpu_ctx, gc, in_c, out_c);
        CHECK_OK(wnn_context_read_tensor_sync(cpu_ctx, out_c, want, N * sizeof(float)));
        CHECK_OK(wnn_context_read_tensor_sync(cuda_ctx, outs[k], got, N * sizeof(float)));
        CHECK_EQ_INT(compare_floats(got, want, N, 1e-5, 1e-6), 0);
        wnn_tensor_release(ins[k]);
        wnn_tensor_release(outs[k]);
    }
    /* capture and fusion off: bit-identical to the fused, replayed results */
    setenv("WNN_CUDA_GRAPHS", "0", 1);
    setenv("WNN_CUDA_FUSION", "0", 1);
    wnn__config_reload(); /* switches are read once */
    wnn_context *plain = open_ctx("cuda", 0);
    unsetenv("WNN_CUDA_GRAPHS");
    unsetenv("WNN_CUDA_FUSION");
    wnn__config_reload(); /* switches are read once */
    wnn_graph *gp = chain_graph(plain, N);
    float *plain_out = malloc(N * sizeof(float));
    for (int i = 0; i < N; i++)
        init[i] = (float)uniform(-2, 2);
    run_chain(plain, gp, N, STEPS, init, plain_out);
    run_chain(cuda_ctx, gg, N, STEPS, init, got);
    CHECK(memcmp(plain_out, got, N * sizeof(float)) == 0);
    wnn_graph_release(gp);
    wnn_context_release(plain);
    free(plain_out);

    wnn_tensor_release(in);
    wnn_tensor_release(out);
    wnn_tensor_release(in_c);
    wnn_tensor_release(out_c);
    wnn_graph_release(gc);
    wnn_graph_release(gg);
    free(init);
    free(want);
    free(got);
}

/* A graph the cuda kernels cannot run fails its build cleanly:
** NOT_SUPPORTED from the backend, OPERATION_ERROR from build. int4 reaches
** only the quantization operators, so an int4 constant fed to add cannot
** even be built; the nearest reachable case is a packed value through
** quantize, reshape and dequantize, which must work. */
static void test_packed(void)
{
    wnn_graph_builder *b;
    CHECK_OK(wnn_graph_builder_create(cuda_ctx, &b));
    wnn_operand_desc xd = {WNN_DATA_TYPE_FLOAT32, 1, {6}};
    wnn_operand_desc zd = {WNN_DATA_TYPE_INT4, 1, {6}};
    wnn_operand_desc sd = {WNN_DATA_TYPE_FLOAT32, 1, {6}};
    uint8_t zero_points[3] = {0x21, 0x0f, 0x87}; /* 1, 2, -1, 0, 7, -8 */
    float scales[6] = {0.5f, 1.0f, 2.0f, 0.25f, 1.0f, 4.0f};
    wnn_operand *x = wnn_graph_builder_input(b, "x", &xd);
    wnn_operand *scale = wnn_graph_builder_constant(b, &sd, scales, sizeof scales);
    wnn_operand *zp = wnn_graph_builder_constant(b, &zd, zero_points, sizeof zero_points);
    wnn_operand *q = wnn_quantize_linear(b, x, scale, zp);
    /* 4-bit operands go only where the limits list them (quantization):
    ** a reshape of them is refused, on cuda as everywhere */
    wnn_graph_builder *b2;
    CHECK_OK(wnn_graph_builder_create(cuda_ctx, &b2));
    wnn_operand *q2 = wnn_graph_builder_input(b2, "q", &zd);
    CHECK(wnn_reshape(b2, q2, 2, (const uint32_t[]){2, 3}) == NULL);
    CHECK_STATUS(wnn_graph_builder_status(b2), WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    wnn_graph_builder_release(b2);
    wnn_named_operand o = {"y", wnn_dequantize_linear(b, q, scale, zp)};
    wnn_graph *g = NULL;
    CHECK_OK(wnn_graph_builder_build(b, &o, 1, &g));
    wnn_graph_builder_release(b);
    if (!g)
        return;
    float in[6] = {1.2f, -3.0f, 5.0f, 100.0f, -100.0f, 9.0f}, out[6];
    wnn_tensor *ti = f32_tensor(cuda_ctx, 6), *to = f32_tensor(cuda_ctx, 6);
    CHECK_OK(wnn_context_write_tensor(cuda_ctx, ti, in, sizeof in));
    dispatch1(cuda_ctx, g, ti, to);
    CHECK_OK(wnn_context_read_tensor_sync(cuda_ctx, to, out, sizeof out));
    /* q = clamp(round(x / s) + z, -8, 7); y = (q - z) * s */
    static const int zs[6] = {1, 2, -1, 0, 7, -8};
    for (int i = 0; i < 6; i++) {
        double qv = nearbyint((double)(in[i] / scales[i])) + zs[i];
        qv = qv < -8 ? -8 : qv > 7 ? 7 : qv;
        CHECK_NEAR(out[i], (qv - zs[i]) * scales[i], 1e-6);
    }
    wnn_tensor_release(ti);
    wnn_tensor_release(to);
    wnn_graph_release(g);
}

/* Out of memory: through the context's limit, and for real. */
static void test_out_of_memory(void)
{
    wnn_context *ctx = open_ctx("cuda", 1 << 20);
    wnn_tensor_desc d = {WNN_DATA_TYPE_FLOAT32, 1, {(3u << 20) / 16}, true, true, false}; /* 768 KiB */
    wnn_tensor *t1 = NULL, *t2 = NULL;
    CHECK_OK(wnn_context_create_tensor(ctx, &d, &t1));
    CHECK_STATUS(wnn_context_create_tensor(ctx, &d, &t2), WNN_STATUS_OUT_OF_MEMORY);
    wnn_tensor_release(t1);
    CHECK_OK(wnn_context_finish(ctx));
    /* a graph whose arena does not fit */
    wnn_graph_builder *b;
    CHECK_OK(wnn_graph_builder_create(ctx, &b));
    wnn_operand_desc xd = {WNN_DATA_TYPE_FLOAT32, 2, {1024, 512}}; /* a 2 MiB intermediate */
    wnn_operand *x = wnn_graph_builder_input(b, "x", &xd);
    wnn_named_operand out = {"y", wnn_softmax(b, wnn_transpose(b, x, NULL), 1)};
    wnn_graph *g = NULL;
    CHECK_STATUS(wnn_graph_builder_build(b, &out, 1, &g), WNN_STATUS_OUT_OF_MEMORY);
    wnn_graph_builder_release(b);
    wnn_context_release(ctx);

    /* the device itself running out: 16 GiB tensors until it refuses */
    ctx = open_ctx("cuda", 0);
    wnn_device_info info;
    CHECK_OK(wnn_context_get_device_info(ctx, &info));
    wnn_tensor_desc big = {WNN_DATA_TYPE_INT64, 2, {1u << 15, (1u << 16) - 1}, true, true, false};
    wnn_tensor *held[64] = {NULL};
    int made = 0;
    wnn_status s = WNN_OK;
    while (made < 64 && (s = wnn_context_create_tensor(ctx, &big, &held[made])) == WNN_OK)
        made++;
    CHECK_EQ_INT(s, WNN_STATUS_OUT_OF_MEMORY);
    CHECK(made >= 1 && (uint64_t)made * (16ull << 30) <= info.memory_bytes + (1ull << 30));
    for (int i = 0; i < made; i++)
        wnn_tensor_release(held[i]);
    CHECK_OK(wnn_context_finish(ctx));
    wnn_context_trim_memory(ctx);
    /* and it works again */
    wnn_tensor *t = f32_tensor(ctx, 1000);
    float v[1000] = {1.0f}, r[1000];
    CHECK_OK(wnn_context_write_tensor(ctx, t, v, sizeof v));
    CHECK_OK(wnn_context_read_tensor_sync(ctx, t, r, sizeof r));
    CHECK(r[0] == 1.0f);
    wnn_tensor_release(t);
    wnn_context_release(ctx);
}

/* Runs one group of tests, saying so first (a crash then names its group). */
#define SECTION(fn)                                                                                   \
    do {                                                                                              \
        printf("== %s\n", #fn);                                                                       \
        fn();                                                                                         \
    } while (0)

static bool have_cuda(void)
{
    uint32_t n = wnn_device_count();
    for (uint32_t i = 0; i < n; i++) {
        wnn_device_info info;
        if (wnn_device_get_info(i, &info) == WNN_OK && strcmp(info.name, "cuda") == 0)
            return true;
    }
    return false;
}

int main(void)
{
    if (!have_cuda()) {
        printf("skipped: no cuda device (no driver, no GPU of compute capability 9.0+, or built without CUDA)\n");
        return 77;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    cpu_ctx = open_ctx("cpu", 0);
    cuda_ctx = open_ctx("cuda", 0);
    SECTION(test_info);
    SECTION(test_round_trips);
    SECTION(test_copy_counts);
    SECTION(test_chains_and_replay);
    SECTION(test_packed);
    SECTION(binary_cases);
    SECTION(where_cases);
    SECTION(unary_cases);
    SECTION(gelu_sweep);
    SECTION(fusion_cases);
    SECTION(clamp_cast_cases);
    SECTION(movement_cases);
    SECTION(gather_cases);
    SECTION(axis_cases);
    SECTION(matmul_cases);
    SECTION(spatial_cases);
    SECTION(quant_cases);
    SECTION(rnn_cases);
    SECTION(test_out_of_memory);
    printf("%d operator cases compared with the cpu, %d skipped (no cpu kernel)\n", cases_run, cases_skipped);
    wnn_context_release(cuda_ctx);
    wnn_context_release(cpu_ctx);
    TEST_DONE();
}
