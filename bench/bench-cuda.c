/* SPDX-License-Identifier: Apache-2.0 */
/*
** bench-cuda.c -- the cuda device beside what the same hardware does through
** the CUDA runtime and cuBLAS directly:
**
**   add float32, 1 GiB per operand     TB/s (reads + writes) beside a
**                                      device-to-device cudaMemcpy of 1 GiB;
**                                      also relu(a + b) * 2, fused into one kernel
**   10-operator element-wise chain     microseconds per dispatch, end to end
**   matmul 8192^3 float32 / float16    TFLOP/s beside cublasSgemm / cublasGemmEx
**   conv2d 3x3, 64 channels, 56x56     TFLOP/s (peer: a separate script), alone
**                                      and with bias + relu (cuDNN's fused epilogue;
**                                      WNN_CUDA_CUDNN=0 for im2col + cuBLAS)
**   create + destroy a tensor          ns after warm-up, beside cudaMalloc+cudaFree
**   write / read, 64 KiB .. 256 MiB    GB/s from pageable memory, wnn_context_alloc_host and
**                                      wnn_context_register_host memory, beside cudaMemcpyAsync
**                                      from pageable and pinned memory (WNN_CUDA_STAGING_KIB and
**                                      WNN_CUDA_COPY_THREADS tune the staging)
**
** Peers that need PyTorch are measured by a separate script; their column
** is "-" here. Prints "no cuda device" and exits 0 where there is none.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "wnn/wnn.h"

#ifdef WNN_HAVE_CUDA
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#endif

static bool have_cuda(void)
{
    uint32_t n = wnn_device_count();
    for (uint32_t i = 0; i < n; i++) {
        wnn_device_info info;
        if (wnn_device_get_info(i, &info) == WNN_OK && strcmp(info.name, "cuda") == 0)
            return true;
    }
    return false;
}

#ifdef WNN_HAVE_CUDA

#define MUST(x)                                                                                       \
    do {                                                                                              \
        if ((x) != WNN_OK) {                                                                          \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #x, wnn_last_error_message()); \
            exit(1);                                                                                  \
        }                                                                                             \
    } while (0)

#define MUST_CUDA(x)                                                                                  \
    do {                                                                                              \
        if ((x) != 0) {                                                                               \
            fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #x);                            \
            exit(1);                                                                                  \
        }                                                                                             \
    } while (0)

static void row(const char *what, double ours, const char *unit, double peer, const char *peer_name, bool higher_better)
{
    if (peer > 0)
        printf("%-46s %12.3f %-7s %12.3f %-7s %-30s ratio %6.3f%s\n", what, ours, unit, peer, unit, peer_name,
               ours / peer, higher_better ? "" : " (lower is better)");
    else
        printf("%-46s %12.3f %-7s %12s %-7s %-30s\n", what, ours, unit, "-", "", peer_name);
}

static wnn_context *open_cuda(void)
{
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.device = "cuda";
    wnn_context *ctx = NULL;
    MUST(wnn_context_create(&o, &ctx));
    return ctx;
}

static wnn_tensor *tensor(wnn_context *ctx, wnn_data_type t, uint32_t rank, const uint32_t *shape)
{
    wnn_tensor_desc d = {t, rank, {0}, true, true, false};
    memcpy(d.shape, shape, rank * sizeof *shape);
    wnn_tensor *x = NULL;
    MUST(wnn_context_create_tensor(ctx, &d, &x));
    return x;
}

static double seconds_since(double t0) { return (bench_now_ns() - t0) * 1e-9; }

/* ---- add, 1 GiB per operand ------------------------------------------------------------- */

static void bench_add(wnn_context *ctx, bool fused)
{
    const uint32_t n = 1u << 28; /* 1 GiB of float32 */
    wnn_graph_builder *b;
    MUST(wnn_graph_builder_create(ctx, &b));
    wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, 1, {n}};
    wnn_operand *x = wnn_graph_builder_input(b, "a", &d), *y = wnn_graph_builder_input(b, "b", &d);
    /* fused: relu(a + b) * 2, three operators in one kernel */
    wnn_operand *two = wnn_graph_builder_constant_scalar(b, WNN_DATA_TYPE_FLOAT32, 2.0);
    wnn_named_operand out = {"c", fused ? wnn_mul(b, wnn_relu(b, wnn_add(b, x, y)), two) : wnn_add(b, x, y)};
    wnn_graph *g = NULL;
    MUST(wnn_graph_builder_build(b, &out, 1, &g));
    wnn_graph_builder_release(b);
    wnn_tensor *ta = tensor(ctx, WNN_DATA_TYPE_FLOAT32, 1, &n), *tb = tensor(ctx, WNN_DATA_TYPE_FLOAT32, 1, &n),
               *tc = tensor(ctx, WNN_DATA_TYPE_FLOAT32, 1, &n);
    wnn_named_tensor in[2] = {{"a", ta}, {"b", tb}}, o = {"c", tc};
    for (int i = 0; i < 3; i++)
        MUST(wnn_context_dispatch(ctx, g, in, 2, &o, 1));
    MUST(wnn_context_finish(ctx));
    const int iters = 20;
    double best = 1e300;
    for (int rep = 0; rep < 3; rep++) {
        double t0 = bench_now_ns();
        for (int i = 0; i < iters; i++)
            MUST(wnn_context_dispatch(ctx, g, in, 2, &o, 1));
        MUST(wnn_context_finish(ctx));
        double t = seconds_since(t0) / iters;
        best = t < best ? t : best;
    }
    double ours = 3.0 * n * sizeof(float) / best * 1e-12;

    /* the peer: a device-to-device copy of 1 GiB (2 GiB moved) */
    void *src = NULL, *dst = NULL;
    size_t bytes = (size_t)n * sizeof(float);
    MUST_CUDA(cudaMalloc(&src, bytes));
    MUST_CUDA(cudaMalloc(&dst, bytes));
    MUST_CUDA(cudaMemset(src, 1, bytes));
    for (int i = 0; i < 3; i++)
        MUST_CUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));
    MUST_CUDA(cudaDeviceSynchronize());
    double peer_best = 1e300;
    for (int rep = 0; rep < 3; rep++) {
        double t0 = bench_now_ns();
        for (int i = 0; i < iters; i++)
            MUST_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, 0));
        MUST_CUDA(cudaDeviceSynchronize());
        double t = seconds_since(t0) / iters;
        peer_best = t < peer_best ? t : peer_best;
    }
    double peer = 2.0 * bytes / peer_best * 1e-12;
    cudaFree(src);
    cudaFree(dst);
    row(fused ? "(a+b).relu()*2 f32, 1 GiB each, fused (TB/s)" : "add f32, 1 GiB per operand (TB/s moved)", ours,
        "TB/s", peer, "cudaMemcpy D2D 1 GiB", true);
    wnn_tensor_release(ta);
    wnn_tensor_release(tb);
    wnn_tensor_release(tc);
    wnn_graph_release(g);
    MUST(wnn_context_finish(ctx));
    wnn_context_trim_memory(ctx);
}

/* ---- a 10-operator chain on small tensors --------------------------------------------------- */

static void bench_chain(wnn_context *ctx)
{
    const uint32_t n = 1024;
    wnn_graph_builder *b;
    MUST(wnn_graph_builder_create(ctx, &b));
    wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, 1, {n}};
    wnn_operand *x = wnn_graph_builder_input(b, "x", &d);
    wnn_operand *h = wnn_graph_builder_constant_scalar(b, WNN_DATA_TYPE_FLOAT32, 0.5);
    wnn_operand *v = wnn_add(b, x, h);           /* 1 */
    v = wnn_mul(b, v, x);                        /* 2 */
    v = wnn_sub(b, v, h);                        /* 3 */
    v = wnn_relu(b, v);                          /* 4 */
    v = wnn_sigmoid(b, v);                       /* 5 */
    v = wnn_max(b, v, x);                        /* 6 */
    v = wnn_tanh(b, v);                          /* 7 */
    v = wnn_abs(b, v);                           /* 8 */
    v = wnn_div(b, v, wnn_add(b, h, h));         /* 9, 10 */
    wnn_named_operand out = {"y", v};
    wnn_graph *g = NULL;
    MUST(wnn_graph_builder_build(b, &out, 1, &g));
    wnn_graph_builder_release(b);
    wnn_tensor *tx = tensor(ctx, WNN_DATA_TYPE_FLOAT32, 1, &n), *ty = tensor(ctx, WNN_DATA_TYPE_FLOAT32, 1, &n);
    wnn_named_tensor bi = {"x", tx}, bo = {"y", ty};
    for (int i = 0; i < 50; i++)
        MUST(wnn_context_dispatch(ctx, g, &bi, 1, &bo, 1));
    MUST(wnn_context_finish(ctx));
    /* queued back to back (CUDA-graph replay after the first two) */
    const int iters = 5000;
    double best = 1e300;
    for (int rep = 0; rep < 5; rep++) {
        double t0 = bench_now_ns();
        for (int i = 0; i < iters; i++)
            MUST(wnn_context_dispatch(ctx, g, &bi, 1, &bo, 1));
        MUST(wnn_context_finish(ctx));
        double t = seconds_since(t0) / iters;
        best = t < best ? t : best;
    }
    row("10-op chain [1024] f32, queued (us/dispatch)", best * 1e6, "us", 0, "PyTorch eager: separate script", false);
    /* one at a time: dispatch then wait */
    best = 1e300;
    for (int rep = 0; rep < 5; rep++) {
        double t0 = bench_now_ns();
        for (int i = 0; i < 1000; i++) {
            MUST(wnn_context_dispatch(ctx, g, &bi, 1, &bo, 1));
            MUST(wnn_context_finish(ctx));
        }
        double t = seconds_since(t0) / 1000;
        best = t < best ? t : best;
    }
    row("10-op chain [1024] f32, dispatch+finish (us)", best * 1e6, "us", 0, "PyTorch eager: separate script", false);
    wnn_tensor_release(tx);
    wnn_tensor_release(ty);
    wnn_graph_release(g);
}

/* ---- matmul 8192^3 ------------------------------------------------------------------------- */

static void bench_matmul(wnn_context *ctx, wnn_data_type t)
{
    const uint32_t n = 8192;
    const uint32_t shape[2] = {n, n};
    wnn_graph_builder *b;
    MUST(wnn_graph_builder_create(ctx, &b));
    wnn_operand_desc d = {t, 2, {n, n}};
    wnn_operand *x = wnn_graph_builder_input(b, "a", &d), *y = wnn_graph_builder_input(b, "b", &d);
    wnn_named_operand out = {"c", wnn_matmul(b, x, y)};
    wnn_graph *g = NULL;
    MUST(wnn_graph_builder_build(b, &out, 1, &g));
    wnn_graph_builder_release(b);
    wnn_tensor *ta = tensor(ctx, t, 2, shape), *tb = tensor(ctx, t, 2, shape), *tc = tensor(ctx, t, 2, shape);
    /* random data: zeros run faster than real data */
    size_t es = t == WNN_DATA_TYPE_FLOAT16 ? 2 : 4, bytes = (size_t)n * n * es;
    unsigned char *host = malloc(bytes);
    uint64_t s = 88172645463325252ull;
    for (size_t i = 0; i < (size_t)n * n; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        float v = (float)((double)(s >> 11) * 0x1p-53 * 2.0 - 1.0);
        if (es == 4) {
            memcpy(host + i * 4, &v, 4);
        } else { /* binary16 of v in [-1, 1): sign, exponent, 10 mantissa bits */
            uint16_t h = 0;
            float a = fabsf(v);
            if (a >= 0x1p-14f) {
                int e;
                float m = frexpf(a, &e); /* a = m * 2^e, m in [0.5, 1) */
                h = (uint16_t)(((e - 1 + 15) << 10) | ((uint32_t)((m * 2.0f - 1.0f) * 1024.0f) & 0x3ffu));
            }
            if (v < 0)
                h |= 0x8000u;
            memcpy(host + i * 2, &h, 2);
        }
    }
    MUST(wnn_context_write_tensor(ctx, ta, host, bytes));
    MUST(wnn_context_write_tensor(ctx, tb, host, bytes));
    wnn_named_tensor in[2] = {{"a", ta}, {"b", tb}}, o = {"c", tc};
    for (int i = 0; i < 3; i++)
        MUST(wnn_context_dispatch(ctx, g, in, 2, &o, 1));
    MUST(wnn_context_finish(ctx));
    const int iters = t == WNN_DATA_TYPE_FLOAT16 ? 20 : 5;
    double best = 1e300;
    for (int rep = 0; rep < 3; rep++) {
        double t0 = bench_now_ns();
        for (int i = 0; i < iters; i++)
            MUST(wnn_context_dispatch(ctx, g, in, 2, &o, 1));
        MUST(wnn_context_finish(ctx));
        double dt = seconds_since(t0) / iters;
        best = dt < best ? dt : best;
    }
    double flops = 2.0 * n * (double)n * n, ours = flops / best * 1e-12;

    /* the peer: the same product through cuBLAS directly */
    void *a = NULL, *bm = NULL, *c = NULL;
    MUST_CUDA(cudaMalloc(&a, bytes));
    MUST_CUDA(cudaMalloc(&bm, bytes));
    MUST_CUDA(cudaMalloc(&c, bytes));
    MUST_CUDA(cudaMemcpy(a, host, bytes, cudaMemcpyHostToDevice));
    MUST_CUDA(cudaMemcpy(bm, host, bytes, cudaMemcpyHostToDevice));
    cublasHandle_t h;
    MUST_CUDA(cublasCreate(&h));
    MUST_CUDA(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
    float alpha = 1.0f, beta = 0.0f;
    double peer_best = 1e300;
    for (int rep = 0; rep < 4; rep++) {
        double t0 = bench_now_ns();
        for (int i = 0; i < iters; i++) {
            if (t == WNN_DATA_TYPE_FLOAT32)
                MUST_CUDA(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)n, (int)n, (int)n, &alpha, bm, (int)n, a,
                                      (int)n, &beta, c, (int)n));
            else
                MUST_CUDA(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)n, (int)n, (int)n, &alpha, bm, CUDA_R_16F,
                                       (int)n, a, CUDA_R_16F, (int)n, &beta, c, CUDA_R_16F, (int)n, CUBLAS_COMPUTE_32F,
                                       CUBLAS_GEMM_DEFAULT));
        }
        MUST_CUDA(cudaDeviceSynchronize());
        double dt = seconds_since(t0) / iters;
        if (rep > 0) /* the first repetition warms cuBLAS up */
            peer_best = dt < peer_best ? dt : peer_best;
    }
    double peer = flops / peer_best * 1e-12;
    cublasDestroy(h);
    cudaFree(a);
    cudaFree(bm);
    cudaFree(c);
    free(host);
    char what[64];
    snprintf(what, sizeof what, "matmul 8192^3 %s (TFLOP/s)", t == WNN_DATA_TYPE_FLOAT16 ? "f16" : "f32");
    row(what, ours, "TFLOP/s", peer, t == WNN_DATA_TYPE_FLOAT16 ? "cublasGemmEx f16, f32 acc" : "cublasSgemm", true);
    wnn_tensor_release(ta);
    wnn_tensor_release(tb);
    wnn_tensor_release(tc);
    wnn_graph_release(g);
    MUST(wnn_context_finish(ctx));
    wnn_context_trim_memory(ctx);
}

/* ---- conv2d 3x3, ResNet-like ------------------------------------------------------------------ */

/* With relu, the conv takes a bias [64] and feeds a relu (the fused epilogue). */
static void bench_conv(wnn_context *ctx, wnn_data_type t, bool relu)
{
    const uint32_t n = 32, c = 64, h = 56, w = 56;
    const uint32_t xs[4] = {n, c, h, w}, fs[4] = {c, c, 3, 3};
    wnn_graph_builder *b;
    MUST(wnn_graph_builder_create(ctx, &b));
    wnn_operand_desc xd = {t, 4, {n, c, h, w}}, fd = {t, 4, {c, c, 3, 3}};
    wnn_operand_desc bd = {t, 1, {c}};
    wnn_operand *x = wnn_graph_builder_input(b, "x", &xd), *f = wnn_graph_builder_input(b, "f", &fd);
    wnn_conv2d_options o = WNN_CONV2D_OPTIONS_INIT;
    o.padding[0] = o.padding[1] = o.padding[2] = o.padding[3] = 1;
    if (relu)
        o.bias = wnn_graph_builder_input(b, "b", &bd);
    wnn_operand *y = wnn_conv2d(b, x, f, &o);
    wnn_named_operand out = {"y", relu ? wnn_relu(b, y) : y};
    wnn_graph *g = NULL;
    MUST(wnn_graph_builder_build(b, &out, 1, &g));
    wnn_graph_builder_release(b);
    const uint32_t bs[1] = {c};
    wnn_tensor *tx = tensor(ctx, t, 4, xs), *tf = tensor(ctx, t, 4, fs), *ty = tensor(ctx, t, 4, xs);
    wnn_tensor *tb = tensor(ctx, t, 1, bs);
    wnn_named_tensor in[3] = {{"x", tx}, {"f", tf}, {"b", tb}}, bo = {"y", ty};
    uint32_t n_in = relu ? 3 : 2;
    for (int i = 0; i < 3; i++)
        MUST(wnn_context_dispatch(ctx, g, in, n_in, &bo, 1));
    MUST(wnn_context_finish(ctx));
    const int iters = 20;
    double best = 1e300;
    for (int rep = 0; rep < 3; rep++) {
        double t0 = bench_now_ns();
        for (int i = 0; i < iters; i++)
            MUST(wnn_context_dispatch(ctx, g, in, n_in, &bo, 1));
        MUST(wnn_context_finish(ctx));
        double dt = seconds_since(t0) / iters;
        best = dt < best ? dt : best;
    }
    double flops = 2.0 * n * c * h * w * c * 9;
    char what[80];
    snprintf(what, sizeof what, "conv2d 3x3 [32,64,56,56]%s %s (TFLOP/s)", relu ? " +bias+relu" : "",
             t == WNN_DATA_TYPE_FLOAT16 ? "f16" : "f32");
    row(what, flops / best * 1e-12, "TFLOP/s", 0, "cuDNN via PyTorch: separate script", true);
    wnn_tensor_release(tx);
    wnn_tensor_release(tf);
    wnn_tensor_release(ty);
    wnn_tensor_release(tb);
    wnn_graph_release(g);
}

/* ---- tensors: create + destroy, write, read ------------------------------------------------ */

typedef struct rig {
    wnn_context *ctx;
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

static void malloc_free_device(void *arg, long iters)
{
    for (long i = 0; i < iters; i++) {
        void *p = NULL;
        if (cudaMalloc(&p, 32 * 32 * 4) != cudaSuccess)
            abort();
        cudaFree(p);
    }
}

static void bench_transfers(wnn_context *ctx);

static void bench_tensors(wnn_context *ctx)
{
    rig r = {ctx};
    create_destroy(&r, 1000);
    MUST(wnn_context_finish(ctx));
    double ours = bench_best_ns(create_destroy, &r, 20000, 5);
    double peer = bench_best_ns(malloc_free_device, NULL, 2000, 3);
    row("create+destroy tensor 4 KiB (ns)", ours, "ns", peer, "cudaMalloc+cudaFree", false);
    MUST(wnn_context_finish(ctx));

    bench_transfers(ctx);
}

/* ---- transfers: wnn's write and read beside the CUDA runtime's copies --------------------- */

/* Best of reps seconds of a write + finish and of a blocking read of n bytes
** between t and host. */
static void time_wnn(wnn_context *ctx, wnn_tensor *t, unsigned char *host, size_t n, int reps, double *w, double *r)
{
    *w = *r = 1e300;
    for (int rep = 0; rep < reps; rep++) {
        double t0 = bench_now_ns();
        MUST(wnn_context_write_tensor(ctx, t, host, n));
        MUST(wnn_context_finish(ctx));
        double dt = seconds_since(t0);
        *w = dt < *w ? dt : *w;
        t0 = bench_now_ns();
        MUST(wnn_context_read_tensor_sync(ctx, t, host, n));
        dt = seconds_since(t0);
        *r = dt < *r ? dt : *r;
    }
}

/* The same through the runtime alone: cudaMemcpyAsync + synchronize, what
** PyTorch's copy_ does (from pinned memory the DMA engine's own rate). */
static void time_cuda(void *dev, unsigned char *host, size_t n, int reps, double *w, double *r)
{
    *w = *r = 1e300;
    for (int rep = 0; rep < reps; rep++) {
        double t0 = bench_now_ns();
        MUST_CUDA(cudaMemcpyAsync(dev, host, n, cudaMemcpyHostToDevice, 0));
        MUST_CUDA(cudaStreamSynchronize(0));
        double dt = seconds_since(t0);
        *w = dt < *w ? dt : *w;
        t0 = bench_now_ns();
        MUST_CUDA(cudaMemcpyAsync(host, dev, n, cudaMemcpyDeviceToHost, 0));
        MUST_CUDA(cudaStreamSynchronize(0));
        dt = seconds_since(t0);
        *r = dt < *r ? dt : *r;
    }
}

static wnn_tensor *bytes_tensor(wnn_context *ctx, size_t n)
{
    uint32_t len = (uint32_t)n;
    return tensor(ctx, WNN_DATA_TYPE_UINT8, 1, &len);
}

/* Writes a pattern from src, reads it back into dst; says whether it came back. */
static bool round_trip_ok(wnn_context *ctx, wnn_tensor *t, unsigned char *src, unsigned char *dst, size_t n)
{
    for (size_t i = 0; i < n; i++)
        src[i] = (unsigned char)(i * 7 + (i >> 20));
    memset(dst, 0, n);
    if (wnn_context_write_tensor(ctx, t, src, n) != WNN_OK || wnn_context_read_tensor_sync(ctx, t, dst, n) != WNN_OK)
        return false;
    return memcmp(src, dst, n) == 0;
}

static void bench_transfers(wnn_context *ctx)
{
    const size_t big = (size_t)256 << 20;
    unsigned char *pageable = malloc(big), *pinned = NULL, *peer_pinned = NULL, *registered = NULL;
    void *dev = NULL;
    memset(pageable, 1, big);
    MUST(wnn_context_alloc_host(ctx, big, (void **)&pinned));
    memset(pinned, 1, big);
    MUST_CUDA(cudaMallocHost((void **)&peer_pinned, big));
    memset(peer_pinned, 1, big);
    registered = aligned_alloc(4096, big);
    memset(registered, 1, big);
    double t0 = bench_now_ns();
    MUST(wnn_context_register_host(ctx, registered, big));
    printf("register_host 256 MiB took %.1f ms (once per buffer)\n", seconds_since(t0) * 1e3);
    MUST_CUDA(cudaMalloc(&dev, big));

    /* where staging through several threads starts to pay: every size,
    ** pageable, beside the runtime's own pageable and pinned copies */
    static const size_t sizes[] = {(size_t)64 << 10, (size_t)256 << 10, (size_t)1 << 20, (size_t)2 << 20,
                                   (size_t)4 << 20, (size_t)16 << 20, (size_t)64 << 20, (size_t)256 << 20};
    printf("transfer sweep (GB/s): bytes, wnn write pageable, cudaMemcpy pageable, wnn write pinned, cudaMemcpy pinned "
           "| the same for reads\n");
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        size_t n = sizes[i];
        int reps = n < ((size_t)4 << 20) ? 50 : 5;
        wnn_tensor *t = bytes_tensor(ctx, n);
        double w[4], r[4];
        time_wnn(ctx, t, pageable, n, 1, &w[0], &r[0]); /* warm-up: the staging ring, the pool */
        time_wnn(ctx, t, pageable, n, reps, &w[0], &r[0]);
        time_cuda(dev, pageable, n, reps, &w[1], &r[1]);
        time_wnn(ctx, t, pinned, n, reps, &w[2], &r[2]);
        time_cuda(dev, peer_pinned, n, reps, &w[3], &r[3]);
        printf("  sweep %9zu  write %6.1f %6.1f %6.1f %6.1f | read %6.1f %6.1f %6.1f %6.1f\n", n, n / w[0] * 1e-9,
               n / w[1] * 1e-9, n / w[2] * 1e-9, n / w[3] * 1e-9, n / r[0] * 1e-9, n / r[1] * 1e-9, n / r[2] * 1e-9,
               n / r[3] * 1e-9);
        wnn_tensor_release(t);
    }

    /* the 256 MiB rows, beside the pinned cudaMemcpyAsync (PyTorch's pinned
    ** copy_ comes from gpu_peers.py) */
    wnn_tensor *t = bytes_tensor(ctx, big);
    double pw, pr, w, r;
    time_cuda(dev, peer_pinned, big, 5, &pw, &pr);
    time_wnn(ctx, t, pageable, big, 5, &w, &r);
    row("write 256 MiB pageable (GB/s)", big / w * 1e-9, "GB/s", big / pw * 1e-9, "cudaMemcpyAsync H2D, pinned", true);
    row("read 256 MiB pageable (GB/s)", big / r * 1e-9, "GB/s", big / pr * 1e-9, "cudaMemcpyAsync D2H, pinned", true);
    time_wnn(ctx, t, pinned, big, 5, &w, &r);
    row("write 256 MiB alloc_host (GB/s)", big / w * 1e-9, "GB/s", big / pw * 1e-9, "cudaMemcpyAsync H2D, pinned", true);
    row("read 256 MiB alloc_host (GB/s)", big / r * 1e-9, "GB/s", big / pr * 1e-9, "cudaMemcpyAsync D2H, pinned", true);
    time_wnn(ctx, t, registered, big, 5, &w, &r);
    row("write 256 MiB register_host (GB/s)", big / w * 1e-9, "GB/s", big / pw * 1e-9, "cudaMemcpyAsync H2D, pinned",
        true);
    row("read 256 MiB register_host (GB/s)", big / r * 1e-9, "GB/s", big / pr * 1e-9, "cudaMemcpyAsync D2H, pinned",
        true);
    /* the figures mean nothing if the bytes did not make it */
    bool ok = round_trip_ok(ctx, t, pageable, pinned, big) && round_trip_ok(ctx, t, pinned, registered, big) &&
              round_trip_ok(ctx, t, registered, pageable, big);
    printf("transfer check 256 MiB pageable/alloc_host/register_host round trips: %s\n", ok ? "ok" : "FAILED");
    wnn_tensor_release(t);

    MUST(wnn_context_unregister_host(ctx, registered));
    MUST(wnn_context_free_host(ctx, pinned));
    cudaFree(dev);
    cudaFreeHost(peer_pinned);
    free(registered);
    free(pageable);
}

#endif /* WNN_HAVE_CUDA */

int main(int argc, char **argv)
{
    if (!have_cuda()) {
        printf("no cuda device\n");
        return 0;
    }
#ifdef WNN_HAVE_CUDA
    const char *only = argc > 1 ? argv[1] : NULL; /* add, chain, matmul, conv, tensors, transfers */
    wnn_context *ctx = open_cuda();
    wnn_device_info info;
    MUST(wnn_context_get_device_info(ctx, &info));
    printf("device: %s\n", info.description);
    printf("%-46s %20s %20s %-30s\n", "what", "ours", "peer", "peer is");
    if (!only || !strcmp(only, "add")) {
        bench_add(ctx, false);
        bench_add(ctx, true);
    }
    if (!only || !strcmp(only, "chain"))
        bench_chain(ctx);
    if (!only || !strcmp(only, "matmul")) {
        bench_matmul(ctx, WNN_DATA_TYPE_FLOAT32);
        bench_matmul(ctx, WNN_DATA_TYPE_FLOAT16);
    }
    if (!only || !strcmp(only, "conv")) {
        bench_conv(ctx, WNN_DATA_TYPE_FLOAT32, false);
        bench_conv(ctx, WNN_DATA_TYPE_FLOAT16, false);
        bench_conv(ctx, WNN_DATA_TYPE_FLOAT32, true);
        bench_conv(ctx, WNN_DATA_TYPE_FLOAT16, true);
    }
    if (!only || !strcmp(only, "tensors"))
        bench_tensors(ctx);
    else if (!strcmp(only, "transfers"))
        bench_transfers(ctx);
    wnn_context_release(ctx);
#else
    (void)argc;
    (void)argv;
#endif
    return 0;
}
