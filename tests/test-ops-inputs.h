/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-ops-inputs.h -- the harness of the operator tests whose graphs take input tensors
** (test-ops-norm.c, -spatial.c): a builder on ctx, descriptors, constants,
** inputs and run() that binds and reads them.
** Included by each of those files, which set ctx in main().
*/
#ifndef WNN_TESTS_TEST_OPS_INPUTS_H
#define WNN_TESTS_TEST_OPS_INPUTS_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "wnn/wnn.h"

static wnn_context *ctx;

/* ---- harness ------------------------------------------------------------------------------ */

static inline wnn_graph_builder *builder(void)
{
    wnn_graph_builder *b = NULL;
    if (wnn_graph_builder_create(ctx, &b) != WNN_OK) {
        fprintf(stderr, "builder: %s\n", wnn_last_error_message());
        exit(1);
    }
    return b;
}

static inline wnn_operand_desc desc4(wnn_data_type t, uint32_t rank, const uint32_t *shape)
{
    wnn_operand_desc d = {t, rank, {0}};
    for (uint32_t i = 0; i < rank; i++)
        d.shape[i] = shape[i];
    return d;
}

static inline wnn_operand *constant(wnn_graph_builder *b, wnn_data_type t, uint32_t rank, const uint32_t *shape,
                             const void *data)
{
    wnn_operand_desc d = desc4(t, rank, shape);
    return wnn_graph_builder_constant(b, &d, data, (size_t)wnn_operand_desc_byte_length(&d));
}

#define SHAPE(...) (uint32_t)(sizeof((uint32_t[]){__VA_ARGS__}) / sizeof(uint32_t)), ((const uint32_t[]){__VA_ARGS__})
#define CF32(b, shape, ...) constant(b, F32, shape, ((const float[]){__VA_ARGS__}))

/* A graph input operand with no data yet (for validation checks). */
static inline wnn_operand *input(wnn_graph_builder *b, const char *name, wnn_data_type t, uint32_t rank,
                          const uint32_t *shape)
{
    wnn_operand_desc d = desc4(t, rank, shape);
    return wnn_graph_builder_input(b, name, &d);
}

/* Builds out (an operand of b) as the graph's only output, dispatches it
** once and reads it into buf (buf_size bytes, which must be its size).
** Releases b. False, after a failed check, when any step fails. */
static inline bool run(wnn_graph_builder *b, wnn_operand *out, void *buf, size_t buf_size)
{
    wnn_graph *g = NULL;
    wnn_tensor *t = NULL;
    bool ok = out != NULL;
    if (!ok && SKIP_UNSUPPORTED(wnn_graph_builder_status(b), wnn_graph_builder_error_message(b))) {
        wnn_graph_builder_release(b);
        return false;
    }
    if (!ok)
        fprintf(stderr, "  builder refused: %s\n", wnn_graph_builder_error_message(b));
    CHECK(ok);
    wnn_named_operand named = {"out", out};
    if (ok) {
        wnn_status s = wnn_graph_builder_build(b, &named, 1, &g);
        CHECK_OK(s);
        ok = s == WNN_OK;
    }
    if (ok) {
        wnn_operand_desc d;
        wnn_operand_get_desc(out, &d);
        wnn_tensor_desc td = WNN_TENSOR_DESC_INIT;
        td.data_type = d.data_type;
        td.rank = d.rank;
        memcpy(td.shape, d.shape, sizeof td.shape);
        td.readable = true;
        CHECK_OK(wnn_context_create_tensor(ctx, &td, &t));
        ok = t != NULL && wnn_tensor_byte_length(t) == buf_size;
        CHECK(ok);
    }
    if (ok) {
        wnn_named_tensor nt = {"out", t};
        wnn_status s = wnn_context_dispatch(ctx, g, NULL, 0, &nt, 1);
        if (s == WNN_OK)
            s = wnn_context_read_tensor_sync(ctx, t, buf, buf_size);
        CHECK_OK(s);
        ok = s == WNN_OK;
    }
    wnn_tensor_release(t);
    wnn_graph_release(g);
    wnn_graph_builder_release(b);
    return ok;
}

#endif
