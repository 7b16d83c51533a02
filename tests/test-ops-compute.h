/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-ops-compute.h -- the harness of the operator tests that compute one output of constants
** (test-ops-elementwise.c, -quantize.c, -reduce.c): a builder on ctx, typed
** constants, compute() to build, run and read a graph, and the refusal and
** value checks.
** Included by each of those files, which set ctx in main().
*/
#ifndef WNN_TESTS_TEST_OPS_COMPUTE_H
#define WNN_TESTS_TEST_OPS_COMPUTE_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "wnn/wnn.h"

static wnn_context *ctx;

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

static inline wnn_graph_builder *new_builder(void)
{
    wnn_graph_builder *b = NULL;
    if (wnn_graph_builder_create(ctx, &b) != WNN_OK) {
        fprintf(stderr, "wnn_graph_builder_create: %s\n", wnn_last_error_message());
        exit(1);
    }
    return b;
}

/* A constant of type t and shape dims[0..rank). */
static inline wnn_operand *konst(wnn_graph_builder *b, wnn_data_type t, uint32_t rank, const uint32_t *dims,
                          const void *data)
{
    wnn_operand_desc d = WNN_OPERAND_DESC_INIT;
    d.data_type = t;
    d.rank = rank;
    for (uint32_t i = 0; i < rank; i++)
        d.shape[i] = dims[i];
    return wnn_graph_builder_constant(b, &d, data, (size_t)wnn_operand_desc_byte_length(&d));
}

/* A rank-1 float32 constant of n elements. */
static inline wnn_operand *vec_f32(wnn_graph_builder *b, uint32_t n, const float *data)
{
    return konst(b, WNN_DATA_TYPE_FLOAT32, 1, &n, data);
}

/* Builds b with y as its only output, runs it once, reads the result into
** out (out_size bytes) and fills *desc with the output's descriptor when
** desc is not NULL. Releases b. False after a failed check. */
static inline bool compute(wnn_graph_builder *b, wnn_operand *y, void *out, size_t out_size, wnn_operand_desc *desc)
{
    wnn_graph *g = NULL;
    wnn_tensor *t = NULL;
    bool ok = false;
    if (y == NULL && SKIP_UNSUPPORTED(wnn_graph_builder_status(b), wnn_graph_builder_error_message(b))) {
        wnn_graph_builder_release(b);
        return false;
    }
    CHECK(y != NULL);
    if (y == NULL) {
        fprintf(stderr, "  builder error: %s\n", wnn_graph_builder_error_message(b));
        wnn_graph_builder_release(b);
        return false;
    }
    wnn_operand_desc od;
    wnn_operand_get_desc(y, &od);
    if (desc)
        *desc = od;
    wnn_named_operand named = {"y", y};
    wnn_status s = wnn_graph_builder_build(b, &named, 1, &g);
    CHECK_OK(s);
    wnn_graph_builder_release(b);
    if (s != WNN_OK)
        return false;
    wnn_tensor_desc td = WNN_TENSOR_DESC_INIT;
    td.data_type = od.data_type;
    td.rank = od.rank;
    memcpy(td.shape, od.shape, sizeof td.shape);
    td.readable = true;
    s = wnn_context_create_tensor(ctx, &td, &t);
    CHECK_OK(s);
    if (s == WNN_OK) {
        CHECK_EQ_INT(wnn_tensor_byte_length(t), out_size);
        wnn_named_tensor nt = {"y", t};
        s = wnn_context_dispatch(ctx, g, NULL, 0, &nt, 1);
        CHECK_OK(s);
        if (s == WNN_OK && wnn_tensor_byte_length(t) == out_size) {
            s = wnn_context_read_tensor_sync(ctx, t, out, out_size);
            CHECK_OK(s);
            ok = s == WNN_OK;
        }
        wnn_tensor_release(t);
    }
    wnn_graph_release(g);
    return ok;
}

/* The builder refused the call (NULL) with status want; clears the error
** so the same builder can try the next refusal. */
#define CHECK_REFUSED(b, call, want)                                                                  \
    do {                                                                                              \
        wnn_operand *r_ = (call);                                                                     \
        CHECK(r_ == NULL);                                                                            \
        CHECK_STATUS(wnn_graph_builder_status(b), want);                                              \
        wnn_graph_builder_clear_error(b);                                                             \
    } while (0)

static inline void check_floats(const float *got, const double *want, size_t n, double tol)
{
    for (size_t i = 0; i < n; i++) {
        if (isnan(want[i]))
            CHECK(isnan(got[i]));
        else
            CHECK_NEAR(got[i], want[i], tol);
    }
}

#endif
