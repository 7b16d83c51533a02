/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-dispatch.c -- the dispatch validation matrix through the public API:
** every binding rule with its exact status, the duplicate-tensor rules under
** both policies, graphs without inputs, output reuse across dispatches, and
** dispatch on a lost context.
*/
#include <stdint.h>
#include <string.h>

#include "test.h"
#include "wnn/wnn.h"

#define N 6 /* elements of every tensor of the main graph: [2,3] float32 */

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

static wnn_tensor *tensor(wnn_context *ctx, wnn_data_type t, uint32_t rank, const uint32_t *shape, bool readable,
                          bool writable)
{
    wnn_tensor_desc d = WNN_TENSOR_DESC_INIT;
    d.data_type = t;
    d.rank = rank;
    for (uint32_t i = 0; i < rank; i++)
        d.shape[i] = shape[i];
    d.readable = readable;
    d.writable = writable;
    wnn_tensor *x = NULL;
    if (wnn_context_create_tensor(ctx, &d, &x) != WNN_OK) {
        fprintf(stderr, "create_tensor: %s\n", wnn_last_error_message());
        exit(1);
    }
    return x;
}

static const uint32_t shape23[] = {2, 3};

static wnn_tensor *t23(wnn_context *ctx) { return tensor(ctx, WNN_DATA_TYPE_FLOAT32, 2, shape23, true, true); }

/* The main graph: inputs "a" and "b" ([2,3] float32), outputs "sum" = a + b
** and "prod" = a * b. */
static wnn_graph *build_main(wnn_context *ctx)
{
    wnn_graph_builder *b = NULL;
    if (wnn_graph_builder_create(ctx, &b) != WNN_OK)
        exit(1);
    wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, 2, {2, 3}};
    wnn_operand *a = wnn_graph_builder_input(b, "a", &d);
    wnn_operand *x = wnn_graph_builder_input(b, "b", &d);
    wnn_named_operand outs[] = {{"sum", wnn_add(b, a, x)}, {"prod", wnn_mul(b, a, x)}};
    wnn_graph *g = NULL;
    wnn_status s = wnn_graph_builder_build(b, outs, 2, &g);
    wnn_graph_builder_release(b);
    if (s != WNN_OK) {
        fprintf(stderr, "build: %s\n", wnn_last_error_message());
        exit(1);
    }
    return g;
}

static void write6(wnn_context *ctx, wnn_tensor *t, float base)
{
    float v[N];
    for (int i = 0; i < N; i++)
        v[i] = base + (float)i;
    CHECK_OK(wnn_context_write_tensor(ctx, t, v, sizeof v));
}

/* Reads t and compares with want[0..5] exactly. */
static void expect6_at(int line, wnn_context *ctx, wnn_tensor *t, const float *want)
{
    float got[N];
    memset(got, 0, sizeof got);
    wnn_status s = wnn_context_read_tensor_sync(ctx, t, got, sizeof got);
    if (s != WNN_OK) {
        test_failed++;
        fprintf(stderr, "%s:%d: read gave %s (%s)\n", __FILE__, line, wnn_status_string(s), wnn_last_error_message());
        return;
    }
    for (int i = 0; i < N; i++) {
        if (got[i] != want[i]) {
            test_failed++;
            fprintf(stderr, "%s:%d: element %d is %g, want %g\n", __FILE__, line, i, got[i], want[i]);
            return;
        }
    }
    test_passed++;
}
#define EXPECT6(ctx, t, want) expect6_at(__LINE__, ctx, t, want)

typedef struct fixture {
    wnn_context *ctx;
    wnn_graph *g;
    wnn_tensor *a, *b, *sum, *prod;
} fixture;

static void fixture_init(fixture *f, wnn_policy policy)
{
    f->ctx = new_context(policy);
    f->g = build_main(f->ctx);
    f->a = t23(f->ctx);
    f->b = t23(f->ctx);
    f->sum = t23(f->ctx);
    f->prod = t23(f->ctx);
    write6(f->ctx, f->a, 1.0f);  /* 1..6 */
    write6(f->ctx, f->b, 10.0f); /* 10..15 */
}

static void fixture_fini(fixture *f)
{
    wnn_tensor_release(f->a);
    wnn_tensor_release(f->b);
    wnn_tensor_release(f->sum);
    wnn_tensor_release(f->prod);
    wnn_graph_release(f->g);
    wnn_context_release(f->ctx);
}

static wnn_status dispatch(fixture *f, wnn_tensor *a, wnn_tensor *b, wnn_tensor *sum, wnn_tensor *prod)
{
    wnn_named_tensor in[] = {{"a", a}, {"b", b}}, out[] = {{"sum", sum}, {"prod", prod}};
    return wnn_context_dispatch(f->ctx, f->g, in, 2, out, 2);
}

static const float want_sum[N] = {11, 13, 15, 17, 19, 21};
static const float want_prod[N] = {10, 22, 36, 52, 70, 90};

static void test_ok_and_names(void)
{
    fixture f;
    fixture_init(&f, WNN_POLICY_CHROMIUM);
    CHECK_OK(dispatch(&f, f.a, f.b, f.sum, f.prod));
    EXPECT6(f.ctx, f.sum, want_sum);
    EXPECT6(f.ctx, f.prod, want_prod);

    /* binding order does not matter */
    wnn_tensor *s2 = t23(f.ctx), *p2 = t23(f.ctx);
    wnn_named_tensor rin[] = {{"b", f.b}, {"a", f.a}}, rout[] = {{"prod", p2}, {"sum", s2}};
    CHECK_OK(wnn_context_dispatch(f.ctx, f.g, rin, 2, rout, 2));
    EXPECT6(f.ctx, s2, want_sum);
    EXPECT6(f.ctx, p2, want_prod);

    wnn_named_tensor in2[] = {{"a", f.a}, {"b", f.b}}, out2[] = {{"sum", f.sum}, {"prod", f.prod}};
    /* counts */
    CHECK_STATUS(wnn_context_dispatch(f.ctx, f.g, in2, 1, out2, 2), WNN_STATUS_NAME_MISMATCH);
    CHECK(strstr(wnn_last_error_message(), "wnn_context_dispatch") != NULL);
    CHECK_STATUS(wnn_context_dispatch(f.ctx, f.g, in2, 2, out2, 1), WNN_STATUS_NAME_MISMATCH);
    CHECK_STATUS(wnn_context_dispatch(f.ctx, f.g, NULL, 0, out2, 2), WNN_STATUS_NAME_MISMATCH);
    CHECK_STATUS(wnn_context_dispatch(f.ctx, f.g, in2, 2, NULL, 0), WNN_STATUS_NAME_MISMATCH);
    wnn_tensor *c = t23(f.ctx);
    wnn_named_tensor in3[] = {{"a", f.a}, {"b", f.b}, {"c", c}}, out3[] = {{"sum", f.sum}, {"prod", f.prod}, {"x", c}};
    CHECK_STATUS(wnn_context_dispatch(f.ctx, f.g, in3, 3, out2, 2), WNN_STATUS_NAME_MISMATCH);
    CHECK_STATUS(wnn_context_dispatch(f.ctx, f.g, in2, 2, out3, 3), WNN_STATUS_NAME_MISMATCH);
    /* unknown name (and so one missing) */
    wnn_named_tensor unk_in[] = {{"a", f.a}, {"c", f.b}}, unk_out[] = {{"sum", f.sum}, {"product", f.prod}};
    CHECK_STATUS(wnn_context_dispatch(f.ctx, f.g, unk_in, 2, out2, 2), WNN_STATUS_NAME_MISMATCH);
    CHECK_STATUS(wnn_context_dispatch(f.ctx, f.g, in2, 2, unk_out, 2), WNN_STATUS_NAME_MISMATCH);
    wnn_named_tensor case_in[] = {{"A", f.a}, {"b", f.b}};
    CHECK_STATUS(wnn_context_dispatch(f.ctx, f.g, case_in, 2, out2, 2), WNN_STATUS_NAME_MISMATCH);
    /* an input name used for an output and the reverse */
    wnn_named_tensor swapped_out[] = {{"a", f.sum}, {"prod", f.prod}};
    CHECK_STATUS(wnn_context_dispatch(f.ctx, f.g, in2, 2, swapped_out, 2), WNN_STATUS_NAME_MISMATCH);
    wnn_named_tensor swapped_in[] = {{"sum", f.a}, {"b", f.b}};
    CHECK_STATUS(wnn_context_dispatch(f.ctx, f.g, swapped_in, 2, out2, 2), WNN_STATUS_NAME_MISMATCH);
    /* a name bound twice (with two different tensors) */
    wnn_named_tensor twice_in[] = {{"a", f.a}, {"a", c}}, twice_out[] = {{"sum", f.sum}, {"sum", c}};
    CHECK_STATUS(wnn_context_dispatch(f.ctx, f.g, twice_in, 2, out2, 2), WNN_STATUS_NAME_MISMATCH);
    CHECK_STATUS(wnn_context_dispatch(f.ctx, f.g, in2, 2, twice_out, 2), WNN_STATUS_NAME_MISMATCH);
    /* NULL arguments */
    wnn_named_tensor null_t[] = {{"a", NULL}, {"b", f.b}};
    CHECK_STATUS(wnn_context_dispatch(f.ctx, f.g, null_t, 2, out2, 2), WNN_STATUS_INVALID_ARGUMENT);
    wnn_named_tensor null_name[] = {{NULL, f.a}, {"b", f.b}};
    CHECK_STATUS(wnn_context_dispatch(f.ctx, f.g, null_name, 2, out2, 2), WNN_STATUS_NAME_MISMATCH);
    CHECK_STATUS(wnn_context_dispatch(f.ctx, NULL, in2, 2, out2, 2), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(wnn_context_dispatch(NULL, f.g, in2, 2, out2, 2), WNN_STATUS_INVALID_ARGUMENT);

    /* nothing of the failed dispatches ran: outputs still hold the first results */
    EXPECT6(f.ctx, f.sum, want_sum);
    EXPECT6(f.ctx, f.prod, want_prod);
    CHECK_OK(wnn_context_finish(f.ctx));
    wnn_tensor_release(c);
    wnn_tensor_release(s2);
    wnn_tensor_release(p2);
    fixture_fini(&f);
}

static void test_descriptors(void)
{
    fixture f;
    fixture_init(&f, WNN_POLICY_CHROMIUM);
    static const uint32_t r3[] = {2, 3, 1}, r1[] = {6}, r1b[] = {2}, d24[] = {2, 4}, d22[] = {2, 2}, d33[] = {3, 3},
                          d13[] = {1, 3}, r3b[] = {1, 2, 3};
    wnn_tensor *bad[] = {
        tensor(f.ctx, WNN_DATA_TYPE_INT32, 2, shape23, true, true),   /* type */
        tensor(f.ctx, WNN_DATA_TYPE_FLOAT16, 2, shape23, true, true), /* type */
        tensor(f.ctx, WNN_DATA_TYPE_UINT32, 2, shape23, true, true),  /* same size, other type */
        tensor(f.ctx, WNN_DATA_TYPE_FLOAT32, 3, r3, true, true),      /* rank + 1 */
        tensor(f.ctx, WNN_DATA_TYPE_FLOAT32, 3, r3b, true, true),     /* rank + 1, leading 1 */
        tensor(f.ctx, WNN_DATA_TYPE_FLOAT32, 1, r1, true, true),      /* rank - 1, same count */
        tensor(f.ctx, WNN_DATA_TYPE_FLOAT32, 1, r1b, true, true),     /* rank - 1 */
        tensor(f.ctx, WNN_DATA_TYPE_FLOAT32, 2, d24, true, true),     /* dim + 1 */
        tensor(f.ctx, WNN_DATA_TYPE_FLOAT32, 2, d22, true, true),     /* dim - 1 */
        tensor(f.ctx, WNN_DATA_TYPE_FLOAT32, 2, d33, true, true),     /* dim + 1 */
        tensor(f.ctx, WNN_DATA_TYPE_FLOAT32, 2, d13, true, true),     /* dim - 1 */
        tensor(f.ctx, WNN_DATA_TYPE_FLOAT32, 0, NULL, true, true),    /* scalar */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_STATUS(dispatch(&f, bad[i], f.b, f.sum, f.prod), WNN_STATUS_DESCRIPTOR_MISMATCH);
        CHECK_STATUS(dispatch(&f, f.a, bad[i], f.sum, f.prod), WNN_STATUS_DESCRIPTOR_MISMATCH);
        CHECK_STATUS(dispatch(&f, f.a, f.b, bad[i], f.prod), WNN_STATUS_DESCRIPTOR_MISMATCH);
        CHECK_STATUS(dispatch(&f, f.a, f.b, f.sum, bad[i]), WNN_STATUS_DESCRIPTOR_MISMATCH);
    }
    CHECK(strstr(wnn_last_error_message(), "wnn_context_dispatch") != NULL);
    /* the message shows both descriptors in full, not only the ranks */
    static const uint32_t d32[] = {3, 2};
    wnn_tensor *swapped = tensor(f.ctx, WNN_DATA_TYPE_FLOAT32, 2, d32, true, true);
    CHECK_STATUS(dispatch(&f, swapped, f.b, f.sum, f.prod), WNN_STATUS_DESCRIPTOR_MISMATCH);
    CHECK(strstr(wnn_last_error_message(),
                 "input \"a\" is a float32 tensor of shape [3, 2], the graph wants float32 of shape [2, 3]") != NULL);
    CHECK_STATUS(dispatch(&f, f.a, f.b, f.sum, bad[0]), WNN_STATUS_DESCRIPTOR_MISMATCH);
    CHECK(strstr(wnn_last_error_message(), "is an int32 tensor of shape [2, 3], the graph wants float32") != NULL);
    CHECK_STATUS(dispatch(&f, bad[11], f.b, f.sum, f.prod), WNN_STATUS_DESCRIPTOR_MISMATCH);
    CHECK(strstr(wnn_last_error_message(), "tensor of shape [], the graph wants float32 of shape [2, 3]") != NULL);
    wnn_tensor_release(swapped);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        wnn_tensor_release(bad[i]);

    /* usage flags play no part in dispatch */
    wnn_tensor *plain_in = tensor(f.ctx, WNN_DATA_TYPE_FLOAT32, 2, shape23, false, false);
    wnn_tensor *plain_out = tensor(f.ctx, WNN_DATA_TYPE_FLOAT32, 2, shape23, false, false);
    wnn_tensor *ro_out = tensor(f.ctx, WNN_DATA_TYPE_FLOAT32, 2, shape23, true, false);
    CHECK_OK(dispatch(&f, f.a, f.b, plain_out, f.prod));
    CHECK_OK(dispatch(&f, plain_out, f.b, f.sum, ro_out)); /* (a+b) + b, (a+b) * b */
    const float want2_sum[N] = {21, 24, 27, 30, 33, 36};
    const float want2_prod[N] = {110, 143, 180, 221, 266, 315};
    EXPECT6(f.ctx, f.sum, want2_sum);
    EXPECT6(f.ctx, ro_out, want2_prod);
    CHECK_OK(dispatch(&f, plain_in, f.b, f.sum, f.prod)); /* plain_in reads as zeros */
    const float want3_sum[N] = {10, 11, 12, 13, 14, 15};
    const float zeros[N] = {0};
    EXPECT6(f.ctx, f.sum, want3_sum);
    EXPECT6(f.ctx, f.prod, zeros);
    wnn_tensor_release(plain_in);
    wnn_tensor_release(plain_out);
    wnn_tensor_release(ro_out);
    fixture_fini(&f);
}

static void test_contexts_constants_destroyed(wnn_policy policy)
{
    wnn_status destroyed = policy == WNN_POLICY_SPEC ? WNN_STATUS_DESTROYED_OBJECT : WNN_STATUS_DESTROYED;
    fixture f;
    fixture_init(&f, policy);

    /* graph of another context */
    wnn_context *ctx2 = new_context(policy);
    wnn_graph *g2 = build_main(ctx2);
    wnn_named_tensor in[] = {{"a", f.a}, {"b", f.b}}, out[] = {{"sum", f.sum}, {"prod", f.prod}};
    CHECK_STATUS(wnn_context_dispatch(f.ctx, g2, in, 2, out, 2), WNN_STATUS_WRONG_CONTEXT);
    CHECK(strstr(wnn_last_error_message(), "wnn_context_dispatch") != NULL);
    CHECK_STATUS(wnn_context_dispatch(ctx2, f.g, in, 2, out, 2), WNN_STATUS_WRONG_CONTEXT);

    /* tensors of another context */
    wnn_tensor *far = t23(ctx2);
    CHECK_STATUS(dispatch(&f, far, f.b, f.sum, f.prod), WNN_STATUS_WRONG_CONTEXT);
    CHECK_STATUS(dispatch(&f, f.a, far, f.sum, f.prod), WNN_STATUS_WRONG_CONTEXT);
    CHECK_STATUS(dispatch(&f, f.a, f.b, far, f.prod), WNN_STATUS_WRONG_CONTEXT);
    CHECK_STATUS(dispatch(&f, f.a, f.b, f.sum, far), WNN_STATUS_WRONG_CONTEXT);
    /* ctx2's graph with ctx2's tensors but on ctx2 works */
    wnn_tensor *a2 = t23(ctx2), *b2 = t23(ctx2), *s2 = t23(ctx2);
    write6(ctx2, a2, 1.0f);
    write6(ctx2, b2, 10.0f);
    wnn_named_tensor in2[] = {{"a", a2}, {"b", b2}}, out2[] = {{"sum", s2}, {"prod", far}};
    CHECK_OK(wnn_context_dispatch(ctx2, g2, in2, 2, out2, 2));
    EXPECT6(ctx2, s2, want_sum);
    EXPECT6(ctx2, far, want_prod);

    /* constant tensors */
    float cd[N] = {0};
    wnn_operand_desc od = {WNN_DATA_TYPE_FLOAT32, 2, {2, 3}};
    wnn_tensor *ct = NULL;
    CHECK_OK(wnn_context_create_constant_tensor(f.ctx, &od, cd, sizeof cd, &ct));
    CHECK_STATUS(dispatch(&f, ct, f.b, f.sum, f.prod), WNN_STATUS_CONSTANT_TENSOR);
    CHECK_STATUS(dispatch(&f, f.a, ct, f.sum, f.prod), WNN_STATUS_CONSTANT_TENSOR);
    CHECK_STATUS(dispatch(&f, f.a, f.b, ct, f.prod), WNN_STATUS_CONSTANT_TENSOR);
    CHECK_STATUS(dispatch(&f, f.a, f.b, f.sum, ct), WNN_STATUS_CONSTANT_TENSOR);

    /* destroyed tensors */
    wnn_tensor *dead = t23(f.ctx);
    wnn_tensor_destroy(dead);
    CHECK_STATUS(dispatch(&f, dead, f.b, f.sum, f.prod), destroyed);
    CHECK_STATUS(dispatch(&f, f.a, dead, f.sum, f.prod), destroyed);
    CHECK_STATUS(dispatch(&f, f.a, f.b, dead, f.prod), destroyed);
    CHECK_STATUS(dispatch(&f, f.a, f.b, f.sum, dead), destroyed);
    /* a destroyed constant tensor is destroyed first */
    wnn_tensor_destroy(ct);
    CHECK_STATUS(dispatch(&f, ct, f.b, f.sum, f.prod), destroyed);

    /* destroyed graph (with otherwise valid bindings) */
    wnn_graph *g3 = build_main(f.ctx);
    wnn_graph_destroy(g3);
    CHECK_STATUS(wnn_context_dispatch(f.ctx, g3, in, 2, out, 2), WNN_STATUS_DESTROYED);
    wnn_graph_destroy(g3); /* idempotent */
    CHECK_STATUS(wnn_context_dispatch(f.ctx, g3, in, 2, out, 2), WNN_STATUS_DESTROYED);
    wnn_graph_release(g3);

    /* first failure wins: wrong context before destroyed before names */
    wnn_tensor_destroy(far);
    CHECK_STATUS(wnn_context_dispatch(f.ctx, g2, in, 2, out, 2), WNN_STATUS_WRONG_CONTEXT);
    wnn_named_tensor few[] = {{"a", f.a}};
    wnn_graph *g4 = build_main(f.ctx);
    wnn_graph_destroy(g4);
    CHECK_STATUS(wnn_context_dispatch(f.ctx, g4, few, 1, out, 2), WNN_STATUS_DESTROYED);
    wnn_graph_release(g4);

    /* the valid dispatch still works after all the refusals */
    CHECK_OK(dispatch(&f, f.a, f.b, f.sum, f.prod));
    EXPECT6(f.ctx, f.sum, want_sum);
    EXPECT6(f.ctx, f.prod, want_prod);
    CHECK_OK(wnn_context_finish(f.ctx));

    wnn_tensor_release(dead);
    wnn_tensor_release(ct);
    wnn_tensor_release(far);
    wnn_tensor_release(a2);
    wnn_tensor_release(b2);
    wnn_tensor_release(s2);
    wnn_graph_release(g2);
    wnn_context_release(ctx2);
    fixture_fini(&f);
}

/* "Checks, first failure wins": CONTEXT_LOST; WRONG_CONTEXT; DESTROYED;
** NAME_MISMATCH; DESCRIPTOR_MISMATCH; CONSTANT_TENSOR; DUPLICATE_TENSOR. Each
** case breaks two rules and expects the earlier one. */
static void test_check_order(void)
{
    fixture f;
    fixture_init(&f, WNN_POLICY_CHROMIUM);
    wnn_context *ctx2 = new_context(WNN_POLICY_CHROMIUM);
    wnn_tensor *far = t23(ctx2), *dead = t23(f.ctx);
    wnn_tensor_destroy(dead);
    static const uint32_t s33[] = {3, 3};
    wnn_tensor *wrong_shape = tensor(f.ctx, WNN_DATA_TYPE_FLOAT32, 2, s33, true, true);
    float k[9] = {0};
    wnn_operand_desc od = {WNN_DATA_TYPE_FLOAT32, 2, {3, 3}};
    wnn_tensor *ct33 = NULL;
    CHECK_OK(wnn_context_create_constant_tensor(f.ctx, &od, k, sizeof k, &ct33));
    wnn_named_tensor out[] = {{"sum", f.sum}, {"prod", f.prod}};

    /* WRONG_CONTEXT before DESTROYED: destroyed graph, foreign tensor */
    wnn_graph *gd = build_main(f.ctx);
    wnn_graph_destroy(gd);
    wnn_named_tensor in_far[] = {{"a", far}, {"b", f.b}};
    CHECK_STATUS(wnn_context_dispatch(f.ctx, gd, in_far, 2, out, 2), WNN_STATUS_WRONG_CONTEXT);
    /* ... destroyed tensor bound before the foreign one */
    wnn_named_tensor dead_far[] = {{"a", dead}, {"b", far}};
    CHECK_STATUS(wnn_context_dispatch(f.ctx, f.g, dead_far, 2, out, 2), WNN_STATUS_WRONG_CONTEXT);
    /* DESTROYED before NAME_MISMATCH */
    wnn_named_tensor dead_unknown[] = {{"a", f.a}, {"zzz", dead}};
    CHECK_STATUS(wnn_context_dispatch(f.ctx, f.g, dead_unknown, 2, out, 2), WNN_STATUS_DESTROYED);
    /* NAME_MISMATCH before DESCRIPTOR_MISMATCH */
    wnn_named_tensor shape_unknown[] = {{"a", wrong_shape}, {"zzz", f.b}};
    CHECK_STATUS(wnn_context_dispatch(f.ctx, f.g, shape_unknown, 2, out, 2), WNN_STATUS_NAME_MISMATCH);
    /* DESCRIPTOR_MISMATCH before CONSTANT_TENSOR */
    wnn_named_tensor const_shape[] = {{"a", ct33}, {"b", f.b}};
    CHECK_STATUS(wnn_context_dispatch(f.ctx, f.g, const_shape, 2, out, 2), WNN_STATUS_DESCRIPTOR_MISMATCH);
    /* CONSTANT_TENSOR / DESCRIPTOR_MISMATCH before DUPLICATE_TENSOR */
    wnn_named_tensor dup_shape_out[] = {{"sum", f.a}, {"prod", wrong_shape}};
    wnn_named_tensor in_ok[] = {{"a", f.a}, {"b", f.b}};
    CHECK_STATUS(wnn_context_dispatch(f.ctx, f.g, in_ok, 2, dup_shape_out, 2), WNN_STATUS_DESCRIPTOR_MISMATCH);
    CHECK_OK(wnn_context_finish(f.ctx));

    wnn_graph_release(gd);
    wnn_tensor_release(ct33);
    wnn_tensor_release(wrong_shape);
    wnn_tensor_release(dead);
    wnn_tensor_release(far);
    wnn_context_release(ctx2);
    fixture_fini(&f);
}

static void test_duplicates(wnn_policy policy)
{
    fixture f;
    fixture_init(&f, policy);
    /* one tensor as two outputs */
    CHECK_STATUS(dispatch(&f, f.a, f.b, f.sum, f.sum), WNN_STATUS_DUPLICATE_TENSOR);
    CHECK(strstr(wnn_last_error_message(), "wnn_context_dispatch") != NULL);
    /* as input and output */
    CHECK_STATUS(dispatch(&f, f.a, f.b, f.a, f.prod), WNN_STATUS_DUPLICATE_TENSOR);
    CHECK_STATUS(dispatch(&f, f.a, f.b, f.sum, f.b), WNN_STATUS_DUPLICATE_TENSOR);
    CHECK_STATUS(dispatch(&f, f.a, f.a, f.a, f.prod), WNN_STATUS_DUPLICATE_TENSOR);
    /* one tensor bound to two inputs */
    wnn_status s = dispatch(&f, f.a, f.a, f.sum, f.prod);
    if (policy == WNN_POLICY_SPEC) {
        CHECK_STATUS(s, WNN_STATUS_DUPLICATE_TENSOR);
    } else {
        CHECK_OK(s);
        const float twice[N] = {2, 4, 6, 8, 10, 12}, squares[N] = {1, 4, 9, 16, 25, 36};
        EXPECT6(f.ctx, f.sum, twice);
        EXPECT6(f.ctx, f.prod, squares);
    }
    CHECK_OK(wnn_context_finish(f.ctx));
    fixture_fini(&f);
}

static void test_constant_only_graph(void)
{
    wnn_context *ctx = new_context(WNN_POLICY_CHROMIUM);
    wnn_graph_builder *b = NULL;
    CHECK_OK(wnn_graph_builder_create(ctx, &b));
    float k1[N] = {1, 2, 3, 4, 5, 6}, k2[N] = {0.5f, 0.5f, 0.5f, -1, -1, -1};
    wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, 2, {2, 3}};
    wnn_operand *c1 = wnn_graph_builder_constant(b, &d, k1, sizeof k1);
    wnn_operand *c2 = wnn_graph_builder_constant(b, &d, k2, sizeof k2);
    wnn_named_operand outs[] = {{"y", wnn_mul(b, c1, c2)}};
    wnn_graph *g = NULL;
    CHECK_OK(wnn_graph_builder_build(b, outs, 1, &g));
    wnn_graph_builder_release(b);
    if (!g) {
        wnn_context_release(ctx);
        return;
    }
    CHECK_EQ_INT(wnn_graph_input_count(g), 0);
    wnn_tensor *y = t23(ctx);
    wnn_named_tensor out[] = {{"y", y}};
    CHECK_OK(wnn_context_dispatch(ctx, g, NULL, 0, out, 1));
    const float want[N] = {0.5f, 1, 1.5f, -4, -5, -6};
    EXPECT6(ctx, y, want);
    /* an input given to a graph without inputs */
    wnn_tensor *extra = t23(ctx);
    wnn_named_tensor in[] = {{"x", extra}};
    CHECK_STATUS(wnn_context_dispatch(ctx, g, in, 1, out, 1), WNN_STATUS_NAME_MISMATCH);
    /* an empty but non-NULL input array */
    CHECK_OK(wnn_context_dispatch(ctx, g, in, 0, out, 1));
    EXPECT6(ctx, y, want);
    wnn_tensor_release(extra);
    wnn_tensor_release(y);
    wnn_graph_release(g);
    wnn_context_release(ctx);
}

static void test_output_reuse(void)
{
    fixture f;
    fixture_init(&f, WNN_POLICY_CHROMIUM);
    wnn_tensor *a2 = t23(f.ctx), *b2 = t23(f.ctx);
    write6(f.ctx, a2, 100.0f); /* 100..105 */
    write6(f.ctx, b2, 0.0f);   /* 0..5 */
    /* same outputs, successive dispatches, no wait: the last one wins */
    CHECK_OK(dispatch(&f, f.a, f.b, f.sum, f.prod));
    CHECK_OK(dispatch(&f, a2, b2, f.sum, f.prod));
    const float last_sum[N] = {100, 102, 104, 106, 108, 110}, last_prod[N] = {0, 101, 204, 309, 416, 525};
    EXPECT6(f.ctx, f.sum, last_sum);
    EXPECT6(f.ctx, f.prod, last_prod);

    /* outputs not bound in a later dispatch keep their contents */
    wnn_tensor *s3 = t23(f.ctx), *p3 = t23(f.ctx);
    CHECK_OK(dispatch(&f, f.a, f.b, s3, p3));
    EXPECT6(f.ctx, s3, want_sum);
    EXPECT6(f.ctx, p3, want_prod);
    EXPECT6(f.ctx, f.sum, last_sum);
    EXPECT6(f.ctx, f.prod, last_prod);

    /* a write between two dispatches is seen by the second only */
    wnn_tensor *s4 = t23(f.ctx);
    CHECK_OK(dispatch(&f, f.a, f.b, s3, p3));
    write6(f.ctx, f.a, 1000.0f);
    CHECK_OK(dispatch(&f, f.a, f.b, s4, f.prod));
    const float s4_want[N] = {1010, 1012, 1014, 1016, 1018, 1020};
    EXPECT6(f.ctx, s3, want_sum);
    EXPECT6(f.ctx, s4, s4_want);
    /* the inputs are not modified by dispatch */
    const float a_now[N] = {1000, 1001, 1002, 1003, 1004, 1005}, b_now[N] = {10, 11, 12, 13, 14, 15};
    EXPECT6(f.ctx, f.a, a_now);
    EXPECT6(f.ctx, f.b, b_now);
    wnn_tensor_release(a2);
    wnn_tensor_release(b2);
    wnn_tensor_release(s3);
    wnn_tensor_release(p3);
    wnn_tensor_release(s4);
    fixture_fini(&f);
}

static void test_context_lost(void)
{
    fixture f;
    fixture_init(&f, WNN_POLICY_CHROMIUM);
    CHECK_OK(dispatch(&f, f.a, f.b, f.sum, f.prod)); /* issued before destroy: fine */
    wnn_context_destroy(f.ctx);
    CHECK_STATUS(dispatch(&f, f.a, f.b, f.sum, f.prod), WNN_STATUS_CONTEXT_LOST);
    CHECK(strstr(wnn_last_error_message(), "wnn_context_dispatch") != NULL);
    /* lost comes first, even with bad bindings */
    wnn_named_tensor few[] = {{"a", f.a}};
    CHECK_STATUS(wnn_context_dispatch(f.ctx, f.g, few, 1, NULL, 0), WNN_STATUS_CONTEXT_LOST);
    CHECK_STATUS(wnn_context_finish(f.ctx), WNN_STATUS_CONTEXT_LOST);
    fixture_fini(&f);
}

int main(void)
{
    test_ok_and_names();
    test_descriptors();
    test_contexts_constants_destroyed(WNN_POLICY_CHROMIUM);
    test_contexts_constants_destroyed(WNN_POLICY_SPEC);
    test_check_order();
    test_duplicates(WNN_POLICY_CHROMIUM);
    test_duplicates(WNN_POLICY_SPEC);
    test_constant_only_graph();
    test_output_reuse();
    test_context_lost();
    TEST_DONE();
}
