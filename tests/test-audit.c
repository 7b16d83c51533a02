/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-audit.c -- the defects of the reliability audit of 2026-11 (see
** docs/reliability.md), each reproduced as it was found, so they stay fixed:
**
**   D1  4-bit operands of data-movement operators (the limits table decides)
**   D2  wnn_tensor_destroy racing writes, reads, dispatches and exports
**   D3  outputs past WebNN's 2^31-1 element limit
**   D4  wnn_context_create_constant_tensor with a NULL out
**   and the graph-level memory check at build.
**
** D5 (Python integer options) is in tests/python/test_api.py.
*/
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "test.h"
#include "wnn/dlpack.h"

static wnn_context *make_context(uint64_t memory_limit)
{
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.device = test_device();
    o.memory_limit = memory_limit;
    wnn_context *c = NULL;
    CHECK_OK(wnn_context_create(&o, &c));
    return c;
}

static wnn_operand *input(wnn_graph_builder *b, const char *name, wnn_data_type t, uint32_t rank,
                          const uint32_t *shape)
{
    wnn_operand_desc d = {t, rank, {0}};
    memcpy(d.shape, shape, rank * sizeof *shape);
    return wnn_graph_builder_input(b, name, &d);
}

/* ---- D1 ------------------------------------------------------------------ */

/* Each of the 13 operators the audit found accepting 4-bit operands, called
** on x (uint4 or int4, shape [4, 4]); returns what the builder gave. */
static wnn_operand *movement(wnn_graph_builder *b, int which, wnn_operand *x, wnn_operand *idx)
{
    static const uint32_t zero[2] = {0, 0}, four[2] = {4, 4}, one[2] = {1, 1}, perm[2] = {1, 0};
    static const uint32_t flat[1] = {16}, big[3] = {2, 4, 4};
    wnn_operand *outs[2], *pair[2] = {x, x};
    switch (which) {
    case 0: return wnn_slice(b, x, zero, four, NULL);
    case 1: return wnn_transpose(b, x, perm);
    case 2: return wnn_reshape(b, x, 1, flat);
    case 3: return wnn_concat(b, pair, 2, 0);
    case 4: return wnn_expand(b, x, 3, big);
    case 5: return wnn_pad(b, x, one, one, NULL);
    case 6: return wnn_tile(b, x, one);
    case 7: return wnn_reverse(b, x, NULL);
    case 8: return wnn_triangular(b, x, NULL);
    case 9: return wnn_split(b, x, 2, NULL, outs) ? outs[0] : NULL;
    case 10: return wnn_gather(b, x, idx, NULL);
    case 11: return wnn_gather_elements(b, x, idx, NULL);
    default: return wnn_scatter_elements(b, x, idx, x, NULL);
    }
}

static const char *const movement_names[13] = {"slice", "transpose", "reshape", "concat", "expand",
                                                "pad", "tile", "reverse", "triangular", "split",
                                                "gather", "gatherElements", "scatterElements"};

static void test_d1_four_bit_movement(void)
{
    wnn_context *c = make_context(0);
    static const uint32_t shape[2] = {4, 4};
    for (int t = WNN_DATA_TYPE_INT4; t <= WNN_DATA_TYPE_UINT4; t++)
        for (int op = 0; op < 13; op++) {
            wnn_graph_builder *b;
            CHECK_OK(wnn_graph_builder_create(c, &b));
            wnn_operand *x = input(b, "x", (wnn_data_type)t, 2, shape);
            wnn_operand *idx = input(b, "i", WNN_DATA_TYPE_INT32, 2, shape);
            wnn_operand *y = movement(b, op, x, idx);
            CHECK(y == NULL);
            CHECK_STATUS(wnn_graph_builder_status(b), WNN_STATUS_UNSUPPORTED_DATA_TYPE);
            /* and the limits say the same thing the builder did */
            wnn_tensor_limits lim;
            CHECK_OK(wnn_context_get_operand_limits(c, movement_names[op], op == 3 ? "inputs" : "input", &lim));
            CHECK(!(lim.data_types & WNN_DATA_TYPE_BIT(t)));
            wnn_graph_builder_release(b);
        }
    /* what the limits grant, the builder takes: float32 through the same 13 */
    for (int op = 0; op < 13; op++) {
        wnn_graph_builder *b;
        CHECK_OK(wnn_graph_builder_create(c, &b));
        wnn_operand *x = input(b, "x", WNN_DATA_TYPE_FLOAT32, 2, shape);
        wnn_operand *idx = input(b, "i", WNN_DATA_TYPE_INT32, 2, shape);
        CHECK(movement(b, op, x, idx) != NULL);
        CHECK_OK(wnn_graph_builder_status(b));
        wnn_graph_builder_release(b);
    }
    /* quantization keeps 4-bit types: the table lists them there */
    wnn_graph_builder *b;
    CHECK_OK(wnn_graph_builder_create(c, &b));
    wnn_operand *q = input(b, "q", WNN_DATA_TYPE_UINT4, 2, shape);
    wnn_operand *s = input(b, "s", WNN_DATA_TYPE_FLOAT32, 2, shape);
    wnn_operand *z = input(b, "z", WNN_DATA_TYPE_UINT4, 2, shape);
    CHECK(wnn_dequantize_linear(b, q, s, z) != NULL);
    CHECK_OK(wnn_graph_builder_status(b));
    wnn_graph_builder_release(b);
    wnn_context_release(c);
}

/* The reproducer of the audit: a uint4 [1] expanded to [4096] wrote 4096
** bytes into a 2048-byte tensor. Now the builder refuses it. */
static void test_d1_expand_reproducer(void)
{
    wnn_context *c = make_context(0);
    wnn_graph_builder *b;
    CHECK_OK(wnn_graph_builder_create(c, &b));
    static const uint32_t one[1] = {1}, many[1] = {4096};
    wnn_operand *x = input(b, "x", WNN_DATA_TYPE_UINT4, 1, one);
    wnn_named_operand no = {"y", wnn_expand(b, x, 1, many)};
    CHECK(no.operand == NULL);
    wnn_graph *g = NULL;
    CHECK_STATUS(wnn_graph_builder_build(b, &no, 1, &g), WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    CHECK(g == NULL);
    wnn_graph_builder_release(b);
    wnn_context_release(c);
}

/* ---- D3 ------------------------------------------------------------------ */

static void expect_too_many(wnn_graph_builder *b, wnn_operand *y, const char *what)
{
    if (y == NULL && test_skip_unsupported(wnn_graph_builder_status(b), what, __FILE__, __LINE__)) {
        wnn_graph_builder_clear_error(b); /* the device refuses the operands' type first */
        return;
    }
    if (y != NULL || wnn_graph_builder_status(b) == WNN_OK)
        fprintf(stderr, "D3: %s built an operand past 2^31-1 elements\n", what);
    CHECK(y == NULL);
    wnn_status s = wnn_graph_builder_status(b);
    CHECK(s == WNN_STATUS_TOO_MANY_ELEMENTS || s == WNN_STATUS_INVALID_DIMENSION);
    wnn_graph_builder_clear_error(b);
}

static void test_d3_element_limit(void)
{
    wnn_context *c = make_context(0);
    wnn_graph_builder *b;
    CHECK_OK(wnn_graph_builder_create(c, &b));
    static const uint32_t col[2] = {65536, 1}, row[2] = {1, 65536};
    wnn_operand *a = input(b, "a", WNN_DATA_TYPE_FLOAT32, 2, col);
    wnn_operand *r = input(b, "r", WNN_DATA_TYPE_FLOAT32, 2, row);
    expect_too_many(b, wnn_add(b, a, r), "add");
    expect_too_many(b, wnn_equal(b, a, r), "equal");
    expect_too_many(b, wnn_prelu(b, a, r), "prelu");

    /* the audit's where: uint8 [2^21,1,1], int64 [1,2^21,1], int64 [1,1,2^21] */
    static const uint32_t s0[3] = {1u << 21, 1, 1}, s1[3] = {1, 1u << 21, 1}, s2[3] = {1, 1, 1u << 21};
    wnn_operand *cond = input(b, "c", WNN_DATA_TYPE_UINT8, 3, s0);
    wnn_operand *t = input(b, "t", WNN_DATA_TYPE_INT64, 3, s1);
    wnn_operand *f = input(b, "f", WNN_DATA_TYPE_INT64, 3, s2);
    expect_too_many(b, wnn_where(b, cond, t, f), "where");

    /* matmul [65536, 1] x [1, 65536] and gemm of the same */
    expect_too_many(b, wnn_matmul(b, a, r), "matmul");
    expect_too_many(b, wnn_gemm(b, a, r, NULL), "gemm");

    /* gather of an int32 [5, 3, 65536] by itself: [5, 3, 65536, 3, 65536] */
    static const uint32_t g3[3] = {5, 3, 65536};
    wnn_operand *gi = input(b, "g", WNN_DATA_TYPE_INT32, 3, g3);
    expect_too_many(b, wnn_gather(b, gi, gi, NULL), "gather");

    /* pools whose padding makes the output past the limit */
    static const uint32_t img[4] = {1, 1, 2, 2};
    wnn_operand *x = input(b, "x", WNN_DATA_TYPE_FLOAT32, 4, img);
    wnn_pool2d_options po = WNN_POOL2D_OPTIONS_INIT;
    po.window_dimensions[0] = po.window_dimensions[1] = 1;
    po.padding[0] = po.padding[1] = po.padding[2] = po.padding[3] = 40000;
    expect_too_many(b, wnn_average_pool2d(b, x, &po), "averagePool2d");
    expect_too_many(b, wnn_l2_pool2d(b, x, &po), "l2Pool2d");
    expect_too_many(b, wnn_max_pool2d(b, x, &po), "maxPool2d");

    /* a broadcast just under the limit still builds an operand */
    static const uint32_t c2[2] = {32768, 1}, r2[2] = {1, 65535};
    wnn_operand *a2 = input(b, "a2", WNN_DATA_TYPE_UINT8, 2, c2);
    wnn_operand *b2 = input(b, "b2", WNN_DATA_TYPE_UINT8, 2, r2);
    CHECK(wnn_add(b, a2, b2) != NULL);
    CHECK_OK(wnn_graph_builder_status(b));
    wnn_graph_builder_release(b);
    wnn_context_release(c);
}

/* ---- graph-level memory ----------------------------------------------------- */

static void test_graph_memory_check(void)
{
    /* 2 MiB of intermediates against a 1 MiB context: refused at build */
    wnn_context *c = make_context(1u << 20);
    wnn_graph_builder *b;
    CHECK_OK(wnn_graph_builder_create(c, &b));
    static const uint32_t col[2] = {512, 1}, row[2] = {1, 1024};
    wnn_operand *a = input(b, "a", WNN_DATA_TYPE_FLOAT32, 2, col);
    wnn_operand *r = input(b, "r", WNN_DATA_TYPE_FLOAT32, 2, row);
    wnn_operand *sum = wnn_add(b, a, r);
    wnn_named_operand no = {"y", wnn_relu(b, sum)};
    wnn_graph *g = NULL;
    CHECK_STATUS(wnn_graph_builder_build(b, &no, 1, &g), WNN_STATUS_OUT_OF_MEMORY);
    CHECK(g == NULL);
    CHECK(strstr(wnn_last_error_message(), "needs at least") != NULL);
    wnn_graph_builder_release(b);

    /* the same graph at a quarter of the size fits */
    CHECK_OK(wnn_graph_builder_create(c, &b));
    static const uint32_t col2[2] = {128, 1};
    a = input(b, "a", WNN_DATA_TYPE_FLOAT32, 2, col2);
    r = input(b, "r", WNN_DATA_TYPE_FLOAT32, 2, row);
    no.operand = wnn_relu(b, wnn_add(b, a, r));
    CHECK_OK(wnn_graph_builder_build(b, &no, 1, &g));
    wnn_graph_release(g);
    wnn_graph_builder_release(b);
    wnn_context_release(c);
}

/* ---- D4 ------------------------------------------------------------------ */

static void test_d4_constant_null_out(void)
{
    wnn_context *c = make_context(0);
    wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, 1, {4}};
    float data[4] = {1, 2, 3, 4};
    CHECK_STATUS(wnn_context_create_constant_tensor(c, &d, data, sizeof data, NULL), WNN_STATUS_INVALID_ARGUMENT);
    CHECK(strstr(wnn_last_error_message(), "out is NULL") != NULL);
    wnn_tensor *t = (wnn_tensor *)&d; /* must be cleared on failure */
    CHECK_STATUS(wnn_context_create_constant_tensor(c, NULL, data, sizeof data, &t), WNN_STATUS_INVALID_ARGUMENT);
    CHECK(t == NULL);
    wnn_context_release(c);
}

/* ---- D2 ------------------------------------------------------------------ */

#define N_ELEMS 1024

typedef struct race {
    wnn_context *ctx;
    wnn_graph *graph;      /* y = x + 1 */
    wnn_tensor *x, *y;     /* destroyed by the main thread mid-way */
    atomic_bool go, stop;
    atomic_int bad;        /* a status or value the contract does not allow */
    atomic_long done;      /* operations that completed */
} race;

static bool destroyed_status(wnn_status s) { return s == WNN_STATUS_DESTROYED || s == WNN_STATUS_DESTROYED_OBJECT; }

static void note(race *r, const char *what, wnn_status s)
{
    if (s == WNN_OK)
        atomic_fetch_add(&r->done, 1);
    else if (!destroyed_status(s)) {
        fprintf(stderr, "D2: %s gave %s (%s)\n", what, wnn_status_string(s), wnn_last_error_message());
        atomic_fetch_add(&r->bad, 1);
    }
}

static void *writer(void *p)
{
    race *r = p;
    float v[N_ELEMS];
    for (int i = 0; i < N_ELEMS; i++)
        v[i] = 2.0f;
    while (!atomic_load(&r->go)) {}
    while (!atomic_load(&r->stop))
        note(r, "write", wnn_context_write_tensor(r->ctx, r->x, v, sizeof v));
    return NULL;
}

static void *reader(void *p)
{
    race *r = p;
    float v[N_ELEMS];
    while (!atomic_load(&r->go)) {}
    while (!atomic_load(&r->stop)) {
        wnn_status s = wnn_context_read_tensor_sync(r->ctx, r->x, v, sizeof v);
        note(r, "read", s);
        /* x holds 0 (never written) or 2 (every write): nothing else */
        if (s == WNN_OK && v[0] != 0.0f && v[0] != 2.0f) {
            fprintf(stderr, "D2: read %g\n", (double)v[0]);
            atomic_fetch_add(&r->bad, 1);
        }
    }
    return NULL;
}

static void *dispatcher(void *p)
{
    race *r = p;
    while (!atomic_load(&r->go)) {}
    while (!atomic_load(&r->stop)) {
        wnn_named_tensor in = {"x", r->x}, out = {"y", r->y};
        note(r, "dispatch", wnn_context_dispatch(r->ctx, r->graph, &in, 1, &out, 1));
    }
    return NULL;
}

static void *exporter(void *p)
{
    race *r = p;
    while (!atomic_load(&r->go)) {}
    while (!atomic_load(&r->stop)) {
        void *m = NULL;
        wnn_status s = wnn_tensor_export_dlpack(r->y, NULL, &m);
        note(r, "export", s);
        if (s == WNN_OK) {
            /* the memory it lends is not read here: the dispatcher writes
            ** it concurrently (test-soak reads exports in order) */
            DLManagedTensorVersioned *mt = m;
            mt->deleter(mt);
        }
    }
    return NULL;
}

static void test_d2_destroy_races_use(void)
{
    static const uint32_t shape[1] = {N_ELEMS};
    long total = 0;
    for (int round = 0; round < 40; round++) {
        race r = {.ctx = make_context(0)};
        wnn_graph_builder *b;
        CHECK_OK(wnn_graph_builder_create(r.ctx, &b));
        wnn_operand *x = input(b, "x", WNN_DATA_TYPE_FLOAT32, 1, shape);
        wnn_operand_desc one_d = {WNN_DATA_TYPE_FLOAT32, 0, {0}};
        float one = 1.0f;
        wnn_named_operand no = {"y", wnn_add(b, x, wnn_graph_builder_constant(b, &one_d, &one, sizeof one))};
        CHECK_OK(wnn_graph_builder_build(b, &no, 1, &r.graph));
        wnn_graph_builder_release(b);
        wnn_tensor_desc td = {WNN_DATA_TYPE_FLOAT32, 1, {N_ELEMS}, true, true, false};
        CHECK_OK(wnn_context_create_tensor(r.ctx, &td, &r.x));
        CHECK_OK(wnn_context_create_tensor(r.ctx, &td, &r.y));

        void *(*fns[4])(void *) = {writer, reader, dispatcher, exporter};
        pthread_t th[4];
        for (int i = 0; i < 4; i++)
            pthread_create(&th[i], NULL, fns[i], &r);
        atomic_store(&r.go, true);
        /* destroy while the others are in the middle of their calls */
        struct timespec before = {0, 200000L * (round % 8 + 1)}, after = {0, 2000000L};
        nanosleep(&before, NULL);
        if (round % 2)
            wnn_tensor_destroy(r.x);
        wnn_tensor_destroy(r.y);
        if (round % 2 == 0)
            wnn_tensor_destroy(r.x);
        nanosleep(&after, NULL);
        atomic_store(&r.stop, true);
        for (int i = 0; i < 4; i++)
            pthread_join(th[i], NULL);
        CHECK_OK(wnn_context_finish(r.ctx));
        CHECK_EQ_INT(atomic_load(&r.bad), 0);
        total += atomic_load(&r.done);
        wnn_tensor_release(r.x);
        wnn_tensor_release(r.y);
        wnn_graph_release(r.graph);
        wnn_context_release(r.ctx);
    }
    printf("D2: %ld racing operations completed\n", total);
}

int main(void)
{
    test_d1_four_bit_movement();
    test_d1_expand_reproducer();
    test_d3_element_limit();
    test_graph_memory_check();
    test_d4_constant_null_out();
    test_d2_destroy_races_use();
    TEST_DONE();
}
