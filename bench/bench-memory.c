/* SPDX-License-Identifier: Apache-2.0 */
/*
** bench-memory.c -- what a tensor costs: create+destroy after warm-up (the
** caching allocator's hot path) beside malloc+free of the same size, and a
** write -> dispatch -> read round trip of a small graph on the null device
** beside the same on the cpu device.
*/
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "wnn/wnn.h"

typedef struct {
    wnn_context *ctx;
    wnn_graph *graph;
    wnn_tensor *in, *out;
    size_t bytes;
} rig;

static void create_destroy(void *arg, long iters)
{
    rig *r = arg;
    wnn_tensor_desc d = {WNN_DATA_TYPE_FLOAT32, 2, {32, 32}, true, true, false};
    for (long i = 0; i < iters; i++) {
        wnn_tensor *t;
        if (wnn_context_create_tensor(r->ctx, &d, &t) != WNN_OK)
            abort();
        wnn_tensor_release(t);
    }
}

static void malloc_free(void *arg, long iters)
{
    for (long i = 0; i < iters; i++) {
        void *volatile p = malloc(32 * 32 * 4);
        free(p);
    }
}

static void round_trip(void *arg, long iters)
{
    rig *r = arg;
    float buf[256];
    for (long i = 0; i < iters; i++) {
        buf[0] = (float)i;
        wnn_named_tensor bi = {"x", r->in}, bo = {"y", r->out};
        if (wnn_context_write_tensor(r->ctx, r->in, buf, r->bytes) != WNN_OK ||
            wnn_context_dispatch(r->ctx, r->graph, &bi, 1, &bo, 1) != WNN_OK ||
            wnn_context_read_tensor_sync(r->ctx, r->out, buf, r->bytes) != WNN_OK)
            abort();
    }
}

static void setup(rig *r, const char *device)
{
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.device = device;
    if (wnn_context_create(&o, &r->ctx) != WNN_OK)
        abort();
    wnn_graph_builder *b;
    wnn_graph_builder_create(r->ctx, &b);
    wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, 1, {256}};
    wnn_operand *x = wnn_graph_builder_input(b, "x", &d);
    wnn_named_operand out = {"y", wnn_relu(b, wnn_add(b, x, x))};
    if (wnn_graph_builder_build(b, &out, 1, &r->graph) != WNN_OK)
        abort();
    wnn_graph_builder_release(b);
    wnn_tensor_desc td = {WNN_DATA_TYPE_FLOAT32, 1, {256}, true, true, false};
    wnn_context_create_tensor(r->ctx, &td, &r->in);
    wnn_context_create_tensor(r->ctx, &td, &r->out);
    r->bytes = 256 * sizeof(float);
}

static void teardown(rig *r)
{
    wnn_tensor_release(r->in);
    wnn_tensor_release(r->out);
    wnn_graph_release(r->graph);
    wnn_context_release(r->ctx);
}

int main(void)
{
    rig cpu, null;
    setup(&cpu, "cpu");
    setup(&null, "null");
    printf("bench-memory (best of 5)\n");
    double peer = bench_best_ns(malloc_free, NULL, 200000, 5);
    create_destroy(&cpu, 1000);
    create_destroy(&null, 1000);
    bench_row("create+destroy tensor 4 KiB, cpu", bench_best_ns(create_destroy, &cpu, 200000, 5), "malloc+free 4 KiB", peer);
    bench_row("create+destroy tensor 4 KiB, null", bench_best_ns(create_destroy, &null, 200000, 5), "malloc+free 4 KiB", peer);
    double rt_cpu = bench_best_ns(round_trip, &cpu, 20000, 5);
    double rt_null = bench_best_ns(round_trip, &null, 20000, 5);
    bench_row("write+dispatch+read 1 KiB, cpu", rt_cpu, "(itself)", rt_cpu);
    bench_row("write+dispatch+read 1 KiB, null", rt_null, "same on cpu", rt_cpu);
    teardown(&cpu);
    teardown(&null);
    return 0;
}
