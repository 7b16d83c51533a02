/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-limits.c -- opSupportLimits: the context-wide limits, one row per
** operand of every implemented operator, and the device's own data types;
** and that the builder accepts exactly the types each row lists.
**
** That last check walks the rows of test-op-graphs.h: for each operator and
** the operand a row varies, every data type is tried in a small valid call;
** a listed type must be accepted, an unlisted one refused with
** UNSUPPORTED_DATA_TYPE. Not covered generically: operands no row varies
** (printed: output rows, whose type follows the inputs or an option, and
** optional operands such as bias, c or the recurrent biases), ranks (the
** rows use one rank each), and types of two operands that must agree
** varied apart (the rows vary them together).
*/
#include "test.h"
#include "test-op-graphs.h"

/* Every data type in a small valid call of each row, against the row's
** limits on ctx. */
static void check_builder_types(wnn_context *ctx)
{
    int checked = 0;
    cpu_ctx = ctx; /* cast's builder asks which types cast produces */
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        const row *rw = &rows[k];
        wnn_tensor_limits l;
        CHECK_OK(wnn_context_get_operand_limits(ctx, rw->op, rw->operand, &l));
        for (int t = WNN_DATA_TYPE_FLOAT32; t <= WNN_DATA_TYPE_UINT4; t++) {
            bcase c = {0};
            wnn_operand *y[MAX_OUT] = {0};
            CHECK_OK(wnn_graph_builder_create(ctx, &c.b));
            c.operand = rw->operand;
            c.t = (wnn_data_type)t;
            c.fn = rw->fn;
            uint32_t n = rw->build(&c, y);
            bool accepted = n > 0;
            for (uint32_t i = 0; i < n; i++)
                accepted = accepted && y[i] != NULL;
            bool listed = (l.data_types & WNN_DATA_TYPE_BIT(t)) != 0;
            CHECK_EQ_INT(accepted, listed);
            if (accepted != listed)
                fprintf(stderr, "  %s %s %s: the limits %s, the builder %s it (%s)\n", rw->op, rw->operand,
                        wnn_data_type_name((wnn_data_type)t), listed ? "list it" : "leave it out",
                        accepted ? "accepts" : "refuses", wnn_graph_builder_error_message(c.b));
            if (!accepted && !listed)
                CHECK_STATUS(wnn_graph_builder_status(c.b), WNN_STATUS_UNSUPPORTED_DATA_TYPE);
            wnn_graph_builder_release(c.b);
            checked++;
        }
    }
    /* the operand rows no row of test-op-graphs.h varies */
    printf("builder types: %d calls; operand rows not varied:", checked);
    for (uint32_t i = 0; i < wnn_operator_count(); i++) {
        const char *op = wnn_operator_name(i), *name;
        for (uint32_t k = 0; (name = wnn_operator_operand_name(op, k)) != NULL; k++) {
            bool varied = false;
            for (size_t r = 0; r < sizeof rows / sizeof rows[0] && !varied; r++)
                varied = strcmp(rows[r].op, op) == 0 && strcmp(rows[r].operand, name) == 0;
            if (!varied && strncmp(name, "output", 6) != 0)
                printf(" %s.%s", op, name);
        }
    }
    printf(" (and the outputs)\n");
}

int main(void)
{
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.device = test_device();
    wnn_context *ctx;
    CHECK_OK(wnn_context_create(&o, &ctx));

    wnn_context_limits cl = WNN_CONTEXT_LIMITS_INIT;
    CHECK_OK(wnn_context_get_limits(ctx, &cl));
    CHECK(strcmp(cl.preferred_input_layout, "nchw") == 0);
    wnn_device_info info;
    CHECK_OK(wnn_context_get_device_info(ctx, &info));
    CHECK_EQ_INT(cl.max_tensor_byte_length, info.max_tensor_byte_length);
    CHECK_EQ_INT(cl.input.max_rank, WNN_MAX_RANK);
    /* the limits say what tensors the device really creates */
    for (int t = WNN_DATA_TYPE_FLOAT32; t <= WNN_DATA_TYPE_UINT4; t++) {
        wnn_tensor_desc d = {(wnn_data_type)t, 1, {4}, true, true, false};
        wnn_tensor *x = NULL;
        wnn_status s = wnn_context_create_tensor(ctx, &d, &x);
        CHECK_EQ_INT(s == WNN_OK, (cl.input.data_types & WNN_DATA_TYPE_BIT(t)) != 0);
        wnn_tensor_release(x);
    }

    /* every implemented operator has limits for its output(s) */
    CHECK(wnn_operator_count() >= 24);
    for (uint32_t i = 0; i < wnn_operator_count(); i++) {
        const char *op = wnn_operator_name(i);
        CHECK(wnn_operator_operand_name(op, 0) != NULL);
        if (!wnn_operator_operand_name(op, 0))
            fprintf(stderr, "operator %s has no limits\n", op);
        wnn_tensor_limits l;
        uint32_t k = 0;
        for (const char *name; (name = wnn_operator_operand_name(op, k)); k++) {
            CHECK_OK(wnn_context_get_operand_limits(ctx, op, name, &l));
            CHECK(l.data_types != 0);
            CHECK(l.min_rank <= l.max_rank && l.max_rank <= WNN_MAX_RANK);
        }
    }
    CHECK(wnn_operator_name(wnn_operator_count()) == NULL);

    wnn_tensor_limits l;
    CHECK_OK(wnn_context_get_operand_limits(ctx, "matmul", "a", &l));
    CHECK_EQ_INT(l.data_types, WNN_DATA_TYPE_BIT(WNN_DATA_TYPE_FLOAT32) | WNN_DATA_TYPE_BIT(WNN_DATA_TYPE_FLOAT16));
    CHECK_EQ_INT(l.min_rank, 2);
    CHECK_OK(wnn_context_get_operand_limits(ctx, "equal", "output", &l));
    CHECK_EQ_INT(l.data_types, WNN_DATA_TYPE_BIT(WNN_DATA_TYPE_UINT8));
    CHECK_STATUS(wnn_context_get_operand_limits(ctx, "matmul", "filter", &l), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(wnn_context_get_operand_limits(ctx, "noSuchOp", "input", &l), WNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(wnn_context_get_operand_limits(ctx, NULL, "input", &l), WNN_STATUS_INVALID_ARGUMENT);

    /* the builder agrees with the limits on a few rules */
    wnn_graph_builder *b;
    CHECK_OK(wnn_graph_builder_create(ctx, &b));
    wnn_operand_desc d = {WNN_DATA_TYPE_INT32, 2, {2, 2}};
    wnn_operand *x = wnn_graph_builder_input(b, "x", &d);
    CHECK_OK(wnn_context_get_operand_limits(ctx, "exp", "input", &l));
    CHECK_EQ_INT((l.data_types & WNN_DATA_TYPE_BIT(WNN_DATA_TYPE_INT32)) != 0, wnn_exp(b, x) != NULL);
    wnn_graph_builder_clear_error(b);
    CHECK_OK(wnn_context_get_operand_limits(ctx, "abs", "input", &l));
    CHECK_EQ_INT((l.data_types & WNN_DATA_TYPE_BIT(WNN_DATA_TYPE_INT32)) != 0, wnn_abs(b, x) != NULL);
    wnn_graph_builder_release(b);

    check_builder_types(ctx);
    wnn_context_release(ctx);
    TEST_DONE();
}
