/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-dlpack-cuda.c -- DLPack on the cuda device: exports are (kDLCUDA,
** ordinal) and zero-copy, round trips keep the pointer, foreign cudaMalloc
** memory is wrapped without a copy (its deleter runs once, at release),
** host memory and host targets are copies, and a consumer's stream is
** ordered after the producer's queued work by an event (a long matmul chain
** still running when the consumer's cudaMemcpyAsync is queued).
**
** Exits 77 (skipped) when no cuda device is present.
*/
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "test.h"
#include "wnn/dlpack.h"
#include "wnn/wnn.h"

#ifndef WNN_HAVE_CUDA
int main(void)
{
    printf("no cuda device (built without the cuda backend)\n");
    return 77;
}
#else

#include <cuda_runtime_api.h>

static wnn_context *ctx;
static int ordinal;

static wnn_tensor *new_tensor(uint32_t rows, uint32_t cols)
{
    wnn_tensor_desc d = WNN_TENSOR_DESC_INIT;
    d.rank = 2;
    d.shape[0] = rows;
    d.shape[1] = cols;
    d.readable = d.writable = true;
    wnn_tensor *t = NULL;
    CHECK_OK(wnn_context_create_tensor(ctx, &d, &t));
    return t;
}

static void fill(float *v, size_t n, float base)
{
    for (size_t i = 0; i < n; i++)
        v[i] = base + (float)(i % 13);
}

static bool equal(const float *a, const float *b, size_t n)
{
    return memcmp(a, b, n * sizeof *a) == 0;
}

static DLManagedTensorVersioned *export_of(wnn_tensor *t, bool has_stream, int64_t stream, int32_t device_type)
{
    wnn_dlpack_export_options o = WNN_DLPACK_EXPORT_OPTIONS_INIT;
    o.has_stream = has_stream;
    o.stream = stream;
    o.device_type = device_type;
    void *m = NULL;
    CHECK_OK(wnn_tensor_export_dlpack(t, &o, &m));
    return m;
}

/* ---- wnn's own memory ---------------------------------------------------------------- */

static void round_trip(void)
{
    enum { R = 4, C = 5, N = R * C };
    float in[N], out[N];
    fill(in, N, 1.0f);
    wnn_tensor *t = new_tensor(R, C);
    CHECK_OK(wnn_context_write_tensor(ctx, t, in, sizeof in));
    DLManagedTensorVersioned *m = export_of(t, false, 0, 0);
    if (!m)
        return;
    CHECK_EQ_INT(m->dl_tensor.device.device_type, kDLCUDA);
    CHECK_EQ_INT(m->dl_tensor.device.device_id, ordinal);
    CHECK_EQ_INT(m->flags & DLPACK_FLAG_BITMASK_IS_COPIED, 0);
    void *ptr = m->dl_tensor.data;
    /* no stream: the value is complete when the export returns */
    CHECK_EQ_INT(cudaMemcpy(out, ptr, sizeof out, cudaMemcpyDeviceToHost), cudaSuccess);
    CHECK(equal(in, out, N));

    /* back into the same context: wrapped, same memory */
    wnn_dlpack_import_options io = WNN_DLPACK_IMPORT_OPTIONS_INIT;
    io.copy = WNN_DLPACK_COPY_NEVER;
    wnn_tensor *u = NULL;
    CHECK_OK(wnn_context_import_dlpack(ctx, m, &io, &u));
    if (u) {
        DLManagedTensorVersioned *again = export_of(u, false, 0, 0);
        if (again) {
            CHECK(again->dl_tensor.data == ptr);
            again->deleter(again);
        }
        memset(out, 0, sizeof out);
        CHECK_OK(wnn_context_read_tensor_sync(ctx, u, out, sizeof out));
        CHECK(equal(in, out, N));
        wnn_tensor_release(u);
    }

    /* to host memory: a copy, flagged */
    DLManagedTensorVersioned *h = export_of(t, false, 0, kDLCPU);
    if (h) {
        CHECK_EQ_INT(h->dl_tensor.device.device_type, kDLCPU);
        CHECK_EQ_INT(h->dl_tensor.device.device_id, 0);
        CHECK(h->flags & DLPACK_FLAG_BITMASK_IS_COPIED);
        CHECK(h->dl_tensor.data != ptr);
        CHECK(equal(in, h->dl_tensor.data, N));
        h->deleter(h);
    }
    /* a host target takes no device stream; 0 is ambiguous on CUDA */
    wnn_dlpack_export_options o = WNN_DLPACK_EXPORT_OPTIONS_INIT;
    void *bad = NULL;
    o.device_type = kDLCPU;
    o.has_stream = true;
    o.stream = 1;
    CHECK_STATUS(wnn_tensor_export_dlpack(t, &o, &bad), WNN_STATUS_INVALID_ARGUMENT);
    o.device_type = 0;
    o.stream = 0;
    CHECK_STATUS(wnn_tensor_export_dlpack(t, &o, &bad), WNN_STATUS_INVALID_ARGUMENT);
    /* stream -1: no ordering; finish orders it */
    DLManagedTensorVersioned *nosync = export_of(t, true, WNN_DLPACK_STREAM_NO_SYNC, 0);
    if (nosync) {
        CHECK_OK(wnn_context_finish(ctx));
        CHECK_EQ_INT(cudaMemcpy(out, nosync->dl_tensor.data, sizeof out, cudaMemcpyDeviceToHost), cudaSuccess);
        CHECK(equal(in, out, N));
        nosync->deleter(nosync);
    }
    wnn_tensor_release(t);
}

/* ---- foreign memory --------------------------------------------------------------------- */

static atomic_int foreign_deleted;

typedef struct foreign {
    DLManagedTensorVersioned m;
    int64_t shape[2];
} foreign;

static void delete_foreign(DLManagedTensorVersioned *m)
{
    foreign *f = m->manager_ctx;
    cudaFree(m->dl_tensor.data);
    free(f);
    atomic_fetch_add(&foreign_deleted, 1);
}

static foreign *make_foreign(int32_t type, void *data, int64_t rows, int64_t cols)
{
    foreign *f = calloc(1, sizeof *f);
    f->shape[0] = rows;
    f->shape[1] = cols;
    f->m.version = (DLPackVersion){1, 0};
    f->m.manager_ctx = f;
    f->m.deleter = delete_foreign;
    f->m.dl_tensor = (DLTensor){data, {(DLDeviceType)type, type == kDLCUDA ? ordinal : 0}, 2,
                                {kDLFloat, 32, 1}, f->shape, NULL, 0};
    return f;
}

static void wait_deleted(int want)
{
    for (int i = 0; i < 1000 && atomic_load(&foreign_deleted) < want; i++)
        nanosleep(&(struct timespec){0, 1000000}, NULL);
}

static void foreign_memory(void)
{
    enum { R = 64, C = 33, N = R * C };
    static float in[N], out[N];
    fill(in, N, 7.0f);
    void *dev = NULL;
    CHECK_EQ_INT(cudaMalloc(&dev, sizeof in), cudaSuccess);
    CHECK_EQ_INT(cudaMemcpy(dev, in, sizeof in, cudaMemcpyHostToDevice), cudaSuccess);
    foreign *f = make_foreign(kDLCUDA, dev, R, C);
    wnn_dlpack_import_options io = WNN_DLPACK_IMPORT_OPTIONS_INIT;
    io.copy = WNN_DLPACK_COPY_NEVER;
    wnn_tensor *t = NULL;
    atomic_store(&foreign_deleted, 0);
    CHECK_OK(wnn_context_import_dlpack(ctx, &f->m, &io, &t));
    if (!t)
        return;
    CHECK_OK(wnn_context_read_tensor_sync(ctx, t, out, sizeof out));
    CHECK(equal(in, out, N));
    DLManagedTensorVersioned *e = export_of(t, false, 0, 0);
    if (e) {
        CHECK(e->dl_tensor.data == dev); /* no copy either way */
        e->deleter(e);
    }
    /* wnn writes through to the producer's memory */
    for (int i = 0; i < N; i++)
        in[i] = -in[i];
    CHECK_OK(wnn_context_write_tensor(ctx, t, in, sizeof in));
    if ((e = export_of(t, false, 0, 0))) { /* the value is on the device once exported */
        CHECK(e->dl_tensor.data == dev);
        CHECK_EQ_INT(cudaMemcpy(out, dev, sizeof out, cudaMemcpyDeviceToHost), cudaSuccess);
        CHECK(equal(in, out, N));
        e->deleter(e);
    }
    CHECK_EQ_INT(atomic_load(&foreign_deleted), 0);
    wnn_tensor_release(t);
    CHECK_OK(wnn_context_finish(ctx));
    wait_deleted(1);
    CHECK_EQ_INT(atomic_load(&foreign_deleted), 1);

    /* host memory into cuda: a copy, or COPY_FORBIDDEN */
    float *host = malloc(sizeof in);
    memcpy(host, in, sizeof in);
    DLManagedTensorVersioned hm = {{1, 0}, NULL, NULL, 0,
                                   {host, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, (int64_t[]){R, C}, NULL, 0}};
    CHECK_STATUS(wnn_context_import_dlpack(ctx, &hm, &io, &t), WNN_STATUS_COPY_FORBIDDEN);
    io.copy = WNN_DLPACK_COPY_IF_NEEDED;
    CHECK_OK(wnn_context_import_dlpack(ctx, &hm, &io, &t));
    if (t) {
        memset(out, 0, sizeof out);
        CHECK_OK(wnn_context_read_tensor_sync(ctx, t, out, sizeof out));
        CHECK(equal(in, out, N));
        wnn_tensor_release(t);
    }
    free(host);

    /* device memory of no device wnn knows (a host pointer claiming kDLCUDA) */
    float bogus[4] = {0};
    foreign *g = make_foreign(kDLCUDA, NULL, 2, 2);
    g->m.dl_tensor.data = bogus;
    g->m.deleter = NULL;
    CHECK_STATUS(wnn_context_import_dlpack(ctx, &g->m, NULL, &t), WNN_STATUS_UNSUPPORTED_DEVICE);
    free(g);
}

/* ---- streams ------------------------------------------------------------------------------ */

enum { SN = 2048, CHAIN = 48 };

/* y = x I I ... I (CHAIN matrix products of SN x SN float32: tens of ms) */
static wnn_graph *chain_graph(void)
{
    wnn_graph_builder *b = NULL;
    CHECK_OK(wnn_graph_builder_create(ctx, &b));
    wnn_operand_desc d = WNN_OPERAND_DESC_INIT;
    d.rank = 2;
    d.shape[0] = d.shape[1] = SN;
    float *eye = calloc((size_t)SN * SN, sizeof *eye);
    for (size_t i = 0; i < SN; i++)
        eye[i * SN + i] = 1.0f;
    wnn_operand *x = wnn_graph_builder_input(b, "x", &d);
    wnn_operand *id = wnn_graph_builder_constant(b, &d, eye, (size_t)SN * SN * sizeof *eye);
    free(eye);
    for (int i = 0; i < CHAIN; i++)
        x = wnn_matmul(b, x, id);
    wnn_named_operand out = {"y", x};
    wnn_graph *g = NULL;
    CHECK_OK(wnn_graph_builder_build(b, &out, 1, &g));
    wnn_graph_builder_release(b);
    return g;
}

static void stream_order(int64_t which)
{
    size_t n = (size_t)SN * SN, bytes = n * sizeof(float);
    float *in = malloc(bytes), *stale = malloc(bytes), *out = NULL;
    fill(in, n, 1.0f);
    for (size_t i = 0; i < n; i++)
        stale[i] = -1.0f;
    CHECK_EQ_INT(cudaMallocHost((void **)&out, bytes), cudaSuccess);
    wnn_graph *g = chain_graph();
    wnn_tensor *x = new_tensor(SN, SN), *y = new_tensor(SN, SN);
    cudaStream_t consumer = NULL;
    if (which > 2)
        CHECK_EQ_INT(cudaStreamCreate(&consumer), cudaSuccess);
    int64_t stream = which > 2 ? (int64_t)(uintptr_t)consumer : which;
    cudaStream_t on = which == 1 ? cudaStreamLegacy : which == 2 ? cudaStreamPerThread : consumer;
    CHECK_OK(wnn_context_write_tensor(ctx, x, in, bytes));
    CHECK_OK(wnn_context_write_tensor(ctx, y, stale, bytes));
    CHECK_OK(wnn_context_finish(ctx));
    int pending = 0;
    for (int round = 0; round < 3 && g; round++) {
        /* y = stale first, then the chain: a read not ordered after the
        ** chain sees -1 (or a partial result, also wrong: there is none) */
        CHECK_OK(wnn_context_write_tensor(ctx, y, stale, bytes));
        wnn_named_tensor bi = {"x", x}, bo = {"y", y};
        CHECK_OK(wnn_context_dispatch(ctx, g, &bi, 1, &bo, 1));
        DLManagedTensorVersioned *m = export_of(y, true, stream, 0);
        if (!m)
            break;
        memset(out, 0, bytes);
        CHECK_EQ_INT(cudaMemcpyAsync(out, m->dl_tensor.data, bytes, cudaMemcpyDeviceToHost, on), cudaSuccess);
        if (cudaStreamQuery(on) == cudaErrorNotReady)
            pending++;
        CHECK_EQ_INT(cudaStreamSynchronize(on), cudaSuccess);
        CHECK(equal(in, out, n));
        m->deleter(m);
    }
    printf("stream %s: the consumer's copy was still waiting for the producer in %d of 3 rounds\n",
           which == 1 ? "1 (legacy)" : which == 2 ? "2 (per-thread)" : "cudaStreamCreate", pending);
    CHECK_OK(wnn_context_finish(ctx));
    wnn_tensor_release(x);
    wnn_tensor_release(y);
    wnn_graph_release(g);
    if (consumer)
        cudaStreamDestroy(consumer);
    cudaFreeHost(out);
    free(in);
    free(stale);
}

static void streams(void)
{
    stream_order(3);
    stream_order(1);
    stream_order(2);
}

int main(void)
{
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.device = "cuda";
    if (wnn_context_create(&o, &ctx) != WNN_OK) {
        printf("no cuda device\n");
        return 77;
    }
    wnn_device_info info;
    CHECK_OK(wnn_context_get_device_info(ctx, &info));
    ordinal = info.dlpack_device_id;
    CHECK_EQ_INT(info.dlpack_device_type, kDLCUDA);
    CHECK_EQ_INT(cudaSetDevice(ordinal), cudaSuccess);
    round_trip();
    foreign_memory();
    streams();
    wnn_context_release(ctx);
    TEST_DONE();
}

#endif
