/* SPDX-License-Identifier: Apache-2.0 */
/*
** bench-webgpu.c -- the webgpu device beside the cuda device on the same
** machine, the same graphs and the same calls (issue 16's table):
**
**   add float32, 1 GiB per operand     TB/s moved (two reads and a write)
**   matmul 4096^3 float32              TFLOP/s
**   conv2d 3x3, [32,64,56,56] -> 64    TFLOP/s (padding 1, float32, NCHW/OIHW)
**   10-operator element-wise chain     microseconds per dispatch + finish, [1024]
**   write / read 256 MiB               GB/s from and to ordinary host memory
**   matmul and conv2d again in float16 TFLOP/s (on webgpu: f16 bindings where the
**                                      adapter has shader-f16, else packed words)
**
** Each figure is the best of three repetitions after a warm-up. A device
** that is absent, or refuses a workload (a buffer over its limits), prints
** why on its row and the rest go on. Ratio = webgpu / cuda in the sense of
** "higher is better" (for the chain, cuda's time over webgpu's).
**
**   bench-webgpu [--quick] [--transfers] [DEVICE_A [DEVICE_B]]    default: webgpu cuda
**
** --quick shrinks the compute workloads for a software driver (lavapipe on
** a few cores): add of 16 MiB operands, matmul 1024^3, conv2d of batch 2,
** three dispatches a repetition; the chain and the transfers are unchanged.
** Its rows name the sizes run. --transfers runs only the write and read
** rows (the staging sweeps of bench/run-gpu.sh).
*/
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "wnn/wnn.h"

enum { N_WORK = 8 };
static const char *const work_names[2][N_WORK] = {
    {"add f32, 1 GiB per operand (TB/s)", "matmul 4096^3 f32 (TFLOP/s)", "conv2d 3x3 [32,64,56,56]->64 f32 (TFLOP/s)",
     "10-op chain [1024] f32, dispatch+finish (us)", "write 256 MiB (GB/s)", "read 256 MiB (GB/s)",
     "matmul 4096^3 f16 (TFLOP/s)", "conv2d 3x3 [32,64,56,56]->64 f16 (TFLOP/s)"},
    {"add f32, 16 MiB per operand (TB/s)", "matmul 1024^3 f32 (TFLOP/s)", "conv2d 3x3 [2,64,56,56]->64 f32 (TFLOP/s)",
     "10-op chain [1024] f32, dispatch+finish (us)", "write 256 MiB (GB/s)", "read 256 MiB (GB/s)",
     "matmul 1024^3 f16 (TFLOP/s)", "conv2d 3x3 [2,64,56,56]->64 f16 (TFLOP/s)"},
};
static bool quick, transfers_only;
static const bool higher_better[N_WORK] = {true, true, true, false, true, true, true, true};
static bool is_transfer(int w) { return w == 4 || w == 5; }

/* A failed call: the message goes into why, the workload's figure is 0. */
static char why[256];

static bool ok(wnn_status st, const char *what)
{
    if (st == WNN_OK)
        return true;
    snprintf(why, sizeof why, "%s: %s", what, wnn_last_error_message());
    return false;
}

static wnn_tensor *tensor(wnn_context *ctx, wnn_data_type dt, uint32_t rank, const uint32_t *shape)
{
    wnn_tensor_desc d = WNN_TENSOR_DESC_INIT;
    d.data_type = dt;
    d.rank = rank;
    d.readable = d.writable = true;
    memcpy(d.shape, shape, rank * sizeof *shape);
    wnn_tensor *t = NULL;
    return ok(wnn_context_create_tensor(ctx, &d, &t), "create tensor") ? t : NULL;
}

/* Best seconds per dispatch of g over its inputs and output, `iters` a repetition. */
static double time_graph(wnn_context *ctx, wnn_graph *g, wnn_named_tensor *in, size_t n_in, wnn_named_tensor *out,
                         int iters)
{
    for (int i = 0; i < 2; i++)
        if (!ok(wnn_context_dispatch(ctx, g, in, n_in, out, 1), "dispatch"))
            return 0;
    if (!ok(wnn_context_finish(ctx), "finish"))
        return 0;
    double best = 1e300;
    for (int rep = 0; rep < 3; rep++) {
        double t0 = bench_now_ns();
        for (int i = 0; i < iters; i++)
            if (!ok(wnn_context_dispatch(ctx, g, in, n_in, out, 1), "dispatch"))
                return 0;
        if (!ok(wnn_context_finish(ctx), "finish"))
            return 0;
        double t = (bench_now_ns() - t0) * 1e-9 / iters;
        best = t < best ? t : best;
    }
    return best;
}

/* Builds the graph of `work` over inputs named a and b, runs it, returns its figure. */
static double run_graph(wnn_context *ctx, int work)
{
    wnn_data_type dt = work >= 6 ? WNN_DATA_TYPE_FLOAT16 : WNN_DATA_TYPE_FLOAT32;
    if (work >= 6)
        work -= 5; /* the float32 workload of the same shape */
    wnn_graph_builder *b = NULL;
    if (!ok(wnn_graph_builder_create(ctx, &b), "builder"))
        return 0;
    uint32_t sa[4] = {0}, sb[4] = {0}, so[4] = {0}, rank = 1;
    double flops = 0, bytes = 0;
    int iters = 10;
    wnn_operand *y = NULL;
    if (work == 0 || work == 3) { /* add, or the chain */
        uint32_t n = work == 3 ? 1024 : quick ? 1u << 22 : 1u << 28;
        sa[0] = sb[0] = so[0] = n;
        wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, 1, {n}};
        wnn_operand *x = wnn_graph_builder_input(b, "a", &d), *z = wnn_graph_builder_input(b, "b", &d);
        y = wnn_add(b, x, z);
        for (int i = 1; work == 3 && i < 10; i++) /* nine more: mul, relu, add, ... */
            y = i % 3 == 0 ? wnn_relu(b, y) : i % 3 == 1 ? wnn_mul(b, y, z) : wnn_add(b, y, x);
        bytes = 3.0 * n * sizeof(float);
        iters = work == 3 ? 200 : quick ? 3 : 10;
    } else if (work == 1) {
        const uint32_t n = quick ? 1024 : 4096;
        iters = quick ? 3 : 10;
        rank = 2;
        sa[0] = sa[1] = sb[0] = sb[1] = so[0] = so[1] = n;
        wnn_operand_desc d = {dt, 2, {n, n}};
        y = wnn_matmul(b, wnn_graph_builder_input(b, "a", &d), wnn_graph_builder_input(b, "b", &d));
        flops = 2.0 * n * n * n;
    } else {
        rank = 4;
        const uint32_t nb = quick ? 2 : 32, in[4] = {nb, 64, 56, 56}, f[4] = {64, 64, 3, 3};
        memcpy(sa, in, sizeof in), memcpy(sb, f, sizeof f), memcpy(so, in, sizeof in);
        wnn_operand_desc di = {dt, 4, {nb, 64, 56, 56}}, df = {dt, 4, {64, 64, 3, 3}};
        iters = quick ? 3 : 10;
        wnn_conv2d_options o = WNN_CONV2D_OPTIONS_INIT;
        o.padding[0] = o.padding[1] = o.padding[2] = o.padding[3] = 1;
        y = wnn_conv2d(b, wnn_graph_builder_input(b, "a", &di), wnn_graph_builder_input(b, "b", &df), &o);
        flops = 2.0 * nb * 64 * 56 * 56 * 64 * 9;
    }
    wnn_named_operand named = {"y", y};
    wnn_graph *g = NULL;
    bool built = ok(wnn_graph_builder_build(b, &named, 1, &g), "build");
    wnn_graph_builder_release(b);
    if (!built)
        return 0;
    wnn_tensor *ta = tensor(ctx, dt, rank, sa), *tb = ta ? tensor(ctx, dt, rank, sb) : NULL,
               *ty = tb ? tensor(ctx, dt, rank, so) : NULL;
    double t = 0;
    if (ty != NULL) {
        wnn_named_tensor ins[2] = {{"a", ta}, {"b", tb}}, out = {"y", ty};
        t = time_graph(ctx, g, ins, 2, &out, iters);
    }
    wnn_tensor_release(ta), wnn_tensor_release(tb), wnn_tensor_release(ty);
    wnn_graph_release(g);
    if (t <= 0)
        return 0;
    return work == 0 ? bytes / t * 1e-12 : work == 3 ? t * 1e6 : flops / t * 1e-12;
}

static double run_transfer(wnn_context *ctx, bool write)
{
    const uint32_t n = 1u << 26; /* 256 MiB of float32 */
    float *host = malloc((size_t)n * sizeof *host);
    wnn_tensor *t = host ? tensor(ctx, WNN_DATA_TYPE_FLOAT32, 1, &n) : NULL;
    double best = 0;
    if (t != NULL) {
        for (size_t i = 0; i < n; i++)
            host[i] = (float)(i & 1023);
        best = 1e300;
        for (int rep = 0; rep < 4 && best > 0; rep++) { /* the first is a warm-up */
            double t0 = bench_now_ns();
            bool done = write ? ok(wnn_context_write_tensor(ctx, t, host, (size_t)n * 4), "write") &&
                                    ok(wnn_context_finish(ctx), "finish")
                              : ok(wnn_context_read_tensor_sync(ctx, t, host, (size_t)n * 4), "read");
            double s = (bench_now_ns() - t0) * 1e-9;
            best = !done ? 0 : rep == 0 || s > best ? best : s;
        }
        best = best > 0 && best < 1e300 ? (double)n * 4 / best * 1e-9 : 0;
    }
    wnn_tensor_release(t);
    free(host);
    return best;
}

static void measure(const char *device, double *fig, char reasons[N_WORK][256])
{
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.device = device;
    wnn_context *ctx = NULL;
    why[0] = '\0';
    bool opened = ok(wnn_context_create(&o, &ctx), "context");
    for (int w = 0; w < N_WORK; w++) {
        if (opened && !(transfers_only && !is_transfer(w))) {
            why[0] = '\0';
            fig[w] = is_transfer(w) ? run_transfer(ctx, w == 4) : run_graph(ctx, w);
            (void)wnn_context_finish(ctx); /* a refused workload leaves nothing queued */
        } else {
            fig[w] = 0;
        }
        snprintf(reasons[w], 256, "%s", fig[w] > 0 ? "" : why);
    }
    wnn_context_release(ctx);
}

int main(int argc, char **argv)
{
    int a = 1;
    for (; argc > a && strncmp(argv[a], "--", 2) == 0; a++) {
        if (strcmp(argv[a], "--quick") == 0)
            quick = true;
        else if (strcmp(argv[a], "--transfers") == 0)
            transfers_only = true;
        else
            return fprintf(stderr, "bench-webgpu: unknown option %s\n", argv[a]), 2;
    }
    const char *dev[2] = {argc > a ? argv[a] : "webgpu", argc > a + 1 ? argv[a + 1] : "cuda"};
    double fig[2][N_WORK];
    static char reasons[2][N_WORK][256];
    for (int d = 0; d < 2; d++)
        measure(dev[d], fig[d], reasons[d]);
    printf("| workload | %s | %s | %s / %s |\n|---|---:|---:|---:|\n", dev[0], dev[1], dev[0], dev[1]);
    for (int w = 0; w < N_WORK; w++) {
        if (transfers_only && !is_transfer(w))
            continue;
        char cell[2][64];
        for (int d = 0; d < 2; d++)
            snprintf(cell[d], sizeof cell[d], fig[d][w] > 0 ? "%.4g" : "-", fig[d][w]);
        double ratio = fig[0][w] > 0 && fig[1][w] > 0
                           ? (higher_better[w] ? fig[0][w] / fig[1][w] : fig[1][w] / fig[0][w])
                           : 0;
        char r[32];
        snprintf(r, sizeof r, ratio > 0 ? "%.2f" : "-", ratio);
        printf("| %s | %s | %s | %s |\n", work_names[quick][w], cell[0], cell[1], r);
        for (int d = 0; d < 2; d++)
            if (reasons[d][w][0])
                printf("  (%s: %s)\n", dev[d], reasons[d][w]);
    }
    return 0;
}
