/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-ops.c -- numeric checks of every operator on the test device (test_device()) through
** the public API (build a graph, write the inputs, dispatch, read the output)
** against hand-computed values: float32, float16 (raw binary16 bits), the
** integer types (wraparound, 64-bit values beyond 2^53), broadcasting, cast
** rounding and saturation, softmax on each axis, matmul and gemm against a
** naive double loop, and a large element-wise add.
*/
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "test.h"
#include "wnn/wnn.h"

#define F32 WNN_DATA_TYPE_FLOAT32
#define F16 WNN_DATA_TYPE_FLOAT16
#define I32 WNN_DATA_TYPE_INT32
#define U32 WNN_DATA_TYPE_UINT32
#define I64 WNN_DATA_TYPE_INT64
#define U64 WNN_DATA_TYPE_UINT64
#define I8 WNN_DATA_TYPE_INT8
#define U8 WNN_DATA_TYPE_UINT8

#define SHAPE_N(...) (uint32_t)(sizeof((uint32_t[]){__VA_ARGS__}) / sizeof(uint32_t))

typedef struct shape {
    uint32_t rank;
    uint32_t d[WNN_MAX_RANK];
} shape;
#define SH(...) ((shape){SHAPE_N(__VA_ARGS__), {__VA_ARGS__}})
#define SH0 ((shape){0, {0}})

/* One graph input: its type, shape and data. */
typedef struct arg {
    wnn_data_type t;
    shape s;
    const void *data;
} arg;
#define IN(t, s, data) ((arg){t, s, (const void *)(data)})

/* Optional option values, for the options' pointer members. */
#define NUM(v) (&(wnn_number){.value = (v)})
#define D(v) (&(double){v})

#define VF32(...) ((const float[]){__VA_ARGS__})
#define VF16(...) ((const uint16_t[]){__VA_ARGS__})
#define VI32(...) ((const int32_t[]){__VA_ARGS__})
#define VU32(...) ((const uint32_t[]){__VA_ARGS__})
#define VI64(...) ((const int64_t[]){__VA_ARGS__})
#define VU64(...) ((const uint64_t[]){__VA_ARGS__})
#define VI8(...) ((const int8_t[]){__VA_ARGS__})
#define VU8(...) ((const uint8_t[]){__VA_ARGS__})

/* The operator under test and its attributes. */
enum kind {
    K_ADD, K_SUB, K_MUL, K_DIV, K_MAX, K_MIN, K_POW,
    K_ABS, K_NEG, K_EXP, K_LOG, K_SQRT, K_RELU, K_SIGMOID, K_TANH,
    K_CLAMP, K_CAST, K_RESHAPE, K_TRANSPOSE, K_CONCAT, K_SLICE, K_SOFTMAX, K_MATMUL, K_GEMM,
};

typedef struct op {
    enum kind kind;
    wnn_data_type cast_to;
    wnn_clamp_options clamp;
    shape new_shape;
    const uint32_t *perm;
    uint32_t axis;
    const uint32_t *starts, *sizes, *strides;
    wnn_gemm_options gemm; /* gemm.c is replaced by the third input when has_c */
    bool has_c;
} op;
#define OP(k, ...) (&(op){.kind = (k), __VA_ARGS__})

static wnn_context *ctx;

static wnn_operand *apply(wnn_graph_builder *b, wnn_operand *const *in, size_t n_in, const op *p)
{
    switch (p->kind) {
    case K_ADD: return wnn_add(b, in[0], in[1]);
    case K_SUB: return wnn_sub(b, in[0], in[1]);
    case K_MUL: return wnn_mul(b, in[0], in[1]);
    case K_DIV: return wnn_div(b, in[0], in[1]);
    case K_MAX: return wnn_max(b, in[0], in[1]);
    case K_MIN: return wnn_min(b, in[0], in[1]);
    case K_POW: return wnn_pow(b, in[0], in[1]);
    case K_ABS: return wnn_abs(b, in[0]);
    case K_NEG: return wnn_neg(b, in[0]);
    case K_EXP: return wnn_exp(b, in[0]);
    case K_LOG: return wnn_log(b, in[0]);
    case K_SQRT: return wnn_sqrt(b, in[0]);
    case K_RELU: return wnn_relu(b, in[0]);
    case K_SIGMOID: return wnn_sigmoid(b, in[0]);
    case K_TANH: return wnn_tanh(b, in[0]);
    case K_CLAMP: return wnn_clamp(b, in[0], &p->clamp);
    case K_CAST: return wnn_cast(b, in[0], p->cast_to);
    case K_RESHAPE: return wnn_reshape(b, in[0], p->new_shape.rank, p->new_shape.d);
    case K_TRANSPOSE: return wnn_transpose(b, in[0], p->perm);
    case K_CONCAT: return wnn_concat(b, in, n_in, p->axis);
    case K_SLICE: return wnn_slice(b, in[0], p->starts, p->sizes, p->strides);
    case K_SOFTMAX: return wnn_softmax(b, in[0], p->axis);
    case K_MATMUL: return wnn_matmul(b, in[0], in[1]);
    case K_GEMM: {
        wnn_gemm_options o = p->gemm;
        o.c = p->has_c ? in[2] : NULL;
        return wnn_gemm(b, in[0], in[1], &o);
    }
    }
    return NULL;
}

static uint64_t elements(const shape *s)
{
    uint64_t n = 1;
    for (uint32_t i = 0; i < s->rank; i++)
        n *= s->d[i];
    return n;
}

static wnn_tensor *new_tensor(wnn_data_type t, const wnn_operand_desc *d, bool readable, bool writable)
{
    wnn_tensor_desc td = WNN_TENSOR_DESC_INIT;
    td.data_type = t;
    td.rank = d->rank;
    memcpy(td.shape, d->shape, sizeof td.shape);
    td.readable = readable;
    td.writable = writable;
    wnn_tensor *x = NULL;
    if (wnn_context_create_tensor(ctx, &td, &x) != WNN_OK)
        return NULL;
    return x;
}

/* Builds y = op(inputs), runs it once and reads y into out (out_bytes must be
** y's byte length). *out_desc gets y's descriptor. Returns the first failure. */
static wnn_status run1(const op *p, const arg *ins, size_t n_in, void *out, size_t out_bytes,
                       wnn_operand_desc *out_desc)
{
    wnn_graph_builder *b = NULL;
    wnn_status s = wnn_graph_builder_create(ctx, &b);
    if (s != WNN_OK)
        return s;
    wnn_operand *in[8];
    for (size_t i = 0; i < n_in; i++) {
        char name[24];
        snprintf(name, sizeof name, "i%zu", i);
        wnn_operand_desc d = {ins[i].t, ins[i].s.rank, {0}};
        memcpy(d.shape, ins[i].s.d, sizeof d.shape);
        in[i] = wnn_graph_builder_input(b, name, &d);
    }
    wnn_operand *y = apply(b, in, n_in, p);
    wnn_graph *g = NULL;
    wnn_named_operand outs[] = {{"y", y}};
    s = wnn_graph_builder_status(b);
    if (s == WNN_OK)
        s = wnn_graph_builder_build(b, outs, 1, &g);
    if (s != WNN_OK) {
        fprintf(stderr, "  build failed: %s\n", wnn_graph_builder_error_message(b)[0]
                                                     ? wnn_graph_builder_error_message(b)
                                                     : wnn_last_error_message());
        wnn_graph_builder_release(b);
        return s;
    }
    wnn_operand_get_desc(y, out_desc);
    wnn_graph_builder_release(b);

    wnn_tensor *tin[8] = {NULL}, *tout = new_tensor(out_desc->data_type, out_desc, true, false);
    wnn_named_tensor bin[8];
    if (!tout || wnn_tensor_byte_length(tout) != out_bytes) {
        fprintf(stderr, "  output is %llu bytes, the test expects %zu\n",
                (unsigned long long)(tout ? wnn_tensor_byte_length(tout) : 0), out_bytes);
        s = WNN_STATUS_BYTE_LENGTH_MISMATCH;
    }
    for (size_t i = 0; i < n_in && s == WNN_OK; i++) {
        wnn_operand_desc d = {ins[i].t, ins[i].s.rank, {0}};
        memcpy(d.shape, ins[i].s.d, sizeof d.shape);
        tin[i] = new_tensor(ins[i].t, &d, false, true);
        if (!tin[i]) {
            s = WNN_STATUS_UNKNOWN;
            break;
        }
        s = wnn_context_write_tensor(ctx, tin[i], ins[i].data, (size_t)wnn_tensor_byte_length(tin[i]));
    }
    char names[8][24];
    for (size_t i = 0; i < n_in; i++) {
        snprintf(names[i], sizeof names[i], "i%zu", i);
        bin[i].name = names[i];
        bin[i].tensor = tin[i];
    }
    wnn_named_tensor bout[] = {{"y", tout}};
    if (s == WNN_OK)
        s = wnn_context_dispatch(ctx, g, bin, n_in, bout, 1);
    if (s == WNN_OK)
        s = wnn_context_read_tensor_sync(ctx, tout, out, out_bytes);
    for (size_t i = 0; i < n_in; i++)
        wnn_tensor_release(tin[i]);
    wnn_tensor_release(tout);
    wnn_graph_release(g);
    return s;
}

/* ---- comparisons --------------------------------------------------------------------------- */

static float half_to_float(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    float v = e == 0 ? ldexpf((float)m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexpf((float)(m | 0x400), e - 25);
    return (h & 0x8000) ? -v : v;
}

static size_t type_size(wnn_data_type t) { return wnn_data_type_size(t); }

static bool close_enough(double g, double w, double tol)
{
    if (isnan(w))
        return isnan(g);
    if (isinf(w))
        return g == w;
    if (tol == 0)
        return g == w;
    double m = fabs(w) > 1.0 ? fabs(w) : 1.0;
    return fabs(g - w) <= tol * m;
}

static void print_element(wnn_data_type t, const void *base, size_t i)
{
    const char *p = (const char *)base + i * type_size(t);
    switch (t) {
    case F32: { float v; memcpy(&v, p, 4); fprintf(stderr, "%.9g", v); break; }
    case F16: { uint16_t v; memcpy(&v, p, 2); fprintf(stderr, "0x%04x (%.6g)", v, half_to_float(v)); break; }
    case I32: { int32_t v; memcpy(&v, p, 4); fprintf(stderr, "%d", v); break; }
    case U32: { uint32_t v; memcpy(&v, p, 4); fprintf(stderr, "%u", v); break; }
    case I64: { int64_t v; memcpy(&v, p, 8); fprintf(stderr, "%lld", (long long)v); break; }
    case U64: { uint64_t v; memcpy(&v, p, 8); fprintf(stderr, "%llu", (unsigned long long)v); break; }
    case I8: fprintf(stderr, "%d", *(const int8_t *)p); break;
    case U8: fprintf(stderr, "%u", *(const uint8_t *)p); break;
    default: fprintf(stderr, "?"); break;
    }
}

/* Element i of got equals element i of want: bits for integers and for
** float16 with tol 0, values within tol (relative, floored at 1) otherwise. */
static bool element_ok(wnn_data_type t, const void *got, const void *want, size_t i, double tol)
{
    size_t sz = type_size(t);
    const char *g = (const char *)got + i * sz, *w = (const char *)want + i * sz;
    if (t == F32) {
        float a, b;
        memcpy(&a, g, 4);
        memcpy(&b, w, 4);
        return close_enough(a, b, tol);
    }
    if (t == F16 && tol > 0) {
        uint16_t a, b;
        memcpy(&a, g, 2);
        memcpy(&b, w, 2);
        return close_enough(half_to_float(a), half_to_float(b), tol);
    }
    return memcmp(g, w, sz) == 0;
}

static bool compare_at(int line, wnn_data_type t, const void *got, const void *want, size_t n, double tol)
{
    for (size_t i = 0; i < n; i++) {
        if (!element_ok(t, got, want, i, tol)) {
            test_failed++;
            fprintf(stderr, "%s:%d: element %zu is ", __FILE__, line, i);
            print_element(t, got, i);
            fprintf(stderr, ", want ");
            print_element(t, want, i);
            fprintf(stderr, " (%s, tolerance %g)\n", wnn_data_type_name(t), tol);
            return false;
        }
    }
    test_passed++;
    return true;
}

static void expect_at(int line, const op *p, const arg *ins, size_t n_in, wnn_data_type out_t, shape out_s,
                      const void *want, double tol)
{
    size_t n = (size_t)elements(&out_s), bytes = n * type_size(out_t);
    void *got = malloc(bytes ? bytes : 1);
    memset(got, 0xa5, bytes);
    wnn_operand_desc d;
    memset(&d, 0, sizeof d);
    wnn_status s = run1(p, ins, n_in, got, bytes, &d);
    char where[64];
    snprintf(where, sizeof where, "the case of line %d", line);
    if (SKIP_UNSUPPORTED(s, where)) {
        free(got);
        return;
    }
    if (s != WNN_OK) {
        test_failed++;
        fprintf(stderr, "%s:%d: running the graph gave %s (%s)\n", __FILE__, line, wnn_status_string(s),
                wnn_last_error_message());
        free(got);
        return;
    }
    bool same = d.data_type == out_t && d.rank == out_s.rank;
    for (uint32_t i = 0; same && i < d.rank; i++)
        same = d.shape[i] == out_s.d[i];
    if (!same) {
        test_failed++;
        fprintf(stderr, "%s:%d: output descriptor differs (type %d rank %u)\n", __FILE__, line, (int)d.data_type,
                d.rank);
    } else {
        test_passed++;
        compare_at(line, out_t, got, want, n, tol);
    }
    free(got);
}

#define INPUTS(...) ((const arg[]){__VA_ARGS__}), (sizeof((const arg[]){__VA_ARGS__}) / sizeof(arg))
/* EXPECT(op, output type, output shape, wanted values, tolerance, inputs...) */
#define EXPECT(p, t, s, want, tol, ...) expect_at(__LINE__, p, INPUTS(__VA_ARGS__), t, s, want, tol)

/* ---- element-wise binary ---------------------------------------------------------------------- */

static void test_binary_float(void)
{
    EXPECT(OP(K_ADD), F32, SH(2, 3), VF32(11, 21, 31, 12, 22, 32), 0, IN(F32, SH(2, 1), VF32(1, 2)),
           IN(F32, SH(3), VF32(10, 20, 30)));
    EXPECT(OP(K_ADD), F32, SH(3), VF32(1.5f, -1, 0.5f), 0, IN(F32, SH(3), VF32(1, -1.5f, 0)),
           IN(F32, SH0, VF32(0.5f)) /* scalar broadcast */);
    EXPECT(OP(K_SUB), F32, SH(2), VF32(4, -1), 0, IN(F32, SH(2), VF32(5, 3)), IN(F32, SH(2), VF32(1, 4)));
    EXPECT(OP(K_SUB), F32, SH(2, 2), VF32(9, 8, 19, 18), 0, IN(F32, SH(2, 1), VF32(10, 20)),
           IN(F32, SH(1, 2), VF32(1, 2)));
    EXPECT(OP(K_MUL), F32, SH(4), VF32(2, -8, -1.5f, 0), 0, IN(F32, SH(4), VF32(1, -2, 3, 0)),
           IN(F32, SH(4), VF32(2, 4, -0.5f, 7)));
    EXPECT(OP(K_DIV), F32, SH(4), VF32(0.5f, -0.5f, -6, INFINITY), 0, IN(F32, SH(4), VF32(1, -2, 3, 1)),
           IN(F32, SH(4), VF32(2, 4, -0.5f, 0)));
    EXPECT(OP(K_MAX), F32, SH(3), VF32(2, 5, -3), 0, IN(F32, SH(3), VF32(1, 5, -3)), IN(F32, SH(3), VF32(2, 4, -3)));
    EXPECT(OP(K_MIN), F32, SH(3), VF32(1, 4, -3), 0, IN(F32, SH(3), VF32(1, 5, -3)), IN(F32, SH(3), VF32(2, 4, -3)));
    EXPECT(OP(K_MAX), F32, SH(3), VF32(2, 5, 3), 0, IN(F32, SH(3), VF32(-1, 5, 3)), IN(F32, SH0, VF32(2)));
    EXPECT(OP(K_POW), F32, SH(5), VF32(8, 9, 2, 3, 0.25f), 1e-6, IN(F32, SH(5), VF32(2, 3, 4, 9, 2)),
           IN(F32, SH(5), VF32(3, 2, 0.5f, 0.5f, -2)));

    /* [2,1,3] + [4,1] -> [2,4,3] */
    float a[6] = {1, 2, 3, 4, 5, 6}, b[4] = {10, 20, 30, 40}, want[24];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < 3; k++)
                want[(i * 4 + j) * 3 + k] = a[i * 3 + k] + b[j];
    EXPECT(OP(K_ADD), F32, SH(2, 4, 3), want, 0, IN(F32, SH(2, 1, 3), a), IN(F32, SH(4, 1), b));
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < 3; k++)
                want[(i * 4 + j) * 3 + k] = a[i * 3 + k] * b[j];
    EXPECT(OP(K_MUL), F32, SH(2, 4, 3), want, 0, IN(F32, SH(4, 1), b), IN(F32, SH(2, 1, 3), a));

    /* float16: 1.0 0x3C00, 2.0 0x4000, 0.5 0x3800, -2.0 0xC000, 65504 0x7BFF, inf 0x7C00 */
    EXPECT(OP(K_ADD), F16, SH(4), VF16(0x3E00, 0x0000, 0x7C00, 0x3C00), 0,
           IN(F16, SH(4), VF16(0x3C00, 0x4000, 0x7BFF, 0x3C00)), IN(F16, SH(4), VF16(0x3800, 0xC000, 0x7BFF, 0x0001)));
    EXPECT(OP(K_SUB), F16, SH(2), VF16(0x3C00, 0xC200), 0, IN(F16, SH(2), VF16(0x4000, 0xBC00)),
           IN(F16, SH(2), VF16(0x3C00, 0x4000)));
    /* 0x3555 * 3 = 4095/4096, halfway between 0x3BFF and 0x3C00: ties to even */
    EXPECT(OP(K_MUL), F16, SH(4), VF16(0x3C00, 0x4400, 0x7C00, 0x3C00), 0,
           IN(F16, SH(4), VF16(0x4000, 0xC000, 0x7BFF, 0x3555)), IN(F16, SH(4), VF16(0x3800, 0xC000, 0x4000, 0x4200)));
    EXPECT(OP(K_DIV), F16, SH(3), VF16(0x3800, 0x7C00, 0xBC00), 0, IN(F16, SH(3), VF16(0x3C00, 0x3C00, 0x4000)),
           IN(F16, SH(3), VF16(0x4000, 0x0000, 0xC000)));
    EXPECT(OP(K_MAX), F16, SH(2), VF16(0x3800, 0x3C00), 0, IN(F16, SH(2), VF16(0xC000, 0x3C00)),
           IN(F16, SH(2), VF16(0x3800, 0xBC00)));
    EXPECT(OP(K_MIN), F16, SH(2), VF16(0xC000, 0xBC00), 0, IN(F16, SH(2), VF16(0xC000, 0x3C00)),
           IN(F16, SH(2), VF16(0x3800, 0xBC00)));
    EXPECT(OP(K_POW), F16, SH(2), VF16(0x4400, 0x3800), 0, IN(F16, SH(2), VF16(0x4000, 0x4000)),
           IN(F16, SH(2), VF16(0x4000, 0xBC00)));
    EXPECT(OP(K_ADD), F16, SH(2, 2), VF16(0x4000, 0x3C00, 0x4200, 0x4000), 0, IN(F16, SH(2, 1), VF16(0x3C00, 0x4000)),
           IN(F16, SH(2), VF16(0x3C00, 0x0000)));
}

static void test_binary_int(void)
{
    /* int32 wraps */
    EXPECT(OP(K_ADD), I32, SH(3), VI32(INT32_MIN, INT32_MAX, -2), 0, IN(I32, SH(3), VI32(INT32_MAX, INT32_MIN, 5)),
           IN(I32, SH(3), VI32(1, -1, -7)));
    EXPECT(OP(K_SUB), I32, SH(2), VI32(INT32_MAX, -12), 0, IN(I32, SH(2), VI32(INT32_MIN, -5)),
           IN(I32, SH(2), VI32(1, 7)));
    EXPECT(OP(K_MUL), I32, SH(3), VI32(0, -21, -2147483647 - 1), 0, IN(I32, SH(3), VI32(65536, -3, 65536)),
           IN(I32, SH(3), VI32(65536, 7, 32768)));
    /* division truncates; by zero gives 0; INT32_MIN / -1 wraps to INT32_MIN */
    EXPECT(OP(K_DIV), I32, SH(7), VI32(3, -3, 0, -5, INT32_MIN, 0, -3), 0,
           IN(I32, SH(7), VI32(7, -7, 7, 5, INT32_MIN, 0, 7)), IN(I32, SH(7), VI32(2, 2, 0, -1, -1, 0, -2)));
    EXPECT(OP(K_MAX), I32, SH(2), VI32(3, 7), 0, IN(I32, SH(2), VI32(-5, 7)), IN(I32, SH(2), VI32(3, -9)));
    EXPECT(OP(K_MIN), I32, SH(2), VI32(-5, -9), 0, IN(I32, SH(2), VI32(-5, 7)), IN(I32, SH(2), VI32(3, -9)));
    EXPECT(OP(K_POW), I32, SH(4), VI32(1024, 27, -8, 1), 0, IN(I32, SH(4), VI32(2, 3, -2, 5)),
           IN(I32, SH(4), VI32(10, 3, 3, 0)));
    EXPECT(OP(K_ADD), I32, SH(2, 3), VI32(11, 21, 31, 12, 22, 32), 0, IN(I32, SH(2, 1), VI32(1, 2)),
           IN(I32, SH(3), VI32(10, 20, 30)));

    /* uint32 */
    EXPECT(OP(K_ADD), U32, SH(2), VU32(0, 4294967295u), 0, IN(U32, SH(2), VU32(4294967295u, 4294967294u)),
           IN(U32, SH(2), VU32(1, 1)));
    EXPECT(OP(K_SUB), U32, SH(1), VU32(4294967295u), 0, IN(U32, SH(1), VU32(0)), IN(U32, SH(1), VU32(1)));
    EXPECT(OP(K_DIV), U32, SH(2), VU32(3, 0), 0, IN(U32, SH(2), VU32(7, 4294967295u)), IN(U32, SH(2), VU32(2, 0)));
    EXPECT(OP(K_MIN), U32, SH(2), VU32(2, 1), 0, IN(U32, SH(2), VU32(4294967295u, 1)), IN(U32, SH(2), VU32(2, 3)));
    EXPECT(OP(K_MAX), U32, SH(2), VU32(4294967295u, 3), 0, IN(U32, SH(2), VU32(4294967295u, 1)),
           IN(U32, SH(2), VU32(2, 3)));

    /* int8 and uint8 */
    EXPECT(OP(K_ADD), I8, SH(3), VI8(-56, 56, -128), 0, IN(I8, SH(3), VI8(100, -100, 127)),
           IN(I8, SH(3), VI8(100, -100, 1)));
    EXPECT(OP(K_MUL), I8, SH(2), VI8(0, -6), 0, IN(I8, SH(2), VI8(16, 2)), IN(I8, SH(2), VI8(16, -3)));
    EXPECT(OP(K_DIV), I8, SH(3), VI8(-128, 0, -2), 0, IN(I8, SH(3), VI8(-128, 5, -5)), IN(I8, SH(3), VI8(-1, 0, 2)));
    EXPECT(OP(K_MAX), I8, SH(2), VI8(-1, 127), 0, IN(I8, SH(2), VI8(-1, -128)), IN(I8, SH(2), VI8(-2, 127)));
    EXPECT(OP(K_ADD), U8, SH(2), VU8(44, 3), 0, IN(U8, SH(2), VU8(200, 3)), IN(U8, SH(2), VU8(100, 0)));
    EXPECT(OP(K_SUB), U8, SH(1), VU8(254), 0, IN(U8, SH(1), VU8(3)), IN(U8, SH(1), VU8(5)));
    EXPECT(OP(K_MUL), U8, SH(1), VU8(1), 0, IN(U8, SH(1), VU8(255)), IN(U8, SH(1), VU8(255)));
    EXPECT(OP(K_DIV), U8, SH(2), VU8(127, 0), 0, IN(U8, SH(2), VU8(255, 9)), IN(U8, SH(2), VU8(2, 0)));
    EXPECT(OP(K_MIN), U8, SH(2), VU8(3, 0), 0, IN(U8, SH(2), VU8(200, 0)), IN(U8, SH(2), VU8(3, 255)));
    EXPECT(OP(K_POW), U8, SH(2), VU8(128, 81), 0, IN(U8, SH(2), VU8(2, 3)), IN(U8, SH(2), VU8(7, 4)));

    /* int64 and uint64 with values beyond 2^53 (where a double loses them) */
    const int64_t p53 = INT64_C(1) << 53;
    EXPECT(OP(K_ADD), I64, SH(2), VI64(p53 + 2, INT64_MIN), 0, IN(I64, SH(2), VI64(p53 + 1, INT64_MAX)),
           IN(I64, SH(2), VI64(1, 1)));
    EXPECT(OP(K_SUB), I64, SH(2), VI64(INT64_MIN, p53 - 1), 0,
           IN(I64, SH(2), VI64(-(INT64_C(1) << 62), p53 + 1)), IN(I64, SH(2), VI64(INT64_C(1) << 62, 2)));
    EXPECT(OP(K_MUL), I64, SH(2), VI64(INT64_C(9223372030926249001), -(p53 + 1) * 3), 0,
           IN(I64, SH(2), VI64(3037000499, p53 + 1)), IN(I64, SH(2), VI64(3037000499, -3)));
    EXPECT(OP(K_DIV), I64, SH(4), VI64(INT64_MIN, 0, (p53 + 1) / 3, -1), 0,
           IN(I64, SH(4), VI64(INT64_MIN, INT64_C(1) << 62, p53 + 1, -3)), IN(I64, SH(4), VI64(-1, 0, 3, 2)));
    EXPECT(OP(K_MAX), I64, SH(2), VI64(p53 + 1, -5), 0, IN(I64, SH(2), VI64(p53 + 1, -5)),
           IN(I64, SH(2), VI64(p53, -(INT64_C(1) << 60))));
    EXPECT(OP(K_MIN), I64, SH(2), VI64(p53, -(INT64_C(1) << 60)), 0, IN(I64, SH(2), VI64(p53 + 1, -5)),
           IN(I64, SH(2), VI64(p53, -(INT64_C(1) << 60))));
    EXPECT(OP(K_POW), I64, SH(2), VI64(INT64_C(4052555153018976267), -(INT64_C(1) << 61)), 0,
           IN(I64, SH(2), VI64(3, -2)), IN(I64, SH(2), VI64(39, 61)));
    const uint64_t u63 = UINT64_C(1) << 63;
    EXPECT(OP(K_ADD), U64, SH(2), VU64(0, u63 + 5), 0, IN(U64, SH(2), VU64(UINT64_MAX, u63)),
           IN(U64, SH(2), VU64(1, 5)));
    EXPECT(OP(K_SUB), U64, SH(1), VU64(UINT64_MAX), 0, IN(U64, SH(1), VU64(0)), IN(U64, SH(1), VU64(1)));
    EXPECT(OP(K_MUL), U64, SH(1), VU64(UINT64_MAX - 1), 0, IN(U64, SH(1), VU64(u63 - 1)), IN(U64, SH(1), VU64(2)));
    EXPECT(OP(K_DIV), U64, SH(2), VU64(u63 / 3, 0), 0, IN(U64, SH(2), VU64(u63, 7)), IN(U64, SH(2), VU64(3, 0)));
    EXPECT(OP(K_MAX), U64, SH(2), VU64(u63, 2), 0, IN(U64, SH(2), VU64(u63, 1)), IN(U64, SH(2), VU64(5, 2)));
    EXPECT(OP(K_MIN), U64, SH(2), VU64(5, 1), 0, IN(U64, SH(2), VU64(u63, 1)), IN(U64, SH(2), VU64(5, 2)));
    EXPECT(OP(K_ADD), U64, SH(2, 2), VU64(u63 + 1, u63 + 2, 2, 3), 0, IN(U64, SH(2, 1), VU64(u63, 1)),
           IN(U64, SH(2), VU64(1, 2)));
}

/* ---- element-wise unary ------------------------------------------------------------------------- */

static void test_unary(void)
{
    const int64_t p53 = INT64_C(1) << 53, p60 = INT64_C(1) << 60;
    EXPECT(OP(K_ABS), F32, SH(4), VF32(1.5f, 2, 0, INFINITY), 0, IN(F32, SH(4), VF32(-1.5f, 2, -0.0f, -INFINITY)));
    EXPECT(OP(K_ABS), F16, SH(3), VF16(0x4000, 0x0000, 0x7BFF), 0, IN(F16, SH(3), VF16(0xC000, 0x8000, 0xFBFF)));
    EXPECT(OP(K_ABS), I32, SH(3), VI32(3, 4, INT32_MAX), 0, IN(I32, SH(3), VI32(-3, 4, -INT32_MAX)));
    EXPECT(OP(K_ABS), I8, SH(3), VI8(127, 0, 5), 0, IN(I8, SH(3), VI8(-127, 0, 5)));
    EXPECT(OP(K_ABS), I64, SH(2), VI64(p60, p53 + 1), 0, IN(I64, SH(2), VI64(-p60, -(p53 + 1))));

    EXPECT(OP(K_NEG), F32, SH(3), VF32(-1, 2, -0.5f), 0, IN(F32, SH(3), VF32(1, -2, 0.5f)));
    EXPECT(OP(K_NEG), F16, SH(2), VF16(0xBC00, 0x4000), 0, IN(F16, SH(2), VF16(0x3C00, 0xC000)));
    EXPECT(OP(K_NEG), I32, SH(3), VI32(-5, 7, -INT32_MAX), 0, IN(I32, SH(3), VI32(5, -7, INT32_MAX)));
    EXPECT(OP(K_NEG), I8, SH(2), VI8(-127, 127), 0, IN(I8, SH(2), VI8(127, -127)));
    EXPECT(OP(K_NEG), I64, SH(2), VI64(-(INT64_C(1) << 62), p53 + 1), 0,
           IN(I64, SH(2), VI64(INT64_C(1) << 62, -(p53 + 1))));

    EXPECT(OP(K_EXP), F32, SH(4), VF32(1, 2.718281828f, 0.3678794412f, 22026.46579f), 1e-6,
           IN(F32, SH(4), VF32(0, 1, -1, 10)));
    EXPECT(OP(K_EXP), F16, SH(2), VF16(0x3C00, 0x4170), 0, IN(F16, SH(2), VF16(0x0000, 0x3C00)));
    EXPECT(OP(K_LOG), F32, SH(4), VF32(0, 1, -0.6931471806f, -INFINITY), 1e-6,
           IN(F32, SH(4), VF32(1, 2.718281828f, 0.5f, 0)));
    EXPECT(OP(K_LOG), F32, SH(1), VF32(NAN), 0, IN(F32, SH(1), VF32(-1)));
    EXPECT(OP(K_LOG), F16, SH(2), VF16(0x0000, 0x398C), 0, IN(F16, SH(2), VF16(0x3C00, 0x4000)));
    EXPECT(OP(K_SQRT), F32, SH(4), VF32(2, 1.414213562f, 0, 0.01f), 1e-6, IN(F32, SH(4), VF32(4, 2, 0, 1e-4f)));
    EXPECT(OP(K_SQRT), F16, SH(2), VF16(0x4000, 0x3C00), 0, IN(F16, SH(2), VF16(0x4400, 0x3C00)));
    EXPECT(OP(K_RELU), F32, SH(3), VF32(0, 0, 2.5f), 0, IN(F32, SH(3), VF32(-1, 0, 2.5f)));
    EXPECT(OP(K_RELU), F16, SH(2), VF16(0x0000, 0x3C00), 0, IN(F16, SH(2), VF16(0xC000, 0x3C00)));
    EXPECT(OP(K_RELU), I32, SH(3), VI32(0, 7, 0), 0, IN(I32, SH(3), VI32(-5, 7, INT32_MIN)));
    EXPECT(OP(K_RELU), I8, SH(3), VI8(0, 127, 0), 0, IN(I8, SH(3), VI8(-128, 127, 0)));
    EXPECT(OP(K_RELU), I64, SH(2), VI64(0, p53 + 1), 0, IN(I64, SH(2), VI64(-p60, p53 + 1)));
    EXPECT(OP(K_SIGMOID), F32, SH(5), VF32(0.5f, 0.880797078f, 0.119202922f, 1, 0), 1e-6,
           IN(F32, SH(5), VF32(0, 2, -2, 100, -100)));
    EXPECT(OP(K_SIGMOID), F16, SH(1), VF16(0x3800), 0, IN(F16, SH(1), VF16(0x0000)));
    EXPECT(OP(K_TANH), F32, SH(4), VF32(0, 0.761594156f, -0.462117157f, 1), 1e-6,
           IN(F32, SH(4), VF32(0, 1, -0.5f, 20)));
    EXPECT(OP(K_TANH), F16, SH(2), VF16(0x0000, 0x3A18), 1e-3, IN(F16, SH(2), VF16(0x0000, 0x3C00)));
    /* scalar input */
    EXPECT(OP(K_NEG), F32, SH0, VF32(-3), 0, IN(F32, SH0, VF32(3)));
}

static void test_clamp(void)
{
    EXPECT(OP(K_CLAMP, .clamp = {.min_value = NUM(0), .max_value = NUM(6)}), F32, SH(4), VF32(0, 3, 6, 6), 0,
           IN(F32, SH(4), VF32(-1, 3, 7, INFINITY)));
    EXPECT(OP(K_CLAMP, .clamp = {.min_value = NUM(-0.5)}), F32, SH(3), VF32(-0.5f, 3, 1e30f), 0,
           IN(F32, SH(3), VF32(-1, 3, 1e30f)));
    EXPECT(OP(K_CLAMP, .clamp = {.max_value = NUM(2)}), F32, SH(3), VF32(-1e30f, 2, 2), 0,
           IN(F32, SH(3), VF32(-1e30f, 3, 2)));
    EXPECT(OP(K_CLAMP), F32, SH(3), VF32(-1e30f, 0, 1e30f), 0, IN(F32, SH(3), VF32(-1e30f, 0, 1e30f)));
    EXPECT(OP(K_CLAMP, .clamp = {.min_value = NUM(3), .max_value = NUM(3)}), F32, SH(2), VF32(3, 3), 0, IN(F32, SH(2), VF32(-5, 5)));
    EXPECT(OP(K_CLAMP, .clamp = {.min_value = NUM(-1), .max_value = NUM(2)}), F16, SH(3), VF16(0xBC00, 0x3C00, 0x4000), 0,
           IN(F16, SH(3), VF16(0xC000, 0x3C00, 0x4400)));
    EXPECT(OP(K_CLAMP, .clamp = {.min_value = NUM(-10)}), I32, SH(3), VI32(-10, 0, INT32_MAX), 0,
           IN(I32, SH(3), VI32(INT32_MIN, 0, INT32_MAX)));
    EXPECT(OP(K_CLAMP, .clamp = {.min_value = NUM(10), .max_value = NUM(200)}), U8, SH(3), VU8(10, 100, 200), 0,
           IN(U8, SH(3), VU8(5, 100, 250)));
    EXPECT(OP(K_CLAMP, .clamp = {.min_value = NUM(-3), .max_value = NUM(3)}), I8, SH(3), VI8(-3, 1, 3), 0, IN(I8, SH(3), VI8(-128, 1, 127)));
    EXPECT(OP(K_CLAMP, .clamp = {.min_value = NUM(-1e6), .max_value = NUM(1e6)}), I64, SH(3), VI64(-1000000, 5, 1000000), 0,
           IN(I64, SH(3), VI64(INT64_MIN, 5, INT64_MAX)));
    EXPECT(OP(K_CLAMP, .clamp = {.min_value = NUM(1), .max_value = NUM(4e9)}), U32, SH(3), VU32(1, 7, 4000000000u), 0,
           IN(U32, SH(3), VU32(0, 7, 4294967295u)));
}

static void test_cast(void)
{
    /* float -> integer: truncate toward zero, saturate, NaN -> 0 */
    EXPECT(OP(K_CAST, .cast_to = I32), I32, SH(8), VI32(1, -1, INT32_MAX, INT32_MIN, 2147483520, 0, INT32_MAX, INT32_MIN),
           0, IN(F32, SH(8), VF32(1.9f, -1.9f, 3e10f, -3e10f, 2147483520.0f, NAN, INFINITY, -INFINITY)));
    EXPECT(OP(K_CAST, .cast_to = U8), U8, SH(6), VU8(0, 255, 2, 255, 0, 0), 0,
           IN(F32, SH(6), VF32(-1, 300, 2.5f, 255.9f, NAN, -0.9f)));
    EXPECT(OP(K_CAST, .cast_to = I8), I8, SH(5), VI8(-128, 127, -128, 0, -5), 0,
           IN(F32, SH(5), VF32(-128.9f, 127.9f, -200, 0.99f, -5.5f)));
    EXPECT(OP(K_CAST, .cast_to = U32), U32, SH(3), VU32(0, 4294967295u, 3000000000u), 0,
           IN(F32, SH(3), VF32(-7, 1e10f, 3e9f)));
    EXPECT(OP(K_CAST, .cast_to = I64), I64, SH(4), VI64(INT64_MAX, INT64_MIN, INT64_C(1099511627776), 0), 0,
           IN(F32, SH(4), VF32(1e19f, -1e19f, 1099511627776.0f, NAN)));
    EXPECT(OP(K_CAST, .cast_to = U64), U64, SH(3), VU64(0, UINT64_MAX, UINT64_C(1) << 63), 0,
           IN(F32, SH(3), VF32(-1, 1e20f, 9223372036854775808.0f)));
    EXPECT(OP(K_CAST, .cast_to = I32), I32, SH(7), VI32(2, -3, INT32_MAX, 65504, 0, 0, -65504), 0,
           IN(F16, SH(7), VF16(0x4000, 0xC200, 0x7C00, 0x7BFF, 0x3BFF, 0x7E00, 0xFBFF)));
    EXPECT(OP(K_CAST, .cast_to = U8), U8, SH(2), VU8(255, 0), 0, IN(F16, SH(2), VF16(0x7BFF, 0xC000)));

    /* float32 -> float16: round to nearest, ties to even; overflow to inf */
    EXPECT(OP(K_CAST, .cast_to = F16), F16, SH(13),
           VF16(0x3C00, 0x2E66, 0x7BFF, 0x7BFF, 0x7C00, 0x7C00, 0xFC00, 0x3C00, 0x3C02, 0x0001, 0x0000, 0x0001, 0x8000),
           0,
           IN(F32, SH(13), VF32(1.0f, 0.1f, 65504.0f, 65519.0f, 65520.0f, 1e6f, -1e6f, 1.00048828125f, 1.00146484375f,
                                5.9604644775390625e-8f, 2.98023223876953125e-8f, 4.470348358154296875e-8f, -0.0f)));
    EXPECT(OP(K_CAST, .cast_to = F16), F16, SH(2), VF16(0x7C00, 0xFC00), 0, IN(F32, SH(2), VF32(INFINITY, -INFINITY)));
    {
        /* NaN stays NaN */
        uint16_t h = 0;
        wnn_operand_desc d;
        arg in[] = {IN(F32, SH(1), VF32(NAN))};
        CHECK_OK(run1(OP(K_CAST, .cast_to = F16), in, 1, &h, sizeof h, &d));
        CHECK((h & 0x7C00) == 0x7C00 && (h & 0x03FF) != 0);
    }
    /* float16 -> float32 is exact */
    EXPECT(OP(K_CAST, .cast_to = F32), F32, SH(7), VF32(1, 65504, 5.9604644775390625e-8f, -2, INFINITY, 0.333251953125f, -0.0f),
           0, IN(F16, SH(7), VF16(0x3C00, 0x7BFF, 0x0001, 0xC000, 0x7C00, 0x3555, 0x8000)));
    /* integer -> float */
    EXPECT(OP(K_CAST, .cast_to = F32), F32, SH(3), VF32(16777216, -5, 2147483648.0f), 0,
           IN(I32, SH(3), VI32(16777217, -5, INT32_MAX)));
    EXPECT(OP(K_CAST, .cast_to = F32), F32, SH(2), VF32(9007199254740992.0f, -1), 0,
           IN(I64, SH(2), VI64((INT64_C(1) << 53) + 1, -1)));
    EXPECT(OP(K_CAST, .cast_to = F32), F32, SH(2), VF32(-128, 127), 0, IN(I8, SH(2), VI8(-128, 127)));
    EXPECT(OP(K_CAST, .cast_to = F16), F16, SH(3), VF16(0x7BFF, 0x7C00, 0xC000), 0,
           IN(I64, SH(3), VI64(65504, 70000, -2)));
    EXPECT(OP(K_CAST, .cast_to = F32), F32, SH(1), VF32(4294967296.0f), 0,
           IN(U64, SH(1), VU64(UINT64_C(4294967296))));
    /* widening integer casts keep the value */
    EXPECT(OP(K_CAST, .cast_to = I32), I32, SH(2), VI32(255, 0), 0, IN(U8, SH(2), VU8(255, 0)));
    EXPECT(OP(K_CAST, .cast_to = I64), I64, SH(2), VI64(-1, INT32_MIN), 0, IN(I32, SH(2), VI32(-1, INT32_MIN)));
    EXPECT(OP(K_CAST, .cast_to = U64), U64, SH(1), VU64(4294967295u), 0, IN(U32, SH(1), VU32(4294967295u)));
    EXPECT(OP(K_CAST, .cast_to = I32), I32, SH(2), VI32(-128, 127), 0, IN(I8, SH(2), VI8(-128, 127)));
    /* same type */
    EXPECT(OP(K_CAST, .cast_to = I64), I64, SH(1), VI64(INT64_MIN + 1), 0, IN(I64, SH(1), VI64(INT64_MIN + 1)));
}

/* ---- shape operators ------------------------------------------------------------------------------- */

static void test_shape_ops(void)
{
    EXPECT(OP(K_RESHAPE, .new_shape = SH(3, 2)), F32, SH(3, 2), VF32(1, 2, 3, 4, 5, 6), 0,
           IN(F32, SH(2, 3), VF32(1, 2, 3, 4, 5, 6)));
    EXPECT(OP(K_RESHAPE, .new_shape = SH(2, 2)), I64, SH(2, 2), VI64(INT64_MIN, 1, 2, INT64_MAX), 0,
           IN(I64, SH(4), VI64(INT64_MIN, 1, 2, INT64_MAX)));
    EXPECT(OP(K_RESHAPE, .new_shape = SH0), F16, SH0, VF16(0x3C00), 0, IN(F16, SH(1, 1), VF16(0x3C00)));

    EXPECT(OP(K_TRANSPOSE), F32, SH(3, 2), VF32(1, 4, 2, 5, 3, 6), 0, IN(F32, SH(2, 3), VF32(1, 2, 3, 4, 5, 6)));
    EXPECT(OP(K_TRANSPOSE), I8, SH(2, 2), VI8(1, 3, 2, 4), 0, IN(I8, SH(2, 2), VI8(1, 2, 3, 4)));
    float x[24], want[24];
    for (int i = 0; i < 24; i++)
        x[i] = (float)i;
    /* perm {1, 0, 2}: out[j][i][k] = x[i][j][k], x [2,3,4] */
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 4; k++)
                want[(j * 2 + i) * 4 + k] = x[(i * 3 + j) * 4 + k];
    static const uint32_t p102[] = {1, 0, 2}, p201[] = {2, 0, 1};
    EXPECT(OP(K_TRANSPOSE, .perm = p102), F32, SH(3, 2, 4), want, 0, IN(F32, SH(2, 3, 4), x));
    /* default (reversed): out[k][j][i] */
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 4; k++)
                want[(k * 3 + j) * 2 + i] = x[(i * 3 + j) * 4 + k];
    EXPECT(OP(K_TRANSPOSE), F32, SH(4, 3, 2), want, 0, IN(F32, SH(2, 3, 4), x));
    /* perm {2, 0, 1}: out[k][i][j] */
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 4; k++)
                want[(k * 2 + i) * 3 + j] = x[(i * 3 + j) * 4 + k];
    EXPECT(OP(K_TRANSPOSE, .perm = p201), F32, SH(4, 2, 3), want, 0, IN(F32, SH(2, 3, 4), x));

    EXPECT(OP(K_CONCAT, .axis = 1), F32, SH(2, 3), VF32(1, 2, 9, 3, 4, 8), 0, IN(F32, SH(2, 2), VF32(1, 2, 3, 4)),
           IN(F32, SH(2, 1), VF32(9, 8)));
    EXPECT(OP(K_CONCAT, .axis = 0), F32, SH(3, 2), VF32(7, 8, 1, 2, 3, 4), 0, IN(F32, SH(1, 2), VF32(7, 8)),
           IN(F32, SH(2, 2), VF32(1, 2, 3, 4)));
    EXPECT(OP(K_CONCAT, .axis = 0), I64, SH(4), VI64(INT64_MIN, 1, 2, INT64_MAX), 0, IN(I64, SH(1), VI64(INT64_MIN)),
           IN(I64, SH(2), VI64(1, 2)), IN(I64, SH(1), VI64(INT64_MAX)));
    EXPECT(OP(K_CONCAT, .axis = 1), U8, SH(2, 3, 1), VU8(1, 2, 9, 3, 4, 8), 0, IN(U8, SH(2, 2, 1), VU8(1, 2, 3, 4)),
           IN(U8, SH(2, 1, 1), VU8(9, 8)));
    EXPECT(OP(K_CONCAT, .axis = 0), F16, SH(2), VF16(0x3C00, 0x4000), 0, IN(F16, SH(1), VF16(0x3C00)),
           IN(F16, SH(1), VF16(0x4000)));

    float row[24];
    for (int i = 0; i < 24; i++)
        row[i] = (float)i;
    static const uint32_t st[] = {0, 2}, sz[] = {2, 10}, sd[] = {1, 4};
    EXPECT(OP(K_SLICE, .starts = st, .sizes = sz, .strides = sd), F32, SH(2, 3), VF32(2, 6, 10, 14, 18, 22), 0,
           IN(F32, SH(2, 12), row));
    static const uint32_t st2[] = {1, 1}, sz2[] = {2, 2};
    EXPECT(OP(K_SLICE, .starts = st2, .sizes = sz2), F32, SH(2, 2), VF32(5, 6, 9, 10), 0, IN(F32, SH(3, 4), row));
    static const uint32_t st3[] = {1}, sz3[] = {4}, sd3[] = {2};
    EXPECT(OP(K_SLICE, .starts = st3, .sizes = sz3, .strides = sd3), I64, SH(2), VI64(INT64_C(1) << 60, -1), 0,
           IN(I64, SH(5), VI64(0, INT64_C(1) << 60, 2, -1, 4)));
    static const uint32_t st4[] = {1, 0, 1}, sz4[] = {1, 2, 3}, sd4[] = {1, 1, 2};
    /* x [2,2,4] = 0..15: [1, 0..1, 1 and 3] */
    EXPECT(OP(K_SLICE, .starts = st4, .sizes = sz4, .strides = sd4), F32, SH(1, 2, 2), VF32(9, 11, 13, 15), 0,
           IN(F32, SH(2, 2, 4), row));
}

/* ---- softmax, matmul, gemm -------------------------------------------------------------------- */

/* softmax of x (shape d[0..rank)) along axis, in double */
static void softmax_ref(const float *x, float *y, const uint32_t *d, uint32_t rank, uint32_t axis)
{
    size_t outer = 1, inner = 1, n = d[axis];
    for (uint32_t i = 0; i < axis; i++)
        outer *= d[i];
    for (uint32_t i = axis + 1; i < rank; i++)
        inner *= d[i];
    for (size_t o = 0; o < outer; o++)
        for (size_t in = 0; in < inner; in++) {
            double m = -INFINITY, s = 0;
            for (size_t k = 0; k < n; k++)
                m = fmax(m, x[(o * n + k) * inner + in]);
            for (size_t k = 0; k < n; k++)
                s += exp(x[(o * n + k) * inner + in] - m);
            for (size_t k = 0; k < n; k++)
                y[(o * n + k) * inner + in] = (float)(exp(x[(o * n + k) * inner + in] - m) / s);
        }
}

static void test_softmax(void)
{
    EXPECT(OP(K_SOFTMAX, .axis = 1), F32, SH(2, 3),
           VF32(0.0900305732f, 0.2447284711f, 0.6652409558f, 1.0f / 3, 1.0f / 3, 1.0f / 3), 1e-6,
           IN(F32, SH(2, 3), VF32(1, 2, 3, 0, 0, 0)));
    EXPECT(OP(K_SOFTMAX, .axis = 0), F32, SH(2, 3),
           VF32(0.119202922f, 0.5f, 0.880797078f, 0.880797078f, 0.5f, 0.119202922f), 1e-6,
           IN(F32, SH(2, 3), VF32(1, 2, 3, 3, 2, 1)));
    /* large values must not overflow */
    EXPECT(OP(K_SOFTMAX, .axis = 0), F32, SH(3), VF32(0.0900305732f, 0.2447284711f, 0.6652409558f), 1e-6,
           IN(F32, SH(3), VF32(1000, 1001, 1002)));
    EXPECT(OP(K_SOFTMAX, .axis = 0), F32, SH(3), VF32(0.0900305732f, 0.2447284711f, 0.6652409558f), 1e-6,
           IN(F32, SH(3), VF32(-1002, -1001, -1000)));
    EXPECT(OP(K_SOFTMAX, .axis = 0), F16, SH(2), VF16(0x3800, 0x3800), 0, IN(F16, SH(2), VF16(0x4000, 0x4000)));
    EXPECT(OP(K_SOFTMAX, .axis = 1), F16, SH(1, 2), VF16(0x2FA1, 0x3B0C), 1e-3, IN(F16, SH(1, 2), VF16(0x0000, 0x4000)));
    /* each axis of a rank-3 input */
    float x[2 * 3 * 4], want[24];
    for (int i = 0; i < 24; i++)
        x[i] = (float)((i * 7) % 11) * 0.5f - 2.0f;
    static const uint32_t d[] = {2, 3, 4};
    for (uint32_t axis = 0; axis < 3; axis++) {
        softmax_ref(x, want, d, 3, axis);
        EXPECT(OP(K_SOFTMAX, .axis = axis), F32, SH(2, 3, 4), want, 1e-6, IN(F32, SH(2, 3, 4), x));
    }
}

static uint32_t lcg_state = 12345;
static float rnd(void)
{
    lcg_state = lcg_state * 1664525u + 1013904223u;
    return (float)((lcg_state >> 8) & 0xffff) / 32768.0f - 1.0f; /* [-1, 1) */
}

/* c[batch][m][n] = a x b with batch dims broadcast; shapes padded to rank 4 */
static void matmul_ref(const float *a, const uint32_t *da, const float *b, const uint32_t *db, float *c,
                       const uint32_t *dc)
{
    uint32_t M = dc[2], N = dc[3], K = da[3];
    for (uint32_t i = 0; i < dc[0]; i++)
        for (uint32_t j = 0; j < dc[1]; j++) {
            const float *pa = a + ((size_t)(da[0] == 1 ? 0 : i) * da[1] + (da[1] == 1 ? 0 : j)) * M * K;
            const float *pb = b + ((size_t)(db[0] == 1 ? 0 : i) * db[1] + (db[1] == 1 ? 0 : j)) * K * N;
            float *pc = c + ((size_t)i * dc[1] + j) * M * N;
            for (uint32_t m = 0; m < M; m++)
                for (uint32_t n = 0; n < N; n++) {
                    double s = 0;
                    for (uint32_t k = 0; k < K; k++)
                        s += (double)pa[m * K + k] * pb[k * N + n];
                    pc[m * N + n] = (float)s;
                }
        }
}

static float *random_array(size_t n)
{
    float *p = malloc(sizeof(float) * n);
    for (size_t i = 0; i < n; i++)
        p[i] = rnd();
    return p;
}

static void test_matmul(void)
{
    EXPECT(OP(K_MATMUL), F32, SH(2, 2), VF32(58, 64, 139, 154), 0, IN(F32, SH(2, 3), VF32(1, 2, 3, 4, 5, 6)),
           IN(F32, SH(3, 2), VF32(7, 8, 9, 10, 11, 12)));
    EXPECT(OP(K_MATMUL), F32, SH(1, 1), VF32(32), 0, IN(F32, SH(1, 3), VF32(1, 2, 3)), IN(F32, SH(3, 1), VF32(4, 5, 6)));
    EXPECT(OP(K_MATMUL), F32, SH(3, 3), VF32(4, 5, 6, 8, 10, 12, 12, 15, 18), 0, IN(F32, SH(3, 1), VF32(1, 2, 3)),
           IN(F32, SH(1, 3), VF32(4, 5, 6)));
    /* float16: [[1,2],[3,4]]^2 = [[7,10],[15,22]] */
    EXPECT(OP(K_MATMUL), F16, SH(2, 2), VF16(0x4700, 0x4900, 0x4B80, 0x4D80), 0,
           IN(F16, SH(2, 2), VF16(0x3C00, 0x4000, 0x4200, 0x4400)), IN(F16, SH(2, 2), VF16(0x3C00, 0x4000, 0x4200, 0x4400)));

    /* batch broadcast: [2,1,2,3] x [3,3,2] -> [2,3,2,2] */
    float a[12], b[18], c[24];
    for (int i = 0; i < 12; i++)
        a[i] = (float)(i - 5);
    for (int i = 0; i < 18; i++)
        b[i] = (float)((i * 5) % 7 - 3);
    static const uint32_t da[] = {2, 1, 2, 3}, db[] = {1, 3, 3, 2}, dc[] = {2, 3, 2, 2};
    matmul_ref(a, da, b, db, c, dc);
    EXPECT(OP(K_MATMUL), F32, SH(2, 3, 2, 2), c, 0, IN(F32, SH(2, 1, 2, 3), a), IN(F32, SH(3, 3, 2), b));
    /* [3,2,2] x [2,2]: b broadcast over the batch */
    float a3[12], b2[4] = {1, -1, 2, 0.5f}, c3[12];
    for (int i = 0; i < 12; i++)
        a3[i] = (float)i;
    static const uint32_t da3[] = {1, 3, 2, 2}, db2[] = {1, 1, 2, 2}, dc3[] = {1, 3, 2, 2};
    matmul_ref(a3, da3, b2, db2, c3, dc3);
    EXPECT(OP(K_MATMUL), F32, SH(3, 2, 2), c3, 0, IN(F32, SH(3, 2, 2), a3), IN(F32, SH(2, 2), b2));

    /* bigger than 64x64, against the naive loop: relative 1e-5 */
    const uint32_t M = 100, K = 70, N = 90;
    float *A = random_array(M * K), *B = random_array(K * N), *C = malloc(sizeof(float) * M * N);
    const uint32_t dA[] = {1, 1, M, K}, dB[] = {1, 1, K, N}, dC[] = {1, 1, M, N};
    matmul_ref(A, dA, B, dB, C, dC);
    EXPECT(OP(K_MATMUL), F32, SH(M, N), C, 1e-5, IN(F32, SH(M, K), A), IN(F32, SH(K, N), B));
    free(A);
    free(B);
    free(C);
    /* batched and odd sizes: [3,65,33] x [33,67] */
    A = random_array(3 * 65 * 33);
    B = random_array(33 * 67);
    C = malloc(sizeof(float) * 3 * 65 * 67);
    const uint32_t dA2[] = {1, 3, 65, 33}, dB2[] = {1, 1, 33, 67}, dC2[] = {1, 3, 65, 67};
    matmul_ref(A, dA2, B, dB2, C, dC2);
    EXPECT(OP(K_MATMUL), F32, SH(3, 65, 67), C, 1e-5, IN(F32, SH(3, 65, 33), A), IN(F32, SH(33, 67), B));
    free(A);
    free(B);
    free(C);
}

/* alpha * A' B' + beta * C, with c broadcast from [cr, cc] (cr, cc 1 or full; 0 = absent) */
static void gemm_ref(const float *a, const float *b, const float *c, uint32_t cr, uint32_t cc, float *y, uint32_t M,
                     uint32_t K, uint32_t N, bool at, bool bt, double alpha, double beta)
{
    for (uint32_t m = 0; m < M; m++)
        for (uint32_t n = 0; n < N; n++) {
            double s = 0;
            for (uint32_t k = 0; k < K; k++)
                s += (double)(at ? a[k * M + m] : a[m * K + k]) * (bt ? b[n * K + k] : b[k * N + n]);
            s *= alpha;
            if (c)
                s += beta * c[(cr == 1 ? 0 : m) * cc + (cc == 1 ? 0 : n)];
            y[m * N + n] = (float)s;
        }
}

static void test_gemm(void)
{
    /* a [2,3], b [3,2]: a b = [[4,5],[10,11]] */
#define GA VF32(1, 2, 3, 4, 5, 6)
#define GB VF32(1, 0, 0, 1, 1, 1)
    EXPECT(OP(K_GEMM, .gemm = WNN_GEMM_OPTIONS_INIT), F32, SH(2, 2), VF32(4, 5, 10, 11), 0, IN(F32, SH(2, 3), GA),
           IN(F32, SH(3, 2), GB));
    EXPECT(OP(K_GEMM, .gemm = {.alpha = D(2.0), .beta = D(0.5), .a_transpose = false, .b_transpose = false}, .has_c = true), F32, SH(2, 2), VF32(13, 20, 25, 32), 0,
           IN(F32, SH(2, 3), GA), IN(F32, SH(3, 2), GB), IN(F32, SH(2), VF32(10, 20)));
    /* the same through transposed storage */
    EXPECT(OP(K_GEMM, .gemm = {.alpha = D(2.0), .beta = D(0.5), .a_transpose = true, .b_transpose = false}, .has_c = true), F32, SH(2, 2), VF32(13, 20, 25, 32), 0,
           IN(F32, SH(3, 2), VF32(1, 4, 2, 5, 3, 6)), IN(F32, SH(3, 2), GB), IN(F32, SH(2), VF32(10, 20)));
    EXPECT(OP(K_GEMM, .gemm = {.alpha = D(2.0), .beta = D(0.5), .a_transpose = false, .b_transpose = true}, .has_c = true), F32, SH(2, 2), VF32(13, 20, 25, 32), 0,
           IN(F32, SH(2, 3), GA), IN(F32, SH(2, 3), VF32(1, 0, 1, 0, 1, 1)), IN(F32, SH(2), VF32(10, 20)));
    EXPECT(OP(K_GEMM, .gemm = {.alpha = D(2.0), .beta = D(0.5), .a_transpose = true, .b_transpose = true}, .has_c = true), F32, SH(2, 2), VF32(13, 20, 25, 32), 0,
           IN(F32, SH(3, 2), VF32(1, 4, 2, 5, 3, 6)), IN(F32, SH(2, 3), VF32(1, 0, 1, 0, 1, 1)),
           IN(F32, SH(2), VF32(10, 20)));
    /* c as [M,1], scalar, full [M,N]; beta 0; no c with alpha */
    EXPECT(OP(K_GEMM, .gemm = WNN_GEMM_OPTIONS_INIT, .has_c = true), F32, SH(2, 2), VF32(5, 6, 12, 13), 0,
           IN(F32, SH(2, 3), GA), IN(F32, SH(3, 2), GB), IN(F32, SH(2, 1), VF32(1, 2)));
    EXPECT(OP(K_GEMM, .gemm = WNN_GEMM_OPTIONS_INIT, .has_c = true), F32, SH(2, 2), VF32(104, 105, 110, 111), 0,
           IN(F32, SH(2, 3), GA), IN(F32, SH(3, 2), GB), IN(F32, SH0, VF32(100)));
    EXPECT(OP(K_GEMM, .gemm = {.alpha = D(1.0), .beta = D(-1.0), .a_transpose = false, .b_transpose = false}, .has_c = true), F32, SH(2, 2), VF32(3, 3, 7, 7), 0,
           IN(F32, SH(2, 3), GA), IN(F32, SH(3, 2), GB), IN(F32, SH(2, 2), VF32(1, 2, 3, 4)));
    EXPECT(OP(K_GEMM, .gemm = {.alpha = D(1.0), .beta = D(0.0), .a_transpose = false, .b_transpose = false}, .has_c = true), F32, SH(2, 2), VF32(4, 5, 10, 11), 0,
           IN(F32, SH(2, 3), GA), IN(F32, SH(3, 2), GB), IN(F32, SH(2, 2), VF32(1, 2, 3, 4)));
    EXPECT(OP(K_GEMM, .gemm = {.alpha = D(0.5), .beta = D(1.0), .a_transpose = false, .b_transpose = false}), F32, SH(2, 2), VF32(2, 2.5f, 5, 5.5f), 0,
           IN(F32, SH(2, 3), GA), IN(F32, SH(3, 2), GB));
    EXPECT(OP(K_GEMM, .gemm = WNN_GEMM_OPTIONS_INIT), F16, SH(2, 2), VF16(0x4700, 0x4900, 0x4B80, 0x4D80), 0,
           IN(F16, SH(2, 2), VF16(0x3C00, 0x4000, 0x4200, 0x4400)), IN(F16, SH(2, 2), VF16(0x3C00, 0x4000, 0x4200, 0x4400)));
#undef GA
#undef GB

    /* larger, every transpose combination, c [1,N] */
    const uint32_t M = 67, K = 45, N = 70;
    float *A = random_array(M * K), *B = random_array(K * N), *Cv = random_array(N), *Y = malloc(sizeof(float) * M * N);
    for (int t = 0; t < 4; t++) {
        bool at = t & 1, bt = t & 2;
        gemm_ref(A, B, Cv, 1, N, Y, M, K, N, at, bt, 1.5, -0.25);
        EXPECT(OP(K_GEMM, .gemm = {.alpha = D(1.5), .beta = D(-0.25), .a_transpose = at, .b_transpose = bt}, .has_c = true), F32, SH(M, N), Y, 1e-5,
               IN(F32, at ? SH(K, M) : SH(M, K), A), IN(F32, bt ? SH(N, K) : SH(K, N), B), IN(F32, SH(1, N), Cv));
    }
    free(A);
    free(B);
    free(Cv);
    free(Y);
}

/* ---- a large element-wise add (the threaded path) ---------------------------------------------- */

static void test_large_add(void)
{
    const uint32_t n = 1u << 20;
    float *a = malloc(sizeof(float) * n), *b = malloc(sizeof(float) * n), *want = malloc(sizeof(float) * n);
    for (uint32_t i = 0; i < n; i++) {
        a[i] = (float)i;
        b[i] = (float)(2 * (i % 1000));
        want[i] = a[i] + b[i];
    }
    EXPECT(OP(K_ADD), F32, SH(n), want, 0, IN(F32, SH(n), a), IN(F32, SH(n), b));
    /* broadcast a row over many rows */
    for (uint32_t i = 0; i < n; i++)
        want[i] = a[i] + b[i % 1024];
    EXPECT(OP(K_ADD), F32, SH(1024, 1024), want, 0, IN(F32, SH(1024, 1024), a), IN(F32, SH(1024), b));
    /* int32, with wraparound in some lanes */
    int32_t *ia = malloc(sizeof(int32_t) * n), *ib = malloc(sizeof(int32_t) * n), *iw = malloc(sizeof(int32_t) * n);
    for (uint32_t i = 0; i < n; i++) {
        ia[i] = (i % 3 == 0) ? INT32_MAX : (int32_t)i;
        ib[i] = (int32_t)(i % 5);
        iw[i] = (int32_t)((uint32_t)ia[i] + (uint32_t)ib[i]);
    }
    EXPECT(OP(K_ADD), I32, SH(n), iw, 0, IN(I32, SH(n), ia), IN(I32, SH(n), ib));
    /* a large unary too */
    for (uint32_t i = 0; i < n; i++) {
        a[i] = (float)i - (float)(n / 2);
        want[i] = a[i] < 0 ? 0 : a[i];
    }
    EXPECT(OP(K_RELU), F32, SH(n), want, 0, IN(F32, SH(n), a));
    free(a);
    free(b);
    free(want);
    free(ia);
    free(ib);
    free(iw);
}

int main(void)
{
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.device = test_device();
    CHECK_OK(wnn_context_create(&o, &ctx));
    if (!ctx)
        TEST_DONE();
    test_binary_float();
    test_binary_int();
    test_unary();
    test_clamp();
    test_cast();
    test_shape_ops();
    test_softmax();
    test_matmul();
    test_gemm();
    test_large_add();
    CHECK_OK(wnn_context_finish(ctx));
    wnn_context_release(ctx);
    TEST_DONE();
}
