/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-memory.c -- the device memory model: exact copy counts of the
** unified storage on the null device (and none on the cpu), the caching
** allocator (no device allocation after warm-up), statistics, trim, and the
** memory limit.
*/
#include "test.h"

static wnn_context *open_ctx(const char *device, uint64_t limit)
{
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.device = device;
    o.memory_limit = limit;
    wnn_context *ctx = NULL;
    CHECK_OK(wnn_context_create(&o, &ctx));
    return ctx;
}

static wnn_memory_stats stats(wnn_context *ctx)
{
    wnn_memory_stats s;
    CHECK_OK(wnn_context_get_memory_stats(ctx, &s));
    return s;
}

/* y = x * 2 */
static wnn_graph *doubler(wnn_context *ctx, uint32_t n)
{
    wnn_graph_builder *b;
    CHECK_OK(wnn_graph_builder_create(ctx, &b));
    wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, 1, {n}};
    wnn_operand *x = wnn_graph_builder_input(b, "x", &d);
    wnn_operand *two = wnn_graph_builder_constant_scalar(b, WNN_DATA_TYPE_FLOAT32, 2.0);
    /* an intermediate inside the graph: (x * 2) + 0 */
    wnn_operand *zero = wnn_graph_builder_constant_scalar(b, WNN_DATA_TYPE_FLOAT32, 0.0);
    wnn_named_operand out = {"y", wnn_add(b, wnn_mul(b, x, two), zero)};
    wnn_graph *g = NULL;
    CHECK_OK(wnn_graph_builder_build(b, &out, 1, &g));
    wnn_graph_builder_release(b);
    return g;
}

static wnn_tensor *tensor(wnn_context *ctx, uint32_t n)
{
    wnn_tensor_desc d = {WNN_DATA_TYPE_FLOAT32, 1, {n}, true, true, false};
    wnn_tensor *t = NULL;
    CHECK_OK(wnn_context_create_tensor(ctx, &d, &t));
    return t;
}

static void dispatch(wnn_context *ctx, wnn_graph *g, wnn_tensor *in, wnn_tensor *out)
{
    wnn_named_tensor bi = {"x", in}, bo = {"y", out};
    CHECK_OK(wnn_context_dispatch(ctx, g, &bi, 1, &bo, 1));
}

/* write -> dispatch -> dispatch -> read: one copy each way, intermediates and
** the tensor between the dispatches never reach the host. */
static void test_chain_copies(const char *device, bool discrete)
{
    enum { N = 1000 };
    wnn_context *ctx = open_ctx(device, 0);
    wnn_graph *g = doubler(ctx, N);
    wnn_tensor *a = tensor(ctx, N), *b = tensor(ctx, N), *c = tensor(ctx, N);
    CHECK_OK(wnn_context_finish(ctx));
    wnn_memory_stats before = stats(ctx);

    float in[N], out[N];
    for (int i = 0; i < N; i++)
        in[i] = (float)i;
    CHECK_OK(wnn_context_write_tensor(ctx, a, in, sizeof in));
    dispatch(ctx, g, a, b);
    dispatch(ctx, g, b, c);
    CHECK_OK(wnn_context_read_tensor_sync(ctx, c, out, sizeof out));
    CHECK(out[0] == 0.0f && out[1] == 4.0f && out[N - 1] == 4.0f * (N - 1));

    wnn_memory_stats after = stats(ctx);
    CHECK_EQ_INT(after.copies_to_device - before.copies_to_device, discrete ? 1 : 0);
    CHECK_EQ_INT(after.bytes_to_device - before.bytes_to_device, discrete ? sizeof in : 0);
    CHECK_EQ_INT(after.copies_to_host - before.copies_to_host, discrete ? 1 : 0);
    CHECK_EQ_INT(after.bytes_to_host - before.bytes_to_host, discrete ? sizeof out : 0);

    /* a second read of an unchanged tensor uses the host mirror */
    CHECK_OK(wnn_context_read_tensor_sync(ctx, c, out, sizeof out));
    CHECK_EQ_INT(stats(ctx).copies_to_host - after.copies_to_host, 0);
    /* reading a tensor never written copies nothing: it is known to be zeros */
    wnn_tensor *fresh = tensor(ctx, N);
    out[5] = 1.0f;
    CHECK_OK(wnn_context_read_tensor_sync(ctx, fresh, out, sizeof out));
    CHECK(out[5] == 0.0f);
    CHECK_EQ_INT(stats(ctx).copies_to_host - after.copies_to_host, 0);
    /* a dispatch makes the host mirror stale again */
    dispatch(ctx, g, c, b);
    CHECK_OK(wnn_context_read_tensor_sync(ctx, b, out, sizeof out));
    CHECK(out[1] == 8.0f);
    CHECK_EQ_INT(stats(ctx).copies_to_host - after.copies_to_host, discrete ? 1 : 0);

    wnn_tensor_release(fresh);
    wnn_tensor_release(a);
    wnn_tensor_release(b);
    wnn_tensor_release(c);
    wnn_graph_release(g);
    wnn_context_release(ctx);
}

/* Creating and destroying tensors in a loop allocates nothing after warm-up. */
static void test_cache(const char *device)
{
    wnn_context *ctx = open_ctx(device, 0);
    for (int i = 0; i < 3; i++)
        wnn_tensor_release(tensor(ctx, 1000 + i)); /* same size class */
    CHECK_OK(wnn_context_finish(ctx));
    wnn_memory_stats warm = stats(ctx);
    for (int i = 0; i < 1000; i++) {
        wnn_tensor *t = tensor(ctx, 900 + i % 100);
        wnn_tensor_release(t);
        if (i % 100 == 0)
            CHECK_OK(wnn_context_finish(ctx)); /* let the releases run */
    }
    CHECK_OK(wnn_context_finish(ctx));
    wnn_memory_stats s = stats(ctx);
    CHECK_EQ_INT(s.device_allocations - warm.device_allocations, 0);
    CHECK_EQ_INT(s.in_use_bytes, 0);
    CHECK(s.cached_bytes >= 4096);
    CHECK(s.peak_bytes >= 4096);

    wnn_context_trim_memory(ctx);
    s = stats(ctx);
    CHECK_EQ_INT(s.cached_bytes, 0);
    CHECK_EQ_INT(s.device_frees, s.device_allocations);
    wnn_context_release(ctx);
}

/* A limit makes allocation fail cleanly with OUT_OF_MEMORY. */
static void test_limit(const char *device)
{
    wnn_context *ctx = open_ctx(device, 1 << 20);
    wnn_tensor_desc d = {WNN_DATA_TYPE_FLOAT32, 1, {(1 << 20) / 4}, true, true, false};
    wnn_tensor *t1 = NULL, *t2 = NULL;
    CHECK_OK(wnn_context_create_tensor(ctx, &d, &t1));
    CHECK_STATUS(wnn_context_create_tensor(ctx, &d, &t2), WNN_STATUS_OUT_OF_MEMORY);
    CHECK(t2 == NULL);
    CHECK(strstr(wnn_last_error_message(), "allocate") != NULL);
    wnn_tensor_release(t1);
    CHECK_OK(wnn_context_finish(ctx));
    /* freed (and cached) memory is reusable under the limit */
    CHECK_OK(wnn_context_create_tensor(ctx, &d, &t2));
    wnn_tensor_release(t2);
    wnn_context_release(ctx);
}

/* The size classes the stats rely on. */
static void test_stats_sizes(const char *device)
{
    wnn_context *ctx = open_ctx(device, 0);
    wnn_tensor *t = tensor(ctx, 3); /* 12 bytes -> the 256-byte class */
    CHECK_EQ_INT(stats(ctx).in_use_bytes, 256);
    wnn_tensor *big = tensor(ctx, (3u << 20) / 4 + 1); /* 3 MiB + 4 -> 4 MiB */
    CHECK_EQ_INT(stats(ctx).in_use_bytes, 256 + (4u << 20));
    wnn_tensor_release(big);
    wnn_tensor_release(t);
    CHECK_OK(wnn_context_finish(ctx));
    CHECK_EQ_INT(stats(ctx).in_use_bytes, 0);
    wnn_context_release(ctx);
}

int main(void)
{
    test_chain_copies("cpu", false);
    test_chain_copies("null", true);
    for (int i = 0; i < 2; i++) {
        const char *device = i ? "null" : "cpu";
        test_cache(device);
        test_limit(device);
        test_stats_sizes(device);
    }
    TEST_DONE();
}
