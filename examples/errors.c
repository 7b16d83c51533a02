/* SPDX-License-Identifier: Apache-2.0 */
/* errors.c -- how wnn reports failures. A fallible function returns a
** wnn_status (WNN_OK is 0) and leaves a message for the calling thread in
** wnn_last_error_message(); wnn_status_class() groups statuses as WebNN's
** exceptions do. Builder operators return NULL instead and the builder keeps
** its first error, which wnn_graph_builder_build() then returns. */
#include <stdio.h>
#include <wnn/wnn.h>

static void report(const char *what, wnn_status s)
{
    printf("%s: %s (class %s)\n  %s\n", what, wnn_status_string(s), wnn_status_string(wnn_status_class(s)),
           wnn_last_error_message());
}

int main(void)
{
    int rc = 1;
    wnn_context *ctx = NULL, *gpu = NULL;
    wnn_graph_builder *b = NULL;
    wnn_graph *g = NULL;
    wnn_tensor *t = NULL;

    /* A device that does not exist (or has no usable GPU). */
    wnn_context_options opts = WNN_CONTEXT_OPTIONS_INIT;
    opts.device = "no-such-device";
    wnn_status s = wnn_context_create(&opts, &gpu);
    report("wnn_context_create(\"no-such-device\")", s);
    if (s != WNN_STATUS_NO_SUCH_DEVICE)
        goto done;

    s = wnn_context_create(NULL, &ctx);
    if (s != WNN_OK) {
        report("wnn_context_create", s);
        goto done;
    }

    /* A bad descriptor: a dimension of 0. *out is set to NULL on failure. */
    wnn_tensor_desc td = {WNN_DATA_TYPE_FLOAT32, 2, {2, 0}, true, true, false};
    s = wnn_context_create_tensor(ctx, &td, &t);
    report("wnn_context_create_tensor", s);
    if (s != WNN_STATUS_INVALID_DIMENSION || t != NULL)
        goto done;

    /* A builder error: the operator returns NULL, later calls pass the NULL
    ** on, and build reports the first error with its message. */
    s = wnn_graph_builder_create(ctx, &b);
    if (s != WNN_OK) {
        report("wnn_graph_builder_create", s);
        goto done;
    }
    wnn_operand_desc a_desc = {WNN_DATA_TYPE_FLOAT32, 2, {2, 3}};
    wnn_operand_desc b_desc = {WNN_DATA_TYPE_FLOAT32, 2, {2, 3}};
    wnn_operand *x = wnn_graph_builder_input(b, "a", &a_desc);
    wnn_operand *w = wnn_graph_builder_input(b, "b", &b_desc);
    wnn_operand *y = wnn_relu(b, wnn_matmul(b, x, w)); /* 3 columns against 2 rows */
    printf("matmul returned %s; the builder says: %s\n", y ? "an operand" : "NULL",
           wnn_graph_builder_error_message(b));
    wnn_named_operand out = {"y", y};
    s = wnn_graph_builder_build(b, &out, 1, &g);
    report("wnn_graph_builder_build", s);
    if (wnn_status_class(s) != WNN_STATUS_TYPE_ERROR || g != NULL)
        goto done;
    rc = 0;
done:
    wnn_graph_release(g);
    wnn_graph_builder_release(b);
    wnn_tensor_release(t);
    wnn_context_release(gpu);
    wnn_context_release(ctx);
    if (rc)
        fprintf(stderr, "errors: a status other than the one expected\n");
    return rc;
}
