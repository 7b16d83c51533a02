/* SPDX-License-Identifier: Apache-2.0 */
/* hello.c -- y = relu(x @ x) on the cpu device: build a graph once, then
** write an input, dispatch, read the output. Every status is checked and
** every handle released. */
#include <stdio.h>
#include <wnn/wnn.h>

#define CHECK(call)                                                                   \
    do {                                                                              \
        wnn_status s_ = (call);                                                       \
        if (s_ != WNN_OK) {                                                           \
            fprintf(stderr, "%s: %s\n", wnn_status_string(s_), wnn_last_error_message()); \
            goto done;                                                                \
        }                                                                             \
    } while (0)

int main(void)
{
    int rc = 1;
    wnn_context *ctx = NULL;
    wnn_graph_builder *b = NULL;
    wnn_graph *g = NULL;
    wnn_tensor *in = NULL, *out = NULL;

    CHECK(wnn_context_create(NULL, &ctx)); /* NULL options: the "cpu" device */
    CHECK(wnn_graph_builder_create(ctx, &b));
    wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, 2, {2, 2}};
    wnn_operand *x = wnn_graph_builder_input(b, "x", &d);
    wnn_named_operand y = {"y", wnn_relu(b, wnn_matmul(b, x, x))}; /* NULL on error */
    CHECK(wnn_graph_builder_build(b, &y, 1, &g)); /* reports the first builder error */

    wnn_tensor_desc td = {WNN_DATA_TYPE_FLOAT32, 2, {2, 2}, true, true, false}; /* readable, writable, not exportable */
    CHECK(wnn_context_create_tensor(ctx, &td, &in));
    CHECK(wnn_context_create_tensor(ctx, &td, &out));
    float v[4] = {1, -2, 3, 4}, r[4];
    CHECK(wnn_context_write_tensor(ctx, in, v, sizeof v)); /* copied before it returns */
    wnn_named_tensor bin = {"x", in}, bout = {"y", out};
    CHECK(wnn_context_dispatch(ctx, g, &bin, 1, &bout, 1)); /* queued; returns at once */
    CHECK(wnn_context_read_tensor_sync(ctx, out, r, sizeof r)); /* waits for the result */
    printf("%g %g %g %g\n", r[0], r[1], r[2], r[3]); /* 0 0 15 10 */
    rc = 0;
done:
    wnn_tensor_release(in); /* every release takes NULL */
    wnn_tensor_release(out);
    wnn_graph_release(g);
    wnn_graph_builder_release(b);
    wnn_context_release(ctx);
    return rc;
}
