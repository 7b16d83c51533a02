/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-backend-ops.c -- every device against the cpu, operator by operator
** (ggml's test-backend-ops is the model). For each device
** wnn_device_count() lists other than the cpu (or only argv[1]), for each
** operator wnn_operator_name() lists, and for each data type the device
** claims for the operand a row of test-op-graphs.h varies
** (wnn_context_get_operand_limits), one small graph is built with random
** inputs from a fixed seed, dispatched on the device and on the cpu, and the
** outputs are compared. Inputs are graph inputs bound to tensors, so the
** device's copies, arenas and bindings are exercised as well as its kernels.
**
** Comparison: integer outputs, data movement, comparisons and the operators
** WebNN gives 0 ULP (abs, max, relu, maxPool2d, argMin ...) are compared
** bit for bit. Float math is compared within |got - want| <= atol +
** rtol * |want|, NaN equal to NaN: element-wise math with float32 1e-5/1e-6
** and float16 2e-3/1e-3 (about two float16 ULP), accumulations (matmul,
** conv, reductions, normalizations, recurrent networks) with float32
** 1e-4/1e-4 and float16 2e-2/2e-2. These are generous beside WPT's per-operator
** ULP budgets (shared/reference/webnn.md 8.4); the WPT vectors hold each
** device to those. Float inputs are multiples of 1/64, so float16 holds them
** exactly and sums of few terms are exact.
**
** An operator with no row fails the test, so a new operator must come with
** one; a type the device claims and the cpu does not is skipped with its
** reason printed. Options are left NULL (the defaults) wherever a default
** is a valid call. Exits 77 when no device but the cpu is listed.
*/
#include <math.h>
#include <stdint.h>

#include "test.h"
#include "test-op-graphs.h"

/* ---- random data ------------------------------------------------------------------------- */

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* An integer in [lo, hi]. */
static int64_t rand_int(int64_t lo, int64_t hi)
{
    return lo + (int64_t)(next_random() % (uint64_t)(hi - lo + 1));
}

static bool is_signed(wnn_data_type t)
{
    return t == WNN_DATA_TYPE_INT32 || t == WNN_DATA_TYPE_INT64 || t == WNN_DATA_TYPE_INT8 ||
           t == WNN_DATA_TYPE_INT4;
}

/* One value of range r for type t. */
static double random_value(wnn_data_type t, int r)
{
    if (r >= 100)
        return (double)rand_int(0, r - 101);
    if (is_float(t)) {
        switch (r) {
        case R_POS: return (double)rand_int(32, 128) / 64;              /* [0.5, 2] */
        case R_SMALL: return (double)rand_int(-64, 64) / 64;            /* [-1, 1] */
        case R_BOOL: return (double)rand_int(0, 1);
        case R_SCALE: return ldexp(1, (int)rand_int(-2, 1));            /* 1/4 ... 2 */
        case R_CAST: return (double)rand_int(0, 28) / 4;                /* [0, 7] */
        case R_EXP: return (double)rand_int(-2, 2);
        default: return (double)rand_int(-128, 128) / 64;               /* [-2, 2] */
        }
    }
    switch (r) {
    case R_POS: return (double)rand_int(1, 9);
    case R_SMALL: return (double)(is_signed(t) ? rand_int(-3, 3) : rand_int(0, 3));
    case R_BOOL: return (double)rand_int(0, 1);
    case R_CAST: return (double)rand_int(0, 7);
    case R_EXP: return (double)rand_int(0, 3);
    default: return (double)(is_signed(t) ? rand_int(-10, 10) : rand_int(0, 20));
    }
}

static void *random_data(const wnn_operand_desc *d, int r)
{
    size_t n = (size_t)wnn_operand_desc_element_count(d), bytes = (size_t)wnn_operand_desc_byte_length(d);
    uint8_t *p = calloc(bytes ? bytes : 1, 1);
    if (p == NULL)
        return NULL;
    if (d->data_type == WNN_DATA_TYPE_INT4 || d->data_type == WNN_DATA_TYPE_UINT4) {
        for (size_t i = 0; i < bytes; i++) /* two packed values a byte: any bits are valid */
            p[i] = (uint8_t)next_random();
        return p;
    }
    for (size_t i = 0; i < n; i++)
        store(d->data_type, p, i, random_value(d->data_type, r));
    return p;
}

static const char *const out_names[MAX_OUT] = {"y0", "y1", "y2", "y3", "y4", "y5", "y6", "y7", "y8", "y9"};

/* ---- running and comparing -------------------------------------------------------------------------- */

typedef struct result {
    uint32_t n;
    wnn_operand_desc d[MAX_OUT];
    void *data[MAX_OUT];
} result;

static void result_free(result *r)
{
    for (uint32_t i = 0; i < r->n; i++)
        free(r->data[i]);
    r->n = 0;
}

/* Builds the row's graph for type t on ctx, fills the inputs (random ones
** into *inputs when it is NULL, else the given ones), dispatches once and
** reads every output into r. Prints what failed. */
static bool run_case(wnn_context *ctx, const row *rw, wnn_data_type t, void **inputs, result *r)
{
    bcase c = {0};
    wnn_operand *y[MAX_OUT] = {0};
    wnn_named_operand outs[MAX_OUT];
    wnn_named_tensor bin[MAX_IN], bout[MAX_OUT];
    wnn_tensor *tin[MAX_IN] = {0}, *tout[MAX_OUT] = {0};
    wnn_graph *g = NULL;
    bool ok = false;
    c.operand = rw->operand;
    c.t = t;
    c.fn = rw->fn;
    r->n = 0;
    if (wnn_graph_builder_create(ctx, &c.b) != WNN_OK)
        return false;
    uint32_t n = rw->build(&c, y);
    for (uint32_t i = 0; i < n; i++)
        if (y[i] == NULL)
            n = 0;
    if (n == 0) {
        fprintf(stderr, "  %s (%s %s): the builder refused: %s\n", rw->op, rw->operand, wnn_data_type_name(t),
                wnn_graph_builder_error_message(c.b));
        goto done;
    }
    for (uint32_t i = 0; i < n; i++)
        outs[i] = (wnn_named_operand){out_names[i], y[i]};
    if (wnn_graph_builder_build(c.b, outs, n, &g) != WNN_OK)
        goto failed;
    for (uint32_t i = 0; i < c.n_in; i++) {
        wnn_tensor_desc td = WNN_TENSOR_DESC_INIT;
        td.data_type = c.in[i].data_type;
        td.rank = c.in[i].rank;
        memcpy(td.shape, c.in[i].shape, sizeof td.shape);
        td.writable = true;
        if (inputs[i] == NULL && (inputs[i] = random_data(&c.in[i], c.range[i])) == NULL)
            goto failed;
        if (wnn_context_create_tensor(ctx, &td, &tin[i]) != WNN_OK ||
            wnn_context_write_tensor(ctx, tin[i], inputs[i], (size_t)wnn_operand_desc_byte_length(&c.in[i])) !=
                WNN_OK)
            goto failed;
        bin[i] = (wnn_named_tensor){in_names[i], tin[i]};
    }
    for (uint32_t i = 0; i < n; i++) {
        wnn_tensor_desc td = WNN_TENSOR_DESC_INIT;
        wnn_operand_get_desc(y[i], &r->d[i]);
        td.data_type = r->d[i].data_type;
        td.rank = r->d[i].rank;
        memcpy(td.shape, r->d[i].shape, sizeof td.shape);
        td.readable = true;
        if (wnn_context_create_tensor(ctx, &td, &tout[i]) != WNN_OK)
            goto failed;
        bout[i] = (wnn_named_tensor){out_names[i], tout[i]};
    }
    if (wnn_context_dispatch(ctx, g, bin, c.n_in, bout, n) != WNN_OK)
        goto failed;
    for (uint32_t i = 0; i < n; i++) {
        size_t bytes = (size_t)wnn_operand_desc_byte_length(&r->d[i]);
        r->data[i] = malloc(bytes ? bytes : 1);
        r->n = i + 1;
        if (r->data[i] == NULL || wnn_context_read_tensor_sync(ctx, tout[i], r->data[i], bytes) != WNN_OK)
            goto failed;
    }
    ok = true;
    goto done;
failed:
    fprintf(stderr, "  %s (%s %s): %s\n", rw->op, rw->operand, wnn_data_type_name(t), wnn_last_error_message());
done:
    for (uint32_t i = 0; i < MAX_IN; i++)
        wnn_tensor_release(tin[i]);
    for (uint32_t i = 0; i < MAX_OUT; i++)
        wnn_tensor_release(tout[i]);
    wnn_graph_release(g);
    wnn_graph_builder_release(c.b);
    if (!ok)
        result_free(r);
    return ok;
}

/* Element i of a float output as a double. */
static double float_at(wnn_data_type t, const void *p, size_t i)
{
    if (t == WNN_DATA_TYPE_FLOAT16)
        return wnn__half_to_float(((const uint16_t *)p)[i]);
    return ((const float *)p)[i];
}

static bool close_enough(double got, double want, double rtol, double atol)
{
    if (isnan(got) || isnan(want))
        return isnan(got) && isnan(want);
    if (got == want)
        return true; /* infinities of one sign */
    return fabs(got - want) <= atol + rtol * fabs(want);
}

/* Compares the device's outputs with the cpu's; prints the first difference. */
static bool same_results(const row *rw, wnn_data_type t, const result *want, const result *got)
{
    if (got->n != want->n) {
        fprintf(stderr, "  %s (%s %s): %u outputs, the cpu gives %u\n", rw->op, rw->operand,
                wnn_data_type_name(t), got->n, want->n);
        return false;
    }
    for (uint32_t k = 0; k < want->n; k++) {
        const wnn_operand_desc *d = &want->d[k];
        size_t bytes = (size_t)wnn_operand_desc_byte_length(d), n = (size_t)wnn_operand_desc_element_count(d);
        if (memcmp(&got->d[k], d, sizeof *d) != 0) {
            fprintf(stderr, "  %s (%s %s): output %u has another descriptor than the cpu's\n", rw->op,
                    rw->operand, wnn_data_type_name(t), k);
            return false;
        }
        if (memcmp(got->data[k], want->data[k], bytes) == 0)
            continue;
        if (rw->cmp == EXACT || !is_float(d->data_type)) {
            fprintf(stderr, "  %s (%s %s): output %u differs from the cpu's (bit-exact wanted)\n", rw->op,
                    rw->operand, wnn_data_type_name(t), k);
            return false;
        }
        bool half = d->data_type == WNN_DATA_TYPE_FLOAT16;
        double rtol = rw->cmp == ELEM ? (half ? 2e-3 : 1e-5) : (half ? 2e-2 : 1e-4);
        double atol = rw->cmp == ELEM ? (half ? 1e-3 : 1e-6) : (half ? 2e-2 : 1e-4);
        for (size_t i = 0; i < n; i++) {
            double g = float_at(d->data_type, got->data[k], i), w = float_at(d->data_type, want->data[k], i);
            if (!close_enough(g, w, rtol, atol)) {
                fprintf(stderr, "  %s (%s %s): output %u element %zu is %.9g, the cpu gives %.9g (rtol %g, atol %g)\n",
                        rw->op, rw->operand, wnn_data_type_name(t), k, i, g, w, rtol, atol);
                return false;
            }
        }
    }
    return true;
}

static int cases_run, cases_skipped;

/* Every type the device claims for the row's operand, against the cpu. */
static void check_row(wnn_context *dev, const char *dev_name, const row *rw)
{
    wnn_tensor_limits dl, cl;
    CHECK_OK(wnn_context_get_operand_limits(dev, rw->op, rw->operand, &dl));
    CHECK_OK(wnn_context_get_operand_limits(cpu_ctx, rw->op, rw->operand, &cl));
    for (int t = WNN_DATA_TYPE_FLOAT32; t <= WNN_DATA_TYPE_UINT4; t++) {
        if (!(dl.data_types & WNN_DATA_TYPE_BIT(t)))
            continue;
        const char *tn = wnn_data_type_name((wnn_data_type)t);
        if (!(cl.data_types & WNN_DATA_TYPE_BIT(t))) {
            printf("skip %s %s (%s %s): the cpu, the reference, does not support it\n", dev_name, rw->op,
                   rw->operand, tn);
            cases_skipped++;
            continue;
        }
        void *inputs[MAX_IN] = {0};
        result want = {0}, got = {0};
        bool ok = run_case(cpu_ctx, rw, (wnn_data_type)t, inputs, &want);
        CHECK(ok);
        if (ok) {
            ok = run_case(dev, rw, (wnn_data_type)t, inputs, &got);
            CHECK(ok);
        }
        if (ok) {
            bool same = same_results(rw, (wnn_data_type)t, &want, &got);
            CHECK(same);
            if (!same)
                fprintf(stderr, "  on %s\n", dev_name);
        }
        cases_run++;
        for (uint32_t i = 0; i < MAX_IN; i++)
            free(inputs[i]);
        result_free(&want);
        result_free(&got);
    }
}

static void check_device(const char *name)
{
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    wnn_context *dev = NULL;
    o.device = name;
    CHECK_OK(wnn_context_create(&o, &dev));
    if (dev == NULL)
        return;
    int run0 = cases_run, skipped0 = cases_skipped, failed0 = test_failed;
    for (uint32_t i = 0; i < wnn_operator_count(); i++) {
        const char *op = wnn_operator_name(i);
        bool covered = false;
        for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
            if (strcmp(rows[k].op, op) == 0) {
                check_row(dev, name, &rows[k]);
                covered = true;
            }
        }
        if (!covered) {
            fprintf(stderr, "  %s: no row in test-backend-ops's table (add one)\n", op);
            CHECK(covered);
        }
    }
    printf("%s: %d cases against the cpu, %d skipped, %d failed checks\n", name, cases_run - run0,
           cases_skipped - skipped0, test_failed - failed0);
    wnn_context_release(dev);
}

int main(int argc, char **argv)
{
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.device = "cpu";
    CHECK_OK(wnn_context_create(&o, &cpu_ctx));
    if (cpu_ctx == NULL)
        TEST_DONE();
    int devices = 0;
    for (uint32_t i = 0; i < wnn_device_count(); i++) {
        wnn_device_info info;
        CHECK_OK(wnn_device_get_info(i, &info));
        if (strcmp(info.name, "cpu") == 0) {
            printf("skip cpu: it is the reference\n");
            continue;
        }
        if (argc > 1 && strcmp(argv[1], info.name) != 0)
            continue;
        check_device(info.name);
        devices++;
    }
    wnn_context_release(cpu_ctx);
    if (devices == 0) {
        printf("no device to compare with the cpu%s%s\n", argc > 1 ? " named " : "", argc > 1 ? argv[1] : "");
        return 77;
    }
    TEST_DONE();
}
