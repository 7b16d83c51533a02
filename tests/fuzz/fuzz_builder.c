/*
** fuzz_builder.c -- libFuzzer harness for the graph builder and the kernels,
** through the public API only (docs/fuzzing.md).
**
** The bytes are a small program: leaves (graph inputs and constants of every
** data type, int4/uint4 included, small shapes and now and then an edge or
** overflowing one), then up to MAX_STEPS operators with their options, most
** arguments shaped to fit so that deep graphs build, one byte in a few
** breaking a rule. The same bytes are decoded once per device, cpu and null.
**
** Oracles (each an abort() with a message):
**   - a builder call that fails leaves a known status and a message; one
**     that succeeds yields a valid descriptor (rank <= WNN_MAX_RANK, every
**     dimension and the element count in 1..2^31-1) and its first operand is
**     one the operator's opSupportLimits allow (data type and rank; for
**     triage only, WNN_FUZZ_NO_LIMITS_ORACLE=1 turns this one off);
**   - both devices accept and refuse the same calls with the same status;
**   - a graph whose operands are all small (RUN_ELEMENTS) is built on both,
**     dispatched twice on each with the same inputs, and every output read
**     back agrees bit for bit across devices and dispatches. NaN bits are
**     compared like any others: both devices run the same kernels;
**   - once everything is released and finished, no device memory is in use.
** Graphs with larger operands are only built (BUILD_BYTES), or not built at
** all when an operand would be too big to allocate here: huge and
** overflowing shapes exercise validation without running anything huge.
*/
#include <math.h>

#define FUZZ_NAME "fuzz_builder"
#include "fuzz_common.h"

#define MAX_LEAVES 5
#define MAX_STEPS 16
#define MAX_POOL 96
#define MAX_TRACE 256
#define MAX_OUTPUTS 3
#define MAX_SPLIT 64
#define MAX_INPUTS 256
#define RUN_ELEMENTS 4096u                /* every operand at most this: build and run */
#define BUILD_BYTES ((uint64_t)64 << 20)  /* every operand at most this: build only */

#define F32 WNN_DATA_TYPE_FLOAT32
#define F16 WNN_DATA_TYPE_FLOAT16
#define I32 WNN_DATA_TYPE_INT32
#define U32 WNN_DATA_TYPE_UINT32
#define I64 WNN_DATA_TYPE_INT64
#define U64 WNN_DATA_TYPE_UINT64
#define I8 WNN_DATA_TYPE_INT8
#define U8 WNN_DATA_TYPE_UINT8
#define I4 WNN_DATA_TYPE_INT4
#define U4 WNN_DATA_TYPE_UINT4

/* ---- reading the bytes ---------------------------------------------------- */

/* A value below n (n >= 1): one byte, two when n is over 256. */
static uint32_t below(reader *r, uint32_t n)
{
    uint32_t v = take(r);
    if (n > 256)
        v = v << 8 | take(r);
    return n ? v % n : 0;
}

static bool flag(reader *r) { return take(r) & 1; }

/* One byte in sixteen picks an edge value: overflowing products, 2^31 and
** 2^32 wraps, zero. */
static const uint32_t edges[16] = {0,       5,           8,          17,          255,        4096,
                                   65536,   65537,       46341,      1u << 21,    1u << 30,   2147483647u,
                                   2147483648u, 4294967295u, 3037000500u, 1000000u};

static uint32_t dim(reader *r)
{
    uint8_t b = take(r);
    return b >= 0xf0 ? edges[b & 15] : 1u + b % 4u;
}

/* Paddings, offsets and other counts that are usually 0..3. */
static uint32_t small(reader *r)
{
    uint8_t b = take(r);
    return b >= 0xf0 ? edges[b & 15] : b % 4u;
}

/* An axis below rank, or now and then any value. */
static uint32_t axis(reader *r, uint32_t rank)
{
    uint8_t b = take(r);
    return b >= 0xf0 ? edges[b & 15] % 12u : b % (rank ? rank : 1u);
}

static double real(reader *r)
{
    static const double values[16] = {0.0, 1.0, -1.0, 0.5, 2.0, 1e-5, -0.25, 6.0,
                                      1e30, -1e30, 1e-40, NAN, INFINITY, -INFINITY, 0.01, 3.0};
    return values[take(r) & 15];
}

static const wnn_data_type all_types[16] = {F32, F32, F32, F16, F16, I32, U32, I64,
                                            U64, I8,  U8,  U8,  I4,  U4,  I32, (wnn_data_type)11};

static wnn_data_type any_type(reader *r) { return all_types[take(r) & 15]; }
static wnn_data_type float_type(reader *r) { return (take(r) & 7) == 0 ? F16 : F32; }

/* ---- deterministic values ------------------------------------------------------ */

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* float32 bits: ordinary small numbers, and NaNs with payloads and signs,
** infinities, signed zeros, huge and subnormal values. */
static uint32_t f32_bits(uint64_t h)
{
    uint32_t sign = (uint32_t)(h >> 63) << 31;
    float v;
    switch (h & 15) {
    case 0: return 0x7fc00000u | (uint32_t)(h >> 20 & 0x3fffff) | sign;
    case 1: return 0x7f800000u | sign;
    case 2: return sign;
    case 3: return 0x7f7fffffu | sign;
    case 4: return (uint32_t)(h >> 20 & 0x7fffff) | sign;
    case 5: v = (float)((int)(h >> 8 & 15) - 8); break;
    default: v = (float)((int64_t)((h >> 16) % 20001) - 10000) / 1000.0f; break;
    }
    uint32_t bits;
    memcpy(&bits, &v, 4);
    return bits;
}

static uint16_t f16_bits(uint64_t h)
{
    uint16_t sign = (uint16_t)(h >> 63 << 15);
    switch (h & 15) {
    case 0: return (uint16_t)(0x7e00u | (h >> 20 & 0x1ff) | sign);
    case 1: return (uint16_t)(0x7c00u | sign);
    case 2: return sign;
    case 3: return (uint16_t)(0x7bffu | sign);
    case 4: return (uint16_t)((h >> 20 & 0x3ff) | sign);
    default: return (uint16_t)(sign | (9u + (h >> 8) % 12u) << 10 | (h >> 24 & 0x3ff)); /* 2^-6 .. 2^5 */
    }
}

static uint64_t int_bits(uint64_t h)
{
    switch (h & 7) {
    case 0: return 0;
    case 1: return UINT64_MAX;
    case 2: return (uint64_t)1 << (h >> 8) % 64;
    case 3: return h >> 3;
    default: return (uint64_t)((int64_t)((h >> 8) % 9) - 4);
    }
}

/* Fills bytes of data of type t (packed for int4/uint4) from seed. */
static void fill(void *buf, size_t bytes, wnn_data_type t, uint64_t seed)
{
    unsigned char *b = buf;
    size_t es = t == I4 || t == U4 ? 1 : wnn_data_type_size(t);
    if (es == 0) {
        memset(buf, 0, bytes);
        return;
    }
    for (size_t i = 0; i + es <= bytes; i += es) {
        uint64_t h = mix(seed * 0x100000001b3ull + i);
        if (t == F32) {
            uint32_t v = f32_bits(h);
            memcpy(b + i, &v, 4);
        } else if (t == F16) {
            uint16_t v = f16_bits(h);
            memcpy(b + i, &v, 2);
        } else if (t == I4 || t == U4) {
            b[i] = (unsigned char)(h >> 17);
        } else {
            uint64_t v = int_bits(h);
            memcpy(b + i, &v, es); /* little-endian: the low bytes */
        }
    }
}

/* ---- the decoder's state ---------------------------------------------------------- */

typedef struct slot {
    wnn_operand *op;
    wnn_operand_desc desc;
    bool leaf;
} slot;

typedef struct state {
    wnn_context *ctx;
    const char *device;
    wnn_graph_builder *b;
    slot pool[MAX_POOL];
    unsigned count;
    unsigned names;                      /* graph inputs made so far */
    wnn_status trace[MAX_TRACE];         /* each call's outcome, to compare devices */
    unsigned traced;
    uint64_t max_elements, max_bytes;    /* over every operand made */
    unsigned outputs[MAX_OUTPUTS];       /* pool indices of the graph's outputs */
    unsigned output_count;
    uint64_t seed;                       /* of the dispatch's input data */
} state;

static uint64_t element_count(const wnn_operand_desc *d)
{
    uint64_t n = 1;
    for (uint32_t i = 0; i < d->rank && i < WNN_MAX_RANK; i++)
        n = d->shape[i] && n > UINT64_MAX / d->shape[i] ? UINT64_MAX : n * d->shape[i];
    return n;
}


static void record(state *s, wnn_status st)
{
    if (s->traced < MAX_TRACE)
        s->trace[s->traced++] = st;
}

static bool g_limits_oracle = true;

/* The first operand of op must be one its opSupportLimits allow. */
static void check_limits(state *s, const char *op, wnn_operand *first)
{
    if (!g_limits_oracle)
        return;
    const char *name = wnn_operator_operand_name(op, 0);
    wnn_tensor_limits lim;
    if (name == NULL || wnn_context_get_operand_limits(s->ctx, op, name, &lim) != WNN_OK)
        fail("%s: no opSupportLimits for its first operand (%s)", op, wnn_last_error_message());
    wnn_operand_desc d;
    wnn_operand_get_desc(first, &d);
    if (!(lim.data_types & WNN_DATA_TYPE_BIT(d.data_type)) || d.rank < lim.min_rank || d.rank > lim.max_rank)
        fail("%s on %s accepted %s %s of rank %u; opSupportLimits say types 0x%x, ranks %u..%u", op, s->device,
             name, wnn_data_type_name(d.data_type), d.rank, lim.data_types, lim.min_rank, lim.max_rank);
}

/* Checks the outcome of one builder call and keeps a new operand. first is
** the operand checked against the limits (NULL: none). */
static wnn_operand *note(state *s, const char *op, wnn_operand *first, wnn_operand *out, bool leaf)
{
    wnn_status st = wnn_graph_builder_status(s->b);
    if (out == NULL) {
        const char *m = wnn_graph_builder_error_message(s->b);
        if (st == WNN_OK || !known_status(st))
            fail("%s on %s returned NULL with status %d", op, s->device, (int)st);
        if (m == NULL || m[0] == '\0')
            fail("%s on %s failed (%s) without a message", op, s->device, wnn_status_string(st));
        record(s, st);
        wnn_graph_builder_clear_error(s->b);
        return NULL;
    }
    if (st != WNN_OK)
        fail("%s on %s returned an operand, the builder holds %s", op, s->device, wnn_status_string(st));
    record(s, WNN_OK);
    wnn_operand_desc d;
    wnn_operand_get_desc(out, &d);
    if (d.rank > WNN_MAX_RANK)
        fail("%s on %s made an operand of rank %u", op, s->device, d.rank);
    if (wnn_data_type_size(d.data_type) == 0)
        fail("%s on %s made an operand of data type %d", op, s->device, (int)d.data_type);
    for (uint32_t i = 0; i < d.rank; i++)
        if (d.shape[i] == 0 || d.shape[i] > WNN_MAX_DIMENSION)
            fail("%s on %s made an operand with shape[%u] = %u", op, s->device, i, d.shape[i]);
    uint64_t n = element_count(&d);
    if (n > WNN_MAX_DIMENSION) {
        char text[160];
        int o = 0;
        for (uint32_t i = 0; i < d.rank; i++)
            o += snprintf(text + o, sizeof text - (size_t)o, "%s%u", i ? ", " : "", d.shape[i]);
        fail("%s on %s made a %s operand [%s] of %llu elements, over 2^31-1", op, s->device,
             wnn_data_type_name(d.data_type), text, (unsigned long long)n);
    }
    if (first != NULL)
        check_limits(s, op, first);
    uint64_t bytes = wnn_operand_desc_byte_length(&d);
    s->max_elements = n > s->max_elements ? n : s->max_elements;
    s->max_bytes = bytes > s->max_bytes ? bytes : s->max_bytes;
    if (s->count < MAX_POOL)
        s->pool[s->count++] = (slot){out, d, leaf};
    return out;
}

/* An operand of the pool, or NULL when there is none (and, rarely, on purpose). */
static slot *pick(state *s, reader *r)
{
    static slot none;
    uint8_t b = take(r);
    if (s->count == 0 || b == 0xff) {
        none = (slot){NULL, {WNN_DATA_TYPE_INVALID, 0, {0}}, true};
        return &none;
    }
    return &s->pool[b % s->count];
}

/* A new leaf of type t and the given shape, one dimension spoiled now and
** then: a constant when small (and the bytes say so), else a graph input. */
static wnn_operand *fresh(state *s, reader *r, wnn_data_type t, uint32_t rank, const uint32_t *shape)
{
    wnn_operand_desc d = {t, rank, {0}};
    for (uint32_t i = 0; i < rank && i < WNN_MAX_RANK; i++)
        d.shape[i] = shape[i];
    uint8_t b = take(r);
    if ((b & 0x1f) == 0x1f && rank > 0 && rank <= WNN_MAX_RANK)
        d.shape[(b >> 5) % rank] = dim(r);
    if ((b & 0xe0) == 0xe0)
        d.data_type = any_type(r);
    uint64_t n = element_count(&d);
    if ((b & 2) && rank <= WNN_MAX_RANK && n <= RUN_ELEMENTS) {
        size_t bytes = (size_t)wnn_operand_desc_byte_length(&d);
        void *data = malloc(bytes ? bytes : 1);
        fill(data, bytes, d.data_type, s->seed + s->count * 131u + b);
        wnn_operand *c = wnn_graph_builder_constant(s->b, &d, data, bytes);
        free(data);
        return note(s, "constant", NULL, c, true);
    }
    char name[16];
    snprintf(name, sizeof name, "x%u", s->names++);
    return note(s, "input", NULL, wnn_graph_builder_input(s->b, name, &d), true);
}

static void leaves(state *s, reader *r)
{
    unsigned n = 1 + below(r, MAX_LEAVES);
    for (unsigned i = 0; i < n; i++) {
        uint32_t shape[WNN_MAX_RANK], rank = take(r) >= 0xf8 ? 5 + below(r, 5) : below(r, 5);
        wnn_data_type t = any_type(r);
        for (uint32_t k = 0; k < rank && k < WNN_MAX_RANK; k++)
            shape[k] = dim(r);
        switch (take(r) & 7) {
        case 6:
            note(s, "constant", NULL, wnn_graph_builder_constant_scalar(s->b, t, real(r)), true);
            break;
        case 7: {
            static const int64_t ints[8] = {0, 1, -1, 7, INT64_MAX, INT64_MIN, 255, -129};
            note(s, "constant", NULL, wnn_graph_builder_constant_scalar_int64(s->b, t, ints[take(r) & 7]), true);
            break;
        }
        default:
            fresh(s, r, t, rank, shape);
            break;
        }
    }
}

/* ---- operators ------------------------------------------------------------------------ */

typedef wnn_operand *(*binary_fn)(wnn_graph_builder *, wnn_operand *, wnn_operand *);
typedef wnn_operand *(*unary_fn)(wnn_graph_builder *, wnn_operand *);
typedef wnn_operand *(*reduce_fn)(wnn_graph_builder *, wnn_operand *, const wnn_reduce_options *);
typedef wnn_operand *(*pool_fn)(wnn_graph_builder *, wnn_operand *, const wnn_pool2d_options *);

static const struct {
    const char *name;
    binary_fn fn;
} binaries[] = {
    {"add", wnn_add}, {"sub", wnn_sub}, {"mul", wnn_mul}, {"div", wnn_div}, {"max", wnn_max}, {"min", wnn_min},
    {"pow", wnn_pow}, {"equal", wnn_equal}, {"notEqual", wnn_not_equal}, {"greater", wnn_greater},
    {"greaterOrEqual", wnn_greater_or_equal}, {"lesser", wnn_lesser}, {"lesserOrEqual", wnn_lesser_or_equal},
    {"logicalAnd", wnn_logical_and}, {"logicalOr", wnn_logical_or}, {"logicalXor", wnn_logical_xor},
};

static const struct {
    const char *name;
    unary_fn fn;
} unaries[] = {
    {"abs", wnn_abs}, {"neg", wnn_neg}, {"exp", wnn_exp}, {"log", wnn_log}, {"sqrt", wnn_sqrt},
    {"relu", wnn_relu}, {"sigmoid", wnn_sigmoid}, {"tanh", wnn_tanh}, {"ceil", wnn_ceil},
    {"floor", wnn_floor}, {"cos", wnn_cos}, {"sin", wnn_sin}, {"tan", wnn_tan}, {"erf", wnn_erf},
    {"reciprocal", wnn_reciprocal}, {"roundEven", wnn_round_even}, {"sign", wnn_sign},
    {"identity", wnn_identity}, {"isNaN", wnn_is_nan}, {"isInfinite", wnn_is_infinite},
    {"logicalNot", wnn_logical_not}, {"gelu", wnn_gelu}, {"hardSwish", wnn_hard_swish},
    {"softplus", wnn_softplus}, {"softsign", wnn_softsign},
};

static const struct {
    const char *name;
    reduce_fn fn;
} reductions[] = {
    {"reduceL1", wnn_reduce_l1}, {"reduceL2", wnn_reduce_l2}, {"reduceLogSum", wnn_reduce_log_sum},
    {"reduceLogSumExp", wnn_reduce_log_sum_exp}, {"reduceMax", wnn_reduce_max},
    {"reduceMean", wnn_reduce_mean}, {"reduceMin", wnn_reduce_min}, {"reduceProduct", wnn_reduce_product},
    {"reduceSum", wnn_reduce_sum}, {"reduceSumSquare", wnn_reduce_sum_square},
};


/* A list of axes below rank (count <= WNN_MAX_RANK), now and then a bad one. */
static uint32_t axes_list(reader *r, uint32_t rank, uint32_t *axes)
{
    uint32_t n = below(r, rank + 2);
    n = n > WNN_MAX_RANK ? WNN_MAX_RANK : n;
    uint32_t used = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t a = axis(r, rank);
        if (a < 32 && (used >> a & 1) && !flag(r))
            a = (a + 1) % (rank ? rank : 1);
        axes[i] = a;
        used |= a < 32 ? 1u << a : 0;
    }
    return n;
}

/* b for a binary operator: a itself, a's type cast, or anything. */
static wnn_operand *partner(state *s, reader *r, slot *a)
{
    uint8_t m = take(r) & 3;
    if (m == 0)
        return a->op;
    slot *b = pick(s, r);
    if (m == 1 && b->op && a->op && b->desc.data_type != a->desc.data_type)
        return note(s, "cast", b->op, wnn_cast(s->b, b->op, a->desc.data_type), false);
    return b->op;
}

static void op_conv(state *s, reader *r, slot *x, bool transpose)
{
    const wnn_operand_desc *d = &x->desc;
    bool nhwc = (take(r) & 3) == 0;
    uint32_t c = d->rank == 4 ? d->shape[nhwc ? 3 : 1] : dim(r);
    uint32_t groups = (take(r) & 3) == 0 ? c : (take(r) & 7) == 0 ? dim(r) : 1;
    uint32_t per = groups && c % groups == 0 ? c / groups : c;
    uint32_t o = (1 + below(r, 3)) * (groups ? groups : 1), kh = 1 + below(r, 3), kw = 1 + below(r, 3);
    uint32_t layout = below(r, transpose ? 3 : 4) + ((take(r) & 0x3f) == 0x3f ? 7 : 0);
    uint32_t f[4];
    if (!transpose) {
        static const uint8_t order[4][4] = {{0, 1, 2, 3}, {2, 3, 1, 0}, {0, 2, 3, 1}, {1, 2, 3, 0}};
        uint32_t v[4] = {o, per, kh, kw}; /* o, i, h, w */
        for (int k = 0; k < 4; k++)
            f[k] = v[order[layout % 4][k]];
    } else {
        static const uint8_t order[3][4] = {{0, 1, 2, 3}, {2, 3, 1, 0}, {1, 2, 3, 0}};
        uint32_t v[4] = {c, o / (groups ? groups : 1), kh, kw}; /* i, o, h, w */
        for (int k = 0; k < 4; k++)
            f[k] = v[order[layout % 3][k]];
    }
    wnn_operand *filter = fresh(s, r, d->data_type == F16 ? F16 : F32, 4, f);
    wnn_operand *bias = NULL;
    if (flag(r)) {
        uint32_t bo = transpose ? (o / (groups ? groups : 1)) * groups : o;
        bias = fresh(s, r, d->data_type == F16 ? F16 : F32, 1, &bo);
    }
    uint32_t pad[4], strides[2], dil[2];
    for (int k = 0; k < 4; k++)
        pad[k] = small(r);
    for (int k = 0; k < 2; k++) {
        strides[k] = 1 + small(r) % 3 - ((take(r) & 0x3f) == 0 ? 1 : 0);
        dil[k] = (take(r) & 7) == 0 ? 2 : 1;
    }
    wnn_input_layout il = nhwc ? WNN_INPUT_LAYOUT_NHWC : WNN_INPUT_LAYOUT_NCHW;
    if (!transpose) {
        wnn_conv2d_options co = WNN_CONV2D_OPTIONS_INIT;
        memcpy(co.padding, pad, sizeof pad);
        memcpy(co.strides, strides, sizeof strides);
        memcpy(co.dilations, dil, sizeof dil);
        co.groups = groups;
        co.input_layout = il;
        co.filter_layout = (wnn_conv2d_filter_layout)layout;
        co.bias = bias;
        note(s, "conv2d", x->op, wnn_conv2d(s->b, x->op, filter, flag(r) ? NULL : &co), false);
    } else {
        wnn_conv_transpose2d_options co = WNN_CONV_TRANSPOSE2D_OPTIONS_INIT;
        memcpy(co.padding, pad, sizeof pad);
        memcpy(co.strides, strides, sizeof strides);
        memcpy(co.dilations, dil, sizeof dil);
        co.output_padding[0] = small(r) % 2;
        co.output_padding[1] = small(r) % 2;
        if ((take(r) & 3) == 0) { /* {0, 0} otherwise: computed */
            co.output_sizes[0] = dim(r) + small(r);
            co.output_sizes[1] = dim(r) + small(r);
        }
        co.groups = groups;
        co.input_layout = il;
        co.filter_layout = (wnn_conv_transpose2d_filter_layout)layout;
        co.bias = bias;
        note(s, "convTranspose2d", x->op, wnn_conv_transpose2d(s->b, x->op, filter, flag(r) ? NULL : &co), false);
    }
}

static void op_pool(state *s, reader *r, slot *x)
{
    static const struct {
        const char *name;
        pool_fn fn;
    } pools[3] = {{"averagePool2d", wnn_average_pool2d}, {"l2Pool2d", wnn_l2_pool2d}, {"maxPool2d", wnn_max_pool2d}};
    unsigned k = below(r, 3);
    wnn_pool2d_options o = WNN_POOL2D_OPTIONS_INIT;
    if (flag(r)) { /* {0, 0} otherwise: the whole input */
        o.window_dimensions[0] = dim(r);
        o.window_dimensions[1] = dim(r);
    }
    for (int i = 0; i < 4; i++)
        o.padding[i] = small(r);
    for (int i = 0; i < 2; i++) {
        o.strides[i] = 1 + small(r) % 3 - ((take(r) & 0x3f) == 0 ? 1 : 0);
        o.dilations[i] = (take(r) & 7) == 0 ? 2 : 1;
    }
    o.layout = (wnn_input_layout)((take(r) & 3) == 0);
    o.rounding_type = (wnn_rounding_type)(take(r) & 1);
    if ((take(r) & 7) == 0) {
        o.output_sizes[0] = dim(r);
        o.output_sizes[1] = dim(r);
    }
    note(s, pools[k].name, x->op, pools[k].fn(s->b, x->op, flag(r) ? NULL : &o), false);
}

/* The recurrent operators, with every operand shaped from the decoded sizes. */
static void op_recurrent(state *s, reader *r, unsigned which)
{
    wnn_data_type t = float_type(r);
    uint32_t steps = 1 + below(r, 3), batch = 1 + below(r, 2), in = 1 + below(r, 3), hidden = 1 + below(r, 3);
    if ((take(r) & 0x1f) == 0)
        hidden = edges[take(r) & 15];
    bool cell = which & 1, lstm = which >= 2;
    uint32_t gates = lstm ? 4 : 3, dirs = 1;
    wnn_recurrent_direction dir = (wnn_recurrent_direction)below(r, 3);
    if (!cell && dir == WNN_RECURRENT_DIRECTION_BOTH)
        dirs = 2;
    uint32_t g = gates * hidden;
    uint32_t xin[3] = {steps, batch, in}, xc[2] = {batch, in};
    uint32_t w[3] = {dirs, g, in}, rw[3] = {dirs, g, hidden}, bias[2] = {dirs, g};
    uint32_t st[3] = {dirs, batch, hidden}, peep[2] = {dirs, 3 * hidden};
    wnn_operand *x = cell ? fresh(s, r, t, 2, xc) : fresh(s, r, t, 3, xin);
    wnn_operand *wt = cell ? fresh(s, r, t, 2, w + 1) : fresh(s, r, t, 3, w);
    wnn_operand *rwt = cell ? fresh(s, r, t, 2, rw + 1) : fresh(s, r, t, 3, rw);
    wnn_operand *b = flag(r) ? (cell ? fresh(s, r, t, 1, bias + 1) : fresh(s, r, t, 2, bias)) : NULL;
    wnn_operand *rb = flag(r) ? (cell ? fresh(s, r, t, 1, bias + 1) : fresh(s, r, t, 2, bias)) : NULL;
    wnn_operand *outs[3];
    bool has_act = flag(r);
    wnn_recurrent_activation act[3];
    for (int i = 0; i < 3; i++)
        act[i] = (wnn_recurrent_activation)(below(r, 3) + ((take(r) & 0x3f) == 0 ? 5 : 0));
    uint32_t steps_arg = (take(r) & 0x1f) == 0 ? small(r) : steps;
    size_t n = 0;
    const char *name = which == 0 ? "gru" : which == 1 ? "gruCell" : which == 2 ? "lstm" : "lstmCell";
    if (which == 0) {
        wnn_gru_options o = WNN_GRU_OPTIONS_INIT;
        o.bias = b;
        o.recurrent_bias = rb;
        o.initial_hidden_state = flag(r) ? fresh(s, r, t, 3, st) : NULL;
        o.reset_before = !flag(r);
        o.return_sequence = flag(r);
        o.direction = dir;
        o.layout = (wnn_gru_weight_layout)(take(r) & 1);
        o.activations = has_act ? act : NULL;
        o.activations_count = 2;
        n = wnn_gru(s->b, x, wt, rwt, steps_arg, hidden, &o, outs);
    } else if (which == 1) {
        wnn_gru_cell_options o = WNN_GRU_CELL_OPTIONS_INIT;
        o.bias = b;
        o.recurrent_bias = rb;
        o.reset_before = !flag(r);
        o.layout = (wnn_gru_weight_layout)(take(r) & 1);
        o.activations = has_act ? act : NULL;
        o.activations_count = 2;
        wnn_operand *h = fresh(s, r, t, 2, st + 1);
        outs[0] = wnn_gru_cell(s->b, x, wt, rwt, h, hidden, &o);
        n = outs[0] != NULL;
    } else if (which == 2) {
        wnn_lstm_options o = WNN_LSTM_OPTIONS_INIT;
        o.bias = b;
        o.recurrent_bias = rb;
        o.peephole_weight = flag(r) ? fresh(s, r, t, 2, peep) : NULL;
        o.initial_hidden_state = flag(r) ? fresh(s, r, t, 3, st) : NULL;
        o.initial_cell_state = flag(r) ? fresh(s, r, t, 3, st) : NULL;
        o.return_sequence = flag(r);
        o.direction = dir;
        o.layout = (wnn_lstm_weight_layout)(take(r) & 1);
        o.activations = has_act ? act : NULL;
        o.activations_count = 3;
        n = wnn_lstm(s->b, x, wt, rwt, steps_arg, hidden, &o, outs);
    } else {
        wnn_lstm_cell_options o = WNN_LSTM_CELL_OPTIONS_INIT;
        o.bias = b;
        o.recurrent_bias = rb;
        o.peephole_weight = flag(r) ? fresh(s, r, t, 1, peep + 1) : NULL;
        o.layout = (wnn_lstm_weight_layout)(take(r) & 1);
        o.activations = has_act ? act : NULL;
        o.activations_count = 3;
        wnn_operand *h = fresh(s, r, t, 2, st + 1), *c = fresh(s, r, t, 2, st + 1);
        n = wnn_lstm_cell(s->b, x, wt, rwt, h, c, hidden, &o, outs);
    }
    if (n == 0) {
        note(s, name, NULL, NULL, false);
        return;
    }
    for (size_t i = 0; i < n; i++)
        note(s, name, i == 0 ? x : NULL, outs[i], false);
}

/* A shape for reshape: flat, a row, the input's own reversed, or anything. */
static uint32_t reshape_to(reader *r, const wnn_operand_desc *d, uint32_t *shape)
{
    uint64_t n = element_count(d);
    uint32_t rank = 0;
    switch (take(r) & 3) {
    case 0:
        shape[rank++] = (uint32_t)n;
        break;
    case 1:
        shape[rank++] = 1;
        shape[rank++] = (uint32_t)n;
        break;
    case 2:
        for (uint32_t i = d->rank; i-- > 0 && i < WNN_MAX_RANK;)
            shape[rank++] = d->shape[i];
        break;
    default:
        rank = below(r, WNN_MAX_RANK + 2);
        for (uint32_t i = 0; i < rank && i < WNN_MAX_RANK; i++)
            shape[i] = dim(r);
        break;
    }
    return rank;
}

static void step(state *s, reader *r)
{
    slot *x = pick(s, r);
    const wnn_operand_desc *d = &x->desc;
    uint32_t rank = d->rank <= WNN_MAX_RANK ? d->rank : WNN_MAX_RANK;
    uint32_t shape[WNN_MAX_RANK], v[WNN_MAX_RANK], w[WNN_MAX_RANK];
    memcpy(shape, d->shape, sizeof shape);
    unsigned op = below(r, 44);
    switch (op) {
    case 0:
    case 1:
    case 2: {
        unsigned i = below(r, COUNT(binaries));
        wnn_operand *b = partner(s, r, x);
        note(s, binaries[i].name, x->op, binaries[i].fn(s->b, x->op, b), false);
        break;
    }
    case 3:
    case 4: {
        unsigned i = below(r, COUNT(unaries));
        note(s, unaries[i].name, x->op, unaries[i].fn(s->b, x->op), false);
        break;
    }
    case 5: {
        unsigned k = below(r, 4);
        double a = real(r), b = real(r);
        if (k == 0) {
            wnn_elu_options o = {.alpha = &a};
            note(s, "elu", x->op, wnn_elu(s->b, x->op, flag(r) ? NULL : &o), false);
        } else if (k == 1) {
            wnn_hard_sigmoid_options o = {.alpha = &a, .beta = &b};
            note(s, "hardSigmoid", x->op, wnn_hard_sigmoid(s->b, x->op, flag(r) ? NULL : &o), false);
        } else if (k == 2) {
            wnn_leaky_relu_options o = {.alpha = &a};
            note(s, "leakyRelu", x->op, wnn_leaky_relu(s->b, x->op, flag(r) ? NULL : &o), false);
        } else {
            wnn_linear_options o = {.alpha = &a, .beta = b};
            note(s, "linear", x->op, wnn_linear(s->b, x->op, flag(r) ? NULL : &o), false);
        }
        break;
    }
    case 6: {
        static const uint64_t mags[8] = {0, 1, 3, 127, 128, (uint64_t)1 << 53 | 1, INT64_MAX, UINT64_MAX};
        wnn_clamp_options o = WNN_CLAMP_OPTIONS_INIT;
        uint8_t m = take(r);
        wnn_number lo = {.value = real(r)}, hi = {.value = real(r)};
        o.min_value = m & 1 ? &lo : NULL;
        o.max_value = m & 2 ? &hi : NULL;
        if ((lo.is_integer = m & 4)) {
            lo.negative = m & 8;
            lo.magnitude = mags[take(r) & 7];
        }
        if ((hi.is_integer = m & 16)) {
            hi.negative = m & 32;
            hi.magnitude = mags[take(r) & 7];
        }
        note(s, "clamp", x->op, wnn_clamp(s->b, x->op, (m & 0xc0) == 0xc0 ? NULL : &o), false);
        break;
    }
    case 7:
        note(s, "cast", x->op, wnn_cast(s->b, x->op, any_type(r)), false);
        break;
    case 8: {
        uint32_t n = reshape_to(r, d, v);
        note(s, "reshape", x->op, wnn_reshape(s->b, x->op, n, v), false);
        break;
    }
    case 9: {
        for (uint32_t i = 0; i < rank; i++)
            v[i] = i;
        for (uint32_t i = rank; i > 1; i--) {
            uint32_t j = below(r, i), tmp = v[i - 1];
            v[i - 1] = v[j];
            v[j] = tmp;
        }
        if (rank && (take(r) & 0x1f) == 0)
            v[below(r, rank)] = axis(r, rank + 1);
        note(s, "transpose", x->op, wnn_transpose(s->b, x->op, flag(r) ? NULL : v), false);
        break;
    }
    case 10: {
        wnn_operand *in[5] = {x->op};
        size_t n = 1 + below(r, 4);
        uint32_t ax = axis(r, rank);
        for (size_t i = 1; i < n; i++) {
            if (flag(r) && ax < rank) {
                shape[ax] = dim(r);
                in[i] = fresh(s, r, d->data_type, rank, shape);
            } else {
                in[i] = flag(r) ? x->op : pick(s, r)->op;
            }
        }
        if ((take(r) & 0x3f) == 0)
            n = 0;
        note(s, "concat", n ? x->op : NULL, wnn_concat(s->b, in, n, ax), false);
        break;
    }
    case 11: {
        for (uint32_t i = 0; i < rank; i++) {
            uint8_t m = take(r);
            v[i] = m >= 0xf0 ? edges[m & 15] : below(r, shape[i]);
            w[i] = m >= 0xe0 && m < 0xf0 ? edges[take(r) & 15] : 1 + below(r, shape[i] - (v[i] < shape[i] ? v[i] : 0));
            shape[i] = (take(r) & 3) == 0 ? 1 + small(r) : 1;
        }
        note(s, "slice", x->op, wnn_slice(s->b, x->op, v, w, flag(r) ? NULL : shape), false);
        break;
    }
    case 12:
        note(s, "softmax", x->op, wnn_softmax(s->b, x->op, axis(r, rank)), false);
        break;
    case 13:
    case 14: {
        /* b as [..., K, N] to match a's [..., M, K], or anything */
        wnn_operand *b;
        if (rank >= 2 && flag(r)) {
            shape[rank - 2] = shape[rank - 1];
            shape[rank - 1] = dim(r);
            uint32_t drop = below(r, rank - 1);
            b = fresh(s, r, d->data_type, rank - drop, shape + drop);
        } else {
            b = pick(s, r)->op;
        }
        if (op == 13) {
            note(s, "matmul", x->op, wnn_matmul(s->b, x->op, b), false);
        } else {
            wnn_gemm_options o = WNN_GEMM_OPTIONS_INIT;
            double alpha = real(r), beta = real(r);
            o.alpha = &alpha;
            o.beta = &beta;
            o.a_transpose = flag(r);
            o.b_transpose = flag(r);
            if (flag(r)) {
                v[0] = dim(r);
                v[1] = 1 + below(r, 4);
                o.c = fresh(s, r, d->data_type, below(r, 3), v);
            }
            note(s, "gemm", x->op, wnn_gemm(s->b, x->op, b, flag(r) ? NULL : &o), false);
        }
        break;
    }
    case 15: {
        wnn_operand *c = x->op;
        if (x->op && d->data_type != U8 && flag(r))
            c = note(s, "cast", x->op, wnn_cast(s->b, x->op, U8), false);
        slot *t = pick(s, r);
        wnn_operand *f = partner(s, r, t);
        note(s, "where", c, wnn_where(s->b, c, t->op, f), false);
        break;
    }
    case 16: {
        wnn_operand *slope = flag(r) ? x->op : rank && flag(r) ? fresh(s, r, d->data_type, 1, shape + rank - 1)
                                                               : pick(s, r)->op;
        note(s, "prelu", x->op, wnn_prelu(s->b, x->op, slope), false);
        break;
    }
    case 17:
    case 18: {
        unsigned i = below(r, COUNT(reductions));
        wnn_reduce_options o = WNN_REDUCE_OPTIONS_INIT;
        uint32_t axes[WNN_MAX_RANK] = {0};
        if (flag(r)) {
            o.axes_count = axes_list(r, rank, axes);
            o.axes = axes;
        }
        if ((take(r) & 0x3f) == 0)
            o.axes_count = edges[take(r) & 15];
        o.keep_dimensions = flag(r);
        note(s, reductions[i].name, x->op, reductions[i].fn(s->b, x->op, flag(r) ? NULL : &o), false);
        break;
    }
    case 19: {
        wnn_arg_min_max_options o = WNN_ARG_MIN_MAX_OPTIONS_INIT;
        o.keep_dimensions = flag(r);
        o.output_data_type = (take(r) & 7) == 0 ? any_type(r) : flag(r) ? I64 : I32;
        bool max = flag(r);
        uint32_t ax = axis(r, rank);
        note(s, max ? "argMax" : "argMin", x->op,
             (max ? wnn_arg_max : wnn_arg_min)(s->b, x->op, ax, flag(r) ? NULL : &o), false);
        break;
    }
    case 20: {
        wnn_cumulative_sum_options o = WNN_CUMULATIVE_SUM_OPTIONS_INIT;
        o.exclusive = flag(r);
        o.reversed = flag(r);
        note(s, "cumulativeSum", x->op, wnn_cumulative_sum(s->b, x->op, axis(r, rank), &o), false);
        break;
    }
    case 21:
    case 22: {
        static const wnn_data_type quantized[6] = {I8, U8, I32, U32, I4, U4};
        /* scale and zero point: a suffix of the input's shape, dimensions
        ** kept, divided or set to 1 */
        uint32_t keep = rank ? below(r, rank + 1) : 0;
        for (uint32_t i = 0; i < keep; i++) {
            uint32_t dv = shape[rank - keep + i];
            v[i] = flag(r) ? 1 : dv % 2 == 0 && flag(r) ? dv / 2 : dv;
        }
        if (op == 21) {
            wnn_operand *scale = fresh(s, r, d->data_type, keep, v);
            wnn_operand *zp = fresh(s, r, quantized[below(r, 6)], keep, v);
            note(s, "quantizeLinear", x->op, wnn_quantize_linear(s->b, x->op, scale, zp), false);
        } else {
            wnn_operand *scale = fresh(s, r, float_type(r), keep, v);
            wnn_operand *zp = fresh(s, r, d->data_type, keep, v);
            note(s, "dequantizeLinear", x->op, wnn_dequantize_linear(s->b, x->op, scale, zp), false);
        }
        break;
    }
    case 23:
    case 24:
        op_conv(s, r, x, op == 24);
        break;
    case 25:
        op_pool(s, r, x);
        break;
    case 26: {
        static const float scales[8] = {0.5f, 1.0f, 2.0f, 1.5f, 3.0f, 0.0f, -1.0f, 1e9f};
        wnn_resample2d_options o = WNN_RESAMPLE2D_OPTIONS_INIT;
        o.mode = (wnn_interpolation_mode)(below(r, 2) + ((take(r) & 0x3f) == 0 ? 4 : 0));
        o.scales[0] = (take(r) & 0x3f) == 0 ? NAN : scales[take(r) & 7];
        o.scales[1] = scales[take(r) & 7];
        if (flag(r)) { /* {0, 0} otherwise: from the scales */
            o.sizes[0] = dim(r);
            o.sizes[1] = dim(r);
        }
        if (flag(r)) {
            o.axes[0] = axis(r, 4);
            o.axes[1] = axis(r, 4);
        }
        note(s, "resample2d", x->op, wnn_resample2d(s->b, x->op, flag(r) ? NULL : &o), false);
        break;
    }
    case 27: {
        wnn_batch_normalization_options o = WNN_BATCH_NORMALIZATION_OPTIONS_INIT;
        uint32_t bn_axis = axis(r, rank);
        o.axis = &bn_axis;
        uint32_t len = bn_axis < rank ? shape[bn_axis] : dim(r);
        wnn_operand *mean = fresh(s, r, d->data_type, 1, &len), *var = fresh(s, r, d->data_type, 1, &len);
        o.scale = flag(r) ? fresh(s, r, d->data_type, 1, &len) : NULL;
        o.bias = flag(r) ? fresh(s, r, d->data_type, 1, &len) : NULL;
        double epsilon = real(r);
        o.epsilon = &epsilon;
        note(s, "batchNormalization", x->op,
             wnn_batch_normalization(s->b, x->op, mean, var, flag(r) ? NULL : &o), false);
        break;
    }
    case 28: {
        wnn_instance_normalization_options o = WNN_INSTANCE_NORMALIZATION_OPTIONS_INIT;
        o.layout = (wnn_input_layout)((take(r) & 3) == 0);
        uint32_t ch = rank == 4 ? shape[o.layout == WNN_INPUT_LAYOUT_NHWC ? 3 : 1] : dim(r);
        o.scale = flag(r) ? fresh(s, r, d->data_type, 1, &ch) : NULL;
        o.bias = flag(r) ? fresh(s, r, d->data_type, 1, &ch) : NULL;
        double epsilon = real(r);
        o.epsilon = &epsilon;
        note(s, "instanceNormalization", x->op,
             wnn_instance_normalization(s->b, x->op, flag(r) ? NULL : &o), false);
        break;
    }
    case 29: {
        wnn_layer_normalization_options o = WNN_LAYER_NORMALIZATION_OPTIONS_INIT;
        uint32_t axes[WNN_MAX_RANK] = {0};
        if (flag(r)) {
            o.axes_count = axes_list(r, rank, axes);
            o.axes = axes;
        }
        uint32_t n = 0;
        if (o.axes) {
            for (uint32_t i = 0; i < o.axes_count; i++)
                v[n++] = o.axes[i] < rank ? shape[o.axes[i]] : 1;
        } else {
            for (uint32_t i = 1; i < rank; i++)
                v[n++] = shape[i];
        }
        o.scale = flag(r) ? fresh(s, r, d->data_type, n, v) : NULL;
        o.bias = flag(r) ? fresh(s, r, d->data_type, n, v) : NULL;
        double epsilon = real(r);
        o.epsilon = &epsilon;
        note(s, "layerNormalization", x->op, wnn_layer_normalization(s->b, x->op, flag(r) ? NULL : &o), false);
        break;
    }
    case 30: {
        /* the input's shape, right-aligned, ones grown, dimensions prepended */
        uint32_t extra = below(r, 3), n = rank + extra;
        n = n > WNN_MAX_RANK ? WNN_MAX_RANK : n;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t src = i + rank >= n ? shape[i + rank - n] : 1;
            v[i] = src == 1 && flag(r) ? dim(r) : src;
        }
        if ((take(r) & 0x1f) == 0)
            n = 9 + (take(r) & 3);
        note(s, "expand", x->op, wnn_expand(s->b, x->op, n, v), false);
        break;
    }
    case 31: {
        for (uint32_t i = 0; i < rank; i++) {
            v[i] = small(r);
            w[i] = small(r);
        }
        wnn_pad_options o = WNN_PAD_OPTIONS_INIT;
        o.mode = (wnn_pad_mode)(below(r, 3) + ((take(r) & 0x3f) == 0 ? 3 : 0));
        o.value = real(r);
        note(s, "pad", x->op, wnn_pad(s->b, x->op, v, w, flag(r) ? NULL : &o), false);
        break;
    }
    case 32: {
        wnn_operand *outs[MAX_SPLIT];
        wnn_split_options o = {.axis = axis(r, rank)};
        size_t n;
        if (flag(r)) {
            uint32_t count = 1 + below(r, 4);
            if (o.axis < rank && flag(r) && shape[o.axis] <= MAX_SPLIT)
                count = shape[o.axis];
            n = wnn_split(s->b, x->op, (take(r) & 0x3f) == 0 ? 0 : count, flag(r) ? NULL : &o, outs);
        } else {
            uint32_t sizes[MAX_SPLIT], total = o.axis < rank ? shape[o.axis] : 4, k = 0;
            while (total > 0 && k < 8) {
                uint32_t part = k == 7 || flag(r) ? total : 1 + below(r, total);
                sizes[k++] = part;
                total -= part;
            }
            if ((take(r) & 0x1f) == 0)
                sizes[below(r, k ? k : 1)] = edges[take(r) & 15];
            n = wnn_split_sizes(s->b, x->op, sizes, k, flag(r) ? NULL : &o, outs);
        }
        if (n == 0)
            note(s, "split", NULL, NULL, false);
        for (size_t i = 0; i < n && i < MAX_SPLIT; i++)
            note(s, "split", i == 0 ? x->op : NULL, outs[i], false);
        break;
    }
    case 33:
        for (uint32_t i = 0; i < rank; i++)
            v[i] = (take(r) & 0x1f) == 0 ? edges[take(r) & 15] : 1 + below(r, 3);
        note(s, "tile", x->op, wnn_tile(s->b, x->op, rank || flag(r) ? v : NULL), false);
        break;
    case 34: {
        wnn_reverse_options o = WNN_REVERSE_OPTIONS_INIT;
        uint32_t axes[WNN_MAX_RANK] = {0};
        if (flag(r)) {
            o.axes_count = axes_list(r, rank, axes);
            o.axes = axes;
        }
        note(s, "reverse", x->op, wnn_reverse(s->b, x->op, flag(r) ? NULL : &o), false);
        break;
    }
    case 35: {
        static const int32_t diagonals[8] = {0, 1, -1, 2, -2, 5, INT32_MAX, INT32_MIN};
        wnn_triangular_options o = WNN_TRIANGULAR_OPTIONS_INIT;
        o.lower = !flag(r);
        o.diagonal = diagonals[take(r) & 7];
        note(s, "triangular", x->op, wnn_triangular(s->b, x->op, flag(r) ? NULL : &o), false);
        break;
    }
    case 36:
    case 37:
    case 38: {
        static const wnn_data_type index_types[4] = {I32, U32, I64, I32};
        wnn_data_type it = (take(r) & 0x1f) == 0 ? any_type(r) : index_types[take(r) & 3];
        wnn_gather_options o = {.axis = axis(r, rank)};
        wnn_operand *idx;
        if (op == 36) {
            uint32_t n = below(r, 3);
            for (uint32_t i = 0; i < n; i++)
                v[i] = 1 + below(r, 3);
            idx = flag(r) ? pick(s, r)->op : fresh(s, r, it, n, v);
            note(s, "gather", x->op, wnn_gather(s->b, x->op, idx, flag(r) ? NULL : &o), false);
        } else if (op == 37) {
            if (o.axis < rank)
                shape[o.axis] = 1 + below(r, 3);
            idx = fresh(s, r, it, rank, shape);
            note(s, "gatherElements", x->op, wnn_gather_elements(s->b, x->op, idx, flag(r) ? NULL : &o), false);
        } else {
            uint32_t k = 1 + below(r, rank ? rank : 1), lead = below(r, 3);
            for (uint32_t i = 0; i < lead; i++)
                v[i] = 1 + below(r, 3);
            v[lead] = k;
            idx = fresh(s, r, it, lead + 1, v);
            note(s, "gatherND", x->op, wnn_gather_nd(s->b, x->op, idx), false);
        }
        break;
    }
    case 39: {
        wnn_scatter_options o = {.axis = axis(r, rank)};
        if (o.axis < rank)
            shape[o.axis] = 1 + below(r, shape[o.axis] < 4 ? shape[o.axis] : 4);
        wnn_operand *idx = fresh(s, r, (take(r) & 1) ? I64 : I32, rank, shape);
        wnn_operand *upd = fresh(s, r, d->data_type, rank, shape);
        note(s, "scatterElements", x->op,
             wnn_scatter_elements(s->b, x->op, idx, upd, flag(r) ? NULL : &o), false);
        break;
    }
    case 40: {
        uint32_t k = 1 + below(r, rank ? rank : 1), m = 1 + below(r, 3), n = 1;
        uint32_t is[2] = {m, k};
        wnn_operand *idx = fresh(s, r, (take(r) & 1) ? I64 : I32, 2, is);
        v[0] = m;
        for (uint32_t i = k; i < rank; i++)
            v[n++] = shape[i];
        wnn_operand *upd = fresh(s, r, d->data_type, n, v);
        note(s, "scatterND", x->op, wnn_scatter_nd(s->b, x->op, idx, upd), false);
        break;
    }
    default:
        op_recurrent(s, r, op - 41 + (take(r) & 1 ? 1 : 0));
        break;
    }
}

/* Decodes the whole program on one device. */
static void decode(state *s, wnn_context *ctx, const char *device, const uint8_t *data, size_t size)
{
    memset(s, 0, sizeof *s);
    s->ctx = ctx;
    s->device = device;
    if (wnn_graph_builder_create(ctx, &s->b) != WNN_OK)
        fail("wnn_graph_builder_create on %s: %s", device, wnn_last_error_message());
    reader r = {data, size};
    s->seed = take(&r);
    leaves(s, &r);
    unsigned steps = 1 + below(&r, MAX_STEPS);
    for (unsigned i = 0; i < steps && r.n > 0; i++)
        step(s, &r);
    /* outputs: the last operator's result and up to two others */
    for (unsigned i = s->count; i-- > 0 && s->output_count < MAX_OUTPUTS;) {
        if (s->pool[i].leaf || (s->output_count > 0 && flag(&r)))
            continue;
        s->outputs[s->output_count++] = i;
    }
}

/* ---- building and running ---------------------------------------------------------------- */

static wnn_status build(state *s, wnn_graph **g)
{
    static const char *const names[MAX_OUTPUTS] = {"y0", "y1", "y2"};
    wnn_named_operand outs[MAX_OUTPUTS];
    for (unsigned i = 0; i < s->output_count; i++)
        outs[i] = (wnn_named_operand){names[i], s->pool[s->outputs[i]].op};
    *g = NULL;
    wnn_status st = wnn_graph_builder_build(s->b, outs, s->output_count, g);
    if (st != WNN_OK && (!known_status(st) || *g != NULL))
        fail("build on %s: status %d, graph %p", s->device, (int)st, (void *)*g);
    return st;
}

typedef struct outputs {
    unsigned char *data[MAX_OUTPUTS];
    size_t bytes[MAX_OUTPUTS];
} outputs;

#define MUST(call)                                                                                      \
    do {                                                                                                \
        wnn_status st_ = (call);                                                                        \
        if (st_ != WNN_OK)                                                                              \
            fail("%s on %s: %s (%s)", #call, s->device, wnn_status_string(st_), wnn_last_error_message()); \
    } while (0)

/* Dispatches g twice with inputs from seed, reads every output and checks
** that both dispatches agree. */
static void run(state *s, wnn_graph *g, outputs *out)
{
    uint32_t ni = wnn_graph_input_count(g), no = wnn_graph_output_count(g);
    wnn_named_tensor in[MAX_INPUTS], ot[MAX_OUTPUTS];
    if (ni > MAX_INPUTS || no != s->output_count)
        fail("graph on %s has %u inputs and %u outputs", s->device, ni, no);
    for (uint32_t i = 0; i < ni; i++) {
        wnn_operand_desc d;
        MUST(wnn_graph_get_input(g, i, &in[i].name, &d));
        wnn_tensor_desc td = {d.data_type, d.rank, {0}, false, true, false};
        memcpy(td.shape, d.shape, sizeof td.shape);
        MUST(wnn_context_create_tensor(s->ctx, &td, &in[i].tensor));
        size_t bytes = (size_t)wnn_tensor_byte_length(in[i].tensor);
        void *buf = malloc(bytes);
        fill(buf, bytes, d.data_type, s->seed * 977u + i);
        MUST(wnn_context_write_tensor(s->ctx, in[i].tensor, buf, bytes));
        free(buf);
    }
    for (uint32_t i = 0; i < no; i++) {
        wnn_operand_desc d;
        MUST(wnn_graph_get_output(g, i, &ot[i].name, &d));
        wnn_tensor_desc td = {d.data_type, d.rank, {0}, true, false, false};
        memcpy(td.shape, d.shape, sizeof td.shape);
        MUST(wnn_context_create_tensor(s->ctx, &td, &ot[i].tensor));
        out->bytes[i] = (size_t)wnn_tensor_byte_length(ot[i].tensor);
        out->data[i] = malloc(out->bytes[i] * 2 + 1);
    }
    for (int pass = 0; pass < 2; pass++) {
        MUST(wnn_context_dispatch(s->ctx, g, in, ni, ot, no));
        for (uint32_t i = 0; i < no; i++)
            MUST(wnn_context_read_tensor_sync(s->ctx, ot[i].tensor, out->data[i] + pass * out->bytes[i],
                                              out->bytes[i]));
    }
    MUST(wnn_context_finish(s->ctx));
    for (uint32_t i = 0; i < no; i++)
        if (memcmp(out->data[i], out->data[i] + out->bytes[i], out->bytes[i]) != 0)
            fail("output %s on %s differs between two dispatches of the same inputs", ot[i].name, s->device);
    for (uint32_t i = 0; i < ni; i++)
        wnn_tensor_release(in[i].tensor);
    for (uint32_t i = 0; i < no; i++)
        wnn_tensor_release(ot[i].tensor);
}

static void compare(const state *s, const outputs *a, const outputs *b)
{
    for (unsigned i = 0; i < s->output_count; i++) {
        if (a->bytes[i] != b->bytes[i])
            fail("output y%u: %zu bytes on cpu, %zu on null", i, a->bytes[i], b->bytes[i]);
        for (size_t k = 0; k < a->bytes[i]; k++)
            if (a->data[i][k] != b->data[i][k])
                fail("output y%u (%s): byte %zu is 0x%02x on cpu, 0x%02x on null", i,
                     wnn_data_type_name(s->pool[s->outputs[i]].desc.data_type), k, a->data[i][k], b->data[i][k]);
    }
}

static wnn_context *contexts[2];
static const char *const devices[2] = {"cpu", "null"};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_one_thread();
    g_limits_oracle = getenv("WNN_FUZZ_NO_LIMITS_ORACLE") == NULL;
    for (int i = 0; i < 2; i++)
        contexts[i] = fuzz_context(devices[i], 0);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static state st[2];
    for (int i = 0; i < 2; i++)
        decode(&st[i], contexts[i], devices[i], data, size);
    if (st[0].traced != st[1].traced || memcmp(st[0].trace, st[1].trace, st[0].traced * sizeof st[0].trace[0]))
        fail("the builder's answers differ between cpu and null");
    bool runnable = st[0].max_elements <= RUN_ELEMENTS, buildable = st[0].max_bytes <= BUILD_BYTES;
    if (st[0].output_count > 0 && buildable) {
        wnn_graph *g[2];
        wnn_status bs[2];
        for (int i = 0; i < 2; i++)
            bs[i] = build(&st[i], &g[i]);
        if (bs[0] != bs[1])
            fail("build: %s on cpu, %s on null", wnn_status_string(bs[0]), wnn_status_string(bs[1]));
        if (bs[0] == WNN_OK && runnable) {
            outputs out[2];
            memset(out, 0, sizeof out);
            for (int i = 0; i < 2; i++)
                run(&st[i], g[i], &out[i]);
            compare(&st[0], &out[0], &out[1]);
            for (int i = 0; i < 2; i++)
                for (unsigned k = 0; k < MAX_OUTPUTS; k++)
                    free(out[i].data[k]);
        }
        for (int i = 0; i < 2; i++)
            wnn_graph_release(g[i]);
    }
    for (int i = 0; i < 2; i++) {
        wnn_graph_builder_release(st[i].b);
        fuzz_check_memory(contexts[i], devices[i], true);
    }
    return 0;
}
