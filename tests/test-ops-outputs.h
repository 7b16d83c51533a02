/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-ops-outputs.h -- the harness of the operator tests whose graphs have several outputs
** (test-ops-gather.c, -movement.c, -recurrent.c): a builder on ctx,
** constants, run() over several outputs and run1() for one.
** Included by each of those files, which set ctx in main().
*/
#ifndef WNN_TESTS_TEST_OPS_OUTPUTS_H
#define WNN_TESTS_TEST_OPS_OUTPUTS_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "wnn/wnn.h"

static wnn_context *ctx;

static inline wnn_graph_builder *builder(void)
{
    wnn_graph_builder *b = NULL;
    if (wnn_graph_builder_create(ctx, &b) != WNN_OK) {
        fprintf(stderr, "builder: %s\n", wnn_last_error_message());
        exit(1);
    }
    return b;
}

static inline wnn_operand *constant(wnn_graph_builder *b, wnn_data_type t, uint32_t rank, const uint32_t *shape,
                             const void *data)
{
    wnn_operand_desc d = {t, rank, {0}};
    for (uint32_t i = 0; i < rank; i++)
        d.shape[i] = shape[i];
    return wnn_graph_builder_constant(b, &d, data, (size_t)wnn_operand_desc_byte_length(&d));
}

static inline wnn_operand *f32(wnn_graph_builder *b, uint32_t rank, const uint32_t *shape, const float *data)
{
    return constant(b, WNN_DATA_TYPE_FLOAT32, rank, shape, data);
}

/* Builds the graph of b's operands outs (n of them), dispatches it once and
** reads output i into bufs[i]. Releases b. False (after a failed check) when
** any step fails. */
static inline bool run(wnn_graph_builder *b, wnn_operand *const *outs, size_t n, void *const *bufs)
{
    wnn_named_operand named[4];
    wnn_named_tensor tensors[4];
    char names[4][24];
    wnn_graph *g = NULL;
    bool ok = n <= 4;
    for (size_t i = 0; ok && i < n; i++) {
        snprintf(names[i], sizeof names[i], "out%zu", i);
        named[i] = (wnn_named_operand){names[i], outs[i]};
        ok = outs[i] != NULL;
    }
    if (!ok && n <= 4 && SKIP_UNSUPPORTED(wnn_graph_builder_status(b), wnn_graph_builder_error_message(b))) {
        wnn_graph_builder_release(b);
        return false;
    }
    CHECK(ok);
    if (ok)
        CHECK_OK(wnn_graph_builder_build(b, named, n, &g));
    wnn_graph_builder_release(b);
    if (!ok || !g)
        return false;
    for (size_t i = 0; i < n; i++) {
        wnn_tensor_desc td = WNN_TENSOR_DESC_INIT;
        wnn_operand_desc od;
        wnn_graph_get_output(g, (uint32_t)i, NULL, &od);
        td.data_type = od.data_type;
        td.rank = od.rank;
        memcpy(td.shape, od.shape, sizeof td.shape);
        td.readable = true;
        tensors[i].name = names[i];
        tensors[i].tensor = NULL;
        CHECK_OK(wnn_context_create_tensor(ctx, &td, &tensors[i].tensor));
    }
    CHECK_OK(wnn_context_dispatch(ctx, g, NULL, 0, tensors, n));
    for (size_t i = 0; i < n; i++) {
        CHECK_OK(wnn_context_read_tensor_sync(ctx, tensors[i].tensor, bufs[i], wnn_tensor_byte_length(tensors[i].tensor)));
        wnn_tensor_release(tensors[i].tensor);
    }
    wnn_graph_release(g);
    return true;
}

static inline bool run1(wnn_graph_builder *b, wnn_operand *out, void *buf)
{
    return run(b, &out, 1, &buf);
}

#define CHECK_FLOATS(got, want, n, tol)                                                                \
    do {                                                                                               \
        for (size_t k_ = 0; k_ < (size_t)(n); k_++)                                                     \
            CHECK_NEAR((got)[k_], (want)[k_], tol);                                                    \
    } while (0)

#endif
