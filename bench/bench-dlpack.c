/* SPDX-License-Identifier: Apache-2.0 */
/*
** bench-dlpack.c -- what a DLPack exchange costs: a zero-copy export +
** import + release round trip of a 32x32 float32 tensor (versioned and
** legacy, no stream and stream -1), beside the peer that does no exchange
** at all, creating and destroying a wnn tensor of the same shape (the
** allocator's hot path, no memcpy). Both run in this process on the same
** context, so the ratio is what the exchange adds to plain tensor
** bookkeeping.
*/
#include <stdlib.h>

#include "bench.h"
#include "wnn/dlpack.h"
#include "wnn/wnn.h"

typedef struct {
    wnn_context *ctx;
    wnn_tensor *t;
    wnn_dlpack_export_options export_options;
    wnn_dlpack_import_options import_options;
} rig;

static void round_trip(void *arg, long iters)
{
    rig *r = arg;
    for (long i = 0; i < iters; i++) {
        void *m;
        wnn_tensor *u;
        if (wnn_tensor_export_dlpack(r->t, &r->export_options, &m) != WNN_OK ||
            wnn_context_import_dlpack(r->ctx, m, &r->import_options, &u) != WNN_OK)
            abort();
        wnn_tensor_release(u); /* runs the export's deleter */
    }
}

/* The halves: export and hand back, and import and release. */
static void export_only(void *arg, long iters)
{
    rig *r = arg;
    for (long i = 0; i < iters; i++) {
        void *m;
        if (wnn_tensor_export_dlpack(r->t, &r->export_options, &m) != WNN_OK)
            abort();
        ((DLManagedTensorVersioned *)m)->deleter(m);
    }
}

static void noop_deleter(DLManagedTensorVersioned *m) { (void)m; }

static void import_only(void *arg, long iters)
{
    rig *r = arg;
    static float data[32 * 32];
    static int64_t shape[2] = {32, 32}, strides[2] = {32, 1};
    for (long i = 0; i < iters; i++) {
        DLManagedTensorVersioned m = {{1, 0}, NULL, noop_deleter, 0,
                                      {data, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape, strides, 0}};
        wnn_tensor *u;
        if (wnn_context_import_dlpack(r->ctx, &m, &r->import_options, &u) != WNN_OK)
            abort();
        wnn_tensor_release(u);
    }
}

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

static void run(const char *device, const char *what, bool legacy, bool no_sync, double peer)
{
    rig r = {0};
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.device = device;
    wnn_tensor_desc d = {WNN_DATA_TYPE_FLOAT32, 2, {32, 32}, true, true, false};
    if (wnn_context_create(&o, &r.ctx) != WNN_OK || wnn_context_create_tensor(r.ctx, &d, &r.t) != WNN_OK)
        abort();
    r.export_options = (wnn_dlpack_export_options)WNN_DLPACK_EXPORT_OPTIONS_INIT;
    r.export_options.legacy = legacy;
    r.export_options.has_stream = no_sync;
    r.export_options.stream = WNN_DLPACK_STREAM_NO_SYNC;
    r.import_options = (wnn_dlpack_import_options)WNN_DLPACK_IMPORT_OPTIONS_INIT;
    r.import_options.legacy = legacy;
    r.import_options.copy = WNN_DLPACK_COPY_NEVER; /* prove it is zero-copy */
    round_trip(&r, 1000);                         /* warm-up */
    wnn_context_finish(r.ctx);
    double ns = bench_best_ns(round_trip, &r, 20000, 7);
    char label[96];
    snprintf(label, sizeof label, "%s: export+import+release, %s", device, what);
    bench_row(label, ns, "create+release tensor", peer);
    if (!legacy && !no_sync) {
        snprintf(label, sizeof label, "%s:   export + deleter", device);
        bench_row(label, bench_best_ns(export_only, &r, 20000, 7), "create+release tensor", peer);
        if (r.export_options.device_type == 0 && o.device[0] == 'c') {
            snprintf(label, sizeof label, "%s:   import + release (host memory)", device);
            bench_row(label, bench_best_ns(import_only, &r, 20000, 7), "create+release tensor", peer);
        }
    }
    wnn_context_finish(r.ctx);
    wnn_tensor_release(r.t);
    wnn_context_release(r.ctx);
}

int main(void)
{
    static const char *const devices[] = {"cpu", "null"};
    for (int i = 0; i < 2; i++) {
        rig r = {0};
        wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
        o.device = devices[i];
        if (wnn_context_create(&o, &r.ctx) != WNN_OK)
            abort();
        create_destroy(&r, 1000);
        double peer = bench_best_ns(create_destroy, &r, 20000, 7);
        wnn_context_release(r.ctx);
        run(devices[i], "versioned, no stream", false, false, peer);
        run(devices[i], "versioned, stream -1", false, true, peer);
        run(devices[i], "legacy, no stream", true, false, peer);
    }
    return 0;
}
