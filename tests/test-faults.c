/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-faults.c -- allocation and copy failure injection. A representative
** scenario (create tensors, build, write, dispatch twice, read, destroy) runs
** once per device allocation and once per copy, with exactly that one
** failing. Every run must end in a clean error status or a correct result --
** never a crash -- and, under the address sanitizer, leak nothing.
*/
#include "memory/allocator.h"
#include "test.h"

enum { N = 256 };

/* Returns WNN_OK with correct values, or the first error met. */
static wnn_status scenario(const char *device)
{
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.device = device;
    wnn_context *ctx = NULL;
    wnn_graph_builder *b = NULL;
    wnn_graph *g = NULL;
    wnn_tensor *t[3] = {NULL, NULL, NULL};
    wnn_status s = wnn_context_create(&o, &ctx);
    if (s != WNN_OK)
        return s;
    wnn_tensor_desc td = {WNN_DATA_TYPE_FLOAT32, 1, {N}, true, true, false};
    for (int i = 0; i < 3 && s == WNN_OK; i++)
        s = wnn_context_create_tensor(ctx, &td, &t[i]);
    if (s == WNN_OK)
        s = wnn_graph_builder_create(ctx, &b);
    if (s == WNN_OK) {
        wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, 1, {N}};
        wnn_operand *x = wnn_graph_builder_input(b, "x", &d);
        wnn_operand *y = wnn_sqrt(b, wnn_mul(b, x, x)); /* |x| through an intermediate */
        wnn_named_operand out = {"y", wnn_add(b, y, y)};
        s = wnn_graph_builder_build(b, &out, 1, &g);
    }
    float in[N], res[N];
    for (int i = 0; i < N; i++)
        in[i] = (float)(i - N / 2);
    if (s == WNN_OK)
        s = wnn_context_write_tensor(ctx, t[0], in, sizeof in);
    for (int k = 0; k < 2 && s == WNN_OK; k++) {
        wnn_named_tensor bi = {"x", t[k]}, bo = {"y", t[k + 1]};
        s = wnn_context_dispatch(ctx, g, &bi, 1, &bo, 1);
    }
    if (s == WNN_OK)
        s = wnn_context_read_tensor_sync(ctx, t[2], res, sizeof res);
    wnn_status fin = wnn_context_finish(ctx);
    if (s == WNN_OK)
        s = fin;
    if (s == WNN_OK) {
        for (int i = 0; i < N; i++)
            if (res[i] != 4.0f * (in[i] < 0 ? -in[i] : in[i])) {
                s = WNN_STATUS_UNKNOWN;
                break;
            }
    }
    for (int i = 0; i < 3; i++)
        wnn_tensor_release(t[i]);
    wnn_graph_release(g);
    wnn_graph_builder_release(b);
    wnn_context_release(ctx);
    return s;
}

static void walk(const char *device, bool copies)
{
    int failures = 0, runs = 0;
    for (uint64_t nth = 1; nth < 1000; nth++) {
        wnn__fault_inject(copies ? 0 : nth, copies ? nth : 0);
        wnn_status s = scenario(device);
        bool armed = wnn__fault_armed();
        wnn__fault_inject(0, 0);
        runs++;
        if (armed) {
            /* the scenario has fewer events than nth: it must have succeeded */
            CHECK_STATUS(s, WNN_OK);
            break;
        }
        /* the injected failure must surface as an error, never as a wrong result */
        CHECK(s != WNN_OK && s != WNN_STATUS_UNKNOWN);
        if (s == WNN_OK || s == WNN_STATUS_UNKNOWN)
            fprintf(stderr, "%s %s fault %llu: %s\n", device, copies ? "copy" : "alloc",
                    (unsigned long long)nth, wnn_status_string(s));
        failures++;
    }
    printf("%s: %d %s faults injected, each reported\n", device, failures, copies ? "copy" : "allocation");
    CHECK(failures >= (copies ? 2 : 3)); /* the scenario really has such events */
    CHECK(runs < 1000);
}

int main(void)
{
    CHECK_OK(scenario("cpu"));
    CHECK_OK(scenario("null"));
    walk("cpu", false);
    walk("null", false);
    walk("null", true);
    TEST_DONE();
}
